//! Stepping aside: a unit at rest in front of a busy door's mouth waits beside it
//! ([`in_lane`]). Part of [`decide_at`](super::decide_at).
//!
//! The units entering a door converge onto its axis in front of the mouth. A unit at rest
//! there (at its goal, yielding to those on their way) was pushed ahead of them into the
//! passage, where its order reopened and it headed back against them with the right of way:
//! in a wall 3 thick, both sides were inside the door for 52 ticks. So while a door has units
//! approaching or inside it, a unit at rest in a mouth's **lane** (below) waits at a place of
//! that side's waiting block, as a waiter does, its goal kept as the path it resumes; it
//! walks back once nobody relates to the door any more.

use super::{Choke, Doors, TrafficParams, half};
use crate::math::{Fx, Vec2};

/// How deep a mouth's lane reaches out of the door, in radii of the planned-for unit: two
/// diameters, where the units let through in single file close onto the portal's axis.
const LANE_RADII: i32 = 4;

/// The side of the door keyed by choke `key` in whose mouth's lane a unit of `radius` at `q`
/// stands, if any: its centre out of the door in front of that mouth, nearer the mouth's
/// line than [`LANE_RADII`] radii (of [`TrafficParams::radius`]), and its disc overlapping
/// the strip as wide as the mouth along the mouth's normal. A centre inside the door's passage
/// or behind a mouth's line is in no lane (a unit sent into a door stays there and yields).
pub(super) fn in_lane(
    params: &TrafficParams,
    doors: &Doors,
    key: usize,
    q: Vec2,
    radius: Fx,
) -> Option<u8> {
    let depth = params.r(Fx::from_num(LANE_RADII));
    (0..2u8).find(|&side| {
        let (mouth, out) = doors.mouth(key, side);
        lane_holds(&mouth, out, depth, q, radius)
    })
}

/// Whether `q` lies in the lane of `mouth` on its side `out`: see [`in_lane`].
fn lane_holds(mouth: &Choke, out: u8, depth: Fx, q: Vec2, radius: Fx) -> bool {
    let width = (mouth.b - mouth.a).length();
    let across = half(width).saturating_add(radius);
    let to = q - mouth.mid();
    // Cheap reject (also keeps the products below in range): beyond the lane's box.
    if to.max_abs_component() > depth.saturating_add(across) {
        return false;
    }
    let n = mouth.normal(out);
    let along = to.dot(n);
    along > Fx::ZERO && along < depth && to.dot(n.perp()).abs() < across
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane of a mouth 1.3 wide on the line x = 1.5 (its outer side east): two
    /// diameters deep for radius 0.5, the mouth's width plus the unit's radius either side.
    #[test]
    fn the_lane_is_the_strip_in_front_of_the_mouth() {
        let mouth = Choke {
            a: Vec2::new(Fx::lit("1.5"), Fx::lit("-0.65")),
            b: Vec2::new(Fx::lit("1.5"), Fx::lit("0.65")),
        };
        // Left of a → b (upwards) is west: the east side is side 1.
        let east = 1;
        assert!(mouth.normal(east).x > Fx::ZERO);
        let (depth, r) = (Fx::from_num(2), Fx::lit("0.5"));
        let at = |x: &str, y: &str| Vec2::new(Fx::lit(x), Fx::lit(y));
        let holds = |p: Vec2| lane_holds(&mouth, east, depth, p, r);
        assert!(holds(at("3", "0")));
        assert!(holds(at("3.49", "1.14")));
        assert!(!holds(at("3", "1.15")), "its disc clear of the strip");
        assert!(!holds(at("3.5", "0")), "two diameters out");
        assert!(!holds(at("1.5", "0")), "on the mouth's line");
        assert!(!holds(at("1", "0")), "behind the mouth");
        assert!(!holds(at("-3", "0")), "the other side");
        assert!(!holds(at("3000", "0")));
    }
}

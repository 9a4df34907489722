//! Stepping aside: a unit at rest in front of a busy door's mouth waits beside it
//! ([`Lanes`]). Part of [`decide_at`](super::decide_at).
//!
//! The units entering a door converge onto its axis in front of the mouth. A unit at rest
//! there (at its goal, yielding to those on their way) was pushed ahead of them into the
//! passage, where its order reopened and it headed back against them with the right of way:
//! in a wall 3 thick, both sides were inside the door for 52 ticks. So while a door is busy
//! (anyone related to it), a unit at rest standing or resting in one of its mouths' **lanes**
//! (below) waits beside the lane, as a waiter does, its goal kept as the path it resumes; it
//! walks back once the door is no longer busy.

use super::{Choke, Doors, TrafficParams, half};
use crate::math::{Fx, Vec2};

/// How deep a mouth's lane reaches out of the door, in radii of the planned-for unit: two
/// diameters, where the units let through in single file close onto the portal's axis.
const LANE_RADII: i32 = 4;

/// The farthest out of a mouth (in radii of the planned-for unit) a place beside its lane is
/// level with: a bound for rest points from anywhere (the public [`decide`](super::decide)).
const FARTHEST_RADII: i32 = 1024;

/// The lanes of the busy doors' mouths, sorted by the least x of their boxes (built once per
/// tick).
pub(super) struct Lanes {
    list: Vec<Lane>,
    /// The widest box along x.
    widest: Fx,
    depth: Fx,
}

/// One mouth's lane.
struct Lane {
    /// The box holding every point of the lane a disc of radius up to `depth` can overlap:
    /// `(x0, x1, y0, y1)`.
    bounds: (Fx, Fx, Fx, Fx),
    door: usize,
    side: u8,
    mouth: Choke,
    /// The side of the mouth facing out of the door.
    out: u8,
    /// Half the mouth's width.
    half_width: Fx,
}

impl Lanes {
    /// The lanes of both mouths of each door keyed by the chokes `busy` (ascending).
    pub(super) fn new(params: &TrafficParams, doors: &Doors, busy: &[usize]) -> Self {
        let depth = params.r(Fx::from_num(LANE_RADII));
        let mut list = Vec::with_capacity(2 * busy.len());
        for &door in busy {
            for side in 0..2u8 {
                let (mouth, out) = doors.mouth(door, side);
                let half_width = half((mouth.b - mouth.a).length());
                // The lane runs `depth` out of the mouth; a disc overlaps it from up to
                // `half_width + radius` across (the radius bounded here by `depth`).
                let reach = depth.saturating_add(half_width).saturating_add(depth);
                let m = mouth.mid();
                let bounds = (
                    m.x.saturating_sub(reach),
                    m.x.saturating_add(reach),
                    m.y.saturating_sub(reach),
                    m.y.saturating_add(reach),
                );
                list.push(Lane {
                    bounds,
                    door,
                    side,
                    mouth,
                    out,
                    half_width,
                });
            }
        }
        list.sort_by_key(|l| (l.bounds.0, l.door, l.side));
        let widest = list
            .iter()
            .map(|l| l.bounds.1.saturating_sub(l.bounds.0))
            .max()
            .unwrap_or(Fx::ZERO);
        Self {
            list,
            widest,
            depth,
        }
    }

    /// The door (its key choke) and side in whose mouth's lane a unit of `radius` resting at
    /// `q` stands, if any: its centre out of the door in front of that mouth, nearer the
    /// mouth's line than [`LANE_RADII`] radii (of [`TrafficParams::radius`]), and its disc
    /// overlapping the strip as wide as the mouth along the mouth's normal. A centre inside
    /// the door's passage or behind a mouth's line is in no lane (a unit sent into a door
    /// stays there and yields). Of several, the least door (then side).
    pub(super) fn at(&self, q: Vec2, radius: Fx) -> Option<(usize, u8)> {
        let end = self.list.partition_point(|l| l.bounds.0 <= q.x);
        let from = q.x.saturating_sub(self.widest);
        self.list[..end]
            .iter()
            .rev()
            .take_while(|l| l.bounds.0 >= from)
            .filter(|l| {
                let (x0, x1, y0, y1) = l.bounds;
                (x0..=x1).contains(&q.x) && (y0..=y1).contains(&q.y)
            })
            .filter(|l| lane_holds(l, self.depth, q, radius.min(self.depth)))
            .map(|l| (l.door, l.side))
            .min()
    }

    /// The places a unit of `radius` resting at `q`, in the lane of door `door`'s mouth on
    /// side `side`, tries to wait at, in order: beside the lane, level with `q` (at least
    /// `1.5 r` out of the mouth), its disc `margin` clear of the
    /// strip, on the hand `left` of the axis, then on the other hand; then the same `2.2 r` farther out of the door, up to
    /// three times; then each of these `2.2 r` farther aside. Never the waiting block's places
    /// by the mouth: the units let through slide along the wall into the mouth from there.
    pub(super) fn beside(
        &self,
        params: &TrafficParams,
        (door, side): (usize, u8),
        q: Vec2,
        (radius, left): (Fx, bool),
        margin: Fx,
    ) -> impl Iterator<Item = Vec2> + use<> {
        let l = self.list.iter().find(|l| l.door == door && l.side == side);
        let (mid, n, along, across) = l.map_or_else(Default::default, |l| {
            let n = l.mouth.normal(l.out);
            let m = l.mouth.mid();
            let to = Vec2::new(q.x.saturating_sub(m.x), q.y.saturating_sub(m.y));
            // Saturating: `q` may come from anywhere through the public `decide`.
            let along =
                to.x.saturating_mul(n.x)
                    .saturating_add(to.y.saturating_mul(n.y))
                    .clamp(
                        params.r(Fx::from_num(3)) / 2,
                        params.r(Fx::from_num(FARTHEST_RADII)),
                    );
            let across = l
                .half_width
                .saturating_add(radius.min(self.depth))
                .saturating_add(margin);
            (l.mouth.mid(), n, along, across)
        });
        let step = params.r(Fx::from_num(11)) / 5;
        let hand = if left { -n.perp() } else { n.perp() };
        let count = if l.is_some() { 16 } else { 0 };
        (0..count).map(move |k: i64| {
            let (aside, out, other) = (k / 8, (k / 2) % 4, k % 2 == 1);
            let h = if other { -hand } else { hand };
            let out = along.saturating_add(step.saturating_mul_int(out));
            let wide = across.saturating_add(step.saturating_mul_int(aside));
            mid + n * out + h * wide
        })
    }
}

/// Whether a disc of `radius` at `q` overlaps `lane`, `depth` deep: see [`Lanes::at`].
fn lane_holds(lane: &Lane, depth: Fx, q: Vec2, radius: Fx) -> bool {
    let to = q - lane.mouth.mid();
    let n = lane.mouth.normal(lane.out);
    let along = to.dot(n);
    along > Fx::ZERO
        && along < depth
        && to.dot(n.perp()).abs() < lane.half_width.saturating_add(radius)
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
        let lane = Lane {
            bounds: (Fx::ZERO, Fx::ZERO, Fx::ZERO, Fx::ZERO),
            door: 0,
            side: 0,
            mouth,
            out: east,
            half_width: Fx::lit("0.65"),
        };
        let (depth, r) = (Fx::from_num(2), Fx::lit("0.5"));
        let at = |x: &str, y: &str| Vec2::new(Fx::lit(x), Fx::lit(y));
        let holds = |p: Vec2| lane_holds(&lane, depth, p, r);
        assert!(holds(at("3", "0")));
        assert!(holds(at("3.49", "1.14")));
        assert!(!holds(at("3", "1.15")), "its disc clear of the strip");
        assert!(!holds(at("3.5", "0")), "two diameters out");
        assert!(!holds(at("1.5", "0")), "on the mouth's line");
        assert!(!holds(at("1", "0")), "behind the mouth");
        assert!(!holds(at("-3", "0")), "the other side");
    }
}

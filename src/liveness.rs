//! Liveness without randomness: deterministic deadlock resolution.
//!
//! ORCA does not understand global deadlock. Exactly symmetric situations (a head-on pair from
//! rest, a ring heading to its antipodes, formations swapping places) and dense jams freeze
//! for ever in exact arithmetic, where RVO2's float noise would eventually shake them loose.
//! Lockstep games cannot add random noise, so in [`Liveness::Resolve`] mode (the default) the
//! simulator resolves them itself. It changes only the **preferred velocity** an agent hands to
//! its linear program (the ORCA half-planes stay RVO2's), from the state before the step:
//! positions, velocities, preferred velocities, stable ids and each agent's stall counter.
//! There is no random number and no float anywhere.
//!
//! # The rules
//! Let `p` be an agent's preferred velocity, `s = |p|`, `d = p / s` its direction and
//! `r = (d.y, −d.x)` its right-hand side. The agent **wants to move** when
//! `s ≥ max_speed / 8` (and `s > 0`).
//!
//! * **Blocker.** Another agent `j` among its neighbours of this tick blocks it when `j` is
//!   ahead (`a = (x_j − x)·d > 0`), on its course (`|l| < R`, with `l = det(d, x_j − x)` and
//!   `R = r_i + r_j`), close (`a < R + s · 2 s`, i.e. two seconds ahead at the preferred
//!   speed), and not leaving at the preferred speed (`v_j · d < s / 2`). The blocker is the
//!   first such neighbour, nearest first (ties by id).
//! * **Passing side** (level 0). When the blocker is nearly dead ahead (`|l| < R / 2`), the
//!   agent veers to its own right: the preferred direction becomes `d + r / 4` (about 14°). Two
//!   agents meeting head-on both veer to their own right, which are opposite world directions,
//!   so they pass each other instead of stopping nose to nose; a ring heading to its centre
//!   turns into a roundabout.
//! * **Making way.** An agent at rest (it does not want to move) steps sideways off the course
//!   of the first neighbour that has been stalled for [`STALL_LEVEL_1`] seconds with this agent
//!   on its course, at half the smaller of their speeds (it counts as yielding).
//! * **Stall.** After a step, an agent that wants to move is *stalled* that tick when its new
//!   velocity makes less than a sixteenth of its preferred speed of progress along `d`
//!   (`v_new · d < min(s, max_speed) / 16`). Its stall counter counts consecutive stalled ticks
//!   (saturating at 65,535) and returns to 0 on the first tick of progress. The counter is
//!   simulation state: it is in the snapshot, the hash and so the replay.
//! * **Escalation** (level 1), stalled for [`STALL_LEVEL_1`] seconds with a blocker ahead
//!   (anywhere on its course, not only dead ahead): the agent veers `d + r / 2` (about 27°).
//!   Without an agent blocker nothing changes: an agent pinned against a wall alone is
//!   reported ([`AgentOutcome::blocked_by_obstacle`](crate::AgentOutcome)) for the game to
//!   repath, not turned (turning near a goal would orbit it for ever).
//! * **Right of way** (level 2), stalled for [`STALL_LEVEL_2`] seconds with a blocker that is
//!   stalled too and has right of way over it: it **yields**, stepping aside to its right and
//!   a little back at half its preferred speed (direction `r − d / 4`) until that blocker is
//!   out of its way. Right of way
//!   goes to the higher [`AgentParams::priority`](crate::AgentParams), ties to the lower id:
//!   a total order, so of two agents blocking each other exactly one yields, and the agent
//!   first in that order in a jam never yields, so the jam drains from it outwards. In a door,
//!   one direction gets the door first, then the other.
//!
//! The new preferred velocity keeps the speed `s` (only its direction turns), so it stays in the
//! domain. [`Liveness::Rvo2`] turns all of this off: the preferred velocity goes to the LP
//! unchanged, stall counters stay 0, and the simulation is RVO2's, bit for bit.

use crate::agent::{AgentId, AgentParams};
use crate::math::{Fx, Vec2, wide_mul};
use serde::{Deserialize, Serialize};

/// Whether the simulator resolves deadlocks (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    /// RVO2's behaviour, exactly: the preferred velocities go to the LP unchanged. Symmetric
    /// scenes and jams may freeze for ever.
    Rvo2,
    /// Deterministic deadlock resolution: passing side, stall detection, escalation and right
    /// of way (the default).
    #[default]
    Resolve,
}

impl Liveness {
    /// The mode's byte in the canonical encoding (0 RVO2, 1 resolve).
    #[must_use]
    pub fn canonical_byte(self) -> u8 {
        match self {
            Self::Rvo2 => 0,
            Self::Resolve => 1,
        }
    }
}

/// Seconds of stall before escalation (level 1).
pub const STALL_LEVEL_1: Fx = Fx::lit("3");
/// Seconds of stall before right of way applies (level 2).
pub const STALL_LEVEL_2: Fx = Fx::lit("6");
/// An agent wants to move when its preferred speed is at least `max_speed / 2^WANT_SHIFT`.
const WANT_SHIFT: u32 = 3;

/// A tick is stalled when the progress along the preferred direction is below
/// `min(s, max_speed) / 2^PROGRESS_SHIFT`.
const PROGRESS_SHIFT: u32 = 4;

/// A yielding agent moves along `r − d / 2^YIELD_BACK_SHIFT`.
const YIELD_BACK_SHIFT: u32 = 2;

/// How far ahead, in seconds at the preferred speed, a blocker is looked for.
pub const LOOKAHEAD: Fx = Fx::lit("2");

/// The stall thresholds of one step in ticks (`ceil(seconds / time_step)`, at least 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    pub level_1: u16,
    pub level_2: u16,
}

fn ticks_for(seconds: Fx, time_step: Fx) -> u16 {
    let (num, den) = (
        i128::from(seconds.to_bits()),
        i128::from(time_step.to_bits()),
    );
    let ticks = (num + den - 1) / den.max(1);
    ticks.clamp(1, i128::from(u16::MAX)) as u16
}

impl Rules {
    pub(crate) fn new(time_step: Fx) -> Self {
        Self {
            level_1: ticks_for(STALL_LEVEL_1, time_step),
            level_2: ticks_for(STALL_LEVEL_2, time_step),
        }
    }
}

/// What the steering of one agent needs to know about it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Me {
    pub id: AgentId,
    pub position: Vec2,
    pub pref: Vec2,
    pub params: AgentParams,
    pub stall: u16,
    /// `pref.length_and_direction()`, computed once per tick by the caller.
    pub dir: Option<(Fx, Vec2)>,
}

/// What the steering reads of a neighbour, field by field when it needs it (the tick reads
/// them from the agents' arrays lazily: most neighbours are rejected on position and radius).
pub(crate) trait Neighbor: Copy {
    fn id(&self) -> AgentId;
    fn position(&self) -> Vec2;
    fn velocity(&self) -> Vec2;
    fn radius(&self) -> Fx;
    fn priority(&self) -> u8;
    fn stall(&self) -> u16;
    fn pref(&self) -> Vec2;
    fn max_speed(&self) -> Fx;
}

/// A neighbour by value (the tests').
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Other {
    pub id: AgentId,
    pub position: Vec2,
    pub velocity: Vec2,
    pub radius: Fx,
    pub priority: u8,
    pub stall: u16,
    pub pref: Vec2,
    pub max_speed: Fx,
}

#[cfg(test)]
impl Neighbor for Other {
    fn id(&self) -> AgentId {
        self.id
    }
    fn position(&self) -> Vec2 {
        self.position
    }
    fn velocity(&self) -> Vec2 {
        self.velocity
    }
    fn radius(&self) -> Fx {
        self.radius
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn stall(&self) -> u16 {
        self.stall
    }
    fn pref(&self) -> Vec2 {
        self.pref
    }
    fn max_speed(&self) -> Fx {
        self.max_speed
    }
}

/// `v / 2^k`, each component truncated toward zero (so `shr(−v) = −shr(v)` exactly).
fn shr(v: Vec2, k: u32) -> Vec2 {
    let d = 1i64 << k;
    Vec2::from_bits(v.x.to_bits() / d, v.y.to_bits() / d)
}

/// `v · s`, each product truncated toward zero (so `scale(−v, s) = −scale(v, s)` exactly).
fn scale(v: Vec2, s: Fx) -> Vec2 {
    let m = |c: Fx| (i128::from(c.to_bits()) * i128::from(s.to_bits()) / (1i128 << 32)) as i64;
    Vec2::from_bits(m(v.x), m(v.y))
}

/// `x / 2`, truncated toward zero (so `half(−x) = −half(x)` exactly).
fn half(x: Fx) -> Fx {
    Fx::from_bits(x.to_bits() / 2)
}

/// The blocker test's geometry: whether a disc at `rel` from an agent moving in direction `d`
/// at speed `s` is on its course (ahead, `|lateral| < reach`, closer than
/// `reach + s · LOOKAHEAD`). Returns the lateral offset `det(d, rel)` if it is.
///
/// The three conditions are tested lateral offset first: a neighbour beside the course (most of
/// them in a ring or a file) is then rejected by one product. The result is the conjunction,
/// whatever the order.
#[inline(always)]
fn on_course(rel: Vec2, d: Vec2, s: Fx, reach: Fx) -> Option<Fx> {
    let lateral = d.det(rel);
    if lateral.abs() >= reach {
        return None;
    }
    let ahead = rel.dot(d);
    // `s · LOOKAHEAD` stays below 3,000 units (components are at most 1,000, so s < 1,415).
    (ahead > Fx::ZERO && ahead < reach + s * LOOKAHEAD).then_some(lateral)
}

/// Whether `s` is a speed the agent wants to move at (`s ≥ max_speed / 8`, `s > 0`).
fn wants_to_move(s: Fx, max_speed: Fx) -> bool {
    s > Fx::ZERO && s >= max_speed >> WANT_SHIFT
}

/// The result of steering one agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Steered {
    /// The preferred velocity handed to the LP.
    pub pref: Vec2,
    /// The agent it yields to, if it yields.
    pub yielding_to: Option<AgentId>,
}

/// `a` has right of way over `b`: higher priority, ties to the lower id.
#[must_use]
pub(crate) fn has_right_of_way(a: (u8, AgentId), b: (u8, AgentId)) -> bool {
    (a.0, std::cmp::Reverse(a.1)) > (b.0, std::cmp::Reverse(b.1))
}

/// Steers one agent (the rules of the [module docs](self)); `neighbors` nearest first.
#[inline]
pub(crate) fn steer<N: Neighbor>(
    me: &Me,
    neighbors: impl Iterator<Item = N>,
    rules: Rules,
) -> Steered {
    let unchanged = Steered {
        pref: me.pref,
        yielding_to: None,
    };
    let moving = me
        .dir
        .filter(|&(s, _)| wants_to_move(s, me.params.max_speed));
    let Some((s, d)) = moving else {
        return make_way(me, neighbors, rules).unwrap_or(unchanged);
    };
    let right = Vec2::new(d.y, -d.x);
    // The first blocker, nearest first.
    let mut blocker = None;
    for o in neighbors {
        let reach = me.params.radius + o.radius();
        if let Some(lateral) = on_course(o.position() - me.position, d, s, reach)
            && o.velocity().dot(d) < s >> 1
        {
            blocker = Some((o, lateral));
            break;
        }
    }
    let turned = |k_shift: u32| -> Vec2 {
        // d + r / 2^k, rescaled to the speed s.
        let dir = d + shr(right, k_shift);
        dir.length_and_direction()
            .map_or(me.pref, |(_, unit)| scale(unit, s))
    };
    if me.stall >= rules.level_2
        && let Some((o, _)) = blocker
        && o.stall() > 0
        && has_right_of_way((o.priority(), o.id()), (me.params.priority, me.id))
    {
        // Yield: aside to the right and a little back, at half the preferred speed.
        let dir = right - shr(d, YIELD_BACK_SHIFT);
        let pref = dir
            .length_and_direction()
            .map_or(me.pref, |(_, unit)| scale(unit, half(s)));
        return Steered {
            pref,
            yielding_to: Some(o.id()),
        };
    }
    if me.stall >= rules.level_1 && blocker.is_some() {
        return Steered {
            pref: turned(1),
            yielding_to: None,
        };
    }
    match blocker {
        Some((o, lateral)) if lateral.abs() < (me.params.radius + o.radius()) >> 1 => Steered {
            pref: turned(2),
            yielding_to: None,
        },
        _ => unchanged,
    }
}

/// An agent at rest (it does not want to move) makes way for the first neighbour, nearest
/// first, that has been stalled for [`STALL_LEVEL_1`] seconds with this agent on its course
/// (the blocker test, from the neighbour's side): it steps sideways off that neighbour's
/// course, to the side it already is on (to the neighbour's left when exactly on it, since the
/// neighbour turns right), at half the smaller of the two speeds.
fn make_way<N: Neighbor>(
    me: &Me,
    neighbors: impl Iterator<Item = N>,
    rules: Rules,
) -> Option<Steered> {
    for o in neighbors {
        if o.stall() < rules.level_1 {
            continue;
        }
        let Some((so, d)) = o
            .pref()
            .length_and_direction()
            .filter(|&(so, _)| wants_to_move(so, o.max_speed()))
        else {
            continue;
        };
        let reach = me.params.radius + o.radius();
        let Some(lateral) = on_course(me.position - o.position(), d, so, reach) else {
            continue;
        };
        let left = d.perp();
        let side = if lateral >= Fx::ZERO { left } else { -left };
        let speed = half(so.min(me.params.max_speed));
        return Some(Steered {
            pref: scale(side, speed),
            yielding_to: Some(o.id()),
        });
    }
    None
}

/// The stall counter after a step, from `stall` before it: incremented (saturating) when the
/// agent wanted to move and its new velocity `new_velocity` made less than a sixteenth of its
/// preferred speed (at most `max_speed`) of progress along its preferred direction, reset
/// otherwise.
///
/// `dir` is the `length_and_direction()` of the agent's own preferred velocity (not the
/// steered one); `None` (a zero preferred velocity) resets the counter.
#[must_use]
pub(crate) fn next_stall(
    stall: u16,
    dir: Option<(Fx, Vec2)>,
    new_velocity: Vec2,
    max_speed: Fx,
) -> u16 {
    let Some((s, d)) = dir else {
        return 0;
    };
    if !wants_to_move(s, max_speed) {
        return 0;
    }
    let progress = new_velocity.dot_wide(d);
    let needed = wide_mul(s.min(max_speed), Fx::ONE) >> PROGRESS_SHIFT;
    if progress < needed {
        stall.saturating_add(1)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_in_ticks_round_up() {
        let r = Rules::new(Fx::lit("0.25"));
        assert_eq!((r.level_1, r.level_2), (12, 24));
        let r = Rules::new(Fx::lit("0.5"));
        assert_eq!((r.level_1, r.level_2), (6, 12));
        let r = Rules::new(Fx::from_num(100));
        assert_eq!((r.level_1, r.level_2), (1, 1));
        let r = Rules::new(Fx::lit("0.125"));
        assert_eq!((r.level_1, r.level_2), (24, 48));
        // 0.001 is not exact in Q32.32 (slightly below): 3,000.0000x ticks round up.
        let r = Rules::new(Fx::lit("0.001"));
        assert_eq!((r.level_1, r.level_2), (3001, 6001));
    }

    #[test]
    fn right_of_way_is_a_total_order() {
        let a = (3, AgentId(9));
        let b = (3, AgentId(2));
        let c = (4, AgentId(50));
        assert!(has_right_of_way(b, a) && !has_right_of_way(a, b));
        assert!(has_right_of_way(c, b) && !has_right_of_way(b, c));
        assert!(!has_right_of_way(a, a));
    }

    fn me(x: i32, pref: Vec2, stall: u16) -> Me {
        Me {
            dir: pref.length_and_direction(),
            id: AgentId(1),
            position: Vec2::from_int(x, 0),
            pref,
            params: AgentParams {
                radius: Fx::lit("0.5"),
                max_speed: Fx::lit("1.5"),
                ..AgentParams::default()
            },
            stall,
        }
    }

    fn other(id: u32, x: i32, y: Fx) -> Other {
        Other {
            id: AgentId(id),
            position: Vec2::new(Fx::from_num(x), y),
            velocity: Vec2::ZERO,
            radius: Fx::lit("0.5"),
            priority: AgentParams::default().priority,
            stall: 1,
            pref: Vec2::ZERO,
            max_speed: Fx::lit("1.5"),
        }
    }

    #[test]
    fn head_on_pairs_veer_to_opposite_world_sides() {
        let rules = Rules::new(Fx::lit("0.1"));
        let a = me(0, Vec2::new(Fx::lit("1.5"), Fx::ZERO), 0);
        let sa = steer(&a, [other(2, 2, Fx::ZERO)].into_iter(), rules);
        let mut b = me(2, Vec2::new(Fx::lit("-1.5"), Fx::ZERO), 0);
        b.id = AgentId(2);
        let sb = steer(&b, [other(1, 0, Fx::ZERO)].into_iter(), rules);
        // A turns to its right (down), B to its right (up): exactly opposite.
        assert!(sa.pref.y < Fx::ZERO && sb.pref.y > Fx::ZERO);
        assert_eq!(sa.pref, -sb.pref);
        // The speed is kept (within the rounding of a unit vector).
        assert!((sa.pref.length() - Fx::lit("1.5")).abs() < Fx::lit("0.000001"));
        // Nobody ahead: unchanged.
        let free = steer(&a, [other(2, -2, Fx::ZERO)].into_iter(), rules);
        assert_eq!(free.pref, a.pref);
        // Off course (beyond the sum of radii sideways): unchanged.
        let aside = steer(&a, [other(2, 2, Fx::lit("1.1"))].into_iter(), rules);
        assert_eq!(aside.pref, a.pref);
    }

    #[test]
    fn a_long_stall_yields_to_right_of_way_only() {
        let rules = Rules::new(Fx::lit("0.1"));
        let mut a = me(0, Vec2::new(Fx::lit("1.5"), Fx::ZERO), rules.level_2);
        a.id = AgentId(5);
        // The blocker has the lower id: a yields, backing off to its right.
        let s = steer(&a, [other(2, 1, Fx::ZERO)].into_iter(), rules);
        assert_eq!(s.yielding_to, Some(AgentId(2)));
        assert!(s.pref.x < Fx::ZERO && s.pref.y < Fx::ZERO);
        // A blocker with a higher id yields to a instead: a keeps pushing, turned.
        let s = steer(&a, [other(9, 1, Fx::ZERO)].into_iter(), rules);
        assert_eq!(s.yielding_to, None);
        assert!(s.pref.x > Fx::ZERO && s.pref.y < Fx::ZERO);
    }

    #[test]
    fn stall_counts_ticks_without_progress() {
        let p = Vec2::new(Fx::ONE, Fx::ZERO);
        let max = Fx::from_num(2);
        assert_eq!(next_stall(0, p.length_and_direction(), Vec2::ZERO, max), 1);
        assert_eq!(
            next_stall(
                7,
                p.length_and_direction(),
                Vec2::new(Fx::lit("0.06"), Fx::ONE),
                max
            ),
            8
        );
        assert_eq!(
            next_stall(
                7,
                p.length_and_direction(),
                Vec2::new(Fx::lit("0.0625"), Fx::ZERO),
                max
            ),
            0
        );
        assert_eq!(
            next_stall(u16::MAX, p.length_and_direction(), Vec2::ZERO, max),
            u16::MAX
        );
        // Not wanting to move never stalls.
        assert_eq!(
            next_stall(7, Vec2::ZERO.length_and_direction(), Vec2::ZERO, max),
            0
        );
        assert_eq!(
            next_stall(
                7,
                Vec2::new(Fx::lit("0.2"), Fx::ZERO).length_and_direction(),
                Vec2::ZERO,
                max
            ),
            0
        );
    }
}

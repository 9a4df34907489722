//! Arrival and the order lifecycle: when an order is done, where its unit rests, and what each
//! step reports ([`OrderStatus`], [`OrderEvent`]).
//!
//! # The rule (stage 1b, every order, from the state only)
//! With `r` the agent's radius, `s` its order speed, `n` the number of orders whose goal has
//! the same bits as this one's (the orders keep the counts), and `dt` the time
//! step:
//!
//! * **No progress.** A tick makes progress when the agent's velocity along the direction to
//!   its current target is at least `s / 16` (exact: `16 · (v · t) ≥ s · |t|`, `t` the vector
//!   to the target, `i128`). The order counts the ticks without progress in a row
//!   (`no_progress`, saturating); an arrived or given-up order does not count, but for one
//!   arrived on its goal and pushed off it.
//! * **Arrived.** A moving order heading for its goal arrives when `|p − goal| ≤ arrive_within`
//!   ([`Steering::arrive_within`](super::Steering::arrive_within), default the radius): its
//!   rest point is then the goal. It also arrives, resting where it stands, when
//!   `|p − goal| ≤ settle(n) = r · (1 + 1.5 · √n)` after [`SETTLE_AFTER`] without progress,
//!   when its goal is shared (`n ≥ 2`): that is how units sent to one point settle around it
//!   instead of pushing for ever. On an earlier leg of its path (a corner before the goal)
//!   the rest of the path, from the unit through the remaining waypoints, must be within
//!   `settle(n)` too, so a unit behind a wall never settles for a goal near in a straight
//!   line only (unless it is queued behind the crowd, "Against the crowd" below). A unit
//!   alone with its goal never settles short of it (RVO2's behaviour: its Circle runs
//!   unchanged).
//! * **Joining the crowd.** A moving order on a shared goal (`n ≥ 2`) within `settle(n)` of it
//!   (in a straight line and along the rest of its path) that touches a unit at rest on the
//!   same goal ahead of it (see below) arrives where it stands at once, progress or not: it
//!   joins the crowd where it meets it instead of pushing through the units at rest (which
//!   give way, as ORCA shares avoidance) to the goal. Without this a unit pushed out of the
//!   settle disc walked back through the crowd to the goal and pushed another one out, again
//!   and again (at time step 0.1, 70 units sent to one point came to rest at tick 989 instead
//!   of 397; of the 18 scenes of the navigation sweep's seeds 16 to 215 that did not finish,
//!   16 now do).
//! * **Against the crowd.** Where walls crowd a shared goal (an obstacle edge within
//!   `settle(n)` of it), the part of the disc that is not wall may not hold the units: those
//!   left outside pushed for ever. So a unit without progress for [`SETTLE_AFTER`] on such a
//!   goal also settles where it stands when it touches a unit at rest on the same goal ahead
//!   of it (their discs within `r / 2`, the other's centre on the side the unit is heading
//!   to) and that it sees (no obstacle edge between it and that unit's centre, or one of the
//!   two sides of its disc: a unit stopped against a thin wall is not queued behind the crowd
//!   on the wall's other side, since the thirty-sixth session), **however far from the
//!   goal** (it is **queued** behind a crowd that fills the space
//!   round its goal; in a street leading to a full yard the queue reaches back up the street
//!   and out of it). The units at rest are read from the state at the start of the stage (in
//!   stage 1b, `sim/orders.rs`), never kept; the walls are the obstacle tree's edges on
//!   either side of the goal. In open ground nothing changes beyond `settle(n)`: the disc is
//!   compact there (`settle(n)` holds the crowd). Until the thirty-fifth session this held
//!   only within twice `settle(n)` (in a straight line and along its path) and with the goal
//!   in the unit's sight beyond the disc: 64 units of radius 0.5 sent down a street into a
//!   walled yard that holds about 50 left up to 11 on their way at 300 s (five runs of six:
//!   three yards, time steps 0.1 and 0.25), those beyond that
//!   reach `Blocked` for good and those in the street pushing the units settled there (which
//!   yielded to them; now traffic control keeps them from yielding to units of their own
//!   goal there, docs/navigation.md § "Doors", the core of a crowd at rest) at 0.4 to 0.8
//!   u/s; now they come to rest in 86.5 to 105.3 s at time steps 0.1 and 0.25
//!   (`settled::a_crowd_larger_than_its_yard_comes_to_rest`). A
//!   crowd pressing in through a door is not held behind it: units at rest near a door
//!   yield to those on their way, so those make progress and never settle there
//!   (`a_crowd_hardly_settles_behind_a_wall_beyond_its_disc`: none at rest behind the wall).
//!   A navigating unit on a partial plan counts as alone with its goal (the window's end): it
//!   never settles short of it.
//! * **Behind a unit at rest.** Two units whose goals lie in one passage too narrow to pass in,
//!   each beyond the other, swapped places for ever: the one on its way shoved the one at rest
//!   ahead of it on past its own goal, arrived, and was shoved back past the other's goal in
//!   turn (twenty-sixth session, sweep seed 779; each phase made progress, so neither was ever
//!   `Blocked`). So a moving order on the last leg to its goal that touches (discs within
//!   `r / 2`) a unit at rest on a goal of its own (an arrived order alone with its goal,
//!   resting within a radius of it, which walks back when pushed off) lying ahead of it and
//!   short of its goal arrives where it stands when the two cannot pass anywhere from the other
//!   unit to the goal: no segment `2 (r + r') · 17/16` long across the way (square to the line
//!   from the unit to its goal) is clear of walls through the other unit's centre, through the
//!   goal, nor through points at most `r` apart between them (three placings each: with the
//!   point a radius from either end, and centred; a goal more than `64 r` beyond the other
//!   unit counts as room). Alone with its goal, it rests there (wanting zero velocity) while
//!   the same holds with the discs within `r`; once it does not (the unit at rest left), it is
//!   `Moving` again, or walks back to its goal by the rule for units stopped beside it. In
//!   open ground, or where any point of that stretch leaves room to pass, nothing changes: the
//!   one at rest gives way and walks back. Never with RVO2's goal rule, nor short of the end
//!   of a partial plan (a window of the way, no goal).
//! * **Blocked.** A moving order without progress for [`BLOCKED_AFTER`] is `Blocked` (a
//!   status and an event; it keeps going). Progress makes it `Moving` again.
//! * **Waiting for a door.** While traffic control holds a navigating unit at a door's waiting
//!   place ([`Simulator::door_wait`](crate::Simulator::door_wait)), its order (a move to that
//!   place) skips this rule: `Moving`, no progress counted, no arrival or event.
//! * **Given up.** With [`Steering::give_up_after`](super::Steering::give_up_after) set (default
//!   never), an order without progress for that long is `GivenUp`: finished, the agent rests
//!   where it stands.
//! * **At rest.** An arrived order whose rest point is its goal steers as it did before it
//!   arrived (the goal rule of the [module docs](super): RVO2's slow-down towards the goal, so
//!   an agent that reached its goal alone comes to rest on it and a pushed one walks back, and
//!   RVO2's scenes keep their trajectories). An order resting elsewhere (settled, or given up)
//!   wants zero velocity (no perturbation): it never pushes, so a settled crowd comes to rest.
//! * **Stopped beside its goal.** Traffic control (navigating units away from doors, in stage
//!   1a of the [tick](crate::tick)) may stop an order arrived on its goal, held back within
//!   `arrive_within` of it, where it stands: its rest point becomes that place, so it wants
//!   zero velocity. Such an order stays arrived while it is within `arrive_within` of its goal
//!   (or `settle(n) + r / 2`, its goal shared); alone with its goal and pushed farther, but
//!   not beyond `3r`, its rest point is its goal again and it walks back by the goal rule.
//! * **Pushed.** An order arrived on its goal and pushed off it (beyond `arrive_within`) walks
//!   back by the goal rule; after [`SETTLE_AFTER`] without progress, its goal shared (and
//!   taken by another unit), or **its goal taken** (a unit at rest near a goal of its own,
//!   within its radius of it, that goal nearer to this one than the two radii), it rests
//!   where it is, and stays so while its goal is taken; so does, at once, a unit within
//!   `arrive_within` of its goal but off it (farther than `r / 32`) and held back there (its
//!   velocity towards the goal under half of what the goal rule asks) whose goal is taken;
//!   that one stays while within `arrive_within` of its goal, as a unit traffic control stopped
//!   beside its goal does, even once its goal is free again. Two goals nearer than two radii
//!   cannot both be rested on, and their units, each steering onto its own, jostled at 0.1 to
//!   0.6 for good (sweep seeds 50 and 219, until the thirty-first session; away from chokes
//!   traffic control stops such a unit beside its goal, near one it did not); pushed more than `3r` from its goal it is
//!   `Moving` again. A settled order (rest ≠ goal) pushed out of `settle(n) + r / 2`
//!   ([`settled_reach`]) is `Moving` again, towards its goal (it arrives again there, or
//!   settles next to it); pushed more than `3r` from its rest point but still within that
//!   reach, it rests where it is now. The half radius beyond the disc it settled in is a margin
//!   against flipping: with none (until the twenty-sixth session), a unit at the crowd's edge
//!   pushed just out of `settle(n)` was `Moving` again, walked back in, joined the crowd, was
//!   pushed out again, every few ticks (sweep seed 17: a crowd of 116 churned for minutes;
//!   in other scenes two units at a crowd's edge flipped for minutes and never finished). A
//!   margin of `3r` did as well in the sweep but let crowds rest well beyond their discs (the
//!   RVO2 Blocks scene then left two units outside its bound). One whose rest point lies
//!   beyond `settle(n)` (settled against the crowd; or pushed more than `3r` within the
//!   margin, which re-rests it there, touching a crowd or not) does the same within twice
//!   `settle(n)` while walls lie within `settle(n)` of the goal (and the goal is in its
//!   sight beyond the disc). A settled unit where walls crowd the goal also stays settled,
//!   wherever it is, while it touches a unit at rest on the same goal ahead of it and sees it
//!   (no wall between them, "Against the crowd"): **at the crowd's edge**, or queued behind
//!   it. At the edge the crowd itself pushed it out, and walking back
//!   in only pushed the next one out (sweep seeds 17 and 37: crowds of 116 and 78 by the
//!   map's edge still churned a minute after every unit had finished, until the thirty-first
//!   session; until the thirty-fifth this held within twice `settle(n)` with the goal in
//!   sight beyond the disc, and a unit queued farther, settled, was `Moving` again the next
//!   tick). So a settled unit never rests farther than `settle(n) + r / 2` from its goal
//!   where no walls crowd the goal; where they do, within twice `settle(n)`, or in the queue
//!   behind the crowd, touching and seeing it. A given-up order pushed more than `3r` rests where it
//!   is.
//!
//! Why `1.5 · √n` rather than the denser `1.1 · √n` of hexagonal packing: ORCA's crowds pack
//! looser (80 units of radius 1.5 sent to one point spread to 17.4 from it, beyond
//! `1.5 · (1 + 1.1 · √80) = 16.3`, and the outer ones then pushed for ever).
//!
//! Nothing here adds a force or a position change: the rule only chooses preferred velocities,
//! and ORCA (with its obstacle lines) decides the motion, so arrival never pushes a unit into a
//! wall.

use super::Heading;
use crate::agent::AgentId;
use crate::math::{Fx, Vec2, sqrt, wide_mul};
use serde::{Deserialize, Serialize};

/// How long (seconds) an order heading for its goal must make no progress within the settle
/// radius before it arrives where it stands: 0.5 s.
pub const SETTLE_AFTER: Fx = Fx::lit("0.5");
/// How long (seconds) a moving order must make no progress to be [`OrderStatus::Blocked`]: 3 s.
pub const BLOCKED_AFTER: Fx = Fx::lit("3");
/// How far (in radii) an arrived unit must be pushed from its rest point before it moves on.
const PUSHED_RADII: i32 = 3;

/// Where an order stands ([`Simulator::order_status`](crate::Simulator::order_status)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OrderStatus {
    /// On its way (the default for a new order).
    #[default]
    Moving,
    /// On its way but without progress for [`BLOCKED_AFTER`] (it keeps trying).
    Blocked,
    /// Arrived: at rest at its goal or settled next to it (finished).
    Arrived,
    /// Given up after [`Steering::give_up_after`](super::Steering::give_up_after) without
    /// progress (finished; the unit rests where it stood).
    GivenUp,
}

impl OrderStatus {
    /// The tag of the canonical encoding: 0 moving, 1 blocked, 2 arrived, 3 given up.
    #[must_use]
    pub fn canonical_byte(self) -> u8 {
        match self {
            Self::Moving => 0,
            Self::Blocked => 1,
            Self::Arrived => 2,
            Self::GivenUp => 3,
        }
    }

    /// Whether the order is finished (arrived or given up).
    #[must_use]
    pub fn is_finished(self) -> bool {
        matches!(self, Self::Arrived | Self::GivenUp)
    }
}

/// What happened to an order in a step ([`Simulator::order_events`](crate::Simulator::order_events)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrderEventKind {
    /// It arrived (at its goal, or settled next to it).
    Arrived,
    /// It became [`OrderStatus::Blocked`].
    Blocked,
    /// It gave up.
    GivenUp,
    /// Pushed away from its rest point (or blocked no more), it is moving again.
    Moving,
}

/// One order's status change in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OrderEvent {
    /// The tick of the step (the tick it started from).
    pub tick: u64,
    /// The agent whose order it is.
    pub id: AgentId,
    /// What happened.
    pub kind: OrderEventKind,
}

impl OrderEvent {
    /// The event of a change from `old` to `new` (`None` when it is no change).
    #[must_use]
    pub(crate) fn of_change(
        tick: u64,
        id: AgentId,
        old: OrderStatus,
        new: OrderStatus,
    ) -> Option<Self> {
        let kind = match new {
            _ if new == old => return None,
            OrderStatus::Moving => OrderEventKind::Moving,
            OrderStatus::Blocked => OrderEventKind::Blocked,
            OrderStatus::Arrived => OrderEventKind::Arrived,
            OrderStatus::GivenUp => OrderEventKind::GivenUp,
        };
        Some(Self { tick, id, kind })
    }
}

/// An order's arrival state, kept across ticks (hashed, snapshotted, replayed with the order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrival {
    /// Where the order stands.
    pub status: OrderStatus,
    /// Ticks in a row without progress (saturating; 0 once arrived or given up).
    pub no_progress: u32,
    /// Where the unit rests once arrived or given up (its goal, or where it settled); zero
    /// while moving.
    pub rest: Vec2,
}

/// What the arrival rule reads besides the order: the agent and the simulator-wide figures.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArrivalInput {
    pub position: Vec2,
    pub velocity: Vec2,
    pub radius: Fx,
    /// The order speed.
    pub speed: Fx,
    pub arrive_within: Fx,
    /// Ticks (ceil) of [`SETTLE_AFTER`], [`BLOCKED_AFTER`] and the give-up time (`u32::MAX`
    /// for never).
    pub settle_ticks: u32,
    pub blocked_ticks: u32,
    pub give_up_ticks: u32,
}

/// `ceil(seconds / dt)` in ticks (exact on the raw bits), at least 1, saturating.
#[must_use]
pub(crate) fn ticks_for(seconds: Fx, dt: Fx) -> u32 {
    let (s, d) = (
        i128::from(seconds.to_bits()),
        i128::from(dt.to_bits()).max(1),
    );
    u32::try_from(((s + d - 1) / d).max(1)).unwrap_or(u32::MAX)
}

/// `settle(n) = r · (1 + 1.5 · √n)`, saturating.
#[must_use]
pub fn settle_radius(radius: Fx, n: u32) -> Fx {
    let root = sqrt(Fx::saturating_from_num(n));
    let factor = Fx::ONE.saturating_add(const { Fx::lit("1.5") }.saturating_mul(root));
    radius.saturating_mul(factor)
}

/// Whether a unit settled short of its shared goal (`n ≥ 2`) stays settled at `p`: within
/// `settle(n) + r / 2` of it ([`settled_reach`]). It settled within `settle(n)`; the margin
/// keeps the units at the crowd's edge, pushed a little out of the disc by their neighbours,
/// from flipping between `Moving` and `Arrived` every few ticks (each flip set the unit walking
/// back into the crowd at full priority, which pushed the next one out).
fn stays_settled(p: Vec2, goal: Vec2, radius: Fx, n: u32) -> bool {
    n >= 2 && within(p, goal, settled_reach(radius, n))
}

/// How far from its shared goal (`n` orders share it) a unit settled short of it stays
/// settled: `settle(n) + r / 2`, saturating. The half radius is the margin against flipping
/// (see the [module docs](self), "Pushed"); no settled unit rests farther from its goal,
/// unless walls crowd the goal (twice `settle(n)`, or anywhere queued behind the crowd,
/// touching a unit at rest on it that it sees).
#[must_use]
pub fn settled_reach(radius: Fx, n: u32) -> Fx {
    settle_radius(radius, n).saturating_add(radius / 2)
}

/// What the rule against the crowd asks of the simulator about one order's shared goal
/// (stage 1b answers from the state; asked only when the rule needs it).
pub(crate) trait Crowd {
    /// Whether an obstacle edge lies within `d` of the goal, on either side of it.
    fn walled(&self, d: Fx) -> bool;
    /// Whether the unit touches a unit at rest on the same goal ahead of it; with `in_sight`,
    /// one that it sees (no obstacle edge crosses the line from its centre to that unit's
    /// centre, or to one of the two sides of its disc: a thin wall between them is no queue).
    fn touching(&self, in_sight: bool) -> bool;
    /// Whether the straight line from the unit towards the goal crosses no obstacle edge
    /// farther than `d` from the goal: no wall beyond the crowd's disc of radius `d` stands
    /// between them (the unit is on the goal's side of the walls that keep the crowd out).
    fn sees_goal(&self, d: Fx) -> bool;
    /// Whether the unit, on the last leg to its goal, stands behind a unit at rest on a goal of
    /// its own (another goal) in a passage too narrow for the two to pass: their discs within
    /// `gap` of each other, the other's centre ahead of the unit and short of its goal, and no
    /// room for both side by side across the way anywhere from the other to the goal (see the
    /// [module docs](self), "Behind a unit at rest"). Never short of a partial plan's end.
    fn behind(&self, gap: Fx) -> bool;
    /// Whether a unit at rest on a goal of its own (another goal), within its radius of it, has
    /// that goal nearer to this order's than the two radii: the two cannot both rest on their
    /// goals (see the [module docs](self), "Pushed").
    fn goal_taken(&self) -> bool;
}

/// Whether an order settled at `rest` farther than `settle(n)` from its goal (against the
/// crowd, where walls crowd the goal) stays settled at `p`: within twice `settle(n)` of its
/// goal, walls still within `settle(n)` of it.
fn settled_far(rest: Vec2, p: Vec2, goal: Vec2, radius: Fx, n: u32, crowd: &impl Crowd) -> bool {
    n >= 2 && {
        let s = settle_radius(radius, n);
        !within(rest, goal, s)
            && within(p, goal, s.saturating_mul_int(2))
            && crowd.walled(s)
            && crowd.sees_goal(s)
    }
}

/// Whether a unit on a shared goal (`n ≥ 2`, `s = settle(n)`) is **queued** behind the crowd
/// at rest on it: walls lie within `s` of the goal (so the disc may not hold the crowd), and
/// it touches a unit at rest on the same goal ahead of it that it sees (no obstacle edge
/// between it and that unit's centre, or one of the two sides of its disc: a unit against a
/// thin wall is not queued behind the crowd on the wall's other side). Wherever it stands: a
/// unit without progress settles there, and a settled one stays settled there (see the
/// [module docs](self), "Against the crowd").
fn queued(s: Fx, n: u32, crowd: &impl Crowd) -> bool {
    // The touch first (a scan of a sorted list), then the walls (a tree query), then the
    // sight of the unit touched (asked of the touching ones only).
    n >= 2 && crowd.touching(false) && crowd.walled(s) && crowd.touching(true)
}

/// Whether the rest of a path — from the agent to the target of `heading`, then through
/// `after` — is at most `reach` long (each leg's length rounded down, summed saturating).
fn path_within(heading: &Heading, after: &[Vec2], reach: Fx) -> bool {
    let mut left = reach.saturating_sub(heading.length());
    let mut from = heading.target;
    for &q in after {
        if left < Fx::ZERO {
            return false;
        }
        left = left.saturating_sub((q - from).length());
        from = q;
    }
    left >= Fx::ZERO
}

/// Whether a unit at `p` (radius `r`) stands off its goal: farther than `r / 32` from it (a
/// unit alone with its goal comes to rest on it, to within rounding; one held off it by
/// another does not).
pub(crate) fn off_goal(p: Vec2, goal: Vec2, r: Fx) -> bool {
    !within(p, goal, r / 32)
}

/// Whether a unit with velocity `v` is held back short of a goal `to` away (within reach of
/// one step of the goal rule): its velocity towards the goal under half of `|to|`, what
/// RVO2's goal rule asks there (exact: `2 (v · to) < |to|²`, `i128`; traffic control's stop
/// beside the goal asks the same).
pub(crate) fn held_back(v: Vec2, to: Vec2) -> bool {
    v.dot_wide(to).saturating_mul(2) < to.length_squared_wide()
}

fn within(a: Vec2, b: Vec2, d: Fx) -> bool {
    (a - b).length_squared_wide() <= wide_mul(d, d)
}

/// Whether the agent made progress towards the target of `heading` (from its position) this
/// tick (see the [module docs](self)).
#[inline(always)]
fn progressing(input: &ArrivalInput, heading: &Heading) -> bool {
    let to = heading.to;
    if to == Vec2::ZERO {
        return true;
    }
    let along = input.velocity.dot_wide(to).saturating_mul(16);
    along >= wide_mul(input.speed, heading.length())
}

/// The arrival state after this tick, for an order heading for a target (`heading`, from the
/// agent's position; `after`: the path's points after it, empty when the target is the path's
/// last point, and then `heading.target == goal`) towards `goal`, with `n` the orders sharing
/// the goal (asked only when needed).
#[inline]
pub(crate) fn next_arrival(
    old: Arrival,
    input: &ArrivalInput,
    heading: &Heading,
    after: &[Vec2],
    goal: Vec2,
    n: impl Fn() -> u32,
    crowd: &impl Crowd,
) -> Arrival {
    let to_goal = after.is_empty();
    let p = input.position;
    debug_assert_eq!(heading.to, heading.target - p);
    // How far a unit at rest must be pushed to move on (asked only of finished orders).
    let pushed = || input.radius.saturating_mul(Fx::from_num(PUSHED_RADII));
    match old.status {
        OrderStatus::Arrived => {
            if old.rest != goal {
                // Settled: rests within settle(n) + r / 2 of its goal, or (stopped beside it by
                // traffic control) within `arrive_within`; else walks back.
                let n = n();
                let stays = within(p, goal, input.arrive_within)
                    || stays_settled(p, goal, input.radius, n)
                    || settled_far(old.rest, p, goal, input.radius, n, crowd)
                    || queued(settle_radius(input.radius, n), n, crowd)
                    || (to_goal && n < 2 && crowd.behind(input.radius))
                    || (n < 2 && crowd.goal_taken());
                return if !stays {
                    if n < 2 && within(p, goal, pushed()) {
                        // Stopped beside its goal alone with it, and pushed off: walks back.
                        arrived(goal)
                    } else {
                        Arrival::default()
                    }
                } else if within(p, old.rest, pushed()) {
                    Arrival {
                        no_progress: 0,
                        ..old
                    }
                } else {
                    Arrival { rest: p, ..old }
                };
            }
            if within(p, old.rest, pushed()) {
                if within(p, goal, input.arrive_within) {
                    // Held off its goal (not on it, and held back: its velocity towards the
                    // goal under half of what the goal rule asks) by a unit at rest on a goal
                    // of its own standing there: it rests where it is (see the module docs,
                    // "Pushed").
                    if off_goal(p, goal, input.radius)
                        && held_back(input.velocity, goal - p)
                        && n() < 2
                        && crowd.goal_taken()
                    {
                        return arrived(p);
                    }
                    return Arrival {
                        no_progress: 0,
                        ..old
                    };
                }
                // Pushed off its goal but not far: it walks back, or settles where it is once
                // it cannot (the goal taken).
                let to_goal_heading;
                let towards_goal = if heading.target == goal {
                    heading
                } else {
                    to_goal_heading = Heading::new(p, goal);
                    &to_goal_heading
                };
                let no_progress = if progressing(input, towards_goal) {
                    0
                } else {
                    old.no_progress.saturating_add(1)
                };
                if no_progress >= input.settle_ticks && (n() >= 2 || crowd.goal_taken()) {
                    arrived(p)
                } else {
                    Arrival { no_progress, ..old }
                }
            } else {
                Arrival::default()
            }
        }
        OrderStatus::GivenUp => {
            if within(p, old.rest, pushed()) {
                old
            } else {
                Arrival { rest: p, ..old }
            }
        }
        OrderStatus::Moving | OrderStatus::Blocked => {
            let no_progress = if progressing(input, heading) {
                0
            } else {
                old.no_progress.saturating_add(1)
            };
            if to_goal {
                // The target is the goal, so `|p − goal| = |to|`: the square of `to`, which the
                // goal rule takes too (computed once when both are inlined).
                debug_assert_eq!(heading.target, goal);
                let aw = input.arrive_within;
                if heading.to.length_squared_wide() <= wide_mul(aw, aw) {
                    return arrived(goal);
                }
            }
            if joins_the_crowd(input, heading, after, goal, &n, crowd) {
                // Joins the crowd at rest on its goal where it meets it (see the module docs).
                return arrived(p);
            }
            if to_goal && crowd.behind(input.radius / 2) {
                // Stops behind a unit at rest in its way where the two cannot pass (see the
                // module docs): shoving it on past the goal only swaps them, for ever.
                return arrived(p);
            }
            if no_progress >= input.settle_ticks {
                let n = n();
                if n >= 2 {
                    // Within settle(n) of its goal, in a straight line and along the rest of
                    // its path; or, however far, against a unit at rest on the same goal
                    // ahead of it, where walls lie within settle(n) of the goal (queued behind
                    // a crowd that walls keep from its disc).
                    let s = settle_radius(input.radius, n);
                    let near = within(p, goal, s) && (to_goal || path_within(heading, after, s));
                    if near || queued(s, n, crowd) {
                        return arrived(p);
                    }
                }
            }
            let status = if no_progress >= input.give_up_ticks {
                return Arrival {
                    status: OrderStatus::GivenUp,
                    no_progress: 0,
                    rest: p,
                };
            } else if no_progress >= input.blocked_ticks {
                OrderStatus::Blocked
            } else {
                OrderStatus::Moving
            };
            Arrival {
                status,
                no_progress,
                rest: Vec2::ZERO,
            }
        }
    }
}

/// Whether a moving unit joins the crowd at rest on its shared goal (`n ≥ 2`): within
/// `settle(n)` of the goal, in a straight line and along the rest of its path, and touching a
/// unit at rest on the same goal ahead of it.
#[inline(always)]
fn joins_the_crowd(
    input: &ArrivalInput,
    heading: &Heading,
    after: &[Vec2],
    goal: Vec2,
    n: &impl Fn() -> u32,
    crowd: &impl Crowd,
) -> bool {
    let p = input.position;
    let n = n();
    if n < 2 {
        return false;
    }
    let s = settle_radius(input.radius, n);
    within(p, goal, s)
        && (after.is_empty() || path_within(heading, after, s))
        && crowd.touching(false)
}

fn arrived(rest: Vec2) -> Arrival {
    Arrival {
        status: OrderStatus::Arrived,
        no_progress: 0,
        rest,
    }
}

/// Whether an order wants to stand still: at rest away from its goal (settled, or given up).
/// An order moving, or arrived on its goal, steers by the goal rule instead.
pub(crate) fn resting(a: &Arrival, goal: Vec2) -> bool {
    match a.status {
        OrderStatus::Arrived => a.rest != goal,
        OrderStatus::GivenUp => true,
        OrderStatus::Moving | OrderStatus::Blocked => false,
    }
}

#[cfg(test)]
mod tests {
    /// Walls within the settle radius (or not), a unit at rest ahead (or not).
    struct Scene(bool, bool);

    impl Crowd for Scene {
        fn walled(&self, _: Fx) -> bool {
            self.0
        }
        fn touching(&self, _: bool) -> bool {
            self.1
        }
        fn sees_goal(&self, _: Fx) -> bool {
            true
        }
        fn behind(&self, _: Fx) -> bool {
            false
        }
        fn goal_taken(&self) -> bool {
            false
        }
    }

    /// No walls and no crowd.
    const OPEN: Scene = Scene(false, false);
    use super::*;

    /// A unit of radius, speed and `arrive_within` 1, standing still at `(x, 0)`, with the
    /// tick counts `(settle, blocked, give_up)`.
    fn still(
        x: i32,
        (settle_ticks, blocked_ticks, give_up_ticks): (u32, u32, u32),
    ) -> ArrivalInput {
        ArrivalInput {
            position: Vec2::from_int(x, 0),
            velocity: Vec2::ZERO,
            radius: Fx::ONE,
            speed: Fx::ONE,
            arrive_within: Fx::ONE,
            settle_ticks,
            blocked_ticks,
            give_up_ticks,
        }
    }

    #[test]
    fn ticks_round_up() {
        assert_eq!(ticks_for(Fx::lit("0.5"), Fx::lit("0.25")), 2);
        assert_eq!(ticks_for(Fx::lit("0.5"), Fx::lit("0.3")), 2);
        assert_eq!(ticks_for(Fx::lit("3"), Fx::lit("0.1")), 30);
        assert_eq!(ticks_for(Fx::ZERO, Fx::lit("0.1")), 1);
    }

    #[test]
    fn settle_radius_grows_with_the_root() {
        assert_eq!(settle_radius(Fx::ONE, 0), Fx::ONE);
        let four = settle_radius(Fx::lit("0.5"), 4);
        assert!((four - Fx::lit("2")).abs() < Fx::lit("0.0001"), "{four}");
        // No overflow at the extremes (n saturates to the largest Fx integer).
        assert!(settle_radius(Fx::lit("1000"), u32::MAX) > Fx::from_num(60_000_000));
        assert_eq!(settle_radius(Fx::MAX, 4), Fx::MAX);
    }

    #[test]
    fn a_unit_on_its_goal_arrives_and_rests_there() {
        let input = ArrivalInput {
            position: Vec2::from_int(1, 0),
            velocity: Vec2::ZERO,
            radius: Fx::ONE,
            speed: Fx::ONE,
            arrive_within: Fx::ONE,
            settle_ticks: 2,
            blocked_ticks: 12,
            give_up_ticks: u32::MAX,
        };
        let goal = Vec2::ZERO;
        let a = next_arrival(
            Arrival::default(),
            &input,
            &Heading::new(input.position, goal),
            &[],
            goal,
            || 1,
            &OPEN,
        );
        assert_eq!(a.status, OrderStatus::Arrived);
        assert_eq!(a.rest, goal);
        assert!(!resting(&a, goal));
        // Pushed 3r + 1 away: moving again.
        let far = ArrivalInput {
            position: Vec2::from_int(4, 1),
            ..input
        };
        assert_eq!(
            next_arrival(
                a,
                &far,
                &Heading::new(far.position, goal),
                &[],
                goal,
                || 1,
                &OPEN
            ),
            Arrival::default()
        );
    }

    /// An order stopped beside a goal of its own (rest point where it stood, within
    /// `arrive_within`): it stays arrived there while within `arrive_within` of its goal; pushed
    /// farther, within `3r`, its rest point is its goal again (it walks back); beyond, moving.
    #[test]
    fn a_unit_stopped_beside_its_goal_stays_or_walks_back() {
        let goal = Vec2::ZERO;
        let beside = Vec2::new(Fx::lit("0.3"), Fx::ZERO);
        let stopped = Arrival {
            status: OrderStatus::Arrived,
            no_progress: 0,
            rest: beside,
        };
        let at = |x: &str| ArrivalInput {
            position: Vec2::new(Fx::lit(x), Fx::ZERO),
            velocity: Vec2::ZERO,
            radius: Fx::lit("0.5"),
            speed: Fx::ONE,
            arrive_within: Fx::lit("0.5"),
            settle_ticks: 2,
            blocked_ticks: 12,
            give_up_ticks: u32::MAX,
        };
        let step = |input: &ArrivalInput| {
            next_arrival(
                stopped,
                input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 1,
                &OPEN,
            )
        };
        // Pushed a little, still within arrive_within: stays where it stopped, at rest.
        let a = step(&at("0.45"));
        assert_eq!(a, stopped);
        assert!(resting(&a, goal));
        // Pushed out of arrive_within (0.5) but within 3r (1.5): walks back to its goal.
        let a = step(&at("0.8"));
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, goal));
        assert!(!resting(&a, goal));
        // Beyond 3r: moving again.
        assert_eq!(step(&at("1.6")), Arrival::default());
    }

    #[test]
    fn a_stuck_unit_settles_within_the_radius_only() {
        let input = still(2, (2, 3, 5));
        let goal = Vec2::ZERO;
        let step = |a, input: &ArrivalInput, n: u32| {
            next_arrival(
                a,
                input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || n,
                &OPEN,
            )
        };
        let a = step(Arrival::default(), &input, 2);
        assert_eq!((a.status, a.no_progress), (OrderStatus::Moving, 1));
        // Alone with its goal: never settles short of it.
        assert_eq!(step(a, &input, 1).status, OrderStatus::Moving);
        let a = step(a, &input, 2);
        // settle(2) = 3.12 >= 2: settled where it stands.
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, input.position));
        assert!(resting(&a, goal));
        // Too far for settle(1): blocked, then given up.
        let far = ArrivalInput {
            position: Vec2::from_int(5, 0),
            ..input
        };
        let mut a = Arrival::default();
        let mut seen = Vec::new();
        for _ in 0..5 {
            a = step(a, &far, 1);
            seen.push(a.status);
        }
        assert_eq!(
            seen,
            [
                OrderStatus::Moving,
                OrderStatus::Moving,
                OrderStatus::Blocked,
                OrderStatus::Blocked,
                OrderStatus::GivenUp
            ]
        );
        assert_eq!(a.rest, far.position);
        // Moving at speed towards the goal is progress.
        let moving = ArrivalInput {
            velocity: Vec2::from_int(-1, 0),
            ..far
        };
        assert_eq!(step(Arrival::default(), &moving, 1).no_progress, 0);
    }

    /// A unit settled short of its shared goal stays settled when pushed a little out of the
    /// disc it settled in: within `settle(n) + r / 2` it rests (where it settled, or where it
    /// is pushed to when that is more than `3r` away), beyond it it is `Moving` again (before
    /// the twenty-sixth session it was `Moving` as soon as it left `settle(n)`, and units at a
    /// crowd's edge flipped every few ticks).
    #[test]
    fn a_settled_unit_pushed_just_out_of_the_disc_stays_settled() {
        let goal = Vec2::ZERO;
        // settle(2) = 1 + 1.5 · √2 ≈ 3.121 for radius 1; with the margin, 3.621.
        assert_eq!(
            settled_reach(Fx::ONE, 2),
            settle_radius(Fx::ONE, 2) + Fx::lit("0.5")
        );
        let step = |rest: Vec2, at: Vec2| {
            let input = ArrivalInput {
                position: at,
                ..still(0, (2, 3, 5))
            };
            next_arrival(
                arrived(rest),
                &input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 2,
                &OPEN,
            )
        };
        let p = |x: &str, y: &str| Vec2::new(Fx::from_str(x).unwrap(), Fx::from_str(y).unwrap());
        let rest = p("3", "0");
        // Pushed to 3.5 (out of settle(2), within the margin, within 3r of its rest point).
        let a = step(rest, p("3.5", "0"));
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, rest));
        // Pushed to 3.7: beyond settle(2) + r / 2, moving again.
        assert_eq!(step(rest, p("3.7", "0")).status, OrderStatus::Moving);
        // Settled at (0, −3), pushed to (0, 3.5): more than 3r from its rest point, within the
        // margin, it rests where it is now.
        let a = step(p("0", "-3"), p("0", "3.5"));
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, p("0", "3.5")));
    }

    /// At the crowd's edge (thirty-first session): a settled unit pushed out of
    /// `settle(n) + r / 2` stays settled where walls crowd the goal while it touches a unit at
    /// rest on the same goal ahead of it, however far (since the thirty-fifth session; within
    /// twice `settle(n)` before); without the touch, or without the walls, it is `Moving`
    /// again.
    #[test]
    fn a_settled_unit_at_the_crowds_edge_stays_settled_where_walls_crowd_the_goal() {
        let goal = Vec2::ZERO;
        let rest = Vec2::from_int(3, 0);
        let step = |at: Vec2, crowd: &Scene| {
            let input = ArrivalInput {
                position: at,
                ..still(0, (2, 3, 5))
            };
            next_arrival(
                arrived(rest),
                &input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 2,
                crowd,
            )
        };
        // settle(2) + r / 2 ≈ 3.62 < 4 < 2 settle(2) ≈ 6.24.
        let out = Vec2::from_int(4, 0);
        let a = step(out, &Scene(true, true));
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, rest));
        assert_eq!(step(out, &Scene(true, false)).status, OrderStatus::Moving);
        assert_eq!(step(out, &Scene(false, true)).status, OrderStatus::Moving);
        // Beyond twice settle(2), touching: queued behind the crowd, it stays settled (resting
        // where it is now, more than 3r from where it settled); not touching, moving again.
        let far = Vec2::from_int(7, 0);
        let a = step(far, &Scene(true, true));
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, far));
        assert_eq!(step(far, &Scene(true, false)).status, OrderStatus::Moving);
        assert_eq!(step(far, &Scene(false, true)).status, OrderStatus::Moving);
    }

    /// A crowd whose answer to `goal_taken` is given (nothing else: no walls, no crowd).
    struct Taken(bool);

    impl Crowd for Taken {
        fn walled(&self, _: Fx) -> bool {
            false
        }
        fn touching(&self, _: bool) -> bool {
            false
        }
        fn sees_goal(&self, _: Fx) -> bool {
            true
        }
        fn behind(&self, _: Fx) -> bool {
            false
        }
        fn goal_taken(&self) -> bool {
            self.0
        }
    }

    /// Its goal taken (thirty-first session): a unit alone with its goal, arrived on it and
    /// held off it within `arrive_within`, rests where it is at once; pushed beyond that, it
    /// rests where it is after `settle_ticks` without progress; settled so, it stays while
    /// the goal is taken and walks back when it is not. Exactly on its goal nothing changes.
    #[test]
    fn a_unit_whose_goal_is_taken_rests_beside_it() {
        let goal = Vec2::ZERO;
        let step = |old: Arrival, at: Vec2, taken: bool| {
            let input = ArrivalInput {
                position: at,
                ..still(0, (2, 3, 5))
            };
            next_arrival(
                old,
                &input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 1,
                &Taken(taken),
            )
        };
        let near = Vec2::new(Fx::lit("0.4"), Fx::ZERO);
        let a = step(arrived(goal), near, true);
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, near));
        // Walking onto its goal as the goal rule asks (not held back): nothing changes.
        let walking = ArrivalInput {
            position: near,
            velocity: goal - near,
            ..still(0, (2, 3, 5))
        };
        let free = next_arrival(
            arrived(goal),
            &walking,
            &Heading::new(near, goal),
            &[],
            goal,
            || 1,
            &Taken(true),
        );
        assert_eq!(free.rest, goal);
        // Not taken: it walks back onto its goal by the goal rule (rest point the goal).
        assert_eq!(step(arrived(goal), near, false).rest, goal);
        // On its goal: nothing to rest beside.
        assert_eq!(step(arrived(goal), goal, true).rest, goal);
        // Pushed beyond arrive_within (1): counts ticks without progress, then rests.
        let far = Vec2::from_int(2, 0);
        let once = step(arrived(goal), far, true);
        assert_eq!(
            (once.status, once.rest, once.no_progress),
            (OrderStatus::Arrived, goal, 1)
        );
        let twice = step(once, far, true);
        assert_eq!((twice.status, twice.rest), (OrderStatus::Arrived, far));
        // Settled beside it, it stays while the goal is taken, and walks back when it is not.
        assert_eq!(step(twice, far, true).rest, far);
        assert_eq!(step(twice, far, false).rest, goal);
    }

    /// A unit short of a shared goal on an earlier leg of its path settles when the rest of
    /// its path is within `settle(n)`, and not when its path is longer (the goal behind a wall,
    /// near in a straight line only), unless it is queued behind the crowd at rest (touching
    /// it, walls crowding the goal).
    #[test]
    fn a_stuck_unit_on_an_earlier_leg_settles_when_its_path_is_short() {
        let input = still(2, (1, 3, u32::MAX));
        let goal = Vec2::ZERO;
        // settle(2) = 1 + 1.5 √2 = 3.12.
        let step = |target: Vec2, touching: bool| {
            next_arrival(
                Arrival::default(),
                &input,
                &Heading::new(input.position, target),
                &[goal],
                goal,
                || 2,
                &Scene(true, touching),
            )
        };
        // Via (2, 1): 1 + √5 = 3.24 > 3.12: moving; via (1, 0): 1 + 1 = 2: settled there.
        assert_eq!(
            step(Vec2::from_int(2, 1), false).status,
            OrderStatus::Moving
        );
        let a = step(Vec2::from_int(1, 0), false);
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, input.position));
        // Round a wall: 2 + 8 + 6 = 16 along the path, 2 in a straight line: it never settles
        // on its own, nor against a crowd at rest in open ground; where walls crowd the goal,
        // touching the crowd at rest ahead, it is queued behind it and settles there.
        let behind = Vec2::from_int(2, 8);
        let far = |crowd: &Scene| {
            next_arrival(
                Arrival::default(),
                &input,
                &Heading::new(input.position, behind),
                &[Vec2::from_int(-4, 8), goal],
                goal,
                || 2,
                crowd,
            )
        };
        assert_eq!(far(&Scene(true, false)).status, OrderStatus::Moving);
        assert_eq!(far(&Scene(false, true)).status, OrderStatus::Moving);
        let queued = far(&Scene(true, true));
        assert_eq!(
            (queued.status, queued.rest),
            (OrderStatus::Arrived, input.position)
        );
    }

    /// Beyond `settle(n)` a stuck unit settles only against a unit at rest on the same goal
    /// where walls lie within `settle(n)` of the goal (the crowd they keep from the disc),
    /// however far (queued behind it); settled there it stays while within twice `settle(n)`
    /// and the walls are there, or while it touches the crowd, and moves on beyond.
    #[test]
    fn beyond_the_settle_radius_a_unit_settles_against_the_crowd() {
        let at = |x: i32| still(x, (1, 3, u32::MAX));
        let goal = Vec2::ZERO;
        // settle(4) = 1 + 1.5 · 2 = 4; twice that 8.
        let with = |a, input: &ArrivalInput, crowd: &Scene| {
            next_arrival(
                a,
                input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 4,
                crowd,
            )
        };
        let step = |a, input: &ArrivalInput, touching: bool| with(a, input, &Scene(true, touching));
        // Beyond settle(4) in open ground (no walls), touching the crowd is not enough.
        assert_eq!(
            with(Arrival::default(), &at(6), &Scene(false, true)).status,
            OrderStatus::Moving
        );
        assert_eq!(
            step(Arrival::default(), &at(6), false).status,
            OrderStatus::Moving
        );
        // However far, touching the crowd where walls crowd the goal: queued behind it.
        let queued = step(Arrival::default(), &at(9), true);
        assert_eq!(
            (queued.status, queued.rest),
            (OrderStatus::Arrived, at(9).position)
        );
        let a = step(Arrival::default(), &at(6), true);
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, at(6).position));
        assert!(resting(&a, goal));
        // Pushed, within twice settle(4): stays where it settled (within 3r of it) or rests
        // where it is (farther); beyond twice settle(4): moving again.
        assert_eq!(step(a, &at(8), false), a);
        let moved = step(a, &at(2), false);
        assert_eq!(
            (moved.status, moved.rest),
            (OrderStatus::Arrived, at(2).position)
        );
        assert_eq!(step(a, &at(9), false), Arrival::default());
        // The walls gone (or the goal no longer crowded): beyond settle(4) + r / 2 = 4.5 (the
        // margin against flipping) it walks back into settle(4).
        assert_eq!(with(a, &at(5), &OPEN), Arrival::default());
        assert_eq!(with(a, &at(7), &OPEN), Arrival::default());
    }

    /// Within `settle(n)` of a shared goal (straight and along its path), a unit still making
    /// progress joins the crowd where it touches a unit at rest ahead, walls or not; not
    /// without the touch, nor beyond `settle(n)` in open ground, nor alone with its goal, nor
    /// on a path longer than `settle(n)`.
    #[test]
    fn within_the_settle_radius_a_unit_joins_the_crowd_it_touches() {
        let goal = Vec2::ZERO;
        // Walking towards the goal at full speed: progress every tick.
        let at = |x: i32| ArrivalInput {
            velocity: Vec2::from_int(-1, 0),
            ..still(x, (2, 12, u32::MAX))
        };
        // settle(4) = 1 + 1.5 · 2 = 4.
        let step = |input: &ArrivalInput, n: u32, crowd: &Scene, after: &[Vec2]| {
            let target = after
                .first()
                .map_or(goal, |_| Vec2::new(input.position.x, Fx::from_num(5)));
            next_arrival(
                Arrival::default(),
                input,
                &Heading::new(input.position, target),
                after,
                goal,
                || n,
                crowd,
            )
        };
        let joined = step(&at(3), 4, &Scene(false, true), &[]);
        assert_eq!(
            (joined.status, joined.rest),
            (OrderStatus::Arrived, at(3).position)
        );
        assert!(resting(&joined, goal));
        assert_eq!(step(&at(3), 4, &OPEN, &[]).status, OrderStatus::Moving);
        assert_eq!(
            step(&at(5), 4, &Scene(false, true), &[]).status,
            OrderStatus::Moving
        );
        assert_eq!(
            step(&at(3), 1, &Scene(false, true), &[]).status,
            OrderStatus::Moving
        );
        // Round a corner at (3, 5): 5 + √34 ≈ 10.8 along the path, beyond settle(4).
        assert_eq!(
            step(&at(3), 4, &Scene(false, true), &[goal]).status,
            OrderStatus::Moving
        );
    }

    /// A crowd whose unit at rest the asking unit touches but does not see (a wall between
    /// them), walls near the goal.
    struct Hidden;

    impl Crowd for Hidden {
        fn walled(&self, _: Fx) -> bool {
            true
        }
        fn touching(&self, in_sight: bool) -> bool {
            !in_sight
        }
        fn sees_goal(&self, _: Fx) -> bool {
            true
        }
        fn behind(&self, _: Fx) -> bool {
            false
        }
        fn goal_taken(&self) -> bool {
            false
        }
    }

    /// The queue behind the crowd asks for a unit at rest it touches and sees; joining the
    /// crowd within `settle(n)` for one it touches only.
    #[test]
    fn the_queue_asks_for_sight_and_joining_does_not() {
        let goal = Vec2::ZERO;
        let step = |a, input: &ArrivalInput, crowd: &dyn Fn(Arrival, &ArrivalInput) -> Arrival| {
            crowd(a, input)
        };
        let hidden = |a, input: &ArrivalInput| {
            next_arrival(
                a,
                input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 4,
                &Hidden,
            )
        };
        let seen = |a, input: &ArrivalInput| {
            let crowd = Scene(true, true);
            next_arrival(
                a,
                input,
                &Heading::new(input.position, goal),
                &[],
                goal,
                || 4,
                &crowd,
            )
        };
        // Stuck beyond twice settle(4) = 8: queued when it sees the unit it touches.
        let stuck = still(9, (1, 3, u32::MAX));
        let queued = step(Arrival::default(), &stuck, &seen);
        assert_eq!(queued.status, OrderStatus::Arrived);
        assert_eq!(
            step(Arrival::default(), &stuck, &hidden).status,
            OrderStatus::Moving
        );
        // Settled so, it stays while it sees it, and moves on when it does not.
        assert_eq!(step(queued, &stuck, &seen), queued);
        assert_eq!(step(queued, &stuck, &hidden), Arrival::default());
        // Within settle(4), making progress: joins the crowd on the touch alone.
        let walking = ArrivalInput {
            velocity: Vec2::from_int(-1, 0),
            ..still(3, (2, 12, u32::MAX))
        };
        assert_eq!(
            step(Arrival::default(), &walking, &hidden).status,
            OrderStatus::Arrived
        );
    }
}

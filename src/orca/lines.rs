//! ORCA half-planes induced by other agents (RVO2 `Agent::computeNewVelocity`, first half).
//!
//! # Reciprocity is exact
//! The geometry of a pair is always computed in the frame of the agent with the **lower id**
//! ("A"); the other agent ("B") takes the exact negation of A's correction `u/2` and of A's line
//! direction. Mathematically RVO2 gives B exactly this (every branch is odd under swapping the
//! pair); computing it once makes it true to the last bit, which float RVO2 and naive fixed-point
//! ports (whose multiplications round toward −∞) do not achieve.
//!
//! # Tie conventions (documented, tested)
//! * Relative velocity exactly at the cut-off centre (`w = 0`, e.g. symmetric head-on at equal
//!   speeds): the arc midpoint and both legs are equally near. We keep RVO2's choice, the **right
//!   leg** in A's frame; by exact reciprocity B's correction is the exact opposite, which is B's
//!   right leg too, so the pair passes (both keep right) instead of stalling.
//! * Overlapping agents with `w = 0` (identical positions and matching velocities, or velocity
//!   exactly `p/Δt`): no escape direction exists. A unit vector is derived from the pair's ids
//!   (SplitMix64 of `(lo << 32) | hi`, as an angle through CORDIC); A is pushed along it and B the
//!   opposite way. RVO2 divides by zero here.

use super::Line;
use crate::agent::AgentId;
use crate::math::{
    Fx, FxReciprocal, HALF, Vec2, fx_div, narrow, sqrt_wide, unit_from_turns, wide_mul,
};
use crate::util::splitmix64;

/// What the line construction needs to know about one agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentState {
    /// Stable id (decides the canonical frame and the overlap tie-break).
    pub id: AgentId,
    /// Position.
    pub position: Vec2,
    /// Current velocity.
    pub velocity: Vec2,
    /// Radius.
    pub radius: Fx,
}

/// Which ORCA branch produced a line (reported for tests and diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// Relative velocity projects onto the cut-off circle of radius `R/τ`.
    CutOffCircle,
    /// Relative velocity projects onto the left leg of the truncated cone.
    LeftLeg,
    /// Relative velocity projects onto the right leg (also the `w = 0` tie).
    RightLeg,
    /// Agents already overlap: project on the cut-off circle of the time step.
    Overlap,
    /// Overlap with no escape direction: the id-derived direction was used.
    OverlapTieBreak,
}

/// Correction `u` and line direction in A's frame, plus the branch taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairSolution {
    /// Smallest change of A's relative velocity that leaves the velocity obstacle.
    pub u: Vec2,
    /// Direction of A's ORCA line.
    pub direction: Vec2,
    /// Branch taken.
    pub branch: Branch,
}

/// Solves the pair in A's frame: `rel_pos = p_B − p_A`, `rel_vel = v_A − v_B`.
///
/// `time_horizon` is A's horizon τ; `time_step` is the simulation step Δt; `ids` = (A, B).
/// Divides by τ (or Δt) with the hardware division; [`solve_pair_prepared`] gives the same
/// solution from divisors prepared once for many pairs.
#[must_use]
pub fn solve_pair(
    rel_pos: Vec2,
    rel_vel: Vec2,
    combined_radius: Fx,
    time_horizon: Fx,
    time_step: Fx,
    ids: (AgentId, AgentId),
) -> PairSolution {
    solve_pair_by(
        rel_pos,
        rel_vel,
        combined_radius,
        |a| fx_div(a, time_horizon),
        |a| fx_div(a, time_step),
        ids,
    )
}

/// The two divisors of an agent's pairs, τ (its time horizon) and Δt (the time step), prepared
/// once ([`FxReciprocal`]) for every pair solved with them by [`solve_pair_prepared`].
///
/// Preparing costs about what one hardware division does; each of a pair's two or three
/// quotients by τ (or Δt) then takes a few multiplications instead of a division, which in a
/// pair's dependency chain costs about 25 cycles. Worth it when one `PairTimes` serves several
/// pairs (an agent's neighbours, or a whole tick when every agent has the same horizon); for a
/// single pair [`solve_pair`] is cheaper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairTimes {
    tau: FxReciprocal,
    dt: FxReciprocal,
}

impl PairTimes {
    /// Prepares the time horizon `time_horizon` (τ) and the time step `time_step` (Δt).
    ///
    /// # Panics
    /// When either is zero.
    #[inline]
    #[must_use]
    pub fn new(time_horizon: Fx, time_step: Fx) -> Self {
        Self {
            tau: FxReciprocal::new(time_horizon),
            dt: FxReciprocal::new(time_step),
        }
    }

    /// The time horizon τ.
    #[inline]
    #[must_use]
    pub fn time_horizon(&self) -> Fx {
        self.tau.divisor()
    }

    /// The time step Δt.
    #[inline]
    #[must_use]
    pub fn time_step(&self) -> Fx {
        self.dt.divisor()
    }
}

/// [`solve_pair`] with τ and Δt prepared in `times`: the same [`PairSolution`] to the last bit
/// (`FxReciprocal::divide` is `fx_div`), without a hardware division by τ or Δt.
#[must_use]
pub fn solve_pair_prepared(
    rel_pos: Vec2,
    rel_vel: Vec2,
    combined_radius: Fx,
    times: &PairTimes,
    ids: (AgentId, AgentId),
) -> PairSolution {
    solve_pair_prepared_inlined(rel_pos, rel_vel, combined_radius, times, ids)
}

/// [`solve_pair_prepared`], always inlined: stage 5's pair loop takes the solution straight
/// from registers (returned through memory, its reload stalled on store forwarding).
#[inline(always)]
pub(crate) fn solve_pair_prepared_inlined(
    rel_pos: Vec2,
    rel_vel: Vec2,
    combined_radius: Fx,
    times: &PairTimes,
    ids: (AgentId, AgentId),
) -> PairSolution {
    solve_pair_by(
        rel_pos,
        rel_vel,
        combined_radius,
        |a| times.tau.divide(a),
        |a| times.dt.divide(a),
        ids,
    )
}

/// [`solve_pair`]'s body, dividing by τ with `div_tau` and by Δt with `div_dt` (both
/// `fx_div`, however computed).
#[inline(always)]
fn solve_pair_by(
    rel_pos: Vec2,
    rel_vel: Vec2,
    combined_radius: Fx,
    div_tau: impl Fn(Fx) -> Fx,
    div_dt: impl Fn(Fx) -> Fx,
    ids: (AgentId, AgentId),
) -> PairSolution {
    let dist_sq = rel_pos.length_squared_wide();
    let r_sq = wide_mul(combined_radius, combined_radius);

    if dist_sq > r_sq {
        // No collision. w: vector from the cut-off centre p/τ to the relative velocity.
        let w = rel_vel - Vec2::new(div_tau(rel_pos.x), div_tau(rel_pos.y));
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(rel_pos);
        if dot1 < Fx::ZERO && wide_mul(dot1, dot1) > wide_mul(narrow(r_sq), w_len_sq) {
            // Project on the cut-off circle.
            // dot1 < 0 implies w != 0.
            let (w_len, unit_w) = w.length_and_direction_of_nonzero_inlined();
            return PairSolution {
                u: unit_w * (div_tau(combined_radius) - w_len),
                direction: Vec2::new(unit_w.y, -unit_w.x),
                branch: Branch::CutOffCircle,
            };
        }
        // Project on the legs. leg = |tangent| from A to B's disc.
        let leg = sqrt_wide(dist_sq - r_sq);
        let dist_sq_fx = narrow(dist_sq);
        let (direction, branch) = if rel_pos.det_wide(w) > 0 {
            // Left leg: rel_pos rotated left by the leg angle, scaled to unit length.
            let d = Vec2::new(
                narrow(wide_mul(rel_pos.x, leg) - wide_mul(rel_pos.y, combined_radius)),
                narrow(wide_mul(rel_pos.x, combined_radius) + wide_mul(rel_pos.y, leg)),
            );
            (d / dist_sq_fx, Branch::LeftLeg)
        } else {
            // Right leg (also the w = 0 tie, as in RVO2).
            let d = Vec2::new(
                narrow(wide_mul(rel_pos.x, leg) + wide_mul(rel_pos.y, combined_radius)),
                narrow(wide_mul(rel_pos.y, leg) - wide_mul(rel_pos.x, combined_radius)),
            );
            (-(d / dist_sq_fx), Branch::RightLeg)
        };
        let dot2 = rel_vel.dot(direction);
        return PairSolution {
            u: direction * dot2 - rel_vel,
            direction,
            branch,
        };
    }

    // Collision: project on the cut-off circle of time Δt.
    let w = rel_vel - Vec2::new(div_dt(rel_pos.x), div_dt(rel_pos.y));
    let (w_len, unit_w, branch) = match w.length_and_direction() {
        Some((len, unit)) => (len, unit, Branch::Overlap),
        None => (
            Fx::ZERO,
            tie_break_direction(ids.0, ids.1),
            Branch::OverlapTieBreak,
        ),
    };
    PairSolution {
        u: unit_w * (div_dt(combined_radius) - w_len),
        direction: Vec2::new(unit_w.y, -unit_w.x),
        branch,
    }
}

/// Deterministic escape direction for agent `lo` away from `hi` when geometry gives none.
#[must_use]
pub fn tie_break_direction(lo: AgentId, hi: AgentId) -> Vec2 {
    let key = (u64::from(lo.0) << 32) | u64::from(hi.0);
    let bits = splitmix64(key) >> 32; // 32 random fraction bits: a fraction of a turn
    unit_from_turns(Fx::from_bits(bits as i64))
}

/// The ORCA line that `other` induces on `me` (RVO2's reciprocal 0.5 responsibility).
///
/// `time_horizon` is `me`'s horizon; `time_step` the simulation step.
#[must_use]
pub fn agent_line(me: &AgentState, other: &AgentState, time_horizon: Fx, time_step: Fx) -> Line {
    agent_line_with_branch(me, other, time_horizon, time_step).0
}

/// [`agent_line`] plus the branch that produced it.
#[must_use]
pub fn agent_line_with_branch(
    me: &AgentState,
    other: &AgentState,
    time_horizon: Fx,
    time_step: Fx,
) -> (Line, Branch) {
    let pair = PairHalf::solve(me, other, time_horizon, time_step);
    (pair.line_for(me, other), pair.branch)
}

/// How much of a pair's avoidance an agent takes (see
/// [`AgentParams::priority`](crate::AgentParams::priority)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Share {
    /// Half (RVO2's reciprocal split; equal priorities).
    Half,
    /// All of it (the other agent has the higher priority).
    All,
    /// None (the other agent has the lower priority): the simulator builds no line for the
    /// pair, unless the two discs overlap ([`deep_overlap_line`]);
    /// [`PairHalf::line_with_share`] gives the line through the agent's own velocity.
    None,
}

impl Share {
    /// The share of an agent of priority `mine` against one of priority `theirs`.
    #[must_use]
    #[inline]
    pub fn of(mine: u8, theirs: u8) -> Self {
        match mine.cmp(&theirs) {
            std::cmp::Ordering::Equal => Self::Half,
            std::cmp::Ordering::Less => Self::All,
            std::cmp::Ordering::Greater => Self::None,
        }
    }
}

/// The ORCA line of an agent of higher priority against one of lower priority whose disc it
/// overlaps, or `None`: priority decides who steps aside, never who walks through another
/// body. Against a lower priority an agent takes no share of the avoidance ([`Share`]) while
/// the two discs are apart. Once they overlap (centres nearer than their combined radius
/// `R`), it takes half of the pair solved as if `R` were `R − R/4` (a quarter deep; `R/4`
/// truncated toward zero, exact integer arithmetic), with a time horizon of one time step:
///
/// - shallower than a quarter, the line is ORCA's half-plane for the velocities that would
///   carry the pair past a quarter deep within the step (the velocity obstacle of one step),
///   so a passer keeping its course past a lower-priority agent that gets out of the way
///   keeps its speed (as a half-plane through its current velocity it still forbids some
///   velocities that would stay shallower: braking or turning towards the other at a shallow
///   overlap, ORCA's usual approximation);
/// - past a quarter deep, it pushes back only the depth beyond that (the collision branch).
///
/// An agent walking into one that cannot get out of its way (a wall or a crowd behind it)
/// lands once somewhat past a quarter deep, is pushed back to a quarter and rests there: the
/// line stays on while the discs overlap, so it does not walk in again. That holds while it
/// closes in by up to about `0.4 R` per step (the pocket of
/// `liveness::priority_never_walks_through_an_agent_that_cannot_get_away`: `R` = 3, up to
/// 5 u/s at time step 0.25, at least 15 u/s at 0.1); faster, it can be sent back out of the
/// overlap and walk in again a few times before it rests, and from about `R` per step it can
/// pass (docs/navigation.md § "Limits"). The agent of lower priority still takes all of the
/// pair at its whole combined radius. (Until the thirty-third session the line came on only
/// about `7R/32` deep, with the agent's own time horizon: one crossing that band in a step
/// bounced, docs/navigation.md § "Right of way".)
///
/// `me` and `other` as in [`PairHalf::solve`] (the same radii, positions and velocities, the
/// same frame by id); `time_step` is the step's.
#[must_use]
#[inline]
pub fn deep_overlap_line(me: &AgentState, other: &AgentState, time_step: Fx) -> Option<Line> {
    let sum = me.radius.saturating_add(other.radius);
    if (other.position - me.position).length_squared_wide() >= wide_mul(sum, sum) {
        return None;
    }
    let near = sum - sum / 4;
    let pair = PairHalf::solve_with_radius(me, other, near, time_step, time_step);
    Some(pair.line_with_share(me, other, Share::Half))
}

/// One pair's ORCA solution in the canonical (lower id = A) frame: what both agents' lines are
/// made of. With equal shares A's line is `(v_A + u/2, direction)` and B's the exact negation
/// `(v_B − u/2, −direction)`, so a pair solved for A can be handed to B unchanged when B uses
/// the same time horizon ([`crate::Simulator`] does this; results are bit-identical).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairHalf {
    /// A's correction `u` (the smallest change of the relative velocity that leaves the
    /// velocity obstacle).
    pub u: Vec2,
    /// Direction of A's line.
    pub direction: Vec2,
    /// Branch taken.
    pub branch: Branch,
}

impl PairHalf {
    /// Solves the pair of `me` and `other` in the lower id's frame with horizon `time_horizon`.
    #[must_use]
    pub fn solve(me: &AgentState, other: &AgentState, time_horizon: Fx, time_step: Fx) -> Self {
        Self::solve_with_radius(me, other, me.radius + other.radius, time_horizon, time_step)
    }

    /// [`solve`](Self::solve) with `combined_radius` in place of the two radii's sum (as
    /// [`deep_overlap_line`] solves a pair).
    #[must_use]
    pub fn solve_with_radius(
        me: &AgentState,
        other: &AgentState,
        combined_radius: Fx,
        time_horizon: Fx,
        time_step: Fx,
    ) -> Self {
        let (a, b) = if me.id < other.id {
            (me, other)
        } else {
            (other, me)
        };
        let s = solve_pair(
            b.position - a.position,
            a.velocity - b.velocity,
            combined_radius,
            time_horizon,
            time_step,
            (a.id, b.id),
        );
        Self {
            u: s.u,
            direction: s.direction,
            branch: s.branch,
        }
    }

    /// The ORCA line this pair induces on `me` (either agent of the pair), taking half of the
    /// avoidance (RVO2).
    #[must_use]
    #[inline]
    pub fn line_for(&self, me: &AgentState, other: &AgentState) -> Line {
        self.line_with_share(me, other, Share::Half)
    }

    /// The ORCA line this pair induces on `me`, taking `share` of the avoidance.
    #[must_use]
    #[inline]
    pub fn line_with_share(&self, me: &AgentState, other: &AgentState, share: Share) -> Line {
        let pair = StoredPair {
            u: self.u,
            direction: self.direction,
        };
        pair.line(me.velocity, share, me.id < other.id)
    }
}

/// A pair solution as the tick stores it: [`PairHalf`] without its branch (32 bytes instead of
/// 40; the lines read only `u` and the direction). Its [`line`](Self::line) is the one
/// expression of a pair's ORCA line ([`PairHalf::line_with_share`] calls it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoredPair {
    u: Vec2,
    direction: Vec2,
}

impl StoredPair {
    /// [`PairHalf::solve`] (without its branch) for a pair whose ids are known to ascend,
    /// `lo.id < hi.id`, with τ and Δt prepared ([`solve_pair_prepared`]): the same pair, to the
    /// last bit, as the `solve_pair` call `PairHalf::solve` makes, without a hardware division
    /// by τ or Δt and without comparing the ids (the combined radius is a sum, the same either
    /// way round). The tick's slots ascend by id: for slots `lo < hi` the ids ascend.
    #[inline(always)]
    pub(crate) fn solve_ordered_prepared(
        lo: &AgentState,
        hi: &AgentState,
        times: &PairTimes,
    ) -> Self {
        debug_assert!(lo.id < hi.id);
        let s = solve_pair_prepared_inlined(
            hi.position - lo.position,
            lo.velocity - hi.velocity,
            lo.radius + hi.radius,
            times,
            (lo.id, hi.id),
        );
        Self {
            u: s.u,
            direction: s.direction,
        }
    }

    /// The pair with `u` replaced by its half share's part, `u · ½` (each component as
    /// [`line`](Self::line) computes it for [`Share::Half`]): its line for a half share is then
    /// `line(velocity, Share::All, lower)`, the same values. `x · ½` in I32F32 is the product
    /// `bits · 2³¹` shifted right by 32 (toward −∞), i.e. `bits >> 1`: written as that shift.
    #[inline(always)]
    pub(crate) fn halved(self) -> Self {
        Self {
            u: Vec2::from_bits(self.u.x.to_bits() >> 1, self.u.y.to_bits() >> 1),
            direction: self.direction,
        }
    }

    /// The ORCA line this pair induces on an agent of velocity `velocity`, taking `share` of
    /// the avoidance; `lower` is whether the agent has the lower id of the pair (A, whose
    /// frame the pair is solved in). B's line is the exact negation of A's correction and
    /// direction.
    #[inline(always)]
    pub(crate) fn line(self, velocity: Vec2, share: Share, lower: bool) -> Line {
        let part = match share {
            Share::Half => Vec2::new(self.u.x * HALF, self.u.y * HALF),
            Share::All => self.u,
            Share::None => Vec2::ZERO,
        };
        if lower {
            Line {
                point: velocity + part,
                direction: self.direction,
            }
        } else {
            Line {
                point: velocity - part,
                direction: -self.direction,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ONE: i64 = 1 << 32;

    /// An agent of higher priority gets a line only once the discs overlap; shallower than a
    /// quarter of the combined radius it may still close in by what one step leaves to a
    /// quarter (half of it, its share), at a quarter it asks nothing of one standing still,
    /// and deeper it pushes it away.
    #[test]
    fn a_higher_priority_keeps_a_line_only_while_the_discs_overlap() {
        let at = |id: u32, x: &str, r: &str| AgentState {
            id: AgentId(id),
            position: Vec2::new(Fx::lit(x), Fx::ZERO),
            velocity: Vec2::ZERO,
            radius: Fx::lit(r),
        };
        let dt = Fx::lit("0.25");
        // Combined radius 1.3: the line from centres nearer than 1.3, solved as if the
        // combined radius were 0.975 with a time horizon of one step.
        let me = at(1, "0", "0.5");
        for x in ["1.3", "1.3000001", "2"] {
            let other = at(2, x, "0.8");
            assert_eq!(deep_overlap_line(&me, &other, dt), None, "at {x}");
            assert_eq!(deep_overlap_line(&other, &me, dt), None, "at {x}, swapped");
        }
        // How far the line's point lies from `me`'s own velocity (zero), away from `other`
        // (negative: it may still close in by that much).
        let push = |x: &str| {
            let other = at(2, x, "0.8");
            let line = deep_overlap_line(&me, &other, dt).expect("overlapping");
            let back = deep_overlap_line(&other, &me, dt).expect("overlapping, swapped");
            // The two lines are each other's negation (half each, the canonical frame).
            assert_eq!(back.direction, -line.direction, "at {x}");
            -line.point.x
        };
        // Just overlapping: 0.325 from a quarter deep, 1.3 u/s in one step, half each.
        let touching = push("1.2999");
        assert!(
            (touching + Fx::lit("0.6498")).abs() < Fx::lit("0.001"),
            "just overlapping: {touching}"
        );
        // 0.225 from a quarter deep: 0.9 u/s in one step, half each.
        let shallow = push("1.2");
        assert!(
            (shallow + Fx::lit("0.45")).abs() < Fx::lit("0.001"),
            "shallow: {shallow}"
        );
        let hair = push("0.9749");
        assert!(
            hair >= Fx::ZERO && hair < Fx::lit("0.001"),
            "at a quarter: {hair}"
        );
        // 0.475 past a quarter deep, resolved in one step, half each: 0.95 u/s.
        let deep = push("0.5");
        assert!(
            (deep - Fx::lit("0.95")).abs() < Fx::lit("0.001"),
            "deeper: {deep}"
        );
    }

    /// `solve_pair_prepared` with `PairTimes::new(τ, Δt)` is `solve_pair` with τ and Δt.
    fn check_prepared(p: Vec2, v: Vec2, r: Fx, tau: Fx, dt: Fx) {
        let ids = (AgentId(3), AgentId(8));
        let plain = solve_pair(p, v, r, tau, dt, ids);
        let times = PairTimes::new(tau, dt);
        assert_eq!((times.time_horizon(), times.time_step()), (tau, dt));
        let prepared = solve_pair_prepared(p, v, r, &times, ids);
        assert_eq!(
            prepared, plain,
            "p {p:?} v {v:?} r {r:?} tau {tau:?} dt {dt:?}"
        );
    }

    /// A value of magnitude up to `max` raw bits: `max` scaled down by a random power of two
    /// (down to a few ulps), either sign, or zero.
    fn magnitude(max: i64) -> impl Strategy<Value = i64> {
        prop_oneof![
            1 => Just(0i64),
            8 => (0..=max, 0u32..63, any::<bool>())
                .prop_map(|(m, s, neg)| if neg { -(m >> s) } else { m >> s }),
        ]
    }

    /// A time (τ or Δt) in [0.001, `max`] of any magnitude in between: whole units, powers of
    /// two, or any raw value.
    fn time(max: i64) -> impl Strategy<Value = Fx> {
        let min = 4_294_967; // 0.001
        prop_oneof![
            (1..=max).prop_map(|k| Fx::from_bits(k * ONE)),
            (-10i32..14).prop_map(|k| Fx::from_bits(if k >= 0 { ONE << k } else { ONE >> -k })),
            (0u32..24)
                .prop_flat_map(move |s| min..=((max * ONE) >> s).max(min))
                .prop_map(Fx::from_bits),
        ]
        .prop_filter("in [0.001, max]", move |t| {
            t.to_bits() >= min && t.to_bits() <= max * ONE
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Random pairs inside the domain's velocity scale (|p| ≤ 4,096·τ and ≤ 10⁴,
        /// 0.002 ≤ R ≤ 4,096·min(τ, Δt) and ≤ 2,000, |v| ≤ 2,000) at every magnitude down to
        /// ulps: every branch (cut-off circle, legs, overlap, the w = 0 ties).
        #[test]
        fn prepared_pair_is_the_plain_pair(
            tau in time(10_000),
            dt in time(100),
            (px, py) in (magnitude(10_000 * ONE), magnitude(10_000 * ONE)),
            (vx, vy) in (magnitude(2_000 * ONE), magnitude(2_000 * ONE)),
            r in magnitude(2_000 * ONE),
            tie in 0u8..4,
        ) {
            let limit = |t: Fx| i128::from(t.to_bits()) * 4096;
            let scale = |c: i64, t: Fx| {
                let l = limit(t).min(i128::from(i64::MAX)) as i64;
                if c.unsigned_abs() > l.unsigned_abs() { c % l.max(1) } else { c }
            };
            let mut p = Vec2::from_bits(scale(px, tau), scale(py, tau));
            // R ≥ 0.002 (two minimal radii): beyond it |p|² > R² has a nonzero `Fx` value.
            let r = Fx::from_bits(scale(scale(r.abs(), tau), dt).abs().max(8_589_935));
            if tie == 2 {
                // Overlapping (|p| < R), so that p/Δt stays within the velocity scale.
                let half = (r.to_bits() / 2).max(1);
                p = Vec2::from_bits(p.x.to_bits() % half, p.y.to_bits() % half);
            }
            let mut v = Vec2::from_bits(vx, vy);
            // Ties: the relative velocity exactly at a cut-off centre (w = 0), or one ulp off.
            match tie {
                1 => v = Vec2::new(fx_div(p.x, tau), fx_div(p.y, tau)),
                2 => v = Vec2::new(fx_div(p.x, dt), fx_div(p.y, dt)),
                3 => v = Vec2::new(fx_div(p.x, tau), fx_div(p.y, tau)) + Vec2::from_bits(1, -1),
                _ => {}
            }
            check_prepared(p, v, r, tau, dt);
            check_prepared(-p, -v, r, tau, dt);
        }
    }

    /// The reference scenes' configuration (τ = 10 and 5, Δt = 0.25) on a grid of relative
    /// positions and velocities, and the domain's extreme times.
    #[test]
    fn prepared_pair_on_grids() {
        let times = [
            (10 * ONE, ONE / 4),
            (5 * ONE, ONE / 4),
            (4_294_967, 4_294_967),
            (10_000 * ONE, 100 * ONE),
            (ONE, ONE),
            (3 * ONE, ONE / 60),
        ];
        for (tau, dt) in times {
            let (tau, dt) = (Fx::from_bits(tau), Fx::from_bits(dt));
            for px in -6i64..=6 {
                for py in -6i64..=6 {
                    for (vx, vy) in [(0, 0), (1, 0), (-2, 1), (3, -3), (0, 5)] {
                        let p = Vec2::from_bits(px * ONE / 2, py * ONE / 3);
                        let v = Vec2::from_bits(vx * ONE / 5, vy * ONE / 7);
                        check_prepared(p, v, Fx::from_bits(ONE + ONE / 2), tau, dt);
                        check_prepared(p, v, Fx::from_bits(3 * ONE), tau, dt);
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "divide by zero")]
    fn pair_times_refuse_a_zero_horizon() {
        let _ = PairTimes::new(Fx::ZERO, Fx::ONE);
    }
}

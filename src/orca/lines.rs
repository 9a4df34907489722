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
use crate::AgentId;
use crate::math::{Fx, HALF, Vec2, fx_div, narrow, sqrt_wide, unit_from_turns, wide_mul};
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
#[must_use]
pub fn solve_pair(
    rel_pos: Vec2,
    rel_vel: Vec2,
    combined_radius: Fx,
    time_horizon: Fx,
    time_step: Fx,
    ids: (AgentId, AgentId),
) -> PairSolution {
    let dist_sq = rel_pos.length_squared_wide();
    let r_sq = wide_mul(combined_radius, combined_radius);

    if dist_sq > r_sq {
        // No collision. w: vector from the cut-off centre p/τ to the relative velocity.
        let w = rel_vel - rel_pos / time_horizon;
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(rel_pos);
        if dot1 < Fx::ZERO && wide_mul(dot1, dot1) > wide_mul(narrow(r_sq), w_len_sq) {
            // Project on the cut-off circle.
            // dot1 < 0 implies w != 0.
            let (w_len, unit_w) = w
                .length_and_direction_inlined()
                .unwrap_or((Fx::ZERO, Vec2::ZERO));
            return PairSolution {
                u: unit_w * (fx_div(combined_radius, time_horizon) - w_len),
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
    let w = rel_vel - rel_pos / time_step;
    let (w_len, unit_w, branch) = match w.length_and_direction() {
        Some((len, unit)) => (len, unit, Branch::Overlap),
        None => (
            Fx::ZERO,
            tie_break_direction(ids.0, ids.1),
            Branch::OverlapTieBreak,
        ),
    };
    PairSolution {
        u: unit_w * (fx_div(combined_radius, time_step) - w_len),
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
    /// pair; [`PairHalf::line_with_share`] gives the line through the agent's own velocity.
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
        let (a, b) = if me.id < other.id {
            (me, other)
        } else {
            (other, me)
        };
        let s = solve_pair(
            b.position - a.position,
            a.velocity - b.velocity,
            me.radius + other.radius,
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
        let part = match share {
            Share::Half => Vec2::new(self.u.x * HALF, self.u.y * HALF),
            Share::All => self.u,
            Share::None => Vec2::ZERO,
        };
        if me.id < other.id {
            Line {
                point: me.velocity + part,
                direction: self.direction,
            }
        } else {
            Line {
                point: me.velocity - part,
                direction: -self.direction,
            }
        }
    }
}

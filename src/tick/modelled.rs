//! Stages 5b to 8 for every slot when some agent model is in use ([`crate::agent_model`]):
//! the RVO2 path of [`super::solve`] with layers and masks (a neighbour not avoided gets no
//! line and does not steer), the body radius against walls, moving supports (lines in world
//! velocities, the LP relative to the support), the terrain-scaled speed, and with an
//! acceleration limit the lens LP ([`crate::orca::lens`]).
//!
//! Out of line: the RVO2 path compiles without any of it, and pays one branch per chunk.

use super::solve::Neighbor;
use super::workspace::{
    CHUNK, CHUNK_SHIFT, ChunkLists, ChunkWork, Pre, SlotOut, SlotWork, neighbors_in,
};
use crate::agent_model::AgentModel;
use crate::liveness::{self, Liveness, Rules};
use crate::math::{Fx, Vec2, div_trunc, wide_mul};
use crate::orca::Line;
use crate::orca::lens::{self, Lens};
use crate::orca::lines::{Share, deep_overlap_line};
use crate::orca::lp::{self, SolvePath};

impl ChunkWork {
    /// [`solve_slot`](Self::solve_slot) when some agent model is in use
    /// ([`crate::agent_model`]): the deadlock resolution and the lines skip the neighbours not
    /// avoided, the LP works with the terrain-scaled speed and the reachable circle, and the
    /// position moves by the world velocity (support + velocity). Out of line, so the RVO2
    /// path carries none of it.
    #[inline(never)]
    pub(super) fn solve_slot_modelled(
        &mut self,
        pre: Pre<'_>,
        models: &[AgentModel],
        lists: &[ChunkLists],
        rules: Rules,
        slot: usize,
    ) -> SlotOut {
        let neighbors = neighbors_in(lists, slot);
        let (steered, dir) = steer_slot_modelled(pre, models, rules, slot, neighbors);
        let ChunkWork {
            lines,
            lp_scratch,
            slot_work: w,
        } = self;
        let obstacle = w.lines_of_modelled(pre, models, lists, slot, neighbors, lines);
        let (v, path) = solve_modelled(
            pre,
            &models[slot],
            slot,
            steered.pref,
            lines,
            obstacle,
            lp_scratch,
        );
        let world = v + models[slot].support_velocity;
        w.finish_slot(pre, slot, (v, path), lines, obstacle, (steered, dir), world)
    }
}

impl SlotWork {
    /// [`lines_of`](Self::lines_of) when some agent model is in use
    /// ([`crate::agent_model`]): body radius, layers and masks, supports. Out of line, so the
    /// RVO2 path carries none of it.
    #[inline(never)]
    pub(super) fn lines_of_modelled(
        &mut self,
        pre: Pre<'_>,
        models: &[AgentModel],
        lists: &[ChunkLists],
        slot: usize,
        neighbors: &[u32],
        out: &mut Vec<Line>,
    ) -> usize {
        out.clear();
        let me = pre.state(slot);
        let p = &pre.agents.params()[slot];
        // The body radius against walls, and a search range covering the world speed
        // (effective max speed plus the support's, bounded by twice its larger component).
        let m = &models[slot];
        let support = m.support_velocity.max_abs_component();
        let body = m.body(p.radius);
        let world_speed = m.effective_max_speed(p.max_speed) + support + support;
        let horizon = pre.obstacle_horizon(slot, p.time_horizon_obst);
        let obstacle = self.obstacle_lines(pre, &me, (body, world_speed, horizon), out);
        let params = pre.agents.params();
        let mut k = lists[slot >> CHUNK_SHIFT].pair_start[slot & (CHUNK - 1)] as usize;
        for &o in neighbors {
            let o = o as usize;
            let pair = self.pair_with(pre, lists, &mut k, (slot, o), &me, p.time_horizon);
            // Layers and masks: a neighbour this agent does not avoid gets no line (its pair is
            // still taken above, so the stored pairs stay aligned); one that does not avoid
            // this agent leaves it the whole avoidance.
            if !m.avoids(&models[o]) {
                continue;
            }
            let share = if models[o].avoids(m) {
                Share::of(p.priority, params[o].priority)
            } else {
                Share::All
            };
            if share != Share::None {
                out.push(pair.line(me.velocity, share, slot < o));
            } else if let Some(line) = deep_overlap_line(&me, &pre.state(o), pre.time_step) {
                // A neighbour of lower priority gets out of this agent's way (no line), but is
                // never walked through.
                out.push(line);
            }
        }
        // The lines constrain world velocities; the LP solves for the velocity relative to
        // the support: `support + v` on the left of a line is `v` on the left of the line
        // moved by −support.
        let support = m.support_velocity;
        if support != Vec2::ZERO {
            for l in out.iter_mut() {
                l.point -= support;
            }
        }
        obstacle
    }
}

/// [`steer_slot`](super::solve::steer_slot) when agent models are in use: the deadlock resolution ignores the
/// neighbours this agent does not avoid (layers and masks), as its LP does.
fn steer_slot_modelled(
    pre: Pre<'_>,
    models: &[AgentModel],
    rules: Rules,
    slot: usize,
    neighbors: &[u32],
) -> (liveness::Steered, Option<(Fx, Vec2)>) {
    let v = pre.view;
    let pref = v.prefs[slot];
    let unchanged = liveness::Steered {
        pref,
        yielding_to: None,
    };
    if pre.liveness == Liveness::Rvo2 {
        return (unchanged, None);
    }
    let dir = pref.length_and_direction();
    let mine = &models[slot];
    if !neighbors.iter().any(|&o| mine.avoids(&models[o as usize])) {
        return (unchanged, dir);
    }
    let me = liveness::Me {
        id: v.ids[slot],
        position: v.positions[slot],
        pref,
        params: v.params[slot],
        stall: v.stalls[slot],
        dir,
    };
    let others = neighbors
        .iter()
        .map(|&o| o as usize)
        .filter(|&o| mine.avoids(&models[o]))
        .map(|o| Neighbor::<false>(v, o, Fx::ZERO));
    (liveness::steer(&me, others, rules), dir)
}

/// Stage 7 for one slot when some agent model is in use: the terrain-scaled speed, and with
/// an acceleration limit the lens LP ([`crate::orca::lens`]). Out of line.
#[inline(never)]
fn solve_modelled(
    pre: Pre<'_>,
    m: &AgentModel,
    slot: usize,
    pref: Vec2,
    lines: &[Line],
    num_obstacle_lines: usize,
    scratch: &mut Vec<Line>,
) -> (Vec2, SolvePath) {
    let p = &pre.agents.params()[slot];
    let max_speed = m.effective_max_speed(p.max_speed);
    let Some(reach) = m.reach(pre.time_step) else {
        return lp::solve_with_path(lines, num_obstacle_lines, max_speed, pref, scratch);
    };
    let center = pre.agents.velocities()[slot];
    let l = Lens {
        max_speed,
        center,
        radius: (reach - REACH_MARGIN).max(Fx::ZERO),
    };
    let (v, path) = lens::solve_with_path(lines, num_obstacle_lines, &l, pref, scratch);
    match path {
        // Braking may give up the reach for the walls (orca::lens).
        SolvePath::Braked => (v, path),
        _ => (within_reach(v, center, reach), path),
    }
}

/// How much smaller than `max_accel · time_step` the LP's reachable circle is (2⁻²⁰ units per
/// second, 4,096 ulps): the LP's roundings (a few ulps per square root and projection) then
/// never carry the result outside the true circle, which [`within_reach`] checks exactly.
const REACH_MARGIN: Fx = Fx::from_bits(1 << 12);

/// `v` if `|v − center| ≤ reach` (exact), otherwise `v` pulled radially into the circle (each
/// component of `v − center` scaled by `reach / |v − center|` toward zero, then shortened by an
/// ulp at a time until inside). With [`REACH_MARGIN`] the LP's answer is always inside already;
/// this keeps the guarantee exact whatever the rounding.
fn within_reach(v: Vec2, center: Vec2, reach: Fx) -> Vec2 {
    let r2 = wide_mul(reach, reach);
    let d = v - center;
    if d.length_squared_wide() <= r2 {
        return v;
    }
    let len = i128::from(d.length().to_bits()); // > reach >= 0
    let scale = |x: Fx| Fx::from_bits(div_trunc(wide_mul(x, reach), len) as i64);
    let mut d = Vec2::new(scale(d.x), scale(d.y));
    let toward_zero = |x: Fx| x - Fx::from_bits(x.to_bits().signum());
    while d.length_squared_wide() > r2 {
        d = Vec2::new(toward_zero(d.x), toward_zero(d.y));
    }
    center + d
}

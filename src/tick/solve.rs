//! Stages 5b to 8 for every slot, on RVO2's path (no agent model in use): steering, ORCA
//! lines, the LP, the outcome and the new position, back to back per slot.
//!
//! A slot's lines are built (obstacle lines first, then one per neighbour from the pairs
//! stage 5 stored, reused or solved here) and solved while they are in cache; only one slot's
//! lines are held per chunk. The agent-model path ([`super::modelled`]) shares the pair
//! lookup ([`SlotWork::pair_with`]), the obstacle lines and the outcome ([`outcome_of`]) with
//! this one.

use super::AgentOutcome;
use super::stats::SolveCounts;
use super::workspace::{
    CHUNK, CHUNK_SHIFT, ChunkLists, ChunkWork, Pre, SlotOut, SlotWork, View, Workspace,
    for_each_chunk_with, neighbors_in, reserve_total, reusable,
};
use crate::agent::{AgentId, AgentParams};
use crate::domain::check_point;
use crate::liveness::{self, Liveness, Rules};
use crate::math::{Fx, Vec2, narrow, wide_mul};
use crate::obstacle::ObstacleAgent;
use crate::orca::Line;
use crate::orca::lines::{AgentState, PairTimes, Share, StoredPair, deep_overlap_line};
use crate::orca::lp::{self, SolvePath};

impl Workspace {
    /// Stages 5b to 7 and stage 8's new position for every slot: its steered preferred
    /// velocity ([`crate::liveness`]), its ORCA lines (obstacle lines first), its new velocity
    /// (LP2, LP3 on failure), stall counter and outcome, and its new position. The stages run
    /// back to back per slot, so a slot's lines are still in cache when the LP reads them and
    /// only one slot's lines are held per chunk (sized once for the worst case: no allocation
    /// mid-run).
    pub(crate) fn build_lines_and_solve(&mut self, pre: Pre<'_>) {
        let n = pre.agents.len();
        let max_obstacle_lines = pre.obstacles.max_neighbor_count();
        let max_agent_lines = pre
            .agents
            .params()
            .iter()
            .map(|p| p.max_neighbors)
            .max()
            .unwrap_or(0) as usize;
        self.work.resize_with(self.lists.len(), ChunkWork::default);
        self.outs.resize(n, SlotOut::default());
        let lists = &self.lists[..];
        let rules = Rules::new(pre.time_step);
        let same_radius = same_radius(pre.agents.params());
        let pre = Pre {
            halved: self.halved,
            uniform_horizon: self.uniform_horizon,
            ..pre
        };
        for_each_chunk_with(&mut self.work, &mut self.outs, |c, work, outs| {
            let pre = pre.localized();
            reserve_total(&mut work.slot_work.obstacle_neighbors, max_obstacle_lines);
            reserve_total(&mut work.lines, max_obstacle_lines + max_agent_lines);
            reserve_total(&mut work.lp_scratch, max_obstacle_lines + max_agent_lines);
            work.slot_work.counts = SolveCounts::default();
            work.slot_work.times = None;
            // The model branch once per chunk: with a per-slot branch to the out-of-line model
            // path, the RVO2 path copies `pre` to memory for every slot.
            if let Some(models) = pre.agents.models() {
                for (i, out) in outs.iter_mut().enumerate() {
                    *out = work.solve_slot_modelled(pre, models, lists, rules, c * CHUNK + i);
                }
            } else {
                for (i, out) in outs.iter_mut().enumerate() {
                    work.solve_slot(pre, lists, (rules, same_radius), c * CHUNK + i, out);
                }
            }
        });
        let mut total = SolveCounts::default();
        for w in &self.work {
            total.add(&w.slot_work.counts);
        }
        let s = &mut self.stats;
        s.pairs_solved += total.pairs_solved;
        s.pairs_reused = total.pairs_reused;
        s.steered = total.steered;
        s.yielding = total.yielding;
        s.stalled = total.stalled;
        s.stalls_begun = total.begun;
        s.blocked_by_obstacle = total.blocked;
        s.obstacle_lines = total.obstacle_lines;
        s.agent_lines = total.agent_lines;
        s.lp3_fallbacks = total.lp3;
        s.obstacle_lp3_fallbacks = total.lp3_obstacles;
        s.at_max_speed = total.at_max;
        s.braked = total.braked;
    }
}

impl ChunkWork {
    /// Stages 5b to 7 and stage 8's new position for one slot, when no agent model is in use
    /// ([`solve_slot_modelled`](Self::solve_slot_modelled) otherwise).
    #[inline]
    fn solve_slot(
        &mut self,
        pre: Pre<'_>,
        lists: &[ChunkLists],
        (rules, same_radius): (Rules, Option<Fx>),
        slot: usize,
        out: &mut SlotOut,
    ) {
        debug_assert!(pre.agents.models().is_none());
        // The chunk's view (built by the caller once per chunk): rebuilding it here per slot
        // costs more than it saves (measured: 0.9 M and 1.9 M instructions on crowd 2000 and
        // circle 1000).
        let neighbors = neighbors_in(lists, slot);
        let (steered, dir) = steer_slot(pre, (rules, same_radius), slot, neighbors);
        let ChunkWork {
            lines,
            lp_scratch,
            slot_work: w,
        } = self;
        let obstacle = w.lines_of(pre, lists, slot, neighbors, lines);
        let p = &pre.view.params[slot];
        let (v, path) = lp::solve_with_path(lines, obstacle, p.max_speed, steered.pref, lp_scratch);
        *out = w.finish_slot(pre, slot, (v, path), lines, obstacle, (steered, dir), v);
    }
}

impl SlotWork {
    /// Stages 7 and 8 after the LP, for either path: the counters, the stall counter and
    /// outcome, and the new position (moved by `world`, the velocity plus any support's).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish_slot(
        &mut self,
        pre: Pre<'_>,
        slot: usize,
        (v, path): (Vec2, SolvePath),
        lines: &[Line],
        obstacle: usize,
        (steered, dir): (liveness::Steered, Option<(Fx, Vec2)>),
        world: Vec2,
    ) -> SlotOut {
        let pref = pre.view.prefs[slot];
        let max_speed = pre.view.params[slot].max_speed;
        let c = &mut self.counts;
        c.count(obstacle, path, at_max_speed(v, max_speed));
        c.agent_lines += (lines.len() - obstacle) as u64;
        c.steered += u64::from(steered.pref != pref && steered.yielding_to.is_none());
        c.yielding += u64::from(steered.yielding_to.is_some());
        let (stall, outcome) = outcome_of(pre, slot, (v, path), lines, obstacle, steered, dir);
        c.stalled += u64::from(stall > 0);
        c.begun += u64::from(stall == 1);
        c.blocked += u64::from(outcome.blocked_by_obstacle);
        let position = pre.view.positions[slot] + world * pre.time_step;
        SlotOut {
            velocity: v,
            position,
            stall,
            left_domain: check_point(position, "position").is_err(),
            outcome,
        }
    }

    /// τ (`time_horizon`) and Δt prepared for a pair the lines stage solves (its lower id did
    /// not list the higher, or has another horizon: about 3 % of the pairs in a crowd, none in
    /// a ring): prepared on the chunk's first such pair, again when a slot's horizon differs
    /// from the last one's. The pair is the same to the last bit as with `solve_pair`'s
    /// divisions ([`solve_pair_prepared`](crate::orca::lines::solve_pair_prepared)), without
    /// its three hardware divisions.
    #[inline(always)]
    pub(super) fn times(&mut self, time_horizon: Fx, time_step: Fx) -> PairTimes {
        match self.times {
            Some(t) if t.time_horizon() == time_horizon && t.time_step() == time_step => t,
            _ => self.prepare_times(time_horizon, time_step),
        }
    }

    /// [`times`](Self::times) when they are not prepared yet (once per chunk at most, with
    /// one horizon): out of line, so the lines loop does not carry the preparation's code.
    #[cold]
    #[inline(never)]
    fn prepare_times(&mut self, time_horizon: Fx, time_step: Fx) -> PairTimes {
        *self.times.insert(PairTimes::new(time_horizon, time_step))
    }

    /// The obstacle lines of an agent at `me` with the given radius and speed bound, into
    /// `out` (none without obstacles: no BSP node, no query). Returns their number.
    #[inline(always)]
    pub(super) fn obstacle_lines(
        &mut self,
        pre: Pre<'_>,
        me: &AgentState,
        (radius, max_speed, time_horizon_obst): (Fx, Fx, Fx),
        out: &mut Vec<Line>,
    ) -> usize {
        if pre.obstacles.max_neighbor_count() == 0 {
            return 0;
        }
        pre.obstacles.agent_lines_with(
            &ObstacleAgent {
                id: me.id,
                position: me.position,
                velocity: me.velocity,
                radius,
                max_speed,
                time_horizon_obst,
            },
            out,
            &mut self.obstacle_neighbors,
        )
    }

    /// The pair of `slot` with its neighbour `o`: stage 5's with a higher neighbour (the
    /// `k`-th, advancing `k`); the lower neighbour's when it can hand it over; else solved
    /// here (the only case that reads the neighbour's state).
    #[inline(always)]
    pub(super) fn pair_with(
        &mut self,
        pre: Pre<'_>,
        lists: &[ChunkLists],
        k: &mut usize,
        (slot, o): (usize, usize),
        me: &AgentState,
        time_horizon: Fx,
    ) -> StoredPair {
        if o > slot {
            *k += 1;
            lists[slot >> CHUNK_SHIFT].pairs[*k - 1]
        } else {
            self.pair_with_lower(pre, lists, o, slot, me, time_horizon)
        }
    }

    /// [`pair_with`](Self::pair_with) for a neighbour `o` of lower id than `slot` (`me`): the
    /// neighbour's solution when it can hand it over, else solved here.
    #[inline(always)]
    pub(super) fn pair_with_lower(
        &mut self,
        pre: Pre<'_>,
        lists: &[ChunkLists],
        o: usize,
        slot: usize,
        me: &AgentState,
        time_horizon: Fx,
    ) -> StoredPair {
        if let Some(pair) = reusable(pre, lists, o, slot) {
            self.counts.pairs_reused += 1;
            pair
        } else {
            self.counts.pairs_solved += 1;
            // `o < slot`: the neighbour has the lower id.
            let times = self.times(time_horizon, pre.time_step);
            StoredPair::solve_ordered_prepared(&pre.state(o), me, &times)
        }
    }

    /// Stage 6 for one slot: its ORCA lines into `out` (replacing its contents), obstacle lines
    /// first, then one line per neighbour. Returns the number of obstacle lines.
    #[inline]
    fn lines_of(
        &mut self,
        pre: Pre<'_>,
        lists: &[ChunkLists],
        slot: usize,
        neighbors: &[u32],
        out: &mut Vec<Line>,
    ) -> usize {
        let me = pre.rvo2_state(slot);
        let p = &pre.view.params[slot];
        let limits = (
            p.radius,
            p.max_speed,
            pre.obstacle_horizon(slot, p.time_horizon_obst),
        );
        if pre.halved {
            // Without obstacles `out` keeps the last slot's lines, to be overwritten: resizing
            // it then fills only the lines it grows by.
            let obstacle = if pre.obstacles.max_neighbor_count() == 0 {
                0
            } else {
                out.clear();
                self.obstacle_lines(pre, &me, limits, out)
            };
            // Every neighbour's priority is this agent's own: every share is half, and every
            // neighbour gets a line (written in place, without a capacity check per line).
            // The pairs stage 5 stored for this slot, one per higher neighbour, in list order.
            let c = &lists[slot >> CHUNK_SHIFT];
            let i = slot & (CHUNK - 1);
            let own = &c.pair_start[i..i + 2];
            let mut own = c.pairs[own[0] as usize..own[1] as usize].iter();
            // Every lower neighbour's pair is reused but those solved here: counted after the
            // loop, not per pair.
            let lower = neighbors.len() - own.len();
            let solved = self.counts.pairs_solved;
            out.resize(obstacle + neighbors.len(), Line::default());
            for (&o, line) in neighbors.iter().zip(&mut out[obstacle..]) {
                let o = o as usize;
                let pair = if o > slot {
                    *own.next()
                        .expect("stage 5 stores a pair per higher neighbour")
                } else if let Some(pair) = reusable(pre, lists, o, slot) {
                    pair
                } else {
                    self.counts.pairs_solved += 1;
                    // `o < slot`: the neighbour has the lower id.
                    let times = self.times(p.time_horizon, pre.time_step);
                    StoredPair::solve_ordered_prepared(&pre.state(o), &me, &times).halved()
                };
                // Stage 5 stored the halves: `Share::All` of a half is the half share's line.
                *line = pair.line(me.velocity, Share::All, slot < o);
            }
            self.counts.pairs_reused += lower as u64 - (self.counts.pairs_solved - solved);
            return obstacle;
        }
        out.clear();
        let obstacle = self.obstacle_lines(pre, &me, limits, out);
        let params = pre.view.params;
        let mut k = lists[slot >> CHUNK_SHIFT].pair_start[slot & (CHUNK - 1)] as usize;
        for &o in neighbors {
            let o = o as usize;
            let pair = self.pair_with(pre, lists, &mut k, (slot, o), &me, p.time_horizon);
            let share = Share::of(p.priority, params[o].priority);
            if share != Share::None {
                out.push(pair.line(me.velocity, share, slot < o));
            } else if let Some(line) = deep_overlap_line(&me, &pre.rvo2_state(o), pre.time_step) {
                // A neighbour of lower priority gets out of this agent's way (no line), but is
                // never walked through.
                out.push(line);
            }
        }
        obstacle
    }
}

/// A neighbour's slot, as the steering reads it ([`liveness::Neighbor`]): each field loaded
/// when the steering asks for it. With `SAME_RADIUS` every agent's radius is the third field
/// (they all have the same), and none is loaded.
#[derive(Clone, Copy)]
pub(super) struct Neighbor<'a, const SAME_RADIUS: bool>(
    pub(super) View<'a>,
    pub(super) usize,
    pub(super) Fx,
);

impl<const SAME_RADIUS: bool> liveness::Neighbor for Neighbor<'_, SAME_RADIUS> {
    #[inline(always)]
    fn id(&self) -> AgentId {
        self.0.ids[self.1]
    }
    #[inline(always)]
    fn position(&self) -> Vec2 {
        self.0.positions[self.1]
    }
    #[inline(always)]
    fn velocity(&self) -> Vec2 {
        self.0.velocities[self.1]
    }
    #[inline(always)]
    fn radius(&self) -> Fx {
        if SAME_RADIUS {
            self.2
        } else {
            self.0.params[self.1].radius
        }
    }
    #[inline(always)]
    fn priority(&self) -> u8 {
        self.0.params[self.1].priority
    }
    #[inline(always)]
    fn stall(&self) -> u16 {
        self.0.stalls[self.1]
    }
    #[inline(always)]
    fn pref(&self) -> Vec2 {
        self.0.prefs[self.1]
    }
    #[inline(always)]
    fn max_speed(&self) -> Fx {
        self.0.params[self.1].max_speed
    }
}

/// Stage 5b for one slot: its preferred velocity for the LP, turned or yielding by the deadlock
/// resolution in [`Liveness::Resolve`] mode, unchanged in [`Liveness::Rvo2`]; and the preferred
/// velocity's `length_and_direction()` (one square root per agent per tick, shared by the
/// steering and the stall counter; `None` in [`Liveness::Rvo2`] mode, which needs neither).
#[inline]
pub(super) fn steer_slot(
    pre: Pre<'_>,
    (rules, same_radius): (Rules, Option<Fx>),
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
    // Every rule needs a neighbour: alone, the preferred velocity stays.
    if neighbors.is_empty() {
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
    // Every array re-sliced to the positions' length here, where the loop indexes them: one
    // bounds check per neighbour serves them all.
    let n = v.positions.len();
    let v = View {
        ids: &v.ids[..n],
        positions: v.positions,
        velocities: &v.velocities[..n],
        prefs: &v.prefs[..n],
        params: &v.params[..n],
        stalls: &v.stalls[..n],
    };
    let steered = if let Some(r) = same_radius {
        let others = neighbors
            .iter()
            .map(|&o| Neighbor::<true>(v, o as usize, r));
        liveness::steer(&me, others, rules)
    } else {
        let others = neighbors
            .iter()
            .map(|&o| Neighbor::<false>(v, o as usize, Fx::ZERO));
        liveness::steer(&me, others, rules)
    };
    (steered, dir)
}

/// Stage 7 for one slot, after the LP: its stall counter and outcome. Inlined always: it runs
/// once per slot on both paths (RVO2 and agent model), inside each one's slot loop.
#[inline(always)]
pub(super) fn outcome_of(
    pre: Pre<'_>,
    slot: usize,
    (v, path): (Vec2, SolvePath),
    lines: &[Line],
    num_obstacle_lines: usize,
    steered: liveness::Steered,
    dir: Option<(Fx, Vec2)>,
) -> (u16, AgentOutcome) {
    let view = pre.view;
    let pref = view.prefs[slot];
    let max_speed = view.params[slot].max_speed;
    let stall = match pre.liveness {
        Liveness::Rvo2 => 0,
        Liveness::Resolve => liveness::next_stall(view.stalls[slot], dir, v, max_speed),
    };
    let penetration = match path {
        SolvePath::Lp2 => Fx::ZERO,
        // The largest `narrow(max(violation, 0))` of the agent lines (0 without any), as the
        // largest `narrow(violation)` and 0: `narrow` (a floor) is monotone and `narrow(0) = 0`,
        // so `narrow(max(w, 0)) = max(narrow(w), 0)`. One `i64` maximum per line instead of two
        // `i128` ones.
        SolvePath::Lp3Agents | SolvePath::Lp3Obstacles | SolvePath::Braked => lines
            [num_obstacle_lines..]
            .iter()
            .map(|l| narrow(l.violation_wide(v)))
            .fold(Fx::ZERO, Fx::max),
    };
    let blocked = stall > 0
        && lines[..num_obstacle_lines]
            .iter()
            .any(|l| l.violation_wide(pref) > 0);
    let outcome = AgentOutcome {
        solve: path,
        penetration,
        stalled_since: (stall > 0).then(|| pre.tick.saturating_sub(u64::from(stall) - 1)),
        yielding_to: steered.yielding_to,
        blocked_by_obstacle: blocked,
        steered: steered.pref != pref && steered.yielding_to.is_none(),
        no_solution: path == SolvePath::Braked,
    };
    (stall, outcome)
}

/// Every agent's radius, when they all have the same (`None` otherwise): the steering then adds
/// it without loading a neighbour's.
fn same_radius(params: &[AgentParams]) -> Option<Fx> {
    let r = params.first()?.radius;
    for p in params {
        if p.radius != r {
            return None;
        }
    }
    Some(r)
}

/// Whether `v` is at the speed limit: `max_speed² − |v|² ≤ max_speed · 2⁻¹⁶` (raw Q64.64).
fn at_max_speed(v: Vec2, max_speed: Fx) -> bool {
    max_speed > Fx::ZERO
        && wide_mul(max_speed, max_speed) - v.length_squared_wide()
            <= wide_mul(max_speed, Fx::from_bits(1 << 16))
}

//! The tick, stage by stage.
//!
//! [`Simulator::step`](crate::Simulator::step) is this list, in order:
//!
//! | stage | reads | writes |
//! | --- | --- | --- |
//! | 1. apply inputs ([`crate::command`]) | the pending commands due now | the agents, the undo log |
//! | 1b. orders ([`crate::orders`]) | orders, positions, parameters, the steering | ordered agents' preferred velocities and path progress, the undo log |
//! | 2. obstacles | the obstacle set | its BSP tree, when the set changed |
//! | 3. agent tree | positions | the kd-tree |
//! | 4. neighbours | kd-tree, positions, parameters | each slot's neighbour slots, nearest first |
//! | 5. pairs | neighbour lists, agent states | each neighbour entry: solved, or reused from the lower id |
//! | 5b. steer | neighbour lists, agent states, stall counters | each slot's preferred velocity for its LP ([`crate::liveness`]) |
//! | 6. ORCA lines | obstacles, pairs, agent states | each slot's lines (obstacle lines first) |
//! | 7. solve | each slot's lines, steered preferred velocity | each slot's new velocity, [`SolvePath`], stall counter and [`AgentOutcome`] |
//! | 8. integrate | new velocities, stall counters | positions, velocities, stall counters, time, tick (all or nothing) |
//! | 9. finish | the step's result | commits the inputs, or undoes them |
//!
//! Stages 4 to 7 run per agent. Each agent's work in a stage reads only the state before the
//! step and the outputs of earlier stages, and writes only its own slot's entries: any of these
//! stages can be split across threads without changing a bit. Stages 6 and 7 run back to back
//! for each agent (its lines are built, then solved, while they are in cache), so only one
//! agent's lines are held at a time.
//!
//! **Pairs are solved once.** ORCA's line for a pair is, in the frame of the lower id, exactly
//! the negation of the higher id's ([`crate::orca::lines`]). When the higher id `h` lists the
//! lower id `l` as a neighbour, `l` lists `h`, and both use the same time horizon, the pairs
//! stage of `h` records a reference to `l`'s entry instead of solving
//! again; the lines stage reads it from there. Since a reference always points at an entry
//! that `l`'s pairs stage solved itself, no entry depends on another entry of the same stage.
//!
//! The outputs live in a workspace that is never state: it is not hashed, snapshotted or
//! compared, and it keeps its buffers between ticks so a steady tick allocates nothing.

use crate::agent::{AgentId, Agents};
use crate::agent_model::AgentModel;
use crate::liveness::{self, Liveness, Rules};
use crate::math::{Fx, Vec2, div_trunc, narrow, wide_mul};
use crate::obstacle::{ObstacleAgent, ObstacleSet};
use crate::orca::Line;
use crate::orca::lens::{self, Lens};
use crate::orca::lines::{AgentState, PairHalf, Share};
use crate::orca::lp::{self, SolvePath};
use crate::spatial::kdtree::{AgentTree, NeighborKey};

/// Counters of one [`step`](crate::Simulator::step), named after its stages (see the
/// [module docs](self)). Read them with
/// [`Simulator::step_stats`](crate::Simulator::step_stats) after the step.
///
/// Diagnostics, not state: a restored or cloned simulator starts from the default, and the
/// counters do not enter the state hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StepStats {
    /// The tick the step started from.
    pub tick: u64,
    /// Agents simulated (after the inputs were applied).
    pub agents: u64,
    /// Stage 1: queued commands applied.
    pub commands_applied: u64,
    /// Stage 1: queued commands skipped because they were invalid when their tick came (see
    /// [`Simulator::rejected_commands`](crate::Simulator::rejected_commands)).
    pub commands_rejected: u64,
    /// Stage 1b: agents steered by their move order ([`crate::orders`]).
    pub ordered: u64,
    /// Stage 2: whether the obstacle tree was rebuilt by this step.
    pub obstacle_tree_rebuilt: bool,
    /// Stage 4: agent neighbours found, over all agents.
    pub neighbors_found: u64,
    /// Stage 5: agent pairs solved.
    pub pairs_solved: u64,
    /// Stage 5: neighbour entries that reused the lower id's solution of the same pair.
    pub pairs_reused: u64,
    /// Stage 6: obstacle ORCA lines built.
    pub obstacle_lines: u64,
    /// Stage 6: agent ORCA lines built (`neighbors_found`, less the neighbours of lower
    /// priority, which get no line).
    pub agent_lines: u64,
    /// Stage 7: agents whose LP2 failed on an agent line, solved by LP3 (a dense crowd).
    pub lp3_fallbacks: u64,
    /// Stage 7: agents whose obstacle lines alone were infeasible (squeezed into a gap or a
    /// corner), solved by LP3 over the obstacle lines.
    pub obstacle_lp3_fallbacks: u64,
    /// Stage 7: agents whose new speed is their max speed (within `max_speed · 2⁻¹⁶` of
    /// `max_speed²`, i.e. about 2⁻¹⁷ units per second; agents with max speed 0 are not
    /// counted).
    pub at_max_speed: u64,
    /// Stage 5 (steer): agents whose preferred direction was turned (passing side or
    /// escalation, [`crate::liveness`]).
    pub steered: u64,
    /// Stage 5 (steer): agents yielding right of way.
    pub yielding: u64,
    /// Stage 7: agents stalled after this step (their stall counter is above 0).
    pub stalled: u64,
    /// Stage 7: agents whose stall began with this step (their counter went from 0 to 1).
    pub stalls_begun: u64,
    /// Stage 7: stalled agents whose own preferred velocity points into a wall.
    pub blocked_by_obstacle: u64,
    /// Stage 7: agents with an acceleration limit ([`crate::AgentModel::max_accel`]) that
    /// found no velocity satisfying the walls within reach and braked
    /// ([`SolvePath::Braked`]).
    pub braked: u64,
}

/// What happened to one agent in the last step
/// ([`Simulator::agent_outcome`](crate::Simulator::agent_outcome)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AgentOutcome {
    /// Which program produced its new velocity: [`SolvePath::Lp2`] solved every line; the LP3
    /// paths relaxed some.
    pub solve: SolvePath,
    /// With an LP3 path: the largest violation of an agent line the new velocity accepts, in
    /// units per second (the exact `det(direction, point − v)` of the most violated line,
    /// rounded toward −∞; 0 when none is violated). 0 with LP2.
    pub penetration: Fx,
    /// The tick its current stall began, if it is stalled after this step (see
    /// [`crate::liveness`]): the tick at the start of its first stalled step.
    pub stalled_since: Option<u64>,
    /// The agent it gave right of way to in this step, if it yielded.
    pub yielding_to: Option<AgentId>,
    /// Stalled with its own preferred velocity pointing into a wall (it violates one of the
    /// agent's obstacle lines): the game should give it another route.
    pub blocked_by_obstacle: bool,
    /// Whether its preferred direction was turned by the deadlock resolution.
    pub steered: bool,
    /// "No solution": with an acceleration limit, no velocity within reach satisfied its
    /// obstacle lines, and it braked ([`SolvePath::Braked`]).
    pub no_solution: bool,
}

impl Default for AgentOutcome {
    fn default() -> Self {
        Self {
            solve: SolvePath::Lp2,
            penetration: Fx::ZERO,
            stalled_since: None,
            yielding_to: None,
            blocked_by_obstacle: false,
            steered: false,
            no_solution: false,
        }
    }
}

/// One entry of the pairs stage, aligned with the flat neighbour list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairEntry {
    /// This agent solved the pair.
    Solved(PairHalf),
    /// The lower id solved the same pair: its entry, by flat index.
    Reused(u32),
}

/// Reusable buffers and stage outputs of the tick: never state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace {
    tree: AgentTree,
    keys: Vec<NeighborKey>,
    obstacle_neighbors: Vec<(i128, u32)>,
    /// Stage 4: neighbour slots, flat, with a `(start, len)` range per slot.
    neighbor_slots: Vec<u32>,
    neighbor_ranges: Vec<(u32, u32)>,
    /// Stage 4, for queries after the step: the ids of `neighbor_slots`, and the id of every
    /// slot at the time of the step.
    neighbor_ids: Vec<AgentId>,
    listed_ids: Vec<AgentId>,
    /// Stage 5, aligned with `neighbor_slots`.
    pairs: Vec<PairEntry>,
    /// Stage 5 (steer): the preferred velocity each slot's LP optimises for, and whom it
    /// yields to.
    steered: Vec<Vec2>,
    yielding: Vec<Option<AgentId>>,
    /// Each slot's preferred velocity as `length_and_direction()` (one square root per agent
    /// per tick, shared by the steering and the stall counter).
    pref_dirs: Vec<Option<(Fx, Vec2)>>,
    /// Stage 7: each slot's stall counter after the step (committed by stage 8) and outcome.
    pub(crate) new_stalls: Vec<u16>,
    outcomes: Vec<AgentOutcome>,
    /// Stage 6 (one slot's lines at a time) and 7.
    lines: Vec<Line>,
    lp_scratch: Vec<Line>,
    pub(crate) new_velocities: Vec<Vec2>,
    /// Stage 8.
    pub(crate) new_positions: Vec<Vec2>,
    pub(crate) stats: StepStats,
}

/// The pre-step state every per-agent stage reads.
#[derive(Clone, Copy)]
pub(crate) struct Pre<'a> {
    pub agents: &'a Agents,
    pub obstacles: &'a ObstacleSet,
    pub time_step: Fx,
    pub tick: u64,
    pub liveness: Liveness,
}

impl Pre<'_> {
    /// The agent's state as ORCA sees it: on a moving support
    /// ([`crate::AgentModel::support_velocity`]) its world velocity, `support + velocity`.
    /// Inlined always: it runs per neighbour, and with no model in use its one extra branch is
    /// all it costs.
    #[inline(always)]
    fn state(&self, slot: usize) -> AgentState {
        match self.agents.models() {
            None => self.rvo2_state(slot),
            Some(m) => AgentState {
                velocity: self.agents.velocities()[slot] + m[slot].support_velocity,
                ..self.rvo2_state(slot)
            },
        }
    }

    /// [`state`](Self::state) when no agent model is in use: the velocity is the world
    /// velocity.
    #[inline(always)]
    fn rvo2_state(&self, slot: usize) -> AgentState {
        AgentState {
            id: self.agents.ids()[slot],
            position: self.agents.positions()[slot],
            velocity: self.agents.velocities()[slot],
            radius: self.agents.params()[slot].radius,
        }
    }
}

impl Workspace {
    /// Stage 3: the agent kd-tree over the positions.
    pub(crate) fn build_agent_tree(&mut self, pre: Pre<'_>) {
        self.tree.build(pre.agents.positions());
    }

    /// Stage 4: every slot's neighbours (nearest first, ties by slot, i.e. by id).
    pub(crate) fn find_neighbors(&mut self, pre: Pre<'_>) {
        let n = pre.agents.len();
        let params = pre.agents.params();
        let max = params.iter().map(|p| p.max_neighbors).max().unwrap_or(0) as usize;
        // The flat lists are reserved for every agent's cap at once (at most n − 1, and at most
        // RESERVED_NEIGHBORS each), so a run never grows them mid-way; caps above that grow
        // them as needed (amortised), rather than reserving gigabytes for 1,024 neighbours each.
        let bound = n.saturating_sub(1).min(RESERVED_NEIGHBORS);
        let total: usize = params
            .iter()
            .map(|p| (p.max_neighbors as usize).min(bound))
            .sum();
        reserve_total(&mut self.keys, max);
        reserve_total(&mut self.neighbor_slots, total);
        reserve_total(&mut self.neighbor_ids, total);
        reserve_total(&mut self.pairs, total);
        reserve_total(&mut self.neighbor_ranges, n);
        reserve_total(&mut self.listed_ids, n);
        self.neighbor_slots.clear();
        self.neighbor_ranges.clear();
        for (slot, p) in params.iter().enumerate() {
            let start = self.neighbor_slots.len() as u32;
            self.tree.query_slots(
                pre.agents.positions(),
                slot as u32,
                p.neighbor_dist,
                p.max_neighbors as usize,
                &mut self.keys,
                &mut self.neighbor_slots,
            );
            let len = self.neighbor_slots.len() as u32 - start;
            self.neighbor_ranges.push((start, len));
        }
        let ids = pre.agents.ids();
        self.neighbor_ids.clear();
        self.neighbor_ids
            .extend(self.neighbor_slots.iter().map(|&o| ids[o as usize]));
        self.listed_ids.clear();
        self.listed_ids.extend_from_slice(ids);
        self.stats.neighbors_found = self.neighbor_slots.len() as u64;
    }

    fn neighbors_of(&self, slot: usize) -> std::ops::Range<usize> {
        let (start, len) = self.neighbor_ranges[slot];
        start as usize..(start + len) as usize
    }

    /// The flat index of `slot` in `lower`'s neighbour list, when `lower` can hand its solution
    /// of the pair to `slot`: `lower` lists `slot` and both use the same time horizon.
    #[inline]
    fn reusable(&self, pre: Pre<'_>, lower: usize, slot: usize) -> Option<u32> {
        let params = pre.agents.params();
        if params[lower].time_horizon != params[slot].time_horizon {
            return None;
        }
        let range = self.neighbors_of(lower);
        let target = slot as u32;
        // Slots in a list are unique: at most one match.
        self.neighbor_slots[range.clone()]
            .iter()
            .position(|&s| s == target)
            .map(|k| (range.start + k) as u32)
    }

    /// Stage 5: each neighbour entry's pair solution, solved here or reused from the lower id.
    pub(crate) fn solve_pairs(&mut self, pre: Pre<'_>) {
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        reserve_total(&mut pairs, self.neighbor_slots.len());
        let mut reused = 0;
        for slot in 0..self.neighbor_ranges.len() {
            let me = pre.state(slot);
            let horizon = pre.agents.params()[slot].time_horizon;
            for k in self.neighbors_of(slot) {
                let o = self.neighbor_slots[k] as usize;
                let entry = match (o < slot).then(|| self.reusable(pre, o, slot)).flatten() {
                    Some(index) => {
                        reused += 1;
                        PairEntry::Reused(index)
                    }
                    None => PairEntry::Solved(PairHalf::solve(
                        &me,
                        &pre.state(o),
                        horizon,
                        pre.time_step,
                    )),
                };
                pairs.push(entry);
            }
        }
        self.pairs = pairs;
        self.stats.pairs_reused = reused;
        self.stats.pairs_solved = self.pairs.len() as u64 - reused;
    }

    /// Stage 5 (steer): each slot's preferred velocity for its LP, turned or yielding by the
    /// deadlock resolution in [`Liveness::Resolve`] mode, unchanged in [`Liveness::Rvo2`].
    pub(crate) fn steer(&mut self, pre: Pre<'_>) {
        let agents = pre.agents;
        self.steered.clear();
        self.yielding.clear();
        self.pref_dirs.clear();
        if pre.liveness == Liveness::Rvo2 {
            self.steered.extend_from_slice(agents.pref_velocities());
            self.yielding.resize(agents.len(), None);
            self.stats.steered = 0;
            self.stats.yielding = 0;
            return;
        }
        let rules = Rules::new(pre.time_step);
        let (mut steered, mut yielding) = (0, 0);
        for slot in 0..self.neighbor_ranges.len() {
            let pref = agents.pref_velocities()[slot];
            let dir = pref.length_and_direction();
            self.pref_dirs.push(dir);
            // Every rule needs a neighbour: alone, the preferred velocity stays.
            if self.neighbor_ranges[slot].1 == 0 {
                self.steered.push(pref);
                self.yielding.push(None);
                continue;
            }
            let me = liveness::Me {
                id: agents.ids()[slot],
                position: agents.positions()[slot],
                pref,
                params: agents.params()[slot],
                stall: agents.stalls()[slot],
                dir,
            };
            let others = self.neighbor_slots[self.neighbors_of(slot)]
                .iter()
                .map(|&o| {
                    let o = o as usize;
                    liveness::Other {
                        id: agents.ids()[o],
                        position: agents.positions()[o],
                        velocity: agents.velocities()[o],
                        radius: agents.params()[o].radius,
                        priority: agents.params()[o].priority,
                        stall: agents.stalls()[o],
                        pref: agents.pref_velocities()[o],
                        max_speed: agents.params()[o].max_speed,
                    }
                });
            let s = match agents.models() {
                None => liveness::steer(&me, others, rules),
                Some(m) => {
                    let slots = &self.neighbor_slots[self.neighbors_of(slot)];
                    steer_masked(&me, others, slots, m, slot, rules)
                }
            };
            steered += u64::from(s.pref != me.pref && s.yielding_to.is_none());
            yielding += u64::from(s.yielding_to.is_some());
            self.steered.push(s.pref);
            self.yielding.push(s.yielding_to);
        }
        self.stats.steered = steered;
        self.stats.yielding = yielding;
    }

    /// The pair solution of neighbour entry `k`.
    #[inline]
    fn pair(&self, k: usize) -> PairHalf {
        match self.pairs[k] {
            PairEntry::Solved(p) => p,
            PairEntry::Reused(j) => match self.pairs[j as usize] {
                PairEntry::Solved(p) => p,
                // A reused entry points at an entry its lower id solved (module docs).
                PairEntry::Reused(_) => unreachable!("a reused pair points at a solved pair"),
            },
        }
    }

    /// Stage 6 for one slot: its ORCA lines into `out` (cleared), obstacle lines first, then
    /// one line per neighbour. Returns the number of obstacle lines.
    #[inline]
    fn lines_of(
        &self,
        pre: Pre<'_>,
        slot: usize,
        out: &mut Vec<Line>,
        obstacle_neighbors: &mut Vec<(i128, u32)>,
    ) -> usize {
        if let Some(models) = pre.agents.models() {
            return self.lines_of_modelled(pre, models, slot, out, obstacle_neighbors);
        }
        out.clear();
        let me = pre.rvo2_state(slot);
        let p = &pre.agents.params()[slot];
        // Without obstacles (no BSP node) there are no obstacle lines: skip the query.
        let obstacle = if pre.obstacles.max_neighbor_count() == 0 {
            0
        } else {
            pre.obstacles.agent_lines_with(
                &ObstacleAgent {
                    id: me.id,
                    position: me.position,
                    velocity: me.velocity,
                    radius: p.radius,
                    max_speed: p.max_speed,
                    time_horizon_obst: p.time_horizon_obst,
                },
                out,
                obstacle_neighbors,
            )
        };
        let params = pre.agents.params();
        for k in self.neighbors_of(slot) {
            let o = self.neighbor_slots[k] as usize;
            let share = Share::of(p.priority, params[o].priority);
            // A neighbour of lower priority gets out of this agent's way: no line.
            if share != Share::None {
                let other = pre.rvo2_state(o);
                out.push(self.pair(k).line_with_share(&me, &other, share));
            }
        }
        obstacle
    }

    /// [`lines_of`](Self::lines_of) when some agent model is in use
    /// ([`crate::agent_model`]): body radius, layers and masks, supports. Out of line, so the
    /// RVO2 path stays as it was.
    #[inline(never)]
    fn lines_of_modelled(
        &self,
        pre: Pre<'_>,
        models: &[AgentModel],
        slot: usize,
        out: &mut Vec<Line>,
        obstacle_neighbors: &mut Vec<(i128, u32)>,
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
        // Without obstacles (no BSP node) there are no obstacle lines: skip the query.
        let obstacle = if pre.obstacles.max_neighbor_count() == 0 {
            0
        } else {
            pre.obstacles.agent_lines_with(
                &ObstacleAgent {
                    id: me.id,
                    position: me.position,
                    velocity: me.velocity,
                    radius: body,
                    max_speed: world_speed,
                    time_horizon_obst: p.time_horizon_obst,
                },
                out,
                obstacle_neighbors,
            )
        };
        let params = pre.agents.params();
        for k in self.neighbors_of(slot) {
            let o = self.neighbor_slots[k] as usize;
            // Layers and masks: a neighbour this agent does not avoid gets no line; one that
            // does not avoid this agent leaves it the whole avoidance.
            if !m.avoids(&models[o]) {
                continue;
            }
            let share = if models[o].avoids(m) {
                Share::of(p.priority, params[o].priority)
            } else {
                Share::All
            };
            // A neighbour of lower priority gets out of this agent's way: no line.
            if share != Share::None {
                let other = pre.state(o);
                out.push(self.pair(k).line_with_share(&me, &other, share));
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

    /// Stage 7 for one slot: the new velocity from its lines (LP2, LP3 on failure), towards
    /// its steered preferred velocity.
    #[inline]
    fn solve_one(
        pre: Pre<'_>,
        slot: usize,
        pref: Vec2,
        lines: &[Line],
        num_obstacle_lines: usize,
        scratch: &mut Vec<Line>,
    ) -> (Vec2, SolvePath) {
        let p = &pre.agents.params()[slot];
        match pre.agents.models() {
            None => lp::solve_with_path(lines, num_obstacle_lines, p.max_speed, pref, scratch),
            Some(models) => Self::solve_modelled(
                pre,
                &models[slot],
                slot,
                pref,
                lines,
                num_obstacle_lines,
                scratch,
            ),
        }
    }

    /// [`solve_one`](Self::solve_one) when some agent model is in use: the terrain-scaled
    /// speed, and with an acceleration limit the lens LP ([`crate::orca::lens`]). Out of line.
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

    /// Stage 7 for one slot, after the LP: its stall counter and outcome.
    fn outcome_of(
        &self,
        pre: Pre<'_>,
        slot: usize,
        (v, path): (Vec2, SolvePath),
        lines: &[Line],
        num_obstacle_lines: usize,
    ) -> (u16, AgentOutcome) {
        let agents = pre.agents;
        let pref = agents.pref_velocities()[slot];
        let max_speed = agents.params()[slot].max_speed;
        let stall = match pre.liveness {
            Liveness::Rvo2 => 0,
            Liveness::Resolve => {
                liveness::next_stall(agents.stalls()[slot], self.pref_dirs[slot], v, max_speed)
            }
        };
        let penetration = match path {
            SolvePath::Lp2 => Fx::ZERO,
            SolvePath::Lp3Agents | SolvePath::Lp3Obstacles | SolvePath::Braked => lines
                [num_obstacle_lines..]
                .iter()
                .map(|l| narrow(l.violation_wide(v).max(0)))
                .max()
                .unwrap_or(Fx::ZERO),
        };
        let blocked = stall > 0
            && lines[..num_obstacle_lines]
                .iter()
                .any(|l| l.violation_wide(pref) > 0);
        let outcome = AgentOutcome {
            solve: path,
            penetration,
            stalled_since: (stall > 0).then(|| pre.tick.saturating_sub(u64::from(stall) - 1)),
            yielding_to: self.yielding[slot],
            blocked_by_obstacle: blocked,
            steered: self.steered[slot] != pref && self.yielding[slot].is_none(),
            no_solution: path == SolvePath::Braked,
        };
        (stall, outcome)
    }

    /// Stages 6 and 7: every slot's lines, then its new velocity. The two stages run back to
    /// back per slot, so a slot's lines are still in cache when the LP reads them and only one
    /// slot's lines are ever held (sized once for the worst case: no allocation mid-run).
    pub(crate) fn build_lines_and_solve(&mut self, pre: Pre<'_>) {
        // Size the buffers for the worst case once (obstacle lines + agent neighbours), so
        // crowding into new walls never reallocates in the middle of a run.
        let max_obstacle_lines = pre.obstacles.max_neighbor_count();
        let max_agent_lines = pre
            .agents
            .params()
            .iter()
            .map(|p| p.max_neighbors)
            .max()
            .unwrap_or(0) as usize;
        let mut lines = std::mem::take(&mut self.lines);
        let mut obstacle_neighbors = std::mem::take(&mut self.obstacle_neighbors);
        reserve_total(&mut obstacle_neighbors, max_obstacle_lines);
        reserve_total(&mut lines, max_obstacle_lines + max_agent_lines);
        reserve_total(&mut self.lp_scratch, max_obstacle_lines + max_agent_lines);
        self.new_velocities.clear();
        self.new_stalls.clear();
        let mut outcomes = std::mem::take(&mut self.outcomes);
        outcomes.clear();
        let mut stats = SolveCounts::default();
        for slot in 0..self.neighbor_ranges.len() {
            let obstacle = self.lines_of(pre, slot, &mut lines, &mut obstacle_neighbors);
            let pref = self.steered[slot];
            let solved = Self::solve_one(pre, slot, pref, &lines, obstacle, &mut self.lp_scratch);
            let (v, path) = solved;
            let max_speed = pre.agents.params()[slot].max_speed;
            stats.count(obstacle, path, at_max_speed(v, max_speed));
            stats.agent_lines += (lines.len() - obstacle) as u64;
            let (stall, outcome) = self.outcome_of(pre, slot, solved, &lines, obstacle);
            stats.stalled += u64::from(stall > 0);
            stats.begun += u64::from(stall == 1);
            stats.blocked += u64::from(outcome.blocked_by_obstacle);
            self.new_velocities.push(v);
            self.new_stalls.push(stall);
            outcomes.push(outcome);
        }
        self.outcomes = outcomes;
        self.stats.stalled = stats.stalled;
        self.stats.stalls_begun = stats.begun;
        self.stats.blocked_by_obstacle = stats.blocked;
        self.lines = lines;
        self.obstacle_neighbors = obstacle_neighbors;
        self.stats.obstacle_lines = stats.obstacle_lines;
        self.stats.agent_lines = stats.agent_lines;
        self.stats.lp3_fallbacks = stats.lp3;
        self.stats.obstacle_lp3_fallbacks = stats.lp3_obstacles;
        self.stats.at_max_speed = stats.at_max;
        self.stats.braked = stats.braked;
    }

    /// Neighbours found for agent `id` by the last step (empty if it was not simulated then).
    pub(crate) fn neighbors_of_id(&self, id: AgentId) -> &[AgentId] {
        match self.listed_ids.binary_search(&id) {
            Ok(slot) if slot < self.neighbor_ranges.len() => {
                &self.neighbor_ids[self.neighbors_of(slot)]
            }
            _ => &[],
        }
    }

    /// The outcome of agent `id` in the last step (`None` if it was not simulated then).
    pub(crate) fn outcome_of_id(&self, id: AgentId) -> Option<AgentOutcome> {
        let slot = self.listed_ids.binary_search(&id).ok()?;
        self.outcomes.get(slot).copied()
    }

    /// Forgets the neighbour lists of the last step (after a failed step, whose lists were
    /// computed for a state that has been rolled back).
    pub(crate) fn clear_neighbor_lists(&mut self) {
        self.neighbor_ids.clear();
        self.neighbor_slots.clear();
        self.neighbor_ranges.clear();
        self.listed_ids.clear();
        self.pairs.clear();
        self.outcomes.clear();
    }
}

/// Stage 6 and 7 counters.
#[derive(Default)]
struct SolveCounts {
    obstacle_lines: u64,
    agent_lines: u64,
    lp3: u64,
    lp3_obstacles: u64,
    at_max: u64,
    stalled: u64,
    begun: u64,
    blocked: u64,
    braked: u64,
}

impl SolveCounts {
    #[inline]
    fn count(&mut self, obstacle_lines: usize, path: SolvePath, at_max: bool) {
        self.obstacle_lines += obstacle_lines as u64;
        match path {
            SolvePath::Lp2 => {}
            SolvePath::Lp3Agents => self.lp3 += 1,
            SolvePath::Lp3Obstacles => self.lp3_obstacles += 1,
            SolvePath::Braked => self.braked += 1,
        }
        self.at_max += u64::from(at_max);
    }
}

/// Stage 5 (steer) for one slot when agent models are in use: the deadlock resolution ignores
/// the neighbours this agent does not avoid (layers and masks), as its LP does. `slots` are the
/// slots of `others`, in order. Out of line, so the RVO2 path of the stage stays as it was.
#[inline(never)]
fn steer_masked(
    me: &liveness::Me,
    others: impl Iterator<Item = liveness::Other>,
    slots: &[u32],
    models: &[AgentModel],
    slot: usize,
    rules: Rules,
) -> liveness::Steered {
    let mine = &models[slot];
    let avoided = others
        .zip(slots)
        .filter(|&(_, &o)| mine.avoids(&models[o as usize]))
        .map(|(other, _)| other);
    liveness::steer(me, avoided, rules)
}

/// Whether `v` is at the speed limit: `max_speed² − |v|² ≤ max_speed · 2⁻¹⁶` (raw Q64.64).
fn at_max_speed(v: Vec2, max_speed: Fx) -> bool {
    max_speed > Fx::ZERO
        && wide_mul(max_speed, max_speed) - v.length_squared_wide()
            <= wide_mul(max_speed, Fx::from_bits(1 << 16))
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

/// Neighbours per agent that the flat lists reserve room for up front (see
/// `Workspace::find_neighbors`).
const RESERVED_NEIGHBORS: usize = 64;

/// Grows `v`'s capacity to at least `total` (no-op once it is).
fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    if v.capacity() < total {
        v.reserve(total - v.len());
    }
}

#[cfg(test)]
mod tests {
    use crate::{AgentParams, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2};

    #[test]
    fn stats_count_what_the_stages_did() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        assert_eq!(*sim.step_stats(), super::StepStats::default());
        let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
        let b = sim.add_agent(Vec2::from_int(4, 0)).unwrap();
        // Far away, and with a shorter horizon: it never shares a solution.
        let c = sim
            .add_agent_with(
                Vec2::from_int(100, 0),
                AgentParams {
                    time_horizon: Fx::from_num(5),
                    ..AgentParams::default()
                },
            )
            .unwrap();
        sim.set_agent_pref_velocity(a, Vec2::from_int(5, 0))
            .unwrap();
        sim.set_agent_pref_velocity(b, Vec2::from_int(-1, 0))
            .unwrap();
        sim.add_obstacle(ObstacleShape::Polygon(vec![
            Vec2::from_int(101, -10),
            Vec2::from_int(103, -10),
            Vec2::from_int(103, 10),
            Vec2::from_int(101, 10),
        ]))
        .unwrap();
        sim.step().unwrap();
        let s = *sim.step_stats();
        assert_eq!(s.tick, 0);
        assert_eq!(s.agents, 3);
        assert!(s.obstacle_tree_rebuilt);
        // a and b see each other: one pair, solved by a, reused by b.
        assert_eq!(s.neighbors_found, 2);
        assert_eq!(s.agent_lines, 2);
        assert_eq!((s.pairs_solved, s.pairs_reused), (1, 1));
        // Only c is near the block.
        assert!(s.obstacle_lines >= 1, "{s:?}");
        assert_eq!(sim.agent_neighbors(c).unwrap(), &[]);
        assert_eq!(sim.agent_neighbors(a).unwrap(), &[b]);
        sim.step().unwrap();
        let s = *sim.step_stats();
        assert_eq!(s.tick, 1);
        assert!(!s.obstacle_tree_rebuilt);
        // A different horizon: c's pair with a neighbour is solved by both sides.
        sim.set_agent_position(c, Vec2::from_int(4, 3)).unwrap();
        sim.step().unwrap();
        let s = *sim.step_stats();
        assert_eq!(s.neighbors_found, 6);
        assert_eq!(s.pairs_solved + s.pairs_reused, 6);
        assert_eq!(s.pairs_reused, 1); // only a–b
    }

    #[test]
    fn agents_pushing_beyond_their_max_speed_are_at_max_speed() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
        let b = sim.add_agent(Vec2::from_int(50, 0)).unwrap();
        sim.set_agent_pref_velocity(a, Vec2::from_int(7, 3))
            .unwrap();
        sim.set_agent_pref_velocity(b, Vec2::from_int(1, 0))
            .unwrap();
        sim.step().unwrap();
        assert_eq!(sim.step_stats().at_max_speed, 1);
        assert_eq!(sim.step_stats().lp3_fallbacks, 0);
    }
}

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
//! | 5. pairs | neighbour lists, agent states | each slot's pair solutions with its neighbours of higher id |
//! | 5b. steer | neighbour lists, agent states, stall counters | the slot's preferred velocity for its LP ([`crate::liveness`]) |
//! | 6. ORCA lines | obstacles, pairs, agent states | the slot's lines (obstacle lines first) |
//! | 7. solve | the slot's lines, steered preferred velocity | each slot's new velocity, [`SolvePath`], stall counter and [`AgentOutcome`] |
//! | 8. integrate | new velocities, stall counters | each slot's new position, then positions, velocities, stall counters, time, tick (all or nothing) |
//! | 9. finish | the step's result | commits the inputs, or undoes them |
//!
//! Stages 4 to 8 run per agent, in two passes over the slots: stages 4 and 5, then (after
//! every list is complete) stages 5b to 8 up to the new position, back to back for each slot
//! (its lines are built, then solved, while they are in cache, so only one slot's lines are
//! held at a time). Each slot's work reads only the state before the step and the outputs of
//! the earlier pass, and writes only its own entries. The passes run chunk by chunk (64
//! slots), and with the `parallel` feature the chunks run on rayon's current thread pool: the
//! result is bit-identical whatever the number of threads, because no entry depends on the
//! order in which chunks run and the step's counters are integer sums. Committing the motion
//! (the domain check, then the new positions, velocities and stall counters) is serial; stage
//! 1b (computing and applying the order steps in one pass) runs in parallel with the feature.
//!
//! **Pairs are solved once.** ORCA's line for a pair is, in the frame of the lower id, exactly
//! the negation of the higher id's ([`crate::orca::lines`]). When the higher id `h` lists the
//! lower id `l` as a neighbour, `l` lists `h`, and both use the same time horizon, the lines
//! stage of `h` reads the solution `l`'s pairs stage stored instead of solving again (and
//! solves the pair itself otherwise). The pairs stage stores only the solutions with higher
//! neighbours, and the lines stage reads them after the pass that wrote them: no entry depends
//! on another entry of the same pass.
//!
//! The outputs live in a workspace that is never state: it is not hashed, snapshotted or
//! compared, and it keeps its buffers between ticks so a steady tick allocates nothing.

use crate::agent::{AgentId, AgentParams, Agents};
use crate::agent_model::AgentModel;
use crate::domain::check_point;
use crate::liveness::{self, Liveness, Rules};
use crate::math::{Fx, HALF, Vec2, div_trunc, narrow, wide_mul};
use crate::obstacle::{ObstacleAgent, ObstacleSet};
use crate::orca::Line;
use crate::orca::lens::{self, Lens};
use crate::orca::lines::{AgentState, PairSolution, PairTimes, Share, solve_pair_prepared};
use crate::orca::lp::{self, SolvePath};
use crate::spatial::kdtree::{self, AgentTree};
use std::time::{Duration, Instant};

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

/// Wall-clock time of each stage of the last [`step`](crate::Simulator::step), measured only
/// when enabled with [`Simulator::set_stage_timing`](crate::Simulator::set_stage_timing) (zero
/// otherwise). Read with [`Simulator::stage_times`](crate::Simulator::stage_times).
///
/// Diagnostics for profiling (`lockstep-orca bench` prints them), never state and never an
/// input of the simulation: the step reads the monotonic clock, nothing it computes depends on
/// it. Platforms without a clock (`wasm32-unknown-unknown`) must leave timing off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StageTimes {
    /// Stage 1: applying the queued commands.
    pub inputs: Duration,
    /// Stage 1b: steering ordered agents.
    pub orders: Duration,
    /// Stage 2: rebuilding the obstacle tree (when the set changed).
    pub obstacles: Duration,
    /// Stage 3: building the agent kd-tree.
    pub tree: Duration,
    /// Stages 4 and 5: neighbour search and the pairs solved by the lower id.
    pub neighbors: Duration,
    /// Stages 5b to 7 (and the new positions of 8): steering, ORCA lines, linear programs,
    /// outcomes.
    pub solve: Duration,
    /// Stages 8 and 9: the domain check, committing the motion and the inputs.
    pub integrate: Duration,
}

impl StageTimes {
    /// The sum of the stages.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.inputs
            + self.orders
            + self.obstacles
            + self.tree
            + self.neighbors
            + self.solve
            + self.integrate
    }
}

impl std::ops::AddAssign<&StageTimes> for StageTimes {
    /// Adds another step's times stage by stage (sums over a run).
    fn add_assign(&mut self, t: &StageTimes) {
        self.inputs += t.inputs;
        self.orders += t.orders;
        self.obstacles += t.obstacles;
        self.tree += t.tree;
        self.neighbors += t.neighbors;
        self.solve += t.solve;
        self.integrate += t.integrate;
    }
}

/// Times consecutive stages when enabled (one branch per stage when not).
pub(crate) struct StageClock(Option<Instant>);

impl StageClock {
    #[inline]
    pub(crate) fn start(enabled: bool) -> Self {
        Self(enabled.then(Instant::now))
    }

    /// Adds the time since the last lap to `into`.
    #[inline]
    pub(crate) fn lap(&mut self, into: &mut Duration) {
        if let Some(t0) = self.0 {
            let t1 = Instant::now();
            *into += t1 - t0;
            self.0 = Some(t1);
        }
    }
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

/// Slots per chunk: the per-agent stages work chunk by chunk (in parallel with the `parallel`
/// feature), each chunk writing only its own entries. The chunking never changes a result.
const CHUNK_SHIFT: u32 = 6;
/// `1 << CHUNK_SHIFT`.
pub(crate) const CHUNK: usize = 1 << CHUNK_SHIFT;

/// Stage 4 and 5 outputs of one chunk of slots: written by the chunk's own pass, read by every
/// chunk's lines stage.
///
/// Aligned to 128 bytes (two cache lines, the unit the adjacent-line prefetcher pulls in): the
/// chunks' structs sit side by side in a `Vec` and their `Vec` headers are written per slot
/// by whichever thread runs the chunk, so no two chunks share a line.
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
struct ChunkLists {
    /// Neighbour slots of the chunk's slots, flat, nearest first; a `(start, len)` range per
    /// slot.
    slots: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    /// Stage 5: the pair solutions of each slot with its *higher* neighbours (`other > slot`),
    /// in list order; `pair_start[i]` is the first of slot `i`'s, `pair_start[i + 1]` the end
    /// (one entry more than the chunk's slots).
    pairs: Vec<StoredPair>,
    pair_start: Vec<u32>,
    /// The higher neighbour of each of `pairs` (aligned): where the lines stage of a higher
    /// slot looks for its pair with a lower one.
    higher: Vec<u32>,
    /// Whether the chunk's agents all have the time horizon of slot 0.
    uniform_horizon: bool,
    /// Per slot: the distance² limit its next query starts with ([`kdtree::next_hint`]; 0 for
    /// none). A speed hint, never state: every hint gives the same lists.
    hints: Vec<u64>,
}

/// A pair solution as stage 5 stores it: [`PairHalf`](crate::orca::lines::PairHalf) without
/// its branch (32 bytes instead of 40; the lines read only `u` and the direction).
#[derive(Clone, Copy, Debug)]
struct StoredPair {
    u: Vec2,
    direction: Vec2,
}

impl StoredPair {
    /// [`PairHalf::solve`](crate::orca::lines::PairHalf::solve) (without its branch) for a
    /// pair whose ids are known to ascend, `lo.id < hi.id` (slots ascend by id: for slots
    /// `lo < hi`), with τ and Δt prepared
    /// ([`solve_pair_prepared`](crate::orca::lines::solve_pair_prepared)): the same pair, to
    /// the last bit, as the `solve_pair` call `PairHalf::solve` makes, without a hardware
    /// division by τ or Δt and without comparing the ids (the combined radius is a sum, the
    /// same either way round).
    #[inline(always)]
    fn solve_ordered_prepared(lo: &AgentState, hi: &AgentState, times: &PairTimes) -> Self {
        Self::ordered(lo, hi, |p, v, r, ids| {
            solve_pair_prepared(p, v, r, times, ids)
        })
    }

    /// The pair of `lo` and `hi` (`lo.id < hi.id`) from `solve` applied to its relative
    /// position and velocity, combined radius and ids, as
    /// [`solve_pair`](crate::orca::lines::solve_pair) takes them.
    #[inline(always)]
    fn ordered(
        lo: &AgentState,
        hi: &AgentState,
        solve: impl FnOnce(Vec2, Vec2, Fx, (AgentId, AgentId)) -> PairSolution,
    ) -> Self {
        debug_assert!(lo.id < hi.id);
        let s = solve(
            hi.position - lo.position,
            lo.velocity - hi.velocity,
            lo.radius + hi.radius,
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
    fn halved(self) -> Self {
        Self {
            u: Vec2::from_bits(self.u.x.to_bits() >> 1, self.u.y.to_bits() >> 1),
            direction: self.direction,
        }
    }

    /// [`PairHalf::line_with_share`](crate::orca::lines::PairHalf::line_with_share) for an
    /// agent of velocity `velocity`; `lower` is whether it has the lower id of the pair
    /// (`me.id < other.id` there). Slots ascend by id, so for a slot and its neighbour `o`
    /// that is `slot < o`, and the neighbour's state is not read.
    #[inline(always)]
    fn line(self, velocity: Vec2, share: Share, lower: bool) -> Line {
        // The same expressions as `line_with_share`.
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

/// The chunk's scratch and counters for stages 5b to 8 (aligned as [`ChunkLists`] is: its
/// counters are written per slot).
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
struct ChunkWork {
    /// The slot's lines (stage 6), then the LP's input.
    lines: Vec<Line>,
    lp_scratch: Vec<Line>,
    /// The rest, apart from the lines, so that the slot's stages borrow them side by side
    /// (the lines were taken out of the struct and put back for every slot before).
    slot_work: SlotWork,
}

/// [`ChunkWork`] but its line buffers.
#[derive(Clone, Debug, Default)]
struct SlotWork {
    obstacle_neighbors: Vec<(i128, u32)>,
    counts: SolveCounts,
    /// τ and Δt prepared for the pairs the lines stage solves itself ([`times`](Self::times)):
    /// cleared at the start of each chunk's work, so nothing is kept from one tick to the next.
    times: Option<PairTimes>,
}

/// One slot's outputs of stages 7 and 8.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlotOut {
    pub velocity: Vec2,
    pub position: Vec2,
    pub stall: u16,
    /// The new position left the coordinate domain.
    pub left_domain: bool,
    pub outcome: AgentOutcome,
}

/// Reusable buffers and stage outputs of the tick: never state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace {
    tree: AgentTree,
    lists: Vec<ChunkLists>,
    work: Vec<ChunkWork>,
    /// The id of every slot at the time of the step (for queries after it).
    listed_ids: Vec<AgentId>,
    /// Stages 7 and 8, one per slot (committed by stage 8).
    pub(crate) outs: Vec<SlotOut>,
    pub(crate) stats: StepStats,
    /// Whether every agent has the time horizon of the first (found by stage 4, per chunk;
    /// read by the stages after it, [`Pre`]'s `uniform_horizon`).
    uniform_horizon: bool,
    /// Whether stage 5 stored the pairs' halves ([`StoredPair::halved`]): every agent has the
    /// priority of the first and no agent model is in use, so every line is a half share (the
    /// lines stage's uniform path, [`Pre`]'s `uniform_priority` then).
    halved: bool,
    /// Stage times of the last step, when timing is on.
    pub(crate) timing: bool,
    pub(crate) times: StageTimes,
}

/// The pre-step state every per-agent stage reads.
#[derive(Clone, Copy)]
pub(crate) struct Pre<'a> {
    pub agents: &'a Agents,
    pub obstacles: &'a ObstacleSet,
    pub time_step: Fx,
    pub tick: u64,
    pub liveness: Liveness,
    /// The agents' per-slot arrays ([`View`]); rebuilt by [`localized`](Self::localized) at
    /// the start of each chunk.
    view: View<'a>,
    /// Every agent has the same priority and no agent model is in use ([`Workspace`]'s
    /// `halved`, set from stage 5 on): a neighbour's priority is then the agent's own, and is
    /// not loaded, every line is a half share, and stage 5 stores the pairs' halves.
    uniform_priority: bool,
    /// Every agent has the same time horizon: every pair the lower id solved is reusable by
    /// the higher one (when listed), without comparing the two.
    uniform_horizon: bool,
}

/// The agents' per-slot arrays, each sliced to the agent count `n`. Built where it is used
/// (once per chunk, [`Pre::localized`]), every slice has the same length value, so the
/// compiler checks an index against it once for all the arrays instead of once per array.
#[derive(Clone, Copy)]
struct View<'a> {
    ids: &'a [AgentId],
    positions: &'a [Vec2],
    velocities: &'a [Vec2],
    prefs: &'a [Vec2],
    params: &'a [AgentParams],
    stalls: &'a [u16],
}

impl<'a> View<'a> {
    #[inline(always)]
    fn new(agents: &'a Agents) -> Self {
        let n = agents.len();
        Self {
            ids: &agents.ids()[..n],
            positions: &agents.positions()[..n],
            velocities: &agents.velocities()[..n],
            prefs: &agents.pref_velocities()[..n],
            params: &agents.params()[..n],
            stalls: &agents.stalls()[..n],
        }
    }
}

impl<'a> Pre<'a> {
    /// The pre-step state of a step.
    pub(crate) fn new(
        agents: &'a Agents,
        obstacles: &'a ObstacleSet,
        time_step: Fx,
        tick: u64,
        liveness: Liveness,
    ) -> Self {
        Self {
            agents,
            obstacles,
            time_step,
            tick,
            liveness,
            view: View::new(agents),
            // Found by stage 4 (`Workspace::halved` and `uniform_horizon`), for the stages after it.
            uniform_priority: false,
            uniform_horizon: false,
        }
    }

    /// The same, with the [`View`] rebuilt here (at the start of a chunk's work, so its
    /// slices' common length is known to the code that indexes them).
    #[inline(always)]
    fn localized(self) -> Self {
        Self {
            view: View::new(self.agents),
            ..self
        }
    }
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
                velocity: self.view.velocities[slot] + m[slot].support_velocity,
                ..self.rvo2_state(slot)
            },
        }
    }

    /// [`state`](Self::state) when no agent model is in use: the velocity is the world
    /// velocity.
    #[inline(always)]
    fn rvo2_state(&self, slot: usize) -> AgentState {
        let v = &self.view;
        AgentState {
            id: v.ids[slot],
            position: v.positions[slot],
            velocity: v.velocities[slot],
            radius: v.params[slot].radius,
        }
    }
}

/// Runs `f(chunk index, item)` over `items`: in parallel on rayon's current pool with the
/// `parallel` feature, in order without it. Each call writes only its own item.
#[inline]
fn for_each_chunk<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync + Send) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if items.len() > 1 {
            items
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, item)| f(i, item));
            return;
        }
    }
    for (i, item) in items.iter_mut().enumerate() {
        f(i, item);
    }
}

/// As [`for_each_chunk`], over `items` zipped with `CHUNK`-sized pieces of `outs`.
#[inline]
fn for_each_chunk_with<T: Send, O: Send>(
    items: &mut [T],
    outs: &mut [O],
    f: impl Fn(usize, &mut T, &mut [O]) + Sync + Send,
) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if items.len() > 1 {
            items
                .par_iter_mut()
                .zip(outs.par_chunks_mut(CHUNK))
                .enumerate()
                .for_each(|(i, (item, out))| f(i, item, out));
            return;
        }
    }
    for (i, (item, out)) in items.iter_mut().zip(outs.chunks_mut(CHUNK)).enumerate() {
        f(i, item, out);
    }
}

/// The neighbour slots of `slot` found by stage 4.
#[inline]
fn neighbors_in(lists: &[ChunkLists], slot: usize) -> &[u32] {
    let c = &lists[slot >> CHUNK_SHIFT];
    let (start, len) = c.ranges[slot & (CHUNK - 1)];
    &c.slots[start as usize..(start + len) as usize]
}

/// The pair solution of `lower` with its higher neighbour `higher`, when `lower` lists
/// `higher` and both use the same time horizon (stage 5 solved it then).
#[inline]
fn reusable(pre: Pre<'_>, lists: &[ChunkLists], lower: usize, higher: usize) -> Option<StoredPair> {
    let params = pre.view.params;
    // With a uniform horizon the two are equal (not loaded).
    if !pre.uniform_horizon && params[lower].time_horizon != params[higher].time_horizon {
        return None;
    }
    let c = &lists[lower >> CHUNK_SHIFT];
    let i = lower & (CHUNK - 1);
    let bounds = &c.pair_start[i..i + 2];
    let (start, end) = (bounds[0] as usize, bounds[1] as usize);
    let target = higher as u32;
    // Slots in a list are unique: at most one match, among the lower's higher neighbours
    // (`higher > lower`), whose pairs are aligned with them.
    // By index, not `position`: one counter for the loop (`position` keeps a pointer and a
    // count).
    let higher = &c.higher[start..end];
    let mut j = 0;
    while j < higher.len() {
        if higher[j] == target {
            return Some(c.pairs[start + j]);
        }
        j += 1;
    }
    None
}

impl Workspace {
    /// Stage 3: the agent kd-tree over the positions.
    pub(crate) fn build_agent_tree(&mut self, pre: Pre<'_>) {
        self.tree.build(pre.agents.positions());
    }

    /// Stages 4 and 5: every slot's neighbours (nearest first, ties by slot, i.e. by id), and
    /// its pair solution with each neighbour of higher id.
    pub(crate) fn find_neighbors_and_pairs(&mut self, pre: Pre<'_>) {
        let n = pre.agents.len();
        let params = pre.agents.params();
        self.halved = pre.agents.models().is_none()
            && params.iter().all(|p| p.priority == params[0].priority);
        // Stage 5 stores the halves when every line is a half share.
        let pre = Pre {
            uniform_priority: self.halved,
            ..pre
        };
        let chunks = n.div_ceil(CHUNK);
        self.lists.resize_with(chunks, ChunkLists::default);
        // How far an agent can move in one tick: its speed is at most its max speed (the LP's
        // circle). Hints from a tick whose slots held other agents are dropped.
        let mut max_speed = pre.agents.params().iter().map(|p| p.max_speed).max();
        if let (Some(models), Some(v)) = (pre.agents.models(), max_speed.as_mut()) {
            // On moving supports agents move by their support's velocity too (twice the larger
            // component bounds its length). The hint only speeds the search up: the lists are
            // the same for any hint.
            let extra = models
                .iter()
                .map(|m| m.support_velocity.max_abs_component() * 2)
                .max()
                .unwrap_or(Fx::ZERO);
            *v += extra;
        }
        let reach = max_speed.map_or(0, |v| {
            (wide_mul(v, pre.time_step) >> 32).unsigned_abs() as u64 + 1
        });
        let hints_valid = self.listed_ids[..] == pre.agents.ids()[..];
        let range = |c: usize| c * CHUNK..((c + 1) * CHUNK).min(n);
        let (positions, params) = (pre.agents.positions(), pre.agents.params());
        // Serially every list is found leaf by leaf (one tree walk per leaf of up to 16 agents,
        // written straight into the chunks). The parallel step splits the chunks into a few
        // groups of consecutive slots per thread; each group batches the leaves holding
        // several of its slots and queries its other slots one by one. The lists are the same
        // either way.
        #[cfg(feature = "parallel")]
        let threads = rayon::current_num_threads();
        #[cfg(feature = "parallel")]
        let batched = chunks <= 1 || threads == 1;
        #[cfg(not(feature = "parallel"))]
        let batched = true;
        if batched {
            for_each_chunk(&mut self.lists, |c, lists| {
                lists.prepare(pre, range(c), hints_valid);
            });
            self.tree.query_all(
                positions,
                &mut BatchLists {
                    lists: &mut self.lists,
                    first_chunk: 0,
                    params,
                    reach,
                },
            );
            for_each_chunk(&mut self.lists, |c, lists| {
                lists.solve_pairs(pre, range(c));
            });
        } else {
            #[cfg(feature = "parallel")]
            {
                let per_group = chunks.div_ceil(GROUPS_PER_THREAD * threads);
                self.tree.for_each_group(
                    &mut self.lists,
                    per_group,
                    |tree, scratch, first, group| {
                        for (i, lists) in group.iter_mut().enumerate() {
                            lists.prepare(pre, range(first + i), hints_valid);
                        }
                        let slots = first * CHUNK..((first + group.len()) * CHUNK).min(n);
                        let mut lists = BatchLists {
                            lists: group,
                            first_chunk: first,
                            params,
                            reach,
                        };
                        tree.query_range(positions, slots, scratch, &mut lists);
                        for (i, lists) in lists.lists.iter_mut().enumerate() {
                            lists.solve_pairs(pre, range(first + i));
                        }
                    },
                );
            }
        }
        self.listed_ids.clear();
        self.listed_ids.extend_from_slice(pre.agents.ids());
        let found: usize = self.lists.iter().map(|l| l.slots.len()).sum();
        let solved: usize = self.lists.iter().map(|l| l.pairs.len()).sum();
        self.uniform_horizon = self.lists.iter().all(|l| l.uniform_horizon);
        self.stats.neighbors_found = found as u64;
        // Completed by stage 6 (pairs it solves because the lower id did not list them).
        self.stats.pairs_solved = solved as u64;
    }

    /// Stages 5b to 8a for every slot: its steered preferred velocity ([`crate::liveness`]),
    /// its ORCA lines (obstacle lines first), its new velocity (LP2, LP3 on failure), stall
    /// counter and outcome, and its new position. The stages run back to back per slot, so a
    /// slot's lines are still in cache when the LP reads them and only one slot's lines are
    /// held per chunk (sized once for the worst case: no allocation mid-run).
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
            // The pairs' halves are stored then (stage 5).
            uniform_priority: self.halved,
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
            // The model branch once per chunk: a per-slot branch to the out-of-line model path
            // made the RVO2 path copy `pre` to memory for every slot.
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

    /// The first slot whose new position left the domain, if any (stage 8).
    pub(crate) fn first_left_domain(&self) -> Option<usize> {
        self.outs.iter().position(|o| o.left_domain)
    }

    /// Neighbours found for agent `id` by the last step (empty if it was not simulated then),
    /// mapped from their slots through the ids the slots held at the time of the step (the
    /// lists keep slots only: 40 bytes per agent less than keeping the ids too).
    pub(crate) fn neighbors_of_id(&self, id: AgentId) -> Vec<AgentId> {
        match self.listed_ids.binary_search(&id) {
            Ok(slot) if slot < self.listed_ids.len() && !self.lists.is_empty() => {
                let c = &self.lists[slot >> CHUNK_SHIFT];
                let (start, len) = c.ranges[slot & (CHUNK - 1)];
                c.slots[start as usize..(start + len) as usize]
                    .iter()
                    .map(|&o| self.listed_ids[o as usize])
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The outcome of agent `id` in the last step (`None` if it was not simulated then).
    pub(crate) fn outcome_of_id(&self, id: AgentId) -> Option<AgentOutcome> {
        let slot = self.listed_ids.binary_search(&id).ok()?;
        self.outs.get(slot).map(|o| o.outcome)
    }

    /// Forgets the neighbour lists and outcomes of the last step (after a failed step, whose
    /// lists were computed for a state that has been rolled back).
    pub(crate) fn clear_neighbor_lists(&mut self) {
        self.listed_ids.clear();
        self.outs.clear();
        for l in &mut self.lists {
            l.clear();
        }
    }
}

impl ChunkLists {
    fn clear(&mut self) {
        self.slots.clear();
        self.ranges.clear();
        self.pairs.clear();
        self.pair_start.clear();
        self.higher.clear();
    }

    /// Gets the chunk of `slots` ready for its lists (stage 4): clears it, reserves its
    /// lists and pairs, finds whether its time horizons are uniform, and drops its
    /// hints when `hints_valid` is false (the slots changed since the last tick).
    fn prepare(&mut self, pre: Pre<'_>, slots: std::ops::Range<usize>, hints_valid: bool) {
        let params = pre.agents.params();
        let chunk_params = &params[slots.clone()];
        let n = params.len();
        // The lists are reserved for every slot's cap at once (at most n − 1, and at most
        // RESERVED_NEIGHBORS each), so a run never grows them mid-way; caps above that grow
        // them as needed (amortised), rather than reserving gigabytes for 1,024 neighbours each.
        let bound = n.saturating_sub(1).min(RESERVED_NEIGHBORS);
        // One pass: the caps' total, and whether the time horizons are slot 0's (whether the
        // priorities are is `Workspace::halved`'s scan).
        let th0 = params[0].time_horizon;
        let (total, same_horizon) =
            chunk_params
                .iter()
                .fold((0, true), |(total, th): (usize, bool), p| {
                    (
                        total + (p.max_neighbors as usize).min(bound),
                        th & (p.time_horizon == th0),
                    )
                });
        self.uniform_horizon = same_horizon;
        self.clear();
        reserve_total(&mut self.slots, total);
        reserve_total(&mut self.pairs, total);
        reserve_total(&mut self.higher, total);
        reserve_total(&mut self.ranges, slots.len());
        reserve_total(&mut self.pair_start, slots.len() + 1);
        // Every slot's range is set by its query (in any order).
        self.ranges.resize(slots.len(), (0, 0));
        // Hints are per slot: after agents were added or removed the slots moved, start over.
        if self.hints.len() != slots.len() || !hints_valid {
            self.hints.clear();
            self.hints.resize(slots.len(), 0);
        }
    }

    /// Stage 5 for `slots`, whose lists stage 4 found.
    fn solve_pairs(&mut self, pre: Pre<'_>, slots: std::ops::Range<usize>) {
        let params = pre.agents.params();
        let pre = pre.localized();
        // τ and Δt prepared once for the chunk's pairs (again when a slot's horizon differs):
        // a quotient by a prepared divisor takes a few multiplications instead of a hardware
        // division (one of the longest steps of a pair's dependency chain).
        let mut times: Option<PairTimes> = None;
        for (i, slot) in slots.enumerate() {
            let p = &params[slot];
            let th = p.time_horizon;
            let times = match times {
                Some(t) if t.time_horizon() == th => t,
                _ => *times.insert(PairTimes::new(th, pre.time_step)),
            };
            let (start, len) = self.ranges[i];
            self.pair_start.push(self.pairs.len() as u32);
            let listed = &self.slots[start as usize..(start + len) as usize];
            let (pairs, higher) = (&mut self.pairs, &mut self.higher);
            // The model branch of `state` once per slot, not per pair.
            // And the halves' branch too (halves only without models).
            if pre.agents.models().is_some() {
                let state = |s: usize| pre.state(s);
                solve_higher((state, false), slot, listed, &times, pairs, higher);
            } else if pre.uniform_priority {
                let state = |s: usize| pre.rvo2_state(s);
                solve_higher((state, true), slot, listed, &times, pairs, higher);
            } else {
                let state = |s: usize| pre.rvo2_state(s);
                solve_higher((state, false), slot, listed, &times, pairs, higher);
            }
        }
        self.pair_start.push(self.pairs.len() as u32);
    }
}

/// The chunks' lists as stage 4 fills them ([`AgentTree::query_all`], or
/// [`AgentTree::query_range`] for a group of chunks): each slot's query from its parameters
/// and its chunk's hint, each list appended to its chunk (its range set) and the slot's next
/// hint ([`kdtree::next_hint`]) kept.
struct BatchLists<'a> {
    /// The chunks from `first_chunk` on (every slot queried is in one of them).
    lists: &'a mut [ChunkLists],
    first_chunk: usize,
    params: &'a [AgentParams],
    /// How far any agent moves in one tick (raw).
    reach: u64,
}

impl kdtree::Lists for BatchLists<'_> {
    #[inline(always)]
    fn query(&self, slot: u32) -> kdtree::SlotQuery {
        let s = slot as usize;
        let p = &self.params[s];
        let c = &self.lists[(s >> CHUNK_SHIFT) - self.first_chunk];
        let h = u128::from(c.hints[s & (CHUNK - 1)]);
        kdtree::SlotQuery {
            range: p.neighbor_dist,
            max_neighbors: p.max_neighbors as usize,
            hint_sq: h * h,
        }
    }

    #[inline(always)]
    fn found(&mut self, slot: u32, list: kdtree::Found<'_>, last_sq: u128) {
        let s = slot as usize;
        let c = &mut self.lists[(s >> CHUNK_SHIFT) - self.first_chunk];
        let start = c.slots.len() as u32;
        list.append_slots(&mut c.slots);
        c.ranges[s & (CHUNK - 1)] = (start, list.len() as u32);
        c.hints[s & (CHUNK - 1)] = kdtree::next_hint(last_sq, self.reach);
    }
}

/// The parallel stage 4 splits the chunks into this many groups per thread (rayon balances
/// them): a group batches the leaves holding several of its slots, so fewer, larger groups
/// share more gathers.
#[cfg(feature = "parallel")]
const GROUPS_PER_THREAD: usize = 2;

/// Stage 5 for one slot: its pair solutions with the neighbours of `listed` above it, into
/// `pairs` (their [halves](StoredPair::halved) with `halve`), and those neighbours into
/// `higher` (aligned), with τ and Δt prepared in `times`. `state` is [`Pre::state`], or
/// [`Pre::rvo2_state`] when no model is in use.
#[inline(always)]
fn solve_higher(
    (state, halve): (impl Fn(usize) -> AgentState, bool),
    slot: usize,
    listed: &[u32],
    times: &PairTimes,
    pairs: &mut Vec<StoredPair>,
    higher: &mut Vec<u32>,
) {
    let me = state(slot);
    for &o in listed {
        let o = o as usize;
        if o > slot {
            let other = state(o);
            let pair = StoredPair::solve_ordered_prepared(&me, &other, times);
            // Every line a half share: its part computed once here for the pair's two lines.
            pairs.push(if halve { pair.halved() } else { pair });
            higher.push(o as u32);
        }
    }
}

impl ChunkWork {
    /// Stages 5b to 8a for one slot, when no agent model is in use
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

    /// [`solve_slot`](Self::solve_slot) when some agent model is in use
    /// ([`crate::agent_model`]): the deadlock resolution and the lines skip the neighbours not
    /// avoided, the LP works with the terrain-scaled speed and the reachable circle, and the
    /// position moves by the world velocity (support + velocity). Out of line, so the RVO2
    /// path is compiled as it was.
    #[inline(never)]
    fn solve_slot_modelled(
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
    /// Stages 7 and 8a after the LP, for either path: the counters, the stall counter and
    /// outcome, and the new position (moved by `world`, the velocity plus any support's).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn finish_slot(
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
    fn times(&mut self, time_horizon: Fx, time_step: Fx) -> PairTimes {
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
    fn obstacle_lines(
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
    fn pair_with(
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
    fn pair_with_lower(
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
        let limits = (p.radius, p.max_speed, p.time_horizon_obst);
        if pre.uniform_priority {
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
            // A neighbour of lower priority gets out of this agent's way: no line.
            if share != Share::None {
                out.push(pair.line(me.velocity, share, slot < o));
            }
        }
        obstacle
    }

    /// [`lines_of`](Self::lines_of) when some agent model is in use
    /// ([`crate::agent_model`]): body radius, layers and masks, supports. Out of line, so the
    /// RVO2 path stays as it was.
    #[inline(never)]
    fn lines_of_modelled(
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
        let obstacle = self.obstacle_lines(pre, &me, (body, world_speed, p.time_horizon_obst), out);
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
            // A neighbour of lower priority gets out of this agent's way: no line.
            if share != Share::None {
                out.push(pair.line(me.velocity, share, slot < o));
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

/// A neighbour's slot, as the steering reads it ([`liveness::Neighbor`]): each field loaded
/// when the steering asks for it. With `SAME_RADIUS` every agent's radius is the third field
/// (they all have the same), and none is loaded.
#[derive(Clone, Copy)]
struct Neighbor<'a, const SAME_RADIUS: bool>(View<'a>, usize, Fx);

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
fn steer_slot(
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

/// [`steer_slot`] when agent models are in use: the deadlock resolution ignores the
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

/// Stage 7 for one slot, after the LP: its stall counter and outcome. Inlined always: it has
/// two callers (the RVO2 and the agent-model paths), and the RVO2 one had it inlined.
#[inline(always)]
fn outcome_of(
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

/// Stage 5b to 7 counters.
#[derive(Clone, Copy, Debug, Default)]
struct SolveCounts {
    pairs_solved: u64,
    pairs_reused: u64,
    steered: u64,
    yielding: u64,
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
    fn add(&mut self, o: &Self) {
        self.pairs_solved += o.pairs_solved;
        self.pairs_reused += o.pairs_reused;
        self.steered += o.steered;
        self.yielding += o.yielding;
        self.obstacle_lines += o.obstacle_lines;
        self.agent_lines += o.agent_lines;
        self.lp3 += o.lp3;
        self.lp3_obstacles += o.lp3_obstacles;
        self.at_max += o.at_max;
        self.stalled += o.stalled;
        self.begun += o.begun;
        self.blocked += o.blocked;
        self.braked += o.braked;
    }

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

//! The tick's workspace: the buffers every step reuses (never state), the chunks the
//! per-agent stages run in, and the pre-step view of the agents they read ([`Pre`]).
//!
//! The per-agent stages work on chunks of [`CHUNK`] slots. Stage 4 and 5's outputs
//! ([`ChunkLists`]) are written by the chunk's own pass and read by every chunk's stage 6;
//! stage 5b to 8's scratch ([`ChunkWork`]) and outputs ([`SlotOut`]) belong to one chunk each.

use super::stats::{AgentOutcome, SolveCounts, StageTimes, StepStats};
use crate::agent::{AgentId, AgentParams, Agents};
use crate::liveness::Liveness;
use crate::math::{Fx, Vec2};
use crate::obstacle::ObstacleSet;
use crate::orca::Line;
use crate::orca::lines::{AgentState, PairTimes, StoredPair};
use crate::spatial::kdtree::AgentTree;

/// Slots per chunk: the per-agent stages work chunk by chunk (in parallel with the `parallel`
/// feature), each chunk writing only its own entries. The chunking never changes a result.
pub(super) const CHUNK_SHIFT: u32 = 6;
/// `1 << CHUNK_SHIFT`.
pub(crate) const CHUNK: usize = 1 << CHUNK_SHIFT;

/// Stage 4 and 5's outputs for one chunk of slots: written by the chunk's own pass, read by every
/// chunk's lines stage.
///
/// Aligned to 128 bytes (two cache lines, the unit the adjacent-line prefetcher pulls in): the
/// chunks' structs sit side by side in a `Vec` and their `Vec` headers are written per slot
/// by whichever thread runs the chunk, so no two chunks share a line.
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
pub(super) struct ChunkLists {
    /// Neighbour slots of the chunk's slots, flat, nearest first; a `(start, len)` range per
    /// slot.
    pub(super) slots: Vec<u32>,
    pub(super) ranges: Vec<(u32, u32)>,
    /// Stage 5: the pair solutions of each slot with its *higher* neighbours (`other > slot`),
    /// in list order; `pair_start[i]` is the first of slot `i`'s, `pair_start[i + 1]` the end
    /// (one entry more than the chunk's slots).
    pub(super) pairs: Vec<StoredPair>,
    pub(super) pair_start: Vec<u32>,
    /// The higher neighbour of each of `pairs` (aligned): where the lines stage of a higher
    /// slot looks for its pair with a lower one.
    pub(super) higher: Vec<u32>,
    /// Whether the chunk's agents all have the time horizon of slot 0.
    pub(super) uniform_horizon: bool,
    /// Per slot: the distance² limit its next query starts with ([`kdtree::next_hint`](crate::spatial::kdtree::next_hint); 0 for
    /// none). A speed hint, never state: every hint gives the same lists.
    pub(super) hints: Vec<u64>,
}

/// The chunk's scratch and counters for stages 5b to 8 (aligned as [`ChunkLists`] is: its
/// counters are written per slot).
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
pub(super) struct ChunkWork {
    /// The slot's lines (stage 6), then the LP's input.
    pub(super) lines: Vec<Line>,
    pub(super) lp_scratch: Vec<Line>,
    /// The rest, apart from the line buffers, so that a slot's stages borrow the buffers
    /// and the rest side by side.
    pub(super) slot_work: SlotWork,
}

/// [`ChunkWork`] but its line buffers.
#[derive(Clone, Debug, Default)]
pub(super) struct SlotWork {
    pub(super) obstacle_neighbors: Vec<(i128, u32)>,
    pub(super) counts: SolveCounts,
    /// τ and Δt prepared for the pairs the lines stage solves itself ([`times`](Self::times)):
    /// cleared at the start of each chunk's work, so nothing is kept from one tick to the next.
    pub(super) times: Option<PairTimes>,
}

/// One slot's outputs of stages 7 and 8, committed by [`Workspace::commit_motion`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SlotOut {
    pub(super) velocity: Vec2,
    pub(super) position: Vec2,
    pub(super) stall: u16,
    /// The new position left the coordinate domain.
    pub(super) left_domain: bool,
    pub(super) outcome: AgentOutcome,
}

/// Reusable buffers and stage outputs of the tick: never state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace {
    pub(super) tree: AgentTree,
    pub(super) lists: Vec<ChunkLists>,
    pub(super) work: Vec<ChunkWork>,
    /// The id of every slot at the time of the step (for queries after it).
    pub(super) listed_ids: Vec<AgentId>,
    /// Stages 7 and 8, one per slot (committed by stage 8).
    pub(super) outs: Vec<SlotOut>,
    /// The counters of the last step.
    pub(crate) stats: StepStats,
    /// Whether every agent has the time horizon of the first (found by stage 4, per chunk;
    /// read by stage 6 as [`Pre::uniform_horizon`]).
    pub(super) uniform_horizon: bool,
    /// Whether the pairs are stored halved this step ([`halved_pairs`], set by stage 4; read
    /// by stages 5 and 6 as [`Pre::halved`]).
    pub(super) halved: bool,
    /// Whether the step times its stages.
    pub(crate) timing: bool,
    /// Stage times of the last step, when timing is on.
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
    pub(super) view: View<'a>,
    /// The pairs are stored halved ([`halved_pairs`]; from stage 5 on, false before): every
    /// line is a half share, stage 5 stores each pair's half ([`StoredPair::halved`]), and
    /// stage 6 builds every line from it without loading a neighbour's priority.
    pub(super) halved: bool,
    /// Every agent has the same time horizon (from stage 6 on, false before): every pair the
    /// lower id solved is reusable by the higher one (when listed), without comparing the two.
    pub(super) uniform_horizon: bool,
    /// Each slot's cap on its obstacle time horizon (empty: none): traffic control's, for the
    /// units going through a door or on their way near a lane portal (see
    /// `sim/navigation_traffic.rs`).
    pub(super) obstacle_caps: &'a [Fx],
}

/// The agents' per-slot arrays, each sliced to the agent count `n`. Built where it is used
/// (once per chunk, [`Pre::localized`]), every slice has the same length value, so the
/// compiler checks an index against it once for all the arrays instead of once per array.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    pub(super) ids: &'a [AgentId],
    pub(super) positions: &'a [Vec2],
    pub(super) velocities: &'a [Vec2],
    pub(super) prefs: &'a [Vec2],
    pub(super) params: &'a [AgentParams],
    pub(super) stalls: &'a [u16],
}

impl<'a> View<'a> {
    #[inline(always)]
    pub(super) fn new(agents: &'a Agents) -> Self {
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
        (time_step, tick): (Fx, u64),
        liveness: Liveness,
        obstacle_caps: &'a [Fx],
    ) -> Self {
        Self {
            agents,
            obstacles,
            time_step,
            tick,
            liveness,
            view: View::new(agents),
            // Found by stage 4 (`Workspace::halved` and `uniform_horizon`), for the stages after it.
            halved: false,
            uniform_horizon: false,
            obstacle_caps,
        }
    }

    /// The obstacle time horizon of `slot`, whose own is `own`: capped by
    /// [`obstacle_caps`](Self::obstacle_caps) when it has one.
    #[inline(always)]
    pub(super) fn obstacle_horizon(&self, slot: usize, own: Fx) -> Fx {
        match self.obstacle_caps.get(slot) {
            Some(&cap) => own.min(cap),
            None => own,
        }
    }

    /// The same, with the [`View`] rebuilt here (at the start of a chunk's work, so its
    /// slices' common length is known to the code that indexes them).
    #[inline(always)]
    pub(super) fn localized(self) -> Self {
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
    pub(super) fn state(&self, slot: usize) -> AgentState {
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
    pub(super) fn rvo2_state(&self, slot: usize) -> AgentState {
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
pub(super) fn for_each_chunk<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync + Send) {
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
pub(super) fn for_each_chunk_with<T: Send, O: Send>(
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
pub(super) fn neighbors_in(lists: &[ChunkLists], slot: usize) -> &[u32] {
    let c = &lists[slot >> CHUNK_SHIFT];
    let (start, len) = c.ranges[slot & (CHUNK - 1)];
    &c.slots[start as usize..(start + len) as usize]
}

/// The pair solution of `lower` with its higher neighbour `higher`, when `lower` lists
/// `higher` and both use the same time horizon (stage 5 solved it then). Always inlined: with
/// `#[inline]` alone an unrelated change elsewhere in the crate flipped the inliner's choice
/// (this and the LP's `lp2` out of line: 1.9 % more instructions on `bench crowd 10000`).
#[inline(always)]
pub(super) fn reusable(
    pre: Pre<'_>,
    lists: &[ChunkLists],
    lower: usize,
    higher: usize,
) -> Option<StoredPair> {
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

/// Whether the pairs are stored halved this step: every agent has the priority of the first
/// and no agent model is in use. Every line is then a half share of its pair, so stage 5
/// stores each pair's half ([`StoredPair::halved`]) and stage 6 builds every line as the
/// half's [`Share::All`](crate::orca::lines::Share::All) line (the same values), on its
/// uniform path.
pub(super) fn halved_pairs(agents: &Agents) -> bool {
    let params = agents.params();
    agents.models().is_none() && params.iter().all(|p| p.priority == params[0].priority)
}

impl Workspace {
    /// The new positions, velocities and stall counters of stages 7 and 8 copied into the
    /// agents (every slot at once: the serial part of stage 8, after the domain check).
    pub(crate) fn commit_motion(&self, agents: &mut Agents) {
        let (positions, velocities, stalls) = agents.motion_mut();
        debug_assert_eq!(self.outs.len(), positions.len());
        for (((p, v), s), o) in positions
            .iter_mut()
            .zip(velocities)
            .zip(stalls)
            .zip(&self.outs)
        {
            *p = o.position;
            *v = o.velocity;
            *s = o.stall;
        }
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

/// Grows `v`'s capacity to at least `total` (no-op once it is).
pub(super) fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    if v.capacity() < total {
        v.reserve(total - v.len());
    }
}

//! Stages 3 to 5: the agent kd-tree, every slot's neighbours, and each pair solved once by
//! its lower id.
//!
//! Stage 4 fills the chunks' flat lists straight from the kd-tree's batched queries
//! ([`BatchLists`]); stage 5 then solves, per slot, the pairs with its higher neighbours and
//! stores them ([`StoredPair`]) for stage 6 of both agents. Each chunk writes only its own
//! lists; the lists are the same for any hint, thread count or grouping.

use super::workspace::{
    CHUNK, CHUNK_SHIFT, ChunkLists, Pre, Workspace, for_each_chunk, halved_pairs, reserve_total,
};
use crate::agent::AgentParams;
use crate::math::{Fx, wide_mul};
use crate::orca::lines::{AgentState, PairTimes, StoredPair};
use crate::spatial::kdtree;

impl Workspace {
    /// Stage 3: the agent kd-tree over the positions.
    pub(crate) fn build_agent_tree(&mut self, pre: Pre<'_>) {
        self.tree.build(pre.agents.positions());
    }

    /// Stages 4 and 5: every slot's neighbours (nearest first, ties by slot, i.e. by id), and
    /// its pair solution with each neighbour of higher id.
    pub(crate) fn find_neighbors_and_pairs(&mut self, pre: Pre<'_>) {
        let n = pre.agents.len();
        self.halved = halved_pairs(pre.agents);
        let pre = Pre {
            halved: self.halved,
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
        // On one thread (or for one chunk) every list is found leaf by leaf over all the slots
        // (one tree walk per leaf of up to 16 agents, written straight into the chunks). On
        // several threads the chunks are split into a few groups of consecutive slots per
        // thread; each group batches the leaves holding several of its slots and queries its
        // other slots one by one. The lists are the same either way.
        #[cfg(feature = "parallel")]
        let threads = rayon::current_num_threads();
        #[cfg(not(feature = "parallel"))]
        let threads = 1;
        if chunks <= 1 || threads == 1 {
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
        // Completed by stage 6 (the pairs it solves because the lower id did not hand them over).
        self.stats.pairs_solved = solved as u64;
    }
}

impl ChunkLists {
    /// Empties the chunk's lists and pairs (its hints stay).
    pub(super) fn clear(&mut self) {
        self.slots.clear();
        self.ranges.clear();
        self.pairs.clear();
        self.pair_start.clear();
        self.higher.clear();
    }

    /// Gets the chunk of `slots` ready for its lists (stage 4): clears it, reserves its
    /// lists and pairs, finds whether its time horizons are uniform, and drops its
    /// hints when `hints_valid` is false (the slots changed since the last tick).
    pub(super) fn prepare(
        &mut self,
        pre: Pre<'_>,
        slots: std::ops::Range<usize>,
        hints_valid: bool,
    ) {
        let params = pre.agents.params();
        let chunk_params = &params[slots.clone()];
        let n = params.len();
        // The lists are reserved for every slot's cap at once (at most n − 1, and at most
        // RESERVED_NEIGHBORS each), so a run never grows them mid-way; caps above that grow
        // them as needed (amortised), rather than reserving gigabytes for 1,024 neighbours each.
        let bound = n.saturating_sub(1).min(RESERVED_NEIGHBORS);
        // One pass: the caps' total, and whether the time horizons are slot 0's (whether the
        // priorities are is `halved_pairs`'s scan).
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
    pub(super) fn solve_pairs(&mut self, pre: Pre<'_>, slots: std::ops::Range<usize>) {
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
            // The model branch of `state` and the halves' branch once per slot, not per pair
            // (halves only without models).
            if pre.agents.models().is_some() {
                let state = |s: usize| pre.state(s);
                solve_higher((state, false), slot, listed, &times, pairs, higher);
            } else if pre.halved {
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

/// The chunks' lists as stage 4 fills them ([`AgentTree::query_all`](kdtree::AgentTree::query_all), or
/// [`AgentTree::query_range`](kdtree::AgentTree::query_range) for a group of chunks): each slot's query from its parameters
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

/// Neighbours per agent that the flat lists reserve room for up front (see
/// [`ChunkLists::prepare`]).
const RESERVED_NEIGHBORS: usize = 64;

//! Leaf-batched queries ([`AgentTree::query_all`], [`AgentTree::query_range`]): every slot's
//! list, leaf by leaf, equal to [`AgentTree::query_slots_hinted`]'s.
//!
//! The agents of one leaf share almost all of their search. For each leaf the tree is walked
//! once with the leaf's box and the largest first limit of its agents (`G`), and every point
//! within `√G` of the box along each axis (the gather box: a square band, a superset of the
//! points within `√G` of the box) is gathered into a small buffer ([`Cands`]). Each agent of
//! the leaf then selects its list from the candidates with the per-agent search's keys and
//! limits (the key order `(distance², slot)` of the [kd-tree](super), the strict `< range²`,
//! the hint semantics). A point within an agent's limit is within `√G` of the box (the agent
//! is in it), so the candidates hold every key the agent's own search could accept: the lists
//! are those of [`AgentTree::query_slots_hinted`] by construction. When an agent's hinted list
//! is short and the candidates do not cover its full range, it searches again with the full
//! range, as the per-slot query does.
//!
//! Two mechanisms, each in its own module, make the selection cheap; neither changes a list:
//! * the quantized prefilter (`prefilter.rs`): candidates that cannot be accepted are ruled
//!   out on 16-bit coordinates before any exact key is computed;
//! * proxy-key selection (`select.rs`): the keys below the limit are collected unsorted as
//!   64-bit proxies, cut when the buffer fills and sorted once, near ties re-sorted by their
//!   exact keys, with an exact 128-bit selection as the fallback.
//!
//! The candidate buffer holds at most [`cand_cap`] points (a few kilobytes, reserved once): a
//! leaf whose gather would overflow it (a first tick without hints in a dense crowd, say)
//! runs the per-slot query for each of its agents instead. Either way the lists are the same.
//!
//! The lists are handed to the caller's [`Lists`] as they are found (in tree order), so they
//! are stored once, where the caller keeps them. [`AgentTree::query_range`] finds the lists of
//! a range of slots (the parallel step's groups of chunks): the leaves holding several of its
//! slots batched, the others slot by slot.

use super::prefilter::{Cand, Cands, GatherBox, WORD};
use super::select::Chosen;
use super::{
    AgentTree, MAX_LEAF_SIZE, NeighborKey, PACKED_BOUND, Search, packed_dist, packed_slot, sq_diff,
};
use crate::math::{Fx, Vec2, wide_mul};

/// The batched queries' scratch (kept between calls): one leaf's candidates, the per-slot
/// query's keys (the fallback), and one agent's list (packed keys, nearest first).
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    cands: Cands,
    keys: Vec<NeighborKey>,
    list: Vec<u128>,
    /// One agent's list in proxy keys ([`Pick`](super::select::Pick)), nearest first.
    proxies: Vec<u64>,
}

impl Scratch {
    /// Makes room for `cap` candidates and lists of `longest` entries (never shrinks).
    #[inline]
    fn reserve(&mut self, cap: usize, longest: usize) {
        let room = cap.next_multiple_of(WORD);
        let c = &mut self.cands;
        if c.cands.len() < room {
            c.cands.resize(room, Cand::default());
            c.qx.resize(room, 0);
            c.qy.resize(room, 0);
            c.flags.resize(room, 0);
        }
        if self.keys.capacity() < longest {
            self.keys.clear();
            self.keys.reserve(longest);
        }
        // The selection's buffer (see `Select`): longer than every cap up to `longest`, or
        // than every candidate count (at most `longest + 1` with longer caps).
        let buffer = 2 * longest + 16;
        if self.list.len() < buffer {
            self.list.resize(buffer, 0);
            self.proxies.resize(buffer, 0);
        }
    }
}

/// One slot's query for [`AgentTree::query_all`].
#[derive(Clone, Copy, Debug)]
pub struct SlotQuery {
    /// The neighbour distance: neighbours have distance² `< range²`.
    pub range: Fx,
    /// The list's cap.
    pub max_neighbors: usize,
    /// The distance² limit the search starts with (raw Q64.64; 0 for none), as in
    /// [`AgentTree::query_slots_hinted`]: speed only, every hint gives the same list.
    pub hint_sq: u128,
}

/// A list found by [`AgentTree::query_all`]: the neighbours' slots, nearest first.
#[derive(Clone, Copy, Debug)]
pub struct Found<'a> {
    list: FoundList<'a>,
}

/// Where a [`Found`] list is: packed keys (the batched selection), or the per-slot query's
/// keys (packed or not, see [`AgentTree::query_raw`]).
#[derive(Clone, Copy, Debug)]
enum FoundList<'a> {
    Packed(&'a [u128]),
    Keys(&'a [NeighborKey], bool),
    /// Proxy keys ([`Pick`](super::select::Pick)): each one's low bits (`mask`) are its slot.
    Picked(&'a [u64], u64),
}

impl Found<'_> {
    /// The number of neighbours.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        match self.list {
            FoundList::Packed(keys) => keys.len(),
            FoundList::Keys(keys, _) => keys.len(),
            FoundList::Picked(keys, _) => keys.len(),
        }
    }

    /// Whether the list is empty.
    #[cfg_attr(not(test), allow(dead_code))]
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours' slots, nearest first (ties by slot).
    #[cfg_attr(not(test), allow(dead_code))]
    #[must_use]
    pub fn slots(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.append_slots(&mut out);
        out
    }

    /// Appends the neighbours' slots, nearest first (ties by slot), to `out`.
    #[inline(always)]
    pub fn append_slots(&self, out: &mut Vec<u32>) {
        match self.list {
            FoundList::Packed(keys) => out.extend(keys.iter().map(|&k| packed_slot(k))),
            FoundList::Keys(keys, packed) => {
                out.extend(keys.iter().map(|&k| AgentTree::raw_slot(k, packed)));
            }
            FoundList::Picked(keys, mask) => {
                out.extend(keys.iter().map(|&p| (p & mask) as u32));
            }
        }
    }
}

/// What [`AgentTree::query_all`] reads each slot's query from and hands each list to.
pub trait Lists {
    /// The query of `slot`.
    fn query(&self, slot: u32) -> SlotQuery;
    /// The list of `slot` (called once per slot, in tree order), and the distance² of its
    /// last neighbour when the list is full (`max_neighbors` found), else 0 (what
    /// [`AgentTree::query_slots_hinted`] returns).
    fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128);
}

/// The candidate buffer's room for a tree whose longest list has `longest` entries: enough
/// for a leaf's gather within a hinted limit (its own points and a band around its box a few
/// neighbour distances wide), bounded by the point count.
fn cand_cap(points: usize, longest: usize) -> usize {
    (32 * longest.max(MAX_LEAF_SIZE)).max(512).min(points)
}

/// [`AgentTree::query_range`] batches the leaves holding at least this many of its slots
/// (a gather costs about as much as three per-slot queries).
#[cfg_attr(not(any(test, feature = "parallel")), allow(dead_code))]
const RANGE_BATCH_MIN: usize = 4;

/// The scratch of [`AgentTree::query_range`], kept between calls (one per concurrent call):
/// the batched queries' scratch and a bit per node (the leaves taken).
#[cfg_attr(not(any(test, feature = "parallel")), allow(dead_code))]
#[derive(Clone, Debug, Default)]
pub struct QueryScratch {
    batch: Scratch,
    seen: Vec<u64>,
}

impl AgentTree {
    /// Every slot's neighbour list, leaf by leaf: for each slot `s` with
    /// `lists.query(s)`, the list and result of
    /// [`query_slots_hinted`](Self::query_slots_hinted), handed to
    /// `lists.found`. `positions` must be the slice the tree was last built
    /// from. The lists do not depend on the hints, nor on how the work is batched.
    pub fn query_all<L: Lists>(&mut self, positions: &[Vec2], lists: &mut L) {
        if self.nodes.is_empty() {
            return;
        }
        let mut scratch = std::mem::take(&mut self.batch);
        // Leaves are numbered depth first: in node order they are in tree order. Each leaf
        // sizes the scratch for its own lists (it only grows: a steady run never allocates).
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i];
            if (node.end - node.begin) as usize <= MAX_LEAF_SIZE {
                self.leaf_batch::<L, false>(positions, i, usize::MAX, 0..0, lists, &mut scratch);
            }
        }
        self.batch = scratch;
    }

    /// The lists of the slots `slots` (as [`query_all`](Self::query_all) for those
    /// slots, in another order): the leaves of the slots are taken in the order of their
    /// first slot; a leaf holding at least [`RANGE_BATCH_MIN`] of the slots is batched, the
    /// others' slots are queried one by one. `scratch` is the caller's (one per concurrent
    /// call).
    #[cfg_attr(not(any(test, feature = "parallel")), allow(dead_code))]
    pub fn query_range<L: Lists>(
        &self,
        positions: &[Vec2],
        slots: std::ops::Range<usize>,
        scratch: &mut QueryScratch,
        lists: &mut L,
    ) {
        if self.nodes.is_empty() || slots.is_empty() {
            return;
        }
        let QueryScratch {
            batch: scratch,
            seen,
        } = scratch;
        let n = positions.len();
        let longest = slots
            .clone()
            .map(|s| lists.query(s as u32).max_neighbors)
            .max()
            .unwrap_or(0)
            .min(n - 1);
        let cap = cand_cap(n, longest);
        scratch.reserve(cap, longest);
        // One bit per node: the leaves taken so far.
        seen.clear();
        seen.resize(self.nodes.len().div_ceil(64), 0);
        let listed = slots.start as u32..slots.end as u32;
        for slot in listed.clone() {
            let leaf = self.leaf_of[slot as usize] as usize;
            let (word, bit) = (leaf / 64, 1u64 << (leaf % 64));
            if seen[word] & bit != 0 {
                continue;
            }
            seen[word] |= bit;
            let node = &self.nodes[leaf];
            let members = &self.order[node.begin as usize..node.end as usize];
            let count = members.iter().filter(|&o| listed.contains(o)).count();
            if count >= RANGE_BATCH_MIN {
                self.leaf_batch::<L, true>(positions, leaf, cap, listed.clone(), lists, scratch);
                continue;
            }
            for &slot in members.iter().filter(|&o| listed.contains(o)) {
                let q = lists.query(slot);
                let range_sq = wide_mul(q.range, q.range).unsigned_abs();
                let keys = &mut scratch.keys;
                let max = q.max_neighbors;
                let (packed, last) =
                    self.query_keys_hinted(positions, slot, max, range_sq, q.hint_sq, keys);
                let list = FoundList::Keys(keys, packed);
                lists.found(slot, Found { list }, last);
            }
        }
    }

    /// The lists of the agents of the leaf `leaf_node` (with `RANGED`, only those whose
    /// slots are in `slots`), with at most `cap` candidates (and at most [`cand_cap`] for the
    /// leaf's longest list).
    fn leaf_batch<L: Lists, const RANGED: bool>(
        &self,
        positions: &[Vec2],
        leaf_node: usize,
        cap: usize,
        slots: std::ops::Range<u32>,
        lists: &mut L,
        scratch: &mut Scratch,
    ) {
        let leaf = &self.nodes[leaf_node];
        let (begin, end) = (leaf.begin as usize, leaf.end as usize);
        let count = end - begin;
        // Per agent: (range², max, first limit, hinted, in `slots`); max 0: nothing to do.
        let mut plan = [(0u128, 0usize, 0u128, false, false); MAX_LEAF_SIZE];
        let mut gather_sq = 0u128;
        let mut any = false;
        for (p, &slot) in plan[..count].iter_mut().zip(&self.order[begin..end]) {
            if RANGED && !slots.contains(&slot) {
                continue;
            }
            let q = lists.query(slot);
            let range_sq = wide_mul(q.range, q.range).unsigned_abs();
            let hinted = q.hint_sq > 0 && q.hint_sq < range_sq;
            let limit = if hinted { q.hint_sq } else { range_sq };
            *p = (range_sq, q.max_neighbors, limit, hinted, true);
            if q.max_neighbors > 0 && range_sq < PACKED_BOUND {
                gather_sq = gather_sq.max(limit);
                any = true;
            }
        }
        // The candidate cap and the scratch for the leaf's longest list (`cap`: at most the
        // caller's, which reserved for it).
        let points = positions.len();
        let longest = plan[..count].iter().map(|p| p.1).max().unwrap_or(0);
        let longest = longest.min(points - 1);
        let cap = cap.min(cand_cap(points, longest));
        scratch.reserve(cap, longest);
        // Every slot is at most the proxies' mask (see `Pick`).
        let mask = (points.next_power_of_two() - 1) as u64;
        let gathered = if any {
            self.gather(leaf_node, gather_sq, cap, &mut scratch.cands)
        } else {
            None
        };
        for (k, &(range_sq, max, limit, hinted, listed)) in plan[..count].iter().enumerate() {
            if RANGED && !listed {
                continue;
            }
            let slot = self.order[begin + k];
            let Scratch {
                cands,
                keys,
                list,
                proxies,
            } = &mut *scratch;
            if max == 0 {
                let list = FoundList::Packed(&[]);
                lists.found(slot, Found { list }, 0);
                continue;
            }
            let (n, quant) = match gathered {
                Some(g) if range_sq < PACKED_BOUND => g,
                _ => {
                    // The per-slot query (an unpacked range, or candidates that did not fit).
                    let hint_sq = if hinted { limit } else { 0 };
                    let (packed, last) =
                        self.query_keys_hinted(positions, slot, max, range_sq, hint_sq, keys);
                    let list = FoundList::Keys(keys, packed);
                    lists.found(slot, Found { list }, last);
                    continue;
                }
            };
            let center = (self.xs[begin + k], self.ys[begin + k]);
            let agent = (k, center);
            let bufs = (&mut proxies[..], &mut list[..]);
            let points = (positions, mask);
            let mut chosen = cands.choose(n, &quant, agent, bufs, points, max, limit, hinted);
            if chosen.len() < max && hinted {
                if gather_sq >= range_sq {
                    // The candidates cover the full range.
                    let bufs = (&mut proxies[..], &mut list[..]);
                    chosen = cands.choose(n, &quant, agent, bufs, points, max, range_sq, false);
                } else {
                    keys.clear();
                    let center = positions[slot as usize];
                    let mut search = Search::<true>::new(self, center, slot, max, range_sq, keys);
                    search.run(self.leaf_of[slot as usize]);
                    let last = if keys.len() == max {
                        packed_dist(keys[max - 1].0 as u128)
                    } else {
                        0
                    };
                    let list = FoundList::Keys(keys, true);
                    lists.found(slot, Found { list }, last);
                    continue;
                }
            }
            let (list, last) = match chosen {
                Chosen::Picked(found) => {
                    let keys = &proxies[..found];
                    let last = if found == max {
                        let at = positions[(keys[max - 1] & mask) as usize];
                        sq_diff(at.x.to_bits(), center.0) + sq_diff(at.y.to_bits(), center.1)
                    } else {
                        0
                    };
                    (FoundList::Picked(keys, mask), last)
                }
                Chosen::Exact(found) => {
                    let last = if found == max {
                        packed_dist(list[max - 1])
                    } else {
                        0
                    };
                    (FoundList::Packed(&list[..found]), last)
                }
            };
            lists.found(slot, Found { list }, last);
        }
    }

    /// Gathers into `s` every point whose distance to the box of `leaf_node` (a leaf) is at
    /// most `√limit_sq` along each axis (a superset of the points within `√limit_sq` of the
    /// box, so of every key an agent of the leaf can accept), with their quantization: the
    /// leaf's own first (in tree order, so agent `k` of the leaf is candidate `k`), then the
    /// others in tree order. Returns their number and quantization, or `None` (candidates
    /// incomplete) when they would exceed `cap`.
    #[inline(never)]
    fn gather(
        &self,
        leaf_node: usize,
        limit_sq: u128,
        cap: usize,
        s: &mut Cands,
    ) -> Option<(usize, GatherBox)> {
        let nodes = &self.nodes;
        let leaf = &nodes[leaf_node];
        let (b, e) = (leaf.begin as usize, leaf.end as usize);
        if e - b > cap {
            return None;
        }
        let gbox = GatherBox::new(leaf.min, leaf.max, limit_sq);
        // The leaf's own points first (all in the box): each agent's nearest keys are
        // mostly there.
        let mut n = self.gather_leaf(b..e, 0, s, &gbox);
        // Depth first over the nodes whose box meets the gather box, without a stack: after
        // a subtree, climb to the first ancestor that is a left child (numbered right after
        // its parent) and go on with its sibling. Any depth, no recursion.
        let mut node = 0usize;
        loop {
            let nd = &nodes[node];
            if node != leaf_node && gbox.meets(nd.min, nd.max) {
                if (nd.end - nd.begin) as usize > MAX_LEAF_SIZE {
                    node = nd.left as usize;
                    continue;
                }
                let (b, e) = (nd.begin as usize, nd.end as usize);
                if n + (e - b) > cap {
                    return None;
                }
                n = self.gather_leaf(b..e, n, s, &gbox);
            }
            loop {
                if node == 0 {
                    return Some((n, gbox));
                }
                let nd = &nodes[node];
                if node == nd.parent as usize + 1 {
                    node = nd.sibling as usize;
                    break;
                }
                node = nd.parent as usize;
            }
        }
    }

    /// Writes the points at tree positions `range` as candidates from `n` on, keeping
    /// (counting) those in the gather box; returns the new count.
    #[inline(never)]
    fn gather_leaf(
        &self,
        range: std::ops::Range<usize>,
        mut n: usize,
        s: &mut Cands,
        gbox: &GatherBox,
    ) -> usize {
        let gbox = *gbox;
        let room = s.cands.len();
        let (cands, qx, qy) = (&mut s.cands[..room], &mut s.qx[..room], &mut s.qy[..room]);
        let (slots, xs) = (&self.order[range.clone()], &self.xs[range.clone()]);
        for ((&slot, &x), &y) in slots.iter().zip(xs).zip(&self.ys[range]) {
            let (u, v) = gbox.offsets(x, y);
            cands[n] = Cand { x, y, slot };
            qx[n] = gbox.quantize(u);
            qy[n] = gbox.quantize(v);
            n += usize::from(gbox.holds((u, v)));
        }
        n
    }
}

#[cfg(test)]
mod tests;

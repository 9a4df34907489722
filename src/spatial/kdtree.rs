//! Agent kd-tree (RVO2 `KdTree`), rebuilt every tick from (position, slot) alone.
//!
//! # The key order
//! A query's neighbour list is the `max_neighbors` smallest keys `(distance², slot)` with
//! `distance² < range²`: keys compare by exact squared distance (Q64.64 in `u128`, so the whole
//! coordinate domain is safe), then by slot. The slot breaks ties so that the order is total:
//! a list is then a function of the positions alone, not of the tree's layout, the order of the
//! visit or how the work is batched or split between threads (translating a scene may change
//! the tree, never a list), and slots are in id order, so a tie goes to the smaller id on
//! every machine. A limit is a key too: `(range², 0)` accepts `distance² < range²` (RVO2's
//! strict test), a hint `(hint², u32::MAX)` accepts `distance² ≤ hint²` (no slot is
//! `u32::MAX`). Four places encode the order and must agree:
//! 1. the per-slot search with packed keys (`Search::<true>`, ranges below 65,536 units: every
//!    simulation range): [`pack_key`], `distance² << 32 | slot`, whose `u128` order is the key
//!    order below [`PACKED_BOUND`];
//! 2. the per-slot search with pairs (`Search::<false>`, larger ranges: the clearance tracker's
//!    unbounded query): [`key_below`];
//! 3. the batched exact selection (`Select` in `select.rs`): [`pack_key`];
//! 4. the batched proxy selection (`Pick` in `select.rs`): 64-bit proxies (`proxy_key`), in key
//!    order but for near ties, which `sort_runs` re-sorts by [`pack_key`].
//!
//! The tests' brute-force oracles sort `(distance², slot)` pairs: the tree's unit tests,
//! `tests/determinism/kdtree_reference.rs` and the batched queries' proptests check every
//! place against them on tie-heavy scenes.
//!
//! # Build, query, hints, batches
//! * Build: leaves hold at most [`MAX_LEAF_SIZE`] agents; a node splits its bounding box at the
//!   midpoint `(min + max) / 2` of its longer side (x when `width > height`, else y: equal
//!   sides split on y, as in RVO2) and partitions in place exactly as RVO2 does. The build
//!   always starts from slot order (= id order), never from last tick's permutation, so the
//!   tree is a pure function of the current positions. With the `parallel` feature large
//!   subtrees are built with `rayon::join` into the same tree, node for node (same numbering:
//!   depth first, a node's left child next), so the parallel step's queries walk the same
//!   nodes.
//! * Visit order (speed only, never the result): the query scans its own agent's leaf first,
//!   then walks up to the root and searches each sibling subtree whose `(box distance², 0)`
//!   is below the current limit, nearer child first (RVO2).
//! * Hints (speed only): the tick's query starts with a distance limit from the agent's last
//!   list ([`next_hint`]: its last neighbour's distance plus a quarter of the farthest an agent
//!   moves in a tick). A search with a limit finds every key below it, so a full list is the
//!   answer; a short one is searched again with the full range. Any hint gives the same list.
//! * Batched queries (the tick: [`AgentTree::query_all`] serially and
//!   [`AgentTree::query_range`] per group of slots in parallel, `batch.rs`): one gather per
//!   leaf of every point within the largest limit of its agents (along each axis), each
//!   agent's list selected from those candidates with the same keys, limits and hint
//!   fallback (behind an exact 16-bit prefilter, `prefilter.rs`; by proxy keys,
//!   `select.rs`), so the lists are the per-slot query's; they are handed to the caller
//!   ([`Lists`]) as they are found.

use crate::math::{Fx, Vec2, root_bound, wide_mul};
use build::{BySlot, Part, build_sub};
#[cfg(feature = "parallel")]
use build::{ParBufs, build_par};

mod batch;
mod build;
mod prefilter;
mod select;

#[cfg_attr(not(feature = "parallel"), allow(unused_imports))]
pub use batch::QueryScratch;
pub use batch::{Found, Lists, SlotQuery};

/// Maximum number of agents in a leaf. RVO2's `MAX_LEAF_SIZE` is 10; the neighbour lists do
/// not depend on the tree's layout, and leaves of up to 16 take fewer instructions per query
/// (fewer nodes tested and visited for a few more points scanned).
pub const MAX_LEAF_SIZE: usize = 16;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Node {
    begin: u32,
    end: u32,
    left: u32,
    right: u32,
    /// Parent node (the root's is 0).
    parent: u32,
    /// The parent's other child (the root's is 0): the walk up reads it without the parent.
    sibling: u32,
    min: Vec2,
    max: Vec2,
}

/// A neighbour found by a query: exact squared distance (raw Q64.64) and slot index.
pub type NeighborKey = (i128, u32);

/// The key `(d, slot)` packed into one `u128`, `d << 32 | slot`: for `d < 2⁹⁶` (below
/// [`PACKED_BOUND`]) the packing is exact and the integer order is the key order (see the
/// [module docs](self)).
#[inline(always)]
const fn pack_key(d: u128, slot: u32) -> u128 {
    d << 32 | slot as u128
}

/// The distance² of a [`pack_key`] key.
#[inline(always)]
const fn packed_dist(key: u128) -> u128 {
    key >> 32
}

/// The slot of a [`pack_key`] key.
#[inline(always)]
const fn packed_slot(key: u128) -> u32 {
    key as u32
}

/// The packed limit accepting the distances² below `d` or, `inclusive`, at most `d` (a hint;
/// no slot is `u32::MAX`).
#[inline(always)]
const fn limit_key(d: u128, inclusive: bool) -> u128 {
    pack_key(d, if inclusive { u32::MAX } else { 0 })
}

/// `(d, s) < (limit_d, limit_s)` in the key order, unpacked (any `d`).
#[inline(always)]
const fn key_below(d: u128, s: u32, limit_d: u128, limit_s: u32) -> bool {
    d < limit_d || (d == limit_d && s < limit_s)
}

/// The agent kd-tree. Holds only reusable buffers between ticks.
#[derive(Clone, Debug, Default)]
pub struct AgentTree {
    order: Vec<u32>,
    /// Raw coordinates `positions[order[i]]` (x and y apart), so leaf scans read memory in
    /// order and in plain 64-bit registers.
    xs: Vec<i64>,
    ys: Vec<i64>,
    nodes: Vec<Node>,
    /// The leaf holding each slot: queries start there and walk up.
    leaf_of: Vec<u32>,
    /// The parallel build's leaf per tree position (scattered into `leaf_of` at the end).
    #[cfg(feature = "parallel")]
    leaf_at: Vec<u32>,
    /// The parallel build's node buffers, one per parallel split (kept between ticks).
    #[cfg(feature = "parallel")]
    par_bufs: ParBufs,
    /// The batched queries' scratch ([`query_all`](Self::query_all)).
    batch: batch::Scratch,
    /// The parallel queries' scratches, one per group
    /// ([`for_each_group`](Self::for_each_group)), kept between ticks.
    #[cfg(feature = "parallel")]
    pool: Vec<QueryScratch>,
}

impl AgentTree {
    /// Rebuilds the tree over `positions` (indexed by slot). Reuses its buffers.
    ///
    /// With the `parallel` feature, trees over at least `PAR_MIN` (4,096) agents build their
    /// large subtrees on rayon's current pool (see `build_par`); the tree is the same, node
    /// for node.
    pub fn build(&mut self, positions: &[Vec2]) {
        self.order.clear();
        self.order.extend(0..positions.len() as u32);
        // The coordinates travel with the slots through the partitions, so every pass reads
        // contiguous memory and the arrays end in tree order, as the queries read them.
        self.xs.clear();
        self.xs.extend(positions.iter().map(|p| p.x.to_bits()));
        self.ys.clear();
        self.ys.extend(positions.iter().map(|p| p.y.to_bits()));
        self.nodes.clear();
        if positions.is_empty() {
            return;
        }
        // At most 2n − 1 nodes (each split leaves both sides non-empty). Reserved, not
        // written: only the nodes the build creates (about 2n / 8 with leaves of up to 16)
        // touch memory, and a steady run never reallocates.
        let worst = 2 * positions.len() - 1;
        if self.nodes.capacity() < worst {
            self.nodes.reserve(worst);
        }
        self.leaf_of.clear();
        self.leaf_of.resize(positions.len(), 0);
        #[cfg(feature = "parallel")]
        if positions.len() >= PAR_MIN && rayon::current_num_threads() > 1 {
            self.leaf_at.clear();
            self.leaf_at.resize(positions.len(), 0);
            let part = Part {
                order: &mut self.order,
                xs: &mut self.xs,
                ys: &mut self.ys,
                base: 0,
            };
            build_par(
                part,
                &mut self.nodes,
                0,
                0,
                &mut self.leaf_at,
                &mut self.par_bufs,
            );
            for (&slot, &leaf) in self.order.iter().zip(&self.leaf_at) {
                self.leaf_of[slot as usize] = leaf;
            }
            return;
        }
        self.build_serial();
    }

    /// Runs `f(tree, scratch, first, group)` for each group of `per_group` consecutive
    /// `items` (the first one's index `first`) on rayon's current pool, each with a
    /// [`QueryScratch`] of its own (kept between calls): for [`query_range`](Self::query_range)
    /// over the slots of the group.
    #[cfg(feature = "parallel")]
    pub fn for_each_group<T: Send>(
        &mut self,
        items: &mut [T],
        per_group: usize,
        f: impl Fn(&AgentTree, &mut QueryScratch, usize, &mut [T]) + Sync + Send,
    ) {
        use rayon::prelude::*;
        let per_group = per_group.max(1);
        let groups = items.len().div_ceil(per_group);
        let mut pool = std::mem::take(&mut self.pool);
        if pool.len() < groups {
            pool.resize_with(groups, QueryScratch::default);
        }
        let tree = &*self;
        items
            .par_chunks_mut(per_group)
            .zip(pool.par_iter_mut())
            .enumerate()
            .for_each(|(g, (group, scratch))| f(tree, scratch, g * per_group, group));
        self.pool = pool;
    }

    /// The serial build over the buffers [`build`](Self::build) filled.
    fn build_serial(&mut self) {
        let part = Part {
            order: &mut self.order,
            xs: &mut self.xs,
            ys: &mut self.ys,
            base: 0,
        };
        build_sub(part, &mut self.nodes, 0, 0, &mut BySlot(&mut self.leaf_of));
    }

    /// Finds the `max_neighbors` nearest agents to `positions[slot]` with squared distance below
    /// `range²` (raw Q64.64), ordered by `(distance², slot)`, excluding `slot` itself.
    /// `positions` must be the slice the tree was last built from.
    ///
    /// `out` is cleared and filled; it keeps its capacity between calls.
    #[cfg_attr(
        not(any(test, feature = "scenario", feature = "test-oracles")),
        allow(dead_code)
    )]
    pub fn query(
        &self,
        positions: &[Vec2],
        slot: u32,
        range: Fx,
        max_neighbors: usize,
        out: &mut Vec<NeighborKey>,
    ) {
        if self.query_raw(positions, slot, range, max_neighbors, out) {
            for key in out.iter_mut() {
                let packed = key.0 as u128;
                *key = (packed_dist(packed) as i128, packed_slot(packed));
            }
        }
    }

    /// The slots [`query`](Self::query) finds, in the same order, appended to `slots`
    /// (`keys` is scratch, cleared and refilled). What the tick reads: no distance is
    /// unpacked.
    #[cfg_attr(not(any(test, feature = "test-oracles")), allow(dead_code))]
    #[inline]
    pub fn query_slots(
        &self,
        positions: &[Vec2],
        slot: u32,
        range: Fx,
        max_neighbors: usize,
        keys: &mut Vec<NeighborKey>,
        slots: &mut Vec<u32>,
    ) {
        let packed = self.query_raw(positions, slot, range, max_neighbors, keys);
        slots.extend(keys.iter().map(|&k| Self::raw_slot(k, packed)));
    }

    /// [`query_slots`](Self::query_slots), first tried with the distance² limit `hint_sq`
    /// (raw Q64.64; 0 for none). The result is the same for every hint: a search with a limit
    /// finds every key below it, so when it finds `max_neighbors` of them they are the
    /// nearest; when it finds fewer, the query runs again with the full range. A hint from
    /// the last tick's list (see `next_hint`) prunes the first subtrees a plain query
    /// visits before its list is full. Returns the distance² of the last neighbour when the
    /// list is full (`max_neighbors` found), else 0.
    #[cfg_attr(not(any(test, feature = "test-oracles")), allow(dead_code))]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn query_slots_hinted(
        &self,
        positions: &[Vec2],
        slot: u32,
        range: Fx,
        max_neighbors: usize,
        hint_sq: u128,
        keys: &mut Vec<NeighborKey>,
        slots: &mut Vec<u32>,
    ) -> u128 {
        let range_sq = wide_mul(range, range).unsigned_abs();
        let (packed, last) =
            self.query_keys_hinted(positions, slot, max_neighbors, range_sq, hint_sq, keys);
        if packed {
            slots.extend(keys.iter().map(|&k| packed_slot(k.0 as u128)));
        } else {
            slots.extend(keys.iter().map(|&k| k.1));
        }
        last
    }

    /// [`query_slots_hinted`](Self::query_slots_hinted) with the squared range `range_sq`
    /// (raw Q64.64), leaving the keys in `keys` (cleared first): returns whether they are
    /// packed (see [`query_raw`](Self::query_raw)) and the last neighbour's distance² when the
    /// list is full, else 0 (always 0 for unpacked keys).
    #[inline]
    fn query_keys_hinted(
        &self,
        positions: &[Vec2],
        slot: u32,
        max_neighbors: usize,
        range_sq: u128,
        hint_sq: u128,
        keys: &mut Vec<NeighborKey>,
    ) -> (bool, u128) {
        keys.clear();
        if self.nodes.is_empty() || max_neighbors == 0 {
            return (true, 0);
        }
        let center = positions[slot as usize];
        let leaf = self.leaf_of[slot as usize];
        if range_sq >= PACKED_BOUND {
            let mut search =
                Search::<false>::new(self, center, slot, max_neighbors, range_sq, keys);
            search.run(leaf);
            return (false, 0);
        }
        if hint_sq > 0 && hint_sq < range_sq {
            // Keys with distance² ≤ hint_sq (all below range², as the hint is).
            let mut search = Search::<true>::new(self, center, slot, max_neighbors, hint_sq, keys);
            search.limit_packed = limit_key(hint_sq, true);
            search.run(leaf);
        }
        if keys.len() < max_neighbors {
            keys.clear();
            let mut search = Search::<true>::new(self, center, slot, max_neighbors, range_sq, keys);
            search.run(leaf);
        }
        let last = if keys.len() == max_neighbors {
            packed_dist(keys[max_neighbors - 1].0 as u128)
        } else {
            0
        };
        (true, last)
    }

    /// [`query`](Self::query) without unpacking: returns `true` when the keys were left packed,
    /// each entry's `.0` holding `distance² << 32 | slot` (so its low 32 bits are the slot)
    /// and `.1` unspecified; `false` when the entries are already `(distance², slot)`. The
    /// tick, which needs only the slots, skips the unpacking pass.
    fn query_raw(
        &self,
        positions: &[Vec2],
        slot: u32,
        range: Fx,
        max_neighbors: usize,
        out: &mut Vec<NeighborKey>,
    ) -> bool {
        out.clear();
        if self.nodes.is_empty() || max_neighbors == 0 {
            return false;
        }
        let range_sq = wide_mul(range, range).unsigned_abs();
        let center = positions[slot as usize];
        if range_sq < PACKED_BOUND {
            // Every accepted distance² is below 2⁹⁶: keys pack into one u128.
            let mut search = Search::<true>::new(self, center, slot, max_neighbors, range_sq, out);
            search.run(self.leaf_of[slot as usize]);
            true
        } else {
            let mut search = Search::<false>::new(self, center, slot, max_neighbors, range_sq, out);
            search.run(self.leaf_of[slot as usize]);
            false
        }
    }

    /// The slot of an entry that [`query_raw`](Self::query_raw) returned with `packed`.
    #[inline(always)]
    fn raw_slot(key: NeighborKey, packed: bool) -> u32 {
        if packed {
            packed_slot(key.0 as u128)
        } else {
            key.1
        }
    }
}

/// The hint for the next tick's [`AgentTree::query_slots_hinted`] of an agent whose last
/// neighbour is at distance² `last_sq` (raw Q64.64) now, when no agent moves more than `reach`
/// (raw Q32.32) in a tick: `root_bound(last_sq) + reach / 4`, returned as the root (8 bytes
/// per agent; square it for the query), 0 (no hint) when `last_sq` is 0.
///
/// What a hint is: a first distance limit for the search, speed only. A search with a limit
/// finds every key below it, so a full list is the answer; a list that comes out short is
/// searched again with the full range. Any hint gives the same list; a good one prunes the
/// subtrees a plain query visits before its list is full.
///
/// Why this one: `root_bound(last_sq)` is an integer above `√last_sq` by less than 1 % (a
/// 256-entry table instead of an exact square root). `+ 2·reach` would bound that neighbour's
/// distance after any motion, but most neighbours move along with the agent, so a quarter of
/// the reach usually still finds the whole list while pruning more; a smaller margin sends
/// more lists to the second search (the measurements are in `docs/performance.md`).
#[must_use]
pub fn next_hint(last_sq: u128, reach: u64) -> u64 {
    if last_sq == 0 {
        return 0;
    }
    root_bound(last_sq).saturating_add(reach / 4)
}

/// Trees over at least this many agents build in parallel (feature `parallel`), and so do
/// their subtrees down to this size; smaller subtrees are built serially, each in one task.
#[cfg(feature = "parallel")]
pub const PAR_MIN: usize = 4096;

/// Ranges with `range² < 2⁹⁶` (raw Q64.64, i.e. below 65,536 units: every simulation range)
/// search with packed keys `distance² << 32 | slot`, whose `u128` order is the key order.
const PACKED_BOUND: u128 = 1 << 96;

/// One query. With `PACKED`, `out` holds packed keys (bit-cast into the `i128` field) until the
/// search ends; otherwise it holds `(distance², slot)` throughout.
struct Search<'a, const PACKED: bool> {
    nodes: &'a [Node],
    order: &'a [u32],
    xs: &'a [i64],
    ys: &'a [i64],
    slot: u32,
    cx: i64,
    cy: i64,
    max: usize,
    /// Keys `(d, s)` are accepted iff `(d, s) < (limit_d, limit_s)`; `limit_packed` is the
    /// packed form (used only when `PACKED`).
    limit_d: u128,
    limit_s: u32,
    limit_packed: u128,
    out: &'a mut Vec<NeighborKey>,
}

/// `|a − b|²` of two raw coordinates, exact: a signed square (one widening multiply, no
/// absolute value), at most `2¹²⁶` for any `i64` difference, so the cast is exact.
#[inline(always)]
fn sq_diff(a: i64, b: i64) -> u128 {
    let d = i128::from(a - b);
    (d * d) as u128
}

/// The gap between `c` and the slab `[lo, hi]` along one axis (zero inside it).
#[inline(always)]
fn gap(c: i64, lo: i64, hi: i64) -> u64 {
    if c < lo {
        (lo - c) as u64
    } else if c > hi {
        (c - hi) as u64
    } else {
        0
    }
}

impl<'a, const PACKED: bool> Search<'a, PACKED> {
    fn new(
        tree: &'a AgentTree,
        center: Vec2,
        slot: u32,
        max: usize,
        range_sq: u128,
        out: &'a mut Vec<NeighborKey>,
    ) -> Self {
        Self {
            nodes: &tree.nodes,
            order: &tree.order,
            xs: &tree.xs,
            ys: &tree.ys,
            slot,
            cx: center.x.to_bits(),
            cy: center.y.to_bits(),
            max,
            // Accept keys strictly below (range², 0), i.e. distance² < range² (RVO2).
            limit_d: range_sq,
            limit_s: 0,
            limit_packed: if PACKED {
                limit_key(range_sq, false)
            } else {
                0
            },
            out,
        }
    }

    /// `(d, s) < limit`.
    #[inline(always)]
    fn below_limit(&self, d: u128, s: u32) -> bool {
        if PACKED {
            // d ≤ limit_d < 2⁹⁶, so the packing below is exact.
            d <= self.limit_d && pack_key(d, s) < self.limit_packed
        } else {
            key_below(d, s, self.limit_d, self.limit_s)
        }
    }

    #[inline(always)]
    fn box_dist_sq(&self, node: &Node) -> u128 {
        let gx = gap(self.cx, node.min.x.to_bits(), node.max.x.to_bits());
        let gy = gap(self.cy, node.min.y.to_bits(), node.max.y.to_bits());
        u128::from(gx) * u128::from(gx) + u128::from(gy) * u128::from(gy)
    }

    /// Scans the query's own leaf, then walks up to the root, visiting each sibling subtree
    /// that may hold a key below the limit. The own leaf fills the list with near keys first,
    /// so the limit is tight before any other subtree is tested; the visit order never changes
    /// the result (the key order is total and pruning is exact).
    fn run(&mut self, leaf: u32) {
        let mut node = leaf as usize;
        let n = &self.nodes[node];
        self.scan_leaf::<true>(n.begin as usize, n.end as usize);
        while node != 0 {
            let n = &self.nodes[node];
            let (sibling, parent) = (n.sibling as usize, n.parent as usize);
            let s = &self.nodes[sibling];
            if self.below_limit(self.box_dist_sq(s), 0) {
                self.visit(sibling);
            }
            node = parent;
        }
    }

    fn visit(&mut self, node: usize) {
        let n = &self.nodes[node];
        if (n.end - n.begin) as usize <= MAX_LEAF_SIZE {
            let (begin, end) = (n.begin as usize, n.end as usize);
            // Not the query's own leaf (run scanned it), so not its own slot.
            self.scan_leaf::<false>(begin, end);
            return;
        }
        let (li, ri) = (n.left, n.right);
        let left = &self.nodes[li as usize];
        let right = &self.nodes[ri as usize];
        let dl = self.box_dist_sq(left);
        let dr = self.box_dist_sq(right);
        // Nearer child first (RVO2), which tightens the limit sooner.
        let (first, d_first, second, d_second) = if dl < dr {
            (li, dl, ri, dr)
        } else {
            (ri, dr, li, dl)
        };
        // A subtree can hold a key below the limit only if (box distance², 0) is (0: at most
        // any slot, so a subtree is pruned only when none of its keys can be accepted; the
        // build keeps no minimum slot per node, a pass the batched queries never use).
        if self.below_limit(d_first, 0) {
            self.visit(first as usize);
            // The limit only tightens: a pruned nearer child prunes the farther one.
            if self.below_limit(d_second, 0) {
                self.visit(second as usize);
            }
        }
    }

    #[inline(always)]
    fn scan_leaf<const OWN: bool>(&mut self, begin: usize, end: usize) {
        let slots = &self.order[begin..end];
        let xs = &self.xs[begin..end];
        let ys = &self.ys[begin..end];
        for ((&other, &x), &y) in slots.iter().zip(xs).zip(ys) {
            let d = sq_diff(x, self.cx) + sq_diff(y, self.cy);
            if self.below_limit(d, other) && (!OWN || other != self.slot) {
                self.insert(d, other);
            }
        }
    }

    /// Inserts a key known to be below the limit: insertion sort from the back (RVO2), by the
    /// total order (distance², slot).
    #[inline(always)]
    fn insert(&mut self, d: u128, other: u32) {
        let max = self.max;
        let out = &mut *self.out;
        // The hole: a new last entry while the list is short, else the evicted last entry.
        let hole = out.len();
        let hole = if hole < max {
            out.push((0, 0));
            hole
        } else {
            hole - 1
        };
        let list = &mut out[..=hole];
        let mut i = hole;
        if PACKED {
            let key = pack_key(d, other);
            for k in (0..hole).rev() {
                let prev = list[k].0;
                if key >= prev as u128 {
                    break;
                }
                list[k + 1].0 = prev;
                i = k;
            }
            list[i].0 = key as i128;
            if hole + 1 == max {
                let last = list[hole].0 as u128;
                self.limit_packed = last;
                self.limit_d = packed_dist(last);
            }
        } else {
            let key = (d as i128, other);
            for k in (0..hole).rev() {
                let prev = list[k];
                if !key_below(key.0 as u128, key.1, prev.0 as u128, prev.1) {
                    break;
                }
                list[k + 1] = prev;
                i = k;
            }
            list[i] = key;
            if hole + 1 == max {
                let last = list[hole];
                self.limit_d = last.0 as u128;
                self.limit_s = last.1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: all keys below the range, sorted, truncated.
    fn brute(positions: &[Vec2], slot: u32, range: Fx, max: usize) -> Vec<NeighborKey> {
        let c = positions[slot as usize];
        let r2 = wide_mul(range, range);
        let mut keys: Vec<NeighborKey> = (0..positions.len() as u32)
            .filter(|&s| s != slot)
            .map(|s| ((positions[s as usize] - c).length_squared_wide(), s))
            .filter(|k| k.0 < r2)
            .collect();
        keys.sort();
        keys.truncate(max);
        keys
    }

    #[test]
    fn query_matches_brute_force_with_ties() {
        // A lattice: many exactly equal distances, so the id tie-break decides membership.
        let positions: Vec<Vec2> = (0..400).map(|i| Vec2::from_int(i % 20, i / 20)).collect();
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let mut out = Vec::new();
        for slot in [0u32, 7, 210, 399] {
            for (range, max) in [(Fx::from_num(3), 10), (Fx::from_num(2), 4), (Fx::ONE, 100)] {
                tree.query(&positions, slot, range, max, &mut out);
                assert_eq!(out, brute(&positions, slot, range, max), "slot {slot}");
            }
        }
    }

    #[test]
    fn hinted_queries_match_plain_ones_for_any_hint() {
        let positions: Vec<Vec2> = (0..500)
            .map(|i| Vec2::from_bits((i * 7919 % 1000) << 27, (i * 104_729 % 997) << 27))
            .collect();
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let (mut keys, mut plain, mut hinted) = (Vec::new(), Vec::new(), Vec::new());
        // A range where some lists fill up and some do not (checked below).
        let range = Fx::lit("3.5");
        let mut full = 0;
        for slot in 0..500 {
            plain.clear();
            tree.query_slots(&positions, slot, range, 10, &mut keys, &mut plain);
            // No hint, tiny, tight, loose and beyond-range hints (raw roots, squared).
            for root in [
                0u128,
                1,
                1 << 30,
                1 << 32,
                3 << 32,
                1 << 40,
                u64::MAX as u128,
            ] {
                hinted.clear();
                let last = tree.query_slots_hinted(
                    &positions,
                    slot,
                    range,
                    10,
                    root * root,
                    &mut keys,
                    &mut hinted,
                );
                assert_eq!(hinted, plain, "slot {slot}, hint root {root}");
                if plain.len() == 10 {
                    let d = positions[plain[9] as usize] - positions[slot as usize];
                    assert_eq!(last, d.length_squared_wide() as u128);
                } else {
                    assert_eq!(last, 0);
                }
            }
            full += usize::from(plain.len() == 10);
            // The next tick's hint bounds the last neighbour's distance.
            let last =
                tree.query_slots_hinted(&positions, slot, range, 10, 0, &mut keys, &mut hinted);
            let root = u128::from(super::next_hint(last, 0));
            assert!(last == 0 || root * root >= last);
        }
        assert!(full > 100 && full < 500, "{full} full lists");
    }

    /// Scenes above [`PAR_MIN`]: scattered at full raw resolution, a lattice with duplicates
    /// (splits by count), and one stack of agents on a single point.
    #[cfg(feature = "parallel")]
    fn large_scenes() -> Vec<Vec<Vec2>> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let scattered: Vec<Vec2> = (0..30_000)
            .map(|_| {
                let (a, b) = (next() % (300 << 32), next() % (300 << 32));
                Vec2::from_bits(a as i64 - (150 << 32), b as i64 - (150 << 32))
            })
            .collect();
        let lattice: Vec<Vec2> = (0..20_000)
            .map(|_| Vec2::from_int((next() % 90) as i32, (next() % 70) as i32))
            .collect();
        let mut stacked = vec![Vec2::from_int(3, -7); 9_000];
        stacked.extend((0..2_000).map(|i| Vec2::from_int(i % 40, i / 40)));
        vec![scattered, lattice, stacked]
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn parallel_build_is_the_serial_tree() {
        let pool = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        };
        let mut reused = AgentTree::default();
        for positions in large_scenes() {
            assert!(positions.len() >= PAR_MIN);
            let mut serial = AgentTree::default();
            pool(1).install(|| serial.build(&positions));
            for threads in [2, 3, 4] {
                pool(threads).install(|| reused.build(&positions));
                assert_eq!(reused.nodes, serial.nodes, "{threads} threads");
                assert_eq!(reused.order, serial.order);
                assert_eq!(reused.xs, serial.xs);
                assert_eq!(reused.ys, serial.ys);
                assert_eq!(reused.leaf_of, serial.leaf_of);
            }
        }
    }

    #[test]
    fn raw_slots_match_query() {
        // Packed (range < 2¹⁶) and unpacked (range above) keys give the query's slots.
        let positions: Vec<Vec2> = (0..300)
            .map(|i| Vec2::from_bits((i * 7919 % 1000) << 26, (i * 104_729 % 997) << 26))
            .collect();
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let (mut keys, mut raw) = (Vec::new(), Vec::new());
        for (range, expect_packed) in [(Fx::from_num(3), true), (Fx::from_num(70_000), false)] {
            for slot in 0..300 {
                tree.query(&positions, slot, range, 10, &mut keys);
                let packed = tree.query_raw(&positions, slot, range, 10, &mut raw);
                assert_eq!(packed, expect_packed);
                let slots: Vec<u32> = raw
                    .iter()
                    .map(|&k| AgentTree::raw_slot(k, packed))
                    .collect();
                let expected: Vec<u32> = keys.iter().map(|k| k.1).collect();
                assert_eq!(slots, expected, "slot {slot}");
                assert!(!slots.is_empty());
                let mut plain = vec![u32::MAX]; // appended to, not cleared
                tree.query_slots(&positions, slot, range, 10, &mut raw, &mut plain);
                assert_eq!(plain[1..], expected[..], "query_slots, slot {slot}");
            }
        }
    }

    #[test]
    fn translation_keeps_neighbor_lists() {
        let positions: Vec<Vec2> = (0..300)
            .map(|i| Vec2::from_bits((i * 7919 % 1000) << 28, (i * 104_729 % 997) << 28))
            .collect();
        let offset = Vec2::from_int(999_000, -999_000);
        let shifted: Vec<Vec2> = positions.iter().map(|&p| p + offset).collect();
        let (mut a, mut b) = (AgentTree::default(), AgentTree::default());
        a.build(&positions);
        b.build(&shifted);
        let (mut oa, mut ob) = (Vec::new(), Vec::new());
        for slot in 0..300 {
            a.query(&positions, slot, Fx::from_num(200), 10, &mut oa);
            b.query(&shifted, slot, Fx::from_num(200), 10, &mut ob);
            assert_eq!(oa, ob);
            assert_eq!(oa.len(), 10);
        }
    }
}

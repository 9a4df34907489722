//! Leaf-batched queries ([`AgentTree::query_all`]): every slot's list, leaf by leaf.
//!
//! The agents of one leaf share almost all of their search. For each leaf the tree is walked
//! once with the leaf's box and the largest first limit of its agents (`G`), and every point
//! within `G` of the box is gathered (coordinates and slot) into a small buffer. Each agent of
//! the leaf then selects its list from the candidates with the per-agent search ([`Search`]:
//! the same key order `(distance², slot)`, the same strict `< range²`, the same hint
//! semantics). A point within an agent's limit is within `G` of the box (the agent is in it),
//! so the candidates hold every key the agent's own search could accept: the lists are those
//! of [`AgentTree::query_slots_hinted`] by construction. When an agent's hinted list is short
//! and the candidates do not cover its full range, it searches again with the full range, as
//! the per-slot query does.
//!
//! The candidate buffer holds at most [`cand_cap`] points (a few kilobytes, reserved once): a
//! leaf whose gather would overflow it (a first tick without hints in a dense crowd, say)
//! runs the per-slot query for each of its agents instead. Either way the lists are the same.
//!
//! The lists are handed to the caller's [`Lists`] as they are found (in tree order), so they
//! are stored once, where the caller keeps them.

use super::{AgentTree, MAX_LEAF_SIZE, NeighborKey, Node, PACKED_BOUND, Search, gap, sq_diff};
use crate::math::{Fx, Vec2, wide_mul};

/// A gathered candidate: raw coordinates and slot.
#[derive(Clone, Copy, Debug, Default)]
struct Cand {
    x: i64,
    y: i64,
    slot: u32,
}

/// The batched queries' scratch (kept between calls): the candidates and one agent's keys.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    cands: Vec<Cand>,
    keys: Vec<NeighborKey>,
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
    keys: &'a [NeighborKey],
    packed: bool,
}

impl<'a> Found<'a> {
    /// The number of neighbours.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the list is empty.
    #[cfg_attr(not(test), allow(dead_code))]
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The neighbours' slots, nearest first (ties by slot).
    #[inline]
    pub fn slots(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        let packed = self.packed;
        self.keys
            .iter()
            .map(move |&k| AgentTree::raw_slot(k, packed))
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
        let n = positions.len();
        let longest = self
            .order
            .iter()
            .map(|&s| lists.query(s).max_neighbors)
            .max()
            .unwrap_or(0)
            .min(n - 1);
        let cap = cand_cap(n, longest);
        // Reserved once for the run's largest lists and leaves: a steady run never allocates.
        if scratch.cands.capacity() < cap {
            scratch.cands.clear();
            scratch.cands.reserve(cap);
        }
        if scratch.keys.capacity() < longest {
            scratch.keys.clear();
            scratch.keys.reserve(longest);
        }
        // Leaves are numbered depth first: in node order they are in tree order.
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i];
            if (node.end - node.begin) as usize <= MAX_LEAF_SIZE {
                self.leaf_batch(positions, i, cap, lists, &mut scratch);
            }
        }
        self.batch = scratch;
    }

    /// Every list of the leaf `leaf_node`.
    fn leaf_batch<L: Lists>(
        &self,
        positions: &[Vec2],
        leaf_node: usize,
        cap: usize,
        lists: &mut L,
        scratch: &mut Scratch,
    ) {
        let leaf = &self.nodes[leaf_node];
        let (begin, end) = (leaf.begin as usize, leaf.end as usize);
        let count = end - begin;
        // Per agent: (range², max, first limit, hinted); max 0: nothing to do.
        let mut plan = [(0u128, 0usize, 0u128, false); MAX_LEAF_SIZE];
        let mut gather_sq = 0u128;
        let mut any = false;
        for (p, &slot) in plan[..count].iter_mut().zip(&self.order[begin..end]) {
            let q = lists.query(slot);
            let range_sq = wide_mul(q.range, q.range).unsigned_abs();
            let hinted = q.hint_sq > 0 && q.hint_sq < range_sq;
            let limit = if hinted { q.hint_sq } else { range_sq };
            *p = (range_sq, q.max_neighbors, limit, hinted);
            if q.max_neighbors > 0 && range_sq < PACKED_BOUND {
                gather_sq = gather_sq.max(limit);
                any = true;
            }
        }
        let gathered = any && self.gather(leaf_node, gather_sq, cap, &mut scratch.cands);
        let keys = &mut scratch.keys;
        for (k, &(range_sq, max, limit, hinted)) in plan[..count].iter().enumerate() {
            let slot = self.order[begin + k];
            keys.clear();
            if max == 0 {
                lists.found(slot, Found { keys, packed: true }, 0);
                continue;
            }
            if !gathered || range_sq >= PACKED_BOUND {
                // The per-slot query (an unpacked range, or candidates that did not fit).
                let hint_sq = if hinted { limit } else { 0 };
                let (packed, last) =
                    self.query_keys_hinted(positions, slot, max, range_sq, hint_sq, keys);
                lists.found(slot, Found { keys, packed }, last);
                continue;
            }
            let center = positions[slot as usize];
            let mut search = Search::<true>::new(self, center, slot, max, limit, keys);
            if hinted {
                // Keys with distance² ≤ hint (all below range², as the hint is).
                search.limit_packed = limit << 32 | u128::from(u32::MAX);
            }
            search.scan_cands(&scratch.cands);
            if keys.len() < max && hinted {
                keys.clear();
                let mut search = Search::<true>::new(self, center, slot, max, range_sq, keys);
                if gather_sq >= range_sq {
                    // The candidates cover the full range.
                    search.scan_cands(&scratch.cands);
                } else {
                    search.run(self.leaf_of[slot as usize]);
                }
            }
            let last = if keys.len() == max {
                (keys[max - 1].0 as u128) >> 32
            } else {
                0
            };
            lists.found(slot, Found { keys, packed: true }, last);
        }
    }

    /// Every point whose squared distance to the box of `leaf_node` (a leaf) is at most
    /// `limit_sq`, into `cands` (cleared): the leaf's own first, then the others in tree
    /// order. Returns `false` (candidates incomplete) when they would exceed `cap`.
    fn gather(&self, leaf_node: usize, limit_sq: u128, cap: usize, cands: &mut Vec<Cand>) -> bool {
        cands.clear();
        let nodes = &self.nodes;
        let leaf = &nodes[leaf_node];
        // The leaf's own points first: each agent's nearest keys are mostly there, so its
        // limit tightens before the other candidates are scanned (fewer insertions).
        let (b, e) = (leaf.begin as usize, leaf.end as usize);
        if e - b > cap {
            return false;
        }
        for ((&slot, &x), &y) in self.order[b..e]
            .iter()
            .zip(&self.xs[b..e])
            .zip(&self.ys[b..e])
        {
            cands.push(Cand { x, y, slot });
        }
        let (x0, x1) = (leaf.min.x.to_bits(), leaf.max.x.to_bits());
        let (y0, y1) = (leaf.min.y.to_bits(), leaf.max.y.to_bits());
        // Depth first over the nodes whose box is within the limit, without a stack: after a
        // subtree, climb to the first ancestor that is a left child (numbered right after its
        // parent) and go on with its sibling. Any depth, no recursion.
        let mut node = 0usize;
        loop {
            let n = &nodes[node];
            if node != leaf_node && box_box_sq(leaf, n) <= limit_sq {
                if (n.end - n.begin) as usize > MAX_LEAF_SIZE {
                    node = n.left as usize;
                    continue;
                }
                let (b, e) = (n.begin as usize, n.end as usize);
                if cands.len() + (e - b) > cap {
                    return false;
                }
                for ((&slot, &x), &y) in self.order[b..e]
                    .iter()
                    .zip(&self.xs[b..e])
                    .zip(&self.ys[b..e])
                {
                    let gx = u128::from(gap(x, x0, x1));
                    let gy = u128::from(gap(y, y0, y1));
                    if gx * gx + gy * gy <= limit_sq {
                        cands.push(Cand { x, y, slot });
                    }
                }
            }
            loop {
                if node == 0 {
                    return true;
                }
                let n = &nodes[node];
                if node == n.parent as usize + 1 {
                    node = n.sibling as usize;
                    break;
                }
                node = n.parent as usize;
            }
        }
    }
}

/// The squared distance between the boxes of `a` and `b` (zero when they overlap).
#[inline(always)]
fn box_box_sq(a: &Node, b: &Node) -> u128 {
    let gx = gap2(
        a.min.x.to_bits(),
        a.max.x.to_bits(),
        b.min.x.to_bits(),
        b.max.x.to_bits(),
    );
    let gy = gap2(
        a.min.y.to_bits(),
        a.max.y.to_bits(),
        b.min.y.to_bits(),
        b.max.y.to_bits(),
    );
    u128::from(gx) * u128::from(gx) + u128::from(gy) * u128::from(gy)
}

/// The gap between the intervals `[a0, a1]` and `[b0, b1]` (zero when they overlap).
#[inline(always)]
fn gap2(a0: i64, a1: i64, b0: i64, b1: i64) -> u64 {
    if b1 < a0 {
        (a0 - b1) as u64
    } else if b0 > a1 {
        (b0 - a1) as u64
    } else {
        0
    }
}

impl Search<'_, true> {
    /// Inserts every candidate below the limit but the query's own slot.
    #[inline(always)]
    fn scan_cands(&mut self, cands: &[Cand]) {
        for c in cands {
            let d = sq_diff(c.x, self.cx) + sq_diff(c.y, self.cy);
            if self.below_limit(d, c.slot) && c.slot != self.slot {
                self.insert(d, c.slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per slot: (range, max) varied, including no neighbours, a cap above the agent count,
    /// an unpacked range and a zero range.
    fn params(slot: u32) -> (Fx, usize) {
        match slot % 7 {
            0 => (Fx::from_num(3), 10),
            1 => (Fx::lit("1.5"), 4),
            2 => (Fx::from_num(6), 0),
            3 => (Fx::from_num(70_000), 5),
            4 => (Fx::from_num(2), 100_000),
            5 => (Fx::ZERO, 3),
            _ => (Fx::lit("4.25"), 16),
        }
    }

    /// A [`Lists`] keeping every list by slot, with the per-slot hints (as the tick does).
    struct Kept {
        params: fn(u32) -> (Fx, usize),
        hints: Vec<u64>,
        reach: u64,
        lists: Vec<Option<Vec<u32>>>,
        lasts: Vec<u128>,
    }

    impl Lists for Kept {
        fn query(&self, slot: u32) -> SlotQuery {
            let (range, max_neighbors) = (self.params)(slot);
            let h = u128::from(self.hints[slot as usize]);
            SlotQuery {
                range,
                max_neighbors,
                hint_sq: h * h,
            }
        }

        fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128) {
            let s = slot as usize;
            assert!(self.lists[s].is_none(), "slot {slot} found twice");
            assert_eq!(list.len(), list.slots().len());
            assert_eq!(list.is_empty(), list.slots().next().is_none());
            self.lists[s] = Some(list.slots().collect());
            self.lasts[s] = last_sq;
            self.hints[s] = super::super::next_hint(last_sq, self.reach);
        }
    }

    /// Checks every slot's batched list against the per-slot query over a few moving ticks.
    fn check_scene(positions: Vec<Vec2>, ticks: usize) {
        check_scene_with(positions, ticks, params);
    }

    fn check_scene_with(mut positions: Vec<Vec2>, ticks: usize, params: fn(u32) -> (Fx, usize)) {
        let mut tree = AgentTree::default();
        let (mut keys, mut plain) = (Vec::new(), Vec::new());
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let reach = 1u64 << 29;
        let n = positions.len();
        let mut kept = Kept {
            params,
            hints: vec![0; n],
            reach,
            lists: Vec::new(),
            lasts: Vec::new(),
        };
        for tick in 0..ticks {
            tree.build(&positions);
            if tick == 2 {
                // Hints from elsewhere (speed only): still the same lists.
                for (i, h) in kept.hints.iter_mut().enumerate() {
                    *h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 40);
                }
            }
            kept.lists.clear();
            kept.lists.resize(n, None);
            kept.lasts.clear();
            kept.lasts.resize(n, 0);
            let hints = kept.hints.clone();
            tree.query_all(&positions, &mut kept);
            for slot in 0..n as u32 {
                let (range, max) = params(slot);
                plain.clear();
                let h = u128::from(hints[slot as usize]);
                let last = tree.query_slots_hinted(
                    &positions,
                    slot,
                    range,
                    max,
                    h * h,
                    &mut keys,
                    &mut plain,
                );
                let s = slot as usize;
                assert_eq!(
                    kept.lists[s].as_deref(),
                    Some(&plain[..]),
                    "tick {tick}, slot {slot}"
                );
                assert_eq!(kept.lasts[s], last, "tick {tick}, slot {slot}");
            }
            // Move every agent by less than `reach`.
            for p in &mut positions {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let dx = (x % (1 << 29)) as i64 - (1 << 28);
                let dy = ((x >> 32) % (1 << 29)) as i64 - (1 << 28);
                *p = Vec2::from_bits(p.x.to_bits() + dx, p.y.to_bits() + dy);
            }
        }
    }

    #[test]
    fn batched_lists_are_the_per_slot_lists() {
        // Scattered, a tie-heavy lattice, and a stack on one point.
        let scattered: Vec<Vec2> = (0..700)
            .map(|i| Vec2::from_bits((i * 7919 % 1000) << 27, (i * 104_729 % 997) << 27))
            .collect();
        check_scene(scattered, 5);
        let lattice: Vec<Vec2> = (0..600).map(|i| Vec2::from_int(i % 25, i / 25)).collect();
        check_scene(lattice, 3);
        let mut stacked = vec![Vec2::from_int(3, -7); 40];
        stacked.extend((0..200).map(|i| Vec2::from_int(i % 20, i / 20)));
        check_scene(stacked, 3);
        check_scene(vec![Vec2::ZERO], 2);
        check_scene(Vec::new(), 2);
    }

    #[test]
    fn batched_lists_when_the_candidates_overflow() {
        // 3,000 agents on a dense lattice, each with a range covering all of them: every
        // first gather exceeds the candidate buffer (the per-slot fallback), the hinted
        // ones fit.
        let positions: Vec<Vec2> = (0..3000)
            .map(|i| Vec2::from_bits((i % 60) << 28, (i / 60) << 28))
            .collect();
        assert!(cand_cap(3000, 16) < 3000);
        check_scene_with(positions, 3, |slot| {
            (Fx::from_num(100), if slot % 3 == 0 { 16 } else { 5 })
        });
    }

    #[test]
    fn batched_lists_in_a_deep_tree() {
        // Clusters of 17 on four exponential ladders (±x, ±y): splits peel clusters off one
        // by one, so the tree is deep (the gather climbs long chains), and a range of 60,000
        // (packed) reaches every cluster.
        let mut positions = Vec::new();
        for k in 0..46 {
            for (x, y) in [(1i64 << k, 0), (-(1 << k), 0), (0, 1 << k), (0, -(1 << k))] {
                positions.extend(std::iter::repeat_n(Vec2::from_bits(x, y), 17));
            }
        }
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let depth = |mut node: usize| {
            let mut d = 0;
            while node != 0 {
                node = tree.nodes[node].parent as usize;
                d += 1;
            }
            d
        };
        let deepest = (0..tree.nodes.len()).map(depth).max().unwrap();
        assert!(deepest > 40, "depth {deepest}");
        check_scene_with(positions, 1, |slot| {
            (Fx::from_num(60_000), if slot % 2 == 0 { 10 } else { 40 })
        });
    }
}

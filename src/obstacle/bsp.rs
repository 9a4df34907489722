//! The obstacle BSP tree (RVO2's obstacle `KdTree`): build with segment splitting, range and
//! visibility queries.
//!
//! # Build
//! Each node holds one edge fragment; its splitting line is the line of the fragment's
//! **original edge** (exact endpoints, so every side test is exact `i128`). Other fragments go
//! left, right, or are split at the line as RVO2 does. Fragments within `2⁻²⁴` units of the line
//! count as on it (RVO2 uses `RVO_EPSILON` on the unnormalised `leftOf`). Split points are
//! computed with 60-bit quotients, so they lie within about one ulp of the line.
//!
//! The split choice is RVO2's score — minimise `(max(left, right), min(left, right))`, ties to
//! the earlier fragment, with RVO2's early exit — evaluated either on every fragment of the node
//! ([`SplitChoice::Exhaustive`], RVO2's `O(N²)` per level) or on a fixed, evenly spaced sample of
//! `k` candidates ([`SplitChoice::Sampled`], `O(k·N)` per level). Fragment lists keep a
//! deterministic order (the arena order, then stable partition), so both are deterministic.
//!
//! # Queries
//! Results never depend on the tree's shape: a node's original edge is tested with exact
//! geometry, duplicates from split fragments are removed, and the pruning test (distance from
//! the query to the splitting line) is conservative by `2⁻²⁰` units, which covers the `2⁻²⁴`
//! classification tolerance. So the neighbour set is exactly "edges with the agent strictly on
//! their right whose distance is below the range", and visibility is exactly "no edge closer
//! than the radius to the path", whichever split choice built the tree. The one exception is
//! [`Bsp::query_fragments`], RVO2's fragment semantics, which returns the tree's fragments.

use super::geom::length_ceil;
use super::polygon::ObstacleVertex;
use crate::geom::{dist_sq_point_segment, dist_sq_segment_segment, left_of, ratio, wide};
use crate::math::{Fx, Vec2, wide_mul};

/// No child.
const NONE: u32 = u32::MAX;
/// Classification tolerance, in world units (2⁻²⁴).
const ON_LINE_TOL: Fx = Fx::from_bits(1 << 8);
/// Pruning slack of the queries, in world units (2⁻²⁰); larger than [`ON_LINE_TOL`].
const QUERY_SLACK: Fx = Fx::from_bits(1 << 12);

/// How the build picks each node's splitting fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitChoice {
    /// RVO2's choice: score every fragment against every other (`O(N²)` per level).
    Exhaustive,
    /// Score only `candidates` evenly spaced fragments (`O(candidates·N)` per level).
    Sampled {
        /// Number of candidates scored per node (at least 1).
        candidates: usize,
    },
}

impl Default for SplitChoice {
    /// `Sampled { candidates: 8 }` (see the README, "BSP build", for the measurements).
    fn default() -> Self {
        Self::Sampled { candidates: 8 }
    }
}

#[derive(Clone, Copy, Debug)]
struct Fragment {
    edge: u32,
    a: Vec2,
    b: Vec2,
    /// Whether `a` / `b` is a split point (not an original vertex).
    a_split: bool,
    b_split: bool,
}

/// One node: the original edge whose line splits, and the two subtrees.
#[derive(Clone, Copy, Debug)]
struct Node {
    edge: u32,
    p1: Vec2,
    p2: Vec2,
    /// `|p2 − p1|` rounded up.
    len: Fx,
    /// The fragment itself (only RVO2's fragment semantics read it).
    frag: Fragment,
    /// `|frag.b − frag.a|` (rounded down, as the fragment query's line distance uses it).
    frag_len: Fx,
    left: u32,
    right: u32,
}

/// The obstacle BSP tree. Derived data: a function of the vertex arena and the split choice.
#[derive(Clone, Debug, Default)]
pub struct Bsp {
    nodes: Vec<Node>,
    root: u32,
}

impl Bsp {
    /// Number of nodes (edge fragments): an upper bound on the neighbours any query returns.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

/// Size figures of a built tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BspStats {
    /// Number of nodes (fragments after splitting).
    pub nodes: usize,
    /// Depth of the deepest node (root = 1; 0 for an empty tree).
    pub depth: usize,
}

enum Side {
    Left,
    Right,
    Split { a_left: bool, point: Vec2 },
}

/// Side of fragment `f` relative to the line `p1 → p2` with tolerance `tol` (raw Q64.64).
fn classify(p1: Vec2, p2: Vec2, tol: i128, f: &Fragment, want_point: bool) -> Side {
    let la = left_of(p1, p2, f.a);
    let lb = left_of(p1, p2, f.b);
    if la >= -tol && lb >= -tol {
        Side::Left
    } else if la <= tol && lb <= tol {
        Side::Right
    } else {
        let point = if want_point {
            split_point(f.a, f.b, la, lb)
        } else {
            f.a
        };
        Side::Split {
            a_left: la > 0,
            point,
        }
    }
}

/// Point where the segment `a b` crosses the line on which `a`, `b` have signed offsets `la`,
/// `lb` (opposite signs): `a + (b − a)·la/(la − lb)` with a 60-bit quotient.
fn split_point(a: Vec2, b: Vec2, la: i128, lb: i128) -> Vec2 {
    let big = la.unsigned_abs().max(lb.unsigned_abs());
    let k = (128 - big.leading_zeros()).saturating_sub(60);
    let (la, lb) = (la >> k, lb >> k);
    let den = la - lb;
    if den == 0 {
        return a;
    }
    let lerp = |from: Fx, to: Fx| {
        let d = i128::from((to - from).to_bits());
        from + Fx::from_bits((d * la / den) as i64)
    };
    Vec2::new(lerp(a.x, b.x), lerp(a.y, b.y))
}

fn tolerance(p1: Vec2, p2: Vec2) -> i128 {
    wide_mul(length_ceil(p2 - p1), ON_LINE_TOL)
}

/// RVO2's split score of candidate `i` among `frags`, with its early exit against `best`.
fn score(
    frags: &[Fragment],
    i: usize,
    arena: &[ObstacleVertex],
    best: (usize, usize),
) -> (usize, usize) {
    let e = &arena[frags[i].edge as usize];
    let (p1, p2) = (e.point, arena[e.next as usize].point);
    let tol = tolerance(p1, p2);
    let (mut left, mut right) = (0usize, 0usize);
    for (j, f) in frags.iter().enumerate() {
        if j == i {
            continue;
        }
        match classify(p1, p2, tol, f, false) {
            Side::Left => left += 1,
            Side::Right => right += 1,
            Side::Split { .. } => {
                left += 1;
                right += 1;
            }
        }
        if (left.max(right), left.min(right)) >= best {
            break;
        }
    }
    (left.max(right), left.min(right))
}

fn choose_split(frags: &[Fragment], arena: &[ObstacleVertex], choice: SplitChoice) -> usize {
    let n = frags.len();
    let mut best = (usize::MAX, usize::MAX);
    let mut best_i = 0;
    let mut consider = |i: usize, best: &mut (usize, usize)| {
        let s = score(frags, i, arena, *best);
        if s < *best {
            *best = s;
            best_i = i;
        }
    };
    match choice {
        SplitChoice::Exhaustive => {
            for i in 0..n {
                consider(i, &mut best);
            }
        }
        SplitChoice::Sampled { candidates } => {
            let k = candidates.max(1);
            if n <= k {
                for i in 0..n {
                    consider(i, &mut best);
                }
            } else {
                for c in 0..k {
                    consider(c * n / k, &mut best);
                }
            }
        }
    }
    best_i
}

impl Bsp {
    /// Builds the tree over every edge of the arena (each vertex starts one edge).
    #[must_use]
    pub fn build(arena: &[ObstacleVertex], choice: SplitChoice) -> Self {
        let frags: Vec<Fragment> = arena
            .iter()
            .enumerate()
            .map(|(i, v)| Fragment {
                edge: i as u32,
                a: v.point,
                b: arena[v.next as usize].point,
                a_split: false,
                b_split: false,
            })
            .collect();
        let mut bsp = Self {
            nodes: Vec::with_capacity(frags.len()),
            root: NONE,
        };
        // Explicit stack: (fragments, parent node, is left child); parent NONE = root.
        let mut stack: Vec<(Vec<Fragment>, u32, bool)> = vec![(frags, NONE, false)];
        while let Some((frags, parent, is_left)) = stack.pop() {
            if frags.is_empty() {
                continue;
            }
            let i = choose_split(&frags, arena, choice);
            let e = &arena[frags[i].edge as usize];
            let (p1, p2) = (e.point, arena[e.next as usize].point);
            let tol = tolerance(p1, p2);
            let mut left = Vec::new();
            let mut right = Vec::new();
            for (j, f) in frags.iter().enumerate() {
                if j == i {
                    continue;
                }
                match classify(p1, p2, tol, f, true) {
                    Side::Left => left.push(*f),
                    Side::Right => right.push(*f),
                    Side::Split { a_left, point } => {
                        let first = Fragment {
                            b: point,
                            b_split: true,
                            ..*f
                        };
                        let second = Fragment {
                            a: point,
                            a_split: true,
                            ..*f
                        };
                        if a_left {
                            left.push(first);
                            right.push(second);
                        } else {
                            right.push(first);
                            left.push(second);
                        }
                    }
                }
            }
            let idx = bsp.nodes.len() as u32;
            bsp.nodes.push(Node {
                edge: frags[i].edge,
                p1,
                p2,
                len: length_ceil(p2 - p1),
                frag: frags[i],
                frag_len: (frags[i].b - frags[i].a).length(),
                left: NONE,
                right: NONE,
            });
            if parent == NONE {
                bsp.root = idx;
            } else if is_left {
                bsp.nodes[parent as usize].left = idx;
            } else {
                bsp.nodes[parent as usize].right = idx;
            }
            stack.push((right, idx, false));
            stack.push((left, idx, true));
        }
        bsp
    }

    /// Node count and depth.
    #[must_use]
    pub fn stats(&self) -> BspStats {
        let mut depth = 0;
        let mut stack = vec![(self.root, 1usize)];
        while let Some((n, d)) = stack.pop() {
            if n == NONE {
                continue;
            }
            depth = depth.max(d);
            let node = &self.nodes[n as usize];
            stack.push((node.left, d + 1));
            stack.push((node.right, d + 1));
        }
        BspStats {
            nodes: self.nodes.len(),
            depth,
        }
    }

    /// Appends `(dist², edge)` for every edge with `q` strictly on its right and within
    /// `range` (distance to the segment `< range`, RVO2's `insertObstacleNeighbor` test), each
    /// edge once, sorted by `(dist², edge)`. Returns the number of nodes visited.
    pub fn query_edges(&self, q: Vec2, range: Fx, out: &mut Vec<(i128, u32)>) -> usize {
        let range_sq = wide_mul(range, range);
        let reach = range.saturating_add(QUERY_SLACK);
        let start = out.len();
        // Recursive descent: no heap allocation per query (the tick calls this per agent).
        let visited = self.query_edges_node(self.root, q, range_sq, reach, out);
        let found = &mut out[start..];
        found.sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if r == start || out[r].1 != out[w - 1].1 || out[r].0 != out[w - 1].0 {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
        visited
    }

    fn query_edges_node(
        &self,
        n: u32,
        q: Vec2,
        range_sq: i128,
        reach: Fx,
        out: &mut Vec<(i128, u32)>,
    ) -> usize {
        if n == NONE {
            return 0;
        }
        let node = &self.nodes[n as usize];
        let l = left_of(node.p1, node.p2, q);
        let (near, far) = if l >= 0 {
            (node.left, node.right)
        } else {
            (node.right, node.left)
        };
        let mut visited = 1 + self.query_edges_node(near, q, range_sq, reach, out);
        if l.unsigned_abs() < wide_mul(reach, node.len).unsigned_abs() {
            if l < 0 {
                // Try the edge only if the agent is on its right side (can see it).
                let d = dist_sq_point_segment(node.p1, node.p2, q);
                if d < range_sq {
                    out.push((d, node.edge));
                }
            }
            // Try the other side of the line.
            visited += self.query_edges_node(far, q, range_sq, reach, out);
        }
        visited
    }

    /// Whether some edge lies within `range` of `q` (distance to the segment `< range`), from
    /// either side. Recursive descent, as [`query_edges`](Self::query_edges): no allocation.
    #[must_use]
    pub fn any_edge_within(&self, q: Vec2, range: Fx) -> bool {
        let reach = range.saturating_add(QUERY_SLACK);
        self.any_edge_within_node(self.root, q, wide_mul(range, range), reach)
    }

    fn any_edge_within_node(&self, n: u32, q: Vec2, range_sq: i128, reach: Fx) -> bool {
        if n == NONE {
            return false;
        }
        let node = &self.nodes[n as usize];
        if dist_sq_point_segment(node.p1, node.p2, q) < range_sq {
            return true;
        }
        let l = left_of(node.p1, node.p2, q);
        let (near, far) = if l >= 0 {
            (node.left, node.right)
        } else {
            (node.right, node.left)
        };
        self.any_edge_within_node(near, q, range_sq, reach)
            || (l.unsigned_abs() < wide_mul(reach, node.len).unsigned_abs()
                && self.any_edge_within_node(far, q, range_sq, reach))
    }

    /// Whether a disc of `radius` moving from `q1` to `q2` keeps clear of every edge: no edge
    /// intersects the path and none is closer to it than `radius`. Returns `(visible, visited)`.
    #[must_use]
    pub fn visible(&self, q1: Vec2, q2: Vec2, radius: Fx) -> (bool, usize) {
        let r_sq = wide_mul(radius, radius);
        let reach = radius.saturating_add(QUERY_SLACK);
        let mut visited = 0;
        let mut stack = NodeStack::new(self.root);
        while let Some(n) = stack.pop() {
            if n == NONE {
                continue;
            }
            visited += 1;
            let node = &self.nodes[n as usize];
            let d = dist_sq_segment_segment(q1, q2, node.p1, node.p2);
            if d == 0 || d < r_sq {
                return (false, visited);
            }
            let l1 = left_of(node.p1, node.p2, q1);
            let l2 = left_of(node.p1, node.p2, q2);
            let bound = wide_mul(reach, node.len);
            let clear = |l: i128| l.unsigned_abs() >= bound.unsigned_abs();
            if l1 >= 0 && l2 >= 0 {
                stack.push(node.left);
                if !(clear(l1) && clear(l2)) {
                    stack.push(node.right);
                }
            } else if l1 <= 0 && l2 <= 0 {
                stack.push(node.right);
                if !(clear(l1) && clear(l2)) {
                    stack.push(node.left);
                }
            } else {
                // The path crosses the line: both sides.
                stack.push(node.left);
                stack.push(node.right);
            }
        }
        (true, visited)
    }
}

/// The nodes still to visit of a tree walk: on the call's stack up to [`NodeStack::INLINE`]
/// nodes (a tree that deep is rare), on the heap beyond, so a walk allocates nothing in
/// practice (stage 1b asks for sight of goals every tick).
struct NodeStack {
    inline: [u32; NodeStack::INLINE],
    len: usize,
    spill: Vec<u32>,
}

impl NodeStack {
    const INLINE: usize = 64;

    fn new(root: u32) -> Self {
        let mut s = Self {
            inline: [0; Self::INLINE],
            len: 0,
            spill: Vec::new(),
        };
        s.push(root);
        s
    }

    fn push(&mut self, n: u32) {
        if self.len < Self::INLINE {
            self.inline[self.len] = n;
            self.len += 1;
        } else {
            self.spill.push(n);
        }
    }

    fn pop(&mut self) -> Option<u32> {
        if let Some(n) = self.spill.pop() {
            return Some(n);
        }
        self.len = self.len.checked_sub(1)?;
        Some(self.inline[self.len])
    }
}

/// One edge fragment as RVO2 sees it after splitting: the fragment's end points, its original
/// edge, and which ends are split points (RVO2 gives a split point `convex = true` and the
/// edge's direction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentView {
    /// Arena index of the original edge.
    pub edge: u32,
    /// Start point.
    pub a: Vec2,
    /// End point.
    pub b: Vec2,
    /// Whether `a` is a split point.
    pub a_split: bool,
    /// Whether `b` is a split point.
    pub b_split: bool,
}

impl Bsp {
    /// RVO2's obstacle-neighbour query with **fragment semantics** (the
    /// [`ObstacleNeighbors::Rvo2Fragments`](super::ObstacleNeighbors::Rvo2Fragments) mode):
    /// appends `(dist², node)` for every fragment with `q` strictly on its right and within
    /// `range`, where `node` names the fragment (see [`fragment`](Self::fragment)).
    ///
    /// Split fragments are separate neighbours, tested against their own (rounded) end points,
    /// found in RVO2's traversal order (near side first; the far side only when the fragment's
    /// line is closer than `range`) and kept sorted by distance with RVO2's insertion (a new
    /// entry goes after every entry at the same distance). Unlike
    /// [`query_edges`](Self::query_edges) the result depends on the tree's shape, exactly as
    /// RVO2's does. Allocates nothing beyond `out`'s growth.
    pub fn query_fragments(&self, q: Vec2, range: Fx, out: &mut Vec<(i128, u32)>) {
        let range_sq = wide_mul(range, range);
        let start = out.len();
        self.fragments_rec(self.root, q, range_sq, start, out);
    }

    fn fragments_rec(
        &self,
        n: u32,
        q: Vec2,
        range_sq: i128,
        start: usize,
        out: &mut Vec<(i128, u32)>,
    ) {
        if n == NONE {
            return;
        }
        let node = &self.nodes[n as usize];
        let f = node.frag;
        let l = left_of(f.a, f.b, q);
        let (near, far) = if l >= 0 {
            (node.left, node.right)
        } else {
            (node.right, node.left)
        };
        self.fragments_rec(near, q, range_sq, start, out);
        // Distance from `q` to the fragment's line, compared squared as RVO2 does.
        let line_dist = ratio(l.abs(), wide(node.frag_len));
        if wide_mul(line_dist, line_dist) < range_sq {
            if l < 0 {
                // `q` is on the fragment's right side (can see it): RVO2's
                // `insertObstacleNeighbor`, an insertion sort stable in traversal order.
                let d = dist_sq_point_segment(f.a, f.b, q);
                if d < range_sq {
                    out.push((d, n));
                    let mut i = out.len() - 1;
                    while i > start && d < out[i - 1].0 {
                        out[i] = out[i - 1];
                        i -= 1;
                    }
                    out[i] = (d, n);
                }
            }
            self.fragments_rec(far, q, range_sq, start, out);
        }
    }

    /// The fragment held by `node` (an index from [`query_fragments`](Self::query_fragments)).
    ///
    /// # Panics
    /// If `node` is not a node of this tree.
    #[must_use]
    pub fn fragment(&self, node: u32) -> FragmentView {
        let f = self.nodes[node as usize].frag;
        FragmentView {
            edge: f.edge,
            a: f.a,
            b: f.b,
            a_split: f.a_split,
            b_split: f.b_split,
        }
    }
}

/// Brute-force reference of [`Bsp::query_edges`] (every edge tested), for tests and checks.
#[cfg(any(test, feature = "test-oracles"))]
pub fn query_edges_brute(arena: &[ObstacleVertex], q: Vec2, range: Fx, out: &mut Vec<(i128, u32)>) {
    let range_sq = wide_mul(range, range);
    let start = out.len();
    for (i, v) in arena.iter().enumerate() {
        let (p1, p2) = (v.point, arena[v.next as usize].point);
        if left_of(p1, p2, q) < 0 {
            let d = dist_sq_point_segment(p1, p2, q);
            if d < range_sq {
                out.push((d, i as u32));
            }
        }
    }
    out[start..].sort_unstable();
}

/// Brute-force reference of [`Bsp::visible`].
#[cfg(any(test, feature = "test-oracles"))]
#[must_use]
pub fn visible_brute(arena: &[ObstacleVertex], q1: Vec2, q2: Vec2, radius: Fx) -> bool {
    let r_sq = wide_mul(radius, radius);
    arena.iter().all(|v| {
        let d = dist_sq_segment_segment(q1, q2, v.point, arena[v.next as usize].point);
        d != 0 && d >= r_sq
    })
}

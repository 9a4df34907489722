//! Queries on the mesh: point location, walkable tests, nearest walkable point, raycast.
//!
//! Each fast query has a plain form kept as its oracle ([`NavMesh::locate_plain`],
//! [`NavMesh::is_walkable_plain`]); tests check they agree. Every decision is exact
//! ([`crate::geom`]); the seed grid and visiting orders only change how much work a query
//! does, never its answer.

mod nearest;
mod reach;

pub use reach::RayHit;

use super::{NO_TRIANGLE, NavMesh};
use crate::geom::{cmp_dist_point_segment, left_of};
use crate::math::{Fx, Vec2};
use crate::util::SeededWords;
use std::cmp::Ordering;
use std::collections::HashSet;

/// How many triangles [`Visited`] keeps in its inline list before it moves to a hash set.
const FEW: usize = 32;

/// The set of triangles a local search has seen: an inline list (no allocation, a linear
/// scan) for the common few, a hash set past [`FEW`] (with [`SeededWords`]: a search along a
/// long segment sees hundreds). Only answers membership, so the searches visit in the same
/// order as with any set.
pub(crate) struct Visited {
    few: Few,
    many: Option<HashSet<u32, SeededWords>>,
}

/// Up to [`FEW`] triangles kept inline, in the order added.
struct Few {
    items: [u32; FEW],
    len: usize,
}

impl Few {
    /// `[t]`.
    fn of(t: u32) -> Self {
        let mut items = [0; FEW];
        items[0] = t;
        Self { items, len: 1 }
    }

    /// The triangles kept.
    fn as_slice(&self) -> &[u32] {
        &self.items[..self.len]
    }

    /// Adds `t` when there is room: whether it was added.
    fn push(&mut self, t: u32) -> bool {
        let room = self.len < FEW;
        if room {
            self.items[self.len] = t;
            self.len += 1;
        }
        room
    }
}

impl Visited {
    /// The set `{t}`.
    pub(crate) fn of(t: u32) -> Self {
        Self {
            few: Few::of(t),
            many: None,
        }
    }

    /// Whether `t` is in the set.
    pub(crate) fn contains(&self, t: u32) -> bool {
        match &self.many {
            Some(many) => many.contains(&t),
            None => self.few.as_slice().contains(&t),
        }
    }

    /// Adds `t`; `false` when it was there.
    pub(crate) fn insert(&mut self, t: u32) -> bool {
        if let Some(many) = &mut self.many {
            return many.insert(t);
        }
        if self.few.as_slice().contains(&t) {
            return false;
        }
        if !self.few.push(t) {
            let mut many: HashSet<u32, SeededWords> =
                HashSet::with_capacity_and_hasher(4 * FEW, SeededWords::default());
            many.extend(self.few.as_slice().iter().copied());
            many.insert(t);
            self.many = Some(many);
        }
        true
    }
}

/// The stack of a local search: an inline array (no allocation) for the common few, spilling
/// into a vector past [`FEW`]. Pops in the order a `Vec` would (last in, first out: the spill
/// holds only entries pushed after the array filled), so a search visits as with a `Vec`.
pub(crate) struct Stack {
    few: Few,
    spill: Vec<u32>,
}

impl Stack {
    /// The stack `[t]`.
    pub(crate) fn of(t: u32) -> Self {
        Self {
            few: Few::of(t),
            spill: Vec::new(),
        }
    }

    /// Pushes `t`.
    pub(crate) fn push(&mut self, t: u32) {
        if !self.spill.is_empty() || !self.few.push(t) {
            self.spill.push(t);
        }
    }

    /// Pops the last pushed entry.
    pub(crate) fn pop(&mut self) -> Option<u32> {
        if let Some(t) = self.spill.pop() {
            return Some(t);
        }
        self.few.len = self.few.len.checked_sub(1)?;
        Some(self.few.items[self.few.len])
    }
}

/// Whether `p` is at least `r` outside the bounding box of the segment `a b` along an axis
/// (`r ≥ 0`): then the segment is at least `r` from `p` (an exact pre-test of
/// [`cmp_dist_point_segment`]`(a, b, p, r) != Less`).
#[inline]
fn beyond_box(a: Vec2, b: Vec2, p: Vec2, r: Fx) -> bool {
    let (r, px, py) = (
        i128::from(r.to_bits()),
        i128::from(p.x.to_bits()),
        i128::from(p.y.to_bits()),
    );
    let (ax, bx) = (i128::from(a.x.to_bits()), i128::from(b.x.to_bits()));
    let (ay, by) = (i128::from(a.y.to_bits()), i128::from(b.y.to_bits()));
    px + r <= ax.min(bx) || px - r >= ax.max(bx) || py + r <= ay.min(by) || py - r >= ay.max(by)
}

impl NavMesh {
    /// The triangle containing `p`, or `None` outside the mesh.
    ///
    /// A point on an edge or a vertex belongs to the lowest-indexed triangle containing it
    /// (closed triangles), the same rule as [`locate_plain`](Self::locate_plain), so the answer
    /// does not depend on where the walk started. The walk starts at the seed grid's triangle
    /// for `p` and crosses an edge `p` lies strictly right of until none is left; on a
    /// hand-made mesh with a non-convex hull (the walk leaves the mesh) or a walk longer than
    /// the triangle count, the plain scan answers.
    #[must_use]
    pub fn locate(&self, p: Vec2) -> Option<u32> {
        if !self.seeds.covers(p) {
            return None;
        }
        self.locate_from(p, self.seeds.seed(p))
    }

    /// [`locate`](Self::locate) walking from triangle `hint` (a triangle near `p`: one it was
    /// found in, or one whose edge it lies on) instead of the seed grid's: the same answer
    /// (the tie rule does not depend on the start), in fewer steps when the hint is close.
    pub(crate) fn locate_from(&self, p: Vec2, hint: u32) -> Option<u32> {
        if !self.seeds.covers(p) {
            return None;
        }
        let mut t = if (hint as usize) < self.tris.len() {
            hint
        } else {
            self.seeds.seed(p)
        };
        for _ in 0..=self.tris.len() {
            let [a, b, c] = self.corners(t);
            let sides = [left_of(a, b, p), left_of(b, c, p), left_of(c, a, p)];
            match (0..3).find(|&k| sides[k] < 0) {
                None => return Some(self.lowest_containing(t, p, sides)),
                Some(k) => {
                    let next = self.tris[t as usize].adj[k];
                    if next == NO_TRIANGLE {
                        return self.locate_plain(p);
                    }
                    t = next;
                }
            }
        }
        self.locate_plain(p)
    }

    /// The lowest-indexed triangle containing `p`, given that `t` contains it with the edge
    /// sides `sides` (none negative).
    fn lowest_containing(&self, t: u32, p: Vec2, sides: [i128; 3]) -> u32 {
        let on: Vec<usize> = (0..3).filter(|&k| sides[k] == 0).collect();
        match on.as_slice() {
            [] => t,
            [k] => {
                let n = self.tris[t as usize].adj[*k];
                if n == NO_TRIANGLE { t } else { t.min(n) }
            }
            _ => {
                // On a vertex: every triangle around it contains p.
                let vi = self.tris[t as usize]
                    .v
                    .iter()
                    .copied()
                    .find(|&v| self.verts[v as usize] == p);
                vi.map_or(t, |vi| self.min_around(t, vi))
            }
        }
    }

    /// The lowest triangle index around vertex `vi`, starting from triangle `t` (which has it).
    fn min_around(&self, t: u32, vi: u32) -> u32 {
        let mut best = t;
        // Turn one way through the edges leaving vi, then the other way if the hull stops us.
        for dir in [0usize, 2] {
            let mut cur = t;
            for _ in 0..self.tris.len() {
                let tri = &self.tris[cur as usize];
                let Some(i) = tri.v.iter().position(|&v| v == vi) else {
                    break;
                };
                let n = tri.adj[(i + dir) % 3];
                if n == NO_TRIANGLE || n == t {
                    break;
                }
                best = best.min(n);
                cur = n;
            }
        }
        best
    }

    /// Whether a disc of radius `r` centred at `p` lies in walkable space: `p` lies in a
    /// walkable triangle ([`locate`](Self::locate)) and no wall is closer than `r` (a wall at
    /// exactly `r` is allowed; exact). Equal to [`is_walkable_plain`](Self::is_walkable_plain)
    /// on every mesh with a convex hull (every built mesh); the search visits only triangles
    /// with an edge closer than `r`.
    #[must_use]
    pub fn is_walkable(&self, p: Vec2, r: Fx) -> bool {
        self.locate(p).is_some_and(|t| self.walkable_in(p, r, t))
    }

    /// [`is_walkable`](Self::is_walkable), locating `p` from triangle `hint` (one near `p`; the
    /// same answer, as [`locate_from`](Self::locate_from) gives the same triangle).
    pub(crate) fn is_walkable_from(&self, p: Vec2, r: Fx, hint: u32) -> bool {
        self.locate_from(p, hint)
            .is_some_and(|t| self.walkable_in(p, r, t))
    }

    /// [`is_walkable`](Self::is_walkable) for a `p` already located: `t` is
    /// [`locate`](Self::locate)`(p)`.
    pub(crate) fn walkable_in(&self, p: Vec2, r: Fx, t: u32) -> bool {
        self.tris[t as usize].walkable && self.first_wall_within(p, r, t).is_none()
    }

    /// A wall closer than `r` to `p`, searching from triangle `t` across the non-wall edges
    /// closer than `r`: `(triangle, edge)`, or `None`. The first found in a fixed order (the
    /// search from `t`), so deterministic.
    pub(crate) fn first_wall_within(&self, p: Vec2, r: Fx, t: u32) -> Option<(u32, usize)> {
        if r <= Fx::ZERO {
            return None;
        }
        let mut seen = Visited::of(t);
        let mut stack = Stack::of(t);
        while let Some(u) = stack.pop() {
            let tri = &self.tris[u as usize];
            for k in 0..3 {
                let n = tri.adj[k];
                // An open edge to a triangle already seen (or to none) adds nothing: no test.
                if !tri.wall[k] && (n == NO_TRIANGLE || seen.contains(n)) {
                    continue;
                }
                let (a, b) = self.edge(u, k);
                if beyond_box(a, b, p, r) || cmp_dist_point_segment(a, b, p, r) != Ordering::Less {
                    continue;
                }
                if tri.wall[k] {
                    return Some((u, k));
                }
                seen.insert(n);
                stack.push(n);
            }
        }
        None
    }

    /// The distance from `p` to the nearest wall, at most `max`: how large a disc centred at
    /// `p` fits (zero when `p` is outside the mesh or in a blocked triangle). The search only
    /// crosses edges closer than the best distance so far, so its cost grows with the answer,
    /// not the map.
    ///
    /// Distances are [`dist_sq_point_segment`](crate::geom::dist_sq_point_segment)'s, square
    /// rooted and rounded down: within a few ulps of the exact value. Decide walkability with
    /// the exact [`is_walkable`](Self::is_walkable); this is for scoring (how much room a spot
    /// has).
    #[must_use]
    pub fn clearance(&self, p: Vec2, max: Fx) -> Fx {
        let Some(t) = self.locate(p) else {
            return Fx::ZERO;
        };
        if !self.tris[t as usize].walkable {
            return Fx::ZERO;
        }
        let mut best = max.max(Fx::ZERO);
        let mut seen = Visited::of(t);
        let mut stack = Stack::of(t);
        while let Some(u) = stack.pop() {
            let tri = &self.tris[u as usize];
            for k in 0..3 {
                let n = tri.adj[k];
                if !tri.wall[k] && (n == NO_TRIANGLE || seen.contains(n)) {
                    continue;
                }
                let (a, b) = self.edge(u, k);
                if cmp_dist_point_segment(a, b, p, best) != Ordering::Less {
                    continue;
                }
                if tri.wall[k] {
                    best = best.min(crate::math::sqrt_wide(crate::geom::dist_sq_point_segment(
                        a, b, p,
                    )));
                    continue;
                }
                seen.insert(n);
                stack.push(n);
            }
        }
        best
    }

    /// The end points of edge `k` of triangle `t`.
    pub(crate) fn edge(&self, t: u32, k: usize) -> (Vec2, Vec2) {
        let v = self.tris[t as usize].v;
        (
            self.verts[v[k] as usize],
            self.verts[v[(k + 1) % 3] as usize],
        )
    }
}

impl NavMesh {
    /// The triangle containing `p`, by testing every triangle (the plain form of
    /// [`locate`](Self::locate), its oracle in tests): the first triangle, in index order, with
    /// `p` on or left of all three edges.
    #[must_use]
    pub fn locate_plain(&self, p: Vec2) -> Option<u32> {
        (0..self.tris.len() as u32).find(|&t| {
            let [a, b, c] = self.corners(t);
            left_of(a, b, p) >= 0 && left_of(b, c, p) >= 0 && left_of(c, a, p) >= 0
        })
    }

    /// Whether a disc of radius `r` at `p` is walkable, by testing every wall (the plain form of
    /// [`is_walkable`](Self::is_walkable)): `p` lies in a walkable triangle and every wall edge
    /// is at least `r` away (exact).
    #[must_use]
    pub fn is_walkable_plain(&self, p: Vec2, r: Fx) -> bool {
        let Some(t) = self.locate_plain(p) else {
            return false;
        };
        if !self.tris[t as usize].walkable {
            return false;
        }
        self.tris.iter().all(|tri| {
            (0..3).all(|k| {
                !tri.wall[k] || {
                    let a = self.verts[tri.v[k] as usize];
                    let b = self.verts[tri.v[(k + 1) % 3] as usize];
                    cmp_dist_point_segment(a, b, p, r) != Ordering::Less
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{FEW, Stack};
    use proptest::prelude::*;

    proptest! {
        /// The inline stack pops as a `Vec` does, across the spill and back.
        #[test]
        fn the_stack_pops_as_a_vec(ops in proptest::collection::vec(0u32..3, 0..4 * FEW)) {
            let mut stack = Stack::of(7);
            let mut plain = vec![7u32];
            for (k, op) in ops.into_iter().enumerate() {
                if op == 0 {
                    prop_assert_eq!(stack.pop(), plain.pop());
                } else {
                    stack.push(k as u32);
                    plain.push(k as u32);
                }
            }
            while let Some(t) = plain.pop() {
                prop_assert_eq!(stack.pop(), Some(t));
            }
            prop_assert_eq!(stack.pop(), None);
        }
    }
}

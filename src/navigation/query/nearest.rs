//! The nearest walkable point, best first: the candidates of
//! [`NavMesh::nearest_walkable_plain`] taken in order of distance, the first walkable one wins.
//!
//! The plain form repairs and checks every candidate of every wall near the point (about 200 k
//! instructions for a unit standing against a building, most of them walkability checks of
//! candidates that lose). Here the candidates wait in a heap keyed by their distance to `p`
//! beside the heap of triangles still to visit; a candidate is checked only once it is nearer
//! than anything an unvisited triangle can still give, and the first one that is walkable is
//! the answer. A candidate that touches a wall is repaired (pushed off it, or off the corner of
//! the two walls it touched) and goes back into the heap at its new distance, so a far
//! candidate is never repaired while a nearer one may still win. Usually one or two candidates
//! are checked.

use super::super::{NO_TRIANGLE, NavMesh};
use super::Visited;
use super::reach::{
    MAX_NEAREST_TRIANGLES, MAX_REPAIRS, closest_on_segment, in_exact_range, offset_corner, push,
    side_normal,
};
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A wall as the repairs see it: its ends and a point on its walkable side.
type Wall = (Vec2, Vec2, Vec2);

/// One candidate waiting in the heap: its squared distance to `p` and `(x, y)` bits (the
/// order: nearest first, ties by position), the point, the repairs it had, whether it may
/// still take corner repairs, and the wall it was last pushed off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    dist_sq: i128,
    xy: (i64, i64),
    repairs: u8,
    corners: bool,
    wall: [(i64, i64); 3],
}

impl Candidate {
    fn new(p: Vec2, c: Vec2, repairs: u8, corners: bool, wall: Wall) -> Self {
        let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
        Self {
            dist_sq: (c - p).length_squared_wide(),
            xy: bits(c),
            repairs,
            corners,
            wall: [bits(wall.0), bits(wall.1), bits(wall.2)],
        }
    }

    fn point(&self) -> Vec2 {
        Vec2::new(Fx::from_bits(self.xy.0), Fx::from_bits(self.xy.1))
    }

    fn wall(&self) -> Wall {
        let v = |(x, y): (i64, i64)| Vec2::new(Fx::from_bits(x), Fx::from_bits(y));
        (v(self.wall[0]), v(self.wall[1]), v(self.wall[2]))
    }
}

impl NavMesh {
    /// The walkable point for radius `r` nearest to `p`: `p` itself when
    /// [`is_walkable`](Self::is_walkable)`(p, r)`, `None` when nothing walkable is found.
    ///
    /// # Approximation
    /// The candidates are those of [`nearest_walkable_plain`](Self::nearest_walkable_plain)
    /// (its plain form and test oracle): for each wall bordering a walkable triangle near `p`,
    /// the point `r` (plus a margin of `r / 2²⁰ + 16` ulps) off the wall's nearest point to
    /// `p` and off its two ends, on the walkable side. They are taken best first (exact
    /// squared distance, ties by `(x, y)`), the triangles around `p` visited in order of
    /// distance (at most 4,096) only while they may still give a nearer one. A candidate that
    /// touches a wall is pushed off it (or off the corner of the last two walls), at most four
    /// times, and waits again at its new distance; the first walkable candidate (checked with
    /// the exact [`is_walkable`](Self::is_walkable)) is the answer. So the result is always
    /// walkable, exactly the nearest in the common case (one wall), and in corners and gaps
    /// barely `2r` wide it may be a little farther than the true nearest point. Deterministic:
    /// it depends on the mesh, `p` and `r` only. `None` for an empty mesh or a `p` outside
    /// `|x|, |y| ≤ 2²⁹` (where exact geometry ends).
    #[must_use]
    pub fn nearest_walkable(&self, p: Vec2, r: Fx) -> Option<Vec2> {
        if self.tris.is_empty() || !in_exact_range(p) {
            return None;
        }
        let located = self.locate(p);
        if let Some(t) = located
            && self.walkable_in(p, r, t)
        {
            return Some(p);
        }
        let r = r.max(Fx::ZERO);
        let margin = Fx::from_bits((r.to_bits() >> 20) + 16);
        let s = r + margin;
        let start = located.unwrap_or_else(|| self.nearest_vertex_triangle(p));
        let mut tris = BinaryHeap::from([Reverse((0i128, start))]);
        let mut seen = Visited::of(start);
        let mut cands: BinaryHeap<Reverse<Candidate>> = BinaryHeap::new();
        let mut visited = 0usize;
        loop {
            // What an unvisited triangle can still give: candidates from a wall at distance
            // ≥ √d lie at least √d − r − margin from p.
            let bound = tris.peek().map(|Reverse((d, _))| {
                let reach = sqrt_wide(*d) - s;
                if reach > Fx::ZERO {
                    wide_mul(reach, reach)
                } else {
                    0
                }
            });
            let take = match (cands.peek(), bound) {
                (Some(Reverse(c)), Some(b)) => c.dist_sq < b,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            if take {
                let Reverse(c) = cands.pop()?;
                if let Some(found) = self.check_candidate(&c, p, r, s, &mut cands) {
                    return Some(found);
                }
                continue;
            }
            let Some(Reverse((_, t))) = tris.pop() else {
                continue;
            };
            visited += 1;
            if visited > MAX_NEAREST_TRIANGLES {
                tris.clear();
                continue;
            }
            let tri = self.tris[t as usize];
            for k in 0..3 {
                let (a, b) = self.edge(t, k);
                if tri.wall[k]
                    && let Some(x) = self.walkable_side(t, k)
                {
                    self.push_wall_candidates(p, s, (a, b, x), &mut cands);
                }
                let n = tri.adj[k];
                if n != NO_TRIANGLE && seen.insert(n) {
                    tris.push(Reverse((self.dist_sq_triangle(n, p), n)));
                }
            }
        }
    }

    /// Pushes the candidates of wall `a b` (walkable side: `x`'s) at `s` from it: off its
    /// nearest point to `p` along its normal, off its ends along the normal and away from `p`.
    fn push_wall_candidates(
        &self,
        p: Vec2,
        s: Fx,
        (a, b, x): Wall,
        cands: &mut BinaryHeap<Reverse<Candidate>>,
    ) {
        let normal = side_normal(a, b, x);
        let q = closest_on_segment(a, b, p);
        for (base, dir) in [
            (q, normal),
            (a, normal),
            (b, normal),
            (a, p - a),
            (b, p - b),
        ] {
            if let Some(c) = push(base, dir, s) {
                cands.push(Reverse(Candidate::new(p, c, 0, true, (a, b, x))));
            }
        }
    }

    /// Checks candidate `c`: its point when walkable for `r`; otherwise its repairs (off the
    /// wall it touches, or off the corner of that wall and the last one) go back into the heap
    /// and the answer is `None`.
    fn check_candidate(
        &self,
        c: &Candidate,
        p: Vec2,
        r: Fx,
        s: Fx,
        cands: &mut BinaryHeap<Reverse<Candidate>>,
    ) -> Option<Vec2> {
        let at = c.point();
        let t = self.locate(at)?;
        let Some((u, k)) = self.first_wall_within(at, r, t) else {
            return self.tris[t as usize].walkable.then_some(at);
        };
        if usize::from(c.repairs) >= MAX_REPAIRS {
            return None;
        }
        // Off that wall's nearest point to its walkable side (along its normal when the
        // candidate lies on it).
        let third = self.walkable_side(u, k)?;
        let (wa, wb) = self.edge(u, k);
        let wq = closest_on_segment(wa, wb, at);
        let normal = side_normal(wa, wb, third);
        let away = if at == wq || (at - wq).dot_wide(normal) < 0 {
            normal
        } else {
            at - wq
        };
        let wall = (wa, wb, third);
        let repairs = c.repairs + 1;
        let plain = push(wq, away, s);
        // In a corner: the point `s` off both walls' lines; the plain push is tried too.
        let corner = if c.corners {
            offset_corner(c.wall(), wall, s)
        } else {
            None
        };
        if let Some(next) = corner {
            cands.push(Reverse(Candidate::new(p, next, repairs, true, wall)));
        }
        if let Some(next) = plain {
            cands.push(Reverse(Candidate::new(
                p,
                next,
                repairs,
                corner.is_none() && c.corners,
                wall,
            )));
        }
        None
    }
}

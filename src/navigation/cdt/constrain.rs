//! Constraint insertion by Sloan's flips (Sloan 1993, "A fast algorithm for generating
//! constrained Delaunay triangulations").
//!
//! A segment `a b` is first traced through the triangulation without changing it: it runs along
//! existing edges, crosses edges, and passes through vertices lying exactly on it (which split
//! it). If it properly crosses a constrained edge it is not inserted at all (the caller counts
//! it). Otherwise each piece between two vertices on the segment is inserted in turn: the edges
//! it crosses are flipped, in a queue, whenever their quadrilateral is strictly convex (one
//! always is), until none crosses it; the piece becomes a constrained edge; Lawson's flips then
//! restore the Delaunay property around every triangle the insertion changed.

use super::kernel::{Mesh, Tri, next, prev};
use crate::geom::left_of;
use crate::math::Vec2;
use crate::navigation::NO_TRIANGLE;
use std::collections::VecDeque;

/// The first step of a segment from one of its end vertices.
enum Step {
    /// The segment runs along the edge to this vertex (which lies on it).
    Along(u32),
    /// The segment leaves through edge `k` of triangle `t` (a triangle at the start vertex).
    Cross(u32, usize),
}

/// Why a segment cannot be inserted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// It properly crosses a constrained edge.
    Crossing,
    /// The triangulation did not contain what the segment needs (a point outside the hull, a
    /// flip queue past its bound): impossible for valid input, kept as a refusal, never a panic.
    Inconsistent,
}

impl Mesh<'_> {
    /// Inserts the constraint `a b` (vertex ranks, `a != b`), splitting it at the vertices on
    /// it. Nothing changes when it crosses a constrained edge.
    pub(super) fn insert_constraint(&mut self, a: u32, b: u32) -> Result<(), Refused> {
        self.check_segment(a, b)?;
        let mut crossed = Vec::new();
        let mut from = a;
        while from != b {
            from = match self.first_step(from, b).ok_or(Refused::Inconsistent)? {
                Step::Along(c) => {
                    let (t, k) = self.find_edge(from, c).ok_or(Refused::Inconsistent)?;
                    self.fix(t, k);
                    c
                }
                Step::Cross(t, k) => {
                    crossed.clear();
                    let to = self.walk(from, b, t, k, |x, y, _| crossed.push((x, y)))?;
                    self.flip_out(from, to, &crossed)?;
                    to
                }
            };
        }
        Ok(())
    }

    /// Traces `a b` without changing anything: `Err(Crossing)` if it properly crosses a
    /// constrained edge.
    fn check_segment(&self, a: u32, b: u32) -> Result<(), Refused> {
        let mut from = a;
        while from != b {
            from = match self.first_step(from, b).ok_or(Refused::Inconsistent)? {
                Step::Along(c) => c,
                Step::Cross(t, k) => {
                    let mut hit = false;
                    let to = self.walk(from, b, t, k, |_, _, fixed| hit |= fixed)?;
                    if hit {
                        return Err(Refused::Crossing);
                    }
                    to
                }
            };
        }
        Ok(())
    }

    /// Where the segment `a → b` goes from vertex `a`: along an edge to a vertex on it, or
    /// through the far edge of a triangle at `a`.
    fn first_step(&self, a: u32, b: u32) -> Option<Step> {
        let (pa, pb) = (self.pts[a as usize], self.pts[b as usize]);
        let ahead = |p: Vec2| (p - pa).dot_wide(pb - pa) > 0;
        self.around(a, |t, i| {
            let v = self.tris[t as usize].v;
            let (x, y) = (v[next(i)], v[prev(i)]);
            let (px, py) = (self.pts[x as usize], self.pts[y as usize]);
            let (ox, oy) = (left_of(pa, pb, px), left_of(pa, pb, py));
            if ox == 0 && ahead(px) {
                Some(Step::Along(x))
            } else if oy == 0 && ahead(py) {
                Some(Step::Along(y))
            } else if ox < 0 && oy > 0 {
                Some(Step::Cross(t, next(i)))
            } else {
                None
            }
        })
    }

    /// Walks the segment `a → b` from edge `k` of `t` (crossed by it, its start right of the
    /// line and its end left) to the first vertex on the line, which it returns. `seen` gets
    /// every crossed edge as `(right vertex, left vertex, constrained)`.
    fn walk(
        &self,
        a: u32,
        b: u32,
        mut t: u32,
        mut k: usize,
        mut seen: impl FnMut(u32, u32, bool),
    ) -> Result<u32, Refused> {
        let (pa, pb) = (self.pts[a as usize], self.pts[b as usize]);
        loop {
            let tri: &Tri = &self.tris[t as usize];
            let (x, y) = (tri.v[k], tri.v[next(k)]);
            seen(x, y, tri.is_fixed(k));
            let u = tri.adj[k];
            if u == NO_TRIANGLE {
                return Err(Refused::Inconsistent);
            }
            let ut = &self.tris[u as usize];
            let j = ut.pos(y);
            let z = ut.v[prev(j)];
            let oz = left_of(pa, pb, self.pts[z as usize]);
            if oz == 0 {
                return Ok(z);
            }
            // `u = [y, x, z]`: leave through `z → y` if `z` is right of the line, else `x → z`.
            k = if oz < 0 { prev(j) } else { next(j) };
            t = u;
        }
    }

    /// Sloan's flips: removes every edge in `crossed` (given as vertex pairs, each crossing the
    /// open segment `a b`, which has no vertex inside) from the segment's way, constrains `a b`,
    /// and restores the Delaunay property of the changed triangles.
    fn flip_out(&mut self, a: u32, b: u32, crossed: &[(u32, u32)]) -> Result<(), Refused> {
        let (pa, pb) = (self.pts[a as usize], self.pts[b as usize]);
        let side = |p: Vec2| left_of(pa, pb, p).signum();
        let mut queue: VecDeque<(u32, u32)> = crossed.iter().copied().collect();
        let mut touched = Vec::with_capacity(2 * crossed.len());
        // Each pass over the queue flips at least one edge, and Sloan's process ends after
        // O(k²) flips for k crossed edges; the bound only guards against a broken invariant.
        let cap = 8 * (crossed.len() + 2) * (crossed.len() + 2);
        let mut steps = 0;
        while let Some((u, w)) = queue.pop_front() {
            steps += 1;
            if steps > cap {
                self.restore(&touched);
                return Err(Refused::Inconsistent);
            }
            let (t, k) = self.find_edge(u, w).ok_or(Refused::Inconsistent)?;
            let x = self.tris[t as usize].v[prev(k)];
            let y = self.apex_across(t, k);
            let (px, py) = (self.pts[x as usize], self.pts[y as usize]);
            let (pu, pw) = (self.pts[u as usize], self.pts[w as usize]);
            let convex = left_of(px, py, pu).signum() * left_of(px, py, pw).signum() < 0;
            if !convex {
                queue.push_back((u, w));
                continue;
            }
            let n = self.flip(t, k);
            touched.extend([t, n]);
            // The new diagonal is `x y`; it still crosses the segment if they straddle it.
            if x != a && x != b && y != a && y != b && side(px) * side(py) < 0 {
                queue.push_back((x, y));
            }
        }
        let (t, k) = self.find_edge(a, b).ok_or(Refused::Inconsistent)?;
        self.fix(t, k);
        self.restore(&touched);
        Ok(())
    }

    /// Lawson's flips from every edge of the triangles `touched`.
    fn restore(&mut self, touched: &[u32]) {
        for &t in touched {
            for k in 0..3 {
                self.push(t, k);
            }
        }
        self.legalize();
    }
}

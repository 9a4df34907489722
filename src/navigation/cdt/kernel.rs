//! The working triangulation: triangles with adjacency and constraint bits over points in rank
//! order, and Lawson's flips.
//!
//! Vertex `i` is the point of rank `i` (lexicographic `(x, y)`), so rank comparisons are index
//! comparisons and the symbolic perturbation needs no lookup.

use super::super::NO_TRIANGLE;
use crate::geom::left_of;
use crate::math::Vec2;
use crate::navigation::predicates::in_circle;

/// `k + 1 (mod 3)`.
#[inline]
pub(super) const fn next(k: usize) -> usize {
    if k == 2 { 0 } else { k + 1 }
}

/// `k + 2 (mod 3)`.
#[inline]
pub(super) const fn prev(k: usize) -> usize {
    if k == 0 { 2 } else { k - 1 }
}

/// One triangle: counter-clockwise vertices, the neighbour across each edge (edge `k` runs from
/// `v[k]` to `v[k + 1]`), and a bit per constrained edge.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tri {
    pub v: [u32; 3],
    pub adj: [u32; 3],
    pub fixed: u8,
}

impl Tri {
    /// The position of vertex `p` in this triangle (`p` must be one of its vertices).
    #[inline]
    pub fn pos(&self, p: u32) -> usize {
        if self.v[0] == p {
            0
        } else if self.v[1] == p {
            1
        } else {
            debug_assert_eq!(self.v[2], p, "vertex not in triangle");
            2
        }
    }

    /// Whether edge `k` is constrained.
    #[inline]
    pub fn is_fixed(&self, k: usize) -> bool {
        self.fixed & (1 << k) != 0
    }
}

/// A triangulation under construction.
pub(super) struct Mesh<'a> {
    /// The points in rank order.
    pub pts: &'a [Vec2],
    pub tris: Vec<Tri>,
    /// One triangle incident to each vertex (`NO_TRIANGLE` before the vertex is inserted).
    pub vert_tri: Vec<u32>,
    /// Scratch stack of edges `(triangle, edge)` whose Delaunay property is unknown.
    stack: Vec<(u32, u8)>,
}

impl<'a> Mesh<'a> {
    /// An empty triangulation of `pts` (sorted by rank, distinct).
    pub fn new(pts: &'a [Vec2]) -> Self {
        Self {
            pts,
            tris: Vec::with_capacity(2 * pts.len()),
            vert_tri: vec![NO_TRIANGLE; pts.len()],
            stack: Vec::new(),
        }
    }

    /// Visits the triangles around vertex `a` (each with `a`'s position in it), counter-clockwise
    /// from `vert_tri[a]` and then clockwise when the hull interrupts the turn, until `f`
    /// returns `Some`.
    pub fn around<R>(&self, a: u32, mut f: impl FnMut(u32, usize) -> Option<R>) -> Option<R> {
        let t0 = self.vert_tri[a as usize];
        if t0 == NO_TRIANGLE {
            return None;
        }
        let mut t = t0;
        loop {
            let i = self.tris[t as usize].pos(a);
            if let Some(r) = f(t, i) {
                return Some(r);
            }
            t = self.tris[t as usize].adj[prev(i)];
            if t == t0 {
                return None;
            }
            if t == NO_TRIANGLE {
                break;
            }
        }
        t = t0;
        loop {
            let i = self.tris[t as usize].pos(a);
            t = self.tris[t as usize].adj[i];
            if t == NO_TRIANGLE {
                return None;
            }
            let i = self.tris[t as usize].pos(a);
            if let Some(r) = f(t, i) {
                return Some(r);
            }
        }
    }

    /// The triangle and edge index of the edge `a → b` or, failing that, `b → a`.
    pub fn find_edge(&self, a: u32, b: u32) -> Option<(u32, usize)> {
        self.around(a, |t, i| {
            let v = self.tris[t as usize].v;
            if v[next(i)] == b {
                Some((t, i))
            } else if v[prev(i)] == b {
                Some((t, prev(i)))
            } else {
                None
            }
        })
    }

    /// Marks edge `k` of triangle `t` (and its twin) as constrained.
    pub fn fix(&mut self, t: u32, k: usize) {
        let tri = self.tris[t as usize];
        self.tris[t as usize].fixed |= 1 << k;
        let u = tri.adj[k];
        if u != NO_TRIANGLE {
            let j = self.tris[u as usize].pos(tri.v[next(k)]);
            self.tris[u as usize].fixed |= 1 << j;
        }
    }

    /// The vertex of the neighbour across edge `k` of `t` that is not on that edge.
    #[inline]
    pub fn apex_across(&self, t: u32, k: usize) -> u32 {
        let tri = &self.tris[t as usize];
        let u = &self.tris[tri.adj[k] as usize];
        u.v[next(next(u.pos(tri.v[next(k)])))]
    }

    /// Whether the edge `k` of `t` is not locally Delaunay (and may be flipped): it has a
    /// neighbour, is not constrained, and the neighbour's far vertex lies inside the circle of
    /// `t` (with the symbolic tie rule).
    fn is_illegal(&self, t: u32, k: usize) -> bool {
        let tri = &self.tris[t as usize];
        if tri.adj[k] == NO_TRIANGLE || tri.is_fixed(k) {
            return false;
        }
        let d = self.apex_across(t, k);
        let [a, b, c] = [tri.v[k], tri.v[next(k)], tri.v[prev(k)]];
        let p = |i: u32| self.pts[i as usize];
        in_circle(p(a), p(b), p(c), p(d), [a, b, c, d])
    }

    /// Queues edge `k` of `t` for a Delaunay check in [`legalize`](Self::legalize).
    pub fn push(&mut self, t: u32, k: usize) {
        self.stack.push((t, k as u8));
    }

    /// Lawson's flips until no queued edge is illegal. Every edge whose neighbourhood changed
    /// is queued, so every edge is locally Delaunay (or constrained) afterwards.
    pub fn legalize(&mut self) {
        while let Some((t, k)) = self.stack.pop() {
            if self.is_illegal(t, usize::from(k)) {
                let u = self.flip(t, usize::from(k));
                self.stack.extend([(t, 0), (t, 1), (u, 0), (u, 1)]);
            }
        }
    }

    /// [`legalize`](Self::legalize) after inserting a point `p`, when every queued edge is
    /// opposite `p` in its triangle (`p` at position `k + 2` of edge `k`). A flip then leaves
    /// `p` at the apex of both new triangles, and the edges at `p` are locally Delaunay (the
    /// classic insertion argument: `p` lies in the circumcircle of the triangle flipped away, so
    /// the new edges at `p` are chords of empty circles); only the two edges opposite `p` are
    /// queued again, half the checks of the general loop.
    pub fn legalize_around_new_point(&mut self) {
        while let Some((t, k)) = self.stack.pop() {
            if self.is_illegal(t, usize::from(k)) {
                let u = self.flip(t, usize::from(k));
                // t = [p, a, d], u = [d, b, p].
                self.stack.extend([(t, 1), (u, 0)]);
            }
        }
    }

    /// Flips edge `k` of `t` (an unconstrained edge of a strictly convex quadrilateral). With
    /// `t = [a, b, c]` (edge `a → b`) and its neighbour `[b, a, d]`, `t` becomes `[c, a, d]` and
    /// the neighbour `[d, b, c]`: the new diagonal is edge 2 of both. Returns the neighbour.
    pub fn flip(&mut self, t: u32, k: usize) -> u32 {
        let tri = self.tris[t as usize];
        let u = tri.adj[k];
        let ut = self.tris[u as usize];
        let [a, b, c] = [tri.v[k], tri.v[next(k)], tri.v[prev(k)]];
        let j = ut.pos(b);
        let d = ut.v[prev(j)];
        debug_assert!(
            left_of(
                self.pts[c as usize],
                self.pts[d as usize],
                self.pts[a as usize]
            ) < 0
                && left_of(
                    self.pts[c as usize],
                    self.pts[d as usize],
                    self.pts[b as usize]
                ) > 0,
            "flip of a non-convex quadrilateral"
        );
        let bit = |f: u8, e: usize| (f >> e) & 1;
        // Outer edges: c→a and b→c of t, a→d and d→b of u.
        let (n_ca, f_ca) = (tri.adj[prev(k)], bit(tri.fixed, prev(k)));
        let (n_bc, f_bc) = (tri.adj[next(k)], bit(tri.fixed, next(k)));
        let (n_ad, f_ad) = (ut.adj[next(j)], bit(ut.fixed, next(j)));
        let (n_db, f_db) = (ut.adj[prev(j)], bit(ut.fixed, prev(j)));
        self.tris[t as usize] = Tri {
            v: [c, a, d],
            adj: [n_ca, n_ad, u],
            fixed: f_ca | (f_ad << 1),
        };
        self.tris[u as usize] = Tri {
            v: [d, b, c],
            adj: [n_db, n_bc, t],
            fixed: f_db | (f_bc << 1),
        };
        if n_ad != NO_TRIANGLE {
            let i = self.tris[n_ad as usize].pos(d);
            self.tris[n_ad as usize].adj[i] = t;
        }
        if n_bc != NO_TRIANGLE {
            let i = self.tris[n_bc as usize].pos(c);
            self.tris[n_bc as usize].adj[i] = u;
        }
        self.vert_tri[a as usize] = t;
        self.vert_tri[c as usize] = t;
        self.vert_tri[b as usize] = u;
        self.vert_tri[d as usize] = u;
        u
    }
}

/// A vertex or triangle index as `u32` (the caller bounds the counts).
#[inline]
pub(super) fn idx(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

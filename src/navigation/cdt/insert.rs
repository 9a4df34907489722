//! The Delaunay triangulation of the points: the convex hull fanned out and made Delaunay, then
//! every other point inserted in Hilbert-curve order, located by a visibility walk from the
//! previous one, split in (1 → 3 triangles, or 2 → 4 on an edge, 1 → 2 on a hull edge) and
//! legalized by Lawson's flips.
//!
//! The order only affects the speed (the result is unique): along a Hilbert curve consecutive
//! points are close, so walks are short, and each insertion flips a few edges on average.

use super::kernel::{Mesh, Tri, idx, next, prev};
use crate::geom::left_of;
use crate::math::Vec2;
use crate::navigation::NO_TRIANGLE;

impl<'a> Mesh<'a> {
    /// The Delaunay triangulation of `pts` (sorted by rank, distinct), or `None` when they are
    /// all collinear (or fewer than 3).
    pub fn delaunay(pts: &'a [Vec2]) -> Option<Self> {
        let n = pts.len();
        let hull = strict_hull(pts)?;
        let mut m = Self::new(pts);
        // Fan from the first hull vertex: [h0, h_i, h_{i+1}].
        let fans = hull.len() - 2;
        for i in 1..=fans {
            let t = idx(i - 1);
            m.tris.push(Tri {
                v: [hull[0], hull[i], hull[i + 1]],
                adj: [
                    if i == 1 { NO_TRIANGLE } else { t - 1 },
                    NO_TRIANGLE,
                    if i == fans { NO_TRIANGLE } else { t + 1 },
                ],
                fixed: 0,
            });
            for v in [hull[0], hull[i], hull[i + 1]] {
                m.vert_tri[v as usize] = t;
            }
            if i > 1 {
                m.push(t, 0);
            }
        }
        m.legalize();
        // The other points in Hilbert order.
        let mut on_hull = vec![false; n];
        for &h in &hull {
            on_hull[h as usize] = true;
        }
        let mut rest: Vec<(u64, u32)> = (0..idx(n))
            .filter(|&i| !on_hull[i as usize])
            .map(|i| (0, i))
            .collect();
        let curve = HilbertGrid::new(pts);
        for r in &mut rest {
            r.0 = curve.index(pts[r.1 as usize]);
        }
        rest.sort_unstable();
        let mut at = 0;
        for &(_, p) in &rest {
            at = m.insert_inside(p, at);
        }
        Some(m)
    }

    /// Inserts `p` (inside the hull, not a vertex), walking from triangle `from`. Returns a
    /// triangle at `p`.
    fn insert_inside(&mut self, p: u32, from: u32) -> u32 {
        let (t, on_edge) = self.locate(p, from);
        match on_edge {
            None => self.split_triangle(t, p),
            Some(k) => self.split_edge(t, k, p),
        }
        self.legalize_around_new_point();
        self.vert_tri[p as usize]
    }

    /// The triangle containing point `p` (closed), and the edge `p` lies on, if any. A
    /// visibility walk, which ends on a Delaunay triangulation; past a generous step bound (an
    /// invariant broken) it falls back to scanning every triangle.
    fn locate(&self, p: u32, from: u32) -> (u32, Option<usize>) {
        let pp = self.pts[p as usize];
        let side = |t: u32, k: usize| {
            let v = self.tris[t as usize].v;
            left_of(self.pts[v[k] as usize], self.pts[v[next(k)] as usize], pp)
        };
        let classify = |t: u32| -> Result<Option<usize>, usize> {
            let mut on = None;
            for k in 0..3 {
                let s = side(t, k);
                if s < 0 {
                    return Err(k);
                }
                if s == 0 {
                    on = Some(k);
                }
            }
            Ok(on)
        };
        let mut t = from;
        for _ in 0..4 * self.tris.len() + 16 {
            match classify(t) {
                Ok(on) => return (t, on),
                Err(k) => {
                    let u = self.tris[t as usize].adj[k];
                    if u == NO_TRIANGLE {
                        break;
                    }
                    t = u;
                }
            }
        }
        debug_assert!(false, "the walk did not find point {p}");
        (0..idx(self.tris.len()))
            .find_map(|t| classify(t).ok().map(|on| (t, on)))
            .unwrap_or((0, None))
    }

    /// Splits triangle `t = [a, b, c]` at the interior point `p` into `[a, b, p]`, `[b, c, p]`,
    /// `[c, a, p]` (`t` and two new slots); queues the edges opposite `p`.
    fn split_triangle(&mut self, t: u32, p: u32) {
        let Tri {
            v: [a, b, c],
            adj: [n_ab, n_bc, n_ca],
            fixed,
        } = self.tris[t as usize];
        let (t1, t2) = (idx(self.tris.len()), idx(self.tris.len() + 1));
        let bit = |k: u8| (fixed >> k) & 1;
        self.tris[t as usize] = Tri {
            v: [a, b, p],
            adj: [n_ab, t1, t2],
            fixed: bit(0),
        };
        self.tris.push(Tri {
            v: [b, c, p],
            adj: [n_bc, t2, t],
            fixed: bit(1),
        });
        self.tris.push(Tri {
            v: [c, a, p],
            adj: [n_ca, t, t1],
            fixed: bit(2),
        });
        self.repoint(n_bc, c, t1);
        self.repoint(n_ca, a, t2);
        self.vert_tri[c as usize] = t1;
        self.vert_tri[p as usize] = t;
        for s in [t, t1, t2] {
            self.push(s, 0);
        }
    }

    /// Splits edge `k` of `t = [a, b, c]` (`a → b`) at `p`, and the neighbour `[b, a, d]` if
    /// there is one: `[c, a, p]`, `[b, c, p]`, and `[a, d, p]`, `[d, b, p]`. Queues the edges
    /// opposite `p`.
    fn split_edge(&mut self, t: u32, k: usize, p: u32) {
        let tri = self.tris[t as usize];
        let [a, b, c] = [tri.v[k], tri.v[next(k)], tri.v[prev(k)]];
        let (n_bc, n_ca, u) = (tri.adj[next(k)], tri.adj[prev(k)], tri.adj[k]);
        let bit = |f: u8, e: usize| (f >> e) & 1;
        let t1 = idx(self.tris.len());
        if u == NO_TRIANGLE {
            self.tris[t as usize] = Tri {
                v: [c, a, p],
                adj: [n_ca, NO_TRIANGLE, t1],
                fixed: bit(tri.fixed, prev(k)),
            };
            self.tris.push(Tri {
                v: [b, c, p],
                adj: [n_bc, t, NO_TRIANGLE],
                fixed: bit(tri.fixed, next(k)),
            });
            self.repoint(n_bc, c, t1);
            self.push(t, 0);
            self.push(t1, 0);
        } else {
            let ut = self.tris[u as usize];
            let j = ut.pos(b);
            let d = ut.v[prev(j)];
            let (n_ad, n_db) = (ut.adj[next(j)], ut.adj[prev(j)]);
            let u1 = t1 + 1;
            self.tris[t as usize] = Tri {
                v: [c, a, p],
                adj: [n_ca, u, t1],
                fixed: bit(tri.fixed, prev(k)),
            };
            self.tris.push(Tri {
                v: [b, c, p],
                adj: [n_bc, t, u1],
                fixed: bit(tri.fixed, next(k)),
            });
            self.tris[u as usize] = Tri {
                v: [a, d, p],
                adj: [n_ad, u1, t],
                fixed: bit(ut.fixed, next(j)),
            };
            self.tris.push(Tri {
                v: [d, b, p],
                adj: [n_db, t1, u],
                fixed: bit(ut.fixed, prev(j)),
            });
            self.repoint(n_bc, c, t1);
            self.repoint(n_db, b, u1);
            self.vert_tri[d as usize] = u;
            for s in [t, t1, u, u1] {
                self.push(s, 0);
            }
        }
        self.vert_tri[a as usize] = t;
        self.vert_tri[c as usize] = t;
        self.vert_tri[b as usize] = t1;
        self.vert_tri[p as usize] = t;
    }

    /// Points the neighbour `n` (if any) back at `t` across its edge that starts at `from`.
    fn repoint(&mut self, n: u32, from: u32, t: u32) {
        if n != NO_TRIANGLE {
            let i = self.tris[n as usize].pos(from);
            self.tris[n as usize].adj[i] = t;
        }
    }
}

/// The vertices of the convex hull (counter-clockwise, collinear points left out) of the sorted
/// points, or `None` when they are all collinear. Andrew's monotone chain.
fn strict_hull(pts: &[Vec2]) -> Option<Vec<u32>> {
    if pts.len() < 3 {
        return None;
    }
    let mut hull: Vec<u32> = Vec::with_capacity(pts.len() + 1);
    let p = |i: u32| pts[i as usize];
    let n = idx(pts.len());
    for (range, floor) in [(0..n).collect::<Vec<_>>(), (0..n - 1).rev().collect()]
        .into_iter()
        .zip([1, 0])
    {
        let base = hull.len() + floor;
        for i in range {
            while hull.len() > base && {
                let l = hull.len();
                left_of(p(hull[l - 2]), p(hull[l - 1]), p(i)) <= 0
            } {
                hull.pop();
            }
            hull.push(i);
        }
    }
    hull.pop(); // the first point again
    (hull.len() >= 3).then_some(hull)
}

/// Positions on a Hilbert curve over a 2^16 × 2^16 grid on the points' bounding square.
struct HilbertGrid {
    min: (i64, i64),
    span: i128,
}

impl HilbertGrid {
    const ORDER: u32 = 16;
    const LAST: u32 = (1 << Self::ORDER) - 1;

    fn new(pts: &[Vec2]) -> Self {
        let xs = pts.iter().map(|p| p.x.to_bits());
        let ys = pts.iter().map(|p| p.y.to_bits());
        let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
        let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
        let span = i128::from(x1 - x0).max(i128::from(y1 - y0)).max(1);
        Self {
            min: (x0, y0),
            span,
        }
    }

    fn index(&self, p: Vec2) -> u64 {
        let cells = i128::from(Self::LAST);
        let q =
            |v: i64, lo: i64| u32::try_from((i128::from(v - lo) * cells) / self.span).unwrap_or(0);
        let (mut x, mut y) = (q(p.x.to_bits(), self.min.0), q(p.y.to_bits(), self.min.1));
        let mut d = 0u64;
        let mut s = 1u32 << (Self::ORDER - 1);
        while s > 0 {
            let rx = u32::from(x & s != 0);
            let ry = u32::from(y & s != 0);
            d += u64::from(s) * u64::from(s) * u64::from((3 * rx) ^ ry);
            if ry == 0 {
                if rx == 1 {
                    x = Self::LAST - x;
                    y = Self::LAST - y;
                }
                std::mem::swap(&mut x, &mut y);
            }
            s >>= 1;
        }
        d
    }
}

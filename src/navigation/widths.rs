//! Clearance widths of the traversals of each triangle (Demyen & Buro 2006, navigation plan
//! §1.5).
//!
//! `width[k]` of triangle `T = (C, A, B)` with `C = v[k]`, `A = v[k + 1]`, `B = v[k + 2]` is the
//! widest disc diameter that can cross `T` from edge `CA` to edge `CB` (or back), turning
//! around `C`. Every mesh vertex counts as an obstacle point (every walkable vertex is an
//! obstacle, boundary or crossing point in a built mesh):
//!
//! 1. `u = min(|CA|, |CB|)`. If the angle at `A` or at `B` is right or obtuse, the width is `u`.
//! 2. Otherwise the search crosses `AB`. For each edge `PQ` reached (starting with `AB`): if `C`
//!    does not project strictly inside `PQ` (a right or obtuse base angle) or the distance from
//!    `C` to the line `PQ` is at least `u`, the edge cannot narrow the passage: skip it. If `PQ`
//!    is a wall (or on the mesh's hull), `u` becomes that distance. Otherwise, with `X` the
//!    vertex across `PQ`, `u = min(u, |CX|)` and the search goes on across `PX` and `XQ`.
//!
//! The search is bounded by `u ≤ min(|CA|, |CB|)`, so it is local. Every length is rounded
//! down (`floor(|cross| / ceil(len))` for a distance to a line, a floored square root for a
//! distance to a vertex) and the acute-angle tests are exact dot-product signs, so a stored
//! width never exceeds the true one: rounding can close a gap, never open one. Blocked
//! triangles get width zero.

use super::{NO_TRIANGLE, NavMesh};
use crate::math::{Fx, Vec2, isqrt_u128};

/// Most edges one width search examines; past it the remaining edges' distances bound the
/// width from below (everything beyond an edge is at least that far), so the result stays a
/// lower bound.
const MAX_SEARCH_EDGES: usize = 4096;

/// Computes every triangle's [`width`](super::NavTriangle::width).
pub(crate) fn compute_all(mesh: &mut NavMesh) {
    let mut stack = Vec::new();
    for t in 0..mesh.tris.len() {
        let width = if mesh.tris[t].walkable {
            [0, 1, 2].map(|k| traversal_width(mesh, t as u32, k, &mut stack))
        } else {
            [Fx::ZERO; 3]
        };
        mesh.tris[t].width = width;
    }
}

/// `|p − q|`, rounded down.
fn dist_floor(p: Vec2, q: Vec2) -> Fx {
    (p - q).length()
}

/// The distance from `c` to the line through `p` and `q` (`p ≠ q`), rounded down:
/// `floor(|det| / ceil(|q − p|))` in raw units.
fn line_dist_floor(c: Vec2, p: Vec2, q: Vec2) -> Fx {
    let e = q - p;
    let len_sq = e.length_squared_wide().unsigned_abs();
    let root = isqrt_u128(len_sq);
    let len_ceil = if root * root < len_sq { root + 1 } else { root }.max(1);
    let det = e.det_wide(c - p).unsigned_abs();
    Fx::from_bits(i64::try_from(det / len_ceil).unwrap_or(i64::MAX))
}

/// Whether `c` projects strictly inside the segment `p q` (both base angles acute, exact).
fn projects_inside(c: Vec2, p: Vec2, q: Vec2) -> bool {
    (c - p).dot_wide(q - p) > 0 && (c - q).dot_wide(p - q) > 0
}

/// The edge of triangle `u` running from `from` to `to`, if any.
fn edge_of(mesh: &NavMesh, u: u32, from: u32, to: u32) -> Option<usize> {
    let v = mesh.tris[u as usize].v;
    (0..3).find(|&j| v[j] == from && v[(j + 1) % 3] == to)
}

/// The width of triangle `t`'s traversal pivoting on `v[k]` (see the module docs). `stack` is
/// scratch.
pub(crate) fn traversal_width(
    mesh: &NavMesh,
    t: u32,
    k: usize,
    stack: &mut Vec<(u32, usize)>,
) -> Fx {
    let tri = &mesh.tris[t as usize];
    let at = |j: usize| mesh.verts[tri.v[(k + j) % 3] as usize];
    let (c, a, b) = (at(0), at(1), at(2));
    let mut u = dist_floor(c, a).min(dist_floor(c, b));
    if !projects_inside(c, a, b) {
        return u;
    }
    stack.clear();
    // (triangle, edge) pairs: the edge of that triangle to examine, seen from C's side.
    stack.push((t, (k + 1) % 3));
    let mut examined = 0usize;
    while let Some((w, j)) = stack.pop() {
        let tw = &mesh.tris[w as usize];
        let (pi, qi) = (tw.v[j], tw.v[(j + 1) % 3]);
        let (p, q) = (mesh.verts[pi as usize], mesh.verts[qi as usize]);
        if !projects_inside(c, p, q) {
            continue;
        }
        let d = line_dist_floor(c, p, q);
        if d >= u {
            continue;
        }
        examined += 1;
        if examined > MAX_SEARCH_EDGES {
            // Out of work: everything beyond this edge and the pending ones is at least as far
            // as their lines.
            u = d;
            for &(w2, j2) in stack.iter() {
                let t2 = &mesh.tris[w2 as usize];
                let (p2, q2) = (t2.v[j2], t2.v[(j2 + 1) % 3]);
                let (p2, q2) = (mesh.verts[p2 as usize], mesh.verts[q2 as usize]);
                u = u.min(line_dist_floor(c, p2, q2));
            }
            return u;
        }
        let next = tw.adj[j];
        if tw.wall[j] || next == NO_TRIANGLE {
            u = d;
            continue;
        }
        let Some(jn) = edge_of(mesh, next, qi, pi) else {
            // Inconsistent adjacency (a hand-made mesh): treat the edge as a wall.
            u = d;
            continue;
        };
        let tn = &mesh.tris[next as usize];
        let x = mesh.verts[tn.v[(jn + 2) % 3] as usize];
        u = u.min(dist_floor(c, x));
        stack.push((next, (jn + 1) % 3));
        stack.push((next, (jn + 2) % 3));
    }
    u
}

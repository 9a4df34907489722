//! The constrained Delaunay triangulation kernel: points + constraint segments → triangles with
//! adjacency, exact and canonical.
//!
//! * **Exact:** orientation is [`crate::geom::left_of`] (one `i128`), in-circle the 256-bit
//!   lifted determinant of `navigation/predicates.rs`; nothing rounds.
//! * **Unique:** exactly cocircular ties are broken by symbolic perturbation ranked by
//!   lexicographic `(x, y)`, and crossing constraints are resolved in a canonical order, so the
//!   result depends only on the point set and the constraint set, never on the input order.
//!   That is what lets a local rebuild equal a batch build.
//! * **Algorithm:** the convex hull is fanned out and made Delaunay; the other points are
//!   inserted in Hilbert-curve order, each located by a visibility walk from the previous one,
//!   with Lawson's flips after each insertion (`insert.rs`); the constraints are then inserted by
//!   Sloan's flips, followed by Lawson's flips (`constrain.rs`). No recursion; every loop is
//!   bounded.
//!
//! | file | what |
//! | --- | --- |
//! | `mod.rs` | `triangulate`: input checks, ranking, the canonical output |
//! | `kernel.rs` | the working triangulation, flips, Lawson's legalization |
//! | `insert.rs` | the Delaunay triangulation of the points: hull fan, Hilbert order, walk, splits |
//! | `constrain.rs` | tracing a segment, Sloan's flips |
//! | `check.rs`, `tests.rs` | (tests) a brute-force validator, shared with the `nav_cdt` fuzz target; the unit tests |

#[cfg(any(test, feature = "test-oracles"))]
pub mod check;
mod constrain;
mod insert;
mod kernel;
#[cfg(test)]
mod tests;

use super::NO_TRIANGLE;
use super::predicates::in_range;
use crate::math::Vec2;
use kernel::{Mesh, idx, next, prev};

/// The most points [`triangulate`] accepts: `2^30` (triangle indices stay below `2^31`).
pub const MAX_POINTS: usize = 1 << 30;

/// A triangulation of the convex hull of a point set, with constraint edges.
///
/// Triangle `t` is `tris[t]` (counter-clockwise); edge `k` runs from `tris[t][k]` to
/// `tris[t][(k + 1) % 3]`; `adj[t][k]` is the triangle across it
/// ([`NO_TRIANGLE`] on the hull); `constrained[t][k]` says whether it is
/// (part of) a constraint.
///
/// Canonical: `tris[t][0]` is the triangle's lowest-ranked vertex (rank: lexicographic `(x, y)`
/// of the point), and the triangles are sorted by the coordinates of `(v[0], v[1], v[2])`. The
/// indices in `tris` are the caller's point indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Triangulation {
    /// The triangles' vertices (the caller's point indices), counter-clockwise.
    pub tris: Vec<[u32; 3]>,
    /// The triangle across each edge, or `NO_TRIANGLE`.
    pub adj: Vec<[u32; 3]>,
    /// Whether each edge is (part of) a constraint.
    pub constrained: Vec<[bool; 3]>,
    /// Constraints that could not be inserted (they cross an earlier one), counted.
    pub dropped: u32,
}

/// Why [`triangulate`] refused its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CdtError {
    /// Two input points are equal (the caller merges duplicates first).
    DuplicatePoint,
    /// A constraint names a point index out of range, or both its ends are one point.
    BadConstraint,
    /// A coordinate's raw bits are `2^53` or more in magnitude (the exact predicates' range,
    /// `MAX_RAW` of `navigation/predicates.rs`), or there are more than [`MAX_POINTS`] points.
    OutOfRange,
}

/// Triangulates `points` (distinct) with the constraint segments `constraints` (index pairs).
///
/// The result covers the convex hull of the points; every point is a vertex. Every
/// non-constrained edge is locally Delaunay, exact ties decided by symbolic perturbation, so the
/// result is the unique constrained Delaunay triangulation of the point set and the inserted
/// constraints, independent of the order of either input.
///
/// Constraints: a constraint through another point is split there (both pieces constrained);
/// collinear overlapping constraints constrain their union. Constraints are inserted in the
/// order of their (lower rank, higher rank) end points; one that properly crosses an inserted
/// constraint is not inserted and is counted in [`Triangulation::dropped`] (so would one the
/// kernel failed to insert because an internal bound was hit, which no valid triangulation
/// reaches: never a panic or an endless loop).
///
/// Fewer than 3 points, or all collinear: `Ok` with no triangles.
///
/// # Errors
/// [`CdtError::BadConstraint`] for an index out of range or a constraint from a point to
/// itself; [`CdtError::OutOfRange`] for a coordinate outside `±2^53` raw or too many points;
/// [`CdtError::DuplicatePoint`] when two points are equal.
pub fn triangulate(points: &[Vec2], constraints: &[[u32; 2]]) -> Result<Triangulation, CdtError> {
    let n = points.len();
    if constraints
        .iter()
        .any(|&[a, b]| a == b || a as usize >= n || b as usize >= n)
    {
        return Err(CdtError::BadConstraint);
    }
    if n > MAX_POINTS || !points.iter().all(|&p| in_range(p)) {
        return Err(CdtError::OutOfRange);
    }
    // Rank order: lexicographic (x, y). `order[r]` is the caller's index of rank `r`.
    let key = |i: u32| (points[i as usize].x, points[i as usize].y);
    let mut order: Vec<u32> = (0..idx(n)).collect();
    order.sort_unstable_by_key(|&i| key(i));
    if order.windows(2).any(|w| key(w[0]) == key(w[1])) {
        return Err(CdtError::DuplicatePoint);
    }
    let mut rank = vec![0u32; n];
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = idx(r);
    }
    let pts: Vec<Vec2> = order.iter().map(|&i| points[i as usize]).collect();
    let Some(mut mesh) = Mesh::delaunay(&pts) else {
        return Ok(Triangulation::default());
    };
    // Canonical constraint order: by (lower rank, higher rank), duplicates merged.
    let mut segs: Vec<[u32; 2]> = constraints
        .iter()
        .map(|&[a, b]| {
            let (ra, rb) = (rank[a as usize], rank[b as usize]);
            [ra.min(rb), ra.max(rb)]
        })
        .collect();
    segs.sort_unstable();
    segs.dedup();
    let mut dropped = 0u32;
    for [a, b] in segs {
        if mesh.insert_constraint(a, b).is_err() {
            dropped = dropped.saturating_add(1);
        }
    }
    Ok(canonical(&mesh, &order, dropped))
}

/// The canonical output: each triangle rotated to start at its lowest rank, the triangles
/// sorted by their rank triples (the same as sorting by coordinates), indices mapped back to
/// the caller's.
fn canonical(mesh: &Mesh<'_>, order: &[u32], dropped: u32) -> Triangulation {
    let rotated: Vec<kernel::Tri> = mesh
        .tris
        .iter()
        .map(|t| {
            let r = (0..3).min_by_key(|&k| t.v[k]).unwrap_or(0);
            let rot = |a: [u32; 3]| [a[r], a[next(r)], a[prev(r)]];
            let bits = [t.is_fixed(r), t.is_fixed(next(r)), t.is_fixed(prev(r))];
            let fixed = u8::from(bits[0]) | u8::from(bits[1]) << 1 | u8::from(bits[2]) << 2;
            kernel::Tri {
                v: rot(t.v),
                adj: rot(t.adj),
                fixed,
            }
        })
        .collect();
    let mut sorted: Vec<u32> = (0..idx(rotated.len())).collect();
    // Stable (run-detecting) sort: after a local rebuild the triangles are nearly in order
    // already; the keys are distinct, so the result is the same as any sort.
    sorted.sort_by_key(|&i| rotated[i as usize].v);
    let mut new_id = vec![0u32; rotated.len()];
    for (pos, &i) in sorted.iter().enumerate() {
        new_id[i as usize] = idx(pos);
    }
    let mut out = Triangulation {
        tris: Vec::with_capacity(sorted.len()),
        adj: Vec::with_capacity(sorted.len()),
        constrained: Vec::with_capacity(sorted.len()),
        dropped,
    };
    for &i in &sorted {
        let t = &rotated[i as usize];
        out.tris.push(t.v.map(|v| order[v as usize]));
        out.adj.push(t.adj.map(|a| {
            if a == NO_TRIANGLE {
                NO_TRIANGLE
            } else {
                new_id[a as usize]
            }
        }));
        out.constrained.push([0, 1, 2].map(|k| t.is_fixed(k)));
    }
    out
}

/// A constrained triangulation handed in whole, made Delaunay by Lawson's flips starting from
/// the edges in `dirty`, in the canonical form of [`triangulate`] (the local rebuild's last
/// step, `navigation/build/update.rs`).
///
/// `points` are sorted by rank (lexicographic `(x, y)`) and distinct, so an index is a rank;
/// `tris[t]` is counter-clockwise with `adj[t][k]` across edge `k` and bit `k` of `fixed[t]`
/// set on a constrained edge. Every unconstrained edge that is not locally Delaunay must be
/// reachable from `dirty` (an edge is queued again whenever a flip changes its neighbourhood).
/// Lawson's flips then end in the unique constrained Delaunay triangulation of the points and
/// the constrained edges (symbolic perturbation makes it unique), which is what
/// [`triangulate`] returns for the same sets.
pub(crate) fn relegalize(
    points: &[Vec2],
    tris: &[[u32; 3]],
    adj: &[[u32; 3]],
    fixed: &[u8],
    dirty: &[(u32, u8)],
) -> Triangulation {
    let mut mesh = Mesh::new(points);
    mesh.tris = tris
        .iter()
        .zip(adj)
        .zip(fixed)
        .map(|((&v, &adj), &fixed)| kernel::Tri { v, adj, fixed })
        .collect();
    for (t, tri) in mesh.tris.iter().enumerate() {
        for v in tri.v {
            mesh.vert_tri[v as usize] = idx(t);
        }
    }
    for &(t, k) in dirty {
        mesh.push(t, usize::from(k));
    }
    mesh.legalize();
    let order: Vec<u32> = (0..idx(points.len())).collect();
    canonical(&mesh, &order, 0)
}

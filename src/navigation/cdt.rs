//! The constrained Delaunay triangulation kernel.

use crate::math::Vec2;

/// A triangulation of the convex hull of a point set, with constraint edges.
///
/// Triangle `t` is `tris[t]` (counter-clockwise); edge `k` runs from `tris[t][k]` to
/// `tris[t][(k + 1) % 3]`; `adj[t][k]` is the triangle across it
/// ([`NO_TRIANGLE`](super::NO_TRIANGLE) on the hull); `constrained[t][k]` says whether it is
/// (part of) a constraint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Triangulation {
    pub tris: Vec<[u32; 3]>,
    pub adj: Vec<[u32; 3]>,
    pub constrained: Vec<[bool; 3]>,
    /// Constraints that could not be inserted (they cross an earlier one), counted.
    pub dropped: u32,
}

/// Triangulates `points` (distinct) with the constraint segments `constraints` (index pairs).
pub(crate) fn triangulate(points: &[Vec2], constraints: &[[u32; 2]]) -> Triangulation {
    let _ = (points, constraints);
    Triangulation::default()
}

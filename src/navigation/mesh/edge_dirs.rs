//! The unit directions of the mesh's directed edges, derived lazily: the search shrinks every
//! portal it crosses by the radius along its edge ([`funnel::shrink`](super::super::funnel)),
//! and the normalisation (a square root and two divisions) was a seventh of a search's work.
//! Computed on the first search of a mesh from its vertices and triangles alone, bit for bit
//! what the search would compute itself, so it is never state: not hashed, not compared, not
//! snapshotted.

use super::NavMesh;
use crate::math::Vec2;
use std::sync::OnceLock;

/// Per directed edge `3 · t + k` (edge `k` of triangle `t`, from `v[k]` to `v[k + 1]`): the
/// unit vector from its end to its start, `(v[k] − v[k + 1]).normalize_or_zero()`. Filled on
/// first use.
#[derive(Clone, Default)]
pub(crate) struct EdgeDirs(OnceLock<Box<[Vec2]>>);

impl EdgeDirs {
    /// The directions of `mesh`'s edges (computed on the first call).
    pub(crate) fn of<'a>(&'a self, mesh: &NavMesh) -> &'a [Vec2] {
        self.0.get_or_init(|| {
            (0..mesh.tris.len() as u32)
                .flat_map(|t| (0..3).map(move |k| (t, k)))
                .map(|(t, k)| {
                    let (a, b) = mesh.edge(t, k);
                    (a - b).normalize_or_zero()
                })
                .collect()
        })
    }
}

/// Derived from the mesh: two meshes with equal vertices and triangles have equal directions,
/// computed or not.
impl PartialEq for EdgeDirs {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for EdgeDirs {}

impl std::fmt::Debug for EdgeDirs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.0.get().is_some() {
            "computed"
        } else {
            "not computed"
        };
        write!(f, "EdgeDirs({state})")
    }
}

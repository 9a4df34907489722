//! The unit directions of the mesh's directed edges, derived lazily: the search shrinks every
//! portal it crosses by the radius along its edge ([`funnel::shrink`](super::super::funnel)),
//! and the normalisation (a square root and two divisions) was a seventh of a search's work.
//! Each direction is computed the first time a search asks for it, from the mesh's vertices and
//! triangles alone, bit for bit what the search would compute itself, so it is never state: not
//! hashed, not compared, not snapshotted. Per edge, not per mesh: the first search on a new
//! mesh (after every obstacle change) pays only for the edges it crosses, never for the whole
//! mesh in one tick.

use super::NavMesh;
use crate::math::Vec2;
use std::sync::OnceLock;

/// Per directed edge `3 · t + k` (edge `k` of triangle `t`, from `v[k]` to `v[k + 1]`): the
/// unit vector from its end to its start, `(v[k] − v[k + 1]).normalize_or_zero()`. The table
/// is made on the first use, each entry filled on its own first use.
#[derive(Clone, Default)]
pub(crate) struct EdgeDirs(OnceLock<Box<[OnceLock<Vec2>]>>);

impl EdgeDirs {
    /// The direction of edge `k` of triangle `t` of `mesh` (computed on its first call).
    pub(crate) fn of(&self, mesh: &NavMesh, t: u32, k: usize) -> Vec2 {
        let table = self.0.get_or_init(|| {
            std::iter::repeat_with(OnceLock::new)
                .take(3 * mesh.tris.len())
                .collect()
        });
        *table[3 * t as usize + k].get_or_init(|| {
            let (a, b) = mesh.edge(t, k);
            (a - b).normalize_or_zero()
        })
    }

    /// How many directions are computed (tests).
    #[cfg(test)]
    pub(crate) fn computed(&self) -> usize {
        self.0
            .get()
            .map_or(0, |t| t.iter().filter(|d| d.get().is_some()).count())
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
        let computed = self
            .0
            .get()
            .map_or(0, |t| t.iter().filter(|d| d.get().is_some()).count());
        write!(f, "EdgeDirs({computed} computed)")
    }
}

//! Queries on the mesh: point location, walkable tests, nearest walkable point, raycast.

use super::NavMesh;
use crate::math::{Fx, Vec2};

/// The result of [`NavMesh::raycast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayHit {
    /// Whether a disc of the radius moves from `from` to `to` without touching a wall.
    pub clear: bool,
    /// Where the disc's centre stops (`to` when clear).
    pub hit: Vec2,
}

impl NavMesh {
    /// The triangle containing `p` (points on an edge go to a fixed side), or `None` outside
    /// the mesh.
    #[must_use]
    pub fn locate(&self, p: Vec2) -> Option<u32> {
        let _ = p;
        None
    }

    /// Whether a disc of radius `r` centred at `p` lies in walkable space.
    #[must_use]
    pub fn is_walkable(&self, p: Vec2, r: Fx) -> bool {
        let _ = (p, r);
        false
    }

    /// The walkable point for radius `r` nearest to `p` (`p` itself when walkable).
    #[must_use]
    pub fn nearest_walkable(&self, p: Vec2, r: Fx) -> Option<Vec2> {
        let _ = (p, r);
        None
    }

    /// Moves a disc of radius `r` from `from` towards `to`; stops at the first wall.
    #[must_use]
    pub fn raycast(&self, from: Vec2, to: Vec2, r: Fx) -> RayHit {
        let _ = (to, r);
        RayHit {
            clear: false,
            hit: from,
        }
    }
}

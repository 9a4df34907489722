//! Queries on the mesh: point location, walkable tests, nearest walkable point, raycast.

use super::NavMesh;
use crate::geom::{cmp_dist_point_segment, left_of};
use crate::math::{Fx, Vec2};
use std::cmp::Ordering;

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

impl NavMesh {
    /// The triangle containing `p`, by testing every triangle (the plain form of
    /// [`locate`](Self::locate), its oracle in tests): the first triangle, in index order, with
    /// `p` on or left of all three edges.
    #[must_use]
    pub fn locate_plain(&self, p: Vec2) -> Option<u32> {
        (0..self.tris.len() as u32).find(|&t| {
            let [a, b, c] = self.corners(t);
            left_of(a, b, p) >= 0 && left_of(b, c, p) >= 0 && left_of(c, a, p) >= 0
        })
    }

    /// Whether a disc of radius `r` at `p` is walkable, by testing every wall (the plain form of
    /// [`is_walkable`](Self::is_walkable)): `p` lies in a walkable triangle and every wall edge
    /// is at least `r` away (exact).
    #[must_use]
    pub fn is_walkable_plain(&self, p: Vec2, r: Fx) -> bool {
        let Some(t) = self.locate_plain(p) else {
            return false;
        };
        if !self.tris[t as usize].walkable {
            return false;
        }
        self.tris.iter().all(|tri| {
            (0..3).all(|k| {
                !tri.wall[k] || {
                    let a = self.verts[tri.v[k] as usize];
                    let b = self.verts[tri.v[(k + 1) % 3] as usize];
                    cmp_dist_point_segment(a, b, p, r) != Ordering::Less
                }
            })
        })
    }
}

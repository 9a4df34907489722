//! [`NavMesh`]: the triangles of the walkable space, their adjacency, walls and clearance
//! widths.

use crate::math::{Fx, Vec2};

/// "No triangle": the side of a triangle on the convex hull, or a failed lookup.
pub const NO_TRIANGLE: u32 = u32::MAX;

/// One triangle of the mesh, counter-clockwise.
///
/// Edge `k` runs from `v[k]` to `v[(k + 1) % 3]`; `adj[k]` is the triangle across it
/// ([`NO_TRIANGLE`] on the hull) and `wall[k]` says whether it is a constraint (an obstacle or
/// boundary edge, never crossed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavTriangle {
    /// Vertex indices into [`NavMesh::vertices`], counter-clockwise.
    pub v: [u32; 3],
    /// The triangle across edge `k`, or [`NO_TRIANGLE`].
    pub adj: [u32; 3],
    /// Whether edge `k` is a wall (a constraint edge).
    pub wall: [bool; 3],
    /// Whether the triangle is walkable (inside the boundary, outside every solid obstacle).
    pub walkable: bool,
    /// `width[k]`: the widest disc diameter that can cross the triangle between the two edges
    /// meeting at vertex `v[k]` (edges `k − 1` and `k`), rounded down.
    pub width: [Fx; 3],
}

/// A navigation mesh: a constrained Delaunay triangulation of the map, every triangle marked
/// walkable or blocked, with clearance widths for any radius.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NavMesh {
    pub(crate) verts: Vec<Vec2>,
    pub(crate) tris: Vec<NavTriangle>,
}

impl NavMesh {
    /// The mesh vertices.
    #[must_use]
    pub fn vertices(&self) -> &[Vec2] {
        &self.verts
    }

    /// The triangles.
    #[must_use]
    pub fn triangles(&self) -> &[NavTriangle] {
        &self.tris
    }

    /// The corners of triangle `t`.
    #[must_use]
    pub fn corners(&self, t: u32) -> [Vec2; 3] {
        let v = self.tris[t as usize].v;
        v.map(|i| self.verts[i as usize])
    }

    /// A mesh from explicit triangles (counter-clockwise index triples), for tests and hand-made
    /// maps: adjacency is found by shared edges, an edge listed in `walls` (either direction)
    /// is a wall, `walkable[t]` marks triangle `t`, widths are computed.
    ///
    /// # Panics
    /// On an index out of range or `walkable.len() != tris.len()` (test input).
    #[must_use]
    pub fn from_triangles(
        verts: Vec<Vec2>,
        tris: &[[u32; 3]],
        walls: &[[u32; 2]],
        walkable: &[bool],
    ) -> Self {
        assert_eq!(tris.len(), walkable.len());
        let mut edges = std::collections::BTreeMap::new();
        for (t, v) in tris.iter().enumerate() {
            for k in 0..3 {
                edges.insert((v[k], v[(k + 1) % 3]), (t as u32, k));
            }
        }
        let is_wall = |a: u32, b: u32| walls.iter().any(|w| *w == [a, b] || *w == [b, a]);
        let out = tris
            .iter()
            .zip(walkable)
            .map(|(v, &walkable)| {
                let mut adj = [NO_TRIANGLE; 3];
                let mut wall = [false; 3];
                for k in 0..3 {
                    let (a, b) = (v[k], v[(k + 1) % 3]);
                    adj[k] = edges.get(&(b, a)).map_or(NO_TRIANGLE, |&(t, _)| t);
                    wall[k] = is_wall(a, b);
                }
                NavTriangle {
                    v: *v,
                    adj,
                    wall,
                    walkable,
                    width: [Fx::ZERO; 3],
                }
            })
            .collect();
        let mut mesh = Self { verts, tris: out };
        super::widths::compute_all(&mut mesh);
        mesh
    }
}

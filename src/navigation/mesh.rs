//! [`NavMesh`]: the triangles of the walkable space, their adjacency, walls and clearance
//! widths; its canonical digest; the seed grid that starts point location and the edge
//! directions the search shrinks portals along (both derived, never state).

use crate::math::{Fx, Vec2};
use edge_dirs::EdgeDirs;
use seeds::SeedGrid;

mod edge_dirs;
mod seeds;

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
    /// meeting at vertex `v[k]` (edges `k − 1` and `k`), rounded down: a lower bound (Demyen &
    /// Buro 2006; the definition is in `navigation/widths.rs`). Zero on blocked triangles.
    pub width: [Fx; 3],
}

/// A navigation mesh: a constrained Delaunay triangulation of the map, every triangle marked
/// walkable or blocked, with clearance widths for any radius.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NavMesh {
    pub(crate) verts: Vec<Vec2>,
    pub(crate) tris: Vec<NavTriangle>,
    /// Where point location starts its walk (derived from `verts` and `tris`, never decides a
    /// result).
    pub(crate) seeds: SeedGrid,
    /// The unit directions of the directed edges (derived on the first search, never decides
    /// anything the search would not compute itself).
    pub(crate) edge_dirs: EdgeDirs,
    /// Constraint pieces the triangulation could not insert (they cross another piece after
    /// rounding); see [`NavMesh::dropped_pieces`].
    pub(crate) dropped: u32,
    /// What the mesh was built from (for the local rebuild); empty for a hand-made mesh.
    pub(crate) source: super::build::Source,
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
        Self::assemble(verts, out, 0)
    }

    /// Finishes a mesh from its vertices and triangles (adjacency, walls and classification
    /// set): computes the widths and the seed grid.
    pub(crate) fn assemble(verts: Vec<Vec2>, tris: Vec<NavTriangle>, dropped: u32) -> Self {
        Self::assemble_with(verts, tris, dropped, super::widths::compute_all)
    }

    /// [`assemble`](Self::assemble) with the widths set by `widths` (the local rebuild copies
    /// the ones its change cannot reach).
    pub(crate) fn assemble_with(
        verts: Vec<Vec2>,
        tris: Vec<NavTriangle>,
        dropped: u32,
        widths: impl FnOnce(&mut Self),
    ) -> Self {
        let mut mesh = Self {
            verts,
            tris,
            seeds: SeedGrid::default(),
            edge_dirs: EdgeDirs::default(),
            dropped,
            source: super::build::Source::default(),
        };
        widths(&mut mesh);
        mesh.seeds = SeedGrid::new(&mesh);
        mesh
    }

    /// The unit direction from the end of edge `k` of triangle `t` to its start,
    /// `(v[k] − v[k + 1]).normalize_or_zero()` (derived once per mesh and edge, on first use).
    #[inline]
    pub(crate) fn edge_dir_back(&self, t: u32, k: usize) -> Vec2 {
        self.edge_dirs.of(self, t, k)
    }

    /// Constraint pieces the builder had to leave out: pieces that cross another piece only
    /// after crossing points were rounded to the grid (ulp-scale slivers, plan §1.2). Their
    /// area is still classified by the obstacles' exact shapes. Zero outside adversarial input.
    #[must_use]
    pub fn dropped_pieces(&self) -> u32 {
        self.dropped
    }

    /// Whether the mesh has no triangles (no obstacles and no boundary).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tris.is_empty()
    }

    /// The canonical digest of the mesh: xxh3 (64-bit) of its triangle count, then of every
    /// triangle in canonical order with, for each, the raw bits of its three corners, whether
    /// it is walkable, its three wall flags and its three widths. Each triangle is first
    /// rotated to start at its lowest `(x, y)` corner (walls and widths rotate with it), and the
    /// triangles are sorted by their rotated corners, so the digest depends on the geometry
    /// alone, never on vertex or triangle indices (or on anything the seed grid holds).
    #[must_use]
    pub fn digest(&self) -> u64 {
        type Rec = ([(i64, i64); 3], bool, [bool; 3], [Fx; 3]);
        let mut recs: Vec<Rec> = (0..self.tris.len())
            .map(|t| {
                let tri = &self.tris[t];
                let c = self
                    .corners(t as u32)
                    .map(|p| (p.x.to_bits(), p.y.to_bits()));
                let r = (0..3).min_by_key(|&k| c[k]).unwrap_or(0);
                let rot = |k: usize| (k + r) % 3;
                (
                    [c[rot(0)], c[rot(1)], c[rot(2)]],
                    tri.walkable,
                    [tri.wall[rot(0)], tri.wall[rot(1)], tri.wall[rot(2)]],
                    [tri.width[rot(0)], tri.width[rot(1)], tri.width[rot(2)]],
                )
            })
            .collect();
        recs.sort_unstable_by_key(|r| r.0);
        let mut bytes = Vec::with_capacity(8 + recs.len() * 76);
        bytes.extend_from_slice(&(recs.len() as u64).to_le_bytes());
        for (c, walkable, wall, width) in &recs {
            for p in c {
                bytes.extend_from_slice(&p.0.to_le_bytes());
                bytes.extend_from_slice(&p.1.to_le_bytes());
            }
            bytes.push(u8::from(*walkable));
            bytes.extend(wall.iter().map(|&w| u8::from(w)));
            for w in width {
                bytes.extend_from_slice(&w.to_bits().to_le_bytes());
            }
        }
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }
}

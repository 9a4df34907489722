//! The navigation layer of `render`: the simulator's navigation mesh (walkable triangles
//! light, blocked ones dark, walls bold) and each navigating agent's remaining planned path,
//! sampled with the positions. Read through the public API (`Simulator::nav_mesh`,
//! `agent_order`, `nav_status`); floats only to place pixels.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::Simulator;
use lockstep_orca::navigation::NavMesh;
use std::collections::BTreeMap;

/// A point in picture coordinates (world units, `f64`).
pub type Pt = (f64, f64);

/// The mesh as drawn: triangles with their class, and the wall edges.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshPicture {
    /// Each triangle's corners, walkable or not.
    pub triangles: Vec<([Pt; 3], bool)>,
    /// Each wall edge once (obstacle and boundary edges).
    pub walls: Vec<(Pt, Pt)>,
}

impl MeshPicture {
    /// The picture of `mesh`. A wall shared by two triangles is listed once (from the
    /// triangle with the lower index).
    pub fn of(mesh: &NavMesh) -> Self {
        let verts: Vec<Pt> = mesh.vertices().iter().map(|v| v.to_f64()).collect();
        let mut out = Self::default();
        for (t, tri) in mesh.triangles().iter().enumerate() {
            let c = tri.v.map(|i| verts[i as usize]);
            out.triangles.push((c, tri.walkable));
            for k in 0..3 {
                let across = tri.adj[k];
                let first =
                    across == lockstep_orca::navigation::NO_TRIANGLE || (across as usize) > t;
                if tri.wall[k] && first {
                    out.walls.push((c[k], c[(k + 1) % 3]));
                }
            }
        }
        out
    }
}

/// The navigation layer of a run: the mesh each time it changed, and the planned paths at
/// each sampled tick.
#[derive(Debug, Default)]
pub struct NavLayer {
    /// `(tick, mesh)`: the mesh from that tick on (ascending tick).
    pub meshes: Vec<(u64, MeshPicture)>,
    /// Per sampled tick: `(agent id, remaining path from its position)`.
    pub paths: BTreeMap<u64, Vec<(u32, Vec<Pt>)>>,
}

impl NavLayer {
    /// Samples `sim` at its tick: the mesh (kept when it differs from the last one kept) and
    /// each navigating agent's remaining path: its position, then its order's points from the
    /// current progress on. Returns `false` when the simulator has no navigation.
    pub fn observe(&mut self, sim: &Simulator) -> bool {
        let Some(mesh) = sim.nav_mesh() else {
            return false;
        };
        let tick = sim.tick();
        let picture = MeshPicture::of(mesh);
        if self.meshes.last().is_none_or(|(_, m)| *m != picture) {
            self.meshes.push((tick, picture));
        }
        let mut paths = Vec::new();
        for &id in sim.agent_ids() {
            if !matches!(sim.nav_status(id), Ok(Some(_))) {
                continue;
            }
            let (Ok(p), Ok(Some(order))) = (sim.agent_position(id), sim.agent_order(id)) else {
                continue;
            };
            let mut line = vec![p.to_f64()];
            line.extend(order.path()[order.progress()..].iter().map(|q| q.to_f64()));
            paths.push((id.0, line));
        }
        self.paths.insert(tick, paths);
        true
    }

    /// The mesh shown at `tick`: the last one kept at or before it.
    pub fn mesh_at(&self, tick: u64) -> Option<&MeshPicture> {
        self.meshes
            .iter()
            .rev()
            .find(|(t, _)| *t <= tick)
            .or(self.meshes.first())
            .map(|(_, m)| m)
    }

    /// Every corner of a walkable triangle and every wall end, of every mesh (to size the
    /// picture: the blocked triangles around the map's boundary are left out).
    pub fn points(&self) -> impl Iterator<Item = Pt> + '_ {
        self.meshes.iter().flat_map(|(_, m)| {
            let walkable = m.triangles.iter().filter(|t| t.1).flat_map(|(c, _)| *c);
            let walls = m.walls.iter().flat_map(|&(a, b)| [a, b]);
            walkable.chain(walls)
        })
    }
}

//! Measurements of an obstacle scene, after every step (floats: measurement only, never fed
//! back): the smallest pair clearance, the smallest signed obstacle clearance and the number
//! of agent moves whose centre path crossed an obstacle edge. Built from the public
//! `Simulator` API only.
//!
//! Used by the `blocks` and `roadmap` examples, and by the obstacle-scene tests
//! (`tests/conformance`), which assert on these figures.
#![allow(clippy::float_arithmetic, dead_code)]

use lockstep_orca::{AgentId, ObstacleShape, Simulator, Vec2};

/// What a run measured.
#[derive(Clone, Copy, Debug)]
pub struct Report {
    /// Steps taken.
    pub ticks: u64,
    /// Agents within `goal_radius` of their goal at the end.
    pub reached: usize,
    /// Number of agents.
    pub agents: usize,
    /// Smallest `|pi − pj| − ri − rj` seen after any step.
    pub min_agent_clearance: f64,
    /// Smallest signed obstacle clearance seen after any step (distance from the centre to the
    /// nearest edge minus the radius; negative distance when the centre is inside a solid or
    /// outside a room).
    pub min_obstacle_clearance: f64,
    /// Number of agent moves whose centre path crossed an obstacle edge.
    pub crossings: usize,
}

/// A point in `f64` (measurement and scene set-up only).
pub type Pt = (f64, f64);

fn to64(p: Vec2) -> (f64, f64) {
    p.to_f64()
}

type Outlines = (Vec<(Pt, Pt)>, Vec<Vec<Pt>>, Vec<Vec<Pt>>);

/// All obstacle edges (directed, as given), the solid polygons and the rooms.
fn edges(sim: &Simulator) -> Outlines {
    let mut e = Vec::new();
    let mut solids = Vec::new();
    let mut rooms = Vec::new();
    for (_, shape) in sim.obstacles().iter() {
        let pts: Vec<(f64, f64)> = shape.vertices().iter().map(|p| to64(*p)).collect();
        match shape {
            ObstacleShape::Polygon(_) => {
                for i in 0..pts.len() {
                    e.push((pts[i], pts[(i + 1) % pts.len()]));
                }
                let area: f64 = (0..pts.len())
                    .map(|i| {
                        let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
                        a.0 * b.1 - a.1 * b.0
                    })
                    .sum();
                if area > 0.0 {
                    solids.push(pts);
                } else {
                    rooms.push(pts);
                }
            }
            ObstacleShape::Polyline(_) => {
                for w in pts.windows(2) {
                    e.push((w[0], w[1]));
                }
            }
        }
    }
    (e, solids, rooms)
}

fn seg_dist(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (ex, ey) = (b.0 - a.0, b.1 - a.1);
    let (dx, dy) = (p.0 - a.0, p.1 - a.1);
    let s = ((dx * ex + dy * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
    ((dx - s * ex).powi(2) + (dy - s * ey).powi(2)).sqrt()
}

fn inside(p: (f64, f64), poly: &[(f64, f64)]) -> bool {
    let mut c = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < a.0 + (p.1 - a.1) / (b.1 - a.1) * (b.0 - a.0) {
            c = !c;
        }
    }
    c
}

fn cross(o: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// Whether the move `p → q` properly crosses the segment `a b`.
fn crosses(p: (f64, f64), q: (f64, f64), a: (f64, f64), b: (f64, f64)) -> bool {
    let d1 = cross(a, b, p);
    let d2 = cross(a, b, q);
    let d3 = cross(p, q, a);
    let d4 = cross(p, q, b);
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Measures clearances and crossings while stepping.
pub struct Monitor {
    edges: Vec<((f64, f64), (f64, f64))>,
    solids: Vec<Vec<(f64, f64)>>,
    rooms: Vec<Vec<(f64, f64)>>,
    prev: Vec<(AgentId, (f64, f64))>,
    pub report: Report,
}

impl Monitor {
    pub fn new(sim: &Simulator) -> Self {
        let (edges, solids, rooms) = edges(sim);
        let mut m = Self {
            edges,
            solids,
            rooms,
            prev: Vec::new(),
            report: Report {
                ticks: 0,
                reached: 0,
                agents: sim.num_agents(),
                min_agent_clearance: f64::INFINITY,
                min_obstacle_clearance: f64::INFINITY,
                crossings: 0,
            },
        };
        m.observe(sim);
        m
    }

    /// Signed obstacle clearance of a disc.
    pub fn obstacle_clearance(&self, p: (f64, f64), r: f64) -> f64 {
        let d = self
            .edges
            .iter()
            .map(|&(a, b)| seg_dist(p, a, b))
            .fold(f64::INFINITY, f64::min);
        let buried =
            self.solids.iter().any(|s| inside(p, s)) || self.rooms.iter().any(|s| !inside(p, s));
        if buried { -d - r } else { d - r }
    }

    /// Records the current state (call after every step).
    pub fn observe(&mut self, sim: &Simulator) {
        let ids = sim.agent_ids().to_vec();
        let pts: Vec<(AgentId, (f64, f64), f64)> = ids
            .iter()
            .map(|&id| {
                (
                    id,
                    to64(sim.agent_position(id).unwrap()),
                    sim.agent_params(id).unwrap().radius.to_num::<f64>(),
                )
            })
            .collect();
        for (i, &(_, p, r)) in pts.iter().enumerate() {
            let c = self.obstacle_clearance(p, r);
            self.report.min_obstacle_clearance = self.report.min_obstacle_clearance.min(c);
            for &(_, q, rq) in &pts[i + 1..] {
                let d = ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt() - r - rq;
                self.report.min_agent_clearance = self.report.min_agent_clearance.min(d);
            }
        }
        for &(id, p, _) in &pts {
            if let Ok(k) = self.prev.binary_search_by_key(&id, |(i, _)| *i) {
                let q = self.prev[k].1;
                if self.edges.iter().any(|&(a, b)| crosses(q, p, a, b)) {
                    self.report.crossings += 1;
                }
            }
        }
        self.prev = pts.iter().map(|&(id, p, _)| (id, p)).collect();
        self.report.ticks = sim.tick();
        self.report.agents = ids.len();
    }
}

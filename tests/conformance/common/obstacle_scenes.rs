//! Obstacle scenes shared by the obstacle tests and examples: RVO2's Blocks and Roadmap, and
//! the wall-holding scenes, built through the public `Simulator` API, plus a monitor that
//! measures clearances and wall crossings after every step (floats: measurement only).
#![allow(clippy::float_arithmetic, dead_code)]

use lockstep_orca::math::unit_from_turns;
use lockstep_orca::orca::lines::splitmix64;
use lockstep_orca::{AgentId, AgentParams, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2};

/// A scene: the simulator, one goal per agent (by id order), and how close counts as reached.
pub struct Scene {
    /// The simulator.
    pub sim: Simulator,
    /// Goal of each agent, indexed like `sim.agent_ids()` at creation.
    pub goals: Vec<Vec2>,
    /// `|p − goal| <= goal_radius` counts as reached.
    pub goal_radius: f64,
    /// Seed of the deterministic pref-velocity perturbation.
    pub seed: u64,
}

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

pub fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}

fn to64(p: Vec2) -> (f64, f64) {
    p.to_f64()
}

/// RVO2's Blocks defaults: neighbor_dist 15, max_neighbors 10, horizons 5 and 5, radius 2,
/// max speed 2; time step 0.25.
pub fn blocks_params() -> SimulatorParams {
    SimulatorParams {
        time_step: Fx::lit("0.25"),
        agent_defaults: AgentParams {
            neighbor_dist: Fx::from_num(15),
            max_neighbors: 10,
            time_horizon: Fx::from_num(5),
            time_horizon_obst: Fx::from_num(5),
            radius: Fx::from_num(2),
            max_speed: Fx::from_num(2),
        },
    }
}

/// The four blocks of RVO2's Blocks example, in its vertex order (counter-clockwise, solid).
pub const BLOCKS: [[(f64, f64); 4]; 4] = [
    [(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)],
    [(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)],
    [(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)],
    [
        (-10.0, -40.0),
        (-10.0, -10.0),
        (-40.0, -10.0),
        (-40.0, -40.0),
    ],
];

/// A point in `f64` (measurement and scene set-up only).
pub type Pt = (f64, f64);

/// Adds the four [`BLOCKS`].
pub fn add_blocks(sim: &mut Simulator) {
    for b in BLOCKS {
        let verts = b.iter().map(|&(x, y)| v(x, y)).collect();
        sim.add_obstacle(ObstacleShape::Polygon(verts)).unwrap();
    }
}

/// RVO2's Blocks agents as (start, goal), in its `i`/`j` loop order: four 5×5 groups, each
/// crossing to the opposite corner.
pub fn blocks_agents() -> Vec<(Pt, Pt)> {
    let mut out = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            let (fi, fj) = (f64::from(i) * 10.0, f64::from(j) * 10.0);
            out.extend([
                ((55.0 + fi, 55.0 + fj), (-75.0, -75.0)),
                ((-55.0 - fi, 55.0 + fj), (75.0, -75.0)),
                ((55.0 + fi, -55.0 - fj), (-75.0, 75.0)),
                ((-55.0 - fi, -55.0 - fj), (75.0, 75.0)),
            ]);
        }
    }
    out
}

/// RVO2's Blocks: 100 agents in four 5×5 groups, each crossing to the opposite corner.
pub fn blocks(seed: u64) -> Scene {
    let mut sim = Simulator::new(blocks_params()).unwrap();
    let mut goals = Vec::new();
    for ((px, py), (gx, gy)) in blocks_agents() {
        sim.add_agent(v(px, py)).unwrap();
        goals.push(v(gx, gy));
    }
    add_blocks(&mut sim);
    sim.process_obstacles();
    Scene {
        sim,
        goals,
        goal_radius: 20.0,
        seed,
    }
}

/// RVO2's perturbation "to avoid deadlocks due to perfect symmetry" (angle uniform, length
/// below 1e-4), with `rand()` replaced by SplitMix64 of (seed, tick, agent).
pub fn perturbation(seed: u64, tick: u64, agent: AgentId) -> Vec2 {
    let r = splitmix64(seed ^ splitmix64(tick ^ (u64::from(agent.0) << 40)));
    let turns = Fx::from_bits((r >> 32) as i64);
    let len = Fx::from_bits(((r & 0xFFFF_FFFF) as i64 * 429_497) >> 32); // < 1e-4 (429,497 ulps)
    unit_from_turns(turns) * len
}

/// Unit vector towards `target` (or the vector itself when shorter than 1), RVO2's examples.
pub fn towards(from: Vec2, target: Vec2) -> Vec2 {
    let g = target - from;
    if g.length_squared_wide() > lockstep_orca::math::wide_mul(Fx::ONE, Fx::ONE) {
        g.normalize_or_zero()
    } else {
        g
    }
}

/// Goal seeking with the perturbation (Blocks' `setPreferredVelocities`).
pub fn set_goal_prefs(scene: &mut Scene) {
    let tick = scene.sim.tick();
    let ids: Vec<AgentId> = scene.sim.agent_ids().to_vec();
    for (i, id) in ids.into_iter().enumerate() {
        let p = scene.sim.agent_position(id).unwrap();
        let pref = towards(p, scene.goals[i]) + perturbation(scene.seed, tick, id);
        scene.sim.set_agent_pref_velocity(id, pref).unwrap();
    }
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

/// Agents of `scene` within their goal radius.
pub fn reached(scene: &Scene) -> usize {
    scene
        .sim
        .agent_ids()
        .iter()
        .enumerate()
        .filter(|&(i, &id)| {
            let (x, y) = to64(scene.sim.agent_position(id).unwrap() - scene.goals[i]);
            (x * x + y * y).sqrt() <= scene.goal_radius
        })
        .count()
}

/// Steps `scene` until every agent reached its goal or `max_ticks`, setting preferred
/// velocities with `prefs` before each step.
pub fn run(scene: &mut Scene, max_ticks: u64, mut prefs: impl FnMut(&mut Scene)) -> Report {
    let mut mon = Monitor::new(&scene.sim);
    while scene.sim.tick() < max_ticks && reached(scene) < scene.goals.len() {
        prefs(scene);
        scene.sim.step().unwrap();
        mon.observe(&scene.sim);
    }
    let mut r = mon.report;
    r.reached = reached(scene);
    r
}

// ---------------------------------------------------------------------------- Roadmap

/// RVO2's Roadmap: the Blocks scene plus a visibility roadmap.
pub struct Roadmap {
    /// Vertex positions; the first four are the goals.
    pub vertices: Vec<Vec2>,
    /// `dist_to_goal[v][g]`: shortest roadmap distance from vertex `v` to goal vertex `g`.
    pub dist_to_goal: Vec<[f64; 4]>,
    /// Goal vertex of each agent.
    pub goal_of: Vec<usize>,
}

/// Builds the roadmap (visibility graph with the agents' radius, Dijkstra from each goal).
pub fn roadmap(seed: u64) -> (Scene, Roadmap) {
    let mut scene = blocks(seed);
    let mut vertices = vec![
        v(-75.0, -75.0),
        v(75.0, -75.0),
        v(-75.0, 75.0),
        v(75.0, 75.0),
    ];
    for &x in &[-42.0, -8.0, 8.0, 42.0] {
        for &y in &[-42.0, -8.0, 8.0, 42.0] {
            vertices.push(v(x, y));
        }
    }
    let radius = scene.sim.agent_defaults().radius;
    let n = vertices.len();
    let mut adj = vec![Vec::new(); n];
    for i in 0..n {
        for j in 0..n {
            if i != j && scene.sim.query_visibility(vertices[i], vertices[j], radius) {
                let (dx, dy) = to64(vertices[j] - vertices[i]);
                adj[i].push((j, (dx * dx + dy * dy).sqrt()));
            }
        }
    }
    let mut dist_to_goal = vec![[f64::INFINITY; 4]; n];
    for g in 0..4 {
        let mut dist = vec![f64::INFINITY; n];
        let mut done = vec![false; n];
        dist[g] = 0.0;
        for _ in 0..n {
            let Some(u) = (0..n)
                .filter(|&u| !done[u] && dist[u].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
            else {
                break;
            };
            done[u] = true;
            for &(w, c) in &adj[u] {
                if dist[u] + c < dist[w] {
                    dist[w] = dist[u] + c;
                }
            }
        }
        for (k, d) in dist.iter().enumerate() {
            dist_to_goal[k][g] = *d;
        }
    }
    // Blocks' goals are the four corners: map each agent's goal to its vertex.
    let goal_of = scene
        .goals
        .iter()
        .map(|g| vertices[..4].iter().position(|c| c == g).unwrap())
        .collect();
    (
        scene,
        Roadmap {
            vertices,
            dist_to_goal,
            goal_of,
        },
    )
}

/// Roadmap preferred velocities: head for the visible roadmap vertex minimising the distance to
/// it plus its distance to the goal. If none is visible with the full radius (an agent pressed
/// against a wall), visibility is retried with half the radius, then with none.
pub fn set_roadmap_prefs(scene: &mut Scene, map: &Roadmap) {
    let tick = scene.sim.tick();
    let ids: Vec<AgentId> = scene.sim.agent_ids().to_vec();
    for (i, id) in ids.into_iter().enumerate() {
        let p = scene.sim.agent_position(id).unwrap();
        let r = scene.sim.agent_params(id).unwrap().radius;
        let goal = map.goal_of[i];
        let mut best: Option<(f64, usize)> = None;
        for radius in [r, r / Fx::from_num(2), Fx::ZERO] {
            for (k, &vert) in map.vertices.iter().enumerate() {
                let (dx, dy) = to64(vert - p);
                let cost = (dx * dx + dy * dy).sqrt() + map.dist_to_goal[k][goal];
                if best.is_none_or(|(c, _)| cost < c) && scene.sim.query_visibility(p, vert, radius)
                {
                    best = Some((cost, k));
                }
            }
            if best.is_some() {
                break;
            }
        }
        let pref = match best {
            Some((_, k)) => towards(p, map.vertices[k]) + perturbation(scene.seed, tick, id),
            None => Vec2::ZERO,
        };
        scene.sim.set_agent_pref_velocity(id, pref).unwrap();
    }
}

// ---------------------------------------------------------------------------- wall holding

/// Small agents (radius 0.5, max speed 2, horizons 2, 10 neighbours within 5), time step 0.25.
pub fn crowd_params() -> SimulatorParams {
    SimulatorParams {
        time_step: Fx::lit("0.25"),
        agent_defaults: AgentParams {
            neighbor_dist: Fx::from_num(5),
            max_neighbors: 10,
            time_horizon: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(2),
            radius: Fx::lit("0.5"),
            max_speed: Fx::from_num(2),
        },
    }
}

/// Preferred velocity of full speed (2) towards `target`.
pub fn full_speed(from: Vec2, target: Vec2) -> Vec2 {
    (target - from).normalize_or_zero() * Fx::from_num(2)
}

/// A clockwise room `[0, 20]²` with 64 agents in an 8×8 grid, all pushed at full speed into
/// the corner (20, 20).
pub fn corner_crush() -> Scene {
    let mut sim = Simulator::new(crowd_params()).unwrap();
    let room = vec![v(0.0, 0.0), v(0.0, 20.0), v(20.0, 20.0), v(20.0, 0.0)];
    sim.add_obstacle(ObstacleShape::Polygon(room)).unwrap();
    let mut goals = Vec::new();
    for i in 0..8 {
        for j in 0..8 {
            sim.add_agent(v(3.0 + 1.5 * f64::from(i), 3.0 + 1.5 * f64::from(j)))
                .unwrap();
            goals.push(v(20.0, 20.0));
        }
    }
    Scene {
        sim,
        goals,
        goal_radius: 0.0,
        seed: 7,
    }
}

/// Sets full-speed prefs towards each agent's goal.
pub fn push_to_goals(scene: &mut Scene) {
    let ids: Vec<AgentId> = scene.sim.agent_ids().to_vec();
    for (i, id) in ids.into_iter().enumerate() {
        let p = scene.sim.agent_position(id).unwrap();
        let pref = full_speed(p, scene.goals[i]) + perturbation(scene.seed, scene.sim.tick(), id);
        scene.sim.set_agent_pref_velocity(id, pref).unwrap();
    }
}

/// A clockwise room `[-10, 10] × [-5, 5]` split by a wall at `x = 0` (two polylines) with a
/// door of width 1.2 (agents have diameter 1); 10 agents on each side cross to the other.
pub fn door_counterflow() -> Scene {
    let mut sim = Simulator::new(crowd_params()).unwrap();
    let room = vec![v(-10.0, -5.0), v(-10.0, 5.0), v(10.0, 5.0), v(10.0, -5.0)];
    sim.add_obstacle(ObstacleShape::Polygon(room)).unwrap();
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(0.0, -5.0), v(0.0, -0.6)]))
        .unwrap();
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(0.0, 0.6), v(0.0, 5.0)]))
        .unwrap();
    let mut goals = Vec::new();
    for k in 0..10 {
        let (x, y) = (3.0 + 1.5 * f64::from(k % 4), -3.0 + 2.0 * f64::from(k / 4));
        sim.add_agent(v(-x, y)).unwrap();
        goals.push(v(x + 2.0, y));
        sim.add_agent(v(x, y)).unwrap();
        goals.push(v(-x - 2.0, y));
    }
    Scene {
        sim,
        goals,
        goal_radius: 0.5,
        seed: 11,
    }
}

/// Door prefs: agents still on their starting side head for the door, then for their goal.
pub fn door_prefs(scene: &mut Scene) {
    let ids: Vec<AgentId> = scene.sim.agent_ids().to_vec();
    for (i, id) in ids.into_iter().enumerate() {
        let p = scene.sim.agent_position(id).unwrap();
        let g = scene.goals[i];
        let wrong_side = (p.x > Fx::ZERO) != (g.x > Fx::ZERO);
        let target = if wrong_side {
            // Aim at a point just past the door on the own side, then through it.
            let side = if p.x > Fx::ZERO { Fx::ONE } else { -Fx::ONE };
            if (p.x * side) > Fx::lit("0.8") || p.y.abs() > Fx::lit("0.3") {
                Vec2::new(side * Fx::lit("0.7"), Fx::ZERO)
            } else {
                Vec2::new(-side * Fx::from_num(2), Fx::ZERO)
            }
        } else {
            g
        };
        let pref =
            towards(p, target) * Fx::from_num(2) + perturbation(scene.seed, scene.sim.tick(), id);
        scene.sim.set_agent_pref_velocity(id, pref).unwrap();
    }
}

/// A corridor 40 long and 3 wide (two polyline walls) entered from both ends: every 6 ticks an
/// agent is added at each end (if the entry is free) until 20 per side; each walks to beyond
/// the far end.
pub struct Corridor {
    pub scene: Scene,
    pub spawned: [u32; 2],
}

pub fn corridor() -> Corridor {
    let mut sim = Simulator::new(crowd_params()).unwrap();
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(0.0, 0.0), v(40.0, 0.0)]))
        .unwrap();
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(0.0, 3.0), v(40.0, 3.0)]))
        .unwrap();
    Corridor {
        scene: Scene {
            sim,
            goals: Vec::new(),
            goal_radius: 1.0,
            seed: 13,
        },
        spawned: [0, 0],
    }
}

impl Corridor {
    /// Spawns (on schedule) and sets prefs; call before each step.
    pub fn prefs(&mut self) {
        let s = &mut self.scene;
        if s.sim.tick().is_multiple_of(6) {
            for (side, (x, goal_x)) in [(-1.0, 46.0), (41.0, -6.0)].into_iter().enumerate() {
                let y = 1.5
                    + if self.spawned[side].is_multiple_of(2) {
                        0.4
                    } else {
                        -0.4
                    };
                let at = v(x, y);
                let free = s.sim.agent_ids().iter().all(|&id| {
                    let (dx, dy) = (s.sim.agent_position(id).unwrap() - at).to_f64();
                    dx * dx + dy * dy > 1.3 * 1.3
                });
                if self.spawned[side] < 20 && free {
                    s.sim.add_agent(at).unwrap();
                    s.goals.push(v(goal_x, 1.5));
                    self.spawned[side] += 1;
                }
            }
        }
        let ids: Vec<AgentId> = s.sim.agent_ids().to_vec();
        for (i, id) in ids.into_iter().enumerate() {
            let p = s.sim.agent_position(id).unwrap();
            let pref =
                towards(p, s.goals[i]) * Fx::from_num(2) + perturbation(s.seed, s.sim.tick(), id);
            s.sim.set_agent_pref_velocity(id, pref).unwrap();
        }
    }
}

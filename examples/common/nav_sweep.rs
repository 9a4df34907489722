//! The navigation sweep's scenes (the `nav_sweep` example, and its short run in the tests):
//! random navigation scenes, each measured for how well its units get where they are sent.
//! See `examples/nav_sweep.rs`. Measurement is in `f64` (never fed back).
#![allow(clippy::float_arithmetic, dead_code)]

#[path = "monitor.rs"]
mod monitor;

#[path = "scene_kit.rs"]
mod scene_kit;

use lockstep_orca::navigation::{NavParams, PathStatus};
use lockstep_orca::orders::OrderStatus;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2, splitmix64,
};
use monitor::Monitor;
use scene_kit::{Rng, block, fx};
use std::collections::BTreeMap;

/// The units: the navigation scenes' (ten neighbours within 10, two seconds of look-ahead,
/// top speed 1.5), of radius `radius`.
fn unit(radius: Fx) -> AgentParams {
    AgentParams {
        neighbor_dist: Fx::from_num(10),
        max_neighbors: 10,
        time_horizon: Fx::from_num(2),
        time_horizon_obst: Fx::from_num(2),
        radius,
        max_speed: fx(3, 2),
        ..AgentParams::default()
    }
}

/// The obstacles of a scene of `kind` on a square of half side `half`: 0 open ground with 30
/// buildings (streets at least 3 wide), 1 a wall across the middle with one to three doors
/// (1.3 to 3 wide) and a dozen buildings, 2 rooms (a grid of walls with openings 1.3 to 3
/// wide), 3 dense ground (90 small buildings, streets at least 2 wide).
fn obstacles(rng: &mut Rng, kind: u64, half: i32) -> Vec<ObstacleShape> {
    let mut out = Vec::new();
    let i = Fx::from_num;
    match kind {
        // Open ground with scattered buildings (some dense).
        0 | 3 => {
            let n = if kind == 0 { 30 } else { 90 };
            let (lo, hi) = if kind == 0 { (2, 9) } else { (2, 5) };
            let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
            let gap = if kind == 0 { 3 } else { 2 };
            for _ in 0..n * 4 {
                if placed.len() >= n {
                    break;
                }
                let (w, h) = (rng.range(lo, hi), rng.range(lo, hi));
                let (x, y) = (
                    rng.range(-half + 2, half - 2 - w),
                    rng.range(-half + 2, half - 2 - h),
                );
                if placed.iter().any(|&(a, b, c, d)| {
                    x < c + gap && a < x + w + gap && y < d + gap && b < y + h + gap
                }) {
                    continue;
                }
                placed.push((x, y, x + w, y + h));
                out.push(block(i(x), i(y), i(x + w), i(y + h)));
            }
        }
        // A wall across the middle with doors of random widths, and buildings.
        1 => {
            let doors = 1 + rng.below(3) as i32;
            let widths = [26, 28, 32, 40, 60];
            let mut y0 = -half * 20;
            for k in 0..doors {
                let centre = -half * 20 + (k + 1) * 2 * half * 20 / (doors + 1);
                let w = widths[rng.below(widths.len() as u64) as usize];
                out.push(block(
                    fx(-1, 2),
                    fx(y0, 20),
                    fx(1, 2),
                    fx(centre - w / 2, 20),
                ));
                y0 = centre + w / 2;
            }
            out.push(block(fx(-1, 2), fx(y0, 20), fx(1, 2), i(half)));
            for _ in 0..12 {
                let (w, h) = (rng.range(2, 6), rng.range(2, 6));
                let side = if rng.below(2) == 0 { -1 } else { 1 };
                let x = side * rng.range(4, half - 2 - w) - if side < 0 { w } else { 0 };
                let y = rng.range(-half + 2, half - 2 - h);
                out.push(block(i(x), i(y), i(x + w), i(y + h)));
            }
        }
        // Rooms: a grid of walls with one or two openings per wall piece.
        _ => {
            let cell = 12;
            let n = (2 * half) / cell;
            let t = fx(1, 4);
            for cx in 1..n {
                let x = i(-half + cx * cell);
                for cy in 0..n {
                    let ya = -half + cy * cell;
                    let door = rng.range(2, cell - 4);
                    let w = [13, 16, 20, 30][rng.below(4) as usize];
                    out.push(block(x - t, i(ya), x + t, i(ya + door)));
                    out.push(block(x - t, i(ya + door) + fx(w, 10), x + t, i(ya + cell)));
                }
            }
            for cy in 1..n {
                let y = i(-half + cy * cell);
                for cx in 0..n {
                    let xa = -half + cx * cell;
                    if rng.below(3) == 0 {
                        continue;
                    }
                    let door = rng.range(2, cell - 4);
                    let w = [13, 16, 20, 30][rng.below(4) as usize];
                    out.push(block(i(xa) + t, y - t, i(xa + door), y + t));
                    out.push(block(
                        i(xa + door) + fx(w, 10),
                        y - t,
                        i(xa + cell) - t,
                        y + t,
                    ));
                }
            }
        }
    }
    out
}

/// A walkable point for `r` (and a quarter more) at least 1.41 from every unit, its `x` in
/// `x` (quarter units) when given; the origin after 256 tries.
fn walkable(sim: &Simulator, rng: &mut Rng, half: i32, r: Fx, x: Option<(i32, i32)>) -> Vec2 {
    for _ in 0..256 {
        let q = (half - 1) * 4;
        let (xl, xh) = x.map_or((-q, q), |(a, b)| (a * 4, b * 4));
        let p = Vec2::new(fx(rng.range(xl, xh), 4), fx(rng.range(-q, q), 4));
        if sim.nav_is_walkable(p, r + fx(1, 4)).unwrap_or(false)
            && sim
                .agents()
                .positions()
                .iter()
                .all(|a| (*a - p).length_squared() > Fx::from_num(2))
        {
            return p;
        }
    }
    Vec2::ZERO
}

/// The length of a path from `from` through `points`.
fn path_len(from: Vec2, points: &[Vec2]) -> f64 {
    let mut a = from.to_f64();
    let mut l = 0.0;
    for p in points {
        let b = p.to_f64();
        l += (b.0 - a.0).hypot(b.1 - a.1);
        a = b;
    }
    l
}

/// What one scene measured.
#[derive(Clone, Debug)]
pub struct Figures {
    /// The scene's seed and kind (see [`scene`]).
    pub seed: u64,
    pub kind: u64,
    /// Half the map's side, the time step (seconds), units, shared goals, whether one unit in
    /// five is heavy (radius 0.8).
    pub half: i32,
    pub dt: f64,
    pub units: usize,
    pub groups: usize,
    pub heavy: bool,
    /// The longest planned walk at top speed (seconds): the ideal time.
    pub ideal: f64,
    /// The simulated limit (seconds): four times the ideal plus two minutes, at least 200.
    pub limit: f64,
    /// When every unit had finished (arrived or settled at the goal it was sent to, or given
    /// up), checked every 10 ticks; `None`: not within the limit.
    pub done: Option<f64>,
    /// At the end: units finished at their goals, given up, still on their way, blocked.
    pub arrived: usize,
    pub given_up: usize,
    pub moving: usize,
    pub blocked: usize,
    /// The smallest signed wall clearance, the smallest pair clearance and the wall crossings
    /// seen after any step.
    pub wall: f64,
    pub agents: f64,
    pub crossings: usize,
}

impl Figures {
    /// Whether every unit finished within the limit, none gave up, no centre crossed a wall
    /// and no unit went more than 0.001 into one.
    #[must_use]
    pub fn good(&self) -> bool {
        self.done.is_some() && self.given_up == 0 && self.wall >= -0.001 && self.crossings == 0
    }

    /// The scene's line of the sweep.
    #[must_use]
    pub fn line(&self) -> String {
        let done = self.done.map_or("-".into(), |t| format!("{t:.1}"));
        let ratio = self
            .done
            .map_or("-".into(), |t| format!("{:.2}", t / self.ideal.max(1.0)));
        format!(
            "seed {} kind {} half {} dt {:.2} units {} groups {} heavy {} ideal {:.1} done {done} ratio {ratio} \
             arrived {} given_up {} moving {} blocked {} wall {:.4} agents {:.3} crossings {}{}",
            self.seed,
            self.kind,
            self.half,
            self.dt,
            self.units,
            self.groups,
            self.heavy,
            self.ideal,
            self.arrived,
            self.given_up,
            self.moving,
            self.blocked,
            self.wall,
            self.agents,
            self.crossings,
            if self.good() { "" } else { " BAD" }
        )
    }
}

/// Whether agent `id`'s order is finished at the goal it was sent to: arrived (or given up)
/// on the order a [`Command::NavigateTo`] planned, not on a traffic control's order to a
/// waiting place (a navigating unit's order must end where its plan ends; one whose goal
/// cannot be reached may end beside a door's lane, where it stepped aside for good).
fn finished(sim: &Simulator, id: AgentId) -> bool {
    let Some(order) = sim.agent_order(id).ok().flatten() else {
        return true;
    };
    if !order.status().is_finished() {
        return false;
    }
    match sim.nav_status(id).ok().flatten() {
        None => true,
        Some(nav) => {
            let end = match nav.status() {
                // A unit whose goal cannot be reached may rest beside a busy door's lane
                // instead of at its plan's end, in that lane (stepped aside for good): any
                // order of its own but a waiter's.
                Some(PathStatus::Unreachable { .. }) => {
                    return !nav.is_pending() && sim.door_wait(id).ok().flatten().is_none();
                }
                Some(PathStatus::GoalAdjusted { to }) => to,
                _ => nav.goal(),
            };
            !nav.is_pending() && order.goal() == end
        }
    }
}

/// A built scene: the simulator with its orders queued, the units' radii and goals.
pub struct Scene {
    pub sim: Simulator,
    pub units: Vec<(AgentId, Fx, Vec2)>,
    seed: u64,
    kind: u64,
    half: i32,
    groups: usize,
    heavy: bool,
    ideal: f64,
}

/// Scene `seed`: the kind is `seed % 4`, the time step 0.1 for `seed % 8 < 4` and 0.25 else;
/// the map's size, the obstacles, 20 to 119 units (at walkable places, one in five heavy in
/// a third of the scenes), one to four shared goals (in the scenes of kind 1 on the far side
/// of the wall from the units, so the sides cross; elsewhere one unit in five gets a goal of
/// its own) all drawn from the seed. Every unit is given a [`Command::NavigateTo`] at tick 0.
#[must_use]
pub fn scene(seed: u64) -> Scene {
    let mut rng = Rng(splitmix64(seed));
    let kind = seed % 4;
    let half = 20 + rng.range(0, 4) * 5;
    let dt = if seed % 8 < 4 { fx(1, 10) } else { fx(1, 4) };
    let mut sim = Simulator::new(SimulatorParams {
        time_step: dt,
        agent_defaults: unit(fx(1, 2)),
    })
    .expect("valid parameters");
    for o in obstacles(&mut rng, kind, half) {
        sim.add_obstacle(o).expect("a valid building");
    }
    let h = Fx::from_num(half);
    let nav = NavParams {
        boundary: Some(vec![
            Vec2::new(-h, -h),
            Vec2::new(h, -h),
            Vec2::new(h, h),
            Vec2::new(-h, h),
        ]),
        ..NavParams::default()
    };
    sim.set_navigation(Some(nav)).expect("a valid map");
    let count = 20 + rng.below(100) as usize;
    let groups = 1 + rng.below(4) as usize;
    let heavy = kind != 2 && rng.below(3) == 0;
    // Units of kind 1 alternate between the sides of the wall.
    let side = |k: usize, far: bool| {
        (kind == 1).then(|| {
            if k.is_multiple_of(2) != far {
                (-half + 1, -2)
            } else {
                (2, half - 1)
            }
        })
    };
    let mut placed = Vec::new();
    for k in 0..count {
        let r = if heavy && k % 5 == 4 {
            fx(4, 5)
        } else {
            fx(1, 2)
        };
        let p = walkable(&sim, &mut rng, half, r, side(k, false));
        placed.push((
            sim.add_agent_with(p, unit(r)).expect("inside the domain"),
            r,
        ));
    }
    let goals: Vec<Vec2> = (0..groups)
        .map(|g| walkable(&sim, &mut rng, half, fx(4, 5), side(g, true)))
        .collect();
    let mut units = Vec::new();
    let mut ideal = 0.0f64;
    for (k, &(id, r)) in placed.iter().enumerate() {
        let goal = if kind == 1 {
            goals[(k % 2 + 2 * (k / 2 % groups.div_ceil(2))) % groups]
        } else if rng.below(5) == 0 {
            walkable(&sim, &mut rng, half, r, None)
        } else {
            goals[k % groups]
        };
        let from = sim.agent_position(id).expect("a unit");
        if let Ok(path) = sim.nav_path(from, goal, r) {
            ideal = ideal.max(path_len(from, &path.points) / 1.5);
        }
        sim.queue_command(sim.tick(), Command::NavigateTo { id, goal })
            .expect("a valid order");
        units.push((id, r, goal));
    }
    Scene {
        sim,
        units,
        seed,
        kind,
        half,
        groups,
        heavy,
        ideal,
    }
}

impl Scene {
    /// Runs the scene until every unit finished (checked every 10 ticks) or the limit, and
    /// measures it.
    #[must_use]
    pub fn run(mut self) -> Figures {
        let dt = self.sim.time_step().to_num::<f64>();
        let limit = (self.ideal * 4.0 + 120.0).max(200.0);
        let mut monitor = Monitor::new(&self.sim);
        let mut done = None;
        while (self.sim.tick() as f64) * dt < limit {
            self.sim.step().expect("inside the domain");
            monitor.observe(&self.sim);
            if self.sim.tick().is_multiple_of(10)
                && self.units.iter().all(|u| finished(&self.sim, u.0))
            {
                done = Some(self.sim.tick() as f64 * dt);
                break;
            }
        }
        let mut f = Figures {
            seed: self.seed,
            kind: self.kind,
            half: self.half,
            dt,
            units: self.units.len(),
            groups: self.groups,
            heavy: self.heavy,
            ideal: self.ideal,
            limit,
            done,
            arrived: 0,
            given_up: 0,
            moving: 0,
            blocked: 0,
            wall: monitor.report.min_obstacle_clearance,
            agents: monitor.report.min_agent_clearance,
            crossings: monitor.report.crossings,
        };
        for &(id, _, _) in &self.units {
            match self.sim.order_status(id).expect("a unit") {
                Some(OrderStatus::GivenUp) => f.given_up += 1,
                Some(OrderStatus::Blocked) => f.blocked += 1,
                _ if finished(&self.sim, id) => f.arrived += 1,
                _ => f.moving += 1,
            }
        }
        f
    }

    /// The scene as a scenario file (the obstacles, the boundary, the units with their goals
    /// and `navigate = true`), to run or `render` with the command-line tool. A scenario
    /// gives its orders as the sweep does, but its run is not the sweep's to the bit (the
    /// units are added in another order).
    #[must_use]
    pub fn to_toml(&self) -> String {
        let f = |x: Fx| format!("\"{x}\"");
        let h = self.half;
        let mut t = format!(
            "name = \"sweep{}\"\ntime_step = {}\nmax_ticks = 20000\n\n[defaults]\nneighbor_dist = 10\n\
             max_neighbors = 10\ntime_horizon = 2\ntime_horizon_obst = 2\nradius = 0.5\nmax_speed = 1.5\n\n\
             [navigation]\nboundary = [[-{h}, -{h}], [{h}, -{h}], [{h}, {h}], [-{h}, {h}]]\n\n",
            self.seed,
            f(self.sim.time_step())
        );
        for (_, o) in self.sim.obstacles().iter() {
            let pts: Vec<String> = o
                .vertices()
                .iter()
                .map(|v| format!("[{}, {}]", f(v.x), f(v.y)))
                .collect();
            t += &format!("[[obstacle]]\npolygon = [{}]\n\n", pts.join(", "));
        }
        let starts: BTreeMap<AgentId, Vec2> = self
            .units
            .iter()
            .map(|u| (u.0, self.sim.agent_position(u.0).expect("a unit")))
            .collect();
        for &(id, r, goal) in &self.units {
            let p = starts[&id];
            t += &format!(
                "[[agent]]\nstart = [{}, {}]\ngoal = [{}, {}]\nradius = {}\nnavigate = true\n\n",
                f(p.x),
                f(p.y),
                f(goal.x),
                f(goal.y),
                f(r)
            );
        }
        t
    }
}

//! The obstacle scenes of `fixtures/scenarios/` (RVO2's Blocks and Roadmap, and the
//! wall-holding scenes: corner crush, door counterflow, corridor), loaded through the public
//! scenario API: the TOML files are the scene definitions. Steering is the file's policy
//! through its [`Driver`], except [`door_prefs`], a hand-written door rule the wall tests
//! steer the door scene with. Runs are measured by the examples' [`Monitor`] (floats:
//! measurement only).
#![allow(clippy::float_arithmetic, dead_code)]

#[path = "../../../examples/common/monitor.rs"]
mod monitor;

pub use monitor::{Monitor, Report};

use lockstep_orca::math::wide_mul;
use lockstep_orca::scenario::{Driver, EventAction, Perturbation, Scenario};
use lockstep_orca::{AgentId, Fx, Simulator, SimulatorParams, Vec2};

/// A loaded scene: the simulator, its driver, one goal per driven agent (by id order), and how
/// close counts as reached.
pub struct Scene {
    /// The simulator.
    pub sim: Simulator,
    /// The scenario's driver (policy, perturbation, events).
    pub driver: Driver,
    /// Goal of each agent, indexed like `driver.agent_ids()` (the driver's initial goals).
    pub goals: Vec<Vec2>,
    /// `|p − goal| <= goal_radius` counts as reached (the file's `goal_tolerance`).
    pub goal_radius: f64,
    /// The file's perturbation of the preferred velocities.
    pub perturbation: Perturbation,
}

pub fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}

/// `fixtures/scenarios/{name}.toml`, parsed.
pub fn scenario(name: &str) -> Scenario {
    let path = format!(
        "{}/fixtures/scenarios/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    Scenario::load(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The simulator parameters of a scenario (its time step and agent defaults).
pub fn params(s: &Scenario) -> SimulatorParams {
    SimulatorParams {
        time_step: s.time_step,
        agent_defaults: s.defaults,
    }
}

/// Builds `s` (every scene here has a perturbation and a goal tolerance), in RVO2 mode: these
/// scenes are compared with RVO2 (the deadlock resolution has its own tests).
pub fn build(s: &Scenario) -> Scene {
    let (mut sim, driver) = s.build().unwrap();
    sim.set_liveness(lockstep_orca::Liveness::Rvo2);
    Scene {
        goals: driver.goals().to_vec(),
        goal_radius: s.goal_tolerance.unwrap().to_num::<f64>(),
        perturbation: s.perturbation.unwrap(),
        sim,
        driver,
    }
}

/// `fixtures/scenarios/{name}.toml`, built.
pub fn load(name: &str) -> Scene {
    build(&scenario(name))
}

/// `fixtures/scenarios/{name}.toml` with its perturbation seed replaced by `seed`.
pub fn load_seeded(name: &str, seed: u64) -> Scene {
    let mut s = scenario(name);
    s.perturbation.as_mut().unwrap().seed = seed;
    build(&s)
}

/// The file's steering for the coming tick: its events, then its policy's preferred
/// velocities with the perturbation (what `Driver::run` does before each step).
pub fn driver_prefs(scene: &mut Scene) {
    let tick = scene.sim.tick();
    scene.driver.apply_events(&mut scene.sim, tick).unwrap();
    scene
        .driver
        .set_pref_velocities(&mut scene.sim, tick)
        .unwrap();
}

/// Unit vector towards `target` (or the vector itself when shorter than 1), RVO2's examples.
pub fn towards(from: Vec2, target: Vec2) -> Vec2 {
    let g = target - from;
    if g.length_squared_wide() > wide_mul(Fx::ONE, Fx::ONE) {
        g.normalize_or_zero()
    } else {
        g
    }
}

/// Door prefs (for `door_counterflow.toml`, instead of its roadmap policy): agents still on
/// their starting side head for the door, then for their goal, at speed 2, plus the file's
/// perturbation.
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
        let pref = towards(p, target) * Fx::from_num(2)
            + scene.perturbation.offset(scene.sim.tick(), id.0);
        scene.sim.set_agent_pref_velocity(id, pref).unwrap();
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
            let (x, y) = (scene.sim.agent_position(id).unwrap() - scene.goals[i]).to_f64();
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

/// One agent an `add_agent` event brings in: its tick, start and goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    pub tick: u64,
    pub start: Vec2,
    pub goal: Vec2,
}

/// The corridor's ends: its `add_agent` events grouped by goal (each end's agents head for the
/// far end), ends in order of first use, each end's agents in event order.
pub fn entries(driver: &Driver) -> Vec<Vec<Entry>> {
    let mut ends: Vec<Vec<Entry>> = Vec::new();
    for e in driver.events() {
        if let EventAction::AddAgent(a) = e.action {
            let entry = Entry {
                tick: e.tick,
                start: a.start,
                goal: a.goal,
            };
            match ends.iter_mut().find(|end| end[0].goal == a.goal) {
                Some(end) => end.push(entry),
                None => ends.push(vec![entry]),
            }
        }
    }
    ends
}

//! Prints `hash=<scene>@<tick> <hex>` lines for a few built-in scenes (agents only), for the
//! cross-platform check: every machine must print the same lines (`scripts/cross-check`).
//!
//! Scenes: RVO2's Circle with 250 agents, two crossing crowds, agents added and removed
//! mid-run, RVO2's Blocks (reduced to 100 agents, 4 obstacles) and a circle near the corner of
//! the coordinate domain. Every tick's preferred
//! velocities are queued as commands, so the command queue is part of what is proven.
//!
//! ```text
//! cargo run --release --example hashes            # all scenes
//! cargo run --release --example hashes -- quick   # shorter runs (for slow emulators)
//! ```

use lockstep_orca::math::unit_from_turns;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2,
};

/// Goal-seeking preferred velocities (RVO2's examples): towards the goal, at most unit speed.
fn toward_goals(sim: &Simulator, goals: &[(AgentId, Vec2)]) -> Vec<Command> {
    goals
        .iter()
        .filter(|(id, _)| sim.contains_agent(*id))
        .map(|&(id, goal)| {
            let to_goal = goal - sim.agent_position(id).unwrap();
            let v = if to_goal.length_squared_wide() > 1i128 << 64 {
                to_goal.normalize_or_zero()
            } else {
                to_goal
            };
            Command::SetPrefVelocity { id, v }
        })
        .collect()
}

/// Runs `ticks` steps feeding goal-seeking commands (plus `extra` commands of each tick) and
/// prints the hash every `every` ticks and at the end.
fn run(
    name: &str,
    sim: &mut Simulator,
    goals: &mut Vec<(AgentId, Vec2)>,
    ticks: u64,
    every: u64,
    mut extra: impl FnMut(&Simulator) -> Vec<(Command, Option<Vec2>)>,
) {
    for _ in 0..ticks {
        let tick = sim.tick();
        let mut next_id = sim.agent_ids().last().map_or(0, |id| id.0 + 1);
        for (c, goal) in extra(sim) {
            if let (Command::AddAgent { .. }, Some(goal)) = (c, goal) {
                goals.push((AgentId(next_id), goal));
                next_id += 1;
            }
            sim.queue_command(tick, c).unwrap();
        }
        for c in toward_goals(sim, goals) {
            sim.queue_command(tick, c).unwrap();
        }
        sim.step().unwrap();
        if sim.tick().is_multiple_of(every) || sim.tick() == ticks {
            println!("hash={name}@{} {:016x}", sim.tick(), sim.state_hash());
        }
    }
}

/// RVO2's Circle: `n` agents on a circle of `radius` around `center`, each heading for the
/// antipodal point.
fn circle(n: u32, radius: i32, center: Vec2) -> (Simulator, Vec<(AgentId, Vec2)>) {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let mut goals = Vec::new();
    for i in 0..n {
        let turns = Fx::from_num(i) / Fx::from_num(n);
        let offset = unit_from_turns(turns) * Fx::from_num(radius);
        let id = sim.add_agent(center + offset).unwrap();
        goals.push((id, center - offset));
    }
    (sim, goals)
}

/// Two crowds of `side`² agents crossing each other at right angles.
fn crowd(side: i32) -> (Simulator, Vec<(AgentId, Vec2)>) {
    let params = SimulatorParams {
        time_step: Fx::lit("0.1"),
        agent_defaults: AgentParams {
            radius: Fx::lit("0.5"),
            neighbor_dist: Fx::from_num(6),
            time_horizon: Fx::from_num(4),
            max_speed: Fx::lit("1.5"),
            ..AgentParams::default()
        },
    };
    let mut sim = Simulator::new(params).unwrap();
    let mut goals = Vec::new();
    for i in 0..side {
        for j in 0..side {
            let a = sim
                .add_agent(Vec2::from_int(-40 + 2 * i, 2 * j - side))
                .unwrap();
            goals.push((a, Vec2::from_int(40 + 2 * i, 2 * j - side)));
            let b = sim
                .add_agent(Vec2::from_int(2 * i - side, -40 + 2 * j))
                .unwrap();
            goals.push((b, Vec2::from_int(2 * i - side, 40 + 2 * j)));
        }
    }
    (sim, goals)
}

/// RVO2's Blocks example, reduced to 100 agents: four 5×5 groups in the corners heading for the
/// opposite corners, between four square obstacles.
fn blocks() -> (Simulator, Vec<(AgentId, Vec2)>) {
    let params = SimulatorParams {
        time_step: Fx::lit("0.25"),
        agent_defaults: AgentParams {
            radius: Fx::from_num(2),
            ..AgentParams::default()
        },
    };
    let mut sim = Simulator::new(params).unwrap();
    let mut goals = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            let (x, y) = (55 + 10 * i, 55 + 10 * j);
            for (sx, sy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
                let id = sim.add_agent(Vec2::from_int(sx * x, sy * y)).unwrap();
                goals.push((id, Vec2::from_int(-sx * 75, -sy * 75)));
            }
        }
    }
    for (sx, sy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
        let (a, b) = (10 * sx, 40 * sx);
        let (c, d) = (10 * sy, 40 * sy);
        let mut square = vec![
            Vec2::from_int(a, c),
            Vec2::from_int(b, c),
            Vec2::from_int(b, d),
            Vec2::from_int(a, d),
        ];
        // Counter-clockwise in every quadrant.
        if sx * sy < 0 {
            square.reverse();
        }
        sim.add_obstacle(ObstacleShape::Polygon(square)).unwrap();
    }
    (sim, goals)
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let scale = if quick { 4 } else { 1 };

    let (mut sim, mut goals) = circle(250, 200, Vec2::ZERO);
    run(
        "circle250",
        &mut sim,
        &mut goals,
        400 / scale,
        100 / scale,
        |_| Vec::new(),
    );

    let (mut sim, mut goals) = crowd(14);
    run(
        "crowd392",
        &mut sim,
        &mut goals,
        300 / scale,
        100 / scale,
        |_| Vec::new(),
    );

    // Agents join every 7 ticks and the oldest leave every 11 ticks.
    let (mut sim, mut goals) = circle(40, 30, Vec2::ZERO);
    run(
        "add_remove",
        &mut sim,
        &mut goals,
        300 / scale,
        100 / scale,
        |sim| {
            let t = sim.tick() as i32;
            let mut out = Vec::new();
            if t % 7 == 3 {
                let p = Vec2::from_int(-30 + (t * 13) % 60, -30 + (t * 29) % 60);
                out.push((
                    Command::AddAgent {
                        position: p,
                        params: AgentParams::default(),
                    },
                    Some(-p),
                ));
            }
            if t % 11 == 5
                && let Some(&id) = sim.agent_ids().first()
            {
                out.push((Command::RemoveAgent { id }, None));
            }
            out
        },
    );

    // RVO2's Blocks layout, reduced: 4 groups of 25 agents crossing between 4 blocks.
    let (mut sim, mut goals) = blocks();
    run(
        "blocks100",
        &mut sim,
        &mut goals,
        400 / scale,
        100 / scale,
        |_| Vec::new(),
    );

    // Near the domain's corner: positions around (999,900, -999,900).
    let corner = Vec2::from_int(999_900, -999_900);
    let (mut sim, mut goals) = circle(60, 60, corner);
    run(
        "far_corner",
        &mut sim,
        &mut goals,
        300 / scale,
        100 / scale,
        |_| Vec::new(),
    );
}

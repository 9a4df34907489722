//! The scene of `examples/nav_gates.rs`, shared with `tests/navigation/crowds.rs`: a wall 1
//! thick at x = 0 across the map with a door 1.3 wide (y 0 to 1.3) and a gate 5 wide whose
//! top is `gate_at` below the door; `n` units (radius 0.5, speed 1.5) in a block left of the
//! wall sent to (18, 0) and, with `both`, as many from the right to (−18, 0).
#![allow(clippy::float_arithmetic, clippy::cast_precision_loss, dead_code)]

use lockstep_orca::navigation::NavParams;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, SimError, Simulator, SimulatorParams, Vec2,
};

/// A point from user input (the one floating-point conversion).
fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).expect("a point in range")
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> ObstacleShape {
    ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
}

/// The simulator at tick 0, its units' orders queued, and the units.
pub fn scene(
    gate_at: f64,
    n: usize,
    both: bool,
    dt: &str,
) -> Result<(Simulator, Vec<AgentId>), SimError> {
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit(dt),
        agent_defaults: AgentParams {
            radius: Fx::lit("0.5"),
            max_speed: Fx::lit("1.5"),
            time_horizon: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(2),
            neighbor_dist: Fx::from_num(10),
            max_neighbors: 10,
            ..AgentParams::default()
        },
    })?;
    let h = 40.0;
    sim.add_obstacle(rect(-0.5, -h, 0.5, -gate_at - 5.0))?;
    sim.add_obstacle(rect(-0.5, -gate_at, 0.5, 0.0))?;
    sim.add_obstacle(rect(-0.5, 1.3, 0.5, h))?;
    let boundary = vec![v(-h, -h), v(h, -h), v(h, h), v(-h, h)];
    sim.set_navigation(Some(NavParams {
        boundary: Some(boundary),
        ..NavParams::default()
    }))?;
    let mut ids = Vec::new();
    let sides: &[f64] = if both { &[-1.0, 1.0] } else { &[-1.0] };
    for &s in sides {
        for k in 0..n {
            let (i, j) = ((k % 8) as f64, (k / 8) as f64);
            let id = sim.add_agent(v(s * (12.0 + 1.5 * i), -4.0 + 1.5 * j))?;
            let goal = v(-s * 18.0, 0.0);
            sim.queue_command(0, Command::NavigateTo { id, goal })?;
            ids.push(id);
        }
    }
    Ok((sim, ids))
}

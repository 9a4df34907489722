//! A door beside a gate: how a crowd chooses between a narrow door on its straight line and a
//! wide gate a little way round.
//!
//! A wall 1 thick at x = 0 crosses the map, with a door 1.3 wide (y 0 to 1.3) and a gate 5
//! wide whose top is `G` below the door. `N` units (radius 0.5, speed 1.5) in a block left of
//! the wall are sent to one goal across it (18, 0), and with counterflow as many from the
//! right to (−18, 0). Every combination of time step (0.1, 0.25), one side or both, `N` (16,
//! 40, 80) and `G` (6, 12, 20) is run until every unit has arrived (at most 600 s).
//!
//! ```text
//! cargo run --release --example nav_gates
//! ```
//!
//! One line per scene: the seconds until every unit arrived (`-`: not within 600 s) and how
//! many crossed by the door and by the gate; then the geometric mean of the times.
//! docs/navigation.md § "Crowds prefer wide ways" gives the figures.
#![allow(clippy::float_arithmetic, clippy::cast_precision_loss)]

use lockstep_orca::navigation::NavParams;
use lockstep_orca::orders::OrderStatus;
use lockstep_orca::{
    AgentParams, Command, Fx, ObstacleShape, SimError, Simulator, SimulatorParams, Vec2,
};

/// A point from user input (the one floating-point conversion).
fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).expect("a point in range")
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> ObstacleShape {
    ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
}

/// Runs one scene: the seconds until every unit arrived (`None`: not within 600 s), and the
/// crossings by the door and by the gate.
fn run(gate_at: f64, n: usize, both: bool, dt: &str) -> Result<(Option<f64>, u32, u32), SimError> {
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
    let step: f64 = dt.parse().expect("a time step");
    let mut prev: Vec<f64> = ids
        .iter()
        .map(|&id| sim.agent_position(id).map_or(0.0, |p| p.to_f64().0))
        .collect();
    let (mut door, mut gate) = (0, 0);
    for _ in 0..(600.0 / step) as u64 {
        sim.step()?;
        for (k, &id) in ids.iter().enumerate() {
            let p = sim.agent_position(id)?.to_f64();
            if (prev[k] < 0.0) != (p.0 < 0.0) {
                if p.1 > -1.0 { door += 1 } else { gate += 1 }
            }
            prev[k] = p.0;
        }
        let arrived = |&id: &lockstep_orca::AgentId| {
            sim.order_status(id).ok().flatten() == Some(OrderStatus::Arrived)
        };
        if ids.iter().all(arrived) {
            return Ok((Some(sim.tick() as f64 * step), door, gate));
        }
    }
    Ok((None, door, gate))
}

fn main() -> Result<(), SimError> {
    let (mut log_sum, mut count) = (0.0, 0.0);
    for dt in ["0.1", "0.25"] {
        for both in [false, true] {
            for n in [16, 40, 80] {
                for gate_at in [6.0, 12.0, 20.0] {
                    let (t, door, gate) = run(gate_at, n, both, dt)?;
                    let shown = t.map_or("-".to_string(), |t| format!("{t:.1}"));
                    println!(
                        "dt {dt} both_sides {both} units {n} gate_at {gate_at} done {shown} \
                         door {door} gate {gate}"
                    );
                    log_sum += t.unwrap_or(600.0).ln();
                    count += 1.0;
                }
            }
        }
    }
    println!("geometric mean {:.1}", (log_sum / count).exp());
    Ok(())
}

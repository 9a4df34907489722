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

#[path = "common/nav_gates.rs"]
mod gates;

use lockstep_orca::SimError;
use lockstep_orca::orders::OrderStatus;

/// Runs one scene: the seconds until every unit arrived (`None`: not within 600 s), and the
/// crossings by the door and by the gate.
fn run(gate_at: f64, n: usize, both: bool, dt: &str) -> Result<(Option<f64>, u32, u32), SimError> {
    let (mut sim, ids) = gates::scene(gate_at, n, both, dt)?;
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

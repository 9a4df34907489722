//! Replay size and verify throughput of `crowd1000` (1,000 agents) for N ticks (default 3,600:
//! one minute at 60 Hz), recorded two ways:
//!
//! * `per-tick`: the scenario driver's commands, one `SetPrefVelocity` per agent per tick (what
//!   `lockstep-orca record` writes today);
//! * `orders`: one command per agent at tick 0 and nothing after: the shape of an order-driven
//!   game (one move order per unit, steered by the simulator), for the per-tick overhead and
//!   the checkpoints alone.
//!
//! `cargo run --release --example replay_size [-- TICKS]`

use lockstep_orca::Simulator;
use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::scenario::Scenario;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ticks: u64 = match std::env::args().nth(1) {
        Some(a) => a.parse().map_err(|e| format!("TICKS: {e}"))?,
        None => 3600,
    };
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/scenarios/crowd1000.toml"
    );
    let scenario = Scenario::load(path)?;
    for mode in ["per-tick", "orders"] {
        let (mut sim, driver) = scenario.build()?;
        let inputs = |sim: &Simulator| {
            if mode == "per-tick" || sim.tick() == 0 {
                driver.tick_commands(sim, sim.tick())
            } else {
                Vec::new()
            }
        };
        let options = RecordOptions::default();
        let (bytes, summary) =
            replay::record_to(Vec::new(), &mut sim, ticks, options, inputs, |_| false)?;
        let started = Instant::now();
        let report = replay::verify_stream(&bytes[..])?;
        let micros = started.elapsed().as_micros().max(1);
        println!(
            "{mode}: {} agents, {} ticks, {} commands, {} bytes ({} per tick); verify {}: {} ticks/s",
            sim.num_agents(),
            summary.ticks,
            summary.commands,
            summary.bytes,
            summary.bytes / summary.ticks.max(1),
            if report.is_match() { "OK" } else { "FAILED" },
            u128::from(summary.ticks) * 1_000_000 / micros
        );
    }
    Ok(())
}

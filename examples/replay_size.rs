//! Replay size and verify throughput of `crowd1000` (1,000 agents) for N ticks (default 3,600:
//! one minute at 60 Hz), recorded two ways:
//!
//! * `orders`: what `lockstep-orca record` writes: the scene's goals are move orders given at
//!   build (in the initial snapshot), so no tick has a command; the per-tick hashes and the
//!   checkpoints alone;
//! * `240apm`: a player's realistic order rate on top: every 15 ticks (4 actions a second at
//!   60 Hz, 240 a minute) one group of 10 units gets a `MoveTo` to a new point, 2,400 unit
//!   orders a minute.
//!
//! `cargo run --release --example replay_size [-- TICKS]`

use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::{AgentId, Command, Simulator, Vec2, splitmix64};
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
    for mode in ["orders", "240apm"] {
        let (mut sim, driver) = scenario.build()?;
        let inputs = |sim: &Simulator| {
            let tick = sim.tick();
            let mut commands = driver.tick_commands(sim, tick);
            if mode == "240apm" && tick.is_multiple_of(15) {
                // One group of 10 units (ids from a SplitMix64 stream), one shared goal.
                let h = splitmix64(tick);
                let goal = Vec2::from_int((h % 81) as i32 - 40, ((h >> 8) % 81) as i32 - 40);
                for k in 0..10 {
                    let id = AgentId((splitmix64(h ^ k) % 1000) as u32);
                    commands.push(Command::MoveTo { id, goal });
                }
            }
            commands
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

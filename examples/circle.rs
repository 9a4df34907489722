//! RVO2's Circle example, in fixed point: 250 agents on a ring of radius 200 walk to the
//! antipodes through the crowded centre.
//!
//! ```text
//! cargo run --release --example circle
//! ```
//!
//! Prints the ticks to completion, the minimum pairwise clearance (negative = overlap) and the
//! final state hash. The scene is [`Scenario::rvo2_circle`], the same one the tests, the bench
//! and `fixtures/scenarios/circle250.toml` use.

use lockstep_orca::scenario::{RunOptions, Scenario};

/// No arguments: `--help` prints the usage, anything else is refused with status 2.
fn refuse_arguments() {
    if let Some(arg) = std::env::args().nth(1) {
        let usage = "usage: cargo run --release --example circle (no arguments)";
        if arg == "-h" || arg == "--help" {
            println!("{usage}");
            std::process::exit(0);
        }
        eprintln!("error: unexpected argument `{arg}`\n{usage}");
        std::process::exit(2);
    }
}

fn main() {
    refuse_arguments();
    let scenario = Scenario::rvo2_circle();
    let (mut sim, driver) = scenario.build().expect("the Circle scene is valid");
    let report = driver
        .run(&mut sim, &RunOptions::default())
        .expect("the Circle scene stays in the domain");
    println!("agents: {}", sim.num_agents());
    println!(
        "ticks: {} (all reached: {})",
        report.ticks, report.all_reached
    );
    if let Some((c, tick)) = report.min_clearance {
        println!("min clearance: {c:.6} (tick {tick})");
    }
    println!("final hash: {:016x}", report.final_hash);
}

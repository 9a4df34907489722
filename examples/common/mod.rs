//! What the `blocks` and `roadmap` examples share: load a scene of `fixtures/scenarios/`
//! through the public scenario API, run it and print the obstacle scenes' measurements
//! ([`monitor`]).
#![allow(clippy::float_arithmetic)]

pub mod monitor;

use lockstep_orca::scenario::{RunOptions, Scenario};
use monitor::Monitor;

/// The optional seed argument of the `blocks` and `roadmap` examples (default 1). `--help`
/// prints the usage; a bad or extra argument prints it on stderr and exits with status 2.
pub fn seed_arg(example: &str) -> u64 {
    let usage = format!(
        "usage: cargo run --release --example {example} [-- SEED]\n  SEED  perturbation seed, a non-negative integer (default 1)"
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => 1,
        [h] if h == "-h" || h == "--help" => {
            println!("{usage}");
            std::process::exit(0);
        }
        [seed] => seed.parse().unwrap_or_else(|_| {
            eprintln!("error: `{seed}` is not a seed\n{usage}");
            std::process::exit(2);
        }),
        [_, extra, ..] => {
            eprintln!("error: unexpected argument `{extra}`\n{usage}");
            std::process::exit(2);
        }
    }
}

/// Loads `fixtures/scenarios/{name}.toml`, sets the seed, runs it to the goals (at most 40,000
/// ticks) and prints the obstacle scenes' measurements.
pub fn run_scene(name: &str, seed: u64) {
    let path = format!(
        "{}/fixtures/scenarios/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut scenario = Scenario::load(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if let Some(p) = scenario.perturbation.as_mut() {
        p.seed = seed;
    }
    scenario.max_ticks = 40_000;
    let (mut sim, driver) = scenario.build().expect("valid scene");
    let mut monitor = Monitor::new(&sim);
    let start = std::time::Instant::now();
    let options = RunOptions {
        track_clearance: false, // the monitor measures it
        ..RunOptions::default()
    };
    let report = driver
        .run_with(&mut sim, &options, |s| monitor.observe(s))
        .expect("run");
    let tolerance = scenario.goal_tolerance.map_or(0.0, |t| t.to_num::<f64>());
    let unreached: Vec<usize> = (0..driver.agent_ids().len())
        .filter(|&i| {
            let (dx, dy) = match sim.agent_position(driver.agent_ids()[i]) {
                Ok(p) => (p - driver.goals()[i]).to_f64(),
                Err(_) => (0.0, 0.0),
            };
            dx.hypot(dy) > tolerance
        })
        .collect();
    let r = monitor.report;
    println!(
        "{name} seed {seed}: ticks {}, goals reached {}/{}, min agent clearance {:.4}, min obstacle clearance {:.3e}, wall crossings {}, state hash {:016x}, {:.2?}",
        report.ticks,
        r.agents - unreached.len(),
        r.agents,
        r.min_agent_clearance,
        r.min_obstacle_clearance,
        r.crossings,
        report.final_hash,
        start.elapsed()
    );
    for i in unreached {
        let id = driver.agent_ids()[i];
        println!(
            "  not reached: agent {} at {:?}, goal {:?}, velocity {:?}",
            id.0,
            sim.agent_position(id).expect("listed").to_f64(),
            driver.goals()[i].to_f64(),
            sim.agent_velocity(id).expect("listed").to_f64()
        );
    }
}

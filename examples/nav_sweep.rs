//! Navigation sweep: random navigation scenes, each measured for how well its units get where
//! they are sent.
//!
//! Every scene is drawn from its seed: a walled map (open ground with buildings, a wall with
//! doors 1.3 to 3 wide, rooms, or dense streets), 20 to 119 navigating units (in a third of the
//! scenes one in five heavy, radius 0.8), sent at tick 0 to one to four shared goals (across
//! the wall in the scenes with one) and some to goals of their own; time step 0.1 or 0.25. The
//! scene runs until every unit has finished at the goal it was sent to (arrived or settled,
//! or given up), or until four times its longest planned walk plus two minutes.
//!
//! ```text
//! cargo run --release --example nav_sweep -- [FIRST [COUNT]]
//! cargo run --release --example nav_sweep -- --toml SEED > scene.toml
//! ```
//!
//! One line per scene (defaults: seeds 0 to 15), then a summary: `done` is when every unit had
//! finished (seconds; `-`: not within the limit), `ratio` that against the longest planned
//! walk at top speed, then the units finished, given up, still on their way and blocked at
//! the end, the smallest signed wall clearance, the smallest pair clearance and the wall
//! crossings. `BAD` marks a scene where some unit did not finish, gave up, crossed a wall or
//! went more than 0.001 into one. `--toml SEED` prints the scene as a scenario file, to run or
//! draw it with `lockstep-orca render` (its run is close to the sweep's, not the same bits).
//! Figures of the whole sweep are in docs/navigation.md § "How well: a sweep of random
//! scenes".
#![allow(clippy::float_arithmetic)]

#[path = "common/nav_sweep.rs"]
mod sweep;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: nav_sweep [FIRST [COUNT]] | nav_sweep --toml SEED");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--toml") {
        let Some(seed) = args.get(1).and_then(|a| a.parse().ok()) else {
            return usage();
        };
        print!("{}", sweep::scene(seed).to_toml());
        return ExitCode::SUCCESS;
    }
    let mut numbers = Vec::new();
    for a in &args {
        match a.parse::<u64>() {
            Ok(n) => numbers.push(n),
            Err(_) => return usage(),
        }
    }
    if numbers.len() > 2 {
        return usage();
    }
    let first = numbers.first().copied().unwrap_or(0);
    let count = numbers.get(1).copied().unwrap_or(16);
    let (mut good, mut ratios) = (0, Vec::new());
    let (mut wall, mut agents, mut crossings) = (f64::INFINITY, f64::INFINITY, 0);
    for seed in first..first.saturating_add(count) {
        let f = sweep::scene(seed).run();
        println!("{}", f.line());
        good += usize::from(f.good());
        if let Some(t) = f.done {
            ratios.push(t / f.ideal.max(1.0));
        }
        wall = wall.min(f.wall);
        agents = agents.min(f.agents);
        crossings += f.crossings;
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "scenes {count} good {good} finished {} median ratio {median:.2} wall {wall:.4} agents {agents:.3} crossings {crossings}",
        ratios.len()
    );
    ExitCode::SUCCESS
}

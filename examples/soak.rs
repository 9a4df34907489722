//! Soak run: 1,000 agents (radius 1, six neighbours within 6) in 20 columns of 50 patrol back and forth across a field through
//! each other for a million ticks, re-ordered every 400 ticks (new `MoveTo`s, so the state keeps
//! changing and the paths keep crossing), with a state-hash checkpoint every 10,000 ticks and
//! the process's resident memory beside it.
//!
//! ```text
//! cargo run --release --example soak -- [TICKS [EVERY]]
//! ```
//!
//! Defaults: 1,000,000 ticks, a checkpoint every 10,000. Each line reads
//! `tick T hash H rss_kb R`; the hashes must be the same on every run and every machine, and
//! the RSS must stay flat. The last line gives the time and the peak RSS (Linux: from
//! `/proc/self/status`; elsewhere 0).

#[path = "common/soak_args.rs"]
mod soak_args;

use lockstep_orca::{AgentId, AgentParams, Command, Fx, Simulator, SimulatorParams, Vec2};
use soak_args::{arg, proc_kb};
use std::time::Instant;

const AGENTS: i32 = 1_000;
const COLUMNS: i32 = 20;
const ORDER_EVERY: u64 = 400;

/// The usage line (`--help`).
const USAGE: &str = "usage: cargo run --release --example soak -- [TICKS [EVERY]]";

/// Column `c`'s two ends: the left half's columns start at x = -60, the right half's at +60.
fn ends(index: i32) -> (Vec2, Vec2) {
    let (col, row) = (index % COLUMNS, index / COLUMNS);
    let y = row * 4 - 100;
    let x = (col % (COLUMNS / 2)) * 4;
    if col < COLUMNS / 2 {
        (Vec2::from_int(-100 + x, y), Vec2::from_int(60 + x, y + 2))
    } else {
        (Vec2::from_int(100 - x, y + 2), Vec2::from_int(-60 - x, y))
    }
}

fn main() {
    let ticks = arg(1, 1_000_000, USAGE);
    let every = arg(2, 10_000, USAGE).max(1);
    // A game's unit: radius 1, the six nearest within 6, two seconds of look-ahead.
    let params = SimulatorParams {
        agent_defaults: AgentParams {
            neighbor_dist: Fx::from_num(6),
            max_neighbors: 6,
            time_horizon: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(2),
            radius: Fx::ONE,
            ..AgentParams::default()
        },
        ..SimulatorParams::default()
    };
    let mut sim = Simulator::new(params).expect("valid parameters");
    for i in 0..AGENTS {
        sim.add_agent(ends(i).0).expect("inside the domain");
    }
    let started = Instant::now();
    for tick in 0..ticks {
        if tick.is_multiple_of(ORDER_EVERY) {
            // Every agent heads for the end it is not at (the far end on even rounds).
            let far = (tick / ORDER_EVERY).is_multiple_of(2);
            for i in 0..AGENTS {
                let (a, b) = ends(i);
                let goal = if far { b } else { a };
                let id = AgentId(i as u32);
                sim.queue_command(tick, Command::MoveTo { id, goal })
                    .expect("a valid order");
            }
        }
        if tick.is_multiple_of(every) {
            println!(
                "tick {tick} hash {:016x} rss_kb {}",
                sim.state_hash(),
                proc_kb("VmRSS:")
            );
        }
        sim.step().expect("the soak stays in the domain");
    }
    println!(
        "tick {} hash {:016x} rss_kb {}",
        sim.tick(),
        sim.state_hash(),
        proc_kb("VmRSS:")
    );
    // Timing and memory are reports for the reader, not part of the compared output.
    eprintln!(
        "{ticks} ticks of {AGENTS} agents in {:.1} s, peak RSS {} kB",
        started.elapsed().as_secs_f64(),
        proc_kb("VmHWM:")
    );
}

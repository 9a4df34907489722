//! `run`, `record` and `verify`.

use crate::Fail;
use crate::files::{self, MAX_SCENARIO_BYTES, Output};
use crate::progress::Progress;
use clap::Args;
use lockstep_orca::replay::{self, RecordOptions, ReplayError, VerifyReport, VerifyStats};
use lockstep_orca::scenario::{Driver, RunOptions, RunReport, Scenario};
use lockstep_orca::{Fx, Simulator, Vec2};
use serde_json::{Value, json};
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Run a scenario file (TOML) and print what happened.
///
/// Runs until every agent reached its goal or the scenario's max_ticks, then prints the ticks
/// run, whether all goals were reached, the minimum clearance (the smallest gap between two
/// agents' discs, negative = overlap) and the final state hash.
#[derive(Args)]
pub struct RunArgs {
    /// The scenario file (TOML, at most 16 MiB; format in docs/scenarios.md).
    pub scenario: PathBuf,
    /// Run exactly N ticks (no early stop at the goals).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    /// Write `tick,id,x,y,vx,vy` for every agent and tick (tick 0 = the initial state); exact
    /// decimals that parse back to the same fixed-point bits.
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,
    /// Also print the state hash every K ticks (tick 0 included).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub hash_every: Option<u64>,
    /// Print one JSON document on stdout instead of the text report (fields in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// Record a scenario run as a replay file.
///
/// Runs the scenario as `run` does, feeding the simulator only through lockstep commands
/// (events and preferred velocities), and streams OUT: the initial snapshot, every tick's
/// commands and state hash, agent checkpoints. `verify` re-runs it.
#[derive(Args)]
pub struct RecordArgs {
    /// The scenario file (TOML, at most 16 MiB).
    pub scenario: PathBuf,
    /// The replay file to write (never over the scenario; written through a temporary file,
    /// so it appears whole or not at all).
    pub out: PathBuf,
    /// Record exactly N ticks (default: until every goal is reached, at most max_ticks).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    /// Agent checkpoints every K ticks (default 60); also print the state hash every K ticks.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=u64::from(u32::MAX)))]
    pub hash_every: Option<u64>,
}

/// Re-run a replay file and compare every tick's state hash.
///
/// Streams the file (bounded memory whatever its length), re-simulating while reading. Prints
/// `OK: …` when the replay reproduced; otherwise the first differing tick and the agents that
/// differ at the next checkpoint (id, expected vs actual position), and exits 1. Then the
/// throughput (ticks per second).
#[derive(Args)]
pub struct VerifyArgs {
    /// The replay file (written by `record`), or `-` for stdin.
    pub replay: PathBuf,
    /// Print one JSON document on stdout instead of the text report (fields in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// Reads (bounded), parses and validates a scenario file: exit 2 if any of it fails.
pub fn load_scenario(path: &Path) -> Result<Scenario, Fail> {
    let bytes = files::read_limited(path, MAX_SCENARIO_BYTES, "scenario")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Fail::input(format!("{}: not UTF-8 text", path.display())))?;
    Scenario::from_toml_str(&text).map_err(|e| Fail::input(format!("{}: {e}", path.display())))
}

/// Loads and builds a scenario.
pub fn build(path: &Path) -> Result<(Scenario, Simulator, Driver), Fail> {
    let scenario = load_scenario(path)?;
    let (sim, driver) = scenario
        .build()
        .map_err(|e| Fail::input(format!("{}: {e}", path.display())))?;
    Ok((scenario, sim, driver))
}

/// The scenario's display name: its `name`, else the path.
pub fn scenario_name(scenario: &Scenario, path: &Path) -> String {
    scenario
        .name
        .clone()
        .unwrap_or_else(|| path.display().to_string())
}

/// Prints the scenario's warnings ([`Scenario::warnings`]) on stderr as `warning: …`, before a
/// run, and returns them for the `warnings` field of `run --json`.
fn warnings(scenario: &Scenario) -> Vec<String> {
    let warnings: Vec<String> = scenario
        .warnings()
        .iter()
        .map(ToString::to_string)
        .collect();
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    warnings
}

fn hex(h: u64) -> String {
    format!("{h:016x}")
}

fn fx_json(v: Fx) -> Value {
    json!({ "value": v.to_string(), "bits": v.to_bits() })
}

fn vec_json(v: Vec2) -> Value {
    json!([v.x.to_string(), v.y.to_string()])
}

pub fn run(args: &RunArgs) -> Result<(), Fail> {
    let outputs: Vec<&Path> = args.csv.iter().map(PathBuf::as_path).collect();
    files::check_outputs(&outputs, &[&args.scenario])?;
    let (scenario, mut sim, driver) = build(&args.scenario)?;
    let name = scenario_name(&scenario, &args.scenario);
    let warnings = warnings(&scenario);
    // The CSV's temporary file is created before the run: an unwritable path fails now.
    let mut csv = match &args.csv {
        Some(path) => {
            let mut out = Output::create(path)?;
            writeln!(out.writer(), "tick,id,x,y,vx,vy")
                .map_err(|e| Fail::failed(format!("cannot write {}: {e}", path.display())))?;
            Some(out)
        }
        None => None,
    };
    if !args.json {
        println!("scenario: {name} ({} agents)", sim.num_agents());
    }
    let options = RunOptions {
        max_ticks: args.ticks,
        stop_when_reached: args.ticks.is_none(),
        hash_every: args.hash_every.unwrap_or(0),
        track_clearance: true,
    };
    let limit = args.ticks.unwrap_or(driver.max_ticks());
    let progress = Progress::bar(limit, "run");
    let mut csv_error = None;
    let start_tick = sim.tick();
    let result = driver.run_with(&mut sim, &options, |sim| {
        progress.set(sim.tick() - start_tick);
        if let Some(out) = csv.as_mut()
            && csv_error.is_none()
            && let Err(e) = write_rows(out.writer(), sim)
        {
            csv_error = Some(e);
        }
    });
    progress.finish();
    let report = result
        .map_err(|e| Fail::failed(format!("simulation failed at tick {}: {e}", sim.tick())))?;
    if let Some(out) = csv {
        if let Some(e) = csv_error {
            return Err(Fail::failed(format!(
                "cannot write {}: {e}",
                out.path().display()
            )));
        }
        out.commit()?;
    }
    if args.json {
        let arrivals = arrivals(&scenario, &sim, &driver);
        let doc = run_json(&name, &sim, &report, args, &warnings, arrivals);
        println!("{doc}");
    } else {
        print_report(&report);
    }
    Ok(())
}

/// An agent that reached its goal is *settled* when its speed is at most its maximum speed
/// divided by this (so `|v|² · SETTLE_SPEED_DIVISOR² <= max_speed²`, exact).
const SETTLE_SPEED_DIVISOR: i128 = 16;

/// The scene's agents at the end of the run: `(reached, settled)`. Reached: within the goal
/// tolerance (the scene's `goal_tolerance`, else the agent's radius) of its goal (its order's
/// goal, else its scene goal), the rule of `all_reached`; agents removed count as reached and
/// settled, agents not added yet as neither. Settled: reached, and moving at most
/// `max_speed / 16`. Counted from positions and velocities.
fn arrivals(scenario: &Scenario, sim: &Simulator, driver: &Driver) -> (usize, usize) {
    let tick = sim.tick();
    let next_id = sim.next_agent_id();
    let (mut reached, mut settled) = (0, 0);
    for (index, &id) in driver.agent_ids().iter().enumerate() {
        if id >= next_id {
            continue; // not added yet
        }
        let (Ok(p), Ok(v), Ok(params)) = (
            sim.agent_position(id),
            sim.agent_velocity(id),
            sim.agent_params(id),
        ) else {
            reached += 1; // removed
            settled += 1;
            continue;
        };
        let goal = match sim.agent_order(id) {
            Ok(Some(order)) => order.goal(),
            _ => driver.goal_at(index, tick),
        };
        let tolerance = Vec2::new(scenario.goal_tolerance.unwrap_or(params.radius), Fx::ZERO);
        if (p - goal).length_squared_wide() > tolerance.length_squared_wide() {
            continue;
        }
        reached += 1;
        let max = Vec2::new(params.max_speed, Fx::ZERO).length_squared_wide();
        let speed = v.length_squared_wide();
        if speed.saturating_mul(SETTLE_SPEED_DIVISOR * SETTLE_SPEED_DIVISOR) <= max {
            settled += 1;
        }
    }
    (reached, settled)
}

fn run_json(
    name: &str,
    sim: &Simulator,
    r: &RunReport,
    args: &RunArgs,
    warnings: &[String],
    (reached, settled): (usize, usize),
) -> Value {
    json!({
        "scenario": name,
        "agents": sim.num_agents(),
        "ticks": r.ticks,
        "all_reached": r.all_reached,
        "reached": reached,
        "settled": settled,
        "settle_speed": "max_speed / 16",
        "min_clearance": r.min_clearance.map(|(c, tick)| {
            let mut v = fx_json(c);
            v["tick"] = json!(tick);
            v
        }),
        "final_hash": hex(r.final_hash),
        "hashes": r.hashes.iter().map(|&(tick, h)| json!({ "tick": tick, "hash": hex(h) })).collect::<Vec<_>>(),
        "csv": args.csv.as_ref().map(|p| p.display().to_string()),
        "warnings": warnings,
        "outcomes": {
            "stalls": r.outcomes.stalls,
            "stalled_ticks": r.outcomes.stalled_ticks,
            "yield_ticks": r.outcomes.yield_ticks,
            "lp3_ticks": r.outcomes.lp3_ticks,
            "blocked_ticks": r.outcomes.blocked_ticks,
        },
    })
}

/// One CSV row per agent. Values use `fixed`'s `Display`: a decimal that parses back
/// (`Fx::from_str`) to exactly the same bits.
fn write_rows(w: &mut impl Write, sim: &Simulator) -> std::io::Result<()> {
    let tick = sim.tick();
    for &id in sim.agent_ids() {
        let (p, v) = (
            sim.agent_position(id).expect("listed id"),
            sim.agent_velocity(id).expect("listed id"),
        );
        writeln!(w, "{tick},{},{},{},{},{}", id.0, p.x, p.y, v.x, v.y)?;
    }
    Ok(())
}

fn print_report(r: &RunReport) {
    for (tick, hash) in &r.hashes {
        println!("hash at tick {tick}: {hash:016x}");
    }
    println!("ticks: {}", r.ticks);
    println!("all reached: {}", if r.all_reached { "yes" } else { "no" });
    match r.min_clearance {
        // Six decimals for humans (the exact value is in the CSV and the JSON).
        Some((c, tick)) => println!("min clearance: {c:.6} (tick {tick})"),
        None => println!("min clearance: none (no two agents came close)"),
    }
    let o = &r.outcomes;
    println!(
        "outcomes: {} stalls ({} agent-ticks), {} yielding agent-ticks, {} LP3 agent-ticks, {} blocked by walls",
        o.stalls, o.stalled_ticks, o.yield_ticks, o.lp3_ticks, o.blocked_ticks
    );
    println!("final hash: {:016x}", r.final_hash);
}

pub fn record(args: &RecordArgs) -> Result<(), Fail> {
    files::check_outputs(&[&args.out], &[&args.scenario])?;
    let (scenario, mut sim, driver) = build(&args.scenario)?;
    let name = scenario_name(&scenario, &args.scenario);
    let _warnings = warnings(&scenario);
    let mut out = Output::create(&args.out)?;
    println!("scenario: {name} ({} agents)", sim.num_agents());
    let options = RecordOptions {
        checkpoint_interval: args
            .hash_every
            .map_or(replay::DEFAULT_CHECKPOINT_INTERVAL, |k| k as u32),
    };
    let limit = args.ticks.unwrap_or(driver.max_ticks());
    let progress = Progress::bar(limit, "record");
    let start_tick = sim.tick();
    // The hashes printed by --hash-every: the state before each step whose offset from the
    // start is a multiple of K (the start included); the last tick's is the summary's.
    let every = args.hash_every;
    let mut hashes = Vec::new();
    let inputs = |sim: &Simulator| {
        let done = sim.tick() - start_tick;
        progress.set(done);
        if every.is_some_and(|k| done.is_multiple_of(k)) {
            hashes.push((sim.tick(), sim.state_hash()));
        }
        driver.tick_commands(sim, sim.tick())
    };
    let max = args.ticks.unwrap_or(driver.max_ticks());
    let stop_early = args.ticks.is_none();
    let rec = replay::record_to(out.writer(), &mut sim, max, options, inputs, |sim| {
        stop_early && driver.all_reached(sim)
    });
    progress.finish();
    let (_, summary) = rec.map_err(|e| Fail::failed(e.to_string()))?;
    out.commit()?;
    if every.is_some() {
        let end = summary.start_tick + summary.ticks;
        if summary.ticks > 0 {
            hashes.push((end, summary.final_hash));
        }
        for (tick, hash) in hashes {
            println!("hash at tick {tick}: {hash:016x}");
        }
    }
    println!("ticks: {}", summary.ticks);
    println!(
        "all reached: {}",
        if driver.all_reached(&sim) {
            "yes"
        } else {
            "no"
        }
    );
    println!("commands: {}", summary.commands);
    println!("final hash: {:016x}", summary.final_hash);
    println!("wrote {} ({} bytes)", args.out.display(), summary.bytes);
    Ok(())
}

/// Opens a replay for streaming: a file, or stdin for `-` (exit 2 if it cannot be opened).
pub fn open_replay(path: &Path) -> Result<Box<dyn Read>, Fail> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufReader::with_capacity(
            64 << 10,
            std::io::stdin(),
        )));
    }
    let name = path.display();
    let file = File::open(path).map_err(|e| Fail::input(format!("cannot read {name}: {e}")))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(Fail::input(format!(
            "cannot read {name}: it is a directory"
        )));
    }
    Ok(Box::new(BufReader::with_capacity(64 << 10, file)))
}

/// The message of a replay that is not valid (exit 2).
pub fn invalid_replay(path: &Path, e: &ReplayError) -> Fail {
    let name = if path.as_os_str() == "-" {
        "stdin".to_string()
    } else {
        path.display().to_string()
    };
    match e {
        ReplayError::Io { message, .. } => Fail::input(format!("cannot read {name}: {message}")),
        e => Fail::input(format!("{name} is not a valid replay file: {e}")),
    }
}

pub fn verify(args: &VerifyArgs) -> Result<(), Fail> {
    let src = open_replay(&args.replay)?;
    let spinner = Progress::spinner("verifying".to_string());
    let started = Instant::now();
    let result = replay::verify_stream_with(src, |_| {});
    let micros = started.elapsed().as_micros().max(1);
    spinner.finish();
    let (report, stats) = result.map_err(|e| invalid_replay(&args.replay, &e))?;
    // Integer throughput: ticks per second, rounded down.
    let per_second = u128::from(stats.ticks_run) * 1_000_000 / micros;
    if args.json {
        println!("{}", verify_json(&report, &stats, micros, per_second));
    } else {
        println!("{report}");
        println!(
            "verified {} ticks ({} bytes) in {}.{:03} s: {per_second} ticks/s",
            stats.ticks_run,
            stats.bytes_read,
            micros / 1_000_000,
            micros / 1000 % 1000
        );
    }
    if report.is_match() {
        Ok(())
    } else {
        Err(Fail::failed(String::new()))
    }
}

fn verify_json(
    report: &VerifyReport,
    stats: &VerifyStats,
    micros: u128,
    per_second: u128,
) -> Value {
    let divergence = report.divergence().map(|d| {
        json!({
            "tick": d.tick,
            "expected_hash": hex(d.expected_hash),
            "actual_hash": hex(d.actual_hash),
            "agents_tick": d.agents_tick,
            "agents": d.agents.iter().map(|a| json!({
                "id": a.id.0,
                "expected": a.expected.map(vec_json),
                "actual": a.actual.map(vec_json),
            })).collect::<Vec<_>>(),
        })
    });
    let final_hash = match report {
        VerifyReport::Match { final_hash, .. } => Some(hex(*final_hash)),
        _ => None,
    };
    json!({
        "ok": report.is_match(),
        "ticks": stats.ticks_run,
        "start_tick": stats.start_tick,
        "bytes": stats.bytes_read,
        "final_hash": final_hash,
        "report": report.to_string(),
        "divergence": divergence,
        "elapsed_us": u64::try_from(micros).unwrap_or(u64::MAX),
        "ticks_per_second": u64::try_from(per_second).unwrap_or(u64::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every agent of a finished swap reached and, at rest, settled; one agent given its full
    /// speed at the goal is reached but not settled; a removed one counts as both.
    #[test]
    fn arrivals_count_reached_and_settled_agents() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios/swap_perturbed.toml");
        let scenario = Scenario::load(&path).unwrap();
        let (mut sim, driver) = scenario.build().unwrap();
        let report = driver.run(&mut sim, &RunOptions::default()).unwrap();
        assert!(report.all_reached);
        let n = driver.agent_ids().len();
        // Keep stepping until every agent has come to rest at its goal.
        for _ in 0..400 {
            for c in driver.tick_commands(&sim, sim.tick()) {
                sim.queue_command(sim.tick(), c).unwrap();
            }
            sim.step().unwrap();
        }
        assert_eq!(arrivals(&scenario, &sim, &driver), (n, n));
        let ids = driver.agent_ids();
        let fast = sim.agent_params(ids[0]).unwrap().max_speed;
        sim.set_agent_velocity(ids[0], Vec2::new(fast, Fx::ZERO))
            .unwrap();
        assert_eq!(arrivals(&scenario, &sim, &driver), (n, n - 1));
        sim.remove_agent(ids[0]).unwrap();
        assert_eq!(arrivals(&scenario, &sim, &driver), (n, n));
    }
}

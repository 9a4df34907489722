//! `lockstep-orca`: the command-line runner for scenario files.
//!
//! ```text
//! lockstep-orca run SCENARIO [--ticks N] [--csv OUT] [--hash-every K]
//! lockstep-orca record SCENARIO OUT [--ticks N] [--hash-every K]
//! lockstep-orca verify REPLAY
//! ```
//!
//! Exit codes: 0 success (`verify`: the replay reproduced), 1 the scenario, the run or the
//! replay failed (`verify`: a mismatch or a bad file), 2 bad command line.
//! Subcommands are a `match` in [`main`]; each lives in its own function.

use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::scenario::{Driver, RunOptions, RunReport, Scenario};
use lockstep_orca::{Fx, Simulator};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage: lockstep-orca run SCENARIO [--ticks N] [--csv OUT] [--hash-every K]
       lockstep-orca record SCENARIO OUT [--ticks N] [--hash-every K]
       lockstep-orca verify REPLAY

  run SCENARIO      run a scenario file (TOML) until every agent reached its goal or the
                    scenario's max_ticks; then print ticks run, whether all goals were
                    reached, the minimum clearance and the final state hash
  --ticks N         run exactly N ticks instead (no early stop at the goals)
  --csv OUT         write tick,id,x,y,vx,vy for every agent and tick (tick 0 = initial state)
  --hash-every K    also print the state hash every K ticks (tick 0 included)

  record SCENARIO OUT
                    run the scenario as run does, feeding the simulator only through
                    lockstep commands (events and preferred velocities), and write a replay
                    file OUT (initial snapshot, every tick's commands, every tick's hash)
  --ticks N         record exactly N ticks (default: until every goal is reached, at most
                    the scenario's max_ticks)
  --hash-every K    agent checkpoints (positions, per-agent hashes) every K ticks (default
                    10); also print the state hash every K ticks

  verify REPLAY     re-run a replay file and compare every tick's hash; print the first
                    differing tick and the agents that differ (id, expected vs actual
                    position). Exit 0 on a match, 1 on a mismatch or an unreadable file";

/// A command-line error: message for stderr, exit code 2.
struct Usage(String);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => parse_run(&args[1..]).map(|a| cmd_run(&a)),
        Some("record") => parse_record(&args[1..]).map(|a| cmd_record(&a)),
        Some("verify") => parse_verify(&args[1..]).map(|p| cmd_verify(&p)),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(Usage(format!("unknown command `{other}`"))),
        None => Err(Usage("missing command".into())),
    };
    match result {
        Ok(code) => code,
        Err(Usage(msg)) => {
            eprintln!("error: {msg}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Arguments of `run`.
struct RunArgs {
    scenario: String,
    ticks: Option<u64>,
    csv: Option<String>,
    hash_every: u64,
}

fn parse_u64(flag: &str, value: Option<&String>) -> Result<u64, Usage> {
    let v = value.ok_or_else(|| Usage(format!("{flag} needs a value")))?;
    v.parse()
        .map_err(|_| Usage(format!("{flag}: `{v}` is not a non-negative integer")))
}

fn parse_run(args: &[String]) -> Result<RunArgs, Usage> {
    let mut scenario = None;
    let (mut ticks, mut csv, mut hash_every) = (None, None, 0);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--ticks" => ticks = Some(parse_u64("--ticks", it.next())?),
            "--hash-every" => {
                hash_every = parse_u64("--hash-every", it.next())?;
                if hash_every == 0 {
                    return Err(Usage("--hash-every must be at least 1".into()));
                }
            }
            "--csv" => {
                csv = Some(
                    it.next()
                        .ok_or_else(|| Usage("--csv needs a file name".into()))?
                        .clone(),
                );
            }
            flag if flag.starts_with("--") => {
                return Err(Usage(format!("unknown option `{flag}`")));
            }
            path if scenario.is_none() => scenario = Some(path.to_string()),
            extra => return Err(Usage(format!("unexpected argument `{extra}`"))),
        }
    }
    Ok(RunArgs {
        scenario: scenario.ok_or_else(|| Usage("run needs a SCENARIO file".into()))?,
        ticks,
        csv,
        hash_every,
    })
}

/// Arguments of `record`.
struct RecordArgs {
    scenario: String,
    out: String,
    ticks: Option<u64>,
    hash_every: Option<u64>,
}

fn parse_record(args: &[String]) -> Result<RecordArgs, Usage> {
    let mut paths = Vec::new();
    let (mut ticks, mut hash_every) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--ticks" => ticks = Some(parse_u64("--ticks", it.next())?),
            "--hash-every" => {
                let k = parse_u64("--hash-every", it.next())?;
                if k == 0 || k > u64::from(u32::MAX) {
                    return Err(Usage("--hash-every must lie in 1 ..= 4294967295".into()));
                }
                hash_every = Some(k);
            }
            flag if flag.starts_with("--") => {
                return Err(Usage(format!("unknown option `{flag}`")));
            }
            path if paths.len() < 2 => paths.push(path.to_string()),
            extra => return Err(Usage(format!("unexpected argument `{extra}`"))),
        }
    }
    let mut paths = paths.into_iter();
    Ok(RecordArgs {
        scenario: paths
            .next()
            .ok_or_else(|| Usage("record needs a SCENARIO file and an OUT file".into()))?,
        out: paths
            .next()
            .ok_or_else(|| Usage("record needs an OUT file after the SCENARIO".into()))?,
        ticks,
        hash_every,
    })
}

fn parse_verify(args: &[String]) -> Result<String, Usage> {
    match args {
        [flag] if flag.starts_with("--") => Err(Usage(format!("unknown option `{flag}`"))),
        [path] => Ok(path.clone()),
        [] => Err(Usage("verify needs a REPLAY file".into())),
        [_, extra, ..] => Err(Usage(format!("unexpected argument `{extra}`"))),
    }
}

fn cmd_record(args: &RecordArgs) -> ExitCode {
    match record(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Loads and builds a scenario file and prints its header line.
fn load(path: &str) -> Result<(Simulator, Driver), String> {
    let scenario = Scenario::load(path).map_err(|e| e.to_string())?;
    let (sim, driver) = scenario.build().map_err(|e| e.to_string())?;
    println!(
        "scenario: {} ({} agents)",
        scenario.name.as_deref().unwrap_or(path),
        sim.num_agents()
    );
    Ok((sim, driver))
}

/// Loads and builds the scenario, records it through the command queue, writes the replay.
fn record(args: &RecordArgs) -> Result<(), String> {
    let (mut sim, driver) = load(&args.scenario)?;
    let options = RecordOptions {
        checkpoint_interval: args.hash_every.map_or(10, |k| k as u32),
    };
    let inputs = |sim: &Simulator| driver.tick_commands(sim, sim.tick());
    let rec = match args.ticks {
        Some(n) => replay::record(&mut sim, n, options, inputs),
        None => replay::record_until(&mut sim, driver.max_ticks(), options, inputs, |sim| {
            driver.all_reached(sim)
        }),
    }
    .map_err(|e| e.to_string())?;
    let bytes = rec.to_bytes();
    std::fs::write(&args.out, &bytes).map_err(|e| format!("cannot write {}: {e}", args.out))?;
    if let Some(k) = args.hash_every {
        println!("hash at tick {}: {:016x}", rec.start_tick, rec.initial_hash);
        for (tick, hash) in rec.hashes_every(k) {
            println!("hash at tick {tick}: {hash:016x}");
        }
    }
    let commands: usize = rec.inputs.iter().map(|t| t.commands.len()).sum();
    println!("ticks: {}", rec.ticks());
    println!(
        "all reached: {}",
        if driver.all_reached(&sim) {
            "yes"
        } else {
            "no"
        }
    );
    println!("commands: {commands}");
    println!("final hash: {:016x}", rec.final_hash);
    println!("wrote {} ({} bytes)", args.out, bytes.len());
    Ok(())
}

fn cmd_verify(path: &str) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match replay::verify_bytes(&bytes) {
        Ok(report) => {
            println!("{report}");
            if report.is_match() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {path} is not a valid replay file: {e}");
            ExitCode::FAILURE
        }
    }
}

fn cmd_run(args: &RunArgs) -> ExitCode {
    match run(args) {
        Ok(report) => {
            print_report(&report);
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Loads, builds and runs the scenario, writing the CSV if asked.
fn run(args: &RunArgs) -> Result<RunReport, String> {
    let (mut sim, driver) = load(&args.scenario)?;
    let options = RunOptions {
        max_ticks: args.ticks,
        stop_when_reached: args.ticks.is_none(),
        hash_every: args.hash_every,
        track_clearance: true,
    };
    let mut csv = match &args.csv {
        Some(path) => {
            let f = File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
            let mut w = BufWriter::new(f);
            writeln!(w, "tick,id,x,y,vx,vy").map_err(|e| format!("{path}: {e}"))?;
            Some((w, path.as_str()))
        }
        None => None,
    };
    let mut csv_error = None;
    let report = driver
        .run_with(&mut sim, &options, |sim| {
            if let Some((w, _)) = csv.as_mut()
                && csv_error.is_none()
                && let Err(e) = write_rows(w, sim)
            {
                csv_error = Some(e);
            }
        })
        .map_err(|e| format!("simulation failed at tick {}: {e}", sim.tick()))?;
    if let Some((mut w, path)) = csv {
        if let Some(e) = csv_error {
            return Err(format!("{path}: {e}"));
        }
        w.flush().map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(report)
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
        Some((c, tick)) => println!("min clearance: {} (tick {tick})", round6(c)),
        None => println!("min clearance: none (no two agents came close)"),
    }
    println!("final hash: {:016x}", r.final_hash);
}

/// Six decimals for humans (the exact value is in the CSV).
fn round6(c: Fx) -> String {
    format!("{c:.6}")
}

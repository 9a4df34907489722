//! `lockstep-orca`: the command-line runner for scenario files.
//!
//! ```text
//! lockstep-orca run SCENARIO [--ticks N] [--csv OUT] [--hash-every K]
//! ```
//!
//! Exit codes: 0 success, 1 the scenario or the run failed, 2 bad command line.
//! Subcommands are a `match` in [`main`]; each lives in its own function.

use lockstep_orca::scenario::{RunOptions, RunReport, Scenario};
use lockstep_orca::{Fx, Simulator};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage: lockstep-orca run SCENARIO [--ticks N] [--csv OUT] [--hash-every K]

  run SCENARIO      run a scenario file (TOML) until every agent reached its goal or the
                    scenario's max_ticks; then print ticks run, whether all goals were
                    reached, the minimum clearance and the final state hash
  --ticks N         run exactly N ticks instead (no early stop at the goals)
  --csv OUT         write tick,id,x,y,vx,vy for every agent and tick (tick 0 = initial state)
  --hash-every K    also print the state hash every K ticks (tick 0 included)";

/// A command-line error: message for stderr, exit code 2.
struct Usage(String);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => parse_run(&args[1..]).map(|a| cmd_run(&a)),
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
    let scenario = Scenario::load(&args.scenario).map_err(|e| e.to_string())?;
    let (mut sim, driver) = scenario.build().map_err(|e| e.to_string())?;
    println!(
        "scenario: {} ({} agents)",
        scenario.name.as_deref().unwrap_or(&args.scenario),
        sim.num_agents()
    );
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

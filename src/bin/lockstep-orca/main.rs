//! `lockstep-orca`: the command-line tool for scenario files and replays.
//!
//! ```text
//! lockstep-orca run SCENARIO [--ticks N] [--csv OUT] [--hash-every K] [--json]
//! lockstep-orca record SCENARIO OUT [--ticks N] [--hash-every K]
//! lockstep-orca verify REPLAY|- [--json]
//! lockstep-orca diff A B [--json]
//! lockstep-orca render SCENARIO|REPLAY [--svg OUT] [--gif OUT] [--png OUT] [options]
//! lockstep-orca golden [SCENARIO...] [--check]
//! lockstep-orca bench SCENE [N] [--ticks T] [--threads K] [--liveness M] [--json]
//! ```
//!
//! Exit codes: 0 success, 1 a failed run or a mismatch, 2 bad input (command line, unreadable
//! or invalid input file, refused output). `docs/cli.md` is the manual.

mod bench;
mod bench_nav;
mod diff;
mod files;
mod golden;
mod progress;
mod render;
mod run;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Why a command did not succeed, with its exit code.
#[derive(Debug)]
pub struct Fail {
    /// 1: the run failed or a mismatch; 2: bad input.
    pub code: u8,
    /// For stderr (after `error: `); empty when the report was already printed.
    pub message: String,
}

impl Fail {
    /// Bad input: exit 2.
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// A failed run or a mismatch: exit 1.
    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            code: 1,
            message: message.into(),
        }
    }
}

const AFTER_HELP: &str = "\
Exit codes: 0 success; 1 a run failed (the simulation left the numeric domain, an output could not
be finished), a replay or golden mismatch, two snapshots that differ (diff); 2 bad input (the command line, an input file that
cannot be read, is too large or is invalid, an output that would overwrite an input or cannot be
written). Manual: docs/cli.md.";

/// Deterministic fixed-point ORCA crowd simulation: run, record, verify, render and benchmark
/// scenario files; diff snapshots.
#[derive(Parser)]
#[command(name = "lockstep-orca", version, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Run(run::RunArgs),
    Record(run::RecordArgs),
    Verify(run::VerifyArgs),
    Diff(diff::DiffArgs),
    Render(render::RenderArgs),
    Golden(golden::GoldenArgs),
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print to stdout and succeed; anything else is bad input.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Run(a) => run::run(&a),
        Command::Record(a) => run::record(&a),
        Command::Verify(a) => run::verify(&a),
        Command::Diff(a) => diff::diff(&a),
        Command::Render(a) => render::render(&a),
        Command::Golden(a) => golden::golden(&a),
        Command::Bench(a) => bench::bench(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(fail) => {
            if !fail.message.is_empty() {
                eprintln!("error: {}", fail.message);
            }
            ExitCode::from(fail.code)
        }
    }
}

//! `golden`: the golden hash lines of the scenario files, printed or checked.

use crate::Fail;
use clap::Args;
use lockstep_orca::golden::{golden_name, golden_text, scenario_files};
use std::path::PathBuf;

/// Print or check the golden hash lines of scenario files.
///
/// Runs each scenario to completion (or its max_ticks) and prints its golden text, every line
/// prefixed with `hash=<name> `: ticks, goals reached, minimum clearance as raw bits, the state
/// hash every 100 ticks and the final hash. The same lines as `examples/hashes.rs`, which the
/// cross-platform check compares across targets. With --check, compares each text with
/// `fixtures/golden/<name>.snap` instead and exits 1 on any difference.
#[derive(Args)]
pub struct GoldenArgs {
    /// Scenario files to run (default: every `*.toml` of --dir, sorted).
    pub scenarios: Vec<PathBuf>,
    /// Directory of the scenario files.
    #[arg(long, value_name = "DIR", default_value = "fixtures/scenarios")]
    pub dir: PathBuf,
    /// Compare with the committed golden files instead of printing the lines.
    #[arg(long)]
    pub check: bool,
    /// Directory of the golden files (`<name>.snap`) for --check.
    #[arg(long, value_name = "DIR", default_value = "fixtures/golden")]
    pub golden_dir: PathBuf,
}

/// The body of an insta snapshot file: what follows its `---` header.
fn snap_body(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(&rest[end + 5..])
}

pub fn golden(args: &GoldenArgs) -> Result<(), Fail> {
    let files = if args.scenarios.is_empty() {
        scenario_files(&args.dir).map_err(|e| {
            Fail::input(format!(
                "cannot read {}: {e} (run from the project root, or give --dir)",
                args.dir.display()
            ))
        })?
    } else {
        args.scenarios.clone()
    };
    let mut mismatches = 0;
    for path in files {
        // Each file is read bounded and validated first (bad input: exit 2).
        crate::run::load_scenario(&path)?;
        let name = golden_name(&path);
        let text = golden_text(&path).map_err(Fail::failed)?;
        if !args.check {
            for line in text.lines() {
                println!("hash={name} {line}");
            }
            continue;
        }
        let snap = args.golden_dir.join(format!("{name}.snap"));
        let committed = crate::files::read_limited(&snap, 1 << 20, "golden")?;
        let committed = String::from_utf8_lossy(&committed);
        match snap_body(&committed) {
            Some(body) if body.trim_end() == text.trim_end() => println!("ok {name}"),
            Some(_) => {
                mismatches += 1;
                println!("MISMATCH {name}: {} differs", snap.display());
            }
            None => {
                return Err(Fail::input(format!(
                    "{} is not a golden file",
                    snap.display()
                )));
            }
        }
    }
    if mismatches > 0 {
        return Err(Fail::failed(format!("{mismatches} golden run(s) differ")));
    }
    Ok(())
}

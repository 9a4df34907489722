//! Golden runs: the one definition of what `fixtures/golden/` pins and what the cross-platform
//! check compares.
//!
//! A golden run loads a scenario file, runs it through its [`Driver`](crate::scenario::Driver)
//! to completion or its `max_ticks`, and renders [`RunReport::golden_text`]: ticks, goals
//! reached, minimum clearance as raw bits, the state hash every [`HASH_EVERY`] ticks, with
//! navigation the mesh digest (at tick 0 and wherever it changed at a checkpoint), and the
//! final hash. `tests/determinism/golden.rs` compares it with the committed files; `examples/hashes.rs`
//! prints it on every target for `.ci/cross-check`.

use crate::scenario::{RunOptions, RunReport, Scenario};
use std::path::{Path, PathBuf};

/// State-hash checkpoint interval of golden runs.
pub const HASH_EVERY: u64 = 100;

/// The scenario files of a directory (`*.toml`), sorted by file name.
///
/// # Errors
/// The directory cannot be read.
pub fn scenario_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The golden name of a scenario file: its file stem.
#[must_use]
pub fn golden_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The directories of golden scenes, relative to the project root, with the prefix of their
/// golden names: the shipped scenes, the liveness scenes of the deadlock resolution
/// (`fixtures/liveness/X.toml` has the golden `liveness_X`) and the navigation scenes that
/// (`fixtures/navigation/X.toml`: `navigation_X`).
pub const GOLDEN_DIRS: [(&str, &str); 3] = [
    ("fixtures/scenarios", ""),
    ("fixtures/liveness", "liveness_"),
    ("fixtures/navigation", "navigation_"),
];

/// Every golden scene under `root`, as (golden name, path), in [`GOLDEN_DIRS`] order then
/// sorted by file name.
///
/// # Errors
/// A directory cannot be read.
pub fn golden_scenes(root: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for (dir, prefix) in GOLDEN_DIRS {
        for path in scenario_files(&root.join(dir))? {
            out.push((format!("{prefix}{}", golden_name(&path)), path));
        }
    }
    Ok(out)
}

/// Runs the golden run of one scenario file.
///
/// # Errors
/// The file cannot be loaded or built, or the run fails; the message names the file.
pub fn golden_report(path: &Path) -> Result<RunReport, String> {
    let name = path.display();
    let scenario = Scenario::load(path).map_err(|e| format!("{name}: {e}"))?;
    let (mut sim, driver) = scenario.build().map_err(|e| format!("{name}: {e}"))?;
    let options = RunOptions {
        hash_every: HASH_EVERY,
        ..RunOptions::default()
    };
    driver
        .run(&mut sim, &options)
        .map_err(|e| format!("{name}: {e}"))
}

/// The golden text of one scenario file.
///
/// # Errors
/// As [`golden_report`].
pub fn golden_text(path: &Path) -> Result<String, String> {
    Ok(golden_report(path)?.golden_text(&golden_name(path)))
}

/// Every golden scene's golden text under `root` ([`golden_scenes`]), each line prefixed with
/// `hash=<scene> `: what `examples/hashes.rs` and the `lockstep-orca-hashes` tool print, and what
/// the cross-platform and build checks compare (`.ci/cross-check`, `.ci/build-check`).
///
/// # Errors
/// A message if the scenario directories cannot be read or a scene fails to run.
pub fn hash_lines(root: &Path) -> Result<Vec<String>, String> {
    let scenes = golden_scenes(root).map_err(|e| {
        format!("cannot read the scenario directories: {e} (run from the project root)")
    })?;
    let mut out = Vec::new();
    for (name, path) in scenes {
        for line in golden_text(&path)?.lines() {
            out.push(format!("hash={name} {line}"));
        }
    }
    Ok(out)
}

//! Prints the golden hash lines of every golden scene (`lockstep_orca::golden::hash_lines`), as
//! `examples/hashes.rs` does, from the project root:
//!
//! ```text
//! cargo run --release -p lockstep-orca-hashes [-- --skip GOLDEN_NAME ...]
//! ```
//!
//! `--skip NAME` leaves out the golden scene `NAME` (as in `fixtures/golden/NAME.snap`):
//! `.ci/build-check` skips the heaviest scene at opt-level 0, where it alone takes minutes.
//!
//! A package of its own so that building it compiles the library and its normal dependencies
//! only (an example also builds every dev-dependency): `.ci/cross-check` builds it for nine
//! targets and `.ci/build-check` with five profiles and toolchains.

use std::path::Path;

const USAGE: &str =
    "usage: cargo run --release -p lockstep-orca-hashes [-- --skip GOLDEN_NAME ...]";

fn main() {
    let mut skip = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--skip", Some(name)) => skip.push(name),
            _ => {
                eprintln!("{USAGE}");
                std::process::exit(2);
            }
        }
    }
    let root = Path::new(".");
    let scenes = match lockstep_orca::golden::golden_scenes(root) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read the scenario directories: {e} (run from the project root)");
            std::process::exit(1);
        }
    };
    if let Some(unknown) = skip.iter().find(|n| !scenes.iter().any(|(s, _)| s == *n)) {
        eprintln!("--skip {unknown}: no golden scene of that name");
        std::process::exit(2);
    }
    for (name, path) in scenes.iter().filter(|(n, _)| !skip.contains(n)) {
        match lockstep_orca::golden::golden_text(path) {
            Ok(text) => text.lines().for_each(|l| println!("hash={name} {l}")),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
}

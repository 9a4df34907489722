//! Prints the golden hash lines of every golden scene (`lockstep_orca::golden::hash_lines`), as
//! `examples/hashes.rs` does, from the project root:
//!
//! ```text
//! cargo run --release -p lockstep-orca-hashes
//! ```
//!
//! A package of its own so that building it compiles the library and its normal dependencies
//! only (an example also builds every dev-dependency): `.ci/cross-check` builds it for nine
//! targets and `.ci/build-check` with five profiles and toolchains.

use std::path::Path;

fn main() {
    if std::env::args().len() > 1 {
        eprintln!("usage: cargo run --release -p lockstep-orca-hashes (no arguments)");
        std::process::exit(2);
    }
    match lockstep_orca::golden::hash_lines(Path::new(".")) {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

//! Prints the golden text of every scenario in `fixtures/scenarios/` and `fixtures/liveness/`
//! (`lockstep_orca::golden::GOLDEN_DIRS`), each line prefixed with
//! `hash=<scenario> `, for the cross-platform check: every machine must print exactly the same
//! lines (`.ci/cross-check`), and they are the lines `tests/determinism/golden.rs` pins.
//!
//! ```text
//! cargo run --release --example hashes
//! ```

use lockstep_orca::golden::hash_lines;
use std::path::Path;

/// No arguments: `--help` prints the usage, anything else is refused with status 2.
fn refuse_arguments() {
    if let Some(arg) = std::env::args().nth(1) {
        let usage = "usage: cargo run --release --example hashes (no arguments)";
        if arg == "-h" || arg == "--help" {
            println!("{usage}");
            std::process::exit(0);
        }
        eprintln!("error: unexpected argument `{arg}`\n{usage}");
        std::process::exit(2);
    }
}

fn main() {
    refuse_arguments();
    match hash_lines(Path::new(".")) {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

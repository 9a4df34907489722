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
//! After the golden scenes come the lines of the navigation soak (`examples/nav_soak.rs`, seed
//! 25, 1,000 ticks: a simulator and its shadow restored from its snapshot again and again, on a
//! map of doors where buildings are dropped and units re-ordered), `hash=nav_soak tick T hash H
//! restores N agents A` every 250 ticks, so its whole run is compared between targets too
//! (`--skip nav_soak` leaves it out). A disagreement between the two simulators is an error.
//!
//! A package of its own so that building it compiles the library and its normal dependencies
//! only (an example also builds every dev-dependency): `.ci/cross-check` builds it for nine
//! targets and `.ci/build-check` with five profiles and toolchains.

#[path = "../../examples/common/nav_soak.rs"]
mod soak;

use std::path::Path;

/// The name `--skip` knows the navigation soak by.
const SOAK: &str = "nav_soak";
/// Ticks of the soak's run, and between its lines.
const SOAK_TICKS: u64 = 1_000;
const SOAK_EVERY: u64 = 250;

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
    if let Some(unknown) = skip
        .iter()
        .find(|n| *n != SOAK && !scenes.iter().any(|(s, _)| s == *n))
    {
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
    if !skip.iter().any(|n| n == SOAK) {
        let mut world = soak::Soak::new(25);
        loop {
            let a = &world.a;
            if a.tick().is_multiple_of(SOAK_EVERY) {
                println!(
                    "hash={SOAK} tick {} hash {:016x} restores {} agents {}",
                    a.tick(),
                    a.state_hash(),
                    world.counts.restores,
                    a.num_agents()
                );
            }
            if a.tick() == SOAK_TICKS {
                break;
            }
            if let Err(e) = world.tick() {
                eprintln!("{SOAK}: the simulator and its shadow disagree: {e}");
                std::process::exit(1);
            }
        }
    }
}

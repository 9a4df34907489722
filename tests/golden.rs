//! Golden state hashes: the determinism contract in files.
//!
//! Every scenario in `fixtures/scenarios/` is run to completion (or its `max_ticks`) and its
//! golden text — ticks, goals reached, minimum clearance as raw bits, the state hash every
//! [`HASH_EVERY`] ticks and the final hash — is compared with `fixtures/golden/<name>.snap`.
//!
//! A mismatch means the simulation's behaviour changed. If that is intended, review and accept
//! the new values with `cargo insta review` (or `cargo insta test --accept`), and say so in the
//! commit message and the README changelog. Under CI (`CI=true`) a changed or missing golden
//! fails and nothing is written.

use lockstep_orca::scenario::{RunOptions, Scenario};
use std::path::Path;

/// Hash checkpoint interval.
const HASH_EVERY: u64 = 100;

fn golden(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/scenarios")
        .join(file);
    let scenario = Scenario::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let (mut sim, driver) = scenario.build().unwrap_or_else(|e| panic!("{file}: {e}"));
    let report = driver
        .run(
            &mut sim,
            &RunOptions {
                hash_every: HASH_EVERY,
                ..RunOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    report.golden_text(file.trim_end_matches(".toml"))
}

macro_rules! golden_test {
    ($name:ident, $file:literal) => {
        #[test]
        fn $name() {
            let text = golden($file);
            insta::with_settings!({ snapshot_path => "../fixtures/golden", prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(stringify!($name), text);
            });
        }
    };
}

golden_test!(circle250, "circle250.toml");
golden_test!(crowd1000, "crowd1000.toml");
golden_test!(far_circle, "far_circle.toml");
golden_test!(swap_perturbed, "swap_perturbed.toml");

/// Every scenario file has a golden test (a new scene without one would silently go unchecked).
#[test]
fn every_scenario_has_a_golden() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".toml") {
            let snap = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/golden")
                .join(format!("{stem}.snap"));
            if !snap.exists() {
                missing.push(stem.to_string());
            }
        }
    }
    assert!(missing.is_empty(), "scenarios without golden: {missing:?}");
}

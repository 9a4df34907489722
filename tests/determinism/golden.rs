//! Golden state hashes: the determinism contract in files.
//!
//! Every scenario in `fixtures/scenarios/` and `fixtures/liveness/` (golden names
//! `liveness_*`) is run to completion (or its `max_ticks`) and its
//! golden text ([`lockstep_orca::golden`]: ticks, goals reached, minimum clearance as raw bits,
//! the state hash every 100 ticks and the final hash) is compared with
//! `fixtures/golden/<name>.snap`.
//!
//! A mismatch means the simulation's behaviour changed. If that is intended, review and accept
//! the new values with `cargo insta review` (or `cargo insta test --accept`), and say so in the
//! commit message and the README changelog. Under CI (`CI=true`) a changed or missing golden
//! fails and nothing is written. The same texts are printed by `examples/hashes.rs` on every
//! target of `.ci/cross-check`.

use lockstep_orca::golden::{golden_scenes, golden_text};
use std::path::Path;

/// One test over every scenario file, so a new scene can never go unchecked (the first changed
/// golden fails the test; `cargo insta test --review` shows them all).
#[test]
fn every_scenario_matches_its_golden() {
    let files = golden_scenes(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(files.len() >= 19, "scenario files missing: {files:?}");
    for (name, path) in files {
        let text = golden_text(&path).unwrap_or_else(|e| panic!("{e}"));
        insta::with_settings!({
            snapshot_path => "../../fixtures/golden",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("golden run of {}", path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display()),
        }, {
            insta::assert_snapshot!(name, text);
        });
    }
}

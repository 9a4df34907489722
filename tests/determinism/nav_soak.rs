//! The navigation soak, short: a simulator whose distance fields, shared corner paths, mesh and
//! obstacle tree live from tick 0, against a shadow restored from its snapshot again and again
//! (so rebuilt from the state each time), fed the same commands (orders to shared goals and to
//! goals of their own, formations, buildings dropped onto paths and taken away, units spawned
//! and removed) on a map of doors: their hashes must agree after every tick, and the first one's
//! run, recorded as a replay, verifies. The long run is `cargo run --release --example
//! nav_soak` (`examples/nav_soak.rs`).

#[path = "../../examples/common/nav_soak.rs"]
mod soak;

use lockstep_orca::Command;
use lockstep_orca::replay::{self, RecordOptions, ReplayWriter};

/// Ticks of the short run (25 simulated minutes): 17 order rounds, 15 buildings dropped, 6
/// changes of the middle wall, the shadow restored 6 times.
const TICKS: u64 = 6_000;

#[test]
fn a_shadow_restored_again_and_again_agrees_with_warm_caches_every_tick() {
    let mut world = soak::Soak::new(25);
    let mut recorder = ReplayWriter::begin(Vec::new(), &world.a, RecordOptions::default()).unwrap();
    for _ in 0..TICKS {
        world.tick().unwrap_or_else(|e| panic!("{e}"));
        recorder.push_tick(&world.commands, &world.a).unwrap();
    }
    let (bytes, summary) = recorder.finish(&world.a).unwrap();
    assert_eq!(summary.ticks, TICKS);
    assert_eq!(summary.final_hash, world.a.state_hash());
    let report = replay::verify_bytes(&bytes).unwrap();
    assert!(report.is_match(), "{:?}", report.divergence());
    // The run did what it is for: restores mid-walk, plans from fields and searches, units
    // through the doors, buildings dropped and taken away, the middle wall changed.
    let c = world.counts;
    assert!(c.restores >= 5, "{c:?}");
    assert!(c.rounds >= 15, "{c:?}");
    assert!(c.drops >= 15, "{c:?}");
    assert!(c.served >= 2 * soak::UNITS as u64, "{c:?}");
    assert!(c.crossings >= 1_000, "{c:?}");
    assert!(c.wall_changes >= 5, "{c:?}");
    assert!(summary.commands >= 3_000, "{summary:?}");
}

#[test]
fn the_soak_catches_a_shadow_that_differs() {
    // The control: one order given to the shadow alone is a disagreement at the next tick.
    let mut world = soak::Soak::new(25);
    for _ in 0..40 {
        world.tick().unwrap_or_else(|e| panic!("{e}"));
    }
    let id = world.b.agent_ids()[7];
    let tick = world.b.tick();
    world.b.queue_command(tick, Command::Stop { id }).unwrap();
    let err = world.tick().expect_err("a shadow that differs");
    assert!(err.contains("the shadow's"), "{err}");
}

//! The parallel step (feature `parallel`) is bit-identical to the serial one: every golden
//! scene, hashed at every tick, and random scenes with obstacles, compared snapshot byte for
//! snapshot byte after every tick, on thread pools of 1, 2 and 3 threads. (The golden
//! snapshots themselves, produced by the serial build, are checked by `golden::` when this
//! binary is built with the feature: `cargo test --features parallel --test determinism`.)

use crate::det_support;
use lockstep_orca::{Simulator, Vec2};
use proptest::prelude::*;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[cfg(feature = "scenario")]
#[test]
fn every_golden_scene_hashes_the_same_at_every_tick_on_1_2_and_3_threads() {
    use lockstep_orca::golden::golden_scenes;
    use lockstep_orca::scenario::{RunOptions, Scenario};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenes = golden_scenes(root).unwrap();
    assert!(scenes.len() >= 19, "{} scenes", scenes.len());
    let run = |path: &std::path::Path| {
        let scenario = Scenario::load(path).unwrap();
        let (mut sim, driver) = scenario.build().unwrap();
        let options = RunOptions {
            hash_every: 1,
            ..RunOptions::default()
        };
        driver.run(&mut sim, &options).unwrap().golden_text("scene")
    };
    for (name, path) in &scenes {
        let serial = pool(1).install(|| run(path));
        assert!(serial.lines().count() > 10, "{name}: {serial}");
        for threads in [2, 3] {
            let parallel = pool(threads).install(|| run(path));
            assert!(serial == parallel, "{name}: {threads} threads differ");
        }
    }
}

/// Steps `sim` `ticks` times on `threads` threads; the snapshot, every agent's neighbours and
/// outcome after each tick.
fn trace(mut sim: Simulator, threads: usize, ticks: usize) -> Vec<(Vec<u8>, String)> {
    pool(threads).install(|| {
        (0..ticks)
            .map(|_| {
                sim.step().unwrap();
                let detail = sim
                    .agent_ids()
                    .iter()
                    .map(|&id| {
                        format!(
                            "{:?}{:?};",
                            sim.agent_neighbors(id).unwrap(),
                            sim.agent_outcome(id).unwrap()
                        )
                    })
                    .collect::<String>();
                let stats = format!("{:?}", sim.step_stats());
                (sim.snapshot(), detail + &stats)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random scenes of 65 to 700 agents (two to eleven chunks of 64 slots) with obstacles.
    #[test]
    fn random_scenes_step_the_same_on_1_2_and_3_threads(seed in any::<u64>(), n in 65usize..700) {
        let sim = det_support::random_scene_with_obstacles(seed, n, n / 20, 25.0, Vec2::ZERO);
        let serial = trace(sim.clone(), 1, 4);
        for threads in [2, 3] {
            let parallel = trace(sim.clone(), threads, 4);
            prop_assert!(serial == parallel, "{} threads differ", threads);
        }
    }
}

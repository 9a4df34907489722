//! RVO2's Blocks example: 100 agents cross between four blocks to the opposite corners.
//!
//! `cargo run --release --example blocks [seed]` prints ticks, goals reached, minimum agent
//! clearance and minimum obstacle clearance. The scene is `fixtures/scenarios/blocks.toml` (the
//! same file the golden test, the runner and the obstacle tests load); the seed replaces the
//! file's perturbation seed and the tick limit is raised to 40,000. RVO2's own perturbation
//! (`rand()`) is replaced by a seeded SplitMix64 one, so each seed gives the same run on every
//! machine.

mod common;

fn main() {
    let seed = common::seed_arg("blocks");
    common::run_scene("blocks", seed);
}

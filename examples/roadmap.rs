//! RVO2's Roadmap example: the Blocks scene, agents steering along visibility-roadmap
//! shortest paths (the scenario's `roadmap` policy: graph built with `query_visibility`,
//! Dijkstra from each goal, integer distances).
//!
//! `cargo run --release --example roadmap [seed]` prints ticks, goals reached, minimum agent
//! clearance and minimum obstacle clearance. The scene is `fixtures/scenarios/roadmap.toml`
//! (the same file the golden test and the obstacle tests load).

mod common;

fn main() {
    let seed = common::seed_arg("roadmap");
    common::run_scene("roadmap", seed);
}

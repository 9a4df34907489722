//! RVO2's Roadmap example: the Blocks scene, agents steering along visibility-roadmap
//! shortest paths (roadmap built with `query_visibility`, Dijkstra from each goal).
//!
//! `cargo run --release --example roadmap [seed]` prints ticks, goals reached, minimum agent
//! clearance and minimum obstacle clearance.

#[path = "../tests/common/obstacle_scenes.rs"]
mod scenes;

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .map_or(1, |s| s.parse().expect("seed"));
    let (mut scene, map) = scenes::roadmap(seed);
    let start = std::time::Instant::now();
    let r = scenes::run(&mut scene, 40_000, |s| scenes::set_roadmap_prefs(s, &map));
    println!(
        "roadmap seed {seed}: ticks {}, goals reached {}/{}, min agent clearance {:.4}, min obstacle clearance {:.3e}, wall crossings {}, state hash {:016x}, {:.2?}",
        r.ticks,
        r.reached,
        r.agents,
        r.min_agent_clearance,
        r.min_obstacle_clearance,
        r.crossings,
        scene.sim.state_hash(),
        start.elapsed()
    );
}

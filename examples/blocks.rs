//! RVO2's Blocks example: 100 agents cross between four blocks to the opposite corners.
//!
//! `cargo run --release --example blocks [seed]` prints ticks, goals reached, minimum agent
//! clearance and minimum obstacle clearance. RVO2's own perturbation (`rand()`) is replaced by
//! a seeded SplitMix64 one, so each seed gives the same run on every machine.

#[path = "../tests/common/obstacle_scenes.rs"]
mod scenes;

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .map_or(1, |s| s.parse().expect("seed"));
    let mut scene = scenes::blocks(seed);
    let start = std::time::Instant::now();
    let r = scenes::run(&mut scene, 40_000, scenes::set_goal_prefs);
    println!(
        "blocks seed {seed}: ticks {}, goals reached {}/{}, min agent clearance {:.4}, min obstacle clearance {:.3e}, wall crossings {}, state hash {:016x}, {:.2?}",
        r.ticks,
        r.reached,
        r.agents,
        r.min_agent_clearance,
        r.min_obstacle_clearance,
        r.crossings,
        scene.sim.state_hash(),
        start.elapsed()
    );
    // Agents still short of their goal, if any.
    for (i, &id) in scene.sim.agent_ids().iter().enumerate() {
        let p = scene.sim.agent_position(id).unwrap();
        let (dx, dy) = (p - scene.goals[i]).to_f64();
        if dx.hypot(dy) > scene.goal_radius {
            println!(
                "  not reached: agent {} at {:?}, goal {:?}, velocity {:?}",
                id.0,
                p.to_f64(),
                scene.goals[i].to_f64(),
                scene.sim.agent_velocity(id).unwrap().to_f64()
            );
        }
    }
}

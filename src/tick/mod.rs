//! The tick, stage by stage.
//!
//! [`Simulator::step`](crate::Simulator::step) runs these stages, in order. "Runs in" names
//! the function that runs the stage (`file: function`; crate-private functions are named, not
//! linked); "read first" names the plain form of
//! what it computes (the oracle its fast path is tested against), where there is one.
//!
//! | stage | runs in | reads | writes | read first |
//! | --- | --- | --- | --- | --- |
//! | 1. inputs | `sim/inputs.rs`: `Simulator::apply_inputs` | the pending commands due now | the agents, the undo log | [`Simulator::apply`](crate::Simulator::apply) (one command outside the queue) |
//! | 1a. navigate | `sim/navigation.rs`: `Simulator::navigate` | the navigation records and settings, the mesh (rebuilt first if an obstacle command changed the set), orders, positions, parameters | navigating agents' records and orders (planned paths), the budget debt, the undo log | [`Simulator::nav_path`](crate::Simulator::nav_path) (one search) |
//! | 1b. orders | `sim/orders.rs`: `Simulator::steer_orders` | orders, positions, parameters, the steering, the obstacle tree (obstacles near shared goals: arrival's rule against the crowd) | ordered agents' preferred velocities and path progress, the undo log | `orders.rs`: `Order::advanced`, `Steering::pref_velocity` (one order) |
//! | 2. obstacles | `sim/mod.rs`: `Simulator::build_obstacles` ([`ObstacleSet::ensure_built`](crate::obstacle::ObstacleSet::ensure_built)), first called at the start of stage 1b (or in stage 1a's traffic control, where navigation runs: it asks whether walls crowd a crowd's goal) | the obstacle set | its BSP tree, when the set changed | |
//! | 3. agent tree | `tick/neighbors.rs`: `Workspace::build_agent_tree` | positions | the kd-tree | |
//! | 4. neighbours | `tick/neighbors.rs`: `Workspace::find_neighbors_and_pairs`, `ChunkLists::prepare` | kd-tree, positions, parameters | each slot's neighbour slots, nearest first | `spatial/kdtree.rs`: `AgentTree::query_slots_hinted` |
//! | 5. pairs | `tick/neighbors.rs`: `ChunkLists::solve_pairs` | neighbour lists, agent states | each slot's pair solutions with its neighbours of higher id | [`agent_line`](crate::orca::lines::agent_line) ([`PairHalf::solve`](crate::orca::lines::PairHalf::solve)) |
//! | 5b. steer | `tick/solve.rs`: `steer_slot` (`tick/modelled.rs`: `steer_slot_modelled`) | neighbour lists, agent states, stall counters | the slot's preferred velocity for its LP ([`crate::liveness`]) | `liveness.rs`: `steer` with neighbours by value (`Other`) |
//! | 6. ORCA lines | `tick/solve.rs`: `SlotWork::lines_of` (`tick/modelled.rs`: `SlotWork::lines_of_modelled`) | obstacles, pairs, agent states, the slot's cap on its obstacle time horizon (`sim/navigation_traffic.rs`: `Simulator::obstacle_horizon_caps`, made after stage 2 from the traffic levels and the units near lane portals that stage 1a found) | the slot's lines (obstacle lines first) | [`agent_line`](crate::orca::lines::agent_line), [`PairHalf::line_with_share`](crate::orca::lines::PairHalf::line_with_share), [`deep_overlap_line`](crate::orca::lines::deep_overlap_line), [`ObstacleSet::agent_lines`](crate::obstacle::ObstacleSet::agent_lines) |
//! | 7. solve | `tick/solve.rs`: [`lp::solve_with_path`](crate::orca::lp::solve_with_path), `outcome_of` (`tick/modelled.rs`: `solve_modelled`) | the slot's lines, steered preferred velocity | each slot's new velocity, [`SolvePath`](crate::orca::lp::SolvePath), stall counter and [`AgentOutcome`] | `orca::lp`: `lp1_eager`, `lp3_eager_with` |
//! | 8. integrate | `tick/solve.rs`: `SlotWork::finish_slot`, then `sim/mod.rs`: `Simulator::integrate` (`Workspace::commit_motion`) | new velocities, stall counters | each slot's new position, then positions, velocities, stall counters, time, tick (all or nothing) | |
//! | 9. finish | `sim/inputs.rs`: `Simulator::finish_inputs` | the step's result | commits the inputs, or undoes them | |
//!
//! `tests/determinism/pair_reuse.rs` checks stages 5 to 7 against their plain forms (with
//! equal and random priorities, obstacles and agent models).
//!
//! Stages 4 to 8 run per agent, in two passes over the slots: stages 4 and 5, then (after
//! every list is complete) stages 5b to 8 up to the new position, back to back for each slot
//! (its lines are built, then solved, while they are in cache, so only one slot's lines are
//! held at a time). Each slot's work reads only the state before the step and the outputs of
//! the earlier pass, and writes only its own entries. The passes run chunk by chunk (64
//! slots), and with the `parallel` feature the chunks run on rayon's current thread pool: the
//! result is bit-identical whatever the number of threads, because no entry depends on the
//! order in which chunks run and the step's counters are integer sums. Committing the motion
//! (the domain check, then the new positions, velocities and stall counters) is serial; stage
//! 1b (computing and applying the order steps in one pass) runs in parallel with the feature.
//!
//! **Pairs are solved once.** ORCA's line for a pair is, in the frame of the lower id, exactly
//! the negation of the higher id's ([`crate::orca::lines`]). When the higher id `h` lists the
//! lower id `l` as a neighbour, `l` lists `h`, and both use the same time horizon, the lines
//! stage of `h` reads the solution `l`'s pairs stage stored instead of solving again (and
//! solves the pair itself otherwise). The pairs stage stores only the solutions with higher
//! neighbours, and the lines stage reads them after the pass that wrote them: no entry depends
//! on another entry of the same pass. When every agent has the same priority and no agent
//! model is in use, every line is a half share, and the pairs are stored halved.
//!
//! # Files
//! * `stats.rs`: the diagnostics API ([`StepStats`], [`StageTimes`], [`AgentOutcome`]);
//! * `workspace.rs`: the workspace, its chunks and the pre-step view of the agents;
//! * `neighbors.rs`: stages 3 to 5;
//! * `solve.rs`: stages 5b to 8 on RVO2's path;
//! * `modelled.rs`: stages 5b to 8 when some agent model is in use.
//!
//! The outputs live in a workspace that is never state: it is not hashed, snapshotted or
//! compared, and it keeps its buffers between ticks so a steady tick allocates nothing.

mod modelled;
mod neighbors;
mod solve;
mod stats;
mod workspace;

pub(crate) use stats::StageClock;
pub use stats::{AgentOutcome, StageTimes, StepStats};
/// Slots per chunk of the per-agent stages (the parallel stage 1b splits its work by it too).
#[cfg(feature = "parallel")]
pub(crate) use workspace::CHUNK;
pub(crate) use workspace::{Pre, Workspace};

#[cfg(test)]
mod tests {
    use crate::agent::AgentParams;
    use crate::math::{Fx, Vec2};
    use crate::obstacle::ObstacleShape;
    use crate::sim::{Simulator, SimulatorParams};

    #[test]
    fn stats_count_what_the_stages_did() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        assert_eq!(*sim.step_stats(), super::StepStats::default());
        let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
        let b = sim.add_agent(Vec2::from_int(4, 0)).unwrap();
        // Far away, and with a shorter horizon: it never shares a solution.
        let c = sim
            .add_agent_with(
                Vec2::from_int(100, 0),
                AgentParams {
                    time_horizon: Fx::from_num(5),
                    ..AgentParams::default()
                },
            )
            .unwrap();
        sim.set_agent_pref_velocity(a, Vec2::from_int(5, 0))
            .unwrap();
        sim.set_agent_pref_velocity(b, Vec2::from_int(-1, 0))
            .unwrap();
        sim.add_obstacle(ObstacleShape::Polygon(vec![
            Vec2::from_int(101, -10),
            Vec2::from_int(103, -10),
            Vec2::from_int(103, 10),
            Vec2::from_int(101, 10),
        ]))
        .unwrap();
        sim.step().unwrap();
        let s = *sim.step_stats();
        assert_eq!(s.tick, 0);
        assert_eq!(s.agents, 3);
        assert!(s.obstacle_tree_rebuilt);
        // a and b see each other: one pair, solved by a, reused by b.
        assert_eq!(s.neighbors_found, 2);
        assert_eq!(s.agent_lines, 2);
        assert_eq!((s.pairs_solved, s.pairs_reused), (1, 1));
        // Only c is near the block.
        assert!(s.obstacle_lines >= 1, "{s:?}");
        assert_eq!(sim.agent_neighbors(c).unwrap(), &[]);
        assert_eq!(sim.agent_neighbors(a).unwrap(), &[b]);
        sim.step().unwrap();
        let s = *sim.step_stats();
        assert_eq!(s.tick, 1);
        assert!(!s.obstacle_tree_rebuilt);
        // A different horizon: c's pair with a neighbour is solved by both sides.
        sim.set_agent_position(c, Vec2::from_int(4, 3)).unwrap();
        sim.step().unwrap();
        let s = *sim.step_stats();
        assert_eq!(s.neighbors_found, 6);
        assert_eq!(s.pairs_solved + s.pairs_reused, 6);
        assert_eq!(s.pairs_reused, 1); // only a–b
    }

    #[test]
    fn agents_pushing_beyond_their_max_speed_are_at_max_speed() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
        let b = sim.add_agent(Vec2::from_int(50, 0)).unwrap();
        sim.set_agent_pref_velocity(a, Vec2::from_int(7, 3))
            .unwrap();
        sim.set_agent_pref_velocity(b, Vec2::from_int(1, 0))
            .unwrap();
        sim.step().unwrap();
        assert_eq!(sim.step_stats().at_max_speed, 1);
        assert_eq!(sim.step_stats().lp3_fallbacks, 0);
    }
}

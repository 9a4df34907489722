//! Scenes with obstacles: RVO2's Roadmap reaches every goal, and the wall-holding
//! scenes (corner crush in a clockwise room, counterflow through a one-agent door, a corridor
//! entered from both ends) never let an agent centre cross a wall nor obstacle clearance fall
//! below -0.001. RVO2's Blocks is checked against RVO2's own distribution of runs in
//! `rvo2_float` (`blocks_ticks_are_drawn_from_rvo2s_distribution`).
#![allow(clippy::float_arithmetic)]

use crate::common;
use common::obstacle_scenes as scenes;

const CLEARANCE_FLOOR: f64 = -0.001;

#[test]
fn roadmap_reaches_all_goals_within_rvo2_band() {
    let (mut scene, map) = scenes::roadmap(1);
    let r = scenes::run(&mut scene, 20_000, |s| scenes::set_roadmap_prefs(s, &map));
    println!("roadmap: {r:?}");
    assert_eq!(r.reached, 100);
    assert!((2588..=4810).contains(&r.ticks), "ticks {}", r.ticks);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
    assert_eq!(r.crossings, 0);
}

#[test]
fn corner_crush_in_clockwise_room_holds() {
    let mut scene = scenes::corner_crush();
    let r = scenes::run(&mut scene, 600, scenes::push_to_goals);
    println!("corner crush: {r:?}");
    assert_eq!(r.ticks, 600);
    assert_eq!(r.crossings, 0);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
}

#[test]
fn counterflow_through_one_agent_door_holds() {
    let mut scene = scenes::door_counterflow();
    let r = scenes::run(&mut scene, 2_000, scenes::door_prefs);
    println!("door: {r:?}");
    assert_eq!(r.crossings, 0);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
}

#[test]
fn corridor_entered_from_both_ends_holds() {
    let mut c = scenes::corridor();
    let mut mon = scenes::Monitor::new(&c.scene.sim);
    for _ in 0..1_200 {
        let before = c.scene.sim.num_agents();
        c.prefs();
        if c.scene.sim.num_agents() != before {
            // New agents: restart position tracking for them (no previous position).
            let worst = mon.report.min_obstacle_clearance;
            let crossings = mon.report.crossings;
            let pair = mon.report.min_agent_clearance;
            mon = scenes::Monitor::new(&c.scene.sim);
            mon.report.min_obstacle_clearance = mon.report.min_obstacle_clearance.min(worst);
            mon.report.min_agent_clearance = mon.report.min_agent_clearance.min(pair);
            mon.report.crossings += crossings;
        }
        c.scene.sim.step().unwrap();
        mon.observe(&c.scene.sim);
    }
    let reached = scenes::reached(&c.scene);
    println!(
        "corridor: {:?}, spawned {:?}, reached {reached}",
        mon.report, c.spawned
    );
    assert_eq!(c.spawned, [20, 20]);
    assert_eq!(mon.report.crossings, 0);
    assert!(
        mon.report.min_obstacle_clearance >= CLEARANCE_FLOOR,
        "{:?}",
        mon.report
    );
}

/// One step, from the door scene's first penetration (tick 688, agent 12, before the exact
/// foreign-leg test): an agent resting 4 ulps beyond its radius against a two-vertex wall,
/// sliding along it, asked to move into it. The wall's far-end leg used to round to "foreign",
/// the wall added no ORCA line, and the agent stepped into the wall.
#[test]
fn agent_resting_on_a_wall_cannot_step_into_it() {
    let mut sim = lockstep_orca::Simulator::new(scenes::crowd_params()).unwrap();
    sim.add_obstacle(lockstep_orca::ObstacleShape::Polyline(vec![
        scenes::v(0.0, 0.6),
        scenes::v(0.0, 5.0),
    ]))
    .unwrap();
    let id = sim
        .add_agent(lockstep_orca::Vec2::from_bits(
            -2_147_483_652,
            2_614_744_367,
        ))
        .unwrap();
    sim.set_agent_velocity(id, lockstep_orca::Vec2::from_bits(6, -97_800_601))
        .unwrap();
    sim.set_agent_pref_velocity(id, scenes::v(1.0, -1.0))
        .unwrap();
    let mut mon = scenes::Monitor::new(&sim);
    sim.step().unwrap();
    mon.observe(&sim);
    println!("one step: {:?}", mon.report);
    assert!(mon.report.min_obstacle_clearance >= 0.0, "{:?}", mon.report);
}

/// The mechanism of the Blocks seed-1 jam, alone: two touching agents head-on along the face
/// x = 10 of a block, each pressed into it by its goal direction and wanting to pass the other.
/// Each optimum is the corner of the wall line and the agent line ("don't approach"), so
/// neither moves, perturbation or not: ORCA (and RVO2) has no deadlock resolution.
#[test]
fn head_on_pair_against_a_wall_jams() {
    let mut sim = lockstep_orca::Simulator::new(scenes::blocks_params()).unwrap();
    sim.add_obstacle(lockstep_orca::ObstacleShape::Polygon(vec![
        scenes::v(10.0, 40.0),
        scenes::v(10.0, 10.0),
        scenes::v(40.0, 10.0),
        scenes::v(40.0, 40.0),
    ]))
    .unwrap();
    sim.add_agent(scenes::v(8.0, 24.0)).unwrap();
    sim.add_agent(scenes::v(8.0, 20.0)).unwrap();
    let mut scene = scenes::Scene {
        sim,
        goals: vec![scenes::v(75.0, -75.0), scenes::v(75.0, 75.0)],
        goal_radius: 20.0,
        seed: 1,
    };
    let start: Vec<_> = [0, 1]
        .map(|i| scene.sim.agent_position(lockstep_orca::AgentId(i)).unwrap())
        .to_vec();
    let r = scenes::run(&mut scene, 2_000, scenes::set_goal_prefs);
    let end: Vec<_> = [0, 1]
        .map(|i| scene.sim.agent_position(lockstep_orca::AgentId(i)).unwrap())
        .to_vec();
    println!("head-on pair: {start:?} -> {end:?}, {r:?}");
    assert_eq!(r.reached, 0);
    // Not a bit moved: both optima are exactly zero.
    assert_eq!(start, end);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
}

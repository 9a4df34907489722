//! Scenes with obstacles: RVO2's Blocks and Roadmap reach every goal, and the wall-holding
//! scenes (corner crush in a clockwise room, counterflow through a one-agent door, a corridor
//! entered from both ends) never let an agent centre cross a wall nor obstacle clearance fall
//! below -0.001.
#![allow(clippy::float_arithmetic)]

mod common;
use common::obstacle_scenes as scenes;

const CLEARANCE_FLOOR: f64 = -0.001;

#[test]
fn blocks_reaches_all_goals_within_rvo2_band() {
    let mut scene = scenes::blocks(1);
    let r = scenes::run(&mut scene, 20_000, scenes::set_goal_prefs);
    println!("blocks: {r:?}");
    assert_eq!(r.reached, 100);
    assert!((3465..=12967).contains(&r.ticks), "ticks {}", r.ticks);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
    assert_eq!(r.crossings, 0);
}

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

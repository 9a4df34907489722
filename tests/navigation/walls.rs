//! The map boundary's walls: with navigation on and an explicit boundary, the boundary is a
//! room of the avoidance (`ObstacleSet::walls`), so a crowd pushed against the map's edge
//! stays inside; the walls are derived from the settings, also after a restore.

use lockstep_orca::navigation::NavParams;
use lockstep_orca::{Command, Fx, Simulator, SimulatorParams, Vec2};

const HALF: i32 = 10;

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// The square `[-HALF, HALF]²`, counter-clockwise, or clockwise when `cw`.
fn square(cw: bool) -> Vec<Vec2> {
    let mut ring = vec![
        v(-HALF, -HALF),
        v(HALF, -HALF),
        v(HALF, HALF),
        v(-HALF, HALF),
    ];
    if cw {
        ring.reverse();
    }
    ring
}

/// 48 agents in the left half of the square, each ordered (plain `MoveTo`) to a point 20
/// units past its right edge, with navigation on and the square as its boundary when `walls`.
fn pushed_crowd(walls: bool) -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    if walls {
        sim.set_navigation(Some(NavParams {
            boundary: Some(square(false)),
            ..NavParams::default()
        }))
        .unwrap();
    }
    for i in 0..48 {
        let id = sim
            .add_agent(v(-8 + 2 * (i % 6), -7 + 2 * (i / 6)))
            .unwrap();
        let goal = v(HALF + 20, -7 + 2 * (i / 6));
        sim.queue_command(0, Command::MoveTo { id, goal }).unwrap();
    }
    sim
}

/// How far the agent furthest past the square's right edge is beyond it, less its radius
/// (positive: its disc crosses the edge).
fn worst_overreach(sim: &Simulator) -> Fx {
    let r = sim.agent_defaults().radius;
    let edge = Fx::from_num(HALF);
    sim.agents()
        .positions()
        .iter()
        .map(|p| p.x + r - edge)
        .max()
        .unwrap()
}

#[test]
fn a_crowd_pushed_at_the_map_edge_stays_inside() {
    let mut held = pushed_crowd(true);
    let mut free = pushed_crowd(false);
    let tolerance = Fx::lit("0.001");
    let mut worst = Fx::MIN;
    for _ in 0..200 {
        held.step().unwrap();
        free.step().unwrap();
        worst = worst.max(worst_overreach(&held));
    }
    assert!(
        worst <= tolerance,
        "an agent's disc crossed the boundary by {worst}"
    );
    // Without the walls the same crowd walks off the map (the control).
    let escaped = free
        .agents()
        .positions()
        .iter()
        .filter(|p| p.x > Fx::from_num(HALF))
        .count();
    assert!(escaped >= 40, "only {escaped} left the map without walls");
}

#[test]
fn the_walls_follow_the_settings() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    assert_eq!(sim.obstacles().walls(), None);
    // Either winding gives the same clockwise room.
    for cw in [false, true] {
        sim.set_navigation(Some(NavParams {
            boundary: Some(square(cw)),
            ..NavParams::default()
        }))
        .unwrap();
        assert_eq!(sim.obstacles().walls(), Some(&square(true)[..]), "cw {cw}");
    }
    // A rejected setting leaves them; no boundary or no navigation removes them.
    let bad = NavParams {
        boundary: Some(vec![v(0, 0), v(1, 0)]),
        ..NavParams::default()
    };
    assert!(sim.set_navigation(Some(bad)).is_err());
    assert_eq!(sim.obstacles().walls(), Some(&square(true)[..]));
    sim.set_navigation(Some(NavParams::default())).unwrap();
    assert_eq!(sim.obstacles().walls(), None);
    sim.set_navigation(Some(NavParams {
        boundary: Some(square(false)),
        ..NavParams::default()
    }))
    .unwrap();
    sim.set_navigation(None).unwrap();
    assert_eq!(sim.obstacles().walls(), None);
    // Neither the obstacle list nor its id counter sees them.
    assert_eq!(sim.obstacles().len(), 0);
}

/// [`pushed_crowd`] with walls after 40 ticks, the crowd pressing against them.
fn pressed_crowd() -> Simulator {
    let mut sim = pushed_crowd(true);
    for _ in 0..40 {
        sim.step().unwrap();
    }
    sim
}

/// Steps `sim` and `restored` side by side for `ticks`, their hashes equal after every tick,
/// `restored` restored from its own snapshot every five ticks when `again`.
fn step_beside(sim: &mut Simulator, restored: &mut Simulator, ticks: u32, again: bool) {
    for tick in 0..ticks {
        sim.step().unwrap();
        restored.step().unwrap();
        assert_eq!(sim.state_hash(), restored.state_hash(), "tick {tick}");
        if again && tick % 5 == 2 {
            *restored = Simulator::restore(&restored.snapshot()).unwrap();
        }
    }
}

/// The walls are derived from the settings: a restored copy has them and continues
/// bit-identically while the crowd presses against them (restored again every five ticks).
#[test]
fn a_restore_rebuilds_the_walls_and_continues_bit_identically() {
    let mut sim = pressed_crowd();
    let mut restored = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(restored.obstacles().walls(), sim.obstacles().walls());
    step_beside(&mut sim, &mut restored, 120, true);
    assert!(worst_overreach(&restored) <= Fx::lit("0.001"));
}

/// A set replaced through `obstacles_mut` (here by an empty one, the walls' owner gone) gets
/// the settings' walls again before the tree is next built, as a restored copy has them.
#[test]
fn a_replaced_obstacle_set_gets_the_walls_back() {
    let mut sim = pressed_crowd();
    *sim.obstacles_mut() = lockstep_orca::obstacle::ObstacleSet::default();
    let mut restored = Simulator::restore(&sim.snapshot()).unwrap();
    step_beside(&mut sim, &mut restored, 80, false);
    assert_eq!(sim.obstacles().walls(), Some(&square(true)[..]));
    assert!(worst_overreach(&sim) <= Fx::lit("0.001"));
}

//! Navigated legs: a [`Command::QueueMove`] given to a navigating agent queues its goal as a
//! leg planned over the mesh once the current goal is reached ([`Simulator::nav_legs`]), as a
//! shift-click queues waypoints in an RTS; the plain orders end them; the bounds refuse and
//! change nothing; groups queue them too.
// Floats measure distances here, never feed the simulation.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::navigation::{MAX_NAV_LEGS, NavParams, PathStatus};
use lockstep_orca::orders::OrderStatus;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, SimError, Simulator, SimulatorParams, Vec2,
};

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

fn dist(a: Vec2, b: Vec2) -> f64 {
    (a - b).length().to_num::<f64>()
}

/// Distance from `p` to the wall `[9, 11] × [-10, 10]` (also `group_navigate.rs`'s).
pub(crate) fn wall_distance(p: Vec2) -> f64 {
    let (x, y) = p.to_f64();
    let dx = (9.0 - x).max(x - 11.0).max(0.0);
    let dy = (-10.0 - y).max(y - 10.0).max(0.0);
    dx.hypot(dy)
}

/// A wall across `x = 9..11`, `y = -10..10`, navigation on inside `[-100, 100]²`.
pub(crate) fn walled() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let wall = ObstacleShape::Polygon(vec![v(9, -10), v(11, -10), v(11, 10), v(9, 10)]);
    sim.add_obstacle(wall).unwrap();
    sim.set_navigation(Some(NavParams {
        boundary: Some(vec![v(-100, -100), v(100, -100), v(100, 100), v(-100, 100)]),
        ..NavParams::default()
    }))
    .unwrap();
    sim
}

/// Agent `a` at the origin of [`walled`], navigating to `goal` with `legs` queued behind it.
fn with_legs(goal: Vec2, legs: &[Vec2]) -> (Simulator, AgentId) {
    let mut sim = walled();
    let a = sim.add_agent(v(0, 0)).unwrap();
    sim.apply(&Command::NavigateTo { id: a, goal }).unwrap();
    for &goal in legs {
        sim.apply(&Command::QueueMove { id: a, goal }).unwrap();
    }
    (sim, a)
}

/// Three goals, each on the other side of the wall from the one before: each leg is planned
/// round the wall when the one before is done, in order, without stopping at the waypoints,
/// never touching the wall; the last one is reached and kept.
#[test]
fn queued_legs_are_planned_round_the_wall_one_after_the_other() {
    let mut sim = walled();
    let a = sim.add_agent(v(0, 0)).unwrap();
    let goals = [v(20, 0), v(-5, 5), v(20, -5)];
    sim.queue_command(
        0,
        Command::NavigateTo {
            id: a,
            goal: goals[0],
        },
    )
    .unwrap();
    for &goal in &goals[1..] {
        sim.queue_command(0, Command::QueueMove { id: a, goal })
            .unwrap();
    }
    sim.step().unwrap();
    assert_eq!(sim.nav_legs(a).unwrap(), &goals[1..]);
    let r = sim.nav_status(a).unwrap().unwrap();
    assert_eq!(
        (r.goal(), r.status()),
        (goals[0], Some(PathStatus::Complete))
    );
    let radius = AgentParams::default().radius.to_num::<f64>();
    let max_speed = AgentParams::default().max_speed.to_num::<f64>();
    let mut leg = 0;
    let mut changes = Vec::new();
    let mut speeds = Vec::new();
    for _ in 0..600 {
        sim.step().unwrap();
        let p = sim.agent_position(a).unwrap();
        assert!(
            wall_distance(p) >= radius - 1e-3,
            "tick {}: {p:?}",
            sim.tick()
        );
        let (vx, vy) = sim.agent_velocity(a).unwrap().to_f64();
        speeds.push(vx.hypot(vy));
        let r = sim.nav_status(a).unwrap().unwrap();
        if r.goal() != goals[leg] {
            // The next leg, taken within the waypoint tolerance of the one before.
            leg += 1;
            assert_eq!(r.goal(), goals[leg]);
            assert_eq!(sim.nav_legs(a).unwrap(), &goals[leg + 1..]);
            assert!(
                dist(p, goals[leg - 1]) <= radius + 2.0 * max_speed * 0.25,
                "{p:?}"
            );
            // Planned at once, in the stage that took it: a path round the wall.
            assert_eq!(r.planned_tick(), sim.tick() - 1);
            assert_eq!(r.status(), Some(PathStatus::Complete));
            assert!(sim.agent_order(a).unwrap().unwrap().path().len() >= 3);
            changes.push(speeds.len() - 1);
        }
    }
    assert_eq!(leg, 2, "legs taken: {changes:?}");
    assert!(sim.nav_legs(a).unwrap().is_empty());
    assert!(dist(sim.agent_position(a).unwrap(), goals[2]) < 0.01);
    assert_eq!(
        sim.order_status(a).unwrap(),
        Some(OrderStatus::Arrived),
        "the last goal is kept"
    );
    // Never stopped at a waypoint: about full speed in the ticks around each change.
    for &k in &changes {
        let low = speeds[k - 2..=k + 2]
            .iter()
            .copied()
            .fold(f64::MAX, f64::min);
        assert!(
            low > 0.5 * max_speed,
            "tick {k}: {:?}",
            &speeds[k - 2..=k + 2]
        );
    }
}

/// `MoveTo`, `NavigateTo` and `Stop` drop the queued legs with the rest of the order; a
/// `QueueMove` to an agent that does not navigate (or with navigation off) appends a plain
/// waypoint, as before.
#[test]
fn other_orders_drop_the_legs_and_plain_orders_queue_waypoints() {
    let mut sim = walled();
    let ids: Vec<AgentId> = (0..4)
        .map(|i| sim.add_agent(v(0, 4 * i)).unwrap())
        .collect();
    for &id in &ids[..3] {
        sim.apply(&Command::NavigateTo { id, goal: v(20, 0) })
            .unwrap();
        sim.apply(&Command::QueueMove { id, goal: v(30, 0) })
            .unwrap();
        assert_eq!(sim.nav_legs(id).unwrap(), &[v(30, 0)]);
    }
    sim.apply(&Command::MoveTo {
        id: ids[0],
        goal: v(1, 1),
    })
    .unwrap();
    sim.apply(&Command::NavigateTo {
        id: ids[1],
        goal: v(-20, 0),
    })
    .unwrap();
    sim.apply(&Command::Stop { id: ids[2] }).unwrap();
    for &id in &ids[..3] {
        assert!(sim.nav_legs(id).unwrap().is_empty(), "agent {}", id.0);
    }
    assert!(sim.nav_status(ids[1]).unwrap().is_some());
    // A plain order: the QueueMove is a waypoint of its path.
    sim.apply(&Command::MoveTo {
        id: ids[3],
        goal: v(-5, 0),
    })
    .unwrap();
    sim.apply(&Command::QueueMove {
        id: ids[3],
        goal: v(-5, 9),
    })
    .unwrap();
    let order = sim.agent_order(ids[3]).unwrap().unwrap();
    assert_eq!(order.path(), &[v(-5, 0), v(-5, 9)]);
    assert!(sim.nav_legs(ids[3]).unwrap().is_empty());
    // Navigation off before its first plan: the record went straight, so a QueueMove is a
    // plain waypoint and the record ends.
    sim.set_navigation(None).unwrap();
    sim.apply(&Command::QueueMove {
        id: ids[1],
        goal: v(-30, 0),
    })
    .unwrap();
    assert_eq!(sim.nav_status(ids[1]).unwrap(), None);
    assert_eq!(sim.agent_order(ids[1]).unwrap().unwrap().goal(), v(-30, 0));
    assert_eq!(
        sim.nav_legs(AgentId(99)),
        Err(SimError::UnknownAgent(AgentId(99)))
    );
}

/// Past [`MAX_NAV_LEGS`] legs a `QueueMove` is refused, immediately or queued, and changes
/// nothing (the state hash is the same).
#[test]
fn too_many_legs_are_refused_and_change_nothing() {
    let mut sim = walled();
    let a = sim.add_agent(v(0, 0)).unwrap();
    sim.apply(&Command::NavigateTo {
        id: a,
        goal: v(20, 0),
    })
    .unwrap();
    for k in 0..MAX_NAV_LEGS {
        let goal = v(-50 + (k % 100) as i32, (k / 100) as i32);
        sim.apply(&Command::QueueMove { id: a, goal }).unwrap();
    }
    assert_eq!(sim.nav_legs(a).unwrap().len(), MAX_NAV_LEGS);
    let hash = sim.state_hash();
    let more = Command::QueueMove {
        id: a,
        goal: v(5, 5),
    };
    assert!(matches!(
        sim.apply(&more),
        Err(SimError::OutOfDomain {
            what: "navigation legs",
            ..
        })
    ));
    assert_eq!(sim.state_hash(), hash);
    // A goal outside the domain is refused as for a plain order.
    let far = Vec2::new(Fx::from_num(2_000_000), Fx::ZERO);
    assert!(sim.apply(&Command::QueueMove { id: a, goal: far }).is_err());
    assert_eq!(sim.state_hash(), hash);
    // Queued for a tick, it is skipped and reported.
    sim.queue_command(0, more).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.rejected_commands().len(), 1);
    assert!(sim.nav_legs(a).unwrap().len() <= MAX_NAV_LEGS);
}

/// A queued group move gives its navigating members a navigated leg each (their orders stay,
/// at the slowest member's speed with `slowest`), its other members a waypoint; refused for
/// one member, it changes nothing for any.
#[test]
fn a_queued_group_move_queues_legs_for_navigating_members() {
    let mut sim = walled();
    let ids: Vec<AgentId> = (0..3)
        .map(|i| sim.add_agent(v(0, 4 * i)).unwrap())
        .collect();
    let slow = AgentParams {
        max_speed: Fx::lit("0.5"),
        ..AgentParams::default()
    };
    sim.set_agent_params(ids[2], slow).unwrap();
    for &id in &ids[..2] {
        sim.apply(&Command::NavigateTo { id, goal: v(20, 0) })
            .unwrap();
    }
    sim.apply(&Command::MoveTo {
        id: ids[2],
        goal: v(-5, 0),
    })
    .unwrap();
    sim.set_group(7, &ids).unwrap();
    sim.apply(&Command::GroupMove {
        group: 7,
        goal: v(30, 30),
        queue: true,
        slowest: true,
    })
    .unwrap();
    for &id in &ids[..2] {
        assert_eq!(sim.nav_legs(id).unwrap(), &[v(30, 30)]);
        assert_eq!(sim.nav_status(id).unwrap().unwrap().goal(), v(20, 0));
        let order = sim.agent_order(id).unwrap().unwrap();
        assert_eq!(order.speed(), Some(Fx::lit("0.5")));
    }
    let order = sim.agent_order(ids[2]).unwrap().unwrap();
    assert_eq!(order.path(), &[v(-5, 0), v(30, 30)]);
    assert_eq!(sim.nav_status(ids[2]).unwrap(), None);
    // Member 1 full: the group move is refused and no member changes.
    for k in 1..MAX_NAV_LEGS {
        sim.apply(&Command::QueueMove {
            id: ids[1],
            goal: v(k as i32 % 50, 1),
        })
        .unwrap();
    }
    let hash = sim.state_hash();
    let legs0 = sim.nav_legs(ids[0]).unwrap().to_vec();
    assert!(
        sim.apply(&Command::GroupMove {
            group: 7,
            goal: v(-30, 30),
            queue: true,
            slowest: false,
        })
        .is_err()
    );
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.nav_legs(ids[0]).unwrap(), legs0.as_slice());
    // An unqueued group move ends every member's navigation and its legs.
    sim.apply(&Command::GroupMove {
        group: 7,
        goal: v(-30, 30),
        queue: false,
        slowest: false,
    })
    .unwrap();
    for &id in &ids {
        assert_eq!(sim.nav_status(id).unwrap(), None);
        assert!(sim.nav_legs(id).unwrap().is_empty());
    }
}

/// Navigation turned off while an agent follows a planned leg: its legs stay queued, a
/// `QueueMove` still queues one, the state snapshots and restores (continuing
/// bit-identically), and each leg goes straight when its turn comes.
#[test]
fn legs_outlive_navigation_turned_off_and_go_straight() {
    let (mut sim, a) = with_legs(v(5, 5), &[v(-5, 5)]);
    sim.step().unwrap();
    sim.set_navigation(None).unwrap();
    sim.apply(&Command::QueueMove {
        id: a,
        goal: v(-5, -5),
    })
    .unwrap();
    assert_eq!(sim.nav_legs(a).unwrap(), &[v(-5, 5), v(-5, -5)]);
    let mut copy = Simulator::restore(&sim.snapshot()).unwrap();
    for _ in 0..200 {
        sim.step().unwrap();
        copy.step().unwrap();
        assert_eq!(sim.state_hash(), copy.state_hash());
    }
    // Straight through both legs, at the last one now, its navigation ended.
    assert!(dist(sim.agent_position(a).unwrap(), v(-5, -5)) < 0.01);
    assert!(sim.nav_legs(a).unwrap().is_empty());
    assert_eq!(sim.nav_status(a).unwrap(), None);
}

/// Navigation turned off before the first plan sends the order straight through its goal and
/// its legs as a plain path (its navigation ends); turned on again, the path is kept.
#[test]
fn legs_go_straight_when_navigation_is_turned_off_before_the_plan() {
    let (mut sim, a) = with_legs(v(5, 5), &[v(-5, 5)]);
    let params = sim.navigation().cloned();
    sim.set_navigation(None).unwrap();
    assert!(sim.nav_legs(a).unwrap().is_empty());
    assert_eq!(sim.nav_status(a).unwrap(), None);
    let path = [v(5, 5), v(-5, 5)];
    assert_eq!(sim.agent_order(a).unwrap().unwrap().path(), &path);
    sim.set_navigation(params).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_order(a).unwrap().unwrap().path(), &path);
}

/// A leg whose order gives up (`Steering::give_up_after`, here 1.5 s: the goal is walled in
/// by units that do not move) hands over to the next leg.
#[test]
fn a_given_up_leg_hands_over_to_the_next() {
    let mut sim = walled();
    sim.set_steering(lockstep_orca::Steering {
        give_up_after: Some(Fx::lit("1.5")),
        ..lockstep_orca::Steering::default()
    })
    .unwrap();
    let a = sim.add_agent(v(-30, 0)).unwrap();
    super::navigation::ring_of_posts(&mut sim, -50.0);
    sim.apply(&Command::NavigateTo {
        id: a,
        goal: v(-50, 0),
    })
    .unwrap();
    sim.apply(&Command::QueueMove {
        id: a,
        goal: v(-30, 20),
    })
    .unwrap();
    let mut gave_up = false;
    for _ in 0..400 {
        sim.step().unwrap();
        gave_up |= sim.order_status(a).unwrap() == Some(OrderStatus::GivenUp);
        if sim.nav_legs(a).unwrap().is_empty() {
            break;
        }
    }
    assert!(gave_up, "the first leg never gave up");
    assert!(
        sim.nav_legs(a).unwrap().is_empty(),
        "the next leg was never taken"
    );
    assert_eq!(sim.nav_status(a).unwrap().unwrap().goal(), v(-30, 20));
}

//! The navigated group order ([`Command::GroupNavigate`], tag 20): one command sends every
//! member of a group by planned paths, as `NavigateTo` each; `queue` gives navigating members
//! a leg; refusals change nothing; it is hashed, snapshotted and replayed.
// Floats measure distances here, never feed the simulation.
#![allow(clippy::float_arithmetic)]

use super::nav_legs::{wall_distance, walled};
use lockstep_orca::navigation::{MAX_NAV_LEGS, PathStatus};
use lockstep_orca::orders::OrderStatus;
use lockstep_orca::orders::groups::MAX_GROUPS;
use lockstep_orca::replay::{self, RecordOptions, ReplayError};
use lockstep_orca::{AgentId, AgentParams, Command, Fx, SimError, Simulator, Vec2};

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// [`walled`] (a wall across `x = 9..11`, `y = -10..10`, navigation on inside `[-100, 100]²`)
/// and twelve agents (radius 1.5, max speed 2) west of it, 4 apart, in group 3.
fn squad() -> (Simulator, Vec<AgentId>) {
    let mut sim = walled();
    let ids: Vec<AgentId> = (0..12)
        .map(|k| {
            sim.add_agent(v(-8 + 4 * (k % 3), -6 + 4 * (k / 3)))
                .unwrap()
        })
        .collect();
    sim.set_group(3, &ids).unwrap();
    (sim, ids)
}

/// What a run of `ticks` ticks after a group order showed.
struct Run {
    /// The first tick at which every member's order had arrived and every member stood still.
    settled: Option<u64>,
    /// Members whose order has arrived at the end.
    arrived: usize,
    /// The smallest distance from a member's centre to the wall less its radius.
    clearance: f64,
    /// The deepest overlap of two members (0 if none).
    overlap: f64,
}

fn run(sim: &mut Simulator, ids: &[AgentId], ticks: u32) -> Run {
    let radius = AgentParams::default().radius.to_num::<f64>();
    let mut out = Run {
        settled: None,
        arrived: 0,
        clearance: f64::INFINITY,
        overlap: 0.0,
    };
    for _ in 0..ticks {
        sim.step().unwrap();
        let at: Vec<Vec2> = ids
            .iter()
            .map(|&id| sim.agent_position(id).unwrap())
            .collect();
        for (i, &p) in at.iter().enumerate() {
            out.clearance = out.clearance.min(wall_distance(p) - radius);
            for &q in &at[i + 1..] {
                let d = (p - q).length().to_num::<f64>();
                out.overlap = out.overlap.max(2.0 * radius - d);
            }
        }
        let done = ids.iter().all(|&id| {
            let order = sim.agent_order(id).unwrap().unwrap();
            order.status() == OrderStatus::Arrived && sim.agent_velocity(id).unwrap() == Vec2::ZERO
        });
        if done && out.settled.is_none() {
            out.settled = Some(sim.tick());
        }
    }
    out.arrived = ids
        .iter()
        .filter(|&&id| sim.agent_order(id).unwrap().unwrap().status() == OrderStatus::Arrived)
        .count();
    out
}

/// One `GroupNavigate` sends a squad round a wall: every member navigates to the goal (one
/// shared search), arrives and comes to rest, never nearer the wall than its radius. The same
/// order as a plain `GroupMove` leaves members against the wall's face (9 of 12 had arrived
/// after 200 s when this test was written; the navigated squad was at rest after 26 s).
#[test]
fn one_group_order_sends_a_squad_round_a_wall() {
    let goal = v(24, 0);
    let (mut sim, ids) = squad();
    sim.apply(&Command::GroupNavigate {
        group: 3,
        goal,
        queue: false,
        slowest: false,
    })
    .unwrap();
    for &id in &ids {
        let r = sim.nav_status(id).unwrap().unwrap();
        assert_eq!((r.goal(), r.status()), (goal, None));
    }
    sim.step().unwrap();
    for &id in &ids {
        let r = sim.nav_status(id).unwrap().unwrap();
        assert!(
            matches!(
                r.status(),
                Some(PathStatus::Complete | PathStatus::GoalAdjusted { .. })
            ),
            "{id:?}: {:?}",
            r.status()
        );
    }
    let navigated = run(&mut sim, &ids, 800);
    eprintln!(
        "GroupNavigate: settled at tick {:?}, clearance {:.4}, deepest overlap {:.4}",
        navigated.settled, navigated.clearance, navigated.overlap
    );
    assert_eq!(navigated.arrived, ids.len());
    let settled = navigated.settled.expect("the squad never came to rest");
    assert!(settled < 400, "settled at tick {settled}");
    assert!(navigated.clearance >= -1e-3, "{}", navigated.clearance);
    assert!(navigated.overlap < 0.3, "{}", navigated.overlap);
    // Every member east of the wall, around the goal (twelve discs of radius 1.5 settle
    // within about 10 of it).
    for &id in &ids {
        let p = sim.agent_position(id).unwrap();
        assert!(p.x > Fx::lit("12.5"), "{id:?} at {p:?}");
        assert!((p - goal).length() < Fx::from_num(12), "{id:?} at {p:?}");
    }

    let (mut plain, ids) = squad();
    plain
        .apply(&Command::GroupMove {
            group: 3,
            goal,
            queue: false,
            slowest: false,
        })
        .unwrap();
    let straight = run(&mut plain, &ids, 800);
    eprintln!(
        "GroupMove: {} of {} arrived after 800 ticks",
        straight.arrived,
        ids.len()
    );
    // Most slide round the wall's ends in the crowd's push, but some stay against its face.
    assert!(straight.arrived < ids.len(), "{}", straight.arrived);
    assert_eq!(straight.settled, None);
}

/// `slowest` puts every member at the slowest member's speed; `queue` gives a navigating
/// member a leg (its plan kept) and a member with a plain order the navigation order; a queued
/// order refused for one member (its legs full) changes nothing for any; an unqueued one
/// replaces every member's navigation and drops its legs.
#[test]
fn group_navigate_slowest_and_queue() {
    let (mut sim, ids) = squad();
    let slow = AgentParams {
        max_speed: Fx::lit("0.5"),
        ..AgentParams::default()
    };
    sim.set_agent_params(ids[5], slow).unwrap();
    sim.apply(&Command::GroupNavigate {
        group: 3,
        goal: v(20, 0),
        queue: false,
        slowest: true,
    })
    .unwrap();
    // Member 0 leaves the group's navigation for a plain order.
    sim.apply(&Command::MoveTo {
        id: ids[0],
        goal: v(-20, 0),
    })
    .unwrap();
    sim.step().unwrap();
    for &id in &ids[1..] {
        let order = sim.agent_order(id).unwrap().unwrap();
        assert_eq!(order.speed(), Some(Fx::lit("0.5")), "{id:?}");
    }
    sim.apply(&Command::GroupNavigate {
        group: 3,
        goal: v(20, 20),
        queue: true,
        slowest: false,
    })
    .unwrap();
    for &id in &ids[1..] {
        assert_eq!(sim.nav_legs(id).unwrap(), &[v(20, 20)], "{id:?}");
        assert_eq!(sim.nav_status(id).unwrap().unwrap().goal(), v(20, 0));
    }
    let r = sim.nav_status(ids[0]).unwrap().unwrap();
    assert_eq!((r.goal(), r.status()), (v(20, 20), None));
    assert!(sim.nav_legs(ids[0]).unwrap().is_empty());
    // Member 2's legs full: the queued group order is refused and no member changes.
    for k in 1..MAX_NAV_LEGS {
        sim.apply(&Command::QueueMove {
            id: ids[2],
            goal: v(k as i32 % 50, 1),
        })
        .unwrap();
    }
    let hash = sim.state_hash();
    let queued = Command::GroupNavigate {
        group: 3,
        goal: v(-30, 30),
        queue: true,
        slowest: true,
    };
    assert!(matches!(
        sim.apply(&queued),
        Err(SimError::OutOfDomain { .. })
    ));
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.nav_legs(ids[1]).unwrap(), &[v(20, 20)]);
    // Queued for a tick, it is skipped and reported.
    sim.queue_command(sim.tick(), queued).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.rejected_commands().len(), 1);
    assert_eq!(sim.nav_legs(ids[1]).unwrap(), &[v(20, 20)]);
    // Unqueued: every member navigates to the new goal, its legs gone, its speed its own.
    sim.apply(&Command::GroupNavigate {
        group: 3,
        goal: v(-30, 30),
        queue: false,
        slowest: false,
    })
    .unwrap();
    for &id in &ids {
        assert_eq!(sim.nav_status(id).unwrap().unwrap().goal(), v(-30, 30));
        assert!(sim.nav_legs(id).unwrap().is_empty());
        assert_eq!(sim.agent_order(id).unwrap().unwrap().speed(), None);
    }
}

/// Refused when queued as a `GroupMove` is (a group id of `MAX_GROUPS` or more, a goal
/// outside the domain); rejected when applied to a group that does not exist or has no
/// member present; nothing changes either way.
#[test]
fn bad_group_navigate_is_refused_or_rejected() {
    let (mut sim, ids) = squad();
    let hash = sim.state_hash();
    let order = |group, goal| Command::GroupNavigate {
        group,
        goal,
        queue: false,
        slowest: true,
    };
    let far = Vec2::new(Fx::from_num(2_000_000), Fx::ZERO);
    for bad in [order(MAX_GROUPS, v(1, 1)), order(3, far)] {
        assert!(sim.queue_command(0, bad.clone()).is_err(), "{bad:?}");
        assert!(sim.apply(&bad).is_err(), "{bad:?}");
    }
    assert!(sim.apply(&order(4, v(1, 1))).is_err());
    for &id in &ids {
        sim.remove_agent(id).unwrap();
    }
    let hash_empty = sim.state_hash();
    assert_ne!(hash_empty, hash);
    assert!(sim.apply(&order(3, v(1, 1))).is_err());
    assert_eq!(sim.state_hash(), hash_empty);
    sim.queue_command(0, order(3, v(1, 1))).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.rejected_commands().len(), 1);
}

/// Pending, it is hashed apart from a `GroupMove` with the same fields and goes into a
/// snapshot that restores and continues bit-identically; a match with it records as a replay
/// of format 7 that verifies, and the same stream labelled format 6 is refused.
#[test]
fn group_navigate_is_hashed_snapshotted_and_replayed() {
    let goal = v(24, 0);
    let fields = (3, goal, false, true);
    let (mut a, _) = squad();
    let (mut b, _) = squad();
    a.queue_command(
        5,
        Command::GroupNavigate {
            group: fields.0,
            goal: fields.1,
            queue: fields.2,
            slowest: fields.3,
        },
    )
    .unwrap();
    b.queue_command(
        5,
        Command::GroupMove {
            group: fields.0,
            goal: fields.1,
            queue: fields.2,
            slowest: fields.3,
        },
    )
    .unwrap();
    assert_ne!(a.state_hash(), b.state_hash());
    let mut copy = Simulator::restore(&a.snapshot()).unwrap();
    assert_eq!(copy.state_hash(), a.state_hash());
    for _ in 0..120 {
        a.step().unwrap();
        copy.step().unwrap();
        assert_eq!(copy.state_hash(), a.state_hash());
    }
    assert!(a.nav_status(AgentId(0)).unwrap().is_some());

    let (mut sim, _) = squad();
    let recorded = replay::record(
        &mut sim,
        160,
        RecordOptions {
            checkpoint_interval: 40,
        },
        move |s| match s.tick() {
            0 => vec![Command::GroupNavigate {
                group: 3,
                goal,
                queue: false,
                slowest: true,
            }],
            60 => vec![Command::GroupNavigate {
                group: 3,
                goal: v(-20, 20),
                queue: true,
                slowest: false,
            }],
            _ => vec![],
        },
    )
    .unwrap();
    let mut bytes = recorded.to_bytes().unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 7);
    assert_eq!(replay::REPLAY_VERSION, 7);
    let report = replay::verify_bytes(&bytes).unwrap();
    assert!(report.is_match(), "{report}");
    bytes[8..12].copy_from_slice(&6u32.to_le_bytes());
    assert!(matches!(
        replay::verify_bytes(&bytes),
        Err(ReplayError::Decode { .. })
    ));
}

/// The scene file's `group_move` event: with `navigate = true` a `GroupNavigate` that turns
/// navigation on (no `[navigation]` table here, the default boundary grown to hold the goal)
/// and sends the group round the wall; without
/// it a `GroupMove`; a misspelt key or a bad group id is an error naming the event.
#[cfg(feature = "scenario")]
#[test]
fn a_group_move_event_in_a_scene_file_navigates() {
    use lockstep_orca::scenario::{EventAction, RunOptions, Scenario};
    let scene = |event: &str| {
        format!(
            r#"
name = "group_navigate"
time_step = 0.25
max_ticks = 400

[[grid]]
count = 12
spacing = 4
jitter = 0
center = [-4, 0]

[[obstacle]]
polygon = [[9, -10], [11, -10], [11, 10], [9, 10]]

[[event]]
tick = 0
set_group = {{ group = 1, first = 0, count = 12 }}

[[event]]
tick = 0
{event}
"#
        )
    };
    let navigated = Scenario::from_toml_str(&scene(
        "group_move = { group = 1, goal = [24, 0], navigate = true }",
    ))
    .unwrap();
    assert!(navigated.navigation.is_some());
    // The default boundary holds the group's goal (24 + the margin of 8).
    let boundary = navigated.nav_params().unwrap().boundary.unwrap();
    assert_eq!(boundary.iter().map(|p| p.x).max(), Some(Fx::from_num(32)));
    assert!(matches!(
        navigated.events[1].action,
        EventAction::Group(Command::GroupNavigate {
            group: 1,
            queue: false,
            slowest: false,
            ..
        })
    ));
    let (mut sim, driver) = navigated.build().unwrap();
    driver
        .run(
            &mut sim,
            &RunOptions {
                stop_when_reached: false,
                ..RunOptions::default()
            },
        )
        .unwrap();
    let ids = sim.agent_ids().to_vec();
    assert_eq!(ids.len(), 12);
    for &id in &ids {
        let order = sim.agent_order(id).unwrap().unwrap();
        assert_eq!(order.status(), OrderStatus::Arrived, "{id:?}");
        assert!(
            sim.agent_position(id).unwrap().x > Fx::lit("12.5"),
            "{id:?}"
        );
    }

    let plain = Scenario::from_toml_str(&scene(
        "group_move = { group = 1, goal = [24, 0], queue = true, slowest = true }",
    ))
    .unwrap();
    assert!(plain.navigation.is_none());
    assert!(matches!(
        plain.events[1].action,
        EventAction::Group(Command::GroupMove {
            group: 1,
            queue: true,
            slowest: true,
            ..
        })
    ));
    for bad in [
        "group_move = { group = 1, goal = [24, 0], navigat = true }",
        "group_move = { group = 5000, goal = [24, 0] }",
    ] {
        let err = Scenario::from_toml_str(&scene(bad))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("navigat") || err.contains("event #1"),
            "{bad}: {err}"
        );
    }
    // The roadmap policy steers by its own graph: a navigated group move is refused with it.
    let roadmap = scene("group_move = { group = 1, goal = [24, 0], navigate = true }")
        + "\n[policy]\nkind = \"roadmap\"\nroadmap = [[-20, 20], [20, 20]]\n";
    let err = Scenario::from_toml_str(&roadmap).unwrap_err().to_string();
    assert!(err.contains("goal_seeking"), "{err}");
}

//! Groups and group orders ([`lockstep_orca::orders::groups`]), per-order speed, and the order
//! lifecycle as state: hashed, snapshotted (format 5), replayed (format 4), in `snapshot::diff`.

use lockstep_orca::orders::OrderStatus;
use lockstep_orca::orders::groups::{MAX_GROUP_MEMBERS, MAX_GROUPS};
use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::snapshot::{SNAPSHOT_VERSION, SNAPSHOT_VERSION_ORDERS, diff};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, SimError, Simulator, SimulatorParams, Vec2,
};

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// `n` agents on a grid 4 apart, the odd ones with max speed 1 (the others 2).
fn army(n: i32) -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for k in 0..n {
        let params = AgentParams {
            max_speed: Fx::from_num(if k % 2 == 1 { 1 } else { 2 }),
            ..AgentParams::default()
        };
        sim.add_agent_with(v(4 * (k % 40), 4 * (k / 40)), params)
            .unwrap();
    }
    sim
}

#[test]
fn one_command_moves_a_group_of_1000_in_its_tick() {
    let mut sim = army(1000);
    let members: Vec<AgentId> = sim.agent_ids().iter().rev().copied().collect();
    sim.queue_command(0, Command::SetGroup { group: 7, members })
        .unwrap();
    sim.queue_command(
        0,
        Command::GroupMove {
            group: 7,
            goal: v(500, 500),
            queue: false,
            slowest: true,
        },
    )
    .unwrap();
    sim.step().unwrap();
    assert!(
        sim.rejected_commands().is_empty(),
        "{:?}",
        sim.rejected_commands()
    );
    let group = sim.group(7).unwrap();
    assert_eq!(group.len(), 1000);
    assert!(group.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(sim.orders().len(), 1000);
    for (_, order) in sim.orders() {
        assert_eq!(order.goal(), v(500, 500));
        // The slowest member's speed: 1.
        assert_eq!(order.speed(), Some(Fx::ONE));
        assert_eq!(order.status(), OrderStatus::Moving);
    }
    // Every member moves at (at most) the slowest one's speed.
    for &id in sim.agent_ids() {
        assert!(sim.agent_pref_velocity(id).unwrap().length() <= Fx::ONE + Fx::lit("0.0001"));
    }
}

#[test]
fn bad_group_input_is_refused_or_skipped() {
    let mut sim = army(4);
    // Refused when queued: a group id out of range, too many members.
    let err = sim
        .queue_command(
            0,
            Command::SetGroup {
                group: MAX_GROUPS,
                members: vec![AgentId(0)],
            },
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            SimError::OutOfDomain {
                what: "group id",
                ..
            }
        ),
        "{err:?}"
    );
    let many = vec![AgentId(0); MAX_GROUP_MEMBERS + 1];
    assert!(
        sim.queue_command(
            0,
            Command::SetGroup {
                group: 1,
                members: many
            }
        )
        .is_err()
    );
    // Unknown, removed and duplicate ids are dropped when applied.
    sim.apply(&Command::RemoveAgent { id: AgentId(2) }).unwrap();
    sim.apply(&Command::SetGroup {
        group: 1,
        members: vec![AgentId(3), AgentId(2), AgentId(99), AgentId(0), AgentId(3)],
    })
    .unwrap();
    assert_eq!(sim.group(1), Some(&[AgentId(0), AgentId(3)][..]));
    // A group order to a group that does not exist, or whose members are all gone, is
    // rejected when applied, and changes nothing.
    let hash = sim.state_hash();
    let order = |group| Command::GroupMove {
        group,
        goal: v(9, 9),
        queue: false,
        slowest: false,
    };
    assert!(sim.apply(&order(5)).is_err());
    sim.apply(&Command::SetGroup {
        group: 2,
        members: vec![AgentId(1)],
    })
    .unwrap();
    sim.apply(&Command::RemoveAgent { id: AgentId(1) }).unwrap();
    let hash2 = sim.state_hash();
    assert_ne!(hash, hash2);
    assert!(sim.apply(&order(2)).is_err());
    assert_eq!(sim.state_hash(), hash2);
    // The removed member stays listed; the order skips it.
    assert_eq!(sim.group(2), Some(&[AgentId(1)][..]));
    sim.apply(&order(1)).unwrap();
    assert_eq!(sim.orders().len(), 2);
    // An empty list deletes a group.
    sim.apply(&Command::SetGroup {
        group: 1,
        members: vec![],
    })
    .unwrap();
    assert_eq!(sim.group(1), None);
    // A queued bad group order is skipped at its tick and reported.
    sim.queue_command(sim.tick(), order(40)).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.rejected_commands().len(), 1);
}

#[test]
fn a_failed_step_undoes_group_commands() {
    let mut sim = army(3);
    sim.queue_command(
        0,
        Command::SetGroup {
            group: 0,
            members: vec![AgentId(0), AgentId(1)],
        },
    )
    .unwrap();
    sim.queue_command(
        0,
        Command::GroupMove {
            group: 0,
            goal: v(5, 5),
            queue: false,
            slowest: true,
        },
    )
    .unwrap();
    // Agent 2 about to leave the domain: the step fails and undoes everything.
    let edge = Fx::from_num(1_000_000);
    sim.set_agent_position(AgentId(2), Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
        .unwrap();
    sim.set_agent_velocity(AgentId(2), v(2, 0)).unwrap();
    sim.set_agent_pref_velocity(AgentId(2), v(2, 0)).unwrap();
    let before = sim.state_hash();
    assert!(sim.step().is_err());
    assert_eq!(sim.state_hash(), before);
    assert_eq!(sim.group(0), None);
    assert_eq!(sim.orders().len(), 0);
    assert!(sim.order_events().is_empty());
}

/// Groups, order speeds and arrival states go into snapshots (format 5) and back, and the
/// continuation is bit-identical; `diff` names each.
#[test]
fn lifecycle_and_groups_are_snapshotted_and_diffed() {
    let mut sim = army(6);
    let plain = sim.snapshot();
    assert_eq!(
        u32::from_le_bytes(plain[8..12].try_into().unwrap()),
        SNAPSHOT_VERSION
    );
    sim.set_steering(lockstep_orca::Steering {
        give_up_after: Some(Fx::from_num(30)),
        arrive_within: Some(Fx::ONE),
        ..Default::default()
    })
    .unwrap();
    sim.apply(&Command::SetGroup {
        group: 3,
        members: vec![AgentId(0), AgentId(1), AgentId(2)],
    })
    .unwrap();
    sim.apply(&Command::GroupMove {
        group: 3,
        goal: v(0, 0),
        queue: false,
        slowest: true,
    })
    .unwrap();
    for _ in 0..60 {
        sim.step().unwrap();
    }
    assert!(
        sim.orders()
            .any(|(_, o)| o.status() == OrderStatus::Arrived)
    );
    let bytes = sim.snapshot();
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        SNAPSHOT_VERSION_ORDERS
    );
    let mut copy = Simulator::restore(&bytes).unwrap();
    assert!(diff(&sim, &copy).is_empty());
    assert_eq!(copy.snapshot(), bytes);
    for _ in 0..60 {
        sim.step().unwrap();
        copy.step().unwrap();
        assert_eq!(copy.state_hash(), sim.state_hash());
        assert_eq!(copy.order_events(), sim.order_events());
    }
    // Each change is named by diff and moves the hash.
    let mut other = Simulator::restore(&sim.snapshot()).unwrap();
    other
        .apply(&Command::SetOrderSpeed {
            id: AgentId(1),
            speed: Some(Fx::lit("0.5")),
        })
        .unwrap();
    other
        .apply(&Command::SetGroup {
            group: 3,
            members: vec![AgentId(0)],
        })
        .unwrap();
    let text = diff(&sim, &other).to_string();
    assert!(text.contains("order.speed"), "{text}");
    assert!(text.contains("group[3]"), "{text}");
    assert_ne!(other.state_hash(), sim.state_hash());
    let mut third = Simulator::restore(&sim.snapshot()).unwrap();
    third.apply(&Command::Stop { id: AgentId(2) }).unwrap();
    let text = diff(&sim, &third).to_string();
    assert!(text.contains("order"), "{text}");
}

/// A match with group orders and order speeds records as a replay (format 4) that verifies.
#[test]
fn group_orders_replay_and_verify() {
    let mut sim = army(40);
    let members: Vec<AgentId> = sim.agent_ids().to_vec();
    let replay = replay::record(
        &mut sim,
        120,
        RecordOptions {
            checkpoint_interval: 20,
        },
        move |s| match s.tick() {
            0 => vec![
                Command::SetGroup {
                    group: 0,
                    members: members.clone(),
                },
                Command::GroupMove {
                    group: 0,
                    goal: v(60, 20),
                    queue: false,
                    slowest: false,
                },
            ],
            30 => vec![Command::SetOrderSpeed {
                id: AgentId(5),
                speed: Some(Fx::lit("0.5")),
            }],
            60 => vec![Command::GroupMove {
                group: 0,
                goal: v(0, 0),
                queue: true,
                slowest: true,
            }],
            _ => vec![],
        },
    )
    .unwrap();
    let bytes = replay.to_bytes().unwrap();
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        replay::REPLAY_VERSION
    );
    let report = replay::verify_bytes(&bytes).unwrap();
    assert!(report.is_match(), "{report}");
}

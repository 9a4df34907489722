//! Navigated legs are state: hashed, snapshotted (format 12, only while some agent has one),
//! restored to a bit-identical continuation in the middle of a leg change, replayed and
//! verified, compared by the diff; hostile legs in a snapshot are refused.

use lockstep_orca::navigation::NavParams;
use lockstep_orca::replay::{self, RecordOptions, VerifyReport};
use lockstep_orca::snapshot::{self, SNAPSHOT_VERSION_LEGS, Scope};
use lockstep_orca::{AgentId, Command, Simulator, SimulatorParams, Vec2};

use crate::det_support::square;

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// Eight agents patrolling round four buildings: each navigates to one corner of the field
/// and queues the other three, a budget of 40 expansions a tick (so leg plans wait at times).
fn patrol() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for (x, y) in [(0, 0), (0, 20), (20, 0), (20, 20)] {
        sim.add_obstacle(square(x, y, 4)).unwrap();
    }
    sim.set_navigation(Some(NavParams {
        boundary: Some(vec![v(-40, -40), v(60, -40), v(60, 60), v(-40, 60)]),
        budget: 40,
        ..NavParams::default()
    }))
    .unwrap();
    let corners = [v(-10, -10), v(30, -10), v(30, 30), v(-10, 30)];
    for i in 0..8 {
        let id = sim.add_agent(v(-30 + 3 * i, -30 + 8 * (i % 3))).unwrap();
        let first = i as usize % 4;
        sim.queue_command(
            0,
            Command::NavigateTo {
                id,
                goal: corners[first],
            },
        )
        .unwrap();
        for k in 1..4 {
            let goal = corners[(first + k) % 4] + v(i % 2, i / 2);
            sim.queue_command(0, Command::QueueMove { id, goal })
                .unwrap();
        }
    }
    sim
}

fn hashes(sim: &mut Simulator, ticks: usize) -> Vec<u64> {
    (0..ticks)
        .map(|_| {
            sim.step().unwrap();
            sim.state_hash()
        })
        .collect()
}

fn legs_left(sim: &Simulator) -> usize {
    sim.agent_ids()
        .iter()
        .map(|&id| sim.nav_legs(id).unwrap().len())
        .sum()
}

/// Snapshots taken at every tick of the patrol's first leg changes restore (format 12 while
/// legs are queued) and continue bit-identically; the legs are used up in the end.
#[test]
fn a_restore_in_the_middle_of_leg_changes_continues_bit_identically() {
    let mut sim = patrol();
    sim.step().unwrap();
    assert_eq!(legs_left(&sim), 24);
    assert_eq!(sim.snapshot()[8..12], SNAPSHOT_VERSION_LEGS.to_le_bytes());
    let mut restored_at = 0;
    while legs_left(&sim) == 24 {
        sim.step().unwrap();
        assert!(sim.tick() < 400, "no leg was taken");
    }
    // Around the first leg changes: restore each tick's snapshot and compare 40 ticks on.
    for _ in 0..6 {
        let mut copy = Simulator::restore(&sim.snapshot()).unwrap();
        assert_eq!(copy.state_hash(), sim.state_hash());
        let mut ahead = sim.clone();
        assert_eq!(hashes(&mut ahead, 40), hashes(&mut copy, 40));
        sim.step().unwrap();
        restored_at += 1;
    }
    assert_eq!(restored_at, 6);
    for _ in 0..4000 {
        if legs_left(&sim) == 0 {
            break;
        }
        sim.step().unwrap();
    }
    assert_eq!(legs_left(&sim), 0, "tick {}", sim.tick());
    // No legs left: the snapshot is back to the format without them.
    assert_ne!(sim.snapshot()[8..12], SNAPSHOT_VERSION_LEGS.to_le_bytes());
}

/// The legs are in the hash: the same state with one leg more hashes differently; and the
/// diff names the agent and its legs.
#[test]
fn the_legs_are_in_the_hash_and_the_diff() {
    let mut a = patrol();
    a.step().unwrap();
    let mut b = a.clone();
    b.apply(&Command::QueueMove {
        id: AgentId(3),
        goal: v(1, 1),
    })
    .unwrap();
    assert_ne!(a.state_hash(), b.state_hash());
    let d = snapshot::diff(&a, &b);
    let line = d
        .differences
        .iter()
        .find(|x| x.scope == Scope::Agent(AgentId(3)) && x.field == "nav.legs")
        .unwrap_or_else(|| panic!("{d}"));
    assert!(line.b.contains("(1, 1)"), "{d}");
    assert_eq!(d.differences.len(), 1, "{d}");
}

/// A match with legs given during play replays and verifies; a changed leg is caught.
#[test]
fn a_match_with_legs_replays_and_verifies() {
    let mut sim = patrol();
    let replay = replay::record(&mut sim, 120, RecordOptions::default(), |s| {
        match s.tick() {
            30 => vec![
                Command::NavigateTo {
                    id: AgentId(2),
                    goal: v(40, 40),
                },
                Command::QueueMove {
                    id: AgentId(2),
                    goal: v(-20, 40),
                },
            ],
            60 => vec![Command::QueueMove {
                id: AgentId(5),
                goal: v(10, 50),
            }],
            _ => vec![],
        }
    })
    .unwrap();
    let bytes = replay.to_bytes().unwrap();
    match replay::verify_bytes(&bytes).unwrap() {
        VerifyReport::Match { final_hash, .. } => assert_eq!(final_hash, sim.state_hash()),
        other => panic!("{other}"),
    }
    let mut tampered = replay.clone();
    for s in &mut tampered.steps {
        for c in &mut s.commands {
            if let Command::QueueMove { goal, .. } = c {
                *goal = v(-21, 40);
            }
        }
    }
    assert!(!replay::verify(&tampered).is_match());
}

/// Hostile legs in a format-12 snapshot are refused, naming the problem: legs of an agent
/// without a navigation record, an empty leg list, a goal outside the domain, a payload cut
/// short. (The payload ends with the legs: a sequence of one (agent id `u32`, a sequence of
/// one point), 36 bytes.)
#[test]
fn hostile_legs_are_refused() {
    use crate::det_support::{payload, reseal};
    use lockstep_orca::snapshot::SNAPSHOT_MAGIC;
    use lockstep_orca::{SimError, SnapshotError};
    let (mut sim, a, b) = crate::det_support::navigating_pair();
    sim.apply(&Command::QueueMove {
        id: b,
        goal: v(-9, 9),
    })
    .unwrap();
    sim.step().unwrap();
    let bytes = sim.snapshot();
    assert_eq!(bytes[8..12], SNAPSHOT_VERSION_LEGS.to_le_bytes());
    let good = payload(&bytes).to_vec();
    let n = good.len() - 36;
    assert_eq!(good[n..n + 8], 1u64.to_le_bytes());
    assert_eq!(good[n + 8..n + 12], b.0.to_le_bytes());
    let restore = |p: &[u8]| Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION_LEGS, p));
    assert_eq!(restore(&good).unwrap().state_hash(), sim.state_hash());
    // The legs moved to agent `a`, which does not navigate.
    let mut bad = good.clone();
    bad[n + 8..n + 12].copy_from_slice(&a.0.to_le_bytes());
    let err = restore(&bad).unwrap_err();
    assert!(
        matches!(err, SnapshotError::Inconsistent(why) if why.contains("without a record")),
        "{err}"
    );
    // An empty list of goals.
    let mut bad = good[..n + 12].to_vec();
    bad.extend_from_slice(&0u64.to_le_bytes());
    let err = restore(&bad).unwrap_err();
    assert!(
        matches!(err, SnapshotError::Inconsistent(why) if why.contains("1 to 1,024")),
        "{err}"
    );
    // A goal outside the domain.
    let mut bad = good.clone();
    bad[n + 20..n + 28].copy_from_slice(&i64::MAX.to_le_bytes());
    assert!(matches!(
        restore(&bad),
        Err(SnapshotError::Invalid(SimError::OutOfDomain { .. }))
    ));
    // Cut short.
    assert!(matches!(
        restore(&good[..good.len() - 1]),
        Err(SnapshotError::Decode(_))
    ));
}

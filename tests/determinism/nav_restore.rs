//! Navigation state across restores, rollbacks, failed steps and replays: the navigation
//! records and settings are state (hashed, snapshotted, replayed), the mesh is derived (rebuilt
//! from the obstacles and the settings, identical after a restore), and a simulator restored
//! between a request and its service continues bit-identically.

use lockstep_orca::navigation::{NavMesh, NavParams};
use lockstep_orca::replay::{self, RecordOptions, ReplayReader, VerifyReport};
use lockstep_orca::snapshot::{self, Scope};
use lockstep_orca::{AgentId, Command, Fx, SimError, Simulator, SimulatorParams, Vec2};

use crate::det_support::square;

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// Twelve agents on the left of a field of four buildings inside `[-100, 100]²`, all told to
/// navigate to the right at tick 0 with a budget of 2 expansions per tick (so requests wait),
/// and a building added by command at tick 9.
fn navigating_scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for (x, y) in [(0, 0), (0, 20), (20, -20), (-20, 30)] {
        sim.add_obstacle(square(x, y, 4)).unwrap();
    }
    sim.set_navigation(Some(NavParams {
        boundary: Some(vec![v(-100, -100), v(100, -100), v(100, 100), v(-100, 100)]),
        budget: 2,
        ..NavParams::default()
    }))
    .unwrap();
    for i in 0..12 {
        let id = sim.add_agent(v(-60, -33 + 6 * i)).unwrap();
        sim.queue_command(
            0,
            Command::NavigateTo {
                id,
                goal: v(60, 30 - 5 * i),
            },
        )
        .unwrap();
    }
    sim.queue_command(
        9,
        Command::AddObstacle {
            shape: square(30, 0, 3),
        },
    )
    .unwrap();
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

#[test]
fn a_restore_between_request_and_service_continues_bit_identically() {
    let mut sim = navigating_scene();
    sim.step().unwrap();
    // Some requests served (a quick plan, still pending its completion), the rest waiting for
    // a first plan: a snapshot in the middle of the service.
    let waiting = sim
        .agent_ids()
        .iter()
        .filter(|&&id| sim.nav_status(id).unwrap().unwrap().status().is_none())
        .count();
    assert!(waiting > 0 && waiting < 12, "{waiting}");
    let bytes = sim.snapshot();
    assert_eq!(
        bytes[8..12],
        lockstep_orca::snapshot::SNAPSHOT_VERSION_NAV.to_le_bytes()
    );
    let mut restored = Simulator::restore(&bytes).unwrap();
    // The mesh is not in the snapshot: it is rebuilt, identically (same digest, same
    // triangles).
    let mesh = sim.nav_mesh().unwrap();
    assert!(!mesh.triangles().is_empty());
    assert_eq!(
        restored.nav_mesh().map(NavMesh::digest),
        Some(mesh.digest())
    );
    assert_eq!(restored.nav_mesh(), sim.nav_mesh());
    assert_eq!(restored.navigation(), sim.navigation());
    assert_eq!(restored.state_hash(), sim.state_hash());
    assert!(snapshot::diff(&sim, &restored).is_empty());
    assert_eq!(hashes(&mut restored, 100), hashes(&mut sim, 100));
    assert_eq!(restored.nav_mesh(), sim.nav_mesh());
    assert_eq!(restored.snapshot(), sim.snapshot());
}

#[test]
fn a_rollback_between_request_and_service_continues_bit_identically() {
    let mut sim = navigating_scene();
    sim.step().unwrap();
    let saved = sim.save_state();
    let ahead = hashes(&mut sim, 100);
    sim.load_state(&saved);
    assert_eq!(sim.state_hash(), saved.state_hash());
    assert_eq!(hashes(&mut sim, 100), ahead);
    let mut fresh = Simulator::from_state(&saved);
    assert_eq!(hashes(&mut fresh, 100), ahead);
}

/// An obstacle added through the API between two steps is state the next step acts on (the
/// paths are checked against the new mesh): a snapshot taken right then carries it.
#[test]
fn an_obstacle_added_between_steps_survives_a_restore() {
    let mut sim = navigating_scene();
    for _ in 0..12 {
        sim.step().unwrap();
    }
    let before = sim.nav_mesh().map(NavMesh::digest);
    sim.add_obstacle(square(-30, 10, 2)).unwrap();
    // Rebuilt at once (an API change), and again identically by the restore.
    assert_ne!(sim.nav_mesh().map(NavMesh::digest), before);
    let mut restored = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(
        restored.nav_mesh().map(NavMesh::digest),
        sim.nav_mesh().map(NavMesh::digest)
    );
    assert_eq!(restored.nav_mesh(), sim.nav_mesh());
    assert_eq!(hashes(&mut restored, 60), hashes(&mut sim, 60));
}

/// A step that fails (an agent would leave the domain) in a tick that applies navigation
/// requests, replaces orders in stage 1a and adds obstacles (one over an agent, which stage
/// 1a moves out) leaves every byte as it was:
/// state hash, snapshot, records and mesh.
#[test]
fn a_failed_step_leaves_navigation_unchanged() {
    let mut sim = navigating_scene();
    sim.step().unwrap();
    let edge = Fx::from_num(1_000_000);
    let runner = sim
        .add_agent(Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
        .unwrap();
    sim.set_agent_velocity(runner, v(2, 0)).unwrap();
    sim.set_agent_pref_velocity(runner, v(2, 0)).unwrap();
    // New settings with room for every search: all agents plan again in the failing tick.
    let mut params = sim.navigation().unwrap().clone();
    params.budget = 1_000_000;
    sim.set_navigation(Some(params)).unwrap();
    let tick = sim.tick();
    sim.queue_command(
        tick,
        Command::NavigateTo {
            id: AgentId(0),
            goal: v(70, -70),
        },
    )
    .unwrap();
    sim.queue_command(tick, Command::Stop { id: AgentId(1) })
        .unwrap();
    sim.queue_command(
        tick,
        Command::AddObstacle {
            shape: square(-40, 60, 2),
        },
    )
    .unwrap();
    // And one on agent 5, which stage 1a moves out of it (undone too).
    let p = sim.agent_position(AgentId(5)).unwrap();
    sim.queue_command(
        tick,
        Command::AddObstacle {
            shape: square(p.x.to_num(), p.y.to_num(), 2),
        },
    )
    .unwrap();
    let (hash, bytes) = (sim.state_hash(), sim.snapshot());
    let mesh = sim.nav_mesh().cloned();
    let records: Vec<_> = sim
        .agent_ids()
        .iter()
        .map(|&id| sim.nav_status(id).unwrap())
        .collect();
    assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(runner)));
    // The stage ran: it served every navigating agent (agent 1 was stopped) before the step
    // failed.
    assert_eq!(sim.step_stats().nav_requests_served, 11);
    assert_eq!(sim.step_stats().agents_freed, 1);
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.snapshot(), bytes);
    // The obstacle command's rebuild of the mesh is undone with the obstacle.
    assert_eq!(sim.nav_mesh().cloned(), mesh);
    let after: Vec<_> = sim
        .agent_ids()
        .iter()
        .map(|&id| sim.nav_status(id).unwrap())
        .collect();
    assert_eq!(after, records);
    // And the same tick succeeds once the runner turns round, as a fresh copy does.
    sim.set_agent_velocity(runner, v(-2, 0)).unwrap();
    sim.set_agent_pref_velocity(runner, v(-2, 0)).unwrap();
    let mut copy = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(hashes(&mut sim, 30), hashes(&mut copy, 30));
}

#[test]
fn a_navigating_match_replays_and_verifies() {
    let mut sim = navigating_scene();
    let replay = replay::record(&mut sim, 80, RecordOptions::default(), |s| {
        match s.tick() {
            // Orders given during the match travel in the replay.
            20 => vec![Command::NavigateTo {
                id: AgentId(3),
                goal: v(-80, -80),
            }],
            40 => vec![Command::NavigateTo {
                id: AgentId(5),
                goal: v(0, 80),
            }],
            _ => vec![],
        }
    })
    .unwrap();
    let bytes = replay.to_bytes().unwrap();
    assert_eq!(
        ReplayReader::new(&bytes[..]).unwrap().version(),
        replay::REPLAY_VERSION
    );
    match replay::verify_bytes(&bytes).unwrap() {
        VerifyReport::Match { final_hash, .. } => assert_eq!(final_hash, sim.state_hash()),
        other => panic!("{other}"),
    }
    // A changed goal is caught.
    let mut tampered = replay.clone();
    for s in &mut tampered.steps {
        for c in &mut s.commands {
            if let Command::NavigateTo { goal, .. } = c {
                *goal = v(-79, -80);
            }
        }
    }
    assert!(!replay::verify(&tampered).is_match());
    // A version 3 stream may not carry NavigateTo.
    let mut old = bytes.clone();
    old[8..12].copy_from_slice(&3u32.to_le_bytes());
    let err = lockstep_orca::Replay::from_bytes(&old).unwrap_err();
    assert!(err.to_string().contains("version 4"), "{err}");
}

#[test]
fn the_diff_names_navigation_differences() {
    let mut a = navigating_scene();
    a.step().unwrap();
    let mut b = a.clone();
    b.queue_command(
        1,
        Command::MoveTo {
            id: AgentId(2),
            goal: v(1, 1),
        },
    )
    .unwrap();
    b.step().unwrap();
    a.step().unwrap();
    let d = snapshot::diff(&a, &b);
    assert!(
        d.differences
            .iter()
            .any(|x| x.scope == Scope::Agent(AgentId(2)) && x.field == "nav.present"),
        "{d}"
    );
    let mut c = a.clone();
    c.set_navigation(None).unwrap();
    let d = snapshot::diff(&a, &c);
    assert!(
        d.differences.iter().any(|x| x.scope == Scope::Navigation),
        "{d}"
    );
}

/// Hostile navigation state in a snapshot is refused, naming the problem: a record of an
/// agent without an order, a negative progress measure, a zero budget. (The record is the
/// payload's last 48 bytes before the empty traffic state: agent id, goal, status `Some(Complete)` (5 bytes), pending,
/// planned tick, no-progress ticks, best distance, target index.)
#[test]
fn hostile_navigation_state_is_refused() {
    use crate::det_support::{payload, reseal};
    use lockstep_orca::SnapshotError;
    use lockstep_orca::snapshot::{SNAPSHOT_MAGIC, SNAPSHOT_VERSION_NAV};
    let (mut sim, a, b) = crate::det_support::navigating_pair();
    sim.step().unwrap();
    let bytes = sim.snapshot();
    let good = payload(&bytes).to_vec();
    // The payload ends with the navigation record and the (empty) traffic state: two empty
    // sequences, their lengths as 8-byte integers.
    let n = good.len() - 16;
    assert_eq!(good[n - 48..n - 44], b.0.to_le_bytes());
    let restore = |p: &[u8]| Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION_NAV, p));
    assert_eq!(restore(&good).unwrap().state_hash(), sim.state_hash());
    // The record moved to agent `a`, which has no order.
    let mut bad = good.clone();
    bad[n - 48..n - 44].copy_from_slice(&a.0.to_le_bytes());
    let err = restore(&bad).unwrap_err();
    assert!(
        matches!(err, SnapshotError::Inconsistent(why) if why.contains("without an order")),
        "{err}"
    );
    // A negative best distance.
    let mut bad = good.clone();
    bad[n - 12..n - 4].copy_from_slice(&(-1i64).to_le_bytes());
    assert!(matches!(
        restore(&bad),
        Err(SnapshotError::Invalid(SimError::OutOfDomain { .. }))
    ));
    // A version 6 payload cut short of its navigation state.
    assert!(matches!(
        restore(&good[..n - 1]),
        Err(SnapshotError::Decode(_))
    ));
}

//! Snapshots: restore-then-step equals never-snapshotted, byte-stable round trips, hostile
//! input rejected with specific errors (see `src/snapshot.rs`).

use crate::det_support;

use det_support::{Rng, payload, random_scene, reseal, run_hashes, script};
use lockstep_orca::snapshot::{
    MAX_PAYLOAD_BYTES, SNAPSHOT_MAGIC, SNAPSHOT_VERSION, SNAPSHOT_VERSION_LEGS,
    SNAPSHOT_VERSION_MARCH, SNAPSHOT_VERSION_MODELS, SNAPSHOT_VERSION_PLANNING,
    SNAPSHOT_VERSION_TRAFFIC_SETTINGS,
};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, SimError, Simulator, SimulatorParams, SnapshotError, Vec2,
};
use proptest::prelude::*;

fn small_scene() -> Simulator {
    let mut sim = random_scene(7, 12, 10.0, Vec2::ZERO);
    let mut inputs = script(99, 3, 10.0, Vec2::ZERO);
    run_hashes(&mut sim, 20, &mut inputs);
    sim
}

#[test]
fn round_trip_is_byte_identical_and_hash_identical() {
    let mut sim = small_scene();
    sim.queue_command(
        sim.tick() + 3,
        Command::SetPrefVelocity {
            id: sim.agent_ids()[0],
            v: Vec2::from_int(1, -1),
        },
    )
    .unwrap();
    let bytes = sim.snapshot();
    let restored = Simulator::restore(&bytes).unwrap();
    assert_eq!(restored.snapshot(), bytes);
    assert_eq!(restored.state_hash(), sim.state_hash());
    assert_eq!(restored.pending_commands(), sim.pending_commands());
    assert_eq!(restored.tick(), sim.tick());
    assert_eq!(restored.agent_ids(), sim.agent_ids());
}

#[test]
fn obstacles_survive_restore() {
    let mut sim = det_support::random_scene_with_obstacles(5, 20, 6, 10.0, Vec2::ZERO);
    let removed = sim.obstacles().iter().nth(1).unwrap().0;
    sim.remove_obstacle(removed).unwrap();
    let mut restored = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(restored.obstacles().len(), 5);
    assert_eq!(restored.state_hash(), sim.state_hash());
    for _ in 0..30 {
        sim.step().unwrap();
        restored.step().unwrap();
        assert_eq!(restored.state_hash(), sim.state_hash());
    }
}

#[test]
fn invalid_obstacles_are_rejected() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(lockstep_orca::ObstacleShape::Polygon(vec![
        Vec2::from_int(0, 0),
        Vec2::from_int(4, 0),
        Vec2::from_int(4, 3),
    ]))
    .unwrap();
    let bytes = sim.snapshot();
    let vertex = |x: Fx, y: i32| {
        let mut b = x.to_bits().to_le_bytes().to_vec();
        b.extend_from_slice(&Fx::from_num(y).to_bits().to_le_bytes());
        b
    };
    let third = vertex(Fx::from_num(4), 3);
    // Move the third vertex onto the first edge's line: a degenerate (collinear) polygon.
    let bad = patch(&bytes, &third, &vertex(Fx::from_num(8), 0));
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::Invalid(SimError::InvalidObstacle(_)))
    ));
    // A vertex outside the domain, and one at Fx::MIN (must not panic).
    let far = vertex(Fx::from_num(2_000_000), 3);
    assert!(matches!(
        Simulator::restore(&patch(&bytes, &third, &far)),
        Err(SnapshotError::Invalid(SimError::OutOfDomain { .. }))
    ));
    assert!(matches!(
        Simulator::restore(&patch(&bytes, &third, &vertex(Fx::MIN, 3))),
        Err(SnapshotError::Invalid(SimError::OutOfDomain { .. }))
    ));
}

#[test]
fn empty_simulator_round_trips() {
    let sim = Simulator::new(SimulatorParams::default()).unwrap();
    let restored = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(restored.state_hash(), sim.state_hash());
    assert_eq!(restored.num_agents(), 0);
}

#[test]
fn id_counter_survives_restore() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent(Vec2::ZERO).unwrap();
    let b = sim.add_agent(Vec2::from_int(5, 0)).unwrap();
    sim.remove_agent(b).unwrap();
    let mut restored = Simulator::restore(&sim.snapshot()).unwrap();
    // The removed id is never reused, also after a restore.
    assert_eq!(
        restored.add_agent(Vec2::from_int(9, 9)).unwrap(),
        AgentId(2)
    );
    assert_eq!(a, AgentId(0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Snapshot at a random tick (with commands pending for the future), restore, then run both
    /// on: every tick's hash is equal.
    #[test]
    fn restore_then_step_matches_never_snapshotting(
        seed in any::<u64>(),
        n in 0usize..40,
        before in 0u64..40,
        after in 1u64..40,
        pending in 0usize..4,
        obstacles in 0usize..5,
    ) {
        let mut sim = det_support::random_scene_with_obstacles(seed, n, obstacles, 12.0, Vec2::ZERO);
        let mut inputs = script(seed ^ 1, 3, 12.0, Vec2::ZERO);
        run_hashes(&mut sim, before, &mut inputs);
        let mut rng = Rng(seed ^ 2);
        for k in 0..pending {
            let c = det_support::random_command(&mut rng, &sim, 12.0, Vec2::ZERO);
            if !matches!(c, Command::RemoveAgent { .. }) {
                sim.queue_command(sim.tick() + k as u64, c).unwrap();
            }
        }
        let bytes = sim.snapshot();
        let mut restored = Simulator::restore(&bytes).unwrap();
        prop_assert_eq!(restored.state_hash(), sim.state_hash());
        let mut inputs_b = script(seed ^ 1, 3, 12.0, Vec2::ZERO);
        let original = run_hashes(&mut sim, after, &mut inputs);
        let replayed = run_hashes(&mut restored, after, &mut inputs_b);
        prop_assert_eq!(original, replayed);
        prop_assert_eq!(restored.snapshot(), sim.snapshot());
    }
}

/// The byte formats are pinned: length and XXH3 of a snapshot and of a replay built from fixed
/// values (agents, obstacles, pending commands; no step is taken, so this moves only when an
/// encoding changes, never with the simulation's behaviour). `.ci/cross-check` runs it on
/// every target, proving the bytes — not only the hashes — identical on 32-bit, big-endian and
/// wasm32. If it fails, a format changed: bump `SNAPSHOT_VERSION` / `REPLAY_VERSION` (or the
/// hash magic) so old files are refused rather than misread, then accept the new values with
/// `cargo insta review`.
#[test]
fn formats_are_pinned() {
    use lockstep_orca::replay::{AgentMark, Checkpoint, Replay, Step};
    let mut sim = det_support::random_scene_with_obstacles(77, 16, 3, 10.0, Vec2::ZERO);
    let id = sim.agent_ids()[3];
    sim.queue_command(2, Command::RemoveAgent { id }).unwrap();
    let snap = sim.snapshot();
    let step = |tick: u64, commands: Vec<Command>, hash: u64| Step {
        tick,
        commands,
        hash,
        rejected: 0,
    };
    let replay = Replay {
        initial: snap.clone(),
        start_tick: 0,
        initial_hash: sim.state_hash(),
        checkpoint_interval: 2,
        steps: vec![
            step(0, vec![], 1),
            step(
                1,
                vec![Command::SetVelocity {
                    id,
                    v: Vec2::from_int(-1, 2),
                }],
                2,
            ),
            step(2, vec![], 3),
        ],
        checkpoints: vec![Checkpoint {
            tick: 2,
            agents: vec![AgentMark {
                id,
                position: Vec2::new(Fx::lit("0.5"), Fx::lit("-7.25")),
                hash: 42,
            }],
            orders: Some(vec![lockstep_orca::replay::OrderMark {
                id,
                progress: 1,
                path: vec![
                    Vec2::from_int(3, -4),
                    Vec2::new(Fx::lit("-0.75"), Fx::lit("8")),
                ],
            }]),
        }],
        final_hash: 3,
    }
    .to_bytes()
    .unwrap();
    let digest = |b: &[u8]| {
        format!(
            "len={} xxh3={:016x}",
            b.len(),
            xxhash_rust::xxh3::xxh3_64(b)
        )
    };
    let text = format!(
        "snapshot {}\nreplay {}\nstate hash {:016x}\n",
        digest(&snap),
        digest(&replay),
        sim.state_hash()
    );
    insta::assert_snapshot!("formats_are_pinned", text);
}

// ------------------------------------------------------------------ hostile input

#[test]
fn every_truncation_is_rejected() {
    let bytes = small_scene().snapshot();
    for len in 0..bytes.len() {
        let err = Simulator::restore(&bytes[..len]).unwrap_err();
        assert!(
            matches!(
                err,
                SnapshotError::Truncated { .. } | SnapshotError::LengthMismatch { .. }
            ),
            "length {len}: {err:?}"
        );
    }
}

#[test]
fn flipped_bytes_fail_the_checksum_or_header() {
    let bytes = small_scene().snapshot();
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        let err = Simulator::restore(&bad).unwrap_err();
        let expected = match i {
            0..8 => matches!(err, SnapshotError::BadMagic { .. }),
            8..12 => matches!(err, SnapshotError::UnsupportedVersion { .. }),
            12..20 => matches!(
                err,
                SnapshotError::TooLarge { .. } | SnapshotError::LengthMismatch { .. }
            ),
            _ => matches!(err, SnapshotError::ChecksumMismatch { .. }),
        };
        assert!(expected, "byte {i}: {err:?}");
    }
}

#[test]
fn wrong_version_is_named() {
    // This build reads versions 3 to 12 (4: with the agent models, 5: with the order
    // lifecycle, 6: with navigation, 7: with formations, 8: with traffic's right of way, 9:
    // with marches, 10: with traffic settings and batch counters, 11: with the quick-plan
    // cap, 12: with navigated legs); the newest is named.
    let bytes = small_scene().snapshot();
    let newest = SNAPSHOT_VERSION_LEGS;
    assert_eq!(
        SNAPSHOT_VERSION_TRAFFIC_SETTINGS,
        SNAPSHOT_VERSION_MARCH + 1
    );
    assert_eq!(
        SNAPSHOT_VERSION_PLANNING,
        SNAPSHOT_VERSION_TRAFFIC_SETTINGS + 1
    );
    assert_eq!(newest, SNAPSHOT_VERSION_PLANNING + 1);
    let bad = reseal(&SNAPSHOT_MAGIC, newest + 1, payload(&bytes));
    assert_eq!(
        Simulator::restore(&bad).unwrap_err(),
        SnapshotError::UnsupportedVersion {
            found: newest + 1,
            supported: newest
        }
    );
}

#[test]
fn a_replay_is_not_a_snapshot() {
    // Neither a version-2 replay stream nor a snapshot payload under the replay magic.
    let mut sim = small_scene();
    let stream = lockstep_orca::replay::record(
        &mut sim,
        2,
        lockstep_orca::replay::RecordOptions::default(),
        |_| Vec::new(),
    )
    .unwrap()
    .to_bytes()
    .unwrap();
    assert!(matches!(
        Simulator::restore(&stream),
        Err(SnapshotError::BadMagic { .. } | SnapshotError::Truncated { .. })
    ));
    let bytes = small_scene().snapshot();
    let bad = reseal(b"LSORCARP", SNAPSHOT_VERSION, payload(&bytes));
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::BadMagic { .. })
    ));
}

#[test]
fn oversized_length_is_refused_before_allocating() {
    let mut bad = small_scene().snapshot();
    bad[12..20].copy_from_slice(&(MAX_PAYLOAD_BYTES + 1).to_le_bytes());
    assert_eq!(
        Simulator::restore(&bad).unwrap_err(),
        SnapshotError::TooLarge {
            declared: MAX_PAYLOAD_BYTES + 1,
            max: MAX_PAYLOAD_BYTES
        }
    );
    bad[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::TooLarge { .. })
    ));
}

#[test]
fn appended_bytes_are_refused() {
    let mut bad = small_scene().snapshot();
    bad.push(0);
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::LengthMismatch { .. })
    ));
    let bytes = small_scene().snapshot();
    let mut p = payload(&bytes).to_vec();
    p.extend_from_slice(&[0, 0, 0]);
    let bad = reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p);
    assert_eq!(
        Simulator::restore(&bad).unwrap_err(),
        SnapshotError::TrailingBytes { extra: 3 }
    );
}

#[test]
fn huge_sequence_length_is_a_decode_error_not_an_allocation() {
    // A one-agent snapshot: the agent count is the u64 right after tick, time, time step,
    // next id, the liveness mode's enum tag (u32), the default steering (four `None` option
    // tags, one byte each) and the 45 default-parameter bytes.
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_agent(Vec2::ZERO).unwrap();
    let bytes = sim.snapshot();
    let mut p = payload(&bytes).to_vec();
    let at = 8 + 8 + 8 + 4 + 4 + 4 + 45;
    assert_eq!(p[at..at + 8], 1u64.to_le_bytes());
    p[at..at + 8].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    let err = Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p)).unwrap_err();
    assert!(matches!(err, SnapshotError::Decode(_)), "{err:?}");
}

#[test]
fn obstacle_neighbor_mode_tag_is_checked() {
    // No pending commands: the payload ends with the obstacle set's id counter (u32), its
    // neighbour mode tag (u32) and the command count (u64).
    use lockstep_orca::obstacle::ObstacleNeighbors;
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(lockstep_orca::ObstacleShape::Polyline(vec![
        Vec2::from_int(0, 0),
        Vec2::from_int(3, 1),
    ]))
    .unwrap();
    sim.set_obstacle_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    let bytes = sim.snapshot();
    let mut p = payload(&bytes).to_vec();
    let at = p.len() - 12;
    assert_eq!(p[at - 4..at], 1u32.to_le_bytes(), "obstacle id counter");
    assert_eq!(
        p[at..at + 4],
        1u32.to_le_bytes(),
        "mode tag: RVO2 fragments"
    );
    let back = Simulator::restore(&bytes).unwrap();
    assert_eq!(
        back.obstacles().neighbor_mode(),
        ObstacleNeighbors::Rvo2Fragments
    );
    p[at..at + 4].copy_from_slice(&2u32.to_le_bytes());
    let err = Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p)).unwrap_err();
    assert!(matches!(err, SnapshotError::Decode(_)), "{err:?}");
}

/// Replaces the first occurrence of `from` (raw bytes) by `to` in the payload and reseals.
fn patch(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut p = payload(bytes).to_vec();
    let at = p
        .windows(from.len())
        .position(|w| w == from)
        .expect("pattern in payload");
    p[at..at + to.len()].copy_from_slice(to);
    reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p)
}

#[test]
fn out_of_domain_values_are_rejected() {
    let edge = Fx::from_num(1_000_000);
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let id = sim.add_agent(Vec2::new(edge, Fx::ZERO)).unwrap();
    sim.set_agent_pref_velocity(id, Vec2::from_int(1000, 0))
        .unwrap();
    let bytes = sim.snapshot();
    // Position one ulp beyond the coordinate domain.
    let bad = patch(
        &bytes,
        &edge.to_bits().to_le_bytes(),
        &(edge.to_bits() + 1).to_le_bytes(),
    );
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::Invalid(SimError::OutOfDomain {
            what: "position",
            ..
        }))
    ));
    // Preferred velocity beyond the speed domain.
    let v = Fx::from_num(1000).to_bits();
    let bad = patch(&bytes, &v.to_le_bytes(), &(v + 1).to_le_bytes());
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::Invalid(_))
    ));
    // A radius of zero (parameters are re-validated, incl. the velocity-scale ratios).
    let r = AgentParams::default().radius.to_bits();
    let bad = patch(&bytes, &r.to_le_bytes(), &0i64.to_le_bytes());
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::Invalid(SimError::OutOfDomain {
            what: "radius",
            ..
        }))
    ));
    // A time step of zero.
    let dt = Fx::lit("0.25").to_bits();
    let bad = patch(&bytes, &dt.to_le_bytes(), &0i64.to_le_bytes());
    assert!(matches!(
        Simulator::restore(&bad),
        Err(SnapshotError::Invalid(_))
    ));
}

/// Found by `decode_fuzz`: `Fx::MIN` made the domain check's `abs` overflow (a panic
/// with debug assertions). It must be an ordinary domain error.
#[test]
fn fx_min_components_are_out_of_domain_not_a_panic() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let id = sim.add_agent(Vec2::from_int(3, 0)).unwrap();
    sim.set_agent_velocity(id, Vec2::from_int(0, 7)).unwrap();
    let bytes = sim.snapshot();
    let min = Fx::MIN.to_bits().to_le_bytes();
    for from in [Fx::from_num(3), Fx::from_num(7)] {
        let bad = patch(&bytes, &from.to_bits().to_le_bytes(), &min);
        assert!(matches!(
            Simulator::restore(&bad),
            Err(SnapshotError::Invalid(SimError::OutOfDomain { .. }))
        ));
    }
    let c = Command::SetPrefVelocity {
        id,
        v: Vec2::new(Fx::ZERO, Fx::MIN),
    };
    assert!(matches!(
        sim.queue_command(0, c),
        Err(SimError::OutOfDomain { .. })
    ));
}

#[test]
fn inconsistent_structure_is_rejected() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_agent(Vec2::ZERO).unwrap();
    sim.add_agent(Vec2::from_int(3, 0)).unwrap();
    let bytes = sim.snapshot();
    // next_id (u32 after tick, time, time step) lowered to 1: agent 1 is not below it.
    let mut p = payload(&bytes).to_vec();
    p[24..28].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(
        Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p)).unwrap_err(),
        SnapshotError::Inconsistent("agent id not below the id counter")
    );
    // Second agent's id (right after the first record: id 4, vectors 48, parameters 45,
    // stall counter 2 bytes) set to 0.
    let mut p = payload(&bytes).to_vec();
    let first = 8 + 8 + 8 + 4 + 4 + 4 + 45 + 8;
    let second = first + 4 + 48 + 45 + 2;
    assert_eq!(p[second..second + 4], 1u32.to_le_bytes());
    p[second..second + 4].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(
        Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p)).unwrap_err(),
        SnapshotError::Inconsistent("agent ids not strictly ascending")
    );
}

#[test]
fn pending_commands_in_the_past_are_rejected() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let id = sim.add_agent(Vec2::ZERO).unwrap();
    sim.step().unwrap();
    sim.queue_command(
        1,
        Command::SetPrefVelocity {
            id,
            v: Vec2::from_int(1, 0),
        },
    )
    .unwrap();
    let bytes = sim.snapshot();
    // The pending command's tick is the last u64 = 1 before its tag; set the state's tick to 2.
    let mut p = payload(&bytes).to_vec();
    p[0..8].copy_from_slice(&2u64.to_le_bytes());
    assert_eq!(
        Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &p)).unwrap_err(),
        SnapshotError::Inconsistent("pending command in the past")
    );
}

/// Version 4 (agent models, issue 14): its models section is checked like the rest. The
/// section is the payload's tail: a `u64` count, then per model the agent id (`u32`), layers,
/// mask (`u32`), body radius and max accel (option: tag byte, value when some), support and
/// slope (two `i64` each), speed limit (option): 47 bytes for a model of options all none.
#[test]
fn version_4_models_are_validated() {
    let mut sim = small_scene();
    let id = sim.agent_ids()[1];
    sim.set_agent_model(
        id,
        lockstep_orca::AgentModel {
            layers: 2,
            ..lockstep_orca::AgentModel::default()
        },
    )
    .unwrap();
    let bytes = sim.snapshot();
    let p = payload(&bytes).to_vec();
    let tail = p.len() - 55;
    assert_eq!(u64::from_le_bytes(p[tail..tail + 8].try_into().unwrap()), 1);
    assert_eq!(
        u32::from_le_bytes(p[tail + 8..tail + 12].try_into().unwrap()),
        id.0
    );
    let v4 = |p: &[u8]| Simulator::restore(&reseal(&SNAPSHOT_MAGIC, SNAPSHOT_VERSION_MODELS, p));
    assert_eq!(v4(&p).unwrap().state_hash(), sim.state_hash());
    // A model for an agent that is not there.
    let mut bad = p.clone();
    bad[tail + 8..tail + 12].copy_from_slice(&999u32.to_le_bytes());
    assert!(matches!(v4(&bad), Err(SnapshotError::Inconsistent(_))));
    // A default model stored (layers back to 1).
    let mut bad = p.clone();
    bad[tail + 12..tail + 16].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(
        v4(&bad).unwrap_err(),
        SnapshotError::Inconsistent("a default agent model stored")
    );
    // A slope outside the domain.
    let mut bad = p.clone();
    let slope_x = tail + 8 + 4 + 8 + 1 + 1 + 16;
    bad[slope_x..slope_x + 8].copy_from_slice(&(5000i64 << 32).to_le_bytes());
    assert!(matches!(v4(&bad), Err(SnapshotError::Invalid(_))));
    // Two models for one agent.
    let mut bad = p.clone();
    bad[tail..tail + 8].copy_from_slice(&2u64.to_le_bytes());
    bad.extend_from_slice(&p[tail + 8..]);
    assert!(matches!(v4(&bad), Err(SnapshotError::Inconsistent(_))));
    // A version 3 payload read as version 4 lacks the section.
    let v3 = small_scene().snapshot();
    assert!(matches!(v4(payload(&v3)), Err(SnapshotError::Decode(_))));
}

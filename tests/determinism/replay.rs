//! Commands, rollback and replays: canonical command order, apply-time skipping, undo of a
//! failed step, rollback by snapshot, record/verify, and the tamper test (verify names the tick).

use crate::det_support;

use det_support::{random_scene, run_hashes, script};
use lockstep_orca::replay::{self, RecordOptions, Replay};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, SimError, Simulator, SimulatorParams, SnapshotError, Vec2,
    VerifyReport,
};

fn pref(id: u32, x: i32, y: i32) -> Command {
    Command::SetPrefVelocity {
        id: AgentId(id),
        v: Vec2::from_int(x, y),
    }
}

fn line_scene(n: i32) -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..n {
        sim.add_agent(Vec2::from_int(4 * i, i % 3)).unwrap();
    }
    sim
}

// ------------------------------------------------------------------ commands

#[test]
fn queue_order_does_not_matter_across_agents() {
    let cmds = [
        pref(2, 1, 0),
        pref(0, -1, 0),
        Command::AddAgent {
            position: Vec2::from_int(50, 50),
            params: AgentParams::default(),
        },
        pref(3, 0, 1), // the agent added in the same tick (adds come first)
        pref(1, 0, -1),
    ];
    let mut a = line_scene(3);
    let mut b = line_scene(3);
    for c in cmds {
        a.queue_command(0, c).unwrap();
    }
    for c in cmds.iter().rev() {
        b.queue_command(0, *c).unwrap();
    }
    assert_eq!(a.state_hash(), b.state_hash());
    a.step().unwrap();
    b.step().unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
    assert!(a.rejected_commands().is_empty());
    assert_eq!(
        a.agent_pref_velocity(AgentId(3)).unwrap(),
        Vec2::from_int(0, 1)
    );
}

#[test]
fn pending_commands_are_part_of_the_hash() {
    let mut sim = line_scene(2);
    let empty = sim.state_hash();
    sim.queue_command(4, pref(0, 1, 0)).unwrap();
    let one = sim.state_hash();
    assert_ne!(one, empty);
    let mut other = line_scene(2);
    other.queue_command(5, pref(0, 1, 0)).unwrap();
    assert_ne!(other.state_hash(), one, "the tick is hashed");
    // The sync hash ignores the queue (peers receive future inputs at different times).
    assert_eq!(sim.sync_hash(), empty);
    assert_eq!(sim.pending_commands().len(), 1);
    sim.clear_pending_commands();
    assert_eq!(sim.state_hash(), empty);
    assert_eq!(sim.sync_hash(), empty);
}

#[test]
fn same_agent_commands_keep_insertion_order() {
    let mut sim = line_scene(2);
    sim.queue_command(0, pref(1, 1, 0)).unwrap();
    sim.queue_command(0, pref(1, 0, 1)).unwrap();
    sim.step().unwrap();
    assert_eq!(
        sim.agent_pref_velocity(AgentId(1)).unwrap(),
        Vec2::from_int(0, 1)
    );
}

#[test]
fn commands_apply_at_their_tick_only() {
    let mut sim = line_scene(1);
    sim.queue_command(2, pref(0, 1, 0)).unwrap();
    sim.step().unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_pref_velocity(AgentId(0)).unwrap(), Vec2::ZERO);
    assert_eq!(sim.pending_commands().len(), 1);
    sim.step().unwrap();
    assert_eq!(
        sim.agent_pref_velocity(AgentId(0)).unwrap(),
        Vec2::from_int(1, 0)
    );
    assert!(sim.pending_commands().is_empty());
}

#[test]
fn bad_commands_are_refused_when_queued() {
    let mut sim = line_scene(2);
    sim.step().unwrap();
    let past = sim.queue_command(0, pref(0, 1, 0)).unwrap_err();
    assert!(matches!(
        past,
        SimError::OutOfDomain {
            what: "command tick",
            ..
        }
    ));
    let fast = Command::SetPrefVelocity {
        id: AgentId(0),
        v: Vec2::from_int(1001, 0),
    };
    assert!(matches!(
        sim.queue_command(1, fast),
        Err(SimError::OutOfDomain { .. })
    ));
    let far = Command::AddAgent {
        position: Vec2::from_int(1_000_001, 0),
        params: AgentParams::default(),
    };
    assert!(sim.queue_command(1, far).is_err());
    sim.remove_agent(AgentId(1)).unwrap();
    assert_eq!(
        sim.queue_command(5, pref(1, 1, 0)).unwrap_err(),
        SimError::UnknownAgent(AgentId(1))
    );
    assert!(sim.pending_commands().is_empty());
}

#[test]
fn a_command_invalid_at_apply_time_is_skipped_and_reported() {
    let mut sim = line_scene(2);
    sim.queue_command(0, Command::RemoveAgent { id: AgentId(1) })
        .unwrap();
    sim.queue_command(0, pref(1, 1, 0)).unwrap(); // after the removal (same id, later)
    sim.queue_command(0, pref(0, 1, 0)).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.num_agents(), 1);
    assert_eq!(
        sim.agent_pref_velocity(AgentId(0)).unwrap(),
        Vec2::from_int(1, 0)
    );
    let rejected = sim.rejected_commands();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].command, pref(1, 1, 0));
    assert_eq!(rejected[0].error, SimError::UnknownAgent(AgentId(1)));
    sim.step().unwrap();
    assert!(sim.rejected_commands().is_empty());
}

#[test]
fn a_future_id_is_accepted_when_queued_and_skipped_if_never_added() {
    let mut sim = line_scene(2);
    sim.queue_command(0, pref(7, 1, 0)).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.rejected_commands().len(), 1);
    assert_eq!(
        sim.rejected_commands()[0].error,
        SimError::UnknownAgent(AgentId(7))
    );
}

#[test]
fn a_failed_step_undoes_its_commands() {
    // An agent at the domain's edge about to step out of it.
    let edge = Fx::from_num(1_000_000);
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim
        .add_agent(Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
        .unwrap();
    let b = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    sim.set_agent_velocity(a, Vec2::from_int(2, 0)).unwrap();
    sim.queue_command(0, pref(a.0, 2, 0)).unwrap();
    sim.queue_command(0, Command::RemoveAgent { id: b })
        .unwrap();
    sim.queue_command(
        0,
        Command::AddAgent {
            position: Vec2::from_int(7, 7),
            params: AgentParams::default(),
        },
    )
    .unwrap();
    let before = sim.snapshot();
    let hash = sim.state_hash();
    assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(a)));
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.snapshot(), before);
    assert_eq!(sim.pending_commands().len(), 3);
    // The add is still deterministic afterwards: it gets id 2 once the step succeeds.
    sim.clear_pending_commands();
    sim.queue_command(0, pref(a.0, -2, 0)).unwrap();
    sim.set_agent_velocity(a, Vec2::from_int(-2, 0)).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.tick(), 1);
}

#[test]
fn apply_is_the_setters() {
    let mut sim = line_scene(1);
    let id = sim
        .apply(&Command::AddAgent {
            position: Vec2::from_int(3, 3),
            params: AgentParams::default(),
        })
        .unwrap();
    assert_eq!(id, Some(AgentId(1)));
    sim.apply(&Command::SetPosition {
        id: AgentId(1),
        position: Vec2::from_int(-3, 3),
    })
    .unwrap();
    assert_eq!(
        sim.agent_position(AgentId(1)).unwrap(),
        Vec2::from_int(-3, 3)
    );
    assert_eq!(
        sim.apply(&Command::RemoveAgent { id: AgentId(9) }),
        Err(SimError::UnknownAgent(AgentId(9)))
    );
}

// ------------------------------------------------------------------ rollback

/// A late input: tick 30's command arrives at tick 45. Roll back to the snapshot of tick 30,
/// queue it, re-simulate; the result equals a run that had it on time.
#[test]
fn rollback_resimulates_identically() {
    let late = pref(4, -2, 1);
    let mut inputs_on_time = script(5, 2, 15.0, Vec2::ZERO);
    let mut reference = random_scene(11, 20, 15.0, Vec2::ZERO);
    let mut expected = Vec::new();
    for _ in 0..60 {
        let tick = reference.tick();
        if tick == 30 {
            reference.queue_command(30, late).unwrap();
        }
        expected.extend(run_hashes(&mut reference, 1, &mut inputs_on_time));
    }

    let mut inputs = script(5, 2, 15.0, Vec2::ZERO);
    let mut sim = random_scene(11, 20, 15.0, Vec2::ZERO);
    let mut snapshots = Vec::new();
    let mut hashes = Vec::new();
    while sim.tick() < 45 {
        snapshots.push(sim.snapshot());
        hashes.extend(run_hashes(&mut sim, 1, &mut inputs));
    }
    assert_ne!(
        hashes[30..45],
        expected[30..45],
        "the late input must matter"
    );
    // Roll back: restore tick 30, queue the late input, re-run ticks 30..45.
    sim = Simulator::restore(&snapshots[30]).unwrap();
    sim.queue_command(30, late).unwrap();
    hashes.truncate(30);
    hashes.extend(run_hashes(&mut sim, 30, &mut inputs));
    assert_eq!(hashes, expected);
}

// ------------------------------------------------------------------ replays

fn recorded() -> Replay {
    let mut sim = random_scene(3, 25, 15.0, Vec2::ZERO);
    replay::record(
        &mut sim,
        80,
        RecordOptions {
            checkpoint_interval: 10,
        },
        script(17, 3, 15.0, Vec2::ZERO),
    )
    .unwrap()
}

#[test]
fn recorded_replay_verifies_and_round_trips() {
    let r = recorded();
    assert_eq!(r.ticks(), 80);
    assert_eq!(r.checkpoints.len(), 8);
    let report = replay::verify(&r);
    assert!(report.is_match(), "{report}");
    let bytes = r.to_bytes();
    let back = Replay::from_bytes(&bytes).unwrap();
    assert_eq!(back, r);
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
    assert_eq!(r.hashes_every(25).len(), 4); // 25, 50, 75, 80
}

#[test]
fn record_until_stops_before_the_step_when_done() {
    let mut sim = random_scene(4, 10, 10.0, Vec2::ZERO);
    let r = replay::record_until(
        &mut sim,
        100,
        RecordOptions::default(),
        script(6, 2, 10.0, Vec2::ZERO),
        |sim| sim.tick() == 15,
    )
    .unwrap();
    assert_eq!(r.ticks(), 15);
    let ticks: Vec<u64> = r.checkpoints.iter().map(|c| c.tick).collect();
    assert_eq!(ticks, [10, 15]);
    assert!(replay::verify(&r).is_match());
    // Zero ticks: a valid, empty replay.
    let empty = replay::record(&mut sim, 0, RecordOptions::default(), |_| Vec::new()).unwrap();
    assert_eq!(empty.final_hash, empty.initial_hash);
    assert!(replay::verify(&Replay::from_bytes(&empty.to_bytes()).unwrap()).is_match());
}

/// Size of a replay of RVO2's Circle-sized crowd: every agent's preferred velocity every tick
/// dominates (24 bytes a command).
#[test]
fn replay_size_is_as_documented() {
    let mut sim = random_scene(9, 250, 100.0, Vec2::ZERO);
    let r = replay::record(&mut sim, 100, RecordOptions::default(), |sim| {
        sim.agent_ids()
            .iter()
            .map(|&id| Command::SetPrefVelocity {
                id,
                v: Vec2::from_int(1, 0),
            })
            .collect()
    })
    .unwrap();
    let bytes = r.to_bytes().len();
    let commands = 250 * 100 * 24;
    let checkpoints = 10 * (16 + 250 * 28);
    let fixed = r.initial.len() + 100 * 8 + 100 * 16 + 100;
    eprintln!("replay of 250 agents x 100 ticks: {bytes} bytes");
    assert!(bytes >= commands + checkpoints, "{bytes}");
    assert!(bytes <= commands + checkpoints + fixed, "{bytes}");
}

#[test]
fn record_starts_anywhere_and_carries_pending_commands() {
    let mut sim = random_scene(8, 10, 10.0, Vec2::ZERO);
    sim.step().unwrap();
    sim.queue_command(5, pref(2, 2, 2)).unwrap();
    let r = replay::record(&mut sim, 12, RecordOptions::default(), |_| Vec::new()).unwrap();
    assert_eq!(r.start_tick, 1);
    assert!(replay::verify(&r).is_match());
    assert_eq!(r.final_hash, sim.state_hash());
}

/// Change one preferred velocity of the first input tick from 37 on: verify names the tick
/// after it (the first state it changed) and the agent it addressed.
#[test]
fn tampered_command_is_named() {
    let mut r = recorded();
    let (tick, i, id) = r
        .inputs
        .iter()
        .filter(|t| t.tick >= 37)
        .find_map(|t| {
            t.commands.iter().enumerate().find_map(|(i, c)| match c {
                Command::SetPrefVelocity { id, .. } => Some((t.tick, i, *id)),
                _ => None,
            })
        })
        .expect("a preferred-velocity command from tick 37 on");
    let ti = r.inputs.iter_mut().find(|t| t.tick == tick).unwrap();
    ti.commands[i] = Command::SetPrefVelocity {
        id,
        v: Vec2::from_int(-3, 3),
    };
    let report = replay::verify(&Replay::from_bytes(&r.to_bytes()).unwrap());
    let d = report.divergence().expect("diverged");
    assert_eq!(d.tick, tick + 1, "{report}");
    assert_eq!(d.agents_tick, Some((tick + 1).div_ceil(10) * 10));
    assert!(d.agents.iter().any(|a| a.id == id), "{report}");
    assert!(
        report
            .to_string()
            .contains(&format!("DIVERGED at tick {}", tick + 1))
    );
    eprintln!("{report}");
}

#[test]
fn tampered_hash_is_named() {
    let mut r = recorded();
    r.hashes[52] ^= 1; // the hash of tick 53
    let report = replay::verify(&r);
    assert_eq!(report.divergence().unwrap().tick, 53);
    // The state itself did not change: the checkpoint at 60 shows no agent difference.
    assert!(report.divergence().unwrap().agents.is_empty());
}

#[test]
fn tampered_checkpoint_position_is_reported() {
    let mut r = recorded();
    let removed = r.inputs[0].commands.clone();
    // Dropping every command of the first input tick changes the run from there.
    r.inputs.remove(0);
    let report = replay::verify(&r);
    assert!(!report.is_match());
    assert!(!removed.is_empty());
}

#[test]
fn corrupt_replays_are_rejected() {
    let r = recorded();
    let bytes = r.to_bytes();
    assert!(matches!(
        Replay::from_bytes(&bytes[..bytes.len() - 1]),
        Err(SnapshotError::LengthMismatch { .. })
    ));
    let mut flipped = bytes.clone();
    flipped[100] ^= 4;
    assert!(matches!(
        Replay::from_bytes(&flipped),
        Err(SnapshotError::ChecksumMismatch { .. })
    ));
    assert!(matches!(
        Simulator::restore(&bytes),
        Err(SnapshotError::BadMagic { .. })
    ));
    let mut bad = r.clone();
    bad.final_hash ^= 1;
    assert_eq!(
        Replay::from_bytes(&bad.to_bytes()),
        Err(SnapshotError::Inconsistent(
            "final hash differs from the last tick's hash"
        ))
    );
    let mut bad = r.clone();
    bad.inputs.swap(0, 1);
    assert!(matches!(
        Replay::from_bytes(&bad.to_bytes()),
        Err(SnapshotError::Inconsistent(_))
    ));
    let mut bad = r.clone();
    bad.initial[30] ^= 1;
    assert!(matches!(
        replay::verify(&bad),
        VerifyReport::BadInitialState(SnapshotError::ChecksumMismatch { .. })
    ));
}

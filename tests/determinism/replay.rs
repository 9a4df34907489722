//! Commands, rollback and replays: canonical command order, apply-time skipping, undo of a
//! failed step, rollback by snapshot, record/verify, and the tamper test (verify names the tick).

use crate::det_support;

use det_support::{random_scene, run_hashes, script};
use lockstep_orca::replay::{
    self, REPLAY_MAGIC, REPLAY_VERSION, RecordOptions, Replay, ReplayError, ReplayWriter,
};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, SimError, Simulator, SimulatorParams, SnapshotError, Vec2,
    VerifyReport,
};
use std::io::Read;

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
    for c in cmds.clone() {
        a.queue_command(0, c).unwrap();
    }
    for c in cmds.iter().rev() {
        b.queue_command(0, c.clone()).unwrap();
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
            reference.queue_command(30, late.clone()).unwrap();
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
    let bytes = r.to_bytes().unwrap();
    let back = Replay::from_bytes(&bytes).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.to_bytes().unwrap(), bytes);
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
    assert_eq!(r.hashes_every(25).len(), 4); // 25, 50, 75, 80
    // The streaming writer and the in-memory encoder write the same bytes.
    let mut sim = random_scene(3, 25, 15.0, Vec2::ZERO);
    let (streamed, summary) = replay::record_to(
        Vec::new(),
        &mut sim,
        80,
        RecordOptions {
            checkpoint_interval: 10,
        },
        script(17, 3, 15.0, Vec2::ZERO),
        |_| false,
    )
    .unwrap();
    assert_eq!(streamed, bytes);
    assert_eq!(summary.bytes, bytes.len() as u64);
    assert_eq!(summary.final_hash, r.final_hash);
    assert_eq!(
        summary.commands,
        r.steps.iter().map(|s| s.commands.len() as u64).sum::<u64>()
    );
}

#[test]
fn record_until_stops_before_the_step_when_done() {
    let mut sim = random_scene(4, 10, 10.0, Vec2::ZERO);
    let r = replay::record_until(
        &mut sim,
        100,
        RecordOptions {
            checkpoint_interval: 10,
        },
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
    assert!(empty.checkpoints.is_empty());
    let bytes = empty.to_bytes().unwrap();
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
}

/// Sizes, from the encoding (docs/replays.md): 12 bytes of header; the begin frame 13 + 20 +
/// the snapshot; every tick 13 + 8 (hash) + 1 (skipped count) + the command count's LEB128 +
/// 24 per `SetPrefVelocity`; every checkpoint 13 + the agent count's LEB128 + per agent 1 (id
/// gap) + the two coordinates' LEB128 + 4; the end frame 29.
#[test]
fn replay_size_is_as_documented() {
    let mut sim = random_scene(9, 250, 100.0, Vec2::ZERO);
    let snapshot = sim.snapshot().len();
    let steer = |sim: &Simulator| {
        sim.agent_ids()
            .iter()
            .map(|&id| Command::SetPrefVelocity {
                id,
                v: Vec2::from_int(1, 0),
            })
            .collect()
    };
    let r = replay::record(&mut sim, 100, RecordOptions::default(), steer).unwrap();
    let bytes = r.to_bytes().unwrap().len();
    // 250 commands: a two-byte count.
    let ticks = 100 * (13 + 8 + 1 + 2 + 250 * 24);
    // Checkpoints at ticks 60 and 100 (the last); coordinates of |x| < 128 (|bits| < 2^39, a
    // zigzag value < 2^40) take 6 bytes, of |x| < 0.5, 5 or fewer.
    assert_eq!(r.checkpoints.len(), 2);
    let marks = 2 * 250;
    let fixed = 12 + (13 + 20 + snapshot) + 2 * (13 + 2) + 29;
    eprintln!("replay of 250 agents x 100 ticks: {bytes} bytes");
    assert!(bytes <= fixed + ticks + marks * (1 + 6 + 6 + 4), "{bytes}");
    assert!(bytes >= fixed + ticks + marks * (1 + 1 + 1 + 4), "{bytes}");
    // Without commands a tick is 23 bytes.
    let mut sim = random_scene(9, 250, 100.0, Vec2::ZERO);
    let quiet = replay::record(&mut sim, 100, RecordOptions::default(), |_| Vec::new()).unwrap();
    let quiet_bytes = quiet.to_bytes().unwrap().len();
    let quiet_ticks = 100 * 23;
    assert!(
        quiet_bytes <= fixed + quiet_ticks + marks * 17,
        "{quiet_bytes}"
    );
    assert!(
        quiet_bytes >= fixed + quiet_ticks + marks * 7,
        "{quiet_bytes}"
    );
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
        .steps
        .iter()
        .filter(|t| t.tick >= 37)
        .find_map(|t| {
            t.commands.iter().enumerate().find_map(|(i, c)| match c {
                Command::SetPrefVelocity { id, .. } => Some((t.tick, i, *id)),
                _ => None,
            })
        })
        .expect("a preferred-velocity command from tick 37 on");
    let ti = r.steps.iter_mut().find(|t| t.tick == tick).unwrap();
    ti.commands[i] = Command::SetPrefVelocity {
        id,
        v: Vec2::from_int(-3, 3),
    };
    let report = replay::verify_bytes(&r.to_bytes().unwrap()).unwrap();
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
    r.steps[52].hash ^= 1; // the hash of tick 53
    let report = replay::verify(&r);
    assert_eq!(report.divergence().unwrap().tick, 53);
    // The state itself did not change: the checkpoint at 60 shows no agent difference.
    assert!(report.divergence().unwrap().agents.is_empty());
    assert_eq!(report.divergence().unwrap().agents_tick, Some(60));
}

#[test]
fn dropped_commands_are_a_mismatch() {
    let mut r = recorded();
    let first = r.steps.iter().position(|s| !s.commands.is_empty()).unwrap();
    // Dropping every command of the first input tick changes the run from there.
    r.steps[first].commands.clear();
    let report = replay::verify(&r);
    assert_eq!(
        report.divergence().map(|d| d.tick),
        Some(r.steps[first].tick + 1),
        "{report}"
    );
}

/// A checkpoint that claims an agent the state does not have (issue 13's ghost agent) fails
/// although every hash matches; so does a checkpoint whose agent hash was changed.
#[test]
fn a_ghost_checkpoint_agent_is_a_divergence() {
    let r = recorded();
    let mut ghost = r.clone();
    let cp = &mut ghost.checkpoints[2];
    let last = cp.agents.last().unwrap().id.0;
    cp.agents.push(lockstep_orca::replay::AgentMark {
        id: AgentId(last + 100),
        position: Vec2::from_int(1, 1),
        hash: 7,
    });
    let at = cp.tick;
    let report = replay::verify(&ghost);
    let d = report.divergence().expect("a ghost agent is a divergence");
    assert_eq!((d.tick, d.agents_tick), (at, Some(at)), "{report}");
    assert_eq!(d.expected_hash, d.actual_hash);
    assert_eq!(d.agents.len(), 1);
    assert_eq!(d.agents[0].id, AgentId(last + 100));
    assert_eq!(d.agents[0].actual, None);
    assert!(
        report
            .to_string()
            .contains("matches, the checkpoint does not")
    );
    let mut changed = r;
    changed.checkpoints[0].agents[4].hash ^= 1;
    let id = changed.checkpoints[0].agents[4].id;
    let d = replay::verify(&changed).divergence().cloned().unwrap();
    assert_eq!((d.tick, d.agents.len(), d.agents[0].id), (10, 1, id));
}

/// An extra command that the step skips (an unknown agent) leaves every hash alone, but not
/// the recorded skipped-command count.
#[test]
fn an_extra_invalid_command_is_a_failure() {
    let mut r = recorded();
    r.steps[30].commands.push(pref(4000, 1, 1));
    let report = replay::verify(&r);
    assert_eq!(
        report,
        VerifyReport::RejectedCount {
            tick: 30,
            expected: 0,
            actual: 1
        }
    );
    assert!(
        report.to_string().contains("tick 30 skipped 1 commands"),
        "{report}"
    );
    // An invalid value is refused when queued.
    let mut r = recorded();
    r.steps[30].commands.push(Command::SetPrefVelocity {
        id: AgentId(0),
        v: Vec2::from_int(5000, 0),
    });
    assert!(matches!(
        replay::verify(&r),
        VerifyReport::CommandRejected { tick: 30, .. }
    ));
}

#[test]
fn corrupt_replays_are_rejected() {
    let r = recorded();
    let bytes = r.to_bytes().unwrap();
    let mut flipped = bytes.clone();
    // A byte inside the first frame's payload (past the 12-byte header and the frame's kind
    // and length): its checksum fails.
    flipped[40] ^= 4;
    assert!(matches!(
        Replay::from_bytes(&flipped),
        Err(ReplayError::ChecksumMismatch { .. })
    ));
    assert!(matches!(
        Simulator::restore(&bytes),
        Err(SnapshotError::BadMagic { .. })
    ));
    let mut bad = r.clone();
    bad.final_hash ^= 1;
    assert_eq!(
        Replay::from_bytes(&bad.to_bytes().unwrap()),
        Err(ReplayError::Inconsistent(
            "final hash differs from the last tick's hash"
        ))
    );
    let mut bad = r.clone();
    bad.steps.swap(0, 1);
    assert!(matches!(bad.to_bytes(), Err(ReplayError::Inconsistent(_))));
    let mut bad = r.clone();
    bad.checkpoints.swap(0, 1);
    assert!(matches!(bad.to_bytes(), Err(ReplayError::Inconsistent(_))));
    let mut bad = r.clone();
    bad.initial[30] ^= 1;
    assert!(matches!(
        replay::verify(&bad),
        VerifyReport::Invalid(ReplayError::InitialState(
            SnapshotError::ChecksumMismatch { .. }
        ))
    ));
    // Trailing garbage, a version-1 header, a wrong magic.
    let mut padded = bytes.clone();
    padded.push(0);
    assert_eq!(
        Replay::from_bytes(&padded),
        Err(ReplayError::TrailingBytes {
            offset: bytes.len() as u64
        })
    );
    let mut v1 = bytes.clone();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let e = replay::verify_bytes(&v1).unwrap_err();
    assert_eq!(
        e,
        ReplayError::UnsupportedVersion {
            found: 1,
            supported: REPLAY_VERSION
        }
    );
    assert!(e.to_string().starts_with("unsupported version"), "{e}");
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(replay::verify_bytes(&magic), Err(ReplayError::BadMagic));
}

fn small_replay() -> Vec<u8> {
    let mut sim = random_scene(5, 3, 6.0, Vec2::ZERO);
    replay::record(
        &mut sim,
        5,
        RecordOptions {
            checkpoint_interval: 2,
        },
        script(2, 2, 6.0, Vec2::ZERO),
    )
    .unwrap()
    .to_bytes()
    .unwrap()
}

/// Every proper prefix of a replay is an `Err` (truncated), from the reader and from
/// verification alike; never a panic, never a match.
#[test]
fn every_truncation_is_an_error() {
    let bytes = small_replay();
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
    for len in 0..bytes.len() {
        let cut = &bytes[..len];
        let e = Replay::from_bytes(cut).unwrap_err();
        assert!(
            matches!(e, ReplayError::Truncated { offset, .. } if offset == len as u64),
            "length {len}: {e:?}"
        );
        assert!(replay::verify_bytes(cut).is_err(), "length {len}");
    }
}

/// Every flipped byte is an `Err`: the header's own checks, else a checksum (or a length over
/// its limit, or an unknown frame kind).
#[test]
fn every_flipped_byte_is_an_error() {
    let bytes = small_replay();
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x40;
        let e = replay::verify_bytes(&bad).unwrap_err();
        let expected = match i {
            0..8 => e == ReplayError::BadMagic,
            8..12 => matches!(e, ReplayError::UnsupportedVersion { .. }),
            _ => matches!(
                e,
                ReplayError::ChecksumMismatch { .. }
                    | ReplayError::FrameTooLarge { .. }
                    | ReplayError::UnexpectedFrame { .. }
                    | ReplayError::Truncated { .. }
            ),
        };
        assert!(expected, "byte {i}: {e:?}");
    }
}

/// A source that counts the bytes it hands out.
struct Counted<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

fn counted<R: Read>(inner: R) -> (Counted<R>, std::rc::Rc<std::cell::Cell<u64>>) {
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    (
        Counted {
            inner,
            read: read.clone(),
        },
        read,
    )
}

/// An endless stream of zeros is refused after its first 12 bytes (the header), whatever
/// follows; an endless stream behind a valid header after the 5 bytes of a frame header; one
/// that declares the largest begin frame after that frame's bytes, never more.
#[test]
fn endless_streams_are_refused_after_a_bounded_read() {
    let (zeros, read) = counted(std::io::repeat(0));
    assert_eq!(replay::verify_stream(zeros), Err(ReplayError::BadMagic));
    assert_eq!(read.get(), 12);

    let mut head = REPLAY_MAGIC.to_vec();
    head.extend_from_slice(&REPLAY_VERSION.to_le_bytes());
    let (src, read) = counted(head.as_slice().chain(std::io::repeat(0)));
    assert_eq!(
        replay::verify_stream(src),
        Err(ReplayError::UnexpectedFrame {
            offset: 12,
            kind: 0
        })
    );
    assert_eq!(read.get(), 12 + 5);

    let mut begin = head.clone();
    begin.push(1);
    begin.extend_from_slice(&replay::MAX_BEGIN_FRAME_BYTES.to_le_bytes());
    let (src, read) = counted(begin.as_slice().chain(std::io::repeat(0)));
    assert_eq!(
        replay::verify_stream(src),
        Err(ReplayError::ChecksumMismatch { offset: 12 })
    );
    assert_eq!(
        read.get(),
        12 + 5 + u64::from(replay::MAX_BEGIN_FRAME_BYTES) + 8
    );

    // A declared length over the limit is refused before a byte of it is read.
    let mut huge = head;
    huge.push(1);
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    let (src, read) = counted(huge.as_slice().chain(std::io::repeat(0)));
    assert!(matches!(
        replay::verify_stream(src),
        Err(ReplayError::FrameTooLarge {
            declared: 0xffff_ffff,
            ..
        })
    ));
    assert_eq!(read.get(), 12 + 5);
}

/// A 1 GiB sparse file (`truncate -s 1G`) is refused after 12 bytes.
#[test]
fn a_sparse_gigabyte_file_is_refused_after_its_header() {
    let path = std::env::temp_dir().join(format!("lsorca-sparse-{}.replay", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 30).unwrap();
    drop(file);
    let (src, read) = counted(std::fs::File::open(&path).unwrap());
    let result = replay::verify_stream(src);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(result, Err(ReplayError::BadMagic));
    assert_eq!(read.get(), 12);
}

/// The writer refuses a simulator at the wrong tick, and writing nothing leaves it usable.
#[test]
fn the_writer_checks_its_ticks() {
    let mut sim = line_scene(3);
    let mut w = ReplayWriter::begin(Vec::new(), &sim, RecordOptions::default()).unwrap();
    let before = w.bytes_written();
    assert_eq!(
        w.push_tick(&[], &sim),
        Err(ReplayError::WrongTick {
            expected: 1,
            found: 0
        })
    );
    assert_eq!(w.bytes_written(), before);
    sim.step().unwrap();
    w.push_tick(&[], &sim).unwrap();
    sim.set_agent_position(AgentId(0), Vec2::from_int(9, 9))
        .unwrap();
    assert!(matches!(w.finish(&sim), Err(ReplayError::WrongTick { .. })));
}

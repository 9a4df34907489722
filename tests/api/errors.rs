//! Every error variant the crate can return is produced here (or in another test: the scanner in
//! `tests/docs.rs` checks that each variant of the crate's error enums is named by some test),
//! and a rejected call leaves the state hash unchanged.

use lockstep_orca::replay::{self, RecordError, RecordOptions, ReplayError, ReplayReader};
use lockstep_orca::scenario::{Scenario, ScenarioError};
use lockstep_orca::{Command, Fx, SimError, Simulator, SimulatorParams, Vec2, VerifyReport};
use std::io::{self, Read, Write};

fn moving_pair() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for x in [-10, 10] {
        let id = sim.add_agent(Vec2::from_int(x, 0)).unwrap();
        sim.apply(&Command::MoveTo {
            id,
            goal: Vec2::from_int(-x, 0),
        })
        .unwrap();
    }
    sim
}

fn recorded(ticks: u64) -> Vec<u8> {
    let mut sim = moving_pair();
    let (bytes, _) = replay::record_to(
        Vec::new(),
        &mut sim,
        ticks,
        RecordOptions::default(),
        |_| Vec::new(),
        |_| false,
    )
    .unwrap();
    bytes
}

/// A reader that fails after `left` bytes.
struct Failing {
    bytes: Vec<u8>,
    left: usize,
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("the disk went away"));
        }
        let n = buf.len().min(self.left).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes.drain(..n);
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn replay_io_and_decode_errors() {
    let bytes = recorded(5);
    // A read error past the header.
    let read = ReplayReader::new(Failing {
        bytes: bytes.clone(),
        left: 20,
    })
    .and_then(|mut r| r.next_frame().map(drop));
    assert!(matches!(read, Err(ReplayError::Io { .. })), "{read:?}");
    // A begin frame too short for its fields, behind a valid checksum: undecodable.
    let mut short = bytes[..12].to_vec();
    let start = short.len();
    short.push(1); // the begin frame's kind
    short.extend_from_slice(&3u32.to_le_bytes());
    short.extend_from_slice(&[0, 0, 0]);
    let check = xxhash_rust::xxh3::xxh3_64_with_seed(&short[start..], 0);
    short.extend_from_slice(&check.to_le_bytes());
    let err = replay::verify_stream(&short[..]).unwrap_err();
    assert!(
        matches!(err, ReplayError::Decode { offset: 12, .. }),
        "{err}"
    );
}

/// A writer that fails after `left` bytes.
#[derive(Debug)]
struct Full {
    left: usize,
}

impl Write for Full {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.left {
            return Err(io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn record_errors_name_the_tick() {
    // The writer fills up during the run.
    let mut sim = moving_pair();
    let size = recorded(3).len();
    let err = replay::record_to(
        Full { left: size },
        &mut sim,
        50,
        RecordOptions::default(),
        |_| Vec::new(),
        |_| false,
    )
    .unwrap_err();
    assert!(matches!(err, RecordError::Write { .. }), "{err}");
    // A command the closure gives is rejected: the simulator is where it was then.
    let mut sim = moving_pair();
    let hash = sim.state_hash();
    let bad = Command::MoveTo {
        id: lockstep_orca::AgentId(0),
        goal: Vec2::new(Fx::MAX, Fx::ZERO),
    };
    let err = replay::record(&mut sim, 10, RecordOptions::default(), |_| {
        vec![bad.clone()]
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            RecordError::Sim {
                tick: 0,
                error: SimError::OutOfDomain { .. }
            }
        ),
        "{err}"
    );
    assert_eq!(sim.state_hash(), hash);
}

#[test]
fn verify_reports_every_kind_of_failure() {
    let bytes = recorded(30);
    let good = lockstep_orca::Replay::from_bytes(&bytes).unwrap();
    assert!(matches!(replay::verify(&good), VerifyReport::Match { .. }));
    // Another command at tick 10: the hashes part from tick 11.
    let mut changed = good.clone();
    changed.steps[10].commands.push(Command::Stop {
        id: lockstep_orca::AgentId(1),
    });
    match replay::verify(&changed) {
        VerifyReport::Diverged(d) => assert_eq!(d.tick, 11),
        other => panic!("{other}"),
    }
    // A recorded initial hash that is not the snapshot's.
    let mut wrong = good.clone();
    wrong.initial_hash ^= 1;
    assert!(matches!(
        replay::verify(&wrong),
        VerifyReport::InitialHashMismatch { .. }
    ));
    // A step that fails on replay: an agent teleported next to the edge of the square, running
    // out of it.
    let mut edge = good.clone();
    let id = lockstep_orca::AgentId(0);
    let at = Vec2::new(Fx::from_num(1_000_000) - Fx::lit("0.1"), Fx::ZERO);
    edge.steps[5]
        .commands
        .push(Command::SetPosition { id, position: at });
    let out = Vec2::from_int(2, 0);
    edge.steps[5].commands.push(Command::Stop { id });
    edge.steps[5]
        .commands
        .push(Command::SetPrefVelocity { id, v: out });
    edge.steps[5]
        .commands
        .push(Command::SetVelocity { id, v: out });
    let report = replay::verify(&edge);
    assert!(
        matches!(
            report,
            VerifyReport::StepFailed {
                tick: 5,
                error: SimError::AgentLeftDomain(_)
            }
        ),
        "{report}"
    );
}

#[test]
fn scenario_errors_say_where() {
    let err = Scenario::from_toml_str("time_step = 0.25\n[[agent]]\nstart = [0, 0]\n").unwrap_err();
    assert!(matches!(err, ScenarioError::Invalid { .. }), "{err}");
    let err = Scenario::from_toml_str(
        "time_step = 0.25\n[defaults]\nradius = 5000\n[[agent]]\nstart = [0, 0]\ngoal = [1, 0]\n",
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ScenarioError::Sim {
                error: SimError::OutOfDomain { what: "radius", .. },
                ..
            }
        ),
        "{err}"
    );
}

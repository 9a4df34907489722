//! Byte-mutation fuzzing of the snapshot and replay decoders: whatever the bytes, decoding
//! returns `Ok` or a `SnapshotError` — never a panic, never an unbounded allocation — and a
//! snapshot that decodes is inside the domain (stepping it cannot overflow; tests run with
//! overflow checks on).
//!
//! Two mutation modes per decoder: raw (mutated file as is: exercises the header and checksum
//! checks) and resealed (mutated payload with a recomputed checksum: exercises bincode and the
//! domain validation behind the checksum; for replays, one frame's kind or payload is mutated
//! and every frame's chained checksum recomputed, which exercises the frame decoders and the
//! streaming verification). The seeds carry every kind of command, the world commands
//! (obstacles added and removed, an agent spawned with a model) included. Each test prints how
//! many inputs it tried.

use crate::det_support;

use det_support::{Rng, payload, random_scene, reseal, script};
use lockstep_orca::obstacle::ObstacleId;
use lockstep_orca::replay::{self, REPLAY_MAGIC, REPLAY_VERSION, RecordOptions, Replay};
use lockstep_orca::snapshot::{SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use lockstep_orca::{AgentId, AgentModel, AgentParams, Command, ObstacleShape, Simulator, Vec2};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::Cell;
use xxhash_rust::xxh3::xxh3_64_with_seed;

fn snapshot_seed() -> Vec<u8> {
    let mut sim = det_support::random_scene_with_obstacles(21, 6, 2, 8.0, Vec2::ZERO);
    for _ in 0..3 {
        sim.step().unwrap();
    }
    sim.queue_command(
        4,
        Command::SetPrefVelocity {
            id: AgentId(2),
            v: Vec2::from_int(1, 1),
        },
    )
    .unwrap();
    sim.queue_command(5, Command::RemoveAgent { id: AgentId(1) })
        .unwrap();
    for c in world_commands() {
        sim.queue_command(6, c).unwrap();
    }
    sim.snapshot()
}

/// One of each world command (an obstacle added and removed, an agent spawned with a model).
fn world_commands() -> [Command; 3] {
    [
        Command::AddObstacle {
            shape: ObstacleShape::Polygon(vec![
                Vec2::from_int(20, 20),
                Vec2::from_int(22, 20),
                Vec2::from_int(21, 22),
            ]),
        },
        Command::RemoveObstacle { id: ObstacleId(0) },
        Command::SpawnAgent {
            position: Vec2::from_int(-20, 20),
            params: AgentParams::default(),
            model: AgentModel {
                layers: 2,
                mask: 2,
                ..AgentModel::default()
            },
        },
    ]
}

fn replay_seed() -> Vec<u8> {
    let mut sim = random_scene(22, 4, 6.0, Vec2::ZERO);
    let mut script = script(5, 2, 6.0, Vec2::ZERO);
    replay::record(
        &mut sim,
        6,
        RecordOptions {
            checkpoint_interval: 3,
        },
        move |s| {
            let mut commands = script(s);
            if s.tick() == 2 {
                commands.extend(world_commands());
            }
            commands
        },
    )
    .unwrap()
    .to_bytes()
    .unwrap()
}

/// The frames of a well-formed replay stream, as (kind, payload).
fn split_frames(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut at = 12;
    let mut out = Vec::new();
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 1..at + 5].try_into().unwrap()) as usize;
        out.push((bytes[at], bytes[at + 5..at + 5 + len].to_vec()));
        at += 13 + len;
    }
    out
}

/// A replay stream of these frames, with valid chained checksums.
fn assemble(frames: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = REPLAY_MAGIC.to_vec();
    out.extend_from_slice(&REPLAY_VERSION.to_le_bytes());
    let mut check = 0;
    for (kind, payload) in frames {
        let start = out.len();
        out.push(*kind);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(payload);
        check = xxh3_64_with_seed(&out[start..], check);
        out.extend_from_slice(&check.to_le_bytes());
    }
    out
}

/// Mutates one frame of `base` (chosen by the first operation; kind 6 of it mutates the kind
/// byte instead of the payload) and reseals the stream.
fn reseal_frame(frames: &[(u8, Vec<u8>)], ops: &[(u8, usize, u8)]) -> Vec<u8> {
    let mut frames = frames.to_vec();
    let (kind, pos, val) = ops[0];
    let i = pos % frames.len();
    if kind % 7 == 6 {
        frames[i].0 ^= val;
    } else if !frames[i].1.is_empty() {
        frames[i].1 = mutate(&frames[i].1, ops);
    }
    assemble(&frames)
}

/// Mutations: (kind, position, value). Kinds: 0 flip a bit, 1 set a byte, 2 insert a byte,
/// 3 delete a byte, 4 truncate, 5 write an interesting u64 (0, 1, max, 2^31, …).
fn mutate(base: &[u8], ops: &[(u8, usize, u8)]) -> Vec<u8> {
    const INTERESTING: [u64; 8] = [
        0,
        1,
        u64::MAX,
        i64::MAX as u64,
        1 << 31,
        (1 << 32) - 1,
        1 << 40,
        0x8000_0000_0000_0000,
    ];
    let mut b = base.to_vec();
    for &(kind, pos, val) in ops {
        if b.is_empty() {
            break;
        }
        let at = pos % b.len();
        match kind % 6 {
            0 => b[at] ^= 1 << (val % 8),
            1 => b[at] = val,
            2 => b.insert(at, val),
            3 => {
                b.remove(at);
            }
            4 => b.truncate(at),
            _ => {
                let v = INTERESTING[val as usize % INTERESTING.len()].to_le_bytes();
                for (i, x) in v.iter().enumerate() {
                    if at + i < b.len() {
                        b[at + i] = *x;
                    }
                }
            }
        }
    }
    b
}

/// Decodes a snapshot; if it is accepted, it must round-trip and step without panicking.
fn try_snapshot(bytes: &[u8]) -> bool {
    match Simulator::restore(bytes) {
        Err(e) => {
            let _ = e.to_string();
            false
        }
        Ok(mut sim) => {
            let again = sim.snapshot();
            assert_eq!(Simulator::restore(&again).unwrap().snapshot(), again);
            for _ in 0..3 {
                if sim.step().is_err() {
                    break;
                }
            }
            let _ = sim.state_hash();
            true
        }
    }
}

/// Decodes a replay; if it is accepted, verifying it must not panic, and the streaming
/// verification agrees with the decoder about whether the stream is well-formed.
fn try_replay(bytes: &[u8]) -> bool {
    let streamed = replay::verify_bytes(bytes);
    match Replay::from_bytes(bytes) {
        Err(e) => {
            let _ = e.to_string();
            // Verification may stop (diverged) before it reaches the malformed part.
            if let Ok(report) = &streamed {
                assert!(!report.is_match(), "{e}: a malformed stream verified");
            }
            false
        }
        Ok(r) => {
            let _ = replay::verify(&r).to_string();
            match streamed {
                Ok(report) => {
                    let _ = report.to_string();
                }
                // The decoder does not restore the initial snapshot; verification does.
                Err(replay::ReplayError::InitialState(_)) => {}
                Err(e) => panic!("a decodable stream fails verification: {e}"),
            }
            true
        }
    }
}

fn ops() -> impl Strategy<Value = Vec<(u8, usize, u8)>> {
    prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..6)
}

/// Runs `cases` proptest cases in both modes; returns (inputs tried, inputs accepted).
fn proptest_fuzz(
    cases: u32,
    base: &[u8],
    magic: &[u8; 8],
    version: u32,
    decode: fn(&[u8]) -> bool,
) -> (u64, u64) {
    let tried = Cell::new(0u64);
    let accepted = Cell::new(0u64);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let inner = payload(base).to_vec();
    runner
        .run(&(ops(), any::<bool>()), |(ops, resealed)| {
            let bytes = if resealed {
                reseal(magic, version, &mutate(&inner, &ops))
            } else {
                mutate(base, &ops)
            };
            tried.set(tried.get() + 1);
            accepted.set(accepted.get() + u64::from(decode(&bytes)));
            Ok(())
        })
        .unwrap();
    (tried.get(), accepted.get())
}

/// A long deterministic run (SplitMix64) of resealed payload mutations.
fn splitmix_fuzz(
    n: u64,
    base: &[u8],
    magic: &[u8; 8],
    version: u32,
    decode: fn(&[u8]) -> bool,
) -> u64 {
    let inner = payload(base).to_vec();
    let mut rng = Rng(0xF022);
    let mut accepted = 0;
    for _ in 0..n {
        let k = 1 + rng.below(4) as usize;
        let ops: Vec<(u8, usize, u8)> = (0..k)
            .map(|_| (rng.next() as u8, rng.next() as usize, rng.next() as u8))
            .collect();
        accepted += u64::from(decode(&reseal(magic, version, &mutate(&inner, &ops))));
    }
    accepted
}

#[test]
fn snapshot_decoder_survives_mutations() {
    let base = snapshot_seed();
    assert!(try_snapshot(&base));
    let (tried, accepted) =
        proptest_fuzz(4096, &base, &SNAPSHOT_MAGIC, SNAPSHOT_VERSION, try_snapshot);
    let n = 1_000_000;
    let accepted_long = splitmix_fuzz(n, &base, &SNAPSHOT_MAGIC, SNAPSHOT_VERSION, try_snapshot);
    eprintln!(
        "snapshot decoder: {tried} proptest inputs ({accepted} accepted), \
         {n} resealed SplitMix64 inputs ({accepted_long} accepted)"
    );
    assert_eq!(tried, 4096);
    // Some mutations (e.g. of a velocity's low bits) are valid states: the fuzz reaches the
    // validation behind bincode, not only the checksum.
    assert!(accepted_long > 0);
}

#[test]
fn replay_decoder_survives_mutations() {
    let base = replay_seed();
    assert!(try_replay(&base));
    let frames = split_frames(&base);
    assert_eq!(
        assemble(&frames),
        base,
        "the test's framing is the format's"
    );
    let tried = Cell::new(0u64);
    let accepted = Cell::new(0u64);
    let mut runner = TestRunner::new(Config {
        cases: 2048,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(ops(), any::<bool>()), |(ops, resealed)| {
            let bytes = if resealed {
                reseal_frame(&frames, &ops)
            } else {
                mutate(&base, &ops)
            };
            tried.set(tried.get() + 1);
            accepted.set(accepted.get() + u64::from(try_replay(&bytes)));
            Ok(())
        })
        .unwrap();
    let n = 300_000;
    let mut rng = Rng(0xF023);
    let mut accepted_long = 0;
    for _ in 0..n {
        let k = 1 + rng.below(4) as usize;
        let ops: Vec<(u8, usize, u8)> = (0..k)
            .map(|_| (rng.next() as u8, rng.next() as usize, rng.next() as u8))
            .collect();
        accepted_long += u64::from(try_replay(&reseal_frame(&frames, &ops)));
    }
    eprintln!(
        "replay decoder: {} proptest inputs ({} accepted), \
         {n} resealed SplitMix64 inputs ({accepted_long} accepted)",
        tried.get(),
        accepted.get()
    );
    assert_eq!(tried.get(), 2048);
    // Some mutations (a position's low bits in a checkpoint, a command's value) decode: the
    // fuzz reaches the verification behind the frame decoders, not only the checksums.
    assert!(accepted_long > 0);
}

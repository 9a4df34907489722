//! Byte-mutation fuzzing of the snapshot and replay decoders: whatever the bytes, decoding
//! returns `Ok` or a `SnapshotError` — never a panic, never an unbounded allocation — and a
//! snapshot that decodes is inside the domain (stepping it cannot overflow; tests run with
//! overflow checks on).
//!
//! Two mutation modes per decoder: raw (mutated file as is: exercises the header and checksum
//! checks) and resealed (mutated payload with a recomputed checksum: exercises bincode and the
//! domain validation behind the checksum). Each test prints how many inputs it tried.

use crate::det_support;

use det_support::{Rng, payload, random_scene, reseal, script};
use lockstep_orca::replay::{self, REPLAY_MAGIC, REPLAY_VERSION, RecordOptions, Replay};
use lockstep_orca::snapshot::{SNAPSHOT_MAGIC, SNAPSHOT_VERSION};
use lockstep_orca::{AgentId, Command, Simulator, Vec2};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::Cell;

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
    sim.snapshot()
}

fn replay_seed() -> Vec<u8> {
    let mut sim = random_scene(22, 4, 6.0, Vec2::ZERO);
    replay::record(
        &mut sim,
        6,
        RecordOptions {
            checkpoint_interval: 3,
        },
        script(5, 2, 6.0, Vec2::ZERO),
    )
    .unwrap()
    .to_bytes()
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

/// Decodes a replay; if it is accepted, verifying it must not panic.
fn try_replay(bytes: &[u8]) -> bool {
    match Replay::from_bytes(bytes) {
        Err(e) => {
            let _ = e.to_string();
            false
        }
        Ok(r) => {
            let _ = replay::verify(&r).to_string();
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
    let (tried, accepted) = proptest_fuzz(2048, &base, &REPLAY_MAGIC, REPLAY_VERSION, try_replay);
    let n = 300_000;
    let accepted_long = splitmix_fuzz(n, &base, &REPLAY_MAGIC, REPLAY_VERSION, try_replay);
    eprintln!(
        "replay decoder: {tried} proptest inputs ({accepted} accepted), \
         {n} resealed SplitMix64 inputs ({accepted_long} accepted)"
    );
    assert_eq!(tried, 2048);
    assert!(accepted_long > 0);
}

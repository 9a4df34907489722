//! Streaming verification holds one frame, not the replay: its peak of live heap bytes does not
//! grow with the replay's length.
//!
//! How: a global allocator tracks the live heap bytes allocated by this test's thread while a
//! flag is set, and their peak. The same scene (40 agents, every agent steered every tick) is
//! recorded for 400 and for 8,000 ticks; both replays are verified from byte slices (allocated
//! before counting) and the peaks compared: equal within a small margin, and far below the long
//! replay's size. A second test bounds the peak of refusing hostile streams.

// A global allocator is `unsafe impl GlobalAlloc`: the test opts out of the crate's
// `unsafe_code = "deny"` (the library itself forbids unsafe code).
#![allow(unsafe_code)]

use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::{Command, Simulator, SimulatorParams, Vec2};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Tracking;

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn note(delta: i64) {
    // `try_with`: the allocator may be called while thread-locals are being torn down.
    let _ = ACTIVE.try_with(|a| {
        if a.get() {
            let _ = LIVE.try_with(|l| {
                let now = l.get() + delta;
                l.set(now);
                let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
            });
        }
    });
}

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as i64);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as i64);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size as i64 - layout.size() as i64);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// The peak of live heap bytes (above the level at the start) while `f` runs on this thread.
fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, i64) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    ACTIVE.with(|a| a.set(true));
    let out = f();
    ACTIVE.with(|a| a.set(false));
    (out, PEAK.with(Cell::get))
}

fn recording(ticks: u64) -> Vec<u8> {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..40 {
        sim.add_agent(Vec2::from_int(4 * (i % 8), 4 * (i / 8)))
            .unwrap();
    }
    let steer = |sim: &Simulator| {
        let t = sim.tick() as i32;
        sim.agent_ids()
            .iter()
            .map(|&id| Command::SetPrefVelocity {
                id,
                v: Vec2::from_int((t / 50) % 3 - 1, (id.0 as i32 + t / 70) % 3 - 1),
            })
            .collect()
    };
    let options = RecordOptions {
        checkpoint_interval: 20,
    };
    let (bytes, _) =
        replay::record_to(Vec::new(), &mut sim, ticks, options, steer, |_| false).unwrap();
    bytes
}

#[test]
fn streaming_verify_memory_does_not_grow_with_length() {
    let short = recording(400);
    let long = recording(8_000);
    let (report, short_peak) = peak_bytes(|| replay::verify_stream(&short[..]).unwrap());
    assert!(report.is_match(), "{report}");
    let (report, long_peak) = peak_bytes(|| replay::verify_stream(&long[..]).unwrap());
    assert!(report.is_match(), "{report}");
    eprintln!(
        "verify peak heap: {short_peak} bytes for {} bytes of replay, {long_peak} for {}",
        short.len(),
        long.len()
    );
    // The long replay is 20 times the short one; the peak is the same within 16 KiB.
    assert!(long.len() > 19 * short.len());
    assert!(
        (long_peak - short_peak).abs() <= 16 << 10,
        "{short_peak} vs {long_peak}"
    );
    assert!(long_peak < long.len() as i64 / 20, "{long_peak}");
    // The in-memory decoder, for contrast, holds it all.
    let (replay, decoded_peak) = peak_bytes(|| replay::Replay::from_bytes(&long).unwrap());
    assert!(decoded_peak > long.len() as i64 / 2, "{decoded_peak}");
    drop(replay);
}

/// An endless zero stream, and a stream that declares the largest begin frame and then sends
/// zeros, are refused having allocated at most that frame.
#[test]
fn refusing_hostile_streams_allocates_at_most_one_frame() {
    let (result, peak) = peak_bytes(|| replay::verify_stream(std::io::repeat(0)));
    assert_eq!(result, Err(replay::ReplayError::BadMagic));
    assert!(peak < 4096, "{peak}");
    let mut head = replay::REPLAY_MAGIC.to_vec();
    head.extend_from_slice(&replay::REPLAY_VERSION.to_le_bytes());
    head.push(1);
    head.extend_from_slice(&replay::MAX_BEGIN_FRAME_BYTES.to_le_bytes());
    let src = std::io::Read::chain(head.as_slice(), std::io::repeat(0));
    let (result, peak) = peak_bytes(|| replay::verify_stream(src));
    assert!(matches!(
        result,
        Err(replay::ReplayError::ChecksumMismatch { .. })
    ));
    assert!(
        peak <= i64::from(replay::MAX_BEGIN_FRAME_BYTES) + (1 << 16),
        "{peak}"
    );
}

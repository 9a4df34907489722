//! The cost of one rollback save on `fixtures/scenarios/crowd1000.toml` (after 20 ticks, so
//! every buffer is grown): a `SimState` (`Simulator::save_state`, what `netcode::NetState`
//! holds), a whole `Simulator` clone and snapshot bytes (`Simulator::snapshot`), and what
//! loading each back costs.
//!
//! `cargo bench --bench save`. Before timing it prints the heap bytes each form allocates,
//! counted by a global allocator: a clone copies the workspace's scratch buffers too.

// A global allocator is `unsafe impl GlobalAlloc` (as in tests/no_alloc).
#![allow(unsafe_code)]

use criterion::{Criterion, criterion_group, criterion_main};
use lockstep_orca::Simulator;
use lockstep_orca::scenario::{RunOptions, Scenario};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

struct Counting;
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        BYTES.fetch_add(new_size.saturating_sub(layout.size()), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap bytes allocated by `f` (single-threaded here), and its result.
fn allocated<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = BYTES.load(Ordering::Relaxed);
    let out = f();
    (BYTES.load(Ordering::Relaxed) - before, out)
}

fn crowd() -> Simulator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/scenarios/crowd1000.toml"
    );
    let (mut sim, driver) = Scenario::load(path).unwrap().build().unwrap();
    let options = RunOptions {
        max_ticks: Some(20),
        ..RunOptions::default()
    };
    driver.run(&mut sim, &options).unwrap();
    sim
}

fn bench(c: &mut Criterion) {
    let sim = crowd();
    let (clone_bytes, clone) = allocated(|| sim.clone());
    let (snap_alloc, snap) = allocated(|| sim.snapshot());
    let (state_bytes, state) = allocated(|| sim.save_state());
    eprintln!(
        "crowd1000 at tick {}: save_state allocates {state_bytes} bytes; clone {clone_bytes}; snapshot is {} bytes ({snap_alloc} allocated)",
        sim.tick(),
        snap.len()
    );
    assert_eq!(state.state_hash(), sim.state_hash());
    assert_eq!(clone.state_hash(), sim.state_hash());
    let mut g = c.benchmark_group("save_crowd1000");
    g.sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    g.bench_function("save_state", |b| b.iter(|| black_box(sim.save_state())));
    g.bench_function("clone", |b| b.iter(|| black_box(sim.clone())));
    g.bench_function("snapshot", |b| b.iter(|| black_box(sim.snapshot())));
    let mut target = sim.clone();
    g.bench_function("load_state", |b| {
        b.iter(|| target.load_state(black_box(&state)))
    });
    g.bench_function("load_clone_from", |b| {
        b.iter(|| target.clone_from(black_box(&clone)))
    });
    g.bench_function("restore_snapshot", |b| {
        b.iter(|| black_box(Simulator::restore(&snap).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

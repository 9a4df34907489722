//! Cost of the determinism tooling per tick: `state_hash` (meant to run every tick), and
//! `snapshot` / `restore` (rollback), for 100 to 10,000 agents.
//!
//! `cargo bench --bench hash`; divide the reported time by the agent count for the cost per
//! agent (the hash reads 84 canonical bytes per agent).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lockstep_orca::{Fx, Simulator, SimulatorParams, Vec2};
use std::hint::black_box;

/// `n` agents on a grid with distinct velocities (stepped once so every field is populated).
fn scene(n: u32) -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let side = (n as f64).sqrt().ceil() as u32;
    for i in 0..n {
        let p = Vec2::from_int((4 * (i % side)) as i32, (4 * (i / side)) as i32);
        let id = sim.add_agent(p).unwrap();
        let v = Vec2::new(Fx::from_bits(i64::from(i) << 20), Fx::ONE);
        sim.set_agent_pref_velocity(id, v).unwrap();
    }
    sim.step().unwrap();
    sim
}

fn bench(c: &mut Criterion) {
    let sizes = [100u32, 1_000, 10_000];
    let mut g = c.benchmark_group("state_hash");
    for &n in &sizes {
        let sim = scene(n);
        g.throughput(Throughput::Elements(u64::from(n)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| black_box(sim.state_hash()));
        });
    }
    g.finish();

    let mut g = c.benchmark_group("snapshot");
    for &n in &sizes {
        let sim = scene(n);
        g.throughput(Throughput::Elements(u64::from(n)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| black_box(sim.snapshot()));
        });
    }
    g.finish();

    let mut g = c.benchmark_group("restore");
    for &n in &sizes {
        let bytes = scene(n).snapshot();
        g.throughput(Throughput::Elements(u64::from(n)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| black_box(Simulator::restore(&bytes).unwrap()));
        });
    }
    g.finish();

    let mut g = c.benchmark_group("step");
    for &n in &sizes[..2] {
        let sim = scene(n);
        g.throughput(Throughput::Elements(u64::from(n)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched_ref(
                || sim.clone(),
                |s| s.step().unwrap(),
                criterion::BatchSize::LargeInput,
            );
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .measurement_time(std::time::Duration::from_secs(2))
        .warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);

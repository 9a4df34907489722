//! Agent-steps per second on the reference scenes (100 ticks each, as in the reference RVO2
//! figures): RVO2's Circle 250 (ring radius 200), circle 1,000 (ring radius 3N/2π) and the
//! jittered crowd of 10,000. Each measured iteration builds nothing: it sets preferred
//! velocities and steps a fresh copy of the scene 100 times (the copy is made in the untimed
//! setup). Throughput is reported in agent-steps (elements = agents × 100). A fourth bench runs
//! Circle 250 to completion, the window of RVO2's own Circle figure.
//!
//! ```text
//! cargo bench --bench step
//! ```
//!
//! RVO2 (float C++, -O2, one thread) on this kind of machine: circle 250 1.84 M, circle 1,000
//! 1.55 M, crowd 10,000 0.667 M agent-steps/s.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use lockstep_orca::scenario::{RunOptions, Scenario};
use std::hint::black_box;
use std::time::Duration;

const TICKS: u64 = 100;

fn bench_scene(c: &mut Criterion, label: &str, scenario: &Scenario) {
    let (sim, driver) = scenario.build().expect("reference scene is valid");
    let mut group = c.benchmark_group("step");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(sim.num_agents() as u64 * TICKS));
    group.bench_function(label, |b| {
        b.iter_batched(
            || sim.clone(),
            |mut sim| {
                for tick in 0..TICKS {
                    driver.set_pref_velocities(&mut sim, tick).unwrap();
                    sim.step().unwrap();
                }
                black_box(sim)
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

/// The whole Circle 250 run to completion, as RVO2's example (its 1.84 M agent-steps/s figure
/// is over the full run, centre crush included). Throughput uses the ticks of one run.
fn bench_full_circle(c: &mut Criterion) {
    let scenario = Scenario::rvo2_circle();
    let (sim, driver) = scenario.build().expect("reference scene is valid");
    let options = RunOptions {
        track_clearance: false,
        ..RunOptions::default()
    };
    let ticks = driver.run(&mut sim.clone(), &options).unwrap().ticks;
    let mut group = c.benchmark_group("run");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Elements(sim.num_agents() as u64 * ticks));
    group.bench_function("circle_250_to_completion", |b| {
        b.iter_batched(
            || sim.clone(),
            |mut sim| black_box(driver.run(&mut sim, &options).unwrap().ticks),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

fn step(c: &mut Criterion) {
    bench_scene(c, "circle_250", &Scenario::rvo2_circle());
    bench_scene(c, "circle_1000", &Scenario::scaling_circle(1000));
    bench_scene(c, "crowd_10000", &Scenario::crowd(10_000));
    bench_full_circle(c);
}

criterion_group!(benches, step);
criterion_main!(benches);

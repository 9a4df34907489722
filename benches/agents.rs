//! The agent store and the command queue under load, against the yardstick of one step of
//! 10,000 agents (the jittered crowd, preferred velocities set through the driver):
//!
//! * `remove/commands`: 10,000 `RemoveAgent` commands (random id order) queued for one tick of
//!   a 100,000-agent simulator and applied by its step. The agents have `max_neighbors = 0`, so
//!   the step does little else; `remove/step_only` is the same step with no command, and the
//!   difference is the cost of the removals.
//! * `remove/batch`: `Simulator::remove_agents` with the same 10,000 ids.
//! * `commands/queue_random`: 10,000 `SetPrefVelocity` commands queued in random id order into
//!   a 10,000-agent simulator; `commands/queue_and_step` also applies them (one step, with
//!   `max_neighbors = 0`), `commands/step_only` is that step without commands.
//!
//! ```text
//! cargo bench --bench agents
//! ```

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, Simulator, SimulatorParams, Vec2, splitmix64,
};
use std::hint::black_box;
use std::time::Duration;

/// `n` agents on a grid 4 units apart, seeing no neighbours.
fn lonely_agents(n: u32) -> Simulator {
    let params = AgentParams {
        max_neighbors: 0,
        ..AgentParams::default()
    };
    let mut sim = Simulator::new(SimulatorParams {
        agent_defaults: params,
        ..SimulatorParams::default()
    })
    .expect("valid parameters");
    let side = n.isqrt() + 1;
    for i in 0..n {
        let p = Vec2::from_int((i % side) as i32 * 4, (i / side) as i32 * 4);
        sim.add_agent(p).expect("inside the domain");
    }
    sim
}

/// `k` distinct ids below `n` in a random (seeded) order.
fn random_ids(n: u32, k: usize, seed: u64) -> Vec<AgentId> {
    let mut all: Vec<u32> = (0..n).collect();
    // Fisher–Yates with SplitMix64.
    for i in (1..all.len()).rev() {
        let j = (splitmix64(seed ^ i as u64) % (i as u64 + 1)) as usize;
        all.swap(i, j);
    }
    all.truncate(k);
    all.into_iter().map(AgentId).collect()
}

/// A group of ten samples of five seconds.
fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group
}

/// Times `f` on a fresh copy of `sim` (the copy is made outside the timing).
fn bench_on(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    sim: &Simulator,
    f: impl Fn(&mut Simulator),
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            || sim.clone(),
            |mut sim| {
                f(&mut sim);
                black_box(sim)
            },
            BatchSize::LargeInput,
        );
    });
}

fn yardstick(c: &mut Criterion) {
    let (sim, driver) = Scenario::crowd(10_000).build().expect("valid scene");
    let mut sim = sim;
    for tick in 0..5 {
        driver.set_pref_velocities(&mut sim, tick).unwrap();
        sim.step().unwrap();
    }
    let mut group = group(c, "yardstick");
    bench_on(&mut group, "step_crowd_10000", &sim, |sim| {
        let tick = sim.tick();
        driver.set_pref_velocities(sim, tick).unwrap();
        sim.step().unwrap();
    });
    group.finish();
}

fn removal(c: &mut Criterion) {
    let sim = lonely_agents(100_000);
    let ids = random_ids(100_000, 10_000, 1);
    let mut group = group(c, "remove");
    bench_on(&mut group, "commands", &sim, |sim| {
        for &id in &ids {
            sim.queue_command(0, Command::RemoveAgent { id }).unwrap();
        }
        sim.step().unwrap();
        assert_eq!(sim.num_agents(), 90_000);
    });
    bench_on(&mut group, "step_only", &sim, |sim| sim.step().unwrap());
    bench_on(&mut group, "batch", &sim, |sim| {
        sim.remove_agents(&ids).unwrap()
    });
    group.finish();
}

fn commands(c: &mut Criterion) {
    let sim = lonely_agents(10_000);
    let ids = random_ids(10_000, 10_000, 2);
    let v = Vec2::new(Fx::ONE, Fx::ZERO);
    let queue = |sim: &mut Simulator| {
        for &id in &ids {
            sim.queue_command(0, Command::SetPrefVelocity { id, v })
                .unwrap();
        }
    };
    let mut group = group(c, "commands");
    bench_on(&mut group, "queue_random", &sim, queue);
    bench_on(&mut group, "queue_and_step", &sim, |sim| {
        queue(sim);
        sim.step().unwrap();
    });
    bench_on(&mut group, "step_only", &sim, |sim| sim.step().unwrap());
    group.finish();
}

criterion_group!(benches, yardstick, removal, commands);
criterion_main!(benches);

//! `Simulator::step` allocates nothing once its buffers have grown (after warm-up).
//!
//! How: a counting global allocator counts allocations (and reallocations) made by this test's
//! thread while a flag is set. Each scene is stepped 20 times to warm up, then 100 more ticks
//! (setting preferred velocities, stepping and hashing the state, as a lockstep game loop does)
//! are counted. Expect 0. (`state_hash` streams into its hasher and allocates nothing at all.)
//!
//! Needs the scenario files (feature `scenario`).

// A global allocator is `unsafe impl GlobalAlloc`: the one place the crate's tests use unsafe
// code (the library itself forbids it).
#![allow(unsafe_code)]
#![cfg(feature = "scenario")]

use lockstep_orca::Simulator;
use lockstep_orca::scenario::{Driver, Scenario};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the allocator may be called while thread-locals are being torn down.
    let _ = ACTIVE.try_with(|a| {
        if a.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on this thread.
fn count_allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    ACTIVE.with(|a| a.set(true));
    f();
    ACTIVE.with(|a| a.set(false));
    COUNT.with(Cell::get)
}

fn tick(sim: &mut Simulator, driver: &Driver) {
    driver.set_pref_velocities(sim, sim.tick()).unwrap();
    sim.step().unwrap();
}

fn assert_no_alloc_after_warmup(scenario: &Scenario) {
    let (mut sim, driver) = scenario.build().unwrap();
    for _ in 0..20 {
        tick(&mut sim, &driver);
        // The hash's byte buffer grows on its first use, then is reused.
        std::hint::black_box(sim.state_hash());
    }
    let n = count_allocations(|| {
        for _ in 0..100 {
            tick(&mut sim, &driver);
            std::hint::black_box(sim.state_hash());
        }
    });
    assert_eq!(
        n,
        0,
        "{}: {n} allocations in 100 ticks after warm-up",
        scenario.name.as_deref().unwrap_or("?")
    );
}

#[test]
fn counter_sees_allocations() {
    // The instrument works: a fresh Vec allocates once.
    let n = count_allocations(|| {
        std::hint::black_box(Vec::<u64>::with_capacity(8));
    });
    assert_eq!(n, 1);
}

#[test]
fn circle_250_steps_without_allocating() {
    // Ticks 20..120 of Circle: agents converge, neighbour counts grow (ring spacing 5 < 15).
    assert_no_alloc_after_warmup(&Scenario::rvo2_circle());
}

#[test]
fn crowd_1000_steps_without_allocating() {
    // A dense, overlapping crowd: full neighbour lists from the start.
    assert_no_alloc_after_warmup(&Scenario::crowd(1000));
}

#[test]
fn obstacle_lines_allocate_nothing_in_either_mode() {
    // RVO2's Blocks after 300 ticks (agents crowd past the blocks), in both obstacle neighbour
    // modes: one pass over every agent's obstacle lines warms the buffers; a second pass over
    // the same agents with the same buffers must not allocate (the tree is cached, the
    // fragment query sorts in place).
    use lockstep_orca::obstacle::{ObstacleAgent, ObstacleNeighbors};
    for mode in [
        ObstacleNeighbors::WholeEdges,
        ObstacleNeighbors::Rvo2Fragments,
    ] {
        let mut scenario = Scenario::load("fixtures/scenarios/blocks.toml").unwrap();
        scenario.obstacle_neighbors = mode;
        let (mut sim, driver) = scenario.build().unwrap();
        for _ in 0..300 {
            tick(&mut sim, &driver);
        }
        let agents: Vec<ObstacleAgent> = sim
            .agent_ids()
            .iter()
            .map(|&id| {
                let p = sim.agent_params(id).unwrap();
                ObstacleAgent {
                    id,
                    position: sim.agent_position(id).unwrap(),
                    velocity: sim.agent_velocity(id).unwrap(),
                    radius: p.radius,
                    max_speed: p.max_speed,
                    time_horizon_obst: p.time_horizon_obst,
                }
            })
            .collect();
        let set = sim.obstacles();
        assert!(set.is_built());
        let (mut lines, mut neighbors) = (Vec::new(), Vec::new());
        let mut total = 0;
        for a in &agents {
            lines.clear();
            total += set.agent_lines_with(a, &mut lines, &mut neighbors);
        }
        assert!(total > 0, "{mode:?}: no agent near a block");
        let n = count_allocations(|| {
            for a in &agents {
                lines.clear();
                std::hint::black_box(set.agent_lines_with(a, &mut lines, &mut neighbors));
            }
        });
        assert_eq!(n, 0, "{mode:?}: {n} allocations in the second pass");
    }
}

#[test]
fn blocks_with_obstacles_steps_without_allocating() {
    // RVO2's Blocks: agents meet more and more block edges as they crowd past the blocks.
    let scenario = Scenario::load("fixtures/scenarios/blocks.toml").unwrap();
    assert_no_alloc_after_warmup(&scenario);
}

/// A rollback loop: load a state saved a few ticks back (into a recycled `SimState`) and
/// re-simulate. After warm-up, loading, stepping and saving again allocate nothing for the
/// agents: the first step after a load costs what any other step costs. (The crowd scene's
/// orders are one per agent, each a path of one point; `load_state` copies them into the
/// simulator's existing map, which allocates a node per order, so the scene here steers by
/// preferred velocities, as the no-order RVO2 model does.)
#[test]
fn a_rollback_loop_allocates_nothing_after_warm_up() {
    let (mut sim, _) = Scenario::crowd(1000).build().unwrap();
    let ids: Vec<_> = sim.agent_ids().to_vec();
    for &id in &ids {
        sim.apply(&lockstep_orca::Command::Stop { id }).unwrap();
        let p = sim.agent_position(id).unwrap();
        sim.set_agent_pref_velocity(id, -p.normalize_or_zero())
            .unwrap();
    }
    let mut saved = sim.save_state();
    let rollback = |sim: &mut Simulator, saved: &mut lockstep_orca::SimState| {
        sim.load_state(saved);
        for _ in 0..4 {
            sim.step().unwrap();
        }
        std::hint::black_box(sim.state_hash());
        sim.save_state_into(saved);
    };
    for _ in 0..5 {
        rollback(&mut sim, &mut saved);
    }
    let n = count_allocations(|| {
        for _ in 0..10 {
            rollback(&mut sim, &mut saved);
        }
    });
    assert_eq!(n, 0, "{n} allocations in 10 rollbacks of 4 ticks");
}

/// `n` units on a grid 4 apart, `columns` wide, from `(-from, -from)`, all sent to the origin,
/// after 20 warm-up ticks.
fn crowd_to_origin(n: i32, columns: i32, from: i32) -> Simulator {
    use lockstep_orca::{Command, SimulatorParams, Vec2};
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for k in 0..n {
        let at = Vec2::from_int(4 * (k % columns) - from, 4 * (k / columns) - from);
        let id = sim.add_agent(at).unwrap();
        sim.apply(&Command::MoveTo {
            id,
            goal: Vec2::ZERO,
        })
        .unwrap();
    }
    for _ in 0..20 {
        sim.step().unwrap();
        std::hint::black_box(sim.state_hash());
    }
    sim
}

/// Orders arriving (80 units sent to one point, settling around it) report their events
/// without allocating: the events buffer keeps room for one event per order.
#[test]
fn arriving_orders_report_events_without_allocating() {
    let mut sim = crowd_to_origin(80, 9, 40);
    let mut events = 0;
    let n = count_allocations(|| {
        for _ in 0..600 {
            sim.step().unwrap();
            events += sim.order_events().len();
            std::hint::black_box(sim.state_hash());
        }
    });
    assert!(events >= 80, "only {events} order events");
    assert_eq!(n, 0, "{n} allocations in 600 ticks of arrivals");
}

/// 300 units sent to one point: while they arrive, stage 1b lists the units at rest on the
/// shared goal every tick (units join the crowd where they touch it) and sorts the list in
/// place, never allocating (a stable sort of more than a few dozen entries allocates).
#[test]
fn a_large_crowd_arriving_allocates_nothing() {
    let mut sim = crowd_to_origin(300, 18, 70);
    let mut settled = 0;
    let n = count_allocations(|| {
        for _ in 0..600 {
            sim.step().unwrap();
            settled = sim
                .agent_ids()
                .iter()
                .filter(|&&id| {
                    sim.order_status(id).unwrap()
                        == Some(lockstep_orca::orders::OrderStatus::Arrived)
                })
                .count();
            std::hint::black_box(sim.state_hash());
        }
    });
    assert!(
        settled >= 150,
        "only {settled} of 300 at rest: the list was short"
    );
    assert_eq!(n, 0, "{n} allocations in 600 ticks of a crowd arriving");
}

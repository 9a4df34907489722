//! The local rebuild (`NavMesh::update`): after any sequence of obstacle additions and
//! removals it gives the very mesh a batch build of the same set gives (the whole structure,
//! so also the digest), and its work follows the area the change touched, not the map.

use super::mesh::{Rng, random_shapes, rect, set_of};
use lockstep_orca::navigation::{NavMesh, NavParams, RebuildWork};
use lockstep_orca::obstacle::{ObstacleId, ObstacleSet};
use lockstep_orca::{Fx, ObstacleShape, Vec2};
use proptest::prelude::*;

/// Parameters with a fixed square boundary of half-width `half` (the default boundary follows
/// the obstacles' box, and a change of it rebuilds the mesh whole).
fn boxed(half: i32) -> NavParams {
    let (lo, hi) = (Fx::from_num(-half), Fx::from_num(half));
    NavParams {
        boundary: Some(vec![
            Vec2::new(lo, lo),
            Vec2::new(hi, lo),
            Vec2::new(hi, hi),
            Vec2::new(lo, hi),
        ]),
        ..NavParams::default()
    }
}

/// Applies `update` to `mesh` and checks it against a batch build; returns the work.
fn step(mesh: &mut NavMesh, set: &ObstacleSet, params: &NavParams) -> RebuildWork {
    let batch = NavMesh::build(set, params).unwrap();
    let work = match mesh.update(set, params).unwrap() {
        Some((next, work)) => {
            *mesh = next;
            work
        }
        None => RebuildWork::default(),
    };
    assert_eq!(mesh.digest(), batch.digest());
    assert!(
        *mesh == batch,
        "the local rebuild differs from the batch build"
    );
    work
}

/// Runs a sequence of operations (`true`: add the next pool shape, `false`: remove the
/// obstacle chosen by the seed) on `base`, checking every step; returns how many steps were
/// local.
fn run(
    base: &[ObstacleShape],
    pool: &[ObstacleShape],
    ops: &[(bool, u64)],
    p: &NavParams,
) -> usize {
    let mut set = set_of(base);
    let mut mesh = NavMesh::build(&set, p).unwrap();
    let mut ids: Vec<ObstacleId> = set.iter().map(|(id, _)| id).collect();
    let mut next = 0;
    let mut local = 0;
    for &(add, pick) in ops {
        if add || ids.is_empty() {
            ids.push(set.add(pool[next % pool.len()].clone()).unwrap());
            next += 1;
        } else {
            let id = ids.remove(pick as usize % ids.len());
            set.remove(id).unwrap();
        }
        local += usize::from(!step(&mut mesh, &set, p).full);
    }
    local
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random add/remove sequences on random maps (overlapping and touching rectangles,
    /// rotated quads, clockwise rooms, polylines, vertices off the grid): local == batch after
    /// every operation.
    #[test]
    fn local_rebuild_equals_the_batch_build(
        seed in any::<u64>(),
        ops in prop::collection::vec((any::<bool>(), any::<u64>()), 1..12),
    ) {
        let shapes = random_shapes(seed, 40, 40);
        let (base, pool) = shapes.split_at(20);
        run(base, pool, &ops, &boxed(60));
    }
}

#[test]
fn most_rebuilds_are_local_and_the_default_boundary_falls_back_correctly() {
    let shapes = random_shapes(5, 60, 40);
    let (base, pool) = shapes.split_at(30);
    let ops: Vec<(bool, u64)> = (0..30u64).map(|i| (i % 3 != 2, i * 7919)).collect();
    let local = run(base, pool, &ops, &boxed(60));
    assert!(local >= 25, "only {local} of 30 rebuilds were local");
    // The default boundary moves with the obstacles' box: still equal, local or not.
    run(base, pool, &ops, &NavParams::default());
}

#[test]
fn an_unchanged_set_keeps_the_mesh() {
    let set = set_of(&random_shapes(9, 20, 30));
    let p = boxed(50);
    let mesh = NavMesh::build(&set, &p).unwrap();
    assert!(mesh.update(&set, &p).unwrap().is_none());
    // Built from nothing to something and back.
    let empty = NavMesh::default();
    let (mesh2, work) = empty.update(&set, &p).unwrap().unwrap();
    assert!(work.full);
    assert_eq!(mesh2, mesh);
    let none = ObstacleSet::default();
    let (gone, _) = mesh.update(&none, &NavParams::default()).unwrap().unwrap();
    assert!(gone.is_empty());
}

/// `n` buildings on a square of side `side`, none on the centre (where the probe goes).
fn city(n: usize, side: i32, seed: u64) -> Vec<ObstacleShape> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let (x, y) = (
            rng.below(side as u64) as i32 - side / 2,
            rng.below(side as u64) as i32 - side / 2,
        );
        if x.abs() < 20 && y.abs() < 20 {
            continue;
        }
        out.push(rect(x, y, 2 + rng.below(8) as i32, 2 + rng.below(8) as i32));
    }
    out
}

/// Adds one building at the centre of maps of 250 and 1,000 buildings at the same density
/// (the second 4× the area): the work is about the same, and a small part of the map.
#[test]
fn the_work_follows_the_area_touched_not_the_map() {
    let mut works = Vec::new();
    for (n, side) in [(250usize, 500i32), (1000, 1000)] {
        let p = boxed(side / 2 + 20);
        let mut set = set_of(&city(n, side, 3));
        let mut mesh = NavMesh::build(&set, &p).unwrap();
        let total = mesh.triangles().len() as u32;
        set.add(rect(-3, -2, 6, 4)).unwrap();
        let work = step(&mut mesh, &set, &p);
        assert!(!work.full);
        assert!(work.cavity > 0 && work.widths > 0);
        assert!(work.cavity * 50 < total, "{work:?} of {total}");
        assert!(work.widths < total, "{work:?} of {total}");
        assert!(work.classified * 50 < total, "{work:?} of {total}");
        println!("{n} buildings, {total} triangles: {work:?}");
        works.push((total, work));
    }
    let (small, big) = (works[0], works[1]);
    assert!(big.0 > 3 * small.0, "{small:?} {big:?}");
    // 4× the map, not 4× the work.
    assert!(big.1.cavity <= 2 * small.1.cavity + 8, "{small:?} {big:?}");
    assert!(big.1.widths <= 2 * small.1.widths + 24, "{small:?} {big:?}");
}

/// The simulator rebuilds its mesh locally as buildings come and go, and always holds the mesh
/// a full build of its obstacle set gives (what a restored peer builds).
#[test]
fn the_simulator_keeps_the_batch_mesh_through_obstacle_changes() {
    use lockstep_orca::{Simulator, SimulatorParams};
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let p = boxed(120);
    for s in city(60, 200, 11) {
        sim.add_obstacle(s).unwrap();
    }
    sim.set_navigation(Some(p.clone())).unwrap();
    let mut ids = Vec::new();
    for (i, s) in random_shapes(21, 12, 30).into_iter().enumerate() {
        ids.push(sim.add_obstacle(s).unwrap());
        if i % 3 == 2 {
            sim.remove_obstacle(ids.remove(0)).unwrap();
        }
        let batch = NavMesh::build(sim.obstacles(), &p).unwrap();
        assert!(sim.nav_mesh() == Some(&batch), "after change {i}");
    }
    // `obstacles_mut` without a change keeps the very mesh.
    let before = sim.nav_mesh().unwrap() as *const NavMesh;
    let _ = sim.obstacles_mut();
    sim.process_obstacles();
    assert!(std::ptr::eq(before, sim.nav_mesh().unwrap()));
}

/// The step's statistic `obstacle_tree_rebuilt` counts the build of the obstacle tree also
/// where traffic control (stage 1a) builds it before stage 1b: the tick after an obstacle is
/// added it is set, the next tick not.
#[test]
fn the_step_counts_an_obstacle_tree_built_in_traffic_control() {
    use lockstep_orca::{Command, Simulator, SimulatorParams};
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(2, -1, 3, 1)).unwrap();
    sim.set_navigation(Some(boxed(20))).unwrap();
    let id = sim.add_agent(Vec2::from_int(-5, 0)).unwrap();
    sim.apply(&Command::NavigateTo {
        id,
        goal: Vec2::from_int(8, 0),
    })
    .unwrap();
    sim.step().unwrap();
    sim.step().unwrap();
    assert!(!sim.step_stats().obstacle_tree_rebuilt);
    sim.add_obstacle(rect(-1, 5, 1, 6)).unwrap();
    sim.step().unwrap();
    assert!(sim.step_stats().obstacle_tree_rebuilt);
    sim.step().unwrap();
    assert!(!sim.step_stats().obstacle_tree_rebuilt);
}

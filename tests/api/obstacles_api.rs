//! Obstacle set API, canonical bytes, snapshots, BSP queries against brute force (both split
//! choices, under translation), and the stepping property: agents that start outside random
//! solid polygons never end up inside.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::math::unit_from_turns;
use lockstep_orca::obstacle::{ObstacleAgent, ObstacleId, ObstacleNeighbors, ObstacleSet};
use lockstep_orca::oracles::{Bsp, SplitChoice, query_edges_brute, visible_brute};
use lockstep_orca::oracles::{ObstacleVertex, push_shape};
use lockstep_orca::{AgentId, Fx, ObstacleShape, SimError, Simulator, SimulatorParams, Vec2};
use proptest::prelude::*;

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

fn square(x: i32, y: i32, s: i32) -> ObstacleShape {
    ObstacleShape::Polygon(vec![v(x, y), v(x + s, y), v(x + s, y + s), v(x, y + s)])
}

fn canonical(set: &ObstacleSet) -> Vec<u8> {
    let mut b = Vec::new();
    set.write_canonical(&mut b);
    b
}

#[test]
fn ids_are_stable_and_never_reused() {
    let mut set = ObstacleSet::default();
    let a = set.add(square(0, 0, 2)).unwrap();
    let b = set.add(square(5, 0, 2)).unwrap();
    assert_eq!((a, b), (ObstacleId(0), ObstacleId(1)));
    set.remove(a).unwrap();
    assert_eq!(set.remove(a), Err(SimError::UnknownObstacle(0)));
    let c = set.add(square(9, 0, 2)).unwrap();
    assert_eq!(c, ObstacleId(2));
    let ids: Vec<ObstacleId> = set.iter().map(|(id, _)| id).collect();
    assert_eq!(ids, vec![ObstacleId(1), ObstacleId(2)]);
}

#[test]
fn rejected_obstacle_changes_nothing() {
    let mut set = ObstacleSet::default();
    set.add(square(0, 0, 2)).unwrap();
    set.ensure_built();
    let before = canonical(&set);
    let bad = ObstacleShape::Polygon(vec![v(0, 0), v(2, 2), v(2, 0), v(0, 2)]);
    assert_eq!(
        set.add(bad),
        Err(SimError::InvalidObstacle("self-intersection"))
    );
    assert_eq!(canonical(&set), before);
    assert!(
        set.is_built(),
        "a rejected add must not invalidate the tree"
    );
    // The next id is still 1.
    assert_eq!(set.add(square(5, 5, 1)).unwrap(), ObstacleId(1));
}

#[test]
fn canonical_bytes_follow_the_documented_layout() {
    let mut set = ObstacleSet::default();
    set.add(ObstacleShape::Polyline(vec![v(1, 2), v(3, -4)]))
        .unwrap();
    let b = canonical(&set);
    let mut want = vec![0u8]; // neighbour mode: whole edges
    want.extend_from_slice(&1u32.to_le_bytes()); // next obstacle id
    want.extend_from_slice(&1u32.to_le_bytes()); // obstacle count
    want.extend_from_slice(&0u32.to_le_bytes()); // id of the first
    want.push(1);
    want.extend_from_slice(&2u32.to_le_bytes());
    for (x, y) in [(1i64, 2i64), (3, -4)] {
        want.extend_from_slice(&(x << 32).to_le_bytes());
        want.extend_from_slice(&(y << 32).to_le_bytes());
    }
    assert_eq!(b, want);
    // The mode byte is the only difference in RVO2 fragment mode.
    set.set_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    want[0] = 1;
    assert_eq!(canonical(&set), want);
}

#[test]
fn neighbor_mode_is_state_and_rebuilds_the_tree() {
    let mut set = ObstacleSet::default();
    assert_eq!(set.neighbor_mode(), ObstacleNeighbors::WholeEdges);
    set.add(square(0, 0, 4)).unwrap();
    set.ensure_built();
    set.set_neighbor_mode(ObstacleNeighbors::WholeEdges);
    assert!(set.is_built(), "setting the current mode changes nothing");
    set.set_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    assert!(!set.is_built(), "a new mode marks the tree unbuilt");
    set.ensure_built();
    assert_eq!(set.neighbor_mode(), ObstacleNeighbors::Rvo2Fragments);

    // Through the simulator: the mode is hashed and survives a snapshot.
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(square(0, 0, 4)).unwrap();
    let h_edges = sim.state_hash();
    sim.set_obstacle_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    assert_ne!(sim.state_hash(), h_edges, "the mode is part of the state");
    let back = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(
        back.obstacles().neighbor_mode(),
        ObstacleNeighbors::Rvo2Fragments
    );
}

/// A map where RVO2's tree splits edges: in fragment mode the split points act as convex
/// corners, so some agents get different lines (RVO2's), and the cached tree gives the same
/// lines as the analysis helper.
#[test]
fn fragment_mode_follows_rvo2_fragments() {
    // A pinwheel of four bars around the origin: the lines of each bar cut its neighbours,
    // so RVO2's tree has to split edges.
    let bar = |x0: i32, y0: i32, x1: i32, y1: i32| {
        ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
    };
    let shapes = [
        bar(-6, -6, 2, -4),
        bar(4, -6, 6, 2),
        bar(-2, 4, 6, 6),
        bar(-6, -2, -4, 6),
    ];
    let mut edges = ObstacleSet::default();
    for s in &shapes {
        edges.add(s.clone()).unwrap();
    }
    let mut frags = edges.clone();
    frags.set_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    edges.ensure_built();
    frags.ensure_built();
    assert!(
        frags.bsp_stats().nodes > frags.vertices().len(),
        "RVO2's tree splits"
    );
    let (mut differ, mut total) = (0, 0);
    for x in -14..=14 {
        for y in -14..=14 {
            let agent = ObstacleAgent {
                id: AgentId(0),
                position: Vec2::new(
                    Fx::from_num(x) / Fx::from_num(2),
                    Fx::from_num(y) / Fx::from_num(2),
                ),
                velocity: v((x + y) % 3, (x - y) % 2),
                radius: Fx::lit("0.4"),
                max_speed: Fx::from_num(2),
                time_horizon_obst: Fx::from_num(5),
            };
            let (mut le, mut lf, mut lh) = (Vec::new(), Vec::new(), Vec::new());
            edges.agent_lines(&agent, &mut le);
            frags.agent_lines(&agent, &mut lf);
            edges.agent_lines_rvo2_fragments(&agent, &mut lh);
            assert_eq!(lf, lh, "agent {agent:?}");
            total += 1;
            differ += usize::from(le != lf);
        }
    }
    assert!(differ > 0, "no agent sees a split fragment");
    println!("{differ} of {total} agents get different lines in fragment mode");

    // Translation: add a star whose oblique edges split at non-integer points, shift the map
    // far from the origin by a non-integer offset: the same tree, the shifted lines.
    let mut shapes = shapes.to_vec();
    shapes.push(ObstacleShape::Polygon(star(
        v(9, 1),
        &[12_345, 999_999_999, 77, 1 << 30, 5],
        &[3, 7, 4, 9, 5],
    )));
    let d = Vec2::new(Fx::lit("987654.75"), Fx::lit("-876543.3"));
    let mut a = ObstacleSet::default();
    let mut b = ObstacleSet::default();
    for s in &shapes {
        a.add(s.clone()).unwrap();
    }
    for s in translated(&shapes, d) {
        b.add(s).unwrap();
    }
    a.set_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    b.set_neighbor_mode(ObstacleNeighbors::Rvo2Fragments);
    a.ensure_built();
    b.ensure_built();
    assert_eq!(a.bsp_stats(), b.bsp_stats());
    assert!(a.bsp_stats().nodes > a.vertices().len() + 2);
    let mut seen = 0;
    for x in -10..=30 {
        for y in -10..=10 {
            let agent = ObstacleAgent {
                id: AgentId(0),
                position: Vec2::new(
                    Fx::from_num(x) / Fx::from_num(2),
                    Fx::from_num(y) / Fx::from_num(2),
                ),
                velocity: v(x % 2, y % 3),
                radius: Fx::lit("0.4"),
                max_speed: Fx::from_num(2),
                time_horizon_obst: Fx::from_num(5),
            };
            let moved = ObstacleAgent {
                position: agent.position + d,
                ..agent
            };
            let (mut la, mut lb) = (Vec::new(), Vec::new());
            a.agent_lines(&agent, &mut la);
            b.agent_lines(&moved, &mut lb);
            assert_eq!(la, lb, "agent {agent:?}");
            seen += la.len();
        }
    }
    assert!(seen > 0);
}

#[test]
fn snapshot_keeps_primary_data_and_rebuilds_the_tree() {
    let mut set = ObstacleSet::default();
    set.add(square(0, 0, 4)).unwrap();
    set.add(ObstacleShape::Polyline(vec![v(-5, -5), v(-5, 5), v(-2, 8)]))
        .unwrap();
    let gone = set.add(square(20, 20, 1)).unwrap();
    set.remove(gone).unwrap();
    set.ensure_built();
    let cfg = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(&set, cfg).unwrap();
    let (mut back, _): (ObstacleSet, usize) =
        bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
    assert!(!back.is_built());
    assert_eq!(canonical(&back), canonical(&set));
    let agent = ObstacleAgent {
        id: AgentId(0),
        position: Vec2::new(Fx::from_num(2), Fx::from_num(-3)),
        velocity: v(0, 1),
        radius: Fx::lit("0.5"),
        max_speed: Fx::from_num(2),
        time_horizon_obst: Fx::from_num(5),
    };
    let (mut l1, mut l2) = (Vec::new(), Vec::new());
    set.agent_lines(&agent, &mut l1);
    back.ensure_built();
    back.agent_lines(&agent, &mut l2);
    assert!(!l1.is_empty());
    assert_eq!(l1, l2);
    // The id counter survived: the next id is 3, not 2.
    assert_eq!(back.add(square(30, 30, 1)).unwrap(), ObstacleId(3));
}

#[test]
fn obstacles_added_and_removed_between_ticks() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent(v(-10, 0)).unwrap();
    sim.set_agent_pref_velocity(a, v(2, 0)).unwrap();
    for _ in 0..10 {
        sim.step().unwrap();
    }
    let h0 = sim.state_hash();
    // A wall across the path, added mid-run without calling process_obstacles.
    let wall = sim
        .add_obstacle(ObstacleShape::Polyline(vec![v(0, -20), v(0, 20)]))
        .unwrap();
    assert_ne!(sim.state_hash(), h0, "obstacles are part of the state");
    for _ in 0..80 {
        sim.step().unwrap();
    }
    let x = sim.agent_position(a).unwrap().x;
    assert!(x < Fx::ZERO, "the wall holds: x = {x}");
    sim.remove_obstacle(wall).unwrap();
    for _ in 0..40 {
        sim.step().unwrap();
    }
    assert!(sim.agent_position(a).unwrap().x > Fx::from_num(5));
}

// ---------------------------------------------------------------------------- random maps

/// A star-shaped polygon (always simple): `k` vertices at increasing angles around `c`.
fn star(c: Vec2, fracs: &[u32], radii: &[u32]) -> Vec<Vec2> {
    let k = fracs.len();
    (0..k)
        .map(|i| {
            // Angle within the i-th sector, so angles strictly increase.
            let turns = Fx::from_num(i) / Fx::from_num(k)
                + Fx::from_bits(i64::from(fracs[i] % (1 << 31)) / k as i64 / 2);
            c + unit_from_turns(turns) * Fx::from_num(1 + radii[i] % 20)
        })
        .collect()
}

fn arb_star() -> impl Strategy<Value = (i32, i32, Vec<u32>, Vec<u32>)> {
    (3usize..9).prop_flat_map(|k| {
        (
            -60i32..60,
            -60i32..60,
            prop::collection::vec(any::<u32>(), k),
            prop::collection::vec(any::<u32>(), k),
        )
    })
}

fn build_arena(shapes: &[ObstacleShape]) -> Vec<ObstacleVertex> {
    let mut a = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        push_shape(&mut a, ObstacleId(i as u32), s);
    }
    a
}

fn translated(shapes: &[ObstacleShape], d: Vec2) -> Vec<ObstacleShape> {
    shapes
        .iter()
        .map(|s| match s {
            ObstacleShape::Polygon(p) => ObstacleShape::Polygon(p.iter().map(|&q| q + d).collect()),
            ObstacleShape::Polyline(p) => {
                ObstacleShape::Polyline(p.iter().map(|&q| q + d).collect())
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Neighbour and visibility queries through either tree equal brute force, and stay equal
    /// after translating everything (far from the origin too).
    #[test]
    fn bsp_queries_equal_brute_force_under_translation(
        stars in prop::collection::vec(arb_star(), 1..8),
        walls in prop::collection::vec((-80i32..80, -80i32..80, -80i32..80, -80i32..80), 0..4),
        points in prop::collection::vec((-90i32..90, -90i32..90, 0u32..4000), 1..12),
        shift in (-999_800i32..999_800, -999_800i32..999_800),
    ) {
        let mut shapes = Vec::new();
        for (x, y, f, r) in &stars {
            shapes.push(ObstacleShape::Polygon(star(v(*x, *y), f, r)));
        }
        for &(a, b, c, d) in &walls {
            if (a, b) != (c, d) {
                shapes.push(ObstacleShape::Polyline(vec![v(a, b), v(c, d)]));
            }
        }
        let shapes: Vec<_> = shapes
            .into_iter()
            .filter(|s| lockstep_orca::oracles::validate(s).is_ok())
            .collect();
        let arena = build_arena(&shapes);
        let d = v(shift.0, shift.1);
        let moved = build_arena(&translated(&shapes, d));
        for choice in [SplitChoice::Exhaustive, SplitChoice::default()] {
            let bsp = Bsp::build(&arena, choice);
            let bsp_moved = Bsp::build(&moved, choice);
            for &(x, y, r) in &points {
                let q = Vec2::new(Fx::from_num(x) + Fx::lit("0.25"), Fx::from_num(y));
                let range = Fx::from_num(r) / Fx::from_num(100);
                let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
                bsp.query_edges(q, range, &mut a);
                query_edges_brute(&arena, q, range, &mut b);
                bsp_moved.query_edges(q + d, range, &mut c);
                prop_assert_eq!(&a, &b);
                prop_assert_eq!(&a, &c);
                let to = Vec2::new(Fx::from_num(y), Fx::from_num(x));
                let rad = range / Fx::from_num(8);
                let vis = bsp.visible(q, to, rad).0;
                prop_assert_eq!(vis, visible_brute(&arena, q, to, rad));
                prop_assert_eq!(vis, bsp_moved.visible(q + d, to + d, rad).0);
            }
        }
    }

    /// Agents placed outside a random solid polygon (clear of it) with random preferred
    /// velocities: stepping never panics and never puts a centre inside the polygon.
    #[test]
    fn agents_never_enter_random_solid_polygons(
        shape in arb_star(),
        agents in prop::collection::vec((-40i32..40, -40i32..40, -20i32..20, -20i32..20), 1..10),
    ) {
        let (_, _, f, r) = shape;
        let poly = star(Vec2::ZERO, &f, &r);
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        prop_assume!(sim.add_obstacle(ObstacleShape::Polygon(poly.clone())).is_ok());
        let radius = sim.agent_defaults().radius;
        let mut ids = Vec::new();
        for &(x, y, px, py) in &agents {
            let p = v(x, y);
            // Start outside with clearance (a disc of the radius sees no edge) and apart.
            if !sim.query_visibility(p, p, radius)
                || ids.iter().any(|&(_, q): &(AgentId, Vec2)| {
                    (q - p).length_squared_wide()
                        < lockstep_orca::math::wide_mul(radius * Fx::from_num(2), radius * Fx::from_num(2))
                })
                || inside(&poly, p)
            {
                continue;
            }
            let id = sim.add_agent(p).unwrap();
            sim.set_agent_pref_velocity(id, Vec2::new(Fx::from_num(px) / Fx::from_num(10), Fx::from_num(py) / Fx::from_num(10))).unwrap();
            ids.push((id, p));
        }
        prop_assume!(!ids.is_empty());
        for _ in 0..40 {
            sim.step().unwrap();
            for &(id, _) in &ids {
                let p = sim.agent_position(id).unwrap();
                prop_assert!(!inside(&poly, p), "agent {:?} entered the polygon at {:?}", id, p.to_f64());
            }
        }
    }
}

/// Point strictly inside a simple polygon (crossing number, floats: measurement only).
fn inside(poly: &[Vec2], p: Vec2) -> bool {
    let (px, py) = p.to_f64();
    let n = poly.len();
    let mut c = false;
    for i in 0..n {
        let (ax, ay) = poly[i].to_f64();
        let (bx, by) = poly[(i + 1) % n].to_f64();
        if (ay > py) != (by > py) && px < ax + (py - ay) / (by - ay) * (bx - ax) {
            c = !c;
        }
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Obstacle lines depend on differences only: translating the obstacles and the agent
    /// (up to 10⁶) gives bit-identical lines.
    #[test]
    fn obstacle_lines_are_translation_invariant(
        stars in prop::collection::vec(arb_star(), 1..5),
        pos in (-80i32..80, -80i32..80),
        vel in (-2000i32..2000, -2000i32..2000),
        shift in (-999_800i32..999_800, -999_800i32..999_800),
    ) {
        let shapes: Vec<ObstacleShape> = stars
            .iter()
            .map(|(x, y, f, r)| ObstacleShape::Polygon(star(v(*x, *y), f, r)))
            .filter(|s| lockstep_orca::oracles::validate(s).is_ok())
            .collect();
        let d = v(shift.0, shift.1);
        let mut a = ObstacleSet::default();
        let mut b = ObstacleSet::default();
        for s in &shapes {
            a.add(s.clone()).unwrap();
        }
        for s in translated(&shapes, d) {
            b.add(s).unwrap();
        }
        let agent = ObstacleAgent {
            id: AgentId(0),
            position: Vec2::new(Fx::from_num(pos.0) + Fx::lit("0.3"), Fx::from_num(pos.1)),
            velocity: Vec2::new(Fx::from_num(vel.0), Fx::from_num(vel.1)) / Fx::from_num(1000),
            radius: Fx::lit("0.5"),
            max_speed: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(5),
        };
        let moved = ObstacleAgent { position: agent.position + d, ..agent };
        // Both modes: in RVO2 fragment mode the exhaustive split choice and the split points
        // come from differences only, so the shifted map has exactly the shifted fragments.
        for mode in [ObstacleNeighbors::WholeEdges, ObstacleNeighbors::Rvo2Fragments] {
            a.set_neighbor_mode(mode);
            b.set_neighbor_mode(mode);
            a.ensure_built();
            b.ensure_built();
            let (mut la, mut lb) = (Vec::new(), Vec::new());
            a.agent_lines(&agent, &mut la);
            b.agent_lines(&moved, &mut lb);
            prop_assert_eq!(la, lb, "mode {:?}", mode);
        }
    }
}

/// The whole pipeline: Blocks shifted by (+500,000, −300,000) follows the same trajectories to
/// the bit, relative to the shift.
#[test]
fn blocks_is_translation_invariant() {
    let shift = v(500_000, -300_000);
    let build = |d: Vec2| {
        let mut sim = Simulator::new(SimulatorParams {
            time_step: Fx::lit("0.25"),
            agent_defaults: lockstep_orca::AgentParams {
                neighbor_dist: Fx::from_num(15),
                max_neighbors: 10,
                time_horizon: Fx::from_num(5),
                time_horizon_obst: Fx::from_num(5),
                radius: Fx::from_num(2),
                max_speed: Fx::from_num(2),
                priority: lockstep_orca::DEFAULT_PRIORITY,
            },
        })
        .unwrap();
        for (x, y) in [(-10, 40), (10, 40), (10, -40), (-10, -40)] {
            let s = if x > 0 { 1 } else { -1 };
            let t = if y > 0 { 1 } else { -1 };
            // Counter-clockwise square between |x| in 10..40 and |y| in 10..40.
            let mut sq = vec![
                v(10 * s, 10 * t),
                v(40 * s, 10 * t),
                v(40 * s, 40 * t),
                v(10 * s, 40 * t),
            ];
            if s * t < 0 {
                sq.reverse();
            }
            sim.add_obstacle(ObstacleShape::Polygon(
                sq.into_iter().map(|p| p + d).collect(),
            ))
            .unwrap();
        }
        let mut goals = Vec::new();
        for i in 0..5 {
            for j in 0..5 {
                for (sx, sy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
                    sim.add_agent(v(sx * (55 + 10 * i), sy * (55 + 10 * j)) + d)
                        .unwrap();
                    goals.push(v(-75 * sx, -75 * sy) + d);
                }
            }
        }
        (sim, goals)
    };
    let (mut a, ga) = build(Vec2::ZERO);
    let (mut b, gb) = build(shift);
    for _ in 0..300 {
        for (sim, goals) in [(&mut a, &ga), (&mut b, &gb)] {
            let ids = sim.agent_ids().to_vec();
            for (i, id) in ids.into_iter().enumerate() {
                let p = sim.agent_position(id).unwrap();
                let g = goals[i] - p;
                let pref =
                    if g.length_squared_wide() > lockstep_orca::math::wide_mul(Fx::ONE, Fx::ONE) {
                        g.normalize_or_zero()
                    } else {
                        g
                    };
                sim.set_agent_pref_velocity(id, pref).unwrap();
            }
            sim.step().unwrap();
        }
    }
    let mut moved = 0;
    for &id in a.agent_ids() {
        let pa = a.agent_position(id).unwrap();
        assert_eq!(pa + shift, b.agent_position(id).unwrap(), "agent {id:?}");
        assert_eq!(a.agent_velocity(id).unwrap(), b.agent_velocity(id).unwrap());
        moved += usize::from(pa != Vec2::ZERO);
    }
    assert_eq!(moved, 100);
}

/// Regression: when LP2 fails on an obstacle line (`failed_line < num_obstacle_lines`), `lp3`
/// sliced `lines[num_obstacle_lines..i]` with `i < num_obstacle_lines` and panicked. Now the
/// obstacle lines alone are relaxed (walls first): the agent moves as fast as it can toward the
/// wall's permitted side. RVO2 keeps LP2's partial result (the preferred velocity, (1, 0)) and
/// so keeps violating the wall.
#[test]
fn lp3_survives_infeasible_obstacle_lines() {
    use lockstep_orca::orca::{Line, lp};
    // One obstacle line whose permitted half-plane (y >= 5) misses the speed circle (2).
    let lines = [Line {
        point: v(0, 5),
        direction: v(1, 0),
    }];
    let mut scratch = Vec::new();
    let out = lp::solve(&lines, 1, Fx::from_num(2), v(1, 0), &mut scratch);
    // Minimum violation of y >= 5 within speed 2: straight up at full speed.
    assert_eq!(out, v(0, 2));
}

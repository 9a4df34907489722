//! The liveness scenes of issue 9 (`fixtures/liveness/`): every file loads and builds, carries
//! no perturbation, and has the geometry its comment claims (bit-exact mirror symmetry, the
//! door's width, the formations' spacing, ...). `every_scene_completes_and_walls_hold` asserts
//! how they run: with the deadlock resolution (the default) every agent of every scene reaches
//! its goal with no random input, and no agent centre crosses a wall.

use lockstep_orca::scenario::{AgentSpec, EventAction, Scenario};
use lockstep_orca::{AgentId, Fx, ObstacleShape, Vec2};
use std::collections::BTreeSet;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/liveness");

const SCENES: [&str; 9] = [
    "blocks_unperturbed",
    "corridor",
    "cross_four",
    "door_counterflow",
    "formation_swap",
    "head_on_lines",
    "head_on_pair",
    "mirror_ring",
    "ring_center",
];

fn load(name: &str) -> Scenario {
    Scenario::load(format!("{DIR}/{name}.toml")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

fn fx(s: &str) -> Fx {
    Fx::lit(s)
}

/// The starts as a set of exact bit pairs.
fn bits(points: impl IntoIterator<Item = Vec2>) -> BTreeSet<(i64, i64)> {
    points
        .into_iter()
        .map(|p| (p.x.to_bits(), p.y.to_bits()))
        .collect()
}

fn assert_mirror_symmetric(agents: &[AgentSpec], name: &str) {
    let starts = bits(agents.iter().map(|a| a.start));
    assert_eq!(starts.len(), agents.len(), "{name}: starts are distinct");
    let mirror_x = bits(agents.iter().map(|a| Vec2::new(-a.start.x, a.start.y)));
    let mirror_y = bits(agents.iter().map(|a| Vec2::new(a.start.x, -a.start.y)));
    assert_eq!(starts, mirror_x, "{name}: mirror image in x, bit for bit");
    assert_eq!(starts, mirror_y, "{name}: mirror image in y, bit for bit");
    for a in agents {
        assert_eq!(a.goal, -a.start, "{name}: goal at the antipode, exactly");
    }
}

#[test]
fn every_liveness_scene_loads_builds_and_has_no_randomness() {
    let mut found: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, SCENES, "one file per scene of issue 9");
    for name in SCENES {
        let s = load(name);
        assert_eq!(s.name.as_deref(), Some(name));
        assert_eq!(s.perturbation, None, "{name}: zero perturbation");
        assert!(s.max_ticks >= 1000 && s.max_ticks <= 40_000, "{name}");
        for a in &s.agents {
            assert_eq!(a.velocity, Vec2::ZERO, "{name}: from rest");
        }
        let (sim, driver) = s.build().unwrap();
        assert_eq!(driver.agent_ids().len(), sim.num_agents(), "{name}");
        // The validation report has nothing to say but the rooms of the door scene.
        let warnings: Vec<String> = s.warnings().iter().map(ToString::to_string).collect();
        let expected: Vec<String> = if name == "door_counterflow" {
            vec![
                "obstacle #0 is a room: clockwise, it keeps agents inside (a solid block is \
                 counter-clockwise)"
                    .into(),
            ]
        } else {
            Vec::new()
        };
        assert_eq!(warnings, expected, "{name}");
    }
}

#[test]
fn head_on_pair_is_the_issues_pair() {
    let s = load("head_on_pair");
    assert_eq!(s.time_step, fx("0.1"));
    assert_eq!(s.agents.len(), 2);
    let (a, b) = (s.agents[0], s.agents[1]);
    assert_eq!((a.start, a.goal), (v(0, 0), v(4, 0)));
    assert_eq!((b.start, b.goal), (v(4, 0), v(0, 0)));
    for p in [a.params, b.params] {
        assert_eq!((p.radius, p.max_speed), (fx("0.5"), fx("1.5")));
    }
}

#[test]
fn head_on_lines_are_two_lines_of_ten_on_shared_lanes() {
    let s = load("head_on_lines");
    assert_eq!(s.agents.len(), 20);
    for i in 0..10 {
        let (a, b) = (s.agents[i], s.agents[i + 10]);
        assert_eq!(a.start.y, b.start.y, "same lane");
        assert_eq!((a.start.x, b.start.x), (fx("-10"), fx("10")));
        assert_eq!((a.goal, b.goal), (b.start, a.start), "exactly head-on");
        if i > 0 {
            assert_eq!(a.start.y - s.agents[i - 1].start.y, fx("1.25"));
        }
    }
    assert_mirror_symmetric_in_x(&s.agents);
}

#[test]
fn mirror_ring_is_bit_exactly_symmetric() {
    let s = load("mirror_ring");
    assert_eq!(s.agents.len(), 24);
    assert_mirror_symmetric(&s.agents, "mirror_ring");
    let swapped = bits(s.agents.iter().map(|a| Vec2::new(a.start.y, a.start.x)));
    assert_eq!(bits(s.agents.iter().map(|a| a.start)), swapped, "x <-> y");
    for (i, a) in s.agents.iter().enumerate() {
        let (x, y) = a.start.to_f64();
        let angle = i as f64 * std::f64::consts::TAU / 24.0;
        assert!((x - 6.0 * angle.cos()).abs() < 1e-9, "agent {i}");
        assert!((y - 6.0 * angle.sin()).abs() < 1e-9, "agent {i}");
    }
}

#[test]
fn formation_swap_is_two_6x6_squares_at_spacing_1_2() {
    let s = load("formation_swap");
    assert_eq!(s.agents.len(), 72);
    let half = fx("0.6");
    let offsets: Vec<Fx> = (0..6).map(|k| half * Fx::from_num(2 * k - 5)).collect();
    for (f, (cx, dx)) in [(-6, 12), (6, -12)].into_iter().enumerate() {
        for row in 0..6 {
            for col in 0..6 {
                let a = s.agents[f * 36 + row * 6 + col];
                let expected = Vec2::new(Fx::from_num(cx) + offsets[col], offsets[row]);
                assert_eq!(a.start, expected, "formation {f}, row {row}, col {col}");
                assert_eq!(
                    a.goal,
                    a.start + v(dx, 0),
                    "the same slot of the other formation"
                );
                assert_eq!(a.params.radius, fx("0.5"));
            }
        }
    }
    // Spacing: 2 x Q32.32(0.6), within one ulp of Q32.32(1.2).
    let spacing = offsets[1] - offsets[0];
    assert!((spacing - fx("1.2")).abs() <= Fx::DELTA, "{spacing}");
    // The goals of one formation are the starts of the other: a swap.
    let starts = bits(s.agents.iter().map(|a| a.start));
    assert_eq!(bits(s.agents.iter().map(|a| a.goal)), starts);
    assert_mirror_symmetric_in_x(&s.agents);
}

fn assert_mirror_symmetric_in_x(agents: &[AgentSpec]) {
    let starts = bits(agents.iter().map(|a| a.start));
    assert_eq!(
        starts,
        bits(agents.iter().map(|a| Vec2::new(-a.start.x, a.start.y)))
    );
    assert_eq!(
        starts,
        bits(agents.iter().map(|a| Vec2::new(a.start.x, -a.start.y)))
    );
}

#[test]
fn cross_four_groups_cross_at_right_angles_through_the_origin() {
    let s = load("cross_four");
    assert_eq!(s.agents.len(), 100);
    for (g, c) in [v(-10, 0), v(10, 0), v(0, -10), v(0, 10)]
        .into_iter()
        .enumerate()
    {
        let group = &s.agents[g * 25..(g + 1) * 25];
        let mut sum = Vec2::ZERO;
        for (k, a) in group.iter().enumerate() {
            let (row, col) = (k / 5, k % 5);
            let slot = Vec2::new(
                fx("1.25") * Fx::from_num(col as i32 - 2),
                fx("1.25") * Fx::from_num(row as i32 - 2),
            );
            assert_eq!(a.start, c + slot, "group {g}, agent {k}");
            assert_eq!(a.goal, a.start - c - c, "straight through the origin");
            sum += a.start - c;
        }
        assert_eq!(sum, Vec2::ZERO, "group {g} is centred on {c:?}");
    }
    assert_mirror_symmetric_in_x(&s.agents);
}

#[test]
fn door_counterflow_has_a_door_1_5_wide_and_routes_through_it() {
    let s = load("door_counterflow");
    assert_eq!(s.agents.len(), 30);
    let walls: Vec<&Vec<Vec2>> = s
        .obstacles
        .iter()
        .filter_map(|o| match o {
            ObstacleShape::Polyline(p) => Some(p),
            ObstacleShape::Polygon(_) => None,
        })
        .collect();
    assert_eq!(walls.len(), 2);
    let (lower, upper) = (walls[0], walls[1]);
    assert!(
        lower.iter().chain(upper).all(|p| p.x == Fx::ZERO),
        "the wall is x = 0"
    );
    let lower_end = lower.iter().map(|p| p.y).max().unwrap();
    let upper_end = upper.iter().map(|p| p.y).min().unwrap();
    assert_eq!(upper_end - lower_end, fx("1.5"), "the door is 1.5 wide");
    assert_eq!(upper_end, -lower_end, "centred on y = 0");
    assert_eq!(s.defaults.radius, fx("0.5"));
    assert_eq!(s.waypoint_tolerance, Some(fx("0.5")));
    for (i, a) in s.agents.iter().enumerate() {
        let from_left = i < 15;
        assert_eq!(a.start.x < Fx::ZERO, from_left, "agent {i}: 15 per side");
        assert_eq!(
            a.goal,
            Vec2::new(-a.start.x, a.start.y),
            "agent {i}: mirror image"
        );
        let route = &s.routes[&AgentId(i as u32)];
        let side = if from_left { -1 } else { 1 };
        assert_eq!(
            route,
            &vec![v(side, 0), v(-side, 0)],
            "agent {i}: through the door"
        );
        // The route's door segment crosses the wall inside the opening.
        assert!(route[0].y > lower_end && route[0].y < upper_end);
    }
    assert_mirror_symmetric_in_x(&s.agents);
}

#[test]
fn corridor_is_4_5_wide_with_24_agents_at_each_end() {
    let s = load("corridor");
    assert_eq!(s.agents.len(), 48);
    let walls: Vec<Vec<Vec2>> = s
        .obstacles
        .iter()
        .map(|o| match o {
            ObstacleShape::Polyline(p) => p.clone(),
            ObstacleShape::Polygon(_) => panic!("walls are polylines"),
        })
        .collect();
    assert_eq!(
        walls,
        vec![
            vec![v(0, 0), v(30, 0)],
            vec![
                Vec2::new(Fx::ZERO, fx("4.5")),
                Vec2::new(Fx::from_num(30), fx("4.5"))
            ]
        ]
    );
    let r = s.defaults.radius;
    for (i, a) in s.agents.iter().enumerate() {
        let west = i < 24;
        assert_eq!(a.start.x < Fx::ZERO, west, "agent {i}");
        assert!(
            west || a.start.x > Fx::from_num(30),
            "agent {i} waits outside"
        );
        assert!(
            a.start.y - r > Fx::ZERO && a.start.y + r < fx("4.5"),
            "agent {i}: in the lanes"
        );
        assert_eq!(
            a.goal,
            s.agents[(i + 24) % 48].start,
            "agent {i}: the other end"
        );
        assert_eq!(
            a.goal.x,
            Fx::from_num(30) - a.start.x,
            "mirror image through x = 15"
        );
    }
}

#[test]
fn ring_center_closes_in_on_an_agent_that_then_walks_out() {
    let s = load("ring_center");
    assert_eq!(s.agents.len(), 13);
    assert_mirror_symmetric(&s.agents[..12], "ring_center");
    for a in &s.agents[..12] {
        let (x, y) = a.start.to_f64();
        assert!((x.hypot(y) - 8.0).abs() < 1e-9);
    }
    let centre = s.agents[12];
    assert_eq!(
        (centre.start, centre.goal),
        (Vec2::ZERO, Vec2::ZERO),
        "stationary"
    );
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.events[0].tick, 16);
    assert_eq!(
        s.events[0].action,
        EventAction::SetGoal {
            id: AgentId(12),
            goal: v(10, 10)
        }
    );
}

#[test]
fn blocks_unperturbed_is_blocks_without_its_perturbation() {
    let mut s = load("blocks_unperturbed");
    let blocks = Scenario::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/scenarios/blocks.toml"
    ))
    .unwrap();
    assert!(blocks.perturbation.is_some());
    assert_eq!(s.max_ticks, 40_000);
    s.name.clone_from(&blocks.name);
    s.max_ticks = blocks.max_ticks;
    s.perturbation = blocks.perturbation;
    assert_eq!(s, blocks);
}

/// Runs every scene to its end and prints what it reached (the table of the issue's note):
/// `cargo test --release --test api liveness_scenes::report -- --ignored --nocapture`.
/// Ignored by default: Blocks alone steps 100 agents for up to 40,000 ticks.
#[test]
#[ignore = "a report, not a check: run it by name with --ignored --nocapture"]
fn report() {
    use lockstep_orca::scenario::RunOptions;
    println!(
        "| scene | agents | ticks | all reached | arrived | min clearance (tick) | final hash |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for name in SCENES {
        let s = load(name);
        let (mut sim, driver) = s.build().unwrap();
        let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
        let (c, t) = r.min_clearance.unwrap();
        println!(
            "| {name} | {} | {} | {} | {} | {c:.6} ({t}) | {:016x} |",
            driver.agent_ids().len(),
            r.ticks,
            if r.all_reached { "yes" } else { "no" },
            driver.num_reached(&sim),
            r.final_hash
        );
    }
}

#[path = "../../examples/common/monitor.rs"]
mod monitor;

/// Issue 9's acceptance: every scene completes with zero random input, every run is the same
/// twice, the walls hold (no centre crosses an edge, obstacle clearance ≥ −0.001), and in RVO2
/// mode the exactly symmetric scenes freeze (the reason for the mechanism).
#[test]
fn every_scene_completes_and_walls_hold() {
    use lockstep_orca::scenario::RunOptions;
    for name in SCENES {
        let s = load(name);
        let (mut sim, driver) = s.build().unwrap();
        let mut walls = monitor::Monitor::new(&sim);
        let r = driver
            .run_with(&mut sim, &RunOptions::default(), |sim| walls.observe(sim))
            .unwrap();
        assert!(
            r.all_reached,
            "{name}: {} of {} arrived in {} ticks",
            driver.num_reached(&sim),
            driver.agent_ids().len(),
            r.ticks
        );
        let w = walls.report;
        assert_eq!(w.crossings, 0, "{name}: a centre crossed a wall");
        assert!(
            w.min_obstacle_clearance >= -0.001,
            "{name}: obstacle clearance {}",
            w.min_obstacle_clearance
        );
        let (c, _) = r.min_clearance.unwrap();
        println!(
            "{name}: {} ticks, {} stalls, {} yielding agent-ticks, {} LP3 agent-ticks, min clearance {c}, obstacle clearance {:.6}",
            r.ticks,
            r.outcomes.stalls,
            r.outcomes.yield_ticks,
            r.outcomes.lp3_ticks,
            if w.min_obstacle_clearance.is_finite() {
                w.min_obstacle_clearance
            } else {
                0.0
            }
        );
        // Bit-identical on a second run.
        let (mut again, driver) = s.build().unwrap();
        let r2 = driver.run(&mut again, &RunOptions::default()).unwrap();
        assert_eq!(r2.final_hash, r.final_hash, "{name}: a second run differs");
    }
    for name in ["head_on_pair", "mirror_ring"] {
        let s = load(name);
        let (mut sim, driver) = s.build().unwrap();
        sim.set_liveness(lockstep_orca::Liveness::Rvo2);
        let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
        assert!(!r.all_reached, "{name} completes even in RVO2 mode");
    }
}

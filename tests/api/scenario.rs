//! The scenario format, its generators, the driver and the `lockstep-orca` runner.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::scenario::{
    Perturbation, PerturbationHash, Policy, RunOptions, Scenario, ScenarioError, grid_agents,
};
use lockstep_orca::{AgentParams, Fx, ObstacleShape, SimError, Vec2};
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios");

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_toml_str(text)
}

// ------------------------------------------------------------------ one scene, one place

#[test]
fn circle250_fixture_is_the_programmatic_circle() {
    let file = Scenario::load(fixture("circle250.toml")).unwrap();
    assert_eq!(file, Scenario::rvo2_circle());
}

#[test]
fn crowd1000_fixture_is_the_programmatic_crowd() {
    let mut file = Scenario::load(fixture("crowd1000.toml")).unwrap();
    let code = Scenario::crowd(1000);
    assert_eq!(file.agents, code.agents);
    // Only the name and the tick limit differ.
    file.name.clone_from(&code.name);
    file.max_ticks = code.max_ticks;
    assert_eq!(file, code);
}

// ------------------------------------------------------------------ generators

#[test]
fn ring_matches_rvo2_circle_layout() {
    let s = Scenario::rvo2_circle();
    assert_eq!(s.agents.len(), 250);
    for (i, a) in s.agents.iter().enumerate() {
        let ang = i as f64 * std::f64::consts::TAU / 250.0;
        let (x, y) = a.start.to_f64();
        let err = (x - 200.0 * ang.cos())
            .abs()
            .max((y - 200.0 * ang.sin()).abs());
        assert!(err < 2e-6, "agent {i}: off by {err}");
        assert_eq!(a.goal, -a.start, "agent {i}: goal is the antipode");
        assert_eq!(a.params, AgentParams::default());
    }
}

/// Independent f64 version of the reference README's crowd definition.
fn reference_crowd(n: usize) -> Vec<(f64, f64)> {
    let mut state: u64 = 12345;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f64 / (1u64 << 24) as f64 * 0.5 - 0.25
    };
    let cols = (n as f64).sqrt().ceil() as usize;
    let rows = n.div_ceil(cols);
    (0..n)
        .map(|k| {
            let (r, c) = (k / cols, k % cols);
            let jx = next();
            let jy = next();
            (
                (c as f64 - (cols - 1) as f64 / 2.0) * 3.0 + jx,
                (r as f64 - (rows - 1) as f64 / 2.0) * 3.0 + jy,
            )
        })
        .collect()
}

#[test]
fn crowd_matches_the_reference_definition_exactly() {
    // Every value is dyadic with few bits, so f64 is exact here: compare bit for bit.
    for n in [1usize, 7, 10, 1000, 10_000] {
        let s = Scenario::crowd(n as u32);
        let expect = reference_crowd(n);
        assert_eq!(s.agents.len(), n);
        for (k, (a, e)) in s.agents.iter().zip(&expect).enumerate() {
            assert_eq!(a.start.to_f64(), *e, "crowd {n}, agent {k}");
            assert_eq!(a.goal, -a.start);
        }
    }
    // 10,000 agents: a 100 × 100 grid centred on the origin.
    let s = Scenario::crowd(10_000);
    let (x0, y0) = s.agents[0].start.to_f64();
    assert!((x0 + 148.5).abs() <= 0.25 && (y0 + 148.5).abs() <= 0.25);
}

#[test]
fn grid_jitter_stays_in_range_and_seed_matters() {
    let p = AgentParams::default();
    let a = grid_agents(100, Fx::from_num(3), Fx::lit("0.25"), 1, Vec2::ZERO, p);
    let b = grid_agents(100, Fx::from_num(3), Fx::lit("0.25"), 2, Vec2::ZERO, p);
    assert_ne!(a, b);
    let plain = grid_agents(100, Fx::from_num(3), Fx::ZERO, 1, Vec2::ZERO, p);
    for (j, g) in a.iter().zip(&plain) {
        let d = j.start - g.start;
        for c in [d.x, d.y] {
            assert!(c >= Fx::lit("-0.25") && c < Fx::lit("0.25"), "jitter {c}");
        }
    }
}

// ------------------------------------------------------------------ parsing

const FULL: &str = r#"
name = "full"
time_step = 0.25
max_ticks = 50
goal_tolerance = "0.5"

[defaults]
radius = 0.5
max_neighbors = 4

[policy]
kind = "goal_seeking"
pref_speed = 1.5

[perturbation]
seed = 9
magnitude = 0.001

[[agent]]
start = [-10, 0]
goal = [10, 0]
velocity = [0.5, 0]
max_speed = 3

[[ring]]
count = 4
radius = 20
center = [100, 0]
params = { radius = 0.75 }

[[grid]]
count = 3
spacing = 4
jitter = 0
center = [0, 50]

[[obstacle]]
polygon = [[1, 1], [2, 1], [2, 2]]

[[obstacle]]
polyline = [[5, 5], [6, 6]]
"#;

#[test]
fn full_example_parses_every_field() {
    let s = parse(FULL).unwrap();
    assert_eq!(s.name.as_deref(), Some("full"));
    assert_eq!(s.time_step, Fx::lit("0.25"));
    assert_eq!(s.max_ticks, 50);
    assert_eq!(s.goal_tolerance, Some(Fx::lit("0.5")));
    let d = AgentParams {
        radius: Fx::lit("0.5"),
        max_neighbors: 4,
        ..AgentParams::default()
    };
    assert_eq!(s.defaults, d);
    assert_eq!(
        s.policy,
        Policy::GoalSeeking {
            pref_speed: Fx::lit("1.5"),
            slow_within: Fx::lit("1.5"),
        }
    );
    assert_eq!(
        s.perturbation,
        Some(Perturbation {
            seed: 9,
            magnitude: Fx::lit("0.001"),
            hash: PerturbationHash::Nested,
        })
    );
    // Order: agents, rings, grids.
    assert_eq!(s.agents.len(), 1 + 4 + 3);
    let a = s.agents[0];
    assert_eq!(a.start, Vec2::from_int(-10, 0));
    assert_eq!(a.velocity, Vec2::new(Fx::lit("0.5"), Fx::ZERO));
    assert_eq!(a.params.max_speed, Fx::from_num(3));
    assert_eq!(a.params.radius, Fx::lit("0.5"));
    // Ring agent 0 sits at angle 0 around (100, 0), goal at the antipode.
    let r0 = s.agents[1];
    assert_eq!(r0.params.radius, Fx::lit("0.75"));
    assert_eq!(r0.goal, Vec2::from_int(200, 0) - r0.start);
    assert!((r0.start.x - Fx::from_num(120)).abs() < Fx::lit("0.000001"));
    // Grid of 3: 2 columns, 2 rows, no jitter: (-2, 48), (2, 48), (-2, 52).
    assert_eq!(s.agents[5].start, Vec2::from_int(-2, 48));
    assert_eq!(s.agents[6].start, Vec2::from_int(2, 48));
    assert_eq!(s.agents[7].start, Vec2::from_int(-2, 52));
    assert_eq!(s.agents[7].goal, Vec2::from_int(2, 48));
    assert_eq!(
        s.obstacles,
        vec![
            ObstacleShape::Polygon(vec![
                Vec2::from_int(1, 1),
                Vec2::from_int(2, 1),
                Vec2::from_int(2, 2)
            ]),
            ObstacleShape::Polyline(vec![Vec2::from_int(5, 5), Vec2::from_int(6, 6)]),
        ]
    );
}

#[test]
fn obstacles_also_parse_under_the_plural_inline_form() {
    let s = parse("time_step = 0.25\nobstacles = [{ polyline = [[0, 0], [3, 0.5]] }]").unwrap();
    assert_eq!(
        s.obstacles,
        vec![ObstacleShape::Polyline(vec![
            Vec2::ZERO,
            Vec2::new(Fx::from_num(3), Fx::lit("0.5"))
        ])]
    );
    // Until the obstacle module lands the simulator may refuse obstacles; if it does, the
    // error names the obstacle.
    if let Err(e) = s.build() {
        assert!(e.to_string().contains("obstacle #0"), "{e}");
    }
}

#[test]
fn decimal_strings_round_once_and_floats_go_through_f64() {
    let s = parse("time_step = \"0.1\"").unwrap();
    assert_eq!(s.time_step, "0.1".parse::<Fx>().unwrap());
    let f = parse("time_step = 0.1").unwrap();
    assert_eq!(f.time_step, Fx::from_num(0.1f64));
    // Both within one ulp of 0.1.
    assert!((s.time_step - f.time_step).abs() <= Fx::DELTA);
}

fn parse_err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn invalid_files_are_rejected_with_a_reason() {
    let cases: &[(&str, &str)] = &[
        ("", "time_step"),
        ("time_step = 0.25\nradius = 1", "radius"),
        ("time_step = 0", "time_step"),
        ("time_step = 0.25\n[defaults]\nradius = -1", "radius"),
        ("time_step = 0.25\n[defaults]\nradious = 1", "radious"),
        ("time_step = \"abc\"", "not a decimal"),
        ("time_step = nan", "not finite"),
        // Shown short, not as its 301 digits.
        ("time_step = 1e300", "1e300 is not finite or out of range"),
        (
            "time_step = 0.25\n[[agent]]\nstart = [-3e9, 0]\ngoal = [1, 0]",
            "-3000000000 is not finite or out of range (numbers lie within ±2147483647)",
        ),
        (
            "time_step = 0.25\n[[agent]]\nstart = [2.5, 0]\ngoal = [1e11, 0]",
            "100000000000 is not finite",
        ),
        (
            "time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [2000000, 0]",
            "goal",
        ),
        (
            "time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [1, 0]\nradius = 0",
            "agent 0",
        ),
        (
            "time_step = 0.25\n[[agent]]\nstart = [0]\ngoal = [1, 0]",
            "start",
        ),
        ("time_step = 0.25\n[[ring]]\ncount = 0\nradius = 5", "count"),
        (
            "time_step = 0.25\n[[ring]]\ncount = 3\nradius = -5",
            "ring #0",
        ),
        (
            "time_step = 0.25\n[[grid]]\ncount = 3\nspacing = 0",
            "spacing",
        ),
        ("time_step = 0.25\n[[grid]]\ncount = 2000000", "too many"),
        ("time_step = 0.25\n[[obstacle]]\n", "exactly one"),
        (
            "time_step = 0.25\n[policy]\nkind = \"teleport\"",
            "teleport",
        ),
        (
            "time_step = 0.25\n[perturbation]\nseed = 1\nmagnitude = -1",
            "magnitude",
        ),
        ("time_step = 0.25\ngoal_tolerance = -1", "goal_tolerance"),
        (
            "time_step = 0.001\n[defaults]\nradius = 5",
            "radius / time_step",
        ),
    ];
    for (text, needle) in cases {
        let msg = parse_err(text);
        assert!(
            msg.contains(needle),
            "error for {text:?} should mention {needle:?}: {msg}"
        );
    }
}

#[test]
fn load_reports_missing_files() {
    let err = Scenario::load(fixture("no_such_file.toml")).unwrap_err();
    assert!(matches!(err, ScenarioError::Io { .. }), "{err}");
}

#[test]
fn build_rejects_programmatic_scenarios_outside_the_domain() {
    let mut s = Scenario::rvo2_circle();
    s.agents[3].params.radius = Fx::ZERO;
    let err = s.build().unwrap_err();
    assert!(err.to_string().contains("agent 3"), "{err}");
}

// ------------------------------------------------------------------ driver

#[test]
fn goal_seeking_is_rvo2s_rule() {
    let s = parse("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [10, 0]").unwrap();
    let (_, driver) = s.build().unwrap();
    // Far: unit vector towards the goal.
    let far = driver.policy_velocity(Vec2::from_int(0, 0), Vec2::from_int(3, 4));
    // (3, 4) / 5, each component truncated (the documented rounding of `try_normalize`).
    let five = Fx::from_num(5);
    assert_eq!(
        far,
        Vec2::new(Fx::from_num(3) / five, Fx::from_num(4) / five)
    );
    assert!((far.x - Fx::lit("0.6")).abs() <= Fx::DELTA);
    // Close (|d|² <= 1): the remaining vector itself.
    let d = Vec2::new(Fx::lit("0.3"), Fx::lit("-0.4"));
    assert_eq!(driver.policy_velocity(Vec2::ZERO, d), d);
    let near = Vec2::new(Fx::lit("0.5"), Fx::lit("0.5"));
    assert_eq!(driver.policy_velocity(Vec2::ZERO, near), near);
}

#[test]
fn perturbation_is_bounded_deterministic_and_varies() {
    let p = Perturbation {
        seed: 3,
        magnitude: Fx::lit("0.01"),
        hash: PerturbationHash::Nested,
    };
    let mut seen = Vec::new();
    for tick in 0..50 {
        for agent in 0..4 {
            let v = p.offset(tick, agent);
            assert!(v.length() <= p.magnitude, "length {}", v.length());
            assert_eq!(v, p.offset(tick, agent));
            seen.push(v);
        }
    }
    seen.sort_by_key(|v| (v.x, v.y));
    seen.dedup();
    assert_eq!(seen.len(), 200, "every (tick, agent) gets its own offset");
    let other = Perturbation { seed: 4, ..p };
    assert_ne!(p.offset(0, 0), other.offset(0, 0));
}

#[test]
fn all_reached_uses_the_tolerance_exactly() {
    let text = "time_step = 0.25\ngoal_tolerance = 0.5\n\
                [[agent]]\nstart = [0, 0]\ngoal = [0.5, 0]\n\
                [[agent]]\nstart = [3, 0]\ngoal = [3, 0.5]";
    let (mut sim, driver) = parse(text).unwrap().build().unwrap();
    assert!(driver.all_reached(&sim)); // both exactly at distance 0.5
    let ids = driver.agent_ids().to_vec();
    sim.set_agent_position(ids[1], Vec2::new(Fx::from_num(3), -Fx::DELTA))
        .unwrap();
    assert!(!driver.all_reached(&sim));
    // Default tolerance is the radius (1.5): RVO2's Circle test.
    let s = parse("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [1.5, 0]").unwrap();
    let (sim, driver) = s.build().unwrap();
    assert!(driver.all_reached(&sim));
}

#[test]
fn run_stops_at_goals_and_reports_exact_clearance() {
    // Two agents walk 4 units apart side by side; radius 0.5, so clearance stays 3.
    let text = "time_step = 0.25\n[defaults]\nradius = 0.5\n\
                [[agent]]\nstart = [0, 0]\ngoal = [5, 0]\n\
                [[agent]]\nstart = [0, 4]\ngoal = [5, 4]";
    let (mut sim, driver) = parse(text).unwrap().build().unwrap();
    let r = driver
        .run(
            &mut sim,
            &RunOptions {
                hash_every: 5,
                ..RunOptions::default()
            },
        )
        .unwrap();
    assert!(r.all_reached);
    assert!(r.ticks > 16 && r.ticks < 40, "ticks {}", r.ticks);
    assert_eq!(r.min_clearance, Some((Fx::from_num(3), 0)));
    assert_eq!(r.hashes[0].0, 0);
    assert!(r.hashes.iter().all(|(t, _)| t % 5 == 0));
    assert_eq!(r.final_hash, sim.state_hash());
    // Running on from the goal does nothing more: already done.
    let again = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert_eq!(again.ticks, 0);
}

#[test]
fn clearance_with_unequal_radii_picks_the_worst_pair_not_the_nearest() {
    // Agent 0 (r 0.5) at the origin; agent 1 (r 0.5) at distance 2 (clearance 1); agent 2
    // (r 2) at distance 3 (clearance 0.5): the farther one is the closer call.
    let text = "time_step = 0.25\nmax_ticks = 1\n[defaults]\nradius = 0.5\n\
                [[agent]]\nstart = [0, 0]\ngoal = [0, 0]\n\
                [[agent]]\nstart = [0, 2]\ngoal = [0, 2]\n\
                [[agent]]\nstart = [3, 0]\ngoal = [3, 0]\nradius = 2";
    let (mut sim, driver) = parse(text).unwrap().build().unwrap();
    let r = driver
        .run(
            &mut sim,
            &RunOptions {
                stop_when_reached: false,
                ..RunOptions::default()
            },
        )
        .unwrap();
    assert_eq!(r.ticks, 1);
    assert_eq!(r.min_clearance, Some((Fx::lit("0.5"), 0)));
}

#[test]
fn removed_agents_are_reported_by_the_roadmap_driver_and_drop_their_orders() {
    // Goal seeking: the agents are steered by orders; a removed agent's order goes with it.
    let (mut sim, driver) = Scenario::circle(4, Fx::from_num(10)).build().unwrap();
    assert!(driver.steers_by_orders());
    sim.remove_agent(driver.agent_ids()[2]).unwrap();
    assert_eq!(sim.orders().len(), 3);
    driver.set_pref_velocities(&mut sim, 0).unwrap();
    sim.step().unwrap();
    // The roadmap policy sets every agent's preferred velocity itself, and says which is gone.
    let s = Scenario::load(fixture("roadmap.toml")).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    assert!(!driver.steers_by_orders() && sim.orders().len() == 0);
    sim.remove_agent(driver.agent_ids()[2]).unwrap();
    let err = driver.set_pref_velocities(&mut sim, 0).unwrap_err();
    assert_eq!(err, SimError::UnknownAgent(driver.agent_ids()[2]));
}

#[test]
fn perturbed_fixture_reaches_every_goal() {
    let s = Scenario::load(fixture("swap_perturbed.toml")).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert!(r.all_reached, "stuck after {} ticks", r.ticks);
    // Without the perturbation the symmetric ring jams in RVO2 mode (the reason the
    // perturbation is there), and the deadlock resolution (the default) completes it.
    let mut plain = s.clone();
    plain.perturbation = None;
    let (mut sim, driver) = plain.build().unwrap();
    sim.set_liveness(lockstep_orca::Liveness::Rvo2);
    let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert!(
        !r.all_reached,
        "expected the symmetric ring to jam without noise in RVO2 mode"
    );
    let (mut sim, driver) = plain.build().unwrap();
    let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert!(r.all_reached, "resolve mode: stuck after {} ticks", r.ticks);
}

// ------------------------------------------------------------------ the runner

fn runner(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep-orca"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn runner_is_identical_across_processes_and_matches_the_library() {
    let dir = std::env::temp_dir().join(format!("lockstep-orca-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = fixture("swap_perturbed.toml");
    let mut outs = Vec::new();
    for k in 0..2 {
        let csv = dir.join(format!("run{k}.csv"));
        let out = runner(&[
            "run",
            &path,
            "--hash-every",
            "1",
            "--csv",
            csv.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        outs.push((out.stdout, std::fs::read(&csv).unwrap()));
    }
    assert_eq!(outs[0].0, outs[1].0, "stdout differs between processes");
    assert_eq!(outs[0].1, outs[1].1, "CSV differs between processes");

    // The hashes printed are the library's hashes, tick by tick.
    let (mut sim, driver) = Scenario::load(&path).unwrap().build().unwrap();
    let report = driver
        .run(
            &mut sim,
            &RunOptions {
                hash_every: 1,
                ..RunOptions::default()
            },
        )
        .unwrap();
    let stdout = String::from_utf8(outs[0].0.clone()).unwrap();
    for (tick, hash) in &report.hashes {
        let line = format!("hash at tick {tick}: {hash:016x}");
        assert!(stdout.contains(&line), "missing `{line}`");
    }
    assert!(stdout.contains(&format!("ticks: {}\n", report.ticks)));
    assert!(stdout.contains("all reached: yes"));
    assert!(stdout.contains(&format!("final hash: {:016x}", report.final_hash)));

    // The CSV: header, one row per agent per state, values that parse back to the exact bits.
    let csv = String::from_utf8(outs[0].1.clone()).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("tick,id,x,y,vx,vy"));
    let rows: Vec<&str> = lines.collect();
    let n = sim.num_agents();
    assert_eq!(rows.len() as u64, (report.ticks + 1) * n as u64);
    assert!(rows[0].starts_with("0,0,"));
    for (row, &id) in rows[rows.len() - n..].iter().zip(sim.agent_ids()) {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[0].parse::<u64>().unwrap(), report.ticks);
        assert_eq!(f[1].parse::<u32>().unwrap(), id.0);
        let num = |s: &str| s.parse::<Fx>().unwrap();
        let p = sim.agent_position(id).unwrap();
        let v = sim.agent_velocity(id).unwrap();
        assert_eq!(
            (num(f[2]), num(f[3]), num(f[4]), num(f[5])),
            (p.x, p.y, v.x, v.y)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn runner_ticks_flag_runs_exactly_n_ticks() {
    let out = runner(&["run", &fixture("circle250.toml"), "--ticks", "7"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("ticks: 7\n"), "{stdout}");
    assert!(stdout.contains("all reached: no"));
}

#[test]
fn runner_rejects_bad_arguments_with_exit_code_2() {
    for args in [
        &[][..],
        &["walk"][..],
        &["run"][..],
        &["run", "a.toml", "--ticks"][..],
        &["run", "a.toml", "--ticks", "-3"][..],
        &["run", "a.toml", "--hash-every", "0"][..],
        &["run", "a.toml", "--frobnicate"][..],
        &["run", "a.toml", "b.toml"][..],
    ] {
        let out = runner(args);
        assert_eq!(out.status.code(), Some(2), "args {args:?}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(err.contains("Usage:") || err.contains("--help"), "{err}");
    }
    // A missing scenario file is bad input (2), with the reason (docs/cli.md).
    let out = runner(&["run", &fixture("no_such_file.toml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

/// Brute-force minimum clearance over all pairs of the current state.
fn brute_min_clearance(sim: &lockstep_orca::Simulator) -> Fx {
    let ids = sim.agent_ids();
    let mut best = Fx::MAX;
    for (i, &a) in ids.iter().enumerate() {
        let pa = sim.agent_position(a).unwrap();
        let ra = sim.agent_params(a).unwrap().radius;
        for &b in &ids[i + 1..] {
            let d = (sim.agent_position(b).unwrap() - pa).length();
            best = best.min(d - ra - sim.agent_params(b).unwrap().radius);
        }
    }
    best
}

#[test]
fn clearance_tracker_matches_brute_force_on_a_mixed_crowd() {
    for uniform in [true, false] {
        let mut s = Scenario::crowd(300);
        if !uniform {
            // Radii 0.5 .. 2.0 in a fixed pattern.
            for (i, a) in s.agents.iter_mut().enumerate() {
                a.params.radius = Fx::lit("0.5") + Fx::from_num(i % 7) / Fx::from_num(4);
            }
        }
        let (mut sim, driver) = s.build().unwrap();
        let mut brute: Option<(Fx, u64)> = None;
        let report = driver
            .run_with(
                &mut sim,
                &RunOptions {
                    max_ticks: Some(30),
                    ..RunOptions::default()
                },
                |sim| {
                    let c = brute_min_clearance(sim);
                    if brute.is_none_or(|(m, _)| c < m) {
                        brute = Some((c, sim.tick()));
                    }
                },
            )
            .unwrap();
        assert_eq!(report.ticks, 30);
        assert_eq!(report.min_clearance, brute, "uniform radii: {uniform}");
    }
}

// ------------------------------------------------------------------ events

fn run_ticks(
    driver: &lockstep_orca::scenario::Driver,
    sim: &mut lockstep_orca::Simulator,
    ticks: u64,
) -> lockstep_orca::scenario::RunReport {
    driver
        .run(
            sim,
            &RunOptions {
                max_ticks: Some(ticks),
                stop_when_reached: false,
                hash_every: 1,
                track_clearance: false,
            },
        )
        .unwrap()
}

#[test]
fn add_remove_events_give_ids_in_event_order_and_apply_at_their_tick() {
    use lockstep_orca::AgentId;
    let s = Scenario::load(fixture("add_remove.toml")).unwrap();
    assert_eq!(s.agents.len(), 80);
    assert_eq!(s.events.len(), 21);
    let (mut sim, driver) = s.build().unwrap();
    let ids: Vec<u32> = driver.agent_ids().iter().map(|id| id.0).collect();
    assert_eq!(ids, (0..92).collect::<Vec<_>>(), "80 listed + 12 added");
    assert_eq!(driver.goals()[80], Vec2::from_f64(-11.25, -40.0).unwrap());
    // Before tick 40 only the listed agents exist.
    run_ticks(&driver, &mut sim, 40);
    assert_eq!(sim.num_agents(), 80);
    assert!(!sim.contains_agent(AgentId(80)));
    // The tick-40 events add ids 80..=89 before that tick's step: they moved in it.
    run_ticks(&driver, &mut sim, 1);
    assert_eq!(sim.num_agents(), 90);
    let first = sim.agent_position(AgentId(80)).unwrap();
    assert!(
        (first.x - Fx::lit("-11.25")).abs() < Fx::lit("0.01"),
        "{first:?}"
    );
    assert!(
        first.y < Fx::from_num(40),
        "moved down in its first tick: {first:?}"
    );
    assert_eq!(
        sim.agent_params(AgentId(80)).unwrap().radius,
        Fx::lit("0.75")
    );
    assert_eq!(sim.agent_params(AgentId(81)).unwrap().radius, Fx::ONE);
    // Removals at 60 and 61.
    run_ticks(&driver, &mut sim, 20);
    assert_eq!(sim.tick(), 61);
    assert_eq!(sim.num_agents(), 87);
    assert!(sim.contains_agent(AgentId(60)));
    run_ticks(&driver, &mut sim, 1);
    for id in [3, 17, 44, 60] {
        assert!(!sim.contains_agent(AgentId(id)), "agent {id} removed");
    }
    assert_eq!(sim.num_agents(), 86);
    // set_params at 80 resolves the partial override against the agent's own parameters.
    run_ticks(&driver, &mut sim, 20);
    let p1 = sim.agent_params(AgentId(1)).unwrap();
    assert_eq!((p1.max_speed, p1.radius), (Fx::ONE, Fx::lit("1.25")));
    assert_eq!(p1.neighbor_dist, Fx::from_num(10));
    // Goal change of agent 0 at tick 70.
    assert_eq!(driver.goal_at(0, 69), Vec2::from_f64(30.0, -8.75).unwrap());
    assert_eq!(driver.goal_at(0, 70), Vec2::from_int(-40, 20));
}

#[test]
fn add_remove_fixture_reaches_every_goal_including_changed_ones() {
    use lockstep_orca::AgentId;
    let s = Scenario::load(fixture("add_remove.toml")).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert!(r.all_reached, "stuck after {} ticks", r.ticks);
    assert!(r.ticks > 150, "the run cannot stop before the last event");
    // 92 agents ever, 5 removed.
    assert_eq!(sim.num_agents(), 87);
    let p0 = sim.agent_position(AgentId(0)).unwrap();
    assert!((p0 - Vec2::from_int(-40, 20)).length() <= Fx::lit("0.5"));
    let late = sim.agent_position(AgentId(91)).unwrap();
    assert!((late - Vec2::from_f64(-45.0, 0.5).unwrap()).length() <= Fx::lit("0.5"));
}

/// The command form of the driver (what `record` queues) gives the same state, tick by tick,
/// as the direct form (what `run` does), events included.
#[test]
fn tick_commands_reproduce_the_direct_run_exactly() {
    use lockstep_orca::replay::{self, RecordOptions};
    for file in ["add_remove.toml", "roadmap.toml", "swap_perturbed.toml"] {
        let s = Scenario::load(fixture(file)).unwrap();
        let (mut direct, driver) = s.build().unwrap();
        let run = run_ticks(&driver, &mut direct, 200);
        let (mut queued, driver) = s.build().unwrap();
        let rec = replay::record(&mut queued, 200, RecordOptions::default(), |sim| {
            driver.tick_commands(sim, sim.tick())
        })
        .unwrap();
        let run_hashes: Vec<u64> = run.hashes[1..].iter().map(|&(_, h)| h).collect();
        assert_eq!(rec.hashes().collect::<Vec<_>>(), run_hashes, "{file}");
        assert_eq!(rec.final_hash, run.final_hash, "{file}");
    }
}

#[test]
fn invalid_events_are_rejected_with_a_reason() {
    let base = "time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [1, 0]\n";
    let cases = [
        (
            "[[event]]\ntick = 5\nremove_agent = 1\n",
            "agent 1 does not exist",
        ),
        (
            "[[event]]\ntick = 5\nremove_agent = 0\n[[event]]\ntick = 6\nset_goal = { id = 0, goal = [1, 1] }\n",
            "agent 0 does not exist",
        ),
        (
            "[[event]]\ntick = 5\nremove_agent = 0\n[[event]]\ntick = 4\nremove_agent = 0\n",
            "ticks must not decrease",
        ),
        ("[[event]]\ntick = 5\n", "exactly one of"),
        (
            "[[event]]\ntick = 5\nremove_agent = 0\nset_goal = { id = 0, goal = [1, 1] }\n",
            "exactly one of",
        ),
        (
            "[[event]]\ntick = 5\nset_params = { id = 3, radius = 1 }\n",
            "agent 3 does not exist",
        ),
        (
            "[[event]]\ntick = 5\nadd_agent = { start = [0, 0], goal = [1, 0], radius = -1 }\n",
            "event #0",
        ),
        (
            "[[event]]\ntick = 5\nset_position = { id = 0, position = [2000000, 0] }\n",
            "event #0",
        ),
        ("[[event]]\ntick = 5\nteleport = 0\n", "unknown field"),
    ];
    for (events, want) in cases {
        let err = parse_err(&format!("{base}{events}"));
        assert!(err.contains(want), "{events}: {err}");
    }
    // An agent added by an earlier event can be targeted, by its id (1 here).
    let ok = format!(
        "{base}[[event]]\ntick = 5\nadd_agent = {{ start = [5, 5], goal = [0, 5] }}\n[[event]]\ntick = 9\nremove_agent = 1\n"
    );
    assert_eq!(parse(&ok).unwrap().events.len(), 2);
}

// ------------------------------------------------------------------ obstacle scenes as files

/// The door counterflow scene steered by its roadmap policy (one vertex on each side of the
/// door; `tests/conformance`'s wall tests steer the same file with a hand-written door rule)
/// gets every agent through the door.
#[test]
fn door_counterflow_fixture_is_steered_through_the_door_by_a_roadmap() {
    let s = Scenario::load(fixture("door_counterflow.toml")).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    let map = driver.roadmap().unwrap();
    assert_eq!(
        map.vertices().len(),
        22,
        "20 distinct goals + 2 door vertices"
    );
    let r = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert!(r.all_reached, "stuck after {} ticks", r.ticks);
    for (i, &id) in driver.agent_ids().iter().enumerate() {
        let (p, g) = (sim.agent_position(id).unwrap(), driver.goals()[i]);
        assert_eq!(p.x > Fx::ZERO, g.x > Fx::ZERO, "agent {} crossed", id.0);
    }
}

// ------------------------------------------------------------------ policies

#[test]
fn slow_within_shapes_the_goal_seeking_rule() {
    let scene = |policy: &str| {
        let text = format!(
            "time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [10, 0]\n[policy]\nkind = \"goal_seeking\"\n{policy}\n"
        );
        parse(&text).unwrap().build().unwrap().1
    };
    let far = Vec2::from_int(3, 4); // length 5
    let near = Vec2::new(Fx::lit("0.3"), Fx::lit("0.4")); // length 0.5
    // RVO2's rule (slow_within = pref_speed = 2): the remaining vector when closer than 2.
    let d = scene("pref_speed = 2");
    assert_eq!(d.policy_velocity(Vec2::ZERO, near), near);
    assert_eq!(
        d.policy_velocity(Vec2::ZERO, far),
        far.normalize_or_zero() * Fx::from_num(2)
    );
    // towards(goal) * 2: linear slow-down within 1, i.e. twice the remaining vector.
    let d = scene("pref_speed = 2\nslow_within = 1");
    assert_eq!(d.policy_velocity(Vec2::ZERO, near), near * Fx::from_num(2));
    // Full speed to the goal.
    let d = scene("pref_speed = 2\nslow_within = 0");
    assert_eq!(
        d.policy_velocity(Vec2::ZERO, near),
        near.normalize_or_zero() * Fx::from_num(2)
    );
    assert_eq!(d.policy_velocity(near, near), Vec2::ZERO);
    let err = parse_err(
        "time_step = 0.25\n[policy]\nkind = \"goal_seeking\"\nslow_within = \"0.0001\"\n",
    );
    assert!(
        err.contains("slow_within must be 0 or at least 0.001"),
        "{err}"
    );
}

/// A wall between the agent and its goal: the roadmap goes around its end, distances are the
/// integer shortest paths, and an agent boxed in with nothing visible stands still.
#[test]
fn roadmap_policy_goes_around_walls_and_stands_still_when_blind() {
    let text = r#"
time_step = 0.25
agents = [
  { start = [-10, 0], goal = [10, 0] },
  { start = [100, 100], goal = [10, 0] },
]
[defaults]
radius = 1
[policy]
kind = "roadmap"
roadmap = [[0, 15], [0, -40]]
[[obstacle]]
polyline = [[0, -10], [0, 10]]
[[obstacle]]
polygon = [[98, 98], [98, 102], [102, 102], [102, 98]]
"#;
    // The second agent sits inside a clockwise box (a room) that hides every vertex.
    let (mut sim, driver) = parse(text).unwrap().build().unwrap();
    let map = driver.roadmap().unwrap();
    assert_eq!(
        map.vertices(),
        &[
            Vec2::from_int(10, 0),
            Vec2::from_int(0, 15),
            Vec2::from_int(0, -40)
        ]
    );
    let g = map.goal_vertex(Vec2::from_int(10, 0)).unwrap();
    assert_eq!(g, 0);
    // (0, 15) -> (10, 0): length floor(sqrt(325)) in Q32.32.
    let d = map.distance(1, g).unwrap();
    assert_eq!(d, Vec2::from_int(10, -15).length());
    assert!(map.distance(2, g).is_some());
    driver.set_pref_velocities(&mut sim, 0).unwrap();
    let ids = driver.agent_ids();
    // Around the wall via (0, 15): |(10, 15)| + d = 18.03 + 18.03 < 41.2 + 41.2 via (0, -40).
    let expected = (Vec2::from_int(0, 15) - Vec2::from_int(-10, 0)).normalize_or_zero();
    assert_eq!(sim.agent_pref_velocity(ids[0]).unwrap(), expected);
    assert_eq!(sim.agent_pref_velocity(ids[1]).unwrap(), Vec2::ZERO);
    let err = parse_err("time_step = 0.25\n[policy]\nkind = \"roadmap\"\n");
    assert!(err.contains("roadmap"), "{err}");
}

// ------------------------------------------------------------------ obstacle neighbour mode

#[test]
fn obstacle_neighbors_key_selects_the_mode() {
    use lockstep_orca::obstacle::ObstacleNeighbors;
    let body = "time_step = 0.25\n[[obstacle]]\npolygon = [[1, 1], [2, 1], [2, 2]]\n";
    let default = parse(body).unwrap();
    assert_eq!(default.obstacle_neighbors, ObstacleNeighbors::WholeEdges);
    for (name, mode) in [
        ("whole_edges", ObstacleNeighbors::WholeEdges),
        ("rvo2_fragments", ObstacleNeighbors::Rvo2Fragments),
    ] {
        let s = parse(&format!("obstacle_neighbors = \"{name}\"\n{body}")).unwrap();
        assert_eq!(s.obstacle_neighbors, mode);
        let (sim, _) = s.build().unwrap();
        assert_eq!(sim.obstacles().neighbor_mode(), mode);
        assert!(sim.obstacles().is_built());
    }
    let err = parse(&format!("obstacle_neighbors = \"fragments\"\n{body}")).unwrap_err();
    assert!(
        matches!(&err, ScenarioError::Parse(m) if m.contains("rvo2_fragments")),
        "{err:?}"
    );
}

#[test]
fn liveness_and_priority_keys() {
    let text = "time_step = 0.25\nliveness = \"rvo2\"\n[defaults]\npriority = 7\n\
                [[agent]]\nstart = [0, 0]\ngoal = [5, 0]\npriority = 200\n\
                [[agent]]\nstart = [9, 0]\ngoal = [1, 0]\n";
    let s = Scenario::from_toml_str(text).unwrap();
    assert_eq!(s.liveness, lockstep_orca::Liveness::Rvo2);
    assert_eq!(s.defaults.priority, 7);
    let (sim, _) = s.build().unwrap();
    assert_eq!(sim.liveness(), lockstep_orca::Liveness::Rvo2);
    let ids = sim.agent_ids().to_vec();
    assert_eq!(sim.agent_params(ids[0]).unwrap().priority, 200);
    assert_eq!(sim.agent_params(ids[1]).unwrap().priority, 7);
    // The default is the resolution; a bad mode or priority is an error naming it.
    let plain = Scenario::from_toml_str("time_step = 0.25\n").unwrap();
    assert_eq!(plain.liveness, lockstep_orca::Liveness::Resolve);
    let bad = Scenario::from_toml_str("time_step = 0.25\nliveness = \"fast\"\n").unwrap_err();
    assert!(bad.to_string().contains("liveness"), "{bad}");
    let bad =
        Scenario::from_toml_str("time_step = 0.25\n[defaults]\npriority = 300\n").unwrap_err();
    assert!(bad.to_string().contains("priority"), "{bad}");
}

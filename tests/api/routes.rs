//! The route policy: per-agent waypoint lists in the scenario format, their validation, and the
//! waypoint rule of the orders they become (within the tolerance, or past the waypoint).

use lockstep_orca::scenario::{MAX_ROUTE_WAYPOINTS, RunOptions, Scenario, ScenarioError};
use lockstep_orca::{AgentId, Fx, Simulator, Vec2};

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_toml_str(text)
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

#[test]
fn routes_parse_on_agents_generators_and_added_agents() {
    let s = parse(
        r#"
time_step = 0.25
[policy]
kind = "goal_seeking"
waypoint_tolerance = 0.25
[[agent]]
start = [0, 0]
route = [[5, 0], [5, 5]]
goal = [0, 5]
[[agent]]
start = [1, 1]
route = [[2, 2], [3, 3]]       # no goal: the last point is the goal
[[agent]]
start = [9, 9]
goal = [8, 8]                  # no route
[[grid]]
count = 2
spacing = 2
jitter = 0
center = [20, 0]
route = [[20, 10]]             # every generated agent passes here, then its own goal
[[event]]
tick = 3
add_agent = { start = [0, -5], route = [[1, -5], [1, -6]] }
"#,
    )
    .unwrap();
    assert_eq!(s.waypoint_tolerance, Some(Fx::lit("0.25")));
    assert_eq!(s.agents[0].goal, v(0, 5));
    assert_eq!(s.agents[1].goal, v(3, 3));
    assert_eq!(s.agents[2].goal, v(8, 8));
    let routes: Vec<(u32, Vec<Vec2>)> = s.routes.iter().map(|(id, r)| (id.0, r.clone())).collect();
    assert_eq!(
        routes,
        vec![
            (0, vec![v(5, 0), v(5, 5)]),
            (1, vec![v(2, 2)]),
            (3, vec![v(20, 10)]),
            (4, vec![v(20, 10)]),
            (5, vec![v(1, -5)]),
        ]
    );
    let (sim, driver) = s.build().unwrap();
    assert_eq!(driver.route(5), &[v(1, -5)]);
    assert_eq!(driver.route(2), &[] as &[Vec2]);
    // The routes are the scene agents' orders: route, then goal; at the start of the path.
    let order = sim.agent_order(AgentId(0)).unwrap().unwrap();
    assert_eq!(order.path(), &[v(5, 0), v(5, 5), v(0, 5)]);
    assert_eq!((order.progress(), order.start()), (0, v(0, 0)));
    assert_eq!(
        sim.agent_order(AgentId(2)).unwrap().unwrap().path(),
        &[v(8, 8)]
    );
    assert_eq!(sim.orders().len(), 5); // agent 5 is added by the event, with its orders
    // Without any route the scenario carries none, and each agent's order is its goal alone.
    let plain = parse("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [1, 0]\n").unwrap();
    assert!(plain.routes.is_empty() && plain.waypoint_tolerance.is_none());
    let (sim, _) = plain.build().unwrap();
    assert_eq!(
        sim.agent_order(AgentId(0)).unwrap().unwrap().path(),
        &[v(1, 0)]
    );
}

#[test]
fn invalid_routes_are_rejected_with_a_reason() {
    let agent = |route: &str| {
        format!("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [1, 0]\nroute = {route}\n")
    };
    assert_eq!(
        err("time_step = 0.25\n[[agent]]\nstart = [0, 0]\n"),
        "agent 0: give a `goal` (or a non-empty `route`, whose last point is then the goal)"
    );
    assert_eq!(
        err("time_step = 0.25\n[[agent]]\nstart = [0, 0]\nroute = []\n"),
        "agent 0: give a `goal` (or a non-empty `route`, whose last point is then the goal)"
    );
    let long: Vec<String> = (0..=MAX_ROUTE_WAYPOINTS)
        .map(|i| format!("[{i}, 0]"))
        .collect();
    assert_eq!(
        err(&agent(&format!("[{}]", long.join(", ")))),
        "agent 0: a route holds at most 1024 waypoints before the goal (1025 points given)"
    );
    assert!(err(&agent("[[0, 0], [2000000, 0]]")).starts_with("agent 0: route point #1: "));
    assert!(err(&agent("[[0]]")).starts_with("invalid scenario file"));
    // A generator's route is bounded in all: 5,000 agents × 1,000 waypoints > 2²².
    let wp: Vec<String> = (0..1000).map(|i| format!("[{i}, 0]")).collect();
    let big = format!(
        "time_step = 0.25\n[[grid]]\ncount = 5000\nroute = [{}]\n",
        wp.join(", ")
    );
    assert_eq!(
        err(&big),
        "grid #0: the routes of a scenario hold at most 4194304 waypoints in all"
    );
    // Roadmap and routes do not mix; the tolerance belongs to goal seeking.
    let roadmap = "[policy]\nkind = \"roadmap\"\nroadmap = [[0, 5]]\n";
    assert_eq!(
        err(&format!("{}{roadmap}", agent("[[0, 3]]"))),
        "agent 0: a route needs the goal_seeking policy (the roadmap policy plans its own path)"
    );
    assert!(
        err(&format!(
            "time_step = 0.25\n{roadmap}waypoint_tolerance = 1\n"
        ))
        .contains("waypoint_tolerance")
    );
    assert!(
        err("time_step = 0.25\n[policy]\nkind = \"goal_seeking\"\nwaypoint_tolerance = -1\n")
            .starts_with("policy: ")
    );
    // In code: a route for an agent that does not exist.
    let mut s = parse("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [1, 0]\n").unwrap();
    s.routes.insert(AgentId(1), vec![v(1, 1)]);
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "agent 1: has a route but the scene has only 1 agents"
    );
}

/// One agent from (0, 0) through (10, 0) to the goal (10, 10), tolerance 0.5.
fn corner() -> (Simulator, lockstep_orca::scenario::Driver) {
    parse(
        "time_step = 0.25\n[policy]\nkind = \"goal_seeking\"\nwaypoint_tolerance = 0.5\n\
         [[agent]]\nstart = [0, 0]\nroute = [[10, 0]]\ngoal = [10, 10]\n",
    )
    .unwrap()
    .build()
    .unwrap()
}

/// The progress of agent 0's order after one step taken from `position` (the step decides the
/// progress from the position it starts at).
fn progress_from(sim: &mut Simulator, position: Vec2) -> usize {
    sim.set_agent_position(AgentId(0), position).unwrap();
    sim.step().unwrap();
    sim.agent_order(AgentId(0)).unwrap().unwrap().progress()
}

#[test]
fn a_waypoint_is_done_within_the_tolerance_or_once_past_it() {
    let progress = |p: Vec2| progress_from(&mut corner().0, p);
    // Far before it, and off to the side but not beyond the perpendicular through it.
    assert_eq!(progress(v(5, 0)), 0);
    assert_eq!(progress(v(10, 7)), 0); // (p - w)·(w - start) = 0: not past
    // One ulp beyond the perpendicular: past, although 7 away.
    assert_eq!(
        progress(Vec2::new(Fx::from_num(10) + Fx::DELTA, Fx::from_num(7))),
        1
    );
    // Within the tolerance, exactly on its edge (|p - w| = 0.5), before the perpendicular.
    assert_eq!(progress(Vec2::new(Fx::lit("9.5"), Fx::ZERO)), 1);
    assert_eq!(progress(Vec2::new(Fx::lit("9.5") - Fx::DELTA, Fx::ZERO)), 0);

    // The progress never goes back, and the goal is never skipped.
    let (mut sim, _) = corner();
    assert_eq!(progress_from(&mut sim, v(11, 1)), 1);
    assert_eq!(progress_from(&mut sim, v(0, 0)), 1);
    assert_eq!(progress_from(&mut sim, v(50, 50)), 1);
    let order = sim.agent_order(AgentId(0)).unwrap().unwrap();
    assert_eq!(order.target(), order.goal());

    // Toward a waypoint the preferred velocity is at full speed (no slow-down near it).
    let (mut sim, _) = corner();
    assert_eq!(
        progress_from(&mut sim, Vec2::new(Fx::lit("9.4"), Fx::ZERO)),
        0
    );
    assert_eq!(sim.agent_pref_velocity(AgentId(0)).unwrap(), v(1, 0));
}

#[test]
fn several_waypoints_can_be_passed_in_one_tick_and_progress_is_state() {
    let s = parse(
        "time_step = 0.25\ngoal_tolerance = 0.25\n[[agent]]\nstart = [0, 0]\n\
         route = [[1, 0], [2, 0], [3, 0]]\n\
         goal = [3, 5]\n",
    )
    .unwrap();
    let (mut sim, _) = s.build().unwrap();
    let before = sim.state_hash();
    // At (2.5, 0): past (1, 0) and (2, 0), before (3, 0).
    assert_eq!(
        progress_from(&mut sim, Vec2::new(Fx::lit("2.5"), Fx::ZERO)),
        2
    );
    assert_ne!(sim.state_hash(), before);
    // The progress is in the snapshot, and in the hash.
    let restored = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(
        restored
            .agent_order(AgentId(0))
            .unwrap()
            .unwrap()
            .progress(),
        2
    );
    assert_eq!(restored.state_hash(), sim.state_hash());
}

const ZIGZAG: &str = r#"
name = "zigzag"
time_step = 0.25
max_ticks = 400
goal_tolerance = 0.25
[defaults]
radius = 0.5
max_speed = 2
[policy]
kind = "goal_seeking"
waypoint_tolerance = 0.5
[[agent]]
start = [0, 0]
route = [[10, 0], [0, 4], [10, 8]]
goal = [0, 12]
[[agent]]                      # a second agent on the mirrored zig-zag, far away
start = [0, -100]
route = [[-10, -100], [0, -104], [-10, -108]]
goal = [0, -112]
"#;

#[test]
fn a_run_follows_a_zigzag_route_in_order() {
    let s = parse(ZIGZAG).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    let route = driver.route(0).to_vec();
    let mut visited = Vec::new(); // the tick at which the progress moved on, per waypoint
    let mut last = 0;
    let mut nearest = [i128::MAX; 3];
    for _ in 0..400 {
        if driver.all_reached(&sim) {
            break;
        }
        let tick = sim.tick();
        driver.set_pref_velocities(&mut sim, tick).unwrap();
        sim.step().unwrap();
        let k = sim.agent_order(AgentId(0)).unwrap().unwrap().progress();
        if k != last {
            visited.push((k, tick));
            last = k;
        }
        let p = sim.agent_position(AgentId(0)).unwrap();
        for (n, &w) in nearest.iter_mut().zip(&route) {
            *n = (*n).min((p - w).length_squared_wide());
        }
    }
    assert!(driver.all_reached(&sim), "the zig-zag was not completed");
    for id in [0, 1] {
        assert_eq!(sim.agent_order(AgentId(id)).unwrap().unwrap().progress(), 3);
    }
    let ks: Vec<usize> = visited.iter().map(|&(k, _)| k).collect();
    assert_eq!(
        ks,
        vec![1, 2, 3],
        "waypoints are done one after the other: {visited:?}"
    );
    // Each waypoint was really visited: the agent came within one step (0.5) of it plus the
    // tolerance.
    for (k, n) in nearest.iter().enumerate() {
        assert!(
            *n <= Vec2::from_int(1, 0).length_squared_wide(),
            "waypoint {k}: {n}"
        );
    }
    // The same scene through lockstep commands and through the runner gives the same bits.
    let (mut direct, driver) = s.build().unwrap();
    let options = RunOptions {
        hash_every: 1,
        ..RunOptions::default()
    };
    let run = driver.run(&mut direct, &options).unwrap();
    assert!(run.all_reached);
    let (mut queued, driver) = s.build().unwrap();
    let rec = lockstep_orca::replay::record_until(
        &mut queued,
        400,
        lockstep_orca::replay::RecordOptions::default(),
        |sim| driver.tick_commands(sim, sim.tick()),
        |sim| driver.all_reached(sim),
    )
    .unwrap();
    let run_hashes: Vec<u64> = run.hashes[1..].iter().map(|&(_, h)| h).collect();
    assert_eq!(rec.hashes().collect::<Vec<_>>(), run_hashes);
    assert_eq!(rec.final_hash, run.final_hash);
}

#[test]
fn a_run_continued_from_a_snapshot_needs_nothing_but_the_snapshot() {
    let s = parse(ZIGZAG).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    let ticks = |n| RunOptions {
        max_ticks: Some(n),
        stop_when_reached: false,
        hash_every: 0,
        track_clearance: false,
    };
    driver.run(&mut sim, &ticks(40)).unwrap();
    let snapshot = sim.snapshot();
    let progress: Vec<usize> = sim.orders().map(|(_, o)| o.progress()).collect();
    assert_eq!(progress, vec![1, 1]);
    let straight = driver.run(&mut sim, &ticks(60)).unwrap().final_hash;
    // A fresh driver on the restored snapshot continues bit for bit: the route progress is
    // simulation state, not the driver's.
    let (_, fresh) = s.build().unwrap();
    let mut restored = Simulator::restore(&snapshot).unwrap();
    assert_eq!(
        fresh.run(&mut restored, &ticks(60)).unwrap().final_hash,
        straight
    );
}

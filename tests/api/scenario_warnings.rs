//! The validation report ([`Scenario::warnings`]): one small scene per warning, the threshold
//! edges, and what the shipped scenes report.

use lockstep_orca::scenario::{
    ABSURD_MAX_TICKS, GoalPoint, MAX_LISTED_PER_KIND, ObstacleKind, RunOptions, Scenario,
    ScenarioWarning,
};
use lockstep_orca::{AgentId, Fx};

fn warnings(text: &str) -> Vec<ScenarioWarning> {
    Scenario::from_toml_str(text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .warnings()
}

fn messages(text: &str) -> Vec<String> {
    warnings(text).iter().map(ToString::to_string).collect()
}

const TWO: &str =
    "[[agent]]\nstart = [0, 0]\ngoal = [10, 0]\n[[agent]]\nstart = [0, 5]\ngoal = [10, 5]\n";

#[test]
fn a_plain_scene_has_no_warning() {
    assert_eq!(
        messages(&format!("time_step = 0.25\n{TWO}")),
        Vec::<String>::new()
    );
}

#[test]
fn absurd_or_unbounded_max_ticks() {
    let at = |t: u64| messages(&format!("time_step = 0.25\nmax_ticks = {t}\n{TWO}"));
    assert_eq!(
        at(ABSURD_MAX_TICKS),
        Vec::<String>::new(),
        "the threshold itself is fine"
    );
    assert_eq!(
        at(ABSURD_MAX_TICKS + 1),
        [
            "max_ticks = 1000001 is above 1000000: a run that does not finish steps every one of them"
        ]
    );
    assert_eq!(
        at(u64::MAX),
        [
            "max_ticks = 18446744073709551615 is unbounded: a run that never reaches every goal never stops"
        ]
    );
    assert_eq!(at(0), ["max_ticks = 0: a run steps no tick"]);
}

#[test]
fn events_beyond_max_ticks() {
    // The issue's case: an event at tick 1e9 never fires, and the run then reports "not
    // reached" with both agents on their goals.
    let text = "time_step = 0.25\nmax_ticks = 100\n[[agent]]\nstart = [0, 0]\ngoal = [0, 0]\n\
                [[agent]]\nstart = [5, 0]\ngoal = [5, 0]\n\
                [[event]]\ntick = 99\nset_velocity = { id = 0, velocity = [0, 0] }\n\
                [[event]]\ntick = 100\nset_velocity = { id = 0, velocity = [0, 0] }\n\
                [[event]]\ntick = 1000000000\nremove_agent = 1\n";
    assert_eq!(
        warnings(text),
        [ScenarioWarning::EventsBeyondMaxTicks {
            count: 2,
            first_event: 1,
            first_tick: 100,
            max_ticks: 100
        }]
    );
    assert_eq!(
        messages(text),
        [
            "event #1 (tick 100) and 1 more at or after max_ticks = 100: never applied, and the run \
          never reports every goal reached"
        ]
    );
    let (mut sim, driver) = Scenario::from_toml_str(text).unwrap().build().unwrap();
    let report = driver.run(&mut sim, &RunOptions::default()).unwrap();
    assert_eq!((report.ticks, report.all_reached), (100, false));
    assert_eq!(driver.num_reached(&sim), 2, "both stand on their goals");
}

const SQUARE_CCW: &str = "[[obstacle]]\npolygon = [[-2, -2], [2, -2], [2, 2], [-2, 2]]\n";
const SQUARE_CW: &str = "[[obstacle]]\npolygon = [[-2, -2], [-2, 2], [2, 2], [2, -2]]\n";

fn one_agent(start: &str, goal: &str, extra: &str) -> String {
    format!(
        "time_step = 0.25\n[defaults]\nradius = 0.5\n[[agent]]\nstart = {start}\ngoal = {goal}\n{extra}"
    )
}

#[test]
fn agents_starting_inside_or_across_an_obstacle() {
    // The case: an agent inside a solid block walks out without a word.
    assert_eq!(
        messages(&one_agent("[0, 0]", "[10, 0]", SQUARE_CCW)),
        ["agent 0 starts inside obstacle #0"]
    );
    // On the edge counts too.
    assert_eq!(
        warnings(&one_agent("[2, 1]", "[10, 0]", SQUARE_CCW)),
        [ScenarioWarning::StartInsideObstacle {
            agent: AgentId(0),
            obstacle: 0,
            on_edge: true
        }]
    );
    // Centre outside, disc across the edge (0.25 from it, radius 0.5); touching exactly is fine.
    assert_eq!(
        messages(&one_agent("[2.25, 0]", "[10, 0]", SQUARE_CCW)),
        ["agent 0 starts with its disc across an edge of obstacle #0"]
    );
    assert_eq!(
        messages(&one_agent("[2.5, 0]", "[10, 0]", SQUARE_CCW)),
        Vec::<String>::new()
    );
    // A polyline wall has no inside, but a disc can cross it.
    let wall = "[[obstacle]]\npolyline = [[-5, 0.25], [5, 0.25]]\n";
    assert_eq!(
        warnings(&one_agent("[0, 0]", "[0, -10]", wall)),
        [ScenarioWarning::StartTouchesObstacle {
            agent: AgentId(0),
            obstacle: 0
        }]
    );
    // Inside a room is where an agent belongs (the room itself is reported).
    assert_eq!(
        warnings(&one_agent("[0, 0]", "[1, 0]", SQUARE_CW)),
        [ScenarioWarning::Room { obstacle: 0 }]
    );
    // Agents added by events are checked too (agent 1 here).
    let added = format!(
        "{}[[event]]\ntick = 5\nadd_agent = {{ start = [1, 1], goal = [9, 9] }}\n",
        one_agent("[10, 10]", "[11, 10]", SQUARE_CCW)
    );
    assert_eq!(messages(&added), ["agent 1 starts inside obstacle #0"]);
}

#[test]
fn overlapping_agents_are_counted_with_the_deepest_pair() {
    let text = "time_step = 0.25\n\
                agents = [{ start = [0, 0], goal = [0, 9] }, { start = [0.5, 0], goal = [1, 9] },\n\
                { start = [1.25, 0], goal = [2, 9] }, { start = [2.25, 0], goal = [3, 9] }]\n\
                [defaults]\nradius = 0.5\n\
                [[event]]\ntick = 1\nadd_agent = { start = [0, 0], goal = [5, 5] }\n";
    // The agent added at tick 1 on agent 0's start is not there at tick 0: not counted.
    // Pairs (0, 1) by 0.5, (1, 2) by 0.25; (2, 3) exactly touch: not an overlap.
    assert_eq!(
        warnings(text),
        [ScenarioWarning::StartsOverlap {
            pairs: 2,
            deepest: (AgentId(0), AgentId(1)),
            depth: Fx::lit("0.5")
        }]
    );
    assert_eq!(
        messages(text),
        ["2 pairs of agents overlap at the start (deepest: agents 0 and 1, by 0.5)"]
    );
}

#[test]
fn goals_and_waypoints_inside_obstacles() {
    assert_eq!(
        messages(&one_agent("[-10, 0]", "[1, 1]", SQUARE_CCW)),
        ["agent 0: goal is inside obstacle #0"]
    );
    let routed = format!(
        "time_step = 0.25\n[[agent]]\nstart = [-10, 0]\nroute = [[-5, 5], [0, 0], [5, 5]]\n\
         goal = [10, 0]\n{SQUARE_CCW}[[event]]\ntick = 3\nset_goal = {{ id = 0, goal = [0, 1] }}\n"
    );
    assert_eq!(
        warnings(&routed),
        [
            ScenarioWarning::GoalInsideObstacle {
                agent: AgentId(0),
                point: GoalPoint::Waypoint(1),
                obstacle: 0,
                on_edge: false
            },
            ScenarioWarning::GoalInsideObstacle {
                agent: AgentId(0),
                point: GoalPoint::SetGoal(0),
                obstacle: 0,
                on_edge: false
            },
        ]
    );
    assert_eq!(
        messages(&routed),
        [
            "agent 0: waypoint #1 is inside obstacle #0",
            "agent 0: goal of event #0 is inside obstacle #0"
        ]
    );
    // A goal on a wall.
    let wall = "[[obstacle]]\npolyline = [[0, -5], [0, 5]]\n";
    assert_eq!(
        messages(&one_agent("[-10, 0]", "[0, 2]", wall)),
        ["agent 0: goal is on an edge of obstacle #0"]
    );
}

#[test]
fn rooms_are_reported_and_solids_are_not() {
    let both = format!(
        "time_step = 0.25\n{SQUARE_CW}[[obstacle]]\npolygon = [[10, 10], [12, 10], [11, 12]]\n"
    );
    assert_eq!(
        Scenario::from_toml_str(&format!(
            "{both}[[obstacle]]\npolyline = [[20, 0], [30, 0]]\n"
        ))
        .unwrap()
        .obstacle_kinds(),
        [ObstacleKind::Room, ObstacleKind::Solid, ObstacleKind::Wall]
    );
    assert_eq!(ObstacleKind::Room.to_string(), "room (clockwise polygon)");
    assert_eq!(
        messages(&both),
        [
            "obstacle #0 is a room: clockwise, it keeps agents inside (a solid block is counter-clockwise)"
        ]
    );
}

#[test]
fn long_lists_are_capped() {
    let agents: Vec<String> = (0..MAX_LISTED_PER_KIND + 4)
        .map(|i| format!("{{ start = [0, \"{}\"], goal = [10, 0] }}", i as f64 * 0.1))
        .collect();
    let text = format!(
        "time_step = 0.25\nagents = [{}]\n[defaults]\nradius = 0.01\n{SQUARE_CCW}",
        agents.join(", ")
    );
    let w = warnings(&text);
    assert_eq!(w.len(), MAX_LISTED_PER_KIND + 1);
    assert_eq!(
        w.last(),
        Some(&ScenarioWarning::Omitted {
            kind: "StartInsideObstacle",
            count: 4
        })
    );
    assert_eq!(
        w.last().unwrap().to_string(),
        "... and 4 more warnings of the kind StartInsideObstacle"
    );
}

#[test]
fn an_invalid_scenario_has_an_empty_report() {
    let mut s =
        Scenario::from_toml_str(&format!("time_step = 0.25\nmax_ticks = 0\n{TWO}")).unwrap();
    assert_eq!(s.warnings().len(), 1);
    s.time_step = Fx::ZERO;
    assert!(s.validate().is_err());
    assert_eq!(s.warnings(), []);
}

#[test]
fn shipped_scenes_report() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios");
    let mut lines = Vec::new();
    for path in lockstep_orca::golden::scenario_files(std::path::Path::new(dir)).unwrap() {
        let name = lockstep_orca::golden::golden_name(&path);
        for w in Scenario::load(&path).unwrap().warnings() {
            lines.push(format!("{name}: {w}"));
        }
    }
    let room = "obstacle #0 is a room: clockwise, it keeps agents inside (a solid block is \
                counter-clockwise)";
    let mut expected = vec![format!("corner_crush: {room}")];
    // Corner crush pushes 64 agents into a corner none can reach, on purpose.
    for i in 0..MAX_LISTED_PER_KIND {
        expected.push(format!(
            "corner_crush: agent {i}: goal is on an edge of obstacle #0"
        ));
    }
    expected.push(format!(
        "corner_crush: ... and {} more warnings of the kind GoalInsideObstacle",
        64 - MAX_LISTED_PER_KIND
    ));
    // The crowd starts overlapping (radius 1.5 on a jittered grid of spacing 3).
    expected.push(
        "crowd1000: 949 pairs of agents overlap at the start (deepest: agents 794 and 795, by \
         0.4839057224)"
            .into(),
    );
    expected.push(format!("door_counterflow: {room}"));
    assert_eq!(lines, expected);
}

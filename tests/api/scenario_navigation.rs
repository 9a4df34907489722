//! Navigation in scenarios (issue 25): the `[navigation]` table and `navigate = true` in the
//! file format, their validation and warnings, the settings a scene hands the simulator, and
//! the navigation scenes of `fixtures/navigation/` (`scenes` below: each runs with zero random
//! input and is checked for arrival, settling, wall crossings and obstacle clearance).

use lockstep_orca::navigation::NavParams;
use lockstep_orca::scenario::{GoalPoint, Scenario, ScenarioError, ScenarioWarning};
use lockstep_orca::{AgentId, Fx, Vec2};

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_toml_str(text)
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

const WALL: &str = "[[obstacle]]\npolygon = [[-1, -5], [1, -5], [1, 5], [-1, 5]]\n";

#[test]
fn the_navigation_table_and_navigate_parse() {
    let s = parse(
        r#"
time_step = 0.25
[navigation]
boundary = [[-20, -20], [20, -20], [20, 20], [-20, 20]]
margin = 2
budget = 500
search_cap = 4000
[[agent]]
start = [-10, 0]
goal = [10, 0]
navigate = true
[[agent]]
start = [-10, 3]
goal = [10, 3]
[[ring]]
count = 2
radius = 5
center = [0, 12]
navigate = true
[[grid]]
count = 2
jitter = 0
center = [0, -12]
navigate = false
[[event]]
tick = 4
add_agent = { start = [-9, -3], goal = [9, -3], navigate = true }
"#,
    )
    .unwrap();
    let nav = s.navigation.as_ref().unwrap();
    assert_eq!(
        nav.boundary.as_deref(),
        Some(&[v(-20, -20), v(20, -20), v(20, 20), v(-20, 20)][..])
    );
    assert_eq!(
        (nav.margin, nav.budget, nav.search_cap),
        (Fx::from_num(2), 500, 4000)
    );
    let ids: Vec<u32> = s.navigate.iter().map(|id| id.0).collect();
    assert_eq!(ids, [0, 2, 3, 6], "agent 0, the ring's two, the added agent");
    // An explicit boundary is handed over as it is.
    assert_eq!(s.nav_params().as_ref(), Some(nav));
    s.build().unwrap();
}

#[test]
fn navigate_without_a_table_gets_the_defaults_and_no_navigate_no_navigation() {
    let plain = parse("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [4, 0]\n").unwrap();
    assert_eq!(plain.navigation, None);
    assert_eq!(plain.nav_params(), None);
    let s = parse(&format!(
        "time_step = 0.25\n[[agent]]\nstart = [-6, 1]\ngoal = [7, -2]\nnavigate = true\n{WALL}"
    ))
    .unwrap();
    assert_eq!(s.navigation, Some(NavParams::default()));
    // The default boundary: the scene's box (obstacle, start, goal), grown by the margin 8,
    // counter-clockwise from the lower-left corner.
    let p = s.nav_params().unwrap();
    assert_eq!(
        p.boundary,
        Some(vec![v(-14, -13), v(15, -13), v(15, 13), v(-14, 13)])
    );
    assert_eq!(
        (p.margin, p.budget, p.search_cap),
        (Fx::from_num(8), 20_000, 50_000)
    );
}

#[test]
fn the_default_boundary_covers_what_events_add_and_stays_in_the_domain() {
    let s = parse(
        r#"
time_step = 0.25
[navigation]
margin = 5
[[agent]]
start = [0, 0]
goal = [1, 0]
navigate = true
[[event]]
tick = 1
add_obstacle = { polygon = [[30, 30], [31, 30], [31, 31]] }
[[event]]
tick = 2
set_goal = { id = 0, goal = [-40, 2] }
[[event]]
tick = 3
add_agent = { start = [0, -50], goal = [0, 1] }
"#,
    )
    .unwrap();
    let b = s.nav_params().unwrap().boundary.unwrap();
    assert_eq!(b, vec![v(-45, -55), v(36, -55), v(36, 36), v(-45, 36)]);
    let edge = parse(
        "time_step = 0.25\n[navigation]\nmargin = 10000\n[[agent]]\nstart = [999999, 0]\n\
         goal = [999999, 0]\nnavigate = true\n",
    )
    .unwrap();
    let b = edge.nav_params().unwrap().boundary.unwrap();
    assert_eq!(b[0], v(989_999, -10_000));
    // x clamped to the domain; the flat box (one point) widened by one unit first.
    assert_eq!(b[2], v(1_000_000, 10_001));
}

#[test]
fn bad_navigation_settings_are_named() {
    let base = "time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [4, 0]\nnavigate = true\n";
    let with = |table: &str| err(&format!("{base}[navigation]\n{table}\n"));
    assert_eq!(
        with("boundary = [[0, 0], [4, 4], [4, 0], [0, 4]]"),
        "navigation boundary: invalid obstacle: self-intersection"
    );
    assert!(
        with("boundary = [[0, 0], [4, 0]]").starts_with("navigation boundary: "),
        "{}",
        with("boundary = [[0, 0], [4, 0]]")
    );
    assert!(with("margin = -1").starts_with("navigation: margin"));
    assert!(with("margin = 10001").starts_with("navigation: margin"));
    assert_eq!(
        with("budget = 0"),
        "navigation: budget must be at least 1 (node expansions per tick)"
    );
    assert_eq!(
        with("search_cap = 0"),
        "navigation: search_cap must be at least 1 (node expansions per search)"
    );
    assert!(with("budgett = 3").contains("unknown field `budgett`"));
    assert!(with("boundary = [[0, 0], [4, 0], [4, 2000000]]").starts_with("navigation boundary"));
}

#[test]
fn navigate_conflicts_are_errors() {
    assert_eq!(
        err(
            "time_step = 0.25\n[[agent]]\nstart = [0, 0]\nroute = [[2, 2], [4, 0]]\n\
             navigate = true\n"
        ),
        "agent 0: `navigate = true` plans the path itself: give no `route` (or drop \
         `navigate` to follow the route)"
    );
    assert_eq!(
        err(
            "time_step = 0.25\n[[ring]]\ncount = 3\nradius = 4\nroute = [[0, 9]]\n\
             navigate = true\n"
        ),
        "agent 0: `navigate = true` plans the path itself: give no `route` (or drop \
         `navigate` to follow the route)"
    );
    assert_eq!(
        err(
            "time_step = 0.25\n[policy]\nkind = \"roadmap\"\nroadmap = [[0, 5]]\n[[agent]]\n\
             start = [0, 0]\ngoal = [4, 0]\nnavigate = true\n"
        ),
        "agent 0: `navigate = true` needs the goal_seeking policy (the roadmap policy steers \
         by its own graph)"
    );
    // In code: navigating agents need settings and must exist.
    let mut s = parse("time_step = 0.25\n[[agent]]\nstart = [0, 0]\ngoal = [4, 0]\n").unwrap();
    s.navigate.insert(AgentId(0));
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "agent 0: navigates, but the scene has no navigation settings (`navigation: None`)"
    );
    s.navigation = Some(NavParams::default());
    s.validate().unwrap();
    s.navigate.insert(AgentId(5));
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "agent 5: navigates but the scene has only 1 agents"
    );
}

#[test]
fn warnings_name_navigating_agents_with_blocked_or_outside_goals() {
    let s = parse(&format!(
        r#"
time_step = 0.25
[navigation]
boundary = [[-10, -10], [10, -10], [10, 10], [-10, 10]]
[[agent]]
start = [-5, 0]
goal = [0, 0]
navigate = true
[[agent]]
start = [-5, 8]
goal = [0, 2]
[[agent]]
start = [-12, 0]
goal = [12, 0]
navigate = true
[[event]]
tick = 5
set_goal = {{ id = 0, goal = [0, -3] }}
{WALL}"#
    ))
    .unwrap();
    let w = s.warnings();
    assert_eq!(
        w,
        vec![
            ScenarioWarning::NavigateGoalBlocked {
                agent: AgentId(0),
                point: GoalPoint::Goal,
                obstacle: 0
            },
            ScenarioWarning::GoalInsideObstacle {
                agent: AgentId(1),
                point: GoalPoint::Goal,
                obstacle: 0,
                on_edge: false
            },
            ScenarioWarning::NavigateGoalBlocked {
                agent: AgentId(0),
                point: GoalPoint::SetGoal(0),
                obstacle: 0
            },
            ScenarioWarning::OutsideNavBoundary {
                agent: AgentId(2),
                start: true
            },
            ScenarioWarning::OutsideNavBoundary {
                agent: AgentId(2),
                start: false
            },
        ]
    );
    assert_eq!(
        w[0].to_string(),
        "agent 0: goal is inside obstacle #0 (or on its edge); the agent navigates, so its \
         path ends at the nearest walkable point"
    );
    assert_eq!(
        w[2].to_string(),
        "agent 0: goal of event #0 is inside obstacle #0 (or on its edge); the agent \
         navigates, so its path ends at the nearest walkable point"
    );
    assert_eq!(
        w[3].to_string(),
        "agent 2 navigates but its start is not inside the navigation boundary"
    );
}

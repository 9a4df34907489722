//! The scenario file format (TOML), parsed into a [`Scenario`].
//!
//! ```toml
//! name = "two agents"          # optional
//! time_step = 0.25             # seconds per tick (required)
//! max_ticks = 2000             # optional, default 10,000
//! goal_tolerance = 0.5         # optional; default: each agent's radius
//! obstacle_neighbors = "whole_edges"  # optional: "whole_edges" (default) or "rvo2_fragments"
//! liveness = "resolve"         # optional: "resolve" (default, deadlock resolution) or "rvo2"
//!
//! [defaults]                   # optional; each field defaults to RVO2's Circle value
//! neighbor_dist = 15
//! max_neighbors = 10
//! time_horizon = 10
//! time_horizon_obst = 10
//! radius = 1.5
//! max_speed = 2
//! priority = 128               # avoidance priority 0..=255 (see AgentParams::priority)
//!
//! [policy]                     # optional
//! kind = "goal_seeking"        # or "roadmap" (see below)
//! pref_speed = 1               # default 1 (RVO2)
//! slow_within = 1              # optional, default pref_speed; 0: full speed to the goal
//! waypoint_tolerance = 0.5     # optional (goal seeking only), default: the goal tolerance
//!                              # (with [navigation]: the agent's radius)
//! rvo2_goals = true            # optional (goal seeking only), default false: agents sharing a
//!                              # goal never settle short of it (RVO2's rule; Steering::rvo2_goals)
//!
//! [perturbation]               # optional
//! seed = 7
//! magnitude = 0.0001
//! hash = "nested"              # optional: "nested" (default) or "packed"
//!
//! [[agent]]                    # explicit agents; any parameter can be overridden
//! start = [-10, 0]
//! goal = [10, 0]
//! radius = 0.5
//! velocity = [0, 0]            # optional initial velocity
//! route = [[-5, 2], [5, 2]]    # optional waypoints before the goal; without `goal`, the
//!                              # route's last point is the goal
//! # navigate = true            # instead of a route: a planned path (also on generators and
//!                              # add_agent; see "Navigation")
//!
//! [[ring]]                     # generator: agents on a ring, goals at the antipodes
//! count = 8
//! radius = 20
//! center = [0, 0]              # optional
//! params = { max_speed = 1 }   # optional overrides for the generated agents
//! route = [[0, 30]]            # optional waypoints for each agent before its own goal
//!
//! [[grid]]                     # generator: the jittered crowd grid, goals mirrored
//! count = 9
//! spacing = 3                  # optional, default 3
//! jitter = 0.25                # optional, default 0.25
//! seed = 12345                 # optional, default 12345
//! center = [100, 0]            # optional
//!
//! [[obstacle]]                 # or `obstacles = [{ polygon = ... }, ...]` (one name per file)
//! polygon = [[1, 1], [2, 1], [2, 2]]   # or polyline = [...]
//!
//! [[event]]                    # or `events = [...]`; ticks must not decrease down the list
//! tick = 100                   # exactly one action per event:
//! add_agent = { start = [0, 30], goal = [0, -30], radius = 0.5 }  # any override, a route
//! # remove_agent = 3
//! # set_goal = { id = 3, goal = [5, 5] }
//! # set_params = { id = 3, max_speed = 1 }      # partial: other values kept
//! # set_position = { id = 3, position = [1, 2] }
//! # set_velocity = { id = 3, velocity = [0, 1] }
//! # add_obstacle = { polygon = [[1, 1], [2, 1], [2, 2]] }   # or { polyline = [...] }
//! # remove_obstacle = 0
//! # set_group = { group = 1, first = 0, count = 100 }     # or members = [0, 1, 2]
//! # group_move = { group = 1, goal = [60, 0], navigate = true }  # optional: queue, slowest
//! # formation_move = { group = 1, goal = [60, 0], formation = "box" }
//! #   # optional: facing = [1, 0], spacing = 2.5, slowest = true (see "Groups and formations")
//!
//! [navigation]                 # optional: navigation on (see "Navigation")
//! boundary = [[-50, -50], [50, -50], [50, 50], [-50, 50]]   # optional simple polygon
//! margin = 8                   # optional, default 8
//! budget = 2400                # optional, default 2,400 expansions per tick
//! search_cap = 50000           # optional, default 50,000 expansions per search
//! quick_plan_cap = 8           # optional, default 8 expansions; 0: no quick first plans
//! ```
//!
//! The roadmap policy (RVO2's Roadmap example, see [`RoadmapGraph`](super::RoadmapGraph)):
//!
//! ```toml
//! [policy]
//! kind = "roadmap"
//! pref_speed = 1               # optional, default 1
//! roadmap = [[-42, -42], [-42, 42], [42, -42], [42, 42]]
//! ```
//!
//! # Routes
//! `route` lists the waypoints an agent visits in order before its goal (see
//! [`crate::orders`] for the waypoint rule: a route is a move order). At most
//! [`MAX_ROUTE_WAYPOINTS`] per agent and [`MAX_TOTAL_WAYPOINTS`] in all, counted before a
//! generator's route is copied to its agents. Routes need the goal-seeking policy.
//!
//! # Navigation
//! `navigate = true` gives the agent a planned move order
//! ([`Command::NavigateTo`](crate::command::Command::NavigateTo)) for its goal instead of a
//! `MoveTo`: not with a `route`, not with the roadmap policy. The `[navigation]` table holds the
//! [`NavParams`]; navigating agents without it get the defaults. Without `boundary` the
//! simulator gets the scene's bounding box grown by `margin` ([`Scenario::nav_params`]).
//!
//! # Groups and formations
//! `set_group` sets a group's members ([`Command::SetGroup`](crate::command::Command::SetGroup)),
//! `group_move` sends every member to one goal
//! ([`Command::GroupMove`](crate::command::Command::GroupMove); with `navigate = true`
//! [`Command::GroupNavigate`](crate::command::Command::GroupNavigate), by planned paths; `queue`
//! and `slowest` as the commands' fields, all three default false; a navigated group move
//! turns navigation on with the default settings when the scene has no `[navigation]` table),
//! `formation_move` sends it in formation
//! ([`Command::FormationMove`](crate::command::Command::FormationMove), [`crate::orders::formation`]):
//! `formation` is `"keep"`, `"line"`, `"box"` (the default), `"column"` or `"spread"`; without
//! `facing` the formation faces from the group's centre to the goal; without `spacing` its slots
//! are 5 radii of the largest member apart. Each member's order then goes to its slot, which
//! is the goal its arrival is measured against.
//!
//! # Obstacle neighbours
//! `obstacle_neighbors` picks [`ObstacleNeighbors`]: `"whole_edges"` (the default: whole
//! edges, tree-independent, fast build) or `"rvo2_fragments"` (RVO2's split fragments and its
//! exhaustive `O(N²)` tree build, for RVO2 fidelity). It is part of the simulation state.
//!
//! # Events
//! Events of tick `t` apply at the start of tick `t` in list order, before the preferred
//! velocities are computed (see [`Event`]). Agents added by events get the ids after the
//! scenario's agents, in event order; obstacles added by events likewise get the obstacle ids
//! after the scenario's obstacles (`[[obstacle]]` `i` has id `i`), in event order. An event may
//! only target an agent (an obstacle) that exists at that point of the list.
//!
//! # Numbers
//! Every real number may be written as a TOML integer (exact), a TOML float (read as the
//! nearest `f64`, which Rust parses with correct rounding, then rounded to the nearest [`Fx`]:
//! deterministic on every machine, but `0.1` lands on the [`Fx`] nearest to the `f64` nearest to
//! 0.1), or a string holding a decimal (`"0.1"`, rounded once, directly to the nearest [`Fx`]).
//! Values that are exact in binary (0.25, 1.5, 200) are the same either way.
//!
//! # Agent order
//! Ids follow the file: first every `[[agent]]`, then every `[[ring]]`, then every `[[grid]]`,
//! each in file order, then the agents added by events. Unknown keys are errors (a typo never
//! passes silently). TOML puts keys written after a `[table]` header into that table: write
//! `agents = [...]` above the first header, or use `[[agent]]`.

use super::{
    AgentSpec, DEFAULT_MAX_TICKS, Event, EventAction, MAX_ROUTE_WAYPOINTS, MAX_TOTAL_WAYPOINTS,
    Perturbation, PerturbationHash, Policy, Scenario, ScenarioError, grid_agents, ring_agents,
};
use crate::agent::{AgentId, AgentParams};
use crate::agent_model::AgentModel;
use crate::domain::MAX_COORD;
use crate::liveness::Liveness;
use crate::math::{Fx, Vec2, fx_from_f64};
use crate::navigation::NavParams;
use crate::navigation::traffic::TrafficParams;
use crate::obstacle::{ObstacleId, ObstacleNeighbors, ObstacleShape};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::collections::{BTreeMap, BTreeSet};

mod events;
use events::{FileEvent, parse_events};

/// A real number of the file: integer, float or decimal string, converted to [`Fx`] on read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Num(pub Fx);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a decimal string such as \"0.1\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Fx::checked_from_num(v)
                    .map(Num)
                    .ok_or_else(|| E::custom(format!("{v} is out of range")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Fx::checked_from_num(v)
                    .map(Num)
                    .ok_or_else(|| E::custom(format!("{v} is out of range")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                fx_from_f64(v).map(Num).ok_or_else(|| {
                    // User I/O: a huge value is shown in scientific notation (`1e300`, not
                    // its 301 digits).
                    let shown = if v.abs() < 1e12 {
                        format!("{v}")
                    } else {
                        format!("{v:e}")
                    };
                    E::custom(format!(
                        "{shown} is not finite or out of range (numbers lie within ±2147483647)"
                    ))
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                v.trim()
                    .parse::<Fx>()
                    .map(Num)
                    .map_err(|e| E::custom(format!("{v:?} is not a decimal number: {e}")))
            }
        }
        d.deserialize_any(V)
    }
}

type Point = [Num; 2];

fn point(p: Point) -> Vec2 {
    Vec2::new(p[0].0, p[1].0)
}

/// Optional parameter overrides (all fields of [`AgentParams`] and of [`AgentModel`]).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamOverrides {
    neighbor_dist: Option<Num>,
    max_neighbors: Option<u32>,
    time_horizon: Option<Num>,
    time_horizon_obst: Option<Num>,
    radius: Option<Num>,
    max_speed: Option<Num>,
    priority: Option<u8>,
    layers: Option<u32>,
    mask: Option<u32>,
    body_radius: Option<Num>,
    max_accel: Option<Num>,
    support_velocity: Option<Point>,
    slope: Option<Point>,
    speed_limit: Option<Num>,
}

impl ParamOverrides {
    /// The [`AgentModel`] fields applied to `m`.
    fn apply_model(&self, mut m: AgentModel) -> AgentModel {
        if let Some(l) = self.layers {
            m.layers = l;
        }
        if let Some(l) = self.mask {
            m.mask = l;
        }
        if let Some(r) = self.body_radius {
            m.body_radius = Some(r.0);
        }
        if let Some(a) = self.max_accel {
            m.max_accel = Some(a.0);
        }
        if let Some(v) = self.support_velocity {
            m.support_velocity = point(v);
        }
        if let Some(v) = self.slope {
            m.slope = point(v);
        }
        if let Some(v) = self.speed_limit {
            m.speed_limit = Some(v.0);
        }
        m
    }
}

impl ParamOverrides {
    fn apply(&self, mut p: AgentParams) -> AgentParams {
        let set = |dst: &mut Fx, v: Option<Num>| {
            if let Some(v) = v {
                *dst = v.0;
            }
        };
        set(&mut p.neighbor_dist, self.neighbor_dist);
        set(&mut p.time_horizon, self.time_horizon);
        set(&mut p.time_horizon_obst, self.time_horizon_obst);
        set(&mut p.radius, self.radius);
        set(&mut p.max_speed, self.max_speed);
        if let Some(m) = self.max_neighbors {
            p.max_neighbors = m;
        }
        if let Some(q) = self.priority {
            p.priority = q;
        }
        p
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileAgent {
    start: Point,
    goal: Option<Point>,
    route: Option<Vec<Point>>,
    navigate: Option<bool>,
    velocity: Option<Point>,
    // Per-agent overrides, written flat (serde's `flatten` cannot be combined with
    // `deny_unknown_fields`).
    neighbor_dist: Option<Num>,
    max_neighbors: Option<u32>,
    time_horizon: Option<Num>,
    time_horizon_obst: Option<Num>,
    radius: Option<Num>,
    max_speed: Option<Num>,
    priority: Option<u8>,
    layers: Option<u32>,
    mask: Option<u32>,
    body_radius: Option<Num>,
    max_accel: Option<Num>,
    support_velocity: Option<Point>,
    slope: Option<Point>,
    speed_limit: Option<Num>,
}

impl FileAgent {
    fn overrides(&self) -> ParamOverrides {
        ParamOverrides {
            neighbor_dist: self.neighbor_dist,
            max_neighbors: self.max_neighbors,
            time_horizon: self.time_horizon,
            time_horizon_obst: self.time_horizon_obst,
            radius: self.radius,
            max_speed: self.max_speed,
            priority: self.priority,
            layers: self.layers,
            mask: self.mask,
            body_radius: self.body_radius,
            max_accel: self.max_accel,
            support_velocity: self.support_velocity,
            slope: self.slope,
            speed_limit: self.speed_limit,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRing {
    count: u32,
    radius: Num,
    center: Option<Point>,
    route: Option<Vec<Point>>,
    navigate: Option<bool>,
    #[serde(default)]
    params: ParamOverrides,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileGrid {
    count: u32,
    spacing: Option<Num>,
    jitter: Option<Num>,
    seed: Option<u64>,
    center: Option<Point>,
    route: Option<Vec<Point>>,
    navigate: Option<bool>,
    #[serde(default)]
    params: ParamOverrides,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNavigation {
    boundary: Option<Vec<Point>>,
    margin: Option<Num>,
    budget: Option<u32>,
    search_cap: Option<u32>,
    quick_plan_cap: Option<u32>,
    traffic: Option<FileTraffic>,
}

/// The `[navigation.traffic]` table: [`TrafficParams`], each missing key at its default.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTraffic {
    radius: Option<Num>,
    hold_seconds: Option<u64>,
    approach: Option<Num>,
    queue: Option<Num>,
    gap: Option<Num>,
    batch: Option<u32>,
    yield_within: Option<Num>,
}

impl FileTraffic {
    fn params(self) -> TrafficParams {
        let d = TrafficParams::DEFAULT;
        TrafficParams {
            radius: self.radius.map_or(d.radius, |n| n.0),
            hold_seconds: self.hold_seconds.unwrap_or(d.hold_seconds),
            approach: self.approach.map_or(d.approach, |n| n.0),
            queue: self.queue.map_or(d.queue, |n| n.0),
            gap: self.gap.map_or(d.gap, |n| n.0),
            batch: self.batch.unwrap_or(d.batch),
            yield_within: self.yield_within.map_or(d.yield_within, |n| n.0),
        }
    }
}

impl FileNavigation {
    /// The settings, each missing key at its [`NavParams`] default.
    fn params(self) -> NavParams {
        let d = NavParams::default();
        NavParams {
            boundary: self.boundary.map(|b| b.into_iter().map(point).collect()),
            margin: self.margin.map_or(d.margin, |n| n.0),
            budget: self.budget.unwrap_or(d.budget),
            search_cap: self.search_cap.unwrap_or(d.search_cap),
            traffic: self.traffic.map_or(d.traffic, FileTraffic::params),
            quick_plan_cap: self.quick_plan_cap.unwrap_or(d.quick_plan_cap),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileObstacle {
    polygon: Option<Vec<Point>>,
    polyline: Option<Vec<Point>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
enum FilePolicy {
    GoalSeeking {
        pref_speed: Option<Num>,
        slow_within: Option<Num>,
        waypoint_tolerance: Option<Num>,
        rvo2_goals: Option<bool>,
    },
    Roadmap {
        pref_speed: Option<Num>,
        roadmap: Vec<Point>,
    },
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FileHash {
    Nested,
    Packed,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePerturbation {
    seed: u64,
    magnitude: Num,
    hash: Option<FileHash>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileScenario {
    name: Option<String>,
    time_step: Num,
    max_ticks: Option<u64>,
    goal_tolerance: Option<Num>,
    obstacle_neighbors: Option<ObstacleNeighbors>,
    liveness: Option<Liveness>,
    #[serde(default)]
    defaults: ParamOverrides,
    policy: Option<FilePolicy>,
    perturbation: Option<FilePerturbation>,
    navigation: Option<FileNavigation>,
    #[serde(default, alias = "agents")]
    agent: Vec<FileAgent>,
    #[serde(default, alias = "rings")]
    ring: Vec<FileRing>,
    #[serde(default, alias = "grids")]
    grid: Vec<FileGrid>,
    #[serde(default, alias = "obstacles")]
    obstacle: Vec<FileObstacle>,
    #[serde(default, alias = "events")]
    event: Vec<FileEvent>,
}

/// The shape of an `[[obstacle]]` entry or an `add_obstacle` event: exactly one of `polygon`
/// and `polyline` (the shape itself is validated by [`Scenario::validate`]).
fn obstacle_shape(o: FileObstacle, context: String) -> Result<ObstacleShape, ScenarioError> {
    let pts = |v: Vec<Point>| v.into_iter().map(point).collect();
    match (o.polygon, o.polyline) {
        (Some(p), None) => Ok(ObstacleShape::Polygon(pts(p))),
        (None, Some(p)) => Ok(ObstacleShape::Polyline(pts(p))),
        _ => Err(invalid(
            context,
            "give exactly one of `polygon` or `polyline`",
        )),
    }
}

fn invalid(context: String, reason: impl Into<String>) -> ScenarioError {
    ScenarioError::Invalid {
        context,
        reason: reason.into(),
    }
}

fn checked_center(c: Option<Point>, context: &str) -> Result<Vec2, ScenarioError> {
    let c = c.map_or(Vec2::ZERO, point);
    if c.max_abs_component() > MAX_COORD {
        return Err(invalid(
            context.to_string(),
            "center must satisfy |x|, |y| <= 1,000,000",
        ));
    }
    Ok(c)
}

/// Parses the TOML text and expands generators; [`Scenario::validate`] checks the values.
pub(super) fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let f: FileScenario = toml::from_str(text).map_err(|e| ScenarioError::Parse(e.to_string()))?;
    let defaults = f.defaults.apply(AgentParams::default());
    let model = f.defaults.apply_model(AgentModel::default());
    let mut agents = Vec::new();
    let mut routes = RouteBuilder::default();
    let mut navigate = BTreeSet::new();
    for (i, a) in f.agent.iter().enumerate() {
        let ctx = format!("agent {i}");
        let (spec, route) = agent_spec(a, defaults, model, &ctx)?;
        routes.add(AgentId(i as u32), route, &ctx)?;
        if a.navigate == Some(true) {
            navigate.insert(AgentId(i as u32));
        }
        agents.push(spec);
    }
    let mut budget = super::MAX_SCENARIO_AGENTS.saturating_sub(agents.len());
    let mut take = |count: u32, context: &str| -> Result<(), ScenarioError> {
        if count == 0 {
            return Err(invalid(context.to_string(), "count must be at least 1"));
        }
        budget = budget.checked_sub(count as usize).ok_or_else(|| {
            invalid(
                context.to_string(),
                format!(
                    "too many agents (a scenario holds at most {})",
                    super::MAX_SCENARIO_AGENTS
                ),
            )
        })?;
        Ok(())
    };
    for (i, r) in f.ring.iter().enumerate() {
        let ctx = format!("ring #{i}");
        take(r.count, &ctx)?;
        if r.radius.0 <= Fx::ZERO || r.radius.0 > MAX_COORD {
            return Err(invalid(ctx, "radius must lie in (0, 1,000,000]"));
        }
        let center = checked_center(r.center, &ctx)?;
        let first = agents.len();
        let m = r.params.apply_model(model);
        agents.extend(
            ring_agents(r.count, r.radius.0, center, r.params.apply(defaults))
                .into_iter()
                .map(|a| AgentSpec { model: m, ..a }),
        );
        routes.add_group(r.route.as_deref(), first..agents.len(), &ctx)?;
        if r.navigate == Some(true) {
            navigate.extend((first..agents.len()).map(|i| AgentId(i as u32)));
        }
    }
    for (i, g) in f.grid.iter().enumerate() {
        let ctx = format!("grid #{i}");
        take(g.count, &ctx)?;
        let spacing = g.spacing.map_or(Fx::from_num(3), |n| n.0);
        let jitter = g.jitter.map_or(Fx::lit("0.25"), |n| n.0);
        if spacing <= Fx::ZERO || spacing > Fx::from_num(10_000) {
            return Err(invalid(ctx, "spacing must lie in (0, 10,000]"));
        }
        if jitter < Fx::ZERO || jitter > spacing {
            return Err(invalid(ctx, "jitter must lie in [0, spacing]"));
        }
        let center = checked_center(g.center, &ctx)?;
        let first = agents.len();
        let m = g.params.apply_model(model);
        agents.extend(
            grid_agents(
                g.count,
                spacing,
                jitter,
                g.seed.unwrap_or(12345),
                center,
                g.params.apply(defaults),
            )
            .into_iter()
            .map(|a| AgentSpec { model: m, ..a }),
        );
        routes.add_group(g.route.as_deref(), first..agents.len(), &ctx)?;
        if g.navigate == Some(true) {
            navigate.extend((first..agents.len()).map(|i| AgentId(i as u32)));
        }
    }
    let mut obstacles = Vec::with_capacity(f.obstacle.len());
    for (i, o) in f.obstacle.into_iter().enumerate() {
        obstacles.push(obstacle_shape(o, format!("obstacle #{i}"))?);
    }
    let mut waypoint_tolerance = None;
    let mut rvo2_goals = false;
    let policy = match f.policy {
        None => Policy::default(),
        Some(FilePolicy::GoalSeeking {
            pref_speed,
            slow_within,
            waypoint_tolerance: tolerance,
            rvo2_goals: rvo2,
        }) => {
            waypoint_tolerance = tolerance.map(|n| n.0);
            rvo2_goals = rvo2.unwrap_or(false);
            let pref_speed = pref_speed.map_or(Fx::ONE, |n| n.0);
            Policy::GoalSeeking {
                pref_speed,
                slow_within: slow_within.map_or(pref_speed, |n| n.0),
            }
        }
        Some(FilePolicy::Roadmap {
            pref_speed,
            roadmap,
        }) => Policy::Roadmap {
            pref_speed: pref_speed.map_or(Fx::ONE, |n| n.0),
            vertices: roadmap.into_iter().map(point).collect(),
        },
    };
    let events = parse_events(
        f.event,
        &agents,
        defaults,
        model,
        &mut routes,
        &mut navigate,
    )?;
    // Agents that navigate (or a navigated group move) without a [navigation] table get the
    // default settings.
    let group_navigates = events.iter().any(|e| {
        matches!(
            e.action,
            EventAction::Group(crate::command::Command::GroupNavigate { .. })
        )
    });
    let navigation = match f.navigation {
        Some(n) => Some(n.params()),
        None if !navigate.is_empty() || group_navigates => Some(NavParams::default()),
        None => None,
    };
    Ok(Scenario {
        name: f.name,
        time_step: f.time_step.0,
        defaults,
        agents,
        obstacles,
        obstacle_neighbors: f.obstacle_neighbors.unwrap_or_default(),
        liveness: f.liveness.unwrap_or_default(),
        policy,
        perturbation: f.perturbation.map(|p| Perturbation {
            seed: p.seed,
            magnitude: p.magnitude.0,
            hash: match p.hash {
                None | Some(FileHash::Nested) => PerturbationHash::Nested,
                Some(FileHash::Packed) => PerturbationHash::Packed,
            },
        }),
        events,
        goal_tolerance: f.goal_tolerance.map(|n| n.0),
        max_ticks: f.max_ticks.unwrap_or(DEFAULT_MAX_TICKS),
        routes: routes.routes,
        waypoint_tolerance,
        rvo2_goals,
        navigation,
        navigate,
    })
}

/// An explicit agent (`[[agent]]` or `add_agent`) and the waypoints before its goal: without
/// `goal`, the last point of `route` is the goal.
fn agent_spec(
    a: &FileAgent,
    defaults: AgentParams,
    model: AgentModel,
    context: &str,
) -> Result<(AgentSpec, Vec<Vec2>), ScenarioError> {
    let mut route: Vec<Vec2> = match &a.route {
        Some(r) if r.len() > MAX_ROUTE_WAYPOINTS + 1 => {
            return Err(too_long(context, r.len()));
        }
        Some(r) => r.iter().copied().map(point).collect(),
        None => Vec::new(),
    };
    let goal = match a.goal {
        Some(g) => point(g),
        None => route.pop().ok_or_else(|| {
            invalid(
                context.to_string(),
                "give a `goal` (or a non-empty `route`, whose last point is then the goal)",
            )
        })?,
    };
    let spec = AgentSpec {
        start: point(a.start),
        goal,
        velocity: a.velocity.map_or(Vec2::ZERO, point),
        params: a.overrides().apply(defaults),
        model: a.overrides().apply_model(model),
    };
    Ok((spec, route))
}

fn too_long(context: &str, len: usize) -> ScenarioError {
    invalid(
        context.to_string(),
        format!(
            "a route holds at most {MAX_ROUTE_WAYPOINTS} waypoints before the goal ({len} points given)"
        ),
    )
}

/// The routes read so far, and their bounds ([`MAX_ROUTE_WAYPOINTS`] per agent,
/// [`MAX_TOTAL_WAYPOINTS`] in all, checked before a group's route is copied to its agents).
#[derive(Default)]
struct RouteBuilder {
    routes: BTreeMap<AgentId, Vec<Vec2>>,
    total: usize,
}

impl RouteBuilder {
    fn reserve(&mut self, len: usize, copies: usize, context: &str) -> Result<(), ScenarioError> {
        if len > MAX_ROUTE_WAYPOINTS {
            return Err(too_long(context, len));
        }
        self.total = len
            .checked_mul(copies)
            .and_then(|n| n.checked_add(self.total))
            .filter(|&n| n <= MAX_TOTAL_WAYPOINTS)
            .ok_or_else(|| {
                invalid(
                    context.to_string(),
                    format!("the routes of a scenario hold at most {MAX_TOTAL_WAYPOINTS} waypoints in all"),
                )
            })?;
        Ok(())
    }

    fn add(&mut self, id: AgentId, route: Vec<Vec2>, context: &str) -> Result<(), ScenarioError> {
        if route.is_empty() {
            return Ok(());
        }
        self.reserve(route.len(), 1, context)?;
        self.routes.insert(id, route);
        Ok(())
    }

    /// A generator's route: the same waypoints for each of its agents, before each one's goal.
    fn add_group(
        &mut self,
        route: Option<&[Point]>,
        agents: std::ops::Range<usize>,
        context: &str,
    ) -> Result<(), ScenarioError> {
        let Some(route) = route.filter(|r| !r.is_empty()) else {
            return Ok(());
        };
        self.reserve(route.len(), agents.len(), context)?;
        let points: Vec<Vec2> = route.iter().copied().map(point).collect();
        for i in agents {
            self.routes.insert(AgentId(i as u32), points.clone());
        }
        Ok(())
    }
}

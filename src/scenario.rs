//! Scenarios: a whole scene (agents, goals, a preferred-velocity policy) as data, built once and
//! shared by the example, the tests, the benches and the command-line runner.
//!
//! * [`Scenario`] is the resolved scene: every agent listed with its start, goal and parameters.
//!   Build one from a TOML file ([`Scenario::load`], [`Scenario::from_toml_str`], format in
//!   [`docs::scenarios`](crate::docs::scenarios)) or in code ([`Scenario::rvo2_circle`], [`Scenario::circle`],
//!   [`Scenario::scaling_circle`], [`Scenario::crowd`]). The file generators and these
//!   constructors call the same functions ([`ring_agents`], [`grid_agents`]), so a scene exists in
//!   exactly one place.
//! * [`Scenario::build`] turns it into a [`Simulator`] plus a [`Driver`], which applies the
//!   scenario's [events](Event) at their ticks, sets preferred velocities every tick (goal
//!   seeking as in RVO2's examples, or RVO2's [roadmap](RoadmapGraph) navigation, with an
//!   optional seeded perturbation), knows when every agent has reached its goal, and
//!   [runs](Driver::run) the scene while tracking the minimum clearance and state hashes.
//!   [`Driver::tick_commands`] gives the same ticks as lockstep [`Command`]s (the runner's
//!   `record`). Agents may follow [routes](Scenario::routes), waypoint lists a pathfinder hands
//!   over; they become move orders, whose progress is simulation state (see [`Driver`]).
//!   Agents with [`navigate`](Scenario::navigate) get planned orders instead: the simulator
//!   finds the way over its navigation mesh ([`Scenario::navigation`]).
//! * [`Scenario::warnings`] is the validation report: what a valid file allows but its author
//!   most likely did not mean ([`ScenarioWarning`]).
//!
//! Everything here is fixed point and deterministic: the same scenario gives the same bytes on
//! every machine.

mod driver;
mod file;
mod navigation;
pub mod roadmap;
mod warnings;

pub use driver::{ClearanceTracker, Driver, RunOptions, RunOutcomes, RunReport};
pub use navigation::MAX_NAV_MARGIN;
pub use roadmap::RoadmapGraph;
pub use warnings::{
    ABSURD_MAX_TICKS, GoalPoint, MAX_LISTED_PER_KIND, ObstacleKind, ScenarioWarning, obstacle_kind,
};

use crate::agent::{AgentId, AgentParams};
use crate::command::Command;
use crate::domain::{self, check_point, check_range, check_time_step, check_velocity};
use crate::error::SimError;
use crate::math::{Fx, Vec2, unit_from_turns};
use crate::navigation::NavParams;
use crate::obstacle::{ObstacleId, ObstacleNeighbors, ObstacleShape};
use crate::orders::Steering;
pub use crate::orders::{Perturbation, PerturbationHash};
use crate::sim::{Simulator, SimulatorParams};
use crate::util::splitmix64;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

/// Largest number of agents a scenario may hold (keeps a small file from asking for gigabytes).
pub const MAX_SCENARIO_AGENTS: usize = 1_000_000;

/// Largest number of roadmap vertices (the visibility graph has `(goals + vertices)²` edges).
pub const MAX_ROADMAP_VERTICES: usize = 4_096;

/// Largest number of waypoints in one agent's route (before its goal).
pub const MAX_ROUTE_WAYPOINTS: usize = crate::orders::MAX_PATH_POINTS - 1;

/// Largest number of waypoints in all the routes of a scenario (a generator's route counts once
/// per generated agent).
pub const MAX_TOTAL_WAYPOINTS: usize = 1 << 22;

/// Default tick limit when a scenario file gives none.
pub const DEFAULT_MAX_TICKS: u64 = 10_000;

/// The SplitMix64 increment ("golden gamma"), advancing a SplitMix64 stream by one draw.
pub const SPLITMIX_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// One agent of a scenario, fully resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    /// Initial position.
    pub start: Vec2,
    /// Goal position (the policy steers towards it).
    pub goal: Vec2,
    /// Initial velocity. Default zero.
    pub velocity: Vec2,
    /// The agent's parameters (scenario defaults with any per-agent overrides applied).
    pub params: AgentParams,
    /// The agent's model beyond RVO2's ([`AgentModel`](crate::agent_model::AgentModel)), the default
    /// unless the file sets its fields (`layers`, `mask`, `body_radius`, `max_accel`,
    /// `support_velocity`, `slope`, `speed_limit`) in `[defaults]`, a generator's `params` or
    /// the agent.
    pub model: crate::agent_model::AgentModel,
}

/// How the preferred velocity is chosen every tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// RVO2's examples: with `g = goal - position`, `pref = unit(g) · pref_speed` when
    /// `|g|² > slow_within²`, otherwise `g · (pref_speed / slow_within)` (a linear slow-down; zero
    /// when `slow_within` is 0). With the default `slow_within = pref_speed` the near branch is
    /// exactly `g` (RVO2 uses `pref_speed = 1`: a unit vector towards the goal, or the remaining
    /// vector when closer than 1).
    GoalSeeking {
        /// Length of the preferred velocity far from the goal. Default 1 (RVO2).
        pref_speed: Fx,
        /// Distance under which the agent slows down. Default `pref_speed`; 0: full speed up to
        /// the goal.
        slow_within: Fx,
    },
    /// RVO2's Roadmap example: each tick an agent heads (with the goal-seeking rule) for the
    /// visible roadmap vertex `v` minimising `|p - v| + dist(v, goal)`, where `dist` is the
    /// shortest path in a visibility graph over the goals and `vertices`. See
    /// [`RoadmapGraph`] for the exact rules (graph, distances, ties, fallback).
    Roadmap {
        /// Length of the preferred velocity far from the target vertex. Default 1 (RVO2).
        pref_speed: Fx,
        /// The roadmap's own vertices (the agents' goals are added in front of them).
        vertices: Vec<Vec2>,
    },
}

impl Policy {
    /// The policy's speed far from the target.
    #[must_use]
    pub fn pref_speed(&self) -> Fx {
        match self {
            Self::GoalSeeking { pref_speed, .. } | Self::Roadmap { pref_speed, .. } => *pref_speed,
        }
    }

    /// The distance under which the goal-seeking rule slows down (the roadmap policy uses
    /// RVO2's rule, `pref_speed`).
    #[must_use]
    pub fn slow_within(&self) -> Fx {
        match self {
            Self::GoalSeeking { slow_within, .. } => *slow_within,
            Self::Roadmap { pref_speed, .. } => *pref_speed,
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        Self::GoalSeeking {
            pref_speed: Fx::ONE,
            slow_within: Fx::ONE,
        }
    }
}

/// A scheduled change of the scene, applied at the start of tick [`tick`](Self::tick) (before
/// that tick's preferred velocities are computed): the scenario form of a lockstep
/// [`Command`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The simulator tick at which it applies.
    pub tick: u64,
    /// What happens.
    pub action: EventAction,
}

/// What an [`Event`] does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventAction {
    /// Adds an agent; it gets the next id (agents added by events are numbered after the
    /// scenario's agents, in event order) and the driver steers it to its goal from this tick.
    AddAgent(AgentSpec),
    /// Removes an agent; the driver stops driving it.
    RemoveAgent(AgentId),
    /// Gives an agent a new goal (driver only: no simulator command).
    SetGoal {
        /// The agent.
        id: AgentId,
        /// Its new goal.
        goal: Vec2,
    },
    /// Replaces an agent's parameters (the file's partial overrides are resolved against the
    /// agent's parameters at that point of the event list).
    SetParams {
        /// The agent.
        id: AgentId,
        /// All its new parameters.
        params: AgentParams,
    },
    /// Moves an agent.
    SetPosition {
        /// The agent.
        id: AgentId,
        /// Its new position.
        position: Vec2,
    },
    /// Sets an agent's velocity.
    SetVelocity {
        /// The agent.
        id: AgentId,
        /// Its new velocity.
        velocity: Vec2,
    },
    /// Replaces an agent's model ([`AgentModel`](crate::agent_model::AgentModel); the file's partial
    /// fields are resolved against the agent's model at that point of the event list).
    SetModel {
        /// The agent.
        id: AgentId,
        /// Its whole new model.
        model: crate::agent_model::AgentModel,
    },
    /// Adds a static obstacle (a building placed, [`Command::AddObstacle`]); it gets the next
    /// obstacle id (obstacles added by events are numbered after the scenario's obstacles, in
    /// event order).
    AddObstacle(ObstacleShape),
    /// Removes a static obstacle (a building destroyed, [`Command::RemoveObstacle`]).
    RemoveObstacle(ObstacleId),
    /// A group command: [`Command::SetGroup`] (file key `set_group`) or
    /// [`Command::FormationMove`] (file key `formation_move`), applied as it is.
    Group(Command),
}

impl EventAction {
    /// The simulator command this event becomes (`None` for [`SetGoal`](Self::SetGoal), which
    /// only concerns the driver). An added agent's initial [`AgentSpec::velocity`] needs a
    /// second command, [`Command::SetVelocity`], once its id is known
    /// ([`Driver::tick_commands`] adds it).
    #[must_use]
    pub fn command(&self) -> Option<Command> {
        Some(match self {
            Self::AddAgent(a) => Command::AddAgent {
                position: a.start,
                params: a.params,
            },
            &Self::RemoveAgent(id) => Command::RemoveAgent { id },
            Self::SetGoal { .. } => return None,
            &Self::SetParams { id, params } => Command::SetParams { id, params },
            &Self::SetPosition { id, position } => Command::SetPosition { id, position },
            &Self::SetVelocity { id, velocity } => Command::SetVelocity { id, v: velocity },
            &Self::SetModel { id, model } => Command::SetModel { id, model },
            Self::AddObstacle(shape) => Command::AddObstacle {
                shape: shape.clone(),
            },
            &Self::RemoveObstacle(id) => Command::RemoveObstacle { id },
            Self::Group(c) => c.clone(),
        })
    }

    /// The agent the event targets (`None` for [`AddAgent`](Self::AddAgent) and the obstacle
    /// events).
    #[must_use]
    pub fn target(&self) -> Option<AgentId> {
        match *self {
            Self::AddAgent(_) | Self::AddObstacle(_) | Self::RemoveObstacle(_) | Self::Group(_) => {
                None
            }
            Self::RemoveAgent(id)
            | Self::SetGoal { id, .. }
            | Self::SetParams { id, .. }
            | Self::SetPosition { id, .. }
            | Self::SetVelocity { id, .. }
            | Self::SetModel { id, .. } => Some(id),
        }
    }
}

/// A resolved scene: simulator settings, agents, obstacles, policy and stop conditions.
///
/// Built from a file ([`load`](Self::load)) or in code; [`build`](Self::build) validates it and
/// creates the simulator. Agent `i` of [`agents`](Self::agents) gets [`AgentId`]
/// `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Optional display name.
    pub name: Option<String>,
    /// Seconds per tick.
    pub time_step: Fx,
    /// Simulator-wide agent defaults (what [`Simulator::add_agent`] would use).
    pub defaults: AgentParams,
    /// The agents, in id order.
    pub agents: Vec<AgentSpec>,
    /// Static obstacles.
    pub obstacles: Vec<ObstacleShape>,
    /// Which obstacle neighbours the agents see (default whole edges; see
    /// [`ObstacleNeighbors`]).
    pub obstacle_neighbors: ObstacleNeighbors,
    /// The deadlock-resolution mode ([`crate::liveness`]); file key `liveness`, default
    /// `"resolve"`.
    pub liveness: crate::liveness::Liveness,
    /// Preferred-velocity policy.
    pub policy: Policy,
    /// Optional perturbation of preferred velocities.
    pub perturbation: Option<Perturbation>,
    /// Scheduled events, ascending tick (equal ticks: list order).
    pub events: Vec<Event>,
    /// An agent has reached its goal when `|position - goal| <= tolerance`. `None`: each agent's
    /// own radius (RVO2's Circle test, `|p - goal|² <= radius²`).
    pub goal_tolerance: Option<Fx>,
    /// Tick limit for [`Driver::run`].
    pub max_ticks: u64,
    /// Routes: for an agent listed here (by id, scenario agents and agents added by events
    /// alike), the waypoints it visits in order before its goal, which is the route's final
    /// point. [`Scenario::build`] makes each route the agent's [move order](crate::orders): the
    /// agent heads for the current waypoint and moves on when within
    /// [`waypoint_tolerance`](Self::waypoint_tolerance) of it or past it. Needs the
    /// goal-seeking policy.
    pub routes: BTreeMap<AgentId, Vec<Vec2>>,
    /// A waypoint counts as reached when `|position - waypoint| <= waypoint_tolerance`. `None`:
    /// each agent's goal tolerance, or with [`navigation`](Self::navigation) on, each agent's
    /// radius (planned paths turn corners one radius from the walls; a wide goal tolerance
    /// would make agents cut them).
    pub waypoint_tolerance: Option<Fx>,
    /// RVO2's goal rule for every order ([`Steering::rvo2_goals`]; file key `rvo2_goals` in
    /// `[policy]`): agents sharing a goal never settle short of it. For scenes that reproduce
    /// RVO2. Default `false`.
    pub rvo2_goals: bool,
    /// The navigation settings (file table `[navigation]`): `Some` turns navigation on
    /// ([`Simulator::set_navigation`] at build, with [`nav_params`](Self::nav_params)). A file
    /// with navigating agents and no `[navigation]` table gets the defaults.
    pub navigation: Option<NavParams>,
    /// The agents (by id, scenario agents and agents added by events alike) whose goals are
    /// reached by planned paths (file key `navigate = true`): the driver gives them a
    /// [`Command::NavigateTo`] to their goal, at tick 0 (or the tick they are added) and at
    /// every `set_goal`, instead of a `MoveTo` and a route. Needs the goal-seeking policy, no
    /// route, and [`navigation`](Self::navigation).
    pub navigate: BTreeSet<AgentId>,
}

/// Why a scenario could not be read, validated or built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioError {
    /// The file could not be read.
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The TOML is malformed or does not match the format (the message gives line and column).
    Parse(String),
    /// A value is invalid.
    Invalid {
        /// Where, e.g. `"ring #0"` or `"agent 12 (grid #1, index 3)"`.
        context: String,
        /// What is wrong.
        reason: String,
    },
    /// The simulator rejected a value.
    Sim {
        /// Where, e.g. `"agent 3"` or `"obstacle #0"`.
        context: String,
        /// The simulator's error.
        error: SimError,
    },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, message } => write!(f, "cannot read {path}: {message}"),
            Self::Parse(msg) => write!(f, "invalid scenario file: {msg}"),
            Self::Invalid { context, reason } => write!(f, "{context}: {reason}"),
            Self::Sim { context, error } => write!(f, "{context}: {error}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

fn sim_err(context: impl Into<String>) -> impl FnOnce(SimError) -> ScenarioError {
    let context = context.into();
    move |error| ScenarioError::Sim { context, error }
}

impl AgentSpec {
    /// An agent at rest at `start`, heading for its mirror image through `center` (the goal
    /// rule of the ring and grid generators).
    #[must_use]
    pub fn mirrored(start: Vec2, center: Vec2, params: AgentParams) -> Self {
        Self {
            start,
            goal: center + center - start,
            velocity: Vec2::ZERO,
            params,
            model: crate::agent_model::AgentModel::default(),
        }
    }
}

/// Agents on a ring: agent `i` of `count` at angle `i / count` turns (CORDIC,
/// [`unit_from_turns`]), at `center + radius · (cos, sin)`, with its goal at the antipode
/// `2·center - start`. The turn fraction is `i / count` truncated to Q32.32.
///
/// Returns an empty list for `count == 0`.
#[must_use]
pub fn ring_agents(count: u32, radius: Fx, center: Vec2, params: AgentParams) -> Vec<AgentSpec> {
    (0..count)
        .map(|i| {
            let turns = Fx::from_num(i) / Fx::from_num(count);
            let start = center + unit_from_turns(turns) * radius;
            AgentSpec::mirrored(start, center, params)
        })
        .collect()
}

/// The jittered square grid of the reference "crowd N": `ceil(sqrt(count))` columns filled row
/// by row, cells `spacing` apart, the grid's bounding box centred on `center`; each agent is
/// moved by a jitter per axis uniform in `[-jitter, jitter)`, x drawn before y, agent by agent,
/// from a SplitMix64 stream seeded with `seed`: `jitter · (2u - 1)` where `u` is the draw's top
/// 24 bits as a fraction of 2²⁴ (exact in Q32.32). Goal = `2·center - start`.
///
/// With `spacing = 3`, `jitter = 0.25`, `seed = 12345`, centre at the origin this is the
/// reference crowd: jitter `= top24 / 2²⁴ · 0.5 - 0.25`.
#[must_use]
pub fn grid_agents(
    count: u32,
    spacing: Fx,
    jitter: Fx,
    seed: u64,
    center: Vec2,
    params: AgentParams,
) -> Vec<AgentSpec> {
    if count == 0 {
        return Vec::new();
    }
    let n = u64::from(count);
    let mut cols = n.isqrt();
    if cols * cols < n {
        cols += 1; // ceil(sqrt(n))
    }
    let rows = n.div_ceil(cols);
    let mut state = seed;
    let mut draw = || {
        let z = splitmix64(state);
        state = state.wrapping_add(SPLITMIX_GAMMA);
        // Top 24 bits as a Q32.32 fraction in [0, 1), then mapped to [-jitter, jitter).
        let u = Fx::from_bits(((z >> 40) << 8) as i64);
        (u + u - Fx::ONE) * jitter
    };
    // Offset of cell k along an axis with n cells: (2k - (n - 1)) · spacing / 2, exact halving.
    let offset = |k: u64, n: u64| {
        let twice = Fx::from_num(2 * k as i64 - (n as i64 - 1)) * spacing;
        Fx::from_bits(twice.to_bits() >> 1)
    };
    (0..u64::from(count))
        .map(|k| {
            let (row, col) = (k / cols, k % cols);
            let jx = draw();
            let jy = draw();
            let start = center + Vec2::new(offset(col, cols) + jx, offset(row, rows) + jy);
            AgentSpec::mirrored(start, center, params)
        })
        .collect()
}

impl Scenario {
    /// An empty scenario with RVO2's Circle settings (time step 0.25, defaults
    /// (15, 10, 10, 10, 1.5, 2), goal seeking at speed 1, tolerance = radius) and no agents.
    #[must_use]
    pub fn empty() -> Self {
        let sim = SimulatorParams::default();
        Self {
            name: None,
            time_step: sim.time_step,
            defaults: sim.agent_defaults,
            agents: Vec::new(),
            obstacles: Vec::new(),
            obstacle_neighbors: ObstacleNeighbors::default(),
            liveness: crate::liveness::Liveness::default(),
            policy: Policy::default(),
            perturbation: None,
            events: Vec::new(),
            goal_tolerance: None,
            max_ticks: DEFAULT_MAX_TICKS,
            routes: BTreeMap::new(),
            waypoint_tolerance: None,
            rvo2_goals: false,
            navigation: None,
            navigate: BTreeSet::new(),
        }
    }

    /// `count` agents on a ring of `radius` around the origin, goals at the antipodes, with the
    /// settings of [`empty`](Self::empty).
    #[must_use]
    pub fn circle(count: u32, radius: Fx) -> Self {
        let mut s = Self::empty();
        s.name = Some(format!("circle {count} (ring radius {radius})"));
        s.agents = ring_agents(count, radius, Vec2::ZERO, s.defaults);
        s
    }

    /// RVO2's Circle example: 250 agents on a ring of radius 200 (same scene as
    /// `fixtures/scenarios/circle250.toml`).
    #[must_use]
    pub fn rvo2_circle() -> Self {
        let mut s = Self::circle(250, Fx::from_num(200));
        s.name = Some("circle250".to_string());
        s
    }

    /// The reference "circle N" of the scaling benchmark: ring radius `3N / 2π` (arc spacing 3).
    #[must_use]
    pub fn scaling_circle(count: u32) -> Self {
        let radius = Fx::from_num(3 * i64::from(count)) / Fx::TAU;
        let mut s = Self::circle(count, radius);
        s.name = Some(format!("circle {count}"));
        s
    }

    /// The reference "crowd N": [`grid_agents`] with spacing 3, jitter 0.25, seed 12345, centred
    /// on the origin. Agents start overlapping (radius 1.5).
    #[must_use]
    pub fn crowd(count: u32) -> Self {
        let mut s = Self::empty();
        s.name = Some(format!("crowd {count}"));
        s.agents = grid_agents(
            count,
            Fx::from_num(3),
            Fx::lit("0.25"),
            12345,
            Vec2::ZERO,
            s.defaults,
        );
        s
    }

    /// Parses and validates a scenario in the TOML format of [`docs::scenarios`](crate::docs::scenarios).
    ///
    /// # Errors
    /// [`ScenarioError::Parse`] for malformed TOML or unknown fields, [`ScenarioError::Invalid`]
    /// or [`ScenarioError::Sim`] for values outside the format's or the simulator's domain.
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        let scenario = file::parse(text)?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Reads, parses and validates a scenario file (see [`from_toml_str`](Self::from_toml_str)).
    ///
    /// # Errors
    /// [`ScenarioError::Io`] if the file cannot be read, otherwise as
    /// [`from_toml_str`](Self::from_toml_str).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ScenarioError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_toml_str(&text)
    }

    /// Checks every value against the simulator's domain and the format's own rules.
    ///
    /// # Errors
    /// The first problem found, naming where it is.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        check_time_step(self.time_step).map_err(sim_err("time_step"))?;
        self.defaults
            .validate(self.time_step)
            .map_err(sim_err("defaults"))?;
        if self.agents.len() > MAX_SCENARIO_AGENTS {
            return Err(ScenarioError::Invalid {
                context: "agents".into(),
                reason: format!(
                    "{} agents; at most {MAX_SCENARIO_AGENTS} are allowed",
                    self.agents.len()
                ),
            });
        }
        for (i, a) in self.agents.iter().enumerate() {
            let ctx = || format!("agent {i}");
            a.params.validate(self.time_step).map_err(sim_err(ctx()))?;
            a.model.validate(self.time_step).map_err(sim_err(ctx()))?;
            check_point(a.start, "start").map_err(sim_err(ctx()))?;
            check_point(a.goal, "goal").map_err(sim_err(ctx()))?;
            check_velocity(a.velocity, "velocity").map_err(sim_err(ctx()))?;
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            let (ObstacleShape::Polygon(v) | ObstacleShape::Polyline(v)) = o;
            for &p in v {
                check_point(p, "obstacle vertex").map_err(sim_err(format!("obstacle #{i}")))?;
            }
        }
        let pref_speed = self.policy.pref_speed();
        if let Policy::Roadmap { vertices, .. } = &self.policy {
            if vertices.len() > MAX_ROADMAP_VERTICES {
                return Err(ScenarioError::Invalid {
                    context: "policy".into(),
                    reason: format!("at most {MAX_ROADMAP_VERTICES} roadmap vertices"),
                });
            }
            for &p in vertices {
                check_point(p, "roadmap vertex").map_err(sim_err("policy"))?;
            }
        }
        check_range(
            pref_speed,
            Fx::ZERO,
            domain::MAX_SPEED,
            "pref_speed",
            "0 ..= 1,000",
        )
        .map_err(sim_err("policy"))?;
        check_range(
            self.policy.slow_within(),
            Fx::ZERO,
            domain::MAX_COORD,
            "slow_within",
            "0 ..= 1,000,000",
        )
        .map_err(sim_err("policy"))?;
        let slow = self.policy.slow_within();
        if slow != Fx::ZERO && slow < Fx::lit("0.001") {
            return Err(ScenarioError::Invalid {
                context: "policy".into(),
                reason: "slow_within must be 0 or at least 0.001".into(),
            });
        }
        if let Some(p) = self.perturbation {
            let room = domain::MAX_SPEED - pref_speed;
            if p.magnitude < Fx::ZERO || p.magnitude > room {
                return Err(ScenarioError::Invalid {
                    context: "perturbation".into(),
                    reason: format!(
                        "magnitude {} must lie in 0 ..= {room} (pref_speed + magnitude <= 1,000)",
                        p.magnitude
                    ),
                });
            }
        }
        if let Some(t) = self.goal_tolerance {
            check_range(
                t,
                Fx::ZERO,
                domain::MAX_COORD,
                "goal_tolerance",
                "0 ..= 1,000,000",
            )
            .map_err(sim_err("goal_tolerance"))?;
        }
        self.validate_events()?;
        self.validate_routes()?;
        self.validate_navigation()
    }

    /// How many agents the scene ever has: its agents and those its events add.
    fn total_agents(&self) -> usize {
        self.agents.len()
            + self
                .events
                .iter()
                .filter(|e| matches!(e.action, EventAction::AddAgent(_)))
                .count()
    }

    /// Routes: each belongs to an agent of the scene, within the length bounds, every point in
    /// the coordinate domain; the goal-seeking policy; a tolerance in range.
    fn validate_routes(&self) -> Result<(), ScenarioError> {
        if let Some(t) = self.waypoint_tolerance {
            check_range(
                t,
                Fx::ZERO,
                domain::MAX_COORD,
                "waypoint_tolerance",
                "0 ..= 1,000,000",
            )
            .map_err(sim_err("policy"))?;
        }
        let total_agents = self.total_agents();
        let mut total = 0usize;
        for (&id, route) in &self.routes {
            let ctx = || format!("agent {}", id.0);
            if id.0 as usize >= total_agents {
                return Err(ScenarioError::Invalid {
                    context: ctx(),
                    reason: format!("has a route but the scene has only {total_agents} agents"),
                });
            }
            if matches!(self.policy, Policy::Roadmap { .. }) && !route.is_empty() {
                return Err(ScenarioError::Invalid {
                    context: ctx(),
                    reason: "a route needs the goal_seeking policy (the roadmap policy plans \
                             its own path)"
                        .into(),
                });
            }
            if route.len() > MAX_ROUTE_WAYPOINTS {
                return Err(ScenarioError::Invalid {
                    context: ctx(),
                    reason: format!(
                        "a route holds at most {MAX_ROUTE_WAYPOINTS} waypoints before the goal"
                    ),
                });
            }
            total += route.len();
            if total > MAX_TOTAL_WAYPOINTS {
                return Err(ScenarioError::Invalid {
                    context: "routes".into(),
                    reason: format!("at most {MAX_TOTAL_WAYPOINTS} waypoints in all"),
                });
            }
            for (k, &p) in route.iter().enumerate() {
                check_point(p, "waypoint")
                    .map_err(sim_err(format!("agent {}: route point #{k}", id.0)))?;
            }
        }
        Ok(())
    }

    /// Events: ascending ticks; each targets an agent (an obstacle) that exists at that point
    /// of the list (a scenario agent or one added by an earlier event, not removed by an earlier
    /// event); values inside the domain; added obstacles valid as for
    /// [`Simulator::add_obstacle`].
    fn validate_events(&self) -> Result<(), ScenarioError> {
        let mut alive: Vec<bool> = vec![true; self.agents.len()];
        let mut obstacles: Vec<bool> = vec![true; self.obstacles.len()];
        let mut last_tick = 0;
        for (i, e) in self.events.iter().enumerate() {
            let ctx = || format!("event #{i} (tick {})", e.tick);
            if e.tick < last_tick {
                return Err(ScenarioError::Invalid {
                    context: ctx(),
                    reason: format!("ticks must not decrease (previous event: tick {last_tick})"),
                });
            }
            last_tick = e.tick;
            if let Some(id) = e.action.target()
                && !alive.get(id.0 as usize).copied().unwrap_or(false)
            {
                return Err(ScenarioError::Invalid {
                    context: ctx(),
                    reason: format!(
                        "agent {} does not exist at this point (not added yet, or removed)",
                        id.0
                    ),
                });
            }
            match &e.action {
                &EventAction::AddAgent(a) => {
                    if alive.len() >= MAX_SCENARIO_AGENTS {
                        return Err(ScenarioError::Invalid {
                            context: ctx(),
                            reason: format!("at most {MAX_SCENARIO_AGENTS} agents are allowed"),
                        });
                    }
                    a.params.validate(self.time_step).map_err(sim_err(ctx()))?;
                    a.model.validate(self.time_step).map_err(sim_err(ctx()))?;
                    check_point(a.start, "start").map_err(sim_err(ctx()))?;
                    check_point(a.goal, "goal").map_err(sim_err(ctx()))?;
                    check_velocity(a.velocity, "velocity").map_err(sim_err(ctx()))?;
                    alive.push(true);
                }
                &EventAction::RemoveAgent(id) => alive[id.0 as usize] = false,
                &EventAction::SetGoal { goal, .. } => {
                    check_point(goal, "goal").map_err(sim_err(ctx()))?;
                }
                EventAction::SetParams { params, .. } => {
                    params.validate(self.time_step).map_err(sim_err(ctx()))?;
                }
                &EventAction::SetPosition { position, .. } => {
                    check_point(position, "position").map_err(sim_err(ctx()))?;
                }
                &EventAction::SetVelocity { velocity, .. } => {
                    check_velocity(velocity, "velocity").map_err(sim_err(ctx()))?;
                }
                EventAction::SetModel { model, .. } => {
                    model.validate(self.time_step).map_err(sim_err(ctx()))?;
                }
                EventAction::AddObstacle(_) | EventAction::RemoveObstacle(_)
                    if matches!(self.policy, Policy::Roadmap { .. }) =>
                {
                    return Err(ScenarioError::Invalid {
                        context: ctx(),
                        reason: "obstacle events need the goal-seeking policy (the roadmap is \
                                 built once, from the scene's obstacles)"
                            .into(),
                    });
                }
                EventAction::AddObstacle(shape) => {
                    crate::obstacle::polygon::validate(shape).map_err(sim_err(ctx()))?;
                    obstacles.push(true);
                }
                EventAction::Group(c) => {
                    c.validate_values(self.time_step).map_err(sim_err(ctx()))?;
                }
                &EventAction::RemoveObstacle(id) => {
                    let Some(present) = obstacles.get_mut(id.0 as usize).filter(|p| **p) else {
                        return Err(ScenarioError::Invalid {
                            context: ctx(),
                            reason: format!(
                                "obstacle {} does not exist at this point (not added yet, or \
                                 removed)",
                                id.0
                            ),
                        });
                    };
                    *present = false;
                }
            }
        }
        Ok(())
    }

    /// Validates the scenario and creates the simulator (agent `i` gets id `i`; the `k`-th agent
    /// added by an event will get id `agents.len() + k`) and its [`Driver`], which applies the
    /// events at their ticks. With obstacles, their derived data is built
    /// ([`Simulator::process_obstacles`]); with the roadmap policy, the roadmap graph too; with
    /// navigation, the simulator's navigation settings ([`nav_params`](Self::nav_params)) and
    /// so its mesh, and every navigating agent gets its [`Command::NavigateTo`].
    ///
    /// # Errors
    /// As [`validate`](Self::validate), plus [`ScenarioError::Sim`] if the simulator rejects an
    /// obstacle or the navigation settings (a mesh cap passed).
    pub fn build(&self) -> Result<(Simulator, Driver), ScenarioError> {
        self.validate()?;
        let mut sim = Simulator::new(SimulatorParams {
            time_step: self.time_step,
            agent_defaults: self.defaults,
        })
        .map_err(sim_err("simulator"))?;
        let mut ids = Vec::with_capacity(self.agents.len());
        for (i, a) in self.agents.iter().enumerate() {
            let id = sim
                .add_agent_with(a.start, a.params)
                .map_err(sim_err(format!("agent {i}")))?;
            sim.set_agent_velocity(id, a.velocity)
                .map_err(sim_err(format!("agent {i}")))?;
            if !a.model.is_default() {
                sim.set_agent_model(id, a.model)
                    .map_err(sim_err(format!("agent {i}")))?;
            }
            ids.push(id);
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            sim.add_obstacle(o.clone())
                .map_err(sim_err(format!("obstacle #{i}")))?;
        }
        sim.set_obstacle_neighbor_mode(self.obstacle_neighbors);
        sim.set_liveness(self.liveness);
        if !self.obstacles.is_empty() {
            sim.process_obstacles();
        }
        if let Some(params) = self.nav_params() {
            sim.set_navigation(Some(params))
                .map_err(sim_err("navigation"))?;
        }
        let driver = Driver::new(self, ids, &sim);
        if let Policy::GoalSeeking {
            pref_speed,
            slow_within,
        } = self.policy
        {
            sim.set_steering(Steering {
                speed: Some(pref_speed),
                slow_within: Some(slow_within),
                // Planned paths turn corners a radius from the walls: with navigation on, a
                // waypoint is done within the agent's radius unless the file says otherwise
                // (the goal tolerance, often wide, would cut corners into the buildings).
                waypoint_tolerance: self.waypoint_tolerance.or(if self.navigation.is_some() {
                    None
                } else {
                    self.goal_tolerance
                }),
                perturbation: self.perturbation,
                rvo2_goals: self.rvo2_goals,
                ..Steering::default()
            })
            .map_err(sim_err("policy"))?;
            for (i, a) in self.agents.iter().enumerate() {
                for c in driver.route_orders(i, a.goal) {
                    sim.apply(&c).map_err(sim_err(format!("agent {i}")))?;
                }
            }
        }
        Ok((sim, driver))
    }
}

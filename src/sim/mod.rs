//! The [`Simulator`]: agents, obstacles and the tick pipeline.

mod buried;
mod formation;
mod inputs;
mod navigation;
mod orders;
mod orders_at_rest;
mod state;

pub use navigation::NavRecord;
pub(crate) use navigation::{NavState, TrafficState};
pub use state::SimState;

use crate::agent::{Agent, AgentId, AgentParams, Agents};
use crate::command::CommandQueue;
use crate::domain::{check_point, check_time_step, check_velocity};
use crate::error::SimError;
use crate::hash::{StateRef, StreamHasher};
use crate::liveness::Liveness;
use crate::math::{Fx, Vec2};
use crate::obstacle::{ObstacleId, ObstacleNeighbors, ObstacleSet, ObstacleShape};
use crate::orders::{Order, Orders, Steering};
use crate::tick::{AgentOutcome, Pre, StageClock, StageTimes, StepStats, Workspace};
use inputs::InputLog;
use navigation::NavDerived;
use std::sync::Arc;

/// Simulator-wide parameters, checked by [`Simulator::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimulatorParams {
    /// Seconds per [`step`](Simulator::step). Default 0.25 (RVO2's Circle example).
    pub time_step: Fx,
    /// Parameters given to agents added with [`add_agent`](Simulator::add_agent).
    pub agent_defaults: AgentParams,
}

impl Default for SimulatorParams {
    fn default() -> Self {
        Self {
            time_step: Fx::lit("0.25"),
            agent_defaults: AgentParams::default(),
        }
    }
}

/// A deterministic ORCA crowd simulator (RVO2's `RVOSimulator`, in fixed point).
///
/// All agents' new velocities are computed from the same pre-step state, then applied, as in
/// RVO2. Agents live in dense slots ordered by [`AgentId`]; every loop runs in that order.
///
/// ```
/// use lockstep_orca::{Simulator, SimulatorParams, Vec2, Fx};
///
/// let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
/// let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
/// let b = sim.add_agent(Vec2::from_int(10, 1)).unwrap();
/// sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0)).unwrap();
/// sim.set_agent_pref_velocity(b, Vec2::from_int(-1, 0)).unwrap();
/// for _ in 0..100 {
///     sim.step().unwrap();
/// }
/// // They passed each other without touching.
/// assert!(sim.agent_position(a).unwrap().x > Fx::from_num(10));
/// assert_eq!(sim.tick(), 100);
/// ```
#[derive(Clone, Debug)]
pub struct Simulator {
    time_step: Fx,
    global_time: Fx,
    tick: u64,
    next_id: u32,
    defaults: AgentParams,
    liveness: Liveness,
    steering: Steering,
    agents: Agents,
    /// Every agent's move order ([`crate::orders`]), by id.
    orders: Orders,
    /// Shared with saved states ([`SimState`]) until changed (copy on write).
    obstacles: Arc<ObstacleSet>,
    /// Queued inputs (see [`crate::command`]): pending commands are state, hashed and
    /// snapshotted.
    commands: CommandQueue,
    /// Navigation settings and records ([`navigation`]): state.
    nav: NavState,
    /// The navigation mesh, derived from the obstacle set and the settings (not state).
    nav_mesh: NavDerived,
    /// The current step's applied inputs (to undo them if it fails) and the last step's
    /// rejected commands: not state.
    inputs: InputLog,
    work: Workspace,
    /// Each slot's cap on its obstacle time horizon this step (empty: none), derived from the
    /// traffic levels after stage 1a ([`Simulator::obstacle_horizon_caps`]): not state.
    obstacle_caps: Vec<Fx>,
    /// The agents on their way near a lane portal or a choke at least `5.2 r` wide this step
    /// (ascending id, `navigation::traffic::short_look_portals`), found by traffic control in
    /// stage 1a for [`Simulator::obstacle_horizon_caps`], which empties it: not state.
    near_lanes: Vec<AgentId>,
}

/// Everything a restored simulator is made of (checked by the caller, [`crate::snapshot`]).
pub(crate) struct RestoredState {
    pub tick: u64,
    pub global_time: Fx,
    pub time_step: Fx,
    pub next_id: u32,
    pub defaults: AgentParams,
    pub liveness: Liveness,
    pub steering: Steering,
    pub agents: Agents,
    pub orders: Orders,
    pub obstacles: ObstacleSet,
    pub commands: CommandQueue,
    pub nav: NavState,
}

impl Simulator {
    /// Creates an empty simulator.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] / [`SimError::VelocityScale`] if a parameter is outside
    /// [`crate::domain`].
    pub fn new(params: SimulatorParams) -> Result<Self, SimError> {
        check_time_step(params.time_step)?;
        params.agent_defaults.validate(params.time_step)?;
        Ok(Self {
            time_step: params.time_step,
            global_time: Fx::ZERO,
            tick: 0,
            next_id: 0,
            defaults: params.agent_defaults,
            liveness: Liveness::default(),
            steering: Steering::default(),
            agents: Agents::default(),
            orders: Orders::default(),
            obstacles: Arc::default(),
            commands: CommandQueue::default(),
            nav: NavState::default(),
            nav_mesh: NavDerived::default(),
            inputs: InputLog::default(),
            work: Workspace::default(),
            obstacle_caps: Vec::new(),
            near_lanes: Vec::new(),
        })
    }

    /// A simulator made of restored state (validated by the caller).
    pub(crate) fn from_restored(r: RestoredState) -> Self {
        let nav_mesh = NavDerived::build(&r.obstacles, r.nav.params.as_ref());
        let mut sim = Self {
            time_step: r.time_step,
            global_time: r.global_time,
            tick: r.tick,
            next_id: r.next_id,
            defaults: r.defaults,
            liveness: r.liveness,
            steering: r.steering,
            agents: r.agents,
            orders: r.orders,
            obstacles: Arc::new(r.obstacles),
            commands: r.commands,
            nav: r.nav,
            nav_mesh,
            inputs: InputLog::default(),
            work: Workspace::default(),
            obstacle_caps: Vec::new(),
            near_lanes: Vec::new(),
        };
        // The boundary's walls, derived from the settings as `set_navigation` derives them.
        sim.sync_walls();
        sim
    }

    // ------------------------------------------------------------------ the tick

    /// Builds the obstacle tree if the set changed (copying a set shared with a saved state),
    /// with the boundary's walls of the settings.
    fn build_obstacles(&mut self) {
        if self.nav_mesh.stale {
            self.sync_walls();
        }
        if !self.obstacles.is_built() {
            Arc::make_mut(&mut self.obstacles).ensure_built();
        }
    }

    /// Advances the simulation by one time step.
    ///
    /// The stages, in order (see [`crate::tick`] for what each reads and writes): apply the
    /// commands queued for this tick ([`crate::command`]), plan the pending navigation
    /// requests within the budget ([`set_navigation`](Self::set_navigation)), move the
    /// formation marches' frames ([`crate::orders::formation::march`]), steer the agents
    /// that have an order ([`crate::orders`]) and the marching members, rebuild the obstacle
    /// tree if the obstacle set changed, cap the obstacle time horizon of the units going
    /// through a door or on their way near a lane portal (traffic control,
    /// [`crate::navigation::traffic`]), build the agent
    /// kd-tree, find each agent's neighbours, solve each pair once, build each agent's ORCA
    /// lines and solve its LP, integrate, then commit the inputs.
    /// [`step_stats`](Self::step_stats) reports what the stages did.
    ///
    /// # Errors
    /// [`SimError::AgentLeftDomain`] if an agent would leave the coordinate domain, or
    /// [`SimError::OutOfDomain`] if the clock would pass 2³¹ s; the state is then unchanged
    /// (the tick's commands are undone and stay queued).
    pub fn step(&mut self) -> Result<(), SimError> {
        self.work.stats = StepStats {
            tick: self.tick,
            ..StepStats::default()
        };
        let mut times = StageTimes::default();
        // Stage 1a adds its planning's time here (`navigate`); kept into `times` below.
        self.work.times.planning = std::time::Duration::ZERO;
        let mut clock = StageClock::start(self.work.timing);
        self.apply_inputs();
        clock.lap(&mut times.inputs);
        self.near_lanes.clear();
        self.navigate();
        clock.lap(&mut times.navigate);
        // Formation marches (sim/formation_march.rs): the frames move, then the members are
        // steered after the orders.
        let marched = self.march_formations();
        // Built here (stage 1b) or already in stage 1a's traffic control.
        self.work.stats.obstacle_tree_rebuilt |= !self.obstacles.is_built();
        self.steer_orders();
        self.steer_marches();
        clock.lap(&mut times.orders);
        self.build_obstacles();
        clock.lap(&mut times.obstacles);
        self.work.stats.agents = self.agents.len() as u64;
        self.obstacle_horizon_caps();
        let pre = Pre::new(
            &self.agents,
            &self.obstacles,
            (self.time_step, self.tick),
            self.liveness,
            &self.obstacle_caps,
        );
        self.work.build_agent_tree(pre);
        clock.lap(&mut times.tree);
        self.work.find_neighbors_and_pairs(pre);
        clock.lap(&mut times.neighbors);
        self.work.build_lines_and_solve(pre);
        clock.lap(&mut times.solve);
        let result = self.integrate();
        if result.is_err() {
            self.unmarch(marched);
        }
        self.finish_inputs(result.is_ok());
        clock.lap(&mut times.integrate);
        times.planning = self.work.times.planning;
        self.work.times = times;
        result
    }

    /// Turns the per-stage timing of [`step`](Self::step) on or off (off by default). Timing
    /// reads the monotonic clock a few times per step; nothing the step computes depends on
    /// it. Not state: not hashed, snapshotted or restored (a restored simulator starts with it
    /// off).
    pub fn set_stage_timing(&mut self, on: bool) {
        self.work.timing = on;
    }

    /// The wall-clock time of each stage of the last [`step`](Self::step), when stage timing is
    /// on ([`set_stage_timing`](Self::set_stage_timing)); zero otherwise.
    #[must_use]
    pub fn stage_times(&self) -> &StageTimes {
        &self.work.times
    }

    /// What happened to agent `id` in the last [`step`](Self::step): which program solved it
    /// and what it relaxed, whether it is stalled and since when, whether it yielded or is
    /// blocked by a wall. `None` before the first step, for agents added since, and after a
    /// step that failed.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_outcome(&self, id: AgentId) -> Result<Option<AgentOutcome>, SimError> {
        self.slot(id)?;
        Ok(self.work.outcome_of_id(id))
    }

    /// The deadlock-resolution mode ([`crate::liveness`]); [`Liveness::Resolve`] unless set.
    #[must_use]
    pub fn liveness(&self) -> Liveness {
        self.liveness
    }

    /// Sets the deadlock-resolution mode. Part of the state (hashed, kept in snapshots).
    /// Switching to [`Liveness::Rvo2`] zeroes every stall counter at the next step.
    pub fn set_liveness(&mut self, mode: Liveness) {
        self.liveness = mode;
    }

    /// What the stages of the last [`step`](Self::step) did (counters named after the stages).
    /// After a failed step: the counters of the attempt. Default before the first step.
    #[must_use]
    pub fn step_stats(&self) -> &StepStats {
        &self.work.stats
    }

    fn integrate(&mut self) -> Result<(), SimError> {
        // The clock is checked first: 2³¹ s (68 years) of simulated time is the domain's limit,
        // and the tick counter's 2⁶⁴ - 1 (crate::domain).
        let global_time =
            self.global_time
                .checked_add(self.time_step)
                .ok_or(SimError::OutOfDomain {
                    what: "global_time",
                    allowed: "below 2^31 seconds",
                })?;
        let tick = self.tick.checked_add(1).ok_or(SimError::OutOfDomain {
            what: "tick",
            allowed: "below 2^64 - 1",
        })?;
        if let Some(slot) = self.work.first_left_domain() {
            return Err(SimError::AgentLeftDomain(self.agents.ids()[slot]));
        }
        self.work.commit_motion(&mut self.agents);
        self.global_time = global_time;
        self.tick = tick;
        Ok(())
    }

    // ------------------------------------------------------------------ agents

    /// Adds an agent with the default parameters at `position`, with zero velocity and zero
    /// preferred velocity. Returns its id (ids increase and are never reused).
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] for a position outside the domain, [`SimError::TooManyAgents`]
    /// when the id space is exhausted.
    pub fn add_agent(&mut self, position: Vec2) -> Result<AgentId, SimError> {
        self.add_agent_with(position, self.defaults)
    }

    /// Adds an agent with its own parameters.
    ///
    /// # Errors
    /// As [`add_agent`](Self::add_agent), plus parameter validation errors.
    pub fn add_agent_with(
        &mut self,
        position: Vec2,
        params: AgentParams,
    ) -> Result<AgentId, SimError> {
        check_point(position, "position")?;
        params.validate(self.time_step)?;
        if self.agents.len() >= crate::domain::MAX_AGENTS {
            return Err(SimError::TooManyAgents);
        }
        let next = self.next_id.checked_add(1).ok_or(SimError::TooManyAgents)?;
        let id = AgentId(self.next_id);
        self.next_id = next;
        self.agents.push(Agent {
            id,
            position,
            velocity: Vec2::ZERO,
            pref_velocity: Vec2::ZERO,
            params,
            stall: 0,
            model: crate::agent_model::AgentModel::default(),
        });
        Ok(id)
    }

    /// Removes an agent. Other agents keep their ids; the removed id is never reused.
    ///
    /// Costs one pass over the agents: to remove many at once, use
    /// [`remove_agents`](Self::remove_agents) or queue [`Command::RemoveAgent`]s for one tick
    /// (either way, one pass in all).
    ///
    /// [`Command::RemoveAgent`]: crate::Command::RemoveAgent
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`] if no such agent exists.
    pub fn remove_agent(&mut self, id: AgentId) -> Result<(), SimError> {
        self.remove_agents(&[id])
    }

    /// Removes every agent in `ids` in one pass over the agents (O(n + k log k) for `k` ids).
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`] for an id that names no agent (the first in the order given)
    /// or that appears twice; nothing is removed then.
    pub fn remove_agents(&mut self, ids: &[AgentId]) -> Result<(), SimError> {
        let mut slots = Vec::with_capacity(ids.len());
        for &id in ids {
            slots.push((self.slot(id)?, id));
        }
        slots.sort_unstable();
        if let Some(w) = slots.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(SimError::UnknownAgent(w[1].1));
        }
        for &(slot, id) in &slots {
            self.agents.mark_removed(slot);
            self.orders.remove(&id);
            self.nav.forget(id);
        }
        self.agents.compact(|_| {});
        Ok(())
    }

    fn slot(&self, id: AgentId) -> Result<usize, SimError> {
        self.agents.slot(id).ok_or(SimError::UnknownAgent(id))
    }

    /// The agent store: every agent's state by slot (ascending id), read-only.
    #[must_use]
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// Number of agents.
    #[must_use]
    pub fn num_agents(&self) -> usize {
        self.agents.len()
    }

    /// Ids of all agents, ascending.
    #[must_use]
    pub fn agent_ids(&self) -> &[AgentId] {
        self.agents.ids()
    }

    /// Whether an agent with this id exists.
    #[must_use]
    pub fn contains_agent(&self, id: AgentId) -> bool {
        self.slot(id).is_ok()
    }

    /// Position of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_position(&self, id: AgentId) -> Result<Vec2, SimError> {
        Ok(self.agents.positions()[self.slot(id)?])
    }

    /// Current velocity of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_velocity(&self, id: AgentId) -> Result<Vec2, SimError> {
        Ok(self.agents.velocities()[self.slot(id)?])
    }

    /// Preferred velocity of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_pref_velocity(&self, id: AgentId) -> Result<Vec2, SimError> {
        Ok(self.agents.pref_velocities()[self.slot(id)?])
    }

    /// Parameters of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_params(&self, id: AgentId) -> Result<AgentParams, SimError> {
        Ok(self.agents.params()[self.slot(id)?])
    }

    /// Sets an agent's position (teleport).
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], [`SimError::OutOfDomain`].
    pub fn set_agent_position(&mut self, id: AgentId, position: Vec2) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        check_point(position, "position")?;
        self.agents.set_position(slot, position);
        Ok(())
    }

    /// Sets an agent's current velocity.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], [`SimError::OutOfDomain`].
    pub fn set_agent_velocity(&mut self, id: AgentId, velocity: Vec2) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        check_velocity(velocity, "velocity")?;
        self.agents.set_velocity(slot, velocity);
        Ok(())
    }

    /// Sets an agent's preferred velocity (the velocity it would take without neighbours).
    /// It may exceed the agent's max speed; the solver then projects it onto the speed circle.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], [`SimError::OutOfDomain`].
    pub fn set_agent_pref_velocity(
        &mut self,
        id: AgentId,
        pref_velocity: Vec2,
    ) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        check_velocity(pref_velocity, "pref_velocity")?;
        self.agents.set_pref_velocity(slot, pref_velocity);
        Ok(())
    }

    /// Replaces all parameters of an agent at once.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], or a validation error (nothing changes).
    pub fn set_agent_params(&mut self, id: AgentId, params: AgentParams) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        params.validate(self.time_step)?;
        self.agents.set_params(slot, params);
        Ok(())
    }

    /// An agent's model beyond RVO2's ([`AgentModel`](crate::agent_model::AgentModel): layers and mask,
    /// body radius, acceleration, support, terrain); the default for every new agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_model(&self, id: AgentId) -> Result<crate::agent_model::AgentModel, SimError> {
        Ok(self.agents.model(self.slot(id)?))
    }

    /// Replaces an agent's model ([`AgentModel`](crate::agent_model::AgentModel), see
    /// [`crate::docs::agent_model`]). Setting the default model again turns it off.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], or a validation error (nothing changes).
    pub fn set_agent_model(
        &mut self,
        id: AgentId,
        model: crate::agent_model::AgentModel,
    ) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        model.validate(self.time_step)?;
        self.agents.set_model(slot, model);
        Ok(())
    }

    fn update_params(
        &mut self,
        id: AgentId,
        f: impl FnOnce(&mut AgentParams),
    ) -> Result<(), SimError> {
        let mut p = self.agent_params(id)?;
        f(&mut p);
        self.set_agent_params(id, p)
    }

    /// Sets an agent's radius. # Errors: as [`set_agent_params`](Self::set_agent_params).
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_radius(&mut self, id: AgentId, radius: Fx) -> Result<(), SimError> {
        self.update_params(id, |p| p.radius = radius)
    }

    /// Sets an agent's maximum speed.
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_max_speed(&mut self, id: AgentId, max_speed: Fx) -> Result<(), SimError> {
        self.update_params(id, |p| p.max_speed = max_speed)
    }

    /// Sets an agent's neighbour distance.
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_neighbor_dist(&mut self, id: AgentId, dist: Fx) -> Result<(), SimError> {
        self.update_params(id, |p| p.neighbor_dist = dist)
    }

    /// Sets an agent's maximum neighbour count.
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_max_neighbors(&mut self, id: AgentId, max: u32) -> Result<(), SimError> {
        self.update_params(id, |p| p.max_neighbors = max)
    }

    /// Sets an agent's avoidance priority ([`AgentParams::priority`]).
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_priority(&mut self, id: AgentId, priority: u8) -> Result<(), SimError> {
        self.update_params(id, |p| p.priority = priority)
    }

    /// Sets an agent's time horizon (agents).
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_time_horizon(&mut self, id: AgentId, t: Fx) -> Result<(), SimError> {
        self.update_params(id, |p| p.time_horizon = t)
    }

    /// Sets an agent's time horizon (obstacles). While navigation's traffic control lets the
    /// agent through a door, or the agent is on its way near a lane portal, the horizon in use
    /// for that step is capped (1 s, 0.5 s with the right of way, 2 s near a lane portal, at
    /// least two time steps); this parameter stays as set (see
    /// [`AgentParams::time_horizon_obst`]).
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_time_horizon_obst(&mut self, id: AgentId, t: Fx) -> Result<(), SimError> {
        self.update_params(id, |p| p.time_horizon_obst = t)
    }

    /// Agents found as neighbours of `id` during the last [`step`](Self::step), nearest first
    /// (ties by id). Empty before the first step, for agents added since, and for every agent
    /// after a step that failed.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_neighbors(&self, id: AgentId) -> Result<Vec<AgentId>, SimError> {
        self.slot(id)?;
        Ok(self.work.neighbors_of_id(id))
    }

    // ------------------------------------------------------------------ global

    /// Seconds per step.
    #[must_use]
    pub fn time_step(&self) -> Fx {
        self.time_step
    }

    /// Sets the time step.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`], or [`SimError::VelocityScale`] if some agent's radius is too
    /// large for it.
    pub fn set_time_step(&mut self, time_step: Fx) -> Result<(), SimError> {
        check_time_step(time_step)?;
        for p in self.agents.params() {
            p.validate(time_step)?;
        }
        if let Some(models) = self.agents.models() {
            for m in models {
                m.validate(time_step)?;
            }
        }
        self.defaults.validate(time_step)?;
        self.time_step = time_step;
        Ok(())
    }

    /// Parameters given to new agents by [`add_agent`](Self::add_agent).
    #[must_use]
    pub fn agent_defaults(&self) -> AgentParams {
        self.defaults
    }

    /// Sets the parameters given to new agents.
    ///
    /// # Errors
    /// A validation error.
    pub fn set_agent_defaults(&mut self, params: AgentParams) -> Result<(), SimError> {
        params.validate(self.time_step)?;
        self.defaults = params;
        Ok(())
    }

    /// Simulated time in seconds (sum of all step lengths).
    #[must_use]
    pub fn global_time(&self) -> Fx {
        self.global_time
    }

    /// The id the next added agent receives (ids are handed out ascending, never reused).
    #[must_use]
    pub fn next_agent_id(&self) -> AgentId {
        AgentId(self.next_id)
    }

    /// Number of steps taken.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Adds a static obstacle (see [`ObstacleShape`] for the vertex conventions) and returns its
    /// stable id. The obstacle tree is rebuilt automatically before the next step.
    ///
    /// # Errors
    /// [`SimError::InvalidObstacle`] or [`SimError::OutOfDomain`]; nothing changes.
    ///
    /// With navigation on ([`set_navigation`](Self::set_navigation)) the navigation mesh is
    /// rebuilt now (to add many obstacles, add them before turning navigation on, or queue
    /// them as commands for one tick: one rebuild per tick), and the next step checks the
    /// navigating agents' paths against it.
    ///
    /// With navigation on, the agents the new obstacle covers (their discs overlap it) and
    /// that stood in the walkable space are moved now to a place walkable for their radius
    /// next to it, reached without crossing a wall: the nearest of the obstacle's edges
    /// pushed out by the radius, else the nearest walkable point
    /// ([`nav_nearest_walkable`](Self::nav_nearest_walkable)); so is every agent a queued
    /// [`Command::AddObstacle`](crate::Command::AddObstacle) covers, in stage 1a of its tick
    /// ([`StepStats::agents_freed`]). Without navigation they are not moved: they leave the
    /// obstacle by their own avoidance, which may take seconds (docs/obstacles.md §
    /// "Obstacles added over agents").
    pub fn add_obstacle(&mut self, shape: ObstacleShape) -> Result<ObstacleId, SimError> {
        // The mesh of the set as it stands (what the moves must not cross).
        self.sync_nav_mesh();
        let old = self.nav_mesh.mesh.clone();
        let id = Arc::make_mut(&mut self.obstacles).add(shape)?;
        self.obstacles_changed();
        self.sync_nav_mesh();
        self.free_buried(old, &[id], false);
        Ok(id)
    }

    /// Removes an obstacle added earlier.
    ///
    /// # Errors
    /// [`SimError::UnknownObstacle`].
    /// Rebuilds the navigation mesh as [`add_obstacle`](Self::add_obstacle) does.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<(), SimError> {
        Arc::make_mut(&mut self.obstacles).remove(id)?;
        self.obstacles_changed();
        self.sync_nav_mesh();
        Ok(())
    }

    /// Chooses which obstacle neighbours the agents see: whole edges (default) or RVO2's split
    /// fragments for RVO2 fidelity (see [`ObstacleNeighbors`] for the trade-offs). Part of the
    /// state (hashed, kept in snapshots); a change rebuilds the obstacle tree before the next
    /// step. Read it back with `obstacles().neighbor_mode()`.
    pub fn set_obstacle_neighbor_mode(&mut self, mode: ObstacleNeighbors) {
        Arc::make_mut(&mut self.obstacles).set_neighbor_mode(mode);
    }

    /// Builds the obstacle tree now (RVO2's `processObstacles`), and the navigation mesh if
    /// the set changed through [`obstacles_mut`](Self::obstacles_mut). Optional:
    /// [`step`](Self::step) rebuilds both when the obstacle set changed, so forgetting this
    /// call is never an error.
    pub fn process_obstacles(&mut self) {
        self.build_obstacles();
        self.sync_nav_mesh();
    }

    /// Whether a disc of `radius` can move in a straight line from `from` to `to` without
    /// touching an obstacle (RVO2's `queryVisibility`).
    pub fn query_visibility(&mut self, from: Vec2, to: Vec2, radius: Fx) -> bool {
        self.build_obstacles();
        self.obstacles.query_visibility(from, to, radius)
    }

    /// The static obstacles.
    #[must_use]
    pub fn obstacles(&self) -> &ObstacleSet {
        &self.obstacles
    }

    /// Mutable access to the obstacles (the set rebuilds its tree before the next step, the
    /// navigation mesh is rebuilt then too, and the navigating agents' paths are checked: the
    /// call counts as a change of the set).
    pub fn obstacles_mut(&mut self) -> &mut ObstacleSet {
        self.obstacles_changed();
        Arc::make_mut(&mut self.obstacles)
    }

    // ------------------------------------------------------------------ hashing

    /// The view of the state that the canonical encoding covers.
    pub(crate) fn state_ref(&self, with_pending: bool) -> StateRef<'_> {
        StateRef {
            tick: self.tick,
            global_time: self.global_time,
            time_step: self.time_step,
            next_id: self.next_id,
            liveness: self.liveness,
            defaults: &self.defaults,
            agents: &self.agents,
            steering: &self.steering,
            orders: &self.orders,
            obstacles: &self.obstacles,
            pending: with_pending.then_some(&self.commands),
            nav: &self.nav,
        }
    }

    /// Appends the canonical byte encoding of the state (see [`crate::hash`]) to `out`.
    pub fn write_canonical_bytes(&self, out: &mut Vec<u8>) {
        crate::hash::write_state(&self.state_ref(true), out);
    }

    /// A stable 64-bit hash of the whole simulation state (see [`crate::hash`]): XXH3-64 of
    /// the [canonical bytes](Self::write_canonical_bytes), streamed (nothing is allocated).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = StreamHasher::new();
        crate::hash::write_state(&self.state_ref(true), &mut h);
        h.finish()
    }

    /// The state hash without the pending commands: equal to [`state_hash`](Self::state_hash)
    /// of the same state with an empty queue.
    ///
    /// Use it to detect desyncs between lockstep peers: with input delay, peers receive the
    /// commands for future ticks at different times, so their queues (and `state_hash`es)
    /// legitimately differ between ticks while everything already simulated is equal.
    /// `state_hash` covers the whole state (what a snapshot holds); `sync_hash` what has been
    /// simulated.
    #[must_use]
    pub fn sync_hash(&self) -> u64 {
        let mut h = StreamHasher::new();
        crate::hash::write_state(&self.state_ref(false), &mut h);
        h.finish()
    }

    /// A 128-bit hash of the whole state: XXH3-128 (seed 0) of the same
    /// [canonical bytes](Self::write_canonical_bytes) as [`state_hash`](Self::state_hash),
    /// streamed. For checksums that want 128 bits (ggrs's, for one).
    #[must_use]
    pub fn state_hash128(&self) -> u128 {
        let mut h = StreamHasher::new();
        crate::hash::write_state(&self.state_ref(true), &mut h);
        h.finish128()
    }

    /// The default parameters, the store, the orders, the obstacles and the queue (for
    /// snapshots).
    pub(crate) fn parts(&self) -> (&AgentParams, &Agents, &Orders, &ObstacleSet, &CommandQueue) {
        (
            &self.defaults,
            &self.agents,
            &self.orders,
            &self.obstacles,
            &self.commands,
        )
    }

    // ------------------------------------------------------------------ orders

    /// Agent `id`'s move order ([`crate::orders`]), `None` without one.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_order(&self, id: AgentId) -> Result<Option<&Order>, SimError> {
        self.slot(id)?;
        Ok(self.orders.get(&id))
    }

    /// Every order, ascending agent id.
    pub fn orders(&self) -> impl ExactSizeIterator<Item = (AgentId, &Order)> + '_ {
        self.orders.iter().map(|(&id, o)| (id, o))
    }

    /// How ordered agents are steered ([`crate::orders`]).
    #[must_use]
    pub fn steering(&self) -> Steering {
        self.steering
    }

    /// Sets how ordered agents are steered. Part of the state (hashed, kept in snapshots).
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] ([`Steering::validate`]); nothing changes then.
    pub fn set_steering(&mut self, steering: Steering) -> Result<(), SimError> {
        steering.validate()?;
        self.steering = steering;
        Ok(())
    }
}

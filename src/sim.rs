//! The [`Simulator`]: agents, obstacles and the tick pipeline.

use crate::agent::{AgentId, AgentParams};
use crate::command::{CommandQueue, PendingCommand};
use crate::domain::{check_point, check_time_step, check_velocity};
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use crate::obstacle::{ObstacleAgent, ObstacleId, ObstacleNeighbors, ObstacleSet, ObstacleShape};
use crate::orca::Line;
use crate::orca::lines::{AgentState, PairHalf};
use crate::orca::lp;
use crate::spatial::kdtree::{AgentTree, NeighborKey};

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

/// Reusable buffers of the tick: never part of the state, never hashed or snapshotted.
#[derive(Clone, Debug, Default)]
struct Workspace {
    tree: AgentTree,
    neighbors: Vec<NeighborKey>,
    obstacle_neighbors: Vec<(i128, u32)>,
    lines: Vec<Line>,
    lp_scratch: Vec<Line>,
    new_velocities: Vec<Vec2>,
    new_positions: Vec<Vec2>,
    /// Neighbours found by the last step, flat, with a `(start, len)` range per slot.
    neighbor_ids: Vec<AgentId>,
    neighbor_ranges: Vec<(u32, u32)>,
    /// The pair solution behind each entry of `neighbor_ids` (canonical frame).
    pairs: Vec<PairHalf>,
    canonical: Vec<u8>,
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
    pub(crate) time_step: Fx,
    pub(crate) global_time: Fx,
    pub(crate) tick: u64,
    pub(crate) next_id: u32,
    pub(crate) defaults: AgentParams,
    // Agent state by slot, slots in ascending id order (hot data in parallel vectors).
    pub(crate) ids: Vec<AgentId>,
    pub(crate) positions: Vec<Vec2>,
    pub(crate) velocities: Vec<Vec2>,
    pub(crate) pref_velocities: Vec<Vec2>,
    pub(crate) params: Vec<AgentParams>,
    pub(crate) obstacles: ObstacleSet,
    /// Queued inputs (see [`crate::command`]): pending commands are state, hashed and snapshotted.
    pub(crate) commands: CommandQueue,
    work: Workspace,
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
            ids: Vec::new(),
            positions: Vec::new(),
            velocities: Vec::new(),
            pref_velocities: Vec::new(),
            params: Vec::new(),
            obstacles: ObstacleSet::default(),
            commands: CommandQueue::default(),
            work: Workspace::default(),
        })
    }

    // ------------------------------------------------------------------ the tick

    /// Advances the simulation by one time step.
    ///
    /// Stages, in order: apply the commands queued for this tick ([`crate::command`]), rebuild
    /// the obstacle tree if the obstacle set changed, build the agent kd-tree, compute every
    /// agent's new velocity (neighbours, ORCA lines, LP), integrate.
    ///
    /// # Errors
    /// [`SimError::AgentLeftDomain`] if an agent would leave the coordinate domain; the state is
    /// then unchanged (the tick's commands are undone and stay queued).
    pub fn step(&mut self) -> Result<(), SimError> {
        self.apply_inputs();
        self.obstacles.ensure_built();
        self.build_agent_tree();
        self.compute_new_velocities();
        let result = self.integrate();
        self.finish_inputs(result.is_ok());
        result
    }

    fn build_agent_tree(&mut self) {
        self.work.tree.build(&self.positions);
    }

    fn compute_new_velocities(&mut self) {
        let n = self.ids.len();
        let w = &mut self.work;
        // Size the line buffers for the worst case once (obstacle fragments + agent
        // neighbours), so crowding into new walls never reallocates in the middle of a run.
        let max_obstacle_lines = self.obstacles.max_neighbor_count();
        let max_agent_lines = self.params.iter().map(|p| p.max_neighbors).max();
        let max_lines = max_obstacle_lines + max_agent_lines.unwrap_or(0) as usize;
        reserve_total(&mut w.obstacle_neighbors, max_obstacle_lines);
        reserve_total(&mut w.lines, max_lines);
        reserve_total(&mut w.lp_scratch, max_lines);
        let max_agent_lines = max_agent_lines.unwrap_or(0) as usize;
        reserve_total(&mut w.neighbors, max_agent_lines);
        w.new_velocities.clear();
        w.neighbor_ids.clear();
        w.neighbor_ranges.clear();
        w.pairs.clear();
        for slot in 0..n {
            let p = &self.params[slot];
            let me = AgentState {
                id: self.ids[slot],
                position: self.positions[slot],
                velocity: self.velocities[slot],
                radius: p.radius,
            };
            w.lines.clear();
            // Without obstacles (no BSP node) there are no obstacle lines: skip the query.
            let num_obstacle_lines = if max_obstacle_lines == 0 {
                0
            } else {
                self.obstacles.agent_lines_with(
                    &ObstacleAgent {
                        id: me.id,
                        position: me.position,
                        velocity: me.velocity,
                        radius: p.radius,
                        max_speed: p.max_speed,
                        time_horizon_obst: p.time_horizon_obst,
                    },
                    &mut w.lines,
                    &mut w.obstacle_neighbors,
                )
            };
            // The keys may stay packed: only the slots are read.
            let packed = w.tree.query_raw(
                &self.positions,
                slot as u32,
                p.neighbor_dist,
                p.max_neighbors as usize,
                &mut w.neighbors,
            );
            let start = w.neighbor_ids.len() as u32;
            for &key in &w.neighbors {
                let o = AgentTree::raw_slot(key, packed) as usize;
                let other = AgentState {
                    id: self.ids[o],
                    position: self.positions[o],
                    velocity: self.velocities[o],
                    radius: self.params[o].radius,
                };
                // A pair is solved once: when the other agent (lower id, so an earlier slot)
                // listed me with the same horizon, its solution is mine, negated. The same
                // bits as solving again.
                let solved = if o < slot && self.params[o].time_horizon == p.time_horizon {
                    let (first, len) = w.neighbor_ranges[o];
                    let range = first as usize..(first + len) as usize;
                    // Branch-free scan (ids are unique: at most one match).
                    let k = w.neighbor_ids[range.clone()].iter().enumerate().fold(
                        usize::MAX,
                        |found, (k, &id)| if id == me.id { k } else { found },
                    );
                    (k != usize::MAX).then(|| w.pairs[range.start + k])
                } else {
                    None
                };
                let pair = solved.unwrap_or_else(|| {
                    PairHalf::solve(&me, &other, p.time_horizon, self.time_step)
                });
                w.lines.push(pair.line_for(&me, &other));
                w.neighbor_ids.push(other.id);
                w.pairs.push(pair);
            }
            w.neighbor_ranges.push((start, w.neighbors.len() as u32));
            w.new_velocities.push(lp::solve(
                &w.lines,
                num_obstacle_lines,
                p.max_speed,
                self.pref_velocities[slot],
                &mut w.lp_scratch,
            ));
        }
    }

    fn integrate(&mut self) -> Result<(), SimError> {
        // The clock is checked first: 2³¹ s (68 years) of simulated time is the domain's limit.
        let global_time =
            self.global_time
                .checked_add(self.time_step)
                .ok_or(SimError::OutOfDomain {
                    what: "global_time",
                    allowed: "below 2^31 seconds",
                })?;
        let w = &mut self.work;
        w.new_positions.clear();
        for slot in 0..self.ids.len() {
            let p = self.positions[slot] + w.new_velocities[slot] * self.time_step;
            if check_point(p, "position").is_err() {
                return Err(SimError::AgentLeftDomain(self.ids[slot]));
            }
            w.new_positions.push(p);
        }
        std::mem::swap(&mut self.positions, &mut w.new_positions);
        self.velocities.copy_from_slice(&w.new_velocities);
        self.global_time = global_time;
        self.tick += 1;
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
        let next = self.next_id.checked_add(1).ok_or(SimError::TooManyAgents)?;
        let id = AgentId(self.next_id);
        self.next_id = next;
        self.ids.push(id);
        self.positions.push(position);
        self.velocities.push(Vec2::ZERO);
        self.pref_velocities.push(Vec2::ZERO);
        self.params.push(params);
        self.work.neighbor_ranges.push((0, 0));
        Ok(id)
    }

    /// Removes an agent. Other agents keep their ids; the removed id is never reused.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`] if no such agent exists.
    pub fn remove_agent(&mut self, id: AgentId) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        self.ids.remove(slot);
        self.positions.remove(slot);
        self.velocities.remove(slot);
        self.pref_velocities.remove(slot);
        self.params.remove(slot);
        if slot < self.work.neighbor_ranges.len() {
            self.work.neighbor_ranges.remove(slot);
        }
        Ok(())
    }

    fn slot(&self, id: AgentId) -> Result<usize, SimError> {
        // Ids are unique and ascending: until an agent is removed, id k sits in slot
        // k − (first id). The guess is verified; otherwise the binary search decides.
        if let Some(first) = self.ids.first() {
            let guess = id.0.wrapping_sub(first.0) as usize;
            if self.ids.get(guess) == Some(&id) {
                return Ok(guess);
            }
        }
        self.ids
            .binary_search(&id)
            .map_err(|_| SimError::UnknownAgent(id))
    }

    /// Number of agents.
    #[must_use]
    pub fn num_agents(&self) -> usize {
        self.ids.len()
    }

    /// Ids of all agents, ascending.
    #[must_use]
    pub fn agent_ids(&self) -> &[AgentId] {
        &self.ids
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
        Ok(self.positions[self.slot(id)?])
    }

    /// Current velocity of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_velocity(&self, id: AgentId) -> Result<Vec2, SimError> {
        Ok(self.velocities[self.slot(id)?])
    }

    /// Preferred velocity of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_pref_velocity(&self, id: AgentId) -> Result<Vec2, SimError> {
        Ok(self.pref_velocities[self.slot(id)?])
    }

    /// Parameters of an agent.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn agent_params(&self, id: AgentId) -> Result<AgentParams, SimError> {
        Ok(self.params[self.slot(id)?])
    }

    /// Sets an agent's position (teleport).
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], [`SimError::OutOfDomain`].
    pub fn set_agent_position(&mut self, id: AgentId, position: Vec2) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        check_point(position, "position")?;
        self.positions[slot] = position;
        Ok(())
    }

    /// Sets an agent's current velocity.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], [`SimError::OutOfDomain`].
    pub fn set_agent_velocity(&mut self, id: AgentId, velocity: Vec2) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        check_velocity(velocity, "velocity")?;
        self.velocities[slot] = velocity;
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
        self.pref_velocities[slot] = pref_velocity;
        Ok(())
    }

    /// Replaces all parameters of an agent at once.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`], or a validation error (nothing changes).
    pub fn set_agent_params(&mut self, id: AgentId, params: AgentParams) -> Result<(), SimError> {
        let slot = self.slot(id)?;
        params.validate(self.time_step)?;
        self.params[slot] = params;
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

    /// Sets an agent's time horizon (agents).
    ///
    /// # Errors
    /// As [`set_agent_params`](Self::set_agent_params).
    pub fn set_agent_time_horizon(&mut self, id: AgentId, t: Fx) -> Result<(), SimError> {
        self.update_params(id, |p| p.time_horizon = t)
    }

    /// Sets an agent's time horizon (obstacles).
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
    pub fn agent_neighbors(&self, id: AgentId) -> Result<&[AgentId], SimError> {
        let slot = self.slot(id)?;
        let (start, len) = self
            .work
            .neighbor_ranges
            .get(slot)
            .copied()
            .unwrap_or((0, 0));
        Ok(self
            .work
            .neighbor_ids
            .get(start as usize..(start + len) as usize)
            .unwrap_or(&[]))
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
        for p in &self.params {
            p.validate(time_step)?;
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
    pub fn add_obstacle(&mut self, shape: ObstacleShape) -> Result<ObstacleId, SimError> {
        self.obstacles.add(shape)
    }

    /// Removes an obstacle added earlier.
    ///
    /// # Errors
    /// [`SimError::UnknownObstacle`].
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<(), SimError> {
        self.obstacles.remove(id)
    }

    /// Chooses which obstacle neighbours the agents see: whole edges (default) or RVO2's split
    /// fragments for RVO2 fidelity (see [`ObstacleNeighbors`] for the trade-offs). Part of the
    /// state (hashed, kept in snapshots); a change rebuilds the obstacle tree before the next
    /// step. Read it back with `obstacles().neighbor_mode()`.
    pub fn set_obstacle_neighbor_mode(&mut self, mode: ObstacleNeighbors) {
        self.obstacles.set_neighbor_mode(mode);
    }

    /// Builds the obstacle tree now (RVO2's `processObstacles`). Optional: [`step`](Self::step)
    /// rebuilds it when the obstacle set changed, so forgetting this call is never an error.
    pub fn process_obstacles(&mut self) {
        self.obstacles.ensure_built();
    }

    /// Whether a disc of `radius` can move in a straight line from `from` to `to` without
    /// touching an obstacle (RVO2's `queryVisibility`).
    pub fn query_visibility(&mut self, from: Vec2, to: Vec2, radius: Fx) -> bool {
        self.obstacles.ensure_built();
        self.obstacles.query_visibility(from, to, radius)
    }

    /// The static obstacles.
    #[must_use]
    pub fn obstacles(&self) -> &ObstacleSet {
        &self.obstacles
    }

    /// Mutable access to the obstacles (the set rebuilds its tree before the next step).
    pub fn obstacles_mut(&mut self) -> &mut ObstacleSet {
        &mut self.obstacles
    }

    // ------------------------------------------------------------------ hashing

    /// Appends the canonical byte encoding of the state (see [`crate::hash`]) to `out`.
    pub fn write_canonical_bytes(&self, out: &mut Vec<u8>) {
        crate::hash::write_state(self, out);
    }

    /// A stable 64-bit hash of the whole simulation state (see [`crate::hash`]).
    pub fn state_hash(&mut self) -> u64 {
        let mut buf = std::mem::take(&mut self.work.canonical);
        buf.clear();
        self.write_canonical_bytes(&mut buf);
        let h = crate::hash::hash_bytes(&buf);
        self.work.canonical = buf;
        h
    }

    pub(crate) fn raw_parts(&self) -> RawParts<'_> {
        RawParts {
            time_step: self.time_step,
            global_time: self.global_time,
            tick: self.tick,
            next_id: self.next_id,
            defaults: &self.defaults,
            ids: &self.ids,
            positions: &self.positions,
            velocities: &self.velocities,
            pref_velocities: &self.pref_velocities,
            params: &self.params,
            obstacles: &self.obstacles,
            pending: &self.commands.pending,
        }
    }
}

impl Simulator {
    /// Forgets the neighbour lists of the last step (after a failed step, whose lists were
    /// computed for a state that has been rolled back).
    pub(crate) fn clear_neighbor_lists(&mut self) {
        self.work.neighbor_ids.clear();
        self.work.pairs.clear();
        self.work.neighbor_ranges.clear();
        self.work.neighbor_ranges.resize(self.ids.len(), (0, 0));
    }
}

/// Grows `v`'s capacity to at least `total` (no-op once it is).
fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    if v.capacity() < total {
        v.reserve(total - v.len());
    }
}

/// Borrowed view of every field that affects future ticks (for hashing and snapshots).
pub(crate) struct RawParts<'a> {
    pub time_step: Fx,
    pub global_time: Fx,
    pub tick: u64,
    pub next_id: u32,
    pub defaults: &'a AgentParams,
    pub ids: &'a [AgentId],
    pub positions: &'a [Vec2],
    pub velocities: &'a [Vec2],
    pub pref_velocities: &'a [Vec2],
    pub params: &'a [AgentParams],
    pub obstacles: &'a ObstacleSet,
    pub pending: &'a [PendingCommand],
}

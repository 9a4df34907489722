//! [`SimState`]: the simulation state without the scratch buffers, for rollback.

use super::Simulator;
use super::navigation::{NavDerived, NavState};
use crate::agent::{AgentParams, Agents};
use crate::command::CommandQueue;
use crate::hash::{StateRef, StreamHasher};
use crate::liveness::Liveness;
use crate::math::Fx;
use crate::obstacle::ObstacleSet;
use crate::orders::{Orders, Steering};
use std::sync::Arc;

/// Everything that decides a simulator's future, and nothing else: what a rollback saves every
/// frame ([`Simulator::save_state`], [`Simulator::load_state`]).
///
/// Unlike a [`Simulator`] clone it leaves the scratch buffers of the tick behind, so a save
/// costs about what a [snapshot](crate::snapshot) holds. The obstacle set is shared with the
/// simulator (an `Arc`, copied only when one side changes it), so a scene with 10,000 walls
/// saves no wall; so is the navigation mesh. Unlike a snapshot it is not bytes: nothing is encoded, and loading it back
/// into the simulator that saved it skips the validation a snapshot from elsewhere needs.
/// Its hash is the simulator's: [`state_hash`](Self::state_hash) equals
/// [`Simulator::state_hash`] of the state it holds.
#[derive(Clone, Debug)]
pub struct SimState {
    time_step: Fx,
    global_time: Fx,
    tick: u64,
    next_id: u32,
    defaults: AgentParams,
    liveness: Liveness,
    steering: Steering,
    agents: Agents,
    orders: Orders,
    obstacles: Arc<ObstacleSet>,
    commands: CommandQueue,
    nav: NavState,
    /// The navigation mesh, shared with the simulator (derived, not state).
    nav_mesh: NavDerived,
}

impl SimState {
    /// The tick of the saved state.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// [`Simulator::state_hash`] of the saved state, without loading it.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h = StreamHasher::new();
        crate::hash::write_state(&self.state_ref(), &mut h);
        h.finish()
    }

    /// [`Simulator::state_hash128`] of the saved state, without loading it.
    #[must_use]
    pub fn state_hash128(&self) -> u128 {
        let mut h = StreamHasher::new();
        crate::hash::write_state(&self.state_ref(), &mut h);
        h.finish128()
    }

    fn state_ref(&self) -> StateRef<'_> {
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
            pending: Some(&self.commands),
            nav: &self.nav,
        }
    }
}

impl Simulator {
    /// Saves the state ([`SimState`]): what a rollback keeps per frame.
    #[must_use]
    pub fn save_state(&self) -> SimState {
        SimState {
            time_step: self.time_step,
            global_time: self.global_time,
            tick: self.tick,
            next_id: self.next_id,
            defaults: self.defaults,
            liveness: self.liveness,
            steering: self.steering,
            agents: self.agents.clone(),
            orders: self.orders.clone(),
            obstacles: Arc::clone(&self.obstacles),
            commands: self.commands.clone(),
            nav: self.nav.clone(),
            nav_mesh: self.nav_mesh.shared(),
        }
    }

    /// [`save_state`](Self::save_state) into an existing [`SimState`], reusing its buffers (a
    /// rollback that recycles its saved frames allocates nothing for the agents).
    pub fn save_state_into(&self, state: &mut SimState) {
        state.time_step = self.time_step;
        state.global_time = self.global_time;
        state.tick = self.tick;
        state.next_id = self.next_id;
        state.defaults = self.defaults;
        state.liveness = self.liveness;
        state.steering = self.steering;
        state.agents.clone_from(&self.agents);
        state.orders.clone_from(&self.orders);
        state.obstacles = Arc::clone(&self.obstacles);
        state.commands.clone_from(&self.commands);
        state.nav.clone_from(&self.nav);
        state.nav_mesh.assign(&self.nav_mesh);
    }

    /// Replaces the state by a saved one, keeping this simulator's scratch buffers (so the next
    /// step allocates no more than any other). The saved state is trusted: it was made by
    /// [`save_state`](Self::save_state) in this process, so nothing is re-validated (for
    /// state from elsewhere use [`snapshot`](Self::snapshot) and [`restore`](Self::restore)).
    ///
    /// Afterwards the simulator continues exactly as the one that saved the state: same
    /// [`state_hash`](Self::state_hash), same future ticks. The last step's neighbour lists,
    /// outcomes and rejected commands describe a step of another timeline, so they are
    /// cleared.
    pub fn load_state(&mut self, state: &SimState) {
        self.time_step = state.time_step;
        self.global_time = state.global_time;
        self.tick = state.tick;
        self.next_id = state.next_id;
        self.defaults = state.defaults;
        self.liveness = state.liveness;
        self.steering = state.steering;
        self.agents.clone_from(&state.agents);
        self.orders.clone_from(&state.orders);
        self.obstacles = Arc::clone(&state.obstacles);
        self.commands.clone_from(&state.commands);
        self.nav.clone_from(&state.nav);
        self.nav_mesh.assign(&state.nav_mesh);
        self.inputs = super::inputs::InputLog::default();
        self.work.clear_neighbor_lists();
    }

    /// A simulator made of a saved state (fresh scratch buffers).
    #[must_use]
    pub fn from_state(state: &SimState) -> Self {
        Self {
            time_step: state.time_step,
            global_time: state.global_time,
            tick: state.tick,
            next_id: state.next_id,
            defaults: state.defaults,
            liveness: state.liveness,
            steering: state.steering,
            agents: state.agents.clone(),
            orders: state.orders.clone(),
            obstacles: Arc::clone(&state.obstacles),
            commands: state.commands.clone(),
            nav: state.nav.clone(),
            nav_mesh: state.nav_mesh.shared(),
            inputs: super::inputs::InputLog::default(),
            work: crate::tick::Workspace::default(),
            obstacle_caps: Vec::new(),
            near_lanes: Vec::new(),
        }
    }
}

//! Agents: stable ids, per-agent parameters and their validation.

use crate::agent_model::AgentModel;
use crate::domain::{self, check_range, check_scale};
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use serde::{Deserialize, Serialize};

/// Stable agent identifier. Ids are handed out in increasing order and never reused, even
/// after [`remove_agent`](crate::Simulator::remove_agent); every tie in the simulation is broken
/// by this id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AgentId(pub u32);

/// Per-agent parameters (RVO2's `setAgentDefaults` / `addAgent` arguments, as a struct).
///
/// Each field is checked against [`crate::domain`] when it enters a simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentParams {
    /// Maximum distance (centre to centre) at which other agents are considered. Default 15.
    /// Larger values cost neighbour-search time; smaller ones react later.
    pub neighbor_dist: Fx,
    /// Maximum number of agent neighbours taken into account (the nearest ones, ties by id).
    /// Default 10. Fewer is faster but risks ignoring a colliding agent.
    pub max_neighbors: u32,
    /// Seconds ahead for which velocities are safe with respect to other agents. Default 10.
    /// Larger values react earlier and more conservatively.
    pub time_horizon: Fx,
    /// Seconds ahead for which velocities are safe with respect to obstacles. Default 10.
    /// Navigation's traffic control caps the horizon in use, for a step, for an agent it lets
    /// through a door (at most 1 s, 0.5 s with the right of way) and for an agent on its way
    /// near a lane portal (at most 2 s), never below two time steps (docs/navigation.md §
    /// "Doors (traffic control)"). This field keeps the value set.
    pub time_horizon_obst: Fx,
    /// Agent disc radius in world units. Default 1.5.
    pub radius: Fx,
    /// Maximum speed in units per second. Default 2.
    pub max_speed: Fx,
    /// Avoidance priority, 0 ..= 255, default [`DEFAULT_PRIORITY`] (128). Between two agents of
    /// equal priority the avoidance is shared half and half (RVO2). Otherwise the agent of
    /// lower priority takes all of it and the other none: the higher one does not avoid the
    /// lower one (no ORCA line), it is a moving obstacle to it, until their discs overlap;
    /// then the higher one keeps a line that holds it about a quarter deep
    /// ([`deep_overlap_line`](crate::orca::lines::deep_overlap_line)), so it no longer walks
    /// through a unit that cannot get out of its way. It also decides the right of way when a
    /// jam is resolved ([`crate::liveness`]): the lower priority yields, ties by the higher id.
    pub priority: u8,
}

/// The default [`AgentParams::priority`]: the middle of the range, so agents can be made more
/// or less important than the default.
pub const DEFAULT_PRIORITY: u8 = 128;

impl Default for AgentParams {
    /// RVO2's Circle example defaults: (15, 10, 10, 10, 1.5, 2), priority 128.
    fn default() -> Self {
        Self {
            neighbor_dist: Fx::from_num(15),
            max_neighbors: 10,
            time_horizon: Fx::from_num(10),
            time_horizon_obst: Fx::from_num(10),
            radius: Fx::lit("1.5"),
            max_speed: Fx::from_num(2),
            priority: DEFAULT_PRIORITY,
        }
    }
}

impl AgentParams {
    /// Checks every field, and the velocity-scale ratios for the given time step.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] or [`SimError::VelocityScale`] naming the first bad field.
    pub fn validate(&self, time_step: Fx) -> Result<(), SimError> {
        check_range(
            self.neighbor_dist,
            Fx::ZERO,
            domain::MAX_NEIGHBOR_DIST,
            "neighbor_dist",
            "0 ..= 10,000",
        )?;
        if self.max_neighbors > domain::MAX_NEIGHBORS {
            return Err(SimError::OutOfDomain {
                what: "max_neighbors",
                allowed: "0 ..= 1,024",
            });
        }
        let horizon = "0.001 ..= 10,000";
        check_range(
            self.time_horizon,
            domain::MIN_TIME,
            domain::MAX_TIME_HORIZON,
            "time_horizon",
            horizon,
        )?;
        check_range(
            self.time_horizon_obst,
            domain::MIN_TIME,
            domain::MAX_TIME_HORIZON,
            "time_horizon_obst",
            horizon,
        )?;
        check_range(
            self.radius,
            domain::MIN_RADIUS,
            domain::MAX_RADIUS,
            "radius",
            "0.001 ..= 1,000",
        )?;
        check_range(
            self.max_speed,
            Fx::ZERO,
            domain::MAX_SPEED,
            "max_speed",
            "0 ..= 1,000",
        )?;
        check_scale(self.radius, time_step, "radius / time_step")?;
        check_scale(self.radius, self.time_horizon, "radius / time_horizon")?;
        check_scale(
            self.radius,
            self.time_horizon_obst,
            "radius / time_horizon_obst",
        )?;
        check_scale(
            self.neighbor_dist,
            self.time_horizon,
            "neighbor_dist / time_horizon",
        )?;
        Ok(())
    }
}

/// One agent's whole state: what a snapshot stores and [`Agents::get`] returns.
///
/// The field order is part of the snapshot format (see [`crate::snapshot`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// Stable id.
    pub id: AgentId,
    /// Position.
    pub position: Vec2,
    /// Current velocity.
    pub velocity: Vec2,
    /// Preferred velocity.
    pub pref_velocity: Vec2,
    /// Parameters.
    pub params: AgentParams,
    /// Consecutive ticks the agent has been stalled (see [`crate::liveness`]); 0 when it made
    /// progress last tick, and always 0 in [`Liveness::Rvo2`](crate::liveness::Liveness::Rvo2)
    /// mode.
    pub stall: u16,
    /// The agent model beyond RVO2's ([`AgentModel`]). Not part of this record's serde form:
    /// snapshots store the models apart, and only when some agent's is not the default (see
    /// [`crate::snapshot`]), so the record's layout is the one of format version 3.
    #[serde(skip)]
    pub model: AgentModel,
}

/// The agent store: every agent's state in dense slots, slots in ascending [`AgentId`] order
/// (hot data in parallel vectors, one per field).
///
/// This is the only place that owns per-agent data. Readers get slices indexed by slot
/// ([`ids`](Self::ids), [`positions`](Self::positions), …) and one id lookup
/// ([`slot`](Self::slot)); mutation goes through the [`Simulator`](crate::Simulator), which
/// validates.
///
/// Removal costs one compaction pass over the slots, whatever the number of agents removed
/// together: a tick's `RemoveAgent` commands, or one
/// [`remove_agents`](crate::Simulator::remove_agents) call, mark their slots and compact once.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Agents {
    ids: Vec<AgentId>,
    positions: Vec<Vec2>,
    velocities: Vec<Vec2>,
    pref_velocities: Vec<Vec2>,
    params: Vec<AgentParams>,
    stalls: Vec<u16>,
    /// Every slot's model, or empty when every agent's is the default (`modelled == 0`): the
    /// common case costs no memory per agent.
    models: Vec<AgentModel>,
    /// How many agents' models are not the default: with none, the tick takes RVO2's path.
    modelled: usize,
    /// Slots marked for removal (a bit per slot, empty when none is), compacted by
    /// [`compact`](Self::compact).
    marked: Vec<u64>,
    num_marked: usize,
}

impl Clone for Agents {
    fn clone(&self) -> Self {
        let mut copy = Self::default();
        copy.clone_from(self);
        copy
    }

    /// Field by field, reusing this store's buffers (a rollback's saved states).
    fn clone_from(&mut self, source: &Self) {
        self.ids.clone_from(&source.ids);
        self.positions.clone_from(&source.positions);
        self.velocities.clone_from(&source.velocities);
        self.pref_velocities.clone_from(&source.pref_velocities);
        self.params.clone_from(&source.params);
        self.stalls.clone_from(&source.stalls);
        self.models.clone_from(&source.models);
        self.modelled = source.modelled;
        self.marked.clone_from(&source.marked);
        self.num_marked = source.num_marked;
    }
}

impl Agents {
    /// Number of agents.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len() - self.num_marked
    }

    /// Whether there are no agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slot of agent `id`, if it exists: the one id lookup of the crate.
    ///
    /// Until an agent is removed, id `k` sits in slot `k − first id`; the guess is verified and
    /// a binary search decides otherwise (O(log n)).
    #[must_use]
    #[inline]
    pub fn slot(&self, id: AgentId) -> Option<usize> {
        let first = self.ids.first()?;
        let guess = id.0.wrapping_sub(first.0) as usize;
        let slot = if self.ids.get(guess) == Some(&id) {
            guess
        } else {
            self.ids.binary_search(&id).ok()?
        };
        (!self.is_marked(slot)).then_some(slot)
    }

    /// Whether agent `id` exists.
    #[must_use]
    pub fn contains(&self, id: AgentId) -> bool {
        self.slot(id).is_some()
    }

    /// The whole state of agent `id`.
    #[must_use]
    pub fn get(&self, id: AgentId) -> Option<Agent> {
        self.slot(id).map(|s| self.at(s))
    }

    /// The whole state of the agent in `slot`.
    ///
    /// # Panics
    /// If `slot >= len()`.
    #[must_use]
    pub fn at(&self, slot: usize) -> Agent {
        Agent {
            id: self.ids[slot],
            position: self.positions[slot],
            velocity: self.velocities[slot],
            pref_velocity: self.pref_velocities[slot],
            params: self.params[slot],
            stall: self.stalls[slot],
            model: self.model(slot),
        }
    }

    /// The agent model in `slot` (the default when no agent has one).
    ///
    /// # Panics
    /// If `slot >= len()`.
    #[must_use]
    pub fn model(&self, slot: usize) -> AgentModel {
        assert!(slot < self.ids.len(), "slot out of range");
        self.models.get(slot).copied().unwrap_or_default()
    }

    /// Every agent in slot (ascending id) order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Agent> + '_ {
        (0..self.ids.len()).map(|s| self.at(s))
    }

    /// Ids by slot, ascending.
    #[must_use]
    pub fn ids(&self) -> &[AgentId] {
        &self.ids
    }

    /// Positions by slot.
    #[must_use]
    pub fn positions(&self) -> &[Vec2] {
        &self.positions
    }

    /// Current velocities by slot.
    #[must_use]
    pub fn velocities(&self) -> &[Vec2] {
        &self.velocities
    }

    /// Preferred velocities by slot.
    #[must_use]
    pub fn pref_velocities(&self) -> &[Vec2] {
        &self.pref_velocities
    }

    /// Parameters by slot.
    #[must_use]
    pub fn params(&self) -> &[AgentParams] {
        &self.params
    }

    /// Stall counters by slot (see [`crate::liveness`]).
    #[must_use]
    pub fn stalls(&self) -> &[u16] {
        &self.stalls
    }

    /// Agent models by slot ([`AgentModel`]), or `None` when every agent's is the default
    /// (the tick then takes RVO2's path: one branch).
    #[must_use]
    #[inline]
    pub fn models(&self) -> Option<&[AgentModel]> {
        (self.modelled > 0).then_some(&self.models)
    }

    /// Stores every slot's model (defaults) before the first non-default one is set.
    fn materialize_models(&mut self) {
        if self.models.is_empty() {
            self.models = vec![AgentModel::default(); self.ids.len()];
        }
    }

    /// Drops the models once every agent's is the default again (so the representation is
    /// canonical: empty iff no agent has a model).
    fn normalize_models(&mut self) {
        if self.modelled == 0 && !self.models.is_empty() {
            self.models = Vec::new();
        }
    }

    // -------------------------------------------------------------- crate-internal mutation

    /// Appends an agent. Its id must be above every id present (ids are handed out ascending).
    pub(crate) fn push(&mut self, a: Agent) {
        debug_assert!(self.ids.last().is_none_or(|&l| l < a.id));
        debug_assert_eq!(self.num_marked, 0);
        if !a.model.is_default() {
            self.materialize_models();
        }
        let store_model = !self.models.is_empty();
        self.ids.push(a.id);
        self.positions.push(a.position);
        self.velocities.push(a.velocity);
        self.pref_velocities.push(a.pref_velocity);
        self.params.push(a.params);
        self.stalls.push(a.stall);
        self.modelled += usize::from(!a.model.is_default());
        if store_model {
            self.models.push(a.model);
        }
    }

    /// Reserves room for `n` more agents.
    pub(crate) fn reserve_exact(&mut self, n: usize) {
        self.ids.reserve_exact(n);
        self.positions.reserve_exact(n);
        self.velocities.reserve_exact(n);
        self.pref_velocities.reserve_exact(n);
        self.params.reserve_exact(n);
        self.stalls.reserve_exact(n);
        if !self.models.is_empty() {
            self.models.reserve_exact(n);
        }
    }

    /// Removes the newest agent (the last slot).
    pub(crate) fn pop(&mut self) -> Option<Agent> {
        debug_assert_eq!(self.num_marked, 0);
        let a = Agent {
            id: self.ids.pop()?,
            position: self.positions.pop()?,
            velocity: self.velocities.pop()?,
            pref_velocity: self.pref_velocities.pop()?,
            params: self.params.pop()?,
            stall: self.stalls.pop()?,
            model: self.models.pop().unwrap_or_default(),
        };
        self.modelled -= usize::from(!a.model.is_default());
        self.normalize_models();
        Some(a)
    }

    fn is_marked(&self, slot: usize) -> bool {
        self.marked
            .get(slot / 64)
            .is_some_and(|w| w & (1 << (slot % 64)) != 0)
    }

    /// Marks `slot` for removal: from now on [`slot`](Self::slot) does not find it, and the
    /// next [`compact`](Self::compact) drops it. Slots stay where they are until then.
    pub(crate) fn mark_removed(&mut self, slot: usize) {
        if self.marked.is_empty() {
            self.marked.resize(self.ids.len().div_ceil(64), 0);
        }
        if !self.is_marked(slot) {
            self.marked[slot / 64] |= 1 << (slot % 64);
            self.num_marked += 1;
        }
    }

    /// Drops every marked slot in one pass, keeping the order of the rest, and hands the
    /// removed agents (ascending id) to `removed`.
    pub(crate) fn compact(&mut self, mut removed: impl FnMut(Agent)) {
        if self.num_marked == 0 {
            return;
        }
        let mut keep = 0;
        for slot in 0..self.ids.len() {
            if self.is_marked(slot) {
                self.modelled -= usize::from(!self.model(slot).is_default());
                removed(self.at(slot));
                continue;
            }
            if keep != slot {
                self.ids[keep] = self.ids[slot];
                self.positions[keep] = self.positions[slot];
                self.velocities[keep] = self.velocities[slot];
                self.pref_velocities[keep] = self.pref_velocities[slot];
                self.params[keep] = self.params[slot];
                self.stalls[keep] = self.stalls[slot];
                if !self.models.is_empty() {
                    self.models[keep] = self.models[slot];
                }
            }
            keep += 1;
        }
        self.ids.truncate(keep);
        self.positions.truncate(keep);
        self.velocities.truncate(keep);
        self.pref_velocities.truncate(keep);
        self.params.truncate(keep);
        self.stalls.truncate(keep);
        self.models.truncate(keep);
        self.marked.clear();
        self.num_marked = 0;
        self.normalize_models();
    }

    /// Puts removed agents back (the inverse of [`compact`](Self::compact)): `agents` ascending
    /// by id, none of them present. One merge pass.
    pub(crate) fn reinsert(&mut self, agents: &[Agent]) {
        debug_assert_eq!(self.num_marked, 0);
        if agents.is_empty() {
            return;
        }
        let old = std::mem::take(self);
        self.reserve_exact(old.ids.len() + agents.len());
        let mut back = agents.iter().peekable();
        for slot in 0..old.ids.len() {
            while let Some(a) = back.next_if(|a| a.id < old.ids[slot]) {
                self.push(*a);
            }
            self.push(old.at(slot));
        }
        for a in back {
            self.push(*a);
        }
    }

    /// Sets the position in `slot`.
    #[inline]
    pub(crate) fn set_position(&mut self, slot: usize, v: Vec2) {
        self.positions[slot] = v;
    }

    /// Sets the velocity in `slot`.
    #[inline]
    pub(crate) fn set_velocity(&mut self, slot: usize, v: Vec2) {
        self.velocities[slot] = v;
    }

    /// Sets the preferred velocity in `slot`.
    #[inline]
    pub(crate) fn set_pref_velocity(&mut self, slot: usize, v: Vec2) {
        self.pref_velocities[slot] = v;
    }

    /// Every slot's preferred velocity, to write (stage 1b's steps, in parallel).
    pub(crate) fn pref_velocities_mut(&mut self) -> &mut [Vec2] {
        &mut self.pref_velocities
    }

    /// What stage 1b reads (every slot's id, position, velocity and parameters) beside the
    /// preferred velocities it writes, borrowed at once.
    #[allow(clippy::type_complexity)]
    pub(crate) fn steering_view(
        &mut self,
    ) -> (&[AgentId], &[Vec2], &[Vec2], &[AgentParams], &mut [Vec2]) {
        (
            &self.ids,
            &self.positions,
            &self.velocities,
            &self.params,
            &mut self.pref_velocities,
        )
    }

    /// Sets the parameters in `slot`.
    #[inline]
    pub(crate) fn set_params(&mut self, slot: usize, p: AgentParams) {
        self.params[slot] = p;
    }

    /// Sets the agent model in `slot`.
    pub(crate) fn set_model(&mut self, slot: usize, m: AgentModel) {
        if self.models.is_empty() && m.is_default() {
            return; // already the default
        }
        self.materialize_models();
        self.modelled -= usize::from(!self.models[slot].is_default());
        self.modelled += usize::from(!m.is_default());
        self.models[slot] = m;
        self.normalize_models();
    }

    /// The tick's motion, to write: every slot's position, velocity and stall counter (stage
    /// 8 copies the step's new values into them, all or nothing), borrowed at once.
    pub(crate) fn motion_mut(&mut self) -> (&mut [Vec2], &mut [Vec2], &mut [u16]) {
        (&mut self.positions, &mut self.velocities, &mut self.stalls)
    }
}

#[cfg(test)]
mod tests {
    use super::{Agent, AgentId, AgentModel, AgentParams, Agents};
    use crate::math::Vec2;

    fn agent(id: u32) -> Agent {
        Agent {
            id: AgentId(id),
            position: Vec2::from_int(id as i32, 0),
            velocity: Vec2::from_int(0, id as i32),
            pref_velocity: Vec2::from_int(1, 1),
            params: AgentParams::default(),
            stall: id as u16,
            model: AgentModel::default(),
        }
    }

    #[test]
    fn mark_compact_and_reinsert_round_trip() {
        let mut agents = Agents::default();
        for id in (0..300).filter(|i| i % 5 != 0) {
            agents.push(agent(id));
        }
        let before = agents.clone();
        let remove = [1u32, 2, 63, 64, 66, 128, 299, 298];
        for id in remove {
            let slot = agents.slot(AgentId(id)).unwrap();
            agents.mark_removed(slot);
            agents.mark_removed(slot); // twice is once
            assert!(!agents.contains(AgentId(id)));
        }
        assert_eq!(agents.len(), before.len() - remove.len());
        let mut removed = Vec::new();
        agents.compact(|a| removed.push(a));
        assert_eq!(agents.len(), before.len() - remove.len());
        let mut expected: Vec<u32> = remove.to_vec();
        expected.sort_unstable();
        assert_eq!(removed.iter().map(|a| a.id.0).collect::<Vec<_>>(), expected);
        // Survivors keep their order and their data; lookups find them in their new slots.
        assert!(agents.ids().windows(2).all(|w| w[0] < w[1]));
        for a in agents.iter() {
            assert_eq!(Some(a), before.get(a.id));
            assert_eq!(agents.get(a.id), Some(a));
        }
        assert_eq!(agents.slot(AgentId(5)), None); // never added
        agents.reinsert(&removed);
        assert_eq!(agents, before);
    }

    #[test]
    fn pop_returns_the_newest() {
        let mut agents = Agents::default();
        agents.push(agent(3));
        agents.push(agent(9));
        assert_eq!(agents.pop(), Some(agent(9)));
        assert_eq!(agents.pop(), Some(agent(3)));
        assert_eq!(agents.pop(), None);
        assert!(agents.is_empty());
    }
}

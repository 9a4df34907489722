//! Stage 1 and the last stage of the tick: queued commands applied in canonical order, and
//! committed or undone (see [`crate::command`] for the order and the validation rules).

use super::Simulator;
use super::formation::FormationOrder;
use super::navigation::{NavDerived, NavState};
use crate::agent::{Agent, AgentId, AgentParams};
use crate::agent_model::AgentModel;
use crate::command::{Command, CommandQueue, PendingCommand, RejectedCommand};
use crate::error::SimError;
use crate::math::Vec2;
use crate::obstacle::ObstacleSet;
use crate::orders::Order;
use crate::orders::formation::Formation;
use std::sync::Arc;

/// What to do to take one applied value change back (used when a step fails after its inputs).
#[derive(Clone, Debug)]
enum Undo {
    PrefVelocity(AgentId, Vec2),
    Params(AgentId, AgentParams),
    Model(AgentId, AgentModel),
    Position(AgentId, Vec2),
    Velocity(AgentId, Vec2),
    /// The agent's order before the command (`None`: it had none).
    Order(AgentId, Option<Order>),
    /// A group's members before the command (`None`: it did not exist).
    Group(u32, Option<Vec<AgentId>>),
    /// A group's formation before the command (`None`: it had none).
    Formation(u32, Option<Formation>),
    /// The obstacle set before the step's first obstacle command (shared, not copied: the
    /// command's change copies the set once).
    Obstacles(Arc<ObstacleSet>),
}

/// The inputs applied by the current step, and the commands the last step skipped: not state
/// (never hashed or snapshotted; a restored simulator starts empty).
#[derive(Clone, Debug, Default)]
pub(super) struct InputLog {
    /// Agents added by the current step (the newest slots).
    added: u32,
    /// Whether the undo log holds the obstacle set as it was before the current step.
    obstacles_saved: bool,
    /// Agents removed by the current step, ascending id, with their state at removal.
    removed: Vec<Agent>,
    /// Value changes of the current step, in the order applied.
    undo: Vec<Undo>,
    rejected: Vec<RejectedCommand>,
    /// The commands due now, copied off the queue (a reused buffer).
    due: Vec<PendingCommand>,
    /// What stage 1b (orders) changed in the current step.
    pub(super) steered: Vec<super::orders::OrderStep>,
    /// Stage 1b's orders at rest on shared goals, as the tick found them (a reused buffer,
    /// rebuilt from the state when some order may need it).
    pub(super) at_rest: Vec<super::orders_at_rest::AtRest>,
    /// Stage 1b's orders at rest on goals of their own, by x, as the tick found them (a
    /// reused buffer, rebuilt from the state when some order may stop behind one).
    pub(super) resting: Vec<super::orders_at_rest::AtRest>,

    /// The navigation state before the current step (stages 1 and 1a change it).
    nav_before: NavState,
    /// The navigation mesh before the current step.
    mesh_before: NavDerived,
    /// The order status changes of the current step (a reused buffer).
    pub(super) order_events: Vec<crate::orders::OrderEvent>,
    /// The formation status changes of the current step (a reused buffer).
    pub(super) formation_events: Vec<crate::orders::formation::FormationEvent>,
    /// The obstacles the current step's commands added: stage 1a moves the agents they cover
    /// out once the mesh is rebuilt (`sim/buried.rs`).
    pub(super) added_obstacles: Vec<crate::obstacle::ObstacleId>,
}

impl InputLog {
    /// Logs an order replaced by stage 1a (`old`: the order it replaced).
    pub(super) fn log_order(&mut self, id: AgentId, old: Option<Order>) {
        self.undo.push(Undo::Order(id, old));
    }

    /// Logs agent parameters changed by stage 1a (`old`: the parameters before).
    pub(super) fn log_params(&mut self, id: AgentId, old: AgentParams) {
        self.undo.push(Undo::Params(id, old));
    }

    /// The navigation mesh before the current step.
    pub(super) fn mesh_before(&self) -> Option<Arc<crate::navigation::NavMesh>> {
        self.mesh_before.mesh.clone()
    }

    /// Logs an agent position changed by stage 1a (`old`: the position before).
    pub(super) fn log_position(&mut self, id: AgentId, old: Vec2) {
        self.undo.push(Undo::Position(id, old));
    }
}

impl Simulator {
    /// Queues `command` to be applied at the start of `tick` (by the step from `tick` to
    /// `tick + 1`; `tick == self.tick()` means the next step). See [`crate::command`] for the
    /// canonical order and the validation. O(log n) in the number of pending commands, whatever
    /// the arrival order.
    ///
    /// **A tick from a remote peer is hostile input.** Any future tick is accepted, and the
    /// queue is shared: commands queued far ahead stay pending (in the snapshot and the hash)
    /// and count against its bound ([`MAX_PENDING_COMMANDS`](crate::domain::MAX_PENDING_COMMANDS)),
    /// so a peer that may pick its own ticks can fill it and have every later command refused.
    /// A game with its own netcode bounds the lead itself (a few ticks of input delay);
    /// the crate's `netcode` module (feature `ggrs`) queues every peer's input at the current tick.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] (`what: "command tick"`) if `tick` is in the past, a domain
    /// error for a bad value, [`SimError::InvalidObstacle`] for a shape
    /// [`add_obstacle`](Self::add_obstacle) refuses, [`SimError::OutOfDomain`] when the queue
    /// is full (`"pending commands"`, `"pending obstacle vertices"`),
    /// [`SimError::UnknownAgent`] / [`SimError::UnknownObstacle`] for a removed agent or
    /// obstacle. Nothing is queued then.
    pub fn queue_command(&mut self, tick: u64, command: Command) -> Result<(), SimError> {
        if tick < self.tick {
            return Err(SimError::OutOfDomain {
                what: "command tick",
                allowed: ">= the current tick",
            });
        }
        command.validate_values(self.time_step)?;
        if self.commands.len() >= crate::domain::MAX_PENDING_COMMANDS {
            return Err(SimError::OutOfDomain {
                what: "pending commands",
                allowed: "at most 1,048,576",
            });
        }
        let vertices = self.commands.obstacle_vertices() + command.obstacle_vertices();
        if vertices > crate::domain::MAX_OBSTACLE_VERTICES {
            return Err(SimError::OutOfDomain {
                what: "pending obstacle vertices",
                allowed: "at most 1,048,576",
            });
        }
        if let Command::RemoveObstacle { id } = command {
            // As for agents: a removed obstacle never comes back, a future one may.
            if id < self.obstacles.next_id() && self.obstacles.shape(id).is_err() {
                return Err(SimError::UnknownObstacle(id.0));
            }
        }
        if let Some(id) = command.target() {
            // Ids below the counter that are absent were removed and never come back. Ids at
            // or above it may be given by adds queued later, so they are accepted here (order
            // independence) and checked when applied.
            if id.0 < self.next_id && !self.contains_agent(id) {
                return Err(SimError::UnknownAgent(id));
            }
        }
        self.commands.insert(PendingCommand { tick, command });
        Ok(())
    }

    /// The commands waiting for a future step, in the canonical order they will be applied.
    #[must_use]
    pub fn pending_commands(&self) -> &CommandQueue {
        &self.commands
    }

    /// Drops every pending command (e.g. before re-queuing corrected inputs after a rollback).
    pub fn clear_pending_commands(&mut self) {
        self.commands.clear();
    }

    /// The queued commands the last successful [`step`](Self::step) skipped because they were
    /// invalid when their tick came, with the reason (see [`crate::command`]).
    #[must_use]
    pub fn rejected_commands(&self) -> &[RejectedCommand] {
        &self.inputs.rejected
    }

    /// Applies a command now, outside the queue (the same as calling the matching setter).
    /// Returns the new agent's id for [`Command::AddAgent`] and [`Command::SpawnAgent`], `None`
    /// otherwise (read an added obstacle's id from
    /// [`obstacles().next_id()`](crate::obstacle::ObstacleSet::next_id) before, or call
    /// [`add_obstacle`](Self::add_obstacle)).
    ///
    /// # Errors
    /// The matching setter's errors; nothing changes then.
    pub fn apply(&mut self, command: &Command) -> Result<Option<AgentId>, SimError> {
        match *command {
            Command::SetPrefVelocity { id, v } => self.set_agent_pref_velocity(id, v),
            Command::AddAgent { position, params } => {
                return self.add_agent_with(position, params).map(Some);
            }
            Command::SpawnAgent {
                position,
                params,
                model,
            } => return self.spawn_agent(position, params, model).map(Some),
            Command::AddObstacle { ref shape } => self.add_obstacle(shape.clone()).map(drop),
            Command::RemoveObstacle { id } => self.remove_obstacle(id),
            Command::RemoveAgent { id } => self.remove_agent(id),
            Command::SetParams { id, params } => self.set_agent_params(id, params),
            Command::SetPosition { id, position } => self.set_agent_position(id, position),
            Command::SetVelocity { id, v } => self.set_agent_velocity(id, v),
            Command::MoveTo { id, goal } => self
                .give_order(id, goal, false)
                .map(|_| self.nav.forget(id)),
            Command::QueueMove { id, goal } => {
                if self.queue_leg(id, goal)? {
                    Ok(())
                } else {
                    self.give_order(id, goal, true).map(|_| self.nav.forget(id))
                }
            }
            Command::Stop { id } => self.stop_agent(id).map(|_| self.nav.forget(id)),
            Command::NavigateTo { id, goal } => self.navigate_to(id, goal).map(drop),
            Command::SetPriority { id, priority } => self.set_agent_priority(id, priority),
            Command::SetModel { id, model } => self.set_agent_model(id, model),
            Command::SetOrderSpeed { id, speed } => self.set_order_speed(id, speed).map(drop),
            Command::SetGroup { group, ref members } => self.set_group(group, members).map(drop),
            Command::GroupMove {
                group,
                goal,
                queue,
                slowest,
            } => self.group_move(group, goal, queue, slowest).map(drop),
            Command::GroupNavigate {
                group,
                goal,
                queue,
                slowest,
            } => self.group_navigate(group, goal, queue, slowest).map(drop),
            Command::FormationMove { .. } | Command::FormationMarch { .. } => {
                self.formation_move(formation_order(command)).map(drop)
            }
        }
        .map(|()| None)
    }

    /// Adds an agent with its parameters and model ([`Command::SpawnAgent`]); checks
    /// everything before changing anything.
    fn spawn_agent(
        &mut self,
        position: Vec2,
        params: AgentParams,
        model: AgentModel,
    ) -> Result<AgentId, SimError> {
        model.validate(self.time_step)?;
        let id = self.add_agent_with(position, params)?;
        // The new agent is the last slot, and the model was validated above.
        let slot = self.agents.len() - 1;
        self.agents.set_model(slot, model);
        Ok(id)
    }

    /// Applies an obstacle command, saving the obstacle set in the undo log first unless the
    /// current step saved it already (the step's first change copies the set once; later ones
    /// change that copy in place).
    fn apply_obstacle_logged(&mut self, command: &Command) -> Result<(), SimError> {
        let before = (!self.inputs.obstacles_saved).then(|| Arc::clone(&self.obstacles));
        let result = match command {
            // The shape was validated when queued (and when restored); what can still fail is
            // the set's vertex limit.
            // The set itself (not add_obstacle): stage 1a rebuilds the navigation mesh once.
            Command::AddObstacle { shape } => {
                let added = Arc::make_mut(&mut self.obstacles).add(shape.clone());
                if let Ok(id) = added {
                    self.inputs.added_obstacles.push(id);
                }
                added.map(drop)
            }
            // Checked first: a rejected removal should not copy the set.
            Command::RemoveObstacle { id } => self
                .obstacles
                .shape(*id)
                .map(drop)
                .and_then(|()| Arc::make_mut(&mut self.obstacles).remove(*id)),
            _ => unreachable!("not an obstacle command"),
        };
        match (before, &result) {
            // The set is unchanged: share it again rather than keep the copy.
            (Some(before), Err(_)) => self.obstacles = before,
            (Some(before), Ok(())) => {
                self.inputs.obstacles_saved = true;
                self.inputs.undo.push(Undo::Obstacles(before));
            }
            (None, _) => {}
        }
        if result.is_ok() {
            self.obstacles_changed();
        }
        result
    }

    /// Applies one queued command, logging how to undo it. Removals only mark the agent
    /// (compacted once, at the end of the stage).
    fn apply_logged(&mut self, command: &Command) -> Result<(), SimError> {
        let undo = match *command {
            Command::AddAgent { position, params } => {
                // Adds come first in the canonical order, so no slot is marked yet; compact
                // anyway should a marked slot exist, since new agents go last.
                self.agents.compact(|a| self.inputs.removed.push(a));
                self.add_agent_with(position, params)?;
                self.inputs.added += 1;
                return Ok(());
            }
            Command::SpawnAgent {
                position,
                params,
                model,
            } => {
                self.agents.compact(|a| self.inputs.removed.push(a));
                self.spawn_agent(position, params, model)?;
                self.inputs.added += 1;
                return Ok(());
            }
            Command::AddObstacle { .. } | Command::RemoveObstacle { .. } => {
                return self.apply_obstacle_logged(command);
            }
            Command::RemoveAgent { id } => {
                let slot = self.slot(id)?;
                self.agents.mark_removed(slot);
                if let Some(order) = self.orders.remove(&id) {
                    self.inputs.undo.push(Undo::Order(id, Some(order)));
                }
                // The navigation records are put back whole on undo (`nav_before`).
                self.nav.forget(id);
                return Ok(());
            }
            Command::MoveTo { id, goal } | Command::QueueMove { id, goal } => {
                let queue = matches!(command, Command::QueueMove { .. });
                // A navigated leg changes only the navigation state, put back whole on undo
                // (`nav_before`).
                if queue && self.queue_leg(id, goal)? {
                    return Ok(());
                }
                let old = self.give_order(id, goal, queue)?;
                self.nav.forget(id);
                Undo::Order(id, old)
            }
            Command::NavigateTo { id, goal } => Undo::Order(id, self.navigate_to(id, goal)?),
            Command::SetOrderSpeed { id, speed } => {
                Undo::Order(id, Some(self.set_order_speed(id, speed)?))
            }
            Command::SetGroup { group, ref members } => {
                Undo::Group(group, self.set_group(group, members)?)
            }
            Command::GroupMove {
                group,
                goal,
                queue,
                slowest,
            } => {
                // The navigation records are put back whole on undo (`nav_before`).
                for (id, old) in self.group_move(group, goal, queue, slowest)? {
                    self.inputs.undo.push(Undo::Order(id, old));
                }
                return Ok(());
            }
            Command::GroupNavigate {
                group,
                goal,
                queue,
                slowest,
            } => {
                // The navigation records are put back whole on undo (`nav_before`).
                for (id, old) in self.group_navigate(group, goal, queue, slowest)? {
                    self.inputs.undo.push(Undo::Order(id, old));
                }
                return Ok(());
            }
            Command::FormationMove { group, .. } | Command::FormationMarch { group, .. } => {
                // The navigation records are put back whole on undo (`nav_before`).
                let replaced = self.formation_move(formation_order(command))?;
                for (id, old) in replaced.orders {
                    self.inputs.undo.push(Undo::Order(id, old));
                }
                Undo::Formation(group, replaced.formation)
            }
            Command::Stop { id } => {
                let (order, pref) = self.stop_agent(id)?;
                self.nav.forget(id);
                self.inputs.undo.push(Undo::PrefVelocity(id, pref));
                Undo::Order(id, order)
            }
            Command::SetPriority { id, priority } => {
                let old = self.agent_params(id)?;
                self.set_agent_priority(id, priority)?;
                Undo::Params(id, old)
            }
            Command::SetModel { id, model } => {
                let old = self.agent_model(id)?;
                self.set_agent_model(id, model)?;
                Undo::Model(id, old)
            }
            Command::SetPrefVelocity { id, v } => {
                let old = self.agent_pref_velocity(id)?;
                self.set_agent_pref_velocity(id, v)?;
                Undo::PrefVelocity(id, old)
            }
            Command::SetParams { id, params } => {
                let old = self.agent_params(id)?;
                self.set_agent_params(id, params)?;
                Undo::Params(id, old)
            }
            Command::SetPosition { id, position } => {
                let old = self.agent_position(id)?;
                self.set_agent_position(id, position)?;
                Undo::Position(id, old)
            }
            Command::SetVelocity { id, v } => {
                let old = self.agent_velocity(id)?;
                self.set_agent_velocity(id, v)?;
                Undo::Velocity(id, old)
            }
        };
        self.inputs.undo.push(undo);
        Ok(())
    }

    /// Stage 1 of the tick: applies every pending command due at the current tick, in canonical
    /// order, skipping (and recording) those that fail, then drops the removed agents in one
    /// pass. The commands stay queued until [`finish_inputs`](Self::finish_inputs) commits them.
    pub(super) fn apply_inputs(&mut self) {
        self.inputs.added = 0;
        self.inputs.obstacles_saved = false;
        self.inputs.removed.clear();
        self.inputs.undo.clear();
        self.inputs.rejected.clear();
        self.inputs.added_obstacles.clear();
        self.inputs.nav_before.clone_from(&self.nav);
        self.inputs.mesh_before.assign(&self.nav_mesh);
        let mut applied = 0;
        let mut due = std::mem::take(&mut self.inputs.due);
        due.clear();
        due.extend(self.commands.due(self.tick).cloned());
        for p in &due {
            match self.apply_logged(&p.command) {
                Ok(()) => applied += 1,
                Err(error) => self.inputs.rejected.push(RejectedCommand {
                    tick: p.tick,
                    command: p.command.clone(),
                    error,
                }),
            }
        }
        self.inputs.due = due;
        self.agents.compact(|a| self.inputs.removed.push(a));
        self.work.stats.commands_applied = applied;
        self.work.stats.commands_rejected = self.inputs.rejected.len() as u64;
    }

    /// Last stage of the tick: on success drops the applied commands from the queue; on failure
    /// undoes them and leaves them queued, so the state is unchanged.
    ///
    /// Undo runs in four phases, which together invert stages 1, 1a and 1b (1b first): the
    /// removed agents are put back (one merge, with their state at removal), the value changes
    /// (stage 1a's replaced orders among them) are reverted newest first, the added agents (the
    /// newest slots) are dropped, and the navigation records and mesh are put back as they
    /// were before the step.
    pub(super) fn finish_inputs(&mut self, committed: bool) {
        if committed {
            self.commands.drop_due(self.tick - 1);
            self.inputs.undo.clear();
            self.inputs.removed.clear();
            return;
        }
        self.inputs.rejected.clear();
        self.unsteer_orders();
        let removed = std::mem::take(&mut self.inputs.removed);
        self.agents.reinsert(&removed);
        self.inputs.removed = removed;
        self.inputs.removed.clear();
        while let Some(undo) = self.inputs.undo.pop() {
            // Every undo restores a value that was valid a moment ago, to an agent that exists.
            let restored = match undo {
                Undo::Order(id, order) => {
                    self.restore_order(id, order);
                    Ok(())
                }
                Undo::Group(group, members) => {
                    self.restore_group(group, members);
                    Ok(())
                }
                Undo::Formation(group, formation) => {
                    self.orders.groups.set_formation(group, formation);
                    Ok(())
                }
                Undo::PrefVelocity(id, v) => self.set_agent_pref_velocity(id, v),
                Undo::Params(id, p) => self.set_agent_params(id, p),
                Undo::Model(id, m) => self.set_agent_model(id, m),
                Undo::Position(id, p) => self.set_agent_position(id, p),
                Undo::Velocity(id, v) => self.set_agent_velocity(id, v),
                Undo::Obstacles(set) => {
                    self.obstacles = set;
                    Ok(())
                }
            };
            debug_assert!(restored.is_ok(), "undo failed: {restored:?}");
        }
        for _ in 0..std::mem::take(&mut self.inputs.added) {
            self.agents.pop();
            self.next_id -= 1;
        }
        // Stages 1 and 1a changed the navigation records and maybe the mesh: both as before.
        std::mem::swap(&mut self.nav, &mut self.inputs.nav_before);
        self.nav_mesh.assign(&self.inputs.mesh_before);
        self.work.clear_neighbor_lists();
    }
}

/// The fields of a [`Command::FormationMove`] or [`Command::FormationMarch`] (`command` must be
/// one).
fn formation_order(command: &Command) -> FormationOrder {
    match *command {
        Command::FormationMove {
            group,
            goal,
            formation,
            facing,
            spacing,
            slowest,
        }
        | Command::FormationMarch {
            group,
            goal,
            formation,
            facing,
            spacing,
            slowest,
        } => FormationOrder {
            group,
            goal,
            kind: formation,
            facing,
            spacing,
            slowest,
            together: matches!(command, Command::FormationMarch { .. }),
        },
        _ => unreachable!("not a formation move"),
    }
}

#[cfg(test)]
mod tests {
    use crate::{AgentId, AgentParams, Command, Fx, SimError, Simulator, SimulatorParams, Vec2};

    fn pref(id: u32, x: i32) -> Command {
        Command::SetPrefVelocity {
            id: AgentId(id),
            v: Vec2::from_int(x, 0),
        }
    }

    /// A tick that changes agents, removes some of them (one after changing it, one that was
    /// added in the same tick) and then fails leaves every byte of the state as it was.
    #[test]
    fn a_failed_tick_with_removals_is_undone_exactly() {
        let edge = Fx::from_num(1_000_000);
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        for i in 0..20 {
            sim.add_agent(Vec2::from_int(i * 4, 0)).unwrap();
        }
        let runner = sim
            .add_agent(Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
            .unwrap();
        sim.set_agent_velocity(runner, Vec2::from_int(2, 0))
            .unwrap();
        sim.queue_command(0, pref(runner.0, 2)).unwrap();
        for id in [3, 7, 8, 19, 0] {
            sim.queue_command(0, pref(id, 1)).unwrap();
            sim.queue_command(0, Command::RemoveAgent { id: AgentId(id) })
                .unwrap();
        }
        sim.queue_command(
            0,
            Command::AddAgent {
                position: Vec2::from_int(5, 5),
                params: AgentParams::default(),
            },
        )
        .unwrap();
        let added = sim.next_agent_id();
        sim.queue_command(0, Command::RemoveAgent { id: added })
            .unwrap();
        sim.queue_command(0, pref(5, -1)).unwrap();
        let (hash, bytes, agents) = (sim.state_hash(), sim.snapshot(), sim.agents().clone());
        assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(runner)));
        assert_eq!(sim.state_hash(), hash);
        assert_eq!(sim.snapshot(), bytes);
        assert_eq!(sim.agents(), &agents);
        assert_eq!(sim.next_agent_id(), added);
        // The same tick succeeds once the runner turns round.
        sim.set_agent_velocity(runner, Vec2::from_int(-2, 0))
            .unwrap();
        sim.clear_pending_commands();
        sim.queue_command(0, Command::RemoveAgent { id: AgentId(3) })
            .unwrap();
        sim.queue_command(0, Command::RemoveAgent { id: AgentId(3) })
            .unwrap();
        sim.step().unwrap();
        assert_eq!(sim.num_agents(), 20);
        assert!(!sim.contains_agent(AgentId(3)));
        // The second removal of the same agent was skipped, and said so.
        assert_eq!(sim.rejected_commands().len(), 1);
        assert_eq!(
            sim.rejected_commands()[0].error,
            SimError::UnknownAgent(AgentId(3))
        );
        assert_eq!(sim.step_stats().commands_applied, 1);
        assert_eq!(sim.step_stats().commands_rejected, 1);
    }

    /// Queueing order does not matter: the same commands queued in opposite orders give the
    /// same queue and the same next state.
    #[test]
    fn arrival_order_is_irrelevant() {
        let mut a = Simulator::new(SimulatorParams::default()).unwrap();
        for i in 0..50 {
            a.add_agent(Vec2::from_int(i * 3, i % 7)).unwrap();
        }
        let mut b = a.clone();
        let commands: Vec<Command> = (0..50u32)
            .flat_map(|i| {
                let remove = Command::RemoveAgent { id: AgentId(i) };
                [
                    pref(i, i as i32 % 3),
                    if i % 4 == 0 { remove } else { pref(i, 1) },
                ]
            })
            .collect();
        // Per agent, its own commands keep their relative order in both.
        for c in &commands {
            a.queue_command(0, c.clone()).unwrap();
        }
        for pair in commands.chunks(2).rev() {
            for c in pair {
                b.queue_command(0, c.clone()).unwrap();
            }
        }
        assert_eq!(a.pending_commands(), b.pending_commands());
        assert_eq!(a.state_hash(), b.state_hash());
        a.step().unwrap();
        b.step().unwrap();
        assert_eq!(a.state_hash(), b.state_hash());
        assert_eq!(a.num_agents(), 50 - 13);
    }
}

//! Commands: the lockstep inputs of a tick, and the queue that applies them in a canonical order.
//!
//! A lockstep game does not call setters on the simulator directly: every peer queues the same
//! [`Command`]s for the same tick with [`Simulator::queue_command`], and the simulator applies
//! them at the start of that tick's [`step`](Simulator::step) (the `apply_inputs` stage). Because
//! the queue sorts commands into one canonical order, peers that received the same commands in a
//! different order still apply them identically.
//!
//! ```
//! use lockstep_orca::{AgentId, AgentParams, Command, Simulator, SimulatorParams, Vec2};
//!
//! let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
//! let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
//! // Tick 0: add an agent (it will get id 1) and steer both; order of queueing is irrelevant.
//! sim.queue_command(0, Command::SetPrefVelocity { id: AgentId(1), v: Vec2::from_int(-1, 0) })
//!     .unwrap();
//! sim.queue_command(0, Command::AddAgent {
//!     position: Vec2::from_int(10, 0),
//!     params: AgentParams::default(),
//! })
//! .unwrap();
//! sim.queue_command(0, Command::SetPrefVelocity { id: a, v: Vec2::from_int(1, 0) }).unwrap();
//! sim.step().unwrap();
//! assert_eq!(sim.agent_pref_velocity(AgentId(1)).unwrap(), Vec2::from_int(-1, 0));
//! assert!(sim.rejected_commands().is_empty());
//! ```
//!
//! # Canonical order
//! Pending commands are kept sorted by the key
//! `(tick, class, agent id)`, commands with equal keys in insertion order, where:
//!
//! 1. `tick`: the tick at whose start the command is applied (the step from `tick` to
//!    `tick + 1`);
//! 2. `class`: [`Command::AddAgent`] first (class 0), then every command addressed to an agent
//!    (class 1);
//! 3. `agent id`: ascending [`AgentId`] of the addressed agent (0 for `AddAgent`).
//!
//! So within a tick, new agents are added first, in insertion order, receiving the ids
//! `next_id, next_id + 1, …` (ids are deterministic: a command for a new agent may be queued for
//! the same tick as its `AddAgent`); then each agent's commands run, by ascending id, each agent's
//! own commands in the order they were queued. Only the relative order of commands with equal keys
//! depends on insertion order: give one agent's commands (and all `AddAgent`s) a single source.
//!
//! # Validation, twice
//! * When queued: the tick must not be in the past, every value must lie in the domain
//!   ([`crate::domain`]), and the addressed agent must not be a removed one (an id below
//!   `next_id` that no agent holds). Ids not handed out yet are accepted, because the `AddAgent`
//!   that will create them may be queued later (queueing must not depend on arrival order).
//!   A rejected command returns `Err` and is not queued.
//! * When applied: the same checks against the state of that moment (an agent may have been
//!   removed by an earlier command, the time step may have changed). **A command that fails at
//!   apply time is skipped**: it changes nothing, the tick continues with the other commands, and
//!   the failure is listed by [`Simulator::rejected_commands`] until the next step. Skipping is
//!   deterministic, so every peer skips the same commands.
//!
//! If the step itself then fails ([`SimError::AgentLeftDomain`]), the applied commands are undone
//! and stay queued: a failed step changes nothing, as every rejected call.

use crate::agent::{AgentId, AgentParams};
use crate::domain::{check_point, check_velocity};
use crate::error::SimError;
use crate::math::Vec2;
use crate::sim::Simulator;
use serde::{Deserialize, Serialize};

/// One input to the simulation, applied at the start of a tick (see the [module docs](self)).
///
/// The variant order is part of the snapshot, replay and hash formats (it is the tag byte):
/// append new variants, never reorder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// Sets an agent's preferred velocity ([`Simulator::set_agent_pref_velocity`]).
    SetPrefVelocity {
        /// The agent.
        id: AgentId,
        /// The new preferred velocity.
        v: Vec2,
    },
    /// Adds an agent ([`Simulator::add_agent_with`]) with zero velocity and zero preferred
    /// velocity. It receives the next id (see the canonical order in the [module docs](self)).
    AddAgent {
        /// Initial position.
        position: Vec2,
        /// Its parameters.
        params: AgentParams,
    },
    /// Removes an agent ([`Simulator::remove_agent`]).
    RemoveAgent {
        /// The agent.
        id: AgentId,
    },
    /// Replaces an agent's parameters ([`Simulator::set_agent_params`]).
    SetParams {
        /// The agent.
        id: AgentId,
        /// The new parameters.
        params: AgentParams,
    },
    /// Teleports an agent ([`Simulator::set_agent_position`]).
    SetPosition {
        /// The agent.
        id: AgentId,
        /// The new position.
        position: Vec2,
    },
    /// Sets an agent's current velocity ([`Simulator::set_agent_velocity`]).
    SetVelocity {
        /// The agent.
        id: AgentId,
        /// The new velocity.
        v: Vec2,
    },
}

/// `check_point` / `check_velocity` compute `|x|` with `Fx::abs`, which overflows for
/// `Fx::MIN` (a panic with debug assertions, a wrap to a negative value that passes the check
/// without). Until [`Vec2::max_abs_component`] handles it, values from outside go through this.
pub(crate) fn checked_point(v: Vec2, what: &'static str) -> Result<(), SimError> {
    if v.x == crate::Fx::MIN || v.y == crate::Fx::MIN {
        return check_point(Vec2::new(crate::Fx::MAX, crate::Fx::MAX), what);
    }
    check_point(v, what)
}

/// As [`checked_point`], for velocities.
pub(crate) fn checked_velocity(v: Vec2, what: &'static str) -> Result<(), SimError> {
    if v.x == crate::Fx::MIN || v.y == crate::Fx::MIN {
        return check_velocity(Vec2::new(crate::Fx::MAX, crate::Fx::MAX), what);
    }
    check_velocity(v, what)
}

impl Command {
    /// The agent this command addresses (`None` for [`Command::AddAgent`]).
    #[must_use]
    pub fn target(&self) -> Option<AgentId> {
        match *self {
            Self::AddAgent { .. } => None,
            Self::SetPrefVelocity { id, .. }
            | Self::RemoveAgent { id }
            | Self::SetParams { id, .. }
            | Self::SetPosition { id, .. }
            | Self::SetVelocity { id, .. } => Some(id),
        }
    }

    /// The format tag of the variant (its declaration index).
    #[must_use]
    pub fn tag(&self) -> u8 {
        match self {
            Self::SetPrefVelocity { .. } => 0,
            Self::AddAgent { .. } => 1,
            Self::RemoveAgent { .. } => 2,
            Self::SetParams { .. } => 3,
            Self::SetPosition { .. } => 4,
            Self::SetVelocity { .. } => 5,
        }
    }

    /// Checks the command's values against the domain, for a simulator with this time step.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] / [`SimError::VelocityScale`].
    pub fn validate_values(&self, time_step: crate::Fx) -> Result<(), SimError> {
        match self {
            Self::SetPrefVelocity { v, .. } => checked_velocity(*v, "pref_velocity"),
            Self::AddAgent { position, params } => {
                checked_point(*position, "position")?;
                params.validate(time_step)
            }
            Self::RemoveAgent { .. } => Ok(()),
            Self::SetParams { params, .. } => params.validate(time_step),
            Self::SetPosition { position, .. } => checked_point(*position, "position"),
            Self::SetVelocity { v, .. } => checked_velocity(*v, "velocity"),
        }
    }
}

/// A command waiting in the queue for its tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCommand {
    /// The tick at whose start it is applied.
    pub tick: u64,
    /// The command.
    pub command: Command,
}

impl PendingCommand {
    /// The canonical sort key `(tick, class, id)` (see the [module docs](self)).
    #[must_use]
    pub fn key(&self) -> (u64, u8, u32) {
        match self.command.target() {
            None => (self.tick, 0, 0),
            Some(id) => (self.tick, 1, id.0),
        }
    }
}

/// A queued command that was skipped when its tick came, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedCommand {
    /// The tick it was queued for.
    pub tick: u64,
    /// The command.
    pub command: Command,
    /// Why it could not be applied.
    pub error: SimError,
}

/// What to do to take one applied command back (used when a step fails after its inputs).
#[derive(Clone, Debug)]
enum Undo {
    Added,
    Removed {
        slot: usize,
        id: AgentId,
        position: Vec2,
        velocity: Vec2,
        pref_velocity: Vec2,
        params: AgentParams,
    },
    PrefVelocity(AgentId, Vec2),
    Params(AgentId, AgentParams),
    Position(AgentId, Vec2),
    Velocity(AgentId, Vec2),
}

/// The simulator's command queue: pending commands in canonical order (part of the state, hashed
/// and snapshotted) plus bookkeeping of the last step (not state).
#[derive(Clone, Debug, Default)]
pub struct CommandQueue {
    pub(crate) pending: Vec<PendingCommand>,
    /// Commands taken from the front of `pending` by the current step (until it commits).
    applying: usize,
    undo: Vec<Undo>,
    rejected: Vec<RejectedCommand>,
}

impl CommandQueue {
    /// Inserts after every command with a key `<=` its own (so equal keys keep insertion order).
    pub(crate) fn insert(&mut self, p: PendingCommand) {
        let key = p.key();
        let at = self.pending.partition_point(|q| q.key() <= key);
        self.pending.insert(at, p);
    }

    /// Whether the pending commands are in canonical order (for restored state).
    pub(crate) fn is_canonical(pending: &[PendingCommand]) -> bool {
        pending.windows(2).all(|w| w[0].key() <= w[1].key())
    }
}

impl Simulator {
    /// Queues `command` to be applied at the start of `tick` (by the step from `tick` to
    /// `tick + 1`; `tick == self.tick()` means the next step). See the [module docs](self) for
    /// the canonical order and the validation.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] (`what: "command tick"`) if `tick` is in the past, a domain
    /// error for a bad value, [`SimError::UnknownAgent`] for a removed agent. Nothing is queued
    /// then.
    pub fn queue_command(&mut self, tick: u64, command: Command) -> Result<(), SimError> {
        if tick < self.tick {
            return Err(SimError::OutOfDomain {
                what: "command tick",
                allowed: ">= the current tick",
            });
        }
        command.validate_values(self.time_step)?;
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

    /// The state hash without the pending commands: equal to [`state_hash`](Self::state_hash)
    /// of the same state with an empty queue.
    ///
    /// Use it to detect desyncs between lockstep peers: with input delay, peers receive the
    /// commands for future ticks at different times, so their queues (and `state_hash`es)
    /// legitimately differ between ticks while everything already simulated is equal.
    /// `state_hash` covers the whole state (what a snapshot holds); `sync_hash` what has been
    /// simulated.
    pub fn sync_hash(&mut self) -> u64 {
        let pending = std::mem::take(&mut self.commands.pending);
        let hash = self.state_hash();
        self.commands.pending = pending;
        hash
    }

    /// The commands waiting for a future step, in the canonical order they will be applied.
    #[must_use]
    pub fn pending_commands(&self) -> &[PendingCommand] {
        &self.commands.pending
    }

    /// Drops every pending command (e.g. before re-queuing corrected inputs after a rollback).
    pub fn clear_pending_commands(&mut self) {
        self.commands.pending.clear();
    }

    /// The queued commands the last successful [`step`](Self::step) skipped because they were
    /// invalid when their tick came, with the reason (see the [module docs](self)).
    #[must_use]
    pub fn rejected_commands(&self) -> &[RejectedCommand] {
        &self.commands.rejected
    }

    /// Applies a command now, outside the queue (the same as calling the matching setter).
    /// Returns the new agent's id for [`Command::AddAgent`], `None` otherwise.
    ///
    /// # Errors
    /// The matching setter's errors; nothing changes then.
    pub fn apply(&mut self, command: &Command) -> Result<Option<AgentId>, SimError> {
        self.apply_with_undo(command).map(|(id, _)| id)
    }

    fn apply_with_undo(&mut self, command: &Command) -> Result<(Option<AgentId>, Undo), SimError> {
        match *command {
            Command::SetPrefVelocity { id, v } => {
                let old = self.agent_pref_velocity(id)?;
                self.set_agent_pref_velocity(id, v)?;
                Ok((None, Undo::PrefVelocity(id, old)))
            }
            Command::AddAgent { position, params } => {
                let id = self.add_agent_with(position, params)?;
                Ok((Some(id), Undo::Added))
            }
            Command::RemoveAgent { id } => {
                let slot = self.slot_of(id)?;
                let undo = Undo::Removed {
                    slot,
                    id,
                    position: self.positions[slot],
                    velocity: self.velocities[slot],
                    pref_velocity: self.pref_velocities[slot],
                    params: self.params[slot],
                };
                self.remove_agent(id)?;
                Ok((None, undo))
            }
            Command::SetParams { id, params } => {
                let old = self.agent_params(id)?;
                self.set_agent_params(id, params)?;
                Ok((None, Undo::Params(id, old)))
            }
            Command::SetPosition { id, position } => {
                let old = self.agent_position(id)?;
                self.set_agent_position(id, position)?;
                Ok((None, Undo::Position(id, old)))
            }
            Command::SetVelocity { id, v } => {
                let old = self.agent_velocity(id)?;
                self.set_agent_velocity(id, v)?;
                Ok((None, Undo::Velocity(id, old)))
            }
        }
    }

    fn slot_of(&self, id: AgentId) -> Result<usize, SimError> {
        self.ids
            .binary_search(&id)
            .map_err(|_| SimError::UnknownAgent(id))
    }

    /// Stage 1 of the tick: applies every pending command due at the current tick, in canonical
    /// order, skipping (and recording) those that fail. They stay in the queue until
    /// [`finish_inputs`](Self::finish_inputs) commits them.
    pub(crate) fn apply_inputs(&mut self) {
        let due = self
            .commands
            .pending
            .partition_point(|p| p.tick <= self.tick);
        self.commands.applying = due;
        self.commands.undo.clear();
        self.commands.rejected.clear();
        for i in 0..due {
            let p = self.commands.pending[i];
            match self.apply_with_undo(&p.command) {
                Ok((_, undo)) => self.commands.undo.push(undo),
                Err(error) => self.commands.rejected.push(RejectedCommand {
                    tick: p.tick,
                    command: p.command,
                    error,
                }),
            }
        }
    }

    /// Last stage of the tick: on success drops the applied commands from the queue; on failure
    /// undoes them (in reverse order) and leaves them queued, so the state is unchanged.
    pub(crate) fn finish_inputs(&mut self, committed: bool) {
        let due = std::mem::take(&mut self.commands.applying);
        if committed {
            self.commands.pending.drain(..due);
            self.commands.undo.clear();
            return;
        }
        self.commands.rejected.clear();
        while let Some(undo) = self.commands.undo.pop() {
            self.undo(undo);
        }
        self.clear_neighbor_lists();
    }

    fn undo(&mut self, undo: Undo) {
        // Every undo restores a value that was valid a moment ago, so none of these can fail.
        let _ = match undo {
            Undo::Added => {
                // The newest agent has the largest id, so it sits in the last slot.
                self.ids.pop();
                self.positions.pop();
                self.velocities.pop();
                self.pref_velocities.pop();
                self.params.pop();
                self.next_id -= 1;
                Ok(())
            }
            Undo::Removed {
                slot,
                id,
                position,
                velocity,
                pref_velocity,
                params,
            } => {
                self.ids.insert(slot, id);
                self.positions.insert(slot, position);
                self.velocities.insert(slot, velocity);
                self.pref_velocities.insert(slot, pref_velocity);
                self.params.insert(slot, params);
                Ok(())
            }
            Undo::PrefVelocity(id, v) => self.set_agent_pref_velocity(id, v),
            Undo::Params(id, p) => self.set_agent_params(id, p),
            Undo::Position(id, p) => self.set_agent_position(id, p),
            Undo::Velocity(id, v) => self.set_agent_velocity(id, v),
        };
    }
}

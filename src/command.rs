//! Commands: the lockstep inputs of a tick, and the queue that applies them in a canonical order.
//!
//! A lockstep game does not call setters on the simulator directly: every peer queues the same
//! [`Command`]s for the same tick with [`Simulator::queue_command`](crate::Simulator::queue_command), and the simulator applies
//! them at the start of that tick's [`step`](crate::Simulator::step) (the `apply_inputs` stage). Because
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
//! 2. `class`: the world commands first (class 0: [`Command::AddAgent`],
//!    [`Command::SpawnAgent`], [`Command::AddObstacle`], [`Command::RemoveObstacle`],
//!    [`Command::SetGroup`], [`Command::GroupMove`], [`Command::GroupNavigate`],
//!    [`Command::FormationMove`], [`Command::FormationMarch`]), then every command addressed to an agent
//!    (class 1);
//! 3. `agent id`: ascending [`AgentId`] of the addressed agent (0 for the world commands).
//!
//! So within a tick, the world commands run first, in insertion order: each `AddAgent` and
//! `SpawnAgent` receives the next agent id (`next_id, next_id + 1, …`), each `AddObstacle` the
//! next obstacle id (the obstacle id counter is state, [`ObstacleSet`](crate::obstacle::ObstacleSet):
//! the `k`-th successful `AddObstacle` of the tick gets the counter's value plus `k - 1`; a
//! rejected one takes no id). Ids are therefore predictable by the sender: a command for a new
//! agent may be queued for the same tick as its `AddAgent`, a `RemoveObstacle` for the same
//! tick as its `AddObstacle` (after it). Then each agent's commands run, by ascending id, each
//! agent's own commands in the order they were queued. Only the relative order of commands with
//! equal keys depends on insertion order: give one agent's commands (and all world commands) a
//! single source.
//!
//! # Validation, twice
//! * When queued: the tick must not be in the past, every value must lie in the domain
//!   ([`crate::domain`]), an obstacle shape must pass the checks of
//!   [`Simulator::add_obstacle`](crate::Simulator::add_obstacle) (at most [`MAX_VERTICES`](crate::obstacle::MAX_VERTICES) =
//!   4,096 vertices per command; the pending obstacle commands together at most
//!   [`MAX_OBSTACLE_VERTICES`](crate::domain::MAX_OBSTACLE_VERTICES)), and the addressed agent
//!   or obstacle must not be a removed one (an id below its counter that none holds). Ids not
//!   handed out yet are accepted, because the command that will create them may be queued later
//!   (queueing must not depend on arrival order). A rejected command returns `Err` and is not
//!   queued.
//! * When applied: the same checks against the state of that moment (an agent may have been
//!   removed by an earlier command, an obstacle may push the set past its vertex limit). **A
//!   command that fails at apply time is skipped**: it changes nothing, the tick continues with
//!   the other commands, and the failure is listed by [`Simulator::rejected_commands`](crate::Simulator::rejected_commands) until the
//!   next step. Skipping is deterministic, so every peer skips the same commands.
//!
//! If the step itself then fails ([`SimError::AgentLeftDomain`]), the applied commands are undone
//! and stay queued: a failed step changes nothing, as every rejected call.

use crate::agent::{AgentId, AgentParams};
use crate::agent_model::AgentModel;
use crate::domain::{checked_point, checked_velocity};
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use crate::obstacle::{ObstacleId, ObstacleShape};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One input to the simulation, applied at the start of a tick (see the [module docs](self)).
///
/// The variant order is part of the snapshot, replay and hash formats (it is the tag byte):
/// append new variants, never reorder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// Sets an agent's preferred velocity ([`Simulator::set_agent_pref_velocity`](crate::Simulator::set_agent_pref_velocity)).
    SetPrefVelocity {
        /// The agent.
        id: AgentId,
        /// The new preferred velocity.
        v: Vec2,
    },
    /// Adds an agent ([`Simulator::add_agent_with`](crate::Simulator::add_agent_with)) with zero velocity and zero preferred
    /// velocity. It receives the next id (see the canonical order in the [module docs](self)).
    AddAgent {
        /// Initial position.
        position: Vec2,
        /// Its parameters.
        params: AgentParams,
    },
    /// Removes an agent ([`Simulator::remove_agent`](crate::Simulator::remove_agent)).
    RemoveAgent {
        /// The agent.
        id: AgentId,
    },
    /// Replaces an agent's parameters ([`Simulator::set_agent_params`](crate::Simulator::set_agent_params)).
    SetParams {
        /// The agent.
        id: AgentId,
        /// The new parameters.
        params: AgentParams,
    },
    /// Teleports an agent ([`Simulator::set_agent_position`](crate::Simulator::set_agent_position)).
    SetPosition {
        /// The agent.
        id: AgentId,
        /// The new position.
        position: Vec2,
    },
    /// Sets an agent's current velocity ([`Simulator::set_agent_velocity`](crate::Simulator::set_agent_velocity)).
    SetVelocity {
        /// The agent.
        id: AgentId,
        /// The new velocity.
        v: Vec2,
    },
    /// Orders an agent to `goal` ([`crate::orders`]): replaces its path by `goal` alone; the
    /// simulator steers it there from now on.
    MoveTo {
        /// The agent.
        id: AgentId,
        /// Where to go.
        goal: Vec2,
    },
    /// Appends `goal` to an agent's path ([`crate::orders`]): the path's current end becomes a
    /// waypoint. The same as [`Command::MoveTo`] for an agent without an order. Rejected when
    /// the path already holds [`MAX_PATH_POINTS`](crate::orders::MAX_PATH_POINTS) points.
    /// For an agent that navigates ([`Command::NavigateTo`], navigation on) it queues a
    /// navigated leg instead ([`Simulator::nav_legs`](crate::Simulator::nav_legs)): once the
    /// current goal is done (within the waypoint tolerance, past it, or the order finished),
    /// the next leg is planned over the mesh from where the agent is; rejected past
    /// [`MAX_NAV_LEGS`](crate::navigation::MAX_NAV_LEGS) legs (docs/navigation.md § "Queued
    /// legs").
    QueueMove {
        /// The agent.
        id: AgentId,
        /// Where to go after the current path.
        goal: Vec2,
    },
    /// Drops an agent's order and sets its preferred velocity to zero ([`crate::orders`]).
    Stop {
        /// The agent.
        id: AgentId,
    },
    /// Sets an agent's avoidance priority ([`AgentParams::priority`]), the one parameter a game
    /// changes in play (a unit given right of way), without sending all of them.
    SetPriority {
        /// The agent.
        id: AgentId,
        /// The new priority.
        priority: u8,
    },
    /// Replaces an agent's model beyond RVO2's ([`Simulator::set_agent_model`](crate::Simulator::set_agent_model),
    /// [`AgentModel`]: layers and mask, body radius, acceleration, support, terrain).
    SetModel {
        /// The agent.
        id: AgentId,
        /// The new model.
        model: AgentModel,
    },
    /// Adds an agent with its parameters and its model ([`AgentModel`]), with zero velocity
    /// and zero preferred velocity: [`Command::AddAgent`] followed by [`Command::SetModel`] in
    /// one command. It receives the next id, numbered with the `AddAgent`s (see the canonical
    /// order in the [module docs](self)).
    SpawnAgent {
        /// Initial position.
        position: Vec2,
        /// Its parameters.
        params: AgentParams,
        /// Its model.
        model: AgentModel,
    },
    /// Adds a static obstacle (a building placed; [`Simulator::add_obstacle`](crate::Simulator::add_obstacle), validated as
    /// there, at most [`MAX_VERTICES`](crate::obstacle::MAX_VERTICES) vertices). It receives the
    /// next obstacle id (see the canonical order in the [module docs](self)); the obstacle tree
    /// is rebuilt before the tick's agents move.
    AddObstacle {
        /// Its outline.
        shape: ObstacleShape,
    },
    /// Removes a static obstacle (a building destroyed; [`Simulator::remove_obstacle`](crate::Simulator::remove_obstacle)).
    RemoveObstacle {
        /// The obstacle.
        id: ObstacleId,
    },
    /// Orders an agent to `goal` by a planned path ([`crate::orders`],
    /// [`Simulator::set_navigation`](crate::Simulator::set_navigation)): the agent holds its
    /// position until the navigate stage (1a) of a tick with budget left plans its path over
    /// the navigation mesh, then follows it as any order, and replans when the path becomes
    /// blocked or it stops making progress. Without navigation (or without a mesh) it behaves
    /// as [`Command::MoveTo`]. Validated as `MoveTo`; replaced like any order. Sent again with
    /// the goal the agent already navigates to while it is on its way by its plan (its order
    /// unfinished, the agent within 4 radii of its current leg), it keeps the plan and the
    /// order's progress (its queued legs and its order's speed go, as with any new order); a
    /// finished order or an agent moved off its path is planned afresh. Sent while the agent
    /// still waits for its first plan, it keeps the agent's place among the first plans
    /// served (oldest request first).
    NavigateTo {
        /// The agent.
        id: AgentId,
        /// Where to go.
        goal: Vec2,
    },
    /// Sets the speed of an agent's current order ([`Simulator::set_order_speed`](crate::Simulator::set_order_speed),
    /// `0 ..= 1,000`; `None`: the [`Steering::speed`](crate::orders::Steering::speed), else
    /// the agent's `max_speed`). Rejected when applied to an agent without an order
    /// ([`SimError::OutOfDomain`], `what: "order"`). A new order ([`Command::MoveTo`]) starts without one; a
    /// [`Command::QueueMove`] keeps it. Tag 15 (14 is reserved for the navigation order).
    SetOrderSpeed {
        /// The agent.
        id: AgentId,
        /// The speed.
        speed: Option<Fx>,
    },
    /// Sets a group's members ([`crate::orders::groups`]: sorted, duplicates and absent agents
    /// dropped when applied; an empty list deletes the group). Tag 16; a world command (class
    /// 0), applied before the tick's agent commands. Refused when queued for a group id of
    /// [`MAX_GROUPS`](crate::orders::groups::MAX_GROUPS) or more or more than
    /// [`MAX_GROUP_MEMBERS`](crate::orders::groups::MAX_GROUP_MEMBERS) members.
    SetGroup {
        /// The group id.
        group: u32,
        /// Its members.
        members: Vec<AgentId>,
    },
    /// Orders every member of a group to `goal` ([`crate::orders::groups`]), in ascending id:
    /// [`Command::MoveTo`] each (or [`Command::QueueMove`] with `queue`), and with `slowest`
    /// every order at the slowest member's speed. Tag 17; a world command (class 0). Rejected
    /// when applied to a group that does not exist or has no member present.
    GroupMove {
        /// The group id.
        group: u32,
        /// Where to go.
        goal: Vec2,
        /// Append to the members' paths rather than replace them.
        queue: bool,
        /// Move at the slowest member's speed.
        slowest: bool,
    },
    /// Sends a group to `goal` in formation ([`crate::orders::formation`]): the present members
    /// get one slot each (layout `formation`, turned to `facing` or to the direction from the
    /// group's centre to the goal, slots `spacing` apart or 5 radii of the largest member),
    /// assigned near-optimally, ties by id; each member is ordered to its slot
    /// ([`Command::MoveTo`], or [`Command::NavigateTo`] when navigation is on, its slot first
    /// moved to the nearest walkable place), with `slowest` at the slowest member's speed. The
    /// formation is kept as state until the group's next formation move; its status is
    /// [`Simulator::formation_status`](crate::Simulator::formation_status). Tag 18; a world
    /// command (class 0). Refused when queued for a bad group id, goal, facing (zero, or a
    /// component beyond ±1,000) or spacing (`0.01 ..= 1,000`); rejected when applied to a
    /// group without a member present or when a slot would leave the domain.
    FormationMove {
        /// The group id.
        group: u32,
        /// Where the formation's centre goes.
        goal: Vec2,
        /// The layout.
        formation: crate::orders::formation::FormationKind,
        /// The facing (`None`: from the group's centre to the goal; the group's current
        /// formation's facing when the goal is the same, or within half the layout's width of
        /// the group's centre: docs/formations.md § "The command").
        facing: Option<Vec2>,
        /// The distance between neighbouring slots (`None`: 5 radii of the largest member).
        spacing: Option<Fx>,
        /// Move at the slowest member's speed.
        slowest: bool,
    },
    /// Sends a group to `goal` in formation, **moving together**
    /// ([`crate::orders::formation::march`]): the slots are planned as for
    /// [`Command::FormationMove`] (around the end of the group's path when the goal is not
    /// reachable), then one path is planned for the whole group (from its centre, for its
    /// largest radius, with the navigation mesh when navigation is on, else straight), a frame
    /// moves along it and every member is steered to its slot relative to the frame; the group
    /// narrows to a column through narrow stretches and re-forms after them. The frame's pace is
    /// 7/8 of the slowest member's speed, or of the fastest one's with `slowest` false (each then
    /// keeps up as it can). Each member's order goes to its final slot ([`Command::MoveTo`]);
    /// it follows the frame until the frame reaches the goal, then that order. Tag 19; a world
    /// command (class 0). Refused and rejected as [`Command::FormationMove`].
    FormationMarch {
        /// The group id.
        group: u32,
        /// Where the formation's centre goes.
        goal: Vec2,
        /// The layout.
        formation: crate::orders::formation::FormationKind,
        /// The facing (`None`: from the group's centre to the goal; the group's current
        /// formation's facing when the goal is the same, or within half the layout's width of
        /// the group's centre: docs/formations.md § "The command").
        facing: Option<Vec2>,
        /// The distance between neighbouring slots (`None`: 5 radii of the largest member).
        spacing: Option<Fx>,
        /// The frame's pace from the slowest member's speed (else the fastest one's).
        slowest: bool,
    },
    /// Orders every member of a group to `goal` **by planned paths** (a [`Command::GroupMove`]
    /// that navigates, [`crate::orders::groups`]): [`Command::NavigateTo`] each present
    /// member, in ascending id, and with `slowest` every order at the slowest member's speed.
    /// With `queue`, a member that navigates gets a navigated leg instead (its order stays, as
    /// with a [`Command::QueueMove`]) and a member that does not is given the navigation order.
    /// Four or more members of one radius share one search (a distance field for the goal and
    /// radius, as any navigating agents sent to one goal do).
    /// Without navigation (or without a mesh) each order behaves as [`Command::MoveTo`], as
    /// `NavigateTo` does. Tag 20; a world command (class 0). Refused and rejected as
    /// [`Command::GroupMove`]; a rejected one changes nothing for any member.
    GroupNavigate {
        /// The group id.
        group: u32,
        /// Where to go.
        goal: Vec2,
        /// Queue a navigated leg for members that navigate rather than replace their orders.
        queue: bool,
        /// Move at the slowest member's speed.
        slowest: bool,
    },
}

impl Command {
    /// A formation order for `group`: [`Command::FormationMarch`] (the group moves together)
    /// when `together`, else [`Command::FormationMove`] (each member to its slot), with the
    /// same fields.
    #[must_use]
    pub fn formation(
        together: bool,
        group: u32,
        goal: Vec2,
        formation: crate::orders::formation::FormationKind,
        facing: Option<Vec2>,
        spacing: Option<Fx>,
        slowest: bool,
    ) -> Self {
        if together {
            Self::FormationMarch {
                group,
                goal,
                formation,
                facing,
                spacing,
                slowest,
            }
        } else {
            Self::FormationMove {
                group,
                goal,
                formation,
                facing,
                spacing,
                slowest,
            }
        }
    }

    /// The agent this command addresses (`None` for the world commands: [`Command::AddAgent`],
    /// [`Command::SpawnAgent`], [`Command::AddObstacle`], [`Command::RemoveObstacle`]).
    #[must_use]
    pub fn target(&self) -> Option<AgentId> {
        match *self {
            Self::AddAgent { .. }
            | Self::SpawnAgent { .. }
            | Self::AddObstacle { .. }
            | Self::RemoveObstacle { .. }
            | Self::SetGroup { .. }
            | Self::GroupMove { .. }
            | Self::GroupNavigate { .. }
            | Self::FormationMove { .. }
            | Self::FormationMarch { .. } => None,
            Self::SetPrefVelocity { id, .. }
            | Self::RemoveAgent { id }
            | Self::SetParams { id, .. }
            | Self::SetPosition { id, .. }
            | Self::SetVelocity { id, .. }
            | Self::MoveTo { id, .. }
            | Self::QueueMove { id, .. }
            | Self::Stop { id }
            | Self::SetPriority { id, .. }
            | Self::SetModel { id, .. }
            | Self::NavigateTo { id, .. }
            | Self::SetOrderSpeed { id, .. } => Some(id),
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
            Self::MoveTo { .. } => 6,
            Self::QueueMove { .. } => 7,
            Self::Stop { .. } => 8,
            Self::SetPriority { .. } => 9,
            Self::SetModel { .. } => 10,
            Self::SpawnAgent { .. } => 11,
            Self::AddObstacle { .. } => 12,
            Self::RemoveObstacle { .. } => 13,
            Self::NavigateTo { .. } => 14,
            Self::SetOrderSpeed { .. } => 15,
            Self::SetGroup { .. } => 16,
            Self::GroupMove { .. } => 17,
            Self::FormationMove { .. } => 18,
            Self::FormationMarch { .. } => 19,
            Self::GroupNavigate { .. } => 20,
        }
    }

    /// Checks the command's values against the domain, for a simulator with this time step.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] / [`SimError::VelocityScale`]; [`SimError::InvalidObstacle`]
    /// for an obstacle shape that [`Simulator::add_obstacle`](crate::Simulator::add_obstacle) would refuse (degenerate,
    /// self-intersecting, more than [`MAX_VERTICES`](crate::obstacle::MAX_VERTICES) vertices).
    pub fn validate_values(&self, time_step: crate::math::Fx) -> Result<(), SimError> {
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
            Self::MoveTo { goal, .. }
            | Self::QueueMove { goal, .. }
            | Self::NavigateTo { goal, .. } => checked_point(*goal, "goal"),
            Self::Stop { .. } | Self::SetPriority { .. } => Ok(()),
            Self::SetModel { model, .. } => model.validate(time_step),
            Self::SpawnAgent {
                position,
                params,
                model,
            } => {
                checked_point(*position, "position")?;
                params.validate(time_step)?;
                model.validate(time_step)
            }
            Self::AddObstacle { shape } => crate::obstacle::polygon::validate(shape),
            Self::RemoveObstacle { .. } => Ok(()),
            Self::SetOrderSpeed { speed, .. } => speed.map_or(Ok(()), |s| {
                crate::domain::check_range(
                    s,
                    Fx::ZERO,
                    crate::domain::MAX_SPEED,
                    "order speed",
                    "0 ..= 1,000",
                )
            }),
            Self::SetGroup { group, members } => {
                crate::orders::groups::check_group(*group, members.len())
            }
            Self::GroupMove { group, goal, .. } | Self::GroupNavigate { group, goal, .. } => {
                crate::orders::groups::check_group(*group, 0)?;
                checked_point(*goal, "goal")
            }
            Self::FormationMove {
                group,
                goal,
                facing,
                spacing,
                ..
            }
            | Self::FormationMarch {
                group,
                goal,
                facing,
                spacing,
                ..
            } => {
                crate::orders::groups::check_group(*group, 0)?;
                checked_point(*goal, "goal")?;
                if let Some(f) = facing {
                    crate::orders::formation::check_facing(*f)?;
                }
                spacing.map_or(Ok(()), crate::orders::formation::check_spacing)
            }
        }
    }

    /// The obstacle vertices this command carries (0 but for [`Command::AddObstacle`]).
    #[must_use]
    pub fn obstacle_vertices(&self) -> usize {
        match self {
            Self::AddObstacle { shape } => shape.vertices().len(),
            _ => 0,
        }
    }
}

/// A command waiting in the queue for its tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// The queue's order: the canonical key, then the insertion sequence number.
type QueueKey = ((u64, u8, u32), u64);

/// The simulator's pending commands in canonical order: part of the state (hashed and
/// snapshotted).
///
/// Inserting costs O(log n) whatever the arrival order (commands from a network arrive in any
/// order); taking a tick's commands off the front costs O(log n) plus the commands taken.
/// Commands with equal keys keep their insertion order through a sequence number that is not
/// state: only the relative order it gives is, and a restored queue numbers its commands in the
/// order they were saved.
#[derive(Clone, Debug, Default)]
pub struct CommandQueue {
    pending: BTreeMap<QueueKey, PendingCommand>,
    next_seq: u64,
    /// Vertices of the pending [`Command::AddObstacle`]s (derived from `pending`).
    vertices: usize,
}

impl PartialEq for CommandQueue {
    /// Two queues are equal when they hold the same commands in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for CommandQueue {}

impl CommandQueue {
    /// Number of pending commands.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether no command is pending.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The pending commands in canonical order (the order they will be applied).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &PendingCommand> + DoubleEndedIterator {
        self.pending.values()
    }

    /// The pending commands in canonical order, copied.
    #[must_use]
    pub fn to_vec(&self) -> Vec<PendingCommand> {
        self.iter().cloned().collect()
    }

    /// Vertices of the pending [`Command::AddObstacle`]s together (at most
    /// [`MAX_OBSTACLE_VERTICES`](crate::domain::MAX_OBSTACLE_VERTICES) once queued through
    /// [`Simulator::queue_command`](crate::Simulator::queue_command)).
    #[must_use]
    pub fn obstacle_vertices(&self) -> usize {
        self.vertices
    }

    /// Inserts after every command with a key `<=` its own (so equal keys keep insertion
    /// order). O(log n).
    pub(crate) fn insert(&mut self, p: PendingCommand) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.vertices += p.command.obstacle_vertices();
        self.pending.insert((p.key(), seq), p);
    }

    /// Drops every command.
    pub(crate) fn clear(&mut self) {
        self.pending.clear();
        self.vertices = 0;
    }

    /// The commands due at `tick` (queued for `tick` or earlier), in canonical order.
    pub(crate) fn due(&self, tick: u64) -> impl Iterator<Item = &PendingCommand> {
        self.pending.values().take_while(move |p| p.tick <= tick)
    }

    /// Removes the commands due at `tick`.
    pub(crate) fn drop_due(&mut self, tick: u64) {
        let Some(next) = tick.checked_add(1) else {
            return self.clear();
        };
        let later = self.pending.split_off(&((next, 0, 0), 0));
        let dropped = std::mem::replace(&mut self.pending, later);
        if self.vertices > 0 {
            self.vertices -= dropped
                .values()
                .map(|p| p.command.obstacle_vertices())
                .sum::<usize>();
        }
    }

    /// A queue holding `pending`, which must be in canonical order (a restored state): `None`
    /// otherwise.
    pub(crate) fn from_canonical(pending: Vec<PendingCommand>) -> Option<Self> {
        if !pending.windows(2).all(|w| w[0].key() <= w[1].key()) {
            return None;
        }
        let mut q = Self::default();
        for p in pending {
            q.insert(p);
        }
        Some(q)
    }
}

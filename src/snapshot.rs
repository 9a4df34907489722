//! Snapshots: the whole simulation state as portable bytes, and its guarded restore.
//!
//! ```
//! use lockstep_orca::{Simulator, SimulatorParams, Vec2};
//!
//! let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
//! let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
//! sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0)).unwrap();
//! let bytes = sim.snapshot();
//! let mut copy = Simulator::restore(&bytes).unwrap();
//! sim.step().unwrap();
//! copy.step().unwrap();
//! assert_eq!(copy.state_hash(), sim.state_hash());
//! assert!(Simulator::restore(&bytes[..bytes.len() - 1]).is_err());
//! ```
//!
//! [`Simulator::snapshot`] writes, and [`Simulator::restore`] reads, this envelope (all integers
//! little-endian):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic: `b"LSORCASN"` ([`SNAPSHOT_MAGIC`]) |
//! | 4 | format version (`u32`): [`SNAPSHOT_VERSION`] |
//! | 8 | payload length `L` (`u64`), at most [`MAX_PAYLOAD_BYTES`] |
//! | L | payload: bincode 2.0.1, serde, `standard().with_little_endian().with_fixed_int_encoding()` |
//! | 8 | checksum: `xxh3_64` (seed 0) of every preceding byte (header and payload) |
//!
//! The snapshot payload (version 3) is, in this order: tick (`u64`), global time, time step,
//! next agent id (`u32`), the [`Liveness`] mode (an enum tag), the
//! [`Steering`] (speed, slow-down distance, waypoint tolerance, each
//! an option: a `u8` tag 0 or 1 and the value; the perturbation as an option of (seed `u64`,
//! magnitude, hash kind as an enum tag)), agent defaults
//! ([`AgentParams`]), the agents in ascending id (id, position, velocity, preferred velocity,
//! parameters, stall counter (`u16`)), the move orders in ascending agent id (agent id, then
//! the [`Order`]: start, path points, progress (`u32`)), the obstacle set (its serde form: the
//! obstacles as (id, shape) in ascending id, the obstacle id counter (`u32`), then the
//! [`ObstacleNeighbors`](crate::obstacle::ObstacleNeighbors) mode as an enum tag, 0 whole
//! edges or 1 RVO2 fragments, any other tag undecodable), and the pending commands in
//! canonical order ([`crate::command`]). Scalars are their raw Q32.32 `i64` bits; sequence
//! lengths are `u64`; enum tags `u32`. There is no `usize`, no float and no native-endian
//! field, so a snapshot taken on one machine restores bit-identically on any other.
//!
//! **Version 4** ([`SNAPSHOT_VERSION_MODELS`]) is written only when an agent model is in use
//! (some agent's [`AgentModel`] is not the default, or a
//! [`Command::SetModel`](crate::Command::SetModel) is pending): version 3's payload, then the
//! non-default models as a sequence of (agent id, [`AgentModel`]: layers `u32`, mask `u32`,
//! body radius option, max accel option, support velocity, slope, speed limit option) in
//! ascending agent id. Otherwise the snapshot is version 3, byte for byte what a build without
//! the model writes.
//!
//! **Version 5** ([`SNAPSHOT_VERSION_ORDERS`]) is written when some agent has a move order, the
//! arrival steering is not the default ([`Steering::arrive_within`],
//! [`Steering::give_up_after`]), a group exists or a command of tag 15 or more
//! ([`Command::SetOrderSpeed`](crate::Command::SetOrderSpeed), `SetGroup`, `GroupMove`) is
//! pending: version 4's payload, then `arrive_within` and `give_up_after` (options) and
//! `rvo2_goals` (`bool`), then one
//! record per order in the orders' order: the [`Arrival`] (status as an enum tag, ticks without
//! progress `u32`, rest point) and the order speed (an option); then the groups ([`crate::orders::groups`])
//! as a sequence of (group id `u32`, members: a sequence of ids), ascending group id, each
//! non-empty with strictly ascending members below the id counter. Versions 3, 4 and 5 restore; a
//! version 3 or 4 snapshot's orders restore as new orders (moving, no speed of their own).
//!
//! **Version 6** ([`SNAPSHOT_VERSION_NAV`]) is written only when navigation is in use (settings
//! set with [`Simulator::set_navigation`], a navigating agent, a budget debt or a pending path
//! check) or a [`Command::NavigateTo`](crate::Command::NavigateTo) or
//! [`Command::GroupNavigate`](crate::Command::GroupNavigate) is pending: version 5's
//! payload (with empty model, order and group lists when those are not in use), then the navigation state: the
//! settings as an option of [`NavParams`] (boundary as an option
//! of a point sequence, margin, budget `u32`, search cap `u32`), the budget debt (`u32`), the
//! "obstacles changed" flag (`u8`), and the navigation records in ascending agent id (agent
//! id, goal, plan status as an option of [`PathStatus`](crate::navigation::PathStatus) (enum
//! tag, and the end point for `GoalAdjusted` / `Unreachable`), pending flag, planned tick
//! `u64`, no-progress ticks `u16`, best distance, target index `u32`), then traffic control's
//! state: the held chokes (corners a, b, holder `u8`, since tick `u64`) ascending, and the
//! waiters (agent id, choke corners, spot, the kept path as a point sequence) ascending id.
//! The navigation mesh is not stored: it is rebuilt from the obstacles and the settings.
//!
//! **Version 7** ([`SNAPSHOT_VERSION_FORMATIONS`]) is written only when some group has a
//! formation move ([`crate::orders::formation`]) or a
//! [`Command::FormationMove`](crate::Command::FormationMove) is pending: version 6's payload
//! (with the default navigation state when navigation is not in use), then the formations as a
//! sequence of (group id `u32`, [`Formation`]: kind and placed layout as enum tags, goal,
//! facing, the slots as a sequence of (agent id, point) in ascending id), ascending group id.
//!
//! **Version 8** ([`SNAPSHOT_VERSION_TRAFFIC`]) is written only while traffic control gives
//! some agent the right of way at a chokepoint (and no group moves together): version 7's
//! payload (with no formations when none is in use), then those agents as a sequence of
//! (agent id `u32`, the priority it had `u8`, the level set `u8`), ascending id, each with a
//! navigation record.
//!
//! **Version 9** ([`SNAPSHOT_VERSION_MARCH`]) is written only while some group moves together
//! ([`Command::FormationMarch`](crate::Command::FormationMarch),
//! [`crate::orders::formation::march`]): version 8's payload (its right-of-way list possibly
//! empty), then the marches as a sequence of (group id `u32`, [`March`]: the shared path as a
//! point sequence, pace, spacing, column spacing, the zones (a, b, files `u32`), the members
//! (agent id, slot, rank `u32`), the frame's arc, column flag, held arc, zone index `u32`,
//! waited ticks `u32`, moved flag, the obstacle stamp (`u32`, `u32`)), ascending group id, each
//! for a formation of the payload.
//!
//! **Version 10** ([`SNAPSHOT_VERSION_TRAFFIC_SETTINGS`]) is written only while the traffic
//! settings ([`NavParams::traffic`]) are not the defaults or some held choke counts a batch
//! ([`TrafficParams::batch`]): version 9's payload (its marches possibly empty), then the
//! traffic settings as an option (present when navigation is on: radius, hold seconds `u64`,
//! approach, queue, gap, batch `u32`, yield reach) and the batch counters as a sequence of (units counted
//! `u32`, the id counted last `u32`), one per held choke in their order.
//!
//! **Version 11** ([`SNAPSHOT_VERSION_PLANNING`]) is written only while the quick-plan cap
//! ([`NavParams::quick_plan_cap`]) is not the default: version 10's payload (its traffic
//! settings possibly the defaults, its counters possibly empty), then the cap as an option
//! (present when navigation is on, `u32`).
//!
//! **Version 12** ([`SNAPSHOT_VERSION_LEGS`]) is written only while some navigating agent has
//! queued legs ([`Simulator::nav_legs`]: [`Command::QueueMove`](crate::Command::QueueMove)
//! after a [`Command::NavigateTo`](crate::Command::NavigateTo)): version 11's payload (its
//! cap possibly the default), then the legs as a sequence of (agent id `u32`, goals: a
//! sequence of 1 to 1,024 points), ascending id, each for a navigating agent's record.
//! Versions 3 to 12 restore.
//! Derived data (trees, neighbour lists, scratch buffers) is rebuilt, never stored.
//!
//! # Hostile input
//! Decoding never panics and never allocates more than the input's size plus a bounded amount:
//! the header is checked first (magic, version, length against the actual size and against
//! [`MAX_PAYLOAD_BYTES`]), then the checksum, then bincode decodes with a byte limit and
//! `serde`'s cautious pre-allocation (at most 1 MiB per sequence before its elements are read),
//! trailing bytes are rejected, and finally every value is re-validated against the domain
//! exactly as the public setters would ([`crate::domain`]), plus the structural invariants
//! (ascending unique ids below the id counter, canonical command order, no command in the past,
//! one order at most per agent, each for an agent present, with a path of 1 to 1,025 points and
//! its progress inside it,
//! every obstacle shape valid as for [`ObstacleSet::add`], ascending obstacle ids).
//! Each failure has its own [`SnapshotError`] variant.
//!
//! # Comparing two states
//! [`diff`] lists every field in which two simulators differ ([`SnapshotDiff`]: tick, time,
//! parameters, each agent's position, velocity, preferred velocity, parameters and stall
//! counter, agents present in one only, obstacles, pending commands): restore two snapshots of
//! peers that desynced and print it (the CLI's `diff A B`).

use crate::agent::{Agent, Agents};
use crate::agent::{AgentId, AgentParams};
use crate::agent_model::AgentModel;
use crate::command::{CommandQueue, PendingCommand};
use crate::domain::{checked_point, checked_velocity};
use crate::error::SimError;
use crate::liveness::Liveness;
use crate::math::{Fx, Vec2};
use crate::navigation::traffic::TrafficParams;
use crate::navigation::{NavParams, QUICK_PLAN_CAP};
use crate::obstacle::{ObstacleSet, ObstacleSetData};
use crate::orders::formation::{Formation, March};
use crate::orders::groups::Groups;
use crate::orders::{Arrival, Order, Orders, Steering};
use crate::sim::{NavRecord, NavState, RestoredState, TrafficState};
use crate::sim::{Simulator, SimulatorParams};
use serde::{Deserialize, Serialize};

pub use crate::snapshot_diff::{Difference, Scope, SnapshotDiff, diff};

mod envelope;
pub use envelope::SnapshotError;
pub(crate) use envelope::{open, seal};

/// Magic prefix of a snapshot.
pub const SNAPSHOT_MAGIC: [u8; 8] = *b"LSORCASN";
/// The snapshot format version written when no agent model is in use (every agent's
/// [`AgentModel`] is the default and no [`Command::SetModel`](crate::Command::SetModel) is
/// pending): the format of every snapshot taken before the model existed.
pub const SNAPSHOT_VERSION: u32 = 3;
/// The snapshot format version written when some agent model is in use: version 3's payload
/// followed by the non-default models (see the [module docs](self)). This build reads both.
pub const SNAPSHOT_VERSION_MODELS: u32 = 4;
/// The snapshot format version written when some agent has a move order (or the arrival
/// steering is not the default): version 4's payload followed by the order lifecycle (see the
/// [module docs](self)). This build reads versions 3, 4 and 5; a version 3 or 4 snapshot's
/// orders restore as new orders (moving, no speed of their own).
pub const SNAPSHOT_VERSION_ORDERS: u32 = 5;
/// The snapshot format version written when navigation is in use: version 5's payload
/// followed by the navigation state (see the [module docs](self)). This build reads it too.
pub const SNAPSHOT_VERSION_NAV: u32 = 6;
/// The snapshot format version written when some group has a formation move (or one is
/// pending): version 6's payload followed by the formations (see the [module docs](self)).
/// This build reads it too.
pub const SNAPSHOT_VERSION_FORMATIONS: u32 = 7;
/// The snapshot format version written while traffic control gives some agent the right of
/// way at a chokepoint: version 7's payload followed by those agents (see the
/// [module docs](self)). This build reads it too.
pub const SNAPSHOT_VERSION_TRAFFIC: u32 = 8;
/// The snapshot format version written while some group moves together
/// ([`Command::FormationMarch`](crate::Command::FormationMarch)): version 8's payload followed by
/// the marches (see the [module docs](self)). This build reads it too.
pub const SNAPSHOT_VERSION_MARCH: u32 = 9;
/// The snapshot format version written while the traffic settings are not the defaults or
/// some held choke counts a batch ([`crate::navigation::traffic`]): version 9's payload
/// followed by the traffic settings and the batch counters (see the [module docs](self)).
/// This build reads it too.
pub const SNAPSHOT_VERSION_TRAFFIC_SETTINGS: u32 = 10;
/// The snapshot format version written while the quick-plan cap
/// ([`NavParams::quick_plan_cap`]) is not the default: version 10's payload followed by the
/// cap (see the [module docs](self)). This build reads it too.
pub const SNAPSHOT_VERSION_PLANNING: u32 = 11;
/// The snapshot format version written while some navigating agent has queued legs
/// ([`Simulator::nav_legs`]): version 11's payload followed by the legs (see the
/// [module docs](self)). This build reads it too.
pub const SNAPSHOT_VERSION_LEGS: u32 = 12;
/// Largest accepted payload (1 GiB: about 12 million agents).
pub const MAX_PAYLOAD_BYTES: u64 = 1 << 30;
/// Bytes before the payload: magic, version, length.
pub const HEADER_BYTES: usize = 20;
/// Bytes after the payload: the checksum.
pub const TRAILER_BYTES: usize = 8;

// ---------------------------------------------------------------------- the snapshot payload

/// One agent in a snapshot: [`Agent`], whose field order is the record's layout.
type AgentRecord = Agent;

/// Payload of snapshot format version 5: version 4's, then the order lifecycle (the steering's
/// arrival fields, and each order's arrival state and speed, aligned with the orders).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV5 {
    v4: StateV4,
    arrive_within: Option<Fx>,
    give_up_after: Option<Fx>,
    rvo2_goals: bool,
    orders: Vec<(Arrival, Option<Fx>)>,
    groups: Vec<(u32, Vec<AgentId>)>,
}

/// Payload of snapshot format version 8: version 7's, then the agents with the right of way
/// at a chokepoint and the priority each had, ascending id.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV8 {
    v7: StateV7,
    right_of_way: Vec<(AgentId, u8, u8)>,
}

/// Payload of snapshot format version 7: version 6's, then the formations.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV7 {
    v6: StateV6,
    formations: Vec<(u32, Formation)>,
}

/// Payload of snapshot format version 9: version 8's, then the marches (group id, march),
/// ascending group id, each for a formation of version 7's.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV9 {
    v8: StateV8,
    marches: Vec<(u32, March)>,
}

/// Payload of snapshot format version 10: version 9's, then the traffic settings (when
/// navigation is on) and the batch counters of the held chokes, in their order.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV10 {
    v9: StateV9,
    traffic: Option<TrafficParams>,
    counters: Vec<(u32, u32)>,
}

/// Payload of snapshot format version 11: version 10's, then the quick-plan cap (when
/// navigation is on).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV11 {
    v10: StateV10,
    quick_plan_cap: Option<u32>,
}

/// Payload of snapshot format version 12: version 11's, then the queued navigated legs (agent
/// id, goals), ascending id.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV12 {
    v11: StateV11,
    legs: Vec<(AgentId, Vec<Vec2>)>,
}

/// Payload of snapshot format version 6: version 5's, then the navigation state.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV6 {
    v5: StateV5,
    nav: NavPayload,
}

/// The navigation state in a snapshot (field order is the format).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct NavPayload {
    params: Option<NavParams>,
    debt: u32,
    recheck: bool,
    records: Vec<(AgentId, NavRecord)>,
    /// Traffic control: held chokes and waiters.
    traffic: TrafficState,
    /// The queued navigated legs: not in version 6's payload (version 12 adds them).
    #[serde(skip)]
    legs: Vec<(AgentId, Vec<Vec2>)>,
}

/// Payload of snapshot format version 4: version 3's, then the non-default agent models.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV4 {
    base: StateV1,
    models: Vec<(AgentId, AgentModel)>,
}

/// Version 5's additions, moved into the orders and the steering on restore.
struct Lifecycle {
    arrive_within: Option<Fx>,
    give_up_after: Option<Fx>,
    rvo2_goals: bool,
    orders: Vec<(Arrival, Option<Fx>)>,
    groups: Vec<(u32, Vec<AgentId>)>,
}

/// Payload of snapshot format version 3 (field order is the format).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StateV1 {
    tick: u64,
    global_time: Fx,
    time_step: Fx,
    next_id: u32,
    liveness: Liveness,
    steering: Steering,
    defaults: AgentParams,
    agents: Vec<AgentRecord>,
    orders: Vec<(AgentId, Order)>,
    obstacles: ObstacleSetData,
    pending: Vec<PendingCommand>,
}

fn domain(e: SimError) -> SnapshotError {
    SnapshotError::Invalid(e)
}

impl StateV1 {
    /// Re-validates everything and builds the simulator (with the agent models of format 4,
    /// ascending agent id, each for an agent present and not the default).
    fn into_simulator(
        mut self,
        models: Vec<(AgentId, AgentModel)>,
        lifecycle: Option<Lifecycle>,
        nav: NavPayload,
        formations: Vec<(u32, Formation)>,
    ) -> Result<Simulator, SnapshotError> {
        let mut groups = Vec::new();
        if let Some(l) = lifecycle {
            groups = l.groups;
            if l.orders.len() != self.orders.len() {
                return Err(SnapshotError::Inconsistent(
                    "order lifecycle records not one per order",
                ));
            }
            self.steering.arrive_within = l.arrive_within;
            self.steering.give_up_after = l.give_up_after;
            self.steering.rvo2_goals = l.rvo2_goals;
            for ((_, order), (arrival, speed)) in self.orders.iter_mut().zip(l.orders) {
                order.set_arrival(arrival);
                order.set_speed(speed);
            }
        }
        // The time step and the defaults are checked as a new simulator checks them.
        Simulator::new(SimulatorParams {
            time_step: self.time_step,
            agent_defaults: self.defaults,
        })
        .map_err(domain)?;
        // The domain is the one the step keeps (crate::domain): any time a step can reach
        // restores, and a step that would pass the clock's or the tick counter's end fails
        // cleanly, from a restored state as from any other.
        if self.global_time < Fx::ZERO {
            return Err(SnapshotError::Inconsistent("negative global time"));
        }
        if self.agents.len() > crate::domain::MAX_AGENTS {
            return Err(SnapshotError::Inconsistent("more than 1,000,000 agents"));
        }
        if self.pending.len() > crate::domain::MAX_PENDING_COMMANDS {
            return Err(SnapshotError::Inconsistent(
                "more than 1,048,576 pending commands",
            ));
        }
        let mut previous: Option<AgentId> = None;
        for a in &self.agents {
            if previous.is_some_and(|p| p >= a.id) {
                return Err(SnapshotError::Inconsistent(
                    "agent ids not strictly ascending",
                ));
            }
            if a.id.0 >= self.next_id {
                return Err(SnapshotError::Inconsistent(
                    "agent id not below the id counter",
                ));
            }
            previous = Some(a.id);
            checked_point(a.position, "position").map_err(domain)?;
            checked_velocity(a.velocity, "velocity").map_err(domain)?;
            checked_velocity(a.pref_velocity, "pref_velocity").map_err(domain)?;
            a.params.validate(self.time_step).map_err(domain)?;
        }
        self.steering.validate().map_err(domain)?;
        let mut orders = Orders::default();
        let mut previous: Option<AgentId> = None;
        let mut agent_ids = self.agents.iter().map(|a| a.id).peekable();
        for (id, order) in self.orders {
            if previous.is_some_and(|p| p >= id) {
                return Err(SnapshotError::Inconsistent(
                    "order agent ids not strictly ascending",
                ));
            }
            previous = Some(id);
            // Both lists ascend: one merge pass finds every order's agent.
            while agent_ids.next_if(|&a| a < id).is_some() {}
            if agent_ids.peek() != Some(&id) {
                return Err(SnapshotError::Inconsistent("order for an absent agent"));
            }
            order.validate().map_err(domain)?;
            orders.insert(id, order).map_err(domain)?;
        }
        orders.groups =
            Groups::from_records(groups, self.next_id).map_err(SnapshotError::Inconsistent)?;
        orders
            .groups
            .restore_formations(formations, self.next_id)
            .map_err(domain)?;
        // Ids ascending below the counter, every vertex in the domain, every shape valid,
        // the vertex bound (as `ObstacleSet::add` checks).
        let obstacles = ObstacleSet::try_from(self.obstacles).map_err(domain)?;
        let Some(commands) = CommandQueue::from_canonical(self.pending) else {
            return Err(SnapshotError::Inconsistent(
                "pending commands not in canonical order",
            ));
        };
        for p in commands.iter() {
            if p.tick < self.tick {
                return Err(SnapshotError::Inconsistent("pending command in the past"));
            }
            p.command.validate_values(self.time_step).map_err(domain)?;
        }
        let mut agents = Agents::default();
        agents.reserve_exact(self.agents.len());
        let mut models = models.into_iter().peekable();
        let mut previous: Option<AgentId> = None;
        for mut a in self.agents {
            if let Some((id, m)) = models.next_if(|&(id, _)| id <= a.id) {
                if id != a.id || previous.is_some_and(|p| p >= id) {
                    return Err(SnapshotError::Inconsistent(
                        "agent models not in ascending id of present agents",
                    ));
                }
                if m.is_default() {
                    return Err(SnapshotError::Inconsistent("a default agent model stored"));
                }
                m.validate(self.time_step).map_err(domain)?;
                previous = Some(id);
                a.model = m;
            }
            agents.push(a);
        }
        if models.next().is_some() {
            return Err(SnapshotError::Inconsistent(
                "agent models not in ascending id of present agents",
            ));
        }
        let traffic = nav.traffic;
        let mut nav = NavState::restored(
            nav.params,
            nav.records,
            nav.debt,
            nav.recheck,
            nav.legs,
            |id| orders.get(&id).is_some(),
        )
        .map_err(|e| e.map_or_else(SnapshotError::Inconsistent, SnapshotError::Invalid))?;
        traffic
            .validate(self.next_id)
            .map_err(|e| e.map_or_else(SnapshotError::Inconsistent, SnapshotError::Invalid))?;
        nav.traffic = traffic;
        let sim = Simulator::from_restored(RestoredState {
            tick: self.tick,
            global_time: self.global_time,
            time_step: self.time_step,
            next_id: self.next_id,
            defaults: self.defaults,
            liveness: self.liveness,
            steering: self.steering,
            agents,
            orders,
            obstacles,
            commands,
            nav,
        });
        Ok(sim)
    }
}

impl Simulator {
    /// The whole state as portable bytes (format in the [module docs](crate::snapshot)).
    ///
    /// Restoring them on any machine gives a simulator whose future ticks, and
    /// [`state_hash`](Self::state_hash)es, are bit-identical to this one's. Not included (not
    /// state): last step's neighbour lists and rejected commands.
    #[must_use]
    pub fn snapshot(&self) -> Vec<u8> {
        let (defaults, agents, orders, obstacles, commands) = self.parts();
        let state = StateV1 {
            tick: self.tick(),
            global_time: self.global_time(),
            time_step: self.time_step(),
            next_id: self.next_agent_id().0,
            liveness: self.liveness(),
            steering: self.steering(),
            defaults: *defaults,
            agents: agents.iter().collect(),
            orders: orders.iter().map(|(&id, o)| (id, o.clone())).collect(),
            obstacles: obstacles.into(),
            pending: commands.to_vec(),
        };
        // 100 bytes per agent record, 80 per command (upper bounds), plus the fixed fields.
        let points: usize = orders.iter().map(|(_, o)| o.path().len()).sum();
        let hint = 192 + 100 * agents.len() + 40 * orders.len() + 16 * points + 80 * commands.len();
        let model_commands = commands
            .iter()
            .any(|p| matches!(p.command, crate::command::Command::SetModel { .. }));
        let order_commands = commands
            .iter()
            .any(|p| matches!(p.command, crate::command::Command::SetOrderSpeed { .. }));
        // Groups alone (no order yet) need the lifecycle payload too, which holds them.
        let lifecycle = !orders.is_empty()
            || !self.steering().arrival_is_default()
            || order_commands
            || !orders.groups.is_empty();
        let nav = self.nav_state();
        let nav_commands = commands.iter().any(|p| {
            matches!(
                p.command,
                crate::command::Command::NavigateTo { .. }
                    | crate::command::Command::GroupNavigate { .. }
            )
        });
        let nav_used = !crate::hash::CanonicalPart::is_default(nav) || nav_commands;
        let formations_used = orders.groups.formations().len() > 0
            || commands.iter().any(|p| {
                matches!(
                    p.command,
                    crate::command::Command::FormationMove { .. }
                        | crate::command::Command::FormationMarch { .. }
                )
            });
        let nav_used = nav_used || formations_used;
        let lifecycle = lifecycle || formations_used;
        if agents.models().is_none() && !model_commands && !lifecycle && !nav_used {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION, &state, hint);
        }
        let models = agents
            .iter()
            .filter(|a| !a.model.is_default())
            .map(|a| (a.id, a.model))
            .collect::<Vec<_>>();
        let hint = hint + 80 * models.len();
        let state = StateV4 {
            base: state,
            models,
        };
        if !lifecycle && !nav_used {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_MODELS, &state, hint);
        }
        let steering = self.steering();
        let state = StateV5 {
            v4: state,
            arrive_within: steering.arrive_within,
            give_up_after: steering.give_up_after,
            rvo2_goals: steering.rvo2_goals,
            orders: orders
                .iter()
                .map(|(_, o)| (o.arrival(), o.speed()))
                .collect(),
            groups: orders.groups.iter().map(|(g, m)| (g, m.to_vec())).collect(),
        };
        let members: usize = orders.groups.iter().map(|(_, m)| m.len()).sum();
        let hint = hint + 40 * orders.len() + 4 * members;
        if !nav_used {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_ORDERS, &state, hint);
        }
        let hint = hint + 64 * nav.records.len();
        let state = StateV6 {
            v5: state,
            nav: NavPayload {
                params: nav.params.clone(),
                debt: nav.debt,
                recheck: nav.recheck,
                records: nav.records.clone(),
                traffic: nav.traffic.clone(),
                legs: Vec::new(),
            },
        };
        let right_of_way = &nav.traffic.right_of_way;
        // Version 10 when the traffic settings are not the defaults or a batch is counted.
        let traffic_settings = nav
            .params
            .as_ref()
            .is_some_and(|p| p.traffic != TrafficParams::DEFAULT)
            || nav.traffic.counting();
        // Version 11 when the quick-plan cap is not the default (through version 10).
        // Version 12 when some agent has queued legs (through version 11).
        let legs_used = !nav.legs.is_empty();
        let planning = nav
            .params
            .as_ref()
            .is_some_and(|p| p.quick_plan_cap != QUICK_PLAN_CAP)
            || legs_used;
        let traffic_settings = traffic_settings || planning;
        if !formations_used && right_of_way.is_empty() && !traffic_settings {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_NAV, &state, hint);
        }
        let formations: Vec<(u32, Formation)> = orders
            .groups
            .formations()
            .map(|(g, f)| (g, f.clone()))
            .collect();
        let hint = hint
            + formations
                .iter()
                .map(|(_, f)| 64 + 24 * f.slots.len())
                .sum::<usize>();
        let marches: Vec<(u32, March)> = formations
            .iter()
            .filter_map(|(g, f)| Some((*g, f.march.as_deref()?.clone())))
            .collect();
        let state = StateV7 {
            v6: state,
            formations,
        };
        if right_of_way.is_empty() && marches.is_empty() && !traffic_settings {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_FORMATIONS, &state, hint);
        }
        let hint = hint + 5 * right_of_way.len();
        let state = StateV8 {
            v7: state,
            right_of_way: right_of_way.clone(),
        };
        if marches.is_empty() && !traffic_settings {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_TRAFFIC, &state, hint);
        }
        let hint = hint
            + marches
                .iter()
                .map(|(_, m)| 128 + 16 * m.path.len() + 32 * m.members.len())
                .sum::<usize>();
        let state = StateV9 { v8: state, marches };
        if !traffic_settings {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_MARCH, &state, hint);
        }
        let hint = hint + 64 + 8 * nav.traffic.chokes.len();
        let state = StateV10 {
            v9: state,
            traffic: nav.params.as_ref().map(|p| p.traffic),
            counters: nav.traffic.counters(),
        };
        if !planning {
            return seal(
                SNAPSHOT_MAGIC,
                SNAPSHOT_VERSION_TRAFFIC_SETTINGS,
                &state,
                hint,
            );
        }
        let state = StateV11 {
            v10: state,
            quick_plan_cap: nav.params.as_ref().map(|p| p.quick_plan_cap),
        };
        if !legs_used {
            return seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_PLANNING, &state, hint + 8);
        }
        let hint = hint
            + 8
            + nav
                .legs
                .iter()
                .map(|(_, g)| 12 + 16 * g.len())
                .sum::<usize>();
        let state = StateV12 {
            v11: state,
            legs: nav.legs.clone(),
        };
        seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_LEGS, &state, hint)
    }

    /// Rebuilds a simulator from [`snapshot`](Self::snapshot) bytes.
    ///
    /// # Errors
    /// A [`SnapshotError`] naming the first problem: envelope (truncated, magic, version, size,
    /// checksum), encoding (undecodable, trailing bytes) or content (a value outside the domain,
    /// an inconsistent structure). Every state the simulator can reach restores (see
    /// [`crate::domain`]: one domain for every entry point). Never panics,
    /// whatever the bytes.
    pub fn restore(bytes: &[u8]) -> Result<Simulator, SnapshotError> {
        let version = bytes
            .get(8..12)
            .and_then(|v| v.try_into().ok())
            .map(u32::from_le_bytes);
        if version == Some(SNAPSHOT_VERSION) {
            let state: StateV1 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION)?;
            return state.into_simulator(Vec::new(), None, NavPayload::default(), Vec::new());
        }
        if version == Some(SNAPSHOT_VERSION_MODELS) {
            let state: StateV4 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_MODELS)?;
            return state.base.into_simulator(
                state.models,
                None,
                NavPayload::default(),
                Vec::new(),
            );
        }
        if version == Some(SNAPSHOT_VERSION_ORDERS) {
            let state: StateV5 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_ORDERS)?;
            let (v4, l) = lifecycle(state);
            return v4
                .base
                .into_simulator(v4.models, Some(l), NavPayload::default(), Vec::new());
        }
        if version == Some(SNAPSHOT_VERSION_NAV) {
            let state: StateV6 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_NAV)?;
            let (v4, l) = lifecycle(state.v5);
            return v4
                .base
                .into_simulator(v4.models, Some(l), state.nav, Vec::new());
        }
        if version == Some(SNAPSHOT_VERSION_FORMATIONS) {
            let state: StateV7 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_FORMATIONS)?;
            let (v4, l) = lifecycle(state.v6.v5);
            return v4
                .base
                .into_simulator(v4.models, Some(l), state.v6.nav, state.formations);
        }
        // Anything else is read as the newest version (an unknown one is refused naming it).
        if version == Some(SNAPSHOT_VERSION_TRAFFIC) {
            let state: StateV8 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_TRAFFIC)?;
            let (v4, l) = lifecycle(state.v7.v6.v5);
            let mut nav = state.v7.v6.nav;
            nav.traffic.right_of_way = state.right_of_way;
            return v4
                .base
                .into_simulator(v4.models, Some(l), nav, state.v7.formations);
        }
        if version == Some(SNAPSHOT_VERSION_MARCH) {
            let state: StateV9 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_MARCH)?;
            return state.into_simulator(None, None, None, Vec::new());
        }
        if version == Some(SNAPSHOT_VERSION_TRAFFIC_SETTINGS) {
            let state: StateV10 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_TRAFFIC_SETTINGS)?;
            return state
                .v9
                .into_simulator(state.traffic, Some(&state.counters), None, Vec::new());
        }
        if version == Some(SNAPSHOT_VERSION_PLANNING) {
            let state: StateV11 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_PLANNING)?;
            let v10 = state.v10;
            return v10.v9.into_simulator(
                v10.traffic,
                Some(&v10.counters),
                state.quick_plan_cap,
                Vec::new(),
            );
        }
        let state: StateV12 = open(bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_LEGS)?;
        let v10 = state.v11.v10;
        v10.v9.into_simulator(
            v10.traffic,
            Some(&v10.counters),
            state.v11.quick_plan_cap,
            state.legs,
        )
    }
}

/// Version 5's payload split into version 4's and the lifecycle additions.
fn lifecycle(v5: StateV5) -> (StateV4, Lifecycle) {
    (
        v5.v4,
        Lifecycle {
            arrive_within: v5.arrive_within,
            give_up_after: v5.give_up_after,
            rvo2_goals: v5.rvo2_goals,
            orders: v5.orders,
            groups: v5.groups,
        },
    )
}

impl StateV9 {
    /// The simulator of a version 9 payload, with version 10's traffic settings (`None`: the
    /// defaults) and batch counters (`None`: none counted) and version 11's quick-plan cap
    /// (`None`: the default).
    fn into_simulator(
        self,
        traffic: Option<TrafficParams>,
        counters: Option<&[(u32, u32)]>,
        quick_plan_cap: Option<u32>,
        legs: Vec<(AgentId, Vec<Vec2>)>,
    ) -> Result<Simulator, SnapshotError> {
        let state = self;
        let mut formations = state.v8.v7.formations;
        let mut k = 0;
        for (g, m) in state.marches {
            // Each march belongs to a formation, ascending group id.
            while formations.get(k).is_some_and(|f| f.0 < g) {
                k += 1;
            }
            let Some(f) = formations.get_mut(k).filter(|f| f.0 == g) else {
                return Err(SnapshotError::Inconsistent(
                    "a march without its formation, or out of order",
                ));
            };
            f.1.march = Some(Box::new(m));
            k += 1;
        }
        let (v4, l) = lifecycle(state.v8.v7.v6.v5);
        let mut nav = state.v8.v7.v6.nav;
        nav.traffic.right_of_way = state.v8.right_of_way;
        nav.legs = legs;
        // Settings written after the rest belong to navigation settings.
        let lone = match &mut nav.params {
            Some(p) => {
                p.traffic = traffic.unwrap_or(p.traffic);
                p.quick_plan_cap = quick_plan_cap.unwrap_or(p.quick_plan_cap);
                None
            }
            None if traffic.is_some() => Some("traffic settings without navigation settings"),
            None if quick_plan_cap.is_some() => {
                Some("a quick-plan cap without navigation settings")
            }
            None => None,
        };
        if let Some(what) = lone {
            return Err(SnapshotError::Inconsistent(what));
        }
        if let Some(counters) = counters {
            nav.traffic
                .set_counters(counters)
                .map_err(SnapshotError::Inconsistent)?;
        }
        v4.base.into_simulator(v4.models, Some(l), nav, formations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vec2;

    /// A format-11 snapshot whose quick-plan cap comes without navigation settings is refused
    /// as inconsistent, as traffic settings without them are, and one whose cap is past the
    /// setter's bound as out of the domain (hostile bytes, re-sealed with a valid checksum).
    #[test]
    fn settings_without_navigation_are_inconsistent() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        sim.add_agent(Vec2::from_int(0, 0)).unwrap();
        sim.set_navigation(Some(NavParams {
            quick_plan_cap: 0,
            ..NavParams::default()
        }))
        .unwrap();
        let bytes = sim.snapshot();
        assert_eq!(bytes[8..12], SNAPSHOT_VERSION_PLANNING.to_le_bytes());
        let state: StateV11 = open(&bytes, SNAPSHOT_MAGIC, SNAPSHOT_VERSION_PLANNING).unwrap();
        assert_eq!(state.quick_plan_cap, Some(0));
        let seal11 = |s: &StateV11| seal(SNAPSHOT_MAGIC, SNAPSHOT_VERSION_PLANNING, s, 0);
        // The same state re-sealed restores (the test's encoding is the snapshot's).
        assert_eq!(seal11(&state), bytes);
        // A cap past the setter's bound is refused as the setter refuses it.
        let mut too_large = state.clone();
        too_large.quick_plan_cap = Some(crate::navigation::MAX_QUICK_PLAN_CAP + 1);
        assert!(matches!(
            Simulator::restore(&seal11(&too_large)).unwrap_err(),
            SnapshotError::Invalid(SimError::OutOfDomain {
                what: "navigation quick_plan_cap",
                ..
            })
        ));
        let mut cap_only = state.clone();
        cap_only.v10.v9.v8.v7.v6.nav.params = None;
        cap_only.v10.traffic = None;
        assert_eq!(
            Simulator::restore(&seal11(&cap_only)).unwrap_err(),
            SnapshotError::Inconsistent("a quick-plan cap without navigation settings")
        );
        let mut traffic_only = state;
        traffic_only.v10.v9.v8.v7.v6.nav.params = None;
        traffic_only.quick_plan_cap = None;
        assert_eq!(
            Simulator::restore(&seal11(&traffic_only)).unwrap_err(),
            SnapshotError::Inconsistent("traffic settings without navigation settings")
        );
    }
}

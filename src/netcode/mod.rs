//! Rollback and lockstep netcode with [ggrs](https://docs.rs/ggrs/0.13) 0.13: the simulator as
//! ggrs game state (feature `ggrs`, off by default). The manual page is
//! [`docs::netcode`](crate::docs::netcode).
//!
//! * [`GameRules`] is a game's own rolled-back state and per-frame rules (its input type, the
//!   step that turns inputs into commands through a [`Turn`], its checksum bytes): the type
//!   parameter `R` of [`NetGame`], [`NetState`] and [`NetConfig`]. The default, [`Orders`], is
//!   the crate's wire orders (with an optional [`Catalogue`] of unit and building types), so
//!   `NetGame` alone is `NetGame<Orders>`. The manual's
//!   [tutorial](crate::docs::netcode#a-game-on-the-netcode) builds a game on it.
//! * [`NetConfig`] is the ggrs [`Config`](ggrs::Config): input `R::Input` ([`NetInput`] by
//!   default), state [`NetState`], address [`SocketAddr`].
//! * [`NetInput`] is one player's message for one frame: up to [`MAX_ORDERS`] orders
//!   ([`WireOrder`], [`ORDER_WIRE_BYTES`] bytes each) and an optional state hash for the
//!   lockstep hash exchange, [`INPUT_WIRE_BYTES`] bytes on the wire in all. Each order slot
//!   decodes to a [`PlayerOrder`]: move, queue a waypoint, stop, spawn, remove, set priority,
//!   the catalogue orders (spawn a unit type, set a model, place or remove a building), a
//!   planned move ([`PlayerOrder::NavigateTo`]), an order's speed, and the group orders: each
//!   player's [`GROUPS_PER_PLAYER`] control groups, selected by id range or mask and moved by
//!   one order however many units they hold (a group holds only its owner's units; other ids
//!   are skipped and counted, [`NetGame::skipped_group_members`]).
//!   This wire format is a contract between the peers of a session, which must all run the
//!   same one; the manual gives its [byte layout](crate::docs::netcode#inputs-and-their-wire-size).
//! * [`NetGame`] owns the simulator, the game's state (and, with the `scenario` feature, the
//!   scene's driver, `scenario::Driver`) and fulfils the session's requests:
//!   [`handle_requests`](NetGame::handle_requests). It records the match as a
//!   [`Replay`](crate::replay::Replay) on request ([`start_recording`](NetGame::start_recording)).
//!
//! Remote input is hostile input: every byte string decodes to a [`NetInput`] (it holds only
//! integers), and each order is validated against the state of its frame. An invalid order
//! (unknown kind, coordinates outside the domain, a unit the player does not own, a full
//! waypoint queue, …) is skipped, identically on every peer, counted in the state
//! ([`NetGame::rejected_orders`]) and listed by [`NetGame::last_rejections`]. Nothing in an
//! advance panics; simulator failures come back as [`NetError`].
//!
//! ```
//! use lockstep_orca::netcode::{NetConfig, NetGame, NetInput, PlayerOrder};
//! use lockstep_orca::{Simulator, SimulatorParams, Vec2};
//!
//! let mut sim = Simulator::new(SimulatorParams::default())?;
//! let a = sim.add_agent(Vec2::from_int(0, 0))?;
//! let mut game = NetGame::new(sim, 2)?;
//! game.assign(a, 0)?; // player 0 owns agent a
//! let mut session = ggrs::SessionBuilder::<NetConfig>::new()
//!     .with_num_players(2)?
//!     .with_check_distance(7)
//!     .start_synctest_session()?;
//! for frame in 0..20 {
//!     let order = PlayerOrder::MoveTo { unit: a, goal: Vec2::from_int(10, 0) };
//!     let p0 = if frame == 3 { NetInput::from_orders(&[order])? } else { NetInput::default() };
//!     session.add_local_input(0, p0)?;
//!     session.add_local_input(1, NetInput::default())?;
//!     game.handle_requests(session.advance_frame()?)?; // a checksum mismatch would be an Err
//! }
//! assert_eq!(game.frame(), 20);
//! assert!(game.simulator().agent_position(a)?.x > lockstep_orca::Fx::ZERO);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod groups;
mod record;
mod rules;
mod turn;
mod wire;

pub use groups::FormationShape;
pub use rules::{Catalogue, GameRules, Orders, StateWriter};
pub use turn::{MAX_FRAME_VERTICES, Turn};
pub use wire::{
    COORD_SHIFT, FORMATION_SPACING_SHIFT, GROUPS_PER_PLAYER, INPUT_WIRE_BYTES, MAX_GROUP_SPAN,
    MAX_ORDERS, MAX_UNITS_PER_PLAYER, MAX_WAYPOINTS, NetInput, ORDER_WIRE_BYTES, PlayerOrder,
    PlayerOrderError, WireOrder, kind, sim_group,
};

use crate::agent::AgentId;
use crate::command::Command;
use crate::error::SimError;
use crate::hash::StreamHasher;
use crate::math::Vec2;
use crate::sim::{SimState, Simulator};
use crate::util::ByteSink;
use ggrs::{GameStateCell, GgrsRequest, InputStatus};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::net::SocketAddr;
use turn::{Adapter, Unit};

/// Players a [`NetGame`] accepts (owners are stored as `u8`).
pub const MAX_PLAYERS: usize = 64;
/// Magic of the adapter's part of the checksum ([`NetState::checksum`]).
pub const NET_MAGIC: &[u8; 8] = b"LSNET005";

/// The ggrs configuration of a game with rules `R`: the simulator and the game's state as
/// ggrs game state, `R::Input` as input. `NetConfig` alone is the default rules' ([`Orders`],
/// input [`NetInput`]).
///
/// Inputs are one-off orders, so the predictor is [`ggrs::PredictDefault`]: a missing remote
/// input is predicted as "no input" (repeating the last input would repeat its orders).
pub struct NetConfig<R: GameRules = Orders>(PhantomData<fn() -> R>);

impl<R: GameRules> fmt::Debug for NetConfig<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NetConfig")
    }
}

impl<R: GameRules> ggrs::Config for NetConfig<R> {
    type Input = R::Input;
    type InputPredictor = ggrs::PredictDefault;
    type State = NetState<R>;
    type Address = SocketAddr;
}

/// A skipped order: the frame, the sender, the slot and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The frame whose advance skipped it.
    pub frame: u32,
    /// The sending player's handle; `usize::MAX` for a command the simulator's queue refused
    /// ([`PlayerOrderError::Sim`]).
    pub player: usize,
    /// The slot in the player's [`NetInput::orders`].
    pub slot: usize,
    /// Why.
    pub error: PlayerOrderError,
}

/// A lockstep hash report that disagrees with this peer's own hash of the same frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashMismatch {
    /// The frame both hashes are of.
    pub frame: u32,
    /// The reporting player's handle.
    pub player: usize,
    /// This peer's hash (low 64 bits of its checksum).
    pub local: u64,
    /// The reported hash.
    pub remote: u64,
}

/// What goes wrong in the adapter: the errors [`NetGame`] returns instead of panicking.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NetError {
    /// The simulator failed a step ([`SimError::AgentLeftDomain`], the clock's limit) or
    /// refused a setup call. After a failed advance, load a saved state before going on.
    Sim(SimError),
    /// A load request's cell holds no state.
    MissingState {
        /// The frame ggrs asked for.
        frame: i32,
    },
    /// A request names a frame other than the one the game (or the cell) is at.
    FrameMismatch {
        /// The frame ggrs named.
        requested: i32,
        /// The frame of the game or the loaded state.
        actual: u32,
    },
    /// An advance brought inputs for another number of players than the game has.
    PlayerCount {
        /// Players of the game.
        expected: usize,
        /// Inputs given.
        got: usize,
    },
    /// A player count or handle outside `0..MAX_PLAYERS` or the game's players.
    BadPlayer(usize),
    /// [`NetInput::from_orders`] got more than [`MAX_ORDERS`] orders.
    TooManyOrders(usize),
    /// An order could not be encoded.
    Order(PlayerOrderError),
    /// [`NetInput::from_bytes`] got this many bytes instead of [`INPUT_WIRE_BYTES`].
    BadInputLength(usize),
    /// The frame counter would reach `u32::MAX`: the last frame is `u32::MAX - 1` (so that
    /// every frame's [hash tag](NetInput::hash_tag), `frame + 1`, fits a `u32`).
    FrameLimit,
    /// The scene could not be built (feature `scenario`).
    Scenario(String),
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sim(e) => write!(f, "simulator: {e}"),
            Self::MissingState { frame } => {
                write!(f, "no saved state in the cell of frame {frame}")
            }
            Self::FrameMismatch { requested, actual } => {
                write!(
                    f,
                    "request for frame {requested}, but the state is at frame {actual}"
                )
            }
            Self::PlayerCount { expected, got } => {
                write!(f, "inputs for {got} players, the game has {expected}")
            }
            Self::BadPlayer(p) => write!(f, "no player {p}"),
            Self::TooManyOrders(n) => write!(f, "{n} orders, at most {MAX_ORDERS} fit an input"),
            Self::Order(e) => write!(f, "order: {e}"),
            Self::BadInputLength(n) => {
                write!(f, "{n} bytes, an input has {INPUT_WIRE_BYTES}")
            }
            Self::FrameLimit => write!(f, "frame counter exhausted"),
            Self::Scenario(e) => write!(f, "scenario: {e}"),
        }
    }
}

impl std::error::Error for NetError {}

impl From<SimError> for NetError {
    fn from(e: SimError) -> Self {
        Self::Sim(e)
    }
}

/// The checksum of a state: XXH3-128 of the simulator's 128-bit hash, the adapter's bytes and
/// the game's.
fn checksum_of<R: GameRules>(sim_hash128: u128, adapter: &Adapter, rules: &R) -> u128 {
    let mut h = StreamHasher::new();
    h.put(&sim_hash128.to_le_bytes());
    adapter.write_bytes(&mut h);
    rules.write_state(&mut StateWriter { sink: &mut h });
    h.finish128()
}

/// The saved game state: the ggrs [`Config::State`](ggrs::Config::State).
///
/// The simulator's [`SimState`] (its state without the scratch buffers; see
/// [`docs::netcode`](crate::docs::netcode) for its cost against a clone and snapshot bytes),
/// the adapter's own state that persists across frames (the frame counter, the unit table:
/// owner, and whether a player has taken the unit over from the scene; the buildings players
/// placed and their owners; the counts of rejected orders and skipped group members) and the
/// game's rolled-back state `R`. All of it is in the [checksum](Self::checksum). Move orders
/// and groups are simulation state ([`crate::orders`]), so the [`SimState`] holds them.
#[derive(Clone, Debug)]
pub struct NetState<R: GameRules = Orders> {
    sim: SimState,
    adapter: Adapter,
    rules: R,
}

impl<R: GameRules> NetState<R> {
    /// The frame: advances since the game started.
    #[must_use]
    pub fn frame(&self) -> u32 {
        self.adapter.frame
    }

    /// The simulator's saved state.
    #[must_use]
    pub fn sim_state(&self) -> &SimState {
        &self.sim
    }

    /// The game's saved state.
    #[must_use]
    pub fn rules(&self) -> &R {
        &self.rules
    }

    /// The checksum ggrs compares: XXH3-128 (seed 0) of 16 bytes, the simulator's
    /// [`state_hash128`](Simulator::state_hash128) (little-endian), followed by the adapter's
    /// canonical bytes ([`adapter_bytes`](Self::adapter_bytes)) and the game's
    /// ([`GameRules::write_state`]), streamed without allocating.
    #[must_use]
    pub fn checksum(&self) -> u128 {
        checksum_of(self.sim.state_hash128(), &self.adapter, &self.rules)
    }

    /// The adapter's canonical bytes: magic [`NET_MAGIC`], frame (`u32`), rejected orders
    /// (`u64`), skipped group members (`u64`), unit count (`u32`), then per unit in ascending id: id (`u32`), owner (`u8`),
    /// taken over from the scene (`u8`, 0 or 1); building count (`u32`), then per building in
    /// ascending obstacle id: id (`u32`), owner (`u8`). Little-endian.
    #[must_use]
    pub fn adapter_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.adapter.write_bytes(&mut out);
        out
    }
}

/// A fault-injection hook run at the end of every advance with the new frame and the
/// simulator ([`NetGame::set_frame_hook`], deprecated): it changes the state outside the rules,
/// which is what a desync is. A game's logic goes in [`GameRules::step`]. `Send + Sync`, so a
/// [`NetGame`] is too and can live in an ECS resource (bevy_ggrs rolls resources back).
pub type FrameHook = Box<dyn FnMut(u32, &mut Simulator) + Send + Sync>;

/// The game: the live simulator, adapter and game state (rules `R`, default [`Orders`]), and
/// what is not state (the scene's driver, diagnostics, the hash history of the lockstep
/// exchange, the match recording).
pub struct NetGame<R: GameRules = Orders> {
    sim: Simulator,
    adapter: Adapter,
    rules: R,
    num_players: usize,
    #[cfg(feature = "scenario")]
    driver: Option<crate::scenario::Driver>,
    hash_every: u32,
    hashes: BTreeMap<u32, u128>,
    mismatches: Vec<HashMismatch>,
    unchecked_reports: u64,
    last_rejections: Vec<Rejection>,
    hook: Option<FrameHook>,
    commands: Vec<Command>,
    path_len: BTreeMap<AgentId, usize>,
    groups: BTreeMap<u32, Vec<AgentId>>,
    recording: Option<record::Recording>,
}

impl<R: GameRules> fmt::Debug for NetGame<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NetGame")
            .field("frame", &self.adapter.frame)
            .field("num_players", &self.num_players)
            .field("units", &self.adapter.units.len())
            .field("rejected", &self.adapter.rejected)
            .finish_non_exhaustive()
    }
}

// A game is `Send + Sync` (an ECS resource, a game on another thread): checked at compile time.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<NetGame<Orders>>();
};

/// How many frames of own hashes the lockstep exchange keeps.
const HASH_HISTORY: usize = 1024;

impl NetGame<Orders> {
    /// A game over `sim` for `num_players` players (handles `0..num_players`) with the default
    /// rules ([`Orders`], no catalogue). No unit is owned yet: [`assign`](Self::assign) them, or
    /// let players [`PlayerOrder::Spawn`] their own.
    ///
    /// # Errors
    /// [`NetError::BadPlayer`] unless `1 <= num_players <= MAX_PLAYERS`.
    pub fn new(sim: Simulator, num_players: usize) -> Result<Self, NetError> {
        Self::with_rules(sim, num_players, Orders::default())
    }

    /// A game over a scene with the default rules ([`Orders`], no catalogue):
    /// [`from_scenario_with_rules`](NetGame::from_scenario_with_rules).
    ///
    /// # Errors
    /// [`NetError::Scenario`] if the scene does not build, [`NetError::BadPlayer`].
    #[cfg(feature = "scenario")]
    pub fn from_scenario(
        scenario: &crate::scenario::Scenario,
        num_players: usize,
    ) -> Result<Self, NetError> {
        Self::from_scenario_with_rules(scenario, num_players, Orders::default())
    }
}

impl<R: GameRules> NetGame<R> {
    /// A game over a scene with the game's rules and initial state `rules`: the scene's
    /// simulator and driver. The scene steers its agents as it does alone (its goals and
    /// routes are move orders in the simulator; with the roadmap policy the driver sets
    /// preferred velocities) until their owner orders them; scene agent `i` (in [`Driver::agent_ids`](crate::scenario::Driver::agent_ids) order, agents that
    /// events add later included) is owned by player `i % num_players`.
    ///
    /// Spawn orders are rejected while the scene still has `add_agent` events to come (they
    /// would shift the ids the driver expects).
    ///
    /// # Errors
    /// [`NetError::Scenario`] if the scene does not build, [`NetError::BadPlayer`].
    #[cfg(feature = "scenario")]
    pub fn from_scenario_with_rules(
        scenario: &crate::scenario::Scenario,
        num_players: usize,
        rules: R,
    ) -> Result<Self, NetError> {
        let (sim, driver) = scenario
            .build()
            .map_err(|e| NetError::Scenario(e.to_string()))?;
        let mut game = Self::with_rules(sim, num_players, rules)?;
        for (i, &id) in driver.agent_ids().iter().enumerate() {
            game.adapter.units.insert(
                id,
                Unit {
                    owner: (i % num_players) as u8,
                    commanded: false,
                },
            );
        }
        game.driver = Some(driver);
        Ok(game)
    }

    /// A game over `sim` for `num_players` players (handles `0..num_players`) with the game's
    /// rules and initial state `rules`.
    ///
    /// # Errors
    /// [`NetError::BadPlayer`] unless `1 <= num_players <= MAX_PLAYERS`.
    pub fn with_rules(sim: Simulator, num_players: usize, rules: R) -> Result<Self, NetError> {
        if num_players == 0 || num_players > MAX_PLAYERS {
            return Err(NetError::BadPlayer(num_players));
        }
        Ok(Self {
            sim,
            adapter: Adapter::default(),
            rules,
            num_players,
            #[cfg(feature = "scenario")]
            driver: None,
            hash_every: 0,
            hashes: BTreeMap::new(),
            mismatches: Vec::new(),
            unchecked_reports: 0,
            last_rejections: Vec::new(),
            hook: None,
            commands: Vec::new(),
            path_len: BTreeMap::new(),
            groups: BTreeMap::new(),
            recording: None,
        })
    }

    /// The game's live state (its rules).
    #[must_use]
    pub fn rules(&self) -> &R {
        &self.rules
    }

    /// The game's live state, to set it up before the session starts (changing it later,
    /// outside [`GameRules::step`], is a desync).
    pub fn rules_mut(&mut self) -> &mut R {
        &mut self.rules
    }

    /// Gives agent `id` to `player` (setup, before the session starts; part of the state).
    ///
    /// # Errors
    /// [`NetError::Sim`] ([`SimError::UnknownAgent`]) for an agent not in the simulator,
    /// [`NetError::BadPlayer`] for a player outside the game.
    pub fn assign(&mut self, id: AgentId, player: usize) -> Result<(), NetError> {
        if player >= self.num_players {
            return Err(NetError::BadPlayer(player));
        }
        if !self.sim.contains_agent(id) {
            return Err(NetError::Sim(SimError::UnknownAgent(id)));
        }
        let unit = self.adapter.units.entry(id).or_insert(Unit {
            owner: 0,
            commanded: false,
        });
        unit.owner = player as u8;
        Ok(())
    }

    /// The live state, saved ([`Simulator::save_state`] and the adapter's state): what a save
    /// request stores.
    #[must_use]
    pub fn save_state(&self) -> NetState<R> {
        NetState {
            sim: self.sim.save_state(),
            adapter: self.adapter.clone(),
            rules: self.rules.clone(),
        }
    }

    /// The simulator.
    #[must_use]
    pub fn simulator(&self) -> &Simulator {
        &self.sim
    }

    /// The frame: advances since the game started.
    #[must_use]
    pub fn frame(&self) -> u32 {
        self.adapter.frame
    }

    /// Number of players.
    #[must_use]
    pub fn num_players(&self) -> usize {
        self.num_players
    }

    /// The checksum of the live state ([`NetState::checksum`]).
    #[must_use]
    pub fn checksum(&self) -> u128 {
        checksum_of(self.sim.state_hash128(), &self.adapter, &self.rules)
    }

    /// The owner of building `id`, if a player placed it.
    #[must_use]
    pub fn building_owner(&self, id: crate::obstacle::ObstacleId) -> Option<usize> {
        self.adapter.buildings.get(&id).map(|&o| usize::from(o))
    }

    /// The owner of unit `id`, if a player owns it.
    #[must_use]
    pub fn owner(&self, id: AgentId) -> Option<usize> {
        self.adapter.units.get(&id).map(|u| usize::from(u.owner))
    }

    /// The units `player` owns, ascending id (agents that events will add included).
    #[must_use]
    pub fn units_of(&self, player: usize) -> Vec<AgentId> {
        self.adapter
            .units
            .iter()
            .filter(|(_, u)| usize::from(u.owner) == player)
            .map(|(&id, _)| id)
            .collect()
    }

    /// Unit `id`'s remaining path (its current target first, its goal last) from the
    /// simulator's order ([`Simulator::agent_order`]); empty without an order.
    #[must_use]
    pub fn unit_path(&self, id: AgentId) -> Vec<Vec2> {
        match self.sim.agent_order(id) {
            Ok(Some(o)) => o.path()[o.progress()..].to_vec(),
            _ => Vec::new(),
        }
    }

    /// Orders skipped since the game started (state: rolled back with it, in the checksum).
    #[must_use]
    pub fn rejected_orders(&self) -> u64 {
        self.adapter.rejected
    }

    /// Ids group orders named that were not a present unit of the sender (another player's, a
    /// removed one, none), skipped since the game started (state: rolled back with it, in the
    /// checksum). The group orders themselves applied to the sender's units.
    #[must_use]
    pub fn skipped_group_members(&self) -> u64 {
        self.adapter.skipped_members
    }

    /// The orders the last advance skipped, and why (not state).
    #[must_use]
    pub fn last_rejections(&self) -> &[Rejection] {
        &self.last_rejections
    }

    /// Records this peer's checksum of every frame that is a multiple of `k` (0: none), for
    /// [`recorded_checksum`](Self::recorded_checksum) and the lockstep hash exchange. The
    /// current frame is recorded now if it is one.
    pub fn set_hash_interval(&mut self, k: u32) {
        self.hash_every = k;
        self.record_hash();
    }

    /// This peer's checksum of `frame` (state at the start of that frame), if recorded: the
    /// latest simulation of it, so after a rollback the re-simulated one.
    #[must_use]
    pub fn recorded_checksum(&self, frame: u32) -> Option<u128> {
        self.hashes.get(&frame).copied()
    }

    /// Lockstep hash reports from other players that disagree with this peer's hash of the
    /// same frame, oldest first (not state; each (player, frame) listed once).
    #[must_use]
    pub fn hash_mismatches(&self) -> &[HashMismatch] {
        &self.mismatches
    }

    /// Hash reports that could not be checked: the frame was not recorded here (not a
    /// multiple of the hash interval, or too old).
    #[must_use]
    pub fn unchecked_hash_reports(&self) -> u64 {
        self.unchecked_reports
    }

    /// Puts the frame counter at `frame`: a test oracle (feature `test-oracles`, for the
    /// crate's own tests; not part of the stable API). It exists so that a test reaches
    /// [`NetError::FrameLimit`] without 2³² advances; a game's frame is the ggrs session's,
    /// which starts at 0, and nothing else is changed here.
    #[cfg(feature = "test-oracles")]
    pub fn set_frame_for_test(&mut self, frame: u32) {
        self.adapter.frame = frame;
    }

    /// Installs (or removes) the [`FrameHook`]: fault injection (the crate's negative sync
    /// tests, the example's `--inject-desync`). A game's logic belongs in [`GameRules::step`],
    /// which runs inside the rollback; a hook's changes are a desync by design.
    #[deprecated(
        since = "0.1.0",
        note = "a game's per-frame logic belongs in `GameRules::step`; the hook is fault injection only"
    )]
    pub fn set_frame_hook(&mut self, hook: Option<FrameHook>) {
        self.hook = hook;
    }

    /// Fulfils the session's requests, in order.
    ///
    /// # Errors
    /// The first request that fails stops the handling: [`NetError::MissingState`] and
    /// [`NetError::FrameMismatch`] for a load or save that does not fit, otherwise what
    /// [`advance`](Self::advance) returns.
    pub fn handle_requests(
        &mut self,
        requests: Vec<GgrsRequest<NetConfig<R>>>,
    ) -> Result<(), NetError> {
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => self.save(&cell, frame)?,
                GgrsRequest::LoadGameState { cell, frame } => self.load(&cell, frame)?,
                GgrsRequest::AdvanceFrame { inputs } => self.advance(&inputs)?,
            }
        }
        Ok(())
    }

    /// Saves the live state ([`save_state`](Self::save_state)) and its checksum into `cell`.
    ///
    /// # Errors
    /// [`NetError::FrameMismatch`] if the game is not at `frame`.
    pub fn save(&self, cell: &GameStateCell<NetState<R>>, frame: i32) -> Result<(), NetError> {
        check_frame(frame, self.adapter.frame)?;
        cell.save(frame, Some(self.save_state()), Some(self.checksum()));
        Ok(())
    }

    /// Loads the state saved in `cell` ([`Simulator::load_state`]: no re-validation, the
    /// simulator's buffers kept).
    ///
    /// # Errors
    /// [`NetError::MissingState`] for an empty cell, [`NetError::FrameMismatch`] if it holds
    /// another frame's state.
    pub fn load(&mut self, cell: &GameStateCell<NetState<R>>, frame: i32) -> Result<(), NetError> {
        let data = cell.data().ok_or(NetError::MissingState { frame })?;
        check_frame(frame, data.adapter.frame)?;
        self.load_state(&data)
    }

    /// Loads a saved state ([`save_state`](Self::save_state)): the simulator
    /// ([`Simulator::load_state`]: no re-validation, buffers kept), the adapter and the game.
    /// A recording drops the frames after it (they are simulated again).
    ///
    /// # Errors
    /// [`NetError::FrameMismatch`] if the state is of a frame before the recording started.
    pub fn load_state(&mut self, state: &NetState<R>) -> Result<(), NetError> {
        if let Some(r) = &mut self.recording {
            r.rewind(state.adapter.frame)?;
        }
        self.sim.load_state(&state.sim);
        self.adapter.clone_from(&state.adapter);
        self.rules.clone_from(&state.rules);
        Ok(())
    }

    /// Advances one frame with one input per player (ggrs's `AdvanceFrame`): compares the
    /// confirmed inputs' hash reports with this peer's own, queues the scene driver's commands,
    /// runs the game's [rules](GameRules::step) (which queue the players' commands, skipping
    /// and counting invalid ones) for the current tick, steps, and records the tick if a
    /// recording runs.
    ///
    /// # Errors
    /// [`NetError::PlayerCount`], [`NetError::FrameLimit`], or [`NetError::Sim`] if the step
    /// fails (the simulator is then unchanged but holds the frame's commands queued, and the
    /// game's state may have moved: load a saved state before going on).
    pub fn advance(&mut self, inputs: &[(R::Input, InputStatus)]) -> Result<(), NetError> {
        if inputs.len() != self.num_players {
            return Err(NetError::PlayerCount {
                expected: self.num_players,
                got: inputs.len(),
            });
        }
        // The last frame is `u32::MAX - 1`, so every frame's hash tag (`frame + 1`) fits.
        let next_frame = self
            .adapter
            .frame
            .checked_add(1)
            .filter(|&f| f < u32::MAX)
            .ok_or(NetError::FrameLimit)?;
        self.check_reported_hashes(inputs);
        self.last_rejections.clear();
        let mut commands = std::mem::take(&mut self.commands);
        commands.clear();
        let saved = self.adapter.clone();
        self.frame_commands(inputs, &mut commands);
        let tick = self.sim.tick();
        let mut accepted = 0;
        for i in 0..commands.len() {
            // Validated values; a refusal here (e.g. a command for an agent removed outside the
            // adapter) is a skip.
            match self.sim.queue_command(tick, commands[i].clone()) {
                Ok(()) => {
                    commands.swap(accepted, i);
                    accepted += 1;
                }
                Err(e) => self.last_rejections.push(Rejection {
                    frame: self.adapter.frame,
                    player: usize::MAX,
                    slot: 0,
                    error: PlayerOrderError::Sim(e),
                }),
            }
        }
        commands.truncate(accepted);
        if let Err(e) = self.sim.step() {
            self.commands = commands;
            self.adapter = saved;
            return Err(NetError::Sim(e));
        }
        self.adapter.prune(&self.sim);
        self.adapter.frame = next_frame;
        if let Some(r) = &mut self.recording {
            r.push(&commands, &self.sim);
        }
        self.commands = commands;
        if let Some(hook) = self.hook.as_mut() {
            hook(next_frame, &mut self.sim);
        }
        self.record_hash();
        Ok(())
    }

    /// Starts recording the match from the current frame (replacing a recording in
    /// progress): see [`recorded_replay`](Self::recorded_replay).
    pub fn start_recording(&mut self, options: crate::replay::RecordOptions) {
        self.recording = Some(record::Recording::new(
            &self.sim,
            self.adapter.frame,
            options,
        ));
    }

    /// The match recorded so far as a [`Replay`](crate::replay::Replay) (`None` without
    /// [`start_recording`](Self::start_recording)): the simulator's initial snapshot, each
    /// frame's commands as the rules queued them (player orders, spawns, buildings, deaths, the
    /// scene's), the state hash after each step, checkpoints. It follows rollbacks: it is the
    /// timeline simulated last, so take it once the last frame is confirmed.
    /// [`crate::replay::verify`] re-simulates it; the game's own state (`R`) is not in it.
    /// Memory grows with the match (a few bytes a tick without commands).
    #[must_use]
    pub fn recorded_replay(&self) -> Option<crate::replay::Replay> {
        self.recording.as_ref().map(|r| r.replay(&self.sim))
    }

    /// The commands the last advance queued (and the simulator accepted), in queue order: the
    /// frame's input → command mapping's result, what a recording stores for the tick.
    #[must_use]
    pub fn last_commands(&self) -> &[Command] {
        &self.commands
    }

    fn record_hash(&mut self) {
        let f = self.adapter.frame;
        if self.hash_every != 0 && f.is_multiple_of(self.hash_every) {
            self.hashes.insert(f, self.checksum());
            while self.hashes.len() > HASH_HISTORY {
                self.hashes.pop_first();
            }
        }
    }

    fn check_reported_hashes(&mut self, inputs: &[(R::Input, InputStatus)]) {
        for (player, (input, status)) in inputs.iter().enumerate() {
            let Some((frame, remote)) = R::reported_hash(input) else {
                continue;
            };
            if *status != InputStatus::Confirmed {
                continue;
            }
            match self.hashes.get(&frame) {
                Some(&local) if local as u64 != remote => {
                    let m = HashMismatch {
                        frame,
                        player,
                        local: local as u64,
                        remote,
                    };
                    if !self
                        .mismatches
                        .iter()
                        .any(|x| x.frame == frame && x.player == player)
                    {
                        self.mismatches.push(m);
                    }
                }
                Some(_) => {}
                None => self.unchecked_reports += 1,
            }
        }
    }

    /// The frame's commands: the scene's, then the rules'.
    fn frame_commands(&mut self, inputs: &[(R::Input, InputStatus)], out: &mut Vec<Command>) {
        #[cfg_attr(
            not(feature = "scenario"),
            expect(unused_mut, reason = "scene-only counts")
        )]
        let (mut scene_adds, mut scene_obstacles, mut scene_vertices) = (0u32, 0u32, 0usize);
        #[cfg_attr(
            not(feature = "scenario"),
            expect(unused_mut, reason = "scene-only flag")
        )]
        let mut scene_adds_ahead = false;
        #[cfg(feature = "scenario")]
        if let Some(driver) = &self.driver {
            let tick = self.sim.tick();
            let units = &self.adapter.units;
            for c in driver.tick_commands(&self.sim, tick) {
                match c {
                    Command::AddAgent { .. } | Command::SpawnAgent { .. } => scene_adds += 1,
                    Command::AddObstacle { ref shape } => {
                        scene_obstacles += 1;
                        scene_vertices += shape.vertices().len();
                    }
                    // A unit a player took over is steered by the player (the driver already
                    // leaves agents with an order alone; this covers stopped ones).
                    Command::SetPrefVelocity { id, .. }
                        if units.get(&id).is_some_and(|u| u.commanded) =>
                    {
                        continue;
                    }
                    _ => {}
                }
                out.push(c);
            }
            scene_adds_ahead = driver.events().iter().any(|e| {
                e.tick >= tick && matches!(e.action, crate::scenario::EventAction::AddAgent(_))
            });
        }
        self.path_len.clear();
        self.groups.clear();
        let mut turn = Turn {
            sim: &self.sim,
            adapter: &mut self.adapter,
            out,
            rejections: &mut self.last_rejections,
            path_len: &mut self.path_len,
            groups: &mut self.groups,
            adds: scene_adds,
            scene_adds_ahead,
            obstacles_added: scene_obstacles,
            vertices: scene_vertices,
        };
        self.rules.step(&mut turn, inputs);
    }
}

fn check_frame(requested: i32, actual: u32) -> Result<(), NetError> {
    if u32::try_from(requested) == Ok(actual) {
        Ok(())
    } else {
        Err(NetError::FrameMismatch { requested, actual })
    }
}

//! The simulation as Bevy sees it: [`OrcaGame`], the live [`NetGame`] of the core crate, and
//! [`EcsRules`], the game's [`GameRules`] plus the requests ECS systems queue for the next
//! step (spawns, buildings, commands of the game's own).
//!
//! `OrcaGame` is a [`Resource`] (`Res<OrcaGame<R>>` in systems). With bevy_ggrs it is a
//! rollback resource: [`GameStrategy`] is its bevy_ggrs snapshot [`Strategy`], the way
//! `rollback_resource_with_clone` is `CloneStrategy`'s, storing the game's [`NetState`] (not
//! a clone of the whole game: the recording, the hash history and the fault hook are not
//! state) and loading it in place.

use bevy::ecs::entity::Entity;
use bevy::prelude::Resource;
use bevy_ggrs::Strategy;
use bevy_ggrs::ggrs::InputStatus;
use lockstep_orca::netcode::{GameRules, NetError, NetGame, NetState, StateWriter, Turn};
use lockstep_orca::{AgentId, AgentModel, AgentParams, Command, ObstacleId, ObstacleShape};
use lockstep_orca::{Simulator, Vec2};
#[cfg(feature = "scenario")]
use std::sync::Arc;

/// A change to the world an ECS system asks for, applied at the start of the next step
/// (inside the rollback, through the frame's [`Turn`]).
#[derive(Clone, Debug)]
pub enum Request {
    /// A command of the game's own ([`Turn::push`]: no ownership check).
    Command(Command),
    /// A unit of `player` ([`Turn::spawn`]); `entity` receives its [`Unit`](crate::Unit).
    Spawn {
        /// The entity that becomes the unit.
        entity: Entity,
        /// Its owner.
        player: usize,
        /// Where.
        position: Vec2,
        /// Its parameters (`None`: the simulator's defaults).
        params: Option<AgentParams>,
        /// Its model (`None`: the default).
        model: Option<AgentModel>,
    },
    /// A building of `player` ([`Turn::place_building`]); `entity` receives its
    /// [`ObstacleLink`](crate::ObstacleLink).
    Building {
        /// The entity that becomes the building.
        entity: Entity,
        /// Its owner.
        player: usize,
        /// Its outline.
        shape: ObstacleShape,
    },
}

/// What the last step made of the [`Request`]s that name an entity: the ids to link.
#[derive(Clone, Debug, Default)]
pub(crate) struct Linked {
    pub(crate) units: Vec<(Entity, AgentId, usize)>,
    pub(crate) buildings: Vec<(Entity, ObstacleId)>,
    /// Requests the turn refused (entity, reason), for the log.
    pub(crate) refused: Vec<(Entity, String)>,
}

/// The game's rules `R` with the ECS side's requests: the [`GameRules`] the plugin's
/// [`NetGame`] runs. Each step first applies the queued [`Request`]s (in queue order), then
/// the scene's events (with [`OrcaGame::from_scenario`]), then `R`'s own step with the
/// players' inputs.
///
/// The queue is empty whenever a frame is saved (the plugin's systems queue before the step
/// and the step drains it), so the checksum holds `R`'s bytes and the queue's length only.
#[derive(Clone, Debug)]
pub struct EcsRules<R> {
    /// The game's own rules and state.
    pub rules: R,
    requests: Vec<Request>,
    linked: Linked,
    #[cfg(feature = "scenario")]
    driver: Option<Arc<lockstep_orca::scenario::Driver>>,
}

impl<R> EcsRules<R> {
    fn new(rules: R) -> Self {
        Self {
            rules,
            requests: Vec::new(),
            linked: Linked::default(),
            #[cfg(feature = "scenario")]
            driver: None,
        }
    }
}

impl<R: GameRules> GameRules for EcsRules<R> {
    type Input = R::Input;

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(Self::Input, InputStatus)]) {
        self.linked.units.clear();
        self.linked.buildings.clear();
        self.linked.refused.clear();
        for request in self.requests.drain(..) {
            match request {
                Request::Command(c) => turn.push(c),
                Request::Spawn {
                    entity,
                    player,
                    position,
                    params,
                    model,
                } => {
                    let params = params.unwrap_or_else(|| turn.sim().agent_defaults());
                    match turn.spawn(player, position, params, model) {
                        Ok(id) => self.linked.units.push((entity, id, player)),
                        Err(e) => self.linked.refused.push((entity, e.to_string())),
                    }
                }
                Request::Building {
                    entity,
                    player,
                    shape,
                } => match turn.place_building(player, shape) {
                    Ok(id) => self.linked.buildings.push((entity, id)),
                    Err(e) => self.linked.refused.push((entity, e.to_string())),
                },
            }
        }
        #[cfg(feature = "scenario")]
        if let Some(driver) = &self.driver {
            for c in driver.tick_commands(turn.sim(), turn.sim().tick()) {
                turn.push(c);
            }
        }
        self.rules.step(turn, inputs);
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        self.rules.write_state(out);
        out.u32(u32::try_from(self.requests.len()).unwrap_or(u32::MAX));
    }

    fn reported_hash(input: &Self::Input) -> Option<(u32, u64)> {
        R::reported_hash(input)
    }
}

/// The live game: the core crate's [`NetGame`] over [`EcsRules`]. Insert it as a resource
/// before the first frame (`app.insert_resource(OrcaGame::new(..)?)`); read it from systems
/// with `Res<OrcaGame<R>>`. With bevy_ggrs the plugin registers it for rollback
/// ([`GameStrategy`]) and its [`checksum`](Self::checksum) as a `ChecksumPart`.
#[derive(Debug, Resource)]
pub struct OrcaGame<R: GameRules> {
    net: NetGame<EcsRules<R>>,
    last_error: Option<NetError>,
}

impl<R: GameRules> OrcaGame<R> {
    /// A game over `sim` for `players` players with the game's rules and initial state.
    ///
    /// # Errors
    /// [`NetError::BadPlayer`] unless `1 <= players <= 64`.
    pub fn new(sim: Simulator, players: usize, rules: R) -> Result<Self, NetError> {
        Ok(Self {
            net: NetGame::with_rules(sim, players, EcsRules::new(rules))?,
            last_error: None,
        })
    }

    /// A game over a scene file's world: its agents (scene agent `i` owned by player
    /// `i % players`, steered by its goal orders until its owner orders it), its obstacles,
    /// and its events as commands at their ticks.
    ///
    /// Unlike the core's `NetGame::from_scenario` (default rules only), a scene's
    /// roadmap-policy velocities are not withheld from units a player stopped, and a scene
    /// that adds agents by events must not be mixed with player spawns (ids would shift).
    ///
    /// # Errors
    /// [`NetError::Scenario`] if the scene does not build; [`NetError::BadPlayer`].
    #[cfg(feature = "scenario")]
    pub fn from_scenario(
        scenario: &lockstep_orca::scenario::Scenario,
        players: usize,
        rules: R,
    ) -> Result<Self, NetError> {
        let (sim, driver) = scenario
            .build()
            .map_err(|e| NetError::Scenario(e.to_string()))?;
        let ids = driver.agent_ids().to_vec();
        let mut game = Self::new(sim, players, rules)?;
        for (i, id) in ids.into_iter().enumerate() {
            game.net.assign(id, i % players)?;
        }
        game.net.rules_mut().driver = Some(Arc::new(driver));
        Ok(game)
    }

    /// The core crate's game (its simulator, ownership, checksum, recording).
    #[must_use]
    pub fn net(&self) -> &NetGame<EcsRules<R>> {
        &self.net
    }

    /// The core crate's game, mutable: for setup before the first frame (`assign`,
    /// `start_recording`, `set_hash_interval`). Changing it during a match outside the
    /// plugin's step is a desync.
    pub fn net_mut(&mut self) -> &mut NetGame<EcsRules<R>> {
        &mut self.net
    }

    /// The simulator.
    #[must_use]
    pub fn simulator(&self) -> &Simulator {
        self.net.simulator()
    }

    /// The game's own rules and state.
    #[must_use]
    pub fn rules(&self) -> &R {
        &self.net.rules().rules
    }

    /// The frame the game is at (frames advanced since the start; rolled back with it).
    #[must_use]
    pub fn frame(&self) -> u32 {
        self.net.frame()
    }

    /// The game's checksum: the simulator's state hash, the ownership, the game's state
    /// (`NetState::checksum`).
    #[must_use]
    pub fn checksum(&self) -> u128 {
        self.net.checksum()
    }

    /// The error of the last failed step, if any (the plugin logs it and keeps the game at
    /// the frame before).
    #[must_use]
    pub fn last_error(&self) -> Option<&NetError> {
        self.last_error.as_ref()
    }

    /// Queues a request for the next step. Call it only from systems that run inside the
    /// simulation's schedule before the step ([`OrcaSystems::Rules`](crate::OrcaSystems)),
    /// so every peer queues the same requests at the same frame.
    pub fn request(&mut self, request: Request) {
        self.net.rules_mut().requests.push(request);
    }

    pub(crate) fn advance(&mut self, inputs: &[(R::Input, InputStatus)]) {
        match self.net.advance(inputs) {
            Ok(()) => self.last_error = None,
            Err(e) => {
                bevy::log::error!("lockstep-orca: step of frame {} failed: {e}", self.frame());
                // The game's state may have moved: go back to the frame's start.
                self.last_error = Some(e);
            }
        }
    }

    fn save(&self) -> GameSave<R> {
        GameSave {
            state: self.net.save_state(),
            players: self.net.num_players(),
        }
    }

    fn load(&mut self, save: &GameSave<R>) {
        if let Err(e) = self.net.load_state(&save.state) {
            bevy::log::error!("lockstep-orca: load failed: {e}");
            self.last_error = Some(e);
        }
    }

    /// A game made from a save alone (bevy_ggrs re-inserting a removed resource): the
    /// state, without the recording, hash history or hook of the game that saved it.
    fn restore(save: &GameSave<R>) -> Self {
        let sim = Simulator::from_state(save.state.sim_state());
        let rules = save.state.rules().clone();
        // `players` is a live game's count, which `with_rules` accepted.
        let mut net =
            NetGame::with_rules(sim, save.players, rules).expect("the player count of a live game");
        let last_error = net.load_state(&save.state).err();
        Self { net, last_error }
    }

    pub(crate) fn take_linked(&mut self) -> Linked {
        std::mem::take(&mut self.net.rules_mut().linked)
    }
}

/// A saved frame of an [`OrcaGame`]: its [`NetState`] and its player count.
#[derive(Clone, Debug)]
pub struct GameSave<R: GameRules> {
    state: NetState<EcsRules<R>>,
    players: usize,
}

impl<R: GameRules> GameSave<R> {
    /// The saved state.
    #[must_use]
    pub fn state(&self) -> &NetState<EcsRules<R>> {
        &self.state
    }
}

/// The bevy_ggrs snapshot [`Strategy`] of an [`OrcaGame`]: stores a [`GameSave`]
/// ([`NetGame::save_state`]), loads it in place ([`NetGame::load_state`]). The plugin
/// registers it with `ResourceSnapshotPlugin::<GameStrategy<R>>`, bevy_ggrs's plugin behind
/// `rollback_resource_with_clone` and the others.
pub struct GameStrategy<R>(std::marker::PhantomData<fn() -> R>);

impl<R: GameRules> Strategy for GameStrategy<R> {
    type Target = OrcaGame<R>;
    type Stored = GameSave<R>;

    fn store(target: &OrcaGame<R>) -> GameSave<R> {
        target.save()
    }

    fn load(stored: &GameSave<R>) -> OrcaGame<R> {
        OrcaGame::restore(stored)
    }

    fn update(target: &mut OrcaGame<R>, stored: &GameSave<R>) {
        target.load(stored);
    }
}

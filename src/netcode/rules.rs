//! A game's own state and rules inside the rollback: [`GameRules`], and the default rules
//! [`Orders`] (the crate's wire orders, with an optional [`Catalogue`] of unit and building
//! types).
//!
//! A game implements [`GameRules`] on the type that holds its rolled-back state (hit points,
//! kills, build queues). [`NetGame`](super::NetGame) saves it, loads it and checksums it with
//! the simulator's state in every ggrs request, and runs its [`step`](GameRules::step) once per
//! frame, before the simulator steps, with every player's input: the step turns inputs into
//! commands through the [`Turn`] (ownership checked there) and runs the game's logic. Every
//! peer runs the same steps on the same states with the same inputs, so the rules must be a
//! function of those alone: no clocks, no randomness but a seeded generator kept in the state,
//! no state outside `self` (a field kept elsewhere is what SyncTest catches).

use super::turn::Turn;
use super::wire::{NetInput, PlayerOrder, PlayerOrderError, WireOrder};
use crate::agent::AgentParams;
use crate::agent_model::AgentModel;
use crate::math::Vec2;
use crate::obstacle::ObstacleShape;
use crate::util::ByteSink;
use ggrs::InputStatus;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::Arc;

/// Where a game's rolled-back state writes its canonical bytes: streamed into the checksum ggrs
/// compares (no allocation). Integers go in little-endian; write every field that persists
/// across frames, in a fixed order (a `BTreeMap`'s, not a `HashMap`'s).
pub struct StateWriter<'a> {
    pub(super) sink: &'a mut dyn ByteSink,
}

impl StateWriter<'_> {
    /// Raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.sink.put(bytes);
    }

    /// A `u8`.
    pub fn u8(&mut self, v: u8) {
        self.sink.put(&[v]);
    }

    /// A `u32`, little-endian.
    pub fn u32(&mut self, v: u32) {
        self.sink.put(&v.to_le_bytes());
    }

    /// A `u64`, little-endian.
    pub fn u64(&mut self, v: u64) {
        self.sink.put(&v.to_le_bytes());
    }

    /// An `i64`, little-endian.
    pub fn i64(&mut self, v: i64) {
        self.sink.put(&v.to_le_bytes());
    }
}

/// A game's rolled-back state and its per-frame rules: the type parameter of
/// [`NetGame`](super::NetGame), [`NetState`](super::NetState) and
/// [`NetConfig`](super::NetConfig).
///
/// Implement it on the type that holds the game's state (hit points, kills, build queues).
/// `NetGame` saves it, loads it and checksums it with the simulator's state in every ggrs
/// request, and runs [`step`](Self::step) once per frame, before the simulator steps, with
/// every player's input. Every peer runs the same steps on the same states with the same
/// inputs, so the rules must be a function of those alone: no clocks, no `HashMap` order, no
/// randomness but a seeded generator kept in the state, no state outside `self` (a field kept
/// elsewhere is what SyncTest catches). The manual's
/// [tutorial](crate::docs::netcode#a-game-on-the-netcode) builds a game on it.
///
/// `Send + Sync`: with ggrs's `sync-send` feature (which bevy_ggrs turns on) a
/// [`ggrs::Config`]'s `State`, here [`NetState<Self>`](super::NetState), must be both.
pub trait GameRules: Clone + Send + Sync + 'static {
    /// One player's input for one frame, as ggrs sends it (bincode 1 of its serde form; keep
    /// it fixed-size and integer-only, so every byte string decodes and nothing is a float).
    /// `Default` is "no input": what ggrs predicts for a missing remote input and uses for a
    /// disconnected player.
    type Input: Copy + PartialEq + Default + Serialize + DeserializeOwned + Send + Sync + fmt::Debug;

    /// The frame's rules, before the simulator steps: `turn` is the state at the frame's start
    /// and gathers the frame's commands; `inputs` holds one input per player (handle order)
    /// with ggrs's status. Decode each input, refuse what does not fit through
    /// [`Turn::reject`] (never panic: remote input is hostile), and change the world only
    /// through the turn. Must be deterministic: the same state and inputs give the same
    /// commands and the same new state on every peer.
    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(Self::Input, InputStatus)]);

    /// Writes the state's canonical bytes into the checksum (every field that persists across
    /// frames; see [`StateWriter`]).
    fn write_state(&self, out: &mut StateWriter<'_>);

    /// The lockstep hash report an input carries, `(frame, low 64 bits of the checksum)`, for
    /// [`NetGame`](super::NetGame)'s hash exchange; `None` (the default) for an input type
    /// that carries none.
    fn reported_hash(input: &Self::Input) -> Option<(u32, u64)> {
        let _ = input;
        None
    }
}

/// Unit and building types a player may name on the wire by index (the `arg` byte): setup data
/// every peer holds identically (its fingerprint is in the checksum, so peers with different
/// catalogues see a desync at the first hash instead of playing different games).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalogue {
    /// Unit types: parameters and model. [`PlayerOrder::SpawnType`] `k` spawns type `k`,
    /// [`PlayerOrder::SetModel`] `k` gives type `k`'s model.
    pub unit_types: Vec<(AgentParams, AgentModel)>,
    /// Building footprints, relative to the placement point: [`PlayerOrder::PlaceBuilding`]
    /// `k` places footprint `k` translated to the order's point.
    pub buildings: Vec<ObstacleShape>,
}

impl Catalogue {
    /// The catalogue's fingerprint: XXH3-64 of its bincode (fixed-int, little-endian) encoding,
    /// the encoding snapshots use.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        let config = bincode::config::standard()
            .with_fixed_int_encoding()
            .with_little_endian();
        let bytes = bincode::serde::encode_to_vec((&self.unit_types, &self.buildings), config)
            .unwrap_or_default();
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }

    /// Footprint `k` placed at `at`.
    #[must_use]
    pub fn building_at(&self, k: u8, at: Vec2) -> Option<ObstacleShape> {
        let shape = self.buildings.get(usize::from(k))?;
        let moved = |v: &[Vec2]| -> Option<Vec<Vec2>> {
            v.iter()
                .map(|p| Some(Vec2::new(p.x.checked_add(at.x)?, p.y.checked_add(at.y)?)))
                .collect()
        };
        Some(match shape {
            ObstacleShape::Polygon(v) => ObstacleShape::Polygon(moved(v)?),
            ObstacleShape::Polyline(v) => ObstacleShape::Polyline(moved(v)?),
        })
    }
}

/// The default rules: the crate's wire orders ([`NetInput`], [`PlayerOrder`]), each mapped to
/// its command by [`Turn::apply`], the catalogue orders through the [`Catalogue`]. No state of
/// its own but the catalogue's fingerprint. `NetGame` without a type parameter is
/// `NetGame<Orders>`.
#[derive(Clone, Debug, Default)]
pub struct Orders {
    catalogue: Arc<Catalogue>,
    fingerprint: u64,
}

impl Orders {
    /// Default rules with a catalogue of unit and building types.
    #[must_use]
    pub fn with_catalogue(catalogue: Catalogue) -> Self {
        Self {
            fingerprint: catalogue.fingerprint(),
            catalogue: Arc::new(catalogue),
        }
    }

    /// The catalogue.
    #[must_use]
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// Applies one order of `player`: the catalogue orders here, the others with
    /// [`Turn::apply`]. The whole mapping a recording or another game can reuse.
    ///
    /// # Errors
    /// Why the order is refused ([`PlayerOrderError`]); nothing is queued then.
    pub fn apply(
        &self,
        turn: &mut Turn<'_>,
        player: usize,
        order: PlayerOrder,
    ) -> Result<(), PlayerOrderError> {
        let types = &self.catalogue.unit_types;
        match order {
            PlayerOrder::SpawnType {
                position,
                unit_type,
            } => {
                let (params, model) = types
                    .get(usize::from(unit_type))
                    .ok_or(PlayerOrderError::UnknownType(unit_type))?;
                turn.spawn(player, position, *params, Some(*model))
                    .map(drop)
            }
            PlayerOrder::SetModel { unit, unit_type } => {
                let (_, model) = types
                    .get(usize::from(unit_type))
                    .ok_or(PlayerOrderError::UnknownType(unit_type))?;
                if !turn.owns(player, unit) {
                    return Err(PlayerOrderError::NotOwner(unit));
                }
                turn.push(crate::command::Command::SetModel {
                    id: unit,
                    model: *model,
                });
                Ok(())
            }
            PlayerOrder::PlaceBuilding { position, building } => {
                let shape = self
                    .catalogue
                    .building_at(building, position)
                    .ok_or(PlayerOrderError::UnknownType(building))?;
                turn.place_building(player, shape).map(drop)
            }
            other => turn.apply(player, other),
        }
    }

    /// Decodes and [applies](Self::apply) `player`'s wire slots in order; a slot that does not
    /// decode or is refused is [rejected](Turn::reject) with its index. What the default
    /// rules do with each [`NetInput`], for a game whose own input carries the same slots.
    pub fn apply_slots(&self, turn: &mut Turn<'_>, player: usize, slots: &[WireOrder]) {
        for (slot, wire) in slots.iter().enumerate() {
            let result = wire.decode().and_then(|order| match order {
                Some(order) => self.apply(turn, player, order),
                None => Ok(()),
            });
            if let Err(e) = result {
                turn.reject(player, slot, e);
            }
        }
    }
}

impl GameRules for Orders {
    type Input = NetInput;

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(NetInput, InputStatus)]) {
        for (player, (input, _)) in inputs.iter().enumerate() {
            self.apply_slots(turn, player, &input.orders);
        }
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        out.u64(self.fingerprint);
    }

    fn reported_hash(input: &NetInput) -> Option<(u32, u64)> {
        input.reported_hash()
    }
}

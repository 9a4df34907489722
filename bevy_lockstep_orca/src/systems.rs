//! The plugin's systems: the step in the simulation's schedule, the entity side of the
//! world (units and buildings linked to their ids), and the game's checksum as a bevy_ggrs
//! [`ChecksumPart`] (its rollback is bevy_ggrs's resource snapshot with
//! [`GameStrategy`](crate::GameStrategy)).

use crate::game::{OrcaGame, Request};
use bevy::prelude::*;
use bevy_ggrs::ggrs::{Config, InputStatus};
use bevy_ggrs::{
    ChecksumFlag, ChecksumPart, PlayerInputs, Rollback, RollbackDespawnCommandExtension, RollbackId,
};
use lockstep_orca::netcode::GameRules;
use lockstep_orca::{AgentId, ObstacleId, ObstacleShape, Vec2 as FxVec2};
use std::collections::HashSet;
use std::marker::PhantomData;

/// A unit: the entity of agent `id` (rolled back with the entity).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// The agent.
    pub id: AgentId,
    /// Its owner (player handle); `None` for an agent nobody owns.
    pub owner: Option<usize>,
}

/// Asks for a unit: the entity becomes agent of `player` at `position` in the next step (it
/// then gets a [`Unit`] and loses this component). Spawn it inside the simulation's schedule
/// (or before the match on every peer), so every peer asks at the same frame.
#[derive(Component, Clone, Copy, Debug)]
pub struct SpawnUnit {
    /// The owner.
    pub player: usize,
    /// Where (exact fixed-point coordinates).
    pub position: FxVec2,
}

/// Asks for the unit's removal ([`lockstep_orca::Command::RemoveAgent`]) in the next step; the
/// plugin then despawns the entity.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct RemoveUnit;

/// A building from an entity: placed as an obstacle owned by `owner` in the next step, then
/// linked by [`ObstacleLink`]. Spawn it inside the simulation's schedule or before the match
/// on every peer.
#[derive(Component, Clone, Debug)]
pub struct OrcaObstacle {
    /// The player who may remove it by order.
    pub owner: usize,
    /// The outline (exact fixed-point coordinates).
    pub shape: ObstacleShape,
}

/// The obstacle an [`OrcaObstacle`] entity became (rolled back with the entity).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObstacleLink(pub ObstacleId);

/// Asks for the building's removal ([`lockstep_orca::Command::RemoveObstacle`]: a command of
/// the game's own, no ownership check) in the next step; the plugin then despawns the entity.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct RemoveObstacle;

/// The plugin's settings for its systems.
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct Mode {
    /// Entities are rollback entities (spawned with [`Rollback`], despawned with
    /// `despawn_rollback`).
    pub(crate) rollback: bool,
}

/// Inputs for a schedule without bevy_ggrs (single player, `FixedUpdate`): one per player,
/// taken (and reset to the default) by each step. With bevy_ggrs the step reads
/// [`PlayerInputs`] instead.
#[derive(Resource, Clone, Debug)]
pub struct LocalOrcaInputs<I>(pub Vec<I>);

/// Turns the marker entities ([`SpawnUnit`], [`RemoveUnit`], new [`OrcaObstacle`]s) into
/// requests for the next step, in entity-independent order (spawns by position, buildings
/// by their first vertex, removals by agent id), so peers whose entity ids differ queue the
/// same requests.
pub(crate) fn queue_requests<R: GameRules>(
    game: Option<ResMut<OrcaGame<R>>>,
    spawns: Query<(Entity, &SpawnUnit), Without<Unit>>,
    removals: Query<&Unit, With<RemoveUnit>>,
    obstacles: Query<(Entity, &OrcaObstacle), Without<ObstacleLink>>,
    demolitions: Query<&ObstacleLink, With<RemoveObstacle>>,
) {
    let Some(mut game) = game else {
        return;
    };
    let mut s: Vec<_> = spawns.iter().collect();
    s.sort_by_key(|(_, u)| (u.player, u.position.x, u.position.y));
    for (entity, u) in s {
        game.request(Request::Spawn {
            entity,
            player: u.player,
            position: u.position,
            params: None,
            model: None,
        });
    }
    let mut r: Vec<AgentId> = removals.iter().map(|u| u.id).collect();
    r.sort_unstable();
    for id in r {
        game.request(Request::Command(lockstep_orca::Command::RemoveAgent { id }));
    }
    let mut d: Vec<ObstacleId> = demolitions.iter().map(|l| l.0).collect();
    d.sort_unstable();
    for id in d {
        game.request(Request::Command(lockstep_orca::Command::RemoveObstacle {
            id,
        }));
    }
    let mut o: Vec<_> = obstacles.iter().collect();
    o.sort_by_key(|(_, b)| (b.owner, b.shape.vertices().first().map(|v| (v.x, v.y))));
    for (entity, b) in o {
        game.request(Request::Building {
            entity,
            player: b.owner,
            shape: b.shape.clone(),
        });
    }
}

/// The step: the frame's inputs (bevy_ggrs's [`PlayerInputs`], or [`LocalOrcaInputs`]) into
/// one advance of the game.
pub(crate) fn step<R: GameRules, C: Config<Input = R::Input>>(
    game: Option<ResMut<OrcaGame<R>>>,
    ggrs_inputs: Option<Res<PlayerInputs<C>>>,
    local: Option<ResMut<LocalOrcaInputs<R::Input>>>,
) {
    let Some(mut game) = game else {
        return;
    };
    if let Some(inputs) = ggrs_inputs {
        game.advance(&inputs);
        return;
    }
    let players = game.net().num_players();
    let mut inputs: Vec<(R::Input, InputStatus)> =
        vec![(R::Input::default(), InputStatus::Confirmed); players];
    if let Some(mut local) = local {
        for (slot, input) in inputs.iter_mut().zip(local.0.iter_mut()) {
            slot.0 = std::mem::take(input);
        }
    }
    game.advance(&inputs);
}

/// After the step: links the entities the step made units and buildings of, spawns an entity
/// for every other new agent, despawns the entities of removed agents.
pub(crate) fn sync_entities<R: GameRules>(
    mut commands: Commands,
    game: Option<ResMut<OrcaGame<R>>>,
    mode: Res<Mode>,
    units: Query<(Entity, &Unit)>,
    buildings: Query<(Entity, &ObstacleLink)>,
) {
    let Some(mut game) = game else {
        return;
    };
    let linked = game.take_linked();
    for (entity, reason) in &linked.refused {
        warn!("lockstep-orca: request of {entity} refused: {reason}");
    }
    let mut known: HashSet<AgentId> = HashSet::with_capacity(units.iter().len());
    for &(entity, id, owner) in &linked.units {
        known.insert(id);
        commands.entity(entity).remove::<SpawnUnit>().insert(Unit {
            id,
            owner: Some(owner),
        });
    }
    for &(entity, id) in &linked.buildings {
        commands.entity(entity).insert(ObstacleLink(id));
    }
    let net = game.net();
    let sim = net.simulator();
    let mut despawn = |entity: Entity| {
        if mode.rollback {
            commands.entity(entity).despawn_rollback();
        } else {
            commands.entity(entity).despawn();
        }
    };
    for (entity, link) in &buildings {
        if sim.obstacles().shape(link.0).is_err() {
            despawn(entity);
        }
    }
    for (entity, unit) in &units {
        if sim.agents().contains(unit.id) {
            known.insert(unit.id);
        } else {
            despawn(entity);
        }
    }
    for &id in sim.agent_ids() {
        if !known.contains(&id) {
            let unit = Unit {
                id,
                owner: net.owner(id),
            };
            if mode.rollback {
                commands.spawn((unit, Rollback));
            } else {
                commands.spawn(unit);
            }
        }
    }
}

/// Marker for the plugin's checksum part.
pub struct GameMarker<R>(PhantomData<fn() -> R>);

/// The plugin's checksum entity: not a rollback entity, flagged with the game's marker.
type GamePart<R> = (Without<RollbackId>, With<ChecksumFlag<GameMarker<R>>>);

/// `SaveWorld` (checksum set): the game's checksum as a bevy_ggrs [`ChecksumPart`].
pub(crate) fn checksum_game<R: GameRules>(
    mut commands: Commands,
    game: Option<Res<OrcaGame<R>>>,
    mut part: Query<&mut ChecksumPart, GamePart<R>>,
) {
    let Some(game) = game else {
        return;
    };
    let sum = ChecksumPart(game.checksum());
    if let Ok(mut p) = part.single_mut() {
        *p = sum;
    } else {
        commands.spawn((sum, ChecksumFlag::<GameMarker<R>>::default()));
    }
}

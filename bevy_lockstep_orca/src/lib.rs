//! # bevy_lockstep_orca
//!
//! A Bevy plugin for [lockstep-orca](lockstep_orca): deterministic, fixed-point crowd
//! avoidance (ORCA/RVO2) in a Bevy game, rolled back by
//! [bevy_ggrs](https://docs.rs/bevy_ggrs/0.22) or stepped in `FixedUpdate` for single player.
//!
//! * [`OrcaPlugin`] runs the simulator's step in the schedule you choose
//!   (`OrcaPlugin::new(GgrsSchedule)` for rollback, `OrcaPlugin::new(FixedUpdate)` alone), like
//!   avian's `PhysicsPlugins::new(schedule)`; [`OrcaPlugin::in_schedule`] is bevy_landmass's
//!   spelling. With [`OrcaPlugin::with_default_system_setup`]`(false)` (bevy_rapier's switch)
//!   it adds only resources and rollback registration, and you place [`OrcaSystems`] yourself.
//! * The game ([`OrcaGame`]: the core crate's `NetGame` over your [`GameRules`]) is a
//!   resource rolled back by bevy_ggrs's `ResourceSnapshotPlugin` with its own snapshot
//!   strategy ([`GameStrategy`]: the game's saved state, loaded in place), and its checksum
//!   (the simulator's state hash, ownership and your rules' state) is a bevy_ggrs
//!   `ChecksumPart`. [`Unit`], [`ObstacleLink`] and the request markers are registered with
//!   `rollback_component_with_*`.
//! * Player inputs are your rules' input type ([`GroupOrders`]'s [`OrcaInput`] by default:
//!   the core's order slots and a box-select/move group order): bevy_ggrs's `PlayerInputs`
//!   inside `GgrsSchedule`, [`LocalOrcaInputs`] otherwise.
//! * Entities: every agent has a [`Unit`] entity (spawned and despawned by the plugin after each
//!   step); [`SpawnUnit`], [`RemoveUnit`], [`OrcaObstacle`] and [`RemoveObstacle`] turn
//!   entities into commands.
//!   [`UnitView`] and `Transform` mirror the units outside the rollback, interpolated between
//!   frames ([`Interpolation`]).
//!
//! The package README has the schedules, rollback registration, checksums and interpolation
//! with code to copy.

mod game;
mod input;
mod systems;
mod view;

pub use game::{EcsRules, GameSave, GameStrategy, OrcaGame, Request};
pub use input::{
    FLAG_NAVIGATE, FLAG_QUEUE, FLAG_SLOWEST, GROUP_SLOT, GROUPS_PER_PLAYER, GroupOrders, GroupWire,
    OrcaInput, OutOfDomain, group_kind, wire_point,
};
pub use lockstep_orca;
pub use lockstep_orca::netcode::GameRules;
pub use systems::{
    GameMarker, LocalOrcaInputs, ObstacleLink, OrcaObstacle, RemoveObstacle, RemoveUnit, SpawnUnit,
    Unit,
};
pub use view::{Interpolation, UnitView, from_bevy, to_bevy};

use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy_ggrs::ggrs::Config;
use bevy_ggrs::{GgrsSchedule, ResourceSnapshotPlugin, RollbackApp, SaveWorld};
use bevy_ggrs::{SaveWorldSystems, ggrs};
use std::marker::PhantomData;
use std::net::SocketAddr;

/// The usual imports.
pub mod prelude {
    pub use crate::{
        GroupOrders, GroupWire, Interpolation, LocalOrcaInputs, ObstacleLink, OrcaConfig, OrcaGame,
        OrcaInput, OrcaObstacle, OrcaPlugin, OrcaSystems, RemoveObstacle, RemoveUnit, SpawnUnit,
        Unit, UnitView, from_bevy, to_bevy,
    };
}

/// A ggrs [`Config`] for a game on the plugin: input `I` (default [`OrcaInput`]), address `A`
/// (`SocketAddr` for UDP; matchbox's `PeerId` for WebRTC). Orders are one-off events, so a
/// missing remote input is predicted as the default ("no orders"), not as the last one
/// (which would repeat its orders). bevy_ggrs keeps the world's state itself: `State` is `()`.
pub struct OrcaConfig<I = OrcaInput, A = SocketAddr>(PhantomData<fn() -> (I, A)>);

impl<I, A> std::fmt::Debug for OrcaConfig<I, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OrcaConfig")
    }
}

impl<I, A> Config for OrcaConfig<I, A>
where
    I: Copy
        + PartialEq
        + Default
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static,
    A: Clone + PartialEq + Eq + std::hash::Hash + std::fmt::Debug + Send + Sync + 'static,
{
    type Input = I;
    type InputPredictor = ggrs::PredictDefault;
    type State = ();
    type Address = A;
}

/// The plugin's system sets, in this order, in the simulation's schedule.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrcaSystems {
    /// The game's systems that queue requests for the step ([`OrcaGame::request`], the
    /// marker components). Put your rollback game logic here.
    Rules,
    /// Marker components into requests.
    Queue,
    /// The simulator's step.
    Step,
    /// Entities of new and removed units, links of new units and buildings.
    Sync,
}

/// The plugin. `R` is the game's rules ([`GroupOrders`] by default), `C` the ggrs config of
/// the session (only read inside `GgrsSchedule`, for bevy_ggrs's `PlayerInputs<C>`).
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_ggrs::prelude::*;
/// use bevy_lockstep_orca::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins(MinimalPlugins)
///     .add_plugins(GgrsPlugin::<OrcaConfig>::default())
///     .add_plugins(OrcaPlugin::<GroupOrders>::new(GgrsSchedule));
/// ```
pub struct OrcaPlugin<R: GameRules = GroupOrders, C: Config = OrcaConfig<<R as GameRules>::Input>> {
    schedule: Interned<dyn ScheduleLabel>,
    rollback: bool,
    default_systems: bool,
    _marker: PhantomData<fn() -> (R, C)>,
}

impl<R: GameRules, C: Config> OrcaPlugin<R, C> {
    /// The plugin stepping the simulation in `schedule`: `GgrsSchedule` (rolled back by
    /// bevy_ggrs; the default), or `FixedUpdate` for a game without bevy_ggrs.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        let schedule = schedule.intern();
        Self {
            schedule,
            rollback: schedule == GgrsSchedule.intern(),
            default_systems: true,
            _marker: PhantomData,
        }
    }

    /// The same plugin in another schedule (bevy_landmass's spelling of [`new`](Self::new)).
    #[must_use]
    pub fn in_schedule(self, schedule: impl ScheduleLabel) -> Self {
        Self {
            default_systems: self.default_systems,
            ..Self::new(schedule)
        }
    }

    /// With `false`, the plugin adds its resources and rollback registration but no systems
    /// to the simulation's schedule: add [`OrcaPlugin::step_systems`] where you want them.
    #[must_use]
    pub fn with_default_system_setup(mut self, enabled: bool) -> Self {
        self.default_systems = enabled;
        self
    }

    /// The simulation's systems (queue, step, sync), chained, in their [`OrcaSystems`] sets.
    pub fn step_systems() -> bevy::ecs::schedule::ScheduleConfigs<bevy::ecs::system::ScheduleSystem>
    where
        R: Send + Sync,
        C: Config<Input = R::Input>,
    {
        (
            systems::queue_requests::<R>.in_set(OrcaSystems::Queue),
            systems::step::<R, C>.in_set(OrcaSystems::Step),
            systems::sync_entities::<R>.in_set(OrcaSystems::Sync),
        )
            .chain()
    }
}

impl<R: GameRules, C: Config> Default for OrcaPlugin<R, C> {
    fn default() -> Self {
        Self::new(GgrsSchedule)
    }
}

impl<R, C> Plugin for OrcaPlugin<R, C>
where
    R: GameRules + Send + Sync,
    C: Config<Input = R::Input>,
{
    fn build(&self, app: &mut App) {
        app.insert_resource(systems::Mode {
            rollback: self.rollback,
        })
        .init_resource::<Interpolation>()
        .configure_sets(
            self.schedule,
            (
                OrcaSystems::Rules,
                OrcaSystems::Queue,
                OrcaSystems::Step,
                OrcaSystems::Sync,
            )
                .chain(),
        )
        .add_systems(Startup, systems::sync_entities::<R>)
        .add_systems(
            PostUpdate,
            view::mirror_units::<R>.before(bevy::transform::TransformSystems::Propagate),
        );
        if self.default_systems {
            app.add_systems(self.schedule, Self::step_systems());
        }
        if self.rollback {
            // The links, and the request markers: a marker that survived a load would be
            // queued again at an earlier frame in the re-simulation.
            app.rollback_component_with_copy::<Unit>()
                .rollback_component_with_copy::<ObstacleLink>()
                .rollback_component_with_copy::<SpawnUnit>()
                .rollback_component_with_copy::<RemoveUnit>()
                .rollback_component_with_copy::<RemoveObstacle>()
                .rollback_component_with_clone::<OrcaObstacle>()
                // The game: bevy_ggrs's resource snapshot, with the game's own strategy.
                .add_plugins(ResourceSnapshotPlugin::<GameStrategy<R>>::default())
                .add_systems(
                    SaveWorld,
                    systems::checksum_game::<R>.in_set(SaveWorldSystems::Checksum),
                );
        }
    }
}

//! bevy_ggrs SyncTest sessions through the plugin: two shipped scenes (fixtures/scenarios of
//! the core crate) for 300 frames at check distance 7 (every frame after the seventh loads the
//! state of seven frames earlier and simulates them again, comparing checksums), with group
//! orders, slot orders, a unit spawned from an entity inside the rollback and a building from
//! an entity. The negative control: game state kept in a component that is not registered for
//! rollback desyncs the simulation, and SyncTest reports it. A navigation scene with planned
//! group moves (`FLAG_NAVIGATE`) under SyncTest, and the game's bevy_ggrs snapshot strategy
//! ([`GameStrategy`]) on its own.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ggrs::prelude::*;
use bevy_ggrs::{GgrsResourceSnapshots, Strategy};
use bevy_ggrs::{LoadWorld, LocalInputs, LocalPlayers, RollbackFrameCount};
use bevy_lockstep_orca::lockstep_orca::navigation::PathStatus;
use bevy_lockstep_orca::lockstep_orca::netcode::{PlayerOrder, WireOrder};
use bevy_lockstep_orca::lockstep_orca::scenario::Scenario;
use bevy_lockstep_orca::lockstep_orca::{Command, ObstacleShape, Vec2 as FxVec2};
use bevy_lockstep_orca::prelude::*;
use bevy_lockstep_orca::{GameSave, GameStrategy, Request};
use std::time::Duration;

const CHECK_DISTANCE: usize = 7;
const FRAMES: i32 = 300;

/// Frames a unit works before it rests (the game state of the fatigue rule).
const FATIGUE_LIMIT: u32 = 45;

/// Game state on unit entities: frames worked. A unit of player 0 whose id is a multiple of 3
/// stops (a command) when it reaches `FATIGUE_LIMIT`, and starts over.
#[derive(Component, Clone, Copy, Debug, Default)]
struct Fatigue(u32);

#[derive(Resource, Default)]
struct Observed {
    mismatches: usize,
    loads: usize,
    stops: usize,
    /// Most buildings linked to entities at the end of a frame.
    most_buildings: usize,
}

fn scene(name: &str) -> Scenario {
    scene_in("scenarios", name)
}

fn scene_in(dir: &str, name: &str) -> Scenario {
    let path = format!(
        "{}/../fixtures/{dir}/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    Scenario::load(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fx(x: i32, y: i32) -> FxVec2 {
    FxVec2::from_int(x, y)
}

/// The scripted inputs of both players by frame: group orders (box select and move), slot
/// orders (move, spawn), nothing most frames.
fn read_inputs(mut commands: Commands, players: Res<LocalPlayers>, frame: Res<RollbackFrameCount>) {
    let mut inputs = HashMap::new();
    for &handle in &players.0 {
        let mut input = OrcaInput::default();
        match (frame.0, handle) {
            // Player 0 selects everything it owns into group 1 and sends it to (10, 10).
            (20, 0) => {
                input.group =
                    GroupWire::select_and_move(1, fx(-200, -200), fx(200, 200), fx(10, 10))
                        .expect("in domain");
            }
            // Player 1 selects its units left of x = 0 into group 2 ...
            (40, 1) => {
                input.group = GroupWire::select(2, fx(-200, -200), fx(0, 200)).expect("in domain");
            }
            // ... and moves the group later, at the slowest member's speed.
            (60, 1) => {
                let mut w = GroupWire::move_to(2, fx(-10, 5)).expect("in domain");
                w.flags = bevy_lockstep_orca::FLAG_SLOWEST;
                input.group = w;
            }
            // A slot order: player 1 spawns a unit.
            (90, 1) => {
                input.orders[0] = PlayerOrder::Spawn {
                    position: fx(0, -30),
                }
                .encode()
                .expect("valid");
            }
            // Player 0 re-orders group 1, appending a waypoint.
            (150, 0) => {
                let mut w = GroupWire::move_to(1, fx(-20, 0)).expect("in domain");
                w.flags = bevy_lockstep_orca::FLAG_QUEUE;
                input.group = w;
            }
            _ => {}
        }
        inputs.insert(handle, input);
    }
    commands.insert_resource(LocalInputs::<OrcaConfig>(inputs));
}

/// The game's rule on `Fatigue`, inside the rollback schedule: queues a `Stop` command.
fn fatigue(
    mut commands: Commands,
    mut game: ResMut<OrcaGame<GroupOrders>>,
    mut units: Query<(Entity, &Unit, Option<&mut Fatigue>)>,
    mut observed: ResMut<Observed>,
) {
    let mut stops = Vec::new();
    for (entity, unit, fatigue) in &mut units {
        if unit.owner != Some(0) || unit.id.0 % 3 != 0 {
            continue;
        }
        let Some(mut f) = fatigue else {
            commands.entity(entity).insert(Fatigue(1));
            continue;
        };
        f.0 += 1;
        if f.0 >= FATIGUE_LIMIT {
            f.0 = 0;
            stops.push(unit.id);
        }
    }
    stops.sort_unstable();
    observed.stops += stops.len();
    for id in stops {
        game.request(Request::Command(Command::Stop { id }));
    }
}

/// At frame 100 the game spawns a unit of player 0 from an entity (inside the rollback).
fn spawn_from_entity(mut commands: Commands, frame: Res<RollbackFrameCount>) {
    if frame.0 == 100 {
        commands.spawn((
            SpawnUnit {
                player: 0,
                position: fx(5, -40),
            },
            Rollback,
        ));
    }
}

/// At frame 200 the game demolishes the buildings it placed from entities.
fn demolish(
    mut commands: Commands,
    frame: Res<RollbackFrameCount>,
    buildings: Query<Entity, With<ObstacleLink>>,
) {
    if frame.0 == 200 {
        for e in &buildings {
            commands.entity(e).insert(RemoveObstacle);
        }
    }
}

fn count_buildings(buildings: Query<(), With<ObstacleLink>>, mut observed: ResMut<Observed>) {
    observed.most_buildings = observed.most_buildings.max(buildings.iter().len());
}

fn count_loads(mut observed: ResMut<Observed>) {
    observed.loads += 1;
}

/// A two-player SyncTest session at `CHECK_DISTANCE` over `game`: MinimalPlugins, the plugin
/// in `GgrsSchedule`, loads and mismatches counted in `Observed`.
fn synctest_app(game: OrcaGame<GroupOrders>) -> App {
    let mut app = App::new();
    let session = SessionBuilder::<OrcaConfig>::new()
        .with_num_players(2)
        .expect("players")
        .with_check_distance(CHECK_DISTANCE)
        .start_synctest_session()
        .expect("session");
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )))
        .add_plugins(GgrsPlugin::<OrcaConfig>::default())
        .insert_resource(RollbackFrameRate(60))
        .add_plugins(OrcaPlugin::<GroupOrders>::new(GgrsSchedule))
        .insert_resource(game)
        .insert_resource(Session::SyncTest(session))
        .init_resource::<Observed>()
        .add_systems(LoadWorld, count_loads)
        .add_observer(|_: On<SyncTestMismatch>, mut o: ResMut<Observed>| o.mismatches += 1);
    app
}

/// The SyncTest app of a shipped scene with the scripted inputs and the game's rules.
fn app(scene_name: &str, roll_back_fatigue: bool, building: bool) -> App {
    let game = OrcaGame::from_scenario(&scene(scene_name), 2, GroupOrders::default())
        .expect("scene builds");
    let mut app = synctest_app(game);
    app.add_systems(ReadInputs, read_inputs)
        .add_systems(
            GgrsSchedule,
            (fatigue, spawn_from_entity, demolish)
                .chain()
                .in_set(OrcaSystems::Rules),
        )
        .add_systems(Update, count_buildings);
    if roll_back_fatigue {
        app.rollback_component_with_copy::<Fatigue>();
    }
    if building {
        // A 4 x 4 building of player 1's in the crowd's way, from an entity placed before
        // the match (every peer places it).
        let square = [(-2, -2), (2, -2), (2, 2), (-2, 2)]
            .map(|(x, y)| fx(x, y))
            .to_vec();
        app.world_mut().spawn((
            OrcaObstacle {
                owner: 1,
                shape: ObstacleShape::Polygon(square),
            },
            Rollback,
        ));
    }
    app
}

/// Runs until the session has advanced `FRAMES` frames (at most 2 × `FRAMES` updates).
fn run(app: &mut App) {
    for _ in 0..2 * FRAMES {
        app.update();
        if app.world().resource::<RollbackFrameCount>().0 >= FRAMES {
            return;
        }
    }
    panic!(
        "the session reached frame {} only",
        app.world().resource::<RollbackFrameCount>().0
    );
}

fn check_passes(scene_name: &str, building: bool) {
    let mut app = app(scene_name, true, building);
    run(&mut app);
    let observed = app.world().resource::<Observed>();
    assert_eq!(
        observed.mismatches, 0,
        "{scene_name}: SyncTest found a desync"
    );
    // Every frame after the check distance (from frame CHECK_DISTANCE + 1 on) rolled back
    // and was simulated again.
    assert!(
        observed.loads >= (FRAMES as usize) - CHECK_DISTANCE - 1,
        "{scene_name}: only {} loads",
        observed.loads
    );
    assert!(observed.stops > 0, "the fatigue rule never fired");
    let observed_buildings = observed.most_buildings;
    let game = app.world().resource::<OrcaGame<GroupOrders>>();
    assert!(game.frame() >= FRAMES as u32);
    assert!(game.last_error().is_none(), "{:?}", game.last_error());
    assert_eq!(game.net().rejected_orders(), 0, "an order was skipped");
    let sim = game.simulator();
    // The group orders reached the units: player 0's (box select and move at frame 20, a
    // queued waypoint at 150; the fatigue rule stops those with ids divisible by 3) and
    // player 1's left half (select at 40, move at 60).
    let goal_of = |id| sim.agent_order(id).ok().flatten().map(|o| o.goal());
    let p0: Vec<_> = game.net().units_of(0);
    let p0_moving = p0
        .iter()
        .filter(|id| id.0 % 3 != 0 && goal_of(**id) == Some(fx(-20, 0)))
        .count();
    let p0_free = p0.iter().filter(|id| id.0 % 3 != 0).count();
    let p1_moving = game
        .net()
        .units_of(1)
        .iter()
        .filter(|&&id| goal_of(id) == Some(fx(-10, 5)))
        .count();
    println!(
        "{scene_name}: player 0 {p0_moving} of {p0_free} to (-20, 0), player 1 {p1_moving} to (-10, 5)"
    );
    assert!(
        p0_moving * 2 > p0_free,
        "the group order of player 0 did not reach its units"
    );
    assert!(
        p1_moving > 0,
        "the group order of player 1 did not reach its units"
    );
    // Two spawned units: player 1's wire order, player 0's entity.
    assert_eq!(sim.num_agents(), scene(scene_name).agents.len() + 2);
    // Spawned units: one by player 1's wire order, one by player 0's entity.
    let agents = sim.num_agents();
    let mut units: Vec<Unit> = app
        .world_mut()
        .query::<&Unit>()
        .iter(app.world())
        .copied()
        .collect();
    units.sort_by_key(|u| u.id);
    assert_eq!(units.len(), agents, "one entity per agent");
    let game = app.world().resource::<OrcaGame<GroupOrders>>();
    for u in &units {
        assert_eq!(u.owner, game.net().owner(u.id), "owner of {:?}", u.id);
    }
    if building {
        let links: Vec<ObstacleLink> = app
            .world_mut()
            .query::<&ObstacleLink>()
            .iter(app.world())
            .copied()
            .collect();
        // Linked in the first frame, demolished at frame 200 (entity despawned).
        assert_eq!(
            observed_buildings, 1,
            "the building entity was never linked"
        );
        assert!(links.is_empty(), "the demolished building's entity remains");
        let game = app.world().resource::<OrcaGame<GroupOrders>>();
        assert!(game.simulator().obstacles().is_empty());
    }
}

#[test]
fn circle250_passes_synctest_with_group_orders_and_a_building() {
    check_passes("circle250", true);
}

#[test]
fn building_scene_passes_synctest_with_its_obstacle_events() {
    check_passes("building", false);
}

/// The negative control: the same game with `Fatigue` not registered for rollback. After each
/// load the counters keep their later values, the stops come earlier in the re-simulation,
/// the simulator's state differs, and the checksum (the simulator's hash) shows it.
#[test]
fn a_component_left_out_of_the_rollback_is_caught() {
    let mut app = app("building", false, false);
    // A session whose checksums mismatched stops advancing: run until SyncTest reports.
    for _ in 0..2 * FRAMES {
        app.update();
        if app.world().resource::<Observed>().mismatches > 0 {
            break;
        }
    }
    let frame = app.world().resource::<RollbackFrameCount>().0;
    let observed = app.world().resource::<Observed>();
    assert!(
        observed.mismatches > 0,
        "SyncTest did not catch the non-rolled-back component (frame {frame})"
    );
    // Caught at the first comparison after the first wrong stop, long before the end.
    assert!(frame < FRAMES, "caught at frame {frame}");
    println!("non-rolled-back Fatigue caught at frame {frame}");
}

/// The input and the group order are integers on the wire; a group order of another kind or
/// with unused fields set is skipped, not applied.
#[test]
fn malformed_group_orders_are_skipped_and_counted() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            100,
        )))
        .insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(100)))
        .add_plugins(OrcaPlugin::<GroupOrders>::new(FixedUpdate));
    let game = OrcaGame::from_scenario(&scene("building"), 2, GroupOrders::default())
        .expect("scene builds");
    app.insert_resource(game);
    let bad = [
        GroupWire {
            kind: 9,
            ..GroupWire::default()
        },
        GroupWire {
            kind: bevy_lockstep_orca::group_kind::MOVE,
            group: 10,
            ..GroupWire::default()
        },
        GroupWire {
            kind: bevy_lockstep_orca::group_kind::MOVE,
            rect: [1, 0, 0, 0],
            ..GroupWire::default()
        },
        GroupWire {
            kind: bevy_lockstep_orca::group_kind::MOVE,
            goal: [i32::MAX, 0],
            ..GroupWire::default()
        },
    ];
    let inputs: Vec<OrcaInput> = bad
        .iter()
        .map(|&group| OrcaInput {
            orders: [WireOrder::default(); 4],
            group,
        })
        .collect();
    for pair in inputs.chunks(2) {
        app.insert_resource(LocalOrcaInputs(pair.to_vec()));
        let before = app.world().resource::<OrcaGame<GroupOrders>>().frame();
        while app.world().resource::<OrcaGame<GroupOrders>>().frame() == before {
            app.update();
        }
    }
    let game = app.world().resource::<OrcaGame<GroupOrders>>();
    assert_eq!(game.net().rejected_orders(), 4);
    assert!(game.last_error().is_none());
}

/// Scripted inputs of the navigation scene: player 0 sends its units to the east room by
/// planned paths, player 1 sends its units straight west.
fn navigate_inputs(
    mut commands: Commands,
    players: Res<LocalPlayers>,
    frame: Res<RollbackFrameCount>,
) {
    let mut inputs = HashMap::new();
    for &handle in &players.0 {
        let mut input = OrcaInput::default();
        let everything = (fx(-20, -12), fx(20, 12));
        match (frame.0, handle) {
            (10, 0) => {
                input.group = GroupWire::select_and_move(3, everything.0, everything.1, fx(15, 6))
                    .expect("in domain")
                    .navigate();
            }
            (10, 1) => {
                input.group = GroupWire::select_and_move(3, everything.0, everything.1, fx(-18, 0))
                    .expect("in domain");
            }
            _ => {}
        }
        inputs.insert(handle, input);
    }
    commands.insert_resource(LocalInputs::<OrcaConfig>(inputs));
}

/// Planned group moves through SyncTest: the rooms scene (walls that a straight line runs
/// into), player 0's units by `FLAG_NAVIGATE` (planned paths around the walls, rolled back
/// and re-simulated every frame), player 1's by a straight group move.
#[test]
fn planned_group_moves_pass_synctest() {
    let game = OrcaGame::from_scenario(
        &scene_in("navigation", "rooms_one_route"),
        2,
        GroupOrders::default(),
    )
    .expect("scene builds");
    let mut app = synctest_app(game);
    app.add_systems(ReadInputs, navigate_inputs);
    // The game is a bevy_ggrs rollback resource: its snapshots are bevy_ggrs's.
    assert!(
        app.world()
            .contains_resource::<GgrsResourceSnapshots<OrcaGame<GroupOrders>, GameSave<GroupOrders>>>()
    );
    run(&mut app);
    let observed = app.world().resource::<Observed>();
    assert_eq!(observed.mismatches, 0, "SyncTest found a desync");
    assert!(observed.loads >= (FRAMES as usize) - CHECK_DISTANCE - 1);
    let game = app.world().resource::<OrcaGame<GroupOrders>>();
    assert!(game.last_error().is_none(), "{:?}", game.last_error());
    assert_eq!(game.net().rejected_orders(), 0, "an order was skipped");
    let sim = game.simulator();
    let (p0, p1) = (game.net().units_of(0), game.net().units_of(1));
    assert_eq!(p0.len(), 4);
    for &id in &p0 {
        let record = sim
            .nav_status(id)
            .expect("present")
            .expect("a planned move");
        assert_eq!(record.goal(), fx(15, 6), "{id:?}");
        assert_eq!(record.status(), Some(PathStatus::Complete), "{id:?}");
        // Around the walls: the straight line from the west room is blocked.
        let order = sim.agent_order(id).expect("present").expect("an order");
        assert!(order.path().len() >= 3, "{id:?}: {:?}", order.path());
    }
    for &id in &p1 {
        assert_eq!(sim.nav_status(id).expect("present"), None, "{id:?}");
        let order = sim.agent_order(id).expect("present").expect("an order");
        assert_eq!(order.path(), &[fx(-18, 0)][..], "{id:?}");
    }
}

/// [`GameStrategy`] alone: a stored frame loads in place and re-inserts as a whole game, both
/// at the stored checksum and continuing bit-identically.
#[test]
fn the_game_snapshot_strategy_restores_the_frame() {
    let game = OrcaGame::from_scenario(&scene("building"), 2, GroupOrders::default())
        .expect("scene builds");
    let mut local = App::new();
    local
        .add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            100,
        )))
        .insert_resource(Time::<Fixed>::from_duration(Duration::from_millis(100)))
        .add_plugins(OrcaPlugin::<GroupOrders>::new(FixedUpdate));
    let advance = |app: &mut App, frames: u32| {
        let end = app.world().resource::<OrcaGame<GroupOrders>>().frame() + frames;
        while app.world().resource::<OrcaGame<GroupOrders>>().frame() < end {
            app.update();
        }
    };
    let saved = GameStrategy::<GroupOrders>::store(&game);
    let at_save = game.checksum();
    // A whole game from the save (bevy_ggrs re-inserting a removed resource).
    let restored = GameStrategy::<GroupOrders>::load(&saved);
    assert_eq!(restored.checksum(), at_save);
    local.insert_resource(restored);
    advance(&mut local, 30);
    let continued = local.world().resource::<OrcaGame<GroupOrders>>().checksum();
    // The original game, stepped the same frames, then loaded back in place.
    local.insert_resource(game);
    advance(&mut local, 30);
    let mut original = local
        .world_mut()
        .remove_resource::<OrcaGame<GroupOrders>>()
        .expect("inserted");
    assert_eq!(
        original.checksum(),
        continued,
        "the same frames from the same state"
    );
    assert_ne!(original.checksum(), at_save, "the scene moved");
    GameStrategy::<GroupOrders>::update(&mut original, &saved);
    assert_eq!(original.checksum(), at_save);
    assert_eq!(original.frame(), 0);
    assert!(original.last_error().is_none());
}

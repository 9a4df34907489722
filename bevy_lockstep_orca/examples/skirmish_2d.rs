//! A playable two-player skirmish on bevy_lockstep_orca: 2D sprites, drag a box with the left
//! mouse button to select your units, right-click to send them (one group order: the box and
//! the goal travel as one input, the simulation selects every unit in it and gives each a
//! planned path around the buildings). The map has navigation on: a keep in the middle and
//! two blocks stand between the armies, so a straight line would run into a wall; each unit's
//! remaining path is drawn in its side's colour. Hold Shift while right-clicking for a
//! straight group move instead.
//!
//! ```sh
//! # one window, both players local, bevy_ggrs's SyncTest (rolls back every frame):
//! cargo run -p bevy_lockstep_orca --features example --example skirmish_2d -- --mode synctest
//! # single player without bevy_ggrs (FixedUpdate):
//! cargo run -p bevy_lockstep_orca --features example --example skirmish_2d -- --mode local
//! # two players over loopback UDP, one window each:
//! cargo run -p bevy_lockstep_orca --features example --example skirmish_2d -- --mode p2p --player 0 --local-port 7000 --remote 127.0.0.1:7001 &
//! cargo run -p bevy_lockstep_orca --features example --example skirmish_2d -- --mode p2p --player 1 --local-port 7001 --remote 127.0.0.1:7000
//! ```
//!
//! `--demo` plays scripted orders for both players; `--screenshot PATH --exit-after N` saves a
//! screenshot after N frames and exits (how the README's picture was taken).

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy_ggrs::ggrs::{PlayerType, SessionBuilder, UdpNonBlockingSocket};
use bevy_ggrs::prelude::*;
use bevy_ggrs::{LocalInputs, LocalPlayers, RollbackFrameCount};
use bevy_lockstep_orca::lockstep_orca::Vec2 as FxVec2;
use bevy_lockstep_orca::lockstep_orca::navigation::NavParams;
use bevy_lockstep_orca::lockstep_orca::{Fx, ObstacleShape, Simulator, SimulatorParams};
use bevy_lockstep_orca::prelude::*;
use std::net::SocketAddr;

/// Simulation frames per second (and the simulator's time step, 1/20 s).
const FPS: usize = 20;
const UNITS_PER_SIDE: i32 = 36;
/// The buildings (x, y, width, height): a keep between the armies, a block on each flank.
const BUILDINGS: [(i32, i32, i32, i32); 3] = [(-3, -12, 6, 24), (-16, 8, 6, 10), (10, -18, 6, 10)];
/// The map (the navigation boundary): x and y half-extents.
const MAP: (i32, i32) = (42, 25);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Local,
    SyncTest,
    P2p,
}

#[derive(Resource, Clone, Debug)]
struct Args {
    mode: Mode,
    player: usize,
    local_port: u16,
    remote: Option<SocketAddr>,
    demo: bool,
    screenshot: Option<String>,
    exit_after: u32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        mode: Mode::SyncTest,
        player: 0,
        local_port: 7000,
        remote: None,
        demo: false,
        screenshot: None,
        exit_after: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--mode" => {
                args.mode = match value()?.as_str() {
                    "local" => Mode::Local,
                    "synctest" => Mode::SyncTest,
                    "p2p" => Mode::P2p,
                    m => return Err(format!("unknown mode {m}")),
                }
            }
            "--player" => args.player = value()?.parse().map_err(|e| format!("{e}"))?,
            "--local-port" => args.local_port = value()?.parse().map_err(|e| format!("{e}"))?,
            "--remote" => args.remote = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            "--demo" => args.demo = true,
            "--screenshot" => args.screenshot = Some(value()?),
            "--exit-after" => args.exit_after = value()?.parse().map_err(|e| format!("{e}"))?,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if args.mode == Mode::P2p && (args.remote.is_none() || args.player > 1) {
        return Err("--mode p2p needs --remote ADDR and --player 0|1".into());
    }
    Ok(args)
}

/// The local player's next input, filled by the mouse, taken by the session.
#[derive(Resource, Default)]
struct Pending([OrcaInput; 2]);

/// The box being dragged (world points) and the last box selected.
#[derive(Resource, Default)]
struct Selection {
    drag_start: Option<Vec2>,
    cursor: Vec2,
    selected: Option<(Vec2, Vec2)>,
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("skirmish_2d: {e}");
            std::process::exit(2);
        }
    };
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: format!("bevy_lockstep_orca skirmish ({:?})", args.mode),
            resolution: (1024u32, 640u32).into(),
            ..default()
        }),
        ..default()
    }))
    .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
    .init_resource::<Pending>()
    .init_resource::<Selection>()
    .insert_resource(new_game())
    .add_systems(Startup, setup)
    .add_systems(Update, (mouse, demo_orders, decorate_units, draw).chain())
    .add_systems(Last, finish);
    match args.mode {
        Mode::Local => {
            app.insert_resource(Time::<Fixed>::from_hz(FPS as f64))
                .insert_resource(LocalOrcaInputs(vec![OrcaInput::default(); 2]))
                .add_plugins(OrcaPlugin::<GroupOrders>::new(FixedUpdate))
                .add_systems(Update, local_inputs.after(demo_orders));
        }
        Mode::SyncTest | Mode::P2p => {
            app.add_plugins(GgrsPlugin::<OrcaConfig>::default())
                .insert_resource(RollbackFrameRate(FPS))
                .add_plugins(OrcaPlugin::<GroupOrders>::new(GgrsSchedule))
                .add_systems(ReadInputs, ggrs_inputs)
                .insert_resource(session(&args));
        }
    }
    app.insert_resource(args).run();
}

fn session(args: &Args) -> Session<OrcaConfig> {
    let builder = SessionBuilder::<OrcaConfig>::new()
        .with_num_players(2)
        .expect("two players");
    if args.mode == Mode::SyncTest {
        return Session::SyncTest(
            builder
                .with_check_distance(7)
                .start_synctest_session()
                .expect("synctest session"),
        );
    }
    let remote = args.remote.expect("checked by parse_args");
    let socket = UdpNonBlockingSocket::bind_to_port(args.local_port).expect("bind the UDP port");
    let builder = builder
        .with_input_delay(2)
        .add_player(PlayerType::Local, args.player)
        .expect("local player")
        .add_player(PlayerType::Remote(remote), 1 - args.player)
        .expect("remote player");
    Session::P2P(builder.start_p2p_session(socket).expect("p2p session"))
}

/// Two armies facing each other on a map with navigation (the buildings come from entities in
/// the first frame, [`setup`]), a time step of 1/20 s.
fn new_game() -> OrcaGame<GroupOrders> {
    let mut params = SimulatorParams {
        time_step: Fx::from_num(1) / Fx::from_num(FPS as i32),
        ..SimulatorParams::default()
    };
    params.agent_defaults.radius = Fx::lit("0.5");
    params.agent_defaults.max_speed = Fx::from_num(4);
    params.agent_defaults.neighbor_dist = Fx::from_num(5);
    params.agent_defaults.time_horizon = Fx::from_num(2);
    params.agent_defaults.time_horizon_obst = Fx::from_num(1);
    let mut sim = Simulator::new(params).expect("valid parameters");
    let (w, h) = MAP;
    let boundary = [(-w, -h), (w, -h), (w, h), (-w, h)]
        .map(|(x, y)| FxVec2::from_int(x, y))
        .to_vec();
    sim.set_navigation(Some(NavParams {
        boundary: Some(boundary),
        ..NavParams::default()
    }))
    .expect("valid navigation");
    let mut owners = Vec::new();
    for side in 0..2 {
        for i in 0..UNITS_PER_SIDE {
            let x = if side == 0 {
                -30 - i % 4 * 2
            } else {
                30 + i % 4 * 2
            };
            let y = (i / 4) * 2 - 8;
            let id = sim.add_agent(FxVec2::from_int(x, y)).expect("in domain");
            owners.push((id, side));
        }
    }
    let mut game = OrcaGame::new(sim, 2, GroupOrders::default()).expect("two players");
    for (id, side) in owners {
        game.net_mut()
            .assign(id, side as usize)
            .expect("a new unit");
    }
    game
}

fn setup(mut commands: Commands, args: Res<Args>) {
    commands.spawn((Camera2d, Transform::from_scale(Vec3::splat(0.085))));
    // Buildings from entities, placed in the first frame (every peer spawns the same).
    for (x, y, w, h) in BUILDINGS {
        let square = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
            .map(|(x, y)| FxVec2::from_int(x, y))
            .to_vec();
        let building = commands
            .spawn(OrcaObstacle {
                owner: 0,
                shape: ObstacleShape::Polygon(square),
            })
            .id();
        // A rollback entity only with bevy_ggrs (its `Rollback` hook needs the plugin).
        if args.mode != Mode::Local {
            commands.entity(building).insert(Rollback);
        }
    }
}

fn owner_color(owner: Option<usize>, selected: bool) -> Color {
    match (owner, selected) {
        (Some(0), false) => Color::srgb(0.25, 0.55, 1.0),
        (Some(0), true) => Color::srgb(0.6, 0.85, 1.0),
        (Some(1), _) => Color::srgb(1.0, 0.4, 0.3),
        _ => Color::srgb(0.7, 0.7, 0.7),
    }
}

/// Sprites for new units (a view: added outside the rollback, kept by bevy_ggrs's
/// deferred despawn).
fn decorate_units(
    mut commands: Commands,
    new: Query<(Entity, &Unit), Without<Sprite>>,
    game: Res<OrcaGame<GroupOrders>>,
) {
    for (entity, unit) in &new {
        let r = game
            .simulator()
            .agent_params(unit.id)
            .map(|p| p.radius.to_num::<f32>())
            .unwrap_or(0.5);
        commands.entity(entity).insert(Sprite::from_color(
            owner_color(unit.owner, false),
            Vec2::splat(2.0 * r),
        ));
    }
}

fn mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    args: Res<Args>,
    mut selection: ResMut<Selection>,
    mut pending: ResMut<Pending>,
) {
    let (camera, at) = *camera;
    let Some(cursor) = window
        .cursor_position()
        .and_then(|c| camera.viewport_to_world_2d(at, c).ok())
    else {
        return;
    };
    selection.cursor = cursor;
    if buttons.just_pressed(MouseButton::Left) {
        selection.drag_start = Some(cursor);
    }
    if buttons.just_released(MouseButton::Left)
        && let Some(start) = selection.drag_start.take()
    {
        selection.selected = Some((start, cursor));
    }
    if buttons.just_pressed(MouseButton::Right)
        && let Some((a, b)) = selection.selected
        && let (Some(a), Some(b), Some(goal)) = (from_bevy(a), from_bevy(b), from_bevy(cursor))
        && let Ok(order) = GroupWire::select_and_move(0, a, b, goal)
    {
        let straight = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
        pending.0[args.player].group = if straight { order } else { order.navigate() };
    }
}

/// Scripted orders (`--demo`, and player 1 in the one-window modes).
fn demo_orders(
    args: Res<Args>,
    game: Res<OrcaGame<GroupOrders>>,
    mut pending: ResMut<Pending>,
    mut selection: ResMut<Selection>,
    mut last: Local<u32>,
) {
    let frame = game.frame();
    if frame == *last {
        return;
    }
    *last = frame;
    let fx = FxVec2::from_int;
    let everything = (fx(-100, -100), fx(100, 100));
    let controls = |p: usize| args.mode != Mode::P2p || args.player == p;
    // Player 1's opening move (the opponent when one window plays both).
    if controls(1)
        && (args.demo || args.mode != Mode::P2p)
        && frame == 15
        && let Ok(w) = GroupWire::select_and_move(0, everything.0, everything.1, fx(-28, 2))
    {
        pending.0[1].group = w.navigate();
    }
    if controls(0) && args.demo && frame == 5 {
        let (a, b) = (Vec2::new(-38.0, -9.0), Vec2::new(-29.0, 3.0));
        selection.selected = Some((a, b));
        if let (Some(fa), Some(fb)) = (from_bevy(a), from_bevy(b))
            && let Ok(w) = GroupWire::select_and_move(0, fa, fb, fx(26, -2))
        {
            pending.0[0].group = w.navigate();
        }
    }
}

fn local_inputs(mut pending: ResMut<Pending>, mut inputs: ResMut<LocalOrcaInputs<OrcaInput>>) {
    for (slot, input) in inputs.0.iter_mut().zip(pending.0.iter_mut()) {
        if *input != OrcaInput::default() {
            *slot = std::mem::take(input);
        }
    }
}

fn ggrs_inputs(mut commands: Commands, players: Res<LocalPlayers>, mut pending: ResMut<Pending>) {
    let mut inputs = bevy::platform::collections::HashMap::new();
    for &handle in &players.0 {
        let input = pending
            .0
            .get_mut(handle)
            .map(std::mem::take)
            .unwrap_or_default();
        inputs.insert(handle, input);
    }
    commands.insert_resource(LocalInputs::<OrcaConfig>(inputs));
}

/// Buildings, the planned paths, the selection box, the selected units' rings (gizmos).
fn draw(
    mut gizmos: Gizmos,
    game: Res<OrcaGame<GroupOrders>>,
    selection: Res<Selection>,
    args: Res<Args>,
    mut units: Query<(&Unit, &Transform, &mut Sprite)>,
) {
    for (_, shape) in game.simulator().obstacles().iter() {
        let mut points: Vec<Vec2> = shape.vertices().iter().map(|&v| to_bevy(v)).collect();
        if let (ObstacleShape::Polygon(_), Some(&first)) = (shape, points.first()) {
            points.push(first);
        }
        gizmos.linestrip_2d(points, Color::srgb(0.85, 0.8, 0.6));
    }
    let (w, h) = MAP;
    gizmos.rect_2d(
        Vec2::ZERO,
        Vec2::new(2.0 * w as f32, 2.0 * h as f32),
        Color::srgb(0.3, 0.3, 0.35),
    );
    // Each planned move's path ahead of its unit (the simulator's state, not interpolated).
    let sim = game.simulator();
    for (unit, t, _) in &units {
        if let (Ok(Some(_)), Ok(Some(order))) = (sim.nav_status(unit.id), sim.agent_order(unit.id))
        {
            let ahead = order
                .path()
                .iter()
                .skip(order.progress())
                .map(|&p| to_bevy(p));
            let line = std::iter::once(t.translation.truncate()).chain(ahead);
            gizmos.linestrip_2d(line, owner_color(unit.owner, false).with_alpha(0.35));
        }
    }
    let boxed = |(a, b): (Vec2, Vec2)| (a.min(b), a.max(b));
    if let Some(start) = selection.drag_start {
        let (lo, hi) = boxed((start, selection.cursor));
        gizmos.rect_2d((lo + hi) / 2.0, hi - lo, Color::srgb(0.4, 1.0, 0.4));
    }
    let selected = selection.selected.map(boxed);
    if let Some((lo, hi)) = selected {
        gizmos.rect_2d((lo + hi) / 2.0, hi - lo, Color::srgba(0.4, 1.0, 0.4, 0.5));
    }
    for (unit, t, mut sprite) in &mut units {
        let p = t.translation.truncate();
        let inside = unit.owner == Some(args.player)
            && selected.is_some_and(|(lo, hi)| p.cmpge(lo).all() && p.cmple(hi).all());
        sprite.color = owner_color(unit.owner, inside);
        if inside {
            gizmos.circle_2d(p, 0.8, Color::srgb(0.4, 1.0, 0.4));
        }
    }
}

/// `--screenshot PATH --exit-after N`: a screenshot at frame N, exit a few frames later.
fn finish(
    mut commands: Commands,
    args: Res<Args>,
    game: Res<OrcaGame<GroupOrders>>,
    frame: Option<Res<RollbackFrameCount>>,
    mut taken: Local<Option<u32>>,
    mut exit: MessageWriter<AppExit>,
) {
    if args.exit_after == 0 {
        return;
    }
    let f = frame.map_or(game.frame(), |f| f.0.max(0) as u32);
    match (*taken, &args.screenshot) {
        (None, Some(path)) if f >= args.exit_after => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path.clone()));
            *taken = Some(f);
        }
        (None, None) if f >= args.exit_after => {
            exit.write(AppExit::Success);
        }
        (Some(t), _) if f >= t + 10 => {
            println!("frame {} checksum {:032x}", game.frame(), game.checksum());
            exit.write(AppExit::Success);
        }
        _ => {}
    }
}

//! The ggrs adapter (`lockstep_orca::netcode`): SyncTest on every golden scene, a deliberately
//! non-deterministic step caught, hostile inputs, orders, save/load, the lockstep hash
//! exchange, a pinned checksum, every variant of `NetError` and `PlayerOrderError`, and the
//! two-process example (`examples/ggrs_p2p.rs`) on loopback (`netcode/p2p.rs`). The wire
//! format's tests are in `netcode/wire.rs`, a game's own rules and state (`GameRules`, the
//! catalogue orders, the match recording) in `netcode/rules.rs`, the tutorial game
//! (`examples/skirmish.rs`) as two processes in `netcode/game.rs`, the group orders (one wire
//! order moves 1,000 units), navigate and order speed in `netcode/groups.rs`, SyncTest on the
//! navigation scenes in `netcode/navigation.rs`.

#[path = "netcode/formations.rs"]
mod formations;
#[path = "netcode/game.rs"]
mod game;
#[path = "netcode/groups.rs"]
mod groups;
#[path = "netcode/navigation.rs"]
mod navigation;
#[path = "netcode/p2p.rs"]
mod p2p;
#[path = "netcode/rules.rs"]
mod rules;
#[path = "netcode/wire.rs"]
mod wire;

use ggrs::{GgrsError, InputStatus, SessionBuilder};
use lockstep_orca::netcode::{
    INPUT_WIRE_BYTES, MAX_UNITS_PER_PLAYER, MAX_WAYPOINTS, NetConfig, NetError, NetGame, NetInput,
    PlayerOrder, PlayerOrderError, Rejection, WireOrder, kind,
};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::snapshot::{HEADER_BYTES, TRAILER_BYTES};
use lockstep_orca::{AgentId, AgentParams, Fx, SimError, Simulator, SimulatorParams, Vec2};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A deterministic xorshift stream for synthetic inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The synthetic orders of `player` at `frame`, given the game's first units and their start
/// positions (fixed at the start, so the script is a function of the frame alone).
fn script(player: usize, frame: i32, units: &[(AgentId, Vec2)]) -> NetInput {
    let bad = PlayerOrder::Stop {
        unit: AgentId(u32::MAX - 1),
    };
    let Some(&(u, p)) = units.first() else {
        // No unit yet (the scene adds them later): only the orders that must be skipped.
        let mut input = NetInput::default();
        if frame == 13 {
            input = NetInput::from_orders(&[bad]).unwrap();
        }
        if frame == 17 {
            input.orders[3] = WireOrder {
                kind: 250,
                ..WireOrder::default()
            };
        }
        return input;
    };
    let off = Vec2::from_int(if player == 0 { 6 } else { -6 }, 3);
    let orders: Vec<PlayerOrder> = match frame {
        5 => vec![PlayerOrder::MoveTo {
            unit: u,
            goal: p + off,
        }],
        9 => vec![
            PlayerOrder::QueueMove { unit: u, goal: p },
            PlayerOrder::SetPriority {
                unit: u,
                priority: 200,
            },
        ],
        // Another player's unit, or a unit that does not exist: skipped.
        13 => vec![bad],
        20 => vec![PlayerOrder::Spawn {
            position: p + off + off,
        }],
        30 => vec![PlayerOrder::Stop { unit: u }],
        40 if units.len() > 1 => vec![PlayerOrder::Remove { unit: units[1].0 }],
        _ => vec![],
    };
    let mut input = NetInput::from_orders(&orders).unwrap();
    if frame == 17 {
        input.orders[3] = WireOrder {
            kind: 250,
            ..WireOrder::default()
        }; // unknown kind
    }
    input
}

fn first_units(game: &NetGame, player: usize) -> Vec<(AgentId, Vec2)> {
    game.units_of(player)
        .into_iter()
        .filter_map(|id| Some((id, game.simulator().agent_position(id).ok()?)))
        .take(2)
        .collect()
}

/// Runs a SyncTest session (check distance 7) over `game` for `frames` frames with the script.
fn synctest(game: &mut NetGame, frames: i32) -> Result<(), String> {
    let players = game.num_players();
    let mut session = SessionBuilder::<NetConfig>::new()
        .with_num_players(players)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .map_err(|e| e.to_string())?;
    let units: Vec<_> = (0..players).map(|p| first_units(game, p)).collect();
    for frame in 0..frames {
        for (p, u) in units.iter().enumerate() {
            session.add_local_input(p, script(p, frame, u)).unwrap();
        }
        let requests = session
            .advance_frame()
            .map_err(|e| format!("frame {frame}: {e}"))?;
        game.handle_requests(requests)
            .map_err(|e| format!("frame {frame}: {e}"))?;
    }
    Ok(())
}

#[test]
fn synctest_passes_on_every_golden_scene() {
    let scenes = lockstep_orca::golden::golden_scenes(Path::new(ROOT)).unwrap();
    assert!(scenes.len() >= 19, "{} scenes", scenes.len());
    for (name, path) in scenes {
        let scenario = Scenario::load(&path).unwrap();
        let agents = scenario.agents.len();
        // Bounded work: 150 frames for scenes of over 100 agents, 300 for the others.
        let frames = if agents > 100 { 150 } else { 300 };
        let mut game = NetGame::from_scenario(&scenario, 2).unwrap();
        let moved = first_units(&game, 0).first().map(|u| u.0);
        synctest(&mut game, frames).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(game.frame(), frames as u32, "{name}");
        // The script's bad orders were skipped and counted (two per player at least).
        assert!(
            game.rejected_orders() >= 4,
            "{name}: {}",
            game.rejected_orders()
        );
        // The moved unit got its priority from an order.
        if let Some(Ok(p)) = moved.map(|m| game.simulator().agent_params(m)) {
            assert_eq!(p.priority, 200, "{name}");
        }
    }
}

#[test]
fn a_nondeterministic_step_is_caught() {
    let scenario =
        Scenario::load(Path::new(ROOT).join("fixtures/scenarios/swap_perturbed.toml")).unwrap();
    let mut game = NetGame::from_scenario(&scenario, 2).unwrap();
    // A counter outside the state: the 30th advance (a re-simulation) nudges an agent.
    let mut calls = 0u32;
    #[allow(deprecated)] // fault injection: what the hook is for
    game.set_frame_hook(Some(Box::new(move |_frame, sim: &mut Simulator| {
        calls += 1;
        if calls == 30 {
            let id = sim.agent_ids()[0];
            let p = sim.agent_position(id).unwrap();
            sim.set_agent_position(id, p + Vec2::new(Fx::DELTA, Fx::ZERO))
                .unwrap();
        }
    })));
    let mut session = SessionBuilder::<NetConfig>::new()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    let mut caught = None;
    for frame in 0..60 {
        session.add_local_input(0, NetInput::default()).unwrap();
        session.add_local_input(1, NetInput::default()).unwrap();
        match session.advance_frame() {
            Ok(r) => game.handle_requests(r).unwrap(),
            Err(GgrsError::MismatchedChecksum {
                mismatched_frames, ..
            }) => {
                caught = Some((frame, mismatched_frames));
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    let (frame, frames) = caught.expect("the perturbation must be caught");
    assert!(!frames.is_empty() && frame < 60);
    // The same game without the hook passes.
    let mut clean = NetGame::from_scenario(&scenario, 2).unwrap();
    synctest(&mut clean, 60).unwrap();
}

/// Two games fed the same inputs, one step.
fn both(a: &mut NetGame, b: &mut NetGame, inputs: &[(NetInput, InputStatus)]) {
    a.advance(inputs).unwrap();
    b.advance(inputs).unwrap();
    assert_eq!(a.checksum(), b.checksum());
    assert_eq!(a.last_rejections(), b.last_rejections());
}

fn two_unit_game() -> NetGame {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    let b = sim.add_agent(Vec2::from_int(20, 0)).unwrap();
    let mut game = NetGame::new(sim, 2).unwrap();
    game.assign(a, 0).unwrap();
    game.assign(b, 1).unwrap();
    game
}

#[test]
fn hostile_inputs_are_skipped_identically_and_never_panic() {
    let (mut a, mut b) = (two_unit_game(), two_unit_game());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut expected_rejections = 0;
    for _ in 0..300 {
        let mut inputs = Vec::new();
        for _ in 0..2 {
            let mut bytes = [0u8; INPUT_WIRE_BYTES];
            for chunk in bytes.chunks_mut(8) {
                let r = rng.next().to_le_bytes();
                chunk.copy_from_slice(&r[..chunk.len()]);
            }
            // Mostly plausible slots: small kinds, small unit ids.
            for k in 0..4 {
                bytes[k * 14] %= 9;
                if rng.next().is_multiple_of(2) {
                    bytes[k * 14 + 1] = 0;
                    bytes[k * 14 + 3..k * 14 + 6].fill(0);
                    bytes[k * 14 + 2] %= 4;
                }
            }
            let input = NetInput::from_bytes(&bytes).unwrap();
            assert_eq!(input.to_bytes(), bytes);
            inputs.push((input, InputStatus::Confirmed));
        }
        both(&mut a, &mut b, &inputs);
        expected_rejections += a.last_rejections().len();
    }
    assert!(a.rejected_orders() > 0);
    assert_eq!(a.rejected_orders() as usize, expected_rejections);
    assert!(NetInput::from_bytes(&[0; 3]).is_err());
}

/// The adapter's bytes and the checksum after 50 scripted frames, pinned: a change is a new
/// checksum, which a peer of the old version reports as a desync.
#[test]
fn the_checksum_of_a_scripted_game_is_pinned() {
    let mut game = two_unit_game();
    let units: Vec<_> = (0..2).map(|p| first_units(&game, p)).collect();
    for frame in 0..50 {
        let inputs: Vec<_> = (units.iter().enumerate())
            .map(|(p, u)| (script(p, frame, u), InputStatus::Confirmed))
            .collect();
        game.advance(&inputs).unwrap();
    }
    let bytes = game.save_state().adapter_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let expected = [
        "4c534e4554303035", // LSNET005
        "32000000",         // frame 50
        "0400000000000000", // 4 rejected orders
        "0000000000000000", // no skipped group members
        "04000000",         // 4 units: id, owner, taken over
        "00000000 00 01",
        "01000000 01 01",
        "02000000 00 01",
        "03000000 01 01",
        "00000000", // no buildings
    ];
    assert_eq!(hex, expected.concat().replace(' ', ""));
    assert_eq!(game.checksum(), 0x9b75_9440_2a02_c33a_8295_0dd9_b3e3_45da);
}

#[test]
fn invalid_orders_are_rejected_for_their_reason() {
    let (mut a, mut b) = (two_unit_game(), two_unit_game());
    let far = WireOrder {
        kind: kind::MOVE_TO,
        unit: 0,
        x: i32::MIN,
        y: 0,
        arg: 0,
    };
    let bad_kind = WireOrder {
        kind: 77,
        ..WireOrder::default()
    };
    let padded = WireOrder {
        kind: kind::STOP,
        unit: 0,
        x: 5,
        ..WireOrder::default()
    };
    let theirs = PlayerOrder::Stop { unit: AgentId(1) }.encode().unwrap();
    let p0 = NetInput {
        orders: [far, bad_kind, padded, theirs],
        ..NetInput::default()
    };
    both(
        &mut a,
        &mut b,
        &[
            (p0, InputStatus::Confirmed),
            (NetInput::default(), InputStatus::Confirmed),
        ],
    );
    let reasons: Vec<_> = a
        .last_rejections()
        .iter()
        .map(|r| r.error.clone())
        .collect();
    assert_eq!(
        reasons,
        [
            PlayerOrderError::OutOfDomain,
            PlayerOrderError::UnknownKind(77),
            PlayerOrderError::Malformed,
            PlayerOrderError::NotOwner(AgentId(1)),
        ]
    );
    assert_eq!(a.rejected_orders(), 4);
    // A point outside the domain cannot be encoded either.
    let out = PlayerOrder::MoveTo {
        unit: AgentId(0),
        goal: Vec2::from_int(2_000_000, 0),
    };
    assert!(matches!(
        NetInput::from_orders(&[out]),
        Err(NetError::Order(PlayerOrderError::OutOfDomain))
    ));
    assert!(matches!(
        NetInput::from_orders(&[PlayerOrder::Stop { unit: AgentId(0) }; 5]),
        Err(NetError::TooManyOrders(5))
    ));
    // Wrong player count is an error, not a panic.
    assert!(matches!(
        a.advance(&[]),
        Err(NetError::PlayerCount {
            expected: 2,
            got: 0
        })
    ));
}

#[test]
fn orders_move_queue_stop_spawn_remove_and_prioritise() {
    let mut game = two_unit_game();
    let idle = (NetInput::default(), InputStatus::Confirmed);
    let send = |game: &mut NetGame, orders: &[PlayerOrder]| {
        let input = NetInput::from_orders(orders).unwrap();
        game.advance(&[
            (input, InputStatus::Confirmed),
            (NetInput::default(), InputStatus::Confirmed),
        ])
        .unwrap();
        assert!(
            game.last_rejections().is_empty(),
            "{:?}",
            game.last_rejections()
        );
    };
    let u = AgentId(0);
    send(
        &mut game,
        &[
            PlayerOrder::MoveTo {
                unit: u,
                goal: Vec2::from_int(0, 10),
            },
            PlayerOrder::QueueMove {
                unit: u,
                goal: Vec2::from_int(-10, 10),
            },
        ],
    );
    assert_eq!(
        game.unit_path(u),
        [Vec2::from_int(0, 10), Vec2::from_int(-10, 10)]
    );
    for _ in 0..200 {
        game.advance(&[idle, idle]).unwrap();
    }
    // The waypoint is done: the order heads for its goal, and the unit stands near it.
    assert_eq!(game.unit_path(u), [Vec2::from_int(-10, 10)]);
    let p = game.simulator().agent_position(u).unwrap();
    assert!(
        (p - Vec2::from_int(-10, 10)).length() <= Fx::lit("1.5"),
        "{p:?}"
    );
    send(
        &mut game,
        &[PlayerOrder::MoveTo {
            unit: u,
            goal: Vec2::from_int(50, 50),
        }],
    );
    send(&mut game, &[PlayerOrder::Stop { unit: u }]);
    game.advance(&[idle, idle]).unwrap();
    assert_eq!(game.simulator().agent_pref_velocity(u).unwrap(), Vec2::ZERO);
    let next = game.simulator().next_agent_id();
    send(
        &mut game,
        &[
            PlayerOrder::Spawn {
                position: Vec2::from_int(-40, 0),
            },
            PlayerOrder::SetPriority {
                unit: u,
                priority: 3,
            },
        ],
    );
    assert!(game.simulator().contains_agent(next));
    assert_eq!(game.owner(next), Some(0));
    assert_eq!(game.simulator().agent_params(u).unwrap().priority, 3);
    send(&mut game, &[PlayerOrder::Remove { unit: next }]);
    assert!(!game.simulator().contains_agent(next));
    assert_eq!(game.owner(next), None);
}

#[test]
fn save_and_load_restore_the_state_and_refuse_mismatches() {
    let mut game = two_unit_game();
    let cell = ggrs::GameStateCell::default();
    assert!(matches!(
        game.load(&cell, 0),
        Err(NetError::MissingState { frame: 0 })
    ));
    let order = NetInput::from_orders(&[PlayerOrder::MoveTo {
        unit: AgentId(0),
        goal: Vec2::from_int(5, 5),
    }])
    .unwrap();
    game.advance(&[
        (order, InputStatus::Confirmed),
        (NetInput::default(), InputStatus::Confirmed),
    ])
    .unwrap();
    game.save(&cell, 1).unwrap();
    let saved = game.checksum();
    let idle = (NetInput::default(), InputStatus::Confirmed);
    for _ in 0..10 {
        game.advance(&[idle, idle]).unwrap();
    }
    assert_ne!(game.checksum(), saved);
    assert!(matches!(
        game.save(&cell, 3),
        Err(NetError::FrameMismatch {
            requested: 3,
            actual: 11
        })
    ));
    assert!(matches!(
        game.load(&cell, 2),
        Err(NetError::FrameMismatch {
            requested: 2,
            actual: 1
        })
    ));
    game.load(&cell, 1).unwrap();
    assert_eq!(game.checksum(), saved);
    assert_eq!(game.frame(), 1);
    assert_eq!(game.unit_path(AgentId(0)), [Vec2::from_int(5, 5)]);
    // The adapter's state is in the checksum: the same simulator with another owner differs.
    let mut other = two_unit_game();
    other.assign(AgentId(1), 0).unwrap();
    other.load(&cell, 1).unwrap();
    assert_eq!(other.checksum(), saved); // a load brings the saved owners back
    other.assign(AgentId(1), 0).unwrap();
    assert_eq!(
        other.simulator().state_hash(),
        game.simulator().state_hash()
    );
    assert_ne!(other.checksum(), game.checksum());
    // Orders are the simulator's state: saved and loaded with it.
    assert_eq!(other.unit_path(AgentId(0)), [Vec2::from_int(5, 5)]);
}

#[test]
fn the_lockstep_hash_exchange_finds_a_diverged_peer() {
    let (mut a, mut b) = (two_unit_game(), two_unit_game());
    a.set_hash_interval(5);
    b.set_hash_interval(5);
    #[allow(deprecated)] // fault injection: what the hook is for
    b.set_frame_hook(Some(Box::new(|frame, sim: &mut Simulator| {
        if frame == 12 {
            sim.set_agent_position(AgentId(1), Vec2::from_int(21, 0))
                .unwrap();
        }
    })));
    let idle = NetInput::default();
    for _ in 0..30 {
        // Each peer reports its hash of its current frame when it is a multiple of 5.
        let report = |g: &NetGame| match g.recorded_checksum(g.frame()) {
            Some(h) => idle.with_hash(g.frame(), h),
            None => idle,
        };
        let (ia, ib) = (report(&a), report(&b));
        let inputs = [(ia, InputStatus::Confirmed), (ib, InputStatus::Confirmed)];
        a.advance(&inputs).unwrap();
        b.advance(&inputs).unwrap();
    }
    // Frames 0, 5, 10 agree; 15 is the first reported to differ, seen by both sides.
    assert_eq!(a.hash_mismatches()[0].frame, 15);
    assert_eq!(a.hash_mismatches()[0].player, 1);
    assert_eq!(b.hash_mismatches()[0].frame, 15);
    assert_eq!(b.hash_mismatches()[0].player, 0);
    assert_eq!(a.unchecked_hash_reports(), 0);
    // Predicted inputs carry no checked hash.
    let mut c = two_unit_game();
    c.set_hash_interval(1);
    c.advance(&[
        (idle.with_hash(0, 1), InputStatus::Predicted),
        (idle, InputStatus::Confirmed),
    ])
    .unwrap();
    assert!(c.hash_mismatches().is_empty());
}

// ------------------------------------------------------------------ every error variant
//
// Each variant of `NetError` and `PlayerOrderError` is produced here or above, through the public
// API: a returned `NetError` leaves the game's checksum and frame as they were; a rejected order
// leaves the simulator where an idle advance takes it, only the rejection count differs.

fn idle() -> (NetInput, InputStatus) {
    (NetInput::default(), InputStatus::Confirmed)
}

fn confirmed(orders: &[PlayerOrder]) -> (NetInput, InputStatus) {
    (
        NetInput::from_orders(orders).unwrap(),
        InputStatus::Confirmed,
    )
}

/// Advances `game` with `inputs` and `twin` (the same simulator and units) with `twin_inputs`:
/// the orders `game` got beyond the twin's are rejected for `expected` (player, slot, reason),
/// counted, and the simulator and the units end as in the twin.
fn rejected_like_twin(
    game: &mut NetGame,
    twin: &mut NetGame,
    inputs: &[(NetInput, InputStatus)],
    twin_inputs: &[(NetInput, InputStatus)],
    expected: &[(usize, usize, PlayerOrderError)],
) {
    let same_sim = |a: &NetGame, b: &NetGame| {
        assert_eq!(a.frame(), b.frame());
        assert_eq!(a.simulator().state_hash(), b.simulator().state_hash());
        for p in 0..a.num_players() {
            assert_eq!(a.units_of(p), b.units_of(p));
        }
    };
    same_sim(game, twin);
    let (before, twin_before) = (game.rejected_orders(), twin.rejected_orders());
    let frame = game.frame();
    game.advance(inputs).unwrap();
    twin.advance(twin_inputs).unwrap();
    let got: Vec<_> = game
        .last_rejections()
        .iter()
        .map(|r| {
            assert_eq!(r.frame, frame);
            (r.player, r.slot, r.error.clone())
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(game.rejected_orders(), before + expected.len() as u64);
    assert_eq!(twin.rejected_orders(), twin_before);
    assert!(twin.last_rejections().is_empty());
    same_sim(game, twin);
}

/// `call` fails with `expected` and leaves `game` as it was.
fn fails_unchanged(
    game: &mut NetGame,
    expected: NetError,
    call: impl FnOnce(&mut NetGame) -> Result<(), NetError>,
) {
    let (checksum, frame) = (game.checksum(), game.frame());
    assert_eq!(call(game), Err(expected));
    assert_eq!(game.checksum(), checksum);
    assert_eq!(game.frame(), frame);
}

/// Two agents crossing; at tick 5 the scene adds a third (id 2), at tick 8 it removes agent 0.
const EVENT_SCENE: &str = r#"
time_step = 0.25
max_ticks = 100

[[agent]]
start = [-10, 0]
goal = [10, 0]

[[agent]]
start = [10, 5]
goal = [-10, 5]

[[event]]
tick = 5
add_agent = { start = [0, 20], goal = [0, -20] }

[[event]]
tick = 8
remove_agent = 0
"#;

fn event_game() -> NetGame {
    NetGame::from_scenario(&Scenario::from_toml_str(EVENT_SCENE).unwrap(), 2).unwrap()
}

#[test]
fn setup_errors_are_bad_player_sim_scenario_and_bad_input_length() {
    let sim = || Simulator::new(SimulatorParams::default()).unwrap();
    assert_eq!(NetGame::new(sim(), 0).err(), Some(NetError::BadPlayer(0)));
    assert_eq!(NetGame::new(sim(), 65).err(), Some(NetError::BadPlayer(65)));
    assert!(NetGame::new(sim(), 64).is_ok());
    let mut game = two_unit_game();
    fails_unchanged(&mut game, NetError::BadPlayer(2), |g| {
        g.assign(AgentId(0), 2)
    });
    fails_unchanged(
        &mut game,
        NetError::Sim(SimError::UnknownAgent(AgentId(9))),
        |g| g.assign(AgentId(9), 0),
    );
    assert_eq!(game.owner(AgentId(0)), Some(0));
    // A scene that does not build (a zero time step), and a good scene with no players.
    let mut scene = Scenario::from_toml_str(EVENT_SCENE).unwrap();
    assert_eq!(
        NetGame::from_scenario(&scene, 0).err(),
        Some(NetError::BadPlayer(0))
    );
    scene.time_step = Fx::ZERO;
    match NetGame::from_scenario(&scene, 2) {
        Err(NetError::Scenario(message)) => assert!(message.contains("time_step"), "{message}"),
        other => panic!("{other:?}"),
    }
    // Only 68 bytes are an input.
    for n in [0, 3, INPUT_WIRE_BYTES - 1, INPUT_WIRE_BYTES + 1] {
        assert_eq!(
            NetInput::from_bytes(&vec![0; n]),
            Err(NetError::BadInputLength(n))
        );
    }
    assert_eq!(
        NetInput::from_bytes(&[0; INPUT_WIRE_BYTES]),
        Ok(NetInput::default())
    );
}

#[test]
fn the_frame_counter_ends_at_u32_max_minus_one_with_frame_limit() {
    let mut game = two_unit_game();
    game.set_hash_interval(1);
    // 2³² advances away otherwise (ggrs frames are i32, so a ggrs session never gets here).
    game.set_frame_for_test(u32::MAX - 2);
    game.advance(&[idle(), idle()]).unwrap();
    assert_eq!(game.frame(), u32::MAX - 1);
    fails_unchanged(&mut game, NetError::FrameLimit, |g| {
        g.advance(&[idle(), idle()])
    });
    // The last frame's hash report still names it (its tag, frame + 1, fits).
    let checksum = game.recorded_checksum(u32::MAX - 1).unwrap();
    assert_eq!(checksum, game.checksum());
    let report = NetInput::default().with_hash(game.frame(), checksum);
    assert_eq!(
        report.reported_hash(),
        Some((u32::MAX - 1, checksum as u64))
    );
}

#[test]
fn a_failed_step_is_net_error_sim_and_leaves_the_game_unchanged() {
    // An agent half a unit from the domain's edge, heading out at 2 units/s (0.5 per tick).
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let edge = Fx::from_num(1_000_000);
    let a = sim
        .add_agent(Vec2::new(edge - Fx::lit("0.5"), Fx::ZERO))
        .unwrap();
    sim.set_agent_velocity(a, Vec2::from_int(2, 0)).unwrap();
    sim.set_agent_pref_velocity(a, Vec2::from_int(2, 0))
        .unwrap();
    let mut game = NetGame::new(sim, 2).unwrap();
    game.assign(a, 0).unwrap();
    game.advance(&[idle(), idle()]).unwrap();
    assert_eq!(
        game.simulator().agent_position(a).unwrap(),
        Vec2::new(edge, Fx::ZERO)
    );
    fails_unchanged(
        &mut game,
        NetError::Sim(SimError::AgentLeftDomain(a)),
        |g| g.advance(&[idle(), idle()]),
    );
}

#[test]
fn a_full_waypoint_queue_is_queue_full() {
    let u = AgentId(0);
    let far = |i: i32| Vec2::from_int(200 + i, 0);
    let queue = |i: i32| PlayerOrder::QueueMove {
        unit: u,
        goal: far(i),
    };
    let history = || {
        let mut game = two_unit_game();
        // A goal and MAX_WAYPOINTS - 1 waypoints over 256 frames: a path one point short of
        // the simulator's bound (MAX_PATH_POINTS), sent four points a frame.
        let first = [
            PlayerOrder::MoveTo {
                unit: u,
                goal: far(0),
            },
            queue(1),
            queue(2),
            queue(3),
        ];
        game.advance(&[confirmed(&first), idle()]).unwrap();
        for f in 1..256 {
            let orders: Vec<_> = (0..4).map(|k| queue(f * 4 + k)).collect();
            game.advance(&[confirmed(&orders), idle()]).unwrap();
            assert!(game.last_rejections().is_empty());
        }
        assert_eq!(game.unit_path(u).len(), MAX_WAYPOINTS);
        game
    };
    assert_eq!(MAX_WAYPOINTS + 1, lockstep_orca::orders::MAX_PATH_POINTS);
    let (mut game, mut twin) = (history(), history());
    let w = MAX_WAYPOINTS as i32;
    // The last waypoint fits (goal + MAX_WAYPOINTS queued); the next, in the same frame, not.
    rejected_like_twin(
        &mut game,
        &mut twin,
        &[confirmed(&[queue(w), queue(w + 1)]), idle()],
        &[confirmed(&[queue(w)]), idle()],
        &[(0, 1, PlayerOrderError::QueueFull(u))],
    );
    assert_eq!(game.unit_path(u).len(), MAX_WAYPOINTS + 1);
    // A later frame reads the queue from the simulator's order: still full.
    rejected_like_twin(
        &mut game,
        &mut twin,
        &[confirmed(&[queue(w + 2)]), idle()],
        &[idle(), idle()],
        &[(0, 0, PlayerOrderError::QueueFull(u))],
    );
    assert_eq!(game.unit_path(u).last(), Some(&far(w)));
}

/// Passed waypoints count: the simulator bounds the whole path, so the adapter does too. A
/// path whose first waypoints the unit has passed (they are beside its start) is full at the
/// same point count, and the waypoint past the bound is refused at the adapter, never by the
/// simulator.
#[test]
fn passed_waypoints_count_towards_a_full_queue() {
    let u = AgentId(0);
    let point = |i: i32| {
        if i < 4 {
            Vec2::from_int(i + 1, 0)
        } else {
            Vec2::from_int(200 + i, 0)
        }
    };
    let queue = |i: i32| PlayerOrder::QueueMove {
        unit: u,
        goal: point(i),
    };
    let mut game = two_unit_game();
    let first = [
        PlayerOrder::MoveTo {
            unit: u,
            goal: point(0),
        },
        queue(1),
        queue(2),
        queue(3),
    ];
    game.advance(&[confirmed(&first), idle()]).unwrap();
    for f in 1..256 {
        let orders: Vec<_> = (0..4).map(|k| queue(f * 4 + k)).collect();
        game.advance(&[confirmed(&orders), idle()]).unwrap();
    }
    let w = MAX_WAYPOINTS as i32;
    game.advance(&[confirmed(&[queue(w)]), idle()]).unwrap();
    let order = game.simulator().agent_order(u).unwrap().unwrap().clone();
    assert_eq!(order.path().len(), MAX_WAYPOINTS + 1);
    assert!(order.progress() >= 4, "the first waypoints are passed");
    game.advance(&[confirmed(&[queue(w + 1)]), idle()]).unwrap();
    assert_eq!(
        game.last_rejections()
            .iter()
            .map(|r| r.error.clone())
            .collect::<Vec<_>>(),
        [PlayerOrderError::QueueFull(u)]
    );
    assert!(game.simulator().rejected_commands().is_empty());
}

/// A navigating unit's `QueueMove`s queue navigated legs, bounded as a path's waypoints
/// (`MAX_NAV_LEGS` = `MAX_WAYPOINTS`): the adapter counts the legs, in the frame and from the
/// simulator, and refuses the one past the bound before the simulator would.
#[test]
fn a_full_leg_queue_is_queue_full() {
    use lockstep_orca::navigation::{MAX_NAV_LEGS, NavParams};
    let u = AgentId(0);
    let far = |i: i32| Vec2::from_int(200 + i, 0);
    let queue = |i: i32| PlayerOrder::QueueMove {
        unit: u,
        goal: far(i),
    };
    let history = || {
        let mut game = two_unit_game();
        let mut sim = game.simulator().clone();
        let corner = |x: i32, y: i32| Vec2::from_int(x, y);
        sim.set_navigation(Some(NavParams {
            boundary: Some(vec![
                corner(-2000, -2000),
                corner(2000, -2000),
                corner(2000, 2000),
                corner(-2000, 2000),
            ]),
            ..NavParams::default()
        }))
        .unwrap();
        game = NetGame::new(sim, 2).unwrap();
        game.assign(u, 0).unwrap();
        game.assign(AgentId(1), 1).unwrap();
        let first = [
            PlayerOrder::NavigateTo {
                unit: u,
                goal: far(0),
            },
            queue(1),
            queue(2),
            queue(3),
        ];
        game.advance(&[confirmed(&first), idle()]).unwrap();
        for f in 1..256 {
            let orders: Vec<_> = (0..4).map(|k| queue(f * 4 + k)).collect();
            game.advance(&[confirmed(&orders), idle()]).unwrap();
            assert!(game.last_rejections().is_empty());
        }
        // Still on its first leg: every QueueMove is a leg, none a waypoint of its path.
        let sim = game.simulator();
        assert_eq!(sim.nav_status(u).unwrap().unwrap().goal(), far(0));
        assert_eq!(sim.nav_legs(u).unwrap().len(), MAX_NAV_LEGS - 1);
        game
    };
    assert_eq!(MAX_NAV_LEGS, MAX_WAYPOINTS);
    let (mut game, mut twin) = (history(), history());
    let w = MAX_WAYPOINTS as i32;
    rejected_like_twin(
        &mut game,
        &mut twin,
        &[confirmed(&[queue(w), queue(w + 1)]), idle()],
        &[confirmed(&[queue(w)]), idle()],
        &[(0, 1, PlayerOrderError::QueueFull(u))],
    );
    assert_eq!(game.simulator().nav_legs(u).unwrap().len(), MAX_NAV_LEGS);
    rejected_like_twin(
        &mut game,
        &mut twin,
        &[confirmed(&[queue(w + 2)]), idle()],
        &[idle(), idle()],
        &[(0, 0, PlayerOrderError::QueueFull(u))],
    );
    assert_eq!(game.simulator().nav_legs(u).unwrap().last(), Some(&far(w)));
    assert_eq!(game.simulator().rejected_commands().len(), 0);
}

#[test]
fn a_player_at_the_unit_limit_gets_unit_limit() {
    // Player 0 owns MAX_UNITS_PER_PLAYER agents (far apart, no neighbours); player 1 none.
    let history = || {
        let params = AgentParams {
            neighbor_dist: Fx::ZERO,
            max_neighbors: 0,
            ..AgentParams::default()
        };
        let mut sim = Simulator::new(SimulatorParams {
            agent_defaults: params,
            ..SimulatorParams::default()
        })
        .unwrap();
        let ids: Vec<_> = (0..MAX_UNITS_PER_PLAYER as i32)
            .map(|i| {
                sim.add_agent(Vec2::from_int(i % 64 * 4, i / 64 * 4))
                    .unwrap()
            })
            .collect();
        let mut game = NetGame::new(sim, 2).unwrap();
        for id in ids {
            game.assign(id, 0).unwrap();
        }
        game
    };
    let (mut game, mut twin) = (history(), history());
    let spawn = PlayerOrder::Spawn {
        position: Vec2::from_int(-50, 0),
    };
    // Player 0's spawn is refused; player 1's, in the same frame, is not (the limit is per
    // player).
    rejected_like_twin(
        &mut game,
        &mut twin,
        &[confirmed(&[spawn]), confirmed(&[spawn])],
        &[idle(), confirmed(&[spawn])],
        &[(0, 0, PlayerOrderError::UnitLimit)],
    );
    assert_eq!(game.units_of(0).len(), MAX_UNITS_PER_PLAYER);
    assert_eq!(game.units_of(1), [AgentId(MAX_UNITS_PER_PLAYER as u32)]);
}

#[test]
fn the_end_of_the_id_space_is_unit_limit() {
    // A snapshot whose id counter (payload bytes 24..28) is at the last id but one.
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_agent(Vec2::ZERO).unwrap();
    let mut bytes = sim.snapshot();
    bytes[HEADER_BYTES + 24..HEADER_BYTES + 28].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
    let end = bytes.len() - TRAILER_BYTES;
    let sum = lockstep_orca::hash::hash_bytes(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
    let history = || {
        let sim = Simulator::restore(&bytes).unwrap();
        assert_eq!(sim.next_agent_id(), AgentId(u32::MAX - 1));
        NetGame::new(sim, 2).unwrap()
    };
    let (mut game, mut twin) = (history(), history());
    let spawn = PlayerOrder::Spawn {
        position: Vec2::from_int(5, 5),
    };
    // The first spawn gets the last id; the second has none left.
    rejected_like_twin(
        &mut game,
        &mut twin,
        &[confirmed(&[spawn, spawn]), idle()],
        &[confirmed(&[spawn]), idle()],
        &[(0, 1, PlayerOrderError::UnitLimit)],
    );
    assert_eq!(game.owner(AgentId(u32::MAX - 1)), Some(0));
    assert!(game.simulator().contains_agent(AgentId(u32::MAX - 1)));
}

#[test]
fn a_spawn_before_the_scenes_last_add_is_spawn_during_scene_adds() {
    let (mut game, mut twin) = (event_game(), event_game());
    let spawn = PlayerOrder::Spawn {
        position: Vec2::from_int(0, -20),
    };
    // Frames 0..=5: the scene still adds agent 2 (at tick 5), so a spawn would take its id.
    for _ in 0..=5 {
        rejected_like_twin(
            &mut game,
            &mut twin,
            &[idle(), confirmed(&[spawn])],
            &[idle(), idle()],
            &[(1, 0, PlayerOrderError::SpawnDuringSceneAdds)],
        );
    }
    assert_eq!(game.owner(AgentId(2)), Some(0)); // the scene's agent 2, player 0's
    assert!(game.simulator().contains_agent(AgentId(2)));
    // From frame 6 on it is accepted, and gets the next id.
    game.advance(&[idle(), confirmed(&[spawn])]).unwrap();
    assert!(game.last_rejections().is_empty());
    assert_eq!(game.owner(AgentId(3)), Some(1));
    assert!(game.simulator().contains_agent(AgentId(3)));
}

#[test]
fn a_scene_command_the_simulator_refuses_is_player_order_error_sim() {
    let mut game = event_game();
    // Player 0 removes its unit 0 at frame 0; the scene's own removal of it comes at tick 8.
    game.advance(&[
        confirmed(&[PlayerOrder::Remove { unit: AgentId(0) }]),
        idle(),
    ])
    .unwrap();
    assert!(!game.simulator().contains_agent(AgentId(0)));
    for _ in 1..8 {
        game.advance(&[idle(), idle()]).unwrap();
        assert!(game.last_rejections().is_empty());
    }
    let before = game.checksum();
    game.advance(&[idle(), idle()]).unwrap();
    assert_eq!(
        game.last_rejections(),
        [Rejection {
            frame: 8,
            player: usize::MAX,
            slot: 0,
            error: PlayerOrderError::Sim(SimError::UnknownAgent(AgentId(0))),
        }]
    );
    // Not a player's order: not counted. Another game fed the same gets the same state.
    assert_eq!(game.rejected_orders(), 0);
    assert_ne!(game.checksum(), before);
    let mut other = event_game();
    other
        .advance(&[
            confirmed(&[PlayerOrder::Remove { unit: AgentId(0) }]),
            idle(),
        ])
        .unwrap();
    for _ in 1..9 {
        other.advance(&[idle(), idle()]).unwrap();
    }
    assert_eq!(other.checksum(), game.checksum());
    assert_eq!(other.last_rejections(), game.last_rejections());
}

//! The ggrs adapter (`lockstep_orca::netcode`): SyncTest on every golden scene, a deliberately
//! non-deterministic step caught, hostile inputs, orders, save/load, the lockstep hash
//! exchange, and the two-process example (`examples/ggrs_p2p.rs`) on loopback.

#[path = "netcode/p2p.rs"]
mod p2p;

use ggrs::{GgrsError, InputStatus, SessionBuilder};
use lockstep_orca::netcode::{
    INPUT_WIRE_BYTES, NetConfig, NetError, NetGame, NetInput, Order, OrderError, WireOrder, kind,
};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::{AgentId, Fx, Simulator, SimulatorParams, Vec2};
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
    let bad = Order::Stop {
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
    let orders: Vec<Order> = match frame {
        5 => vec![Order::MoveTo {
            unit: u,
            goal: p + off,
        }],
        9 => vec![
            Order::QueueMove { unit: u, goal: p },
            Order::SetPriority {
                unit: u,
                priority: 200,
            },
        ],
        // Another player's unit, or a unit that does not exist: skipped.
        13 => vec![bad],
        20 => vec![Order::Spawn {
            position: p + off + off,
        }],
        30 => vec![Order::Stop { unit: u }],
        40 if units.len() > 1 => vec![Order::Remove { unit: units[1].0 }],
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
    let theirs = Order::Stop { unit: AgentId(1) }.encode().unwrap();
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
            OrderError::OutOfDomain,
            OrderError::UnknownKind(77),
            OrderError::Malformed,
            OrderError::NotOwner(AgentId(1)),
        ]
    );
    assert_eq!(a.rejected_orders(), 4);
    // A point outside the domain cannot be encoded either.
    let out = Order::MoveTo {
        unit: AgentId(0),
        goal: Vec2::from_int(2_000_000, 0),
    };
    assert!(matches!(
        NetInput::from_orders(&[out]),
        Err(NetError::Order(OrderError::OutOfDomain))
    ));
    assert!(matches!(
        NetInput::from_orders(&[Order::Stop { unit: AgentId(0) }; 5]),
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
fn the_input_is_68_bytes_on_the_wire() {
    let order = Order::MoveTo {
        unit: AgentId(7),
        goal: Vec2::from_int(-3, 1000),
    };
    let input = NetInput::from_orders(&[order, Order::Stop { unit: AgentId(2) }])
        .unwrap()
        .with_hash(120, 0x0123_4567_89ab_cdef_0011_2233_4455_6677);
    let wire = bincode1::serialize(&input).unwrap();
    assert_eq!(wire.len(), INPUT_WIRE_BYTES);
    assert_eq!(INPUT_WIRE_BYTES, 68);
    assert_eq!(wire, input.to_bytes());
    assert_eq!(bincode1::deserialize::<NetInput>(&wire).unwrap(), input);
    assert_eq!(input.reported_hash(), Some((120, 0x0011_2233_4455_6677)));
    assert_eq!(input.orders[0].decode().unwrap(), Some(order));
    assert_eq!(NetInput::default().reported_hash(), None);
}

#[test]
fn orders_move_queue_stop_spawn_remove_and_prioritise() {
    let mut game = two_unit_game();
    let idle = (NetInput::default(), InputStatus::Confirmed);
    let send = |game: &mut NetGame, orders: &[Order]| {
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
            Order::MoveTo {
                unit: u,
                goal: Vec2::from_int(0, 10),
            },
            Order::QueueMove {
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
        &[Order::MoveTo {
            unit: u,
            goal: Vec2::from_int(50, 50),
        }],
    );
    send(&mut game, &[Order::Stop { unit: u }]);
    game.advance(&[idle, idle]).unwrap();
    assert_eq!(game.simulator().agent_pref_velocity(u).unwrap(), Vec2::ZERO);
    let next = game.simulator().next_agent_id();
    send(
        &mut game,
        &[
            Order::Spawn {
                position: Vec2::from_int(-40, 0),
            },
            Order::SetPriority {
                unit: u,
                priority: 3,
            },
        ],
    );
    assert!(game.simulator().contains_agent(next));
    assert_eq!(game.owner(next), Some(0));
    assert_eq!(game.simulator().agent_params(u).unwrap().priority, 3);
    send(&mut game, &[Order::Remove { unit: next }]);
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
    let order = NetInput::from_orders(&[Order::MoveTo {
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

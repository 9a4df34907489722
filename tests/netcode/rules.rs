//! A game's own state and rules inside the rollback (`GameRules`): a duel with hit points passes
//! SyncTest at check distance 7 while units fight and die, a variant that keeps a field outside
//! the rolled-back state is caught; the catalogue orders (unit types, models, buildings) with
//! their ownership and vertex budget; the match recording follows rollbacks and verifies.

use ggrs::{GgrsError, InputStatus, SessionBuilder};
use lockstep_orca::netcode::{
    Catalogue, GameRules, MAX_FRAME_VERTICES, NetConfig, NetGame, NetInput, Orders, PlayerOrder,
    PlayerOrderError, StateWriter, Turn,
};
use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::{
    AgentId, AgentModel, AgentParams, Command, Fx, ObstacleId, ObstacleShape, Simulator,
    SimulatorParams, Vec2,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Two units a side; each frame a unit loses one hit point per enemy within 4 units; a unit at
/// zero is removed by the rules. `leak`, when set, is a shot counter kept outside the state
/// (shared by every clone, so a load does not restore it) that the damage depends on.
#[derive(Clone, Debug)]
struct Duel {
    orders: Orders,
    hit_points: BTreeMap<AgentId, i32>,
    deaths: u32,
    leak: Option<Arc<Mutex<u64>>>,
}

impl GameRules for Duel {
    type Input = NetInput;

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(NetInput, InputStatus)]) {
        self.orders.step(turn, inputs);
        let extra = match &self.leak {
            Some(shots) => {
                let mut s = shots.lock().unwrap();
                *s += 1;
                i32::from(*s % 3 == 0)
            }
            None => 0,
        };
        let sim = turn.sim();
        let units: Vec<(AgentId, usize, Vec2)> = turn
            .units()
            .filter_map(|(id, o)| Some((id, o, sim.agent_position(id).ok()?)))
            .collect();
        let mut dead = Vec::new();
        for &(id, owner, p) in &units {
            let hits = units
                .iter()
                .filter(|&&(_, o, q)| o != owner && (q - p).length_squared_wide() < 16i128 << 64)
                .count() as i32;
            if let Some(hp) = self.hit_points.get_mut(&id) {
                *hp -= hits * (1 + extra);
                if *hp <= 0 {
                    dead.push(id);
                }
            }
        }
        for id in dead {
            self.hit_points.remove(&id);
            self.deaths += 1;
            turn.push(Command::RemoveAgent { id });
        }
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        self.orders.write_state(out);
        out.u32(self.hit_points.len() as u32);
        for (id, hp) in &self.hit_points {
            out.u32(id.0);
            out.i64(i64::from(*hp));
        }
        out.u32(self.deaths);
    }

    fn reported_hash(input: &NetInput) -> Option<(u32, u64)> {
        input.reported_hash()
    }
}

fn duel(leak: bool) -> NetGame<Duel> {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let mut owners = Vec::new();
    for (p, x) in [(0, -10), (1, 10)] {
        for y in [-1, 1] {
            owners.push((sim.add_agent(Vec2::from_int(x, y * 2)).unwrap(), p));
        }
    }
    let rules = Duel {
        orders: Orders::default(),
        hit_points: owners.iter().map(|&(id, _)| (id, 12)).collect(),
        deaths: 0,
        leak: leak.then(Arc::default),
    };
    let mut game = NetGame::with_rules(sim, 2, rules).unwrap();
    for (id, p) in owners {
        game.assign(id, p).unwrap();
    }
    game
}

/// Both sides charge at frame 2 and again at frame 40.
fn charge(game: &NetGame<Duel>, player: usize, frame: i32) -> NetInput {
    if frame != 2 && frame != 40 {
        return NetInput::default();
    }
    let orders: Vec<_> = game
        .units_of(player)
        .into_iter()
        .map(|unit| PlayerOrder::MoveTo {
            unit,
            goal: Vec2::from_int(0, 0),
        })
        .collect();
    NetInput::from_orders(&orders).unwrap()
}

/// SyncTest at check distance 7 for `frames` frames: `Err((frame, mismatched frames))` when
/// ggrs finds a checksum mismatch.
fn synctest(game: &mut NetGame<Duel>, frames: i32) -> Result<(), (i32, Vec<i32>)> {
    let mut session = SessionBuilder::<NetConfig<Duel>>::new()
        .with_num_players(2)
        .unwrap()
        .with_check_distance(7)
        .start_synctest_session()
        .unwrap();
    for frame in 0..frames {
        for p in 0..2 {
            session.add_local_input(p, charge(game, p, frame)).unwrap();
        }
        match session.advance_frame() {
            Ok(r) => game.handle_requests(r).unwrap(),
            Err(GgrsError::MismatchedChecksum {
                mismatched_frames, ..
            }) => return Err((frame, mismatched_frames)),
            Err(e) => panic!("{e}"),
        }
    }
    Ok(())
}

#[test]
fn a_game_with_hit_points_passes_synctest_at_check_distance_7() {
    let mut game = duel(false);
    game.start_recording(RecordOptions {
        checkpoint_interval: 10,
    });
    synctest(&mut game, 150).unwrap();
    assert_eq!(game.frame(), 150);
    // The fight happened inside the rollback: hit points fell, units died by the rules.
    let rules = game.rules();
    assert!(rules.deaths >= 1, "{rules:?}");
    assert_eq!(
        game.units_of(0).len() + game.units_of(1).len() + rules.deaths as usize,
        4
    );
    assert!(rules.hit_points.values().all(|&hp| hp < 12), "{rules:?}");
    // The recording followed every rollback: it is the final timeline, and it verifies.
    let rec = game.recorded_replay().unwrap();
    assert_eq!(rec.ticks(), 150);
    assert_eq!(rec.final_hash, game.simulator().state_hash());
    let report = replay::verify(&rec);
    assert!(report.is_match(), "{report}");
    let removals = rec
        .steps
        .iter()
        .flat_map(|s| &s.commands)
        .filter(|c| matches!(c, Command::RemoveAgent { .. }))
        .count();
    assert_eq!(removals, rules.deaths as usize);
}

#[test]
fn a_game_field_outside_the_rolled_back_state_is_caught() {
    let mut game = duel(true);
    let (frame, mismatched) = synctest(&mut game, 150).expect_err("the leak must be caught");
    assert!(
        frame < 150 && !mismatched.is_empty(),
        "{frame} {mismatched:?}"
    );
}

fn catalogue() -> Catalogue {
    let fast = AgentParams {
        max_speed: Fx::from_num(3),
        ..AgentParams::default()
    };
    let square = |s: i32| {
        ObstacleShape::Polygon(vec![
            Vec2::from_int(0, 0),
            Vec2::from_int(s, 0),
            Vec2::from_int(s, s),
            Vec2::from_int(0, s),
        ])
    };
    // A 600-vertex zigzag wall.
    let huge: Vec<Vec2> = (0..600).map(|k| Vec2::from_int(k, k % 2)).collect();
    Catalogue {
        unit_types: vec![(fast, AgentModel::default())],
        buildings: vec![square(4), ObstacleShape::Polyline(huge)],
    }
}

fn catalogue_game() -> NetGame {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    let b = sim.add_agent(Vec2::from_int(20, 0)).unwrap();
    let mut game = NetGame::with_rules(sim, 2, Orders::with_catalogue(catalogue())).unwrap();
    game.assign(a, 0).unwrap();
    game.assign(b, 1).unwrap();
    game
}

fn orders(list: &[PlayerOrder]) -> (NetInput, InputStatus) {
    (NetInput::from_orders(list).unwrap(), InputStatus::Confirmed)
}

fn idle() -> (NetInput, InputStatus) {
    (NetInput::default(), InputStatus::Confirmed)
}

#[test]
fn catalogue_orders_spawn_types_set_models_and_place_buildings_with_ownership() {
    let mut game = catalogue_game();
    let place = |x: i32, building: u8| PlayerOrder::PlaceBuilding {
        position: Vec2::from_int(x, 30),
        building,
    };
    game.advance(&[
        orders(&[
            PlayerOrder::SpawnType {
                position: Vec2::from_int(0, -20),
                unit_type: 0,
            },
            PlayerOrder::SetModel {
                unit: AgentId(1), // player 1's
                unit_type: 0,
            },
            place(0, 0),
            PlayerOrder::SpawnType {
                position: Vec2::from_int(5, -20),
                unit_type: 9,
            },
        ]),
        orders(&[place(10, 0), place(20, 1), place(30, 1)]),
    ])
    .unwrap();
    let rejected: Vec<_> = game
        .last_rejections()
        .iter()
        .map(|r| (r.player, r.slot, r.error.clone()))
        .collect();
    // The 600-vertex wall fits the frame's budget once, not twice.
    const { assert!(600 * 2 > MAX_FRAME_VERTICES) };
    assert_eq!(
        rejected,
        [
            (0, 1, PlayerOrderError::NotOwner(AgentId(1))),
            (0, 3, PlayerOrderError::UnknownType(9)),
            (1, 2, PlayerOrderError::VertexBudget(600)),
        ]
    );
    assert_eq!(game.rejected_orders(), 3);
    let spawned = AgentId(2);
    assert_eq!(game.owner(spawned), Some(0));
    assert_eq!(
        game.simulator().agent_params(spawned).unwrap().max_speed,
        Fx::from_num(3)
    );
    assert_eq!(game.simulator().obstacles().len(), 3);
    let (b0, b1, b2) = (ObstacleId(0), ObstacleId(1), ObstacleId(2));
    assert_eq!(
        [b0, b1, b2].map(|b| game.building_owner(b)),
        [Some(0), Some(1), Some(1)]
    );
    // A player removes only their own building.
    game.advance(&[
        orders(&[PlayerOrder::RemoveBuilding { building: b1 }]),
        orders(&[PlayerOrder::RemoveBuilding { building: b2 }]),
    ])
    .unwrap();
    assert_eq!(
        game.last_rejections()[0].error,
        PlayerOrderError::NotBuildingOwner(b1)
    );
    assert_eq!(game.simulator().obstacles().len(), 2);
    assert_eq!(game.building_owner(b2), None);
    // The unit-order path is unchanged by the catalogue: a model order on one's own unit.
    game.advance(&[
        orders(&[PlayerOrder::SetModel {
            unit: AgentId(0),
            unit_type: 0,
        }]),
        idle(),
    ])
    .unwrap();
    assert!(game.last_rejections().is_empty());
}

#[test]
fn a_building_outside_the_domain_or_degenerate_is_skipped_and_counted() {
    let mut bad = catalogue();
    bad.buildings.push(ObstacleShape::Polygon(vec![
        Vec2::from_int(0, 0),
        Vec2::from_int(1, 0),
    ]));
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    let mut game = NetGame::with_rules(sim, 1, Orders::with_catalogue(bad)).unwrap();
    game.assign(a, 0).unwrap();
    let edge = lockstep_orca::domain::MAX_COORD - Fx::ONE;
    game.advance(&[orders(&[
        PlayerOrder::PlaceBuilding {
            position: Vec2::from_int(0, 0),
            building: 2,
        },
        PlayerOrder::PlaceBuilding {
            position: Vec2::new(edge, edge),
            building: 0,
        },
    ])])
    .unwrap();
    assert_eq!(game.rejected_orders(), 2, "{:?}", game.last_rejections());
    assert!(
        game.last_rejections()
            .iter()
            .all(|r| matches!(r.error, PlayerOrderError::Sim(_))),
        "{:?}",
        game.last_rejections()
    );
    assert_eq!(game.simulator().obstacles().len(), 0);
}

#[test]
fn the_recording_of_a_match_with_a_building_verifies_and_a_changed_one_does_not() {
    let mut game = catalogue_game();
    game.start_recording(RecordOptions::default());
    for frame in 0..90 {
        let p0 = match frame {
            3 => orders(&[PlayerOrder::MoveTo {
                unit: AgentId(0),
                goal: Vec2::from_int(2, 40),
            }]),
            40 => orders(&[PlayerOrder::PlaceBuilding {
                position: Vec2::from_int(-2, 20),
                building: 0,
            }]),
            _ => idle(),
        };
        game.advance(&[p0, idle()]).unwrap();
    }
    let rec = game.recorded_replay().unwrap();
    assert!(replay::verify(&rec).is_match());
    let bytes = rec.to_bytes().unwrap();
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
    // The building is in the replay as a command; without it the re-run diverges at once.
    let mut tampered = rec.clone();
    let step = &mut tampered.steps[40];
    assert!(matches!(step.commands[..], [Command::AddObstacle { .. }]));
    step.commands.clear();
    let report = replay::verify(&tampered);
    assert_eq!(report.divergence().map(|d| d.tick), Some(41), "{report}");
}

#[test]
fn a_tampered_waypoint_in_a_recorded_match_is_named() {
    let mut game = catalogue_game();
    game.start_recording(RecordOptions {
        checkpoint_interval: 20,
    });
    let u = AgentId(0);
    for frame in 0..60 {
        let p0 = match frame {
            2 => orders(&[
                PlayerOrder::MoveTo {
                    unit: u,
                    goal: Vec2::from_int(0, 10),
                },
                PlayerOrder::QueueMove {
                    unit: u,
                    goal: Vec2::from_int(10, 10),
                },
                PlayerOrder::QueueMove {
                    unit: u,
                    goal: Vec2::from_int(10, 40),
                },
            ]),
            _ => idle(),
        };
        game.advance(&[p0, idle()]).unwrap();
    }
    let rec = game.recorded_replay().unwrap();
    assert!(replay::verify(&rec).is_match());
    // The last waypoint moved by one unit (the re-run follows the tampered command, the
    // checkpoint holds the recorded path): the agent has not gone near it by tick 20, so every
    // position matches, but the order does not.
    let mut tampered = rec.clone();
    let Command::QueueMove { goal, .. } = &mut tampered.steps[2].commands[2] else {
        panic!("{:?}", tampered.steps[2].commands);
    };
    *goal = Vec2::from_int(11, 40);
    let report = replay::verify(&tampered);
    let d = report.divergence().expect("diverged");
    assert_eq!(d.tick, 3, "{report}");
    assert_eq!(d.agents_tick, Some(20));
    assert!(d.agents.is_empty(), "{report}");
    assert_eq!(
        d.orders,
        [replay::OrderDiff {
            id: u,
            field: replay::OrderField::Waypoint {
                index: 2,
                expected: Vec2::from_int(10, 40),
                actual: Vec2::from_int(11, 40),
            },
        }]
    );
    let text = report.to_string();
    assert!(
        text.contains("agent 0: order waypoint 2: expected (10, 40), actual (11, 40)"),
        "{text}"
    );
}

#[test]
fn recorded_orders_round_trip_through_the_file_with_unchanged_paths_shared() {
    let mut game = catalogue_game();
    game.start_recording(RecordOptions {
        checkpoint_interval: 5,
    });
    for frame in 0..40 {
        let p0 = match frame {
            1 => orders(&[PlayerOrder::MoveTo {
                unit: AgentId(0),
                goal: Vec2::from_int(-30, 3),
            }]),
            17 => orders(&[PlayerOrder::QueueMove {
                unit: AgentId(0),
                goal: Vec2::from_int(-30, 30),
            }]),
            _ => idle(),
        };
        let p1 = match frame {
            9 => orders(&[PlayerOrder::MoveTo {
                unit: AgentId(1),
                goal: Vec2::from_int(40, -2),
            }]),
            30 => orders(&[PlayerOrder::Stop { unit: AgentId(1) }]),
            _ => idle(),
        };
        game.advance(&[p0, p1]).unwrap();
    }
    let rec = game.recorded_replay().unwrap();
    // Orders appear, grow, and vanish across the checkpoints.
    let counts: Vec<usize> = rec
        .checkpoints
        .iter()
        .map(|c| c.orders.as_ref().unwrap().len())
        .collect();
    // (A checkpoint at tick t is after the step of tick t - 1: the stop of frame 30 shows at 35.)
    assert_eq!(counts, [1, 2, 2, 2, 2, 2, 1, 1], "{counts:?}");
    let bytes = rec.to_bytes().unwrap();
    assert_eq!(replay::Replay::from_bytes(&bytes).unwrap(), rec);
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
    // The last checkpoint's path of agent 0 is unchanged since the one before (one byte in
    // the file); claiming another one there writes it out and is caught, named.
    let mut claimed = rec.clone();
    let last = claimed.checkpoints.last_mut().unwrap();
    let order = &mut last.orders.as_mut().unwrap()[0];
    assert_eq!(order.id, AgentId(0));
    let real = order.path[1];
    order.path[1] = real + Vec2::from_int(0, 1);
    let report = replay::verify(&claimed);
    let d = report
        .divergence()
        .expect("a false checkpoint is a divergence");
    assert_eq!(d.tick, 40);
    assert_eq!(d.expected_hash, d.actual_hash);
    assert_eq!(
        d.orders[0].field,
        replay::OrderField::Waypoint {
            index: 1,
            expected: real + Vec2::from_int(0, 1),
            actual: real,
        }
    );
}

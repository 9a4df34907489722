//! The world commands ([`Command::SpawnAgent`], [`Command::AddObstacle`],
//! [`Command::RemoveObstacle`]): each applied through the queue with the ids its sender
//! predicts, each rejection (when queued and when applied) an `Err` that changes nothing, and a
//! failed step that undoes them to the byte.

use lockstep_orca::obstacle::{MAX_VERTICES, ObstacleId};
use lockstep_orca::{
    AgentId, AgentModel, AgentParams, Command, Fx, ObstacleShape, SimError, Simulator,
    SimulatorParams, Vec2,
};

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

fn square(x: i32, y: i32, s: i32) -> ObstacleShape {
    ObstacleShape::Polygon(vec![v(x, y), v(x + s, y), v(x + s, y + s), v(x, y + s)])
}

fn scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..4 {
        sim.add_agent(v(i * 3, -10)).unwrap();
    }
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(-20, 20), v(20, 20)]))
        .unwrap();
    sim
}

fn model() -> AgentModel {
    AgentModel {
        layers: 2,
        mask: 3,
        body_radius: Some(Fx::lit("0.25")),
        ..AgentModel::default()
    }
}

#[test]
fn obstacles_added_by_commands_get_the_ids_their_sender_predicts() {
    let mut sim = scene();
    let first = sim.obstacles().next_id();
    assert_eq!(first, ObstacleId(1));
    // Queued in any order relative to agent commands: the world commands run first, in
    // insertion order, so the two buildings get ids 1 and 2 and the removal of 1 (queued after
    // its add, for the same tick) finds it.
    sim.queue_command(
        0,
        Command::SetPrefVelocity {
            id: AgentId(0),
            v: v(1, 0),
        },
    )
    .unwrap();
    sim.queue_command(
        0,
        Command::AddObstacle {
            shape: square(-5, 0, 2),
        },
    )
    .unwrap();
    sim.queue_command(
        0,
        Command::AddObstacle {
            shape: ObstacleShape::Polyline(vec![v(5, 0), v(5, 4), v(8, 4)]),
        },
    )
    .unwrap();
    sim.queue_command(1, Command::RemoveObstacle { id: first })
        .unwrap();
    sim.step().unwrap();
    assert!(sim.rejected_commands().is_empty());
    let ids: Vec<ObstacleId> = sim.obstacles().iter().map(|(id, _)| id).collect();
    assert_eq!(ids, [ObstacleId(0), ObstacleId(1), ObstacleId(2)]);
    assert_eq!(sim.obstacles().shape(first).unwrap(), &square(-5, 0, 2));
    assert_eq!(sim.obstacles().next_id(), ObstacleId(3));
    // The building blocks the line of sight until it is removed.
    let r = Fx::lit("0.1");
    assert!(!sim.query_visibility(v(-10, 1), v(0, 1), r));
    sim.step().unwrap();
    assert!(sim.rejected_commands().is_empty());
    assert_eq!(
        sim.obstacles().shape(first),
        Err(SimError::UnknownObstacle(1))
    );
    assert!(sim.query_visibility(v(-10, 1), v(0, 1), r));
    assert_eq!(sim.obstacles().next_id(), ObstacleId(3));
}

#[test]
fn a_spawned_agent_has_its_parameters_and_model() {
    let mut sim = scene();
    let params = AgentParams {
        radius: Fx::lit("0.75"),
        max_speed: Fx::from_num(3),
        priority: 2,
        ..AgentParams::default()
    };
    let id = sim.next_agent_id();
    sim.queue_command(
        0,
        Command::SpawnAgent {
            position: v(0, 5),
            params,
            model: model(),
        },
    )
    .unwrap();
    // A command for the new agent in the same tick, as for AddAgent.
    sim.queue_command(0, Command::MoveTo { id, goal: v(0, 10) })
        .unwrap();
    sim.step().unwrap();
    assert!(sim.rejected_commands().is_empty());
    assert_eq!(sim.agent_params(id).unwrap(), params);
    assert_eq!(sim.agent_model(id).unwrap(), model());
    assert!(sim.agent_order(id).unwrap().is_some());
    // Outside the queue too.
    let other = sim
        .apply(&Command::SpawnAgent {
            position: v(4, 5),
            params,
            model: model(),
        })
        .unwrap();
    assert_eq!(other, Some(AgentId(id.0 + 1)));
    assert_eq!(sim.agent_model(AgentId(id.0 + 1)).unwrap(), model());
}

/// What a refusal must look like.
type Expected = fn(&SimError) -> bool;

/// Every way a world command is refused when queued: an `Err` naming the reason, nothing
/// queued, the state (and so its hash) unchanged.
#[test]
fn hostile_world_commands_are_refused_when_queued() {
    let mut sim = scene();
    sim.remove_obstacle(ObstacleId(0)).unwrap();
    let hash = sim.state_hash();
    let far = Fx::from_num(2_000_000);
    let many: Vec<Vec2> = (0..=MAX_VERTICES as i32)
        .map(|i| Vec2::from_int(i, i * i % 7))
        .collect();
    let cases: Vec<(Command, Expected)> = vec![
        (
            // Collinear: a polygon of no area.
            Command::AddObstacle {
                shape: ObstacleShape::Polygon(vec![v(0, 0), v(1, 1), v(2, 2)]),
            },
            |e| matches!(e, SimError::InvalidObstacle(w) if w.contains("collinear")),
        ),
        (
            Command::AddObstacle {
                shape: ObstacleShape::Polyline(vec![v(0, 0)]),
            },
            |e| matches!(e, SimError::InvalidObstacle(w) if w.contains("fewer than 2")),
        ),
        (
            Command::AddObstacle {
                shape: ObstacleShape::Polygon(vec![v(0, 0), v(2, 2), v(2, 0), v(0, 2)]),
            },
            |e| matches!(e, SimError::InvalidObstacle(w) if w.contains("self-intersection")),
        ),
        (
            Command::AddObstacle {
                shape: ObstacleShape::Polyline(vec![v(0, 0), Vec2::new(far, Fx::ZERO)]),
            },
            |e| {
                matches!(
                    e,
                    SimError::OutOfDomain {
                        what: "obstacle vertex",
                        ..
                    }
                )
            },
        ),
        (
            Command::AddObstacle {
                shape: ObstacleShape::Polyline(many),
            },
            |e| matches!(e, SimError::InvalidObstacle(w) if w.contains("4,096")),
        ),
        (
            // A removed obstacle never comes back.
            Command::RemoveObstacle { id: ObstacleId(0) },
            |e| *e == SimError::UnknownObstacle(0),
        ),
        (
            Command::SpawnAgent {
                position: Vec2::new(far, Fx::ZERO),
                params: AgentParams::default(),
                model: AgentModel::default(),
            },
            |e| {
                matches!(
                    e,
                    SimError::OutOfDomain {
                        what: "position",
                        ..
                    }
                )
            },
        ),
        (
            Command::SpawnAgent {
                position: v(0, 0),
                params: AgentParams::default(),
                model: AgentModel {
                    body_radius: Some(Fx::from_num(5_000)),
                    ..AgentModel::default()
                },
            },
            |e| matches!(e, SimError::OutOfDomain { .. }),
        ),
    ];
    for (command, expected) in cases {
        let err = sim.queue_command(0, command.clone()).unwrap_err();
        assert!(expected(&err), "{command:?}: {err:?}");
        // The same refusal outside the queue.
        let err = sim.apply(&command).unwrap_err();
        assert!(expected(&err), "{command:?} applied: {err:?}");
    }
    assert!(sim.pending_commands().is_empty());
    assert_eq!(sim.state_hash(), hash);
}

/// The pending obstacle commands together hold at most MAX_OBSTACLE_VERTICES vertices.
#[test]
fn pending_obstacle_vertices_are_bounded() {
    const N: usize = 64;
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    // A polyline zigzag (valid: no edge crosses another).
    let zigzag = ObstacleShape::Polyline((0..N as i32).map(|i| Vec2::from_int(i, i % 2)).collect());
    let fits = lockstep_orca::domain::MAX_OBSTACLE_VERTICES / N;
    for k in 0..fits {
        sim.queue_command(
            k as u64,
            Command::AddObstacle {
                shape: zigzag.clone(),
            },
        )
        .unwrap();
    }
    assert_eq!(
        sim.pending_commands().obstacle_vertices(),
        lockstep_orca::domain::MAX_OBSTACLE_VERTICES
    );
    let hash = sim.state_hash();
    let err = sim
        .queue_command(0, Command::AddObstacle { shape: zigzag })
        .unwrap_err();
    assert!(matches!(
        err,
        SimError::OutOfDomain {
            what: "pending obstacle vertices",
            ..
        }
    ));
    assert_eq!(sim.state_hash(), hash);
    // Applying them frees the room.
    sim.step().unwrap();
    assert_eq!(sim.pending_commands().obstacle_vertices(), (fits - 1) * N);
    sim.clear_pending_commands();
    assert_eq!(sim.pending_commands().obstacle_vertices(), 0);
}

/// A world command that was valid when queued but not when its tick came is skipped, recorded
/// with its reason, and changes nothing.
#[test]
fn world_commands_invalid_when_applied_are_skipped_and_recorded() {
    let mut sim = scene();
    let mut reference = sim.clone();
    // Obstacle 5 does not exist yet: accepted when queued (an add queued later may create it),
    // rejected when applied. Obstacle 0 is removed twice in one tick: the second is skipped.
    sim.queue_command(0, Command::RemoveObstacle { id: ObstacleId(5) })
        .unwrap();
    sim.queue_command(0, Command::RemoveObstacle { id: ObstacleId(0) })
        .unwrap();
    sim.queue_command(0, Command::RemoveObstacle { id: ObstacleId(0) })
        .unwrap();
    sim.step().unwrap();
    let rejected: Vec<_> = sim.rejected_commands().iter().map(|r| &r.error).collect();
    assert_eq!(
        rejected,
        [&SimError::UnknownObstacle(5), &SimError::UnknownObstacle(0)]
    );
    assert_eq!(sim.rejected_commands()[0].tick, 0);
    assert_eq!(
        sim.rejected_commands()[1].command,
        Command::RemoveObstacle { id: ObstacleId(0) }
    );
    assert_eq!(sim.step_stats().commands_rejected, 2);
    reference.remove_obstacle(ObstacleId(0)).unwrap();
    reference.step().unwrap();
    assert_eq!(sim.state_hash(), reference.state_hash());
}

/// A step that fails after applying world commands leaves every byte of the state as it was:
/// the added obstacles and agents gone, the removed obstacle back, the id counters restored.
#[test]
fn a_failed_step_undoes_world_commands_to_the_byte() {
    let edge = Fx::from_num(1_000_000);
    let mut sim = scene();
    let runner = sim
        .add_agent(Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
        .unwrap();
    // One step first, so the obstacle tree the failed step must restore is a built one.
    sim.step().unwrap();
    sim.set_agent_velocity(runner, v(2, 0)).unwrap();
    let tick = sim.tick();
    let world = [
        Command::SetPrefVelocity {
            id: runner,
            v: v(2, 0),
        },
        Command::AddObstacle {
            shape: square(-5, 0, 2),
        },
        Command::RemoveObstacle { id: ObstacleId(0) },
        Command::AddObstacle {
            shape: ObstacleShape::Polyline(vec![v(5, 0), v(5, 4)]),
        },
        Command::SpawnAgent {
            position: v(0, 5),
            params: AgentParams::default(),
            model: model(),
        },
        Command::SetModel {
            id: AgentId(1),
            model: model(),
        },
        Command::SetPriority {
            id: AgentId(2),
            priority: 9,
        },
    ];
    for c in &world {
        sim.queue_command(tick, c.clone()).unwrap();
    }
    let (hash, bytes) = (sim.state_hash(), sim.snapshot());
    let obstacles = sim.obstacles().clone();
    assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(runner)));
    assert_eq!(sim.snapshot(), bytes);
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.obstacles().next_id(), obstacles.next_id());
    assert!(sim.obstacles().iter().eq(obstacles.iter()));
    assert_eq!(sim.pending_commands().len(), world.len());
    // Turned round, the same tick applies them all.
    sim.set_agent_velocity(runner, v(-2, 0)).unwrap();
    sim.clear_pending_commands();
    for c in &world[1..] {
        sim.queue_command(tick, c.clone()).unwrap();
    }
    sim.step().unwrap();
    assert!(sim.rejected_commands().is_empty());
    let ids: Vec<ObstacleId> = sim.obstacles().iter().map(|(id, _)| id).collect();
    assert_eq!(ids, [ObstacleId(1), ObstacleId(2)]);
    assert_eq!(sim.agent_model(AgentId(5)).unwrap(), model());
    assert_eq!(sim.agent_params(AgentId(2)).unwrap().priority, 9);
}

/// The scenario events `add_obstacle` and `remove_obstacle`: parsed into events and commands
/// with the documented ids, and refused with the place named when wrong.
#[cfg(feature = "scenario")]
mod scenario_events {
    use lockstep_orca::obstacle::ObstacleId;
    use lockstep_orca::scenario::{EventAction, Scenario};
    use lockstep_orca::{Command, ObstacleShape, Vec2};

    const HEAD: &str = "time_step = 0.25\nagents = [{ start = [-10, 0], goal = [10, 0] }]\n\
                        [[obstacle]]\npolyline = [[-10, 5], [10, 5]]\n";

    fn parse(events: &str) -> Result<Scenario, String> {
        Scenario::from_toml_str(&format!("{HEAD}{events}")).map_err(|e| e.to_string())
    }

    #[test]
    fn obstacle_events_become_world_commands() {
        let s = parse(
            "[[event]]\ntick = 5\nadd_obstacle = { polygon = [[-1, -1], [1, -1], [0, 1]] }\n\
             [[event]]\ntick = 6\nadd_obstacle = { polyline = [[3, -3], [3, 3]] }\n\
             [[event]]\ntick = 9\nremove_obstacle = 1\n",
        )
        .unwrap();
        let triangle = ObstacleShape::Polygon(vec![
            Vec2::from_int(-1, -1),
            Vec2::from_int(1, -1),
            Vec2::from_int(0, 1),
        ]);
        assert_eq!(
            s.events[0].action,
            EventAction::AddObstacle(triangle.clone())
        );
        assert_eq!(
            s.events[2].action.command(),
            Some(Command::RemoveObstacle { id: ObstacleId(1) })
        );
        assert_eq!(s.events[2].action.target(), None);
        // Run through the driver, obstacle 1 (the triangle) exists from tick 5 to tick 9.
        let (mut sim, driver) = s.build().unwrap();
        for _ in 0..12 {
            let tick = sim.tick();
            driver.apply_events(&mut sim, tick).unwrap();
            sim.step().unwrap();
            let has = sim.obstacles().shape(ObstacleId(1)).is_ok();
            assert_eq!(has, (5..9).contains(&tick), "tick {tick}");
        }
        assert_eq!(sim.obstacles().next_id(), ObstacleId(3));
    }

    #[test]
    fn bad_obstacle_events_are_refused_naming_the_event() {
        for (events, expected) in [
            (
                "[[event]]\ntick = 1\nadd_obstacle = { polygon = [[0, 0], [1, 0]], \
                 polyline = [[0, 0], [1, 0]] }\n",
                "event #0 (tick 1): give exactly one of `polygon` or `polyline`",
            ),
            (
                "[[event]]\ntick = 1\nadd_obstacle = { polygon = [[0, 0], [1, 1], [2, 2]] }\n",
                "collinear",
            ),
            (
                "[[event]]\ntick = 1\nremove_obstacle = 1\n",
                "event #0 (tick 1): obstacle 1 does not exist at this point",
            ),
            (
                "[[event]]\ntick = 1\nremove_obstacle = 0\n[[event]]\ntick = 2\n\
                 remove_obstacle = 0\n",
                "event #1 (tick 2): obstacle 0 does not exist at this point",
            ),
            (
                "[[event]]\ntick = 1\nremove_obstacle = 0\nremove_agent = 0\n",
                "give exactly one of",
            ),
            (
                "[policy]\nkind = \"roadmap\"\nroadmap = [[0, 0]]\n\
                 [[event]]\ntick = 1\nremove_obstacle = 0\n",
                "obstacle events need the goal-seeking policy",
            ),
        ] {
            let err = parse(events).unwrap_err();
            assert!(err.contains(expected), "{events}: {err}");
        }
    }
}

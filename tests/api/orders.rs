//! Move orders ([`lockstep_orca::orders`]): the commands, the steering, the state they are (hash,
//! snapshot, rollback), and the saved states of [`SimState`].

use lockstep_orca::orders::MAX_PATH_POINTS;
use lockstep_orca::{
    AgentId, Command, Fx, ObstacleShape, SimError, SimState, Simulator, SimulatorParams, Steering,
    Vec2,
};

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// Two agents, 0 at (0, 0) and 1 at (20, 0), agent 0 ordered to (10, 0) then (10, 10).
fn ordered() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_agent(v(0, 0)).unwrap();
    sim.add_agent(v(20, 0)).unwrap();
    let a = AgentId(0);
    sim.apply(&Command::MoveTo {
        id: a,
        goal: v(10, 0),
    })
    .unwrap();
    sim.apply(&Command::QueueMove {
        id: a,
        goal: v(10, 10),
    })
    .unwrap();
    sim
}

#[test]
fn move_queue_and_stop_steer_the_agent() {
    let mut sim = ordered();
    let order = sim.agent_order(AgentId(0)).unwrap().unwrap().clone();
    assert_eq!(order.path(), &[v(10, 0), v(10, 10)]);
    assert_eq!(
        (order.start(), order.progress(), order.target()),
        (v(0, 0), 0, v(10, 0))
    );
    assert_eq!(sim.agent_order(AgentId(1)).unwrap(), None);
    // Default steering: each agent's max speed (2), towards the waypoint at full speed.
    sim.step().unwrap();
    assert_eq!(sim.agent_pref_velocity(AgentId(0)).unwrap(), v(2, 0));
    assert_eq!(sim.agent_pref_velocity(AgentId(1)).unwrap(), Vec2::ZERO);
    assert_eq!(sim.step_stats().ordered, 1);
    // It passes the waypoint and arrives at the goal, where it stays.
    for _ in 0..100 {
        sim.step().unwrap();
    }
    let order = sim.agent_order(AgentId(0)).unwrap().unwrap();
    assert_eq!(order.progress(), 1);
    let p = sim.agent_position(AgentId(0)).unwrap();
    assert!((p - v(10, 10)).length() < Fx::lit("0.01"), "{p:?}");
    // A preferred velocity set by hand is overwritten by the order at the next step ...
    sim.set_agent_pref_velocity(AgentId(0), v(0, 1)).unwrap();
    sim.step().unwrap();
    assert_ne!(sim.agent_pref_velocity(AgentId(0)).unwrap(), v(0, 1));
    // ... until Stop drops the order: preferred velocity zero, and then the hand's again.
    sim.apply(&Command::Stop { id: AgentId(0) }).unwrap();
    assert_eq!(sim.agent_order(AgentId(0)).unwrap(), None);
    assert_eq!(sim.agent_pref_velocity(AgentId(0)).unwrap(), Vec2::ZERO);
    sim.set_agent_pref_velocity(AgentId(0), v(0, 1)).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_pref_velocity(AgentId(0)).unwrap(), v(0, 1));
    // QueueMove without an order is a MoveTo from where the agent stands.
    let here = sim.agent_position(AgentId(0)).unwrap();
    sim.apply(&Command::QueueMove {
        id: AgentId(0),
        goal: v(0, 0),
    })
    .unwrap();
    let order = sim.agent_order(AgentId(0)).unwrap().unwrap();
    assert_eq!((order.start(), order.path()), (here, &[v(0, 0)][..]));
    // SetPriority changes that one parameter.
    sim.apply(&Command::SetPriority {
        id: AgentId(1),
        priority: 7,
    })
    .unwrap();
    assert_eq!(sim.agent_params(AgentId(1)).unwrap().priority, 7);
}

#[test]
fn steering_speed_slowdown_and_perturbation_are_applied() {
    let mut sim = ordered();
    sim.set_steering(Steering {
        speed: Some(Fx::ONE),
        slow_within: Some(Fx::ZERO),
        ..Steering::default()
    })
    .unwrap();
    sim.apply(&Command::MoveTo {
        id: AgentId(1),
        goal: v(20, 5),
    })
    .unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_pref_velocity(AgentId(0)).unwrap(), v(1, 0));
    assert_eq!(sim.agent_pref_velocity(AgentId(1)).unwrap(), v(0, 1));
    // slow_within 0 means full speed to the goal; RVO2's rule (the default) gives the
    // remaining vector once closer than the speed.
    let mut near = Simulator::new(SimulatorParams::default()).unwrap();
    let a = near.add_agent(v(0, 0)).unwrap();
    let goal = Vec2::new(Fx::lit("0.5"), Fx::ZERO);
    near.apply(&Command::MoveTo { id: a, goal }).unwrap();
    near.step().unwrap();
    assert_eq!(near.agent_pref_velocity(a).unwrap(), goal);
    // A perturbation is added to every ordered agent, and is part of the state.
    let before = sim.state_hash();
    let mut s = sim.steering();
    s.perturbation = Some(lockstep_orca::orders::Perturbation {
        seed: 9,
        magnitude: Fx::lit("0.01"),
        hash: lockstep_orca::orders::PerturbationHash::Nested,
    });
    sim.set_steering(s).unwrap();
    assert_ne!(sim.state_hash(), before);
    sim.step().unwrap();
    let pref = sim.agent_pref_velocity(AgentId(1)).unwrap();
    assert_ne!(pref, v(0, 1));
    assert!((pref - v(0, 1)).length() < Fx::lit("0.01"));
    // Out-of-domain steering is refused and changes nothing.
    let hash = sim.state_hash();
    for bad in [
        Steering {
            speed: Some(Fx::from_num(1001)),
            ..Steering::default()
        },
        Steering {
            slow_within: Some(Fx::DELTA),
            ..Steering::default()
        },
        Steering {
            waypoint_tolerance: Some(-Fx::ONE),
            ..Steering::default()
        },
    ] {
        assert!(matches!(
            sim.set_steering(bad),
            Err(SimError::OutOfDomain { .. })
        ));
    }
    assert_eq!(sim.state_hash(), hash);
}

#[test]
fn bad_orders_are_rejected_and_change_nothing() {
    let mut sim = ordered();
    let hash = sim.state_hash();
    let far = Vec2::new(Fx::from_num(1_000_001), Fx::ZERO);
    let cases = [
        (
            Command::MoveTo {
                id: AgentId(0),
                goal: far,
            },
            "goal",
        ),
        (
            Command::QueueMove {
                id: AgentId(0),
                goal: Vec2::new(Fx::MIN, Fx::ZERO),
            },
            "goal",
        ),
    ];
    for (c, what) in cases {
        assert!(matches!(sim.apply(&c), Err(SimError::OutOfDomain { what: w, .. }) if w == what));
        assert!(sim.queue_command(0, c).is_err());
    }
    let ghost = AgentId(9);
    for c in [
        Command::MoveTo {
            id: ghost,
            goal: v(1, 1),
        },
        Command::QueueMove {
            id: ghost,
            goal: v(1, 1),
        },
        Command::Stop { id: ghost },
        Command::SetPriority {
            id: ghost,
            priority: 1,
        },
    ] {
        assert_eq!(sim.apply(&c), Err(SimError::UnknownAgent(ghost)));
    }
    assert_eq!(sim.state_hash(), hash);
    // A path holds at most MAX_PATH_POINTS points.
    for k in 2..MAX_PATH_POINTS {
        sim.apply(&Command::QueueMove {
            id: AgentId(0),
            goal: v(k as i32, 0),
        })
        .unwrap();
    }
    let full = sim.state_hash();
    let more = Command::QueueMove {
        id: AgentId(0),
        goal: v(0, 0),
    };
    assert!(matches!(
        sim.apply(&more),
        Err(SimError::OutOfDomain {
            what: "order path",
            ..
        })
    ));
    assert_eq!(sim.state_hash(), full);
    // Queued, it is skipped when its tick comes, and said so.
    sim.queue_command(0, more).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.rejected_commands().len(), 1);
    assert_eq!(
        sim.agent_order(AgentId(0)).unwrap().unwrap().path().len(),
        MAX_PATH_POINTS
    );
}

#[test]
fn a_failed_step_undoes_orders_and_steering() {
    let mut sim = ordered();
    sim.step().unwrap();
    // Agent 1 about to leave the domain, and new orders queued for the failing tick.
    let edge = Fx::from_num(1_000_000);
    sim.set_agent_position(AgentId(1), Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
        .unwrap();
    sim.set_agent_velocity(AgentId(1), v(2, 0)).unwrap();
    sim.set_agent_pref_velocity(AgentId(1), v(2, 0)).unwrap();
    sim.set_agent_position(AgentId(0), v(11, 1)).unwrap(); // past the waypoint
    sim.queue_command(1, Command::Stop { id: AgentId(0) })
        .unwrap();
    sim.queue_command(
        1,
        Command::MoveTo {
            id: AgentId(0),
            goal: v(3, 3),
        },
    )
    .unwrap();
    sim.queue_command(1, Command::RemoveAgent { id: AgentId(0) })
        .unwrap();
    let (hash, bytes) = (sim.state_hash(), sim.snapshot());
    assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(AgentId(1))));
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.snapshot(), bytes);
    assert_eq!(sim.agent_order(AgentId(0)).unwrap().unwrap().progress(), 0);
    // Without the removal the stage runs and advances the order.
    sim.clear_pending_commands();
    sim.set_agent_velocity(AgentId(1), v(-2, 0)).unwrap();
    sim.set_agent_pref_velocity(AgentId(1), v(-2, 0)).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_order(AgentId(0)).unwrap().unwrap().progress(), 1);
    // Removing an agent drops its order.
    sim.remove_agent(AgentId(0)).unwrap();
    assert_eq!(sim.orders().len(), 0);
}

#[test]
fn orders_are_in_the_snapshot_and_the_hash_and_decoded_with_care() {
    let mut sim = ordered();
    sim.step().unwrap();
    let restored = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(restored.state_hash(), sim.state_hash());
    assert_eq!(
        restored.agent_order(AgentId(0)).unwrap(),
        sim.agent_order(AgentId(0)).unwrap()
    );
    // The order is hashed: another goal, another hash.
    let mut other = sim.clone();
    other
        .apply(&Command::MoveTo {
            id: AgentId(0),
            goal: v(10, 0),
        })
        .unwrap();
    assert_ne!(other.state_hash(), sim.state_hash());
    // Continuations agree.
    let mut restored = restored;
    for _ in 0..50 {
        sim.step().unwrap();
        restored.step().unwrap();
    }
    assert_eq!(restored.state_hash(), sim.state_hash());
}

/// A scene with a wall and orders, stepped some ticks.
fn scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(-5, 8), v(25, 8)]))
        .unwrap();
    for i in 0..12 {
        let id = sim.add_agent(v(i * 4 - 20, (i % 3) * 3)).unwrap();
        let goal = v(20 - i * 4, 4 - (i % 3) * 3);
        sim.apply(&Command::MoveTo { id, goal }).unwrap();
    }
    for _ in 0..10 {
        sim.step().unwrap();
    }
    sim
}

#[test]
fn saved_states_continue_bit_identically() {
    let mut sim = scene();
    let saved: SimState = sim.save_state();
    assert_eq!(saved.tick(), 10);
    assert_eq!(saved.state_hash(), sim.state_hash());
    assert_eq!(saved.state_hash128(), sim.state_hash128());
    let mut straight = Vec::new();
    for _ in 0..40 {
        sim.step().unwrap();
        straight.push(sim.state_hash());
    }
    // Load into the same simulator (a rollback), and into a fresh one: the same 40 ticks.
    sim.load_state(&saved);
    assert_eq!(sim.state_hash(), saved.state_hash());
    let mut fresh = Simulator::from_state(&saved);
    for h in &straight {
        sim.step().unwrap();
        fresh.step().unwrap();
        assert_eq!((sim.state_hash(), fresh.state_hash()), (*h, *h));
    }
    // Saving into a recycled state is the same save.
    let mut recycled = saved.clone();
    sim.save_state_into(&mut recycled);
    assert_eq!(recycled.state_hash(), sim.state_hash());
    // The obstacles are shared until one side changes them: the saved state keeps its own.
    let with_wall = sim.save_state();
    sim.add_obstacle(ObstacleShape::Polyline(vec![v(-5, -8), v(25, -8)]))
        .unwrap();
    assert_ne!(sim.state_hash(), with_wall.state_hash());
    sim.load_state(&with_wall);
    assert_eq!(sim.obstacles().len(), 1);
    assert_eq!(sim.state_hash(), with_wall.state_hash());
}

//! The API boundary: every value outside the documented domain is rejected with a specific
//! error and leaves the simulator's state (its canonical hash) unchanged.

use lockstep_orca::{AgentId, AgentParams, Fx, SimError, Simulator, SimulatorParams, Vec2};

fn sim_with_agents() -> (Simulator, AgentId) {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    sim.add_agent(Vec2::from_int(5, 0)).unwrap();
    sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0))
        .unwrap();
    sim.step().unwrap();
    (sim, a)
}

/// Runs a rejected call and checks the error and that the hash did not move.
fn rejected(call: impl FnOnce(&mut Simulator, AgentId) -> Result<(), SimError>) -> SimError {
    let (mut sim, a) = sim_with_agents();
    let before = sim.state_hash();
    let err = call(&mut sim, a).expect_err("call should be rejected");
    assert_eq!(
        sim.state_hash(),
        before,
        "rejected call changed the state: {err}"
    );
    err
}

fn out_of_domain(what: &str, err: SimError) {
    match err {
        SimError::OutOfDomain { what: w, .. } => assert_eq!(w, what),
        other => panic!("expected OutOfDomain({what}), got {other:?}"),
    }
}

#[test]
fn positions_outside_the_square_are_rejected_including_fx_min() {
    let edge = Fx::from_num(1_000_000);
    for bad in [
        Vec2::new(edge + Fx::DELTA, Fx::ZERO),
        Vec2::new(Fx::ZERO, -edge - Fx::DELTA),
        Vec2::new(Fx::MIN, Fx::ZERO),
        Vec2::new(Fx::MAX, Fx::MAX),
    ] {
        out_of_domain("position", rejected(|s, _| s.add_agent(bad).map(|_| ())));
        out_of_domain("position", rejected(|s, a| s.set_agent_position(a, bad)));
    }
    // The edge itself is inside.
    let (mut sim, a) = sim_with_agents();
    sim.set_agent_position(a, Vec2::new(edge, -edge)).unwrap();
}

#[test]
fn velocities_and_parameters_outside_the_domain_are_rejected() {
    let fast = Vec2::new(Fx::from_num(1001), Fx::ZERO);
    out_of_domain("velocity", rejected(|s, a| s.set_agent_velocity(a, fast)));
    out_of_domain(
        "pref_velocity",
        rejected(|s, a| s.set_agent_pref_velocity(a, Vec2::new(Fx::MIN, Fx::ZERO))),
    );
    out_of_domain("radius", rejected(|s, a| s.set_agent_radius(a, Fx::ZERO)));
    out_of_domain(
        "max_speed",
        rejected(|s, a| s.set_agent_max_speed(a, -Fx::ONE)),
    );
    out_of_domain(
        "max_neighbors",
        rejected(|s, a| s.set_agent_max_neighbors(a, 1025)),
    );
    out_of_domain(
        "time_horizon",
        rejected(|s, a| s.set_agent_time_horizon(a, Fx::ZERO)),
    );
    out_of_domain("time_step", rejected(|s, _| s.set_time_step(Fx::ZERO)));
}

#[test]
fn velocity_scale_ratios_are_enforced() {
    // radius 1000 with time step 0.25: 4,000 units/s is inside; with 0.2: 5,000 is not.
    let (mut sim, a) = sim_with_agents();
    sim.set_agent_params(
        a,
        AgentParams {
            radius: Fx::from_num(1000),
            time_horizon: Fx::from_num(10),
            time_horizon_obst: Fx::from_num(10),
            ..AgentParams::default()
        },
    )
    .unwrap();
    let before = sim.state_hash();
    assert_eq!(
        sim.set_time_step(Fx::lit("0.2")),
        Err(SimError::VelocityScale {
            ratio: "radius / time_step",
            limit: lockstep_orca::domain::MAX_VELOCITY_SCALE,
        })
    );
    assert_eq!(sim.state_hash(), before);
    assert_eq!(
        rejected(|s, a| s.set_agent_params(
            a,
            AgentParams {
                neighbor_dist: Fx::from_num(10_000),
                time_horizon: Fx::ONE,
                ..AgentParams::default()
            }
        )),
        SimError::VelocityScale {
            ratio: "neighbor_dist / time_horizon",
            limit: lockstep_orca::domain::MAX_VELOCITY_SCALE,
        }
    );
}

#[test]
fn unknown_and_removed_ids_are_rejected() {
    let (mut sim, a) = sim_with_agents();
    sim.remove_agent(a).unwrap();
    assert_eq!(sim.agent_position(a), Err(SimError::UnknownAgent(a)));
    assert_eq!(sim.remove_agent(a), Err(SimError::UnknownAgent(a)));
    // Ids are never reused.
    let b = sim.add_agent(Vec2::ZERO).unwrap();
    assert_eq!(b, AgentId(2));
}

#[test]
fn a_step_leaving_the_square_fails_and_changes_nothing() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let edge = Fx::from_num(1_000_000);
    let a = sim
        .add_agent(Vec2::new(edge - Fx::lit("0.1"), Fx::ZERO))
        .unwrap();
    let b = sim
        .add_agent(Vec2::new(edge - Fx::from_num(5), Fx::ZERO))
        .unwrap();
    sim.set_agent_pref_velocity(a, Vec2::from_int(2, 0))
        .unwrap();
    let before = sim.state_hash();
    assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(a)));
    assert_eq!(sim.state_hash(), before);
    assert_eq!(sim.tick(), 0);
    // The failed step's neighbour lists are not reported...
    assert_eq!(sim.agent_neighbors(a), Ok(vec![]));
    // ...a successful one's are.
    sim.set_agent_pref_velocity(a, Vec2::ZERO).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_neighbors(a), Ok(vec![b]));
}

#[test]
fn obstacles_with_too_many_vertices_are_rejected() {
    use lockstep_orca::ObstacleShape;
    let (mut sim, _) = sim_with_agents();
    let before = sim.state_hash();
    let wiggle: Vec<Vec2> = (0..4097).map(|i| Vec2::from_int(i, i % 2)).collect();
    assert_eq!(
        sim.add_obstacle(ObstacleShape::Polyline(wiggle.clone())),
        Err(SimError::InvalidObstacle(
            "more than 4,096 vertices in one obstacle"
        ))
    );
    assert_eq!(sim.state_hash(), before);
    // 4,096 is accepted.
    sim.add_obstacle(ObstacleShape::Polyline(wiggle[..4096].to_vec()))
        .unwrap();
}

//! `snapshot::diff`: two states restored from snapshots, each changed in one place, name exactly
//! that place (scope, field and both values).

use lockstep_orca::snapshot::{self, Difference, Scope};
use lockstep_orca::{
    AgentId, AgentModel, AgentParams, Command, Fx, Liveness, ObstacleShape, Simulator,
    SimulatorParams, Vec2,
};

fn scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..5 {
        sim.add_agent(Vec2::from_int(4 * i, i % 2)).unwrap();
    }
    sim.add_obstacle(ObstacleShape::Polygon(vec![
        Vec2::from_int(0, 10),
        Vec2::from_int(4, 10),
        Vec2::from_int(4, 14),
    ]))
    .unwrap();
    sim.queue_command(
        3,
        Command::SetPrefVelocity {
            id: AgentId(1),
            v: Vec2::from_int(1, 0),
        },
    )
    .unwrap();
    sim
}

/// A snapshot round trip of `sim` (diff compares what the files hold).
fn through_bytes(sim: &Simulator) -> Simulator {
    Simulator::restore(&sim.snapshot()).unwrap()
}

fn only(d: &snapshot::SnapshotDiff) -> &Difference {
    assert_eq!(d.differences.len(), 1, "{d}");
    &d.differences[0]
}

#[test]
fn identical_states_have_no_difference() {
    let a = scene();
    let d = snapshot::diff(&a, &through_bytes(&a));
    assert!(d.is_empty(), "{d}");
    assert_eq!(d.to_string(), "");
}

#[test]
fn each_changed_field_is_named_exactly() {
    let a = scene();
    let mut b = a.clone();
    b.set_agent_velocity(AgentId(3), Vec2::new(Fx::from_bits(1), Fx::ZERO))
        .unwrap();
    let d = snapshot::diff(&a, &through_bytes(&b));
    let x = only(&d);
    assert_eq!(x.scope, Scope::Agent(AgentId(3)));
    assert_eq!(x.field, "velocity");
    assert_eq!(
        (x.a.as_str(), x.b.as_str()),
        ("(0, 0)", "(0.0000000002, 0)")
    );
    assert_eq!(d.agents(), [AgentId(3)]);

    let mut b = a.clone();
    let mut p = b.agent_params(AgentId(2)).unwrap();
    p.radius = Fx::lit("1.25");
    b.set_agent_params(AgentId(2), p).unwrap();
    let x = snapshot::diff(&a, &b);
    let x = only(&x);
    assert_eq!(
        (x.scope, x.field.as_str(), x.a.as_str(), x.b.as_str()),
        (Scope::Agent(AgentId(2)), "params.radius", "1.5", "1.25")
    );

    let mut b = a.clone();
    b.remove_agent(AgentId(4)).unwrap();
    let d = snapshot::diff(&a, &b);
    let x = only(&d);
    assert_eq!(
        (x.scope, x.field.as_str(), x.b.as_str()),
        (Scope::Agent(AgentId(4)), "present", "absent")
    );
    assert_eq!(d.to_string(), "agent 4 present: at (16, 0) | absent\n");

    // The agent model (issue 14): each field by name, through a version 4 snapshot.
    let mut b = a.clone();
    b.set_agent_model(
        AgentId(1),
        AgentModel {
            max_accel: Some(Fx::lit("2.5")),
            ..AgentModel::default()
        },
    )
    .unwrap();
    let x = snapshot::diff(&a, &through_bytes(&b));
    let x = only(&x);
    assert_eq!(
        (x.scope, x.field.as_str(), x.a.as_str(), x.b.as_str()),
        (Scope::Agent(AgentId(1)), "model.max_accel", "none", "2.5")
    );
    let mut c = b.clone();
    c.set_agent_model(
        AgentId(1),
        AgentModel {
            max_accel: Some(Fx::lit("2.5")),
            mask: 6,
            ..AgentModel::default()
        },
    )
    .unwrap();
    let x = snapshot::diff(&b, &c);
    assert_eq!(only(&x).field, "model.mask");

    let mut b = a.clone();
    b.set_liveness(Liveness::Rvo2);
    let x = snapshot::diff(&a, &b);
    assert_eq!(only(&x).field, "liveness");

    let mut b = a.clone();
    b.set_agent_defaults(AgentParams {
        max_neighbors: 3,
        ..AgentParams::default()
    })
    .unwrap();
    let x = snapshot::diff(&a, &b);
    let x = only(&x);
    assert_eq!(
        (x.scope, x.field.as_str(), x.a.as_str(), x.b.as_str()),
        (Scope::Defaults, "max_neighbors", "10", "3")
    );
}

#[test]
fn obstacles_commands_and_time_are_compared() {
    let a = scene();
    let mut b = a.clone();
    b.remove_obstacle(lockstep_orca::ObstacleId(0)).unwrap();
    let d = snapshot::diff(&a, &b);
    let fields: Vec<(Scope, &str)> = d
        .differences
        .iter()
        .map(|x| (x.scope, x.field.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            (Scope::Obstacles, "count"),
            (Scope::Obstacle(lockstep_orca::ObstacleId(0)), "present")
        ]
    );

    let mut b = a.clone();
    b.clear_pending_commands();
    let d = snapshot::diff(&a, &b);
    let fields: Vec<&str> = d.differences.iter().map(|x| x.field.as_str()).collect();
    assert_eq!(fields, ["count", "pending[0]"]);
    assert!(
        d.differences[1].a.starts_with("tick 3 SetPrefVelocity"),
        "{d}"
    );
    assert_eq!(d.differences[1].b, "absent");

    let mut a2 = a.clone();
    let mut b = a.clone();
    a2.step().unwrap();
    b.step().unwrap();
    b.step().unwrap();
    let d = snapshot::diff(&a2, &b);
    assert_eq!(d.differences[0].field, "tick");
    assert_eq!(
        (d.differences[0].a.as_str(), d.differences[0].b.as_str()),
        ("1", "2")
    );
    assert_eq!(d.differences[1].field, "global_time");
}

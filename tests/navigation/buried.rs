//! Obstacles added over agents: with navigation on, the agents a new obstacle covers are moved
//! to the nearest walkable point for their radius when it is added (a queued
//! `Command::AddObstacle` in stage 1a of its tick, `add_obstacle` at once), so they never
//! jitter inside a building; without navigation they are left to their avoidance.

use lockstep_orca::navigation::NavParams;
use lockstep_orca::orders::OrderStatus;
use lockstep_orca::{AgentId, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2};

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// The building dropped on the group: `[-2, 2] × [-6, 6]`.
const BUILDING: (i32, i32, i32, i32) = (-2, -6, 2, 6);

fn building() -> ObstacleShape {
    let (x0, y0, x1, y1) = BUILDING;
    ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
}

/// How far `p` lies from the building (0 inside it): an oracle independent of the mesh,
/// in `f64` (test only).
#[allow(clippy::float_arithmetic)]
fn from_building(p: Vec2) -> f64 {
    let (x0, y0, x1, y1) = BUILDING;
    let (x, y) = (p.x.to_num::<f64>(), p.y.to_num::<f64>());
    let dx = (f64::from(x0) - x).max(x - f64::from(x1)).max(0.0);
    let dy = (f64::from(y0) - y).max(y - f64::from(y1)).max(0.0);
    dx.hypot(dy)
}

/// 24 agents (radius 0.5, time step 0.1) in a block 6 wide around the origin, navigating to
/// `(30, 0)` from `(-15, y)`: the building lands on the block's middle while it passes.
fn group(navigation: bool) -> Simulator {
    let mut params = SimulatorParams {
        time_step: Fx::lit("0.1"),
        ..SimulatorParams::default()
    };
    params.agent_defaults.radius = Fx::lit("0.5");
    params.agent_defaults.max_speed = Fx::lit("1.5");
    let mut sim = Simulator::new(params).unwrap();
    if navigation {
        sim.set_navigation(Some(NavParams {
            boundary: Some(vec![v(-40, -40), v(40, -40), v(40, 40), v(-40, 40)]),
            ..NavParams::default()
        }))
        .unwrap();
    }
    for i in 0..24 {
        let p = v(-15 + 2 * (i % 4), -7 + 2 * (i / 4) - (i % 4) / 2);
        let id = sim.add_agent(p).unwrap();
        sim.queue_command(
            0,
            Command::NavigateTo {
                id,
                goal: v(30, -7 + 2 * (i / 4)),
            },
        )
        .unwrap();
    }
    sim
}

/// Steps until the group's middle is at the building's place; returns the ids it covers.
fn under_the_building(sim: &mut Simulator) -> Vec<AgentId> {
    for _ in 0..400 {
        let covered: Vec<AgentId> = sim
            .agent_ids()
            .iter()
            .copied()
            .filter(|&id| from_building(sim.agent_position(id).unwrap()) < 0.5)
            .collect();
        if covered.len() >= 6 {
            return covered;
        }
        sim.step().unwrap();
    }
    panic!("the group never reached the building's place");
}

#[test]
fn a_building_dropped_on_units_moves_them_out_and_they_still_arrive() {
    let mut sim = group(true);
    let covered = under_the_building(&mut sim);
    // Some are deep inside it (their centres in the building), not only touching it.
    assert!(
        covered
            .iter()
            .any(|&id| from_building(sim.agent_position(id).unwrap()) == 0.0)
    );
    let mut direct = sim.clone();
    let mut restored = Simulator::restore(&sim.snapshot()).unwrap();

    // Queued: moved in stage 1a of the command's tick, before the avoidance.
    let tick = sim.tick();
    sim.queue_command(tick, Command::AddObstacle { shape: building() })
        .unwrap();
    sim.step().unwrap();
    assert_eq!(sim.step_stats().agents_freed, covered.len() as u64);
    for id in sim.agent_ids().to_vec() {
        let d = from_building(sim.agent_position(id).unwrap());
        assert!(d >= 0.499, "agent {id:?} is {d} from the building's face");
    }

    // Directly: moved by the call itself, to the same places; the next step then gives the
    // very state the queued command gave.
    direct.add_obstacle(building()).unwrap();
    for &id in &covered {
        let d = from_building(direct.agent_position(id).unwrap());
        assert!(d >= 0.5, "agent {id:?} left {d} from the building");
    }
    direct.step().unwrap();
    assert_eq!(direct.state_hash(), sim.state_hash());

    // The same tick from a snapshot continues bit-identically.
    restored
        .queue_command(tick, Command::AddObstacle { shape: building() })
        .unwrap();
    restored.step().unwrap();
    assert_eq!(restored.state_hash(), sim.state_hash());

    // Everyone goes round the building and arrives; nobody touches it again.
    let mut closest = f64::MAX;
    for _ in 0..1_200 {
        sim.step().unwrap();
        for id in sim.agent_ids().to_vec() {
            closest = closest.min(from_building(sim.agent_position(id).unwrap()));
        }
    }
    assert!(
        closest >= 0.499,
        "an agent came {closest} from the building"
    );
    for id in sim.agent_ids().to_vec() {
        assert_eq!(sim.order_status(id).unwrap(), Some(OrderStatus::Arrived));
    }
}

#[test]
fn without_navigation_a_building_dropped_on_units_moves_nobody() {
    let mut sim = group(false);
    let covered = under_the_building(&mut sim);
    let before: Vec<Vec2> = covered
        .iter()
        .map(|&id| sim.agent_position(id).unwrap())
        .collect();
    let mut direct = sim.clone();
    direct.add_obstacle(building()).unwrap();
    let after: Vec<Vec2> = covered
        .iter()
        .map(|&id| direct.agent_position(id).unwrap())
        .collect();
    assert_eq!(after, before);
    let tick = sim.tick();
    sim.queue_command(tick, Command::AddObstacle { shape: building() })
        .unwrap();
    sim.step().unwrap();
    assert_eq!(sim.step_stats().agents_freed, 0);
}

//! One domain for every entry point ([`lockstep_orca::domain`]): the simulator is walked to each
//! edge of the domain (time, tick, coordinates, ids, counts). At the edge a snapshot restores
//! and steps on; one step further fails with a clear error and changes nothing.

use lockstep_orca::domain::{MAX_AGENTS, MAX_OBSTACLE_VERTICES, MAX_PENDING_COMMANDS};
use lockstep_orca::orders::MAX_TOTAL_PATH_POINTS;
use lockstep_orca::snapshot::{HEADER_BYTES, TRAILER_BYTES};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, SimError, Simulator, SimulatorParams, Vec2,
};

/// `bytes` (a snapshot) with the payload bytes at `offset` replaced by `value`, re-checksummed:
/// a state no call sequence of this test could reach quickly, but one the domain allows.
fn patched(bytes: &[u8], offset: usize, value: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[HEADER_BYTES + offset..HEADER_BYTES + offset + value.len()].copy_from_slice(value);
    let end = b.len() - TRAILER_BYTES;
    let sum = lockstep_orca::hash::hash_bytes(&b[..end]);
    b[end..].copy_from_slice(&sum.to_le_bytes());
    b
}

/// Snapshot → restore gives the same state.
fn round_trip(sim: &Simulator) -> Simulator {
    let restored = Simulator::restore(&sim.snapshot()).expect("a reached state restores");
    assert_eq!(restored.state_hash(), sim.state_hash());
    restored
}

/// `sim.step()` fails with `expected` and changes nothing; the state still restores.
fn fails_unchanged(sim: &mut Simulator, expected: SimError) {
    let (hash, bytes) = (sim.state_hash(), sim.snapshot());
    assert_eq!(sim.step(), Err(expected));
    assert_eq!(sim.state_hash(), hash);
    assert_eq!(sim.snapshot(), bytes);
    round_trip(sim);
}

fn one_agent(dt: &str) -> Simulator {
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit(dt),
        ..SimulatorParams::default()
    })
    .unwrap();
    let a = sim.add_agent(Vec2::ZERO).unwrap();
    sim.apply(&Command::MoveTo {
        id: a,
        goal: Vec2::from_int(5, 0),
    })
    .unwrap();
    sim
}

#[test]
fn the_clock_runs_to_its_end_and_restores_there() {
    // Global time (payload bytes 8..16) one and a half steps before the end of the clock.
    let sim = one_agent("100");
    let near = Fx::MAX - Fx::from_num(150);
    let mut sim = Simulator::restore(&patched(&sim.snapshot(), 8, &near.to_bits().to_le_bytes()))
        .expect("any time the clock can show restores");
    sim.step().unwrap();
    assert_eq!(sim.global_time(), near + Fx::from_num(100));
    let mut sim = round_trip(&sim);
    fails_unchanged(
        &mut sim,
        SimError::OutOfDomain {
            what: "global_time",
            allowed: "below 2^31 seconds",
        },
    );
    // A negative time is no state the simulator can reach.
    let bad = patched(&sim.snapshot(), 8, &(-1i64).to_le_bytes());
    assert!(Simulator::restore(&bad).is_err());
}

#[test]
fn the_tick_counter_runs_to_its_end_and_restores_there() {
    let sim = one_agent("0.25");
    let mut sim =
        Simulator::restore(&patched(&sim.snapshot(), 0, &(u64::MAX - 1).to_le_bytes())).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.tick(), u64::MAX);
    let mut sim = round_trip(&sim);
    fails_unchanged(
        &mut sim,
        SimError::OutOfDomain {
            what: "tick",
            allowed: "below 2^64 - 1",
        },
    );
}

#[test]
fn an_agent_walks_to_the_edge_of_the_square_and_no_further() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let edge = Fx::from_num(1_000_000);
    let a = sim
        .add_agent(Vec2::new(edge - Fx::lit("0.5"), Fx::ZERO))
        .unwrap();
    sim.set_agent_velocity(a, Vec2::from_int(2, 0)).unwrap();
    sim.set_agent_pref_velocity(a, Vec2::from_int(2, 0))
        .unwrap();
    sim.step().unwrap();
    assert_eq!(sim.agent_position(a).unwrap(), Vec2::new(edge, Fx::ZERO));
    let mut sim = round_trip(&sim);
    fails_unchanged(&mut sim, SimError::AgentLeftDomain(a));
}

#[test]
fn the_id_space_ends_with_a_clear_error() {
    // next_id (payload bytes 24..28) at the last id: the snapshot restores, the add fails.
    let sim = one_agent("0.25");
    let mut sim =
        Simulator::restore(&patched(&sim.snapshot(), 24, &u32::MAX.to_le_bytes())).unwrap();
    let hash = sim.state_hash();
    assert_eq!(sim.add_agent(Vec2::ZERO), Err(SimError::TooManyAgents));
    assert_eq!(sim.state_hash(), hash);
    sim.step().unwrap();
    round_trip(&sim);
}

#[test]
fn the_counts_end_where_snapshots_still_restore() {
    // Agents: MAX_AGENTS alive (far apart, no neighbours), then one more is refused.
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
    for i in 0..MAX_AGENTS as i32 {
        sim.add_agent(Vec2::from_int(i % 1000 * 4 - 2000, i / 1000 * 4 - 2000))
            .unwrap();
    }
    let hash = sim.state_hash();
    assert_eq!(sim.add_agent(Vec2::ZERO), Err(SimError::TooManyAgents));
    let queued = Command::AddAgent {
        position: Vec2::ZERO,
        params,
    };
    sim.queue_command(0, queued).unwrap();
    sim.step().unwrap(); // the queued add is skipped, and said so
    assert_eq!(sim.rejected_commands()[0].error, SimError::TooManyAgents);
    assert_eq!(sim.num_agents(), MAX_AGENTS);
    assert_ne!(sim.state_hash(), hash);
    let mut restored = round_trip(&sim);
    restored.step().unwrap();

    // Path points: the orders of 4,096 agents hold MAX_TOTAL_PATH_POINTS in all.
    let per_agent = MAX_TOTAL_PATH_POINTS / 4096;
    for id in 0..4096 {
        let id = AgentId(id);
        sim.apply(&Command::MoveTo {
            id,
            goal: Vec2::ZERO,
        })
        .unwrap();
        for k in 1..per_agent {
            let goal = Vec2::from_int(k as i32, 0);
            sim.apply(&Command::QueueMove { id, goal }).unwrap();
        }
    }
    let hash = sim.state_hash();
    let more = Command::QueueMove {
        id: AgentId(5000),
        goal: Vec2::ZERO,
    };
    assert!(matches!(
        sim.apply(&more),
        Err(SimError::OutOfDomain {
            what: "order path points in all",
            ..
        })
    ));
    assert_eq!(sim.state_hash(), hash);
    // Freeing points makes room again.
    sim.apply(&Command::Stop { id: AgentId(0) }).unwrap();
    sim.apply(&more).unwrap();
    round_trip(&sim);
}

#[test]
fn pending_commands_and_obstacle_vertices_end_where_snapshots_still_restore() {
    let mut sim = one_agent("0.25");
    let stop = Command::Stop { id: AgentId(0) };
    for k in 0..MAX_PENDING_COMMANDS as u64 {
        sim.queue_command(1 + k / 64, stop.clone()).unwrap();
    }
    let hash = sim.state_hash();
    assert!(matches!(
        sim.queue_command(1, stop),
        Err(SimError::OutOfDomain {
            what: "pending commands",
            ..
        })
    ));
    assert_eq!(sim.state_hash(), hash);
    let mut restored = round_trip(&sim);
    restored.step().unwrap();

    // Obstacle vertices: 16,384 zig-zag polylines of 64 vertices each, then one more vertex
    // set is refused.
    let mut sim = one_agent("0.25");
    let per = 64;
    for row in 0..(MAX_OBSTACLE_VERTICES / per) as i32 {
        let (x0, y0) = (row % 128 * 200 - 12_800, row / 128 * 4 + 100);
        let line = (0..per as i32)
            .map(|i| Vec2::from_int(x0 + i * 2, y0 + i % 2))
            .collect();
        sim.add_obstacle(ObstacleShape::Polyline(line)).unwrap();
    }
    assert_eq!(sim.obstacles().num_vertices(), MAX_OBSTACLE_VERTICES);
    let hash = sim.state_hash();
    let extra = ObstacleShape::Polyline(vec![Vec2::from_int(0, -50), Vec2::from_int(3, -50)]);
    assert!(matches!(
        sim.add_obstacle(extra.clone()),
        Err(SimError::OutOfDomain {
            what: "obstacle vertices in all",
            ..
        })
    ));
    assert_eq!(sim.state_hash(), hash);
    let mut restored = round_trip(&sim);
    assert_eq!(restored.obstacles().num_vertices(), MAX_OBSTACLE_VERTICES);
    // The restored set counts its vertices too: removing one obstacle makes room for the extra.
    let first = restored.obstacles().iter().next().unwrap().0;
    restored.remove_obstacle(first).unwrap();
    restored.add_obstacle(extra).unwrap();
}

//! The numeric domain is safe at its edges: scenes built from extreme but valid parameters
//! (the largest radii, speeds, neighbour distances and velocity-scale ratios, the smallest
//! horizons, positions at the corners of the coordinate square, agents stacked on each other)
//! step without overflow. Tests run with overflow checks on (`fixed` panics on overflow when
//! debug assertions are on), so an overflow anywhere in the tick fails the property.

use lockstep_orca::{AgentParams, Fx, ObstacleShape, SimError, Simulator, SimulatorParams, Vec2};
use proptest::prelude::*;

/// Extreme parameter sets, each valid: (radius, max_speed, neighbor_dist, horizon, time_step).
fn extreme_params() -> impl Strategy<Value = (AgentParams, Fx)> {
    (0usize..5, 0u32..1025).prop_map(|(k, max_neighbors)| {
        let (radius, speed, dist, horizon, dt) = match k {
            // Largest radius at the velocity-scale limit: 1000 / 0.25 = 4000 units/s.
            0 => ("1000", "1000", "10000", "10", "0.25"),
            // Smallest radius and time step.
            1 => ("0.001", "1000", "4", "0.001", "0.001"),
            // Neighbour distance / horizon at the limit: 4096 / 1.
            2 => ("4", "1000", "4096", "1", "0.001"),
            // Huge horizon, tiny speed.
            3 => ("1", "0.001", "10000", "10000", "100"),
            // Radius / time step at the limit with everything else large.
            _ => ("409.6", "1000", "10000", "10000", "0.1"),
        };
        let p = AgentParams {
            neighbor_dist: dist.parse::<Fx>().unwrap(),
            max_neighbors,
            time_horizon: horizon.parse::<Fx>().unwrap(),
            time_horizon_obst: horizon.parse::<Fx>().unwrap(),
            radius: radius.parse::<Fx>().unwrap(),
            max_speed: speed.parse::<Fx>().unwrap(),
            priority: lockstep_orca::DEFAULT_PRIORITY,
        };
        (p, dt.parse::<Fx>().unwrap())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Stacked and overlapping agents at a corner of the domain, with extreme parameters and
    /// extreme velocities, near a wall: stepping never overflows and every new velocity stays
    /// within the agent's max speed (plus rounding).
    #[test]
    fn extreme_scenes_step_without_overflow(
        (params, dt) in extreme_params(),
        corner in 0usize..4,
        agents in proptest::collection::vec(
            ((-2000i64..2000, -2000i64..2000), (-1000i64..=1000, -1000i64..=1000)), 1..24),
        with_wall in any::<bool>(),
    ) {
        let mut sim = Simulator::new(SimulatorParams { time_step: dt, agent_defaults: params })
            .unwrap();
        let edge = 999_000i64;
        let (sx, sy) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][corner];
        let origin = Vec2::new(Fx::from_num(sx * edge), Fx::from_num(sy * edge));
        for ((dx, dy), (vx, vy)) in &agents {
            // Offsets in units of 1/8 (many exact overlaps), velocities in whole units.
            let p = origin + Vec2::from_bits(dx << 29, dy << 29);
            let id = sim.add_agent(p).unwrap();
            let v = Vec2::from_int(*vx as i32, *vy as i32);
            sim.set_agent_velocity(id, v).unwrap();
            sim.set_agent_pref_velocity(id, -v).unwrap();
        }
        if with_wall {
            let a = origin + Vec2::from_int(-50 * sx as i32, 3);
            let b = origin + Vec2::from_int(50 * sx as i32, 3);
            sim.add_obstacle(ObstacleShape::Polyline(vec![a, b])).unwrap();
        }
        for _ in 0..3 {
            match sim.step() {
                Ok(()) => {}
                // Leaving the square is a clean, documented refusal, not an overflow.
                Err(SimError::AgentLeftDomain(_)) => break,
                Err(e) => prop_assert!(false, "unexpected error {e}"),
            }
            for &id in sim.agent_ids() {
                let v = sim.agent_velocity(id).unwrap();
                let limit = params.max_speed + Fx::from_bits(1 << 12);
                prop_assert!(v.length() <= limit, "agent {id:?}: speed {} > {}", v.length(), limit);
            }
        }
    }
}

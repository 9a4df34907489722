//! The simulator solves each agent pair once per tick and hands the lower id's solution to the
//! other agent, negated (when both use the same time horizon). This checks it is invisible:
//! every new velocity equals the one computed line by line with [`agent_line`] for each listed
//! neighbour and [`lp::solve`], on random scenes that mix equal and different horizons, capped
//! and uncapped neighbour lists, asymmetric lists and overlaps.

use crate::det_support;

use det_support::Rng;
use lockstep_orca::orca::lines::{AgentState, agent_line};
use lockstep_orca::orca::lp;
use lockstep_orca::{AgentId, Fx, Simulator, SimulatorParams};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn reused_pairs_equal_fresh_lines(seed in any::<u64>(), n in 2usize..40) {
        let mut rng = Rng(seed);
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        // The LP's objective is the preferred velocity itself (no deadlock steering).
        sim.set_liveness(lockstep_orca::Liveness::Rvo2);
        // Horizons from a small set, so many pairs share one and some do not.
        let horizons = [Fx::from_num(2), Fx::from_num(5), Fx::lit("7.5")];
        for _ in 0..n {
            let mut params = det_support::random_params(&mut rng);
            params.time_horizon = horizons[rng.below(3) as usize];
            let id = sim.add_agent_with(rng.vec(6.0), params).unwrap();
            sim.set_agent_velocity(id, rng.vec(1.5)).unwrap();
            sim.set_agent_pref_velocity(id, rng.vec(2.0)).unwrap();
        }
        let ids: Vec<AgentId> = sim.agent_ids().to_vec();
        let state = |sim: &Simulator, id: AgentId| AgentState {
            id,
            position: sim.agent_position(id).unwrap(),
            velocity: sim.agent_velocity(id).unwrap(),
            radius: sim.agent_params(id).unwrap().radius,
        };
        let before: Vec<AgentState> = ids.iter().map(|&id| state(&sim, id)).collect();
        let prefs: Vec<_> = ids.iter().map(|&id| sim.agent_pref_velocity(id).unwrap()).collect();
        let dt = sim.time_step();
        sim.step().unwrap();
        let mut scratch = Vec::new();
        for (k, &id) in ids.iter().enumerate() {
            let p = sim.agent_params(id).unwrap();
            let lines: Vec<_> = sim
                .agent_neighbors(id)
                .unwrap()
                .iter()
                .map(|o| agent_line(&before[k], &before[o.0 as usize], p.time_horizon, dt))
                .collect();
            let expected = lp::solve(&lines, 0, p.max_speed, prefs[k], &mut scratch);
            prop_assert_eq!(sim.agent_velocity(id).unwrap(), expected, "agent {}", id.0);
        }
    }
}

//! Agent lookups by id (`Simulator::slot`'s guess `id − first id`, verified, then the binary
//! search) stay exact as agents are removed: every live id finds its own agent, removed and
//! never-issued ids are rejected.

use lockstep_orca::{AgentId, SimError, Simulator, SimulatorParams, Vec2};

#[test]
fn lookups_survive_removals() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let ids: Vec<AgentId> = (0..60)
        .map(|i| sim.add_agent(Vec2::from_int(i, -i)).unwrap())
        .collect();
    let mut live: Vec<(AgentId, i32)> = ids.iter().copied().zip(0..).collect();
    // Remove the first, one in the middle, the last, then a few more: every shape of gap.
    for k in [0usize, 30, 59, 1, 2, 45, 44] {
        sim.remove_agent(ids[k]).unwrap();
        live.retain(|&(id, _)| id != ids[k]);
        for &(id, i) in &live {
            assert_eq!(
                sim.agent_position(id).unwrap(),
                Vec2::from_int(i, -i),
                "{id:?}"
            );
            sim.set_agent_pref_velocity(id, Vec2::from_int(1, 0))
                .unwrap();
        }
        assert_eq!(
            sim.agent_position(ids[k]),
            Err(SimError::UnknownAgent(ids[k]))
        );
    }
    for missing in [AgentId(60), AgentId(1_000), AgentId(u32::MAX)] {
        assert_eq!(
            sim.agent_position(missing),
            Err(SimError::UnknownAgent(missing))
        );
    }
    // Ids added after removals still resolve.
    let late = sim.add_agent(Vec2::from_int(7, 7)).unwrap();
    assert_eq!(sim.agent_position(late).unwrap(), Vec2::from_int(7, 7));
    assert_eq!(sim.num_agents(), live.len() + 1);
}

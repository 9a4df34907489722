//! The tick's fused stages 5 to 7 against the pure ORCA functions. The simulator solves each
//! agent pair once per tick and hands the lower id's solution to the other agent, negated (when
//! both use the same time horizon), stores the pairs halved when every share is half, and
//! builds the lines in place. This checks it is invisible: every new velocity equals the one
//! computed line by line with [`agent_line`] (or [`PairHalf::line_with_share`]) for each listed
//! neighbour and [`lp::solve`], on random scenes that mix equal and different horizons, capped
//! and uncapped neighbour lists, asymmetric lists and overlaps; and with random priorities,
//! obstacle lines and agent models.

use crate::det_support;

use det_support::Rng;
use lockstep_orca::agent_model::AgentModel;
use lockstep_orca::math::{Fx, Vec2};
use lockstep_orca::obstacle::ObstacleAgent;
use lockstep_orca::orca::lines::{AgentState, PairHalf, Share, agent_line, deep_overlap_line};
use lockstep_orca::orca::lp;
use lockstep_orca::{AgentId, Simulator, SimulatorParams};
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

/// What the random scenes of [`fused_stages_equal_the_pure_functions`] exercised, so that the
/// test fails if a change to the generator stops reaching a path.
#[derive(Debug, Default)]
struct Exercised {
    /// Agent lines with a half share, all of it (the other has the higher priority, or does
    /// not avoid this agent), and neighbours of lower priority (no share: no line, or the
    /// line of an overlap).
    half: usize,
    all: usize,
    none: usize,
    /// Neighbours of lower priority whose discs overlap ([`deep_overlap_line`]).
    deep: usize,
    /// Obstacle lines.
    obstacle_lines: usize,
    /// Neighbours skipped by the layers and masks, lines moved by a moving support, and agents
    /// whose model is not the default.
    masked: usize,
    on_support: usize,
    modelled: usize,
    /// Agents whose velocity a wrong oracle (every share half, no support, no mask) misses.
    wrong_oracle_misses: usize,
}

/// The scenes' four kinds: equal priorities with obstacles (the pairs stored halved), random
/// priorities without and with obstacles (the general path), agent models (the modelled path,
/// with random priorities and obstacles).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    UniformWithObstacles,
    Priorities,
    PrioritiesWithObstacles,
    Models,
}

/// A random model without an acceleration limit (the lens LP is its own oracle's business):
/// layers and masks, body radius, a moving support, slope and speed limit, each often off.
fn random_model(rng: &mut Rng) -> AgentModel {
    let maybe = |rng: &mut Rng, one_in: u64| rng.below(one_in) == 0;
    AgentModel {
        layers: rng.below(7) as u32 + 1,
        mask: rng.below(8) as u32,
        body_radius: maybe(rng, 2).then(|| rng.fx(0.1, 1.0)),
        max_accel: None,
        support_velocity: if maybe(rng, 2) {
            rng.vec(1.0)
        } else {
            Vec2::ZERO
        },
        slope: if maybe(rng, 4) {
            rng.vec(0.5)
        } else {
            Vec2::ZERO
        },
        speed_limit: maybe(rng, 4).then(|| rng.fx(0.5, 2.0)),
    }
}

/// Agent `k`'s new velocity from the pre-step state `sim` and its neighbours as the step
/// listed them, by the pure functions: [`PairHalf::solve`] and
/// [`PairHalf::line_with_share`] per neighbour (the share from the priorities, the layers and
/// the masks), [`ObstacleSet::agent_lines`](lockstep_orca::obstacle::ObstacleSet::agent_lines)
/// for the walls, and [`lp::solve`]. `wrong` builds every agent line with a half share and
/// ignores models (a deliberately wrong oracle, to show the comparison can fail).
fn oracle_velocity(
    sim: &Simulator,
    id: AgentId,
    neighbors: &[AgentId],
    wrong: bool,
    seen: &mut Exercised,
) -> Vec2 {
    let dt = sim.time_step();
    let model = |id: AgentId| {
        if wrong {
            AgentModel::default()
        } else {
            sim.agent_model(id).unwrap()
        }
    };
    let state = |id: AgentId| AgentState {
        id,
        position: sim.agent_position(id).unwrap(),
        velocity: sim.agent_velocity(id).unwrap() + model(id).support_velocity,
        radius: sim.agent_params(id).unwrap().radius,
    };
    let (p, m, me) = (sim.agent_params(id).unwrap(), model(id), state(id));
    let support = m.support_velocity.max_abs_component();
    let mut lines = Vec::new();
    let obstacle = sim.obstacles().agent_lines(
        &ObstacleAgent {
            id,
            position: me.position,
            velocity: me.velocity,
            radius: m.body(p.radius),
            max_speed: m.effective_max_speed(p.max_speed) + support + support,
            time_horizon_obst: p.time_horizon_obst,
        },
        &mut lines,
    );
    let count = !wrong;
    seen.obstacle_lines += usize::from(count) * obstacle;
    for &o in neighbors {
        let (mo, other) = (model(o), state(o));
        if !m.avoids(&mo) {
            seen.masked += usize::from(count);
            continue;
        }
        let share = match (wrong, mo.avoids(&m)) {
            (true, _) => Share::Half,
            (false, true) => Share::of(p.priority, sim.agent_params(o).unwrap().priority),
            (false, false) => Share::All,
        };
        if count {
            match share {
                Share::Half => seen.half += 1,
                Share::All => seen.all += 1,
                Share::None => seen.none += 1,
            }
        }
        if share != Share::None {
            let pair = PairHalf::solve(&me, &other, p.time_horizon, dt);
            lines.push(pair.line_with_share(&me, &other, share));
        } else if let Some(line) = deep_overlap_line(&me, &other, dt) {
            // Never walked through: while the discs overlap the higher priority keeps a
            // line too.
            seen.deep += usize::from(count);
            lines.push(line);
        }
    }
    if m.support_velocity != Vec2::ZERO {
        seen.on_support += usize::from(count);
        for l in &mut lines {
            l.point -= m.support_velocity;
        }
    }
    let max_speed = m.effective_max_speed(p.max_speed);
    let pref = sim.agent_pref_velocity(id).unwrap();
    lp::solve(&lines, obstacle, max_speed, pref, &mut Vec::new())
}

/// The fused stages 5 to 7 (pairs solved once and handed over, stored halved with equal
/// priorities, lines written in place, the modelled path) equal the pure ORCA functions line
/// by line, with random priorities (every [`Share`]), obstacle lines and agent models
/// (layers, masks, body radius, supports, terrain).
#[test]
fn fused_stages_equal_the_pure_functions() {
    let mut seen = Exercised::default();
    let kinds = [
        Kind::UniformWithObstacles,
        Kind::Priorities,
        Kind::PrioritiesWithObstacles,
        Kind::Models,
    ];
    for seed in 0..160u64 {
        let kind = kinds[seed as usize % kinds.len()];
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        // The LP's objective is the preferred velocity itself (no deadlock steering).
        sim.set_liveness(lockstep_orca::Liveness::Rvo2);
        let n = 2 + rng.below(38) as usize;
        let horizons = [Fx::from_num(2), Fx::from_num(5), Fx::lit("7.5")];
        for _ in 0..n {
            let mut params = det_support::random_params(&mut rng);
            params.time_horizon = horizons[rng.below(3) as usize];
            if kind != Kind::UniformWithObstacles {
                params.priority = rng.below(3) as u8;
            }
            let id = sim.add_agent_with(rng.vec(6.0), params).unwrap();
            sim.set_agent_velocity(id, rng.vec(1.5)).unwrap();
            sim.set_agent_pref_velocity(id, rng.vec(2.0)).unwrap();
            if kind == Kind::Models {
                let m = random_model(&mut rng);
                seen.modelled += usize::from(m != AgentModel::default());
                sim.set_agent_model(id, m).unwrap();
            }
        }
        if kind != Kind::Priorities {
            det_support::add_random_obstacles(&mut sim, seed, 6, 6.0, Vec2::ZERO);
        }
        let before = sim.clone();
        sim.step().unwrap();
        for &id in sim.agent_ids() {
            let neighbors = sim.agent_neighbors(id).unwrap();
            let expected = oracle_velocity(&before, id, &neighbors, false, &mut seen);
            let got = sim.agent_velocity(id).unwrap();
            assert_eq!(got, expected, "seed {seed} ({kind:?}) agent {}", id.0);
            let wrong = oracle_velocity(&before, id, &neighbors, true, &mut seen);
            seen.wrong_oracle_misses += usize::from(wrong != got);
        }
    }
    // Every path was taken, many times over, and the comparison can fail.
    let Exercised {
        half,
        all,
        none,
        deep,
        obstacle_lines,
        masked,
        on_support,
        modelled,
        wrong_oracle_misses,
    } = seen;
    for (what, count) in [
        ("half shares", half),
        ("whole shares", all),
        ("lower-priority neighbours", none),
        ("overlaps of a lower priority", deep),
        ("obstacle lines", obstacle_lines),
        ("masked neighbours", masked),
        ("agents on a moving support", on_support),
        ("modelled agents", modelled),
        ("wrong-oracle misses", wrong_oracle_misses),
    ] {
        assert!(count >= 20, "only {count} {what}: {seen:?}");
    }
}

//! The agent model of issue 14 ([`AgentModel`], `docs/agent-model.md`): acceleration limits
//! over the reference scenes, layers and masks, body vs avoidance radius, moving supports, the
//! terrain scale, and the model as state (hash, snapshot, commands, undo, replay).

use lockstep_orca::math::wide_mul;
use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::snapshot::{SNAPSHOT_VERSION, SNAPSHOT_VERSION_MODELS};
use lockstep_orca::{
    AgentId, AgentModel, AgentParams, Command, Fx, ObstacleShape, SimError, Simulator,
    SimulatorParams, Vec2,
};

fn fx(s: &str) -> Fx {
    Fx::lit(s)
}

fn v(x: &str, y: &str) -> Vec2 {
    Vec2::new(Fx::lit(x), Fx::lit(y))
}

/// `goal − position`, at most `speed` long.
fn towards(position: Vec2, goal: Vec2, speed: Fx) -> Vec2 {
    let d = goal - position;
    if d.length_squared_wide() > wide_mul(speed, speed) {
        d.normalize_or_zero() * speed
    } else {
        d
    }
}

/// Clearance `|a − b| − (r_a + r_b)` of two agents.
fn clearance(sim: &Simulator, a: AgentId, b: AgentId) -> Fx {
    let d = (sim.agent_position(a).unwrap() - sim.agent_position(b).unwrap()).length();
    d - sim.agent_params(a).unwrap().radius - sim.agent_params(b).unwrap().radius
}

// ------------------------------------------------------------------ acceleration

#[cfg(feature = "scenario")]
mod acceleration {
    use super::*;
    use lockstep_orca::scenario::{RunOptions, Scenario};

    /// The scene run with every agent's `max_accel` set (or not): (ticks, all reached, the
    /// largest `|Δv|²` of any agent in any tick as raw Q64.64, the reach `A · Δt`).
    fn run(path: &str, accel: Option<Fx>) -> (u64, bool, i128, Option<Fx>) {
        let scene = Scenario::load(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let (mut sim, driver) = scene.build().unwrap();
        let model = AgentModel {
            max_accel: accel,
            ..AgentModel::default()
        };
        for id in sim.agent_ids().to_vec() {
            sim.set_agent_model(id, model).unwrap();
        }
        let mut previous: Vec<Vec2> = sim.agents().velocities().to_vec();
        let mut worst = 0i128;
        let report = driver
            .run_with(&mut sim, &RunOptions::default(), |s| {
                let now = s.agents().velocities();
                assert_eq!(
                    now.len(),
                    previous.len(),
                    "the scene adds or removes agents"
                );
                for (a, b) in now.iter().zip(&previous) {
                    worst = worst.max((*a - *b).length_squared_wide());
                }
                previous.clear();
                previous.extend_from_slice(now);
            })
            .unwrap();
        (
            report.ticks,
            report.all_reached,
            worst,
            model.reach(scene.time_step),
        )
    }

    /// Issue 14's acceptance: with acceleration on, over Circle, the crossing scene and
    /// Blocks, no agent's velocity changes by more than `max_accel · time_step` in any tick
    /// (exact: `|Δv|² ≤ reach²` in i128), and every goal is still reached. Prints the tick
    /// counts against acceleration off (docs/agent-model.md quotes them).
    #[test]
    fn acceleration_limits_every_velocity_change_and_goals_are_reached() {
        let accel = Fx::from_num(2); // 0.5 units/s per 0.25 s tick: full speed (2) in 4 ticks
        for path in [
            "fixtures/scenarios/circle250.toml",
            "fixtures/liveness/cross_four.toml",
            "fixtures/liveness/blocks_unperturbed.toml",
        ] {
            let (ticks_off, reached_off, worst_off, _) = run(path, None);
            let (ticks_on, reached_on, worst_on, reach) = run(path, Some(accel));
            let reach = reach.unwrap();
            println!(
                "{path}: acceleration off {ticks_off} ticks (largest |dv| {}), \
                 max_accel {accel} {ticks_on} ticks (largest |dv| {}, reach {reach})",
                lockstep_orca::math::sqrt_wide(worst_off),
                lockstep_orca::math::sqrt_wide(worst_on),
            );
            assert!(reached_off && reached_on, "{path}: goals not reached");
            assert!(
                worst_on <= wide_mul(reach, reach),
                "{path}: a velocity changed by more than {reach}"
            );
            // Without the limit the same scene changes velocities by more (the check bites).
            assert!(worst_off > wide_mul(reach, reach), "{path}");
        }
    }
}

/// From rest, an agent with `max_accel` reaches its preferred velocity in `ceil(v / (A·Δt))`
/// ticks, each step adding at most `A·Δt`; on a slope the budget is `A / k`.
#[test]
fn acceleration_ramps_speed_and_the_slope_scales_it() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap(); // Δt 0.25, max speed 2
    let flat = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    let slope = sim.add_agent(Vec2::from_int(0, 100)).unwrap();
    let model = AgentModel {
        max_accel: Some(Fx::from_num(4)), // reach 1 per tick
        ..AgentModel::default()
    };
    sim.set_agent_model(flat, model).unwrap();
    // |g| = 0.75: k = 1.25, max speed 1.6, acceleration 3.2 (reach 0.8).
    let sloped = AgentModel {
        slope: v("0", "0.75"),
        ..model
    };
    sim.set_agent_model(slope, sloped).unwrap();
    for id in [flat, slope] {
        sim.set_agent_pref_velocity(id, Vec2::from_int(2, 0))
            .unwrap();
    }
    let margin = Fx::from_bits(1 << 13); // the LP's reach margin, 2⁻²⁰, and rounding
    sim.step().unwrap();
    let f1 = sim.agent_velocity(flat).unwrap();
    let s1 = sim.agent_velocity(slope).unwrap();
    assert!(f1.x <= Fx::ONE && Fx::ONE - f1.x <= margin, "{f1:?}");
    assert!(s1.x <= fx("0.8") && fx("0.8") - s1.x <= margin, "{s1:?}");
    for _ in 0..3 {
        sim.step().unwrap();
    }
    // Flat: at 2 after two ticks; sloped: capped at 2 / 1.25 = 1.6.
    assert_eq!(sim.agent_velocity(flat).unwrap(), Vec2::from_int(2, 0));
    let s = sim.agent_velocity(slope).unwrap();
    assert!(s.x <= fx("1.6") && fx("1.6") - s.x <= margin, "{s:?}");
    // The route's speed limit is the other cap.
    sim.set_agent_model(
        slope,
        AgentModel {
            speed_limit: Some(Fx::ONE),
            ..sloped
        },
    )
    .unwrap();
    sim.step().unwrap();
    let s = sim.agent_velocity(slope).unwrap();
    // From 1.6 down to 1 needs 0.6 ≤ the reach 0.8: one tick.
    assert!(s.x <= Fx::ONE && Fx::ONE - s.x <= margin, "{s:?}");
}

/// The braking rule: "no solution" in the outcome. With its max speed dropped below what it
/// can shed in a tick, the agent brakes by its full reach; before a wall it cannot stop for,
/// the wall wins over the acceleration limit.
#[test]
fn braking_rule_when_no_velocity_in_reach_works() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap(); // Δt 0.25
    let params = AgentParams {
        radius: fx("0.5"),
        time_horizon_obst: Fx::ONE,
        ..AgentParams::default()
    };
    let a = sim.add_agent_with(Vec2::from_int(0, 0), params).unwrap();
    let model = AgentModel {
        max_accel: Some(Fx::ONE), // reach 0.25 per tick
        speed_limit: Some(Fx::ONE),
        ..AgentModel::default()
    };
    sim.set_agent_velocity(a, Vec2::from_int(2, 0)).unwrap();
    sim.set_agent_pref_velocity(a, Vec2::from_int(2, 0))
        .unwrap();
    sim.set_agent_model(a, model).unwrap();
    let margin = Fx::from_bits(1 << 13);
    // From 2 to the limit 1 takes four ticks of 0.25: braked each time, by the full reach.
    for k in 1..=3 {
        sim.step().unwrap();
        let outcome = sim.agent_outcome(a).unwrap().unwrap();
        assert!(outcome.no_solution, "tick {k}: {outcome:?}");
        assert_eq!(sim.step_stats().braked, 1);
        let vel = sim.agent_velocity(a).unwrap();
        let expected = Fx::from_num(2) - fx("0.25") * Fx::from_num(k);
        // The LP's reach is 2⁻²⁰ short of the true one (its rounding margin), every tick.
        let margin = margin * Fx::from_num(k);
        assert!(
            vel.x >= expected && vel.x - expected <= margin,
            "tick {k}: {vel:?}"
        );
    }
    // A wall 0.6 ahead of the disc (its face 1.1 ahead of the centre, radius 0.5): one second
    // of horizon allows at most 0.6 units/s, out of reach from 1.25: the wall wins.
    let x = sim.agent_position(a).unwrap().x;
    sim.add_obstacle(ObstacleShape::Polygon(vec![
        Vec2::new(x + fx("1.1"), fx("-5")),
        Vec2::new(x + fx("3"), fx("-5")),
        Vec2::new(x + fx("3"), fx("5")),
        Vec2::new(x + fx("1.1"), fx("5")),
    ]))
    .unwrap();
    let before = sim.agent_velocity(a).unwrap();
    sim.step().unwrap();
    assert!(sim.agent_outcome(a).unwrap().unwrap().no_solution);
    let vel = sim.agent_velocity(a).unwrap();
    assert!(vel.x <= fx("0.6") && vel.x >= fx("0.59"), "{vel:?}");
    assert!(
        (before - vel).length() > fx("0.25"),
        "the wall won over the reach"
    );
}

// ------------------------------------------------------------------ layers and masks

/// Issue 14's acceptance: a masked pair (layer 2, avoiding layer 1 only) walks head-on through
/// each other, while two others (layer 1, avoiding both layers), standing on the pair's way
/// after their crossing, are avoided by the pair and avoid them. The same scene without the
/// masks keeps the pair apart.
#[test]
fn masked_pair_passes_through_while_the_others_avoid_both() {
    let run = |masked: bool| {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let params = AgentParams {
            radius: fx("0.5"),
            max_speed: Fx::ONE,
            time_horizon: Fx::from_num(2),
            ..AgentParams::default()
        };
        let starts = [(-2, 0), (2, 0), (5, 0), (-5, 0)];
        let goals = [(8, 0), (-8, 0), (5, 0), (-5, 0)];
        let ids: Vec<AgentId> = starts
            .iter()
            .map(|&(x, y)| sim.add_agent_with(Vec2::from_int(x, y), params).unwrap())
            .collect();
        if masked {
            let pair = AgentModel {
                layers: 2,
                mask: 1,
                ..AgentModel::default()
            };
            let other = AgentModel {
                layers: 1,
                mask: 1 | 2,
                ..AgentModel::default()
            };
            for (i, &id) in ids.iter().enumerate() {
                sim.set_agent_model(id, if i < 2 { pair } else { other })
                    .unwrap();
            }
        }
        let (mut pair_min, mut third_min) = (Fx::MAX, Fx::MAX);
        let mut lines = 0;
        for _ in 0..160 {
            for (i, &id) in ids.iter().enumerate() {
                let goal = Vec2::from_int(goals[i].0, goals[i].1);
                let pref = towards(sim.agent_position(id).unwrap(), goal, Fx::ONE);
                sim.set_agent_pref_velocity(id, pref).unwrap();
            }
            sim.step().unwrap();
            lines += sim.step_stats().agent_lines;
            pair_min = pair_min.min(clearance(&sim, ids[0], ids[1]));
            for other in &ids[2..] {
                third_min = third_min
                    .min(clearance(&sim, ids[0], *other))
                    .min(clearance(&sim, ids[1], *other));
            }
        }
        let reached = (0..2).all(|i| {
            let goal = Vec2::from_int(goals[i].0, goals[i].1);
            (sim.agent_position(ids[i]).unwrap() - goal).length() < fx("0.1")
        });
        (pair_min, third_min, reached, lines)
    };
    let (pair_min, third_min, reached, lines_masked) = run(true);
    println!("masked: pair clearance {pair_min}, others {third_min}, agent lines {lines_masked}");
    assert!(reached, "the masked pair reaches its goals");
    // Head-on through each other: the discs overlapped by most of a diameter.
    assert!(pair_min < fx("-0.9"), "pair min clearance {pair_min}");
    assert!(third_min >= fx("-0.01"), "others' clearance {third_min}");
    let (pair_min, third_min, reached, lines) = run(false);
    println!("unmasked: pair clearance {pair_min}, others {third_min}, agent lines {lines}");
    assert!(reached);
    assert!(pair_min >= fx("-0.01") && third_min >= fx("-0.01"));
    assert!(lines_masked < lines);
}

/// The masks remove lines, not neighbours: with every pair masked off the neighbour search
/// finds exactly what it finds without masks, and no agent line is built (the search cost of
/// masked agents is the unmasked one; Godot PR #74893's problem is measured, not solved:
/// docs/agent-model.md).
#[test]
fn masked_agents_are_still_found_by_the_neighbour_search() {
    let mut plain = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..50 {
        let id = plain
            .add_agent(Vec2::from_int((i % 10) * 3, (i / 10) * 3))
            .unwrap();
        plain
            .set_agent_pref_velocity(id, Vec2::from_int(1, i % 3 - 1))
            .unwrap();
    }
    let mut masked = plain.clone();
    for id in masked.agent_ids().to_vec() {
        masked
            .set_agent_model(
                id,
                AgentModel {
                    mask: 0,
                    ..AgentModel::default()
                },
            )
            .unwrap();
    }
    plain.step().unwrap();
    masked.step().unwrap();
    let (p, m) = (*plain.step_stats(), *masked.step_stats());
    assert!(p.neighbors_found > 0);
    assert_eq!(m.neighbors_found, p.neighbors_found);
    assert_eq!(
        m.pairs_solved + m.pairs_reused,
        p.pairs_solved + p.pairs_reused
    );
    assert!(p.agent_lines > 0);
    assert_eq!(m.agent_lines, 0);
}

// ------------------------------------------------------------------ body vs avoidance radius

/// Seed 002's guard: body 0.4 against walls, avoidance 0.5 against other agents. Pushed into a
/// wall it stops 0.4 from it (an agent with the default model: 0.5); pushed into a neighbour,
/// their centres stay 1.0 apart (both avoidance radii), not 0.8.
#[test]
fn body_radius_against_walls_and_avoidance_radius_against_neighbours() {
    let params = AgentParams {
        radius: fx("0.5"),
        time_horizon_obst: Fx::ONE,
        time_horizon: Fx::ONE,
        max_speed: Fx::ONE,
        ..AgentParams::default()
    };
    let guard = AgentModel {
        body_radius: Some(fx("0.4")),
        ..AgentModel::default()
    };
    let wall = |body: Option<AgentModel>| {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let a = sim.add_agent_with(Vec2::from_int(-2, 0), params).unwrap();
        if let Some(m) = body {
            sim.set_agent_model(a, m).unwrap();
        }
        // The wall's face is x = 0.
        sim.add_obstacle(ObstacleShape::Polygon(vec![
            v("0", "-5"),
            v("2", "-5"),
            v("2", "5"),
            v("0", "5"),
        ]))
        .unwrap();
        for _ in 0..400 {
            sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0))
                .unwrap();
            sim.step().unwrap();
        }
        -sim.agent_position(a).unwrap().x
    };
    let gap_guard = wall(Some(guard));
    let gap_default = wall(None);
    println!("gap to the wall: body 0.4 {gap_guard}, default {gap_default}");
    assert!((gap_guard - fx("0.4")).abs() <= fx("0.01"), "{gap_guard}");
    assert!(
        (gap_default - fx("0.5")).abs() <= fx("0.01"),
        "{gap_default}"
    );

    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let a = sim.add_agent_with(Vec2::from_int(-2, 0), params).unwrap();
    let b = sim.add_agent_with(Vec2::from_int(2, 0), params).unwrap();
    let (mut min, mut closest) = (Fx::MAX, Fx::MAX);
    for id in [a, b] {
        sim.set_agent_model(id, guard).unwrap();
    }
    for _ in 0..100 {
        sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0))
            .unwrap();
        sim.set_agent_pref_velocity(b, Vec2::from_int(-1, 0))
            .unwrap();
        sim.step().unwrap();
        min = min.min(clearance(&sim, a, b));
        closest =
            closest.min((sim.agent_position(a).unwrap() - sim.agent_position(b).unwrap()).length());
    }
    println!("neighbours: closest centres {closest}, min clearance {min}");
    // Kept apart by both avoidance radii (1.0), not the bodies (0.8), and they did press
    // close to that bound.
    assert!(min >= fx("-0.01"), "{min}");
    assert!(closest <= fx("1.05"), "{closest}");
}

// ------------------------------------------------------------------ moving supports

/// Issue 14's acceptance: two groups on two platforms moving in opposite directions (+1 and
/// −1 units/s along x) walk across their platforms (+y and −y relative to them) so that their
/// world paths cross. ORCA compares world velocities: no overlap in world space beyond −0.01,
/// and every agent reaches its goal relative to its platform.
#[test]
fn two_platforms_in_opposite_directions() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let dt = sim.time_step();
    let params = AgentParams {
        radius: fx("0.5"),
        max_speed: fx("1.5"),
        time_horizon: Fx::from_num(3),
        ..AgentParams::default()
    };
    let mut agents = Vec::new(); // (id, support, goal at tick 0)
    for (group, (cx, cy, sx, walk)) in [(-6, -3, 1, 6), (6, 3, -1, -6)].into_iter().enumerate() {
        for k in 0..4 {
            let start = Vec2::new(
                Fx::from_num(cx) + fx("1.5") * Fx::from_num(k % 2),
                Fx::from_num(cy) + fx("1.5") * Fx::from_num(k / 2),
            );
            let id = sim.add_agent_with(start, params).unwrap();
            let support = Vec2::from_int(sx, 0);
            sim.set_agent_model(
                id,
                AgentModel {
                    support_velocity: support,
                    ..AgentModel::default()
                },
            )
            .unwrap();
            agents.push((id, support, start + Vec2::from_int(0, walk), group));
        }
    }
    let goal_at = |goal: Vec2, support: Vec2, tick: u64| goal + support * (dt * Fx::from_num(tick));
    let mut min = Fx::MAX;
    let mut cross_group_min = Fx::MAX;
    let mut reached_at = None;
    for tick in 0..400u64 {
        let reached = agents.iter().all(|&(id, s, g, _)| {
            (sim.agent_position(id).unwrap() - goal_at(g, s, tick)).length() <= fx("0.05")
        });
        if reached {
            reached_at = Some(tick);
            break;
        }
        for &(id, s, g, _) in &agents {
            // The preferred velocity is relative to the platform: towards the goal's world
            // position, which moves with it.
            let pref = towards(
                sim.agent_position(id).unwrap(),
                goal_at(g, s, tick),
                fx("0.5"),
            );
            sim.set_agent_pref_velocity(id, pref).unwrap();
        }
        sim.step().unwrap();
        for (i, &(a, _, _, ga)) in agents.iter().enumerate() {
            for &(b, _, _, gb) in &agents[i + 1..] {
                let c = clearance(&sim, a, b);
                min = min.min(c);
                if ga != gb {
                    cross_group_min = cross_group_min.min(c);
                }
            }
        }
    }
    println!(
        "platforms: reached at tick {reached_at:?}, min clearance {min}, across groups {cross_group_min}"
    );
    assert!(reached_at.is_some(), "not every agent reached its goal");
    assert!(min >= fx("-0.01"), "overlap {min}");
    // The groups did meet (their paths cross within a few radii).
    assert!(cross_group_min < Fx::ONE, "{cross_group_min}");
}

// ------------------------------------------------------------------ the model as state

fn scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..6 {
        let id = sim.add_agent(Vec2::from_int(i * 4, i % 2)).unwrap();
        sim.set_agent_pref_velocity(id, Vec2::from_int(1 - 2 * (i % 2), 0))
            .unwrap();
    }
    sim
}

fn busy_model() -> AgentModel {
    AgentModel {
        layers: 3,
        mask: 5,
        body_radius: Some(fx("1.2")),
        max_accel: Some(Fx::from_num(3)),
        support_velocity: v("0.25", "-0.5"),
        slope: v("0.1", "0.2"),
        speed_limit: Some(fx("1.75")),
    }
}

/// The default model adds nothing to the hash or the snapshot (version 3, the bytes of a
/// build without the model); any other model is hashed, snapshotted as version 4, restored
/// and stepped bit-identically.
#[test]
fn the_model_is_state_only_when_in_use() {
    let mut sim = scene();
    let (hash, bytes) = (sim.state_hash(), sim.snapshot());
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        SNAPSHOT_VERSION
    );
    sim.set_agent_model(AgentId(2), AgentModel::default())
        .unwrap();
    assert_eq!((sim.state_hash(), sim.snapshot()), (hash, bytes.clone()));
    sim.set_agent_model(AgentId(2), busy_model()).unwrap();
    assert_ne!(sim.state_hash(), hash);
    let with_model = sim.snapshot();
    assert_eq!(
        u32::from_le_bytes(with_model[8..12].try_into().unwrap()),
        SNAPSHOT_VERSION_MODELS
    );
    let mut copy = Simulator::restore(&with_model).unwrap();
    assert_eq!(copy.state_hash(), sim.state_hash());
    assert_eq!(copy.agent_model(AgentId(2)).unwrap(), busy_model());
    assert_eq!(copy.agent_model(AgentId(1)).unwrap(), AgentModel::default());
    for _ in 0..20 {
        sim.step().unwrap();
        copy.step().unwrap();
        assert_eq!(copy.state_hash(), sim.state_hash());
    }
    // Each field moves the hash.
    let base = sim.state_hash();
    let m = busy_model();
    let variants = [
        AgentModel { layers: 7, ..m },
        AgentModel { mask: 4, ..m },
        AgentModel {
            body_radius: None,
            ..m
        },
        AgentModel {
            max_accel: Some(Fx::ONE),
            ..m
        },
        AgentModel {
            support_velocity: Vec2::ZERO,
            ..m
        },
        AgentModel {
            slope: Vec2::ZERO,
            ..m
        },
        AgentModel {
            speed_limit: None,
            ..m
        },
    ];
    for variant in variants {
        let mut other = sim.clone();
        other.set_agent_model(AgentId(2), variant).unwrap();
        assert_ne!(other.state_hash(), base, "{variant:?}");
    }
    // A pending SetModel makes the snapshot version 4 too, and restores.
    let mut queued = scene();
    queued
        .queue_command(
            3,
            Command::SetModel {
                id: AgentId(0),
                model: busy_model(),
            },
        )
        .unwrap();
    let b = queued.snapshot();
    assert_eq!(
        u32::from_le_bytes(b[8..12].try_into().unwrap()),
        SNAPSHOT_VERSION_MODELS
    );
    let mut copy = Simulator::restore(&b).unwrap();
    for _ in 0..5 {
        queued.step().unwrap();
        copy.step().unwrap();
    }
    assert_eq!(copy.state_hash(), queued.state_hash());
    assert_eq!(queued.agent_model(AgentId(0)).unwrap(), busy_model());
}

/// A bad model is refused by the setter and by the queue, and changes nothing.
#[test]
fn bad_models_are_refused_and_change_nothing() {
    let mut sim = scene();
    let hash = sim.state_hash();
    let bad = AgentModel {
        max_accel: Some(Fx::from_num(100_000)), // · 0.25 s > 4,096
        ..AgentModel::default()
    };
    assert!(matches!(
        sim.set_agent_model(AgentId(1), bad),
        Err(SimError::VelocityScale { .. })
    ));
    assert!(matches!(
        sim.queue_command(
            0,
            Command::SetModel {
                id: AgentId(1),
                model: bad
            }
        ),
        Err(SimError::VelocityScale { .. })
    ));
    assert_eq!(
        sim.set_agent_model(AgentId(99), AgentModel::default()),
        Err(SimError::UnknownAgent(AgentId(99)))
    );
    assert_eq!(sim.state_hash(), hash);
    // A time step that would take an agent's reach out of the domain is refused.
    sim.set_agent_model(
        AgentId(1),
        AgentModel {
            max_accel: Some(Fx::from_num(10_000)),
            ..AgentModel::default()
        },
    )
    .unwrap();
    let hash = sim.state_hash();
    assert!(matches!(
        sim.set_time_step(Fx::ONE),
        Err(SimError::VelocityScale { .. })
    ));
    assert_eq!(sim.state_hash(), hash);
}

/// A SetModel applied by a step that then fails is undone with the rest of the tick.
#[test]
fn a_failed_step_undoes_its_set_model() {
    let mut sim = scene();
    let edge = Fx::from_num(1_000_000);
    let runner = sim
        .add_agent(Vec2::new(edge - fx("0.1"), Fx::ZERO))
        .unwrap();
    sim.set_agent_velocity(runner, Vec2::from_int(2, 0))
        .unwrap();
    sim.set_agent_pref_velocity(runner, Vec2::from_int(2, 0))
        .unwrap();
    sim.queue_command(
        0,
        Command::SetModel {
            id: AgentId(1),
            model: busy_model(),
        },
    )
    .unwrap();
    let (hash, bytes) = (sim.state_hash(), sim.snapshot());
    assert_eq!(sim.step(), Err(SimError::AgentLeftDomain(runner)));
    assert_eq!(sim.agent_model(AgentId(1)).unwrap(), AgentModel::default());
    assert_eq!((sim.state_hash(), sim.snapshot()), (hash, bytes));
}

/// A replay of a run that sets models through commands verifies, and removing a modelled agent
/// keeps the others' models.
#[test]
fn replays_carry_model_commands() {
    let mut sim = scene();
    let replay = replay::record(&mut sim, 40, RecordOptions::default(), |s| match s.tick() {
        2 => vec![Command::SetModel {
            id: AgentId(1),
            model: busy_model(),
        }],
        5 => vec![Command::SetModel {
            id: AgentId(4),
            model: AgentModel {
                max_accel: Some(Fx::ONE),
                ..AgentModel::default()
            },
        }],
        9 => vec![Command::RemoveAgent { id: AgentId(1) }],
        _ => Vec::new(),
    })
    .unwrap();
    assert!(replay::verify(&replay).is_match());
    let bytes = replay.to_bytes().unwrap();
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
    assert!(!sim.contains_agent(AgentId(1)));
    assert_eq!(
        sim.agent_model(AgentId(4)).unwrap().max_accel,
        Some(Fx::ONE)
    );
    // A replay that starts from a state with models in use (its initial snapshot is version 4).
    let again = replay::record(&mut sim, 20, RecordOptions::default(), |_| Vec::new()).unwrap();
    let bytes = again.to_bytes().unwrap();
    assert!(replay::verify_bytes(&bytes).unwrap().is_match());
}

/// A model in use whose every part is neutral (the speed limit at the max speed, the body
/// radius at the radius, extra mask bits) takes the modelled path of the tick and gives
/// RVO2's trajectories to the bit: the paths differ in cost only (docs/agent-model.md).
#[test]
fn a_neutral_model_follows_rvo2_to_the_bit() {
    let mut plain = Simulator::new(SimulatorParams::default()).unwrap();
    plain
        .add_obstacle(ObstacleShape::Polygon(vec![
            Vec2::from_int(-2, -2),
            Vec2::from_int(2, -2),
            Vec2::from_int(2, 2),
            Vec2::from_int(-2, 2),
        ]))
        .unwrap();
    let n = 24;
    let mut goals = Vec::new();
    for i in 0..n {
        let u = lockstep_orca::math::unit_from_turns(Fx::from_num(i) / Fx::from_num(n));
        let start = u * Fx::from_num(12);
        plain.add_agent(start).unwrap();
        goals.push(-start);
    }
    let mut modelled = plain.clone();
    for id in modelled.agent_ids().to_vec() {
        let p = modelled.agent_params(id).unwrap();
        modelled
            .set_agent_model(
                id,
                AgentModel {
                    mask: 1 | 4,
                    body_radius: Some(p.radius),
                    speed_limit: Some(p.max_speed),
                    ..AgentModel::default()
                },
            )
            .unwrap();
    }
    for _ in 0..300 {
        for sim in [&mut plain, &mut modelled] {
            for (k, id) in sim.agent_ids().to_vec().into_iter().enumerate() {
                let pref = towards(sim.agent_position(id).unwrap(), goals[k], Fx::ONE);
                sim.set_agent_pref_velocity(id, pref).unwrap();
            }
            sim.step().unwrap();
        }
        assert_eq!(plain.agents().positions(), modelled.agents().positions());
        assert_eq!(plain.agents().velocities(), modelled.agents().velocities());
    }
    // Only the model extension of the hash tells them apart.
    assert_ne!(plain.state_hash(), modelled.state_hash());
}

/// The model's domain edges at once: the largest support (opposite for two neighbours), max
/// speed and velocity, the largest reach (`max_accel · time_step` = 4,000), the steepest slope
/// and the largest radius, next to a wall: the steps run with overflow checks on (the test
/// profile) and stay in the domain.
#[test]
fn the_model_at_its_domain_edges_steps_without_overflow() {
    let mut sim = Simulator::new(SimulatorParams {
        time_step: fx("0.04"),
        ..SimulatorParams::default()
    })
    .unwrap();
    let params = AgentParams {
        radius: Fx::from_num(100),
        max_speed: Fx::from_num(1000),
        neighbor_dist: Fx::from_num(4000),
        time_horizon: Fx::ONE,
        time_horizon_obst: Fx::ONE,
        ..AgentParams::default()
    };
    let big = Fx::from_num(1000);
    let edge = AgentModel {
        layers: u32::MAX,
        mask: u32::MAX,
        body_radius: Some(Fx::from_num(1000)),
        max_accel: Some(Fx::from_num(100_000)),
        support_velocity: Vec2::new(big, big),
        slope: Vec2::new(-big, big),
        speed_limit: Some(big),
    };
    let a = sim.add_agent_with(Vec2::from_int(-300, 0), params).unwrap();
    let b = sim.add_agent_with(Vec2::from_int(300, 0), params).unwrap();
    let c = sim.add_agent_with(Vec2::from_int(0, 400), params).unwrap();
    sim.set_agent_model(a, edge).unwrap();
    sim.set_agent_model(
        b,
        AgentModel {
            support_velocity: Vec2::new(-big, -big),
            slope: Vec2::ZERO,
            ..edge
        },
    )
    .unwrap();
    sim.set_agent_model(
        c,
        AgentModel {
            support_velocity: Vec2::new(-big, big),
            slope: Vec2::ZERO,
            max_accel: Some(Fx::ZERO),
            ..edge
        },
    )
    .unwrap();
    for (id, v) in [(a, (1000, 1000)), (b, (-1000, -1000)), (c, (1000, -1000))] {
        let v = Vec2::from_int(v.0, v.1);
        sim.set_agent_velocity(id, v).unwrap();
        sim.set_agent_pref_velocity(id, v).unwrap();
    }
    sim.add_obstacle(ObstacleShape::Polygon(vec![
        Vec2::from_int(-50, 150),
        Vec2::from_int(50, 150),
        Vec2::from_int(50, 250),
        Vec2::from_int(-50, 250),
    ]))
    .unwrap();
    for _ in 0..40 {
        sim.step().unwrap();
    }
    assert_eq!(sim.tick(), 40);
}

/// The scenario format: model fields in `[defaults]`, on a generator and on an agent, and a
/// `set_model` event resolved against the agent's model at that point; a bad value is refused
/// with the field's name.
#[cfg(feature = "scenario")]
#[test]
fn scenario_files_carry_the_model() {
    use lockstep_orca::scenario::{EventAction, Scenario};
    let text = r#"
time_step = 0.25
[defaults]
max_accel = 2
[[agent]]
start = [0, 0]
goal = [10, 0]
mask = 0
support_velocity = ["0.5", 0]
[[ring]]
count = 2
radius = 5
params = { layers = 4, body_radius = "0.4", slope = ["0.75", 0] }
[[event]]
tick = 3
set_model = { id = 0, speed_limit = 1 }
"#;
    let scene = Scenario::from_toml_str(text).unwrap();
    let a = scene.agents[0].model;
    assert_eq!(
        (a.mask, a.layers, a.max_accel),
        (0, 1, Some(Fx::from_num(2)))
    );
    assert_eq!(a.support_velocity, v("0.5", "0"));
    let r = scene.agents[1].model;
    assert_eq!((r.layers, r.body_radius), (4, Some(fx("0.4"))));
    assert_eq!(r.slope, v("0.75", "0"));
    let EventAction::SetModel { id, model } = scene.events[0].action else {
        panic!("{:?}", scene.events[0].action);
    };
    assert_eq!(id, AgentId(0));
    assert_eq!(
        model,
        AgentModel {
            speed_limit: Some(Fx::ONE),
            ..a
        }
    );
    let (mut sim, driver) = scene.build().unwrap();
    assert_eq!(sim.agent_model(AgentId(0)).unwrap(), a);
    assert_eq!(sim.agent_model(AgentId(2)).unwrap(), r);
    for tick in 0..4 {
        driver.apply_events(&mut sim, tick).unwrap();
        driver.set_pref_velocities(&mut sim, tick).unwrap();
        sim.step().unwrap();
    }
    assert_eq!(sim.agent_model(AgentId(0)).unwrap(), model);
    let bad = text.replace("max_accel = 2", "max_accel = 200000");
    let err = Scenario::from_toml_str(&bad).unwrap_err().to_string();
    assert!(err.contains("max_accel"), "{err}");
}

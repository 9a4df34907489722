//! The deadlock resolution (`lockstep_orca::liveness`): symmetric scenes that freeze in RVO2 mode
//! complete in the default mode, with no random input; its state (the stall counters) survives
//! snapshots; priorities split the avoidance; outcomes report what happened.

use lockstep_orca::{
    AgentId, AgentParams, Fx, Liveness, SimError, Simulator, SimulatorParams, Vec2,
};

/// Steers every agent towards its goal at up to `speed` (RVO2's examples' rule, in fixed point)
/// and steps until all are within `tolerance` of their goals or `max_ticks` pass. Returns the
/// ticks taken, `None` if not every agent arrived.
fn run_to_goals(
    sim: &mut Simulator,
    goals: &[(AgentId, Vec2)],
    speed: Fx,
    tolerance: Fx,
    max_ticks: u64,
) -> Option<u64> {
    for tick in 0..max_ticks {
        let mut done = true;
        for &(id, goal) in goals {
            let to = goal - sim.agent_position(id).unwrap();
            let d = to.length();
            if d > tolerance {
                done = false;
            }
            let pref = if d > speed {
                to.normalize_or_zero() * speed
            } else {
                to
            };
            sim.set_agent_pref_velocity(id, pref).unwrap();
        }
        if done {
            return Some(tick);
        }
        sim.step().unwrap();
    }
    None
}

/// Issue 9's first scene: radius 0.5 at x = 0 and x = 4, goals swapped, time step 0.1, max
/// speed 1.5, from rest.
fn head_on_pair() -> (Simulator, Vec<(AgentId, Vec2)>) {
    let params = AgentParams {
        radius: Fx::lit("0.5"),
        max_speed: Fx::lit("1.5"),
        ..AgentParams::default()
    };
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit("0.1"),
        agent_defaults: params,
    })
    .unwrap();
    let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    let b = sim.add_agent(Vec2::from_int(4, 0)).unwrap();
    let goals = vec![(a, Vec2::from_int(4, 0)), (b, Vec2::from_int(0, 0))];
    (sim, goals)
}

#[test]
fn head_on_pair_freezes_in_rvo2_mode_and_passes_by_default() {
    let (mut sim, goals) = head_on_pair();
    sim.set_liveness(Liveness::Rvo2);
    let tol = Fx::lit("0.05");
    assert_eq!(
        run_to_goals(&mut sim, &goals, Fx::lit("1.5"), tol, 3000),
        None
    );
    // Face to face for ever, never passing.
    let (xa, xb) = (
        sim.agent_position(goals[0].0).unwrap().x,
        sim.agent_position(goals[1].0).unwrap().x,
    );
    assert!(xa < xb, "{xa} {xb}");
    assert_eq!(
        sim.agents().stalls(),
        &[0, 0],
        "RVO2 mode keeps no stall state"
    );

    let (mut sim, goals) = head_on_pair();
    assert_eq!(sim.liveness(), Liveness::Resolve);
    let ticks = run_to_goals(&mut sim, &goals, Fx::lit("1.5"), tol, 3000);
    let ticks = ticks.expect("the pair passes");
    assert!(ticks < 200, "{ticks} ticks");
}

#[test]
fn head_on_pair_veers_to_opposite_sides() {
    let (mut sim, goals) = head_on_pair();
    // A few ticks in, both are closing: each turned to its own right.
    for _ in 0..5 {
        for &(id, goal) in &goals {
            let pref = (goal - sim.agent_position(id).unwrap()).normalize_or_zero();
            sim.set_agent_pref_velocity(id, pref * Fx::lit("1.5"))
                .unwrap();
        }
        sim.step().unwrap();
    }
    let (a, b) = (goals[0].0, goals[1].0);
    let (va, vb) = (
        sim.agent_velocity(a).unwrap(),
        sim.agent_velocity(b).unwrap(),
    );
    assert!(va.y < Fx::ZERO && vb.y > Fx::ZERO, "{va:?} {vb:?}");
    // Point symmetry, to the rounding of the LP (a few ulps).
    let (pa, pb) = (
        sim.agent_position(a).unwrap(),
        sim.agent_position(b).unwrap(),
    );
    let off = pa + pb - Vec2::from_int(4, 0);
    assert!(off.max_abs_component() < Fx::lit("0.000001"), "{off:?}");
    let outcome = sim.agent_outcome(a).unwrap().unwrap();
    assert!(outcome.steered, "{outcome:?}");
    assert!(sim.step_stats().steered >= 2);
}

/// A ring of `n` agents (n divisible by 4) whose positions are exact mirror images in x and in
/// y: one quadrant computed, the others by negating coordinates. Goals at the antipodes.
fn mirror_ring(n: usize, radius: Fx) -> (Simulator, Vec<(AgentId, Vec2)>) {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let quarter = n / 4;
    let mut points = Vec::new();
    for k in 0..quarter {
        // Angle (k + 1/2) / n turns inside the first quadrant.
        let turns = Fx::from_bits(((2 * k as i64 + 1) << 31) / n as i64);
        let u = lockstep_orca::math::unit_from_turns(turns);
        points.push(Vec2::new(u.x * radius, u.y * radius));
    }
    let mut ring = Vec::new();
    for p in &points {
        ring.push(*p);
        ring.push(Vec2::new(-p.x, p.y));
        ring.push(Vec2::new(-p.x, -p.y));
        ring.push(Vec2::new(p.x, -p.y));
    }
    let goals = ring
        .iter()
        .map(|&p| (sim.add_agent(p).unwrap(), -p))
        .collect();
    (sim, goals)
}

#[test]
fn exactly_mirrored_ring_completes_only_with_the_resolution() {
    let (mut sim, goals) = mirror_ring(24, Fx::from_num(12));
    sim.set_liveness(Liveness::Rvo2);
    let tol = Fx::lit("1.5");
    assert_eq!(run_to_goals(&mut sim, &goals, Fx::ONE, tol, 3000), None);

    let (mut sim, goals) = mirror_ring(24, Fx::from_num(12));
    let ticks = run_to_goals(&mut sim, &goals, Fx::ONE, tol, 3000);
    assert!(ticks.is_some(), "the ring jams");
}

#[test]
fn stall_counters_are_state() {
    // Drive the pair into a stall, then snapshot: the restored copy continues bit for bit,
    // and the counters are in the hash.
    let (mut sim, goals) = head_on_pair();
    let speed = Fx::lit("1.5");
    let mut stalled_at = None;
    for tick in 0..200 {
        for &(id, goal) in &goals {
            let pref = (goal - sim.agent_position(id).unwrap()).normalize_or_zero();
            sim.set_agent_pref_velocity(id, pref * speed).unwrap();
        }
        sim.step().unwrap();
        if sim.agents().stalls().iter().any(|&s| s > 0) {
            stalled_at = Some(tick);
            break;
        }
    }
    assert!(stalled_at.is_some(), "the pair never stalls");
    let stalled = sim.agents().stalls().iter().position(|&s| s > 0).unwrap();
    let id = sim.agent_ids()[stalled];
    let since = sim.agent_outcome(id).unwrap().unwrap().stalled_since;
    assert_eq!(since, Some(sim.tick() - 1));
    let copy = Simulator::restore(&sim.snapshot()).unwrap();
    assert_eq!(copy.agents().stalls(), sim.agents().stalls());
    assert_eq!(copy.state_hash(), sim.state_hash());
    let mut copy = copy;
    for _ in 0..100 {
        for s in [&mut sim, &mut copy] {
            for &(id, goal) in &goals {
                let pref = (goal - s.agent_position(id).unwrap()).normalize_or_zero();
                s.set_agent_pref_velocity(id, pref * speed).unwrap();
            }
            s.step().unwrap();
        }
        assert_eq!(copy.state_hash(), sim.state_hash());
    }
    // The same positions with other stall counters hash differently.
    let mut a = Simulator::new(SimulatorParams::default()).unwrap();
    a.add_agent(Vec2::ZERO).unwrap();
    let mut b = a.clone();
    a.set_agent_pref_velocity(AgentId(0), Vec2::from_int(1, 0))
        .unwrap();
    b.set_agent_pref_velocity(AgentId(0), Vec2::from_int(1, 0))
        .unwrap();
    // A wall of agents ahead of a only.
    for y in -2..=2 {
        a.add_agent(Vec2::from_int(3, y * 3)).unwrap();
        b.add_agent(Vec2::from_int(3, y * 3)).unwrap();
    }
    assert_eq!(a.state_hash(), b.state_hash());
    a.set_liveness(Liveness::Resolve);
    b.set_liveness(Liveness::Rvo2);
    assert_ne!(a.state_hash(), b.state_hash(), "the mode is state");
}

#[test]
fn priorities_split_the_avoidance() {
    // Head-on at speed, one of higher priority: it keeps its course while the other gets out
    // of its way; equal priorities share.
    let run = |prio_a: u8, prio_b: u8| {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        sim.set_liveness(Liveness::Rvo2);
        let a = sim
            .add_agent_with(
                Vec2::from_int(0, 0),
                AgentParams {
                    priority: prio_a,
                    ..AgentParams::default()
                },
            )
            .unwrap();
        let b = sim
            .add_agent_with(
                Vec2::new(Fx::from_num(12), Fx::lit("0.5")),
                AgentParams {
                    priority: prio_b,
                    ..AgentParams::default()
                },
            )
            .unwrap();
        let mut worst = (Fx::ZERO, Fx::ZERO);
        for _ in 0..40 {
            sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0))
                .unwrap();
            sim.set_agent_pref_velocity(b, Vec2::from_int(-1, 0))
                .unwrap();
            sim.step().unwrap();
            let (pa, pb) = (
                sim.agent_position(a).unwrap(),
                sim.agent_position(b).unwrap(),
            );
            worst.0 = worst.0.max(pa.y.abs());
            worst.1 = worst.1.max((pb.y - Fx::lit("0.5")).abs());
        }
        worst
    };
    let (a_eq, b_eq) = run(128, 128);
    assert!(a_eq > Fx::ZERO && b_eq > Fx::ZERO);
    let (a_hi, b_lo) = run(200, 10);
    assert!(
        a_hi < a_eq / 4,
        "the high-priority agent swerved {a_hi} (equal: {a_eq})"
    );
    assert!(
        b_lo > b_eq,
        "the low-priority agent swerved only {b_lo} (equal: {b_eq})"
    );
}

/// An agent of low priority (radius 1.5) pinned at the back of a pocket 4 wide, open to the
/// west, and one of high priority walking in at `speed` (its preferred velocity) looking
/// `horizon_obst` seconds ahead at walls, time step 0.25: the deepest overlap of the two
/// (of their combined radius 3), the depth after 300 ticks, and the high one's largest speed
/// in the last 50.
fn walk_into_a_pinned_agent(speed: i32, horizon_obst: &str) -> (Fx, Fx, Fx) {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let p = |x: i32, y: i32| Vec2::from_int(x, y);
    // A pocket 4 wide (radius 1.5), open to the west, its back wall at x = 10.
    for wall in [
        vec![p(0, 2), p(10, 2), p(10, 3), p(0, 3)],
        vec![p(0, -3), p(10, -3), p(10, -2), p(0, -2)],
        vec![p(10, -3), p(11, -3), p(11, 3), p(10, 3)],
    ] {
        sim.add_obstacle(lockstep_orca::ObstacleShape::Polygon(wall))
            .unwrap();
    }
    let low = sim
        .add_agent_with(
            Vec2::new(Fx::lit("8.4"), Fx::ZERO),
            AgentParams {
                priority: 10,
                ..AgentParams::default()
            },
        )
        .unwrap();
    let high = sim
        .add_agent_with(
            p(-6, 0),
            AgentParams {
                priority: 200,
                max_speed: Fx::from_num(speed),
                time_horizon_obst: Fx::lit(horizon_obst),
                ..AgentParams::default()
            },
        )
        .unwrap();
    let sum = Fx::from_num(3);
    let (mut worst, mut depth, mut last_speed) = (Fx::ZERO, Fx::ZERO, Fx::ZERO);
    for tick in 0..300 {
        sim.set_agent_pref_velocity(high, p(speed, 0)).unwrap();
        sim.set_agent_pref_velocity(low, Vec2::ZERO).unwrap();
        sim.step().unwrap();
        let gap = (sim.agent_position(high).unwrap() - sim.agent_position(low).unwrap()).length();
        depth = sum - gap;
        worst = worst.max(depth);
        if tick >= 250 {
            last_speed = last_speed.max(sim.agent_velocity(high).unwrap().length());
        }
    }
    (worst, depth, last_speed)
}

/// Priority decides who steps aside, never who walks through whom: an agent of high priority
/// walking into one of low priority that cannot get out of the way (pinned at the back of a
/// pocket) comes to rest a quarter of their combined radius deep
/// (`orca::lines::deep_overlap_line`), whether the walls slow it as it walks in (a look 10 s
/// ahead at them) or it arrives at full speed (0.5 s, as traffic control cuts the look at a
/// door; 2 and 3 u/s). Until the thirty-second session the high one took no share at all and
/// walked 2.006 into the other, pressing it against the pocket's back wall; with a half share
/// of the whole pair past a quarter deep (tried in the thirtieth and thirty-second sessions)
/// it was thrown back at 1.6 u/s and walked in again every 9 ticks; with the thirty-second
/// session's line (on from about 7/32 deep, with the agent's own horizon) the fast ones still
/// bounced: the gap cycled between 1.92 and 2.38 every 6 ticks at 2 u/s (up to 0.75 u/s
/// back), between 1.77 and 2.41 at 3 u/s. Now each lands at most 1.08 deep once and rests at
/// 0.750.
#[test]
fn priority_never_walks_through_an_agent_that_cannot_get_away() {
    let sum = Fx::from_num(3);
    for (speed, horizon_obst) in [(2, "10"), (2, "0.5"), (3, "0.5")] {
        let (worst, depth, last_speed) = walk_into_a_pinned_agent(speed, horizon_obst);
        let at = format!("at {speed} u/s looking {horizon_obst} s ahead at walls");
        // It came to rest there: not thrown back and walking in again every few ticks.
        assert!(
            last_speed < Fx::lit("0.01"),
            "{at}: the high one still moves at {last_speed} after 250 ticks"
        );
        // The high one reached the low one (it was stopped by it, not short of it), rests a
        // quarter of the combined radius into it ...
        assert!(
            (depth - sum / 4).abs() < Fx::lit("0.01"),
            "{at}: rests {depth} deep"
        );
        // ... and never went much deeper.
        assert!(
            worst < sum * Fx::lit("0.4"),
            "{at}: went {worst} into an agent that could not get away (combined radius {sum})"
        );
    }
}

#[test]
fn a_wall_blocked_agent_is_reported() {
    // An agent walking into a long wall with nothing else around: stalled, blocked by the
    // obstacle (the game should repath), never through the wall.
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(lockstep_orca::ObstacleShape::Polygon(vec![
        Vec2::from_int(5, -50),
        Vec2::from_int(6, -50),
        Vec2::from_int(6, 50),
        Vec2::from_int(5, 50),
    ]))
    .unwrap();
    let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
    let mut blocked = false;
    for _ in 0..200 {
        sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0))
            .unwrap();
        sim.step().unwrap();
        let o = sim.agent_outcome(a).unwrap().unwrap();
        blocked |= o.blocked_by_obstacle;
        assert!(sim.agent_position(a).unwrap().x < Fx::from_num(5));
    }
    assert!(blocked);
    assert!(sim.step_stats().blocked_by_obstacle == 1);
    assert_eq!(
        sim.agent_outcome(AgentId(9)),
        Err(SimError::UnknownAgent(AgentId(9)))
    );
}

/// Issue 9's acceptance on Blocks: seeds 1–20 of the scene each finish within 12,967 ticks
/// (C++ RVO2's worst over 23 seeds), and so does the scene with no perturbation at all.
#[cfg(feature = "scenario")]
#[test]
fn blocks_finishes_on_every_seed_and_unperturbed() {
    use lockstep_orca::scenario::{RunOptions, Scenario};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/scenarios/blocks.toml"
    );
    let base = Scenario::load(path).unwrap();
    let options = RunOptions {
        max_ticks: Some(12_967),
        track_clearance: false,
        ..RunOptions::default()
    };
    let mut worst = 0;
    for seed in 0..=20u64 {
        let mut s = base.clone();
        if seed == 0 {
            s.perturbation = None;
        } else {
            s.perturbation.as_mut().unwrap().seed = seed;
        }
        let (mut sim, driver) = s.build().unwrap();
        let r = driver.run(&mut sim, &options).unwrap();
        assert!(
            r.all_reached,
            "seed {seed}: not done after {} ticks",
            r.ticks
        );
        worst = worst.max(r.ticks);
        println!("blocks seed {seed}: {} ticks", r.ticks);
    }
    println!("blocks worst: {worst} ticks");
}

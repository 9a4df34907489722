//! Scenes with obstacles: RVO2's Roadmap reaches every goal, and the wall-holding
//! scenes (corner crush in a clockwise room, counterflow through a one-agent door, a corridor
//! entered from both ends) never let an agent centre cross a wall nor obstacle clearance fall
//! below -0.001. RVO2's Blocks is checked against RVO2's own distribution of runs in
//! `rvo2_float` (`blocks_ticks_are_drawn_from_rvo2s_distribution`).
//!
//! The scenes are the files of `fixtures/scenarios/` (`roadmap`, `corner_crush`,
//! `door_counterflow`, `corridor`), steered by their own policies, except the door scene,
//! which is steered by the hand-written door rule `scenes::door_prefs`.
#![allow(clippy::float_arithmetic)]

use crate::common::scenes;
use lockstep_orca::Vec2;
use lockstep_orca::scenario::AgentSpec;

const CLEARANCE_FLOOR: f64 = -0.001;

#[test]
fn roadmap_reaches_all_goals_within_rvo2_band() {
    let mut scene = scenes::load("roadmap");
    let r = scenes::run(&mut scene, 20_000, scenes::driver_prefs);
    println!("roadmap: {r:?}");
    assert_eq!(r.reached, 100);
    assert!((2588..=4810).contains(&r.ticks), "ticks {}", r.ticks);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
    assert_eq!(r.crossings, 0);
}

#[test]
fn corner_crush_in_clockwise_room_holds() {
    let mut scene = scenes::load("corner_crush");
    let r = scenes::run(&mut scene, 600, scenes::driver_prefs);
    println!("corner crush: {r:?}");
    assert_eq!(r.ticks, 600);
    assert_eq!(r.crossings, 0);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
}

#[test]
fn counterflow_through_one_agent_door_holds() {
    let mut scene = scenes::load("door_counterflow");
    let r = scenes::run(&mut scene, 2_000, scenes::door_prefs);
    println!("door: {r:?}");
    assert_eq!(r.crossings, 0);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
}

#[test]
fn corridor_entered_from_both_ends_holds() {
    let mut c = scenes::load("corridor");
    let mut mon = scenes::Monitor::new(&c.sim);
    for _ in 0..1_200 {
        let before = c.sim.num_agents();
        let tick = c.sim.tick();
        c.driver.apply_events(&mut c.sim, tick).unwrap();
        if c.sim.num_agents() != before {
            // New agents: restart position tracking for them (no previous position).
            let worst = mon.report.min_obstacle_clearance;
            let crossings = mon.report.crossings;
            let pair = mon.report.min_agent_clearance;
            mon = scenes::Monitor::new(&c.sim);
            mon.report.min_obstacle_clearance = mon.report.min_obstacle_clearance.min(worst);
            mon.report.min_agent_clearance = mon.report.min_agent_clearance.min(pair);
            mon.report.crossings += crossings;
        }
        c.driver.set_pref_velocities(&mut c.sim, tick).unwrap();
        c.sim.step().unwrap();
        mon.observe(&c.sim);
    }
    let reached = scenes::reached(&c);
    // Agents in the corridor that entered from each end (its ends: `scenes::entries`).
    let spawned: Vec<usize> = scenes::entries(&c.driver)
        .iter()
        .map(|end| {
            let goal = end[0].goal;
            (c.driver.agent_ids().iter().zip(&c.goals))
                .filter(|&(&id, &g)| g == goal && c.sim.contains_agent(id))
                .count()
        })
        .collect();
    println!(
        "corridor: {:?}, spawned {spawned:?}, reached {reached}",
        mon.report
    );
    assert_eq!(c.sim.num_agents(), 40);
    assert_eq!(spawned, [20, 20]);
    assert_eq!(mon.report.crossings, 0);
    assert!(
        mon.report.min_obstacle_clearance >= CLEARANCE_FLOOR,
        "{:?}",
        mon.report
    );
}

/// One step, from the door scene's first penetration (tick 688, agent 12, before the exact
/// foreign-leg test): an agent resting 4 ulps beyond its radius against a two-vertex wall,
/// sliding along it, asked to move into it. The wall's far-end leg used to round to "foreign",
/// the wall added no ORCA line, and the agent stepped into the wall.
#[test]
fn agent_resting_on_a_wall_cannot_step_into_it() {
    // The door scene's parameters and the upper part of its wall, (0, 0.6) → (0, 5).
    let door = scenes::scenario("door_counterflow");
    let wall = door.obstacles[2].clone();
    assert!(
        matches!(&wall, lockstep_orca::ObstacleShape::Polyline(v) if v.len() == 2),
        "{wall:?}"
    );
    let mut sim = lockstep_orca::Simulator::new(scenes::params(&door)).unwrap();
    sim.set_liveness(lockstep_orca::Liveness::Rvo2); // RVO2's behaviour, compared with RVO2
    sim.add_obstacle(wall).unwrap();
    let id = sim
        .add_agent(lockstep_orca::Vec2::from_bits(
            -2_147_483_652,
            2_614_744_367,
        ))
        .unwrap();
    sim.set_agent_velocity(id, lockstep_orca::Vec2::from_bits(6, -97_800_601))
        .unwrap();
    sim.set_agent_pref_velocity(id, scenes::v(1.0, -1.0))
        .unwrap();
    let mut mon = scenes::Monitor::new(&sim);
    sim.step().unwrap();
    mon.observe(&sim);
    println!("one step: {:?}", mon.report);
    assert!(mon.report.min_obstacle_clearance >= 0.0, "{:?}", mon.report);
}

/// The mechanism of the Blocks seed-1 jam, alone: two touching agents head-on along the face
/// x = 10 of a block, each pressed into it by its goal direction and wanting to pass the other.
/// Each optimum is the corner of the wall line and the agent line ("don't approach"), so
/// neither moves, perturbation or not: ORCA (and RVO2) has no deadlock resolution.
#[test]
fn head_on_pair_against_a_wall_jams() {
    // Blocks (its parameters, policy, perturbation and goal tolerance) with one block, the
    // one with the face x = 10 from (10, 10) to (10, 40), and two agents.
    let mut blocks = scenes::scenario("blocks");
    blocks.obstacles = vec![blocks.obstacles[1].clone()];
    assert_eq!(
        blocks.obstacles[0].vertices()[..2],
        [scenes::v(10.0, 40.0), scenes::v(10.0, 10.0)]
    );
    let agent = |start, goal| AgentSpec {
        start,
        goal,
        velocity: Vec2::ZERO,
        params: blocks.defaults,
        model: Default::default(),
    };
    blocks.agents = vec![
        agent(scenes::v(8.0, 24.0), scenes::v(75.0, -75.0)),
        agent(scenes::v(8.0, 20.0), scenes::v(75.0, 75.0)),
    ];
    let mut scene = scenes::build(&blocks);
    let start: Vec<_> = [0, 1]
        .map(|i| scene.sim.agent_position(lockstep_orca::AgentId(i)).unwrap())
        .to_vec();
    let r = scenes::run(&mut scene, 2_000, scenes::driver_prefs);
    let end: Vec<_> = [0, 1]
        .map(|i| scene.sim.agent_position(lockstep_orca::AgentId(i)).unwrap())
        .to_vec();
    println!("head-on pair: {start:?} -> {end:?}, {r:?}");
    assert_eq!(r.reached, 0);
    // Not a bit moved: both optima are exactly zero.
    assert_eq!(start, end);
    assert!(r.min_obstacle_clearance >= CLEARANCE_FLOOR, "{r:?}");
}

/// `corridor.toml`'s `add_agent` events are the corridor's entry rule: every 6 ticks, at each
/// end in turn, the end's next agent enters if fewer than 20 came from that end and every agent
/// is farther than 1.3 from its start (the other end's agent of the same tick included);
/// nobody enters at other ticks. Checked over the file's whole run (1,200 ticks).
#[test]
fn corridor_events_are_its_entry_rule() {
    let mut c = scenes::load("corridor");
    assert_eq!(c.driver.events().len(), 40);
    let ends = scenes::entries(&c.driver);
    assert_eq!(ends.iter().map(Vec::len).collect::<Vec<_>>(), [20, 20]);
    assert_eq!(corridor_entries(&mut c), Ok([20, 20]));
}

/// Runs a corridor scene to its tick limit against the entry rule of
/// [`corridor_events_are_its_entry_rule`]: the agents that entered at each end, or the first
/// disagreement: `(end, entry index, tick, whether the rule lets it enter)`.
fn corridor_entries(c: &mut scenes::Scene) -> Result<[usize; 2], (usize, usize, u64, bool)> {
    let ends = scenes::entries(&c.driver);
    let mut spawned = [0usize; 2];
    while c.sim.tick() < c.driver.max_ticks() {
        let tick = c.sim.tick();
        let mut occupied: Vec<lockstep_orca::Vec2> = (c.sim.agent_ids().iter())
            .map(|&id| c.sim.agent_position(id).unwrap())
            .collect();
        for (side, end) in ends.iter().enumerate() {
            let next = end.get(spawned[side]);
            let enters = tick.is_multiple_of(6)
                && next.is_some_and(|e| {
                    occupied.iter().all(|&p| {
                        let (dx, dy) = (p - e.start).to_f64();
                        dx * dx + dy * dy > 1.3 * 1.3
                    })
                });
            if next.is_some_and(|e| e.tick == tick) != enters {
                return Err((side, spawned[side], tick, enters));
            }
            if enters {
                occupied.push(next.unwrap().start);
                spawned[side] += 1;
            }
        }
        scenes::driver_prefs(c);
        c.sim.step().unwrap();
    }
    Ok(spawned)
}

/// The tool that wrote `corridor.toml`'s event ticks (run by hand when the simulation's
/// behaviour changes: `cargo test --test conformance regenerate_corridor -- --ignored`): it
/// replays the file, and at the first tick where an end's next entry disagrees with the entry
/// rule of [`corridor_events_are_its_entry_rule`], moves that entry (and the end's later
/// ones, 6 ticks apart at least) to the tick the rule gives, then starts again, until every
/// entry agrees; then it rewrites the file's events, in place (by tick, the end starting at
/// x = -1 first).
#[test]
#[ignore = "a tool: rewrites fixtures/scenarios/corridor.toml"]
fn regenerate_corridor_events() {
    use lockstep_orca::scenario::EventAction;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/scenarios/corridor.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let head = &text[..text.find("[[event]]").unwrap()];
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("add_agent = "))
        .collect();
    let mut s = scenes::scenario("corridor");
    // Each event with its line in the file.
    let mut events: Vec<(lockstep_orca::scenario::Event, &str)> =
        s.events.iter().cloned().zip(lines).collect();
    let order = |e: &lockstep_orca::scenario::Event| match &e.action {
        EventAction::AddAgent(a) => (e.tick, u8::from(a.start.x > 0)),
        _ => (e.tick, 2),
    };
    for _round in 0..400 {
        s.events = events.iter().map(|(e, _)| e.clone()).collect();
        let mut c = scenes::build(&s);
        let ends = scenes::entries(&c.driver);
        // Enter now, or not before the next multiple of 6.
        let fix = corridor_entries(&mut c)
            .err()
            .map(|(side, k, tick, enters)| (side, k, if enters { tick } else { tick + 6 }));
        let Some((side, k, at)) = fix else {
            let mut out = head.to_string();
            for (i, (e, line)) in events.iter().enumerate() {
                let sep = if i + 1 == events.len() { "" } else { "\n" };
                out += &format!("[[event]]\ntick = {}\n{line}\n{sep}", e.tick);
            }
            std::fs::write(path, out).unwrap();
            return;
        };
        let goal = ends[side][0].goal;
        let (mut n, mut last) = (0, at);
        for (e, _) in &mut events {
            if let EventAction::AddAgent(a) = &e.action
                && a.goal == goal
            {
                if n == k {
                    e.tick = at;
                } else if n > k {
                    e.tick = e.tick.max(last + 6);
                    last = e.tick;
                }
                n += 1;
            }
        }
        events.sort_by_key(|(e, _)| order(e));
    }
    panic!("no fixed point in 400 rounds");
}

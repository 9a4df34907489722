//! The nineteenth session's review of the formation changes (c9d50f9, b36b707, 69b7644):
//! its reproductions, kept as regression tests (each failed on the commits reviewed).
#![allow(clippy::float_arithmetic)]

use lockstep_orca::navigation::NavParams;
use lockstep_orca::obstacle::ObstacleShape;
use lockstep_orca::orders::formation::{self, FormationKind};
use lockstep_orca::{AgentId, AgentParams, Command, Fx, Simulator, SimulatorParams, Vec2};
use std::collections::BTreeSet;

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}
fn f(x: &str, y: &str) -> Vec2 {
    Vec2::new(Fx::lit(x), Fx::lit(y))
}
fn rect(x0: i32, y0: i32, x1: i32, y1: i32) -> ObstacleShape {
    ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)])
}
fn nav(half: i32) -> NavParams {
    NavParams {
        boundary: Some(vec![
            v(-half, -half),
            v(half, -half),
            v(half, half),
            v(-half, half),
        ]),
        ..NavParams::default()
    }
}
/// `n` units (radius by `r(k)`) on a grid `gap` apart from `origin`, `cols` per row, group 3.
fn units(sim: &mut Simulator, n: i32, origin: Vec2, cols: i32, gap: i32, r: impl Fn(i32) -> Fx) {
    for k in 0..n {
        let params = AgentParams {
            radius: r(k),
            max_speed: Fx::lit("1.5"),
            ..AgentParams::default()
        };
        sim.add_agent_with(origin + v(gap * (k % cols), gap * (k / cols)), params)
            .unwrap();
    }
    let members = sim.agent_ids().to_vec();
    sim.apply(&Command::SetGroup { group: 3, members }).unwrap();
}
fn fm(goal: Vec2, kind: FormationKind) -> Command {
    Command::FormationMove {
        group: 3,
        goal,
        formation: kind,
        facing: None,
        spacing: None,
        slowest: false,
    }
}
fn fmarch(goal: Vec2, kind: FormationKind) -> Command {
    Command::FormationMarch {
        group: 3,
        goal,
        formation: kind,
        facing: None,
        spacing: None,
        slowest: false,
    }
}
fn half(_: i32) -> Fx {
    Fx::lit("0.5")
}

/// D1 (c9d50f9): a member's queued navigated legs survive a re-sent formation order.
#[test]
fn r1_resend_keeps_queued_legs() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    units(&mut sim, 9, v(-30, 0), 3, 2, half);
    sim.apply(&fm(v(20, 0), FormationKind::Box)).unwrap();
    for _ in 0..8 {
        sim.step().unwrap();
    }
    let id = AgentId(0);
    sim.apply(&Command::QueueMove {
        id,
        goal: v(-40, 40),
    })
    .unwrap();
    println!("legs after QueueMove: {:?}", sim.nav_legs(id).unwrap());
    sim.apply(&fm(v(20, 0), FormationKind::Box)).unwrap();
    println!(
        "legs after re-sent FormationMove: {:?}",
        sim.nav_legs(id).unwrap()
    );
    assert!(
        sim.nav_legs(id).unwrap().is_empty(),
        "the formation order did not replace the member's queued legs"
    );
}

/// D2 (c9d50f9): navigation turned on after a straight formation move; re-sending the same
/// order is a no-op, so the members keep straight MoveTo orders into a wall.
#[test]
fn r2_resend_after_navigation_on_is_noop() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(-2, -15, 2, 15)).unwrap();
    units(&mut sim, 9, v(-20, -2), 3, 2, half);
    sim.apply(&fm(v(15, 0), FormationKind::Box)).unwrap();
    for _ in 0..200 {
        sim.step().unwrap();
    }
    sim.set_navigation(Some(nav(100))).unwrap();
    let h = sim.state_hash();
    sim.apply(&fm(v(15, 0), FormationKind::Box)).unwrap();
    println!("hash unchanged by the re-send: {}", h == sim.state_hash());
    let navigating = sim
        .agent_ids()
        .iter()
        .filter(|&&id| sim.nav_status(id).unwrap().is_some())
        .count();
    for _ in 0..1200 {
        sim.step().unwrap();
    }
    let east = sim
        .agent_ids()
        .iter()
        .filter(|&&id| sim.agent_position(id).unwrap().x > Fx::ZERO)
        .count();
    println!(
        "members navigating after re-send: {navigating}/9, past the wall after 300 s: {east}/9"
    );
    assert_eq!(navigating, 9);
}

/// D4 (c9d50f9 + navigation): re-sending a march with navigation on changes the state (debt).
#[test]
fn r4_resent_march_with_navigation_changes_state() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    sim.add_obstacle(rect(-3, 2, 3, 30)).unwrap();
    sim.add_obstacle(rect(-3, -30, 3, -2)).unwrap();
    units(&mut sim, 16, v(-40, -3), 4, 2, half);
    sim.apply(&fmarch(v(30, 0), FormationKind::Box)).unwrap();
    for _ in 0..20 {
        sim.step().unwrap();
    }
    let h = sim.state_hash();
    let before = sim.clone();
    sim.apply(&fmarch(v(30, 0), FormationKind::Box)).unwrap();
    println!(
        "re-sent march: hash unchanged = {}; diff: {}",
        h == sim.state_hash(),
        lockstep_orca::snapshot::diff(&before, &sim)
    );
    assert_eq!(h, sim.state_hash());
}

/// D5 (b36b707): the record made at the end of a march starts with best = 0, so every
/// member still walking counts "no progress" from the first tick and replans after 3 s.
#[test]
fn r5_end_of_march_records_count_no_progress_while_walking() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    units(&mut sim, 16, v(-30, 0), 4, 2, half);
    sim.apply(&fmarch(v(30, 0), FormationKind::Box)).unwrap();
    while sim.formation(3).unwrap().march.is_some() {
        sim.step().unwrap();
    }
    // Push one member 10 back; it walks straight to its slot, in plain sight.
    let (id, slot) = sim.formation(3).unwrap().slots[0];
    sim.apply(&Command::SetPosition {
        id,
        position: slot - v(10, 0),
    })
    .unwrap();
    let r0 = sim.nav_status(id).unwrap().unwrap();
    println!("tick {} record {:?}", sim.tick(), r0);
    let mut last = (sim.agent_position(id).unwrap() - slot).length();
    let mut replanned = None;
    for t in 0..20 {
        sim.step().unwrap();
        let d = (sim.agent_position(id).unwrap() - slot).length();
        let r = sim.nav_status(id).unwrap().unwrap();
        println!(
            "t+{t}: dist {d:.3} (-{:.3}) no_progress {} pending {} planned {}",
            last - d,
            r.no_progress(),
            r.is_pending(),
            r.planned_tick()
        );
        if r.planned_tick() != r0.planned_tick() && replanned.is_none() {
            replanned = Some(t);
        }
        last = d;
    }
    assert!(
        replanned.is_none(),
        "replanned at t+{replanned:?} while closing in at full speed"
    );
}

/// D6 (69b7644): mixed radii: after the reassignment a large unit may get a slot placed
/// (and checked walkable) for a small one.
#[test]
fn r6_mixed_radii_slots_walkable_for_their_units() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(-12, -12, 0, 12)).unwrap();
    sim.set_navigation(Some(nav(60))).unwrap();
    let r = |k: i32| {
        if k % 3 == 0 {
            Fx::lit("1.5")
        } else {
            Fx::lit("0.4")
        }
    };
    units(&mut sim, 30, v(20, -8), 6, 4, r);
    let mut bad_total = 0;
    for goal in [
        f("0.5", "0"),
        f("1", "5"),
        f("0.3", "-6"),
        f("2", "11"),
        f("0.8", "3.3"),
    ] {
        sim.apply(&fm(goal, FormationKind::Box)).unwrap();
        let slots = sim.formation(3).unwrap().slots.clone();
        let bad: Vec<_> = slots
            .iter()
            .filter(|&&(id, s)| {
                !sim.nav_is_walkable(s, sim.agent_params(id).unwrap().radius)
                    .unwrap()
            })
            .map(|&(id, s)| (id.0, s.to_f64()))
            .collect();
        println!(
            "goal {:?}: {} slots not walkable for their unit: {:?}",
            goal.to_f64(),
            bad.len(),
            bad
        );
        bad_total += bad.len();
    }
    assert_eq!(bad_total, 0);
}

/// D9 (c9d50f9 + 69b7644): the same order re-sent near a building: does the slot set stay?
#[test]
fn r9_resend_near_building_idempotent() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(-12, -12, 0, 12)).unwrap();
    sim.set_navigation(Some(nav(60))).unwrap();
    units(&mut sim, 40, f("30", "-5"), 7, 2, half);
    let goal = f("0.37", "1.41");
    sim.apply(&fm(goal, FormationKind::Box)).unwrap();
    let set = |sim: &Simulator| -> BTreeSet<(i64, i64)> {
        sim.formation(3)
            .unwrap()
            .slots
            .iter()
            .map(|&(_, s)| (s.x.to_bits(), s.y.to_bits()))
            .collect()
    };
    let first = set(&sim);
    let mut restarts = 0;
    for k in 0..30 {
        for _ in 0..8 {
            sim.step().unwrap();
        }
        let h = sim.state_hash();
        sim.apply(&fm(goal, FormationKind::Box)).unwrap();
        if h != sim.state_hash() {
            restarts += 1;
            println!(
                "re-send {k} at tick {}: restarted; slot set same as first: {}",
                sim.tick(),
                set(&sim) == first
            );
        }
    }
    println!("restarts: {restarts}/30");
    assert_eq!(restarts, 0);
}

/// D5b: natural flow, stragglers right after the march.
#[test]
fn r5b_no_progress_after_march() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    sim.add_obstacle(rect(-3, 3, 3, 60)).unwrap();
    sim.add_obstacle(rect(-3, -60, 3, -3)).unwrap();
    units(&mut sim, 64, v(-50, -8), 8, 2, half);
    sim.apply(&fmarch(v(40, 0), FormationKind::Box)).unwrap();
    while sim.formation(3).unwrap().march.is_some() {
        sim.step().unwrap();
    }
    let end = sim.tick();
    let slots = sim.formation(3).unwrap().slots.clone();
    let mut maxnp = 0;
    let mut last: Vec<f64> = slots
        .iter()
        .map(|&(id, s)| (sim.agent_position(id).unwrap() - s).length().to_num())
        .collect();
    for t in 0..40 {
        sim.step().unwrap();
        for (k, &(id, s)) in slots.iter().enumerate() {
            let d: f64 = (sim.agent_position(id).unwrap() - s).length().to_num();
            if let Some(r) = sim.nav_status(id).unwrap()
                && r.no_progress() > maxnp
                && last[k] - d > 0.05
            {
                {
                    maxnp = r.no_progress();
                    let o = sim.agent_order(id).unwrap().unwrap();
                    println!(
                        "t+{t} id {} no_progress {} while dist {:.2} -> {:.2} finished {:?} path {:?} next {} slot {:?} rec {:?}",
                        id.0,
                        r.no_progress(),
                        last[k],
                        d,
                        sim.order_status(id).unwrap(),
                        o.path(),
                        o.progress(),
                        s,
                        r
                    );
                }
            }
            last[k] = d;
        }
    }
    let distinct = slots
        .iter()
        .filter(|&&(id, _)| {
            sim.nav_status(id)
                .unwrap()
                .is_some_and(|r| r.planned_tick() > end)
        })
        .count();
    println!(
        "max no_progress while closing in: {maxnp}; members replanned within 10 s of the march's end: {distinct}/64"
    );
}

/// D5c: members replanned by the "no progress" trigger while walking steadily to their slot.
#[test]
fn r5c_false_stuck_after_march() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    sim.add_obstacle(rect(-3, 3, 3, 60)).unwrap();
    sim.add_obstacle(rect(-3, -60, 3, -3)).unwrap();
    units(&mut sim, 64, v(-50, -8), 8, 2, half);
    sim.apply(&fmarch(v(40, 0), FormationKind::Box)).unwrap();
    while sim.formation(3).unwrap().march.is_some() {
        sim.step().unwrap();
    }
    let slots = sim.formation(3).unwrap().slots.clone();
    let mut streak = vec![0u32; slots.len()];
    let mut last: Vec<f64> = slots
        .iter()
        .map(|&(id, s)| (sim.agent_position(id).unwrap() - s).length().to_num())
        .collect();
    let mut false_stuck = BTreeSet::new();
    for _ in 0..80 {
        sim.step().unwrap();
        for (k, &(id, s)) in slots.iter().enumerate() {
            let d: f64 = (sim.agent_position(id).unwrap() - s).length().to_num();
            streak[k] = if last[k] - d >= 0.05 {
                streak[k] + 1
            } else {
                0
            };
            last[k] = d;
            if let Some(r) = sim.nav_status(id).unwrap()
                && r.no_progress() >= 8
                && streak[k] >= 8
            {
                {
                    false_stuck.insert(id.0);
                }
            }
        }
    }
    println!(
        "members counted 'no progress' for >= 2 s while closing in >= 0.05 per tick for >= 2 s: {false_stuck:?}"
    );
    assert!(false_stuck.is_empty());
}

/// K1: kept_facing: a Keep order falling back to a box (click inside the group) turns it round;
/// a re-formed group sent to the old goal from the other side keeps the old facing.
#[test]
fn r10_kept_facing_cases() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    units(&mut sim, 16, v(-30, 0), 4, 2, half);
    sim.apply(&fm(v(20, 0), FormationKind::Box)).unwrap();
    for _ in 0..1200 {
        sim.step().unwrap();
    }
    let facing0 = sim.formation(3).unwrap().facing;
    let ps: Vec<Vec2> = sim
        .agent_ids()
        .iter()
        .map(|&id| sim.agent_position(id).unwrap())
        .collect();
    let c = formation::centre(&ps).unwrap();
    sim.apply(&fm(c + f("0.1", "-0.3"), FormationKind::Keep))
        .unwrap();
    let fo = sim.formation(3).unwrap();
    let moved = fo
        .slots
        .iter()
        .filter(|&&(id, s)| (sim.agent_position(id).unwrap() - s).length() > Fx::ONE)
        .count();
    println!(
        "Keep click at the centre: placed {:?}, facing {:?} -> {:?}, units more than 1 from their slot: {moved}/16",
        fo.placed,
        facing0.to_f64(),
        fo.facing.to_f64()
    );
    // A new group east of the goal, sent to the old goal.
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    units(&mut sim, 16, v(-30, 0), 4, 2, half);
    sim.apply(&fm(v(20, 0), FormationKind::Box)).unwrap();
    for k in 0..16 {
        sim.add_agent(v(80 + 2 * (k % 4), 2 * (k / 4))).unwrap();
    }
    let members: Vec<AgentId> = (16..32).map(AgentId).collect();
    sim.apply(&Command::SetGroup { group: 3, members }).unwrap();
    sim.apply(&fm(v(20, 0), FormationKind::Box)).unwrap();
    println!(
        "new members east of the old goal: facing {:?} (towards the goal would be (-1, 0))",
        sim.formation(3).unwrap().facing.to_f64()
    );
}

fn march_scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    sim.add_obstacle(rect(-3, 3, 3, 60)).unwrap();
    sim.add_obstacle(rect(-3, -60, 3, -3)).unwrap();
    units(&mut sim, 25, v(-50, -5), 5, 2, half);
    sim.add_agent(v(-90, 90)).unwrap(); // a runner, not in the group
    sim.apply(&Command::SetGroup {
        group: 3,
        members: (0..25).map(AgentId).collect(),
    })
    .unwrap();
    sim.apply(&fmarch(v(40, 0), FormationKind::Box)).unwrap();
    sim
}

/// C1: a failed step at the march's end tick, and a snapshot right after it.
#[test]
fn r11_march_end_undo_and_snapshot() {
    let mut sim = march_scene();
    while sim.formation(3).unwrap().march.is_some() {
        sim.step().unwrap();
    }
    let end = sim.tick();
    // Failed step at the end tick.
    let mut b = march_scene();
    while b.tick() + 1 < end {
        b.step().unwrap();
    }
    let runner = AgentId(25);
    let edge = Fx::from_num(1_000_000) - Fx::lit("0.1");
    b.set_agent_position(runner, Vec2::new(edge, Fx::ZERO))
        .unwrap();
    b.set_agent_velocity(runner, v(2, 0)).unwrap();
    b.queue_command(
        b.tick(),
        Command::SetPrefVelocity {
            id: runner,
            v: v(2, 0),
        },
    )
    .unwrap();
    let (h, bytes) = (b.state_hash(), b.snapshot());
    let r = b.step();
    println!(
        "failed step at the march end tick: {r:?}; state unchanged: {}",
        h == b.state_hash() && bytes == b.snapshot()
    );
    assert_eq!(h, b.state_hash());
    // Snapshot right after the end: restore and continue in lockstep.
    let mut r = Simulator::restore(&sim.snapshot()).unwrap();
    let complete = sim
        .agent_ids()
        .iter()
        .filter(|&&id| {
            sim.nav_status(id)
                .unwrap()
                .is_some_and(|r| r.status().is_some())
        })
        .count();
    for _ in 0..400 {
        sim.step().unwrap();
        r.step().unwrap();
    }
    println!(
        "records with a status after the march: {complete}; restored run identical after 400 ticks: {}",
        sim.state_hash() == r.state_hash()
    );
    assert_eq!(sim.state_hash(), r.state_hash());
}

/// F5: members whose orders gave up: the same click again is a no-op, they never retry.
#[test]
fn r12_given_up_members_never_retry() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    let mut st = sim.steering();
    st.give_up_after = Some(Fx::from_num(3));
    sim.set_steering(st).unwrap();
    let wall = sim.obstacles().next_id();
    sim.add_obstacle(rect(-2, -15, 2, 15)).unwrap();
    units(&mut sim, 9, v(-20, -2), 3, 2, half);
    sim.apply(&fm(v(15, 0), FormationKind::Box)).unwrap();
    for _ in 0..400 {
        sim.step().unwrap();
    }
    let given_up = sim
        .agent_ids()
        .iter()
        .filter(|&&id| {
            sim.order_status(id).unwrap() == Some(lockstep_orca::orders::OrderStatus::GivenUp)
        })
        .count();
    // The gate opens; the player clicks the same spot again.
    sim.remove_obstacle(wall).unwrap();
    let h = sim.state_hash();
    sim.apply(&fm(v(15, 0), FormationKind::Box)).unwrap();
    let noop = h == sim.state_hash();
    for _ in 0..800 {
        sim.step().unwrap();
    }
    let east = sim
        .agent_ids()
        .iter()
        .filter(|&&id| sim.agent_position(id).unwrap().x > Fx::ZERO)
        .count();
    println!(
        "given up: {given_up}/9; re-click was a no-op: {noop}; past the old wall 200 s later: {east}/9"
    );
    assert!(!noop);
}

/// S1: a building at the domain's edge, default boundary (obstacles' box + 8): slots moved
/// out of it may leave the domain.
#[test]
fn r13_slots_at_the_domain_edge() {
    let e = 1_000_000;
    for (x0, gx) in [(e - 30, e - 20), (e - 14, e - 9)] {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        sim.add_obstacle(rect(x0, -20, e - 2, 20)).unwrap();
        sim.set_navigation(Some(NavParams::default())).unwrap();
        units(&mut sim, 16, v(x0 - 20, -4), 4, 2, half);
        // Another agent with a navigation record, to see whether a rejected apply changes it.
        let (h, bytes) = (sim.state_hash(), sim.snapshot());
        let before = sim.clone();
        let r = sim.apply(&fm(v(gx, 0), FormationKind::Box));
        let d = lockstep_orca::snapshot::diff(&before, &sim).to_string();
        println!("diff: {}", &d[..d.len().min(600)]);
        match r {
            Ok(_) => {
                let out = sim
                    .formation(3)
                    .unwrap()
                    .slots
                    .iter()
                    .filter(|&&(_, s)| s.x > Fx::from_num(e))
                    .count();
                let maxx = sim
                    .formation(3)
                    .unwrap()
                    .slots
                    .iter()
                    .map(|&(_, s)| s.x)
                    .max()
                    .unwrap();
                println!("goal x {gx}: applied; slots beyond the domain: {out}; largest x {maxx}");
            }
            Err(err) => println!(
                "goal x {gx}: rejected: {err:?}; state unchanged: {}",
                h == sim.state_hash() && bytes == sim.snapshot()
            ),
        }
    }
}

/// S2: the rejected formation move of S1, queued: the step goes on, and its snapshot?
#[test]
fn r14_rejected_formation_leaves_a_record_without_order() {
    let e = 1_000_000;
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(e - 14, -20, e - 2, 20)).unwrap();
    sim.set_navigation(Some(NavParams::default())).unwrap();
    units(&mut sim, 16, v(e - 34, -4), 4, 2, half);
    sim.queue_command(0, fm(v(e - 9, 0), FormationKind::Box))
        .unwrap();
    sim.step().unwrap();
    println!(
        "rejected: {:?}",
        sim.rejected_commands()
            .iter()
            .map(|r| &r.error)
            .collect::<Vec<_>>()
    );
    assert_restores(&sim);
}

/// S3: the same rejected formation move applied directly: a record without an order.
#[test]
fn r15_rejected_apply_snapshot() {
    let e = 1_000_000;
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(e - 14, -20, e - 2, 20)).unwrap();
    sim.set_navigation(Some(NavParams::default())).unwrap();
    units(&mut sim, 16, v(e - 34, -4), 4, 2, half);
    let r = sim.apply(&fm(v(e - 9, 0), FormationKind::Box));
    println!("apply: {r:?}");
    assert_restores(&sim);
}

/// OK1: the common repeated click with navigation in open ground is a no-op, moving and at rest.
#[test]
fn r16_repeated_click_with_navigation() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(nav(100))).unwrap();
    sim.add_obstacle(rect(-3, 3, 3, 60)).unwrap();
    units(&mut sim, 30, v(-40, -8), 6, 2, half);
    let mut restarts = 0;
    for k in 0..200 {
        if k % 4 == 0 {
            let h = sim.state_hash();
            sim.apply(&fm(v(30, 10), FormationKind::Box)).unwrap();
            if k > 0 && h != sim.state_hash() {
                restarts += 1;
            }
        }
        sim.step().unwrap();
    }
    println!(
        "restarts on 49 re-clicks with navigation: {restarts}; status {:?}",
        sim.formation_status(3).unwrap().status
    );
    assert_eq!(restarts, 0);
}

/// Above 64 units, the units are assigned again to slots moved out of a building with the
/// layout's own bands (a line of 100 used bands of 10 and walked up to 4.3 % farther).
#[test]
fn r7_line_reassignment_band() {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(rect(-20, -60, 0, 60)).unwrap();
    sim.set_navigation(Some(nav(150))).unwrap();
    units(&mut sim, 100, v(30, -40), 5, 3, half);
    let positions: Vec<Vec2> = sim
        .agent_ids()
        .iter()
        .map(|&id| sim.agent_position(id).unwrap())
        .collect();
    sim.apply(&fm(f("1", "0"), FormationKind::Line)).unwrap();
    let fo = sim.formation(3).unwrap().clone();
    let targets: Vec<Vec2> = fo.slots.iter().map(|&(_, s)| s).collect();
    let cost = |to: &[usize]| -> f64 {
        positions
            .iter()
            .zip(to)
            .map(|(p, &s)| (targets[s] - *p).length().to_num::<f64>())
            .sum()
    };
    let actual: f64 = positions
        .iter()
        .zip(&fo.slots)
        .map(|(p, &(_, s))| (s - *p).length().to_num::<f64>())
        .sum();
    let (_, band) = formation::layout(FormationKind::Line, 100, Fx::lit("2.5"));
    let with_layout_band = cost(&formation::assign(&positions, &targets, fo.facing, band));
    assert!(actual <= with_layout_band + 1e-6);
}

/// Prints agent 0's order and record, and asserts that the state's snapshot restores.
fn assert_restores(sim: &Simulator) {
    println!(
        "agent 0: order {:?}, nav record {:?}",
        sim.agent_order(AgentId(0)).unwrap().map(|o| o.goal()),
        sim.nav_status(AgentId(0)).unwrap().map(|r| r.goal())
    );
    let restored = Simulator::restore(&sim.snapshot());
    println!("restore of the snapshot: {:?}", restored.as_ref().err());
    assert!(restored.is_ok());
}

//! One-step conformance with C++ RVO2 on scenes with obstacles
//! (`fixtures/rvo2/rvo2_onestep_obstacles.jsonl`, format in `fixtures/rvo2/REFERENCE.md`).
//!
//! Acceptance (issue 3): at least 99.5 % of the 3,387 new velocities within 1e-3 of RVO2's, the
//! rest shown to be ill-conditioned. Met in the RVO2-compatible obstacle neighbour mode
//! ([`ObstacleNeighbors::Rvo2Fragments`], run through the `Simulator`); the default whole-edge
//! mode is measured too, and every one of its differences is explained.
//!
//! Every velocity beyond 1e-3 must fall in one of these classes (checked in this order; each
//! check is an assertion on our own numbers, not a tolerance):
//! 1. **Walls infeasible.** LP2 failed on an obstacle line: the obstacle lines alone have no
//!    common point in the speed circle. RVO2's LP3 keeps every obstacle line in each projected
//!    program, so each of them fails and RVO2 returns LP2's partial result (checked: within
//!    1e-3), which crosses a wall; we deliberately minimise the largest wall violation instead
//!    (`lp::solve`). Checked: our largest obstacle-line violation is smaller than RVO2's.
//! 2. **RVO2's `f32` LP3 is off.** LP2 failed on an agent line and LP3 minimises the largest
//!    agent-line violation (deep overlaps: violations of 7 to 13 units). Our answer is feasible
//!    (inside the speed circle, obstacle lines kept) and is the LP3 optimum (the problem is
//!    convex; checked by sampling its neighbourhood), while RVO2's velocity leaves the speed
//!    circle by more than 1e-4 or violates more. Two nearly opposite agent lines are tied at
//!    the optimum; RVO2 anchors their projected line at their intersection, `A` ≈ 130–300 units
//!    away, and `f32` LP1 then loses about `ε·A²/max_speed` (ε = 2⁻²⁴), which is checked to be
//!    at least a fifth of the observed difference: RVO2's own rounding error has the size of
//!    the difference. (A ±1e-6 nudge of the inputs moves our exact answer by only ~1e-5 here:
//!    the ill-conditioning is in RVO2's float algorithm, not in the problem.)
//! 3. **Ill-conditioned input.** Moving the agent by 1e-6 (about one `f32` ulp of the
//!    fixture's coordinates) in one of four directions moves our own output by more than the
//!    observed difference.
//!
//! In whole-edge mode, every difference is either reproduced by `Rvo2Fragments` mode (RVO2's
//! split fragments) or is one of that mode's own outliers, explained as above.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::obstacle::{ObstacleAgent, ObstacleNeighbors, ObstacleSet};
use lockstep_orca::orca::Line;
use lockstep_orca::orca::lines::{AgentState, agent_line};
use lockstep_orca::orca::lp;
use lockstep_orca::{AgentId, AgentParams, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2};
use serde_json::Value;

fn fx(v: &Value) -> Fx {
    Fx::from_num(v.as_f64().unwrap())
}

fn v2(v: &Value) -> Vec2 {
    Vec2::new(fx(&v[0]), fx(&v[1]))
}

fn cases() -> Vec<Value> {
    std::fs::read_to_string("fixtures/rvo2/rvo2_onestep_obstacles.jsonl")
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn rvo2_velocity(case: &Value, k: usize) -> (f64, f64) {
    let a = &case["agents"][k];
    (
        a["new_vel"][0].as_f64().unwrap(),
        a["new_vel"][1].as_f64().unwrap(),
    )
}

/// Runs one scene through the `Simulator` in `mode`, with agent `nudge.0`'s position moved by
/// `nudge.1`; returns the new velocities.
fn run(case: &Value, mode: ObstacleNeighbors, nudge: Option<(usize, Vec2)>) -> Vec<(f64, f64)> {
    let defaults = AgentParams {
        neighbor_dist: fx(&case["neighbor_dist"]),
        max_neighbors: case["max_neighbors"].as_u64().unwrap() as u32,
        time_horizon: fx(&case["time_horizon"]),
        time_horizon_obst: fx(&case["time_horizon_obst"]),
        radius: Fx::ONE,
        max_speed: fx(&case["max_speed"]),
        priority: lockstep_orca::DEFAULT_PRIORITY,
    };
    let mut sim = Simulator::new(SimulatorParams {
        time_step: fx(&case["time_step"]),
        agent_defaults: defaults,
    })
    .unwrap();
    sim.set_liveness(lockstep_orca::Liveness::Rvo2); // RVO2's behaviour, compared with RVO2
    sim.set_obstacle_neighbor_mode(mode);
    assert_eq!(sim.obstacles().neighbor_mode(), mode);
    for poly in case["obstacles"].as_array().unwrap() {
        let verts: Vec<Vec2> = poly.as_array().unwrap().iter().map(v2).collect();
        sim.add_obstacle(ObstacleShape::Polygon(verts)).unwrap();
    }
    let mut ids = Vec::new();
    for (k, a) in case["agents"].as_array().unwrap().iter().enumerate() {
        let mut pos = v2(&a["pos"]);
        if let Some((i, d)) = nudge
            && i == k
        {
            pos += d;
        }
        let params = AgentParams {
            radius: fx(&a["radius"]),
            ..defaults
        };
        let id = sim.add_agent_with(pos, params).unwrap();
        sim.set_agent_velocity(id, v2(&a["vel"])).unwrap();
        sim.set_agent_pref_velocity(id, v2(&a["pref"])).unwrap();
        ids.push(id);
    }
    sim.step().unwrap();
    ids.iter()
        .map(|&id| sim.agent_velocity(id).unwrap().to_f64())
        .collect()
}

/// What the tick computes for agent `k`, replicated outside the simulator.
struct Replica {
    velocity: (f64, f64),
    lines: Vec<Line>,
    num_obstacle_lines: usize,
    max_speed: f64,
    /// LP2's outcome: the line it failed on and its partial result, if infeasible.
    lp2_failure: Option<(usize, (f64, f64))>,
}

fn replicate(case: &Value, k: usize, mode: ObstacleNeighbors) -> Replica {
    let mut set = ObstacleSet::default();
    set.set_neighbor_mode(mode);
    for poly in case["obstacles"].as_array().unwrap() {
        let verts: Vec<Vec2> = poly.as_array().unwrap().iter().map(v2).collect();
        set.add(ObstacleShape::Polygon(verts)).unwrap();
    }
    set.ensure_built();
    let agents = case["agents"].as_array().unwrap();
    let a = &agents[k];
    let max_speed = fx(&case["max_speed"]);
    let agent = ObstacleAgent {
        id: AgentId(k as u32),
        position: v2(&a["pos"]),
        velocity: v2(&a["vel"]),
        radius: fx(&a["radius"]),
        max_speed,
        time_horizon_obst: fx(&case["time_horizon_obst"]),
    };
    let mut lines = Vec::new();
    let n_obst = set.agent_lines(&agent, &mut lines);
    if mode == ObstacleNeighbors::Rvo2Fragments {
        // The analysis helper (temporary exhaustive tree) agrees with the cached mode.
        let mut again = Vec::new();
        ObstacleSet::agent_lines_rvo2_fragments(&set, &agent, &mut again);
        assert_eq!(again, lines[..n_obst]);
    }
    let me = AgentState {
        id: agent.id,
        position: agent.position,
        velocity: agent.velocity,
        radius: agent.radius,
    };
    let nd = fx(&case["neighbor_dist"]);
    let mut others: Vec<(i128, usize)> = agents
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .map(|(j, o)| ((v2(&o["pos"]) - me.position).length_squared_wide(), j))
        .filter(|(d, _)| *d < lockstep_orca::math::wide_mul(nd, nd))
        .collect();
    others.sort();
    others.truncate(case["max_neighbors"].as_u64().unwrap() as usize);
    for (_, j) in others {
        let o = &agents[j];
        let other = AgentState {
            id: AgentId(j as u32),
            position: v2(&o["pos"]),
            velocity: v2(&o["vel"]),
            radius: fx(&o["radius"]),
        };
        lines.push(agent_line(
            &me,
            &other,
            fx(&case["time_horizon"]),
            fx(&case["time_step"]),
        ));
    }
    let pref = v2(&a["pref"]);
    let lp2_failure = match lp::lp2(&lines, max_speed, lp::Objective::Closest(pref)) {
        lp::Lp2Outcome::Feasible(_) => None,
        lp::Lp2Outcome::Infeasible {
            failed_line,
            partial,
        } => Some((failed_line, partial.to_f64())),
    };
    let mut scratch = Vec::new();
    let v = lp::solve(&lines, n_obst, max_speed, pref, &mut scratch);
    Replica {
        velocity: v.to_f64(),
        lines,
        num_obstacle_lines: n_obst,
        max_speed: max_speed.to_num::<f64>(),
        lp2_failure,
    }
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// How far `v` lies on the forbidden side of `line` (positive = violated).
fn violation(line: &Line, v: (f64, f64)) -> f64 {
    let (dx, dy) = line.direction.to_f64();
    let (px, py) = line.point.to_f64();
    dx * (py - v.1) - dy * (px - v.0)
}

fn max_violation(lines: &[Line], v: (f64, f64)) -> f64 {
    lines
        .iter()
        .map(|l| violation(l, v))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Why our velocity differs from RVO2's by more than 1e-3 (see the module docs), or `None`.
fn explain(case: &Value, k: usize, mode: ObstacleNeighbors, ours: (f64, f64)) -> Option<String> {
    let want = rvo2_velocity(case, k);
    let e = dist(ours, want);
    let r = replicate(case, k, mode);
    assert!(
        dist(r.velocity, ours) < 1e-9,
        "replication of the tick differs"
    );
    let (obst, agent) = r.lines.split_at(r.num_obstacle_lines);
    // 1. Walls infeasible: RVO2 keeps LP2's partial result.
    if let Some((failed, partial)) = r.lp2_failure
        && failed < r.num_obstacle_lines
        && dist(partial, want) <= 1e-3
    {
        let (wall_ours, wall_rvo2) = (max_violation(obst, ours), max_violation(obst, want));
        assert!(
            wall_ours < wall_rvo2,
            "walls infeasible, yet ours crosses them more ({wall_ours} >= {wall_rvo2})"
        );
        return Some(format!(
            "walls infeasible: RVO2 kept LP2's partial result (wall violation ours {wall_ours:.3e}, RVO2 {wall_rvo2:.3e})"
        ));
    }
    // 2. LP3 over agent lines, where RVO2's f32 LP3 is off.
    if let Some((failed, _)) = r.lp2_failure
        && failed >= r.num_obstacle_lines
    {
        let speed = |v: (f64, f64)| v.0.hypot(v.1);
        let feasible =
            |v: (f64, f64)| speed(v) <= r.max_speed + 1e-9 && max_violation(obst, v) <= 1e-9;
        let (obj_ours, obj_rvo2) = (max_violation(agent, ours), max_violation(agent, want));
        let rvo2_off = speed(want) > r.max_speed + 1e-4
            || max_violation(obst, want) > 1e-4
            || obj_rvo2 > obj_ours + 1e-5;
        // RVO2's error estimate: the agent lines tied at our optimum, if two of them are nearly
        // opposite, meet at A = |intersection| from the origin, where RVO2 anchors their
        // projected line; f32 LP1 then loses about ε·A²/max_speed (ε = 2⁻²⁴).
        let tied: Vec<&Line> = agent
            .iter()
            .filter(|l| violation(l, ours) > obj_ours - 1e-6)
            .collect();
        let mut f32_error: f64 = 0.0;
        for (x, a) in tied.iter().enumerate() {
            for b in &tied[x + 1..] {
                let (da, db) = (a.direction.to_f64(), b.direction.to_f64());
                let sin = da.0 * db.1 - da.1 * db.0;
                if sin.abs() < 1e-12 {
                    continue;
                }
                let (pa, pb) = (a.point.to_f64(), b.point.to_f64());
                let t = (db.0 * (pa.1 - pb.1) - db.1 * (pa.0 - pb.0)) / sin;
                let anchor = (pa.0 + t * da.0).hypot(pa.1 + t * da.1);
                f32_error = f32_error.max(anchor * anchor / 16_777_216.0 / r.max_speed);
            }
        }
        if feasible(ours) && rvo2_off && f32_error >= e / 5.0 {
            // Ours is the LP3 optimum: the problem is convex, so it suffices that no feasible
            // point near ours does better.
            for ring in 1..=40 {
                let rad = 0.02 * f64::from(ring) / 40.0;
                for s in 0..256 {
                    let ang = std::f64::consts::TAU * f64::from(s) / 256.0;
                    let p = (ours.0 + rad * ang.cos(), ours.1 + rad * ang.sin());
                    let q = if speed(p) > r.max_speed {
                        let f = r.max_speed / speed(p) * (1.0 - 1e-12);
                        (p.0 * f, p.1 * f)
                    } else {
                        p
                    };
                    assert!(
                        !feasible(q) || max_violation(agent, q) >= obj_ours - 1e-7,
                        "ours is not the LP3 optimum: {q:?} does better"
                    );
                }
            }
            return Some(format!(
                "RVO2's f32 LP3 off: |v| RVO2 {:.6} (max {:.6}), max violation ours {obj_ours:.6} (optimal), RVO2 {obj_rvo2:.6}; f32 error estimate {f32_error:.1e}",
                speed(want),
                r.max_speed
            ));
        }
    }
    // 3. Ill-conditioned: a 1e-6 nudge moves our own output by more than the difference.
    let step = Fx::from_num(1e-6);
    let mut sens: f64 = 0.0;
    for d in [
        Vec2::new(step, Fx::ZERO),
        Vec2::new(-step, Fx::ZERO),
        Vec2::new(Fx::ZERO, step),
        Vec2::new(Fx::ZERO, -step),
    ] {
        sens = sens.max(dist(run(case, mode, Some((k, d)))[k], ours));
    }
    if sens > e {
        return Some(format!(
            "ill-conditioned (1e-6 nudge moves ours by {sens:.3e})"
        ));
    }
    None
}

struct Figures {
    n: usize,
    max: f64,
    p99: f64,
    /// (case index in the file, agent, difference, our velocity)
    outliers: Vec<(usize, usize, f64, (f64, f64))>,
}

fn measure(cases: &[Value], mode: ObstacleNeighbors) -> Figures {
    let mut errs = Vec::new();
    let mut outliers = Vec::new();
    for (c, case) in cases.iter().enumerate() {
        let ours = run(case, mode, None);
        for (k, v) in ours.into_iter().enumerate() {
            let e = dist(v, rvo2_velocity(case, k));
            errs.push(e);
            if e > 1e-3 {
                outliers.push((c, k, e, v));
            }
        }
    }
    errs.sort_by(f64::total_cmp);
    let n = errs.len();
    let f = Figures {
        n,
        max: errs[n - 1],
        p99: errs[(n * 99) / 100],
        outliers,
    };
    println!(
        "{mode:?}: velocities {n}, within 1e-3: {:.2} %, max {:.3e}, p99 {:.3e}, > 1e-3: {}",
        100.0 * (n - f.outliers.len()) as f64 / n as f64,
        f.max,
        f.p99,
        f.outliers.len()
    );
    f
}

#[test]
fn rvo2_fragment_mode_matches_rvo2() {
    let cases = cases();
    let f = measure(&cases, ObstacleNeighbors::Rvo2Fragments);
    assert_eq!(f.n, 3387);
    let over = f.outliers.len();
    // Acceptance: >= 99.5 % within 1e-3 (3,379 of 3,387 measured: 99.76 %).
    assert!(over * 1000 <= f.n * 5, "{over} of {} beyond 1e-3", f.n);
    assert!(over <= 8, "regression: {over} beyond 1e-3 (8 measured)");
    for &(c, k, e, ours) in &f.outliers {
        let case = &cases[c];
        let why = explain(case, k, ObstacleNeighbors::Rvo2Fragments, ours);
        println!(
            "case {} agent {k}: diff {e:.3e} -> {}",
            case["case"],
            why.as_deref().unwrap_or("UNEXPLAINED")
        );
        assert!(why.is_some(), "case {} agent {k} unexplained", case["case"]);
    }
}

#[test]
fn whole_edge_mode_differs_only_where_explained() {
    let cases = cases();
    let f = measure(&cases, ObstacleNeighbors::WholeEdges);
    assert_eq!(f.n, 3387);
    // 45 of 3,387 differ by more than 1e-3 (98.67 % within); guard against regressions.
    let over = f.outliers.len();
    assert!(over <= 45, "{over} of {} beyond 1e-3", f.n);
    let mut fragments = 0;
    for &(c, k, e, _) in &f.outliers {
        let case = &cases[c];
        let want = rvo2_velocity(case, k);
        let frag = run(case, ObstacleNeighbors::Rvo2Fragments, None)[k];
        let why = if dist(frag, want) <= 1e-3 {
            fragments += 1;
            Some("RVO2 split fragments (Rvo2Fragments mode reproduces it)".to_string())
        } else {
            explain(case, k, ObstacleNeighbors::Rvo2Fragments, frag)
                .map(|w| format!("also in Rvo2Fragments mode: {w}"))
        };
        println!(
            "case {} agent {k}: diff {e:.3e} -> {}",
            case["case"],
            why.as_deref().unwrap_or("UNEXPLAINED")
        );
        assert!(why.is_some(), "case {} agent {k} unexplained", case["case"]);
    }
    println!("of which split fragments: {fragments}");
    assert!(fragments >= 37, "{fragments} explained by fragments");
}

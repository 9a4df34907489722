//! Every ORCA agent-line branch against values computed independently from the geometry, the
//! seed-002 head-on examples, and exact reciprocity.
//!
//! Expected values are derived in f64 from the *geometry* of the truncated velocity obstacle
//! (cut-off circle centre `p/τ`, radius `R/τ`; legs = the tangents from the origin at angle
//! `±asin(R/|p|)` to `p`), with trigonometry rather than RVO2's closed forms, so they check the
//! fixed-point formulas rather than repeat them. Conventions (RVO2's): `p = p_B − p_A`,
//! `v = v_A − v_B`, `u` = smallest change of `v` that reaches the obstacle's boundary, A's line
//! passes through `v_A + u/2`, and the permitted side is on the left of the line's direction.

#![allow(clippy::float_arithmetic)]

use lockstep_orca::math::{Fx, Vec2};
use lockstep_orca::orca::lines::{
    AgentState, Branch, PairSolution, agent_line, agent_line_with_branch, solve_pair,
    tie_break_direction,
};
use lockstep_orca::{AgentId, AgentParams, Simulator, SimulatorParams};
use proptest::prelude::*;

/// Agreement between fixed point and the f64 geometry: 1e-8 (≈ 43 ulps of `Fx`); the
/// fixed-point formulas round a handful of times at ~2.3e-10 each.
const TOL: f64 = 1e-8;

fn fx(v: f64) -> Fx {
    Fx::from_num(v)
}
fn v2(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}
fn f2(v: Vec2) -> (f64, f64) {
    v.to_f64()
}
fn close(a: (f64, f64), b: (f64, f64), what: &str) {
    let d = (a.0 - b.0).hypot(a.1 - b.1);
    assert!(d <= TOL, "{what}: got {a:?}, expected {b:?} (off by {d:e})");
}
fn rotate(v: (f64, f64), ang: f64) -> (f64, f64) {
    let (s, c) = ang.sin_cos();
    (v.0 * c - v.1 * s, v.0 * s + v.1 * c)
}
fn unit(v: (f64, f64)) -> (f64, f64) {
    let l = v.0.hypot(v.1);
    (v.0 / l, v.1 / l)
}
fn sub(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 - b.0, a.1 - b.1)
}

/// Solves a pair in A's frame with ids (0, 1).
fn solve(p: (f64, f64), v: (f64, f64), r: f64, tau: f64, dt: f64) -> PairSolution {
    solve_pair(
        v2(p.0, p.1),
        v2(v.0, v.1),
        fx(r),
        fx(tau),
        fx(dt),
        (AgentId(0), AgentId(1)),
    )
}

/// Nearest point of a circle's boundary to `v` (v ≠ centre): `c + ρ (v − c)/|v − c|`.
fn nearest_on_circle(c: (f64, f64), rho: f64, v: (f64, f64)) -> (f64, f64) {
    let n = unit(sub(v, c));
    (c.0 + rho * n.0, c.1 + rho * n.1)
}

/// Projection of `v` on the line through the origin with unit direction `l`.
fn project(v: (f64, f64), l: (f64, f64)) -> (f64, f64) {
    let t = v.0 * l.0 + v.1 * l.1;
    (t * l.0, t * l.1)
}

#[test]
fn cut_off_circle_branch() {
    // p = (3, 1), R = 1, τ = 2: cut-off circle centre (1.5, 0.5), radius 0.5.
    // v = (1.2, 0.45) lies inside it, on the side facing the origin (w = v − p/τ = (−0.3, −0.05),
    // w·p < 0 and (w·p)² > R²|w|²): the nearest boundary point is on the arc.
    let (p, v, r, tau) = ((3.0, 1.0), (1.2, 0.45), 1.0, 2.0);
    let s = solve(p, v, r, tau, 0.25);
    assert_eq!(s.branch, Branch::CutOffCircle);
    let c = (p.0 / tau, p.1 / tau);
    let q = nearest_on_circle(c, r / tau, v);
    close(f2(s.u), sub(q, v), "u");
    // The line is the circle's tangent at q; its left side is the outward normal n.
    let n = unit(sub(v, c));
    close(f2(s.direction), (n.1, -n.0), "direction");
}

#[test]
fn left_leg_branch() {
    // p = (3, 2), R = 1.2, τ = 2. v = (1.0, 1.7): w = (−0.5, 0.7), det(p, w) = 3.1 > 0 and not
    // in the arc's sector, so v projects on the left leg: the tangent from the origin rotated
    // by +asin(R/|p|) from p.
    let (p, v, r, tau) = ((3.0, 2.0), (1.0, 1.7), 1.2, 2.0);
    let s = solve(p, v, r, tau, 0.25);
    assert_eq!(s.branch, Branch::LeftLeg);
    let alpha = (r / p.0.hypot(p.1)).asin();
    let leg = rotate(unit(p), alpha);
    close(f2(s.u), sub(project(v, leg), v), "u");
    // Direction along the leg, away from the origin: the obstacle is on its right.
    close(f2(s.direction), leg, "direction");
}

#[test]
fn right_leg_branch() {
    // Same obstacle, v = (2.0, 0.6): w = (0.5, −0.4), w·p > 0, det(p, w) = −2.2 < 0: right leg,
    // rotated by −asin(R/|p|); RVO2 orients the line towards the origin so the obstacle is on
    // its right.
    let (p, v, r, tau) = ((3.0, 2.0), (2.0, 0.6), 1.2, 2.0);
    let s = solve(p, v, r, tau, 0.25);
    assert_eq!(s.branch, Branch::RightLeg);
    let alpha = (r / p.0.hypot(p.1)).asin();
    let leg = rotate(unit(p), -alpha);
    close(f2(s.u), sub(project(v, leg), v), "u");
    close(f2(s.direction), (-leg.0, -leg.1), "direction");
}

#[test]
fn overlap_branch() {
    // |p| = 0.5 < R = 1: already overlapping. The obstacle for one time step Δt = 0.25 is the
    // disc centred p/Δt = (1.2, 1.6) of radius R/Δt = 4, and v = (0.2, −0.1) is inside it:
    // u reaches its nearest boundary point.
    let (p, v, r, dt) = ((0.3, 0.4), (0.2, -0.1), 1.0, 0.25);
    let s = solve(p, v, r, 10.0, dt);
    assert_eq!(s.branch, Branch::Overlap);
    let c = (p.0 / dt, p.1 / dt);
    close(f2(s.u), sub(nearest_on_circle(c, r / dt, v), v), "u");
    let n = unit(sub(v, c));
    close(f2(s.direction), (n.1, -n.0), "direction");
}

#[test]
fn overlap_tie_break_branch() {
    let r = 1.0;
    let dt = 0.25;
    // Identical positions and velocities (w = 0), and velocity exactly p/Δt (w = 0 again).
    for (p, v) in [((0.0, 0.0), (0.0, 0.0)), ((0.5, 0.0), (2.0, 0.0))] {
        let s = solve(p, v, r, 10.0, dt);
        assert_eq!(s.branch, Branch::OverlapTieBreak);
        let dir = tie_break_direction(AgentId(0), AgentId(1));
        let d = f2(dir);
        assert!((d.0.hypot(d.1) - 1.0).abs() < 1e-8, "unit direction");
        // u = (R/Δt − 0)·dir: A is pushed out along dir by the full R/Δt.
        close(f2(s.u), (4.0 * d.0, 4.0 * d.1), "u");
        close(f2(s.direction), (d.1, -d.0), "direction");
    }
}

#[test]
fn overlap_tie_break_is_opposite_distinct_and_deterministic() {
    let state = |id: u32| AgentState {
        id: AgentId(id),
        position: v2(3.25, -1.5),
        velocity: v2(0.5, 0.25),
        radius: fx(0.5),
    };
    let (tau, dt) = (fx(2.0), fx(0.1));
    let mut seen: Vec<Vec2> = Vec::new();
    for (a, b) in [
        (0, 1),
        (0, 2),
        (1, 2),
        (7, 3),
        (100, 101),
        (u32::MAX - 1, u32::MAX),
    ] {
        let (la, ba) = agent_line_with_branch(&state(a), &state(b), tau, dt);
        let (lb, bb) = agent_line_with_branch(&state(b), &state(a), tau, dt);
        assert_eq!((ba, bb), (Branch::OverlapTieBreak, Branch::OverlapTieBreak));
        // Opposite, bit for bit.
        assert_eq!(la.direction, -lb.direction);
        assert_eq!(
            la.point - state(a).velocity,
            -(lb.point - state(b).velocity)
        );
        // Deterministic.
        assert_eq!(agent_line(&state(a), &state(b), tau, dt), la);
        // Each agent is pushed R/Δt · ½ = 5 along ±(tie-break direction), whose length is 1 to
        // CORDIC's accuracy (~6e-9, times 5).
        let push = f2(la.point - state(a).velocity);
        assert!((push.0.hypot(push.1) - 5.0).abs() < 1e-7, "{push:?}");
        // The direction depends on the pair (ordered by id).
        let lo_hi = (a.min(b), a.max(b));
        let dir = tie_break_direction(AgentId(lo_hi.0), AgentId(lo_hi.1));
        assert!(!seen.contains(&dir), "pair {lo_hi:?} repeats a direction");
        seen.push(dir);
    }
}

// ------------------------------------------------------------------ seed 002 head-on

fn head_on_sim(speed: f64) -> (Simulator, AgentId, AgentId) {
    let params = AgentParams {
        neighbor_dist: fx(15.0),
        max_neighbors: 10,
        time_horizon: fx(2.0),
        time_horizon_obst: fx(2.0),
        radius: fx(0.5),
        max_speed: fx(2.0),
        priority: lockstep_orca::DEFAULT_PRIORITY,
    };
    let mut sim = Simulator::new(SimulatorParams {
        time_step: fx(0.25),
        agent_defaults: params,
    })
    .unwrap();
    sim.set_liveness(lockstep_orca::Liveness::Rvo2); // RVO2's behaviour, compared with RVO2
    let a = sim.add_agent(Vec2::ZERO).unwrap();
    let b = sim.add_agent(Vec2::from_int(4, 0)).unwrap();
    for (id, s) in [(a, speed), (b, -speed)] {
        sim.set_agent_velocity(id, v2(s, 0.0)).unwrap();
        sim.set_agent_pref_velocity(id, v2(s, 0.0)).unwrap();
    }
    (sim, a, b)
}

#[test]
fn head_on_0_9_gives_0_75() {
    // Seed 002: 4 m apart, combined radius 1, horizon 2 s: the relative closing speed may be at
    // most (4 − 1)/2 = 1.5; at 1.8 it must drop by 0.3, 0.15 each: ±0.75. Geometrically v = (1.8, 0)
    // lies inside the cut-off circle (centre (2, 0), radius 0.5), nearest boundary point (1.5, 0).
    let (mut sim, a, b) = head_on_sim(0.9);
    sim.step().unwrap();
    let va = sim.agent_velocity(a).unwrap();
    let vb = sim.agent_velocity(b).unwrap();
    let three_quarters = Fx::lit("0.75");
    // To the scalar's resolution: within 2 ulps (0.9 itself is rounded once on input).
    for (v, sign) in [(va, 1), (vb, -1)] {
        let ex = three_quarters * Fx::from_num(sign);
        assert!((v.x - ex).abs() <= Fx::from_bits(2), "{v:?}");
        assert!(v.y.abs() <= Fx::from_bits(2), "{v:?}");
    }
}

#[test]
fn head_on_1_0_tie_is_exactly_reciprocal() {
    // v = (2, 0) is exactly the cut-off centre p/τ = (2, 0): w = 0, a three-way tie between the
    // arc (distance R/τ = 0.5) and both legs (distance |v|·sin α = 2·¼ = 0.5). Convention
    // (src/orca/lines.rs): RVO2's right leg in A's frame; B takes the exact negation.
    let a = AgentState {
        id: AgentId(0),
        position: Vec2::ZERO,
        velocity: Vec2::from_int(1, 0),
        radius: fx(0.5),
    };
    let b = AgentState {
        id: AgentId(1),
        position: Vec2::from_int(4, 0),
        velocity: Vec2::from_int(-1, 0),
        radius: fx(0.5),
    };
    let (tau, dt) = (fx(2.0), fx(0.25));
    let (la, ba) = agent_line_with_branch(&a, &b, tau, dt);
    let (lb, bb) = agent_line_with_branch(&b, &a, tau, dt);
    assert_eq!((ba, bb), (Branch::RightLeg, Branch::RightLeg));
    let (ua, ub) = (la.point - a.velocity, lb.point - b.velocity);
    assert_eq!(ua, -ub, "corrections exactly opposite");
    assert_eq!(la.direction, -lb.direction, "directions exactly opposite");
    // Hand-computed: right leg l = (cos α, −sin α), sin α = 1/4; u = (v·l) l − v
    // = (2·15/16 − 2, −2·√15/16) = (−1/8, −√15/8); A takes half: (−1/16, −√15/16) (to its right).
    let s15 = 15f64.sqrt();
    close(f2(ua), (-1.0 / 16.0, -s15 / 16.0), "A's correction");
    close(f2(la.direction), (-s15 / 4.0, 0.25), "A's line direction");
    // All three candidates are at distance 0.5 from v: the tie is real.
    let u = (2.0 * f2(ua).0, 2.0 * f2(ua).1);
    assert!((u.0.hypot(u.1) - 0.5).abs() < 1e-8);
}

#[test]
fn head_on_1_0_pair_passes_instead_of_stalling() {
    let (mut sim, a, b) = head_on_sim(1.0);
    let goals = [(a, Vec2::from_int(4, 0)), (b, Vec2::ZERO)];
    let mut min_clearance = f64::INFINITY;
    let (mut lowest_a, mut highest_b) = (0.0f64, 0.0f64);
    let mut ticks = 0;
    while ticks < 400 {
        let mut done = true;
        for &(id, goal) in &goals {
            let to_goal = goal - sim.agent_position(id).unwrap();
            let (dx, dy) = f2(to_goal);
            done &= dx.hypot(dy) < 0.01;
            let pref = if to_goal.length_squared() > Fx::ONE {
                to_goal.normalize_or_zero()
            } else {
                to_goal
            };
            sim.set_agent_pref_velocity(id, pref).unwrap();
        }
        if done {
            break;
        }
        sim.step().unwrap();
        ticks += 1;
        let (pa, pb) = (
            f2(sim.agent_position(a).unwrap()),
            f2(sim.agent_position(b).unwrap()),
        );
        min_clearance = min_clearance.min((pa.0 - pb.0).hypot(pa.1 - pb.1) - 1.0);
        lowest_a = lowest_a.min(pa.1);
        highest_b = highest_b.max(pb.1);
    }
    println!(
        "head-on ±1: done after {ticks} ticks, min clearance {min_clearance:.4}, \
         A's lowest y {lowest_a:.4}, B's highest y {highest_b:.4}"
    );
    assert!(ticks < 400, "the pair stalled");
    assert!(min_clearance > 0.0, "they touched: {min_clearance}");
    // Each kept to its right: A (moving +x) dipped to −y, B (moving −x) rose to +y.
    assert!(lowest_a < -0.1 && highest_b > 0.1);
    let (pa, pb) = (
        f2(sim.agent_position(a).unwrap()),
        f2(sim.agent_position(b).unwrap()),
    );
    assert!(
        pa.0 > 3.9 && pb.0 < 0.1,
        "ended on the far side: {pa:?} {pb:?}"
    );
}

// ------------------------------------------------------------------ exact reciprocity

fn state(id: u32, p: (f64, f64), v: (f64, f64), r: f64) -> AgentState {
    AgentState {
        id: AgentId(id),
        position: v2(p.0, p.1),
        velocity: v2(v.0, v.1),
        radius: fx(r),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// agent_line(a, b) and agent_line(b, a) give exactly negated corrections and directions
    /// (equal horizons), in every branch: far pairs, overlapping pairs, identical positions.
    #[test]
    fn agent_lines_are_exactly_reciprocal(
        ids in (any::<u32>(), any::<u32>()).prop_filter("distinct", |(a, b)| a != b),
        pa in (-20.0..20.0f64, -20.0..20.0f64),
        offset in prop_oneof![
            (-20.0..20.0f64, -20.0..20.0f64),
            (-1.0..1.0f64, -1.0..1.0f64),
            Just((0.0, 0.0)),
        ],
        va in (-2.0..2.0f64, -2.0..2.0f64),
        vb in (-2.0..2.0f64, -2.0..2.0f64),
        ra in 0.1..2.0f64,
        rb in 0.1..2.0f64,
        tau in 0.5..10.0f64,
        dt in 0.05..0.5f64,
    ) {
        let pb = (pa.0 + offset.0, pa.1 + offset.1);
        let a = state(ids.0, pa, va, ra);
        let b = state(ids.1, pb, vb, rb);
        let (tau, dt) = (fx(tau), fx(dt));
        let (la, ba) = agent_line_with_branch(&a, &b, tau, dt);
        let (lb, bb) = agent_line_with_branch(&b, &a, tau, dt);
        prop_assert_eq!(ba, bb);
        prop_assert_eq!(la.point - a.velocity, -(lb.point - b.velocity));
        prop_assert_eq!(la.direction, -lb.direction);
    }
}

/// Tiny `w` (a few ulps): the escape direction must still be a unit vector.
///
/// Regression: `Vec2::try_normalize` used to divide by the floored length in ulps, so a vector
/// of a few ulps normalised to e.g. (−1, 0.333) instead of (−0.949, 0.316) (and (1, 1) for
/// (1, 1) ulp): the ORCA line rotated by up to 45° and the push was up to 41 % too strong. It now
/// normalises after an exact power-of-two upscale (`Vec2::length_and_direction`,
/// `src/math/vec2.rs`).
#[test]
fn tiny_w_still_gives_unit_directions() {
    let ulp = Fx::from_bits(1);
    // Cut-off branch: p = (4, 0), τ = 2, v = p/τ + (−3, 1) ulps.
    let p = Vec2::from_int(4, 0);
    let v = Vec2::new(Fx::from_num(2) - ulp * Fx::from_num(3), ulp);
    let s = solve_pair(p, v, Fx::ONE, fx(2.0), fx(0.25), (AgentId(0), AgentId(1)));
    assert_eq!(s.branch, Branch::CutOffCircle);
    let (dx, dy) = f2(s.direction);
    assert!(
        (dx.hypot(dy) - 1.0).abs() < 1e-6,
        "cut-off direction {dx}, {dy}"
    );
    // w = (−3, 1)·2⁻³²: the line direction is unit_w rotated by −90°.
    let unit_w = unit((-3.0, 1.0));
    close(f2(s.direction), (unit_w.1, -unit_w.0), "cut-off direction");
    // Overlap branch: p = (0.5, 0), Δt = 0.25, v = p/Δt + (2, 1) ulps.
    let p = Vec2::new(fx(0.5), Fx::ZERO);
    let v = Vec2::new(Fx::from_num(2) + ulp * Fx::from_num(2), ulp);
    let s = solve_pair(p, v, Fx::ONE, fx(2.0), fx(0.25), (AgentId(0), AgentId(1)));
    assert_eq!(s.branch, Branch::Overlap);
    let (ux, uy) = f2(s.u);
    assert!((ux.hypot(uy) - 4.0).abs() < 1e-6, "overlap push {ux}, {uy}");
}

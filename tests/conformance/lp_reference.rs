//! LP2 against the brute-force reference solver, LP3 against a brute-force minimax.
//!
//! # Problems
//! Random problems are built from a `u64` seed (SplitMix64), so proptest explores seeds and a
//! deterministic sweep over seeds `0..N` reports the error distribution.
//!
//! *Feasible problems* (LP2): speed `r ∈ [0.5, 3]`, a known point `q` with `|q| <= 0.8 r`, and
//! 1–8 lines whose directions come from distinct "axes" `k·π/32` (`k` in `0..32`, each used at
//! most once, either orientation) jittered by up to ±¼ axis step, so two lines are never closer
//! than 0.049 rad to parallel unless they are *exactly* parallel: with probability ½ one line is
//! repeated with its exact direction or its exact negation and another offset (parallel and
//! anti-parallel pairs, handled by LP1's parallel branch and skipped by the reference). Every
//! line passes at distance `s ∈ [0.001, 2r]` to the right of `q`, so `q` is strictly feasible,
//! and many lines cut the speed circle (tangent-ish). The preferred velocity is uniform in the
//! square `[-2r, 2r]²` (often outside the circle).
//!
//! *Infeasible problems* (LP3): 2–8 lines, line `i` allowing `{v : n_i · v >= ρ_i}` for a random
//! unit normal `n_i` and `ρ_i ∈ [-0.3 r, 1.5 r]` (a half-plane that excludes the origin when
//! `ρ_i > 0`); in half of them two lines are made nearly parallel or anti-parallel (1e-5 to 1e-3
//! rad apart, 1e-5 being LP3's parallel threshold), and one in four has `r ∈ [50, 1000]` (high
//! speeds, up to the domain's limit) instead of `[0.5, 3]`. Only seeds where LP2 reports
//! infeasibility are checked. The brute-force minimax enumerates the points where three
//! violations are equal, where two are equal on the circle, and each line's best circle point;
//! a 61×61 grid checks the enumeration.
//!
//! # Tolerances
//! * LP2 vs reference: [`LP2_TOLERANCE_ULPS`] = 256 ulps of `Fx` (2⁻²⁴ ≈ 6·10⁻⁸), per
//!   coordinate. Both find the same unique optimum and only round differently. LP2 forms a vertex
//!   as `p_i + d_i · t` with `t = det(d_j, p_i − p_j) / det(d_i, d_j)` from two floored
//!   determinants, so `t` carries about `(1 + |t|) / |det|` ulps of error: with `|det| >= 0.049`
//!   (the generator's minimum angle) and `|t| <= ~10`, at most ~220 ulps. The reference rounds
//!   once per coordinate (its candidates are within ~2 ulps) and accepts a candidate up to its
//!   [`reference::DEFAULT_TOLERANCE`] (256 ulps) on the wrong side of a line, which can only
//!   win where that candidate is nearer to `pref` than the optimum, i.e. next to it. Measured
//!   (printed by `lp2_vs_reference_sweep`): at most 9 ulps over 20,000 problems. The random
//!   proptest also meets near-degenerate problems (the optimum a projection onto one line whose
//!   foot lies a few hundred ulps inside another line), where the two roundings land up to ~1,000
//!   ulps apart along the line at the same distance to `pref`: there the answers must be equally
//!   near `pref` within [`LP2_OBJECTIVE_TOLERANCE`] · max(1, r) (LP2's answer must be feasible in
//!   either case).
//! * LP3: its answer's maximum violation may exceed the brute-force minimax by at most
//!   [`LP3_TOLERANCE`] · max(1, r) = 1e-8 · max(1, r), and it may leave the speed circle by at
//!   most the same (unit directions are exact to ~2⁻³², so circle intersections are off by
//!   ~r·2⁻³²). Measured (printed by `lp3_vs_minimax_sweep`), relative to max(1, r): 7.7·10⁻¹⁰ and
//!   4.2·10⁻¹⁰. With RVO2's anchoring of LP3's projected lines at the far intersection point
//!   (this crate before commit "LP3: anchor projected lines at their foot…") the same sweep gives
//!   1.05 and 0.17: this test guards that fix.
//! * The seed-002 two-half-plane example is exact: both solvers return (0.75, 0.2) to the bit.

#![allow(clippy::float_arithmetic)]

use lockstep_orca::math::{Fx, Vec2};
use lockstep_orca::oracles::reference;
use lockstep_orca::orca::Line;
use lockstep_orca::orca::lp::{self, Lp2Outcome, Objective};
use lockstep_orca::splitmix64;
use proptest::prelude::*;

/// LP2 vs reference, per coordinate, in units of `Fx`'s resolution (2⁻³²).
const LP2_TOLERANCE_ULPS: i64 = 256;
/// LP2 vs reference when the per-coordinate check fails: the distances of both answers to
/// `pref` may differ by this much per unit of max speed (each solver's candidates are within a
/// few ulps, ~10⁻⁹, of exact).
const LP2_OBJECTIVE_TOLERANCE: f64 = 1e-9;
/// LP3's maximum violation vs the brute-force minimax, per unit of max speed (velocity units
/// for speeds up to 1).
const LP3_TOLERANCE: f64 = 1e-8;

/// Deterministic stream of uniform f64 in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix64(self.0)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}

fn f(x: Fx) -> f64 {
    x.to_num()
}

#[derive(Clone, Debug)]
struct Problem {
    lines: Vec<Line>,
    radius: Fx,
    pref: Vec2,
}

fn feasible_problem(seed: u64) -> Problem {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let r = rng.range(0.5, 3.0);
    let (qa, qr) = (
        rng.range(0.0, std::f64::consts::TAU),
        0.8 * r * rng.unit().sqrt(),
    );
    let q = v(qr * qa.cos(), qr * qa.sin());
    let n = 1 + rng.below(8) as usize;
    let mut axes: Vec<u64> = (0..32).collect();
    let mut lines = Vec::new();
    let make = |d: Vec2, s: f64| Line {
        point: q - d.perp() * Fx::from_num(s),
        direction: d,
    };
    for i in 0..n {
        let k = axes.swap_remove(rng.below(32 - i as u64) as usize);
        let flip = if rng.below(2) == 0 { 0.0 } else { 32.0 };
        let ang = (k as f64 + flip + rng.range(-0.25, 0.25)) * std::f64::consts::PI / 32.0;
        lines.push(make(v(ang.cos(), ang.sin()), rng.range(0.001, 2.0 * r)));
    }
    if rng.below(2) == 0 {
        // An exactly parallel or anti-parallel companion of a random line.
        let base = lines[rng.below(n as u64) as usize].direction;
        let d = if rng.below(2) == 0 { base } else { -base };
        let at = rng.below(n as u64 + 1) as usize;
        lines.insert(at, make(d, rng.range(0.001, 2.0 * r)));
    }
    let pref = v(rng.range(-2.0 * r, 2.0 * r), rng.range(-2.0 * r, 2.0 * r));
    Problem {
        lines,
        radius: Fx::from_num(r),
        pref,
    }
}

fn infeasible_candidate(seed: u64) -> Problem {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xABCD);
    // One problem in four at high speed (up to the domain's 1,000).
    let r = if rng.below(4) == 0 {
        rng.range(50.0, 1000.0)
    } else {
        rng.range(0.5, 3.0)
    };
    let n = 2 + rng.below(7) as usize;
    let mut phis: Vec<f64> = (0..n)
        .map(|_| rng.range(0.0, std::f64::consts::TAU))
        .collect();
    if rng.below(2) == 0 {
        // A nearly parallel (or anti-parallel) pair: 1e-5 .. 1e-3 rad apart (10⁻⁵ is LP3's
        // parallel threshold).
        let (i, j) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
        let flip = if rng.below(2) == 0 {
            0.0
        } else {
            std::f64::consts::PI
        };
        phis[j] =
            phis[i] + flip + rng.range(1e-5, 1e-3) * if rng.below(2) == 0 { 1.0 } else { -1.0 };
    }
    let lines = phis
        .iter()
        .map(|&phi| {
            let rho = rng.range(-0.3 * r, 1.5 * r);
            // Allowed: n · v >= rho with n = (cos φ, sin φ); the left normal of d = (sin φ, −cos φ)
            // is n, and the line passes through rho · n.
            Line {
                point: v(rho * phi.cos(), rho * phi.sin()),
                direction: v(phi.sin(), -phi.cos()),
            }
        })
        .collect();
    let pref = v(rng.range(-2.0 * r, 2.0 * r), rng.range(-2.0 * r, 2.0 * r));
    Problem {
        lines,
        radius: Fx::from_num(r),
        pref,
    }
}

/// Largest per-coordinate difference in ulps.
fn ulps(a: Vec2, b: Vec2) -> i64 {
    (a.x.to_bits() - b.x.to_bits())
        .abs()
        .max((a.y.to_bits() - b.y.to_bits()).abs())
}

/// Whether `a` and `b` are equally near `p.pref` up to [`LP2_OBJECTIVE_TOLERANCE`] ·
/// max(1, r): the fallback of the LP2 test for near-degenerate problems, where the optimum is
/// the projection of `pref` onto one line and its foot lies a few hundred ulps from another
/// line's boundary, so the two solvers' roundings pick points up to ~1,000 ulps apart along
/// the line whose distances to `pref` differ by ~10⁻¹⁰ (seed 13163108760667696885: 860 ulps
/// apart, 1.3·10⁻¹⁰ in distance; the exact optimum is LP2's point).
fn same_objective(p: &Problem, a: Vec2, b: Vec2) -> bool {
    let (px, py) = p.pref.to_f64();
    let dist = |v: Vec2| {
        let (x, y) = v.to_f64();
        (x - px).hypot(y - py)
    };
    (dist(a) - dist(b)).abs() <= LP2_OBJECTIVE_TOLERANCE * f(p.radius).max(1.0)
}

/// LP2 and the reference on one feasible problem: (lp2 answer, reference answer).
fn lp2_and_reference(p: &Problem) -> (Vec2, Vec2) {
    let lp2 = match lp::lp2(&p.lines, p.radius, Objective::Closest(p.pref)) {
        Lp2Outcome::Feasible(v) => v,
        Lp2Outcome::Infeasible { failed_line, .. } => {
            panic!("LP2 says infeasible at line {failed_line}: {p:?}")
        }
    };
    let r = reference::solve(&p.lines, p.radius, p.pref)
        .unwrap_or_else(|| panic!("reference says infeasible: {p:?}"));
    (lp2, r)
}

// ------------------------------------------------------------------ seed 002

fn seed_002_lines() -> [Line; 2] {
    [
        // v_x <= 0.75: the line x = 0.75 pointing +y (its left side is x < 0.75).
        Line {
            point: Vec2::new(Fx::lit("0.75"), Fx::ZERO),
            direction: Vec2::from_int(0, 1),
        },
        // v_y >= 0.2: the line y = 0.2 pointing +x (its left side is y > 0.2).
        Line {
            point: Vec2::new(Fx::ZERO, Fx::lit("0.2")),
            direction: Vec2::from_int(1, 0),
        },
    ]
}

#[test]
fn seed_002_two_half_planes_lp2_and_reference() {
    let expected = Vec2::new(Fx::lit("0.75"), Fx::lit("0.2"));
    let speed = Fx::lit("1.5");
    let pref = Vec2::from_int(1, 0);
    for lines in [seed_002_lines(), {
        let [a, b] = seed_002_lines();
        [b, a]
    }] {
        assert_eq!(
            lp::lp2(&lines, speed, Objective::Closest(pref)),
            Lp2Outcome::Feasible(expected)
        );
        assert_eq!(reference::solve(&lines, speed, pref), Some(expected));
        // The single projections are each infeasible for the other line (the seed's point).
        let only_x = reference::solve(&lines[..1], speed, pref).unwrap();
        let only_y = reference::solve(&lines[1..], speed, pref).unwrap();
        assert!(only_x != expected && only_y != expected);
    }
}

// ------------------------------------------------------------------ LP2 vs reference

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn lp2_matches_reference_on_feasible_problems(seed in any::<u64>()) {
        let p = feasible_problem(seed);
        let (a, b) = lp2_and_reference(&p);
        prop_assert!(
            ulps(a, b) <= LP2_TOLERANCE_ULPS || same_objective(&p, a, b),
            "lp2 {:?} reference {:?}: {} ulps, problem {:?}", a.to_f64(), b.to_f64(), ulps(a, b), p
        );
        // LP2's answer is itself feasible (to the reference's tolerance).
        prop_assert!(reference::is_feasible(&p.lines, p.radius, a, reference::DEFAULT_TOLERANCE));
    }
}

/// Deterministic sweep: the error distribution of LP2 vs the reference, printed and bounded.
#[test]
fn lp2_vs_reference_sweep() {
    const N: u64 = 20_000;
    let mut errs: Vec<i64> = (0..N)
        .map(|seed| {
            let (a, b) = lp2_and_reference(&feasible_problem(seed));
            ulps(a, b)
        })
        .collect();
    errs.sort_unstable();
    let exact = errs.iter().filter(|&&e| e == 0).count();
    println!(
        "LP2 vs reference over {N} feasible problems (ulps of 2^-32): exact {exact}, \
         median {}, p99 {}, max {}",
        errs[errs.len() / 2],
        errs[errs.len() * 99 / 100],
        errs[errs.len() - 1]
    );
    assert!(errs[errs.len() - 1] <= LP2_TOLERANCE_ULPS);
}

// ------------------------------------------------------------------ LP3 vs brute-force minimax

/// Lines as exact f64 data: violation_i(v) = c_i − m_i · v with m_i = perp(d_i),
/// c_i = det(d_i, p_i).
fn affine(lines: &[Line]) -> Vec<((f64, f64), f64)> {
    lines
        .iter()
        .map(|l| {
            let (dx, dy) = (f(l.direction.x), f(l.direction.y));
            let (px, py) = (f(l.point.x), f(l.point.y));
            ((-dy, dx), dx * py - dy * px)
        })
        .collect()
}

fn max_violation(aff: &[((f64, f64), f64)], x: f64, y: f64) -> f64 {
    aff.iter()
        .map(|&((mx, my), c)| c - (mx * x + my * y))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Exact minimum over the disk of the maximum violation, by enumeration: the optimum of a convex
/// piecewise-linear function on a disk is a point where three violations are equal (inside the
/// disk), a point of the circle where two are equal, or the point of the circle where a single
/// violation is smallest.
fn brute_minimax(lines: &[Line], r: f64) -> f64 {
    let aff = affine(lines);
    let mut best = f64::INFINITY;
    let mut consider = |x: f64, y: f64| {
        if x.hypot(y) <= r * (1.0 + 1e-12) {
            best = best.min(max_violation(&aff, x, y));
        }
    };
    for (i, &((mx, my), _)) in aff.iter().enumerate() {
        let len = mx.hypot(my);
        consider(r * mx / len, r * my / len);
        for (j, &((nx, ny), cj)) in aff.iter().enumerate().skip(i + 1) {
            // Equal violations: (m_j − m_i) · v = c_j − c_i; intersect with |v| = r.
            let (ax, ay, b) = (nx - mx, ny - my, cj - aff[i].1);
            let a2 = ax * ax + ay * ay;
            if a2 > 1e-24 {
                let (fx, fy) = (ax * b / a2, ay * b / a2); // foot from the origin
                let h2 = r * r - (fx * fx + fy * fy);
                if h2 >= 0.0 {
                    let h = h2.sqrt() / a2.sqrt();
                    consider(fx - ay * h, fy + ax * h);
                    consider(fx + ay * h, fy - ax * h);
                }
            }
            for &((kx, ky), ck) in &aff[j + 1..] {
                let (bx, by, c) = (kx - mx, ky - my, ck - aff[i].1);
                let det = ax * by - ay * bx;
                if det.abs() > 1e-15 {
                    consider((b * by - ay * c) / det, (ax * c - b * bx) / det);
                }
            }
        }
    }
    best
}

/// Grid sanity check of the minimax (independent of the enumeration's reasoning).
fn grid_minimax(lines: &[Line], r: f64) -> f64 {
    let aff = affine(lines);
    let mut best = f64::INFINITY;
    let n = 60;
    for i in 0..=n {
        for j in 0..=n {
            let (x, y) = (
                r * (2.0 * i as f64 / n as f64 - 1.0),
                r * (2.0 * j as f64 / n as f64 - 1.0),
            );
            if x.hypot(y) <= r {
                best = best.min(max_violation(&aff, x, y));
            }
        }
    }
    best
}

/// LP3 (through `lp::solve`, as the simulator calls it) on an infeasible problem: (its max
/// violation minus the brute-force minimax, its distance outside the speed circle), both
/// divided by `max(1, r)`. `None` if LP2 finds the problem feasible.
fn lp3_check(p: &Problem) -> Option<(f64, f64)> {
    if let Lp2Outcome::Feasible(_) = lp::lp2(&p.lines, p.radius, Objective::Closest(p.pref)) {
        return None;
    }
    let mut scratch = Vec::new();
    let a = lp::solve(&p.lines, 0, p.radius, p.pref, &mut scratch);
    let (x, y) = a.to_f64();
    let r = f(p.radius);
    let got = max_violation(&affine(&p.lines), x, y);
    let best = brute_minimax(&p.lines, r);
    let grid = grid_minimax(&p.lines, r);
    assert!(
        best <= grid + 1e-12,
        "enumeration missed the optimum: {best} > grid {grid}"
    );
    assert!(best > 0.0, "an infeasible problem has a positive minimax");
    // Scale-free errors: divided by max(1, r) (unit directions are exact to ~2⁻³², so LP1's
    // circle intersections are off by ~r·2⁻³²).
    let scale = r.max(1.0);
    Some(((got - best) / scale, (x.hypot(y) - r) / scale))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn lp3_minimises_the_maximum_violation(seed in any::<u64>()) {
        let p = infeasible_candidate(seed);
        if let Some((gap, outside)) = lp3_check(&p) {
            prop_assert!(gap <= LP3_TOLERANCE, "lp3 above the minimax by {gap}: {p:?}");
            prop_assert!(outside <= LP3_TOLERANCE, "lp3 answer outside the circle by {outside}");
        }
    }
}

#[test]
fn lp3_vs_minimax_sweep() {
    const N: u64 = 5_000;
    // Worst (gap, outside) for low speeds (r <= 3) and high speeds (r >= 50).
    let mut worst = [(f64::NEG_INFINITY, f64::NEG_INFINITY); 2];
    let mut checked = [0; 2];
    for seed in 0..N {
        let p = infeasible_candidate(seed);
        if let Some((gap, outside)) = lp3_check(&p) {
            let class = usize::from(p.radius > Fx::from_num(3));
            checked[class] += 1;
            worst[class].0 = worst[class].0.max(gap);
            worst[class].1 = worst[class].1.max(outside);
        }
    }
    for (class, name) in ["r in [0.5, 3]", "r in [50, 1000]"].iter().enumerate() {
        println!(
            "LP3 over {} infeasible problems with {name}, errors / max(1, r): max (its max \
             violation − minimax) {:.3e}, max distance outside the speed circle {:.3e}",
            checked[class], worst[class].0, worst[class].1
        );
    }
    assert!(
        checked[0] + checked[1] > N / 4,
        "the generator must produce infeasible problems"
    );
    for (gap, outside) in worst {
        assert!(gap <= LP3_TOLERANCE && outside <= LP3_TOLERANCE);
    }
}

//! LP3 ([`lp3`]): when LP2 is infeasible, the velocity that minimises the largest violation
//! of the agent lines from the failing one on, the obstacle lines kept hard (RVO2
//! `linearProgram3`).
//!
//! For each line violated by more than the current maximum, RVO2 builds the *projected* lines
//! (where that line and each earlier agent line are violated equally) and runs LP2 over them,
//! optimising the direction away from the line. [`lp3`] computes a projected line only when
//! LP2 reads it, and decides from its exact terms whether the current result satisfies it
//! ([`surely_satisfied`], margin [`MARGIN`]); the foot of a projected line takes one division
//! for both coordinates ([`foot_quotients`]).
//!
//! # Plain forms and the tests that compare them
//! * [`lp3`] against `lp3_eager` ([`lp3_eager_with`] over [`lp2`](super::lp2), RVO2's order: every
//!   projected line first): `lp3_matches_the_eager_lp3`, on random lines, parallel and
//!   antiparallel copies and pencils through one point.
//! * [`surely_satisfied`] against the computed line: `surely_satisfied_lines_are_satisfied`
//!   and `margin_covers_every_admitted_speed` (the proof is in its rustdoc).
//! * [`foot_quotients`] against [`foot_quotients_dividing`] (two divisions):
//!   `foot_quotients_match_the_divisions` and `foot_quotients_at_the_edges`; the whole foot
//!   ([`projected_line`]) against one signed `i128` division per coordinate:
//!   `projected_line_matches_the_signed_division`; [`capped_k`] against the clamp:
//!   `capped_k_is_the_clamp`.

use super::{Objective, T_LIMIT, lp1, lp1_looped};
use crate::math::{EPSILON, Fx, Vec2, wide_mul};
use crate::orca::Line;

/// LP3: starting from LP2's partial result, minimise the largest violation of lines
/// `begin_line..` while keeping the first `num_obstacle_lines` lines hard.
///
/// `scratch` is reused between calls (no allocation once warm).
///
/// Bit-identical to RVO2's loop (build every projected line, then [`lp2`](super::lp2) over them; kept as
/// the test oracle `lp3_eager`), but a projected line is computed only when LP2 needs it. LP2
/// first tests whether the current result violates the line, and only an LP1 call (on that
/// line or a later one) reads the line itself. When the line's exact defining terms show that
/// the result satisfies it with a margin wider than the line's roundings, the test is decided
/// without computing it (otherwise the line is computed and tested as LP2 does), and such a
/// line is computed when the next LP1 call needs it. So the tests happen in the same order on
/// the same results, every LP1 call sees the same lines, and the satisfied lines after the
/// last LP1 call are never computed (about a fifth of them in a dense crowd).
#[must_use]
pub fn lp3(
    lines: &[Line],
    num_obstacle_lines: usize,
    begin_line: usize,
    radius: Fx,
    mut result: Vec2,
    scratch: &mut Vec<Line>,
) -> Vec2 {
    let mut distance: i128 = 0;
    for i in begin_line..lines.len() {
        let li = lines[i];
        if li.violation_wide(result) <= distance {
            continue;
        }
        // The result violates line i by more than the current maximum.
        scratch.clear();
        scratch.extend_from_slice(&lines[..num_obstacle_lines]);
        let objective = Objective::Direction(li.direction.perp());
        if let Some(v) = lp2_projected(lines, num_obstacle_lines, i, radius, objective, scratch) {
            result = v;
        }
        // Otherwise keep the result: by construction it is feasible for the projected program,
        // so failure can only come from rounding (RVO2's comment says the same of floats).
        distance = li.violation_wide(result);
    }
    result
}

/// [`lp2`](super::lp2) over `scratch` (the obstacle lines) followed by the projected lines of line `i` and
/// the agent lines before it, the projected lines computed lazily (see [`lp3`]). `None` when
/// LP2 is infeasible. Leaves in `scratch` the lines it computed.
#[inline]
fn lp2_projected(
    lines: &[Line],
    num_obstacle_lines: usize,
    i: usize,
    radius: Fx,
    objective: Objective,
    scratch: &mut Vec<Line>,
) -> Option<Vec2> {
    let Objective::Direction(dir) = objective else {
        unreachable!("LP3 optimises a direction")
    };
    let mut result = dir * radius;
    for k in 0..scratch.len() {
        if scratch[k].violation_wide(result) > 0 {
            result = lp1(scratch, k, radius, objective)?;
        }
    }
    let li = lines[i];
    let c_i = li.direction.det_wide(li.point);
    let first = num_obstacle_lines.min(i);
    // Lines `pending..j` were found satisfied and are not in `scratch` yet.
    let mut pending = first;
    for j in first..i {
        let lj = lines[j];
        let terms = projected_terms(li, c_i, lj);
        // Each arm computes its own line (the variant is not tested twice). The arms meet in
        // four raw words rather than a `Line`: a `Line` merged from the arms went through a
        // stack slot written in words and read back in halves, and the read stalled on store
        // forwarding (perf, crowd 10,000).
        let [px, py, dx, dy] = match terms {
            Terms::Same => {
                debug_assert!(projected_line(li, lj).is_none());
                continue;
            }
            Terms::Skew { e, k, n_sq } => {
                if surely_satisfied(e, k, n_sq, result) {
                    debug_assert!(
                        projected_line(li, lj).is_some_and(|l| l.violation_wide(result) <= 0)
                    );
                    continue;
                }
                for &lk in &lines[pending..j] {
                    scratch.extend(projected_line(li, lk));
                }
                line_words(skew_line(e, k, n_sq))
            }
            Terms::Opposite => line_words(opposite_line_after(li, lj, &lines[pending..j], scratch)),
        };
        let line = Line {
            point: Vec2::from_bits(px, py),
            direction: Vec2::from_bits(dx, dy),
        };
        pending = j + 1;
        scratch.push(line);
        if line.violation_wide(result) > 0 {
            let line_no = scratch.len() - 1;
            // LP1 inlined; the common line numbers as constants (slices of constant length),
            // so that its loop over the line bounds unrolls.
            result = match line_no {
                // The first line (no obstacle lines, nothing pending; about 45 % of the calls
                // in a dense crowd): no line bounds.
                0 => lp1_looped(&scratch[..1], 0, radius, objective)?,
                // The second (about 40 %): one line bound at most.
                1 => lp1_looped(&scratch[..2], 1, radius, objective)?,
                _ => lp1_looped(scratch, line_no, radius, objective)?,
            };
        }
    }
    Some(result)
}

/// The margin of [`surely_satisfied`]: its bound `2·(2³⁶·(v₁ + 1) + 2³⁹) + 64` raw Q64.64
/// (`v₁ = ⌊(|v.x| + |v.y|) / 2³²⌋ + 1`, real units rounded up) at the largest `v` it decides,
/// `|v.x|, |v.y| <= 2¹⁰` real ([`sure_speed`]; the domain's speeds have components up to
/// 1,000), so `v₁ <= 2¹¹ + 1`. One constant instead of the bound at `v` (which is smaller,
/// about 2⁴¹ at walking speeds) saves computing the bound each time the result changes; the
/// wider margin (2⁻¹⁷ real) only leaves undecided the lines satisfied by less than about
/// 8·10⁻⁶ / |e| (2 more projected lines computed in `bench crowd 2000 --ticks 30`).
const MARGIN: i128 = 2 * ((((1 << 11) + 2) << 36) + (1 << 39)) + 64;

/// Whether [`MARGIN`] covers `v`: `|v.x|, |v.y| <= 2¹⁰` real (2⁴² raw).
#[inline(always)]
fn sure_speed(v: Vec2) -> bool {
    let in_range = |c: Fx| c.to_bits().wrapping_add(1 << 42).cast_unsigned() <= 1 << 43;
    in_range(v.x) && in_range(v.y)
}

/// Whether `v` surely satisfies the (skew) projected line with the exact terms `e`, `k`, `|e|²`
/// of [`Terms::Skew`] (`violation_wide <= 0`), decided without computing the line; `false`
/// when it violates it, the margin ([`MARGIN`]) is too thin to tell or `v` is beyond it.
///
/// The line is `N·v = k` with `N = perp(e)`, the raw `k` unless the 2²⁴ cap changes it:
/// ruled out here by `|k| <= 2⁷¹` and `|e|² >= 2³⁰` raw (`⌊|e|⌋ >= 2¹⁵` raw, a cap of at
/// least 2⁷¹). [`projected_line`] anchors it at `p ≈ N·k/|e|²` with the unit direction
/// `u ≈ e/|e|`, at most 2²⁴ + 1 from the origin, so with `|v| <= 2¹¹` (checked) `p − v` is
/// exact. Exactly, `det(e/|e|, N·k/|e|² − v) = (k − N·v)/|e| = D/|e|`, with
/// `N·v = det(e, v)`. The rounded line differs by `|δp| < √2` ulps (one truncation per
/// coordinate) and `|δu| < √2·(1 + 2⁻²⁸)` ulps (one truncation per coordinate of a quotient by
/// a root floored at 61 or more bits), so its violation `det(u, p − v) = D/|e| + det(u*, δp) +
/// det(δu, p − v)` is within `√2·ulp·(1 + (1 + 2⁻²⁸)(|k|/|e| + √2·ulp + |v|))` of `D/|e|`.
/// Times `|e|`, with `|e| <= e₁ = |e.x| + |e.y| <= √2·|e| <= 2³⁶` raw (`|e|² <= 2⁷¹` raw,
/// checked), and in raw Q64.64 units, that is below `1.5·(e₁ + ⌊|k|/2³²⌋ + e₁·v₁ + 2) + 33
/// < 2·(2³⁶·(v₁ + 1) + 2³⁹) + 64 <= MARGIN`: `D` below minus the margin makes the violation
/// negative.
#[inline(always)]
fn surely_satisfied(e: Vec2, k: i128, n_sq: i128, v: Vec2) -> bool {
    // |D| <= 2⁷¹ + 2³⁶·2⁴³ when the checks below hold; computed first (wrapping, only read
    // then) since most projected lines are violated and fail here.
    let d = k.wrapping_sub(e.det_wide(v));
    d < -MARGIN
        && sure_speed(v)
        && k.unsigned_abs() <= 1 << 71
        && (n_sq.wrapping_sub(1 << 30)).cast_unsigned() <= (1 << 71) - (1 << 30)
}

/// LP3 as RVO2 writes it: for each line violated by more than the current maximum, every
/// projected line first, then `lp2` (the feasible answer, if any) over them. The lens LP3
/// ([`crate::orca::lens::lp3`]) runs it with its LP2; with [`lp2`](super::lp2) it is the test
/// oracle of the lazy [`lp3`] (`lp3_eager`).
#[inline]
pub(crate) fn lp3_eager_with(
    lines: &[Line],
    num_obstacle_lines: usize,
    begin_line: usize,
    mut result: Vec2,
    scratch: &mut Vec<Line>,
    lp2: impl Fn(&[Line], Objective) -> Option<Vec2>,
) -> Vec2 {
    let mut distance: i128 = 0;
    for i in begin_line..lines.len() {
        let li = lines[i];
        if li.violation_wide(result) <= distance {
            continue;
        }
        scratch.clear();
        scratch.extend_from_slice(&lines[..num_obstacle_lines]);
        for &lj in &lines[num_obstacle_lines.min(i)..i] {
            if let Some(line) = projected_line(li, lj) {
                scratch.push(line);
            }
        }
        if let Some(v) = lp2(scratch, Objective::Direction(li.direction.perp())) {
            result = v;
        }
        distance = li.violation_wide(result);
    }
    result
}

/// LP3's projected line of agent lines `li` and `lj` (j before i): where both are violated
/// equally, pointing so that its left side is where `lj` is violated less. `None` when they
/// are parallel with the same direction (no constraint).
#[inline]
pub(crate) fn projected_line(li: Line, lj: Line) -> Option<Line> {
    projected_from_terms(
        li,
        lj,
        projected_terms(li, li.direction.det_wide(li.point), lj),
    )
}

/// The exact terms of a projected line ([`projected_terms`]), before its roundings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Terms {
    /// Parallel with the same direction: no line.
    Same,
    /// Parallel with opposite directions.
    Opposite,
    /// Not parallel: `e = d_j − d_i`, `k = c_j − c_i` (`c = det(direction, point)`, exact,
    /// before the cap) and `|e|²` (exact).
    Skew {
        /// `d_j − d_i`.
        e: Vec2,
        /// `c_j − c_i`, raw Q64.64.
        k: i128,
        /// `|e|²`, raw Q64.64.
        n_sq: i128,
    },
}

/// The terms of the projected line of `li` and `lj`; `c_i = det(li.direction, li.point)`.
#[inline(always)]
fn projected_terms(li: Line, c_i: i128, lj: Line) -> Terms {
    let determinant = li.direction.det(lj.direction);
    if determinant.abs() <= EPSILON {
        // Lines i and j are parallel.
        return if li.direction.dot_wide(lj.direction) > 0 {
            Terms::Same
        } else {
            Terms::Opposite
        };
    }
    let e = lj.direction - li.direction; // |e| >= |det| > EPSILON: never zero
    Terms::Skew {
        e,
        k: lj.direction.det_wide(lj.point) - c_i,
        n_sq: e.length_squared_wide(),
    }
}

/// [`projected_line`] from its terms.
#[inline(always)]
fn projected_from_terms(li: Line, lj: Line, terms: Terms) -> Option<Line> {
    match terms {
        Terms::Same => None, // same direction
        Terms::Opposite => Some(opposite_line(li, lj)),
        Terms::Skew { e, k, n_sq } => Some(skew_line(e, k, n_sq)),
    }
}

/// The projected line of antiparallel lines `li` and `lj` ([`Terms::Opposite`]): through
/// their midpoint.
#[inline(always)]
fn opposite_line(li: Line, lj: Line) -> Line {
    Line {
        point: (li.point + lj.point).half(),
        direction: (lj.direction - li.direction).normalize_or_zero(),
    }
}

/// [`lp2_projected`]'s rare antiparallel case, out of line: the projected lines of `li` and
/// the `pending` lines into `scratch`, then the projected line of `li` and `lj`.
#[cold]
#[inline(never)]
fn opposite_line_after(li: Line, lj: Line, pending: &[Line], scratch: &mut Vec<Line>) -> Line {
    for &lk in pending {
        scratch.extend(projected_line(li, lk));
    }
    opposite_line(li, lj)
}

/// The projected line of skew lines from their terms ([`Terms::Skew`]).
#[inline(always)]
fn skew_line(e: Vec2, k: i128, n_sq: i128) -> Line {
    let (point, direction) = {
        // The points where lines i and j are violated equally: (m_j − m_i) · v = c_j − c_i
        // with m = perp(direction), c = det(direction, point). RVO2 anchors this line at
        // the intersection of i and j, which for nearly parallel lines lies up to 2²⁴ away;
        // the rounding of that far point and of the unit direction then shifts the line
        // near the speed circle by ~|point|·ulp, and LP1's circle intersection (which
        // assumes a unit direction) misses the circle by ~t²·ulp (measured with RVO2's
        // anchor: the answer 5·10⁻⁵ outside the circle, the max violation 3·10⁻⁶ above the
        // optimum). Same line, anchored instead at its foot from the origin,
        // N·(c_j − c_i) / |N|² with N = perp(d_j − d_i), from exact i128 terms.
        // |e| and the line's direction e/|e| from one square root (`length_and_direction`
        // is bit-identical to `length` and `normalize_or_zero`).
        let (e_len, e_unit) = e
            .length_and_direction_inlined()
            .unwrap_or((Fx::ZERO, Vec2::ZERO));
        // A line further than 2²⁴ from the origin is moved to 2²⁴ (same side): its
        // distance |k| / |e| is capped, which also keeps every product below in i128.
        // The cap 2⁵⁶·⌊|e|⌋ is at least 2⁷¹ when |e|² >= 2³⁰ raw (⌊|e|⌋ >= 2¹⁵ raw), so a
        // `|k| <= 2⁷¹` (every line of the domain) is unchanged and decided without `|e|`:
        // the division below does not wait for the square root.
        let k = capped_k(k, n_sq, e_len);
        let n_sq = n_sq.cast_unsigned(); // > 0
        let n = e.perp();
        // One rounding per coordinate: n (Q32.32) · k (Q64.64) / |e|² (Q64.64), truncated
        // toward zero (|c|·|k| / |e|², the sign applied after). |c| <= 2³³, |k| <= 2⁸⁹ and
        // the quotient |c·k| / |e|² <= |k| / |e| <= 2⁵⁶. Both quotients from one division
        // ([`foot_quotients`]).
        let (qx, qy) = foot_quotients(
            n.x.to_bits().unsigned_abs(),
            n.y.to_bits().unsigned_abs(),
            k.unsigned_abs(),
            n_sq,
        );
        // The sign of c·k as a mask (all ones when negative) applied as (q ^ m) − m:
        // the same wrapping negation as −q, without a select.
        let k_sign = (k >> 64) as i64 >> 63;
        let foot = |q: u64, c: Fx| {
            let m = (c.to_bits() ^ k_sign) >> 63;
            Fx::from_bits(((q as i64) ^ m).wrapping_sub(m))
        };
        (Vec2::new(foot(qx, n.x), foot(qy, n.y)), e_unit)
    };
    Line { point, direction }
}

/// A line's raw words: point x, y, direction x, y.
#[inline(always)]
fn line_words(l: Line) -> [i64; 4] {
    [
        l.point.x.to_bits(),
        l.point.y.to_bits(),
        l.direction.x.to_bits(),
        l.direction.y.to_bits(),
    ]
}

/// `k.clamp(−cap, cap)` with the projected line's cap `2⁵⁶·e_len` ([`projected_from_terms`]),
/// `e_len = ⌊√n_sq⌋`: the cap is at least 2⁷¹ when `n_sq >= 2³⁰` (`e_len >= 2¹⁵`), so a
/// `|k| <= 2⁷¹` (every line of the domain) is returned as it is, decided without `e_len`.
#[inline(always)]
fn capped_k(k: i128, n_sq: i128, e_len: Fx) -> i128 {
    if k.unsigned_abs() <= 1 << 71 && n_sq >= 1 << 30 {
        k
    } else {
        cap_k(k, e_len)
    }
}

/// `k` clamped to `±2⁵⁶·e_len` ([`capped_k`]): out of line, so that the common case of a `k`
/// within it is a branch and not a select that would wait for `e_len`.
#[cold]
#[inline(never)]
fn cap_k(k: i128, e_len: Fx) -> i128 {
    let cap = wide_mul(T_LIMIT, e_len);
    k.clamp(-cap, cap)
}

/// The magnitudes of a skew projected line's foot ([`projected_from_terms`]), `(⌊ax·k / n⌋,
/// ⌊ay·k / n⌋)` as `u64`, by one division instead of two: `ax`, `ay` the magnitudes of
/// `perp(e)`'s components, `k` the capped `|c_j − c_i|`, `n = |e|²`, all raw.
///
/// When `ax, ay < 2³⁴` (directions of length below about 2: every line of the domain), with
/// `W = ⌊k·2³⁴ / n⌋` (the one division) the estimate `q̂ = ⌊a·W / 2³⁴⌋` lies in
/// `(a·k/n − a/2³⁴ − 1, a·k/n]`, so it is the quotient `q` or `q − 1` (`a < 2³⁴`), and the
/// exact remainder `a·k − q̂·n ∈ [0, 2n)` tells which. In range: `n = ax² + ay² < 2⁶⁹` and the
/// cap `k <= 2⁵⁶·⌊√n⌋ < 2⁹¹`, so `k·2³⁴`, `a·k`, `a·W <= a·k·2³⁴/n` and `q̂·n <= a·k` all fit
/// a `u128`, and `q <= 2⁵⁶·a/√n <= 2⁵⁶` a `u64`. Otherwise (far outside the domain) the two
/// divisions of [`foot_quotients_dividing`], with their wrapping.
#[inline(always)]
fn foot_quotients(ax: u64, ay: u64, k: u128, n: u128) -> (u64, u64) {
    if (ax | ay) >> 34 != 0 {
        return foot_quotients_dividing(ax, ay, k, n);
    }
    debug_assert!(n == u128::from(ax) * u128::from(ax) + u128::from(ay) * u128::from(ay));
    debug_assert!(k <= (1 << 56) * n.isqrt(), "k is capped at 2^56·|e|");
    let w = (k << 34) / n;
    let quotient = |a: u64| {
        let estimate = ((u128::from(a) * w) >> 34) as u64;
        let remainder = (u128::from(a) * k).wrapping_sub(u128::from(estimate) * n);
        estimate + u64::from(remainder >= n)
    };
    let q = (quotient(ax), quotient(ay));
    debug_assert_eq!(q, foot_quotients_dividing(ax, ay, k, n));
    q
}

/// [`foot_quotients`] by two divisions: outside its range and as its test oracle.
#[cold]
#[inline(never)]
fn foot_quotients_dividing(ax: u64, ay: u64, k: u128, n: u128) -> (u64, u64) {
    let quotient = |a: u64| (u128::from(a).wrapping_mul(k) / n) as u64;
    (quotient(ax), quotient(ay))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orca::lp::tests::{ONE, direction, vec2, with_copies};
    use crate::orca::lp::{Lp2Outcome, lp2};
    use proptest::prelude::*;

    /// [`lp3`] as RVO2 writes it ([`lp3_eager_with`] over [`lp2`]): the test oracle of the lazy
    /// [`lp3`].
    fn lp3_eager(
        lines: &[Line],
        num_obstacle_lines: usize,
        begin_line: usize,
        radius: Fx,
        result: Vec2,
        scratch: &mut Vec<Line>,
    ) -> Vec2 {
        lp3_eager_with(
            lines,
            num_obstacle_lines,
            begin_line,
            result,
            scratch,
            |s, o| match lp2(s, radius, o) {
                Lp2Outcome::Feasible(v) => Some(v),
                Lp2Outcome::Infeasible { .. } => None,
            },
        )
    }

    /// [`projected_line`] with its foot by one signed `i128` division per coordinate and the
    /// cap by the clamp: the plain form of [`foot_quotients`] and [`capped_k`] together.
    fn projected_line_dividing(li: Line, lj: Line) -> Option<Line> {
        let determinant = li.direction.det(lj.direction);
        if determinant.abs() <= EPSILON {
            return projected_line(li, lj); // the parallel branch is unchanged
        }
        let e = lj.direction - li.direction;
        let (e_len, e_unit) = e.length_and_direction().unwrap_or((Fx::ZERO, Vec2::ZERO));
        let cap = wide_mul(T_LIMIT, e_len);
        let k =
            (lj.direction.det_wide(lj.point) - li.direction.det_wide(li.point)).clamp(-cap, cap);
        let n_sq = e.length_squared_wide();
        let n = e.perp();
        let foot =
            |c: Fx| Fx::from_bits(crate::math::div_trunc(i128::from(c.to_bits()) * k, n_sq) as i64);
        Some(Line {
            point: Vec2::new(foot(n.x), foot(n.y)),
            direction: e_unit,
        })
    }

    /// [`MARGIN`] is the margin bound at the largest `v` that [`sure_speed`] admits (the bound
    /// grows with `|v.x| + |v.y|`), and `sure_speed` admits exactly `|v.x|, |v.y| <= 2⁴²` raw.
    #[test]
    fn margin_covers_every_admitted_speed() {
        let bound = |v1: u128| (2 * ((((v1 >> 32) + 2) << 36) + (1 << 39)) + 64).cast_signed();
        assert_eq!(MARGIN, bound(1 << 43));
        let edge = 1i64 << 42;
        for (x, ok) in [
            (edge, true),
            (-edge, true),
            (0, true),
            (edge + 1, false),
            (-edge - 1, false),
            (i64::MIN, false),
            (i64::MAX, false),
        ] {
            for (v, other) in [(Vec2::from_bits(x, 0), 0), (Vec2::from_bits(edge, x), edge)] {
                assert_eq!(sure_speed(v), ok && other.abs() <= edge, "{v:?}");
            }
        }
    }

    /// The capped `|k|` of the foot's quotients ([`foot_quotients`]) for `e = (ex, ey)`, raw:
    /// `k_frac` of the cap `2⁵⁶·⌊|e|⌋` (in 2⁻³²).
    fn foot_terms(ex: i64, ey: i64, k_frac: u64) -> (u64, u64, u128, u128) {
        let (ax, ay) = (ey.unsigned_abs(), ex.unsigned_abs()); // perp(e), magnitudes
        let n = u128::from(ax) * u128::from(ax) + u128::from(ay) * u128::from(ay);
        let cap = (1u128 << 56) * n.isqrt();
        let k = ((cap >> 32) * u128::from(k_frac.min(1 << 32))).min(cap);
        (ax, ay, k, n)
    }

    /// [`capped_k`] is the clamp to the cap `2⁵⁶·⌊√n_sq⌋`: `|k|` and `n_sq` at and around the
    /// limits of its shortcut (2⁷¹ and 2³⁰), caps below and above `|k|`.
    #[test]
    fn capped_k_is_the_clamp() {
        let around = |x: i128| [x - 1, x, x + 1];
        let mut n_sqs = vec![1, 2, 1 << 29, 1 << 64, (1 << 66) + 5, 1 << 100];
        n_sqs.extend(around(1 << 30));
        n_sqs.extend(around(((1 << 15) + 1) * ((1 << 15) + 1)));
        for n_sq in n_sqs {
            let e_len = Fx::from_bits(n_sq.cast_unsigned().isqrt() as i64);
            let cap = wide_mul(T_LIMIT, e_len);
            let mut ks = vec![0, 1, 1 << 64, cap, cap + 1, cap - 1];
            ks.extend(around(1 << 71));
            ks.extend(around(1 << 90));
            for k in ks.into_iter().flat_map(|k| [k, -k]) {
                assert_eq!(
                    capped_k(k, n_sq, e_len),
                    k.clamp(-cap, cap),
                    "k {k}, |e|² {n_sq}"
                );
            }
        }
    }

    /// [`foot_quotients`] at its edges: components at and around its limit 2³⁴ (the two
    /// divisions beyond it), the cap `k = 2⁵⁶·⌊|e|⌋`, `k = 0`, the smallest `|e|`, and
    /// numerators `a·k` at and around multiples of `n` (remainders 0 and `n − 1`, where the
    /// estimate is one below the quotient).
    #[test]
    fn foot_quotients_at_the_edges() {
        let edge = 1i64 << 34;
        let comps = [
            0,
            1,
            42_950,
            (1 << 32) - 1,
            1 << 32,
            1 << 33,
            edge - 1,
            edge,
            edge + 1,
            -(edge - 1),
            -edge,
            i64::MAX,
            i64::MIN + 1,
        ];
        for &ex in &comps {
            for &ey in &comps {
                if ex == 0 && ey == 0 {
                    continue;
                }
                for k_frac in [0, 1, 1 << 16, 1 << 31, (1 << 32) - 1, 1 << 32] {
                    let (ax, ay, k, n) = foot_terms(ex, ey, k_frac);
                    if ax.max(ay) >> 34 != 0 && n.checked_mul(4).is_none() {
                        continue; // far outside any direction (n overflows the test's bound)
                    }
                    assert_eq!(
                        foot_quotients(ax, ay, k, n),
                        foot_quotients_dividing(ax, ay, k, n),
                        "e = ({ex}, {ey}), k = {k}"
                    );
                }
                // Numerators at multiples of n and one below: k = ⌈m·n / a⌉ and ⌊m·n / a⌋.
                let (ax, ay, cap, n) = foot_terms(ex, ey, 1 << 32);
                if ax.max(ay) >> 34 != 0 || ax == 0 {
                    continue;
                }
                for m in [1u128, 2, 3, 1 << 20, 1 << 40, 1 << 55] {
                    let exact = m * n / u128::from(ax);
                    for k in [exact.saturating_sub(1), exact, exact + 1] {
                        if k <= cap {
                            assert_eq!(
                                foot_quotients(ax, ay, k, n),
                                foot_quotients_dividing(ax, ay, k, n),
                                "e = ({ex}, {ey}), k = {k}"
                            );
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// A line decided satisfied by its terms ([`surely_satisfied`], with the constant
        /// [`MARGIN`]) is satisfied by the computed projected line: velocities up to the
        /// admitted 2¹⁰ per component, a few ulps to a few margins beside the line (where the
        /// decision is tight), far lines and nearly parallel ones.
        #[test]
        fn surely_satisfied_lines_are_satisfied(
            (pi, di) in (vec2(), direction()),
            (pj, dj) in (vec2(), direction()),
            far in prop_oneof![Just(0i64), -(1i64 << 44)..(1i64 << 44)],
            tilt in prop_oneof![Just(0i64), -(1i64 << 20)..(1i64 << 20)],
            along in -(1i64 << 42)..(1i64 << 42),
            beside in prop_oneof![-(1i64 << 20)..(1i64 << 20), -(1i64 << 34)..(1i64 << 34), -64i64..65],
            speed in prop_oneof![(-(1i64 << 42))..=(1i64 << 42), Just(1i64 << 42)],
        ) {
            let li = Line { point: Vec2::new(pi.x, pi.y + Fx::from_bits(far)), direction: di };
            let dj = Vec2::new(dj.x, dj.y + Fx::from_bits(tilt));
            let lj = Line { point: pj, direction: dj };
            let Terms::Skew { e, k, n_sq } = projected_terms(li, li.direction.det_wide(li.point), lj)
            else {
                return Ok(());
            };
            let line = projected_line(li, lj).unwrap();
            // Points near the line (`beside` ulps to its left, clamped to the admitted speeds),
            // and one anywhere.
            let clamp = |c: Fx| Fx::from_bits(c.to_bits().clamp(-(1 << 42), 1 << 42));
            let near = line.point
                + line.direction * Fx::from_bits(along)
                + line.direction.perp() * Fx::from_bits(beside);
            for v in [
                Vec2::new(clamp(near.x), clamp(near.y)),
                Vec2::from_bits(speed, along),
                Vec2::from_bits(along, speed),
            ] {
                if surely_satisfied(e, k, n_sq, v) {
                    prop_assert!(sure_speed(v));
                    prop_assert!(line.violation_wide(v) <= 0, "{li:?} {lj:?} {v:?}");
                }
            }
        }

        /// [`foot_quotients`] (one division, an estimate and its exact correction) is the two
        /// divisions: any `e` with components up to 2³⁵ (either side of its limit 2³⁴) or
        /// near a unit's, any `k` up to the cap `2⁵⁶·⌊|e|⌋`.
        #[test]
        fn foot_quotients_match_the_divisions(
            ex in prop_oneof![-(1i64 << 35)..(1i64 << 35), -(1i64 << 33)..(1i64 << 33), -64i64..65],
            ey in prop_oneof![-(1i64 << 35)..(1i64 << 35), -(1i64 << 33)..(1i64 << 33), -64i64..65],
            k_frac in prop_oneof![0u64..=(1 << 32), 0u64..(1 << 12), Just(1u64 << 32)],
        ) {
            prop_assume!(ex != 0 || ey != 0);
            let (ax, ay, k, n) = foot_terms(ex, ey, k_frac);
            prop_assert_eq!(foot_quotients(ax, ay, k, n), foot_quotients_dividing(ax, ay, k, n));
        }

        /// The projected line's foot (magnitudes divided, sign applied) is the signed quotient.
        #[test]
        fn projected_line_matches_the_signed_division(
            (pi, di) in (vec2(), direction()),
            (pj, dj) in (vec2(), direction()),
            far in prop_oneof![Just(0i64), -(1i64 << 62)..(1i64 << 62)],
            tilt in prop_oneof![Just(0i64), -(1i64 << 20)..(1i64 << 20)],
        ) {
            // Far points reach the 2²⁴ cap; a tilt of a few ulps makes lines nearly parallel.
            let li = Line { point: Vec2::new(pi.x, pi.y + Fx::from_bits(far >> 2)), direction: di };
            let dj = Vec2::new(dj.x, dj.y + Fx::from_bits(tilt));
            let lj = Line { point: Vec2::new(pj.x + Fx::from_bits(far >> 3), pj.y), direction: dj };
            prop_assert_eq!(projected_line(li, lj), projected_line_dividing(li, lj));
            let nearly = Line { point: pj, direction: Vec2::new(di.x, di.y + Fx::from_bits(tilt)) };
            prop_assert_eq!(projected_line(li, nearly), projected_line_dividing(li, nearly));
            let opposite = Line { point: pj, direction: -nearly.direction };
            prop_assert_eq!(projected_line(li, opposite), projected_line_dividing(li, opposite));
        }

        /// LP3 with the lazy projected lines is RVO2's LP3, bit for bit: random lines, parallel
        /// and antiparallel copies, and pencils of lines through one grid point (their
        /// projected lines all pass through it, so results on it sit on the margin).
        #[test]
        fn lp3_matches_the_eager_lp3(
            lines in prop::collection::vec((vec2(), direction()), 1..12),
            copies in prop::collection::vec((0usize..12, -2i64..3, any::<bool>()), 0..4),
            pencil in prop::option::of((vec2(), prop::collection::vec(direction(), 2..8))),
            num_obstacle_lines in 0usize..3,
            begin in 0usize..12,
            radius in prop_oneof![(0i64..24).prop_map(|k| k << 30), 0i64..(8 * ONE)],
            start in vec2(),
        ) {
            let mut lines = with_copies(lines, &copies, false);
            if let Some((point, directions)) = &pencil {
                lines.extend(directions.iter().map(|&direction| Line { point: *point, direction }));
            }
            let num_obstacle_lines = num_obstacle_lines.min(lines.len());
            let begin = begin % lines.len();
            let radius = Fx::from_bits(radius);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            prop_assert_eq!(
                lp3(&lines, num_obstacle_lines, begin, radius, start, &mut a),
                lp3_eager(&lines, num_obstacle_lines, begin, radius, start, &mut b)
            );
            // Every suffix of a pencil's lines, the start on its point.
            if let Some((point, _)) = &pencil {
                prop_assert_eq!(
                    lp3(&lines, 0, begin, radius, *point, &mut a),
                    lp3_eager(&lines, 0, begin, radius, *point, &mut b)
                );
            }
        }
    }
}

//! RVO2's incremental linear programs, in fixed point.
//!
//! * [`lp1`]: optimum on one line, within the speed circle and the lines before it.
//! * [`lp2`]: incremental 2-D program over all lines (RVO2 processes lines in the given order;
//!   there is no random shuffle, so the result is a pure function of the input order).
//! * [`lp3()`] (in `lp/lp3.rs`): when LP2 is infeasible, minimise the maximum penetration of
//!   the agent lines, keeping the first `num_obstacle_lines` hard (obstacle lines are never
//!   relaxed).
//! * [`solve`] and [`solve_with_path`]: one agent's velocity, LP2 and then LP3 if needed.
//!
//! Every sign test is exact (`i128`); the only roundings are the documented ones of
//! [`crate::math`]. Intersection parameters of nearly parallel lines saturate at ±2²⁴ (far beyond
//! any speed in the domain), which keeps the arithmetic in range without changing which side of
//! the speed circle a line lies on.
//!
//! # Fast paths and their plain forms
//! [`lp1`] defers the circle's square root until the answer lies on the circle; its plain form
//! is `lp1_eager` (RVO2's order: the root first, then `clip`), which it also runs beyond the
//! range where the deferral is exact (`lazy_root_out_of_range`, with the proof). LP3's
//! projected program inlines the same program with the loop for its line bounds
//! (`lp1_looped`). The tests below compare `lp1` and `lp1_looped` with `lp1_eager` on random,
//! nearly parallel and tied lines, and `intersection_parameter` (the clamp decided before
//! dividing) with the clamped saturating quotient. LP3's fast paths and their tests are in
//! `lp/lp3.rs`.

mod lp3;

pub use self::lp3::lp3;
pub(crate) use self::lp3::lp3_eager_with;

use super::Line;
use crate::math::{EPSILON, Fx, Vec2, fx_saturating_div, sqrt_wide, wide_mul};

/// Intersection parameters are clamped to this magnitude (2²⁴).
const T_LIMIT: Fx = Fx::from_bits(1 << 56);

/// What to optimise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// The point closest to this velocity (RVO2 `directionOpt = false`).
    Closest(Vec2),
    /// The point furthest in this unit direction (RVO2 `directionOpt = true`, used by LP3).
    Direction(Vec2),
}

/// Result of [`lp2`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lp2Outcome {
    /// All lines satisfied; the optimum.
    Feasible(Vec2),
    /// Line `failed_line` could not be satisfied together with the ones before it.
    /// `partial` is the optimum of lines `0..failed_line`.
    Infeasible {
        /// Index of the first line that made the program infeasible.
        failed_line: usize,
        /// Best velocity found for the lines before it.
        partial: Vec2,
    },
}

#[inline]
fn clamp_t(t: Fx) -> Fx {
    t.clamp(-T_LIMIT, T_LIMIT)
}

/// LP1: optimum on line `line_no` subject to the speed circle and lines `0..line_no`.
/// `None` when infeasible.
///
/// The circle bounds the line to `[−dot − s, −dot + s]` with `s = ⌊√disc⌋`; the square root is
/// taken only when the answer lies on the circle. Every comparison with a circle bound is
/// decided exactly without it (`y <= s` iff `y < 0` or `y² <= disc`), so the result is that of
/// `lp1_eager` (which takes the root first and clips with `clip`) bit for bit: `None` iff a
/// parallel line excludes the line or `max(t_left, L) > min(t_right, R)` for the tightest line
/// bounds `L`, `R` (the order in which the loop finds it out changes nothing else), and the
/// point is the same clamp of the same values. Beyond `lazy_root_out_of_range` (never in the
/// domain) it is `lp1_eager`.
///
/// Lines 0, 1 and 2 take copies of `lp1_end` specialised for the sides their line bounds
/// fall on (line 0 alone is a third of [`lp2`]'s calls in a dense crowd); later lines take
/// `line_bounds`' loop, as `lp1_looped` (LP3's inlined copy) takes it for every line.
#[must_use]
pub fn lp1(lines: &[Line], line_no: usize, radius: Fx, objective: Objective) -> Option<Vec2> {
    let line = lines[line_no];
    // `None`: the speed circle fully invalidates this line.
    let (dot, discriminant) = circle_discriminant(line, radius)?;
    if lazy_root_out_of_range(dot, discriminant) {
        return lp1_eager(lines, line_no, radius, objective);
    }
    if line_no == 0 {
        return lp1_end(line, dot, discriminant, None, None, objective);
    }
    if line_no == 1 {
        // One line bound at most: a copy of the end for each side.
        return match bound_by(line, &lines[0]) {
            Bound::Excludes => None,
            Bound::None => lp1_end(line, dot, discriminant, None, None, objective),
            Bound::Right(t) => lp1_end(line, dot, discriminant, None, Some(t), objective),
            Bound::Left(t) => lp1_end(line, dot, discriminant, Some(t), None, objective),
        };
    }
    if line_no == 2 {
        // Two line bounds at most: `line_bounds` unrolled, a copy of the end for each pair of
        // bounded sides.
        let end = |left, right| lp1_end(line, dot, discriminant, left, right, objective);
        return match (bound_by(line, &lines[0]), bound_by(line, &lines[1])) {
            (Bound::Excludes, _) | (_, Bound::Excludes) => None,
            (Bound::None, Bound::None) => end(None, None),
            (Bound::Right(r), Bound::None) | (Bound::None, Bound::Right(r)) => end(None, Some(r)),
            (Bound::Left(l), Bound::None) | (Bound::None, Bound::Left(l)) => end(Some(l), None),
            (Bound::Right(a), Bound::Right(b)) => end(None, Some(a.min(b))),
            (Bound::Left(a), Bound::Left(b)) => end(Some(a.max(b)), None),
            (Bound::Left(l), Bound::Right(r)) | (Bound::Right(r), Bound::Left(l)) => {
                if l > r {
                    None
                } else {
                    end(Some(l), Some(r))
                }
            }
        };
    }
    let (left, right) = line_bounds(line, &lines[..line_no])?;
    lp1_end(line, dot, discriminant, left, right, objective)
}

/// [`lp1`] always inlined, with [`line_bounds`]' loop for every line: LP3's projected program
/// ([`lp3()`]) calls it once for each line number it specialises, so that the loop unrolls.
#[inline(always)]
fn lp1_looped(lines: &[Line], line_no: usize, radius: Fx, objective: Objective) -> Option<Vec2> {
    let line = lines[line_no];
    let (dot, discriminant) = circle_discriminant(line, radius)?;
    if lazy_root_out_of_range(dot, discriminant) {
        // Out of line: `lp1` holds the one copy of `lp1_eager`.
        return lp1(lines, line_no, radius, objective);
    }
    let (left, right) = line_bounds(line, &lines[..line_no])?;
    lp1_end(line, dot, discriminant, left, right, objective)
}

/// Whether `dot` and `discriminant` ([`circle_discriminant`]) lie beyond the range in which
/// [`lp1_end`] decides LP1 without the square root, bit for bit with [`lp1_eager`]: within it,
/// `|dot| <= 2⁶¹` and `disc <= 2¹²²` (raw Q32.32 and Q64.64).
///
/// Then `s = ⌊√disc⌋ <= 2⁶¹`, so the circle's ends `−dot ± s` lie within ±2⁶² and are computed
/// without wrapping, as `lp1_eager` computes them; and for any `x` (`|x| < 2⁶³` raw)
/// `|x + dot| < 2⁶³ + 2⁶¹ < 2⁶⁴`, so a non-negative `y = x + dot` (or `−(x + dot)`) is a `u64`,
/// its square one exact 64×64-bit product, and `y <= s` iff `y² <= disc`: each comparison with
/// an end is the eager one. The domain is far inside: with a unit direction (up to its
/// roundings), a point and a speed below 2²⁸ real, `|dot| <= |point|·|direction| < 2²⁹` and
/// `disc <= r² + |point|²·(|direction|² − 1) < 2⁵⁸` real; the domain's points are below 2²⁵
/// (projected lines are capped at [`T_LIMIT`] from the origin) and its speeds below 2¹¹.
#[inline(always)]
fn lazy_root_out_of_range(dot: Fx, discriminant: i128) -> bool {
    // The disjunction, not the negated conjunction: that compiles to more instructions
    // (0.05 % in `bench crowd 2000`, 0.08 % in `bench circle 1000`).
    dot.to_bits().unsigned_abs() > 1 << 61 || discriminant > 1 << 122
}

/// [`lp1`] once the line bounds `left`, `right` ([`line_bounds`]) are known.
#[inline(always)]
fn lp1_end(
    line: Line,
    dot: Fx,
    discriminant: i128,
    left: Option<Fx>,
    right: Option<Fx>,
    objective: Objective,
) -> Option<Vec2> {
    // `x <= t_right = −dot + s`, `x >= t_left = −dot − s`: |x + dot| < 2⁶³ + 2⁶¹ < 2⁶⁴, so a
    // non-negative `y` is a `u64` and its square one 64×64-bit product.
    let below_s = |y: i128| {
        y < 0 || {
            let y = y as u64;
            u128::from(y) * u128::from(y) <= discriminant.cast_unsigned()
        }
    };
    let le_right = |x: Fx| below_s(i128::from(x.to_bits()) + i128::from(dot.to_bits()));
    let ge_left = |x: Fx| below_s(-(i128::from(x.to_bits()) + i128::from(dot.to_bits())));
    // The interval is [lo, hi], lo = max(t_left, L) and hi = min(t_right, R): `Some` when a
    // line bound is the tighter one (ties are the same value), `None` for the circle.
    let hi_line = right.filter(|&r| le_right(r));
    let lo_line = left.filter(|&l| ge_left(l));
    // Empty: L > t_right or t_left > R (L > R is `line_bounds`'; t_left <= t_right).
    if left.is_some_and(|l| !le_right(l)) || right.is_some_and(|r| !ge_left(r)) {
        return None;
    }
    // The end taken: a value, or `Err(right)` for the circle's right (left) end, whose square
    // root is then taken at one place.
    let t = match objective {
        Objective::Direction(dir) => {
            if dir.dot_wide(line.direction) > 0 {
                hi_line.ok_or(true) // take the right extreme
            } else {
                lo_line.ok_or(false) // take the left extreme
            }
        }
        Objective::Closest(opt) => {
            // `t.clamp(lo, hi)`: lo if t < lo, else hi if t > hi, else t.
            let t = line.direction.dot(opt - line.point);
            let below_lo = match lo_line {
                Some(l) => t < l,
                None => !ge_left(t),
            };
            let above_hi = match hi_line {
                Some(r) => t > r,
                None => !le_right(t),
            };
            if below_lo {
                lo_line.ok_or(false)
            } else if above_hi {
                hi_line.ok_or(true)
            } else {
                Ok(t)
            }
        }
    };
    let t = t.unwrap_or_else(|right| {
        let s = sqrt_wide(discriminant);
        if right { -dot + s } else { -dot - s }
    });
    Some(line.point + line.direction * t)
}

/// `line.point · line.direction` and the discriminant `dot² + r² − |point|²` (raw Q64.64) of
/// the line's intersection with the speed circle of radius `radius`; `None` when it is
/// negative (the line misses the circle).
#[inline(always)]
fn circle_discriminant(line: Line, radius: Fx) -> Option<(Fx, i128)> {
    let dot = line.point.dot(line.direction);
    let discriminant =
        wide_mul(dot, dot) + wide_mul(radius, radius) - line.point.length_squared_wide();
    (discriminant >= 0).then_some((dot, discriminant))
}

/// [`lp1`] as RVO2 writes it: the circle's interval first (one square root), then [`clip`].
/// Used outside [`lazy_root_out_of_range`] (never in the domain, so out of line) and as [`lp1`]'s
/// test oracle.
fn lp1_eager(lines: &[Line], line_no: usize, radius: Fx, objective: Objective) -> Option<Vec2> {
    let line = lines[line_no];
    let (dot, discriminant) = circle_discriminant(line, radius)?;
    let sqrt_disc = sqrt_wide(discriminant);
    let (t_left, t_right) = clip(line, &lines[..line_no], -dot - sqrt_disc, -dot + sqrt_disc)?;
    Some(optimum_on(line, t_left, t_right, objective))
}

/// What one earlier line `other` says about the points `point + t · direction` of `line`.
enum Bound {
    /// (Almost) parallel, and `line` lies wholly on its wrong side.
    Excludes,
    /// (Almost) parallel, and `line` lies on its right side: no bound.
    None,
    /// `t ≤` this (`other` bounds `line` on the right).
    Right(Fx),
    /// `t ≥` this (`other` bounds `line` on the left).
    Left(Fx),
}

/// The bound `other` puts on `line` (LP1's per-line step: its intersection parameter,
/// saturated and clamped to ±[`T_LIMIT`]).
#[inline(always)]
fn bound_by(line: Line, other: &Line) -> Bound {
    let denominator = line.direction.det(other.direction);
    let numerator = other.direction.det(line.point - other.point);
    if denominator.abs() <= EPSILON {
        // Lines are (almost) parallel.
        return if numerator < Fx::ZERO {
            Bound::Excludes
        } else {
            Bound::None
        };
    }
    let t = intersection_parameter(numerator, denominator);
    if denominator >= Fx::ZERO {
        Bound::Right(t)
    } else {
        Bound::Left(t)
    }
}

/// `clamp_t(fx_saturating_div(numerator, denominator))` ([`bound_by`]'s parameter), bit for
/// bit, for `denominator != 0`: a quotient of magnitude `2⁵⁶` or more (saturated or not) is
/// clamped to `±T_LIMIT`, which the exact comparison `|n| >= |d|·2²⁴` decides before
/// dividing; otherwise the truncated quotient of the magnitudes (below `2⁵⁶`) with the sign.
#[inline(always)]
fn intersection_parameter(numerator: Fx, denominator: Fx) -> Fx {
    let (n, d) = (numerator.to_bits(), denominator.to_bits());
    let (n_abs, d_abs) = (u128::from(n.unsigned_abs()), u128::from(d.unsigned_abs()));
    let t = if n_abs >= d_abs << 24 {
        T_LIMIT.to_bits()
    } else if n_abs < 1 << 32 {
        // The dividend fits a `u64` (|n| below one unit): the same quotient by a 64-bit
        // division, without the call of the 128-bit one.
        ((n_abs << 32) as u64 / d_abs as u64) as i64
    } else {
        // < 2⁵⁶: the quotient of `fx_saturating_div` without overflow.
        ((n_abs << 32) / d_abs) as i64
    };
    let t = Fx::from_bits(if (n < 0) != (d < 0) { -t } else { t });
    debug_assert_eq!(t, clamp_t(fx_saturating_div(numerator, denominator)));
    t
}

/// The tightest bounds `(L, R)` the lines in `before` put on `t` along `line` ([`clip`]'s
/// loop without an initial interval; `None` for a side no line bounds). `None` when a
/// parallel line excludes all of `line` or `L > R`.
#[inline]
fn line_bounds(line: Line, before: &[Line]) -> Option<(Option<Fx>, Option<Fx>)> {
    let (mut left, mut right): (Option<Fx>, Option<Fx>) = (None, None);
    for other in before {
        match bound_by(line, other) {
            Bound::Excludes => return None,
            Bound::None => {}
            Bound::Right(t) => {
                let r = right.map_or(t, |r| r.min(t));
                right = Some(r);
                if left.is_some_and(|l| l > r) {
                    return None;
                }
            }
            Bound::Left(t) => {
                let l = left.map_or(t, |l| l.max(t));
                left = Some(l);
                if right.is_some_and(|r| l > r) {
                    return None;
                }
            }
        }
    }
    Some((left, right))
}

/// Narrows the interval `[t_left, t_right]` of `line` (points `point + t · direction`) to the
/// side of every line in `before` (LP1's loop; also the lens LP's). `None` when it empties
/// or a parallel line excludes all of `line`.
#[inline]
pub(crate) fn clip(
    line: Line,
    before: &[Line],
    mut t_left: Fx,
    mut t_right: Fx,
) -> Option<(Fx, Fx)> {
    for other in before {
        match bound_by(line, other) {
            Bound::Excludes => return None,
            Bound::None => continue,
            Bound::Right(t) => t_right = t_right.min(t),
            Bound::Left(t) => t_left = t_left.max(t),
        }
        if t_left > t_right {
            return None;
        }
    }
    Some((t_left, t_right))
}

/// The best point of `line` on `[t_left, t_right]` for `objective`.
#[inline]
pub(crate) fn optimum_on(line: Line, t_left: Fx, t_right: Fx, objective: Objective) -> Vec2 {
    let at = |t: Fx| line.point + line.direction * t;
    match objective {
        Objective::Direction(dir) => {
            if dir.dot_wide(line.direction) > 0 {
                at(t_right) // take the right extreme
            } else {
                at(t_left) // take the left extreme
            }
        }
        Objective::Closest(opt) => {
            let t = line.direction.dot(opt - line.point);
            at(t.clamp(t_left, t_right))
        }
    }
}

/// LP2: the velocity within the speed circle of `radius` that satisfies every line and is best
/// for `objective`; lines are added in order (RVO2 `linearProgram2`).
#[must_use]
#[inline]
pub fn lp2(lines: &[Line], radius: Fx, objective: Objective) -> Lp2Outcome {
    let mut result = match objective {
        // The direction is a unit vector.
        Objective::Direction(dir) => dir * radius,
        Objective::Closest(opt) => {
            if opt.length_squared_wide() > wide_mul(radius, radius) {
                // Outside the circle: its radial projection.
                opt.normalize_or_zero() * radius
            } else {
                opt
            }
        }
    };
    for i in 0..lines.len() {
        if lines[i].violation_wide(result) > 0 {
            // The result violates line i: the new optimum lies on it.
            match lp1(lines, i, radius, objective) {
                Some(v) => result = v,
                None => {
                    return Lp2Outcome::Infeasible {
                        failed_line: i,
                        partial: result,
                    };
                }
            }
        }
    }
    Lp2Outcome::Feasible(result)
}

/// Which program produced an agent's new velocity (see [`solve_with_path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SolvePath {
    /// LP2 was feasible: every line is satisfied.
    Lp2,
    /// LP2 failed on an agent line: LP3 minimised the largest agent-line violation, obstacle
    /// lines kept hard.
    Lp3Agents,
    /// The obstacle lines alone were infeasible: LP3 over the obstacle lines, agents ignored.
    Lp3Obstacles,
    /// With an acceleration limit ([`crate::AgentModel::max_accel`]): no velocity in the lens
    /// of the speed and reachable circles satisfies the obstacle lines (or the lens is empty).
    /// "No solution": the agent applied the braking rule of
    /// [`lens::solve_with_path`](super::lens::solve_with_path).
    Braked,
}

/// The full solve of one agent: LP2, then LP3 from the failing line if LP2 is infeasible.
#[must_use]
pub fn solve(
    lines: &[Line],
    num_obstacle_lines: usize,
    max_speed: Fx,
    pref_velocity: Vec2,
    scratch: &mut Vec<Line>,
) -> Vec2 {
    solve_with_path(lines, num_obstacle_lines, max_speed, pref_velocity, scratch).0
}

/// [`solve`], also saying which program produced the velocity.
#[must_use]
#[inline]
pub fn solve_with_path(
    lines: &[Line],
    num_obstacle_lines: usize,
    max_speed: Fx,
    pref_velocity: Vec2,
    scratch: &mut Vec<Line>,
) -> (Vec2, SolvePath) {
    match lp2(lines, max_speed, Objective::Closest(pref_velocity)) {
        Lp2Outcome::Feasible(v) => (v, SolvePath::Lp2),
        // The obstacle lines alone are infeasible (an agent squeezed into a gap as wide as
        // itself, or pressed into a corner): walls come first, so minimise the largest
        // obstacle-line violation and leave the agents out. RVO2 keeps LP2's partial result
        // here, which violates a wall.
        Lp2Outcome::Infeasible {
            failed_line,
            partial,
        } if failed_line < num_obstacle_lines => (
            lp3(
                &lines[..num_obstacle_lines],
                0,
                failed_line,
                max_speed,
                partial,
                scratch,
            ),
            SolvePath::Lp3Obstacles,
        ),
        Lp2Outcome::Infeasible {
            failed_line,
            partial,
        } => (
            lp3(
                lines,
                num_obstacle_lines,
                failed_line,
                max_speed,
                partial,
                scratch,
            ),
            SolvePath::Lp3Agents,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::unit_from_turns;
    use proptest::prelude::*;

    pub(super) const ONE: i64 = 1 << 32;

    /// [`lp1`] against [`lp1_eager`] for every line of `lines` and both objectives, and
    /// [`lp1_looped`] (called as LP3's projected program calls it) against [`lp1`].
    fn check_lp1(lines: &[Line], radius: Fx, objectives: &[Objective]) {
        for i in 0..lines.len() {
            for &objective in objectives {
                let optimum = lp1(lines, i, radius, objective);
                assert_eq!(
                    optimum,
                    lp1_eager(lines, i, radius, objective),
                    "line {i} of {lines:?}, radius {radius:?}, {objective:?}"
                );
                let inlined = match i {
                    0 => lp1_looped(&[lines[0]], 0, radius, objective),
                    1 => lp1_looped(&lines[..2], 1, radius, objective),
                    _ => lp1_looped(lines, i, radius, objective),
                };
                assert_eq!(inlined, optimum, "line {i} of {lines:?}");
            }
        }
    }

    /// [`lp1`] and [`lp1_looped`] beyond the domain's range (a line 2⁶² or more from the
    /// origin, a circle of radius 2³⁰ or more), where [`lazy_root_out_of_range`] sends them to
    /// [`lp1_eager`].
    #[test]
    fn lp1_beyond_the_domain() {
        let far = Fx::from_bits(1 << 62);
        let lines = [
            Line {
                point: Vec2::new(far, Fx::ZERO),
                direction: Vec2::from_int(0, 1),
            },
            Line {
                point: Vec2::new(Fx::ZERO, -far),
                direction: Vec2::from_int(-1, 0),
            },
            Line {
                point: Vec2::from_int(1, 0),
                direction: Vec2::from_int(0, 1),
            },
        ];
        let objectives = [
            Objective::Direction(Vec2::from_int(0, 1)),
            Objective::Direction(Vec2::from_int(0, -1)),
            Objective::Closest(Vec2::from_int(3, 4)),
        ];
        for radius in [Fx::from_num(2), Fx::from_bits(1 << 62), Fx::MAX] {
            check_lp1(&lines, radius, &objectives);
            check_lp1(&[lines[2], lines[0]], radius, &objectives);
            check_lp1(&[lines[1], lines[2]], radius, &objectives);
        }
    }

    /// A direction: exact axis units (so circle bounds and line bounds land on the grid and tie),
    /// or any angle.
    pub(super) fn direction() -> impl Strategy<Value = Vec2> {
        prop_oneof![
            (0usize..4).prop_map(|k| [
                Vec2::from_bits(ONE, 0),
                Vec2::from_bits(0, ONE),
                Vec2::from_bits(-ONE, 0),
                Vec2::from_bits(0, -ONE)
            ][k]),
            (0i64..ONE).prop_map(|turns| unit_from_turns(Fx::from_bits(turns))),
        ]
    }

    /// A coordinate: on a grid of quarter units (exact squares, ties with the circle), a few
    /// ulps off it, or anything in ±8.
    fn coordinate() -> impl Strategy<Value = Fx> {
        prop_oneof![
            (-24i64..25).prop_map(|k| Fx::from_bits(k << 30)),
            (-24i64..25, -2i64..3).prop_map(|(k, d)| Fx::from_bits((k << 30) + d)),
            (-(8 * ONE)..(8 * ONE)).prop_map(Fx::from_bits),
        ]
    }

    pub(super) fn vec2() -> impl Strategy<Value = Vec2> {
        (coordinate(), coordinate()).prop_map(|(x, y)| Vec2::new(x, y))
    }

    /// `lines` (points and directions), then for each of `copies` `(at, shift, flip)` a copy of
    /// line `at` (modulo their number), reversed if `flip`, moved by `shift` ulps along x (if
    /// `along_x`) or y: parallel and antiparallel lines a few ulps apart.
    pub(super) fn with_copies(
        lines: Vec<(Vec2, Vec2)>,
        copies: &[(usize, i64, bool)],
        along_x: bool,
    ) -> Vec<Line> {
        let mut lines: Vec<Line> = lines
            .into_iter()
            .map(|(point, direction)| Line { point, direction })
            .collect();
        for &(at, shift, flip) in copies {
            let mut copy = lines[at % lines.len()];
            if flip {
                copy.direction = -copy.direction;
            }
            if along_x {
                copy.point.x += Fx::from_bits(shift);
            } else {
                copy.point.y += Fx::from_bits(shift);
            }
            lines.push(copy);
        }
        lines
    }

    #[test]
    fn lp1_on_tangents_and_grid_ties() {
        // Speed 5; the horizontal lines y = 3 (chord x in [-4, 4]), y = 5 (tangent), the
        // vertical x = 4 and x = -4 through the chord's ends, x = 0, both orientations.
        let r = Fx::from_num(5);
        let h = |y: i32, d: i32| Line {
            point: Vec2::from_int(0, y),
            direction: Vec2::from_int(d, 0),
        };
        let v = |x: i32, d: i32| Line {
            point: Vec2::from_int(x, 0),
            direction: Vec2::from_int(0, d),
        };
        let objectives: Vec<Objective> = [
            (-9, 3),
            (4, 3),
            (-4, 3),
            (5, 3),
            (0, 3),
            (4, 9),
            (0, 5),
            (1, 5),
        ]
        .iter()
        .map(|&(x, y)| Objective::Closest(Vec2::from_int(x, y)))
        .chain(
            [(1, 0), (-1, 0), (0, 1), (0, -1)]
                .iter()
                .map(|&(x, y)| Objective::Direction(Vec2::from_int(x, y))),
        )
        .collect();
        for lines in [
            vec![h(3, 1), v(4, 1), v(-4, -1), h(3, -1)],
            vec![v(4, -1), h(3, 1), v(-4, 1)],
            vec![v(-4, -1), v(4, 1), h(3, 1)],
            vec![h(5, 1), h(5, -1), v(0, 1), v(0, -1)],
            vec![v(0, 1), h(-5, -1), h(5, 1)],
            vec![v(5, 1), v(4, 1), h(3, -1), h(3, 1), v(-4, 1)],
        ] {
            check_lp1(&lines, r, &objectives);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The intersection parameter with the clamp decided before dividing is the clamped
        /// saturating quotient: quotients at and around ±2⁵⁶ (the clamp), the saturation and
        /// the smallest non-parallel denominators.
        #[test]
        fn intersection_parameter_is_the_clamped_saturating_quotient(
            d in prop_oneof![
                Just(i64::MIN), Just(i64::MAX), -(1i64 << 20)..(1i64 << 20), any::<i64>()
            ],
            q in prop_oneof![
                Just(0i64), -(1i64 << 57)..(1i64 << 57), Just(1i64 << 56), Just(-(1i64 << 56)),
                any::<i64>()
            ],
            r in -3i64..4,
            // Any, or around the 64-bit dividend's limit |n| < 2³² (one unit).
            n in prop_oneof![
                any::<i64>(),
                -(1i64 << 33)..(1i64 << 33),
                (-2i64..3).prop_map(|k| (1i64 << 32) + k),
                (-2i64..3).prop_map(|k| -(1i64 << 32) + k),
            ],
        ) {
            let d = if d == 0 { 1 } else { d };
            // A numerator near q·d (when it fits), so the quotient lands near q; or any.
            let near = i128::from(q) * i128::from(d) / (1 << 32) + i128::from(r);
            for n in [i64::try_from(near).unwrap_or(n), n, i64::MIN, i64::MAX] {
                let (n, d) = (Fx::from_bits(n), Fx::from_bits(d));
                prop_assert_eq!(intersection_parameter(n, d), clamp_t(fx_saturating_div(n, d)));
            }
        }

        /// LP1 with the lazy square root is LP1 with the eager one, bit for bit.
        #[test]
        fn lp1_matches_the_eager_lp1(
            lines in prop::collection::vec((vec2(), direction()), 1..10),
            copies in prop::collection::vec((0usize..10, -2i64..3, any::<bool>()), 0..3),
            radius in prop_oneof![(0i64..24).prop_map(|k| k << 30), 0i64..(8 * ONE)],
            opt in vec2(),
            dir in direction(),
        ) {
            let lines = with_copies(lines, &copies, true);
            check_lp1(
                &lines,
                Fx::from_bits(radius),
                &[Objective::Closest(opt), Objective::Direction(dir)],
            );
        }

        /// LP1 against the eager LP1 on nearly parallel lines: directions tilted from one by
        /// about `EPSILON` (either side of the parallel test), by a few ulps, or a little more,
        /// with lines up to 2¹⁰ away, so that intersection parameters reach the ±2²⁴ clamp or
        /// lie below it; points on a grid or all through one point (bounds that tie, results on
        /// the boundary).
        #[test]
        fn lp1_matches_the_eager_lp1_near_parallel(
            base in direction(),
            tilted in prop::collection::vec(
                (
                    prop_oneof![
                        Just(0i64),
                        (-3i64..4).prop_map(|d| EPSILON.to_bits() + d),
                        (-3i64..4).prop_map(|d| d - EPSILON.to_bits()),
                        -64i64..65,
                        -(1i64 << 24)..(1i64 << 24),
                    ],
                    vec2(),
                    any::<bool>(),
                    any::<bool>(),
                    prop_oneof![Just(0i64), -(1i64 << 42)..(1i64 << 42)],
                ),
                1..8,
            ),
            through in vec2(),
            radius in prop_oneof![(0i64..24).prop_map(|k| k << 30), 0i64..(8 * ONE)],
            opt in vec2(),
            dir in direction(),
        ) {
            let lines: Vec<Line> = tilted
                .iter()
                .map(|&(tilt, point, flip, pencil, far)| {
                    let direction = base + base.perp() * Fx::from_bits(tilt);
                    // A line up to 2¹⁰ away (from the circle): parameters up to the clamp.
                    let point = point + base.perp() * Fx::from_bits(far);
                    Line {
                        point: if pencil { through } else { point },
                        direction: if flip { -direction } else { direction },
                    }
                })
                .collect();
            check_lp1(
                &lines,
                Fx::from_bits(radius),
                &[Objective::Closest(opt), Objective::Direction(dir), Objective::Closest(through)],
            );
        }
    }
}

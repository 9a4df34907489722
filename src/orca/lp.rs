//! RVO2's incremental linear programs, in fixed point.
//!
//! * [`lp1`]: optimum on one line, within the speed circle and the lines before it.
//! * [`lp2`]: incremental 2-D program over all lines (RVO2 processes lines in the given order;
//!   there is no random shuffle, so the result is a pure function of the input order).
//! * [`lp3`]: when LP2 is infeasible, minimise the maximum penetration of the agent lines,
//!   keeping the first `num_obstacle_lines` hard (obstacle lines are never relaxed).
//!
//! Every sign test is exact (`i128`); the only roundings are the documented ones of
//! [`crate::math`]. Intersection parameters of nearly parallel lines saturate at ±2²⁴ (far beyond
//! any speed in the domain), which keeps the arithmetic in range without changing which side of
//! the speed circle a line lies on.

use super::Line;
use crate::math::{EPSILON, Fx, Vec2, div_trunc, fx_saturating_div, sqrt_wide, wide_mul};

/// Intersection parameters are clamped to this magnitude (2²⁴).
pub(crate) const T_LIMIT: Fx = Fx::from_bits(1 << 56);

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
#[must_use]
pub fn lp1(lines: &[Line], line_no: usize, radius: Fx, objective: Objective) -> Option<Vec2> {
    let line = lines[line_no];
    let dot = line.point.dot(line.direction);
    let discriminant =
        wide_mul(dot, dot) + wide_mul(radius, radius) - line.point.length_squared_wide();
    if discriminant < 0 {
        // The speed circle fully invalidates this line.
        return None;
    }
    let sqrt_disc = sqrt_wide(discriminant);
    let (t_left, t_right) = clip(line, &lines[..line_no], -dot - sqrt_disc, -dot + sqrt_disc)?;
    Some(optimum_on(line, t_left, t_right, objective))
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
        let denominator = line.direction.det(other.direction);
        let numerator = other.direction.det(line.point - other.point);
        if denominator.abs() <= EPSILON {
            // Lines are (almost) parallel.
            if numerator < Fx::ZERO {
                return None;
            }
            continue;
        }
        let t = clamp_t(fx_saturating_div(numerator, denominator));
        if denominator >= Fx::ZERO {
            // `other` bounds this line on the right.
            t_right = t_right.min(t);
        } else {
            // `other` bounds this line on the left.
            t_left = t_left.max(t);
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

/// LP3: starting from LP2's partial result, minimise the largest violation of lines
/// `begin_line..` while keeping the first `num_obstacle_lines` lines hard.
///
/// `scratch` is reused between calls (no allocation once warm).
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
        for lj in &lines[num_obstacle_lines.min(i)..i] {
            let determinant = li.direction.det(lj.direction);
            let (point, direction) = if determinant.abs() <= EPSILON {
                // Lines i and j are parallel.
                if li.direction.dot_wide(lj.direction) > 0 {
                    continue; // same direction
                }
                // Opposite directions: the midpoint.
                (
                    (li.point + lj.point).half(),
                    (lj.direction - li.direction).normalize_or_zero(),
                )
            } else {
                // The points where lines i and j are violated equally: (m_j − m_i) · v = c_j − c_i
                // with m = perp(direction), c = det(direction, point). RVO2 anchors this line at
                // the intersection of i and j, which for nearly parallel lines lies up to 2²⁴
                // away; the rounding of that far point and of the unit direction then shifts
                // the line near the speed circle by ~|point|·ulp, and LP1's circle intersection
                // (which assumes a unit direction) misses the circle by ~t²·ulp (measured before
                // this change: the answer 5·10⁻⁵ outside the circle, the max violation 3·10⁻⁶
                // above the optimum). Same line, anchored instead at its foot from the origin,
                // N·(c_j − c_i) / |N|² with N = perp(d_j − d_i), from exact i128 terms.
                let e = lj.direction - li.direction; // |e| >= |det| > EPSILON: never zero
                // |e| and the line's direction e/|e| from one square root (`length_and_direction`
                // is bit-identical to `length` and `normalize_or_zero`).
                let (e_len, e_unit) = e.length_and_direction().unwrap_or((Fx::ZERO, Vec2::ZERO));
                // A line further than 2²⁴ from the origin is moved to 2²⁴ (same side): its
                // distance |k| / |e| is capped, which also keeps every product below in i128.
                let cap = wide_mul(T_LIMIT, e_len);
                let k = (lj.direction.det_wide(lj.point) - li.direction.det_wide(li.point))
                    .clamp(-cap, cap);
                let n_sq = e.length_squared_wide();
                let n = e.perp();
                // One rounding per coordinate: n (Q32.32) · k (Q64.64) / |e|² (Q64.64).
                let foot =
                    |c: Fx| Fx::from_bits(div_trunc(i128::from(c.to_bits()) * k, n_sq) as i64);
                (Vec2::new(foot(n.x), foot(n.y)), e_unit)
            };
            scratch.push(Line { point, direction });
        }
        let objective = Objective::Direction(li.direction.perp());
        if let Lp2Outcome::Feasible(v) = lp2(scratch, radius, objective) {
            result = v;
        }
        // Otherwise keep the result: by construction it is feasible for the projected program,
        // so failure can only come from rounding (RVO2's comment says the same of floats).
        distance = li.violation_wide(result);
    }
    result
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

//! Brute-force reference solver (enumeration of the candidate optima): **a test oracle for
//! [`lp2`](super::lp::lp2)**, not part of the tick.
//!
//! The optimum of "closest point to `pref` inside the speed circle and on the left of every
//! [`Line`]" is unique (the objective is strictly convex, the region convex), and it is one of
//! these candidates:
//!
//! * `pref` itself (interior optimum);
//! * the foot of `pref` on each line (optimum in the interior of one edge);
//! * the intersection of each pair of non-parallel lines (a vertex);
//! * the intersections of each line with the speed circle (an edge meets the arc);
//! * the radial projection of `pref` onto the speed circle (optimum in the interior of the arc).
//!
//! [`solve_lens`] adds the acceleration limit (a reachable circle, [`Lens`]; see
//! docs/agent-model.md) and its extra candidates: the circles' crossings, each line's
//! intersections with the reachable circle, and the radial projection of `pref` onto it.
//!
//! (With no lines and `pref = 0`, the candidate `pref` is the zero vector, the optimum.)
//! [`solve`] keeps the candidates that satisfy every half-plane and the circle within
//! a tolerance and returns the one closest to `pref`; `None` when no candidate qualifies, i.e.
//! the program is infeasible (up to the tolerance). Parallel lines contribute no intersection;
//! a duplicate, less strict line is simply never the binding one, so no special case is needed.
//!
//! # Precision
//! Everything is integer arithmetic on [`Fx`] (no floats). Candidates are computed with a single
//! rounding where cheap: a pair intersection is `p_i + d_i · det(d_j, p_i − p_j) / det(d_i, d_j)`
//! with the two determinants exact in `i128` and one division per coordinate; the radial
//! projection is `pref · r / |pref|` with one division. The cost is `O(n²)` candidates, each
//! checked against `n` lines: `O(n³)`, fine for the handful of lines of a test.

use super::Line;
use super::lens::Lens;
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};

/// Default feasibility tolerance of [`solve`]: `2⁻²⁴ ≈ 6·10⁻⁸` (256 ulps of [`Fx`]).
///
/// A candidate may lie this far on the wrong side of a line, or outside the speed circle, and
/// still count as feasible. It absorbs the rounding of the candidates themselves (a vertex of two
/// lines crossing at angle θ is off by a few ulps / sin θ) so that the true optimum is never
/// discarded; in exchange a candidate violating by up to the tolerance may be preferred, which
/// moves the answer by at most about tolerance / sin θ.
pub const DEFAULT_TOLERANCE: Fx = Fx::from_bits(1 << 8);

/// The closest feasible velocity to `pref` (see the [module docs](self)), with
/// [`DEFAULT_TOLERANCE`]. `None` when the lines and the speed circle have no common point.
///
/// ```
/// use lockstep_orca::orca::{Line, reference};
/// use lockstep_orca::{Fx, Vec2};
///
/// // v_x <= 0.75 and v_y >= 0.2, speed 1.5, preferred (1, 0): the vertex (0.75, 0.2).
/// let lines = [
///     Line { point: Vec2::new(Fx::lit("0.75"), Fx::ZERO), direction: Vec2::from_int(0, 1) },
///     Line { point: Vec2::new(Fx::ZERO, Fx::lit("0.2")), direction: Vec2::from_int(1, 0) },
/// ];
/// let v = reference::solve(&lines, Fx::lit("1.5"), Vec2::from_int(1, 0)).unwrap();
/// assert_eq!(v, Vec2::new(Fx::lit("0.75"), Fx::lit("0.2")));
/// ```
#[must_use]
pub fn solve(lines: &[Line], max_speed: Fx, pref: Vec2) -> Option<Vec2> {
    solve_with_tolerance(lines, max_speed, pref, DEFAULT_TOLERANCE)
}

/// [`solve`] with an explicit feasibility tolerance (a non-negative distance in velocity units).
#[must_use]
pub fn solve_with_tolerance(
    lines: &[Line],
    max_speed: Fx,
    pref: Vec2,
    tolerance: Fx,
) -> Option<Vec2> {
    let mut best: Option<(i128, Vec2)> = None;
    for_each_candidate(lines, max_speed, pref, |c| {
        if !is_feasible(lines, max_speed, c, tolerance) {
            return;
        }
        let d = (c - pref).length_squared_wide();
        // Ties (equal distance) go to the smaller (x, y) bits, so the answer is deterministic.
        let better = match best {
            None => true,
            Some((bd, bv)) => {
                (d, c.x.to_bits(), c.y.to_bits()) < (bd, bv.x.to_bits(), bv.y.to_bits())
            }
        };
        if better {
            best = Some((d, c));
        }
    });
    best.map(|(_, v)| v)
}

/// Whether `v` satisfies every line and the speed circle, each within `tolerance`.
///
/// Exact: the violation `det(direction, point − v)` and `|v|²` are compared in `i128`.
#[must_use]
pub fn is_feasible(lines: &[Line], max_speed: Fx, v: Vec2, tolerance: Fx) -> bool {
    let tol_wide = wide_mul(tolerance, Fx::ONE);
    let outer = max_speed + tolerance;
    v.length_squared_wide() <= wide_mul(outer, outer)
        && lines.iter().all(|l| l.violation_wide(v) <= tol_wide)
}

/// Calls `f` on every candidate of the enumeration (see the [module docs](self)), feasible or
/// not, in a fixed order. Exposed so tests can inspect the candidate set.
pub fn for_each_candidate(lines: &[Line], max_speed: Fx, pref: Vec2, mut f: impl FnMut(Vec2)) {
    // Interior optimum.
    f(pref);
    // Interior of the arc: radial projection of pref (pref · r / |pref|, one rounding each).
    let len = pref.length();
    if len > Fx::ZERO {
        let scale =
            |c: Fx| Fx::from_bits((wide_mul(c, max_speed) / i128::from(len.to_bits())) as i64);
        f(Vec2::new(scale(pref.x), scale(pref.y)));
    }
    for (i, li) in lines.iter().enumerate() {
        // Interior of an edge: the foot of pref on the line.
        let t = li.direction.dot(pref - li.point);
        f(li.point + li.direction * t);
        // Edge meets arc: |p + t d|² = r² gives t = −p·d ± sqrt((p·d)² + r² − |p|²).
        let dot = li.point.dot(li.direction);
        let disc =
            wide_mul(dot, dot) + wide_mul(max_speed, max_speed) - li.point.length_squared_wide();
        if disc >= 0 {
            let root = sqrt_wide(disc);
            f(li.point + li.direction * (-dot - root));
            f(li.point + li.direction * (-dot + root));
        }
        // Vertices.
        for lj in &lines[i + 1..] {
            if let Some(v) = intersection(li, lj, max_speed) {
                f(v);
            }
        }
    }
}

/// Intersection of two lines, or `None` if they are exactly parallel or cross so far out that
/// the point cannot be inside the speed circle.
fn intersection(li: &Line, lj: &Line, max_speed: Fx) -> Option<Vec2> {
    let den = li.direction.det_wide(lj.direction); // Q64.64, exact
    if den == 0 {
        return None;
    }
    let num = lj.direction.det_wide(li.point - lj.point); // Q64.64, exact
    // t = num / den as Q32.32 bits. |t| > |p_i| + r + 1 puts the point outside the circle.
    // In the domain |num| < 2⁸⁰ (points within 2¹⁵ of the origin), so the shift is exact.
    if num.unsigned_abs() >= 1 << 94 {
        return None;
    }
    let t_bits = (num << 32) / den;
    let bound = i128::from((li.point.length() + max_speed + Fx::ONE).to_bits());
    if t_bits.abs() > bound {
        return None;
    }
    // Coordinate = p + d·num/den with one rounding: d (Q32.32) · num (Q64.64) / den (Q64.64).
    let coord = |p: Fx, d: Fx| -> Fx {
        match i128::from(d.to_bits()).checked_mul(num) {
            Some(prod) => p + Fx::from_bits((prod / den) as i64),
            None => p + d * Fx::from_bits(t_bits as i64),
        }
    };
    Some(Vec2::new(
        coord(li.point.x, li.direction.x),
        coord(li.point.y, li.direction.y),
    ))
}

// ------------------------------------------------------------------ with the reachable circle

/// [`solve`] with an acceleration limit (docs/agent-model.md): the closest point to `pref` inside the
/// lens of the speed circle and the reachable circle ([`Lens`]) and on the left of every line.
/// The candidates are [`for_each_candidate`]'s (with the lens's speed) plus the lens's own
/// ones ([`for_each_lens_candidate`]); feasibility checks both circles. `None` when infeasible.
#[must_use]
pub fn solve_lens(lines: &[Line], lens: &Lens, pref: Vec2) -> Option<Vec2> {
    solve_lens_with_tolerance(lines, lens, pref, DEFAULT_TOLERANCE)
}

/// [`solve_lens`] with an explicit feasibility tolerance.
#[must_use]
pub fn solve_lens_with_tolerance(
    lines: &[Line],
    lens: &Lens,
    pref: Vec2,
    tolerance: Fx,
) -> Option<Vec2> {
    let mut best: Option<(i128, Vec2)> = None;
    for_each_lens_candidate(lines, lens, pref, |c| {
        if !is_feasible_lens(lines, lens, c, tolerance) {
            return;
        }
        let d = (c - pref).length_squared_wide();
        let better = match best {
            None => true,
            Some((bd, bv)) => {
                (d, c.x.to_bits(), c.y.to_bits()) < (bd, bv.x.to_bits(), bv.y.to_bits())
            }
        };
        if better {
            best = Some((d, c));
        }
    });
    best.map(|(_, v)| v)
}

/// Whether `v` satisfies every line and both circles of `lens`, each within `tolerance`.
#[must_use]
pub fn is_feasible_lens(lines: &[Line], lens: &Lens, v: Vec2, tolerance: Fx) -> bool {
    let outer = lens.radius + tolerance;
    is_feasible(lines, lens.max_speed, v, tolerance)
        && (v - lens.center).length_squared_wide() <= wide_mul(outer, outer)
}

/// Every candidate of [`solve_lens`]: those of [`for_each_candidate`] for the speed circle,
/// then the lens's own: the two circles' crossings, each line's intersections with the
/// reachable circle, the radial projection of `pref` onto it, and its centre (the whole
/// reachable disc when its radius is 0).
pub fn for_each_lens_candidate(lines: &[Line], lens: &Lens, pref: Vec2, mut f: impl FnMut(Vec2)) {
    for_each_candidate(lines, lens.max_speed, pref, &mut f);
    if let Some(xs) = lens.crossings() {
        xs.into_iter().for_each(&mut f);
    }
    let c = lens.center;
    let d = pref - c;
    let len = d.length();
    if len > Fx::ZERO {
        let scale =
            |x: Fx| Fx::from_bits((wide_mul(x, lens.radius) / i128::from(len.to_bits())) as i64);
        f(c + Vec2::new(scale(d.x), scale(d.y)));
    }
    f(c);
    for l in lines {
        // |p − c + t d|² = r²: t = −q·d ± sqrt((q·d)² + r² − |q|²) with q = p − c.
        let q = l.point - c;
        let dot = q.dot(l.direction);
        let disc =
            wide_mul(dot, dot) + wide_mul(lens.radius, lens.radius) - q.length_squared_wide();
        if disc >= 0 {
            let root = sqrt_wide(disc);
            f(l.point + l.direction * (-dot - root));
            f(l.point + l.direction * (-dot + root));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(px: &str, py: &str, dx: i32, dy: i32) -> Line {
        Line {
            point: Vec2::new(Fx::lit(px), Fx::lit(py)),
            direction: Vec2::from_int(dx, dy),
        }
    }

    #[test]
    fn two_half_planes_meet_at_a_vertex() {
        // v_x <= 0.75: the line x = 0.75 pointing +y (left side is x < 0.75).
        // v_y >= 0.2: the line y = 0.2 pointing +x (left side is y > 0.2).
        let lines = [line("0.75", "0", 0, 1), line("0", "0.2", 1, 0)];
        let v = solve(&lines, Fx::lit("1.5"), Vec2::from_int(1, 0)).unwrap();
        assert_eq!(v, Vec2::new(Fx::lit("0.75"), Fx::lit("0.2")));
    }

    #[test]
    fn no_lines_zero_pref_gives_zero() {
        assert_eq!(solve(&[], Fx::ONE, Vec2::ZERO), Some(Vec2::ZERO));
    }

    #[test]
    fn pref_outside_circle_is_projected() {
        // (3, 4) · 2 / 5 = (1.2, 1.6), each coordinate truncated once.
        let v = solve(&[], Fx::from_num(2), Vec2::from_int(3, 4)).unwrap();
        assert_eq!(v, Vec2::from_bits(5_153_960_755, 6_871_947_673));
    }

    #[test]
    fn infeasible_gives_none() {
        // x >= 1 (line x = 1 pointing −y) and x <= −1 (line x = −1 pointing +y).
        let lines = [line("1", "0", 0, -1), line("-1", "0", 0, 1)];
        assert_eq!(solve(&lines, Fx::from_num(5), Vec2::ZERO), None);
        // A line entirely outside the speed circle, on the wrong side.
        // Left of the line y = 3 pointing −x is y <= 3: feasible.
        let far = [line("0", "3", -1, 0)];
        assert!(solve(&far, Fx::ONE, Vec2::ZERO).is_some());
        let far = [line("0", "3", 1, 0)]; // left of (1, 0) through y = 3: y >= 3
        assert_eq!(solve(&far, Fx::ONE, Vec2::ZERO), None);
    }
}

//! The incremental LP with an acceleration limit (docs/agent-model.md): RVO2's LP1, LP2
//! and LP3 over the **lens** of two discs, the speed circle `|v| ≤ max_speed` and the
//! reachable circle `|v − c| ≤ r` (`c` the current velocity, `r = max_accel · time_step`).
//!
//! * [`lp1`]: the optimum on one line, its segment clipped against both circles and the lines
//!   before it.
//! * [`lp2`]: starts at the point of the lens best for the objective ([`start`]: the lens point
//!   closest to the preferred velocity, or furthest in LP3's direction), then adds the lines in
//!   order. `None` when the lens itself is empty (the current velocity is further than
//!   `max_speed + r` from the origin, e.g. after the max speed dropped).
//! * [`lp3`]: RVO2's LP3 with every projected program solved within the lens.
//! * [`solve_with_path`]: LP2, LP3 on an agent line, and the **braking rule** when the lens and
//!   the obstacle lines have no common point ([`SolvePath::Braked`]).
//!
//! Every region here is convex, so RVO2's incremental argument holds unchanged: when the
//! current optimum violates line `i`, the new optimum lies on line `i`. Sign tests are exact
//! (`i128`); the roundings are those of [`crate::orca::lp`] plus one square root per circle.
//! The functions of [`crate::orca::lp`] are untouched: an agent without an acceleration limit
//! never comes here.

use super::Line;
use super::lp::{Lp2Outcome, Objective, SolvePath};
use crate::math::{Fx, Vec2, div_trunc, sqrt_wide, wide_mul};

/// The speed circle's radius while braking: larger than any velocity the reachable circle
/// holds in the domain (|c| ≤ 1,415 plus r ≤ 4,096), so only the reachable circle binds.
const UNBOUNDED: Fx = Fx::from_bits(1 << 48);

/// The feasible disc pair: `|v| ≤ max_speed` and `|v − center| ≤ radius`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lens {
    /// Radius of the speed circle (centred on the origin).
    pub max_speed: Fx,
    /// Centre of the reachable circle: the current velocity.
    pub center: Vec2,
    /// Radius of the reachable circle: `max_accel · time_step`.
    pub radius: Fx,
}

impl Lens {
    /// Whether `v` lies in both discs (exact).
    #[must_use]
    pub fn contains(&self, v: Vec2) -> bool {
        v.length_squared_wide() <= wide_mul(self.max_speed, self.max_speed)
            && (v - self.center).length_squared_wide() <= wide_mul(self.radius, self.radius)
    }

    /// The two points where the circles cross (none when one disc holds the other, they are
    /// disjoint, or concentric). `d = |c|`, `x = (d² + R² − r²) / 2d` along `c / d`,
    /// `h = sqrt(R² − x²)` across.
    #[must_use]
    pub fn crossings(&self) -> Option<[Vec2; 2]> {
        // Whether the circles meet, decided exactly: (R − r)² ≤ |c|² ≤ (R + r)². The rounded
        // `x` below cannot decide it near tangency: one ulp of `x` there is worth a gap of
        // ~2·10⁻⁵ between the circles (`R − x` grows with the square of the gap), so disjoint
        // circles could yield "crossings" ~10⁻⁵ outside the reachable disc.
        let c2 = self.center.length_squared_wide();
        let sum = self.max_speed.saturating_add(self.radius);
        let diff = self.max_speed.saturating_sub(self.radius);
        if c2 > wide_mul(sum, sum) || c2 < wide_mul(diff, diff) {
            return None;
        }
        let (d, u) = self.center.length_and_direction()?;
        let big_r2 = wide_mul(self.max_speed, self.max_speed);
        let num = self.center.length_squared_wide() + big_r2 - wide_mul(self.radius, self.radius);
        let den = 2 * i128::from(d.to_bits());
        if den == 0 {
            return None;
        }
        let x_bits = div_trunc(num, den); // Q64.64 / Q32.32 = Q32.32
        if x_bits.unsigned_abs() > u128::from(self.max_speed.to_bits().unsigned_abs()) {
            return None;
        }
        let x = Fx::from_bits(x_bits as i64);
        let h2 = big_r2 - wide_mul(x, x);
        if h2 < 0 {
            return None;
        }
        let h = sqrt_wide(h2);
        let base = u * x;
        let across = u.perp() * h;
        Some([base + across, base - across])
    }

    /// The `t` interval of `point + t·direction` inside the disc `|v − center| ≤ radius`
    /// (`direction` a unit vector), or `None` when the line misses it.
    fn interval(point: Vec2, direction: Vec2, center: Vec2, radius: Fx) -> Option<(Fx, Fx)> {
        let q = point - center;
        let dot = q.dot(direction);
        let disc = wide_mul(dot, dot) + wide_mul(radius, radius) - q.length_squared_wide();
        if disc < 0 {
            return None;
        }
        let s = sqrt_wide(disc);
        Some((-dot - s, -dot + s))
    }
}

/// The radial projection of `p` onto the circle of `radius` around `center`: `center +
/// (p − center) · radius / |p − center|` (one rounding per coordinate). `None` when `p` is the
/// centre.
fn project(p: Vec2, center: Vec2, radius: Fx) -> Option<Vec2> {
    let d = p - center;
    let len = d.length();
    if len == Fx::ZERO {
        return None;
    }
    let scale =
        |c: Fx| Fx::from_bits(div_trunc(wide_mul(c, radius), i128::from(len.to_bits())) as i64);
    Some(center + Vec2::new(scale(d.x), scale(d.y)))
}

/// The starting point of [`lp2`]: the lens point closest to the velocity of
/// [`Objective::Closest`] (the point itself, its radial projection onto either circle when the
/// projection lies in the other disc, or a crossing of the circles), or furthest in the
/// direction of [`Objective::Direction`] (`max_speed · dir`, `center + radius · dir`, or a
/// crossing). `None` when the lens is empty. Ties go to the first candidate in that order.
#[must_use]
pub fn start(lens: &Lens, objective: Objective) -> Option<Vec2> {
    // A point on one circle is tested against the other disc only (it lies on its own circle
    // up to the rounding of the projection); the crossings lie on both.
    let in_speed = |v: Vec2| v.length_squared_wide() <= wide_mul(lens.max_speed, lens.max_speed);
    let in_reach =
        |v: Vec2| (v - lens.center).length_squared_wide() <= wide_mul(lens.radius, lens.radius);
    let mut best: Option<(i128, Vec2)> = None;
    let mut offer = |v: Vec2, ok: bool, score: i128| {
        if ok && best.is_none_or(|(s, _)| score < s) {
            best = Some((score, v));
        }
    };
    match objective {
        Objective::Closest(p) => {
            if lens.contains(p) {
                return Some(p);
            }
            let score = |v: Vec2| (v - p).length_squared_wide();
            if let Some(v) = project(p, Vec2::ZERO, lens.max_speed) {
                offer(v, in_reach(v), score(v));
            }
            if let Some(v) = project(p, lens.center, lens.radius) {
                offer(v, in_speed(v), score(v));
            }
            if let Some(xs) = lens.crossings() {
                for v in xs {
                    offer(v, true, score(v));
                }
            }
            // A zero-radius reachable circle is its centre (no projection onto it exists when
            // p is the centre).
            offer(lens.center, in_speed(lens.center), score(lens.center));
        }
        Objective::Direction(dir) => {
            let score = |v: Vec2| -dir.dot_wide(v);
            let a = dir * lens.max_speed;
            offer(a, in_reach(a), score(a));
            let b = lens.center + dir * lens.radius;
            offer(b, in_speed(b), score(b));
            if let Some(xs) = lens.crossings() {
                for v in xs {
                    offer(v, true, score(v));
                }
            }
            offer(lens.center, in_speed(lens.center), score(lens.center));
        }
    }
    best.map(|(_, v)| v)
}

/// LP1 in the lens: the optimum on line `line_no`, its segment clipped against both circles
/// and bounded by lines `0..line_no`. `None` when infeasible.
#[must_use]
pub fn lp1(lines: &[Line], line_no: usize, lens: &Lens, objective: Objective) -> Option<Vec2> {
    let line = lines[line_no];
    // The segment inside the speed circle, then inside the reachable circle.
    let (mut t_left, mut t_right) =
        Lens::interval(line.point, line.direction, Vec2::ZERO, lens.max_speed)?;
    let (l2, r2) = Lens::interval(line.point, line.direction, lens.center, lens.radius)?;
    t_left = t_left.max(l2);
    t_right = t_right.min(r2);
    if t_left > t_right {
        // The line crosses both discs, but not where they overlap.
        return None;
    }
    let (t_left, t_right) = super::lp::clip(line, &lines[..line_no], t_left, t_right)?;
    Some(super::lp::optimum_on(line, t_left, t_right, objective))
}

/// LP2 in the lens: the velocity in both discs that satisfies every line and is best for
/// `objective`, lines added in order from [`start`]. `None` when the lens is empty.
#[must_use]
pub fn lp2(lines: &[Line], lens: &Lens, objective: Objective) -> Option<Lp2Outcome> {
    let mut result = start(lens, objective)?;
    for i in 0..lines.len() {
        if lines[i].violation_wide(result) > 0 {
            match lp1(lines, i, lens, objective) {
                Some(v) => result = v,
                None => {
                    return Some(Lp2Outcome::Infeasible {
                        failed_line: i,
                        partial: result,
                    });
                }
            }
        }
    }
    Some(Lp2Outcome::Feasible(result))
}

/// LP3 in the lens: from LP2's partial result, minimise the largest violation of lines
/// `begin_line..`, the first `num_obstacle_lines` kept hard (see [`crate::orca::lp::lp3`],
/// whose projected lines it shares): RVO2's eager loop with the lens's [`lp2`].
#[must_use]
pub fn lp3(
    lines: &[Line],
    num_obstacle_lines: usize,
    begin_line: usize,
    lens: &Lens,
    result: Vec2,
    scratch: &mut Vec<Line>,
) -> Vec2 {
    super::lp::lp3_eager_with(
        lines,
        num_obstacle_lines,
        begin_line,
        result,
        scratch,
        |s, o| match lp2(s, lens, o) {
            Some(Lp2Outcome::Feasible(v)) => Some(v),
            _ => None,
        },
    )
}

/// The full solve of one agent with an acceleration limit: LP2 in the lens, LP3 in the lens
/// from a failing agent line, and the braking rule otherwise.
///
/// **Braking rule** ([`SolvePath::Braked`]): when the lens is empty, or the lens and the
/// obstacle lines have no common point, the agent ignores the other agents and its speed
/// limit, and brakes as hard as its acceleration allows while respecting the walls: the
/// velocity closest to zero within the reachable circle that satisfies every obstacle line
/// (the velocity change stays within reach; the speed may stay above the max speed for the
/// ticks it takes to brake). If no velocity within reach satisfies the walls, the walls win
/// over the acceleration limit (the braking velocity obeys the navigation
/// boundary): the velocity in the speed circle closest to the current one (the smallest
/// change) that satisfies them, or LP3 over them in the speed circle, as RVO2 solves walls
/// alone ([`SolvePath::Lp3Obstacles`]). Only then does the velocity change exceed the reach.
#[must_use]
pub fn solve_with_path(
    lines: &[Line],
    num_obstacle_lines: usize,
    lens: &Lens,
    pref_velocity: Vec2,
    scratch: &mut Vec<Line>,
) -> (Vec2, SolvePath) {
    match lp2(lines, lens, Objective::Closest(pref_velocity)) {
        Some(Lp2Outcome::Feasible(v)) => (v, SolvePath::Lp2),
        Some(Lp2Outcome::Infeasible {
            failed_line,
            partial,
        }) if failed_line >= num_obstacle_lines => (
            lp3(
                lines,
                num_obstacle_lines,
                failed_line,
                lens,
                partial,
                scratch,
            ),
            SolvePath::Lp3Agents,
        ),
        // The lens is empty, or it and the obstacle lines have no common point.
        _ => (
            brake(&lines[..num_obstacle_lines], lens, scratch),
            SolvePath::Braked,
        ),
    }
}

/// The braking rule of [`solve_with_path`].
fn brake(obstacle_lines: &[Line], lens: &Lens, scratch: &mut Vec<Line>) -> Vec2 {
    let reach = Lens {
        max_speed: UNBOUNDED,
        ..*lens
    };
    if let Some(Lp2Outcome::Feasible(v)) =
        lp2(obstacle_lines, &reach, Objective::Closest(Vec2::ZERO))
    {
        return v;
    }
    // The walls cannot be satisfied within reach: they win over the acceleration limit
    // (the braking velocity obeys the navigation boundary), with the smallest
    // velocity change that satisfies them, as RVO2 would solve them.
    match super::lp::lp2(
        obstacle_lines,
        lens.max_speed,
        Objective::Closest(lens.center),
    ) {
        Lp2Outcome::Feasible(v) => v,
        Lp2Outcome::Infeasible {
            failed_line,
            partial,
        } => super::lp::lp3(
            obstacle_lines,
            0,
            failed_line,
            lens.max_speed,
            partial,
            scratch,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lens(r: i32, c: (i32, i32), a: &str) -> Lens {
        Lens {
            max_speed: Fx::from_num(r),
            center: Vec2::from_int(c.0, c.1),
            radius: Fx::lit(a),
        }
    }

    #[test]
    fn circles_a_hair_apart_do_not_cross() {
        // The conformance proptest's seed 13218955593519606553: a zero-radius reachable circle
        // 1.55·10⁻⁶ outside the speed circle. The rounded `x` says they touch; they do not, so
        // there is no crossing and the lens is empty.
        let l = Lens {
            max_speed: Fx::lit("0.9970265047"),
            center: Vec2::new(Fx::lit("0.8804230473"), Fx::lit("-0.467889098")),
            radius: Fx::ZERO,
        };
        assert_eq!(l.crossings(), None);
        let pref = Vec2::new(Fx::lit("1.9195260087"), Fx::lit("0.5861992114"));
        assert_eq!(start(&l, Objective::Closest(pref)), None);
        assert_eq!(lp2(&[], &l, Objective::Closest(pref)), None);
        // With a reach of 0.001 the same circles overlap and cross on the speed circle.
        let far = Lens {
            radius: Fx::lit("0.001"),
            ..l
        };
        let xs = far
            .crossings()
            .expect("circles 1.55e-6 apart overlap with a reach of 0.001");
        for v in xs {
            assert!((v.length() - far.max_speed).abs() < Fx::lit("0.000001"));
        }
    }

    #[test]
    fn start_is_the_preferred_velocity_inside_the_lens() {
        let l = lens(2, (1, 0), "1.5");
        let p = Vec2::new(Fx::lit("1.5"), Fx::lit("0.5"));
        assert_eq!(start(&l, Objective::Closest(p)), Some(p));
    }

    #[test]
    fn start_projects_onto_the_reachable_circle() {
        // At rest, reach 0.5, pref (2, 0) inside the speed circle of 3: (0.5, 0).
        let l = lens(3, (0, 0), "0.5");
        let v = start(&l, Objective::Closest(Vec2::from_int(2, 0))).unwrap();
        assert_eq!(v, Vec2::new(Fx::lit("0.5"), Fx::ZERO));
    }

    #[test]
    fn start_takes_a_crossing_when_neither_projection_is_in_the_lens() {
        // Speed circle 1, reach circle of 1 around (1, 0): crossings (0.5, ±√3/2). Preferred
        // (0, 5) projects onto (0, 1) (outside the reach) and onto the reach circle at
        // (1, 0) + (−1, 5)/√26 (outside the speed circle).
        let l = lens(1, (1, 0), "1");
        let v = start(&l, Objective::Closest(Vec2::from_int(0, 5))).unwrap();
        assert_eq!(v.x, Fx::lit("0.5"));
        assert!(
            (v.y - Fx::lit("0.8660254037")).abs() < Fx::lit("0.000001"),
            "{v:?}"
        );
    }

    #[test]
    fn empty_lens_has_no_start() {
        let l = lens(1, (5, 0), "1");
        assert_eq!(start(&l, Objective::Closest(Vec2::ZERO)), None);
        assert_eq!(lp2(&[], &l, Objective::Closest(Vec2::ZERO)), None);
    }

    #[test]
    fn lp1_clips_the_segment_to_the_reachable_circle() {
        // Line y = 0.5 (pointing −x, left side y ≤ 0.5); at rest with reach 1 the segment is
        // |x| ≤ √0.75; the preferred (2, 2) gives its right end.
        let lines = [Line {
            point: Vec2::new(Fx::ZERO, Fx::lit("0.5")),
            direction: Vec2::from_int(-1, 0),
        }];
        let l = lens(5, (0, 0), "1");
        let v = lp1(&lines, 0, &l, Objective::Closest(Vec2::from_int(2, 2))).unwrap();
        assert_eq!(v.y, Fx::lit("0.5"));
        assert!(
            (v.x - Fx::lit("0.8660254037")).abs() < Fx::lit("0.000001"),
            "{v:?}"
        );
        assert!(l.contains(v));
    }

    #[test]
    fn brakes_within_reach_when_the_walls_leave_no_room() {
        // Moving at (2, 0) with reach 0.5, speed limit 1, a wall demanding v_x ≤ 1.75 (line
        // x = 1.75 pointing +y): the lens (within 1 of the origin, within 0.5 of (2, 0)) is
        // empty, so the agent brakes: closest to zero within reach, (1.5, 0).
        let lines = [Line {
            point: Vec2::new(Fx::lit("1.75"), Fx::ZERO),
            direction: Vec2::from_int(0, 1),
        }];
        let l = lens(1, (2, 0), "0.5");
        let mut scratch = Vec::new();
        let (v, path) = solve_with_path(&lines, 1, &l, Vec2::from_int(2, 0), &mut scratch);
        assert_eq!(path, SolvePath::Braked);
        assert_eq!(v, Vec2::new(Fx::lit("1.5"), Fx::ZERO));
        // A wall demanding v_x ≤ 0, out of reach: the wall wins over the acceleration, with
        // the smallest change of velocity: from (1, 1) to (0, 1).
        let lines = [Line {
            point: Vec2::ZERO,
            direction: Vec2::from_int(0, 1),
        }];
        let l = lens(2, (1, 1), "0.5");
        let (v, path) = solve_with_path(&lines, 1, &l, Vec2::from_int(2, 0), &mut scratch);
        assert_eq!(path, SolvePath::Braked);
        assert_eq!(v, Vec2::from_int(0, 1));
        // The same wall within reach: braking stops at the wall.
        let l = lens(2, (0, 0), "0.5");
        let (v, path) = solve_with_path(&lines, 1, &l, Vec2::from_int(2, 0), &mut scratch);
        assert_eq!(path, SolvePath::Lp2);
        assert_eq!(v.x, Fx::ZERO);
    }
}

//! ORCA half-planes induced by obstacle edges (RVO2 `Agent::computeNewVelocity`, first part),
//! as pure functions.
//!
//! [`obstacle_line`] follows RVO2 branch for branch: the already-covered test, collision with the
//! left vertex, the right vertex or the segment, the oblique views where one vertex defines both
//! legs, legs from convex vertices (a non-convex vertex extends the cut-off line), foreign legs,
//! and the projection on the left/right cut-off circle, the cut-off line or a leg. Two
//! deliberate differences: the segment-collision test is `0 <= s <= 1` (RVO2: `s < 1`, whose
//! `s = 1` case takes the square root of a negative number, RVO2 PR #1); and the foreign-leg
//! test takes the exact sign of RVO2's `det(leg, neighbour direction)` (the leg unrounded,
//! [`super::geom::tangent_det_sign`]), because at a wall's end an agent resting on the wall
//! makes that `det` an ulp-sized number and a wrong sign leaves the wall without a line.
//!
//! # Arithmetic
//! RVO2 works in velocity space, dividing positions by `τ = time_horizon_obst`. Far vertices of
//! long edges would overflow [`Fx`] there (`2.9·10⁶ / 0.001`), so every *test* is done in
//! position space instead — velocities multiplied by `τ`, which changes no sign and no ordering —
//! with exact `i128` products. Only the emitted lines are velocity-space, and they are bounded:
//! a leg from a convex vertex is a tangent from the origin, so its line is stored through the
//! origin exactly (RVO2's point `cutoff + r/τ·perp(d)` is the tangent point, on that line); the
//! cut-off line and a leg that extends it are stored by their foot point from the origin, `n·c`
//! with `n` the left normal and `c = (n·(vertex − position) + r) / τ` — the line RVO2 builds,
//! represented by another of its points, with `|c| <= (range − r)/τ = max_speed`. Cut-off circle lines keep RVO2's point `(vertex − position + r·ŵ)/τ`,
//! which is bounded because that branch requires the vertex to be within reach.

use super::ObstacleAgent;
use super::geom::tangent_det_sign;
use crate::geom::{ratio, wide};
use crate::math::{EPSILON, Fx, Vec2, div_trunc, sqrt_wide, wide_mul};
use crate::orca::Line;
use std::cmp::Ordering;

/// What line construction needs to know about one vertex (and the edge it starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexView {
    /// Vertex position.
    pub point: Vec2,
    /// Unit direction of the edge starting here.
    pub unit_dir: Vec2,
    /// RVO2's convexity flag.
    pub convex: bool,
    /// Unit direction of the edge ending here (the previous vertex's `unit_dir`).
    pub prev_unit_dir: Vec2,
}

/// Which branch of RVO2's obstacle code decided (for tests and diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObstacleBranch {
    /// The edge's velocity obstacle is already covered by an earlier obstacle line: no line.
    AlreadyCovered,
    /// Agent overlaps the left vertex (convex): line through the origin.
    LeftVertexCollision,
    /// Agent overlaps the right vertex (convex, not handled by the next edge).
    RightVertexCollision,
    /// Agent overlaps a vertex that is non-convex or handled by the neighbouring edge: no line.
    VertexCollisionIgnored,
    /// Agent overlaps the segment: line through the origin along the edge.
    SegmentCollision,
    /// Oblique view defined by a non-convex vertex: no line.
    ObliqueIgnored,
    /// Velocity projected on the left cut-off circle.
    LeftCutoffCircle,
    /// Velocity projected on the right cut-off circle.
    RightCutoffCircle,
    /// Velocity projected on the cut-off line.
    CutoffLine,
    /// Velocity projected on the left leg.
    LeftLeg,
    /// Velocity projected on the right leg.
    RightLeg,
    /// Velocity projected on a foreign leg (it belongs to a neighbouring edge): no line.
    ForeignLeg,
    /// Viewed obliquely, velocity projected on a leg along this edge's own face (RVO2 takes it
    /// for a foreign leg and adds no line): the face's line.
    OwnFace,
}

/// Left leg direction from a vertex at `rel` (tangent to the disc of `radius` around it,
/// rotated left), `leg = sqrt(|rel|² − r²)`; exact products, one quotient.
fn left_leg(rel: Vec2, leg: Fx, radius: Fx, dist_sq: i128) -> Vec2 {
    Vec2::new(
        ratio(wide_mul(rel.x, leg) - wide_mul(rel.y, radius), dist_sq),
        ratio(wide_mul(rel.x, radius) + wide_mul(rel.y, leg), dist_sq),
    )
}

/// Right leg direction from a vertex at `rel`.
fn right_leg(rel: Vec2, leg: Fx, radius: Fx, dist_sq: i128) -> Vec2 {
    Vec2::new(
        ratio(wide_mul(rel.x, leg) + wide_mul(rel.y, radius), dist_sq),
        ratio(wide_mul(rel.y, leg) - wide_mul(rel.x, radius), dist_sq),
    )
}

/// The line with unit `direction` whose left normal offset is `(n·rel + r)/τ`: RVO2's
/// `cutoff + r/τ · perp(direction)` with `cutoff = rel/τ`, stored by its foot point.
fn offset_line(direction: Vec2, rel: Vec2, radius: Fx, tau: Fx) -> Line {
    let n = direction.perp();
    let c_wide = n.dot_wide(rel) + wide(radius);
    let c = div_trunc(c_wide, i128::from(tau.to_bits()));
    // Bounded by the branch conditions (module docs); saturate rather than wrap regardless.
    let c = Fx::from_bits(c.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64);
    Line {
        point: n * c,
        direction,
    }
}

/// The line for the cut-off circle around the vertex at `rel` (position space, ×τ); `w` is the
/// scaled velocity relative to the cut-off centre (non-zero).
fn cutoff_circle_line(w: Vec2, rel: Vec2, radius: Fx, tau: Fx) -> Line {
    let unit_w = w.normalize_or_zero();
    Line {
        direction: Vec2::new(unit_w.y, -unit_w.x),
        point: (rel + unit_w * radius) / tau,
    }
}

/// The ORCA line that the edge `v1 → v2` induces on `agent`, given the obstacle lines already
/// built for it (`previous`, for the already-covered test). `None` when RVO2 adds no line.
#[must_use]
pub fn obstacle_line(
    agent: &ObstacleAgent,
    v1: &VertexView,
    v2: &VertexView,
    previous: &[Line],
) -> (Option<Line>, ObstacleBranch) {
    let tau = agent.time_horizon_obst;
    let r = agent.radius;
    let rel1 = v1.point - agent.position;
    let rel2 = v2.point - agent.position;

    // Already covered by previous lines: both vertices (as cut-off discs) lie on the permitted
    // side of some line, within ε. RVO2's `det(rel/τ − p, d) − r/τ >= −ε`, multiplied by τ.
    let eps_tau = wide_mul(EPSILON, tau);
    let covered = |rel: Vec2, l: &Line| {
        rel.det_wide(l.direction) - wide_mul(tau, l.point.det(l.direction)) - wide(r) >= -eps_tau
    };
    if previous
        .iter()
        .any(|l| covered(rel1, l) && covered(rel2, l))
    {
        return (None, ObstacleBranch::AlreadyCovered);
    }

    // Not yet covered. Check for collisions.
    let dist_sq1 = rel1.length_squared_wide();
    let dist_sq2 = rel2.length_squared_wide();
    let radius_sq = wide_mul(r, r);
    let obstacle_vector = v2.point - v1.point;
    let len_sq = obstacle_vector.length_squared_wide();
    // s = (−rel1 · e) / |e|², compared without dividing.
    let s_num = -rel1.dot_wide(obstacle_vector);
    let s_lt_0 = s_num < 0;
    let s_gt_1 = s_num > len_sq;
    // Distance from the agent to the edge's line, compared with the radius.
    let dist_line = ratio(
        obstacle_vector.det_wide(rel1).abs(),
        wide(obstacle_vector.length()),
    );
    let line_within_radius = dist_line <= r;

    let through_origin = |direction: Vec2| Line {
        point: Vec2::ZERO,
        direction,
    };
    if s_lt_0 && dist_sq1 <= radius_sq {
        // Collision with left vertex. Ignore if non-convex.
        if v1.convex {
            let d = rel1.perp().normalize_or_zero();
            return (Some(through_origin(d)), ObstacleBranch::LeftVertexCollision);
        }
        return (None, ObstacleBranch::VertexCollisionIgnored);
    } else if s_gt_1 && dist_sq2 <= radius_sq {
        // Collision with right vertex. Ignore if non-convex or if it will be taken care of by
        // the neighbouring edge.
        if v2.convex && rel2.det_wide(v2.unit_dir) >= 0 {
            let d = rel2.perp().normalize_or_zero();
            return (
                Some(through_origin(d)),
                ObstacleBranch::RightVertexCollision,
            );
        }
        return (None, ObstacleBranch::VertexCollisionIgnored);
    } else if !s_lt_0 && !s_gt_1 && line_within_radius {
        // Collision with the obstacle segment. `s <= 1` (RVO2 has `s < 1`): at exactly `s = 1`
        // RVO2 falls through to the legs with `|rel2| <= r` and takes the square root of a
        // negative number (RVO2 PR #1); exact arithmetic reaches `s = 1`, floats practically
        // never.
        return (
            Some(through_origin(-v1.unit_dir)),
            ObstacleBranch::SegmentCollision,
        );
    }

    // No collision. Compute legs. When obliquely viewed, both legs can come from a single
    // vertex. Legs extend the cut-off line when the vertex is non-convex.
    let (o1, o2, left_dir, right_dir);
    if s_lt_0 && line_within_radius {
        // Obstacle viewed obliquely so that the left vertex defines the velocity obstacle.
        if !v1.convex {
            return (None, ObstacleBranch::ObliqueIgnored);
        }
        o1 = *v1;
        o2 = *v1;
        let leg1 = sqrt_wide(dist_sq1 - radius_sq);
        left_dir = left_leg(rel1, leg1, r, dist_sq1);
        right_dir = right_leg(rel1, leg1, r, dist_sq1);
    } else if s_gt_1 && line_within_radius {
        // Obstacle viewed obliquely so that the right vertex defines the velocity obstacle.
        if !v2.convex {
            return (None, ObstacleBranch::ObliqueIgnored);
        }
        o1 = *v2;
        o2 = *v2;
        let leg2 = sqrt_wide(dist_sq2 - radius_sq);
        left_dir = left_leg(rel2, leg2, r, dist_sq2);
        right_dir = right_leg(rel2, leg2, r, dist_sq2);
    } else {
        // Usual situation.
        o1 = *v1;
        o2 = *v2;
        left_dir = if v1.convex {
            left_leg(rel1, sqrt_wide(dist_sq1 - radius_sq), r, dist_sq1)
        } else {
            // Left vertex non-convex; the left leg extends the cut-off line.
            -v1.unit_dir
        };
        right_dir = if v2.convex {
            right_leg(rel2, sqrt_wide(dist_sq2 - radius_sq), r, dist_sq2)
        } else {
            // Right vertex non-convex; the right leg extends the cut-off line.
            v1.unit_dir
        };
    }
    let oblique = o1 == o2;

    // Legs can never point into the neighbouring edge at a convex vertex: take the cut-off line
    // of the neighbouring edge instead. If the velocity projects on such a "foreign" leg, no
    // constraint is added.
    //
    // RVO2 tests the sign of `det` with the rounded leg. The exact sign is taken instead
    // ([`tangent_det_sign`]): at the far end of a two-vertex wall (or any polyline end, where the
    // neighbouring edge is the wall's other side, `−prev_unit_dir = unit_dir`) an agent resting
    // against the wall at distance `r + δ` has a left leg `≈ (δ/|rel|)`-off antiparallel to
    // `−prev_unit_dir`: exactly `det < 0` (not foreign), but the rounded leg gives `det >= 0`
    // for δ of a few ulps. The leg then counted as foreign — a constraint left to the wall's
    // other side, which never sees the agent — and when the velocity projected on it, the wall
    // added no line at all and the agent walked into it (2 mm in the door scene). ORCA's cut-off
    // line holds sliding agents at exactly that distance, so the case is systematic.
    let c1 = o1.point - agent.position;
    let c2 = o2.point - agent.position;
    let (mut left_dir, mut right_dir) = (left_dir, right_dir);
    let mut left_foreign = false;
    let mut right_foreign = false;
    if o1.convex && tangent_det_sign(c1, r, -o1.prev_unit_dir, true) != Ordering::Less {
        // Left leg points into the obstacle.
        left_dir = -o1.prev_unit_dir;
        left_foreign = true;
    }
    if o2.convex && tangent_det_sign(c2, r, o2.unit_dir, false) != Ordering::Greater {
        // Right leg points into the obstacle.
        right_dir = o2.unit_dir;
        right_foreign = true;
    }

    // Cut-off centres, in position space (×τ): c1 = o1 − position, c2 = o2 − position (above);
    // the velocity scaled the same way.
    let cutoff_vec = c2 - c1;
    let vel = agent.velocity * tau;
    let w1 = vel - c1;
    let w2 = vel - c2;

    // Project the current velocity on the velocity obstacle. t = position of the velocity along
    // the cut-off segment (0.5 when both cut-offs coincide), tLeft/tRight along the legs.
    let (t_lt_0, t_gt_1) = if oblique {
        (false, false)
    } else {
        let t_num = w1.dot_wide(cutoff_vec);
        (t_num < 0, t_num > cutoff_vec.length_squared_wide())
    };
    let t_left_neg = w1.dot_wide(left_dir) < 0;
    let t_right_neg = w2.dot_wide(right_dir) < 0;

    if (t_lt_0 && t_left_neg) || (oblique && t_left_neg && t_right_neg) {
        // Project on the left cut-off circle.
        return (
            Some(cutoff_circle_line(w1, c1, r, tau)),
            ObstacleBranch::LeftCutoffCircle,
        );
    } else if t_gt_1 && t_right_neg {
        // Project on the right cut-off circle.
        return (
            Some(cutoff_circle_line(w2, c2, r, tau)),
            ObstacleBranch::RightCutoffCircle,
        );
    }

    // Project on the left leg, the right leg or the cut-off line, whichever is closest to the
    // velocity (distances in position space; an excluded candidate is infinitely far).
    let dist_cutoff = if t_lt_0 || t_gt_1 || oblique {
        Fx::MAX
    } else {
        ratio(cutoff_vec.det_wide(w1).abs(), wide(cutoff_vec.length()))
    };
    let dist_left = if t_left_neg {
        Fx::MAX
    } else {
        ratio(left_dir.det_wide(w1).abs(), wide(Fx::ONE))
    };
    let dist_right = if t_right_neg {
        Fx::MAX
    } else {
        ratio(right_dir.det_wide(w2).abs(), wide(Fx::ONE))
    };

    // Viewed obliquely, the single vertex's "neighbouring edge" on the side of this edge is
    // this edge itself: a leg foreign there points along this edge's own face, and no other
    // edge adds its line. RVO2 skips it too, leaving no line at all: an agent exactly `r` from
    // this edge's line, past its end (sliding along the face's extension, which exact
    // arithmetic holds to the ulp), was free to turn into the face at the corner (0.18 into a
    // door's jamb in a random navigation scene). The line of this edge's face is added instead.
    let own_left = left_foreign && oblique && o1 == *v2;
    let own_right = right_foreign && oblique && o2 == *v1;

    if dist_cutoff <= dist_left && dist_cutoff <= dist_right {
        // Project on the cut-off line.
        let direction = -o1.unit_dir;
        (
            Some(offset_line(direction, c1, r, tau)),
            ObstacleBranch::CutoffLine,
        )
    } else if dist_left <= dist_right {
        // Project on the left leg.
        if own_left {
            return (
                Some(offset_line(left_dir, c1, r, tau)),
                ObstacleBranch::OwnFace,
            );
        }
        if left_foreign {
            return (None, ObstacleBranch::ForeignLeg);
        }
        let line = if o1.convex {
            // A tangent from the origin to the cut-off disc: RVO2's point lies on the line
            // through the origin, so take the origin exactly.
            through_origin(left_dir)
        } else {
            offset_line(left_dir, c1, r, tau)
        };
        (Some(line), ObstacleBranch::LeftLeg)
    } else {
        // Project on the right leg.
        if own_right {
            return (
                Some(offset_line(-right_dir, c2, r, tau)),
                ObstacleBranch::OwnFace,
            );
        }
        if right_foreign {
            return (None, ObstacleBranch::ForeignLeg);
        }
        let line = if o2.convex {
            // Tangent, through the origin (see the left leg).
            through_origin(-right_dir)
        } else {
            offset_line(-right_dir, c2, r, tau)
        };
        (Some(line), ObstacleBranch::RightLeg)
    }
}

#[cfg(test)]
mod tests {
    //! Every branch against hand-computed values. Agent at the origin, radius 1, τ = 1, so
    //! velocity space and position space coincide; numbers worked out in the comments.
    #![allow(clippy::float_arithmetic)]
    use super::*;
    use crate::agent::AgentId;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::from_f64(x, y).unwrap()
    }

    fn agent(vel: Vec2) -> ObstacleAgent {
        ObstacleAgent {
            id: AgentId(0),
            position: Vec2::ZERO,
            velocity: vel,
            radius: Fx::ONE,
            max_speed: Fx::from_num(2),
            time_horizon_obst: Fx::ONE,
        }
    }

    fn vert(p: Vec2, unit_dir: Vec2, convex: bool, prev_unit_dir: Vec2) -> VertexView {
        VertexView {
            point: p,
            unit_dir,
            convex,
            prev_unit_dir,
        }
    }

    /// The bottom edge (−1, 2) → (1, 2) of the square [−1, 1] × [2, 4] (counter-clockwise):
    /// left leg from (−1, 2) is (−0.8, 0.6), right leg from (1, 2) is (0.8, 0.6) (|rel|² = 5,
    /// leg = 2).
    fn square_edge() -> (VertexView, VertexView) {
        (
            vert(v(-1.0, 2.0), v(1.0, 0.0), true, v(0.0, -1.0)),
            vert(v(1.0, 2.0), v(0.0, 1.0), true, v(1.0, 0.0)),
        )
    }

    /// Asserts `got` is the line through `point` with direction `dir` (within `1e-6`).
    fn assert_line(got: Option<Line>, point: (f64, f64), dir: (f64, f64)) {
        let l = got.expect("a line");
        let (dx, dy) = l.direction.to_f64();
        assert!(
            (dx - dir.0).abs() < 1e-6 && (dy - dir.1).abs() < 1e-6,
            "direction {:?}, want {dir:?}",
            (dx, dy)
        );
        let (px, py) = l.point.to_f64();
        let off = dx * (point.1 - py) - dy * (point.0 - px);
        assert!(
            off.abs() < 1e-6,
            "point {:?} not on the line through {point:?}",
            (px, py)
        );
    }

    #[test]
    fn left_vertex_collision_gives_line_through_origin() {
        // s = −(0.6·2.4)/2.4² < 0 and |rel1| = 0.6 <= 1: direction normalize(−0, 0.6) = (0, 1).
        let a = vert(v(0.6, 0.0), v(1.0, 0.0), true, v(0.0, 1.0));
        let b = vert(v(3.0, 0.0), v(0.0, 1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::LeftVertexCollision);
        assert_line(l, (0.0, 0.0), (0.0, 1.0));
        let a = VertexView { convex: false, ..a };
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!((l, br), (None, ObstacleBranch::VertexCollisionIgnored));
    }

    #[test]
    fn right_vertex_collision_respects_next_edge() {
        // s = 7.2/5.76 = 1.25 > 1, |rel2| = 0.6; det((−0.6, 0), (0, −1)) = 0.6 >= 0.
        let a = vert(v(-3.0, 0.0), v(1.0, 0.0), true, v(0.0, 1.0));
        let b = vert(v(-0.6, 0.0), v(0.0, -1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::RightVertexCollision);
        assert_line(l, (0.0, 0.0), (0.0, -1.0));
        // The next edge turning the other way takes care of it: no line.
        let b = VertexView {
            unit_dir: v(0.0, 1.0),
            ..b
        };
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!((l, br), (None, ObstacleBranch::VertexCollisionIgnored));
    }

    #[test]
    fn segment_collision_follows_the_edge_backwards() {
        // s = 0.5, distance to the line 0.5 <= 1: direction −unit_dir = (−1, 0).
        let a = vert(v(-2.0, 0.5), v(1.0, 0.0), true, v(0.0, -1.0));
        let b = vert(v(2.0, 0.5), v(0.0, 1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::SegmentCollision);
        assert_line(l, (0.0, 0.0), (-1.0, 0.0));
    }

    #[test]
    fn segment_collision_includes_s_equal_one() {
        // Edge (−2, 0.5) → (0, 0.5): s = 4/4 = 1 exactly, |rel2| = 0.5 <= 1. RVO2's `s < 1`
        // would fall through to the legs with sqrt(0.25 − 1); here it is a segment collision.
        let a = vert(v(-2.0, 0.5), v(1.0, 0.0), true, v(0.0, -1.0));
        let b = vert(v(0.0, 0.5), v(0.0, 1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::SegmentCollision);
        assert_line(l, (0.0, 0.0), (-1.0, 0.0));
    }

    #[test]
    fn cutoff_line_is_edge_shifted_by_radius_over_tau() {
        // v = (0, 1.5): t = 0.5, both legs behind: the cut-off line y = 2 − r/τ = 1,
        // direction (−1, 0).
        let (a, b) = square_edge();
        let (l, br) = obstacle_line(&agent(v(0.0, 1.5)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::CutoffLine);
        assert_line(l, (-1.0, 1.0), (-1.0, 0.0));
        // τ = 2 halves everything: y = (2 − 1)/2.
        let mut ag = agent(v(0.0, 0.6));
        ag.time_horizon_obst = Fx::from_num(2);
        let (l, br) = obstacle_line(&ag, &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::CutoffLine);
        assert_line(l, (0.0, 0.5), (-1.0, 0.0));
    }

    #[test]
    fn cutoff_circles_on_both_sides() {
        // Left: w = v − c1 = (−0.2, −1): t = −0.4 < 0, tLeft = 0.16 − 0.6 < 0.
        // unitW = (−0.196116, −0.980581); direction (uW.y, −uW.x); point c1 + uW.
        let (a, b) = square_edge();
        let (l, br) = obstacle_line(&agent(v(-1.2, 1.0)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::LeftCutoffCircle);
        assert_line(l, (-1.196116, 1.019419), (-0.980581, 0.196116));
        // Right: the mirror image.
        let (l, br) = obstacle_line(&agent(v(1.2, 1.0)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::RightCutoffCircle);
        assert_line(l, (1.196116, 1.019419), (-0.980581, -0.196116));
    }

    #[test]
    fn legs_from_convex_vertices_pass_through_the_origin() {
        // v = (−3, 1): t < 0, tLeft = 1 >= 0, right leg behind: left leg (−0.8, 0.6), through
        // c1 + perp = (−1.6, 1.2), which is on the line through the origin.
        let (a, b) = square_edge();
        let (l, br) = obstacle_line(&agent(v(-3.0, 1.0)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::LeftLeg);
        assert_line(l, (-1.6, 1.2), (-0.8, 0.6));
        assert_line(l, (0.0, 0.0), (-0.8, 0.6));
        // Mirror: the right leg (0.8, 0.6), emitted reversed.
        let (l, br) = obstacle_line(&agent(v(3.0, 1.0)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::RightLeg);
        assert_line(l, (1.6, 1.2), (-0.8, -0.6));
    }

    #[test]
    fn non_convex_vertex_leg_extends_the_cutoff_line() {
        // Left vertex non-convex: left leg = −unit_dir = (−1, 0) through c1 + (0, −1) = (−1, 1).
        let (a, b) = square_edge();
        let a = VertexView { convex: false, ..a };
        let (l, br) = obstacle_line(&agent(v(-3.0, 1.0)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::LeftLeg);
        assert_line(l, (-1.0, 1.0), (-1.0, 0.0));
    }

    #[test]
    fn foreign_leg_adds_no_line() {
        // The previous edge continues straight: det((−0.8, 0.6), (−1, 0)) = 0.6 >= 0, so the
        // left leg is the neighbour's (foreign); the velocity projects on it.
        let (a, b) = square_edge();
        let a = VertexView {
            prev_unit_dir: v(1.0, 0.0),
            ..a
        };
        let (l, br) = obstacle_line(&agent(v(-3.0, 1.0)), &a, &b, &[]);
        assert_eq!((l, br), (None, ObstacleBranch::ForeignLeg));
    }

    #[test]
    fn oblique_leg_along_its_own_face_adds_the_face_line() {
        // The left face (1, 5) → (1, 1) of a building (its next edge runs (1, 1) → (3, 1)); the
        // agent at the origin is exactly r = 1 from the face's line and below its end, so the
        // corner (1, 1) alone defines the velocity obstacle (oblique). Its left leg from the
        // corner is (0, 1): parallel to the face, which is this edge itself, yet RVO2 calls it
        // foreign. Moving up (0, 1.5), the velocity projects on it: RVO2 added no line and the
        // agent could turn into the face at the corner. The face's line is x = 0 (moving right
        // is forbidden, up along it allowed).
        let a = vert(v(1.0, 5.0), v(0.0, -1.0), true, v(-1.0, 0.0));
        let b = vert(v(1.0, 1.0), v(1.0, 0.0), true, v(0.0, -1.0));
        let (l, br) = obstacle_line(&agent(v(0.0, 1.5)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::OwnFace);
        assert_line(l, (0.0, 0.0), (0.0, 1.0));
        let line = l.expect("a line");
        let permitted = |vel: Vec2| line.direction.det(vel - line.point) >= Fx::ZERO;
        assert!(permitted(v(0.0, 1.5)) && permitted(v(-0.5, 1.0)));
        assert!(
            !permitted(v(0.7, 1.2)),
            "turning into the face is forbidden"
        );
        // The mirror image: the right face (−1, 1) → (−1, 5) of a building on the left, seen
        // obliquely past its start; the right leg along it gives the line x = 0 the other way.
        let a = vert(v(-1.0, 1.0), v(0.0, 1.0), true, v(1.0, 0.0));
        let b = vert(v(-1.0, 5.0), v(-1.0, 0.0), true, v(0.0, 1.0));
        let (l, br) = obstacle_line(&agent(v(0.0, 1.5)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::OwnFace);
        assert_line(l, (0.0, 0.0), (0.0, -1.0));
        let line = l.expect("a line");
        let permitted = |vel: Vec2| line.direction.det(vel - line.point) >= Fx::ZERO;
        assert!(permitted(v(0.0, 1.5)) && !permitted(v(-0.7, 1.2)));
        // Farther than r from the face's line the leg is a true tangent: no change.
        let (_, br) = obstacle_line(
            &agent(v(0.0, 1.5)),
            &vert(v(1.5, 5.0), v(0.0, -1.0), true, v(-1.0, 0.0)),
            &vert(v(1.5, 1.0), v(1.0, 0.0), true, v(0.0, -1.0)),
            &[],
        );
        assert_ne!(br, ObstacleBranch::OwnFace);
    }

    #[test]
    fn wall_end_leg_is_not_foreign_for_an_agent_resting_on_the_wall() {
        // The door scene, tick 688, agent 12: the left side (0, 5) → (0, 0.6) of a two-vertex
        // wall (the ring's next edge runs back up, so both vertices are convex and
        // −prev_unit_dir = unit_dir = (0, −1)); the agent, r = 0.5, τ = 2, rests 4 ulps beyond
        // r from it, sliding down. The left leg from (0, 5) is about 10⁻¹⁰ off (0, 1): the
        // rounded leg made it "foreign", the velocity projected on it and the wall added no line.
        // Exactly, the velocity projects on the right leg from (0, 0.6), which forbids moving
        // into the wall.
        let a = vert(v(0.0, 5.0), v(0.0, -1.0), true, v(0.0, 1.0));
        let b = vert(
            Vec2::new(Fx::ZERO, Fx::lit("0.6")),
            v(0.0, 1.0),
            true,
            v(0.0, -1.0),
        );
        let ag = ObstacleAgent {
            id: AgentId(12),
            position: Vec2::from_bits(-2_147_483_652, 2_614_744_367),
            velocity: Vec2::from_bits(6, -97_800_601),
            radius: Fx::lit("0.5"),
            max_speed: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(2),
        };
        let (l, br) = obstacle_line(&ag, &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::RightLeg);
        let l = l.unwrap();
        // Through the origin, nearly along the wall: any velocity with vx >= 10⁻⁶ violates it.
        assert_eq!(l.point, Vec2::ZERO);
        assert!(l.violation_wide(v(1e-6, -0.03)) > 0, "{l:?}");
        assert!(l.violation_wide(v(0.0, -0.03)) <= 0, "{l:?}");
    }

    #[test]
    fn already_covered_by_a_nearer_line() {
        // The cut-off line y <= 1 covers the edge at y = 3 (both discs are 1 beyond it).
        let covering = Line {
            point: v(0.0, 1.0),
            direction: v(-1.0, 0.0),
        };
        let a = vert(v(-1.0, 3.0), v(1.0, 0.0), true, v(0.0, -1.0));
        let b = vert(v(1.0, 3.0), v(0.0, 1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(v(0.0, 1.5)), &a, &b, &[covering]);
        assert_eq!((l, br), (None, ObstacleBranch::AlreadyCovered));
        // A line that does not cover it changes nothing.
        let other = Line {
            point: v(0.0, 5.0),
            direction: v(-1.0, 0.0),
        };
        let (_, br) = obstacle_line(&agent(v(0.0, 1.5)), &a, &b, &[other]);
        assert_ne!(br, ObstacleBranch::AlreadyCovered);
    }

    #[test]
    fn oblique_view_takes_both_legs_from_one_vertex() {
        // Edge (−5, 0.5) → (−2, 0.5): s = 15/9 > 1, distance to the line 0.5 <= 1, |rel2|² =
        // 4.25: the right vertex defines the obstacle. At v = 0 both legs are behind: left
        // cut-off circle around c = (−2, 0.5), unitW = (0.970143, −0.242536).
        let a = vert(v(-5.0, 0.5), v(1.0, 0.0), true, v(0.0, 1.0));
        let b = vert(v(-2.0, 0.5), v(0.0, -1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::LeftCutoffCircle);
        assert_line(l, (-1.029857, 0.257464), (-0.242536, -0.970143));
        // v = (−2, 2.5): w = (0, 2) projects on the right leg (−0.730718, 0.682679), emitted
        // reversed, through the origin.
        let (l, br) = obstacle_line(&agent(v(-2.0, 2.5)), &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::RightLeg);
        assert_line(l, (0.0, 0.0), (0.730718, -0.682679));
        // Non-convex defining vertex: ignored.
        let b = VertexView { convex: false, ..b };
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a, &b, &[]);
        assert_eq!((l, br), (None, ObstacleBranch::ObliqueIgnored));
        // Mirror case: left vertex defines it (edge (2, 0.5) → (5, 0.5)), non-convex: ignored.
        let a2 = vert(v(2.0, 0.5), v(1.0, 0.0), false, v(0.0, -1.0));
        let b2 = vert(v(5.0, 0.5), v(0.0, 1.0), true, v(1.0, 0.0));
        let (l, br) = obstacle_line(&agent(Vec2::ZERO), &a2, &b2, &[]);
        assert_eq!((l, br), (None, ObstacleBranch::ObliqueIgnored));
    }

    #[test]
    fn far_vertices_stay_in_range() {
        // A 1.9e6-long edge, τ = r = 2⁻¹⁰: RVO2's velocity-space cut-off centres would be
        // 1.9e9.
        let a = vert(v(-950_000.0, 2.0), v(1.0, 0.0), true, v(0.0, -1.0));
        let b = vert(v(950_000.0, 2.0), v(0.0, 1.0), true, v(1.0, 0.0));
        let mut ag = agent(v(0.0, 1.5));
        ag.time_horizon_obst = Fx::from_bits(1 << 22);
        ag.radius = Fx::from_bits(1 << 22);
        let (l, br) = obstacle_line(&ag, &a, &b, &[]);
        assert_eq!(br, ObstacleBranch::CutoffLine);
        // y <= (2 − 2⁻¹⁰)·2¹⁰ = 2047.
        assert_line(l, (0.0, 2047.0), (-1.0, 0.0));
    }
}

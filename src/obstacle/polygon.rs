//! Obstacle outlines: validation, and the vertex arena the BSP and the ORCA lines read.
//!
//! # Vertex convention (RVO2's)
//! A polygon's vertices are listed in order; each vertex `i` starts the directed edge
//! `i → i+1`. Agents are kept on the **right** of every edge, so a counter-clockwise polygon is
//! a solid obstacle and a clockwise one is a boundary that keeps agents inside. An open polyline
//! `v0 … vk` is stored as the thin closed ring `v0 … vk, vk−1 … v1`, so both of its sides repel
//! (a two-vertex wall is RVO2's two-vertex obstacle exactly).
//!
//! # Arena
//! [`ObstacleVertex`] is one vertex plus the edge it starts (RVO2's `Obstacle`), linked to its
//! ring neighbours by `u32` indices into one `Vec` — no pointers. Convexity and unit directions
//! are computed as RVO2 does: `convex = leftOf(prev, this, next) >= 0` (exact here) and
//! `unit_dir = normalize(next − this)`.
//!
//! # Validation
//! [`validate`] rejects, with [`SimError`] and no state change: fewer than 2 vertices (3 for a
//! polygon), coordinates outside the domain, zero-length edges (repeated consecutive vertices,
//! including last = first of a polygon), polygons whose vertices are all collinear, and
//! self-intersection (any two edges sharing a point other than the vertex joining neighbours,
//! and neighbours that fold back onto each other). The intersection test is exact
//! ([`crate::geom`]) and `O(n²)` in the number of vertices of one obstacle. Different obstacles
//! may overlap.

use super::ObstacleId;
use crate::domain::check_point;
use crate::error::SimError;
use crate::geom::{Orientation, left_of, polygon_orientation, segments_intersect};
use crate::math::Vec2;

/// One obstacle vertex and the edge it starts (RVO2's `Obstacle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObstacleVertex {
    /// Vertex position.
    pub point: Vec2,
    /// Unit direction of the edge to the next vertex.
    pub unit_dir: Vec2,
    /// Whether the vertex is convex (`leftOf(prev, this, next) >= 0`, as RVO2).
    pub convex: bool,
    /// Index of the next vertex of the ring in the arena.
    pub next: u32,
    /// Index of the previous vertex of the ring in the arena.
    pub prev: u32,
    /// The obstacle this vertex belongs to.
    pub obstacle: ObstacleId,
}

/// Largest number of vertices in one obstacle.
pub const MAX_VERTICES: usize = 4096;

/// Checks a shape against the rules of [`ObstacleShape`](crate::ObstacleShape).
///
/// # Errors
/// [`SimError::InvalidObstacle`] with the reason, or [`SimError::OutOfDomain`] for coordinates.
pub fn validate(shape: &super::ObstacleShape) -> Result<(), SimError> {
    let (vertices, closed) = match shape {
        super::ObstacleShape::Polygon(v) => (v.as_slice(), true),
        super::ObstacleShape::Polyline(v) => (v.as_slice(), false),
    };
    if vertices.len() < 2 {
        return Err(SimError::InvalidObstacle("fewer than 2 vertices"));
    }
    if closed && vertices.len() < 3 {
        return Err(SimError::InvalidObstacle(
            "a polygon needs at least 3 vertices (use a polyline for a 2-vertex wall)",
        ));
    }
    // The self-intersection test is O(n²) per obstacle: cap n so a hostile snapshot or file
    // cannot stall validation (4,096² pair tests take well under a second). Larger outlines can
    // be split into several obstacles.
    if vertices.len() > MAX_VERTICES {
        return Err(SimError::InvalidObstacle(
            "more than 4,096 vertices in one obstacle",
        ));
    }
    for &p in vertices {
        check_point(p, "obstacle vertex")?;
    }
    let n = vertices.len();
    let num_edges = if closed { n } else { n - 1 };
    let edge = |i: usize| (vertices[i], vertices[(i + 1) % n]);
    for i in 0..num_edges {
        let (a, b) = edge(i);
        if a == b {
            return Err(SimError::InvalidObstacle(
                "zero-length edge (repeated consecutive vertex)",
            ));
        }
    }
    if closed {
        let all_collinear = (2..n).all(|i| left_of(vertices[0], vertices[1], vertices[i]) == 0);
        if all_collinear {
            return Err(SimError::InvalidObstacle(
                "degenerate polygon: all vertices are collinear",
            ));
        }
    }
    for i in 0..num_edges {
        let (a, b) = edge(i);
        for j in (i + 1)..num_edges {
            let (c, d) = edge(j);
            let adjacent_next = j == i + 1;
            let adjacent_wrap = closed && i == 0 && j == n - 1;
            if adjacent_next || adjacent_wrap {
                // Neighbours share one vertex; they intersect only if they fold back onto each
                // other (collinear and pointing back).
                let (shared, p, q) = if adjacent_next { (b, a, d) } else { (a, b, c) };
                if left_of(p, shared, q) == 0 && (p - shared).dot_wide(q - shared) > 0 {
                    return Err(SimError::InvalidObstacle(
                        "self-intersection: an edge folds back onto its neighbour",
                    ));
                }
                continue;
            }
            if segments_intersect(a, b, c, d) {
                return Err(SimError::InvalidObstacle("self-intersection"));
            }
        }
    }
    if closed && polygon_orientation(vertices) == Orientation::Collinear {
        return Err(SimError::InvalidObstacle("polygon has zero signed area"));
    }
    Ok(())
}

/// The ring of vertex positions stored for a validated shape (see the module docs).
#[must_use]
pub fn ring(shape: &super::ObstacleShape) -> Vec<Vec2> {
    match shape {
        super::ObstacleShape::Polygon(v) => v.clone(),
        super::ObstacleShape::Polyline(v) => {
            let mut r = v.clone();
            r.extend(v[1..v.len() - 1].iter().rev());
            r
        }
    }
}

/// Appends the ring of a validated shape to the arena.
pub fn push_shape(arena: &mut Vec<ObstacleVertex>, id: ObstacleId, shape: &super::ObstacleShape) {
    let ring = ring(shape);
    let n = ring.len();
    let base = arena.len();
    for i in 0..n {
        let prev = ring[(i + n - 1) % n];
        let point = ring[i];
        let next = ring[(i + 1) % n];
        arena.push(ObstacleVertex {
            point,
            unit_dir: (next - point).normalize_or_zero(),
            convex: left_of(prev, point, next) >= 0,
            next: (base + (i + 1) % n) as u32,
            prev: (base + (i + n - 1) % n) as u32,
            obstacle: id,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::ObstacleShape;
    use super::*;
    use crate::math::Fx;

    fn v(x: i32, y: i32) -> Vec2 {
        Vec2::from_int(x, y)
    }

    fn reason(shape: ObstacleShape) -> String {
        match validate(&shape) {
            Err(SimError::InvalidObstacle(why)) => why.to_string(),
            Err(e) => format!("{e:?}"),
            Ok(()) => "ok".into(),
        }
    }

    #[test]
    fn accepts_ccw_and_cw_polygons_and_polylines() {
        let sq = vec![v(0, 0), v(1, 0), v(1, 1), v(0, 1)];
        assert_eq!(reason(ObstacleShape::Polygon(sq.clone())), "ok");
        let cw: Vec<_> = sq.into_iter().rev().collect();
        assert_eq!(reason(ObstacleShape::Polygon(cw)), "ok");
        assert_eq!(
            reason(ObstacleShape::Polyline(vec![v(0, 0), v(5, 0)])),
            "ok"
        );
        assert_eq!(
            reason(ObstacleShape::Polyline(vec![v(0, 0), v(5, 0), v(5, 5)])),
            "ok"
        );
    }

    #[test]
    fn rejects_each_invalid_case_with_its_reason() {
        assert_eq!(
            reason(ObstacleShape::Polyline(vec![v(0, 0)])),
            "fewer than 2 vertices"
        );
        assert!(reason(ObstacleShape::Polygon(vec![v(0, 0), v(1, 0)])).contains("at least 3"));
        assert!(
            reason(ObstacleShape::Polygon(vec![
                v(0, 0),
                v(1, 0),
                v(1, 0),
                v(0, 1)
            ]))
            .contains("zero-length")
        );
        // last == first counts as a repeated vertex too
        assert!(
            reason(ObstacleShape::Polygon(vec![
                v(0, 0),
                v(1, 0),
                v(0, 1),
                v(0, 0)
            ]))
            .contains("zero-length")
        );
        assert!(
            reason(ObstacleShape::Polygon(vec![v(0, 0), v(1, 0), v(3, 0)])).contains("collinear")
        );
        // bow tie
        assert_eq!(
            reason(ObstacleShape::Polygon(vec![
                v(0, 0),
                v(2, 2),
                v(2, 0),
                v(0, 2)
            ])),
            "self-intersection"
        );
        // polyline folding back on itself
        assert!(
            reason(ObstacleShape::Polyline(vec![v(0, 0), v(4, 0), v(2, 0)])).contains("folds back")
        );
        // polyline crossing itself
        assert_eq!(
            reason(ObstacleShape::Polyline(vec![
                v(0, 0),
                v(4, 0),
                v(4, 4),
                v(2, -2)
            ])),
            "self-intersection"
        );
        let far = Vec2::new(Fx::from_num(1_000_001), Fx::ZERO);
        assert!(matches!(
            validate(&ObstacleShape::Polyline(vec![v(0, 0), far])),
            Err(SimError::OutOfDomain { .. })
        ));
    }

    #[test]
    fn arena_has_rvo2_convexity_and_directions() {
        let mut arena = Vec::new();
        // CCW square with one reflex vertex (an L-shape would be better; a dented square).
        let shape = ObstacleShape::Polygon(vec![v(0, 0), v(4, 0), v(4, 4), v(2, 2), v(0, 4)]);
        push_shape(&mut arena, ObstacleId(7), &shape);
        let convex: Vec<bool> = arena.iter().map(|o| o.convex).collect();
        assert_eq!(convex, vec![true, true, true, false, true]);
        assert_eq!(arena[0].unit_dir, v(1, 0));
        assert_eq!(arena[1].unit_dir, v(0, 1));
        assert_eq!(arena[0].prev, 4);
        assert_eq!(arena[4].next, 0);
        // Polyline: thin ring, ends convex.
        let mut arena = Vec::new();
        push_shape(
            &mut arena,
            ObstacleId(0),
            &ObstacleShape::Polyline(vec![v(0, 0), v(4, 0), v(4, 4)]),
        );
        let pts: Vec<Vec2> = arena.iter().map(|o| o.point).collect();
        assert_eq!(pts, vec![v(0, 0), v(4, 0), v(4, 4), v(4, 0)]);
        let convex: Vec<bool> = arena.iter().map(|o| o.convex).collect();
        // (4,0) turns left going out, right coming back.
        assert_eq!(convex, vec![true, true, true, false]);
    }
}

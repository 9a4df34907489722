//! Agents under a new obstacle, moved out (navigation on): docs/obstacles.md § "Obstacles
//! added over agents".
//!
//! An agent is *covered* by a new obstacle when its disc overlaps it, exactly: its centre
//! inside a solid (counter-clockwise) polygon or on its outline, or an edge closer than its
//! radius (for a clockwise room, whose inside is free, only the latter). A covered agent
//! whose centre stood in the walkable space before the change (the mesh before it: agents
//! beyond the map's boundary, or already inside an older obstacle, stay) moves to the nearest
//! of these places that is walkable for its radius on the new mesh and that it reaches from
//! where it stands in a straight line crossing no wall of the old mesh (so never through a
//! wall into the next room):
//!
//! 1. per edge of the new obstacle, the point of the edge nearest the agent pushed out by the
//!    radius (and a margin) along the edge's outward normal (for a polyline or a room, towards
//!    the agent's side), nearest first (ties by edge);
//! 2. failing those, [`NavMesh::nearest_walkable`](crate::navigation::NavMesh::nearest_walkable).
//!
//! Failing both it stays and leaves by its avoidance. Every decision is exact but the pushed
//! points (rounded), which the exact walkability test then checks; each agent's new place
//! depends on its position, its radius, the new obstacles and the two meshes only.

use super::Simulator;
use crate::geom::{
    Containment, Orientation, cmp_dist_point_segment, point_in_polygon, polygon_orientation,
};
use crate::math::{Fx, Vec2};
use crate::navigation::NavMesh;
use crate::obstacle::{ObstacleId, ObstacleShape};
use std::cmp::Ordering;
use std::sync::Arc;

impl Simulator {
    /// Moves the agents that the obstacles `added` (those still in the set) cover, as the
    /// [module docs](self) say, `old` being the mesh before they were added; logs the old
    /// positions for undo when `logged` (stage 1a). Returns how many agents moved. Nothing
    /// without a mesh.
    pub(super) fn free_buried(
        &mut self,
        old: Option<Arc<NavMesh>>,
        added: &[ObstacleId],
        logged: bool,
    ) -> u64 {
        let Some(mesh) = self.nav_mesh.mesh.clone() else {
            return 0;
        };
        let shapes: Vec<NewObstacle> = added
            .iter()
            .filter_map(|&id| self.obstacles.shape(id).ok().map(NewObstacle::of))
            .collect();
        if shapes.is_empty() {
            return 0;
        }
        let mut candidates: Vec<(i128, usize, Vec2)> = Vec::new();
        let mut moves = Vec::new();
        let (ids, positions, params) = (
            self.agents.ids(),
            self.agents.positions(),
            self.agents.params(),
        );
        for (slot, (&p, a)) in positions.iter().zip(params).enumerate() {
            let r = a.radius;
            if !shapes.iter().any(|s| s.covers(p, r)) {
                continue;
            }
            // Only agents that stood in the walkable space before the change.
            let old = old.as_deref();
            if old.is_some_and(|m| !m.locate(p).is_some_and(|t| m.tris[t as usize].walkable)) {
                continue;
            }
            let reaches = |q: Vec2| old.is_none_or(|m| m.raycast(p, q, Fx::ZERO).clear);
            candidates.clear();
            for shape in shapes.iter().filter(|s| s.covers(p, r)) {
                pushed_out(&shape.sides, p, r, &mut candidates);
            }
            // Nearest first (ties by edge), usually the first: picked one by one, not sorted.
            let mut target = None;
            while let Some(best) = (0..candidates.len()).min_by_key(|&i| {
                let (d, k, _) = candidates[i];
                (d, k)
            }) {
                let (_, _, q) = candidates.swap_remove(best);
                if mesh.is_walkable(q, r) && reaches(q) {
                    target = Some(q);
                    break;
                }
            }
            let target = target.or_else(|| mesh.nearest_walkable(p, r).filter(|&q| reaches(q)));
            if let Some(q) = target
                && q != p
            {
                moves.push((slot, ids[slot], p, q));
            }
        }
        for &(slot, id, p, q) in &moves {
            self.agents.set_position(slot, q);
            if logged {
                self.inputs.log_position(id, p);
            }
        }
        moves.len() as u64
    }
}

/// The edges of `shape`: a polygon's closed ring, a polyline's open chain.
fn edges(shape: &ObstacleShape) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
    let v = shape.vertices();
    let closed = matches!(shape, ObstacleShape::Polygon(_));
    let n = if closed {
        v.len()
    } else {
        v.len().saturating_sub(1)
    };
    (0..n).map(move |i| (v[i], v[(i + 1) % v.len()]))
}

/// A new obstacle as the moves read it: its box, whether it is solid (a counter-clockwise
/// polygon, RVO2's convention: its inside is blocked), and its edges with their normals.
struct NewObstacle<'a> {
    vertices: &'a [Vec2],
    solid: bool,
    lo: Vec2,
    hi: Vec2,
    sides: Vec<Side>,
}

impl<'a> NewObstacle<'a> {
    fn of(shape: &'a ObstacleShape) -> Self {
        let vertices = shape.vertices();
        let solid = matches!(shape, ObstacleShape::Polygon(_))
            && polygon_orientation(vertices) == Orientation::CounterClockwise;
        let (lo, hi) = bounds(vertices);
        let sides = edges(shape)
            .filter_map(|(a, b)| {
                let (_, dir) = (b - a).length_and_direction()?;
                // A solid polygon's outside is right of its edges; any other edge (a polyline,
                // a clockwise room) faces the agent's side.
                let left = dir.perp();
                Some(Side {
                    a,
                    b,
                    normal: if solid { -left } else { left },
                    open: !solid,
                })
            })
            .collect();
        Self {
            vertices,
            solid,
            lo,
            hi,
            sides,
        }
    }

    /// Whether a disc of radius `r` at `p` overlaps it (exact): its centre inside or on a solid
    /// polygon, or an edge closer than `r`.
    fn covers(&self, p: Vec2, r: Fx) -> bool {
        if p.x < self.lo.x.saturating_sub(r)
            || p.x > self.hi.x.saturating_add(r)
            || p.y < self.lo.y.saturating_sub(r)
            || p.y > self.hi.y.saturating_add(r)
        {
            return false;
        }
        (self.solid && point_in_polygon(self.vertices, p) != Containment::Outside)
            || self
                .sides
                .iter()
                .any(|s| cmp_dist_point_segment(s.a, s.b, p, r) == Ordering::Less)
    }
}

/// The box of `points` (not empty: a validated shape).
fn bounds(points: &[Vec2]) -> (Vec2, Vec2) {
    let first = points.first().copied().unwrap_or(Vec2::ZERO);
    points.iter().fold((first, first), |(lo, hi), &p| {
        (
            Vec2::new(lo.x.min(p.x), lo.y.min(p.y)),
            Vec2::new(hi.x.max(p.x), hi.y.max(p.y)),
        )
    })
}

/// One edge of a new obstacle: its ends and its outward unit normal (for an edge that is not
/// a solid polygon's, its left normal; [`pushed_out`] turns it towards the agent's side).
struct Side {
    a: Vec2,
    b: Vec2,
    normal: Vec2,
    /// Whether the edge is not a solid polygon's (its outside is the agent's side).
    open: bool,
}

/// Appends, per edge of `outline`, the point of the edge nearest `p` pushed out by `r` and a
/// margin along the edge's outward normal (a polyline's: towards `p`'s side), with its squared
/// distance from `p` and the edge's index.
fn pushed_out(outline: &[Side], p: Vec2, r: Fx, out: &mut Vec<(i128, usize, Vec2)>) {
    // The margin of `nearest_walkable`: the pushed point lands just clear of the edge.
    let out_by = r.saturating_add(Fx::from_bits((r.to_bits() >> 20) + 16));
    for (k, side) in outline.iter().enumerate() {
        let normal = if side.open && (side.b - side.a).det_wide(p - side.a) < 0 {
            -side.normal
        } else {
            side.normal
        };
        // In the domain: points within ±1,000,000 and a radius far below it.
        let q = nearest_on(side.a, side.b, p) + normal * out_by;
        out.push(((q - p).length_squared_wide(), k, q));
    }
}

/// The point of segment `a b` nearest `p` (rounded).
fn nearest_on(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let d = b - a;
    let (dot, len) = ((p - a).dot_wide(d), d.length_squared_wide());
    if dot <= 0 || len == 0 {
        return a;
    }
    if dot >= len {
        return b;
    }
    // `t = dot / len` in (0, 1), to 32 fraction bits.
    let t = Fx::from_bits(i64::try_from(dot / (len >> 32).max(1)).unwrap_or(i64::MAX));
    a + d * t.min(Fx::ONE)
}

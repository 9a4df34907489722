//! Building the mesh: obstacle set + boundary → constraint pieces → CDT → classification.
//!
//! The result is a pure function of the obstacles' *shapes* and the [`NavParams`]: segments and
//! points are sorted by their raw coordinates before anything is numbered, the triangulation of
//! given points and pieces is unique (symbolic perturbation in the kernel), and the finished
//! triangles are rotated to start at their lowest vertex and sorted. Vertex and triangle
//! indices are therefore canonical too, but nothing outside relies on that: the
//! [`digest`](NavMesh::digest) sorts again.

mod classify;
mod grid;
mod pieces;

use super::cdt::{self, Triangulation};
use super::{NO_TRIANGLE, NavMesh, NavParams, NavTriangle};
use crate::domain::MAX_COORD;
use crate::error::SimError;
use crate::geom::{Orientation, polygon_orientation};
use crate::math::{Fx, Vec2};
use crate::obstacle::{ObstacleSet, ObstacleShape};
use classify::Classifier;
use grid::{RawBox, union};
use pieces::{Raw, raw, segment, vec};

pub(crate) mod update;
pub use update::RebuildWork;

/// Most mesh vertices (obstacle, boundary and crossing points, plus the 4 hull corners).
pub(crate) const MAX_MESH_VERTICES: usize = 1 << 21;

/// The error of a boundary that is not a simple polygon in the domain.
const BAD_BOUNDARY: SimError = SimError::OutOfDomain {
    what: "navigation boundary",
    allowed: "a simple polygon (no self-intersection, not all collinear, no repeated \
              consecutive vertex) of 3 to 4,096 vertices with |x|, |y| <= 1,000,000",
};

/// What a mesh was built from, kept with it so a local rebuild can tell what changed
/// ([`NavMesh::update`]): the segments (obstacle and boundary edges, sorted, distinct), the
/// solid rings (sorted) with their boxes, the boundary ring, the constraint pieces (sorted index
/// pairs into the mesh's vertices) and each triangle's constrained edges (bit `k` for edge `k`,
/// in the mesh's triangle order) and the crossing count. Derived like the rest of the mesh.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Source {
    pub segs: Vec<[Raw; 2]>,
    pub solids: Vec<Vec<Raw>>,
    pub solid_boxes: Vec<RawBox>,
    pub boundary: Vec<Raw>,
    pub pieces: Vec<[u32; 2]>,
    pub fixed: Vec<u8>,
    /// Proper crossings between the segments (the cap counts them).
    pub crossings: usize,
}

/// The builder's input read from an obstacle set: segments, solids and boundary (`None`: no
/// obstacles and no boundary, the empty mesh).
pub(crate) fn read_source(
    obstacles: &ObstacleSet,
    params: &NavParams,
) -> Result<Option<Source>, SimError> {
    let mut segs = Vec::new();
    let mut solids = Vec::new();
    for (_, shape) in obstacles.iter() {
        let v = shape.vertices();
        let closed = matches!(shape, ObstacleShape::Polygon(_));
        push_edges(&mut segs, v, closed);
        if closed && polygon_orientation(v) == Orientation::CounterClockwise {
            solids.push(v.iter().map(|&p| raw(p)).collect::<Vec<Raw>>());
        }
    }
    let boundary = match &params.boundary {
        Some(b) => {
            crate::obstacle::polygon::validate(&ObstacleShape::Polygon(b.clone()))
                .map_err(|_| BAD_BOUNDARY)?;
            b.iter().map(|&p| raw(p)).collect()
        }
        None if segs.is_empty() => return Ok(None),
        None => default_boundary(&segs, params.margin)?,
    };
    let ring: Vec<Vec2> = boundary.iter().map(|&p| vec(p)).collect();
    push_edges(&mut segs, &ring, true);
    segs.sort_unstable();
    segs.dedup();
    // Solids in a canonical order (the classification does not depend on it, but the
    // buckets' contents then do not depend on obstacle ids either).
    solids.sort_unstable();
    let solid_boxes = solids
        .iter()
        .map(|s| union(s.iter().map(|&p| (p, p))).unwrap_or_default())
        .collect();
    Ok(Some(Source {
        segs,
        solids,
        solid_boxes,
        boundary,
        pieces: Vec::new(),
        fixed: Vec::new(),
        crossings: 0,
    }))
}

/// The mesh vertices (sorted, hull corners included), the pieces as index pairs into them,
/// and the proper crossings between the segments.
pub(crate) type Split = (Vec<Raw>, Vec<[u32; 2]>, usize);

/// The mesh vertices of `segs` (split into pieces, sorted, with the four hull corners) and the
/// pieces as index pairs into them, and the proper crossings between the segments.
///
/// # Errors
/// [`SimError::OutOfDomain`] past the crossing or vertex caps.
pub(crate) fn vertices_and_pieces(segs: &[[Raw; 2]]) -> Result<Split, SimError> {
    let split = pieces::split(segs)?;
    let all = with_hull(split.points)?;
    let pieces = split.pieces.iter().map(|p| p.map(|i| i + 2)).collect();
    Ok((all, pieces, split.crossings))
}

/// The points (sorted, distinct) with the four hull corners one unit outside everything: two
/// before all points, two after, so the order stays sorted (point `i` becomes vertex `i + 2`).
///
/// # Errors
/// [`SimError::OutOfDomain`] past [`MAX_MESH_VERTICES`].
pub(crate) fn with_hull(mut points: Vec<Raw>) -> Result<Vec<Raw>, SimError> {
    let one = Fx::ONE.to_bits();
    let (lo, hi) = points.iter().fold(
        ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN)),
        |(lo, hi), p| {
            (
                (lo.0.min(p.0), lo.1.min(p.1)),
                (hi.0.max(p.0), hi.1.max(p.1)),
            )
        },
    );
    let corners = [
        (lo.0 - one, lo.1 - one),
        (lo.0 - one, hi.1 + one),
        (hi.0 + one, lo.1 - one),
        (hi.0 + one, hi.1 + one),
    ];
    if points.len() + corners.len() > MAX_MESH_VERTICES {
        return Err(SimError::OutOfDomain {
            what: "navigation mesh vertices",
            allowed: "at most 2,097,152",
        });
    }
    let mut all = Vec::with_capacity(points.len() + 4);
    all.extend_from_slice(&corners[..2]);
    all.append(&mut points);
    all.extend_from_slice(&corners[2..]);
    Ok(all)
}

impl NavMesh {
    /// Builds the mesh of `obstacles` inside `params`' boundary (navigation plan §1.2).
    ///
    /// The boundary is `params.boundary`, or the obstacles' bounding box grown by
    /// `params.margin`; with no obstacles and no boundary the mesh is empty. Every polygon,
    /// polyline and boundary edge is a wall, split where vertices lie on it and where edges
    /// cross. A triangle is walkable when its centroid lies strictly inside the boundary and
    /// outside every counter-clockwise (solid) polygon; clockwise polygons and polylines have no
    /// inside, their edges are walls from both sides. An edge between a walkable and a blocked
    /// triangle is a wall too.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] when the boundary is not a simple polygon of 3 to 4,096
    /// vertices inside the coordinate domain, when `margin` is negative or above 1,000,000 or
    /// leaves a flat box, or when a cap is passed (crossings ≤ 2²⁰, mesh vertices ≤ 2²¹).
    pub fn build(obstacles: &ObstacleSet, params: &NavParams) -> Result<Self, SimError> {
        match read_source(obstacles, params)? {
            None => Ok(Self::default()),
            Some(source) => Self::build_from(source),
        }
    }

    /// The batch build of a read [`Source`].
    pub(crate) fn build_from(mut source: Source) -> Result<Self, SimError> {
        let (all, pieces, crossings) = vertices_and_pieces(&source.segs)?;
        let verts: Vec<Vec2> = all.iter().map(|&p| vec(p)).collect();
        let tri = cdt::triangulate(&verts, &pieces).map_err(|_| SimError::OutOfDomain {
            what: "navigation mesh: triangulation input",
            allowed: "distinct points and pieces (an internal error of the builder)",
        })?;
        let classifier = Classifier::new(&source.boundary, &source.solids);
        let walkable: Vec<bool> = tri
            .tris
            .iter()
            .map(|v| {
                classifier.walkable(all[v[0] as usize], all[v[1] as usize], all[v[2] as usize])
            })
            .collect();
        let (tris, fixed) = canonical_triangles(&tri, &walkable);
        source.pieces = pieces;
        source.fixed = fixed;
        source.crossings = crossings;
        let mut mesh = Self::assemble(verts, tris, tri.dropped);
        mesh.source = source;
        Ok(mesh)
    }
}

/// Pushes the edges of a ring (`closed`) or polyline as canonical segments.
fn push_edges(segs: &mut Vec<[Raw; 2]>, v: &[Vec2], closed: bool) {
    let n = v.len();
    let edges = if closed { n } else { n.saturating_sub(1) };
    segs.extend((0..edges).filter_map(|i| segment(v[i], v[(i + 1) % n])));
}

/// The default boundary: the segments' bounding box grown by `margin`, counter-clockwise.
fn default_boundary(segs: &[[Raw; 2]], margin: Fx) -> Result<Vec<Raw>, SimError> {
    if margin < Fx::ZERO || margin > MAX_COORD {
        return Err(SimError::OutOfDomain {
            what: "navigation margin",
            allowed: "0 ..= 1,000,000",
        });
    }
    let m = margin.to_bits();
    let (lo, hi) = segs.iter().flatten().fold(
        ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN)),
        |(lo, hi), p| {
            (
                (lo.0.min(p.0), lo.1.min(p.1)),
                (hi.0.max(p.0), hi.1.max(p.1)),
            )
        },
    );
    let (lo, hi) = ((lo.0 - m, lo.1 - m), (hi.0 + m, hi.1 + m));
    if lo.0 == hi.0 || lo.1 == hi.1 {
        return Err(SimError::OutOfDomain {
            what: "navigation margin",
            allowed: "> 0 when every obstacle lies on one horizontal or vertical line",
        });
    }
    Ok(vec![lo, (hi.0, lo.1), hi, (lo.0, hi.1)])
}

/// The triangulation's triangles with their classification `walkable[t]` and walls, each
/// rotated to start at its lowest vertex (the points are sorted, so the lowest index) and
/// sorted by their vertex indices; with each one's constrained edges as bits.
pub(crate) fn canonical_triangles(
    tri: &Triangulation,
    walkable: &[bool],
) -> (Vec<NavTriangle>, Vec<u8>) {
    let n = tri.tris.len();
    let rot: Vec<usize> = tri
        .tris
        .iter()
        .map(|v| (0..3).min_by_key(|&k| v[k]).unwrap_or(0))
        .collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&t| {
        let (v, r) = (tri.tris[t as usize], rot[t as usize]);
        [v[r], v[(r + 1) % 3], v[(r + 2) % 3]]
    });
    let mut new_index = vec![0u32; n];
    for (i, &t) in order.iter().enumerate() {
        new_index[t as usize] = i as u32;
    }
    let fixed = order
        .iter()
        .map(|&t| {
            let t = t as usize;
            (0..3).fold(0u8, |f, k| {
                f | u8::from(tri.constrained[t][(k + rot[t]) % 3]) << k
            })
        })
        .collect();
    let tris = order
        .iter()
        .map(|&t| {
            let t = t as usize;
            let at = |k: usize| (k + rot[t]) % 3;
            let v = [0, 1, 2].map(|k| tri.tris[t][at(k)]);
            let old_adj = [0, 1, 2].map(|k| tri.adj[t][at(k)]);
            let adj = old_adj.map(|a| {
                if a == NO_TRIANGLE {
                    a
                } else {
                    new_index[a as usize]
                }
            });
            let wall = [0, 1, 2].map(|k| {
                let a = old_adj[k];
                tri.constrained[t][at(k)] || a == NO_TRIANGLE || walkable[a as usize] != walkable[t]
            });
            NavTriangle {
                v,
                adj,
                wall,
                walkable: walkable[t],
                width: [Fx::ZERO; 3],
            }
        })
        .collect();
    (tris, fixed)
}

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
/// Equality leaves out [`read`](Self::read): the mesh does not depend on the obstacles' ids or
/// order, only the reading does.
#[derive(Clone, Debug, Default)]
pub(crate) struct Source {
    pub segs: Vec<[Raw; 2]>,
    /// The segments as read: the obstacles' edges in id order, then the boundary's, repeats
    /// kept. A local rebuild sorts only the stretch where its reading differs
    /// ([`sorted_from`]).
    pub read: Vec<[Raw; 2]>,
    pub solids: Vec<Vec<Raw>>,
    pub solid_boxes: Vec<RawBox>,
    pub boundary: Vec<Raw>,
    pub pieces: Vec<[u32; 2]>,
    pub fixed: Vec<u8>,
    /// Proper crossings between the segments (the cap counts them).
    pub crossings: usize,
}

impl PartialEq for Source {
    fn eq(&self, o: &Self) -> bool {
        let Self {
            segs,
            read: _,
            solids,
            solid_boxes,
            boundary,
            pieces,
            fixed,
            crossings,
        } = self;
        *segs == o.segs
            && *solids == o.solids
            && *solid_boxes == o.solid_boxes
            && *boundary == o.boundary
            && *pieces == o.pieces
            && *fixed == o.fixed
            && *crossings == o.crossings
    }
}

impl Eq for Source {}

/// The builder's input read from an obstacle set: segments, solids and boundary (`None`: no
/// obstacles and no boundary, the empty mesh).
pub(crate) fn read_source(
    obstacles: &ObstacleSet,
    params: &NavParams,
) -> Result<Option<Source>, SimError> {
    read_source_from(obstacles, params, None)
}

/// [`read_source`], sorting the segments from `old`'s when only one stretch of the reading
/// changed ([`sorted_from`]): the same source, without sorting the whole map again.
pub(crate) fn read_source_from(
    obstacles: &ObstacleSet,
    params: &NavParams,
    old: Option<&Source>,
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
    let read = segs;
    let segs = old
        .and_then(|o| sorted_from(&o.read, &o.segs, &read))
        .unwrap_or_else(|| sorted_distinct(&read));
    // Solids in a canonical order (the classification does not depend on it, but the
    // buckets' contents then do not depend on obstacle ids either).
    solids.sort_unstable();
    let solid_boxes = solids
        .iter()
        .map(|s| union(s.iter().map(|&p| (p, p))).unwrap_or_default())
        .collect();
    Ok(Some(Source {
        segs,
        read,
        solids,
        solid_boxes,
        boundary,
        pieces: Vec::new(),
        fixed: Vec::new(),
        crossings: 0,
    }))
}

/// `items` sorted, without repeats.
fn sorted_distinct<T: Ord + Clone>(items: &[T]) -> Vec<T> {
    let mut v = items.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Most items a reading may change for [`sorted_from`] to patch the old sorted list rather
/// than sort again (an obstacle of up to 1,024 edges, added, removed or reshaped).
const MAX_CHANGED_STRETCH: usize = 1024;

/// `read` sorted and without repeats, found from an earlier reading `old_read` and its sorted,
/// distinct form `old_sorted` when the two readings differ in one stretch (the rest is a common
/// prefix and suffix) of at most [`MAX_CHANGED_STRETCH`] items on each side; `None` otherwise.
/// An item of the old stretch leaves unless the new stretch or the common part holds it too;
/// an item of the new stretch comes unless the old list holds it; one merge puts them in.
fn sorted_from<T: Ord + Clone>(old_read: &[T], old_sorted: &[T], read: &[T]) -> Option<Vec<T>> {
    let prefix = old_read
        .iter()
        .zip(read)
        .take_while(|(a, b)| a == b)
        .count();
    let room = old_read.len().min(read.len()) - prefix;
    let suffix = old_read
        .iter()
        .rev()
        .zip(read.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let (gone, came) = (
        &old_read[prefix..old_read.len() - suffix],
        &read[prefix..read.len() - suffix],
    );
    if gone.len() > MAX_CHANGED_STRETCH || came.len() > MAX_CHANGED_STRETCH {
        return None;
    }
    let came = sorted_distinct(came);
    // Leaving: in the old stretch, not in the new one, not in the common part.
    let mut leaving: Vec<(T, bool)> = sorted_distinct(gone)
        .into_iter()
        .filter(|g| came.binary_search(g).is_err())
        .map(|g| (g, true))
        .collect();
    if !leaving.is_empty() {
        let common = old_read[..prefix]
            .iter()
            .chain(&old_read[old_read.len() - suffix..]);
        for c in common {
            if let Ok(k) = leaving.binary_search_by(|(g, _)| g.cmp(c)) {
                leaving[k].1 = false;
            }
        }
    }
    let mut leaving = leaving
        .into_iter()
        .filter(|(_, l)| *l)
        .map(|(g, _)| g)
        .peekable();
    let mut coming = came
        .into_iter()
        .filter(|c| old_sorted.binary_search(c).is_err())
        .peekable();
    let mut out = Vec::with_capacity(old_sorted.len() + coming.size_hint().1.unwrap_or(0));
    for item in old_sorted {
        if leaving.peek() == Some(item) {
            leaving.next();
            continue;
        }
        while let Some(c) = coming.next_if(|c| c < item) {
            out.push(c);
        }
        out.push(item.clone());
    }
    out.extend(coming);
    Some(out)
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
///
/// The kernel's output ([`cdt::triangulate`], [`cdt::relegalize`]) is in that order already
/// when the points it was given are sorted, as the builder's are: an `O(n)` check then skips
/// the rotation and the sort (the same result, without the permutation arrays).
pub(crate) fn canonical_triangles(
    tri: &Triangulation,
    walkable: &[bool],
) -> (Vec<NavTriangle>, Vec<u8>) {
    let in_order = tri.tris.iter().all(|v| v[0] < v[1] && v[0] < v[2])
        && tri.tris.windows(2).all(|w| w[0] < w[1]);
    if in_order {
        return emit_triangles(tri, walkable, |i| (i, 0), |a| a);
    }
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
    emit_triangles(
        tri,
        walkable,
        |i| {
            let t = order[i] as usize;
            (t, rot[t])
        },
        |a| new_index[a as usize],
    )
}

/// [`canonical_triangles`]' output: position `i` holds triangle `at(i) = (t, r)` rotated by
/// `r`, its neighbours renumbered by `renumber`.
fn emit_triangles(
    tri: &Triangulation,
    walkable: &[bool],
    at: impl Fn(usize) -> (usize, usize),
    renumber: impl Fn(u32) -> u32,
) -> (Vec<NavTriangle>, Vec<u8>) {
    let n = tri.tris.len();
    let mut tris = Vec::with_capacity(n);
    let mut fixed = Vec::with_capacity(n);
    for i in 0..n {
        let (t, r) = at(i);
        let turn = |k: usize| (k + r) % 3;
        let constrained = [0, 1, 2].map(|k| tri.constrained[t][turn(k)]);
        fixed.push((0..3).fold(0u8, |f, k| f | u8::from(constrained[k]) << k));
        let old_adj = [0, 1, 2].map(|k| tri.adj[t][turn(k)]);
        let wall = [0, 1, 2].map(|k| {
            let a = old_adj[k];
            constrained[k] || a == NO_TRIANGLE || walkable[a as usize] != walkable[t]
        });
        tris.push(NavTriangle {
            v: [0, 1, 2].map(|k| tri.tris[t][turn(k)]),
            adj: old_adj.map(|a| if a == NO_TRIANGLE { a } else { renumber(a) }),
            wall,
            walkable: walkable[t],
            width: [Fx::ZERO; 3],
        });
    }
    (tris, fixed)
}

#[cfg(test)]
mod tests {
    use super::{MAX_CHANGED_STRETCH, canonical_triangles, sorted_distinct, sorted_from};
    use crate::math::{Fx, Vec2};
    use crate::navigation::NO_TRIANGLE;
    use crate::navigation::cdt::{self, Triangulation};
    use proptest::prelude::*;

    proptest! {
        /// Patching the old sorted list gives what sorting the new reading gives, whatever the
        /// stretch that changed (repeats inside it, in the common part, on both sides).
        #[test]
        fn a_patched_reading_sorts_as_a_fresh_one(
            old in proptest::collection::vec(0u8..40, 0..60),
            came in proptest::collection::vec(0u8..40, 0..12),
            at in 0usize..60,
            len in 0usize..12,
        ) {
            let at = at.min(old.len());
            let end = (at + len).min(old.len());
            let read: Vec<u8> = old[..at].iter().chain(&came).chain(&old[end..]).copied().collect();
            let got = sorted_from(&old, &sorted_distinct(&old), &read);
            prop_assert_eq!(got, Some(sorted_distinct(&read)));
        }
    }

    #[test]
    fn a_long_changed_stretch_is_left_to_a_full_sort() {
        let old: Vec<u32> = (0..10).collect();
        let read: Vec<u32> = (0..10)
            .chain(100..101 + MAX_CHANGED_STRETCH as u32)
            .collect();
        assert_eq!(sorted_from(&old, &old, &read), None);
        let read: Vec<u32> = (0..10)
            .chain(100..100 + MAX_CHANGED_STRETCH as u32)
            .collect();
        let mut want = read.clone();
        want.sort_unstable();
        assert_eq!(sorted_from(&old, &old, &read), Some(want));
    }

    /// The `O(n)` fast path (the kernel's order taken as it comes) against the general path:
    /// the same triangulation shuffled and rotated gives the same canonical triangles.
    #[test]
    fn the_fast_path_gives_the_general_paths_triangles() {
        let mut pts = Vec::new();
        let mut h = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..60 {
            h ^= h << 13;
            h ^= h >> 7;
            h ^= h << 17;
            let c = |v: u64| Fx::from_bits(((v % 4000) as i64 - 2000) << 26);
            pts.push(Vec2::new(c(h), c(h >> 20)));
        }
        pts.sort_unstable_by_key(|p| (p.x, p.y));
        pts.dedup();
        let tri = cdt::triangulate(&pts, &[[0, 5], [7, 20]]).unwrap();
        assert!(tri.tris.len() > 50);
        let walkable: Vec<bool> = (0..tri.tris.len()).map(|t| t % 3 != 0).collect();
        let want = canonical_triangles(&tri, &walkable);

        // Reverse the triangles and rotate each by one.
        let n = tri.tris.len();
        let old_of = |i: usize| n - 1 - i;
        let turn = |a: [u32; 3]| [a[1], a[2], a[0]];
        let shuffled = Triangulation {
            tris: (0..n).map(|i| turn(tri.tris[old_of(i)])).collect(),
            adj: (0..n)
                .map(|i| {
                    turn(tri.adj[old_of(i)]).map(|a| {
                        if a == NO_TRIANGLE {
                            a
                        } else {
                            old_of(a as usize) as u32
                        }
                    })
                })
                .collect(),
            constrained: (0..n)
                .map(|i| {
                    let c = tri.constrained[old_of(i)];
                    [c[1], c[2], c[0]]
                })
                .collect(),
            dropped: tri.dropped,
        };
        let shuffled_walkable: Vec<bool> = (0..n).map(|i| walkable[old_of(i)]).collect();
        assert_eq!(canonical_triangles(&shuffled, &shuffled_walkable), want);
    }
}

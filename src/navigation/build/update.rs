//! The local rebuild ([`NavMesh::update`]): after obstacles are added or removed, only the part
//! of the mesh around the change is triangulated again, and the result is the mesh a batch
//! build of the new obstacle set gives, bit for bit (navigation plan §1.4).
//!
//! 1. **What changed.** The new segments are split into pieces as in a batch build; the mesh
//!    vertices and pieces are compared with the old ones (both sorted, a merge). The *change
//!    box* is the bounding box of every vertex and piece that came or went.
//! 2. **Cavity.** The old triangles whose bounding box meets the change box are taken out.
//!    They cover the box, and no point of the box lies on the cavity's outline (a triangle
//!    outside touching it would meet the box), so every new or removed vertex and piece is
//!    inside the cavity.
//! 3. **Patch.** The cavity's vertices (less the removed ones, plus the new ones) are
//!    triangulated by the batch kernel with the cavity's outline, its old pieces and the new
//!    pieces as constraints; the triangles inside the outline (a flood from its edges) replace
//!    the cavity.
//! 4. **Flips.** Lawson's flips from the patch's edges make every unconstrained edge locally
//!    Delaunay again. The constrained edges are exactly the pieces, and the constrained
//!    Delaunay triangulation of given points and pieces is unique (symbolic perturbation in
//!    the kernel), so this *is* the batch build's triangulation.
//! 5. **Classification and widths.** A triangle keeps its old classification unless it is new
//!    or meets a changed solid's box; a traversal keeps its old width unless its search disc
//!    (the pivot and `min(|CA|, |CB|)`, which bounds every edge the search reads) meets a
//!    triangle that changed. The rest is recomputed exactly as a batch build computes it.
//!
//! Whenever a step cannot vouch for the result (no previous mesh, a new boundary or hull,
//! pieces the kernel had to drop, a patch that does not fill the cavity), the mesh is built
//! whole instead, which is the same mesh by definition. What remains linear in the map is
//! bookkeeping without predicates: reading the segments, the merges, copying and sorting the
//! triangle arrays, the seed grid.

use super::classify::Classifier;
use super::grid::{RawBox, box_of, union};
use super::pieces::{MAX_CROSSINGS, Raw, raw, split_some, vec};
use super::{Source, Split, canonical_triangles, read_source_from, with_hull};
use crate::error::SimError;
use crate::geom::left_of;
use crate::math::Vec2;
use crate::navigation::cdt::{self, Triangulation};
use crate::navigation::widths::traversal_width;
use crate::navigation::{NO_TRIANGLE, NavMesh, NavParams};
use crate::obstacle::ObstacleSet;

/// The work one [`NavMesh::update`] did: what the local rebuild touched, so tests and
/// benchmarks can show it follows the changed area, not the map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RebuildWork {
    /// The mesh was built whole (no previous build, a changed boundary or hull, dropped
    /// pieces, or a patch the rebuild could not vouch for).
    pub full: bool,
    /// Old triangles taken out (the cavity).
    pub cavity: u32,
    /// Triangles of the patch put in their place (before the flips).
    pub patched: u32,
    /// Triangles classified (walkable or blocked) again.
    pub classified: u32,
    /// Traversal widths computed again (three per walkable triangle at most).
    pub widths: u32,
}

/// Why the local rebuild gave up (the mesh is then built whole).
struct Fallback;

/// What a local rebuild adds to the source it was given: the pieces, their constrained-edge
/// bits per triangle and the crossing count.
type Rebuilt = (Vec<[u32; 2]>, Vec<u8>, usize);

impl NavMesh {
    /// The mesh of `obstacles` under `params`, rebuilt locally from this mesh (module docs of
    /// `navigation/build/update.rs`): the same mesh as [`NavMesh::build`] gives, bit for bit,
    /// at a cost that follows the area the change touched. `Ok(None)` when the obstacles and
    /// parameters give this very mesh (nothing the mesh depends on changed).
    ///
    /// # Errors
    /// [`NavMesh::build`]'s errors for the new set.
    pub fn update(
        &self,
        obstacles: &ObstacleSet,
        params: &NavParams,
    ) -> Result<Option<(Self, RebuildWork)>, SimError> {
        let full = |source: Option<Source>| -> Result<Option<(Self, RebuildWork)>, SimError> {
            let mesh = match source {
                Some(s) => Self::build_from(s)?,
                None => Self::default(),
            };
            let work = RebuildWork {
                full: true,
                classified: mesh.tris.len() as u32,
                widths: 3 * mesh.tris.len() as u32,
                ..RebuildWork::default()
            };
            Ok(Some((mesh, work)))
        };
        let Some(new) = read_source_from(obstacles, params, Some(&self.source))? else {
            return if self.source.segs.is_empty() && self.tris.is_empty() {
                Ok(None)
            } else {
                full(None)
            };
        };
        let old = &self.source;
        if old.segs == new.segs && old.solids == new.solids && old.boundary == new.boundary {
            return Ok(None);
        }
        if old.segs.is_empty() || old.boundary != new.boundary || self.dropped != 0 {
            return full(Some(new));
        }
        // The source is lent, not cloned: a fallback still has it for the full build.
        match self.rebuild(&new) {
            Ok((mut mesh, work, (pieces, fixed, crossings))) => {
                mesh.source = Source {
                    pieces,
                    fixed,
                    crossings,
                    ..new
                };
                Ok(Some((mesh, work)))
            }
            Err(Fallback) => full(Some(new)),
        }
    }

    /// Steps 1 to 5 of the module docs, towards `source`.
    /// The mesh comes without its source; the caller puts `source` in, with the pieces, the
    /// constrained-edge bits and the crossing count returned beside the mesh.
    fn rebuild(&self, source: &Source) -> Result<(Self, RebuildWork, Rebuilt), Fallback> {
        let old = &self.source;
        let old_all: Vec<Raw> = self.verts.iter().map(|&p| raw(p)).collect();
        let (all, pieces, crossings) = self.local_pieces(&old_all, source)?;
        let (n_old, n_new) = (old_all.len(), all.len());
        let corners = |v: &[Raw]| [v[0], v[1], v[v.len() - 2], v[v.len() - 1]];
        if n_old < 4 || n_new < 4 || corners(&old_all) != corners(&all) {
            return Err(Fallback);
        }
        // 1. What changed: vertices and pieces, by merges of sorted lists.
        let mut change: Option<RawBox> = None;
        let mut grow = |b: RawBox| change = union(change.into_iter().chain([b]));
        let mut old_to_new = vec![NO_TRIANGLE; n_old];
        let (mut added, mut removed) = (Vec::new(), 0u32);
        let (mut i, mut j) = (0, 0);
        while i < n_old || j < n_new {
            if j == n_new || (i < n_old && old_all[i] < all[j]) {
                grow((old_all[i], old_all[i]));
                removed += 1;
                i += 1;
            } else if i == n_old || all[j] < old_all[i] {
                grow((all[j], all[j]));
                added.push(j as u32);
                j += 1;
            } else {
                old_to_new[i] = j as u32;
                i += 1;
                j += 1;
            }
        }
        let old_pieces = raw_pieces(&old.pieces, &old_all);
        let new_pieces = raw_pieces(&pieces, &all);
        let mut added_pieces = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < old_pieces.len() || j < new_pieces.len() {
            if j == new_pieces.len() || (i < old_pieces.len() && old_pieces[i] < new_pieces[j]) {
                grow(box_of(old_pieces[i][0], old_pieces[i][1]));
                i += 1;
            } else if i == old_pieces.len() || new_pieces[j] < old_pieces[i] {
                grow(box_of(new_pieces[j][0], new_pieces[j][1]));
                added_pieces.push(pieces[j]);
                j += 1;
            } else {
                i += 1;
                j += 1;
            }
        }
        let is_piece = |a: u32, b: u32| pieces.binary_search(&[a.min(b), a.max(b)]).is_ok();

        // 2. The cavity.
        let meets = |b: RawBox, c: Option<RawBox>| c.is_some_and(|c| overlaps(b, c));
        let in_cavity: Vec<bool> = self
            .tris
            .iter()
            .map(|t| meets(tri_box(&old_all, t.v), change))
            .collect();
        let cavity = in_cavity.iter().filter(|&&c| c).count();

        // 3. The patch: its points (new indices, sorted), outline and constraints.
        let mut patch_ids: Vec<u32> = added.clone();
        let mut outline: Vec<([u32; 2], u32)> = Vec::new(); // directed (new ids), outer triangle
        let mut constraints: Vec<[u32; 2]> = added_pieces;
        for (t, tri) in self.tris.iter().enumerate() {
            if !in_cavity[t] {
                continue;
            }
            let ids = tri.v.map(|v| old_to_new[v as usize]);
            for k in 0..3 {
                let (a, b) = (ids[k], ids[(k + 1) % 3]);
                let outer = tri.adj[k];
                if outer == NO_TRIANGLE || !in_cavity[outer as usize] {
                    if a == NO_TRIANGLE || b == NO_TRIANGLE {
                        return Err(Fallback); // a removed vertex on the outline
                    }
                    outline.push(([a, b], outer));
                    constraints.push([a, b]);
                } else if a < b && a != NO_TRIANGLE && b != NO_TRIANGLE && is_piece(a, b) {
                    constraints.push([a, b]);
                }
                if a != NO_TRIANGLE {
                    patch_ids.push(a);
                }
            }
        }
        patch_ids.sort_unstable();
        patch_ids.dedup();
        let local = |g: u32| {
            patch_ids
                .binary_search(&g)
                .map(|i| i as u32)
                .map_err(|_| Fallback)
        };
        let patch_pts: Vec<Vec2> = patch_ids.iter().map(|&g| vec(all[g as usize])).collect();
        let mut local_constraints = Vec::with_capacity(constraints.len());
        for c in &constraints {
            local_constraints.push([local(c[0])?, local(c[1])?]);
        }
        let patch = cdt::triangulate(&patch_pts, &local_constraints).map_err(|_| Fallback)?;
        if patch.dropped != 0 {
            return Err(Fallback);
        }
        let inside = select_inside(&patch, &outline, &patch_ids)?;
        let expected = cavity as i64 + 2 * (added.len() as i64 - i64::from(removed));
        if inside.iter().filter(|&&k| k).count() as i64 != expected {
            return Err(Fallback);
        }

        // 4. Stitch (kept triangles first, then the patch) and flip.
        let mut work_of_old = vec![NO_TRIANGLE; self.tris.len()];
        let mut w_v = Vec::with_capacity(self.tris.len() + patch.tris.len());
        let mut w_adj = Vec::with_capacity(w_v.capacity());
        let mut w_fixed = Vec::with_capacity(w_v.capacity());
        for (t, tri) in self.tris.iter().enumerate() {
            if !in_cavity[t] {
                work_of_old[t] = w_v.len() as u32;
                w_v.push(tri.v.map(|v| old_to_new[v as usize]));
                w_fixed.push(old.fixed[t]);
            }
        }
        for (t, tri) in self.tris.iter().enumerate() {
            if !in_cavity[t] {
                w_adj.push(tri.adj.map(|a| {
                    if a == NO_TRIANGLE {
                        NO_TRIANGLE
                    } else {
                        work_of_old[a as usize] // NO_TRIANGLE for a cavity triangle: set below
                    }
                }));
            }
        }
        let mut work_of_patch = vec![NO_TRIANGLE; patch.tris.len()];
        for (p, &keep) in inside.iter().enumerate() {
            if keep {
                work_of_patch[p] = w_v.len() as u32;
                w_v.push(patch.tris[p].map(|l| patch_ids[l as usize]));
                w_adj.push([NO_TRIANGLE; 3]);
                w_fixed.push(0);
            }
        }
        let mut outline_sorted = outline.clone();
        outline_sorted.sort_unstable();
        let mut dirty = Vec::new();
        for (p, &keep) in inside.iter().enumerate() {
            if !keep {
                continue;
            }
            let w = work_of_patch[p] as usize;
            let v = w_v[w];
            for k in 0..3 {
                let (a, b) = (v[k], v[(k + 1) % 3]);
                if is_piece(a, b) {
                    w_fixed[w] |= 1 << k;
                }
                dirty.push((w as u32, k as u8));
                let across = patch.adj[p][k];
                if let Ok(o) = outline_sorted.binary_search_by_key(&[a, b], |e| e.0) {
                    let outer = outline_sorted[o].1;
                    if outer != NO_TRIANGLE {
                        let wo = work_of_old[outer as usize] as usize;
                        let ko = (0..3)
                            .find(|&m| w_v[wo][m] == b && w_v[wo][(m + 1) % 3] == a)
                            .ok_or(Fallback)?;
                        w_adj[wo][ko] = w as u32;
                        w_adj[w][k] = wo as u32;
                    }
                } else if across != NO_TRIANGLE && inside[across as usize] {
                    w_adj[w][k] = work_of_patch[across as usize];
                } else {
                    return Err(Fallback);
                }
            }
        }
        let verts: Vec<Vec2> = all.iter().map(|&p| vec(p)).collect();
        let tri = cdt::relegalize(&verts, &w_v, &w_adj, &w_fixed, &dirty);

        // 5. Classification and widths, reusing what the change cannot reach.
        let matched = match_triangles(&self.tris, &old_all, &tri.tris, &all);
        let mut solids_changed: Option<RawBox> = change;
        merge_diff(&self.source.solids, &source.solids, |s| {
            solids_changed = union(solids_changed.into_iter().chain(s.iter().map(|&p| (p, p))));
        });
        let reclassify: Vec<bool> = (0..tri.tris.len())
            .map(|t| matched[t] == NO_TRIANGLE || meets(tri_box(&all, tri.tris[t]), solids_changed))
            .collect();
        let span = union(
            (0..tri.tris.len())
                .filter(|&t| reclassify[t])
                .map(|t| tri_box(&all, tri.tris[t])),
        );
        let near: Vec<Vec<Raw>> = source
            .solids
            .iter()
            .zip(&source.solid_boxes)
            .filter(|(_, b)| meets(**b, span))
            .map(|(s, _)| s.clone())
            .collect();
        let classifier = Classifier::new(&source.boundary, &near);
        let walkable: Vec<bool> = (0..tri.tris.len())
            .map(|t| {
                let v = tri.tris[t];
                if reclassify[t] {
                    classifier.walkable(all[v[0] as usize], all[v[1] as usize], all[v[2] as usize])
                } else {
                    self.tris[matched[t] as usize].walkable
                }
            })
            .collect();
        let (tris, fixed) = canonical_triangles(&tri, &walkable);
        // The triangles that differ from their old selves, and the old ones that went.
        let mut changed: Option<RawBox> = None;
        let mut was_matched = vec![false; self.tris.len()];
        for (t, new_tri) in tris.iter().enumerate() {
            let m = matched[t];
            if m != NO_TRIANGLE {
                was_matched[m as usize] = true;
            }
            let old_tri = (m != NO_TRIANGLE).then(|| &self.tris[m as usize]);
            let same =
                old_tri.is_some_and(|o| o.walkable == new_tri.walkable && o.wall == new_tri.wall);
            if !same {
                changed = union(changed.into_iter().chain([tri_box(&all, new_tri.v)]));
            }
        }
        for (t, old_tri) in self.tris.iter().enumerate() {
            if !was_matched[t] {
                changed = union(changed.into_iter().chain([tri_box(&old_all, old_tri.v)]));
            }
        }
        let mut widths_done = 0u32;
        let mesh = Self::assemble_with(verts, tris, 0, |mesh| {
            let mut stack = Vec::new();
            for (t, &m) in matched.iter().enumerate() {
                if !mesh.tris[t].walkable {
                    continue;
                }
                // Far from every change (farther than the box's width plus height, which
                // bounds every edge): all three widths stand, no per-traversal test.
                let far = m != NO_TRIANGLE && far_from(tri_box(&all, mesh.tris[t].v), changed);
                for k in 0..3 {
                    let reuse = far || (m != NO_TRIANGLE && !search_meets(mesh, t, k, changed));
                    mesh.tris[t].width[k] = if reuse {
                        self.tris[m as usize].width[k]
                    } else {
                        widths_done += 1;
                        traversal_width(mesh, t as u32, k, &mut stack)
                    };
                }
            }
        });
        let work = RebuildWork {
            full: false,
            cavity: cavity as u32,
            patched: expected as u32,
            classified: reclassify.iter().filter(|&&r| r).count() as u32,
            widths: widths_done,
        };
        Ok((mesh, work, (pieces, fixed, crossings)))
    }
}

impl NavMesh {
    /// The mesh vertices, pieces and crossing count of `new`'s segments, found from this
    /// mesh's by splitting again only the segments near the change (step 1): the segments whose
    /// box meets the box of the segments that came or went (`A`), split among every segment
    /// whose box meets theirs (which holds all that can cut them). A piece of an old `A`
    /// segment goes unless an unchanged segment holds it too.
    fn local_pieces(&self, old_all: &[Raw], new: &Source) -> Result<Split, Fallback> {
        let old = &self.source;
        let seg_box = |s: &[Raw; 2]| box_of(s[0], s[1]);
        let mut delta: Option<RawBox> = None;
        merge_diff(&old.segs, &new.segs, |s| {
            delta = union(delta.into_iter().chain([seg_box(s)]));
        });
        let Some(delta) = delta else {
            return Ok((old_all.to_vec(), old.pieces.clone(), old.crossings));
        };
        let near = |segs: &[[Raw; 2]], b: RawBox| -> Vec<bool> {
            segs.iter().map(|s| overlaps(seg_box(s), b)).collect()
        };
        let (a_old, a_new) = (near(&old.segs, delta), near(&new.segs, delta));
        let hood = union(
            old.segs
                .iter()
                .zip(&a_old)
                .chain(new.segs.iter().zip(&a_new))
                .filter(|(_, a)| **a)
                .map(|(s, _)| seg_box(s)),
        )
        .unwrap_or(delta);
        let local = |segs: &[[Raw; 2]], a: &[bool]| -> (Vec<[Raw; 2]>, Vec<bool>) {
            segs.iter()
                .zip(a)
                .filter(|(s, _)| overlaps(seg_box(s), hood))
                .map(|(s, a)| (*s, *a))
                .unzip()
        };
        let (old_segs, old_wanted) = local(&old.segs, &a_old);
        let (new_segs, new_wanted) = local(&new.segs, &a_new);
        let (gone, c_old) = split_some(&old_segs, &old_wanted).map_err(|_| Fallback)?;
        let (came, c_new) = split_some(&new_segs, &new_wanted).map_err(|_| Fallback)?;
        let crossings = (old.crossings + c_new).checked_sub(c_old).ok_or(Fallback)?;
        if crossings > MAX_CROSSINGS {
            return Err(Fallback);
        }
        // An unchanged segment near the change holding the piece (both ends on it).
        let held = |p: &[Raw; 2]| {
            new_segs.iter().zip(&new_wanted).any(|(s, w)| {
                !w && p.iter().all(|&q| {
                    overlaps(seg_box(s), (q, q)) && left_of(vec(s[0]), vec(s[1]), vec(q)) == 0
                })
            })
        };
        // The pieces kept (in order) and how many pieces each old point still ends.
        let mut ends = vec![0u32; old_all.len()];
        for p in &old.pieces {
            ends[p[0] as usize] += 1;
            ends[p[1] as usize] += 1;
        }
        let mut kept = Vec::with_capacity(old.pieces.len() + came.len());
        for (p, ids) in raw_pieces(&old.pieces, old_all)
            .into_iter()
            .zip(&old.pieces)
        {
            if gone.binary_search(&p).is_err() || held(&p) {
                kept.push(p);
            } else {
                ends[ids[0] as usize] -= 1;
                ends[ids[1] as usize] -= 1;
            }
        }
        let mut fresh: Vec<Raw> = came.iter().flatten().copied().collect();
        fresh.sort_unstable();
        fresh.dedup();
        kept.extend(came);
        kept.sort(); // two sorted runs: a merge
        kept.dedup();
        // The points: the old ones some piece still ends at, merged with the new pieces' ends.
        let mut points = Vec::with_capacity(old_all.len() + fresh.len());
        let mut olds = old_all
            .iter()
            .zip(&ends)
            .filter(|(_, e)| **e > 0)
            .map(|(p, _)| *p);
        let mut fresh = fresh.into_iter();
        let (mut a, mut b) = (olds.next(), fresh.next());
        while a.is_some() || b.is_some() {
            let take_a = match (a, b) {
                (Some(x), Some(y)) => x <= y,
                (x, _) => x.is_some(),
            };
            let q = if take_a { a.take() } else { b.take() };
            if let Some(q) = q
                && points.last() != Some(&q)
            {
                points.push(q);
            }
            if take_a {
                a = olds.next();
            } else {
                b = fresh.next();
            }
        }
        let all = with_hull(points).map_err(|_| Fallback)?;
        let index = |q: Raw| {
            all.binary_search(&q)
                .map(|i| i as u32)
                .map_err(|_| Fallback)
        };
        let mut pieces = Vec::with_capacity(kept.len());
        for p in &kept {
            pieces.push([index(p[0])?, index(p[1])?]);
        }
        Ok((all, pieces, crossings))
    }
}

/// Pieces as point pairs (sorted when the index pairs are: indices follow the points' order).
fn raw_pieces(pieces: &[[u32; 2]], pts: &[Raw]) -> Vec<[Raw; 2]> {
    pieces
        .iter()
        .map(|p| [pts[p[0] as usize], pts[p[1] as usize]])
        .collect()
}

/// The bounding box of triangle `t` of points `v`.
#[inline]
fn tri_box(v: &[Raw], t: [u32; 3]) -> RawBox {
    let (a, b, c) = (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
    (
        (a.0.min(b.0).min(c.0), a.1.min(b.1).min(c.1)),
        (a.0.max(b.0).max(c.0), a.1.max(b.1).max(c.1)),
    )
}

/// Whether two closed boxes meet.
fn overlaps(a: RawBox, b: RawBox) -> bool {
    a.0.0 <= b.1.0 && b.0.0 <= a.1.0 && a.0.1 <= b.1.1 && b.0.1 <= a.1.1
}

/// The patch triangles inside the cavity's `outline` (directed edges with the cavity on their
/// left, in global ids; `ids` maps the patch's indices to global ones): a flood from each
/// outline edge's inner triangle that never crosses the outline.
fn select_inside(
    patch: &Triangulation,
    outline: &[([u32; 2], u32)],
    ids: &[u32],
) -> Result<Vec<bool>, Fallback> {
    let mut directed: Vec<([u32; 2], u32)> = Vec::with_capacity(3 * patch.tris.len());
    for (t, v) in patch.tris.iter().enumerate() {
        for k in 0..3 {
            directed.push(([ids[v[k] as usize], ids[v[(k + 1) % 3] as usize]], t as u32));
        }
    }
    directed.sort_unstable();
    let mut walls: Vec<[u32; 2]> = outline
        .iter()
        .map(|(e, _)| [e[0].min(e[1]), e[0].max(e[1])])
        .collect();
    walls.sort_unstable();
    let mut inside = vec![false; patch.tris.len()];
    let mut stack = Vec::new();
    for (e, _) in outline {
        let i = directed
            .binary_search_by_key(e, |d| d.0)
            .map_err(|_| Fallback)?;
        stack.push(directed[i].1);
    }
    while let Some(t) = stack.pop() {
        if std::mem::replace(&mut inside[t as usize], true) {
            continue;
        }
        let v = patch.tris[t as usize];
        for k in 0..3 {
            let (a, b) = (ids[v[k] as usize], ids[v[(k + 1) % 3] as usize]);
            if walls.binary_search(&[a.min(b), a.max(b)]).is_ok() {
                continue;
            }
            let across = patch.adj[t as usize][k];
            if across == NO_TRIANGLE {
                return Err(Fallback); // the flood left the cavity
            }
            stack.push(across);
        }
    }
    Ok(inside)
}

/// For each new triangle (canonical order), the old triangle with the same corners, or
/// [`NO_TRIANGLE`]: both lists are sorted by their vertex indices, which follow the points'
/// raw order, so one merge on the corners finds them.
fn match_triangles(
    old: &[crate::navigation::NavTriangle],
    old_pts: &[Raw],
    new: &[[u32; 3]],
    new_pts: &[Raw],
) -> Vec<u32> {
    let key_old = |t: usize| old[t].v.map(|i| old_pts[i as usize]);
    let key_new = |t: usize| new[t].map(|i| new_pts[i as usize]);
    let mut out = vec![NO_TRIANGLE; new.len()];
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        match key_old(i).cmp(&key_new(j)) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out[j] = i as u32;
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Calls `f` on every item in exactly one of two sorted lists.
fn merge_diff<T: Ord>(a: &[T], b: &[T], mut f: impl FnMut(&T)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] < b[j]) {
            f(&a[i]);
            i += 1;
        } else if i == a.len() || b[j] < a[i] {
            f(&b[j]);
            j += 1;
        } else {
            i += 1;
            j += 1;
        }
    }
}

/// Whether the box `b` is farther from `changed` than its own width plus height plus two raw
/// units along some axis: then no search disc of its triangle (centred on a corner, radius at
/// most an edge) reaches `changed`.
fn far_from(b: RawBox, changed: Option<RawBox>) -> bool {
    let Some(z) = changed else { return true };
    let reach = i128::from(b.1.0 - b.0.0) + i128::from(b.1.1 - b.0.1) + 2;
    let gap_x = (i128::from(z.0.0) - i128::from(b.1.0)).max(i128::from(b.0.0) - i128::from(z.1.0));
    let gap_y = (i128::from(z.0.1) - i128::from(b.1.1)).max(i128::from(b.0.1) - i128::from(z.1.1));
    gap_x > reach || gap_y > reach
}

/// Whether the width search of traversal `k` of triangle `t` may read a triangle inside
/// `changed`: every edge it examines passes nearer to the pivot `C` than
/// `u = min(|CA|, |CB|)` (floored, plus two raw units for the floored distances), so it cannot
/// when `C` is farther than that from the box. Squares only: `dist² > 2·u² + 8` implies
/// `dist > u + 2`.
fn search_meets(mesh: &NavMesh, t: usize, k: usize, changed: Option<RawBox>) -> bool {
    let Some(z) = changed else { return false };
    let c = mesh.corners(t as u32);
    let (p, a, b) = (c[k], c[(k + 1) % 3], c[(k + 2) % 3]);
    let u2 = (p - a)
        .length_squared_wide()
        .min((p - b).length_squared_wide())
        .unsigned_abs();
    let (x, y) = raw(p);
    let gap = |v: i64, lo: i64, hi: i64| {
        u128::from(
            lo.saturating_sub(v)
                .max(v.saturating_sub(hi))
                .max(0)
                .unsigned_abs(),
        )
    };
    let (dx, dy) = (gap(x, z.0.0, z.1.0), gap(y, z.0.1, z.1.1));
    let d2 = dx.saturating_mul(dx).saturating_add(dy.saturating_mul(dy));
    d2 <= u2.saturating_mul(2).saturating_add(8)
}

//! Shared paths of a distance field: the smoothed path after a corner, made once per field and
//! reused by every unit whose string turns at that corner first.
//!
//! A field's corridors all follow its links, so the string pulled from a unit's start meets
//! its first corner — a vertex at one end of the exit portal of a triangle `T`, on one side —
//! and from there on the funnel restarts at that corner and sees only the portals after `T`:
//! the corners after it are a function of `(T, side)` alone ([`Link`], found by
//! [`StringFunnel`], the point funnel of `funnel::pull_shrunk` stopped at its first corner).
//! The smoothing (as `funnel::path_shrunk`'s: discs of radius `r` at the corners joined by
//! their common tangents, each arc replaced by its circumscribed polygon) is local too: a
//! corner's arc depends on the stops before and after it. So every corner keeps its departure
//! direction and its *tail*, the points after its arc to the goal; a unit's path is the arc at
//! its first corner (from its own arrival direction) and that corner's tail. Units sent to one
//! goal from one area turn at few corners, so the route is smoothed a few times per field
//! instead of once per unit.
//!
//! - **Same path.** The corners are `pull_shrunk`'s over the whole corridor, and the points
//!   are `smooth`'s for them: the path a unit gets is the one `funnel::path_shrunk` gives over
//!   its whole corridor when that needs no repair.
//! - **Clearance.** Where `path_shrunk` would repair (a portal end closer than `r` to the
//!   smoothed path, [`clear`]), the shared path is not used: every corner keeps whether its
//!   stretch (the portals from its triangle to the next corner's, against the path from its
//!   departure through the next arc) and all the stretches after it are clear, and each unit
//!   checks its own stretch (its corridor to the next corner, against its path to the end of
//!   the next arc). A unit whose path is not clear is planned as before, unshared.
//! - **Pure.** A corner's link, departure, tail and clearance depend only on the mesh, the
//!   field's key and `(T, side)`: never on which unit asked first. A memo filled in any order,
//!   or a cold one after a restore, gives every unit the same bytes.

use super::Field;
use crate::geom::{cmp_dist_point_segment, left_of};
use crate::math::{Fx, Vec2, wide_mul};
use crate::navigation::NavMesh;
use crate::navigation::funnel::{
    self, CORNER_MARGIN, Portal, arc, miter, right_normal, tangent_between,
};
use std::cmp::Ordering;

/// No entry yet for a corner.
const NONE: u32 = u32::MAX;

/// A corner of a field's string: the end of triangle `tri`'s exit portal on the `left` side
/// (as a unit travelling to the goal sees it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CornerKey {
    tri: u32,
    left: bool,
}

/// What follows a corner on the string: the next corner, or the goal straight ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Corner(CornerKey),
    Goal,
}

/// One stop of the string: a disc of radius `r` at a corner vertex passed on one side, or a
/// point (offset 0), as in the funnel's smoothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stop {
    vertex: u32,
    centre: Vec2,
    /// `+r` for a vertex on the path's left, `−r` on its right, 0 for a point.
    offset: Fx,
}

impl Stop {
    fn point(p: Vec2) -> Self {
        Self {
            vertex: u32::MAX,
            centre: p,
            offset: Fx::ZERO,
        }
    }

    fn left(&self) -> bool {
        self.offset > Fx::ZERO
    }
}

/// One corner's shared data.
#[derive(Clone, Debug)]
struct Entry {
    stop: Stop,
    /// The direction leaving the corner's disc towards the next stop of another vertex or
    /// side (`None` when their centres coincide).
    t_out: Option<Vec2>,
    /// The points after the corner's arc, to the goal.
    tail: Vec<Vec2>,
    /// The corners whose arcs begin `tail`: those the repair added, then the next one.
    skip: Vec<Stop>,
    /// How many points of `tail` are those arcs (the goal's point excluded).
    next_arc: usize,
    /// The triangle of the next corner (or the goal's): a unit's own stretch ends there.
    reach: u32,
    /// Whether the path from this corner's departure on is clear of every portal end of the
    /// corridor ([`clear`]).
    clear: bool,
}

/// The shared corners of one field: per triangle and side, the index of its entry.
#[derive(Clone, Debug)]
pub(super) struct CornerMemo {
    slot: Vec<[u32; 2]>,
    entries: Vec<Entry>,
    /// Scratch (never read before written): a unit's path up to the end of the arcs that
    /// begin its corner's tail, and [`too_close`]'s grown boxes.
    scratch: Vec<Vec2>,
    boxes: Vec<SegmentBox>,
}

impl CornerMemo {
    /// An empty memo for a mesh of `n` triangles.
    pub(super) fn new(n: usize) -> Self {
        Self {
            slot: vec![[NONE; 2]; n],
            entries: Vec::new(),
            scratch: Vec::new(),
            boxes: Vec::new(),
        }
    }

    fn find(&self, key: CornerKey) -> Option<usize> {
        let k = self.slot[key.tri as usize][usize::from(key.left)];
        (k != NONE).then_some(k as usize)
    }
}

/// The point funnel of `funnel::pull_shrunk`, fed one shrunk portal at a time and stopped at
/// its first corner: the same comparisons in the same order, so a corner found here is the
/// one `pull_shrunk` finds over the same portals.
#[derive(Clone, Copy, Debug)]
struct StringFunnel {
    apex: Vec2,
    left: (Vec2, usize),
    right: (Vec2, usize),
    /// Portals fed so far.
    fed: usize,
}

impl StringFunnel {
    /// A funnel with its apex at `apex` (the start, or a corner's shrunk point).
    fn at(apex: Vec2) -> Self {
        Self {
            apex,
            left: (apex, 0),
            right: (apex, 0),
            fed: 0,
        }
    }

    /// Feeds the next shrunk portal `(pl, pr)`: the first corner, `(portal index counted from
    /// 0, on the left)`, when it turns into one.
    #[inline(always)]
    fn push(&mut self, pl: Vec2, pr: Vec2) -> Option<(usize, bool)> {
        self.fed += 1;
        let i = self.fed;
        let apex = self.apex;
        let (left, left_i) = self.left;
        let (right, _) = self.right;
        if left_of(apex, right, pr) >= 0 {
            if apex == right || left_of(apex, left, pr) < 0 || left_i == 0 {
                self.right = (pr, i);
            } else {
                return Some((left_i - 1, true));
            }
        }
        // The left side against the right one as just tightened.
        let (right, right_i) = self.right;
        if left_of(apex, left, pl) <= 0 {
            if apex == left || left_of(apex, right, pl) > 0 || right_i == 0 {
                self.left = (pl, i);
            } else {
                return Some((right_i - 1, false));
            }
        }
        None
    }

    /// Feeds the goal (a portal of one point) after the last portal: the first corner, or
    /// `None` when the goal is in sight of the apex.
    fn push_goal(&mut self, goal: Vec2) -> Option<(usize, bool)> {
        let apex = self.apex;
        let ((left, left_i), (right, right_i)) = (self.left, self.right);
        if left_of(apex, right, goal) >= 0 {
            if apex == right || left_of(apex, left, goal) < 0 || left_i == 0 {
                return None;
            }
            return Some((left_i - 1, true));
        }
        if left_of(apex, left, goal) <= 0
            && !(apex == left || left_of(apex, right, goal) > 0 || right_i == 0)
        {
            return Some((right_i - 1, false));
        }
        None
    }
}

/// The unit direction of the common tangent from stop `a` to stop `b` (the funnel's
/// [`tangent_between`]). `None` when the centres coincide.
fn tangent(a: Stop, b: Stop) -> Option<Vec2> {
    tangent_between((a.centre, a.offset), (b.centre, b.offset))
}

/// The points of the arc at corner `stop` between the arrival direction `t_in` and the
/// departure `t_out`, appended to `out` (the funnel's smoothing of one corner).
fn corner_points(stop: Stop, t_in: Option<Vec2>, t_out: Option<Vec2>, r: Fx, out: &mut Vec<Vec2>) {
    let sign = if stop.left() { Fx::ONE } else { -Fx::ONE };
    match (t_in, t_out) {
        (Some(ti), Some(to)) => {
            let (a, b) = (right_normal(ti) * sign, right_normal(to) * sign);
            arc(stop.centre, a, b, stop.left(), r, 0, out);
        }
        (Some(t), None) | (None, Some(t)) => {
            let n = right_normal(t) * sign;
            miter(stop.centre, n, n, r, out);
        }
        (None, None) => out.push(stop.centre),
    }
}

/// The first end of `portals` (in corridor order, left before right) but the corners `skip`
/// (vertex and side) closer than `r` to the polyline `path` (exact test): the segment it is
/// close to and the end, where `funnel::path_shrunk` would repair. `None`: the path is clear.
fn too_close(
    mesh: &NavMesh,
    portals: &[Portal],
    skip: (Option<Stop>, &[Stop]),
    path: &[Vec2],
    r: Fx,
    boxes: &mut Vec<SegmentBox>,
) -> Option<(usize, u32, bool)> {
    let whole = path.len().saturating_sub(1);
    too_close_upto(mesh, &[(portals, whole)], skip, path, r, boxes)
}

/// [`too_close`] with each group of portals met by the path's first segments only: a group
/// `(portals, n)` is tested against segments `0..n` of `path` (all of them when `n` is the
/// number of segments). One pass over the corridor, so a portal end shared by consecutive
/// portals is tested once (again only where the later portal meets more segments).
fn too_close_upto(
    mesh: &NavMesh,
    groups: &[(&[Portal], usize)],
    skip: (Option<Stop>, &[Stop]),
    path: &[Vec2],
    r: Fx,
    boxes: &mut Vec<SegmentBox>,
) -> Option<(usize, u32, bool)> {
    // Per segment: its box grown by `r` (a point outside is farther than `r`), the union of
    // those boxes up to it, a bound on `(r · length)²` rounded up, in Q64.64 after dropping
    // 32 bits of each factor (a point whose cross product with the segment, rounded down the
    // same way, squares to at least it is at least `r` from the segment's line, so from the
    // segment), and the union of the boxes from it to the path's end (filled after).
    let r_sq = (wide_mul(r, r) >> 32) + 1;
    boxes.clear();
    // A plain loop (an iterator adapter here was left out of line in some builds).
    let mut all = (Fx::MAX, Fx::MIN, Fx::MAX, Fx::MIN);
    for s in path.windows(2) {
        let (a, b) = (s[0], s[1]);
        let grown = (
            a.x.min(b.x).saturating_sub(r),
            a.x.max(b.x).saturating_add(r),
            a.y.min(b.y).saturating_sub(r),
            a.y.max(b.y).saturating_add(r),
        );
        let len_sq = ((b - a).length_squared_wide() >> 32) + 1;
        all = (
            all.0.min(grown.0),
            all.1.max(grown.1),
            all.2.min(grown.2),
            all.3.max(grown.3),
        );
        boxes.push((grown, all, len_sq.saturating_mul(r_sq), grown));
    }
    // The union of the boxes from each segment on (a point outside it is near no segment
    // from there on).
    let mut after = (Fx::MAX, Fx::MIN, Fx::MAX, Fx::MIN);
    for b in boxes.iter_mut().rev() {
        after = (
            after.0.min(b.0.0),
            after.1.max(b.0.1),
            after.2.min(b.0.2),
            after.3.max(b.0.3),
        );
        b.3 = after;
    }
    let inside =
        |b: &(Fx, Fx, Fx, Fx), v: Vec2| v.x >= b.0 && v.x <= b.1 && v.y >= b.2 && v.y <= b.3;
    // The first of segments `0..upto` that `v` is closer than `r` to, stopping once it lies
    // outside every box left.
    let first_near = |upto: usize, v: Vec2| {
        let segments = boxes[..upto].iter().zip(path.iter().zip(&path[1..]));
        for (k, ((b, _, far, after), (&a, &e))) in segments.enumerate() {
            if !inside(after, v) {
                break;
            }
            if inside(b, v)
                && {
                    let c = ((e - a).det_wide(v - a).unsigned_abs() >> 32).min(1 << 62);
                    c * c < far.unsigned_abs()
                }
                && cmp_dist_point_segment(a, e, v, r) == Ordering::Less
            {
                return Some(k);
            }
        }
        None
    };
    // Consecutive portals of a corridor often share an end on the same side (a fan of
    // triangles round a vertex): an end tested just before on that side, against at least as
    // many segments, is not tested again (the same answer; the first close end in corridor
    // order is still the one found).
    let mut last = [(u32::MAX, 0); 2];
    for &(portals, upto) in groups {
        let upto = upto.min(boxes.len());
        let Some(all) = upto.checked_sub(1).map(|k| boxes[k].1) else {
            continue;
        };
        for p in portals {
            for (vertex, left) in [(p.left, true), (p.right, false)] {
                let side = &mut last[usize::from(left)];
                if side.0 == vertex && side.1 >= upto {
                    continue;
                }
                *side = (vertex, upto);
                let v = mesh.verts[vertex as usize];
                let skipped = |s: &Stop| s.vertex == vertex && s.left() == left;
                if !inside(&all, v)
                    || skip.0.as_ref().is_some_and(skipped)
                    || skip.1.iter().any(skipped)
                {
                    continue;
                }
                if let Some(k) = first_near(upto, v) {
                    return Some((k, vertex, left));
                }
            }
        }
    }
    None
}

/// A segment's box grown by `r` (`x0, x1, y0, y1`), the union of the boxes up to it, its
/// bound on `(r · length)²` and the union of the boxes from it on ([`too_close`]).
type SegmentBox = (Bounds, Bounds, i128, Bounds);

/// A box `(x0, x1, y0, y1)`.
type Bounds = (Fx, Fx, Fx, Fx);

/// How a unit's path is made ([`Field::plan_shared`]).
pub(super) enum Shared {
    /// The goal is in sight of the start, but the funnel would repair: pull the corridor.
    Straight,
    /// To be planned on its own: the shared path would need the funnel's repair, or the
    /// radius is 0.
    Unshared,
    /// The path, appended.
    Done,
}

/// A settled triangle's way out towards the goal ([`Field::exit`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Exit {
    /// The exit portal's vertices, as a unit leaving by it sees them.
    pub(super) portal: Portal,
    /// The portal shrunk by `r` (`(left, right)`, [`funnel::shrink`]).
    pub(super) shrunk: (Vec2, Vec2),
    /// The triangle after it ([`super::super::NO_TRIANGLE`]: not made yet).
    pub(super) next: u32,
}

impl Exit {
    /// Not made yet.
    pub(super) const UNMADE: Self = Self {
        portal: Portal { left: 0, right: 0 },
        shrunk: (Vec2::ZERO, Vec2::ZERO),
        next: super::super::NO_TRIANGLE,
    };
}

impl Field {
    /// The exit of settled triangle `t` (not the goal's): its portal's vertices, as a unit
    /// leaving by it sees them, the portal shrunk by `r`, and the next triangle (kept once
    /// made).
    #[inline]
    pub(super) fn exit(&mut self, mesh: &NavMesh, t: u32) -> Exit {
        let e = self.exits[t as usize];
        if e.next != super::super::NO_TRIANGLE {
            return e;
        }
        self.make_exit(mesh, t)
    }

    #[cold]
    fn make_exit(&mut self, mesh: &NavMesh, t: u32) -> Exit {
        let ti = t as usize;
        let k = self.via[ti] as usize;
        let tri = &mesh.tris[ti];
        let v = tri.v;
        // Leaving `t` across its edge v[k] → v[k + 1]: v[k + 1] is on the left.
        let portal = Portal {
            left: v[(k + 1) % 3],
            right: v[k],
        };
        let r = self.key.radius.max(Fx::ZERO);
        let (l, rt) = (
            mesh.verts[portal.left as usize],
            mesh.verts[portal.right as usize],
        );
        // The portal's direction from left to right is edge `k`'s from its end to its start
        // (the mesh's, the same bits as `funnel::shrink` normalising it here).
        let e = Exit {
            portal,
            shrunk: funnel::shrink_along(l, rt, r, || mesh.edge_dir_back(t, k)),
            next: tri.adj[k],
        };
        self.exits[ti] = e;
        e
    }

    /// The triangle after settled triangle `t` towards the goal.
    fn next_tri(&mut self, mesh: &NavMesh, t: u32) -> u32 {
        self.exit(mesh, t).next
    }

    /// A unit's path from `start` (in `start_tri`) from the shared corners, appended to
    /// `points` ([`Shared::Done`]). Uses `work`'s corridor buffers: after
    /// [`Shared::Straight`] they hold the whole corridor (portals, their triangles, shrunk).
    pub(super) fn plan_shared(
        &mut self,
        mesh: &NavMesh,
        start: Vec2,
        start_tri: u32,
        work: &mut super::SearchWork,
        points: &mut Vec<Vec2>,
    ) -> Shared {
        work.portals.clear();
        work.portal_tris.clear();
        work.funnel.shrunk.clear();
        let Some((goal, _)) = self.goal else {
            return Shared::Unshared;
        };
        let mut funnel = StringFunnel::at(start);
        let mut t = start_tri;
        let mut corner = None;
        // The triangles and portals while walking; the shrunk portals only where the funnel
        // is run on the whole corridor.
        for _ in 0..mesh.tris.len() {
            if t == self.goal_tri {
                break;
            }
            let exit = self.exit(mesh, t);
            work.portal_tris.push(t);
            work.portals.push(exit.portal);
            corner = funnel.push(exit.shrunk.0, exit.shrunk.1);
            if corner.is_some() {
                break;
            }
            t = exit.next;
        }
        if corner.is_none() {
            if t != self.goal_tri {
                return Shared::Unshared;
            }
            corner = funnel.push_goal(goal);
        }
        let Some((at, left)) = corner else {
            // The goal in sight: `path_shrunk`'s path is the goal alone unless it repairs.
            let r = self.key.radius.max(Fx::ZERO);
            let boxes = &mut self.paths.boxes;
            if too_close(mesh, &work.portals, (None, &[]), &[start, goal], r, boxes).is_some() {
                let exits = &self.exits;
                work.funnel
                    .shrunk
                    .extend(work.portal_tris.iter().map(|&u| exits[u as usize].shrunk));
                return Shared::Straight;
            }
            points.push(goal);
            return Shared::Done;
        };
        if self.key.radius <= Fx::ZERO {
            // Without a radius the funnel's smoothing is the corners themselves: unshared.
            work.portals.clear();
            return Shared::Unshared;
        }
        let key = CornerKey {
            tri: work.portal_tris[at],
            left,
        };
        let Some(e) = self.corner_entry(mesh, key) else {
            work.portals.clear();
            return Shared::Unshared;
        };
        let r = self.key.radius.max(Fx::ZERO);
        let entry = &self.paths.entries[e];
        if !entry.clear {
            work.portals.clear();
            return Shared::Unshared;
        }
        let (stop, t_out, reach) = (entry.stop, entry.t_out, entry.reach);
        // The unit's stretch: its corridor on to the next corner's triangle. Its portals from
        // the corner's triangle (`at`) to `reach`'s are the entry's stretch (`shared`).
        let mut t = work
            .portal_tris
            .last()
            .map_or(start_tri, |&u| self.next_tri(mesh, u));
        let mut shared = None;
        if let Some(k) = work.portal_tris.iter().position(|&u| u == reach) {
            shared = Some(at..k + 1);
        } else {
            for _ in 0..mesh.tris.len() {
                if t == self.goal_tri {
                    shared = (reach == t).then_some(at..work.portals.len());
                    break;
                }
                let exit = self.exit(mesh, t);
                work.portals.push(exit.portal);
                if t == reach {
                    shared = Some(at..work.portals.len());
                    break;
                }
                t = exit.next;
            }
        }
        let memo = &mut self.paths;
        let entry = &memo.entries[e];
        let upto = (entry.next_arc + 1).min(entry.tail.len());
        // The unit's path up to the end of the arcs that begin the tail: its start, its arc at
        // the corner (from its own arrival direction), those arcs.
        let own = &mut memo.scratch;
        own.clear();
        own.push(start);
        corner_points(stop, tangent(Stop::point(start), stop), t_out, r, own);
        own.extend_from_slice(&entry.tail[..upto]);
        let skip = (Some(stop), &entry.skip[..]);
        // The entry is clear: its stretch's portal ends are farther than `r` from the path
        // between the tail's first `upto` points (its own check, the same `skip`). So the
        // stretch's portals meet only the unit's own part of the path (to the tail's first
        // point), and the portals before and after it meet the whole.
        let portals = &work.portals[..];
        let close = match shared {
            Some(range) if upto > 0 && range.start <= range.end && range.end <= portals.len() => {
                let split = own.len() - upto;
                let whole = own.len() - 1;
                let groups = [
                    (&portals[..range.start], whole),
                    (&portals[range.clone()], split),
                    (&portals[range.end..], whole),
                ];
                too_close_upto(mesh, &groups, skip, own, r, &mut memo.boxes).is_some()
            }
            _ => too_close(mesh, portals, skip, own, r, &mut memo.boxes).is_some(),
        };
        // The split test answers as the whole one (checked in every debug build's plans).
        debug_assert_eq!(
            close,
            too_close(mesh, portals, skip, own, r, &mut memo.boxes).is_some()
        );
        if close {
            work.portals.clear();
            return Shared::Unshared;
        }
        let base = points.len();
        points.reserve(own.len() - 1 + entry.tail.len() - upto);
        points.extend_from_slice(&own[1..]);
        points.extend_from_slice(&entry.tail[upto..]);
        funnel::dedup_tail(points, base);
        Shared::Done
    }

    /// The entry of corner `key`, made with the entries after it when missing.
    fn corner_entry(&mut self, mesh: &NavMesh, key: CornerKey) -> Option<usize> {
        let mut todo = Vec::new();
        let mut k = key;
        while self.paths.find(k).is_none() && todo.len() <= mesh.tris.len() {
            let (next, walked) = self.link(mesh, k);
            todo.push((k, next, walked));
            match next {
                Link::Corner(n) => k = n,
                Link::Goal => break,
            }
        }
        for (k, next, walked) in todo.into_iter().rev() {
            self.make_entry(mesh, k, next, &walked);
        }
        self.paths.find(key)
    }

    /// The corner after corner `key` (the funnel restarted at its shrunk point over the
    /// portals after its triangle), and the triangles walked: from the one after `key.tri` to
    /// the next corner's (or the goal's).
    fn link(&mut self, mesh: &NavMesh, key: CornerKey) -> (Link, Vec<u32>) {
        let (sl, sr) = self.exit(mesh, key.tri).shrunk;
        let mut funnel = StringFunnel::at(if key.left { sl } else { sr });
        let mut walked = Vec::new();
        let mut t = self.next_tri(mesh, key.tri);
        for _ in 0..mesh.tris.len() {
            walked.push(t);
            let corner = if t == self.goal_tri {
                self.goal.and_then(|(g, _)| funnel.push_goal(g))
            } else {
                let (pl, pr) = self.exit(mesh, t).shrunk;
                funnel.push(pl, pr)
            };
            if let Some((at, left)) = corner {
                walked.truncate(at + 1);
                let next = CornerKey {
                    tri: walked[at],
                    left,
                };
                return (Link::Corner(next), walked);
            }
            if t == self.goal_tri {
                break;
            }
            t = self.next_tri(mesh, t);
        }
        (Link::Goal, walked)
    }

    /// The stop of corner `key`.
    fn stop(&mut self, mesh: &NavMesh, key: CornerKey) -> Stop {
        let portal = self.exit(mesh, key.tri).portal;
        let vertex = if key.left { portal.left } else { portal.right };
        let r = self.key.radius.max(Fx::ZERO);
        Stop {
            vertex,
            centre: mesh.verts[vertex as usize],
            offset: if key.left { r } else { -r },
        }
    }

    /// Makes the entry of corner `key` from its link (whose entry exists, or the goal).
    fn make_entry(&mut self, mesh: &NavMesh, key: CornerKey, next: Link, walked: &[u32]) {
        let stop = self.stop(mesh, key);
        let after = match next {
            Link::Corner(n) => self.paths.find(n),
            Link::Goal => None,
        };
        // The stretch: the portals of the corner's triangle and of those walked to the next.
        let mut portals = Vec::with_capacity(walked.len() + 1);
        for &u in std::iter::once(&key.tri).chain(walked) {
            if u != self.goal_tri {
                portals.push(self.exit(mesh, u).portal);
            }
        }
        let entry = match after {
            // The same vertex and side again: one corner (the funnel's smoothing merges them).
            Some(n) if self.paths.entries[n].stop == stop => {
                let mut entry = self.paths.entries[n].clone();
                let r = self.key.radius.max(Fx::ZERO);
                let path = departure_path(&entry);
                let boxes = &mut self.paths.boxes;
                entry.clear = entry.clear
                    && too_close(mesh, &portals, (Some(stop), &entry.skip), &path, r, boxes)
                        .is_none();
                entry
            }
            _ => self.stretch(mesh, stop, after, next == Link::Goal, walked, &portals),
        };
        let e = self.paths.entries.len();
        self.paths.entries.push(entry);
        self.paths.slot[key.tri as usize][usize::from(key.left)] = e as u32;
    }

    /// The entry of a corner at `stop` followed by entry `after` (or the goal when
    /// `to_goal`), over the stretch `portals` (walked: the triangles after the corner's): the
    /// smoothing of the stops between, with the repair of `funnel::path_shrunk` (the first
    /// portal end closer than `r` to the path becomes a corner on its side, where the path
    /// runs past it; at most twice per portal).
    fn stretch(
        &mut self,
        mesh: &NavMesh,
        stop: Stop,
        after: Option<usize>,
        to_goal: bool,
        walked: &[u32],
        portals: &[Portal],
    ) -> Entry {
        let r = self.key.radius.max(Fx::ZERO);
        let goal = self.goal.map_or(stop.centre, |(g, _)| g);
        let (last, last_out, rest, reach, rest_clear) = match after {
            Some(n) => {
                let e = &self.paths.entries[n];
                let reach = walked.last().copied().unwrap_or(self.goal_tri);
                (e.stop, e.t_out, e.tail.clone(), reach, e.clear)
            }
            None => (Stop::point(goal), None, Vec::new(), self.goal_tri, to_goal),
        };
        // The stops after the corner, the next one (or the goal's point) last.
        let mut stops = vec![last];
        let mut clear = false;
        let mut pts = Vec::new();
        let mut t_out = None;
        for _ in 0..=2 * portals.len() {
            t_out = tangent(stop, stops[0]);
            pts.clear();
            let mut spans = Vec::with_capacity(stops.len());
            for (i, &s) in stops.iter().enumerate() {
                if s.offset == Fx::ZERO {
                    pts.push(s.centre);
                    break;
                }
                let before = if i == 0 { stop } else { stops[i - 1] };
                let out = stops.get(i + 1).map_or(last_out, |&n| tangent(s, n));
                let first = pts.len() + 1;
                corner_points(s, tangent(before, s), out, r, &mut pts);
                spans.push((first, pts.len()));
            }
            let mut path = Vec::with_capacity(pts.len() + 2);
            path.push(departure(stop, t_out));
            path.extend_from_slice(&pts);
            path.extend(rest.first().copied());
            match too_close(
                mesh,
                portals,
                (Some(stop), &stops),
                &path,
                r,
                &mut self.paths.boxes,
            ) {
                None => {
                    clear = rest_clear;
                    break;
                }
                Some((k, vertex, left)) => {
                    let at = spans.iter().take_while(|s| s.1 <= k).count();
                    if at >= stops.len() {
                        // Past the next corner: the next stretch's (not repaired here).
                        break;
                    }
                    stops.insert(
                        at,
                        Stop {
                            vertex,
                            centre: mesh.verts[vertex as usize],
                            offset: if left { r } else { -r },
                        },
                    );
                }
            }
        }
        let corners = stops.iter().filter(|s| s.offset != Fx::ZERO).count();
        let next_arc = if last.offset == Fx::ZERO {
            pts.len().saturating_sub(1)
        } else {
            pts.len()
        };
        let mut tail = pts;
        tail.extend_from_slice(&rest);
        stops.truncate(corners);
        Entry {
            stop,
            t_out,
            tail,
            skip: stops,
            next_arc,
            reach,
            clear,
        }
    }
}

/// Where the path leaves the disc of the corner `stop` in direction `t_out` (at `r` and the
/// corners' margin).
fn departure(stop: Stop, t_out: Option<Vec2>) -> Vec2 {
    t_out.map_or(stop.centre, |t| {
        let margin = if stop.left() {
            CORNER_MARGIN
        } else {
            -CORNER_MARGIN
        };
        stop.centre + right_normal(t) * stop.offset.saturating_add(margin)
    })
}

/// The path of `entry` from its corner's departure through the arcs that begin its tail and
/// on to the following point.
fn departure_path(entry: &Entry) -> Vec<Vec2> {
    let upto = (entry.next_arc + 1).min(entry.tail.len());
    let mut path = Vec::with_capacity(upto + 1);
    path.push(departure(entry.stop, entry.t_out));
    path.extend_from_slice(&entry.tail[..upto]);
    path
}

#[cfg(test)]
mod tests {
    use super::super::{Field, FieldKey};
    use crate::navigation::{NavMesh, NavParams, PathStatus, SearchWork, funnel};
    use crate::obstacle::{ObstacleSet, ObstacleShape};
    use crate::{Fx, Vec2, splitmix64};

    /// A square of side 120 with 60 rectangular buildings (2 to 7 a side), seed `seed`.
    fn town(seed: u64) -> NavMesh {
        let mut set = ObstacleSet::default();
        let mut s = seed;
        let mut next = |m: i32| {
            s = splitmix64(s);
            (s % m as u64) as i32
        };
        for _ in 0..60 {
            let (x, y, w, h) = (next(110) - 55, next(110) - 55, 2 + next(6), 2 + next(6));
            let p = |x: i32, y: i32| Vec2::from_int(x, y);
            let shape =
                ObstacleShape::Polygon(vec![p(x, y), p(x + w, y), p(x + w, y + h), p(x, y + h)]);
            set.add(shape).unwrap();
        }
        let boundary = [(-60, -60), (60, -60), (60, 60), (-60, 60)];
        let params = NavParams {
            boundary: Some(
                boundary
                    .iter()
                    .map(|&(x, y)| Vec2::from_int(x, y))
                    .collect(),
            ),
            ..NavParams::default()
        };
        NavMesh::build(&set, &params).unwrap()
    }

    /// Walkable starts on a grid of spacing 4 over the left half.
    fn starts(mesh: &NavMesh, r: Fx) -> Vec<Vec2> {
        let mut out = Vec::new();
        for y in (-56..56).step_by(4) {
            for x in (-56..0).step_by(4) {
                let p = Vec2::from_int(x, y) + Vec2::new(Fx::lit("0.37"), Fx::lit("0.21"));
                if mesh.is_walkable(p, r) {
                    out.push(p);
                }
            }
        }
        out
    }

    #[test]
    fn shared_paths_do_not_depend_on_which_unit_asked_first() {
        let mesh = town(7);
        let r = Fx::lit("0.5");
        let key = FieldKey::new(Vec2::from_int(50, 3), r);
        let starts = starts(&mesh, r);
        assert!(starts.len() > 300, "{}", starts.len());
        let mut work = SearchWork::default();
        let (mut forward, mut backward) = (Field::new(&mesh, key), Field::new(&mesh, key));
        let ahead: Vec<_> = starts
            .iter()
            .map(|&s| forward.path_from(&mesh, s, 16, &mut work))
            .collect();
        let behind: Vec<_> = starts
            .iter()
            .rev()
            .map(|&s| backward.path_from(&mesh, s, 16, &mut work))
            .collect();
        let mut shared = 0;
        for (i, (a, b)) in ahead.iter().zip(behind.iter().rev()).enumerate() {
            assert_eq!(a, b, "start {:?}", starts[i]);
            // And as a field that served nobody else (a cold cache after a restore).
            let fresh = Field::new(&mesh, key).path_from(&mesh, starts[i], 16, &mut work);
            assert_eq!(a, &fresh, "start {:?}", starts[i]);
            shared += usize::from(a.as_ref().is_some_and(|p| p.status == PathStatus::Complete));
        }
        assert!(
            shared * 10 >= starts.len() * 9,
            "{shared} of {}",
            starts.len()
        );
        // The units share few corners.
        assert!(
            forward.paths.entries.len() * 4 < starts.len(),
            "{}",
            forward.paths.entries.len()
        );
    }

    #[test]
    fn shared_paths_are_the_funnels_own_over_the_whole_corridor_where_it_needs_no_repair() {
        let mesh = town(11);
        let r = Fx::lit("0.5");
        let key = FieldKey::new(Vec2::from_int(52, -20), r);
        let mut work = SearchWork::default();
        let mut field = Field::new(&mesh, key);
        let (mut same, mut all) = (0, 0);
        for s in starts(&mesh, r) {
            let Some(path) = field.path_from(&mesh, s, 16, &mut work) else {
                continue;
            };
            let start_tri = mesh.locate(s).unwrap();
            assert!(field.walk_window(&mesh, start_tri, usize::MAX, &mut work));
            let mut whole = Vec::new();
            funnel::path_shrunk(
                &mesh.verts,
                s,
                &work.portals,
                key.goal,
                r,
                &mut work.funnel,
                &mut whole,
            );
            all += 1;
            same += usize::from(whole == path.points);
        }
        assert!(all > 300, "{all}");
        // The repair is rare, and only there may the paths differ.
        assert!(same * 10 >= all * 9, "{same} of {all}");
    }
}

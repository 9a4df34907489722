//! String pulling: a corridor of portals into a path that keeps a radius from walls.
//!
//! Two steps, both in integer arithmetic on the raw bits:
//!
//! 1. [`pull_shrunk`]: the point funnel (the "simple stupid funnel") over the corridor's portals with
//!    both ends of every portal moved inward by the radius `r`. Orientation is decided exactly
//!    by [`left_of`] on the shrunk points. It gives the corners of the string (mesh vertices
//!    with the side they are passed on) and the string's length, which the search compares
//!    (plan §2.2: the shrunk string is no longer than the corridor's true `r`-clear optimum).
//! 2. [`smooth`]: the string around discs of radius `r` at the corners. Consecutive discs (and
//!    the end points) are joined by their common tangents, and each disc's arc between its
//!    arrival and departure tangents is replaced by the circumscribed polygon with at most 45°
//!    per edge (one miter point per piece, at `r / cos(piece / 2)` from the vertex, so
//!    about `1.08 r` at 45° and `1.125 r` at 54°). Every segment of the result keeps `r` from
//!    the corner vertices up to rounding (a few ulps, covered by [`CORNER_MARGIN`]), and the
//!    tangent between two corners on one wall runs parallel to it at `r`.
//!
//! Exact circle-to-circle tangents would need nested square roots, so the tangents are rounded
//! (deterministically: one integer square root and one division each).

use crate::geom::{cmp_dist_point_segment, left_of, ratio, wide};
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};

/// How far past `r` the corner points are placed, in ulps: absorbs the rounding of the unit
/// vectors and of the miter distance (each a few ulps), so the pushed path keeps `r`.
pub(crate) const CORNER_MARGIN: Fx = Fx::from_bits(64);

/// `cos 45°` in [`Fx`], rounded down: an arc piece up to this angle gets one miter point.
const COS_45: Fx = Fx::from_bits(3_037_000_499);

/// Most halvings of one corner's turn (a turn below 360° ends in pieces of at most 45°).
const MAX_SPLIT_DEPTH: u32 = 3;

/// One portal of a corridor, as seen in the direction of travel: the mesh vertices at its left
/// and right ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Portal {
    /// Vertex index of the left end.
    pub left: u32,
    /// Vertex index of the right end.
    pub right: u32,
}

/// A corner of the pulled string: the mesh vertex it bends around and on which side of the
/// path that vertex is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Corner {
    /// Mesh vertex index.
    pub vertex: u32,
    /// `true` when the vertex is on the path's left (the path turns left around it).
    pub left: bool,
    /// The portal (index in the corridor) the corner was found at: corners are in its order.
    pub portal: u32,
}

/// Scratch buffers of the funnel (reused; workspace, never state).
#[derive(Clone, Debug, Default)]
pub(crate) struct FunnelWork {
    /// The shrunk portals `(left, right)`.
    pub shrunk: Vec<(Vec2, Vec2)>,
    /// The corners of the last [`pull_shrunk`].
    pub corners: Vec<Corner>,
    /// Per corner, the range of its points in the smoothed path (start at 0).
    spans: Vec<(usize, usize)>,
    /// Per segment of the smoothed path (from the start), its bounding box grown by `r`.
    boxes: Vec<GrownBox>,
}

/// Distance between two points, floored, as raw Q32.32 bits.
#[inline]
pub(crate) fn dist_raw(a: Vec2, b: Vec2) -> u64 {
    sqrt_wide((b - a).length_squared_wide())
        .to_bits()
        .unsigned_abs()
}

/// A portal's ends moved towards each other by `r` each. A portal shorter than `2r` (which the
/// search's clearance rules never let through, up to rounding) collapses to its midpoint.
pub(crate) fn shrink(left: Vec2, right: Vec2, r: Fx) -> (Vec2, Vec2) {
    shrink_along(left, right, r, || (right - left).normalize_or_zero())
}

/// [`shrink`] with the portal's unit direction (left to right) given by `unit` (asked only when
/// the portal is shrunk, not collapsed): the search passes the mesh's precomputed edge
/// direction, the same bits as the normalisation here.
pub(crate) fn shrink_along(
    left: Vec2,
    right: Vec2,
    r: Fx,
    unit: impl FnOnce() -> Vec2,
) -> (Vec2, Vec2) {
    if r <= Fx::ZERO {
        return (left, right);
    }
    let span = right - left;
    let two_r = r.saturating_mul_int(2);
    if span.length_squared_wide() <= wide_mul(two_r, two_r) {
        let mid = left + span.half();
        return (mid, mid);
    }
    let step = unit() * r;
    (left + step, right - step)
}

/// Writes every portal shrunk by `r` ([`shrink`]) to `work.shrunk`.
#[cfg(test)]
fn shrink_all(verts: &[Vec2], portals: &[Portal], r: Fx, work: &mut FunnelWork) {
    work.shrunk.clear();
    for p in portals {
        let (l, rt) = (verts[p.left as usize], verts[p.right as usize]);
        work.shrunk.push(shrink(l, rt, r));
    }
}

/// [`pull_shrunk`] shrinking the portals first (tests).
#[cfg(test)]
pub(crate) fn pull(
    verts: &[Vec2],
    start: Vec2,
    portals: &[Portal],
    goal: Vec2,
    r: Fx,
    work: &mut FunnelWork,
) -> u64 {
    shrink_all(verts, portals, r, work);
    pull_shrunk(start, portals, goal, work)
}

/// Pulls the string from `start` through `portals` to `goal`, the portals already shrunk in
/// `work.shrunk` (one per portal, each [`shrink`]`(left, right, r)` bit for bit: the search and
/// the fields keep them, so no portal is normalised again). Writes the corners to
/// `work.corners` and returns the string's length (raw Q32.32, each segment floored).
///
/// The funnel is restarted from each new apex (worst case quadratic in the portal count, linear
/// in practice). Every restart moves the apex strictly forward, so it always ends.
pub(crate) fn pull_shrunk(
    start: Vec2,
    portals: &[Portal],
    goal: Vec2,
    work: &mut FunnelWork,
) -> u64 {
    debug_assert_eq!(work.shrunk.len(), portals.len());
    work.corners.clear();
    let n = portals.len();
    // Index 0 is the start, 1..=n the portals, n + 1 the goal (a portal of one point).
    let point = |i: usize, left: bool| -> Vec2 {
        match i {
            0 => start,
            i if i > n => goal,
            i => {
                let (l, rt) = work.shrunk[i - 1];
                if left { l } else { rt }
            }
        }
    };
    let (mut apex, mut apex_i) = (start, 0usize);
    let (mut left, mut left_i) = (start, 0usize);
    let (mut right, mut right_i) = (start, 0usize);
    let mut last = start;
    let mut length = 0u64;
    let mut corners = std::mem::take(&mut work.corners);
    let mut i = 1usize;
    while i <= n + 1 {
        let (pl, pr) = (point(i, true), point(i, false));
        // Which side turns into a corner, if any.
        let mut corner_left = None;
        // The right side: tighten when the new right point is inside the funnel.
        if left_of(apex, right, pr) >= 0 {
            if apex == right || left_of(apex, left, pr) < 0 || left_i == apex_i {
                (right, right_i) = (pr, i);
                if i == n + 1 {
                    // The goal is inside the funnel: straight on from the apex.
                    break;
                }
            } else {
                // The right side crossed the left one: the left point is a corner.
                corner_left = Some(true);
            }
        }
        // The left side, symmetrically.
        if corner_left.is_none() && left_of(apex, left, pl) <= 0 {
            if apex == left || left_of(apex, right, pl) > 0 || right_i == apex_i {
                (left, left_i) = (pl, i);
            } else {
                corner_left = Some(false);
            }
        }
        let Some(on_left) = corner_left else {
            i += 1;
            continue;
        };
        let (p, at) = if on_left {
            (left, left_i)
        } else {
            (right, right_i)
        };
        length = length.saturating_add(dist_raw(last, p));
        last = p;
        let portal = &portals[at - 1];
        corners.push(Corner {
            vertex: if on_left { portal.left } else { portal.right },
            left: on_left,
            portal: (at - 1) as u32,
        });
        // Restart the funnel from the new apex.
        (apex, apex_i) = (p, at);
        (left, left_i) = (apex, apex_i);
        (right, right_i) = (apex, apex_i);
        i = apex_i + 1;
    }
    work.corners = corners;
    length.saturating_add(dist_raw(last, goal))
}

/// The funnel of a search node, kept incrementally: the string's last corner (`apex`), its
/// length from the start (`g`), and the funnel's left and right points. [`Cone::step`] adds
/// one shrunk portal in constant time; after a corner the funnel restarts at that portal (wider
/// than the true funnel, so distances through it stay lower bounds in practice). It gives the
/// search a far tighter `g` than Demyen's bounds, so that the K expansions of an entry go to the
/// corridors that are really short.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cone {
    /// The string's last corner.
    pub apex: Vec2,
    left: Vec2,
    right: Vec2,
    /// Length of the string from the start to `apex` (raw Q32.32).
    pub g: u64,
}

impl Cone {
    /// The cone at the start.
    pub(crate) fn at(start: Vec2) -> Self {
        Self {
            apex: start,
            left: start,
            right: start,
            g: 0,
        }
    }

    /// The cone after the shrunk portal `(pl, pr)` (left and right ends).
    #[inline(always)]
    pub(crate) fn step(self, pl: Vec2, pr: Vec2) -> Self {
        let Self {
            apex,
            mut left,
            mut right,
            g,
        } = self;
        if apex == right || left_of(apex, right, pr) >= 0 {
            if apex == left || left_of(apex, left, pr) < 0 {
                right = pr;
            } else {
                return Self::corner(left, g.saturating_add(dist_raw(apex, left)), pl, pr);
            }
        }
        if apex == left || left_of(apex, left, pl) <= 0 {
            if apex == right || left_of(apex, right, pl) > 0 {
                left = pl;
            } else {
                return Self::corner(right, g.saturating_add(dist_raw(apex, right)), pl, pr);
            }
        }
        Self {
            apex,
            left,
            right,
            g,
        }
    }

    fn corner(apex: Vec2, g: u64, pl: Vec2, pr: Vec2) -> Self {
        Self {
            apex,
            left: pl,
            right: pr,
            g,
        }
    }
}

/// One stop of the string: a point (the start or the goal) or a disc of radius `r` at a
/// corner vertex, passed on a given side.
#[derive(Clone, Copy, Debug)]
struct Stop {
    centre: Vec2,
    /// Signed offset of the path from the centre along the right normal of the travel
    /// direction: `+r` for a vertex on the left, `−r` on the right, 0 for a point.
    offset: Fx,
}

/// The unit direction of the common tangent from stop `a` to stop `b` (with `offset`s as in
/// [`Stop`]): [`tangent_between`] of their centres and offsets.
fn tangent(a: Stop, b: Stop) -> Option<Vec2> {
    tangent_between((a.centre, a.offset), (b.centre, b.offset))
}

/// The unit direction of the common tangent from the disc `a = (centre, offset)` to `b`
/// (`offset`: the signed offset of the path from the centre along the right normal of the
/// travel direction, `+r` for a vertex on the left, `−r` on the right, 0 for a point): `t`
/// such that `rn(t) · (b − a) = a.offset − b.offset`, where `rn` is the right normal. `None`
/// when the centres coincide.
pub(crate) fn tangent_between(a: (Vec2, Fx), b: (Vec2, Fx)) -> Option<Vec2> {
    let d = b.0 - a.0;
    let len_sq = d.length_squared_wide();
    if len_sq <= 0 {
        return None;
    }
    let delta = a.1.saturating_sub(b.1);
    // With d = L·d̂ and sin α = Δ / L: t = (d·√(L² − Δ²) + Δ·perp(d)) / L².
    let q = sqrt_wide(len_sq - wide_mul(delta, delta));
    let tx = wide_mul(d.x, q) - wide_mul(delta, d.y);
    let ty = wide_mul(d.y, q) + wide_mul(delta, d.x);
    Some(Vec2::new(ratio(tx, len_sq), ratio(ty, len_sq)))
}

/// The right normal of a direction.
#[inline]
pub(crate) fn right_normal(t: Vec2) -> Vec2 {
    Vec2::new(t.y, -t.x)
}

/// Appends the circumscribed polygon around `centre` (radius `r`) from the unit normal `a` to
/// `b`, turning counter-clockwise when `ccw`: one miter point per piece of at most 45°.
pub(crate) fn arc(
    centre: Vec2,
    a: Vec2,
    b: Vec2,
    ccw: bool,
    r: Fx,
    depth: u32,
    out: &mut Vec<Vec2>,
) {
    let cross = a.det_wide(b);
    let turn = if ccw { cross } else { -cross };
    let dot = a.dot_wide(b);
    let small = turn >= 0 && dot >= wide(COS_45);
    // A slightly negative turn (the disc is only grazed) also gets its single miter point.
    let grazed = turn < 0 && dot > 0;
    if small || grazed || depth >= MAX_SPLIT_DEPTH {
        miter(centre, a, b, r, out);
        return;
    }
    let sum = a + b;
    let mid = if sum.length_squared_wide() <= wide(Fx::from_bits(1 << 16)) {
        // Half a turn: the middle normal is a quarter turn from `a`.
        if ccw { a.perp() } else { -a.perp() }
    } else if turn > 0 {
        sum.normalize_or_zero()
    } else {
        -sum.normalize_or_zero()
    };
    arc(centre, a, mid, ccw, r, depth + 1, out);
    arc(centre, mid, b, ccw, r, depth + 1, out);
}

/// The point where the tangents to the circle of radius `r` (plus [`CORNER_MARGIN`]) at unit
/// normals `a` and `b` meet: `centre + (a + b) · 2r / |a + b|²`. Normals more than about 150°
/// apart (never produced by [`arc`]'s pieces) give the two tangent points instead.
pub(crate) fn miter(centre: Vec2, a: Vec2, b: Vec2, r: Fx, out: &mut Vec<Vec2>) {
    let r = r.saturating_add(CORNER_MARGIN);
    let sum = a + b;
    let sum_sq = sum.length_squared_wide();
    if sum_sq < wide(Fx::from_bits(1 << 30)) {
        out.push(centre + a * r);
        out.push(centre + b * r);
        return;
    }
    let scale = ratio(2 * wide(r), sum_sq);
    out.push(centre + sum * scale);
}

/// The waypoints of the string `start → corners → goal` pushed out to keep `r` from each
/// corner vertex (see the [module docs](self)), appended to `out`: the corner points, then
/// `goal`. Consecutive corners at the same vertex and side are merged. `spans[i]` is the range
/// of corner `i`'s points, counted from the start at 0.
fn smooth(
    verts: &[Vec2],
    start: Vec2,
    corners: &[Corner],
    goal: Vec2,
    r: Fx,
    out: &mut Vec<Vec2>,
    spans: &mut Vec<(usize, usize)>,
) {
    spans.clear();
    let first = out.len();
    if r <= Fx::ZERO {
        for (i, c) in corners.iter().enumerate() {
            out.push(verts[c.vertex as usize]);
            spans.push((i + 1, i + 1));
        }
        out.push(goal);
        return;
    }
    let stop_of = |c: &Corner| Stop {
        centre: verts[c.vertex as usize],
        offset: if c.left { r } else { -r },
    };
    let point = |p: Vec2| Stop {
        centre: p,
        offset: Fx::ZERO,
    };
    let mut prev = point(start);
    let mut arrival: Option<Vec2> = None;
    let mut k = 0;
    while k < corners.len() {
        let c = corners[k];
        // Merge runs of the same corner.
        let mut next_k = k + 1;
        while next_k < corners.len()
            && (corners[next_k].vertex, corners[next_k].left) == (c.vertex, c.left)
        {
            next_k += 1;
        }
        let arc_first = out.len() - first + 1;
        let here = stop_of(&c);
        let next = corners.get(next_k).map_or(point(goal), stop_of);
        let t_in = arrival.or_else(|| tangent(prev, here));
        let t_out = tangent(here, next);
        let sign = if c.left { Fx::ONE } else { -Fx::ONE };
        match (t_in, t_out) {
            (Some(ti), Some(to)) => {
                let (a, b) = (right_normal(ti) * sign, right_normal(to) * sign);
                arc(here.centre, a, b, c.left, r, 0, out);
            }
            (Some(t), None) | (None, Some(t)) => miter(
                here.centre,
                right_normal(t) * sign,
                right_normal(t) * sign,
                r,
                out,
            ),
            (None, None) => out.push(here.centre),
        }
        let arc_last = out.len() - first;
        spans.extend((k..next_k).map(|_| (arc_first, arc_last)));
        arrival = t_out;
        prev = here;
        k = next_k;
    }
    out.push(goal);
}

/// [`path_shrunk`] shrinking the portals first (tests).
#[cfg(test)]
pub(crate) fn path(
    verts: &[Vec2],
    start: Vec2,
    portals: &[Portal],
    goal: Vec2,
    r: Fx,
    work: &mut FunnelWork,
    out: &mut Vec<Vec2>,
) {
    shrink_all(verts, portals, r, work);
    path_shrunk(verts, start, portals, goal, r, work, out);
}

/// The path through `portals` from `start` to `goal` for radius `r`, appended to `out` (the
/// points after the start), the portals already shrunk in `work.shrunk` (as [`pull_shrunk`]):
/// [`pull_shrunk`], then [`smooth`], then a repair. The shrunk funnel keeps `r` from each
/// portal end *along the portal*, so a string crossing a portal at a slant may pass a vertex
/// closer than `r`; each such vertex (exact test, first in corridor order) is made a corner on
/// its side and the string is smoothed again, at most once per portal end.
pub(crate) fn path_shrunk(
    verts: &[Vec2],
    start: Vec2,
    portals: &[Portal],
    goal: Vec2,
    r: Fx,
    work: &mut FunnelWork,
    out: &mut Vec<Vec2>,
) {
    pull_shrunk(start, portals, goal, work);
    path_pulled(verts, start, portals, goal, r, work, out);
}

/// [`path_shrunk`] with the string already pulled: `work.corners` holds what
/// [`pull_shrunk`]`(start, portals, goal, work)` left there (the search keeps the corners of
/// the last corridor it pulled, usually the one it returns).
pub(crate) fn path_pulled(
    verts: &[Vec2],
    start: Vec2,
    portals: &[Portal],
    goal: Vec2,
    r: Fx,
    work: &mut FunnelWork,
    out: &mut Vec<Vec2>,
) {
    let base = out.len();
    for _ in 0..=2 * portals.len() {
        out.truncate(base);
        smooth(verts, start, &work.corners, goal, r, out, &mut work.spans);
        if r <= Fx::ZERO {
            break;
        }
        grown_boxes(start, &out[base..], r, &mut work.boxes);
        match too_close(verts, start, portals, work, &out[base..], r) {
            Some((at, corner)) => work.corners.insert(at, corner),
            None => break,
        }
    }
    dedup_tail(out, base);
}

/// The first portal end (in corridor order, left before right) that is not a corner and lies
/// closer than `r` to the stretch of `points` between the corners around it: where to insert it
/// in the corner list, and the corner.
fn too_close(
    verts: &[Vec2],
    start: Vec2,
    portals: &[Portal],
    work: &FunnelWork,
    points: &[Vec2],
    r: Fx,
) -> Option<(usize, Corner)> {
    let corners = &work.corners;
    let at = |i: usize| if i == 0 { start } else { points[i - 1] };
    let mut next = 0;
    for (i, p) in portals.iter().enumerate() {
        while next < corners.len() && corners[next].portal as usize <= i {
            next += 1;
        }
        // The stretch from two corners before this portal to one after it (a corner's portal
        // is the last of its fan, so the path may pass this portal's ends one corner early).
        let from = next.checked_sub(2).map_or(0, |c| work.spans[c].0);
        let to = work.spans.get(next + 1).map_or(points.len(), |s| s.1);
        for (vertex, left) in [(p.left, true), (p.right, false)] {
            if corners.iter().any(|c| c.vertex == vertex && c.left == left) {
                continue;
            }
            let v = verts[vertex as usize];
            let close = (from..to).find(|&k| {
                work.boxes[k].holds(v)
                    && cmp_dist_point_segment(at(k), at(k + 1), v, r) == std::cmp::Ordering::Less
            });
            if let Some(k) = close {
                // Insert it among the corners where the segment it is close to runs.
                let at = work.spans.iter().take_while(|s| s.1 <= k).count();
                let corner = Corner {
                    vertex,
                    left,
                    portal: i as u32,
                };
                return Some((at, corner));
            }
        }
    }
    None
}

/// The bounding box of a segment grown by `r` (saturating): a point outside it is farther than
/// `r` from the segment, a cheap exact pre-test.
#[derive(Clone, Copy, Debug)]
struct GrownBox {
    lo: Vec2,
    hi: Vec2,
}

impl GrownBox {
    /// The box of the segment `a b` grown by `r`.
    fn of(a: Vec2, b: Vec2, r: Fx) -> Self {
        Self {
            lo: Vec2::new(
                a.x.min(b.x).saturating_sub(r),
                a.y.min(b.y).saturating_sub(r),
            ),
            hi: Vec2::new(
                a.x.max(b.x).saturating_add(r),
                a.y.max(b.y).saturating_add(r),
            ),
        }
    }

    /// Whether `v` lies in the box (borders included).
    #[inline]
    fn holds(self, v: Vec2) -> bool {
        v.x >= self.lo.x && v.x <= self.hi.x && v.y >= self.lo.y && v.y <= self.hi.y
    }
}

/// Writes the grown box of every segment of `start → points` to `boxes` (segment `k` from the
/// `k`-th point, the start counted as 0), once per smoothing instead of once per portal end.
fn grown_boxes(start: Vec2, points: &[Vec2], r: Fx, boxes: &mut Vec<GrownBox>) {
    boxes.clear();
    let mut prev = start;
    for &p in points {
        boxes.push(GrownBox::of(prev, p, r));
        prev = p;
    }
}

/// Removes consecutive duplicates from `out[first..]`, in place.
pub(crate) fn dedup_tail(out: &mut Vec<Vec2>, first: usize) {
    let mut kept = first;
    for i in first..out.len() {
        if kept == first || out[kept - 1] != out[i] {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::from_f64(x, y).unwrap()
    }

    #[test]
    fn straight_corridor_has_no_corner() {
        let verts = [v(0.0, 1.0), v(0.0, -1.0), v(2.0, 1.0), v(2.0, -1.0)];
        let portals = [Portal { left: 0, right: 1 }, Portal { left: 2, right: 3 }];
        let mut w = FunnelWork::default();
        let len = pull(
            &verts,
            v(-1.0, 0.0),
            &portals,
            v(3.0, 0.0),
            Fx::lit("0.5"),
            &mut w,
        );
        assert!(w.corners.is_empty());
        assert_eq!(len, dist_raw(v(-1.0, 0.0), v(3.0, 0.0)));
    }

    #[test]
    fn bend_gives_a_corner_on_its_side_and_keeps_the_radius() {
        // Around the vertex (0, 0) on the left: from (-3, -1) to (1, 3) through the portal
        // from (0, 0) to (0, -4) (left to right, travelling +x).
        let verts = [v(0.0, 0.0), v(0.0, -4.0)];
        let portals = [Portal { left: 0, right: 1 }];
        let (start, goal, r) = (v(-3.0, -1.5), v(1.0, 3.0), Fx::lit("0.5"));
        let mut w = FunnelWork::default();
        let len = pull(&verts, start, &portals, goal, r, &mut w);
        assert_eq!(
            w.corners,
            [Corner {
                vertex: 0,
                left: true,
                portal: 0,
            }]
        );
        let direct = dist_raw(start, goal);
        assert!(len > direct);
        let mut out = Vec::new();
        path(&verts, start, &portals, goal, r, &mut w, &mut out);
        assert_eq!(*out.last().unwrap(), goal);
        // Every segment keeps 0.5 from the corner.
        let mut prev = start;
        for &p in &out {
            let d = crate::geom::cmp_dist_point_segment(prev, p, verts[0], r);
            assert_ne!(d, std::cmp::Ordering::Less, "segment {prev:?} -> {p:?}");
            prev = p;
        }
    }
}

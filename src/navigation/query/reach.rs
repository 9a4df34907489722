//! The queries that move a disc: the nearest walkable point and the raycast with a radius.

use super::super::{NO_TRIANGLE, NavMesh};
use crate::geom::{
    LineBand, cmp_dist_point_segment, cmp_dist_segment_segment, dist_sq_point_segment, left_of,
};
use crate::math::{Fx, Vec2};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// The result of [`NavMesh::raycast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayHit {
    /// Whether a disc of the radius moves from `from` to `to` without touching a wall.
    pub clear: bool,
    /// Where the disc's centre stops (`to` when clear).
    pub hit: Vec2,
}

/// Most triangles [`NavMesh::nearest_walkable`] visits.
pub(super) const MAX_NEAREST_TRIANGLES: usize = 4096;
/// Push-outs [`NavMesh::nearest_walkable`] tries per candidate before giving it up.
pub(super) const MAX_REPAIRS: usize = 4;
/// Most triangles [`NavMesh::in_plain_sight_from`]'s walk along the segment enters before
/// it leaves the answer to the full search.
const WALK_STEPS: usize = 64;

/// Whether `p` lies where [`crate::geom`] is exact (`|x|, |y| ≤ 2²⁹`); queries refuse other
/// points (no overflow on hostile input).
pub(super) fn in_exact_range(p: Vec2) -> bool {
    let m = crate::geom::MAX_EXACT_COORD;
    p.x >= -m && p.x <= m && p.y >= -m && p.y <= m
}

/// The point at fraction `t / 2³²` of the way from `from` to `to`, rounded toward −∞.
fn lerp(from: Vec2, to: Vec2, t: u64) -> Vec2 {
    let at = |a: Fx, b: Fx| {
        let d = i128::from(b.to_bits()) - i128::from(a.to_bits());
        Fx::from_bits(a.to_bits() + ((d * i128::from(t)) >> 32) as i64)
    };
    Vec2::new(at(from.x, to.x), at(from.y, to.y))
}

/// `num / den` as a fraction of 2³², clamped to `0 ..= 2³²` (`den ≠ 0`).
fn fraction(num: i128, den: i128) -> u64 {
    let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
    if num <= 0 {
        return 0;
    }
    if num >= den {
        return 1 << 32;
    }
    let k = (128 - den.leading_zeros()).saturating_sub(94);
    ((((num >> k) << 32) / (den >> k).max(1)) as u64).min(1 << 32)
}

/// The point at distance about `s` (at least `s` up to rounding) from `q` along `dir`.
pub(super) fn push(q: Vec2, dir: Vec2, s: Fx) -> Option<Vec2> {
    dir.try_normalize().map(|u| q + u * s)
}

/// A normal of `a b` pointing to `x`'s side.
pub(super) fn side_normal(a: Vec2, b: Vec2, x: Vec2) -> Vec2 {
    let e = b - a;
    if crate::geom::left_of(a, b, x) > 0 {
        e.perp()
    } else {
        -e.perp()
    }
}

/// `|det|` of two unit normals below which [`offset_corner`] calls the walls nearly parallel
/// (1/16; a constant, so it is not parsed on every call).
const NEARLY_PARALLEL: Fx = Fx::from_bits(1 << 28);

/// The point at distance `s` from the lines of two walls, each on its side (the side of the
/// third point), or `None` when the walls are nearly parallel. Relative to the first wall's
/// end, so translation invariant; rounded (callers check the result exactly).
pub(super) fn offset_corner(w1: (Vec2, Vec2, Vec2), w2: (Vec2, Vec2, Vec2), s: Fx) -> Option<Vec2> {
    let n1 = side_normal(w1.0, w1.1, w1.2).try_normalize()?;
    let n2 = side_normal(w2.0, w2.1, w2.2).try_normalize()?;
    let det = n1.det(n2);
    if det.abs() < NEARLY_PARALLEL {
        return None;
    }
    // n1·y = s, n2·y = n2·(a2 − a1) + s, with y = x − a1.
    let h2 = n2.dot(w2.0 - w1.0).checked_add(s)?;
    let x = s
        .checked_mul(n2.y)?
        .checked_sub(h2.checked_mul(n1.y)?)?
        .checked_div(det)?;
    let y =
        n1.x.checked_mul(h2)?
            .checked_sub(n2.x.checked_mul(s)?)?
            .checked_div(det)?;
    Some(w1.0 + Vec2::new(x, y))
}

/// The nearest point of the segment `a b` to `p` (rounded).
pub(super) fn closest_on_segment(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let e = b - a;
    let s = (p - a).dot_wide(e);
    let len = e.length_squared_wide();
    if s <= 0 || len == 0 {
        a
    } else if s >= len {
        b
    } else {
        lerp(a, b, fraction(s, len))
    }
}

impl NavMesh {
    /// The plain form of [`nearest_walkable`](Self::nearest_walkable), its oracle in tests:
    /// every candidate of every wall near `p` is repaired and checked, and the nearest wins.
    ///
    /// The search visits the triangles around `p` in order of distance (at most 4,096, stopping
    /// once no closer candidate can exist). For each wall bordering a walkable triangle it
    /// tries the point `r` (plus a margin of `r / 2²⁰ + 16` ulps that absorbs the rounding of
    /// the push) off the wall's nearest point to `p` and off its two ends, on the walkable side;
    /// a candidate that still touches a wall is pushed off that wall's nearest point, up to four
    /// times. Every candidate is checked with the exact [`is_walkable`](Self::is_walkable), and
    /// the one nearest to `p` (exact squared distance, ties by `(x, y)`) wins. Deterministic:
    /// it depends on the mesh, `p` and `r` only. `None` for an empty mesh or a `p` outside
    /// `|x|, |y| ≤ 2²⁹` (where exact geometry ends).
    #[must_use]
    pub fn nearest_walkable_plain(&self, p: Vec2, r: Fx) -> Option<Vec2> {
        if self.tris.is_empty() || !in_exact_range(p) {
            return None;
        }
        if self.is_walkable(p, r) {
            return Some(p);
        }
        let r = r.max(Fx::ZERO);
        let margin = Fx::from_bits((r.to_bits() >> 20) + 16);
        let start = self
            .locate(p)
            .unwrap_or_else(|| self.nearest_vertex_triangle(p));
        let mut best: Option<(i128, (i64, i64), Vec2)> = None;
        let mut heap = BinaryHeap::from([Reverse((0i128, start))]);
        let mut seen = super::Visited::of(start);
        let mut visited = 0usize;
        while let Some(Reverse((d, t))) = heap.pop() {
            visited += 1;
            if visited > MAX_NEAREST_TRIANGLES {
                break;
            }
            // Candidates from a wall at distance ≥ √d lie at least √d − r − margin from p.
            if let Some((bd, _, _)) = best {
                let reach = crate::math::sqrt_wide(d) - r - margin;
                if reach > Fx::ZERO && crate::math::wide_mul(reach, reach) > bd {
                    break;
                }
            }
            let tri = self.tris[t as usize];
            for k in 0..3 {
                let (a, b) = self.edge(t, k);
                let n = tri.adj[k];
                if tri.wall[k]
                    && let Some(x) = self.walkable_side(t, k)
                {
                    self.wall_candidates(p, r + margin, (a, b), x, &mut best);
                }
                if n != NO_TRIANGLE && seen.insert(n) {
                    heap.push(Reverse((self.dist_sq_triangle(n, p), n)));
                }
            }
        }
        best.map(|(_, _, c)| c)
    }

    /// The triangle holding the point of the mesh's bounding box nearest to `p` (for a `p`
    /// outside the mesh).
    pub(super) fn nearest_vertex_triangle(&self, p: Vec2) -> u32 {
        // The seed grid keeps the vertices' bounding box (no scan of the vertices per call).
        let (lo, hi) = self.seeds.bounds();
        let (lo, hi) = (Vec2::from_bits(lo.0, lo.1), Vec2::from_bits(hi.0, hi.1));
        let q = Vec2::new(p.x.clamp(lo.x, hi.x), p.y.clamp(lo.y, hi.y));
        self.locate(q).unwrap_or(0)
    }

    /// The squared distance from `p` to triangle `t` (zero inside), from its edges' rounded
    /// distances: a lower bound of every point of the triangle's distance, up to that rounding.
    pub(super) fn dist_sq_triangle(&self, t: u32, p: Vec2) -> i128 {
        let [a, b, c] = self.corners(t);
        let l = |u: Vec2, w: Vec2| crate::geom::left_of(u, w, p) >= 0;
        if l(a, b) && l(b, c) && l(c, a) {
            return 0;
        }
        (0..3)
            .map(|k| {
                let (u, w) = self.edge(t, k);
                dist_sq_point_segment(u, w, p)
            })
            .min()
            .unwrap_or(0)
    }

    /// A point on the walkable side of wall `k` of triangle `t` (the third vertex of the
    /// walkable triangle beside it), `None` when neither side is walkable.
    pub(super) fn walkable_side(&self, t: u32, k: usize) -> Option<Vec2> {
        let tri = &self.tris[t as usize];
        if tri.walkable {
            return Some(self.verts[tri.v[(k + 2) % 3] as usize]);
        }
        let n = tri.adj[k];
        if n == NO_TRIANGLE || !self.tris[n as usize].walkable {
            return None;
        }
        let (a, b) = (tri.v[k], tri.v[(k + 1) % 3]);
        let tn = &self.tris[n as usize];
        tn.v.iter()
            .find(|&&x| x != a && x != b)
            .map(|&x| self.verts[x as usize])
    }

    /// Tries the candidates off wall `a b` (the walkable side is `x`'s) and keeps the best.
    fn wall_candidates(
        &self,
        p: Vec2,
        s: Fx,
        (a, b): (Vec2, Vec2),
        x: Vec2,
        best: &mut Option<(i128, (i64, i64), Vec2)>,
    ) {
        let normal = side_normal(a, b, x);
        let q = closest_on_segment(a, b, p);
        // Each start is tried with corner repairs, then without them when a corner repair
        // was used (without one the two tries are the same).
        let mut cornered = false;
        for ((base, dir), corners) in [
            (q, normal),
            (a, normal),
            (b, normal),
            (a, p - a),
            (b, p - b),
        ]
        .into_iter()
        .flat_map(|c| [(c, true), (c, false)])
        {
            if corners {
                cornered = false;
            } else if !cornered {
                continue;
            }
            let Some(mut c) = push(base, dir, s) else {
                continue;
            };
            let r = s - Fx::from_bits((s.to_bits() >> 20) + 16).min(s);
            let mut ok = false;
            let mut last = (a, b, x);
            for _ in 0..=MAX_REPAIRS {
                let Some(t) = self.locate(c) else { break };
                let walkable = self.tris[t as usize].walkable;
                match self.first_wall_within(c, r, t) {
                    None => {
                        ok = walkable;
                        break;
                    }
                    Some((u, k)) => {
                        // Off that wall's nearest point to its walkable side (along its normal
                        // when the candidate lies on it).
                        let Some(third) = self.walkable_side(u, k) else {
                            break;
                        };
                        let (wa, wb) = self.edge(u, k);
                        let wq = closest_on_segment(wa, wb, c);
                        let normal = side_normal(wa, wb, third);
                        let away = if c == wq || (c - wq).dot_wide(normal) < 0 {
                            normal
                        } else {
                            c - wq
                        };
                        // In a corner: the point `s` off both walls' lines, else off this one.
                        let corner = offset_corner(last, (wa, wb, third), s).filter(|_| corners);
                        cornered |= corner.is_some();
                        last = (wa, wb, third);
                        match corner.or_else(|| push(wq, away, s)) {
                            Some(next) => c = next,
                            None => break,
                        }
                    }
                }
            }
            if ok {
                let key = (
                    (c - p).length_squared_wide(),
                    (c.x.to_bits(), c.y.to_bits()),
                );
                if best.is_none_or(|(d, xy, _)| key < (d, xy)) {
                    *best = Some((key.0, key.1, c));
                }
            }
        }
    }

    /// Moves a disc of radius `r` from `from` towards `to` and stops at the first wall.
    ///
    /// `clear` is true when the disc reaches `to` without coming closer than `r` to any wall
    /// (exact tests against every wall near the swept segment; a zero radius counts as one
    /// ulp, so a point ray stops at walls it touches). Otherwise `hit` is the last point found,
    /// by bisection on a 2⁻³² fraction of the segment, where the disc still keeps `r` from
    /// every wall (checked exactly); it is `from` when the disc at `from` is not walkable (or
    /// `to` lies outside `|x|, |y| ≤ 2²⁹`, where exact geometry ends).
    #[must_use]
    pub fn raycast(&self, from: Vec2, to: Vec2, r: Fx) -> RayHit {
        let stop = RayHit {
            clear: false,
            hit: from,
        };
        let r = r.max(Fx::DELTA);
        if !in_exact_range(to) {
            return stop;
        }
        let Some(t0) = self.locate(from) else {
            return stop;
        };
        if !self.tris[t0 as usize].walkable || self.first_wall_within(from, r, t0).is_some() {
            return stop;
        }
        let walls = self.walls_near_segment(from, to, r, t0, false);
        if walls.is_empty() {
            return RayHit {
                clear: true,
                hit: to,
            };
        }
        let touches =
            |c: Vec2, w: &(Vec2, Vec2)| cmp_dist_point_segment(w.0, w.1, c, r) == Ordering::Less;
        let mut first = 1u64 << 32;
        for w in &walls {
            // A fraction where the disc touches this wall, then bisect back to the contact.
            // The distance along the segment is convex, so any touching fraction brackets the
            // first contact with 0 (where the disc is clear). The closest approach is at a wall
            // end's projection, the crossing, or the far end; samples catch rounding misses.
            let d = to - from;
            let (e, len) = (w.1 - w.0, d.length_squared_wide());
            let mut tries = vec![1u64 << 32];
            if len > 0 {
                tries.push(fraction((w.0 - from).dot_wide(d), len));
                tries.push(fraction((w.1 - from).dot_wide(d), len));
            }
            let den = d.det_wide(e);
            if den != 0 {
                tries.push(fraction((w.0 - from).det_wide(e), den));
            }
            tries.extend((0..=64u64).map(|i| i << 26));
            let Some(inside) = tries.into_iter().find(|&t| touches(lerp(from, to, t), w)) else {
                continue;
            };
            let (mut lo, mut hi) = (0u64, inside);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if touches(lerp(from, to, mid), w) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            first = first.min(lo);
        }
        // Rounding of the sampled points: step back until no collected wall is touched.
        let mut t = first;
        for _ in 0..64 {
            if t == 0 || !walls.iter().any(|w| touches(lerp(from, to, t), w)) {
                break;
            }
            t -= 1;
        }
        if walls.iter().any(|w| touches(lerp(from, to, t), w)) {
            t = 0;
        }
        RayHit {
            clear: first == 1 << 32 && t == first,
            hit: if t == 1 << 32 { to } else { lerp(from, to, t) },
        }
    }

    /// Whether a disc of radius `r` (at least one ulp) moves from `from` to `to` touching no
    /// wall, for a `from` the caller found walkable for `r` in triangle `t0`
    /// ([`locate`](Self::locate)`(from)`): no wall is closer than `r` to the segment (exact; a
    /// wall close to `from` is close to the segment). What the path search asks before it
    /// searches (a goal in plain sight); cheaper than [`raycast`](Self::raycast), which also
    /// finds where the disc stops: it ends at the first wall found. When it says clear, so
    /// does `raycast`'s [`RayHit::clear`].
    pub(crate) fn in_plain_sight_from(&self, from: Vec2, t0: u32, to: Vec2, r: Fx) -> bool {
        let r = r.max(Fx::DELTA);
        in_exact_range(to)
            && self.tris[t0 as usize].walkable
            && !self.wall_along_segment(from, to, r, t0)
            && self.walls_near_segment(from, to, r, t0, true).is_empty()
    }

    /// A quick witness for [`in_plain_sight_from`](Self::in_plain_sight_from)'s "no": walks
    /// from `t0` through the triangles the segment `from to` crosses (across non-wall edges
    /// closer than `r`, the edge the segment leaves by, at most [`WALK_STEPS`] steps) and says
    /// whether it met a wall closer than `r` to the segment. Every triangle it enters is one
    /// [`walls_near_segment`](Self::walls_near_segment)'s search from `t0` reaches too, so a
    /// wall found here is one that search finds (the same answer); `false` decides nothing.
    fn wall_along_segment(&self, from: Vec2, to: Vec2, r: Fx, t0: u32) -> bool {
        let band = LineBand::new(from, to, r);
        let mut u = t0;
        let mut prev = NO_TRIANGLE;
        for _ in 0..WALK_STEPS {
            let tri = &self.tris[u as usize];
            let mut next = NO_TRIANGLE;
            for k in 0..3 {
                let n = tri.adj[k];
                if n == prev && !tri.wall[k] {
                    // Crossed to get here: open and close.
                    continue;
                }
                let (a, b) = self.edge(u, k);
                // The edge the segment leaves by: `to` beyond it, `a` on the segment's right
                // and `b` on its left (the triangle is counter-clockwise).
                let exit =
                    left_of(a, b, to) < 0 && left_of(from, to, a) <= 0 && left_of(from, to, b) >= 0;
                if !tri.wall[k] && (!exit || n == NO_TRIANGLE || next != NO_TRIANGLE) {
                    continue;
                }
                // With `from` on the edge's inner side too, the segment meets the closed edge
                // (each straddles the other's line, and they are not collinear as `to` is off
                // the edge's line): distance zero, closer than `r`.
                let crossed = exit && left_of(a, b, from) >= 0;
                if !crossed
                    && (band.outside(a, b)
                        || cmp_dist_segment_segment(from, to, a, b, r) != Ordering::Less)
                {
                    continue;
                }
                if tri.wall[k] {
                    return true;
                }
                next = n;
            }
            if next == NO_TRIANGLE {
                return false;
            }
            (prev, u) = (u, next);
        }
        false
    }

    /// Every wall closer than `r` to the segment `from to`, searching from triangle `t` across
    /// the non-wall edges closer than `r`; in the search's (deterministic) order.
    /// With `first_only`, the search stops at the first wall it finds.
    fn walls_near_segment(
        &self,
        from: Vec2,
        to: Vec2,
        r: Fx,
        t: u32,
        first_only: bool,
    ) -> Vec<(Vec2, Vec2)> {
        let mut walls = Vec::new();
        let band = LineBand::new(from, to, r);
        let mut seen = super::Visited::of(t);
        let mut stack = super::Stack::of(t);
        while let Some(u) = stack.pop() {
            let tri = &self.tris[u as usize];
            for k in 0..3 {
                let n = tri.adj[k];
                // An open edge to a triangle already seen (or to none) adds nothing: no test.
                if !tri.wall[k] && (n == NO_TRIANGLE || seen.contains(n)) {
                    continue;
                }
                let (a, b) = self.edge(u, k);
                if band.outside(a, b)
                    || cmp_dist_segment_segment(from, to, a, b, r) != Ordering::Less
                {
                    continue;
                }
                if tri.wall[k] {
                    let key = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
                    walls.push(if key(a) < key(b) { (a, b) } else { (b, a) });
                    if first_only {
                        return walls;
                    }
                } else {
                    seen.insert(n);
                    stack.push(n);
                }
            }
        }
        walls.sort_unstable_by_key(|w| {
            (
                w.0.x.to_bits(),
                w.0.y.to_bits(),
                w.1.x.to_bits(),
                w.1.y.to_bits(),
            )
        });
        walls.dedup();
        walls
    }
}

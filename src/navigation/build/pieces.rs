//! Constraint pieces: every obstacle, polyline and boundary edge split at each vertex lying
//! exactly on it and at the rounded point of each proper crossing with another edge
//! (navigation plan §1.2).
//!
//! Everything is a function of the *set* of segments: segments are stored with their
//! lexicographically smaller end first, sorted and deduplicated, so neither obstacle ids nor
//! insertion order reach the result. The broad phase is a bucket grid ([`Grid`]); each pair is
//! tested once, in the cell holding the lower corner of the two boxes' overlap, and the tests
//! themselves are exact ([`crate::geom`]).

use super::grid::{Grid, RawBox, box_of, union};
use crate::error::SimError;
use crate::geom::{SegmentIntersection, left_of, segment_intersection};
use crate::math::Vec2;

/// Most proper crossings between input segments (plan §1.2 caps).
pub(crate) const MAX_CROSSINGS: usize = 1 << 20;

/// A point as raw Q32.32 bits, ordered lexicographically by `(x, y)` (the plan's rank).
pub(crate) type Raw = (i64, i64);

/// The raw bits of a point.
pub(crate) fn raw(p: Vec2) -> Raw {
    (p.x.to_bits(), p.y.to_bits())
}

/// The point of raw bits.
pub(crate) fn vec(p: Raw) -> Vec2 {
    Vec2::from_bits(p.0, p.1)
}

/// A segment with its smaller end first; `None` for a point.
pub(crate) fn segment(p: Vec2, q: Vec2) -> Option<[Raw; 2]> {
    let (a, b) = (raw(p), raw(q));
    match a.cmp(&b) {
        std::cmp::Ordering::Less => Some([a, b]),
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some([b, a]),
    }
}

/// The pieces of a set of segments.
pub(crate) struct Pieces {
    /// Every piece end, sorted and distinct.
    pub points: Vec<Raw>,
    /// The pieces as sorted, distinct index pairs into `points` (smaller index first).
    pub pieces: Vec<[u32; 2]>,
    /// Proper crossings between the segments.
    pub crossings: usize,
}

/// Splits `segs` (sorted and distinct, as [`super::read_source`] keeps them) into pieces.
///
/// # Errors
/// [`SimError::OutOfDomain`] past [`MAX_CROSSINGS`].
pub(crate) fn split(segs: &[[Raw; 2]]) -> Result<Pieces, SimError> {
    let (cuts, points, crossings) = cut(segs, None)?;
    let mut pieces = Vec::new();
    for c in &cuts {
        for w in c.windows(2) {
            let a = points.binary_search(&w[0]).unwrap_or_default() as u32;
            let b = points.binary_search(&w[1]).unwrap_or_default() as u32;
            pieces.push([a.min(b), a.max(b)]);
        }
    }
    pieces.sort_unstable();
    pieces.dedup();
    Ok(Pieces {
        points,
        pieces,
        crossings,
    })
}

/// The pieces (as point pairs, smaller first; sorted, distinct) of the segments `wanted` marks,
/// and the proper crossings that involve one of them. Exact for a wanted segment when `segs`
/// holds every segment whose box meets the wanted one's box (the local rebuild's neighbourhood):
/// its crossings, the points on it and the crossings landing on it all come from those.
///
/// # Errors
/// [`SimError::OutOfDomain`] past [`MAX_CROSSINGS`].
pub(crate) fn split_some(
    segs: &[[Raw; 2]],
    wanted: &[bool],
) -> Result<(Vec<[Raw; 2]>, usize), SimError> {
    let (cuts, _, crossings) = cut(segs, Some(wanted))?;
    let mut pieces = Vec::new();
    for (c, _) in cuts.iter().zip(wanted).filter(|(_, w)| **w) {
        pieces.extend(c.windows(2).map(|w| [w[0].min(w[1]), w[0].max(w[1])]));
    }
    pieces.sort_unstable();
    pieces.dedup();
    Ok((pieces, crossings))
}

/// Every segment's cut points in order along it (its ends, the points lying on it, its rounded
/// crossings), every point, and the proper crossings counted (all, or those involving a
/// `wanted` segment).
#[allow(clippy::type_complexity)]
fn cut(
    segs: &[[Raw; 2]],
    wanted: Option<&[bool]>,
) -> Result<(Vec<Vec<Raw>>, Vec<Raw>, usize), SimError> {
    debug_assert!(
        segs.windows(2).all(|w| w[0] < w[1]),
        "segments not sorted and distinct"
    );
    let mut cuts: Vec<Vec<Raw>> = segs.iter().map(|s| s.to_vec()).collect();
    let Some(bounds) = union(segs.iter().map(|s| box_of(s[0], s[1]))) else {
        return Ok((Vec::new(), Vec::new(), 0));
    };
    let boxes: Vec<RawBox> = segs.iter().map(|s| box_of(s[0], s[1])).collect();
    let grid = Grid::new(bounds, &boxes, segs.len());
    let crossings = find_crossings(segs, &boxes, &grid, &mut cuts, wanted)?;

    // Every point (ends and crossing points), then the ones lying exactly inside a segment.
    let mut points: Vec<Raw> = cuts.iter().flatten().copied().collect();
    points.sort_unstable();
    points.dedup();
    let point_boxes: Vec<RawBox> = points.iter().map(|&p| (p, p)).collect();
    let point_grid = Grid::new(bounds, &point_boxes, points.len());
    for (s, seg) in segs.iter().enumerate() {
        if wanted.is_some_and(|w| !w[s]) {
            continue;
        }
        let r = point_grid.cell_range(boxes[s]);
        let cells = (r.1 - r.0 + 1) * (r.3 - r.2 + 1);
        let mut on = |p: Raw| {
            if p != seg[0] && p != seg[1] && within(boxes[s], p) {
                let (a, b) = (vec(seg[0]), vec(seg[1]));
                if left_of(a, b, vec(p)) == 0 {
                    cuts[s].push(p);
                }
            }
        };
        if cells > points.len() {
            points.iter().for_each(|&p| on(p));
        } else {
            for cy in r.2..=r.3 {
                for cx in r.0..=r.1 {
                    point_grid
                        .items(cx, cy)
                        .iter()
                        .for_each(|&i| on(points[i as usize]));
                }
            }
        }
    }
    for (c, seg) in cuts.iter_mut().zip(segs) {
        // Along the segment by the exact projection (a rounded crossing point may lie an ulp
        // beside the line, so lexicographic order is not enough for a vertical segment).
        let (a, b) = (vec(seg[0]), vec(seg[1]));
        c.sort_unstable_by_key(|&p| ((vec(p) - a).dot_wide(b - a), p));
        c.dedup();
    }
    Ok((cuts, points, crossings))
}

/// Whether `p` lies in the closed box.
fn within(b: RawBox, p: Raw) -> bool {
    p.0 >= b.0.0 && p.0 <= b.1.0 && p.1 >= b.0.1 && p.1 <= b.1.1
}

/// Finds every proper crossing between two segments, adds its rounded point to both segments'
/// cuts, and returns how many there were.
fn find_crossings(
    segs: &[[Raw; 2]],
    boxes: &[RawBox],
    grid: &Grid,
    cuts: &mut [Vec<Raw>],
    wanted: Option<&[bool]>,
) -> Result<usize, SimError> {
    let mut count = 0usize;
    let mut test = |i: usize, j: usize, cuts: &mut [Vec<Raw>]| -> Result<(), SimError> {
        let (s, t) = (segs[i], segs[j]);
        let (p1, p2, q1, q2) = (vec(s[0]), vec(s[1]), vec(t[0]), vec(t[1]));
        if segment_intersection(p1, p2, q1, q2) == SegmentIntersection::Crossing {
            // Every crossing is found (one of two other segments may land on a wanted one);
            // only those involving a wanted segment are counted.
            count += usize::from(wanted.is_none_or(|w| w[i] || w[j]));
            if count > MAX_CROSSINGS {
                return Err(SimError::OutOfDomain {
                    what: "navigation mesh: crossings between obstacle edges",
                    allowed: "at most 1,048,576",
                });
            }
            // `i < j` for a canonical pair: the point does not depend on the test order.
            let (a, b) = if i < j { (s, t) } else { (t, s) };
            let x = crossing_point(a, b);
            cuts[i].push(x);
            cuts[j].push(x);
        }
        Ok(())
    };
    let overlap = |i: usize, j: usize| {
        let (a, b) = (boxes[i], boxes[j]);
        a.0.0 <= b.1.0 && b.0.0 <= a.1.0 && a.0.1 <= b.1.1 && b.0.1 <= a.1.1
    };
    // Big items against everything (each pair once).
    let is_big = |i: usize| grid.big.binary_search(&(i as u32)).is_ok();
    for &b in &grid.big {
        let b = b as usize;
        for j in 0..segs.len() {
            if j != b && (!is_big(j) || j > b) && overlap(b, j) {
                test(b, j, cuts)?;
            }
        }
    }
    let (nx, ny) = grid.dims();
    for cy in 0..ny {
        for cx in 0..nx {
            let items = grid.items(cx, cy);
            for (n, &i) in items.iter().enumerate() {
                for &j in &items[n + 1..] {
                    let (i, j) = (i as usize, j as usize);
                    if !overlap(i, j) {
                        continue;
                    }
                    // The lower corner of the overlap decides the one cell that tests the pair.
                    let lo = (
                        boxes[i].0.0.max(boxes[j].0.0),
                        boxes[i].0.1.max(boxes[j].0.1),
                    );
                    if grid.cell_of(lo) == (cx, cy) {
                        test(i, j, cuts)?;
                    }
                }
            }
        }
    }
    Ok(count)
}

/// The rounded crossing point of two properly crossing segments `a` and `b` (plan §1.2):
/// `t = num / den` along `a` as a 64-bit fraction (floored), then `a₀ + (a₁ − a₀)·t` per
/// coordinate rounded to the nearest raw value (halves up). Differences only, so a translated
/// pair gives the translated point. The error of `(a₁ − a₀)·t` before the rounding is below
/// 2⁻⁷ ulp, so the result is within half an ulp (plus that) of the true point, and a crossing
/// that is exactly representable (two walls meeting on the grid) is found exactly. (The plan
/// said floor; nearest keeps grid crossings exact.)
pub(crate) fn crossing_point(a: [Raw; 2], b: [Raw; 2]) -> Raw {
    let d = |p: Raw, q: Raw| {
        (
            i128::from(q.0) - i128::from(p.0),
            i128::from(q.1) - i128::from(p.1),
        )
    };
    let cross = |u: (i128, i128), v: (i128, i128)| u.0 * v.1 - u.1 * v.0;
    let (r, s) = (d(a[0], a[1]), d(b[0], b[1]));
    let mut den = cross(r, s);
    let mut num = cross(d(a[0], b[0]), s);
    if den < 0 {
        den = -den;
        num = -num;
    }
    // A proper crossing has 0 < num < den, both below 2¹¹⁰ in the domain.
    let k = (128 - den.leading_zeros()).saturating_sub(63);
    let (n, dd) = ((num >> k).max(0) as u128, (den >> k).max(1) as u128);
    let t = ((n << 64) / dd).min(1 << 64) as i128;
    let at = |o: i64, delta: i128| o + ((delta * t + (1 << 63)) >> 64) as i64;
    (at(a[0].0, r.0), at(a[0].1, r.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(s: &mut u64) -> u64 {
        *s = crate::util::splitmix64(*s);
        *s
    }

    #[test]
    fn crossing_points_on_the_grid_are_exact_and_translation_invariant() {
        let u = |x: i64, y: i64| (x << 32, y << 32);
        // (−2, 1)–(12, 1) crosses (0, 0)–(0, 4) at (0, 1): t = 1/7 is not a binary fraction.
        assert_eq!(
            crossing_point([u(-2, 1), u(12, 1)], [u(0, 0), u(0, 4)]),
            u(0, 1)
        );
        let mut s = 1;
        for _ in 0..2_000 {
            let mut p = || {
                (
                    (rng(&mut s) % (1 << 40)) as i64,
                    (rng(&mut s) % (1 << 40)) as i64,
                )
            };
            let (a, b) = ([p(), p()], [p(), p()]);
            let (sa, sb) = (segment(vec(a[0]), vec(a[1])), segment(vec(b[0]), vec(b[1])));
            let (Some(sa), Some(sb)) = (sa, sb) else {
                continue;
            };
            let crossing = segment_intersection(vec(sa[0]), vec(sa[1]), vec(sb[0]), vec(sb[1]));
            if crossing != SegmentIntersection::Crossing {
                continue;
            }
            let x = crossing_point(sa, sb);
            let d = (-(123_456i64 << 32), 987i64 << 32);
            let sh = |q: Raw| (q.0 + d.0, q.1 + d.1);
            assert_eq!(crossing_point(sa.map(sh), sb.map(sh)), sh(x));
            // Within one ulp of both lines: |orient| ≤ |edge| · 1 ulp (in raw units).
            for seg in [sa, sb] {
                let l = left_of(vec(seg[0]), vec(seg[1]), vec(x)).unsigned_abs();
                let len = (vec(seg[1]) - vec(seg[0])).length().to_bits() as u128 + 1;
                assert!(l <= 2 * len, "{l} > {len}");
            }
        }
    }

    #[test]
    fn the_grid_finds_every_crossing_a_brute_force_finds() {
        let mut s = 7;
        for round in 0..20 {
            let n = 50 + round * 20;
            let mut segs = Vec::new();
            for i in 0..n {
                let long = if i % 17 == 0 { 1 << 44 } else { 1 << 36 };
                let mut c = || (rng(&mut s) % (1 << 44)) as i64;
                let (x, y) = (c(), c());
                let mut d = || (rng(&mut s) % long) as i64 - long as i64 / 2;
                let (dx, dy) = (d(), d());
                if let Some(seg) = segment(vec((x, y)), vec((x + dx, y + dy))) {
                    segs.push(seg);
                }
            }
            segs.sort_unstable();
            segs.dedup();
            let mut brute = 0;
            for i in 0..segs.len() {
                for j in i + 1..segs.len() {
                    let (a, b) = (segs[i], segs[j]);
                    let k = segment_intersection(vec(a[0]), vec(a[1]), vec(b[0]), vec(b[1]));
                    brute += usize::from(k == SegmentIntersection::Crossing);
                }
            }
            let boxes: Vec<RawBox> = segs.iter().map(|s| box_of(s[0], s[1])).collect();
            let bounds = union(boxes.iter().copied()).unwrap();
            let grid = Grid::new(bounds, &boxes, segs.len());
            let mut cuts: Vec<Vec<Raw>> = segs.iter().map(|s| s.to_vec()).collect();
            let found = find_crossings(&segs, &boxes, &grid, &mut cuts, None).unwrap();
            assert_eq!(found, brute, "round {round}");
            assert!(round < 5 || brute > 0);
        }
    }
}

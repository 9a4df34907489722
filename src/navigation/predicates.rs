//! Exact predicates beyond [`crate::geom`]: the in-circle test, and its tie rule.
//!
//! Coordinates are the raw Q32.32 bits of [`Vec2`], taken as integers. Inside the range the
//! triangulation accepts (`|raw| < 2^53`, [`MAX_RAW`]) the in-circle determinant is computed
//! exactly:
//!
//! | quantity | bound | type |
//! | --- | --- | --- |
//! | coordinate differences `p − d` | `< 2^54` | `i64` |
//! | lifts `|p − d|²`, crosses `(p − d) × (q − d)` | `< 2^109` | `i128` |
//! | each of the three products `lift · cross` | `< 2^218` | `I256` |
//! | their sum, the determinant | `< 2^220` | `I256` |
//!
//! The determinant is the lifted 3×3 form `|a'|²(b'×c') + |b'|²(c'×a') + |c'|²(a'×b')` with
//! `p' = p − d`. Exact cocircular ties are broken by symbolic perturbation ([`in_circle`]),
//! so the Delaunay triangulation of any point set is unique.

use crate::geom::left_of;
use crate::math::Vec2;
use ethnum::I256;

/// The largest raw coordinate magnitude (exclusive) the exact predicates accept: `2^53`
/// (about 2.1 million units, twice the simulation domain).
pub(crate) const MAX_RAW: i64 = 1 << 53;

/// Whether both raw coordinates of `p` are inside `±MAX_RAW` (exclusive).
pub(crate) fn in_range(p: Vec2) -> bool {
    p.x.to_bits().unsigned_abs() < MAX_RAW.unsigned_abs()
        && p.y.to_bits().unsigned_abs() < MAX_RAW.unsigned_abs()
}

/// The in-circle determinant of `a, b, c, d`: positive when `d` lies strictly inside the circle
/// through `a, b, c` (counter-clockwise), zero when the four are cocircular, negative outside
/// (the signs flip for clockwise `a, b, c`). Exact for coordinates within [`MAX_RAW`].
pub(crate) fn in_circle_det(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> I256 {
    let rel = |p: Vec2| {
        (
            i128::from(p.x.to_bits() - d.x.to_bits()),
            i128::from(p.y.to_bits() - d.y.to_bits()),
        )
    };
    let (a, b, c) = (rel(a), rel(b), rel(c));
    let lift = |p: (i128, i128)| I256::new(p.0 * p.0 + p.1 * p.1);
    let cross = |p: (i128, i128), q: (i128, i128)| I256::new(p.0 * q.1 - p.1 * q.0);
    lift(a) * cross(b, c) + lift(b) * cross(c, a) + lift(c) * cross(a, b)
}

/// Whether `d` lies inside the circle through the counter-clockwise triangle `a, b, c`, with
/// exact ties decided by symbolic perturbation (Simulation of Simplicity).
///
/// `rank` gives the ranks of `a, b, c, d` (distinct; the triangulation uses the index in
/// lexicographic `(x, y)` order). Each point `p` is lifted to `|p|² + ε^(2^rank)`-style heights
/// with the lowest rank perturbed most. When `d` is exactly on the circle, the lowest-ranked
/// point `m` of the four decides: `m = d` raises `d`, so it is outside; `m` a vertex of the
/// triangle raises the lifted plane at `d` by `d`'s barycentric weight for `m`, whose sign is
/// the orientation of the triangle with `m` replaced by `d` (never zero: a circle meets a line
/// in at most two points). The lifting is the same for every query, so the perturbed Delaunay
/// triangulation is unique and Lawson's flips reach it from any triangulation.
pub(crate) fn in_circle(a: Vec2, b: Vec2, c: Vec2, d: Vec2, rank: [u32; 4]) -> bool {
    let det = in_circle_det(a, b, c, d);
    if det != I256::ZERO {
        return det.is_positive();
    }
    let [ra, rb, rc, rd] = rank;
    let lowest = ra.min(rb).min(rc).min(rd);
    if lowest == rd {
        false
    } else if lowest == ra {
        left_of(d, b, c) > 0
    } else if lowest == rb {
        left_of(a, d, c) > 0
    } else {
        left_of(a, b, d) > 0
    }
}

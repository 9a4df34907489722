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
//! `p' = p − d`, summed in `ethnum`'s `I256`: three multiplications and two additions, exact by
//! the bounds above. [`in_circle_sign`] first tries an integer filter (the same sum on
//! shifted-down terms against its error bound) and falls back to the `I256` sum only for
//! near-cocircular points. Exact cocircular ties are broken by symbolic perturbation
//! ([`in_circle`]), so the Delaunay triangulation of any point set is unique.

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

/// The translated lifts `|p − d|²` and crosses of `a, b, c` about `d`: the determinant is
/// `Σ lift_i · cross_i` over `(a, b×c), (b, c×a), (c, a×b)`. Each is `< 2^109` in magnitude.
fn terms(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> [(i128, i128); 3] {
    // Differences fit i64 (< 2^54); every product is one widening multiplication.
    let rel = |p: Vec2| (p.x.to_bits() - d.x.to_bits(), p.y.to_bits() - d.y.to_bits());
    let (a, b, c) = (rel(a), rel(b), rel(c));
    let w = |x: i64, y: i64| i128::from(x) * i128::from(y);
    let lift = |p: (i64, i64)| w(p.0, p.0) + w(p.1, p.1);
    let cross = |p: (i64, i64), q: (i64, i64)| w(p.0, q.1) - w(p.1, q.0);
    [
        (lift(a), cross(b, c)),
        (lift(b), cross(c, a)),
        (lift(c), cross(a, b)),
    ]
}

/// The in-circle determinant of `a, b, c, d`: positive when `d` lies strictly inside the circle
/// through `a, b, c` (counter-clockwise), zero when the four are cocircular, negative outside
/// (the signs flip for clockwise `a, b, c`). Exact for coordinates within [`MAX_RAW`]. The
/// kernel needs only the sign ([`in_circle_sign`]); the value is for the tests and the
/// kernel's validator (`cdt::check`).
#[cfg(any(test, feature = "test-oracles"))]
pub(crate) fn in_circle_det(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> I256 {
    exact(&terms(a, b, c, d))
}

/// `Σ lift · cross` in 256 bits: each product `< 2^218`, the sum `< 2^220`.
fn exact(terms: &[(i128, i128); 3]) -> I256 {
    terms
        .iter()
        .map(|&(l, x)| I256::new(l) * I256::new(x))
        .fold(I256::ZERO, |s, t| s + t)
}

/// The sign of [`in_circle_det`], exact, usually without 256-bit arithmetic: every lift and
/// cross is shifted right by the same `s` bits so that all fit 62 bits, and the sum of the
/// shifted products `A` is compared with its error bound. With `L = l·2^s + r` (`0 ≤ r < 2^s`,
/// floor shifts) and likewise `C`, `|L·C − l·c·2^(2s)| ≤ (|l| + |c| + 1)·2^(2s)`; so when
/// `|A| > E = Σ (|l| + |c| + 1)` the sign of `A` is the determinant's. Otherwise (near-cocircular
/// points, 60 bits of cancellation) the exact `I256` sum decides.
pub(crate) fn in_circle_sign(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> i32 {
    let t = terms(a, b, c, d);
    let top = t
        .iter()
        .map(|&(l, x)| l.unsigned_abs() | x.unsigned_abs())
        .fold(0u128, |m, v| m | v);
    let s = (128 - top.leading_zeros()).saturating_sub(62);
    let (mut approx, mut err) = (0i128, 0i128);
    for &(l, x) in &t {
        // Below 2^62 after the shift: one widening multiplication each.
        #[allow(clippy::cast_possible_truncation)]
        let (l, x) = ((l >> s) as i64, (x >> s) as i64);
        approx += i128::from(l) * i128::from(x);
        err += i128::from(l.unsigned_abs() + x.unsigned_abs() + 1);
    }
    if approx > err {
        1
    } else if approx < -err {
        -1
    } else {
        let det = exact(&t);
        i32::from(det.is_positive()) - i32::from(det.is_negative())
    }
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
    let sign = in_circle_sign(a, b, c, d);
    if sign != 0 {
        return sign > 0;
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

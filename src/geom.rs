//! Exact plane geometry on fixed-point points: orientation, segment intersection, distances,
//! polygon area and containment.
//!
//! The obstacle code (validation, the BSP tree, visibility), the scenario checks and map
//! builders all ask the same questions of [`Vec2`] points: which side of a line, do two segments
//! meet, how far is a point from an edge, which way does a ring turn, is a point inside. This
//! module answers them once.
//!
//! | question | function | exact? |
//! | --- | --- | --- |
//! | side of a directed line | [`orientation`], [`left_of`] | yes |
//! | point on a closed segment | [`on_segment`] | yes |
//! | how two closed segments meet | [`segment_intersection`], [`segments_intersect`] | yes |
//! | squared distance point–segment, segment–segment | [`dist_sq_point_segment`], [`dist_sq_segment_segment`] | beside a segment: one stated rounding |
//! | is that distance below, at or above `r` | [`cmp_dist_point_segment`], [`cmp_dist_segment_segment`] | yes |
//! | signed area and turn of a ring | [`polygon_area2`], [`polygon_orientation`] | yes |
//! | point in a ring (nonzero winding) | [`point_in_polygon`] | yes, boundary included |
//!
//! # Exactness
//! Every decision is integer arithmetic on the raw bits of the Q32.32 coordinates: a cross or dot
//! product of two coordinate differences is an exact `i128` in raw Q64.64 units (2⁻⁶⁴ square
//! units, [`Vec2::det_wide`], [`Vec2::dot_wide`]). No sign, comparison or boundary case depends
//! on a rounding, so the answers are the same on every platform and are the mathematically true
//! ones for the given points. The distances are the one place where a quotient is rounded; their
//! rustdoc states how, and their comparisons with a radius are exact (products up to 256 bits).
//!
//! # Domain
//! Every function here is exact as stated and cannot overflow for points with
//! `|x|, |y| ≤` [`MAX_EXACT_COORD`] (2²⁹ ≈ 5.4·10⁸), over 500 times the simulator's coordinate
//! domain ([`crate::domain::MAX_COORD`], 10⁶): there coordinate differences stay below 2³⁰,
//! their products below 2¹²⁵, and distances below [`Fx`]'s 2³¹. Outside it a difference or a
//! distance may overflow [`Fx`]: debug builds panic (the `fixed` crate's overflow check), release
//! builds may give wrong answers, so check points from untrusted sources first (the simulator's
//! own inputs are checked against its smaller domain). [`polygon_area2`] and
//! [`polygon_orientation`] take no differences and accept any [`Fx`] coordinates.
//!
//! # Conventions
//! Positive cross products mean a left turn (counter-clockwise), as RVO2's `leftOf`. Segments
//! are closed (their endpoints belong to them) and may be degenerate (a single point). A ring is
//! a slice of vertices, closed implicitly (the last vertex joins the first); results do not
//! depend on translation, except that [`polygon_area2`] may overflow far from the origin where
//! a translated copy would not.

use crate::math::{Fx, Vec2, wide_mul};
use std::cmp::Ordering;

/// Largest absolute coordinate for which every function of this module is exact as stated and
/// cannot overflow: 2²⁹ (see the [module docs](self)).
///
/// ```
/// use lockstep_orca::{domain, geom, Fx};
///
/// assert_eq!(geom::MAX_EXACT_COORD, Fx::from_num(1 << 29));
/// assert!(geom::MAX_EXACT_COORD > domain::MAX_COORD * Fx::from_num(500));
/// ```
pub const MAX_EXACT_COORD: Fx = Fx::from_bits(1 << 61);

/// The turn of three points, the exact sign of [`left_of`].
///
/// ```
/// use lockstep_orca::geom::{orientation, Orientation};
/// use lockstep_orca::Vec2;
///
/// let (a, b) = (Vec2::from_int(0, 0), Vec2::from_int(4, 0));
/// assert_eq!(orientation(a, b, Vec2::from_int(1, 1)), Orientation::CounterClockwise);
/// assert_eq!(orientation(a, b, Vec2::from_int(9, 0)), Orientation::Collinear);
/// assert_eq!(orientation(a, b, Vec2::from_int(1, -1)), Orientation::Clockwise);
/// assert_eq!(Orientation::Clockwise.reversed(), Orientation::CounterClockwise);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// A right turn: the third point lies right of the directed line through the first two.
    Clockwise,
    /// The three points lie on one line (or two of them coincide).
    Collinear,
    /// A left turn: the third point lies left of the directed line through the first two.
    CounterClockwise,
}

impl Orientation {
    /// The orientation of a signed quantity: negative is [`Clockwise`](Self::Clockwise), zero
    /// [`Collinear`](Self::Collinear), positive [`CounterClockwise`](Self::CounterClockwise).
    ///
    /// ```
    /// use lockstep_orca::geom::Orientation;
    ///
    /// assert_eq!(Orientation::of_sign(-5), Orientation::Clockwise);
    /// assert_eq!(Orientation::of_sign(0), Orientation::Collinear);
    /// ```
    #[inline]
    #[must_use]
    pub fn of_sign(v: i128) -> Self {
        match v.signum() {
            -1 => Self::Clockwise,
            0 => Self::Collinear,
            _ => Self::CounterClockwise,
        }
    }

    /// The opposite turn (the same points in reverse order); [`Collinear`](Self::Collinear)
    /// stays.
    ///
    /// ```
    /// use lockstep_orca::geom::Orientation;
    ///
    /// assert_eq!(Orientation::Collinear.reversed(), Orientation::Collinear);
    /// ```
    #[inline]
    #[must_use]
    pub fn reversed(self) -> Self {
        match self {
            Self::Clockwise => Self::CounterClockwise,
            Self::Collinear => Self::Collinear,
            Self::CounterClockwise => Self::Clockwise,
        }
    }
}

/// `det(b − a, c − a)`, exact, in raw Q64.64 units: twice the signed area of the triangle
/// `a b c`, positive when `c` lies left of the directed line `a → b` (RVO2's `leftOf`).
///
/// The magnitude is `|b − a|` times the distance from `c` to the line, so a caller may divide
/// it by a length; [`orientation`] is its sign.
///
/// ```
/// use lockstep_orca::geom::left_of;
/// use lockstep_orca::math::wide_mul;
/// use lockstep_orca::{Fx, Vec2};
///
/// let l = left_of(Vec2::from_int(0, 0), Vec2::from_int(4, 0), Vec2::from_int(1, 3));
/// assert_eq!(l, wide_mul(Fx::from_num(4), Fx::from_num(3)));
/// ```
#[inline]
#[must_use]
pub fn left_of(a: Vec2, b: Vec2, c: Vec2) -> i128 {
    (b - a).det_wide(c - a)
}

/// Whether `c` lies left of, on, or right of the directed line `a → b`: the exact sign of
/// [`left_of`]. A degenerate line (`a == b`) makes every point [`Orientation::Collinear`].
///
/// ```
/// use lockstep_orca::geom::{orientation, Orientation};
/// use lockstep_orca::{Fx, Vec2};
///
/// // One ulp off a long diagonal is still decided exactly.
/// let (a, b) = (Vec2::from_int(-999_999, -999_999), Vec2::from_int(999_999, 999_999));
/// let c = Vec2::new(Fx::from_num(3), Fx::from_num(3) + Fx::DELTA);
/// assert_eq!(orientation(a, b, c), Orientation::CounterClockwise);
/// ```
#[inline]
#[must_use]
pub fn orientation(a: Vec2, b: Vec2, c: Vec2) -> Orientation {
    Orientation::of_sign(left_of(a, b, c))
}

/// For `c` collinear with `a b`: whether it lies within the closed segment (its bounding box).
#[inline]
fn in_box(a: Vec2, b: Vec2, c: Vec2) -> bool {
    c.x >= a.x.min(b.x) && c.x <= a.x.max(b.x) && c.y >= a.y.min(b.y) && c.y <= a.y.max(b.y)
}

/// Whether `p` lies on the closed segment `a b` (endpoints included), exact. For `a == b` it is
/// `p == a`.
///
/// ```
/// use lockstep_orca::geom::on_segment;
/// use lockstep_orca::Vec2;
///
/// let (a, b) = (Vec2::from_int(0, 0), Vec2::from_int(4, 2));
/// assert!(on_segment(a, b, Vec2::from_int(2, 1)));
/// assert!(on_segment(a, b, b));
/// assert!(!on_segment(a, b, Vec2::from_int(6, 3))); // on the line, past the end
/// ```
#[inline]
#[must_use]
pub fn on_segment(a: Vec2, b: Vec2, p: Vec2) -> bool {
    left_of(a, b, p) == 0 && in_box(a, b, p)
}

/// How two closed segments meet ([`segment_intersection`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentIntersection {
    /// No common point.
    Disjoint,
    /// A proper crossing: exactly one common point, interior to both segments (each segment has
    /// the other's endpoints strictly on opposite sides of its line).
    Crossing,
    /// Exactly one common point, and it is an endpoint of at least one segment: a shared
    /// endpoint, a T-junction, collinear segments meeting end to end, or a degenerate segment
    /// (a point) lying on the other.
    Touching,
    /// Collinear segments sharing a piece of positive length.
    Overlapping,
}

/// How the closed segments `p1 p2` and `q1 q2` meet, exact. Either may be degenerate (a
/// point). [`segments_intersect`] is "not [`Disjoint`](SegmentIntersection::Disjoint)".
///
/// ```
/// use lockstep_orca::geom::{segment_intersection, SegmentIntersection as S};
/// use lockstep_orca::Vec2;
///
/// let v = Vec2::from_int;
/// assert_eq!(segment_intersection(v(0, 0), v(2, 2), v(0, 2), v(2, 0)), S::Crossing);
/// assert_eq!(segment_intersection(v(0, 0), v(2, 0), v(1, 0), v(1, 5)), S::Touching);
/// assert_eq!(segment_intersection(v(0, 0), v(2, 0), v(2, 0), v(5, 0)), S::Touching);
/// assert_eq!(segment_intersection(v(0, 0), v(2, 0), v(1, 0), v(5, 0)), S::Overlapping);
/// assert_eq!(segment_intersection(v(0, 0), v(2, 0), v(3, 0), v(5, 0)), S::Disjoint);
/// assert_eq!(segment_intersection(v(0, 0), v(2, 0), v(1, 1), v(1, 1)), S::Disjoint);
/// ```
#[must_use]
pub fn segment_intersection(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> SegmentIntersection {
    let d1 = left_of(q1, q2, p1).signum();
    let d2 = left_of(q1, q2, p2).signum();
    let d3 = left_of(p1, p2, q1).signum();
    let d4 = left_of(p1, p2, q2).signum();
    if d1 * d2 < 0 && d3 * d4 < 0 {
        return SegmentIntersection::Crossing;
    }
    if d1 != 0 && d2 != 0 && d3 != 0 && d4 != 0 {
        // One segment lies strictly on one side of the other's line.
        return SegmentIntersection::Disjoint;
    }
    if d1 == 0 && d2 == 0 && d3 == 0 && d4 == 0 {
        return collinear_intersection(p1, p2, q1, q2);
    }
    // Not all on one line: at most one common point, an endpoint lying on the other segment.
    let touches = (d1 == 0 && in_box(q1, q2, p1))
        || (d2 == 0 && in_box(q1, q2, p2))
        || (d3 == 0 && in_box(p1, p2, q1))
        || (d4 == 0 && in_box(p1, p2, q2));
    if touches {
        SegmentIntersection::Touching
    } else {
        SegmentIntersection::Disjoint
    }
}

/// [`segment_intersection`] of four points on one line: the overlap of the two segments'
/// intervals along a direction of that line (exact dot products, injective on the line).
fn collinear_intersection(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> SegmentIntersection {
    let dir = if p1 == p2 { q2 - q1 } else { p2 - p1 };
    if dir == Vec2::ZERO {
        // Two points.
        return if p1 == q1 {
            SegmentIntersection::Touching
        } else {
            SegmentIntersection::Disjoint
        };
    }
    let at = |x: Vec2| (x - p1).dot_wide(dir);
    let interval = |a: Vec2, b: Vec2| {
        let (s, t) = (at(a), at(b));
        (s.min(t), s.max(t))
    };
    let (p_lo, p_hi) = interval(p1, p2);
    let (q_lo, q_hi) = interval(q1, q2);
    match p_lo.max(q_lo).cmp(&p_hi.min(q_hi)) {
        Ordering::Greater => SegmentIntersection::Disjoint,
        Ordering::Equal => SegmentIntersection::Touching,
        Ordering::Less => SegmentIntersection::Overlapping,
    }
}

/// Whether the closed segments `p1 p2` and `q1 q2` share at least one point (crossing, touching
/// or overlapping), exact. Either may be degenerate.
///
/// ```
/// use lockstep_orca::geom::segments_intersect;
/// use lockstep_orca::Vec2;
///
/// let v = Vec2::from_int;
/// assert!(segments_intersect(v(0, 0), v(2, 0), v(2, 0), v(2, 5))); // shared endpoint
/// assert!(!segments_intersect(v(0, 0), v(2, 0), v(3, -1), v(3, 1)));
/// ```
#[inline]
#[must_use]
pub fn segments_intersect(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> bool {
    segment_intersection(p1, p2, q1, q2) != SegmentIntersection::Disjoint
}

/// Bit length of `|v|`.
#[inline]
fn bit_len(v: i128) -> u32 {
    128 - v.unsigned_abs().leading_zeros()
}

/// `num / den` as [`Fx`] (truncated toward zero after scaling), for `den > 0` and quotients
/// within `±2³¹`.
///
/// Both operands are first shifted right together until `num` fits 94 bits, so `num << 32`
/// cannot overflow; the quotient keeps at least 60 significant bits.
#[must_use]
pub(crate) fn ratio(num: i128, den: i128) -> Fx {
    debug_assert!(den > 0, "ratio needs a positive denominator");
    let k = bit_len(num).saturating_sub(94);
    let (n, d) = (num >> k, den >> k);
    if d == 0 {
        // Only reachable when the quotient exceeds the documented bound: saturate.
        return if num >= 0 { Fx::MAX } else { Fx::MIN };
    }
    let q = (n << 32) / d;
    Fx::from_bits(q.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

/// One [`Fx`] value as raw Q64.64 (to add or compare with wide products).
#[inline]
#[must_use]
pub(crate) fn wide(v: Fx) -> i128 {
    wide_mul(v, Fx::ONE)
}

/// Squared distance from `q` to the closed segment `a b`, in raw Q64.64 units (compare it with
/// [`wide_mul`]`(r, r)`). `a == b` is allowed: the distance to that point.
///
/// # Rounding
/// Where the nearest point is an endpoint (the projection of `q` falls outside the open
/// segment, or the segment is a point), the result is the exact `|q − a|²` or `|q − b|²`.
/// Beside the segment it is `p²` (squared exactly) for the perpendicular distance
/// `p = |det(b − a, q − a)| / ℓ`, divided in raw units and truncated, with `ℓ =`
/// [`(b − a).length()`](Vec2::length), the floored length. So `p` never exceeds the quotient by
/// the floored length, and with `h` the exact distance, in the domain of the module,
/// `h − 2⁻³¹ < p ≤ h · |b − a| / ℓ`: at most two ulps below, and above by at most the relative
/// error of the floored length, one ulp of `ℓ` (below 2⁻²⁰ relative for segments longer than
/// 2⁻¹² units). Points exactly on the segment give exactly zero; a point within about an ulp of
/// it may too.
///
/// ```
/// use lockstep_orca::geom::dist_sq_point_segment;
/// use lockstep_orca::math::wide_mul;
/// use lockstep_orca::{Fx, Vec2};
///
/// let (a, b) = (Vec2::from_int(0, 0), Vec2::from_int(10, 0));
/// let sq = |v: i32| wide_mul(Fx::from_num(v), Fx::from_num(v));
/// assert_eq!(dist_sq_point_segment(a, b, Vec2::from_int(-3, 4)), sq(5)); // nearest: a
/// assert_eq!(dist_sq_point_segment(a, b, Vec2::from_int(5, -7)), sq(7)); // beside
/// assert_eq!(dist_sq_point_segment(a, a, Vec2::from_int(3, 4)), sq(5)); // a point
/// ```
#[must_use]
pub fn dist_sq_point_segment(a: Vec2, b: Vec2, q: Vec2) -> i128 {
    let e = b - a;
    let d = q - a;
    let s_num = d.dot_wide(e);
    if s_num <= 0 {
        return d.length_squared_wide();
    }
    let len_sq = e.length_squared_wide();
    if s_num >= len_sq {
        return (q - b).length_squared_wide();
    }
    let perp = ratio(e.det_wide(d).abs(), wide(e.length()));
    wide_mul(perp, perp)
}

/// Squared distance between the closed segments `p1 p2` and `q1 q2`, in raw Q64.64 units:
/// zero when they intersect ([`segments_intersect`], exact), otherwise the least of the four
/// endpoint-to-segment distances, each as [`dist_sq_point_segment`] rounds it. When a segment
/// is a single point, the distance from that point to the other segment.
///
/// ```
/// use lockstep_orca::geom::dist_sq_segment_segment;
/// use lockstep_orca::math::wide_mul;
/// use lockstep_orca::{Fx, Vec2};
///
/// let v = Vec2::from_int;
/// let one = wide_mul(Fx::ONE, Fx::ONE);
/// assert_eq!(dist_sq_segment_segment(v(0, 0), v(2, 0), v(3, -1), v(3, 1)), one);
/// assert_eq!(dist_sq_segment_segment(v(0, 0), v(2, 2), v(0, 2), v(2, 0)), 0);
/// ```
#[must_use]
pub fn dist_sq_segment_segment(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> i128 {
    if p1 == p2 {
        return dist_sq_point_segment(q1, q2, p1);
    }
    if q1 == q2 {
        return dist_sq_point_segment(p1, p2, q1);
    }
    if segments_intersect(p1, p2, q1, q2) {
        return 0;
    }
    dist_sq_point_segment(q1, q2, p1)
        .min(dist_sq_point_segment(q1, q2, p2))
        .min(dist_sq_point_segment(p1, p2, q1))
        .min(dist_sq_point_segment(p1, p2, q2))
}

/// The exact 256-bit product of two `u128` values as `(high, low)` halves (compare two of them
/// as tuples).
#[must_use]
pub(crate) fn mul_u128_wide(a: u128, b: u128) -> (u128, u128) {
    const LO: u128 = u64::MAX as u128;
    let (a1, a0) = (a >> 64, a & LO);
    let (b1, b0) = (b >> 64, b & LO);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    // Every partial product is below 2¹²⁸; the middle sum of three 64-bit halves fits too.
    let mid = (p00 >> 64) + (p01 & LO) + (p10 & LO);
    let low = (p00 & LO) | (mid << 64);
    let high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (high, low)
}

/// How the distance from `q` to the closed segment `a b` compares with `r`, exact:
/// [`Ordering::Less`] when `q` is closer than `r`, [`Ordering::Equal`] at exactly `r`. No
/// rounding: squared distances are compared with `r²` as exact integers, beside the segment as
/// `det(b − a, q − a)² ⋛ r²·|b − a|²` in 256 bits. A negative `r` is below every distance
/// ([`Ordering::Greater`]). `a == b` is allowed.
///
/// Where [`dist_sq_point_segment`] rounds (beside a segment), a comparison of its result with
/// `r²` can be off near the boundary; this one cannot.
///
/// ```
/// use lockstep_orca::geom::cmp_dist_point_segment;
/// use lockstep_orca::{Fx, Vec2};
/// use std::cmp::Ordering;
///
/// // A wall from (0, 0) to (3, 4) and a point 5 units beside its middle.
/// let (a, b) = (Vec2::from_int(0, 0), Vec2::from_int(3, 4));
/// let q = Vec2::new(Fx::lit("5.5"), Fx::from_num(-1));
/// let five = Fx::from_num(5);
/// assert_eq!(cmp_dist_point_segment(a, b, q, five), Ordering::Equal);
/// assert_eq!(cmp_dist_point_segment(a, b, q, five + Fx::DELTA), Ordering::Less);
/// assert_eq!(cmp_dist_point_segment(a, b, q, five - Fx::DELTA), Ordering::Greater);
/// ```
#[must_use]
pub fn cmp_dist_point_segment(a: Vec2, b: Vec2, q: Vec2, r: Fx) -> Ordering {
    if r < Fx::ZERO {
        return Ordering::Greater;
    }
    let r_sq = wide_mul(r, r);
    let e = b - a;
    let d = q - a;
    let s_num = d.dot_wide(e);
    if s_num <= 0 {
        return d.length_squared_wide().cmp(&r_sq);
    }
    let len_sq = e.length_squared_wide();
    if s_num >= len_sq {
        return (q - b).length_squared_wide().cmp(&r_sq);
    }
    let det = e.det_wide(d).unsigned_abs();
    mul_u128_wide(det, det).cmp(&mul_u128_wide(r_sq.unsigned_abs(), len_sq.unsigned_abs()))
}

/// How the distance between the closed segments `p1 p2` and `q1 q2` compares with `r`, exact
/// (zero when they intersect; otherwise the least endpoint-to-segment distance, each compared
/// as [`cmp_dist_point_segment`] does). A gap between two walls is narrower than `2r` exactly
/// when this is [`Ordering::Less`] for `2r`.
///
/// ```
/// use lockstep_orca::geom::cmp_dist_segment_segment;
/// use lockstep_orca::{Fx, Vec2};
/// use std::cmp::Ordering;
///
/// let v = Vec2::from_int;
/// // Two walls 1.5 apart: a unit of radius 0.75 just fits, one of radius 0.76 does not.
/// let (a, b) = (v(0, 0), v(0, 5));
/// let (c, d) = (Vec2::new(Fx::lit("1.5"), Fx::ZERO), Vec2::new(Fx::lit("1.5"), Fx::from_num(5)));
/// assert_eq!(cmp_dist_segment_segment(a, b, c, d, Fx::lit("1.5")), Ordering::Equal);
/// assert_eq!(cmp_dist_segment_segment(a, b, c, d, Fx::lit("1.52")), Ordering::Less);
/// assert_eq!(cmp_dist_segment_segment(a, b, b, c, Fx::ZERO), Ordering::Equal); // they touch
/// ```
#[must_use]
pub fn cmp_dist_segment_segment(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2, r: Fx) -> Ordering {
    if segments_intersect(p1, p2, q1, q2) {
        return Fx::ZERO.cmp(&r);
    }
    cmp_dist_point_segment(q1, q2, p1, r)
        .min(cmp_dist_point_segment(q1, q2, p2, r))
        .min(cmp_dist_point_segment(p1, p2, q1, r))
        .min(cmp_dist_point_segment(p1, p2, q2, r))
}

/// The band of half-width `r` around the line through `p1 p2`, for a cheap exact test that a
/// segment stays out of it: both its ends strictly on one side of the line, each at least `r`
/// from it. Every point of such a segment is then at least `r` from the line, so from the
/// segment `p1 p2`, and [`cmp_dist_segment_segment`]`(p1, p2, a, b, r)` is not
/// [`Ordering::Less`]. Two cross products and one wide square per test, where the exact
/// comparison takes four point-to-segment distances.
pub(crate) struct LineBand {
    p: Vec2,
    e: Vec2,
    /// `(r² · |e|²)`, 256 bits.
    bound: (u128, u128),
}

impl LineBand {
    /// The band around `p1 p2` (with `r ≤ 0`, only the line itself).
    pub(crate) fn new(p1: Vec2, p2: Vec2, r: Fx) -> Self {
        let e = p2 - p1;
        let r = r.max(Fx::ZERO);
        let bound = mul_u128_wide(
            wide_mul(r, r).unsigned_abs(),
            e.length_squared_wide().unsigned_abs(),
        );
        Self { p: p1, e, bound }
    }

    /// Whether the segment `a b` lies wholly outside the band (so farther than `r` from the
    /// band's segment). `false` decides nothing.
    pub(crate) fn outside(&self, a: Vec2, b: Vec2) -> bool {
        let da = self.e.det_wide(a - self.p);
        let db = self.e.det_wide(b - self.p);
        if da == 0 || db == 0 || (da > 0) != (db > 0) {
            return false;
        }
        let m = da.unsigned_abs().min(db.unsigned_abs());
        mul_u128_wide(m, m) >= self.bound
    }
}

/// Twice the signed area of a ring as `carry · 2¹²⁸ + sum`, exact for any [`Fx`] coordinates
/// (each term `det(vᵢ, vᵢ₊₁)` fits `i128`; overflows of the running sum are counted in
/// `carry`).
fn area2_parts(ring: &[Vec2]) -> (i64, i128) {
    let n = ring.len();
    let mut carry = 0i64;
    let mut sum = 0i128;
    for i in 0..n {
        let term = ring[i].det_wide(ring[(i + 1) % n]);
        let (next, overflowed) = sum.overflowing_add(term);
        if overflowed {
            carry += if term > 0 { 1 } else { -1 };
        }
        sum = next;
    }
    (carry, sum)
}

/// Twice the signed area of the ring (shoelace formula `Σ det(vᵢ, vᵢ₊₁)`), exact, in raw
/// Q64.64 units: positive for a counter-clockwise simple polygon, negative for a clockwise one;
/// for a self-intersecting ring, the sum of the areas weighted by their winding numbers.
///
/// `None` when the value does not fit `i128`, which cannot happen for fewer than 2²¹ vertices
/// within the simulator's coordinate domain (`|x|, |y| ≤ 10⁶`: each term is below 2¹⁰⁶). Fewer
/// than three vertices give `Some(0)`. [`polygon_orientation`] gives the sign for any ring.
///
/// ```
/// use lockstep_orca::geom::polygon_area2;
/// use lockstep_orca::math::wide_mul;
/// use lockstep_orca::{Fx, Vec2};
///
/// let v = Vec2::from_int;
/// let square = [v(0, 0), v(3, 0), v(3, 3), v(0, 3)];
/// let nine = wide_mul(Fx::from_num(9), Fx::ONE);
/// assert_eq!(polygon_area2(&square), Some(2 * nine));
/// let clockwise: Vec<Vec2> = square.iter().rev().copied().collect();
/// assert_eq!(polygon_area2(&clockwise), Some(-2 * nine));
/// ```
#[must_use]
pub fn polygon_area2(ring: &[Vec2]) -> Option<i128> {
    let (carry, sum) = area2_parts(ring);
    (carry == 0).then_some(sum)
}

/// The turn of a ring: the exact sign of its signed area ([`polygon_area2`]), for any number of
/// vertices and any [`Fx`] coordinates. [`Orientation::Collinear`] for a ring of zero area
/// (fewer than three vertices, all vertices on one line, or lobes that cancel).
///
/// By RVO2's obstacle convention a counter-clockwise polygon is a solid obstacle and a clockwise
/// one a room that keeps agents inside ([`crate::obstacle`]).
///
/// ```
/// use lockstep_orca::geom::{polygon_orientation, Orientation};
/// use lockstep_orca::Vec2;
///
/// let tri = [Vec2::from_int(0, 0), Vec2::from_int(4, 0), Vec2::from_int(0, 4)];
/// assert_eq!(polygon_orientation(&tri), Orientation::CounterClockwise);
/// let flat = [Vec2::from_int(0, 0), Vec2::from_int(1, 0), Vec2::from_int(3, 0)];
/// assert_eq!(polygon_orientation(&flat), Orientation::Collinear);
/// ```
#[must_use]
pub fn polygon_orientation(ring: &[Vec2]) -> Orientation {
    let (carry, sum) = area2_parts(ring);
    // |sum| ≤ 2¹²⁷ < 2¹²⁸, so a non-zero carry decides the sign.
    Orientation::of_sign(if carry == 0 { sum } else { i128::from(carry) })
}

/// Where a point lies relative to a ring ([`point_in_polygon`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Containment {
    /// Off the boundary, winding number zero.
    Outside,
    /// On an edge or a vertex of the ring (exactly).
    Boundary,
    /// Off the boundary, winding number non-zero.
    Inside,
}

/// Where `p` lies relative to the ring: on its boundary (any closed edge, exact), or by the
/// **nonzero winding rule** inside or outside. The rule is the same for both turns of the ring:
/// a clockwise square contains the same points as the counter-clockwise one. For a simple
/// polygon it is the ordinary interior; a self-intersecting ring's lobes that wind twice count
/// as inside. Zero-length edges are allowed (they add no winding); fewer than three vertices
/// give only [`Containment::Boundary`] (on a vertex or the segment) or
/// [`Containment::Outside`].
///
/// The winding number counts the edges crossing the horizontal ray from `p` to `+x`: an edge
/// from `a` to `b` with `a.y ≤ p.y < b.y` and `p` left of it adds one, an edge with
/// `b.y ≤ p.y < a.y` and `p` right of it takes one away (exact [`left_of`] signs). `O(n)`.
///
/// ```
/// use lockstep_orca::geom::{point_in_polygon, Containment};
/// use lockstep_orca::Vec2;
///
/// let v = Vec2::from_int;
/// let square = [v(0, 0), v(4, 0), v(4, 4), v(0, 4)];
/// assert_eq!(point_in_polygon(&square, v(1, 1)), Containment::Inside);
/// assert_eq!(point_in_polygon(&square, v(4, 2)), Containment::Boundary);
/// assert_eq!(point_in_polygon(&square, v(0, 0)), Containment::Boundary);
/// assert_eq!(point_in_polygon(&square, v(5, 2)), Containment::Outside);
/// let clockwise = [v(0, 0), v(0, 4), v(4, 4), v(4, 0)];
/// assert_eq!(point_in_polygon(&clockwise, v(1, 1)), Containment::Inside);
/// ```
#[must_use]
pub fn point_in_polygon(ring: &[Vec2], p: Vec2) -> Containment {
    let n = ring.len();
    let mut winding = 0i64;
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        let l = left_of(a, b, p);
        if l == 0 && in_box(a, b, p) {
            return Containment::Boundary;
        }
        if a.y <= p.y {
            if b.y > p.y && l > 0 {
                winding += 1;
            }
        } else if b.y <= p.y && l < 0 {
            winding -= 1;
        }
    }
    if winding == 0 {
        Containment::Outside
    } else {
        Containment::Inside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: i32, y: i32) -> Vec2 {
        Vec2::from_int(x, y)
    }

    #[test]
    fn ratio_is_exact_on_small_values_and_keeps_precision_on_huge_ones() {
        assert_eq!(
            ratio(wide(Fx::from_num(3)), wide(Fx::from_num(4))),
            Fx::lit("0.75")
        );
        assert_eq!(
            ratio(-wide(Fx::ONE), wide(Fx::from_num(2))),
            -Fx::lit("0.5")
        );
        // 2.5e12 / 5e12 with operands near 2^105.
        let a = wide_mul(Fx::from_num(1_000_000), Fx::from_num(2_500_000));
        let b = wide_mul(Fx::from_num(2_000_000), Fx::from_num(2_500_000));
        assert_eq!(ratio(a, b), Fx::lit("0.5"));
    }

    #[test]
    fn point_segment_distance_in_each_region() {
        let (a, b) = (v(0, 0), v(10, 0));
        assert_eq!(
            dist_sq_point_segment(a, b, v(-3, 4)),
            wide(Fx::from_num(25))
        );
        assert_eq!(
            dist_sq_point_segment(a, b, v(13, 4)),
            wide(Fx::from_num(25))
        );
        assert_eq!(
            dist_sq_point_segment(a, b, v(5, -7)),
            wide(Fx::from_num(49))
        );
        // Far from the origin: the same answer (translation invariance).
        let o = v(999_000, -999_000);
        assert_eq!(
            dist_sq_point_segment(a + o, b + o, v(5, -7) + o),
            wide(Fx::from_num(49))
        );
    }

    #[test]
    fn the_floored_length_can_lift_the_distance_of_a_tiny_segment() {
        // A segment one ulp by one ulp (exact length √2 ulps, floored to 1) and a point about
        // √2 units beside it: the quotient by the floored length gives 2 units, as documented.
        let a = Vec2::ZERO;
        let b = Vec2::from_bits(1, 1);
        let q = Vec2::from_bits(1 << 32, -(1 << 32) + 1);
        let p = Fx::from_bits((1 << 33) - 1);
        assert_eq!(dist_sq_point_segment(a, b, q), wide_mul(p, p));
    }

    proptest::proptest! {
        /// A segment outside a line's band is never closer than `r` to the band's segment.
        #[test]
        fn outside_the_band_is_never_closer_than_r(
            c in proptest::collection::vec(-3000i64..3000, 8),
            r in 0i64..2000,
        ) {
            let p = |i: usize| Vec2::from_bits(c[i] << 8, c[i + 1] << 8);
            let (p1, p2, a, b) = (p(0), p(2), p(4), p(6));
            let r = Fx::from_bits(r << 8);
            if LineBand::new(p1, p2, r).outside(a, b) {
                proptest::prop_assert_ne!(cmp_dist_segment_segment(p1, p2, a, b, r), Ordering::Less);
            }
        }
    }

    #[test]
    fn the_band_decides_what_it_can() {
        let (p1, p2) = (v(0, 0), v(10, 0));
        let band = LineBand::new(p1, p2, Fx::from_num(2));
        // Both ends 2 or more above the line: outside (exactly 2 counts, as `Equal` is not less).
        assert!(band.outside(v(-5, 2), v(20, 3)));
        // One end within the band, or the two ends on both sides: no answer.
        assert!(!band.outside(v(3, 1), v(20, 3)));
        assert!(!band.outside(v(3, -3), v(4, 3)));
        // Far beyond the segment's end but within the band: no answer (the test is the line's).
        assert!(!band.outside(v(50, 1), v(60, 1)));
        // A point segment: only the line itself.
        assert!(!LineBand::new(p1, p1, Fx::ONE).outside(v(1, 5), v(2, 5)));
    }

    #[test]
    fn wide_product_is_exact() {
        assert_eq!(mul_u128_wide(3, 5), (0, 15));
        assert_eq!(mul_u128_wide(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
        assert_eq!(mul_u128_wide(1 << 127, 4), (2, 0));
        let a = 0x1234_5678_9abc_def0_1122_3344_5566_7788_u128;
        let b = 0x0fed_cba9_8765_4321_u128;
        // a·b < 2¹⁸⁸: check against a split by hand (b < 2⁶⁴, so high = (a >> 64)·b >> 64 ...).
        let (a1, a0) = (a >> 64, a & u128::from(u64::MAX));
        let low = a0 * b;
        let high_part = a1 * b + (low >> 64);
        assert_eq!(
            mul_u128_wide(a, b),
            (
                high_part >> 64,
                (high_part << 64) | (low & u128::from(u64::MAX))
            )
        );
    }

    #[test]
    fn ring_area_counts_overflows_of_the_running_sum() {
        // Terms near ±2¹²⁷: the sum leaves i128 but the sign is still exact.
        let m = Fx::MAX;
        let big = [
            Vec2::new(-m, -m),
            Vec2::new(m, -m),
            Vec2::new(m, m),
            Vec2::new(-m, m),
        ];
        assert_eq!(polygon_area2(&big), None);
        assert_eq!(polygon_orientation(&big), Orientation::CounterClockwise);
        let rev: Vec<Vec2> = big.iter().rev().copied().collect();
        assert_eq!(polygon_orientation(&rev), Orientation::Clockwise);
        assert_eq!(polygon_area2(&[]), Some(0));
        assert_eq!(polygon_area2(&[v(1, 2)]), Some(0));
        assert_eq!(polygon_area2(&[v(1, 2), v(5, -3)]), Some(0));
    }
}

//! Exact and near-exact position-scale geometry shared by the obstacle code.
//!
//! Coordinates span ±10⁶, so position differences reach about 2.9·10⁶ and their products about
//! 8·10¹² — beyond [`Fx`]'s 2³¹. Everything here works on exact `i128` Q64.64 products
//! ([`Vec2::det_wide`], [`Vec2::dot_wide`]) and converts back with [`ratio`], a quotient of two
//! `i128` values with about 60 significant bits. Every function takes differences only, so its
//! result is invariant under translation of all inputs.

use crate::math::{Fx, Vec2, wide_mul};

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
pub fn ratio(num: i128, den: i128) -> Fx {
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

/// `det(b − a, c − a)`: positive when `c` lies left of the directed line `a → b` (RVO2's
/// `leftOf`), exact.
#[inline]
#[must_use]
pub fn left_of(a: Vec2, b: Vec2, c: Vec2) -> i128 {
    (b - a).det_wide(c - a)
}

/// One [`Fx`] value as raw Q64.64 (to add or compare with wide products).
#[inline]
#[must_use]
pub fn wide(v: Fx) -> i128 {
    wide_mul(v, Fx::ONE)
}

/// `|v|` rounded up (the floor of the exact root plus one ulp), for conservative bounds.
#[inline]
#[must_use]
pub fn length_ceil(v: Vec2) -> Fx {
    Fx::from_bits(v.length().to_bits().saturating_add(1))
}

/// Squared distance from `q` to the segment `a b` as raw Q64.64.
///
/// Beyond the segment's ends it is the exact squared distance to the nearer end; beside the
/// segment it is the square of the perpendicular distance `|det(b − a, q − a)| / |b − a|`
/// (one [`ratio`] rounding). `a != b`.
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

/// Whether the closed segments `p1 p2` and `q1 q2` share a point (exact orientation tests).
#[must_use]
pub fn segments_intersect(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> bool {
    let d1 = left_of(q1, q2, p1).signum();
    let d2 = left_of(q1, q2, p2).signum();
    let d3 = left_of(p1, p2, q1).signum();
    let d4 = left_of(p1, p2, q2).signum();
    if d1 * d2 < 0 && d3 * d4 < 0 {
        return true;
    }
    (d1 == 0 && on_segment(q1, q2, p1))
        || (d2 == 0 && on_segment(q1, q2, p2))
        || (d3 == 0 && on_segment(p1, p2, q1))
        || (d4 == 0 && on_segment(p1, p2, q2))
}

/// For `c` collinear with `a b`: whether it lies within the closed segment.
#[inline]
fn on_segment(a: Vec2, b: Vec2, c: Vec2) -> bool {
    c.x >= a.x.min(b.x) && c.x <= a.x.max(b.x) && c.y >= a.y.min(b.y) && c.y <= a.y.max(b.y)
}

/// Squared distance between the closed segments `p1 p2` and `q1 q2` (raw Q64.64): zero when
/// they intersect, otherwise the least of the four endpoint-to-segment distances. A segment may
/// be a single point.
#[must_use]
pub fn dist_sq_segment_segment(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> i128 {
    let point_seg = |a: Vec2, b: Vec2, q: Vec2| {
        if a == b {
            (q - a).length_squared_wide()
        } else {
            dist_sq_point_segment(a, b, q)
        }
    };
    if p1 == p2 {
        return point_seg(q1, q2, p1);
    }
    if q1 == q2 {
        return point_seg(p1, p2, q1);
    }
    if segments_intersect(p1, p2, q1, q2) {
        return 0;
    }
    point_seg(q1, q2, p1)
        .min(point_seg(q1, q2, p2))
        .min(point_seg(p1, p2, q1))
        .min(point_seg(p1, p2, q2))
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
    fn segment_intersection_cases() {
        assert!(segments_intersect(v(0, 0), v(2, 2), v(0, 2), v(2, 0)));
        assert!(!segments_intersect(v(0, 0), v(1, 1), v(2, 2), v(3, 3)));
        assert!(segments_intersect(v(0, 0), v(2, 2), v(1, 1), v(3, 3)));
        assert!(segments_intersect(v(0, 0), v(2, 0), v(2, 0), v(2, 5)));
        assert!(!segments_intersect(v(0, 0), v(2, 0), v(3, -1), v(3, 1)));
        assert_eq!(
            dist_sq_segment_segment(v(0, 0), v(2, 0), v(3, -1), v(3, 1)),
            wide(Fx::ONE)
        );
    }
}

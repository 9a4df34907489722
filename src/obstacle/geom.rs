//! Position-scale helpers of the obstacle code that are not general geometry: the exact sign of
//! a determinant against RVO2's tangent legs ([`tangent_det_sign`]) and a conservative length.
//!
//! The general exact predicates (orientation, segment intersection, point–segment distance) and
//! the 256-bit product are in [`crate::geom`]. Every function takes differences only, so its
//! result is invariant under translation of all inputs.

use crate::geom::mul_u128_wide;
use crate::math::{Fx, Vec2, wide_mul};
use std::cmp::Ordering;

/// `|v|` rounded up (the floor of the exact root plus one ulp), for conservative bounds.
#[inline]
#[must_use]
pub fn length_ceil(v: Vec2) -> Fx {
    Fx::from_bits(v.length().to_bits().saturating_add(1))
}

/// Sign of `det(leg, q)` for the **exact** tangent direction `leg` from a point to the disc of
/// `radius` around a vertex at `rel` from it (`|rel| > radius`), the left tangent when `left`
/// (RVO2's left leg, [`super::lines`]' `left_leg`) else the right one; `q` is any vector.
///
/// The legs are `(√(|rel|² − r²)·rel ± r·perp(rel)) / |rel|²` (+ for the left one), so
/// `det(leg, q)·|rel|² = l·X ∓ r·Y` with `l = √(|rel|² − r²)`, `X = det(rel, q)`,
/// `Y = rel · q`. When the two terms have opposite signs their magnitudes compare like
/// `X² − r²·|q|²`, because `l²X² − r²Y² = |rel|²·X² − r²(X² + Y²) = |rel|²(X² − r²|q|²)`
/// (Lagrange's identity `X² + Y² = |rel|²|q|²`). Everything is an exact integer: no rounding
/// decides the sign, unlike `det` of the rounded leg, whose sign is noise when the leg is within
/// an ulp of `q` or `−q`.
#[must_use]
pub fn tangent_det_sign(rel: Vec2, radius: Fx, q: Vec2, left: bool) -> Ordering {
    let x = rel.det_wide(q);
    let y = rel.dot_wide(q);
    // det(leg, q)·|rel|² = l·X + r·Z.
    let z = if left { -y } else { y };
    let leg_positive = rel.length_squared_wide() > wide_mul(radius, radius);
    let sign_a = if leg_positive {
        x.cmp(&0)
    } else {
        Ordering::Equal
    };
    let sign_b = if radius > Fx::ZERO {
        z.cmp(&0)
    } else {
        Ordering::Equal
    };
    if sign_a == Ordering::Equal || sign_a == sign_b {
        return if sign_a == Ordering::Equal {
            sign_b
        } else {
            sign_a
        };
    }
    if sign_b == Ordering::Equal {
        return sign_a;
    }
    // Opposite signs: |l·X| against |r·Z| is X² against r²·|q|².
    let x_sq = mul_u128_wide(x.unsigned_abs(), x.unsigned_abs());
    let r_sq = wide_mul(radius, radius).unsigned_abs();
    let rq_sq = mul_u128_wide(r_sq, q.length_squared_wide().unsigned_abs());
    match x_sq.cmp(&rq_sq) {
        Ordering::Greater => sign_a,
        Ordering::Less => sign_b,
        Ordering::Equal => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: i32, y: i32) -> Vec2 {
        Vec2::from_int(x, y)
    }

    #[test]
    fn tangent_det_sign_matches_hand_computed_legs() {
        // Disc of radius 1 around rel = (2, 1) (|rel|² = 5, leg 2): left leg (0.6, 0.8), right
        // leg (1, 0). Integer q (any length) keep every case exact, ties included.
        let rel = v(2, 1);
        let r = Fx::ONE;
        let (lt, eq, gt) = (Ordering::Less, Ordering::Equal, Ordering::Greater);
        for (q, left_sign, right_sign) in [
            (v(0, 1), gt, gt),   // 0.6, 1
            (v(0, -1), lt, lt),  // −0.6, −1
            (v(1, 0), lt, eq),   // −0.8, 0
            (v(-3, -4), eq, lt), // 0, −4: q antiparallel to the left leg
            (v(3, 4), eq, gt),   // 0, 4: q along the left leg
            (v(2, 1), lt, gt),   // −1, 1
            (v(4, 1), lt, gt),   // −2.6, 1: opposite-sign terms, decided by X² vs r²|q|²
            (v(-10, 1), gt, gt), // 8.6, 1
        ] {
            assert_eq!(tangent_det_sign(rel, r, q, true), left_sign, "left {q:?}");
            assert_eq!(
                tangent_det_sign(rel, r, q, false),
                right_sign,
                "right {q:?}"
            );
        }
    }

    #[test]
    fn tangent_det_sign_is_exact_at_a_wall_end() {
        // A point 4 ulps (δ) beyond r = 1/2 from the line x = 0, 4.4 below the vertex (0, 5):
        // the left tangent is about (δ/4.4, 1), below one ulp from (0, 1), so the sign of det
        // with the rounded leg is noise; exactly it is negative.
        let rel = Vec2::new(Fx::lit("0.5") + Fx::from_bits(4), Fx::lit("4.4"));
        let q = v(0, -1);
        assert_eq!(
            tangent_det_sign(rel, Fx::lit("0.5"), q, true),
            Ordering::Less
        );
        // Exactly at distance r the tangent is parallel to the wall: det is exactly zero.
        let rel = Vec2::new(Fx::lit("0.5"), Fx::lit("4.4"));
        assert_eq!(
            tangent_det_sign(rel, Fx::lit("0.5"), q, true),
            Ordering::Equal
        );
    }
}

//! Fixed-point scalar and 2-D vector: the numeric core every other module stands on.
//!
//! # The scalar
//! [`Fx`] is `fixed::types::I32F32`: a signed 64-bit integer read as Q32.32, range
//! ±2,147,483,648 with a resolution of 2⁻³² ≈ 2.3·10⁻¹⁰. Arithmetic is integer arithmetic, so
//! every operation gives the same bits on every CPU.
//!
//! # Rounding, stated once
//! * `a * b` (from `fixed`): exact i128 product, then an arithmetic shift — rounds toward −∞.
//! * `a / b` (from `fixed`): truncates toward zero, so `(-a) / b == -(a / b)` exactly. The tick
//!   divides with [`fx_div`] / [`fx_saturating_div`] (same bits, faster).
//! * [`Vec2::dot`], [`Vec2::det`], [`Vec2::length_squared`]: the two raw products are summed
//!   exactly in i128 and shifted once (toward −∞): one rounding, not three.
//! * [`sqrt`] and [`Vec2::length`]: the floor of the exact root (integer square root of the raw
//!   bits, [`isqrt_u128`]: core's `u128::isqrt`, computed faster), so `length` of an exact `i128`
//!   sum of squares has a single rounding.
//!
//! Products of two in-range scalars always fit an `i128` ([`wide_mul`]); comparisons such as
//! `a² > b²·c²` are done there, exactly, instead of in the scalar where they could overflow.
//!
//! # Overflow
//! The simulator validates its inputs against the domain documented in [`crate::domain`], inside
//! which no scalar operation here can overflow. `fixed` panics on overflow in debug builds, so the
//! test suite (run in debug) would catch a violation of that proof.
//!
//! # Layout
//! The scalar and its rounding rules are here; [`Vec2`] is in `vec2.rs`; the integer kernels
//! behind them (the exact product [`wide_mul`] and [`narrow`], the integer square roots and
//! their seed tables, the divisions without a hardware divide, [`FxReciprocal`]) are in
//! `kernels.rs`, each with its error proof and the test that checks it. Every item is reached
//! as `math::NAME`.

use fixed::types::I32F32;

mod kernels;
mod vec2;

pub(crate) use kernels::root_bound;
pub use kernels::{
    FxReciprocal, div_trunc, fx_div, fx_saturating_div, isqrt_u128, narrow, wide_mul,
};
pub use vec2::{Vec2, unit_from_turns};

/// The simulation scalar: Q32.32 fixed point (`fixed::types::I32F32`).
///
/// Range ±2³¹, resolution 2⁻³² ≈ 2.3·10⁻¹⁰. See the [module docs](self) for rounding rules.
pub type Fx = I32F32;

/// Number of fraction bits of [`Fx`].
pub const FRAC_BITS: u32 = 32;

/// RVO2's `RVO_EPSILON` (1e-5), rounded to the nearest [`Fx`] (42,950 ulps).
pub const EPSILON: Fx = Fx::from_bits(42_950);

/// `1/2` in [`Fx`].
pub const HALF: Fx = Fx::from_bits(1 << 31);

/// Square root, the floor of the exact root. Negative inputs give zero.
///
/// Computed as the integer square root of `bits << 32`, so it is exact to the last bit and the
/// same on every platform.
#[inline]
#[must_use]
pub fn sqrt(a: Fx) -> Fx {
    if a <= Fx::ZERO {
        return Fx::ZERO;
    }
    Fx::from_bits(isqrt_u128((a.to_bits() as u128) << FRAC_BITS) as i64)
}

/// Square root of a raw Q64.64 value (as produced by [`wide_mul`] sums), floored, as [`Fx`].
///
/// Negative inputs give zero. One rounding in all: `sqrt(a² + b²)` is exact to the last bit.
#[inline]
#[must_use]
pub fn sqrt_wide(wide: i128) -> Fx {
    if wide <= 0 {
        return Fx::ZERO;
    }
    let root = isqrt_u128(wide as u128);
    debug_assert!(
        root <= i64::MAX as u128,
        "fixed-point overflow in sqrt_wide"
    );
    Fx::from_bits(root as i64)
}

/// `a²` in [`Fx`] (rounded toward −∞).
#[inline]
#[must_use]
pub fn sqr(a: Fx) -> Fx {
    narrow(wide_mul(a, a))
}

/// Converts an `f64` to [`Fx`], rounding to nearest. **User I/O only** — never used by the tick.
/// Returns `None` for NaN, infinities and values outside the scalar's range.
#[must_use]
pub fn fx_from_f64(v: f64) -> Option<Fx> {
    Fx::checked_from_num(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqrt_is_floor_of_exact_root() {
        assert_eq!(sqrt(Fx::from_num(4)), Fx::from_num(2));
        assert_eq!(sqrt(Fx::from_num(2)).to_bits(), 6_074_000_999); // floor(sqrt(2)·2³²)
        assert_eq!(sqrt(Fx::ZERO), Fx::ZERO);
        assert_eq!(sqrt(Fx::from_num(-1)), Fx::ZERO);
        // Agrees with fixed's own sqrt (also a floor) on a sweep of values.
        for bits in [1i64, 3, 1 << 20, 123_456_789_012, i64::MAX] {
            let v = Fx::from_bits(bits);
            assert_eq!(sqrt(v), v.sqrt(), "bits {bits}");
        }
    }
}

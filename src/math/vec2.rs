//! [`Vec2`], the 2-D vector of [`Fx`] (positions and velocities), and [`unit_from_turns`].

use super::kernels::{
    fx_div, isqrt_sum_estimate, isqrt_u128, narrow, recip_holds, sum_root_holds, wide_mul,
};
use super::{FRAC_BITS, Fx, fx_from_f64, sqrt_wide};
use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// A 2-D vector of [`Fx`]: positions (world units) and velocities (units per second).
///
/// Named like `glam`: [`dot`](Self::dot), [`perp`](Self::perp), [`det`](Self::det) (the 2-D
/// cross product, glam's `perp_dot`), [`length_squared`](Self::length_squared),
/// [`try_normalize`](Self::try_normalize). There is deliberately no `Vec2 * Vec2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Vec2 {
    /// x component.
    pub x: Fx,
    /// y component.
    pub y: Fx,
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Self = Self::new(Fx::ZERO, Fx::ZERO);

    /// Creates a vector from its components.
    #[inline]
    #[must_use]
    pub const fn new(x: Fx, y: Fx) -> Self {
        Self { x, y }
    }

    /// Creates a vector from raw Q32.32 bits (`x.to_bits()`, `y.to_bits()`).
    #[inline]
    #[must_use]
    pub const fn from_bits(x: i64, y: i64) -> Self {
        Self::new(Fx::from_bits(x), Fx::from_bits(y))
    }

    /// Creates a vector from integers (exact).
    #[inline]
    #[must_use]
    pub fn from_int(x: i32, y: i32) -> Self {
        Self::new(Fx::from_num(x), Fx::from_num(y))
    }

    /// Dot product, one rounding toward −∞. See also [`dot_wide`](Self::dot_wide).
    #[inline]
    #[must_use]
    pub fn dot(self, o: Self) -> Fx {
        narrow(self.dot_wide(o))
    }

    /// Exact dot product as raw Q64.64 bits.
    #[inline]
    #[must_use]
    pub fn dot_wide(self, o: Self) -> i128 {
        wide_mul(self.x, o.x) + wide_mul(self.y, o.y)
    }

    /// 2-D cross product `x·o.y − y·o.x` (RVO2's `det`; positive when `o` is to the left).
    #[inline]
    #[must_use]
    pub fn det(self, o: Self) -> Fx {
        narrow(self.det_wide(o))
    }

    /// Exact 2-D cross product as raw Q64.64 bits.
    #[inline]
    #[must_use]
    pub fn det_wide(self, o: Self) -> i128 {
        wide_mul(self.x, o.y) - wide_mul(self.y, o.x)
    }

    /// `|self|²`, one rounding toward −∞.
    #[inline]
    #[must_use]
    pub fn length_squared(self) -> Fx {
        narrow(self.length_squared_wide())
    }

    /// Exact `|self|²` as raw Q64.64 bits.
    #[inline]
    #[must_use]
    pub fn length_squared_wide(self) -> i128 {
        self.dot_wide(self)
    }

    /// `|self|`, the floor of the exact length (a single rounding).
    #[inline]
    #[must_use]
    pub fn length(self) -> Fx {
        sqrt_wide(self.length_squared_wide())
    }

    /// The vector rotated by +90°: `(-y, x)`.
    #[inline]
    #[must_use]
    pub fn perp(self) -> Self {
        Self::new(-self.y, self.x)
    }

    /// Unit vector in the direction of `self`, or `None` for the zero vector.
    ///
    /// Both components are first scaled to 62 significant bits, so even a vector a few ulps
    /// long gets a unit vector accurate to about 10⁻⁹; each quotient truncates toward zero, so
    /// `(-v).try_normalize() == v.try_normalize().map(|u| -u)` exactly.
    #[inline]
    #[must_use]
    pub fn try_normalize(self) -> Option<Self> {
        self.length_and_direction().map(|(_, unit)| unit)
    }

    /// [`length`](Self::length) and [`try_normalize`](Self::try_normalize) together, from one
    /// integer square root (bit-identical to calling both). `None` for the zero vector.
    ///
    /// Out of line (one copy): the ORCA cut-off branch, its hottest caller, inlines
    /// `length_and_direction_inlined` instead; inlining it everywhere costs more instructions
    /// than the calls (measured).
    #[inline(never)]
    #[must_use]
    pub fn length_and_direction(self) -> Option<(Fx, Self)> {
        self.length_and_direction_inlined()
    }

    /// [`length_and_direction`](Self::length_and_direction), always inlined.
    #[inline(always)]
    #[must_use]
    pub(crate) fn length_and_direction_inlined(self) -> Option<(Fx, Self)> {
        let (xb, yb) = (self.x.to_bits(), self.y.to_bits());
        let m = xb.unsigned_abs().max(yb.unsigned_abs());
        if m == 0 {
            return None;
        }
        Self::length_and_direction_nonzero(xb, yb, m, Some)
    }

    /// [`length_and_direction`](Self::length_and_direction) of a vector the caller knows to be
    /// nonzero, always inlined: the tuple straight in registers (an `Option` of it goes through
    /// memory), without the zero test. The zero vector, which debug builds reject, gives an
    /// unspecified result.
    #[inline(always)]
    #[must_use]
    pub(crate) fn length_and_direction_of_nonzero_inlined(self) -> (Fx, Self) {
        let (xb, yb) = (self.x.to_bits(), self.y.to_bits());
        let m = xb.unsigned_abs().max(yb.unsigned_abs());
        debug_assert!(
            m != 0,
            "length_and_direction_of_nonzero_inlined of the zero vector"
        );
        Self::length_and_direction_nonzero(xb, yb, m, |t| t)
    }

    /// The body of [`length_and_direction`](Self::length_and_direction) for a nonzero vector of
    /// raw components `xb`, `yb`, `m = max(|xb|, |yb|)` > 0, its result passed through `wrap`
    /// at each return (so that an `Option` is built in place, not copied).
    #[inline(always)]
    fn length_and_direction_nonzero<R>(
        xb: i64,
        yb: i64,
        m: u64,
        wrap: impl Fn((Fx, Self)) -> R,
    ) -> R {
        if m >= 1 << 62 {
            return wrap(Self::length_and_direction_dividing(xb, yb, m));
        }
        // Scale both components up by 2^s so the larger has exactly 62 significant bits: the
        // quotients then carry full precision even for vectors a few ulps long. The scaled root
        // shifted back is exactly `length()`: floor(floor(2^s·√X) / 2^s) = floor(√X).
        let s = m.leading_zeros() - 2;
        // max(|x|, |y|) ∈ [2⁶¹, 2⁶²), so the sum of squares is in [2¹²², 2¹²⁵) and its root
        // `len` in [2⁶¹, 2⁶³).
        let (ax, ay) = (xb.unsigned_abs() << s, yb.unsigned_abs() << s);
        let sum = u128::from(ax) * u128::from(ax) + u128::from(ay) * u128::from(ay);
        // The root and a reciprocal estimate `r` ≈ 2¹²⁵/len from one Goldschmidt iteration.
        // The root `len` is verified exactly by its residual (it is almost always exact; the
        // tests show it off by one a few times in a million, which sends the vector to the
        // general computation, out of line); for the exact root, 2¹²⁵/len − 2²⁹ < r ≤ 2¹²⁵/len
        // holds always (proved at `recip_from_h`).
        let (len, e, r) = isqrt_sum_estimate(sum);
        if !sum_root_holds(len, e) {
            return wrap(Self::length_and_direction_dividing(xb, yb, m));
        }
        debug_assert!(recip_holds(r, len), "reciprocal bound, sum {sum}");
        // Both quotients `(c << 32) / len` (truncated toward zero) without a division: the
        // estimate q = ⌊|c|·r / 2⁹³⌋ is the exact quotient or one below it (|c| < 2⁶², so
        // |c|·(2¹²⁵/len − r) / 2⁹³ < 2⁻²), so the remainder `(|c| << 32) − q·len` is in
        // [0, 2·len) ⊂ [0, 2⁶⁴): exact in wrapping `u64` arithmetic, and it decides.
        // `a` = |c|. The sign is applied by a select, not as (q ^ σ) − σ: with the latter LLVM
        // vectorises the two quotients into SSE2, which costs more than it saves.
        let quotient = |a: u64, negative: bool| -> i64 {
            let q = ((u128::from(a) * u128::from(r)) >> 93) as u64;
            let rem = (a << FRAC_BITS).wrapping_sub(q.wrapping_mul(len));
            let q = if rem >= len { q + 1 } else { q };
            debug_assert_eq!(
                u128::from(q),
                (u128::from(a) << FRAC_BITS) / u128::from(len)
            );
            // q ≤ 2³² (|c| ≤ len), so the negation cannot overflow.
            if negative {
                -q.cast_signed()
            } else {
                q.cast_signed()
            }
        };
        let unit = Self::from_bits(quotient(ax, xb < 0), quotient(ay, yb < 0));
        wrap((Fx::from_bits((len >> s).cast_signed()), unit))
    }

    /// [`length_and_direction`](Self::length_and_direction) by [`isqrt_u128`] and an `i128`
    /// division (`m` = the larger component magnitude): for a component of 2⁶² or more (far
    /// outside the simulation's domain), when the fast path's root or reciprocal estimate
    /// fails its check, and as its test oracle (same results: the tests compare both on every
    /// input they try).
    #[cold]
    #[inline(never)]
    fn length_and_direction_dividing(xb: i64, yb: i64, m: u64) -> (Fx, Self) {
        // An axis-aligned vector below 2⁶²: its length is `m` and its direction a signed unit,
        // exactly what the division below gives (the root of the perfect square `(m·2^s)²`
        // shifted back is `m`, and `(m·2^s << 32) / (m·2^s)` is `2³²`). The fast path's root
        // estimate may land one short of a perfect square's root: in the circle scenes 99.7 %
        // of the vectors sent here were axis-aligned. Tested against the plain division.
        if (xb == 0 || yb == 0) && m < 1 << 62 {
            let unit = |c: i64| c.signum() << FRAC_BITS;
            return (
                Fx::from_bits(m.cast_signed()),
                Self::from_bits(unit(xb), unit(yb)),
            );
        }
        let s = m.leading_zeros().saturating_sub(2);
        let (x, y) = (i128::from(xb << s), i128::from(yb << s));
        let len = isqrt_u128((x * x + y * y).cast_unsigned());
        let r = (1u128 << 125) / len;
        let quotient = |c: i128| -> i64 {
            let a = c.unsigned_abs();
            let mut q = (a * r) >> 93;
            if (q + 1) * len <= a << FRAC_BITS {
                q += 1;
            }
            debug_assert_eq!(q, (a << FRAC_BITS) / len);
            if c < 0 { -(q as i64) } else { q as i64 }
        };
        let unit = Self::from_bits(quotient(x), quotient(y));
        (Fx::from_bits((len >> s) as i64), unit)
    }

    /// Unit vector in the direction of `self`, or zero for the zero vector.
    #[inline]
    #[must_use]
    pub fn normalize_or_zero(self) -> Self {
        self.try_normalize().unwrap_or(Self::ZERO)
    }

    /// Halves both components (arithmetic shift, toward −∞).
    #[inline]
    #[must_use]
    pub fn half(self) -> Self {
        Self::new(self.x >> 1, self.y >> 1)
    }

    /// Largest absolute component (`max(|x|, |y|)`), used for domain checks.
    #[inline]
    #[must_use]
    pub fn max_abs_component(self) -> Fx {
        // `unsigned_abs` cannot overflow, unlike `abs` of `Fx::MIN`; saturate back to `Fx::MAX`.
        let m = self.x.unsigned_abs().max(self.y.unsigned_abs());
        Fx::saturating_from_num(m)
    }

    /// Converts from `f64` components, rounding to nearest. **User I/O only** — never used by
    /// the tick. Returns `None` for non-finite or out-of-range input.
    #[allow(clippy::float_arithmetic)]
    #[must_use]
    pub fn from_f64(x: f64, y: f64) -> Option<Self> {
        Some(Self::new(fx_from_f64(x)?, fx_from_f64(y)?))
    }

    /// Converts to `f64` components (exact for |value| < 2²¹). **User I/O only.**
    #[must_use]
    pub fn to_f64(self) -> (f64, f64) {
        (self.x.to_num(), self.y.to_num())
    }

    /// Converts from `f32` components (an engine's, e.g. Bevy's), rounding to nearest: each is
    /// widened to `f64` exactly, then as [`from_f64`](Self::from_f64). **User I/O only.**
    /// Returns `None` for non-finite or out-of-range input.
    #[must_use]
    pub fn from_f32(x: f32, y: f32) -> Option<Self> {
        Self::from_f64(f64::from(x), f64::from(y))
    }

    /// Converts to `f32` components, rounding to nearest (24 bits of mantissa: exact only for
    /// coarse values; for drawing, not for state). **User I/O only.**
    #[must_use]
    pub fn to_f32(self) -> (f32, f32) {
        (self.x.to_num(), self.y.to_num())
    }
}

impl Add for Vec2 {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y)
    }
}

impl AddAssign for Vec2 {
    #[inline]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl Sub for Vec2 {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y)
    }
}

impl SubAssign for Vec2 {
    #[inline]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}

impl Neg for Vec2 {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self::new(-self.x, -self.y)
    }
}

/// Scales by a scalar (each component rounded toward −∞).
impl Mul<Fx> for Vec2 {
    type Output = Self;
    #[inline]
    fn mul(self, s: Fx) -> Self {
        // `fixed`'s product (exact, shifted toward −∞; overflow panics with debug assertions,
        // wraps without), written as one widening multiplication each.
        Self::new(narrow(wide_mul(self.x, s)), narrow(wide_mul(self.y, s)))
    }
}

/// Scales by an integer: exact (each component's bits times `n`), no rounding. Like `fixed`'s
/// own arithmetic, overflow panics with debug assertions and wraps without; use
/// [`Vec2::checked_mul_int`] for values that may leave the range.
///
/// ```
/// use lockstep_orca::{Fx, Vec2};
/// assert_eq!(Vec2::new(Fx::lit("1.5"), Fx::from_num(-2)) * 4, Vec2::from_int(6, -8));
/// ```
impl Mul<i32> for Vec2 {
    type Output = Self;
    #[inline]
    fn mul(self, n: i32) -> Self {
        Self::new(self.x * i64::from(n), self.y * i64::from(n))
    }
}

impl Vec2 {
    /// `self · n` (exact, as `self * n`), or `None` if a component leaves the Q32.32 range.
    ///
    /// ```
    /// use lockstep_orca::{Fx, Vec2};
    /// assert_eq!(Vec2::from_int(3, -1).checked_mul_int(-2), Some(Vec2::from_int(-6, 2)));
    /// assert_eq!(Vec2::new(Fx::MAX, Fx::ZERO).checked_mul_int(2), None);
    /// ```
    #[must_use]
    pub fn checked_mul_int(self, n: i32) -> Option<Self> {
        Some(Self::new(
            self.x.checked_mul_int(i64::from(n))?,
            self.y.checked_mul_int(i64::from(n))?,
        ))
    }
}

/// Divides by a scalar (each component truncated toward zero). Panics on a zero divisor, like
/// `fixed`; the simulator never divides by a value it has not checked.
impl Div<Fx> for Vec2 {
    type Output = Self;
    #[inline]
    fn div(self, s: Fx) -> Self {
        Self::new(fx_div(self.x, s), fx_div(self.y, s))
    }
}

/// Deterministic unit vector at the angle `turns · 2π`, where `turns` is a fraction of a full
/// turn in [0, 1) given as raw Q32.32 bits (CORDIC, accurate to about 6·10⁻⁹).
#[must_use]
pub fn unit_from_turns(turns: Fx) -> Vec2 {
    // Map to (−π, π] for CORDIC, whose convergence range is about ±1.74 rad: reduce by quadrant.
    let turns = turns.frac();
    let quarter = Fx::from_bits(1 << 30);
    let quadrant = (turns / quarter).to_num::<i64>() & 3;
    let rem = turns - quarter * Fx::from_num(quadrant);
    let angle = rem * Fx::TAU;
    let (s, c) = cordic::sin_cos(angle);
    match quadrant {
        0 => Vec2::new(c, s),
        1 => Vec2::new(-s, c),
        2 => Vec2::new(-c, -s),
        _ => Vec2::new(s, -c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(v: f64) -> Fx {
        fx_from_f64(v).unwrap()
    }

    /// `f32` input is checked as `f64` input is (NaN, infinities and values past the scalar's
    /// range are refused, never wrapped), and converts back to the nearest `f32`.
    #[test]
    fn f32_conversions_refuse_what_f64_ones_refuse() {
        assert_eq!(
            Vec2::from_f32(0.5, -1.25),
            Some(Vec2::new(Fx::lit("0.5"), Fx::lit("-1.25")))
        );
        assert_eq!(Vec2::from_f32(f32::NAN, 0.0), None);
        assert_eq!(Vec2::from_f32(0.0, f32::INFINITY), None);
        // 2^31 and beyond is past Q32.32's range; f32::MAX too.
        assert_eq!(Vec2::from_f32(2_147_483_648.0, 0.0), None);
        assert_eq!(Vec2::from_f32(f32::MAX, 0.0), None);
        assert_eq!(
            Vec2::new(Fx::lit("0.5"), Fx::lit("-3")).to_f32(),
            (0.5, -3.0)
        );
        let third = Vec2::new(Fx::ONE / 3, Fx::ZERO).to_f32().0;
        assert_eq!(third, 1.0f32 / 3.0);
    }

    /// The fast `length_and_direction` (specialised root, 64-bit reciprocal) against its
    /// fallback `length_and_direction_dividing` (which also serves components of 2⁶² and
    /// more) and against the plain definition (core's `isqrt`, `i128` division), and its
    /// variant for nonzero vectors (`length_and_direction_of_nonzero_inlined`) against it: edge
    /// components and random vectors of every magnitude.
    #[test]
    fn length_and_direction_matches_the_dividing_computation() {
        let reference = |v: Vec2| -> Option<(Fx, Vec2)> {
            let (xb, yb) = (v.x.to_bits(), v.y.to_bits());
            let m = xb.unsigned_abs().max(yb.unsigned_abs());
            if m == 0 {
                return None;
            }
            let s = m.leading_zeros().saturating_sub(2);
            let (x, y) = (i128::from(xb) << s, i128::from(yb) << s);
            let len = (x * x + y * y).cast_unsigned().isqrt().cast_signed();
            let unit = Vec2::from_bits(((x << 32) / len) as i64, ((y << 32) / len) as i64);
            Some((Fx::from_bits((len >> s) as i64), unit))
        };
        let check = |x: i64, y: i64| {
            let v = Vec2::from_bits(x, y);
            let fast = v.length_and_direction();
            assert_eq!(fast, reference(v), "{v:?}");
            let m = x.unsigned_abs().max(y.unsigned_abs());
            if m != 0 {
                assert_eq!(
                    fast,
                    Some(Vec2::length_and_direction_dividing(x, y, m)),
                    "{v:?}"
                );
                assert_eq!(fast, Some(v.length_and_direction_of_nonzero_inlined()));
            }
        };
        let mut edges = vec![0i64, 1, 2, 3, 5, 7];
        for k in 0..62 {
            let p = 1i64 << k;
            edges.extend([p - 1, p, p + 1, p | (p >> 1), (p - 1) ^ (p >> 1)]);
        }
        edges.extend([(1 << 62) - 1, (1 << 62) - 2, 3_037_000_499, 3_037_000_500]);
        let edges: Vec<i64> = edges.iter().flat_map(|&e| [e, -e]).collect();
        for &x in &edges {
            for &y in &edges {
                check(x, y);
            }
        }
        let mut z = 99u64;
        let mut next = || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            crate::util::splitmix64(z)
        };
        for _ in 0..1_000_000 {
            let (a, b, c) = (next(), next(), next());
            // Components below 2⁶² (the fast path) of every magnitude, either sign.
            let x = (a as i64 >> 2) >> (c % 62);
            let y = (b as i64 >> 2) >> ((c >> 8) % 62);
            check(x, y);
            // Axis-aligned vectors (a shortcut of the general path) of every magnitude, either
            // sign, against the plain division.
            check(x, 0);
            check(0, y);
        }
    }

    #[test]
    fn length_uses_one_rounding() {
        let v = Vec2::from_int(3, 4);
        assert_eq!(v.length(), Fx::from_num(5));
        assert_eq!(v.length_squared(), Fx::from_num(25));
        // A length whose square overflows Fx still comes out right via the wide sum.
        let big = Vec2::from_int(1_500_000_000, 1_500_000_000);
        assert_eq!(big.length().to_num::<i64>(), 2_121_320_343);
    }

    #[test]
    #[allow(clippy::float_arithmetic)]
    fn normalize_is_sign_symmetric() {
        let v = Vec2::new(fx(0.3), fx(-1.7));
        let n = v.try_normalize().unwrap();
        assert_eq!((-v).try_normalize().unwrap(), -n);
        let len_err = (n.length() - Fx::ONE).abs();
        assert!(len_err < Fx::from_bits(8), "unit length error {len_err}");
        assert_eq!(Vec2::ZERO.try_normalize(), None);
        // Tiny vectors keep their direction: (-3, 1) ulps is not (-1, 1/3).
        let tiny = Vec2::from_bits(-3, 1).try_normalize().unwrap();
        let expect = Vec2::new(fx(-3.0 / 10f64.sqrt()), fx(1.0 / 10f64.sqrt()));
        assert!(
            (tiny - expect).max_abs_component() < Fx::from_bits(4),
            "{tiny:?}"
        );
    }

    #[test]
    fn max_abs_component_survives_fx_min() {
        assert_eq!(Vec2::new(Fx::MIN, Fx::ZERO).max_abs_component(), Fx::MAX);
        assert_eq!(
            Vec2::new(Fx::from_num(-3), Fx::ONE).max_abs_component(),
            Fx::from_num(3)
        );
    }

    #[test]
    fn length_and_direction_match_the_separate_calls() {
        let mut z = 7u64;
        for _ in 0..10_000 {
            z = z.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let v = Vec2::from_bits((z >> 20) as i64 - (1 << 43), (z as i64) >> (z % 40));
            if v == Vec2::ZERO {
                continue;
            }
            let (len, unit) = v.length_and_direction().unwrap();
            assert_eq!(len, v.length(), "{v:?}");
            assert_eq!(Some(unit), v.try_normalize());
        }
    }

    #[test]
    fn det_and_dot_signs() {
        let x = Vec2::from_int(1, 0);
        let y = Vec2::from_int(0, 1);
        assert_eq!(x.det(y), Fx::ONE);
        assert_eq!(y.det(x), -Fx::ONE);
        assert_eq!(x.dot(y), Fx::ZERO);
        assert_eq!(x.perp(), y);
    }

    #[test]
    fn unit_from_turns_covers_all_quadrants() {
        for k in 0..16 {
            let turns = Fx::from_num(k) / Fx::from_num(16);
            let u = unit_from_turns(turns);
            #[allow(clippy::float_arithmetic)]
            let ang = k as f64 / 16.0 * std::f64::consts::TAU;
            let (x, y) = u.to_f64();
            #[allow(clippy::float_arithmetic)]
            let err = (x - ang.cos()).abs().max((y - ang.sin()).abs());
            assert!(err < 1e-7, "k={k} err={err}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// `length_and_direction_of_nonzero_inlined` is `length_and_direction` for every nonzero
        /// vector: random components of every magnitude (shifted right by a random amount),
        /// either sign.
        #[test]
        fn nonzero_length_and_direction_matches(
            x in proptest::prelude::any::<i64>(),
            y in proptest::prelude::any::<i64>(),
            sx in 0u32..64,
            sy in 0u32..64,
        ) {
            let v = Vec2::from_bits(x >> sx, y >> sy);
            if v != Vec2::ZERO {
                proptest::prop_assert_eq!(
                    Some(v.length_and_direction_of_nonzero_inlined()),
                    v.length_and_direction()
                );
            }
        }
    }
}

//! The integer kernels under [`Fx`] and [`Vec2`]: the exact product and its narrowing, the
//! integer square roots and every root table, and the divisions without a hardware divide.
//!
//! Each fast kernel keeps its plain form as the oracle its tests compare it with (core's
//! `u128::isqrt`, the `i128` division, `fixed`'s own division), and each approximation's error
//! bound is proved in its rustdoc and checked by a test next to it.
//!
//! The root tables: [`RSQRT_SEED`] (seed of [`isqrt_u128`]), [`SUM_RSQRT_SEED`] (seed of the
//! sums of squares of [`Vec2::length_and_direction`]) and [`ROOT_TABLE`] (the kd-tree's cheap
//! upper bound [`root_bound`]).
//!
//! [`Vec2::length_and_direction`]: super::Vec2::length_and_direction
//! [`Vec2`]: super::Vec2

use super::{FRAC_BITS, Fx};

/// Exact product of two scalars as a raw Q64.64 `i128` (never overflows).
#[inline]
#[must_use]
pub fn wide_mul(a: Fx, b: Fx) -> i128 {
    i128::from(a.to_bits()) * i128::from(b.to_bits())
}

/// Converts a raw Q64.64 value back to [`Fx`], rounding toward −∞.
///
/// The caller guarantees the value is in range (see [`crate::domain`]); debug builds check it.
#[inline]
#[must_use]
pub fn narrow(wide: i128) -> Fx {
    let shifted = wide >> FRAC_BITS;
    debug_assert!(
        i64::try_from(shifted).is_ok(),
        "fixed-point overflow: value outside the documented domain"
    );
    Fx::from_bits(shifted as i64)
}

/// `RSQRT_SEED[i]`: a line `y(f) = c₀ − c₁·f / 2³²` approximating `2³⁰ / √x` (Q.30) on the
/// interval `x` ∈ [i/1024, (i + 1)/1024) of the 10-bit prefix `i` ∈ [256, 1024) of a
/// normalised 64-bit value, `f` ∈ [0, 2³²) the next 32 bits: stored as `c₀ << 32 | c₁`. The
/// chord through the interval's ends lowered by half its gap to the curve at the middle (about
/// the minimax line, relative error below 2⁻¹⁹ for every `t`, as a test shows interval by
/// interval): the seed of [`isqrt_u128`]'s Goldschmidt
/// iteration, computed at compile time in integers (`isqrt(⌊2⁷⁰ / i⌋)` and the like). Indexed by
/// the prefix itself (entries below 256 are never read) so that `t >> 54` needs no bounds check.
const RSQRT_SEED: [u64; 1024] = {
    let mut table = [0u64; 1024];
    let mut i = 256;
    while i < 1024 {
        let j = i as u128;
        let fa = ((1u128 << 70) / j).isqrt() as u64; // 2³⁰ / √(i / 1024)
        let fb = ((1u128 << 70) / (j + 1)).isqrt() as u64;
        let fm = ((1u128 << 71) / (2 * j + 1)).isqrt() as u64; // at the middle
        let c0 = fa - (fa + fb - 2 * fm) / 4;
        table[i] = (c0 << 32) | (fa - fb);
        i += 1;
    }
    table
};

/// Exact floor square root of a `u128`: the same value as `n.isqrt()` for every input, faster.
///
/// `n` is shifted left by an even amount to `m` ∈ [2¹²⁶, 2¹²⁸), whose root has exactly 64 bits.
/// An estimate `s` of `√m` comes from integer iterations without any division (a 10-bit table
/// seed for `1/√t` of the top word `t`, two Goldschmidt steps to ~37 bits of `√t` and
/// `1/(2√t)`, then one residual step `s = s₁ + (m − s₁²)/(2s₁)`); it is within one of the root.
/// `s` is then corrected by one and *verified* with exact `u128` comparisons
/// (`s² ≤ m < (s + 1)²`), so the result never depends on the estimate's accuracy: were the check
/// to fail, core's `isqrt` would be used (the tests show it never does). Shifting the root back
/// right is exact: `⌊⌊2ᵏ√m⌋ / 2ᵏ⌋ = ⌊√n⌋` for `m = 4ᵏ·n`.
///
/// Core's `u128::isqrt` (Karatsuba) divides four times, the last time a `u128` by a `u128`;
/// this is a chain of ten multiplications, about twice as fast (`cargo bench --bench kernels`).
#[inline]
#[must_use]
pub fn isqrt_u128(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    let (shift, m, s) = isqrt_estimate(n);
    // Verification (s² ≤ m < (s + 1)²) as one comparison on the wrapping residual (see
    // `sum_root_holds`); the estimate is almost always exact, the correction by one in either
    // direction is out of line.
    if sum_root_holds(s, m.wrapping_sub(u128::from(s) * u128::from(s))) {
        u128::from(s >> (shift / 2))
    } else {
        isqrt_slow(n, shift, m, s)
    }
}

/// The rare path of [`isqrt_u128`]: the estimate corrected by one, or core's `isqrt` (which the
/// tests show is never needed).
#[cold]
#[inline(never)]
fn isqrt_slow(n: u128, shift: u32, m: u128, s: u64) -> u128 {
    match isqrt_correct(m, s) {
        Some(s) => u128::from(s >> (shift / 2)),
        None => n.isqrt(),
    }
}

/// [`isqrt_u128`] without the fallback: `None` when the verified estimate was off by more than
/// one (tests assert it never is).
#[cfg(test)]
fn isqrt_u128_verified(n: u128) -> Option<u128> {
    if n == 0 {
        return Some(0);
    }
    let (shift, m, s) = isqrt_estimate(n);
    let sq = u128::from(s) * u128::from(s);
    let s = if sq <= m && m - sq <= 2 * u128::from(s) {
        s
    } else {
        isqrt_correct(m, s)?
    };
    Some(u128::from(s >> (shift / 2)))
}

/// The estimate of [`isqrt_u128`] for `n` > 0: the even normalising shift, `m = n << shift`
/// ∈ [2¹²⁶, 2¹²⁸) and `s` ≈ `√m` (within one of it, as the tests show; unverified).
#[inline(always)]
fn isqrt_estimate(n: u128) -> (u32, u128, u64) {
    let shift = n.leading_zeros() & !1;
    let m = n << shift;
    let t = (m >> 64) as u64; // ∈ [2⁶², 2⁶⁴)
    // Goldschmidt's coupled iteration, x = t / 2⁶⁴ ∈ [¼, 1): g ≈ √x, h ≈ 1/(2√x) in Q.62.
    let (g, h) = goldschmidt(t);
    // √m = 2⁶⁴·√x ≈ s₁ = 4g (~37 bits), then one residual step s = s₁ + (m − s₁²)/(2s₁),
    // with 1/(2s₁) ≈ h / 2¹²⁶.
    // No clamp needed: a wild g gives a wild s, which the exact verification rejects.
    let s1 = (g as u64) << 2;
    let residual = m
        .wrapping_sub(u128::from(s1) * u128::from(s1))
        .cast_signed();
    let step = ((i128::from((residual >> 32) as i64) * i128::from(h >> 30)) >> 64) as i64;
    (shift, m, s1.wrapping_add_signed(step))
}

/// The floor root of `m` from an estimate `s` within one of it, exactly corrected and verified
/// (`None` when the estimate was off by more than one): the rare path of [`isqrt_u128`].
fn isqrt_correct(m: u128, mut s: u64) -> Option<u64> {
    let mut sq = u128::from(s) * u128::from(s);
    if sq > m {
        s -= 1; // sq > m >= 0, so s >= 1
        sq = u128::from(s) * u128::from(s);
    }
    if sq <= m && m - sq > 2 * u128::from(s) {
        // (s + 1)² <= m < 2¹²⁸, so s + 1 < 2⁶⁴
        sq += 2 * u128::from(s) + 1;
        s += 1;
    }
    if sq > m || m - sq > 2 * u128::from(s) {
        return None;
    }
    Some(s)
}

/// Goldschmidt's coupled iteration for `x = t / 2⁶⁴` ∈ [¼, 1) (`t` ∈ [2⁶², 2⁶⁴)): `g ≈ √x` and
/// `h ≈ 1/(2√x)` to about 37 bits, both in Q.62 (below 2⁶³, so signed products are single
/// multiplications), seeded from the interpolated table (`y₀ ≈ 1/√x` in Q.30, about 20 bits)
/// and one step `r = ½ − g·h, g += g·r, h += h·r` (the two products are independent: a shorter
/// dependency chain than Newton's). Wrapping arithmetic: only the callers' verified results
/// count.
#[inline(always)]
fn goldschmidt(t: u64) -> (i64, i64) {
    let entry = RSQRT_SEED[(t >> 54) as usize];
    let f = (t >> 22) & u64::from(u32::MAX);
    let y0 = (entry >> 32).wrapping_sub(((entry & u64::from(u32::MAX)) * f) >> 32);
    let g = ((u128::from(t) * u128::from(y0)) >> 32) as i64; // x·y₀ < 2
    let h = (y0 << 31) as i64;
    let gh = ((i128::from(g) * i128::from(h)) >> 64) as i64; // Q.60
    let r = (1i64 << 59).wrapping_sub(gh);
    let dg = ((i128::from(g) * i128::from(r)) >> 60) as i64;
    let dh = ((i128::from(h) * i128::from(r)) >> 60) as i64;
    (g.wrapping_add(dg), h.wrapping_add(dh))
}

/// `SUM_RSQRT_SEED[i]`: a line `y(f) = c₀ − c₁·f / 2³²` approximating `2²⁹ / √x` (Q.29) on
/// the interval `x` ∈ [i/2048, (i + 1)/2048) of the 10-bit prefix `i` ∈ [128, 1024) of
/// `u = 4·⌊n / 2⁶⁴⌋` ∈ [2⁶⁰, 2⁶³) (`x = u / 2⁶⁴` ∈ [1/16, ½)), `f` ∈ [0, 2³²) the next 32
/// bits: stored as `c₀ << 32 | c₁`, built like [`RSQRT_SEED`] (the chord lowered by half its
/// gap to the curve at the middle). The seed of [`isqrt_sum_estimate`], whose sums
/// `n` ∈ [2¹²², 2¹²⁵) span three octaves: one table over them needs no normalising shift.
/// Relative error below 2⁻¹⁸ for every `u` (a test shows it interval by interval; the
/// intervals at the low end are twice as wide, relative to `x`, as [`RSQRT_SEED`]'s).
/// Indexed by the prefix itself (entries below 128 are never read).
const SUM_RSQRT_SEED: [u64; 1024] = {
    let mut table = [0u64; 1024];
    let mut i = 128;
    while i < 1024 {
        let j = i as u128;
        let fa = ((1u128 << 69) / j).isqrt() as u64; // 2²⁹ / √(i / 2048)
        let fb = ((1u128 << 69) / (j + 1)).isqrt() as u64;
        let fm = ((1u128 << 70) / (2 * j + 1)).isqrt() as u64; // at the middle
        let c0 = fa - (fa + fb - 2 * fm) / 4;
        table[i] = (c0 << 32) | (fa - fb);
        i += 1;
    }
    table
};

/// Goldschmidt's coupled iteration for `x = 4·hi / 2⁶⁴` ∈ [1/16, ½) (`hi` ∈ [2⁵⁸, 2⁶¹), the
/// top word of a sum `n`, so `u = 4·hi` in [`SUM_RSQRT_SEED`]'s terms), as [`goldschmidt`]
/// but seeded from that table: `g ≈ √x` in Q.62 and `h ≈ 1/(2√x)` in Q.61 (at most 2, so
/// below 2⁶³), to about 36 bits. The index is masked to the table (a no-op for `hi` in range,
/// and no bounds check). Wrapping arithmetic: only the callers' verified results count.
#[inline(always)]
fn goldschmidt_sum(hi: u64) -> (i64, i64) {
    let entry = SUM_RSQRT_SEED[(hi >> 51) as usize & 1023];
    let f = (hi >> 19) & u64::from(u32::MAX);
    let y0 = (entry >> 32).wrapping_sub(((entry & u64::from(u32::MAX)) * f) >> 32); // Q.29
    let g = ((u128::from(hi) * u128::from(y0)) >> 29) as i64; // x·y₀: Q.62, below 2⁶²
    let h = (y0 << 31) as i64; // y₀ / 2 in Q.61
    let gh = ((i128::from(g) * i128::from(h)) >> 63) as i64; // Q.60
    let r = (1i64 << 59).wrapping_sub(gh);
    let dg = ((i128::from(g) * i128::from(r)) >> 60) as i64;
    let dh = ((i128::from(h) * i128::from(r)) >> 60) as i64;
    (g.wrapping_add(dg), h.wrapping_add(dh))
}

/// The estimate `s` of the floor square root of `n` ∈ [2¹²², 2¹²⁵) (the sums of squares of
/// [`Vec2::length_and_direction`], whose larger component has 62 significant bits), its
/// residual `e = n − s²` (wrapping) and a reciprocal estimate `r` ≈ `2¹²⁵ / √n` just below it
/// (see [`recip_from_h`], which proves the bound the quotients need); `s` is within one of the
/// root (tests), and the root is not verified here.
///
/// The estimate of [`isqrt_u128`] computed at `n`'s own scale, without a normalising shift:
/// `u = 4·⌊n / 2⁶⁴⌋` ∈ [2⁶⁰, 2⁶³) seeds [`goldschmidt_sum`] (`x = u / 2⁶⁴`; dropping the low
/// word of `n` is a relative change below 2⁻⁵⁸, far under the iteration's 2⁻³⁶), so
/// `√n ≈ 2⁶³·√x` gives `s₁ = 2g` exactly, and the residual step uses
/// `1/(2s₁) ≈ h / 2¹²⁴` (`h` in Q.61). The verification `s² ≤ n < (s + 1)²` is `e ≤ 2s` on
/// the wrapping residual, one comparison ([`sum_root_holds`]).
///
/// [`Vec2::length_and_direction`]: super::Vec2::length_and_direction
#[inline(always)]
pub(super) fn isqrt_sum_estimate(n: u128) -> (u64, u128, u64) {
    let (g, h) = goldschmidt_sum((n >> 64) as u64); // u = 4·hi ∈ [2⁶⁰, 2⁶³)
    let s1 = (g as u64) << 1; // a wild g gives a wild s: the verification rejects it
    let residual = n
        .wrapping_sub(u128::from(s1) * u128::from(s1))
        .cast_signed();
    let step = ((i128::from((residual >> 32) as i64) * i128::from(h >> 28)) >> 64) as i64;
    let s = s1.wrapping_add_signed(step);
    (
        s,
        n.wrapping_sub(u128::from(s) * u128::from(s)),
        recip_from_h(h),
    )
}

/// `r` ≈ `2¹²⁵ / √n` from [`goldschmidt_sum`]'s `h` ≈ `2⁶⁰ / √x` (Q.61 `1/(2√x)`,
/// `x = u / 2⁶⁴`, `u = 4·⌊n / 2⁶⁴⌋`): `2¹²⁵ / √n ≈ 2⁶²/√x ≈ 4h`, lowered by `2¹⁵` to stay
/// below the exact reciprocal. **Proved** (no check at run time): for `len = ⌊√n⌋`,
/// `0 ≤ 2¹²⁵ − r·len < 2⁹⁰` (`recip_holds`, what [`Vec2::length_and_direction`]'s quotients
/// need).
///
/// Let the seed be `y₀ = (2²⁹/√x)(1 + ε₀)`; `|ε₀| < 2⁻¹⁸` for every `u` (the table's bound,
/// `sum_rsqrt_seed_error_is_below_2_pow_minus_18` checks it exhaustively per interval). In
/// exact arithmetic one Goldschmidt step gives `H·(1 − c)` with `H = 2⁶⁰/√x` and
/// `c = (3ε₀² + ε₀³)/2` ∈ [0, 1.51·2⁻³⁶]; its three floors move `h` by less than 1 down and 12
/// up, so `h ∈ (H(1 − c) − 1, H(1 − c) + 12)` (and `h < 2⁶² + 12`, as `H ≤ 2⁶²`: `4(h − 2¹³)`
/// fits 64 bits). With `X = 4n/2¹²⁸` ∈ [x, x(1 + 2⁻⁵⁸)) (`u` drops the low word of `n`,
/// `⌊n / 2⁶⁴⌋ ≥ 2⁵⁸`), `4H·√n = 2¹²⁵·√(X/x)` ∈ [2¹²⁵, 2¹²⁵(1 + 2⁻⁵⁹)). Upper side:
/// `r·len ≤ r·√n < 4(H − 2¹³ + 12)·√n < 2¹²⁵ + 2⁶⁶ − 2⁷⁵ < 2¹²⁵` (`√n ≥ 2⁶¹`). Lower side:
/// `len > √n − 1` and `r < 2⁶⁴` give
/// `r·len > 4(H(1 − c) − 2¹³ − 1)·√n − 2⁶⁴ ≥ 2¹²⁵ − 2¹²⁵·c − 2⁷⁹ − 2⁶⁴`, and
/// `2¹²⁵·c ≤ 1.51·2⁸⁹`: the gap is below `1.52·2⁸⁹ < 2⁹⁰`. (The table's measured worst
/// `|ε₀|` is 2⁻¹⁸·⁴², which gives `2¹²⁵·c < 2⁸⁸·⁸`. The tests also check `recip_holds`
/// over every table interval and millions of random inputs, and debug builds assert it on
/// every call.)
///
/// [`Vec2::length_and_direction`]: super::Vec2::length_and_direction
#[inline(always)]
fn recip_from_h(h: i64) -> u64 {
    (h as u64).wrapping_sub(1 << 13) << 2
}

/// `s² ≤ n < (s + 1)²` from the wrapping residual `e = n − s²` (mod 2¹²⁸), as one comparison
/// `e ≤ 2s`, for any `s` < 2⁶⁴: when `s² > n` the residual wraps to at least
/// `2¹²⁸ − (2⁶⁴ − 1)² = 2⁶⁵ − 1`, above `2s`.
#[inline(always)]
pub(super) fn sum_root_holds(s: u64, e: u128) -> bool {
    e <= 2 * u128::from(s)
}

/// The estimate of [`isqrt_sum_estimate`] corrected by one in either direction, then verified
/// exactly: `None` when it was off by more (tests assert it never is;
/// [`Vec2::length_and_direction`] takes its general path whenever it is not exact).
///
/// [`Vec2::length_and_direction`]: super::Vec2::length_and_direction
#[cfg(test)]
fn isqrt_sum_verified(n: u128) -> Option<u64> {
    let (s, _, _) = isqrt_sum_estimate(n);
    [s, s.wrapping_sub(1), s.wrapping_add(1)]
        .into_iter()
        .find(|&c| {
            let (sq, e) = (u128::from(c) * u128::from(c), 2 * u128::from(c));
            sq <= n && n - sq <= e
        })
}

/// Whether the reciprocal estimate `r` satisfies `0 ≤ 2¹²⁵ − r·len < 2⁹⁰` (exact `u128`
/// arithmetic; a negative difference wraps above 2¹²⁷), which gives
/// `2¹²⁵/len − 2²⁹ < r ≤ 2¹²⁵/len` as `len ≥ 2⁶¹`: what [`Vec2::length_and_direction`]'s
/// quotients need. Always true for the estimate of [`recip_from_h`] (proved there); asserted in
/// debug builds and by the tests.
///
/// [`Vec2::length_and_direction`]: super::Vec2::length_and_direction
#[inline(always)]
pub(super) fn recip_holds(r: u64, len: u64) -> bool {
    (1u128 << 125).wrapping_sub(u128::from(r) * u128::from(len)) >> 90 == 0
}

/// `ROOT_TABLE[m]` = `⌈√((m + 1)·2²⁴)⌉` = `⌈2¹²·√(m + 1)⌉` (computed at compile time in
/// integers), for [`root_bound`].
const ROOT_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut m = 0;
    while m < 256 {
        let n = ((m as u64) + 1) << 24;
        let r = n.isqrt();
        table[m] = (if r * r == n { r } else { r + 1 }) as u32;
        m += 1;
    }
    table
};

/// An integer strictly above `√n` and, for `n ≥ 64`, within 0.8 % of it (saturating at
/// `u64::MAX`): a cheap bound where any bound is correct and a close one is only faster (the
/// kd-tree's query hints and gather boxes).
///
/// With `n < 2^e` (`e` even) and `s = e − 8` (or 0), `m = ⌊n / 2^s⌋ < 256` and
/// `√n < √(m + 1)·2^(s/2) ≤ ROOT_TABLE[m]·2^(s/2 − 12)`; the floor of the last plus one is
/// above `√n`. When `s > 0`, `m ≥ 64`, so the bound is below `√n·√(65/64)·(1 + 2⁻¹²) + 1`.
#[inline]
pub(crate) fn root_bound(n: u128) -> u64 {
    let bits = 128 - n.leading_zeros();
    let s = ((bits + 1) & !1).saturating_sub(8);
    let m = (n >> s) as usize & 255;
    let b = (u128::from(ROOT_TABLE[m]) << (s / 2)) >> 12;
    u64::try_from(b + 1).unwrap_or(u64::MAX)
}

/// `n / d` for `i128`, truncating toward zero: the operator's result for every input, computed as
/// an unsigned division of the magnitudes (skips the signed wrapper of the generic routine).
///
/// # Panics
/// Like the operator: when `d` is zero, and on the overflow `i128::MIN / -1`.
#[inline]
#[must_use]
pub fn div_trunc(n: i128, d: i128) -> i128 {
    if d == -1 {
        return n.checked_neg().expect("attempt to divide with overflow");
    }
    let q = n.unsigned_abs() / d.unsigned_abs();
    // q <= 2¹²⁷, with equality only for i128::MIN / 1, whose negation wraps to i128::MIN.
    if (n < 0) != (d < 0) {
        q.wrapping_neg().cast_signed()
    } else {
        q.cast_signed()
    }
}

/// The raw quotient `(a << 32) / b` of two scalars, truncated toward zero, and whether it
/// overflows [`Fx`] (`fixed`'s `overflowing_div` for `I32F32`). Panics on a zero divisor.
#[inline]
fn fx_div_raw(a: Fx, b: Fx) -> (i64, bool) {
    let (a, b) = (a.to_bits(), b.to_bits());
    // |a << 32| <= 2⁹⁵: magnitudes divide exactly, then the sign is applied (truncation).
    let q = (u128::from(a.unsigned_abs()) << FRAC_BITS) / u128::from(b.unsigned_abs());
    if (a < 0) != (b < 0) {
        (
            (q as u64).wrapping_neg().cast_signed(),
            q > 1u128 << 63, // fits iff -q >= i64::MIN
        )
    } else {
        ((q as u64).cast_signed(), q > i64::MAX as u128)
    }
}

/// `a / b`, bit-identical to `fixed`'s `I32F32` division (truncates toward zero), without the
/// generic signed `i128` division.
///
/// # Panics
/// Like `fixed`: when `b` is zero, and on overflow in builds with debug assertions (release
/// builds wrap, as `fixed` does).
#[inline]
#[must_use]
pub fn fx_div(a: Fx, b: Fx) -> Fx {
    let (q, overflow) = fx_div_raw(a, b);
    debug_assert!(!overflow, "overflow");
    Fx::from_bits(q)
}

/// `RECIP_SEED[i - 256]` = `⌊(2¹⁹ − 3·2⁸) / i⌋` for `i` ∈ [256, 512): the 11-bit seed of
/// [`reciprocal_word`] (Möller and Granlund, "Improved division by invariant integers", IEEE
/// Trans. Computers 60 (2011), Algorithm 2; GMP's `invert_limb` table).
const RECIP_SEED: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = (((1u32 << 19) - 3 * (1 << 8)) / (i as u32 + 256)) as u16;
        i += 1;
    }
    table
};

/// `⌊(2¹²⁸ − 1) / d⌋ − 2⁶⁴` for a normalised `d` ∈ [2⁶³, 2⁶⁴), without a division: Möller and
/// Granlund's `RECIPROCAL_WORD` (Algorithm 2 of the paper above, proved exact there for every
/// such `d`): an 11-bit table seed, two Newton steps in 64-bit arithmetic (to 21 and 34 bits),
/// a third to 64 bits and a final adjustment by the exact product `v₃·d`. Eight
/// multiplications; the tests compare it with the division on every table interval's ends and
/// millions of random divisors.
#[inline(always)]
#[must_use]
const fn reciprocal_word(d: u64) -> u64 {
    debug_assert!(d >> 63 == 1);
    let d0 = d & 1;
    let d40 = (d >> 24) + 1;
    let d63 = (d >> 1) + d0;
    let v0 = RECIP_SEED[((d >> 55) - 256) as usize] as u64;
    let v1 = (v0 << 11) - ((v0 * v0 * d40) >> 40) - 1;
    let v2 = (v1 << 13) + (v1.wrapping_mul((1u64 << 60).wrapping_sub(v1 * d40)) >> 47);
    let e = ((v2 >> 1) & 0u64.wrapping_sub(d0)).wrapping_sub(v2.wrapping_mul(d63));
    let v3 = (v2 << 31).wrapping_add(((v2 as u128 * e as u128) >> 65) as u64);
    let hi = ((v3 as u128 * d as u128 + d as u128) >> 64) as u64;
    v3.wrapping_sub(hi).wrapping_sub(d)
}

/// A scalar divisor prepared for many [`fx_div`]s by the same value:
/// `FxReciprocal::new(b).divide(a) == fx_div(a, b)` to the last bit for every `a` and every
/// nonzero `b`, computed with multiplications only. Preparing costs about as much as one
/// quotient by the hardware division; each quotient is then several times cheaper than one
/// (a 64-bit `div` takes about 25 cycles on the machines measured and is not pipelined), so
/// it pays when the same divisor serves several quotients and is prepared outside the loop
/// that uses it ([`solve_pair_prepared`](crate::orca::lines::solve_pair_prepared)'s τ and Δt).
///
/// # Why it is exact
/// Let `T = |b|` have `ℓ` leading zeros and `V = 2⁶⁴ + v = ⌊(2¹²⁸ − 1) / (T·2^ℓ)⌋` (Möller
/// and Granlund's `RECIPROCAL_WORD`, "Improved division by invariant integers", IEEE Trans.
/// Computers 60 (2011): a table seed and Newton steps, no division), so
/// `2¹²⁸/(T·2^ℓ) − 2 < V ≤ 2¹²⁸/(T·2^ℓ)`. For `A = |a|` the quotient is `Q = ⌊x⌋` with
/// `x = A·2³²/T = A·V*/2^(96−ℓ)`, `V* = 2¹²⁸/(T·2^ℓ)` the exact reciprocal.
///
/// The estimate is one 64 × 64-bit product, `Q̃ = ⌊A'·W / 2⁶⁴⌋` with `A' = A·2^p` and
/// `W = ⌊V / 2^s⌋`, where `p = 0, s = 32 − ℓ` for `ℓ ≤ 31` and `p = ℓ − 31, s = 1` for
/// `ℓ ≥ 32` (so that `p − s = ℓ − 32` and `W < 2⁶⁴`). `A'·W/2⁶⁴` is below `x` by less than
/// `2A/2^(96−ℓ) + A'/2⁶⁴`. The first term is `2x·T·2^ℓ/2¹²⁸ < 2x/2⁶⁴`, below ½ when
/// `Q < 2⁶²` (`A < T·2³⁰`); the second is at most ½ as `A' ≤ 2⁶³` (`A ≤ 2⁶³` for `p = 0`;
/// for `p > 0`, `A < T·2³⁰ < 2^(94−ℓ)` gives `A' < 2⁶³`). So `Q̃` is `Q` or `Q − 1`, the
/// remainder `A·2³² − Q̃·T` lies in [0, 2T) ⊂ [0, 2⁶⁴) and is exact in wrapping `u64`
/// arithmetic, and one comparison with `T` corrects `Q̃`. Larger quotients (within a factor 2
/// of overflowing `Fx`, far outside every domain) take `fx_div` itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FxReciprocal {
    /// `|b|` (raw bits).
    t: u64,
    /// `W = ⌊(2⁶⁴ + v) / 2^s⌋`.
    w: u64,
    /// `p`: the dividend's left shift.
    pre: u32,
    /// `T·2³⁰`, saturated: dividends from here on take the rare path.
    limit: u64,
    /// `b`'s sign as a mask (all ones when negative).
    sign: i64,
    /// The divisor itself (for the rare path).
    b: Fx,
}

impl FxReciprocal {
    /// Prepares division by `b` (one table read and eight multiplications, no division).
    ///
    /// # Panics
    /// When `b` is zero (as `fx_div` does when dividing).
    #[inline]
    #[must_use]
    pub fn new(b: Fx) -> Self {
        let t = b.to_bits().unsigned_abs();
        assert!(t != 0, "attempt to divide by zero");
        let lz = t.leading_zeros();
        let big_v = (1u128 << 64) | u128::from(reciprocal_word(t << lz));
        let (pre, post) = if lz <= 31 { (0, 32 - lz) } else { (lz - 31, 1) };
        Self {
            t,
            w: (big_v >> post) as u64,
            pre,
            limit: if t >> 34 == 0 { t << 30 } else { u64::MAX },
            sign: b.to_bits() >> 63,
            b,
        }
    }

    /// The divisor `b`.
    #[inline]
    #[must_use]
    pub fn divisor(self) -> Fx {
        self.b
    }

    /// `fx_div(a, b)` for the prepared `b`, bit for bit (see the [type docs](Self)).
    #[inline(always)]
    #[must_use]
    pub fn divide(self, a: Fx) -> Fx {
        let bits = a.to_bits();
        let big = bits.unsigned_abs();
        if big >= self.limit {
            return fx_div_cold(a, self.b);
        }
        let q = ((u128::from(big << self.pre) * u128::from(self.w)) >> 64) as u64;
        let rem = (big << FRAC_BITS).wrapping_sub(q.wrapping_mul(self.t));
        let q = (q + u64::from(rem >= self.t)).cast_signed(); // < 2⁶²
        // Truncation toward zero: the magnitude's quotient with the sign applied.
        let sign = (bits >> 63) ^ self.sign;
        Fx::from_bits((q ^ sign).wrapping_sub(sign))
    }
}

/// [`fx_div`] out of line (the rare path of [`FxReciprocal::divide`]).
#[cold]
#[inline(never)]
fn fx_div_cold(a: Fx, b: Fx) -> Fx {
    fx_div(a, b)
}

/// `a.saturating_div(b)`, bit-identical to `fixed`'s (on overflow: `Fx::MIN` when the signs
/// differ, else `Fx::MAX`), without the generic `i128` division.
///
/// # Panics
/// When `b` is zero, like `fixed`.
#[inline]
#[must_use]
pub fn fx_saturating_div(a: Fx, b: Fx) -> Fx {
    match fx_div_raw(a, b) {
        (q, false) => Fx::from_bits(q),
        (_, true) if a.is_negative() != b.is_negative() => Fx::MIN,
        (_, true) => Fx::MAX,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A SplitMix64 stream from `seed` (test inputs).
    fn splitmix_stream(seed: u64) -> impl FnMut() -> u64 {
        let mut z = seed;
        move || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            crate::util::splitmix64(z)
        }
    }

    /// Top words in the seed table's interval `i` (prefix `i` of 10 bits): both ends, their
    /// inner neighbours, the middle and one random point.
    fn interval_tops(i: u64, next: &mut impl FnMut() -> u64) -> [u64; 6] {
        let (lo_t, hi_t) = (i << 54, (i << 54) | ((1 << 54) - 1));
        [
            lo_t,
            lo_t + 1,
            lo_t + (hi_t - lo_t) / 2,
            hi_t - 1,
            hi_t,
            lo_t | (next() >> 10),
        ]
    }

    /// The verified estimate of [`isqrt_u128`] never needs core's fallback: every table
    /// interval at both ends and inside, perfect squares and their neighbours at every
    /// magnitude of the normalised root, and two million random normalised inputs.
    #[test]
    fn isqrt_estimate_is_always_verified() {
        let check = |n: u128| assert_eq!(isqrt_u128_verified(n), Some(n.isqrt()), "n = {n}");
        for n in 0..=1u128 << 16 {
            check(n);
        }
        let mut next = splitmix_stream(0x1234_5678_9abc_def0);
        for i in 256u64..1024 {
            for t in interval_tops(i, &mut next) {
                for low in [0, 1, 1 << 63, u64::MAX - 1, u64::MAX, next()] {
                    let m = (u128::from(t) << 64) | u128::from(low);
                    check(m);
                    check(m >> 2);
                    check(m >> 64);
                    check(m >> 126);
                }
            }
        }
        for j in 0..64 {
            for d in [0u64, 1, 2, 3, 1 << 20, next() >> (64 - j).min(63)] {
                for r in [
                    (1u64 << j).wrapping_add(d),
                    (1u64 << j).wrapping_sub(d),
                    u64::MAX - d,
                ] {
                    let sq = u128::from(r) * u128::from(r);
                    for n in [sq.wrapping_sub(1), sq, sq + 1, sq + 2 * u128::from(r)] {
                        check(n);
                    }
                }
            }
        }
        check(u128::MAX);
        for _ in 0..2_000_000 {
            let m = (u128::from(next() | (1 << 62)) << 64) | u128::from(next());
            check(m);
        }
    }

    /// The specialised root's estimate (for sums of squares in [2¹²², 2¹²⁵)) is within one of
    /// the root (`isqrt_sum_verified`) and its reciprocal estimate always passes
    /// `recip_holds` (so `length_and_direction` never takes its general path for it): every
    /// interval of [`SUM_RSQRT_SEED`] at both ends and inside, perfect squares
    /// and their neighbours at both ends of the range and around 2¹²⁴, and two million random
    /// inputs.
    #[test]
    fn isqrt_sum_estimate_is_always_verified() {
        let (lo, hi) = (1u128 << 122, 1u128 << 125);
        let check = |n: u128| {
            if (lo..hi).contains(&n) {
                let root = n.isqrt();
                assert_eq!(isqrt_sum_verified(n).map(u128::from), Some(root), "n = {n}");
                let (_, _, r) = isqrt_sum_estimate(n);
                assert!(recip_holds(r, root as u64), "n = {n}, r = {r}");
            }
        };
        let mut next = splitmix_stream(0x0fed_cba9_8765_4321);
        for i in 128u64..1024 {
            // Interval i of SUM_RSQRT_SEED: u = 4·⌊n / 2⁶⁴⌋ ∈ [i·2⁵³, (i + 1)·2⁵³).
            let (lo_u, hi_u) = (i << 53, (i << 53) | ((1 << 53) - 1));
            let tops = [
                lo_u,
                lo_u + 4,
                lo_u + (hi_u - lo_u) / 2,
                hi_u - 4,
                hi_u,
                lo_u | (next() >> 11),
                lo_u | (next() >> 11),
            ];
            for u in tops {
                // The top word u / 4, and the bits below it all zero or all one.
                let top = u128::from(u >> 2) << 64;
                for low in [0, 1, 1 << 63, u64::MAX - 1, u64::MAX, next()] {
                    check(top | u128::from(low));
                }
            }
        }
        let max_root = (hi - 1).isqrt() as u64;
        for d in 0..4096u64 {
            for r in [
                (1u64 << 61) + d,
                (1u64 << 62) - d,
                (1u64 << 62) + d,
                max_root - d,
                (1u64 << 61) | (next() >> 3),
            ] {
                let sq = u128::from(r) * u128::from(r);
                for n in [
                    sq - 1,
                    sq,
                    sq + 1,
                    sq + 2 * u128::from(r) - 1,
                    sq + 2 * u128::from(r),
                ] {
                    check(n);
                }
            }
        }
        check(lo);
        check(hi - 1);
        for _ in 0..2_000_000 {
            let n = (u128::from(next()) << 64) | u128::from(next());
            check(lo + n % (hi - lo));
        }
    }

    /// The seed of [`goldschmidt`], `y₀ = c₀ − ⌊c₁·f / 2³²⌋`, is within a relative 2⁻¹⁹ of
    /// `2³⁰/√x = 2⁶²/√t` for every `t` ∈ [2⁶², 2⁶⁴) ([`isqrt_u128`]'s seed; the sums of
    /// [`Vec2::length_and_direction`] have their own table, tested below). Per table interval
    /// `i` (`t = i·2⁵⁴ + f·2²² + low`): `L(f) ≤ y₀ < L(f) + 1` with the line
    /// `L(f) = c₀ − c₁·f/2³²`, and `L(f)·√t` is concave in `f` (a decreasing line times a
    /// concave increasing root), so the error's minimum lies at an end of the interval (taken
    /// with `y₀ = L`, `low = 0`) and its maximum where `(L + 1)·√t` peaks (`low = 2²² − 1`),
    /// found by ternary search and checked with its neighbourhood.
    ///
    /// [`Vec2::length_and_direction`]: super::Vec2::length_and_direction
    #[test]
    fn rsqrt_seed_error_is_below_2_pow_minus_19() {
        let worst = worst_seed_error(&RSQRT_SEED, 256, 54);
        assert!(
            worst < 2f64.powi(-19),
            "worst relative seed error {worst:e}"
        );
    }

    /// The seed of [`goldschmidt_sum`], `y₀ = c₀ − ⌊c₁·f / 2³²⌋`, is within a relative 2⁻¹⁸ of
    /// `2²⁹/√x = 2⁶¹/√u` for every `u` ∈ [2⁶⁰, 2⁶³) (the premise of [`recip_from_h`]'s proof),
    /// shown per table interval `i` (`u = i·2⁵³ + f·2²¹ + low`) as for [`RSQRT_SEED`] in
    /// `rsqrt_seed_error_is_below_2_pow_minus_19`: the error's minimum lies at an end of the
    /// interval, its maximum where `(L + 1)·√u` peaks (ternary search and its neighbourhood).
    #[test]
    fn sum_rsqrt_seed_error_is_below_2_pow_minus_18() {
        let worst = worst_seed_error(&SUM_RSQRT_SEED, 128, 53);
        assert!(
            worst < 2f64.powi(-18),
            "worst relative seed error {worst:e}"
        );
    }

    /// The largest relative error of a seed table's lines `y₀ = c₀ − ⌊c₁·f / 2³²⌋` against
    /// `2^(s + 8)/√t` over `t = i·2^s + f·2^(s − 32) + low` for the intervals `i` from `first`
    /// to 1,023 (a test oracle, in `f64`): per interval the error's minimum lies at an end
    /// (taken with `y₀ = L`, `low = 0`) and its maximum where `(L + 1)·√t` peaks (`low` at its
    /// largest), found by ternary search and checked with its neighbourhood; the actual seed on
    /// a few points of each interval is checked against the bound found.
    #[allow(clippy::float_arithmetic, clippy::cast_precision_loss)]
    fn worst_seed_error(table: &[u64; 1024], first: u64, s: u32) -> f64 {
        let mut worst = 0f64;
        for i in first..1024 {
            let entry = table[i as usize];
            let (c0, c1) = ((entry >> 32) as f64, (entry & u64::from(u32::MAX)) as f64);
            let line = |f: u64| c0 - c1 * f as f64 / 4_294_967_296.0;
            let t = |f: u64, low: u64| ((i << s) | (f << (s - 32)) | low) as f64;
            // Relative error of `y` against 2^(s + 8)/√t.
            let err = |y: f64, t: f64| y * t.sqrt() / 2f64.powi(s as i32 + 8) - 1.0;
            let low_max = (1 << (s - 32)) - 1;
            let upper = |f: u64| err(line(f) + 1.0, t(f, low_max));
            for f in [0, u64::from(u32::MAX)] {
                worst = worst.max(err(line(f), t(f, 0)).abs());
                worst = worst.max(upper(f).abs());
            }
            let (mut lo, mut hi) = (0u64, u64::from(u32::MAX));
            while hi - lo > 3 {
                let (m1, m2) = (lo + (hi - lo) / 3, hi - (hi - lo) / 3);
                if upper(m1) < upper(m2) {
                    lo = m1;
                } else {
                    hi = m2;
                }
            }
            for f in lo.saturating_sub(1 << 12)..=(hi + (1 << 12)).min(u64::from(u32::MAX)) {
                worst = worst.max(upper(f).abs());
            }
            for f in [0, 1, lo, hi, u64::from(u32::MAX)] {
                let tt = (i << s) | (f << (s - 32));
                let y0 = (entry >> 32).wrapping_sub(((entry & u64::from(u32::MAX)) * f) >> 32);
                assert!(
                    err(y0 as f64, tt as f64).abs() <= worst,
                    "interval {i}, f {f}"
                );
            }
        }
        worst
    }

    #[test]
    fn root_bound_is_above_the_root_and_close() {
        let mut x: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834;
        let check = |n: u128| {
            let b = u128::from(root_bound(n));
            assert!(b * b > n || b == u128::from(u64::MAX), "n {n}");
            let r = n.isqrt();
            assert!(b > r || b == u128::from(u64::MAX), "n {n}");
            if n >= 64 {
                // Within 0.8 % (+1): b ≤ r·1.008 + 2.
                assert!(b * 1000 <= r * 1008 + 2000, "n {n}: {b} against {r}");
            }
        };
        for n in 0..5000 {
            check(n);
        }
        for k in 0..128 {
            let p = 1u128 << k;
            for n in [p - 1, p, p + 1, (p - 1) / 2 * 3] {
                check(n);
            }
        }
        check(u128::MAX);
        for _ in 0..20_000 {
            // xorshift, at every magnitude.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check(x >> (x % 128));
        }
    }

    /// `reciprocal_word(d)` is `⌊(2¹²⁸ − 1)/d⌋ − 2⁶⁴` (the division it replaces): both ends of
    /// every seed-table interval and their neighbours, the interval middles, powers of two and
    /// their neighbours, and four million random normalised divisors.
    #[test]
    fn reciprocal_word_is_the_quotient() {
        let check = |d: u64| {
            let exact = (u128::MAX / u128::from(d)) - (1u128 << 64);
            assert_eq!(u128::from(reciprocal_word(d)), exact, "d = {d:#x}");
        };
        let mut next = splitmix_stream(0x5eed_0fd1_5035);
        for i in 256u64..512 {
            let (lo, hi) = (i << 55, ((i + 1) << 55).wrapping_sub(1));
            for d in [lo, lo + 1, lo + 2, lo + (1 << 54), hi - 2, hi - 1, hi] {
                check(d);
            }
            for _ in 0..64 {
                check(lo | (next() >> 9));
            }
        }
        for k in 0..64 {
            let d = (1u64 << 63) | (1u64 << k);
            check(d);
            check((d - 1) | (1 << 63));
            check(u64::MAX - (1u64 << k) + 1);
        }
        check(1 << 63);
        check(u64::MAX);
        for _ in 0..4_000_000 {
            check(next() | (1 << 63));
        }
    }

    /// `FxReciprocal::new(b).divide(a)` against `fx_div(a, b)` (itself tested against `fixed`),
    /// where `fx_div` does not overflow.
    fn check_reciprocal(a: i64, b: i64) {
        if b == 0 {
            return;
        }
        let (fa, fb) = (Fx::from_bits(a), Fx::from_bits(b));
        if fa.checked_div(fb).is_some() {
            assert_eq!(
                FxReciprocal::new(fb).divide(fa),
                fx_div(fa, fb),
                "{a} / {b}"
            );
        }
    }

    /// Every pair of edge values (0, ±1, ±2ᵏ and their neighbours, `i64::MIN`/`MAX`) and the
    /// quotients next to the overflow bound `2⁶³` on both sides.
    #[test]
    fn reciprocal_division_on_edges() {
        let mut edges = vec![0i64, 1, 2, 3, i64::MAX, i64::MIN, i64::MIN + 1];
        for k in 0..63 {
            let p = 1i64 << k;
            edges.extend([p - 1, p, p + 1, p | (p >> 1), (p - 1) ^ (p >> 1)]);
        }
        let edges: Vec<i64> = edges.iter().flat_map(|&e| [e, e.wrapping_neg()]).collect();
        for &a in &edges {
            for &b in &edges {
                check_reciprocal(a, b);
            }
        }
        // a = T·2³¹ + δ: quotients 2⁶³ + δ·2³²/T (the fast path's bound) for assorted T.
        let mut next = splitmix_stream(7);
        for _ in 0..20_000 {
            let t = (next() >> (next() % 64)).max(1) as i64;
            if let Some(edge) = t.checked_mul(1 << 31) {
                for delta in [-2i64, -1, 0, 1, 2] {
                    let a = edge.saturating_add(delta);
                    for (x, y) in [(a, t), (-a, t), (a, -t), (-a, -t)] {
                        check_reciprocal(x, y);
                    }
                }
            }
        }
    }

    /// Exhaustive over small raw values (every quotient path: tiny divisors, whose dividend is
    /// pre-shifted, and the cold path for the overflowing ones).
    #[test]
    fn reciprocal_division_on_small_values() {
        for a in -300i64..=300 {
            for b in -300i64..=300 {
                check_reciprocal(a, b);
                check_reciprocal(a << 32, b);
                check_reciprocal(a << 40, b << 20);
                check_reciprocal(a, b << 40);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// Random dividends and divisors of every magnitude (each shifted right by a random
        /// amount) and sign.
        #[test]
        fn reciprocal_division_matches_fx_div(
            a in proptest::prelude::any::<i64>(),
            b in proptest::prelude::any::<i64>(),
            sa in 0u32..64,
            sb in 0u32..64,
        ) {
            check_reciprocal(a >> sa, b >> sb);
            check_reciprocal(a, b >> sb);
            check_reciprocal(a >> sa, b);
        }
    }
}

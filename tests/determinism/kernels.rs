//! The fast numeric kernels of `math` are bit-identical to the operations they replace, for every
//! input: [`isqrt_u128`] to core's `u128::isqrt`, [`div_trunc`] to `i128`'s `/`, [`fx_div`] and
//! [`fx_saturating_div`] (and `Vec2 / Fx`) to `fixed`'s `I32F32` division, and
//! `Vec2::length_and_direction` to its plain definition (core `isqrt`, `i128` division).
//! Exhaustive on small ranges, every combination of edge values, and proptest over the full range.

use lockstep_orca::math::{Fx, Vec2, div_trunc, fx_div, fx_saturating_div, isqrt_u128};
use proptest::prelude::*;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

/// Edge values of `u128`: 0, 1, powers of two and their neighbours, all-ones words.
fn u128_edges() -> Vec<u128> {
    let mut v = vec![0, 1, 2, 3, u128::MAX, u128::MAX - 1, u128::from(u64::MAX)];
    for k in 0..128 {
        let p = 1u128 << k;
        v.extend([p - 1, p, p + 1, p | (p >> 1), p.wrapping_mul(3)]);
    }
    v
}

/// Edge values of `i128`: the `u128` edges, their negations, `i128::MIN` / `MAX` neighbours.
fn i128_edges() -> Vec<i128> {
    let mut v: Vec<i128> = u128_edges().into_iter().map(u128::cast_signed).collect();
    v.extend(v.clone().into_iter().map(i128::wrapping_neg));
    v.extend([i128::MIN, i128::MIN + 1, i128::MAX, i128::MAX - 1]);
    v.extend([i64::MIN, i64::MAX].map(i128::from));
    v
}

/// Edge values of the raw bits of an `Fx`.
fn i64_edges() -> Vec<i64> {
    let mut v = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        i64::MIN,
        i64::MIN + 1,
        i64::MAX,
        i64::MAX - 1,
    ];
    for k in 0..63 {
        let p = 1i64 << k;
        v.extend([p - 1, p, p + 1, -(p - 1), -p, -(p + 1)]);
    }
    v
}

/// `Vec2::length_and_direction` by its plain definition: core's `isqrt` of the exact sum of
/// squares of the components scaled to 62 bits, and two `i128` divisions (the oracle).
fn length_and_direction_reference(v: Vec2) -> Option<(Fx, Vec2)> {
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
}

/// `f` panics exactly when `g` does, and otherwise returns the same value.
fn same_or_both_panic<T: PartialEq + std::fmt::Debug>(
    f: impl FnOnce() -> T,
    g: impl FnOnce() -> T,
) {
    let (mut a, mut b) = (None, None);
    let (fp, gp) = (panics(|| a = Some(f())), panics(|| b = Some(g())));
    assert_eq!(fp, gp, "one panicked, the other did not: {a:?} vs {b:?}");
    assert_eq!(a, b);
}

thread_local! {
    static PANIC_EXPECTED: Cell<bool> = const { Cell::new(false) };
}

/// Whether `f` panics; the panic is expected, so its message is not printed (other panics of
/// this binary, failed assertions included, still are).
fn panics<T>(f: impl FnOnce() -> T) -> bool {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !PANIC_EXPECTED.with(Cell::get) {
                default(info);
            }
        }));
    });
    PANIC_EXPECTED.with(|e| e.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    PANIC_EXPECTED.with(|e| e.set(false));
    result.is_err()
}

#[test]
fn isqrt_exhaustive_on_small_inputs() {
    for n in 0..=1u128 << 20 {
        assert_eq!(isqrt_u128(n), n.isqrt(), "n = {n}");
    }
}

#[test]
fn isqrt_on_edges_squares_and_their_neighbours() {
    for n in u128_edges() {
        assert_eq!(isqrt_u128(n), n.isqrt(), "n = {n}");
    }
    // Around every power of two: a window of 2048 values.
    for k in 11..128 {
        let p = 1u128 << k;
        for n in p - 1024..p + 1024 {
            assert_eq!(isqrt_u128(n), n.isqrt(), "n = {n}");
        }
    }
    assert_eq!(isqrt_u128(u128::MAX), u128::from(u64::MAX));
    // Perfect squares r², r² − 1 and (r + 1)² − 1 for roots near every power of two.
    for j in 0..64 {
        for d in 0..64u64 {
            for r in [
                (1u64 << j).wrapping_add(d),
                (1u64 << j).wrapping_sub(d),
                u64::MAX - d,
            ] {
                let sq = u128::from(r) * u128::from(r);
                for n in [sq.wrapping_sub(1), sq, sq + 1, sq + 2 * u128::from(r)] {
                    assert_eq!(isqrt_u128(n), n.isqrt(), "n = {n}");
                }
            }
        }
    }
}

#[test]
fn div_trunc_exhaustive_on_small_operands() {
    for n in -300i128..=300 {
        for d in (-300i128..=300).filter(|&d| d != 0) {
            assert_eq!(div_trunc(n, d), n / d, "{n} / {d}");
        }
    }
}

#[test]
fn div_trunc_on_every_pair_of_edges() {
    let edges = i128_edges();
    for &n in &edges {
        for &d in &edges {
            if d == 0 || (n == i128::MIN && d == -1) {
                continue; // the panicking cases, below
            }
            assert_eq!(div_trunc(n, d), n / d, "{n} / {d}");
        }
    }
}

#[test]
fn div_trunc_panics_like_the_operator() {
    for (n, d) in [(1i128, 0i128), (0, 0), (i128::MIN, 0), (i128::MIN, -1)] {
        same_or_both_panic(
            || div_trunc(std::hint::black_box(n), std::hint::black_box(d)),
            || std::hint::black_box(n) / std::hint::black_box(d),
        );
        assert!(panics(|| div_trunc(std::hint::black_box(n), d)));
    }
}

/// `fx_div` against `fixed`: equal where `fixed` does not overflow; on overflow both panic in
/// builds with debug assertions (tests) and otherwise wrap alike.
fn check_fx_div(a: i64, b: i64) {
    let (fa, fb) = (Fx::from_bits(a), Fx::from_bits(b));
    assert_eq!(
        fx_saturating_div(fa, fb),
        fa.saturating_div(fb),
        "{a} / {b}"
    );
    match fa.checked_div(fb) {
        Some(q) => {
            assert_eq!(fx_div(fa, fb), q, "{a} / {b}");
            let other = Fx::from_bits(a.rotate_left(7));
            if let Some(q_other) = other.checked_div(fb) {
                assert_eq!(
                    Vec2::new(fa, other) / fb,
                    Vec2::new(q, q_other),
                    "{a} / {b}"
                );
            }
        }
        None => {
            assert!(fa.overflowing_div(fb).1, "{a} / {b}");
            same_or_both_panic(|| fx_div(fa, fb), || fa / fb);
        }
    }
}

#[test]
fn fx_div_exhaustive_on_small_raw_bits() {
    for a in -200i64..=200 {
        for b in (-200i64..=200).filter(|&b| b != 0) {
            check_fx_div(a, b);
            check_fx_div(a << 32, b); // integers over ulps: overflows
            check_fx_div(a << 20, b << 20);
        }
    }
}

#[test]
fn fx_div_on_every_pair_of_edges() {
    let edges = i64_edges();
    for &a in &edges {
        for &b in edges.iter().filter(|&&b| b != 0) {
            check_fx_div(a, b);
        }
    }
    // A zero divisor panics in both.
    for a in [0i64, 1, -1, i64::MIN, i64::MAX] {
        let fa = Fx::from_bits(a);
        same_or_both_panic(|| fx_div(fa, Fx::ZERO), || fa / Fx::ZERO);
        same_or_both_panic(
            || fx_saturating_div(fa, Fx::ZERO),
            || fa.saturating_div(Fx::ZERO),
        );
        assert!(panics(|| fx_div(fa, std::hint::black_box(Fx::ZERO))));
    }
}

#[test]
fn length_and_direction_on_edges() {
    let edges = i64_edges();
    for &x in &edges {
        for &y in &edges {
            // Components near ±2⁶³ overflow the exact sum of squares: both panic (debug).
            let v = Vec2::from_bits(x, y);
            same_or_both_panic(
                || v.length_and_direction(),
                || length_and_direction_reference(v),
            );
        }
    }
}

/// A `u128` drawn from a mix that reaches every magnitude (a uniform `u128` is almost always
/// above 2¹²⁰): a random value shifted right by a random amount.
fn any_magnitude_u128() -> impl Strategy<Value = u128> {
    (any::<u128>(), 0u32..128).prop_map(|(v, k)| v >> k)
}

fn any_magnitude_i128() -> impl Strategy<Value = i128> {
    (any::<i128>(), 0u32..127).prop_map(|(v, k)| v >> k)
}

fn any_magnitude_i64() -> impl Strategy<Value = i64> {
    (any::<i64>(), 0u32..63).prop_map(|(v, k)| v >> k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn isqrt_matches_core(n in any::<u128>(), m in any_magnitude_u128()) {
        prop_assert_eq!(isqrt_u128(n), n.isqrt());
        prop_assert_eq!(isqrt_u128(m), m.isqrt());
    }

    #[test]
    fn isqrt_matches_core_next_to_squares(r in any::<u64>(), k in 0u32..64, d in -3i128..=3) {
        let r = r >> k;
        let n = (u128::from(r) * u128::from(r)).cast_signed().saturating_add(d).max(0);
        let n = n.cast_unsigned();
        prop_assert_eq!(isqrt_u128(n), n.isqrt());
    }

    #[test]
    fn div_trunc_matches_the_operator(
        n in any_magnitude_i128(),
        d in any_magnitude_i128(),
        wide_n in any::<i128>(),
        wide_d in any::<i128>(),
    ) {
        for (n, d) in [(n, d), (wide_n, wide_d), (wide_n, d), (n, wide_d)] {
            if d != 0 && !(n == i128::MIN && d == -1) {
                prop_assert_eq!(div_trunc(n, d), n / d);
            }
        }
    }

    #[test]
    fn fx_div_matches_fixed(
        a in any_magnitude_i64(),
        b in any_magnitude_i64(),
        wide_a in any::<i64>(),
        wide_b in any::<i64>(),
    ) {
        for (a, b) in [(a, b), (wide_a, wide_b), (wide_a, b), (a, wide_b)] {
            if b != 0 {
                let (fa, fb) = (Fx::from_bits(a), Fx::from_bits(b));
                prop_assert_eq!(fx_saturating_div(fa, fb), fa.saturating_div(fb));
                if let Some(q) = fa.checked_div(fb) {
                    prop_assert_eq!(fx_div(fa, fb), q);
                }
            }
        }
    }

    #[test]
    fn length_and_direction_matches_its_plain_definition(
        x in any_magnitude_i64(),
        y in any_magnitude_i64(),
    ) {
        // Within the simulation domain (|component| < 2⁶²) the exact sum of squares fits.
        let v = Vec2::from_bits(x >> 1, y >> 1);
        prop_assert_eq!(v.length_and_direction(), length_and_direction_reference(v));
        prop_assert_eq!(v.try_normalize(), length_and_direction_reference(v).map(|(_, u)| u));
    }
}

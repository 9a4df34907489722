//! The numeric kernels of `math` against the operations they replace (same results, see
//! `tests/determinism/kernels.rs`): `isqrt_u128` vs core's `u128::isqrt`, `div_trunc` vs `i128 /`, `fx_div`
//! vs `fixed`'s division. Inputs are 4,096 values of the magnitudes the tick sees: sums of
//! squares of 62-bit components (`length_and_direction`), Q64.64 squared distances, and Q32.32
//! quotients.
//!
//! ```text
//! cargo bench --bench kernels
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockstep_orca::math::{Fx, Vec2, div_trunc, fx_div, isqrt_u128};
use lockstep_orca::splitmix64;
use std::hint::black_box;

const N: usize = 4096;

fn values<T>(seed: u64, f: impl Fn(u64, u64) -> T) -> Vec<T> {
    (0..N as u64)
        .map(|i| {
            let a = splitmix64(seed ^ (2 * i));
            f(a, splitmix64(a ^ (2 * i + 1)))
        })
        .collect()
}

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernels");
    group.throughput(Throughput::Elements(N as u64));

    // Sums of squares of components scaled to 62 bits (as in `length_and_direction`).
    let sums = values(1, |a, b| {
        let (x, y) = (u128::from(a >> 2), u128::from(b >> (2 + a % 40)));
        x * x + y * y
    });
    // Squared distances in Q64.64 of up to ~2¹⁶ units.
    let dists = values(2, |a, b| u128::from(a >> 16) * u128::from(b >> 16));
    for (label, xs) in [("sum_sq_62bit", &sums), ("dist_sq", &dists)] {
        group.bench_function(format!("isqrt_core/{label}"), |bch| {
            bch.iter(|| xs.iter().fold(0u128, |acc, &x| acc ^ black_box(x).isqrt()));
        });
        group.bench_function(format!("isqrt_u128/{label}"), |bch| {
            bch.iter(|| {
                xs.iter()
                    .fold(0u128, |acc, &x| acc ^ isqrt_u128(black_box(x)))
            });
        });
    }

    // (x << 32) / len of `length_and_direction`.
    let quotients = values(3, |a, b| {
        let x = (a as i64 >> 2) | 1;
        let len = i128::from(x.unsigned_abs()) + i128::from(b >> 3);
        (i128::from(x) << 32, len)
    });
    group.bench_function("div_i128_operator", |bch| {
        bch.iter(|| {
            quotients
                .iter()
                .fold(0i128, |acc, &(n, d)| acc ^ (black_box(n) / d))
        });
    });
    group.bench_function("div_trunc", |bch| {
        bch.iter(|| {
            quotients
                .iter()
                .fold(0i128, |acc, &(n, d)| acc ^ div_trunc(black_box(n), d))
        });
    });

    // Q32.32 quotients of values up to ±2¹⁶ by values in (1/16, 2¹⁶), either sign.
    let fx_pairs = values(4, |a, b| {
        let d = ((b >> 16) as i64 | (1 << 28)) * if b & 1 == 0 { 1 } else { -1 };
        (Fx::from_bits((a as i64) >> 16), Fx::from_bits(d))
    });
    group.bench_function("fx_div_fixed", |bch| {
        bch.iter(|| {
            fx_pairs
                .iter()
                .fold(0i64, |acc, &(a, b)| acc ^ (black_box(a) / b).to_bits())
        });
    });
    group.bench_function("fx_div", |bch| {
        bch.iter(|| {
            fx_pairs
                .iter()
                .fold(0i64, |acc, &(a, b)| acc ^ fx_div(black_box(a), b).to_bits())
        });
    });

    let vectors = values(5, |a, b| {
        Vec2::from_bits((a as i64) >> 20, (b as i64) >> 20)
    });
    group.bench_function("length_and_direction", |bch| {
        bch.iter(|| {
            vectors.iter().fold(0i64, |acc, &v| {
                let (len, unit) = black_box(v).length_and_direction().unwrap_or_default();
                acc ^ len.to_bits() ^ unit.x.to_bits()
            })
        });
    });
    group.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);

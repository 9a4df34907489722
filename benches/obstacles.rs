//! Obstacle BSP: build time and query cost of RVO2's exhaustive `O(N²)` split choice against
//! the sampled one, at 1k, 10k and 50k segments; and the cost of adding one obstacle to a
//! 10k-segment map (full deterministic rebuild).
//!
//! `cargo bench --bench obstacles`. Before the timings it prints, per map, the tree size and
//! depth and the mean number of nodes a neighbour query visits (deterministic figures).
#![allow(clippy::float_arithmetic)]

use criterion::{BatchSize, Criterion};
use lockstep_orca::math::unit_from_turns;
use lockstep_orca::obstacle::{ObstacleId, ObstacleSet, ObstacleShape};
use lockstep_orca::oracles::{Bsp, SplitChoice};
use lockstep_orca::oracles::{ObstacleVertex, push_shape};
use lockstep_orca::splitmix64;
use lockstep_orca::{Fx, Vec2};
use std::hint::black_box;
use std::time::Duration;

/// A map of about `segments` edges: one random triangle or quadrilateral (radius 2–2.5, random
/// rotation) per 10×10 cell of a square grid, plus, every 50 cells, a long wall (48 units)
/// across the gap between two cell rows (these cause splits).
fn map(segments: usize) -> Vec<ObstacleShape> {
    let mut shapes = Vec::new();
    let mut count = 0;
    let side = ((segments / 3) as f64).sqrt().ceil() as i32;
    let mut rng = 12345u64;
    let mut next = || {
        rng = splitmix64(rng);
        rng
    };
    'outer: for i in 0..side {
        for j in 0..side {
            if count >= segments {
                break 'outer;
            }
            let centre = Vec2::from_int(i * 10 - side * 5, j * 10 - side * 5);
            let k = if next() % 2 == 0 { 3 } else { 4 };
            let size = Fx::from_num(2) + Fx::from_bits((next() >> 33) as i64);
            let turn0 = Fx::from_bits((next() >> 32) as i64);
            let verts = (0..k)
                .map(|m| {
                    let t = turn0 + Fx::from_num(m) / Fx::from_num(k);
                    centre + unit_from_turns(t.frac()) * size
                })
                .collect();
            shapes.push(ObstacleShape::Polygon(verts));
            count += k as usize;
            if (i * side + j) % 50 == 0 && count + 2 <= segments {
                // A long wall in the gap between cell columns, slightly slanted.
                let x = centre.x + Fx::from_num(5);
                let y0 = centre.y - Fx::from_num(4);
                shapes.push(ObstacleShape::Polyline(vec![
                    Vec2::new(x, y0),
                    Vec2::new(x + Fx::lit("0.5"), y0 + Fx::from_num(48)),
                ]));
                count += 2;
            }
        }
    }
    shapes
}

fn arena(shapes: &[ObstacleShape]) -> Vec<ObstacleVertex> {
    let mut a = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        push_shape(&mut a, ObstacleId(i as u32), s);
    }
    a
}

/// 1,000 query points spread over the map (deterministic).
fn queries(segments: usize) -> Vec<Vec2> {
    let side = ((segments / 3) as f64).sqrt().ceil() as i64;
    let half = (side * 5) as u64;
    (0..1000u64)
        .map(|k| {
            let r = splitmix64(k ^ 0xABCD);
            let x = (r % (2 * half)) as i64 - half as i64;
            let y = ((r >> 32) % (2 * half)) as i64 - half as i64;
            Vec2::new(Fx::from_num(x), Fx::from_num(y)) + Vec2::from_bits(1 << 31, 1 << 30)
        })
        .collect()
}

/// RVO2 Blocks' query range: time_horizon_obst 5 · max_speed 2 + radius 2.
const RANGE: i32 = 12;

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let sampled = SplitChoice::default();
    let choices = [
        ("exhaustive", SplitChoice::Exhaustive),
        ("sampled", sampled),
    ];
    for n in [1_000usize, 10_000, 50_000] {
        let shapes = map(n);
        let a = arena(&shapes);
        let qs = queries(n);
        let mut g = c.benchmark_group(format!("obstacle_bsp_{}", a.len()));
        for (name, choice) in choices {
            let t = std::time::Instant::now();
            let bsp = Bsp::build(&a, choice);
            let build = t.elapsed();
            let mut visited = 0usize;
            let mut found = 0usize;
            let mut out = Vec::new();
            for &q in &qs {
                out.clear();
                visited += bsp.query_edges(q, Fx::from_num(RANGE), &mut out);
                found += out.len();
            }
            let s = bsp.stats();
            println!(
                "segments {} {name}: one build {build:.2?}, nodes {}, depth {}, mean nodes visited per query {:.1}, mean neighbours {:.2}",
                a.len(),
                s.nodes,
                s.depth,
                visited as f64 / qs.len() as f64,
                found as f64 / qs.len() as f64
            );
            g.bench_function(format!("build_{name}"), |b| {
                b.iter(|| Bsp::build(black_box(&a), choice))
            });
            g.bench_function(format!("query_1000_{name}"), |b| {
                let mut out = Vec::new();
                b.iter(|| {
                    for &q in &qs {
                        out.clear();
                        black_box(bsp.query_edges(q, Fx::from_num(RANGE), &mut out));
                    }
                })
            });
        }
        g.finish();
    }
    // Adding one obstacle to a 10k-segment map: add + deterministic rebuild.
    let mut set = ObstacleSet::default();
    for s in map(10_000) {
        set.add(s).unwrap();
    }
    set.ensure_built();
    let extra = ObstacleShape::Polygon(vec![
        Vec2::from_int(3, 3),
        Vec2::from_int(5, 3),
        Vec2::from_int(5, 5),
    ]);
    c.bench_function("obstacle_add_one_to_10k_and_rebuild", |b| {
        b.iter_batched(
            || set.clone(),
            |mut s| {
                s.add(extra.clone()).unwrap();
                s.ensure_built();
                s
            },
            BatchSize::LargeInput,
        )
    });
    c.final_summary();
}

//! Tests of the CDT kernel and the in-circle predicate: independent oracles (an `i128` 4×4
//! determinant, brute-force validity and constrained-Delaunay checks), hand cases at the range's
//! edge, and canonicity under shuffled inputs.

use super::check::validate;
use super::{CdtError, NO_TRIANGLE, Triangulation, triangulate};
use crate::geom::left_of;
use crate::math::Vec2;
use crate::navigation::predicates::{MAX_RAW, in_circle, in_circle_det, in_circle_sign};
use ethnum::I256;

/// splitmix64: a small deterministic generator for the tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = u64::try_from(hi - lo).unwrap() + 1;
        lo + i64::try_from(self.next() % span).unwrap()
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = usize::try_from(self.next() % (i as u64 + 1)).unwrap();
            v.swap(i, j);
        }
    }
}

fn raw(x: i64, y: i64) -> Vec2 {
    Vec2::from_bits(x, y)
}

// ------------------------------------------------------------------ in-circle

/// The 4×4 determinant `|x y x²+y² 1|` of `a, b, c, d` in `i128` (|coordinates| < 2^20):
/// independent of the translated 3×3 form under test.
fn in_circle_i128(p: [Vec2; 4]) -> i128 {
    let rows: Vec<[i128; 4]> = p
        .iter()
        .map(|q| {
            let (x, y) = (i128::from(q.x.to_bits()), i128::from(q.y.to_bits()));
            [x, y, x * x + y * y, 1]
        })
        .collect();
    let det3 = |r: [usize; 3], c: [usize; 3]| {
        let m = |i: usize, j: usize| rows[r[i]][c[j]];
        m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1))
            - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
            + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0))
    };
    // Expansion along the last column (all ones).
    let cols = [0, 1, 2];
    -det3([1, 2, 3], cols) + det3([0, 2, 3], cols) - det3([0, 1, 3], cols) + det3([0, 1, 2], cols)
}

#[test]
fn in_circle_matches_the_i128_determinant_on_small_coordinates() {
    let mut rng = Rng(1);
    let lim = (1 << 20) - 1;
    let mut signs = [0u32; 3];
    for round in 0..20_000 {
        // Every fourth round on a tiny grid, where cocircular quadruples are common.
        let l = if round % 4 == 0 { 3 } else { lim };
        let p = [(); 4].map(|()| raw(rng.range(-l, l), rng.range(-l, l)));
        let want = in_circle_i128(p);
        let got = in_circle_det(p[0], p[1], p[2], p[3]);
        assert_eq!(got, I256::new(want), "{p:?}");
        signs[usize::try_from(want.signum() + 1).unwrap()] += 1;
    }
    assert!(signs.iter().all(|&s| s > 100), "signs {signs:?}");
}

#[test]
fn in_circle_is_exact_at_the_edge_of_the_range() {
    let m = MAX_RAW - 1;
    // A square's corners are cocircular: exactly zero, no overflow.
    let sq = [raw(-m, -m), raw(m, -m), raw(m, m), raw(-m, m)];
    assert_eq!(in_circle_det(sq[0], sq[1], sq[2], sq[3]), I256::ZERO);
    // One ulp inwards is inside, one ulp outwards (diagonally) outside.
    assert!(in_circle_det(sq[0], sq[1], sq[2], raw(-m + 1, m)).is_positive());
    assert!(in_circle_det(sq[0], sq[1], sq[2], raw(-m + 1, m - 1)).is_positive());
    let big = [raw(-m + 2, -m + 2), raw(m - 2, -m + 2), raw(m - 2, m - 2)];
    assert!(in_circle_det(big[0], big[1], big[2], raw(-m, m)).is_negative());
    // The centre of a huge triangle is inside; a point far off is outside; clockwise flips.
    assert!(in_circle_det(sq[0], sq[1], sq[2], raw(0, 0)).is_positive());
    assert!(in_circle_det(sq[2], sq[1], sq[0], raw(0, 0)).is_negative());
    let thin = [raw(-m, 0), raw(m, 1), raw(m, 2)];
    assert!(in_circle_det(thin[0], thin[1], thin[2], raw(-m, -m)).is_negative());
    // The determinant is translation invariant: the same square shifted by 2^51.
    let s = 1 << 51;
    let small = [raw(-s, -s), raw(s, -s), raw(s, s)];
    let shifted = small.map(|p| raw(p.x.to_bits() + s, p.y.to_bits() + s));
    let d = raw(-s + 1, s);
    let d2 = raw(d.x.to_bits() + s, d.y.to_bits() + s);
    assert_eq!(
        in_circle_det(small[0], small[1], small[2], d),
        in_circle_det(shifted[0], shifted[1], shifted[2], d2)
    );
}

#[test]
fn the_filtered_sign_is_the_exact_sign() {
    let mut rng = Rng(3);
    let m = MAX_RAW - 1;
    let mut signs = [0u32; 3];
    for round in 0..30_000 {
        // Cocircular corners of random squares and rectangles at every scale, nudged by a few
        // ulps, so that the filter must often give up; and plain random quadruples.
        let scale = rng.range(0, 52);
        let lim = (1i64 << scale).min(m / 2);
        let (cx, cy) = (rng.range(-lim, lim), rng.range(-lim, lim));
        let (w, h) = (rng.range(1, lim.max(1)), rng.range(1, lim.max(1)));
        let mut p = [
            raw(cx - w, cy - h),
            raw(cx + w, cy - h),
            raw(cx + w, cy + h),
            raw(cx - w, cy + h),
        ];
        if round % 3 == 0 {
            p = [(); 4].map(|()| raw(rng.range(-m, m), rng.range(-m, m)));
        }
        let nudge = rng.range(-2, 2);
        p[3] = raw(p[3].x.to_bits() + nudge, p[3].y.to_bits());
        let det = in_circle_det(p[0], p[1], p[2], p[3]);
        let want = i32::from(det.is_positive()) - i32::from(det.is_negative());
        assert_eq!(in_circle_sign(p[0], p[1], p[2], p[3]), want, "{p:?}");
        signs[usize::try_from(want + 1).unwrap()] += 1;
    }
    assert!(signs.iter().all(|&f| f > 1_000), "{signs:?}");
}

/// Integer points on circles of radius 5 and 25 (several cocircular quadruples each).
fn circle_points(scale: i64) -> Vec<Vec2> {
    let mut pts = Vec::new();
    for r2 in [25, 625] {
        for x in -25i64..=25 {
            for y in -25i64..=25 {
                if x * x + y * y == r2 {
                    pts.push(raw(x * scale, y * scale));
                }
            }
        }
    }
    pts
}

#[test]
fn symbolic_perturbation_decides_every_cocircular_quad_one_way() {
    let circle: Vec<Vec2> = circle_points(1 << 20)
        .into_iter()
        .filter(|p| p.x.to_bits().abs() <= 5 << 20 && p.y.to_bits().abs() <= 5 << 20)
        .collect();
    let mut rng = Rng(7);
    let mut insides = 0;
    for _ in 0..2_000 {
        let mut q: Vec<usize> = (0..circle.len()).collect();
        rng.shuffle(&mut q);
        let mut quad = [q[0], q[1], q[2], q[3]].map(|i| circle[i]);
        // Sort the four counter-clockwise around the centre (they are in convex position).
        quad.sort_by(|p, q| {
            let half = |p: &Vec2| p.y.to_bits() < 0 || (p.y.to_bits() == 0 && p.x.to_bits() < 0);
            half(p)
                .cmp(&half(q))
                .then_with(|| 0.cmp(&left_of(Vec2::ZERO, *p, *q)))
        });
        let [a, b, c, d] = quad;
        if left_of(a, b, c) <= 0 || left_of(a, c, d) <= 0 || left_of(b, c, d) <= 0 {
            continue;
        }
        assert_eq!(in_circle_det(a, b, c, d), I256::ZERO);
        let mut ranks = [0u32, 1, 2, 3];
        rng.shuffle(&mut ranks);
        let [ra, rb, rc, rd] = ranks;
        // Diagonal a c is legal iff d is outside abc; diagonal b d iff a is outside bcd:
        // exactly one of the two must be.
        let ac_illegal = in_circle(a, b, c, d, [ra, rb, rc, rd]);
        let bd_illegal = in_circle(b, c, d, a, [rb, rc, rd, ra]);
        assert_ne!(ac_illegal, bd_illegal, "{quad:?} {ranks:?}");
        // The same triangle named from another vertex gives the same answer.
        assert_eq!(ac_illegal, in_circle(b, c, a, d, [rb, rc, ra, rd]));
        assert_eq!(ac_illegal, in_circle(c, a, b, d, [rc, ra, rb, rd]));
        // The quad seen from the other triangle of the same diagonal agrees.
        assert_eq!(ac_illegal, in_circle(c, d, a, b, [rc, rd, ra, rb]));
        insides += usize::from(ac_illegal);
    }
    assert!(insides > 100);
}

/// Random points on a small lattice (collinear and cocircular ones abound), or spread widely,
/// every third set over the whole range of the predicates.
fn random_points(rng: &mut Rng, n: usize, lattice: bool) -> Vec<Vec2> {
    let mut pts: Vec<Vec2> = Vec::new();
    let lim = if n.is_multiple_of(3) {
        MAX_RAW - 1
    } else {
        1 << 40
    };
    while pts.len() < n {
        let q = if lattice {
            raw(rng.range(-6, 6) << 30, rng.range(-6, 6) << 30)
        } else {
            raw(rng.range(-lim, lim), rng.range(-lim, lim))
        };
        if !pts.contains(&q) {
            pts.push(q);
        }
    }
    pts
}

fn random_constraints(rng: &mut Rng, n: usize, count: usize) -> Vec<[u32; 2]> {
    let hi = i64::try_from(n).unwrap() - 1;
    (0..count)
        .map(|_| [rng.range(0, hi), rng.range(0, hi)])
        .filter(|[a, b]| a != b)
        .map(|[a, b]| [u32::try_from(a).unwrap(), u32::try_from(b).unwrap()])
        .collect()
}

/// `triangulate` of the inputs in a shuffled order (points renumbered, constraints reordered
/// and reversed at random), with the result's indices mapped back.
fn shuffled(rng: &mut Rng, points: &[Vec2], constraints: &[[u32; 2]]) -> Triangulation {
    let mut perm: Vec<u32> = (0..points.len() as u32).collect();
    rng.shuffle(&mut perm);
    // New index i holds old point perm[i].
    let mut inv = vec![0u32; points.len()];
    for (i, &o) in perm.iter().enumerate() {
        inv[o as usize] = i as u32;
    }
    let pts: Vec<Vec2> = perm.iter().map(|&o| points[o as usize]).collect();
    let mut cons: Vec<[u32; 2]> = constraints
        .iter()
        .map(|&[a, b]| {
            let c = [inv[a as usize], inv[b as usize]];
            if rng.next() & 1 == 0 { c } else { [c[1], c[0]] }
        })
        .collect();
    rng.shuffle(&mut cons);
    let mut t = triangulate(&pts, &cons).unwrap();
    for tri in &mut t.tris {
        *tri = tri.map(|i| perm[i as usize]);
    }
    t
}

fn check_canonical(rng: &mut Rng, points: &[Vec2], constraints: &[[u32; 2]], orders: usize) {
    let base = triangulate(points, constraints).unwrap();
    validate(points, constraints, &base);
    for _ in 0..orders {
        assert_eq!(
            shuffled(rng, points, constraints),
            base,
            "order changed the result"
        );
    }
}

#[test]
fn random_delaunay_triangulations_are_valid_and_canonical() {
    let mut rng = Rng(11);
    for round in 0..150 {
        let n = 3 + round % 40;
        let pts = random_points(&mut rng, n, round % 2 == 0);
        check_canonical(&mut rng, &pts, &[], 3);
    }
}

#[test]
fn random_constrained_triangulations_are_valid_and_canonical() {
    let mut rng = Rng(12);
    let mut dropped = 0;
    for round in 0..150 {
        let n = 3 + round % 50;
        let pts = random_points(&mut rng, n, round % 2 == 0);
        let cons = random_constraints(&mut rng, n, round % 12);
        check_canonical(&mut rng, &pts, &cons, 3);
        dropped += triangulate(&pts, &cons).unwrap().dropped;
    }
    assert!(
        dropped > 10,
        "crossing constraints were exercised ({dropped})"
    );
}

#[test]
fn cocircular_lattices_give_one_triangulation_in_any_order() {
    let mut rng = Rng(13);
    let grid: Vec<Vec2> = (0..8)
        .flat_map(|x| (0..7).map(move |y| Vec2::from_int(x, y)))
        .collect();
    let circle = circle_points(1 << 24);
    let mut centred = circle.clone();
    centred.push(Vec2::ZERO);
    let grid_walls: Vec<[u32; 2]> = vec![[0, 55], [7, 48], [3, 4], [10, 17]];
    for (pts, cons) in [
        (&grid, &Vec::new()),
        (&grid, &grid_walls),
        (&circle, &Vec::new()),
        (&centred, &vec![[0, 1], [2, 5]]),
    ] {
        check_canonical(&mut rng, pts, cons, 20);
    }
}

#[test]
fn constraints_split_at_points_and_overlapping_ones_merge() {
    // A row of collinear points with one constraint across all of them, another overlapping
    // part of it, and points on both sides.
    let mut pts: Vec<Vec2> = (0..6).map(|x| Vec2::from_int(x, 0)).collect();
    pts.extend([
        Vec2::from_int(2, 3),
        Vec2::from_int(3, -3),
        Vec2::from_int(-1, 1),
    ]);
    let cons = [[0, 5], [2, 4], [6, 7]];
    let t = triangulate(&pts, &cons).unwrap();
    validate(&pts, &cons, &t);
    // [6, 7] crosses [0, 5] between 2 and 3: dropped. The row: 5 constrained edges.
    assert_eq!(t.dropped, 1);
    let fixed = t.constrained.iter().flatten().filter(|&&c| c).count();
    assert_eq!(
        fixed,
        2 * 5,
        "each interior constrained edge is seen from both sides"
    );
}

#[test]
fn a_constraint_forces_a_non_delaunay_edge() {
    // A long thin diamond: Delaunay joins the two near points; the constraint joins the far
    // ones.
    let pts = [
        Vec2::from_int(-10, 0),
        Vec2::from_int(10, 0),
        Vec2::from_int(0, 1),
        Vec2::from_int(0, -1),
    ];
    let free = triangulate(&pts, &[]).unwrap();
    assert!(!free.tris.iter().any(|t| t.contains(&0) && t.contains(&1)));
    let cons = [[1, 0]];
    let t = triangulate(&pts, &cons).unwrap();
    validate(&pts, &cons, &t);
    assert_eq!(t.dropped, 0);
    assert!(t.tris.iter().all(|t| t.contains(&0) && t.contains(&1)));
}

#[test]
fn bad_inputs_are_errors_or_empty() {
    let pts = [
        Vec2::from_int(0, 0),
        Vec2::from_int(1, 0),
        Vec2::from_int(0, 1),
    ];
    assert_eq!(triangulate(&pts, &[[0, 3]]), Err(CdtError::BadConstraint));
    assert_eq!(triangulate(&pts, &[[1, 1]]), Err(CdtError::BadConstraint));
    let dup = [pts[0], pts[1], pts[2], Vec2::from_int(5, 5), pts[1]];
    assert_eq!(triangulate(&dup, &[]), Err(CdtError::DuplicatePoint));
    let far = [pts[0], pts[1], raw(MAX_RAW, 0)];
    assert_eq!(triangulate(&far, &[]), Err(CdtError::OutOfRange));
    let edge = [
        raw(-MAX_RAW + 1, -MAX_RAW + 1),
        raw(MAX_RAW - 1, 0),
        raw(0, MAX_RAW - 1),
    ];
    assert_eq!(triangulate(&edge, &[[0, 1]]).unwrap().tris.len(), 1);
    for line in [
        vec![],
        vec![pts[0]],
        vec![pts[0], pts[1]],
        (0..50)
            .map(|i| Vec2::from_int(i % 7 * 3 - i, i % 7 * 3 - i))
            .collect::<Vec<_>>(),
    ] {
        let mut l = line.clone();
        l.sort_by_key(|p| (p.x, p.y));
        l.dedup();
        let cons: Vec<[u32; 2]> = if l.len() >= 2 { vec![[0, 1]] } else { vec![] };
        assert_eq!(triangulate(&l, &cons), Ok(Triangulation::default()));
    }
}

/// Uniqueness, the property a local rebuild relies on: scramble a (constrained) Delaunay
/// triangulation by random flips of unconstrained convex quadrilaterals, then let Lawson's flips
/// run from every edge: they must come back to the same triangulation. Cocircular lattices make
/// the tie rule decide; a tie rule that is not a consistent perturbation fails here.
#[test]
fn lawson_flips_from_scrambled_triangulations_return_to_the_same_one() {
    use super::kernel::{Mesh, next, prev};
    let mut rng = Rng(14);
    for round in 0..60 {
        let n = 6 + round % 40;
        let mut pts = random_points(&mut rng, n, true);
        pts.sort_by_key(|p| (p.x, p.y));
        let cons = random_constraints(&mut rng, n, round % 6);
        let order: Vec<u32> = (0..n as u32).collect();
        let Some(mut mesh) = Mesh::delaunay(&pts) else {
            continue;
        };
        for &[a, b] in &cons {
            let _ = mesh.insert_constraint(a.min(b), a.max(b));
        }
        let want = super::canonical(&mesh, &order, 0);
        let mut flips = 0;
        for _ in 0..10 * n {
            let t = u32::try_from(rng.next() % mesh.tris.len() as u64).unwrap();
            let k = usize::try_from(rng.next() % 3).unwrap();
            let tri = mesh.tris[t as usize];
            if tri.adj[k] == NO_TRIANGLE || tri.is_fixed(k) {
                continue;
            }
            let (c, d) = (tri.v[prev(k)], mesh.apex_across(t, k));
            let (a, b) = (tri.v[k], tri.v[next(k)]);
            let p = |i: u32| pts[i as usize];
            if left_of(p(c), p(d), p(a)) < 0 && left_of(p(c), p(d), p(b)) > 0 {
                mesh.flip(t, k);
                flips += 1;
            }
        }
        assert!(flips > 0 || n < 8);
        for t in 0..mesh.tris.len() {
            for k in 0..3 {
                mesh.push(u32::try_from(t).unwrap(), k);
            }
        }
        mesh.legalize();
        assert_eq!(super::canonical(&mesh, &order, 0), want, "round {round}");
    }
}

/// The size the brief targets: 1,000 disjoint boxes (4,000 points, 4,000 constraints) in a
/// bounding rectangle. Not timed here (the machine is shared): run it under callgrind,
/// `valgrind --tool=callgrind <test binary> --ignored --exact navigation::cdt::tests::boxes_4000`.
#[test]
#[ignore = "a size probe for profiling; the assertions are cheap but the build is the point"]
fn boxes_4000() {
    let mut rng = Rng(15);
    let mut pts = vec![
        Vec2::from_int(-1, -1),
        Vec2::from_int(401, -1),
        Vec2::from_int(401, 401),
        Vec2::from_int(-1, 401),
    ];
    let mut cons = Vec::new();
    for i in 0..1_000 {
        // One box per 12.6 × 16 cell of a 32 × 25 grid, jittered inside it.
        let (cx, cy) = (i % 40 * 10, i / 40 * 16);
        let unit = 1i64 << 32;
        let x0 = cx * unit + rng.range(0, 3 * unit);
        let y0 = cy * unit + rng.range(0, 3 * unit);
        let (w, h) = (rng.range(unit, 6 * unit), rng.range(unit, 12 * unit));
        let base = u32::try_from(pts.len()).unwrap();
        pts.extend([
            raw(x0, y0),
            raw(x0 + w, y0),
            raw(x0 + w, y0 + h),
            raw(x0, y0 + h),
        ]);
        cons.extend((0..4).map(|k| [base + k, base + (k + 1) % 4]));
    }
    let t = triangulate(&pts, &cons).unwrap();
    assert_eq!(t.dropped, 0);
    assert_eq!(t.tris.len(), 2 * pts.len() - 4 - 2);
    let fixed = t.constrained.iter().flatten().filter(|&&c| c).count();
    assert_eq!(fixed, 2 * cons.len());
}

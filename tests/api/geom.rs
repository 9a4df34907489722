//! `lockstep_orca::geom` against slow oracles, at the edges of its domain and on hand cases.
//!
//! The oracles are other algorithms on arbitrary-precision integers built from the raw bits:
//! the cross product for orientation, the parametric form for segment intersection, a triangle
//! fan for the ring area, the quadrant-sum winding number for containment, and the exact
//! perpendicular distance bounds for the point–segment distance. Points are drawn so that
//! collinear, touching, overlapping, degenerate and one-ulp-off cases are frequent, at the
//! largest coordinates the module accepts as well as near the origin.

use lockstep_orca::geom::{
    self, Containment, MAX_EXACT_COORD, Orientation, SegmentIntersection as S,
};
use lockstep_orca::math::{sqrt_wide, wide_mul};
use lockstep_orca::{Fx, Vec2};
use proptest::prelude::*;
use std::cmp::Ordering;

/// A signed integer of any size: a sign and little-endian 32-bit limbs without high zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big {
    neg: bool,
    mag: Vec<u32>,
}

impl Big {
    fn from_i128(v: i128) -> Self {
        let mut m = v.unsigned_abs();
        let mut mag = Vec::new();
        while m != 0 {
            mag.push(m as u32);
            m >>= 32;
        }
        Self { neg: v < 0, mag }
    }

    fn zero() -> Self {
        Self::from_i128(0)
    }

    fn normalized(mut self) -> Self {
        while self.mag.last() == Some(&0) {
            self.mag.pop();
        }
        if self.mag.is_empty() {
            self.neg = false;
        }
        self
    }

    fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    fn negate(&self) -> Self {
        Self {
            neg: !self.neg,
            mag: self.mag.clone(),
        }
        .normalized()
    }

    fn cmp_mag(a: &[u32], b: &[u32]) -> Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u64;
        for i in 0..a.len().max(b.len()) {
            let s = u64::from(*a.get(i).unwrap_or(&0)) + u64::from(*b.get(i).unwrap_or(&0)) + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        out
    }

    /// `a − b` for `|a| ≥ |b|`.
    fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0i64;
        for (i, &x) in a.iter().enumerate() {
            let mut d = i64::from(x) - i64::from(*b.get(i).unwrap_or(&0)) - borrow;
            borrow = i64::from(d < 0);
            if d < 0 {
                d += 1 << 32;
            }
            out.push(d as u32);
        }
        out
    }

    fn add(&self, o: &Self) -> Self {
        let (neg, mag) = if self.neg == o.neg {
            (self.neg, Self::add_mag(&self.mag, &o.mag))
        } else if Self::cmp_mag(&self.mag, &o.mag) == Ordering::Less {
            (o.neg, Self::sub_mag(&o.mag, &self.mag))
        } else {
            (self.neg, Self::sub_mag(&self.mag, &o.mag))
        };
        Self { neg, mag }.normalized()
    }

    fn sub(&self, o: &Self) -> Self {
        self.add(&o.negate())
    }

    fn mul(&self, o: &Self) -> Self {
        let mut out = vec![0u32; self.mag.len() + o.mag.len() + 1];
        for (i, &x) in self.mag.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &y) in o.mag.iter().enumerate() {
                let t = u64::from(x) * u64::from(y) + u64::from(out[i + j]) + carry;
                out[i + j] = t as u32;
                carry = t >> 32;
            }
            let mut k = i + o.mag.len();
            while carry != 0 {
                let t = u64::from(out[k]) + carry;
                out[k] = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        Self {
            neg: self.neg != o.neg,
            mag: out,
        }
        .normalized()
    }

    fn signum(&self) -> i128 {
        match (self.is_zero(), self.neg) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    /// The value as `i128` if it fits.
    fn to_i128(&self) -> Option<i128> {
        if self.mag.len() > 4 {
            return None;
        }
        let m = self
            .mag
            .iter()
            .rev()
            .fold(0u128, |acc, &l| (acc << 32) | u128::from(l));
        if self.neg {
            0i128.checked_sub_unsigned(m)
        } else {
            i128::try_from(m).ok()
        }
    }
}

impl Ord for Big {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self.neg, o.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => Self::cmp_mag(&self.mag, &o.mag),
            (true, true) => Self::cmp_mag(&o.mag, &self.mag),
        }
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// `b − a` from the raw bits, exact.
fn vd(a: Vec2, b: Vec2) -> (Big, Big) {
    let d = |u: Fx, v: Fx| Big::from_i128(i128::from(v.to_bits()) - i128::from(u.to_bits()));
    (d(a.x, b.x), d(a.y, b.y))
}

fn cross(u: &(Big, Big), v: &(Big, Big)) -> Big {
    u.0.mul(&v.1).sub(&u.1.mul(&v.0))
}

fn dot(u: &(Big, Big), v: &(Big, Big)) -> Big {
    u.0.mul(&v.0).add(&u.1.mul(&v.1))
}

/// `(b − a) × (c − a)`.
fn oracle_left_of(a: Vec2, b: Vec2, c: Vec2) -> Big {
    cross(&vd(a, b), &vd(a, c))
}

/// `p` on the closed segment `a b`, by the projection parameter (not a bounding box).
fn oracle_on_segment(a: Vec2, b: Vec2, p: Vec2) -> bool {
    if a == b {
        return p == a;
    }
    let (e, d) = (vd(a, b), vd(a, p));
    let t = dot(&d, &e);
    cross(&e, &d).is_zero() && t >= Big::zero() && t <= dot(&e, &e)
}

/// Segment intersection by the parametric form `p1 + t·r = q1 + u·s`.
fn oracle_intersection(p1: Vec2, p2: Vec2, q1: Vec2, q2: Vec2) -> S {
    let on = |hit: bool| if hit { S::Touching } else { S::Disjoint };
    match (p1 == p2, q1 == q2) {
        (true, true) => return on(p1 == q1),
        (true, false) => return on(oracle_on_segment(q1, q2, p1)),
        (false, true) => return on(oracle_on_segment(p1, p2, q1)),
        (false, false) => {}
    }
    let (r, s, w) = (vd(p1, p2), vd(q1, q2), vd(p1, q1));
    let den = cross(&r, &s);
    let zero = Big::zero();
    if !den.is_zero() {
        let (mut t, mut u, mut den) = (cross(&w, &s), cross(&w, &r), den);
        if den.neg {
            (t, u, den) = (t.negate(), u.negate(), den.negate());
        }
        let within = |x: &Big| *x >= zero && *x <= den;
        let strictly = |x: &Big| *x > zero && *x < den;
        return if !within(&t) || !within(&u) {
            S::Disjoint
        } else if strictly(&t) && strictly(&u) {
            S::Crossing
        } else {
            S::Touching
        };
    }
    if !cross(&w, &r).is_zero() {
        return S::Disjoint; // parallel lines
    }
    // One line: q's parameters along r, times |r|², against p's [0, |r|²].
    let (t0, t1) = (dot(&w, &r), dot(&vd(p1, q2), &r));
    let lo = t0.clone().min(t1.clone()).max(zero);
    let hi = t0.max(t1).min(dot(&r, &r));
    match lo.cmp(&hi) {
        Ordering::Greater => S::Disjoint,
        Ordering::Equal => S::Touching,
        Ordering::Less => S::Overlapping,
    }
}

/// The exact distance from `q` to the segment `a b` against `r`: the least of the candidates
/// `|q − a|`, `|q − b|` and, when the foot of the perpendicular lies on the segment, the
/// perpendicular distance, each compared squared.
fn oracle_cmp_dist(a: Vec2, b: Vec2, q: Vec2, r: Fx) -> Ordering {
    if r < Fx::ZERO {
        return Ordering::Greater;
    }
    let r = Big::from_i128(i128::from(r.to_bits()));
    let r_sq = r.mul(&r);
    let (da, db) = (vd(a, q), vd(b, q));
    let mut least = dot(&da, &da).cmp(&r_sq).min(dot(&db, &db).cmp(&r_sq));
    if a != b {
        let e = vd(a, b);
        let (t, len_sq) = (dot(&da, &e), dot(&e, &e));
        if t >= Big::zero() && t <= len_sq {
            let det = cross(&e, &da);
            least = least.min(det.mul(&det).cmp(&r_sq.mul(&len_sq)));
        }
    }
    least
}

/// Twice the ring's signed area as a triangle fan from its first vertex.
fn oracle_area2(ring: &[Vec2]) -> Big {
    (1..ring.len().saturating_sub(1)).fold(Big::zero(), |acc, i| {
        acc.add(&oracle_left_of(ring[0], ring[i], ring[i + 1]))
    })
}

/// Containment: the boundary by [`oracle_on_segment`], then the winding number as the sum of
/// quarter turns of `v − p` along the ring.
fn oracle_containment(ring: &[Vec2], p: Vec2) -> Containment {
    let n = ring.len();
    if (0..n).any(|i| oracle_on_segment(ring[i], ring[(i + 1) % n], p)) {
        return Containment::Boundary;
    }
    let quadrant = |v: Vec2| -> i32 {
        let (x, y) = (v.x.cmp(&p.x), v.y.cmp(&p.y));
        match (x, y) {
            (Ordering::Greater, Ordering::Greater | Ordering::Equal) => 0,
            (Ordering::Less | Ordering::Equal, Ordering::Greater) => 1,
            (Ordering::Less, Ordering::Less | Ordering::Equal) => 2,
            _ => 3,
        }
    };
    let quarters: i64 = (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            match (quadrant(b) - quadrant(a)).rem_euclid(4) {
                0 => 0,
                1 => 1,
                3 => -1,
                _ if oracle_left_of(p, a, b).signum() > 0 => 2,
                _ => -2,
            }
        })
        .sum();
    assert_eq!(quarters % 4, 0, "quarter turns of a closed ring");
    if quarters == 0 {
        Containment::Outside
    } else {
        Containment::Inside
    }
}

/// Raw bits of [`MAX_EXACT_COORD`].
const M: i64 = MAX_EXACT_COORD.to_bits();
/// Raw bits of the simulator's largest coordinate, 10⁶.
const D6: i64 = 1_000_000 << 32;

/// A coordinate: small integers, a few ulps, anything in the domain, its extremes, and the
/// simulator's domain edge.
fn coord() -> impl Strategy<Value = i64> {
    prop_oneof![
        (-4i64..=4).prop_map(|k| k << 32),
        -4i64..=4,
        -M..=M,
        (0i64..4, any::<bool>()).prop_map(|(k, neg)| if neg { -M + k } else { M - k }),
        (-2i64..=2, any::<bool>()).prop_map(|(k, neg)| if neg { -D6 + k } else { D6 + k }),
    ]
}

fn point() -> impl Strategy<Value = Vec2> {
    (coord(), coord()).prop_map(|(x, y)| Vec2::from_bits(x, y))
}

/// A direction component for lines of points: ulps, units, or large.
fn step() -> impl Strategy<Value = i64> {
    prop_oneof![
        -3i64..=3,
        (-3i64..=3).prop_map(|k| k << 32),
        -(1i64 << 57)..=(1 << 57)
    ]
}

/// Four points: independent, or `o + k·dir` on one line, possibly each moved by an ulp.
fn four_points() -> impl Strategy<Value = [Vec2; 4]> {
    let free = [point(), point(), point(), point()];
    let on_line = (
        -(1i64 << 60)..=(1 << 60),
        -(1i64 << 60)..=(1 << 60),
        step(),
        step(),
        [-3i64..=3, -3i64..=3, -3i64..=3, -3i64..=3],
        [-1i64..=1, -1i64..=1, -1i64..=1, -1i64..=1],
        any::<bool>(),
    )
        .prop_map(|(ox, oy, dx, dy, ks, nudges, nudge)| {
            std::array::from_fn(|i| {
                let n = if nudge { nudges[i] } else { 0 };
                Vec2::from_bits(ox + ks[i] * dx + n, oy + ks[i] * dy - n)
            })
        });
    prop_oneof![free, on_line]
}

/// Two segments drawn from [`four_points`], endpoints possibly shared or repeated.
fn segments() -> impl Strategy<Value = (Vec2, Vec2, Vec2, Vec2)> {
    (four_points(), [0usize..4, 0usize..4, 0usize..4, 0usize..4]).prop_map(|(pts, i)| {
        if i[0] == i[1] && i[2] == i[3] {
            // Mostly real segments: keep at most one degenerate.
            (pts[0], pts[1], pts[i[2]], pts[i[3]])
        } else {
            (pts[i[0]], pts[i[1]], pts[i[2]], pts[i[3]])
        }
    })
}

/// A ring of up to 8 vertices on a grid of spacing `2s` around `o` and a query point on the
/// grid of spacing `s` (so on vertices and edges often).
fn ring_and_point() -> impl Strategy<Value = (Vec<Vec2>, Vec2)> {
    (
        prop_oneof![Just(0i64), -(1i64 << 60)..=(1 << 60)],
        prop_oneof![Just(1i64), Just(1 << 31), Just(1 << 55)],
        prop::collection::vec((-3i64..=3, -3i64..=3), 0..=8),
        (-6i64..=6, -6i64..=6),
    )
        .prop_map(|(o, s, verts, (px, py))| {
            let at = |x: i64, y: i64, k: i64| Vec2::from_bits(o + x * k, o + y * k);
            let ring = verts.iter().map(|&(x, y)| at(x, y, 2 * s)).collect();
            (ring, at(px, py, s))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn orientation_is_the_exact_sign_of_the_cross_product(pts in four_points()) {
        let [a, b, c, _] = pts;
        let exact = oracle_left_of(a, b, c);
        prop_assert_eq!(Some(geom::left_of(a, b, c)), exact.to_i128());
        prop_assert_eq!(geom::orientation(a, b, c), Orientation::of_sign(exact.signum()));
        prop_assert_eq!(geom::orientation(b, a, c), geom::orientation(a, b, c).reversed());
        prop_assert_eq!(geom::on_segment(a, b, c), oracle_on_segment(a, b, c));
    }

    #[test]
    fn segment_intersection_matches_the_parametric_oracle((p1, p2, q1, q2) in segments()) {
        let got = geom::segment_intersection(p1, p2, q1, q2);
        prop_assert_eq!(got, oracle_intersection(p1, p2, q1, q2));
        prop_assert_eq!(geom::segments_intersect(p1, p2, q1, q2), got != S::Disjoint);
        // Symmetric in the segments and in each segment's direction.
        prop_assert_eq!(geom::segment_intersection(q2, q1, p1, p2), got);
        prop_assert_eq!(geom::segment_intersection(p2, p1, q1, q2), got);
    }

    #[test]
    fn point_segment_distance_is_within_its_stated_rounding(pts in four_points()) {
        let [a, b, q, _] = pts;
        let got = geom::dist_sq_point_segment(a, b, q);
        let (e, d) = (vd(a, b), vd(a, q));
        let s = dot(&d, &e);
        let len_sq = dot(&e, &e);
        if s <= Big::zero() {
            prop_assert_eq!(Some(got), dot(&d, &d).to_i128());
        } else if s >= len_sq {
            let f = vd(b, q);
            prop_assert_eq!(Some(got), dot(&f, &f).to_i128());
        } else {
            // got = p² for the perpendicular p; h = |det| / |e| exactly, ℓ = ⌊|e|⌋.
            let p = u128::try_from(got).unwrap().isqrt();
            prop_assert_eq!(p * p, u128::try_from(got).unwrap(), "a square");
            let det = cross(&e, &d);
            let det = if det.neg { det.negate() } else { det };
            let ell = u128::try_from(len_sq.to_i128().unwrap()).unwrap().isqrt();
            let p_big = Big::from_i128(p as i128);
            // p ≤ |det| / ℓ.
            prop_assert!(p_big.mul(&Big::from_i128(ell as i128)) <= det, "p = {p} above |det|/ℓ");
            // p > h − 2 ulps: (p + 2)² · |e|² > det².
            let p2 = Big::from_i128(p as i128 + 2);
            prop_assert!(p2.mul(&p2).mul(&len_sq) > det.mul(&det), "p = {p} too far below h");
        }
        // Degenerate segment: the distance to the point.
        let f = vd(a, q);
        prop_assert_eq!(Some(geom::dist_sq_point_segment(a, a, q)), dot(&f, &f).to_i128());
    }

    #[test]
    fn distance_comparisons_are_exact(
        (p1, p2, q1, q2) in segments(),
        near in any::<bool>(),
        k in -3i64..=3,
        far in 0..=i64::MAX,
    ) {
        // r near the rounded distance (so within an ulp or two of the exact one), or anywhere.
        let r = |d_sq: i128| {
            if near {
                Fx::from_bits(sqrt_wide(d_sq).to_bits() + k)
            } else {
                Fx::from_bits(far)
            }
        };
        let rp = r(geom::dist_sq_point_segment(q1, q2, p1));
        prop_assert_eq!(
            geom::cmp_dist_point_segment(q1, q2, p1, rp),
            oracle_cmp_dist(q1, q2, p1, rp)
        );
        let rs = r(geom::dist_sq_segment_segment(p1, p2, q1, q2));
        let exact = if oracle_intersection(p1, p2, q1, q2) == S::Disjoint {
            [(q1, q2, p1), (q1, q2, p2), (p1, p2, q1), (p1, p2, q2)]
                .map(|(a, b, q)| oracle_cmp_dist(a, b, q, rs))
                .into_iter()
                .min()
                .unwrap()
        } else {
            Fx::ZERO.cmp(&rs)
        };
        prop_assert_eq!(geom::cmp_dist_segment_segment(p1, p2, q1, q2, rs), exact);
    }

    #[test]
    fn segment_distance_is_zero_when_they_meet((p1, p2, q1, q2) in segments()) {
        let got = geom::dist_sq_segment_segment(p1, p2, q1, q2);
        let meet = oracle_intersection(p1, p2, q1, q2) != S::Disjoint;
        if meet {
            prop_assert_eq!(got, 0);
        } else if p1 != p2 && q1 != q2 {
            // Disjoint segments: the nearest pair of points includes an endpoint.
            let ends = [(q1, q2, p1), (q1, q2, p2), (p1, p2, q1), (p1, p2, q2)];
            let least = ends.map(|(a, b, q)| geom::dist_sq_point_segment(a, b, q));
            prop_assert_eq!(Some(&got), least.iter().min());
        }
        prop_assert_eq!(got, geom::dist_sq_segment_segment(q1, q2, p1, p2));
    }

    #[test]
    fn ring_area_matches_a_triangle_fan(
        ring in prop::collection::vec(
            prop_oneof![point(), any::<(i64, i64)>().prop_map(|(x, y)| Vec2::from_bits(x, y))],
            0..=8,
        )
    ) {
        let exact = oracle_area2(&ring);
        prop_assert_eq!(geom::polygon_area2(&ring), exact.to_i128());
        prop_assert_eq!(geom::polygon_orientation(&ring), Orientation::of_sign(exact.signum()));
    }

    #[test]
    fn containment_matches_the_quadrant_winding_number((ring, p) in ring_and_point()) {
        prop_assert_eq!(geom::point_in_polygon(&ring, p), oracle_containment(&ring, p));
        // Both turns of a ring contain the same points.
        let rev: Vec<Vec2> = ring.iter().rev().copied().collect();
        prop_assert_eq!(geom::point_in_polygon(&rev, p), geom::point_in_polygon(&ring, p));
    }
}

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

fn sq(x: i32) -> i128 {
    wide_mul(Fx::from_num(x), Fx::from_num(x))
}

#[test]
fn the_oracle_tells_a_rounded_orientation_from_the_exact_one() {
    // A point one ulp left of a short diagonal far from the origin: the cross product is half
    // an ulp of Q32.32, so a test on the rounded product (`Vec2::det`) calls it collinear. The
    // oracle, like the exact predicate, does not.
    let o = v(999_999, -999_999);
    let half = Fx::lit("0.5");
    let (a, b) = (o, o + Vec2::new(half, half));
    let quarter = Fx::lit("0.25");
    let c = o + Vec2::new(quarter, quarter + Fx::DELTA);
    let rounded = Orientation::of_sign(i128::from((b - a).det(c - a).to_bits()));
    assert_eq!(rounded, Orientation::Collinear);
    assert_eq!(oracle_left_of(a, b, c).signum(), 1);
    assert_eq!(geom::orientation(a, b, c), Orientation::CounterClockwise);
    assert_ne!(rounded, geom::orientation(a, b, c));
}

#[test]
fn segment_cases_by_hand() {
    let cases = [
        // Proper crossing.
        ((v(0, 0), v(4, 4)), (v(0, 4), v(4, 0)), S::Crossing),
        // Shared endpoint, at an angle.
        ((v(0, 0), v(2, 0)), (v(2, 0), v(2, 5)), S::Touching),
        // T-junction: an endpoint inside the other segment.
        ((v(0, 0), v(4, 0)), (v(2, 0), v(2, 3)), S::Touching),
        // Collinear, end to end.
        ((v(0, 0), v(2, 0)), (v(2, 0), v(5, 0)), S::Touching),
        // Collinear, overlapping; contained; identical; reversed.
        ((v(0, 0), v(3, 0)), (v(2, 0), v(5, 0)), S::Overlapping),
        ((v(0, 0), v(5, 5)), (v(1, 1), v(2, 2)), S::Overlapping),
        ((v(0, 0), v(5, 5)), (v(5, 5), v(0, 0)), S::Overlapping),
        // Collinear with a gap; parallel; apart.
        ((v(0, 0), v(1, 1)), (v(2, 2), v(3, 3)), S::Disjoint),
        ((v(0, 0), v(4, 0)), (v(0, 1), v(4, 1)), S::Disjoint),
        ((v(0, 0), v(2, 0)), (v(3, -1), v(3, 1)), S::Disjoint),
        // Degenerate segments: a point on, off, at the end of the other; two points.
        ((v(0, 0), v(4, 0)), (v(1, 0), v(1, 0)), S::Touching),
        ((v(0, 0), v(4, 0)), (v(1, 1), v(1, 1)), S::Disjoint),
        ((v(0, 0), v(4, 0)), (v(5, 0), v(5, 0)), S::Disjoint),
        ((v(0, 0), v(4, 0)), (v(4, 0), v(4, 0)), S::Touching),
        ((v(3, 3), v(3, 3)), (v(3, 3), v(3, 3)), S::Touching),
        ((v(3, 3), v(3, 3)), (v(3, 4), v(3, 4)), S::Disjoint),
    ];
    for ((p1, p2), (q1, q2), want) in cases {
        assert_eq!(
            geom::segment_intersection(p1, p2, q1, q2),
            want,
            "{p1:?} {p2:?} {q1:?} {q2:?}"
        );
        assert_eq!(
            oracle_intersection(p1, p2, q1, q2),
            want,
            "oracle {p1:?} {p2:?} {q1:?} {q2:?}"
        );
    }
    // One ulp apart at the corners of the domain.
    let m = MAX_EXACT_COORD;
    let (a, b) = (Vec2::new(-m, -m), Vec2::new(m, m));
    let (c, d) = (Vec2::new(-m, -m + Fx::DELTA), Vec2::new(m - Fx::DELTA, m));
    assert_eq!(geom::segment_intersection(a, b, c, d), S::Disjoint);
    assert_eq!(
        geom::segment_intersection(a, b, c, Vec2::new(m, m)),
        S::Touching
    );
    assert_eq!(
        geom::segment_intersection(a, b, Vec2::new(-m, m), Vec2::new(m, -m)),
        S::Crossing
    );
}

#[test]
fn distance_cases_by_hand() {
    let (a, b) = (v(0, 0), v(10, 0));
    assert_eq!(geom::dist_sq_point_segment(a, b, v(-3, 4)), sq(5));
    assert_eq!(geom::dist_sq_point_segment(a, b, v(13, -4)), sq(5));
    assert_eq!(geom::dist_sq_point_segment(a, b, v(5, 7)), sq(7));
    assert_eq!(geom::dist_sq_point_segment(a, b, v(5, 0)), 0);
    assert_eq!(geom::dist_sq_point_segment(a, b, b), 0);
    // Across the whole domain: beside the segment, and corner to corner past its end.
    let m = MAX_EXACT_COORD;
    let (lo, hi) = (Vec2::new(-m, -m), Vec2::new(m, -m));
    let beside = geom::dist_sq_point_segment(lo, hi, Vec2::new(Fx::ZERO, m));
    assert_eq!(beside, wide_mul(m + m, m + m));
    let corner = geom::dist_sq_point_segment(lo, lo + Vec2::from_bits(0, 1), Vec2::new(m, m));
    assert_eq!(
        corner,
        2 * wide_mul(m + m, m + m) - 2 * wide_mul(m + m, Fx::DELTA) + 1
    );
    // A segment one ulp by one ulp (exact length √2 ulps, floored to 1) and a point √2 units
    // beside it, less an ulp: the rounded distance says 2, the exact comparison says below 1.5.
    let (a, b) = (Vec2::ZERO, Vec2::from_bits(1, 1));
    let q = Vec2::from_bits(1 << 32, -(1 << 32) + 1);
    let one_and_half = Fx::lit("1.5");
    assert!(geom::dist_sq_point_segment(a, b, q) > wide_mul(one_and_half, one_and_half));
    assert_eq!(
        geom::cmp_dist_point_segment(a, b, q, one_and_half),
        Ordering::Less
    );
    assert_eq!(oracle_cmp_dist(a, b, q, one_and_half), Ordering::Less);
    assert_eq!(
        geom::cmp_dist_point_segment(a, b, q, -Fx::DELTA),
        Ordering::Greater
    );
    // Segments: crossing, touching, apart, a point.
    assert_eq!(
        geom::dist_sq_segment_segment(v(0, 0), v(4, 4), v(0, 4), v(4, 0)),
        0
    );
    assert_eq!(
        geom::dist_sq_segment_segment(v(0, 0), v(4, 0), v(4, 0), v(9, 9)),
        0
    );
    assert_eq!(
        geom::dist_sq_segment_segment(v(0, 0), v(4, 0), v(1, 2), v(3, 5)),
        sq(2)
    );
    assert_eq!(
        geom::dist_sq_segment_segment(v(0, 0), v(0, 0), v(3, -1), v(3, 4)),
        sq(3)
    );
}

#[test]
fn polygon_cases_by_hand() {
    let ccw = [v(0, 0), v(4, 0), v(4, 4), v(2, 2), v(0, 4)]; // a dented square
    let cw: Vec<Vec2> = ccw.iter().rev().copied().collect();
    let area = wide_mul(Fx::from_num(12), Fx::ONE) * 2;
    assert_eq!(geom::polygon_area2(&ccw), Some(area));
    assert_eq!(geom::polygon_area2(&cw), Some(-area));
    assert_eq!(
        geom::polygon_orientation(&ccw),
        Orientation::CounterClockwise
    );
    assert_eq!(geom::polygon_orientation(&cw), Orientation::Clockwise);
    // A bow tie's lobes cancel.
    let bow = [v(0, 0), v(2, 2), v(2, 0), v(0, 2)];
    assert_eq!(geom::polygon_orientation(&bow), Orientation::Collinear);
    for ring in [&ccw[..], &cw[..]] {
        let at = |x, y| geom::point_in_polygon(ring, v(x, y));
        assert_eq!(at(1, 1), Containment::Inside);
        assert_eq!(at(2, 3), Containment::Outside); // in the dent
        assert_eq!(at(2, 2), Containment::Boundary); // the reflex vertex
        assert_eq!(at(3, 3), Containment::Boundary); // on the dent's edge
        assert_eq!(at(0, 0), Containment::Boundary);
        assert_eq!(at(4, 1), Containment::Boundary);
        assert_eq!(at(5, 0), Containment::Outside); // on an edge's line, past its end
        assert_eq!(at(-1, 0), Containment::Outside);
    }
    // One ulp inside and outside an edge far from the origin.
    let o = Fx::from_num(1_000_000);
    let sq4 = [
        Vec2::new(o, o),
        Vec2::new(o + Fx::from_num(4), o),
        Vec2::new(o + Fx::from_num(4), o + Fx::from_num(4)),
        Vec2::new(o, o + Fx::from_num(4)),
    ];
    let x = o + Fx::from_num(2);
    assert_eq!(
        geom::point_in_polygon(&sq4, Vec2::new(x, o + Fx::DELTA)),
        Containment::Inside
    );
    assert_eq!(
        geom::point_in_polygon(&sq4, Vec2::new(x, o)),
        Containment::Boundary
    );
    assert_eq!(
        geom::point_in_polygon(&sq4, Vec2::new(x, o - Fx::DELTA)),
        Containment::Outside
    );
    // Fewer than three vertices.
    assert_eq!(geom::point_in_polygon(&[], v(0, 0)), Containment::Outside);
    assert_eq!(
        geom::point_in_polygon(&[v(1, 1)], v(1, 1)),
        Containment::Boundary
    );
    assert_eq!(
        geom::point_in_polygon(&[v(0, 0), v(2, 2)], v(1, 1)),
        Containment::Boundary
    );
    assert_eq!(
        geom::point_in_polygon(&[v(0, 0), v(2, 2)], v(1, 0)),
        Containment::Outside
    );
}

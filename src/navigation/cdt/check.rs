//! A brute-force check of a [`Triangulation`], shared by the unit tests and the `nav_cdt` fuzz
//! target: everything is recomputed from the input with exact arithmetic, independently of the
//! kernel's own bookkeeping.

use super::{NO_TRIANGLE, Triangulation};
use crate::geom::left_of;
use crate::math::Vec2;
use crate::navigation::predicates::in_circle_det;
use std::collections::BTreeMap;

fn raw(x: i64, y: i64) -> Vec2 {
    Vec2::from_bits(x, y)
}

/// Whether `p` lies on the closed segment `a b`.
fn on_segment(a: Vec2, b: Vec2, p: Vec2) -> bool {
    left_of(a, b, p) == 0
        && p.x >= a.x.min(b.x)
        && p.x <= a.x.max(b.x)
        && p.y >= a.y.min(b.y)
        && p.y <= a.y.max(b.y)
}

/// Whether the segments `a b` and `c d` cross at one point interior to both.
fn cross_properly(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let s = |x: i128| x.signum();
    s(left_of(a, b, c)) * s(left_of(a, b, d)) < 0 && s(left_of(c, d, a)) * s(left_of(c, d, b)) < 0
}

/// Twice the area of the convex hull, and the number of points on its boundary (collinear
/// ones included); Andrew's monotone chain.
fn hull_of(points: &[Vec2]) -> (i128, usize) {
    if points.len() < 3 {
        return (0, points.len());
    }
    let mut p = points.to_vec();
    p.sort_by_key(|q| (q.x, q.y));
    let chain = |iter: &mut dyn Iterator<Item = Vec2>| {
        let mut h: Vec<Vec2> = Vec::new();
        for q in iter {
            while h.len() >= 2 && left_of(h[h.len() - 2], h[h.len() - 1], q) < 0 {
                h.pop();
            }
            h.push(q);
        }
        h
    };
    let lower = chain(&mut p.iter().copied());
    let upper = chain(&mut p.iter().rev().copied());
    let ring: Vec<Vec2> = lower[..lower.len() - 1]
        .iter()
        .chain(&upper[..upper.len() - 1])
        .copied()
        .collect();
    let area = (0..ring.len())
        .map(|i| ring[i].det_wide(ring[(i + 1) % ring.len()]))
        .sum();
    (area, ring.len())
}

/// Every property of a triangulation of `points` with `constraints` that a brute force can
/// check: counter-clockwise triangles, symmetric adjacency with agreeing constraint bits, hull
/// edges exactly where there is no neighbour, the hull's area covered, the Euler count, every
/// point a vertex, the canonical rotation and order, the constraints (each a union of
/// constrained edges or counted dropped and crossing one; no constrained edge off the
/// constraints), and the constrained Delaunay property.
pub fn validate(points: &[Vec2], constraints: &[[u32; 2]], t: &Triangulation) {
    let p = |i: u32| points[i as usize];
    let n = points.len();
    let (hull_area, h) = hull_of(points);
    if hull_area == 0 {
        assert!(t.tris.is_empty() && t.dropped == 0, "collinear input");
        return;
    }
    assert_eq!(t.tris.len(), 2 * n - h - 2, "Euler count");
    assert_eq!(
        (t.adj.len(), t.constrained.len()),
        (t.tris.len(), t.tris.len())
    );
    let mut area = 0i128;
    let mut edges = BTreeMap::new();
    let mut used = vec![false; n];
    let key = |i: u32| (p(i).x, p(i).y);
    for (ti, tri) in t.tris.iter().enumerate() {
        let o = left_of(p(tri[0]), p(tri[1]), p(tri[2]));
        assert!(o > 0, "triangle {ti} not counter-clockwise");
        area += o;
        assert!(
            key(tri[0]) < key(tri[1]) && key(tri[0]) < key(tri[2]),
            "rotation"
        );
        if ti > 0 {
            assert!(t.tris[ti - 1].map(key) < tri.map(key), "order");
        }
        for k in 0..3 {
            used[tri[k] as usize] = true;
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            let u = t.adj[ti][k];
            if u == NO_TRIANGLE {
                continue;
            }
            let j = (0..3)
                .find(|&j| t.tris[u as usize][j] == b && t.tris[u as usize][(j + 1) % 3] == a)
                .expect("neighbour lacks the twin edge");
            assert_eq!(t.adj[u as usize][j] as usize, ti, "adjacency not symmetric");
            assert_eq!(t.constrained[u as usize][j], t.constrained[ti][k]);
        }
    }
    assert_eq!(area, hull_area, "the triangles cover the hull");
    assert!(used.iter().all(|&u| u), "every point is a vertex");
    for (ti, tri) in t.tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let count = edges[&(a.min(b), a.max(b))];
            assert_eq!(
                count == 1,
                t.adj[ti][k] == NO_TRIANGLE,
                "hull edge mismatch"
            );
        }
    }
    // Constraints.
    let fixed: Vec<(u32, u32)> = (0..t.tris.len())
        .flat_map(|ti| (0..3).map(move |k| (ti, k)))
        .filter(|&(ti, k)| t.constrained[ti][k])
        .map(|(ti, k)| (t.tris[ti][k], t.tris[ti][(k + 1) % 3]))
        .collect();
    let has_fixed = |a: u32, b: u32| fixed.contains(&(a, b)) || fixed.contains(&(b, a));
    let mut distinct: Vec<(u32, u32)> = constraints
        .iter()
        .map(|&[a, b]| (a.min(b), a.max(b)))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    let mut missing = 0;
    for &(a, b) in &distinct {
        let mut on: Vec<u32> = (0..n as u32)
            .filter(|&i| on_segment(p(a), p(b), p(i)))
            .collect();
        on.sort_by_key(|&i| (p(i) - p(a)).dot_wide(p(b) - p(a)));
        if !on.windows(2).all(|w| has_fixed(w[0], w[1])) {
            missing += 1;
            assert!(
                fixed
                    .iter()
                    .any(|&(c, d)| cross_properly(p(a), p(b), p(c), p(d))),
                "constraint {a}-{b} neither inserted nor crossing a constraint"
            );
        }
    }
    assert!(
        missing <= t.dropped as usize,
        "{missing} missing, {} dropped",
        t.dropped
    );
    for &(a, b) in &fixed {
        assert!(
            distinct
                .iter()
                .any(|&(c, d)| on_segment(p(c), p(d), p(a)) && on_segment(p(c), p(d), p(b))),
            "constrained edge {a}-{b} is on no constraint"
        );
    }
    // Constrained Delaunay: no point strictly inside a triangle's circumcircle is visible from
    // its centroid (coordinates scaled by 3 so that the centroid is exact).
    let s3 = |v: Vec2| raw(3 * v.x.to_bits(), 3 * v.y.to_bits());
    for tri in &t.tris {
        let [a, b, c] = tri.map(p);
        let g = raw(
            a.x.to_bits() + b.x.to_bits() + c.x.to_bits(),
            a.y.to_bits() + b.y.to_bits() + c.y.to_bits(),
        );
        for (i, &q) in points.iter().enumerate() {
            if !in_circle_det(a, b, c, q).is_positive() {
                continue;
            }
            let blocked = fixed
                .iter()
                .any(|&(e, f)| cross_properly(g, s3(q), s3(p(e)), s3(p(f))));
            assert!(blocked, "point {i} visible inside the circle of {tri:?}");
        }
    }
}

//! Unit tests of the search on hand-made meshes (a grid of cells, a room around a square).

// f64 only as the tests' own measure of the results (lengths, tolerances).
#![allow(clippy::float_arithmetic)]

use super::*;
use crate::geom::cmp_dist_point_segment;
use std::cmp::Ordering;

/// A `w × h` grid of unit cells (two triangles each); `blocked` cells are not walkable; walls
/// between walkable and blocked cells and around the outside.
fn grid(w: u32, h: u32, blocked: &[(u32, u32)]) -> NavMesh {
    let id = |i: u32, j: u32| j * (w + 1) + i;
    let mut verts = Vec::new();
    for j in 0..=h {
        for i in 0..=w {
            verts.push(Vec2::from_int(i as i32, j as i32));
        }
    }
    let free = |i: i64, j: i64| {
        i >= 0
            && j >= 0
            && i < i64::from(w)
            && j < i64::from(h)
            && !blocked.contains(&(i as u32, j as u32))
    };
    let (mut tris, mut walkable, mut walls) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..h {
        for i in 0..w {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            tris.push([a, b, c]);
            tris.push([a, c, d]);
            let f = free(i64::from(i), i64::from(j));
            walkable.extend([f, f]);
            let (ii, jj) = (i64::from(i), i64::from(j));
            if f != free(ii, jj - 1) {
                walls.push([a, b]);
            }
            if f != free(ii + 1, jj) {
                walls.push([b, c]);
            }
            if f != free(ii, jj + 1) {
                walls.push([c, d]);
            }
            if f != free(ii - 1, jj) {
                walls.push([d, a]);
            }
        }
    }
    NavMesh::from_triangles(verts, &tris, &walls, &walkable)
}

/// A 10 × 10 room with a solid square from (3, 3) to (7, 7), triangulated as a CDT would (every
/// vertex an obstacle corner).
fn ring() -> NavMesh {
    let verts = [
        (0, 0),
        (10, 0),
        (10, 10),
        (0, 10),
        (3, 3),
        (7, 3),
        (7, 7),
        (3, 7),
    ]
    .map(|(x, y)| Vec2::from_int(x, y))
    .to_vec();
    let mut tris = Vec::new();
    for k in 0..4u32 {
        let (o0, o1, i0, i1) = (k, (k + 1) % 4, 4 + k, 4 + (k + 1) % 4);
        tris.push([o0, o1, i1]);
        tris.push([o0, i1, i0]);
    }
    tris.extend([[4, 5, 6], [4, 6, 7]]);
    let mut walkable = vec![true; 8];
    walkable.extend([false, false]);
    let walls: Vec<[u32; 2]> = (0..4u32)
        .flat_map(|k| [[k, (k + 1) % 4], [4 + k, 4 + (k + 1) % 4]])
        .collect();
    NavMesh::from_triangles(verts, &tris, &walls, &walkable)
}

fn p(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}

fn request(start: Vec2, goal: Vec2, r: f64) -> PathRequest {
    PathRequest {
        start,
        goal,
        radius: Fx::from_num(r),
        cap: 10_000,
    }
}

/// Every point of the path (start included), sampled along its segments, keeps `r` (within
/// 1e-6) from every wall of the mesh.
fn assert_clear(mesh: &NavMesh, start: Vec2, path: &NavPath, r: f64) {
    let walls: Vec<(Vec2, Vec2)> = mesh
        .tris
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            (0..3)
                .filter(|&k| t.wall[k])
                .map(move |k| mesh.edge(i as u32, k))
        })
        .collect();
    let r_fx = Fx::from_num(r - 1e-6);
    let mut prev = start;
    for &q in &path.points {
        for s in 0..=32 {
            let t = Fx::from_num(s) / Fx::from_num(32);
            let x = prev + (q - prev) * t;
            for &(a, b) in &walls {
                assert_ne!(
                    cmp_dist_point_segment(a, b, x, r_fx),
                    Ordering::Less,
                    "{x:?} on {prev:?} -> {q:?} is within {r} of wall {a:?} {b:?}"
                );
            }
        }
        prev = q;
    }
}

fn length(start: Vec2, path: &NavPath) -> f64 {
    let mut prev = start.to_f64();
    let mut total = 0.0;
    for q in &path.points {
        let q = q.to_f64();
        total += (q.0 - prev.0).hypot(q.1 - prev.1);
        prev = q;
    }
    total
}

#[test]
fn straight_line_in_the_open() {
    // A goal in plain sight is reached straight, without a search.
    let mesh = grid(10, 10, &[]);
    let mut work = SearchWork::default();
    let (s, g) = (p(0.5, 0.5), p(9.5, 7.25));
    let path = mesh.find_path(&request(s, g, 0.25), &mut work);
    assert_eq!(path.status, PathStatus::Complete);
    assert_eq!((path.points, path.expansions), (vec![g], 1));
    // In the ring, a visible goal is reached straight for any radius that fits.
    let mesh = ring();
    let (s, g) = (p(1.0, 1.0), p(9.0, 2.0));
    let path = mesh.find_path(&request(s, g, 0.5), &mut work);
    assert_eq!((path.status, path.points), (PathStatus::Complete, vec![g]));
}

#[test]
fn around_a_square_keeping_the_radius() {
    let mesh = ring();
    let mut work = SearchWork::default();
    let (s, g) = (p(1.0, 5.0), p(9.0, 5.25));
    for r in [0.0, 0.25, 0.5, 1.0] {
        let path = mesh.find_path(&request(s, g, r), &mut work);
        assert_eq!(path.status, PathStatus::Complete, "r {r}");
        assert_eq!(*path.points.last().unwrap(), g);
        assert_clear(&mesh, s, &path, r);
        // Around the top (the goal is a little higher, so the bottom is longer): (1, 5) to
        // the corner (3, 7), across to (7, 7), down to (9, 5.25); with a radius the string
        // wraps discs at the corners, which is longer by less than 2 r in all.
        let poly = 8f64.sqrt() + 4.0 + (4.0f64 + 1.75 * 1.75).sqrt();
        let len = length(s, &path);
        assert!(
            len >= poly - 1e-6 && len <= poly + 2.0 * r,
            "r {r}: {len} vs {poly}"
        );
    }
}

#[test]
fn walled_off_goal_is_unreachable_and_the_path_ends_near_it() {
    // A wall of blocked cells across the whole grid at i = 5.
    let blocked: Vec<(u32, u32)> = (0..10).map(|j| (5, j)).collect();
    let mesh = grid(10, 10, &blocked);
    let mut work = SearchWork::default();
    let (s, g) = (p(1.0, 2.0), p(8.0, 6.0));
    let path = mesh.find_path(&request(s, g, 0.25), &mut work);
    let PathStatus::Unreachable { to } = path.status else {
        panic!("{path:?}");
    };
    assert_eq!(*path.points.last().unwrap(), to);
    assert!(
        to.x.to_num::<f64>() <= 4.75 + 1e-9 && to.x.to_num::<f64>() > 4.0,
        "{to:?}"
    );
    assert_clear(&mesh, s, &path, 0.25);
}

#[test]
fn narrow_gap_is_refused_to_a_wide_unit() {
    // A wall at i = 5 with a one-cell door at j = 5.
    let blocked: Vec<(u32, u32)> = (0..10).filter(|&j| j != 5).map(|j| (5, j)).collect();
    let mesh = grid(10, 10, &blocked);
    let mut work = SearchWork::default();
    let (s, g) = (p(1.5, 2.0), p(8.5, 6.0));
    let small = mesh.find_path(&request(s, g, 0.25), &mut work);
    assert_eq!(small.status, PathStatus::Complete);
    assert_clear(&mesh, s, &small, 0.25);
    let wide = mesh.find_path(&request(s, g, 0.6), &mut work);
    assert!(
        matches!(wide.status, PathStatus::Unreachable { .. }),
        "{wide:?}"
    );
}

#[test]
fn same_query_same_bytes_and_the_cap_holds() {
    let blocked: Vec<(u32, u32)> = [(2, 2), (2, 3), (6, 6), (7, 6), (4, 8), (5, 1)].to_vec();
    let mesh = grid(12, 12, &blocked);
    let mut work = SearchWork::default();
    let req = request(p(0.5, 0.5), p(11.5, 11.0), 0.25);
    let a = mesh.find_path(&req, &mut work);
    let b = mesh.find_path(&req, &mut SearchWork::default());
    assert_eq!(a, b);
    assert_eq!(a.status, PathStatus::Complete);
    for cap in [1, 2, 5] {
        let c = mesh.find_path(&PathRequest { cap, ..req }, &mut work);
        assert!(c.expansions <= cap, "{c:?}");
        assert_eq!(c.status, PathStatus::Partial);
    }
}

/// The distance to a segment without the square and root matches its plain form,
/// `sqrt_raw(dist_sq_point_segment(..))`, bit for bit (random points, degenerate segments,
/// projections inside and outside).
#[test]
fn dist_raw_point_segment_matches_its_plain_form() {
    let mut s = 12_345u64;
    let mut next = || {
        s = crate::util::splitmix64(s);
        Fx::from_bits((s % (1 << 42)) as i64 - (1 << 41))
    };
    for i in 0..20_000 {
        let a = Vec2::new(next(), next());
        let b = if i % 50 == 0 {
            a
        } else {
            Vec2::new(next(), next())
        };
        let q = Vec2::new(next(), next());
        let plain = sqrt_raw(crate::geom::dist_sq_point_segment(a, b, q));
        assert_eq!(dist_raw_point_segment(a, b, q), plain, "{a:?} {b:?} {q:?}");
        // The bounded form: the distance when above `m`, none when at most `m`, on both sides
        // of the exact value and far from it.
        let m_far = next().to_bits().unsigned_abs() << 2;
        for m in [
            plain.saturating_sub(1),
            plain,
            plain + 1,
            m_far,
            0,
            u64::MAX,
        ] {
            let above = dist_raw_point_segment_above(a, b, q, m);
            assert_eq!(
                above,
                Some(plain).filter(|&d| d > m),
                "{a:?} {b:?} {q:?} {m}"
            );
        }
    }
}

/// A node's `h` from the per-vertex cache is the plain distance from the goal to the edge,
/// whichever edges asked first.
#[test]
fn cached_goal_distances_match_the_plain_distance() {
    let mesh = grid(6, 5, &[(2, 2)]);
    let mut work = SearchWork::default();
    for (k, goal) in [p(0.3, 0.7), p(5.5, 4.25), p(2.0, 3.0)]
        .into_iter()
        .enumerate()
    {
        work.reset(mesh.tris.len(), mesh.verts.len());
        for t in 0..mesh.tris.len() as u32 {
            for e in 0..3 {
                let v = mesh.tris[t as usize].v;
                let (ia, ib) = (v[e], v[(e + 1) % 3]);
                let (a, b) = mesh.edge(t, e);
                let h = work.goal_dist_to_edge((ia, a), (ib, b), goal);
                assert_eq!(
                    h,
                    dist_raw_point_segment(a, b, goal),
                    "goal {k} tri {t} edge {e}"
                );
            }
        }
    }
}

/// Point location from any hint answers as the plain scan (`locate_plain`), on vertices, edges
/// and inside; the plain-sight test from a located walkable start answers as the raycast.
#[test]
fn locate_from_a_hint_and_plain_sight_match_their_plain_forms() {
    let mesh = grid(8, 6, &[(3, 2), (3, 3), (5, 1)]);
    let n = mesh.triangles().len() as u32;
    let mut s = 99u64;
    let mut next = |m: u64| {
        s = crate::util::splitmix64(s);
        s % m
    };
    let r = Fx::lit("0.25");
    for i in 0..2_000 {
        // Quarter-unit points: many on edges and vertices.
        let q = |v: u64| Fx::from_bits((v as i64 - 4) << 30);
        let a = Vec2::new(q(next(41)), q(next(33)));
        let hint = (next(u64::from(n) + 2)) as u32;
        assert_eq!(
            mesh.locate_from(a, hint),
            mesh.locate_plain(a),
            "{a:?} from {hint}"
        );
        let b = Vec2::new(q(next(41)), q(next(33)));
        if i % 2 == 0
            && let Some(t) = mesh.locate(a)
            && mesh.is_walkable(a, r)
        {
            assert_eq!(
                mesh.in_plain_sight_from(a, t, b, r),
                mesh.raycast(a, b, r).clear,
                "{a:?} -> {b:?}"
            );
        }
    }
}

/// A search on a fresh mesh derives only the directions of the edges it crosses (no tick pays
/// for the whole mesh), and gives the same path as on a mesh whose directions are all derived.
#[test]
fn a_search_derives_only_the_edge_directions_it_needs() {
    let mesh = ring();
    let all = mesh.clone();
    for t in 0..all.triangles().len() as u32 {
        for k in 0..3 {
            let _ = all.edge_dir_back(t, k);
        }
    }
    assert_eq!(all.edge_dirs.computed(), 3 * all.triangles().len());
    assert_eq!(mesh.edge_dirs.computed(), 0);
    let req = request(p(1.5, 1.5), p(8.5, 8.0), 0.5);
    let (mut w1, mut w2) = (SearchWork::default(), SearchWork::default());
    let path = mesh.find_path(&req, &mut w1);
    assert_eq!(path, all.find_path(&req, &mut w2));
    let used = mesh.edge_dirs.computed();
    assert!(
        used > 0 && used < 3 * mesh.triangles().len(),
        "{used} of {}",
        3 * mesh.triangles().len()
    );
}

/// The mesh's derived edge directions are the normalisation the search would do itself, bit
/// for bit, and never make two meshes unequal; a path smoothed from the corridor the search
/// pulled last is the path of that corridor pulled again.
#[test]
fn derived_edge_directions_and_the_kept_pull_change_no_bit() {
    let mesh = ring();
    let fresh = mesh.clone();
    for t in 0..mesh.triangles().len() as u32 {
        for k in 0..3 {
            let (a, b) = mesh.edge(t, k);
            assert_eq!(mesh.edge_dir_back(t, k), (a - b).normalize_or_zero());
        }
    }
    assert_eq!(
        mesh, fresh,
        "computed directions are not part of the mesh's value"
    );
    let (start, goal) = (p(1.5, 1.5), p(8.5, 8.0));
    for r in [0.0, 0.25, 0.5, 1.0] {
        let req = request(start, goal, r);
        let mut work = SearchWork::default();
        let path = mesh.find_path(&req, &mut work);
        assert_eq!(path.status, PathStatus::Complete);
        assert!(path.points.len() > 1, "the square is in the way: {path:?}");
        let mut again = Vec::new();
        let rf = Fx::from_num(r);
        let portals = work.portals.clone();
        funnel::path(
            &mesh.verts,
            start,
            &portals,
            goal,
            rf,
            &mut work.funnel,
            &mut again,
        );
        assert_eq!(path.points, again, "r {r}");
    }
}

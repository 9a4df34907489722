//! Navigation: mesh tests. Widths and queries on hand-made meshes against f64 and brute-force
//! oracles; the builder's classification, invariances and bad input.

use lockstep_orca::navigation::{NO_TRIANGLE, NavMesh};
use lockstep_orca::{Fx, Vec2, splitmix64};

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = splitmix64(self.0);
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

fn f(p: Vec2) -> (f64, f64) {
    p.to_f64()
}

/// A jittered `n × n` grid of points (spacing 4 units, jitter under 1 unit), two triangles per
/// cell, cells blocked at random, walls on the hull, between walkable and blocked cells and on
/// some random inner edges. Convex hull.
fn grid_mesh(seed: u64, n: u32) -> NavMesh {
    let mut rng = Rng(seed);
    let mut verts = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let jitter = |rng: &mut Rng, edge: bool| {
                if edge {
                    0
                } else {
                    (rng.below(1 << 32) as i64) - (1 << 31)
                }
            };
            let ex = i == 0 || i == n - 1;
            let ey = j == 0 || j == n - 1;
            let x = i64::from(i) * (4 << 32) + jitter(&mut rng, ex);
            let y = i64::from(j) * (4 << 32) + jitter(&mut rng, ey);
            verts.push(Vec2::from_bits(x, y));
        }
    }
    let id = |i: u32, j: u32| j * n + i;
    let mut tris = Vec::new();
    let mut walkable = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            let open = rng.chance(80);
            if rng.chance(50) {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
            walkable.push(open);
            walkable.push(open);
        }
    }
    let mut edge_owner = std::collections::BTreeMap::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edge_owner
                .entry((a.min(b), a.max(b)))
                .or_insert_with(Vec::new)
                .push(t);
        }
    }
    let mut walls = Vec::new();
    for (&(a, b), owners) in &edge_owner {
        let wall =
            owners.len() == 1 || walkable[owners[0]] != walkable[owners[1]] || rng.chance(10);
        if wall {
            walls.push([a, b]);
        }
    }
    NavMesh::from_triangles(verts, &tris, &walls, &walkable)
}

// ------------------------------------------------------------------ widths

/// The f64 oracle of a traversal width: the definition of `navigation::widths` (Demyen & Buro
/// 2006) with the search pruned only by the starting bound `min(|CA|, |CB|)`, never by the
/// running minimum.
fn width_oracle(mesh: &NavMesh, t: u32, k: usize) -> f64 {
    let tris = mesh.triangles();
    let p = |i: u32| f(mesh.vertices()[i as usize]);
    let dist = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1);
    let dot = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.0 - o.0) + (a.1 - o.1) * (b.1 - o.1)
    };
    let inside = |c, a, b| dot(a, c, b) > 0.0 && dot(b, c, a) > 0.0;
    let line = |c: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)).abs() / dist(a, b)
    };
    let tri = tris[t as usize];
    let c = p(tri.v[k]);
    let (a, b) = (p(tri.v[(k + 1) % 3]), p(tri.v[(k + 2) % 3]));
    let u0 = dist(c, a).min(dist(c, b));
    if !inside(c, a, b) {
        return u0;
    }
    let mut u = u0;
    let mut stack = vec![(t, (k + 1) % 3)];
    while let Some((w, j)) = stack.pop() {
        let tw = tris[w as usize];
        let (pi, qi) = (tw.v[j], tw.v[(j + 1) % 3]);
        let (pp, qq) = (p(pi), p(qi));
        if !inside(c, pp, qq) {
            continue;
        }
        let d = line(c, pp, qq);
        if d >= u0 {
            continue;
        }
        let n = tw.adj[j];
        if tw.wall[j] || n == NO_TRIANGLE {
            u = u.min(d);
            continue;
        }
        let tn = tris[n as usize];
        let jn = (0..3)
            .find(|&i| tn.v[i] == qi && tn.v[(i + 1) % 3] == pi)
            .unwrap();
        u = u.min(dist(c, p(tn.v[(jn + 2) % 3])));
        stack.push((n, (jn + 1) % 3));
        stack.push((n, (jn + 2) % 3));
    }
    u
}

fn check_widths(mesh: &NavMesh) -> usize {
    let mut checked = 0;
    for (t, tri) in mesh.triangles().iter().enumerate() {
        for k in 0..3 {
            let ours = tri.width[k].to_num::<f64>();
            if !tri.walkable {
                assert_eq!(tri.width[k], Fx::ZERO);
                continue;
            }
            let oracle = width_oracle(mesh, t as u32, k);
            assert!(
                ours <= oracle + 1e-9,
                "width above oracle: t {t} k {k}: {ours} > {oracle}"
            );
            assert!(
                oracle - ours <= 1e-6,
                "width too low: t {t} k {k}: {ours} < {oracle}"
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn widths_match_the_f64_oracle_on_random_meshes() {
    let mut checked = 0;
    for seed in 0..40 {
        checked += check_widths(&grid_mesh(seed, 9));
    }
    assert!(checked > 5_000, "{checked}");
}

#[test]
fn width_of_a_corridor_is_its_gap() {
    // A corridor 3 units wide: walls along y = 0 and y = 3, open ends. The traversal along the
    // corridor is limited by the gap, the one turning at a corner of an end by an edge.
    let verts = vec![v(0, 0), v(10, 0), v(10, 3), v(0, 3), v(5, 0), v(5, 3)];
    let tris = [[0, 4, 5], [0, 5, 3], [4, 1, 2], [4, 2, 5]];
    let walls = [[0, 4], [4, 1], [2, 5], [5, 3]];
    let mesh = NavMesh::from_triangles(verts, &tris, &walls, &[true; 4]);
    // Triangle 0 = (0,0) (5,0) (5,3): crossing from edge 0-(5,3) to (5,0)-(5,3) pivots on
    // (5,3) = v[2]; the gap is 3.
    let t = &mesh.triangles()[0];
    assert_eq!(t.width[2], Fx::from_num(3));
    check_widths(&mesh);
}

// ------------------------------------------------------------------ queries

/// Random query points: inside the mesh's box, on vertices, on edge midpoints, outside.
fn query_points(mesh: &NavMesh, rng: &mut Rng, count: usize) -> Vec<Vec2> {
    let verts = mesh.vertices();
    let (mut lo, mut hi) = (verts[0], verts[0]);
    for &p in verts {
        lo = Vec2::new(lo.x.min(p.x), lo.y.min(p.y));
        hi = Vec2::new(hi.x.max(p.x), hi.y.max(p.y));
    }
    let span = |a: Fx, b: Fx, rng: &mut Rng| {
        let w = (b - a).to_bits() as u64 + (4 << 32);
        a - Fx::from_num(2) + Fx::from_bits(rng.below(w) as i64)
    };
    (0..count)
        .map(|i| match i % 4 {
            0 => verts[rng.below(verts.len() as u64) as usize],
            1 => {
                let t = mesh.triangles()[rng.below(mesh.triangles().len() as u64) as usize];
                let (a, b) = (verts[t.v[0] as usize], verts[t.v[1] as usize]);
                Vec2::from_bits(
                    (a.x.to_bits() + b.x.to_bits()) >> 1,
                    (a.y.to_bits() + b.y.to_bits()) >> 1,
                )
            }
            _ => Vec2::new(span(lo.x, hi.x, rng), span(lo.y, hi.y, rng)),
        })
        .collect()
}

#[test]
fn fast_queries_equal_their_plain_forms_on_hand_made_meshes() {
    let mut rng = Rng(7);
    for seed in 0..20 {
        let mesh = grid_mesh(seed, 8);
        for p in query_points(&mesh, &mut rng, 400) {
            assert_eq!(mesh.locate(p), mesh.locate_plain(p), "locate {p:?}");
            for r in [
                Fx::ZERO,
                Fx::lit("0.3"),
                Fx::from_num(1),
                Fx::lit("2.5"),
                Fx::from_num(7),
            ] {
                assert_eq!(
                    mesh.is_walkable(p, r),
                    mesh.is_walkable_plain(p, r),
                    "{p:?} {r}"
                );
            }
        }
    }
}

/// Samples along a segment (f64 steps, Fx points).
fn samples(from: Vec2, to: Vec2, n: i64) -> impl Iterator<Item = Vec2> {
    (0..=n).map(move |i| {
        let at = |a: Fx, b: Fx| {
            let d = i128::from((b - a).to_bits());
            Fx::from_bits(a.to_bits() + (d * i128::from(i) / i128::from(n)) as i64)
        };
        Vec2::new(at(from.x, to.x), at(from.y, to.y))
    })
}

#[test]
fn raycast_stops_where_the_disc_first_touches_a_wall() {
    let mut rng = Rng(11);
    let (mut clear, mut blocked) = (0, 0);
    for seed in 0..20 {
        let mesh = grid_mesh(seed + 100, 8);
        let pts = query_points(&mesh, &mut rng, 120);
        for w in pts.windows(2) {
            let (from, to) = (w[0], w[1]);
            let r = Fx::lit("0.4");
            let hit = mesh.raycast(from, to, r);
            if !mesh.is_walkable_plain(from, r) {
                assert!(!hit.clear);
                assert_eq!(hit.hit, from);
                continue;
            }
            assert!(mesh.is_walkable_plain(hit.hit, r), "hit point not walkable");
            if hit.clear {
                clear += 1;
                assert_eq!(hit.hit, to);
                for s in samples(from, to, 200) {
                    assert!(mesh.is_walkable_plain(s, r), "clear ray passes {s:?}");
                }
            } else {
                blocked += 1;
                // Just past the hit the disc touches a wall.
                let (fx, fy) = f(from);
                let (tx, ty) = f(to);
                let len = (tx - fx).hypot(ty - fy);
                let (hx, hy) = f(hit.hit);
                let past = Vec2::from_f64(hx + (tx - fx) / len * 1e-4, hy + (ty - fy) / len * 1e-4)
                    .unwrap();
                assert!(
                    !mesh.is_walkable_plain(past, r),
                    "nothing touched past {hit:?}"
                );
                // Before it, every sample is walkable.
                for s in samples(from, hit.hit, 100) {
                    assert!(mesh.is_walkable_plain(s, r));
                }
            }
        }
    }
    assert!(clear > 20 && blocked > 20, "{clear} {blocked}");
}

#[test]
fn nearest_walkable_is_walkable_and_near() {
    let mut rng = Rng(5);
    let mut moved = 0;
    for seed in 0..10 {
        let mesh = grid_mesh(seed + 200, 8);
        for p in query_points(&mesh, &mut rng, 100) {
            let r = Fx::lit("0.5");
            let Some(q) = mesh.nearest_walkable(p, r) else {
                continue;
            };
            assert!(mesh.is_walkable_plain(q, r), "{p:?} -> {q:?}");
            if mesh.is_walkable_plain(p, r) {
                assert_eq!(q, p);
                continue;
            }
            moved += 1;
            // No walkable sample on a 0.25 grid around p is closer by more than the grid step.
            let d = |a: Vec2| {
                let (ax, ay) = f(a);
                let (px, py) = f(p);
                (ax - px).hypot(ay - py)
            };
            let (px, py) = f(p);
            let ours = d(q);
            let mut best = f64::MAX;
            let mut best_s = p;
            for i in -24..=24 {
                for j in -24..=24 {
                    let s =
                        Vec2::from_f64(px + f64::from(i) * 0.25, py + f64::from(j) * 0.25).unwrap();
                    if mesh.is_walkable_plain(s, r) && d(s) < best {
                        best = d(s);
                        best_s = s;
                    }
                }
            }
            // Inside the mesh the result is near-exact; from outside the hull (the search starts
            // at the clamped point) it is only guaranteed walkable.
            if best < 6.0 && mesh.locate(p).is_some() {
                if ours > best + 0.36 {
                    let [x, y] = [p.x.to_bits(), p.y.to_bits()];
                    for (t, tri) in mesh.triangles().iter().enumerate() {
                        let c = mesh.corners(t as u32).map(f);
                        let (cx, cy) = (
                            (c[0].0 + c[1].0 + c[2].0) / 3.0,
                            (c[0].1 + c[1].1 + c[2].1) / 3.0,
                        );
                        if (cx - px).hypot(cy - py) < 6.0 {
                            eprintln!("t{t} {c:?} walk {} wall {:?}", tri.walkable, tri.wall);
                        }
                    }
                    panic!(
                        "seed {seed} {x} {y}: {p:?}: ours {q:?} {ours}, sampled {best_s:?} {best}"
                    );
                }
            }
        }
    }
    assert!(moved > 20, "{moved}");
}

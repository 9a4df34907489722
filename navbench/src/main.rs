//! Our planner against polyanya on the same map and queries: 200 buildings (2 to 9 units a
//! side) inside a square of half-width 160, as `lockstep-orca bench navigation` builds it;
//! 300 queries between walkable points for a unit of radius 0.5. Prints the length ratio
//! (ours / polyanya's) over the queries both complete, and the mean time per query of each.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::navigation::{NavMesh, NavParams, PathRequest, PathStatus, SearchWork};
use lockstep_orca::obstacle::ObstacleSet;
use lockstep_orca::{Fx, ObstacleShape, Vec2, splitmix64};
use std::time::Instant;

fn main() {
    let half = 160;
    let radius = 0.5f32;
    let mut s = 1u64;
    let mut next = |m: i32| {
        s = splitmix64(s);
        (s % m as u64) as i32
    };
    let side = 2 * half - 20;
    let mut rects = Vec::new();
    while rects.len() < 200 {
        let (x, y) = (next(side) - side / 2, next(side) - side / 2);
        let (w, h) = (2 + next(8), 2 + next(8));
        if x < 4 && x + w > -4 {
            continue;
        }
        rects.push((x, y, w, h));
    }
    let mut set = ObstacleSet::default();
    for &(x, y, w, h) in &rects {
        let p = |x: i32, y: i32| Vec2::from_int(x, y);
        set.add(ObstacleShape::Polygon(vec![
            p(x, y),
            p(x + w, y),
            p(x + w, y + h),
            p(x, y + h),
        ]))
        .unwrap();
    }
    let b = |x: i32, y: i32| Vec2::from_int(x, y);
    let params = NavParams {
        boundary: Some(vec![
            b(-half, -half),
            b(half, -half),
            b(half, half),
            b(-half, half),
        ]),
        ..NavParams::default()
    };
    let ours = NavMesh::build(&set, &params).unwrap();

    // polyanya: the same boundary and buildings, inflated by the radius.
    let h = half as f32;
    let mut tri = polyanya::Triangulation::from_outer_edges(&[
        glam::vec2(-h, -h),
        glam::vec2(h, -h),
        glam::vec2(h, h),
        glam::vec2(-h, h),
    ]);
    for &(x, y, w, hh) in &rects {
        let (x, y, w, hh) = (x as f32, y as f32, w as f32, hh as f32);
        tri.add_obstacle(vec![
            glam::vec2(x, y),
            glam::vec2(x + w, y),
            glam::vec2(x + w, y + hh),
            glam::vec2(x, y + hh),
        ]);
    }
    tri.set_agent_radius(radius);
    let t0 = Instant::now();
    let theirs = tri.as_navmesh();
    let their_build = t0.elapsed();

    // Queries: walkable points for the radius (ours), reachable for both.
    let r = Fx::from_num(1) / 2;
    let mut pts = Vec::new();
    let mut q = 7u64;
    while pts.len() < 600 {
        q = splitmix64(q);
        let x = (q % (2 * half as u64 - 8)) as i32 - half + 4;
        q = splitmix64(q);
        let y = (q % (2 * half as u64 - 8)) as i32 - half + 4;
        let p = Vec2::from_int(x, y);
        if ours.is_walkable(p, Fx::from_num(1)) {
            pts.push(p);
        }
    }
    let mut work = SearchWork::default();
    let (mut ratios, mut our_time, mut their_time, mut both, mut only_ours, mut only_theirs) =
        (Vec::new(), 0.0, 0.0, 0, 0, 0);
    for pair in pts.chunks(2) {
        let (a, g) = (pair[0], pair[1]);
        let req = PathRequest {
            start: a,
            goal: g,
            radius: r,
            cap: 200_000,
        };
        let t0 = Instant::now();
        let path = ours.find_path(&req, &mut work);
        our_time += t0.elapsed().as_secs_f64();
        let fa = glam::vec2(a.x.to_num::<f32>(), a.y.to_num::<f32>());
        let fg = glam::vec2(g.x.to_num::<f32>(), g.y.to_num::<f32>());
        let t0 = Instant::now();
        let their = theirs.path(fa, fg);
        their_time += t0.elapsed().as_secs_f64();
        let mut len = 0.0f64;
        let mut at = a.to_f64();
        for p in &path.points {
            let p = p.to_f64();
            len += ((p.0 - at.0).powi(2) + (p.1 - at.1).powi(2)).sqrt();
            at = p;
        }
        match (path.status == PathStatus::Complete, their) {
            (true, Some(t)) => {
                both += 1;
                ratios.push(len / f64::from(t.length));
            }
            (true, None) => only_ours += 1,
            (false, Some(_)) => only_theirs += 1,
            (false, None) => {}
        }
    }
    ratios.sort_by(f64::total_cmp);
    let n = pts.len() / 2;
    let pct = |p: f64| ratios[((ratios.len() - 1) as f64 * p) as usize];
    println!(
        "map=200 buildings queries={n} radius={radius} both_complete={both} only_ours={only_ours} \
         only_polyanya={only_theirs} ratio_min={:.4} ratio_median={:.4} ratio_p99={:.4} \
         ratio_max={:.4} ours_us_per_query={:.1} polyanya_us_per_query={:.1} \
         polyanya_mesh_ms={:.2} our_triangles={}",
        ratios[0],
        pct(0.5),
        pct(0.99),
        ratios[ratios.len() - 1],
        our_time * 1e6 / n as f64,
        their_time * 1e6 / n as f64,
        their_build.as_secs_f64() * 1e3,
        ours.triangles().len(),
    );
}

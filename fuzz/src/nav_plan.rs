//! Fuzz targets of the planner and the local rebuild.
//!
//! * `nav_plan`: obstacle sets as in `nav_mesh` (polygons, polylines, overlapping, crossing,
//!   1/16 grid with arbitrary low bits), a boundary, and path requests with any start, goal,
//!   radius and expansion cap. A search must never panic or overflow, do at most `cap`
//!   expansions, end where its status says (the goal when `Complete`, `to` when adjusted or
//!   unreachable, the start itself when it has no points; no points without a start), and give the same path again with a reused
//!   scratch buffer.
//! * `nav_update`: the same sets built in two halves: the mesh of the first half rebuilt
//!   locally into the whole set, then half of it removed again, must equal a batch build of
//!   each set, structure and digest.

use crate::nav_mesh::{Shape, point, set_of, shapes};
use lockstep_orca::navigation::{NavMesh, NavParams, PathRequest, PathStatus, SearchWork};
use lockstep_orca::{Fx, Vec2};

/// A request from fuzz input: start and goal on the 1/16 grid, radius up to 2 units in 1/64
/// steps, cap up to 4,096.
fn request(s: (i16, i16), g: (i16, i16), r: u8, cap: u16) -> PathRequest {
    PathRequest {
        start: point(s.0, s.1, 0),
        goal: point(g.0, g.1, 0),
        radius: Fx::from_bits(i64::from(r) << 26),
        cap: u32::from(cap % 4096),
    }
}

fn params(boundary: &Option<Vec<(i16, i16)>>) -> NavParams {
    NavParams {
        boundary: boundary
            .as_ref()
            .map(|b| b.iter().take(16).map(|&(x, y)| point(x, y, 0)).collect()),
        ..NavParams::default()
    }
}

type PlanInput = (
    Vec<Shape>,
    Option<Vec<(i16, i16)>>,
    Vec<((i16, i16), (i16, i16), u8, u16)>,
);

#[test]
fn nav_plan() {
    bolero::check!()
        .with_type::<PlanInput>()
        .for_each(|(input, boundary, requests)| {
            let set = set_of(shapes(input, Vec2::ZERO).into_iter());
            let Ok(mesh) = NavMesh::build(&set, &params(boundary)) else {
                return;
            };
            let mut work = SearchWork::default();
            for &(s, g, r, cap) in requests.iter().take(8) {
                let req = request(s, g, r, cap);
                let path = mesh.find_path(&req, &mut work);
                assert!(path.expansions <= req.cap.max(1), "{path:?}");
                // Where the path ends (the start when it has no points).
                let end = path.points.last().copied().unwrap_or(req.start);
                match path.status {
                    PathStatus::Complete => assert_eq!(end, req.goal),
                    PathStatus::GoalAdjusted { to } | PathStatus::Unreachable { to } => {
                        assert_eq!(end, to);
                    }
                    PathStatus::NoStart => assert!(path.points.is_empty()),
                    PathStatus::Partial => {}
                }
                let again = mesh.find_path(&req, &mut SearchWork::default());
                assert_eq!(again, path, "a fresh scratch buffer changed the path");
            }
        });
}

#[test]
fn nav_update() {
    bolero::check!()
        .with_type::<(Vec<Shape>, Option<Vec<(i16, i16)>>)>()
        .for_each(|(input, boundary)| {
            let all = shapes(input, Vec2::ZERO);
            let p = params(boundary);
            let half = all.len() / 2;
            let first = set_of(all[..half].iter().cloned());
            let whole = set_of(all.iter().cloned());
            let second = set_of(all[half / 2..].iter().cloned());
            let Ok(mut mesh) = NavMesh::build(&first, &p) else {
                return;
            };
            for set in [&whole, &second] {
                let batch = NavMesh::build(set, &p);
                match (mesh.update(set, &p), batch) {
                    (Ok(Some((next, _))), Ok(batch)) => {
                        assert_eq!(next.digest(), batch.digest());
                        assert!(
                            next == batch,
                            "the local rebuild differs from the batch build"
                        );
                        mesh = next;
                    }
                    (Ok(None), Ok(batch)) => {
                        assert!(
                            mesh == batch,
                            "an unchanged mesh differs from the batch build"
                        );
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(a, b);
                        return;
                    }
                    (a, b) => panic!("local {:?} against batch {:?}", a.err(), b.err()),
                }
            }
        });
}

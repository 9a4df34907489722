//! Fuzz target `nav_mesh`: obstacle sets (polygons, polylines, overlapping, crossing, with
//! coordinates on a 1/16 grid and arbitrary low bits) and boundaries, built into a navigation
//! mesh. Bad input must give an `Err`, never a panic or an overflow (tests run with overflow
//! checks). A built mesh must be consistent (adjacency and walls symmetric, walkable meets
//! blocked only at walls, widths zero on blocked triangles), its digest must not depend on
//! the obstacles' insertion order, a mesh translated by an integer vector must have the same
//! shape, and the fast queries must equal their plain forms.

use lockstep_orca::navigation::{NO_TRIANGLE, NavMesh, NavParams};
use lockstep_orca::obstacle::ObstacleSet;
use lockstep_orca::{Fx, ObstacleShape, Vec2};

/// A point from fuzz input: a 1/16 grid plus some low bits.
pub(crate) fn point(x: i16, y: i16, low: u8) -> Vec2 {
    let bits = |v: i16| (i64::from(v) << 28) + i64::from(low & 0x0f);
    Vec2::from_bits(bits(x), bits(y))
}

pub(crate) type Shape = (bool, u8, Vec<(i16, i16)>);

pub(crate) fn shapes(input: &[Shape], shift: Vec2) -> Vec<ObstacleShape> {
    input
        .iter()
        .take(24)
        .map(|(closed, low, pts)| {
            let pts: Vec<Vec2> = pts
                .iter()
                .take(12)
                .map(|&(x, y)| point(x, y, *low) + shift)
                .collect();
            if *closed {
                ObstacleShape::Polygon(pts)
            } else {
                ObstacleShape::Polyline(pts)
            }
        })
        .collect()
}

pub(crate) fn set_of(shapes: impl Iterator<Item = ObstacleShape>) -> ObstacleSet {
    let mut set = ObstacleSet::default();
    for s in shapes {
        let _ = set.add(s);
    }
    set
}

fn check_consistent(mesh: &NavMesh) {
    let tris = mesh.triangles();
    for (t, tri) in tris.iter().enumerate() {
        if !tri.walkable {
            assert_eq!(tri.width, [Fx::ZERO; 3]);
        }
        for k in 0..3 {
            let n = tri.adj[k];
            if n == NO_TRIANGLE {
                assert!(!tri.walkable, "a walkable triangle on the hull");
                continue;
            }
            let tn = &tris[n as usize];
            let back = tn
                .adj
                .iter()
                .position(|&a| a == t as u32)
                .expect("adjacency symmetric");
            assert_eq!(tri.wall[k], tn.wall[back]);
            assert!(tri.walkable == tn.walkable || tri.wall[k]);
        }
    }
}

#[test]
fn nav_mesh() {
    bolero::check!()
        .with_type::<(Vec<Shape>, Option<Vec<(i16, i16)>>, u8, (i16, i16))>()
        .for_each(|(input, boundary, margin, shift)| {
            let params = NavParams {
                boundary: boundary
                    .as_ref()
                    .map(|b| b.iter().take(16).map(|&(x, y)| point(x, y, 0)).collect()),
                margin: Fx::from_num(*margin) / 8 - Fx::ONE,
                ..NavParams::default()
            };
            let base = shapes(input, Vec2::ZERO);
            let Ok(mesh) = NavMesh::build(&set_of(base.iter().cloned()), &params) else {
                return;
            };
            check_consistent(&mesh);
            let reversed = NavMesh::build(&set_of(base.iter().rev().cloned()), &params)
                .expect("the same shapes in another order build too");
            assert_eq!(mesh.digest(), reversed.digest());
            // Translation by an integer vector (no boundary: the default one moves along).
            if params.boundary.is_none() {
                let d = Vec2::from_int(i32::from(shift.0), i32::from(shift.1));
                let moved = NavMesh::build(&set_of(shapes(input, d).into_iter()), &params)
                    .expect("a translated set builds");
                assert_eq!(moved.triangles().len(), mesh.triangles().len());
                assert_eq!(moved.dropped_pieces(), mesh.dropped_pieces());
            }
            for (i, &(x, y)) in input.iter().flat_map(|s| s.2.iter()).take(8).enumerate() {
                let p = point(x, y, i as u8);
                assert_eq!(mesh.locate(p), mesh.locate_plain(p));
                for r in [Fx::ZERO, Fx::lit("0.5"), Fx::from_num(3)] {
                    assert_eq!(mesh.is_walkable(p, r), mesh.is_walkable_plain(p, r));
                }
                if let Some(q) = mesh.nearest_walkable(p, Fx::lit("0.5")) {
                    assert!(mesh.is_walkable_plain(q, Fx::lit("0.5")));
                }
                let hit = mesh.raycast(p, Vec2::ZERO, Fx::lit("0.25"));
                if mesh.is_walkable_plain(p, Fx::lit("0.25")) {
                    assert!(mesh.is_walkable_plain(hit.hit, Fx::lit("0.25")));
                }
            }
        });
}

//! Unit tests of traffic control on door and corridor meshes built with [`NavMesh::build`].

use super::lanes::{lane_crossing, lane_crossing_in};
use super::spots::{spot, spot_margin};
use super::*;
use crate::geom::cmp_dist_point_segment;
use crate::navigation::NavParams;
use crate::obstacle::{ObstacleSet, ObstacleShape};

mod aside;
mod decide;
mod doors;
mod portals;

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::from_f64(x, y).unwrap()
}

/// A room [-10, 10] x [-8, 8] split by a wall at x = 0 with a door of `width` around y = 0.
fn door(width: f64) -> NavMesh {
    let mut set = ObstacleSet::default();
    let h = width / 2.0;
    set.add(ObstacleShape::Polyline(vec![v(0.0, -8.0), v(0.0, -h)]))
        .unwrap();
    set.add(ObstacleShape::Polyline(vec![v(0.0, h), v(0.0, 8.0)]))
        .unwrap();
    room(&set)
}

/// The mesh of `set` in the room [-10, 10] x [-8, 8] (its boundary).
fn room(set: &ObstacleSet) -> NavMesh {
    let params = NavParams {
        boundary: Some(vec![
            v(-10.0, -8.0),
            v(10.0, -8.0),
            v(10.0, 8.0),
            v(-10.0, 8.0),
        ]),
        ..NavParams::default()
    };
    NavMesh::build(set, &params).unwrap()
}

/// A corridor of `width` from x = 0 to x = 20 between two walls, in an open map.
fn corridor(width: f64) -> NavMesh {
    let mut set = ObstacleSet::default();
    set.add(ObstacleShape::Polyline(vec![v(0.0, 0.0), v(20.0, 0.0)]))
        .unwrap();
    set.add(ObstacleShape::Polyline(vec![v(0.0, width), v(20.0, width)]))
        .unwrap();
    NavMesh::build(&set, &NavParams::default()).unwrap()
}

struct Scene {
    mesh: NavMesh,
    chokes: Vec<Choke>,
    paths: Vec<[Vec2; 2]>,
}

/// Units on both sides of a 1.3 door heading through it: `west` on the west side (x < 0),
/// ids in the order given.
fn door_scene(units: &[(f64, f64)]) -> (Scene, Vec<Vec2>) {
    let mesh = door(1.3);
    let chokes = chokes(&mesh, TRAFFIC_RADIUS);
    let positions: Vec<Vec2> = units.iter().map(|&(x, y)| v(x, y)).collect();
    let paths = units
        .iter()
        .map(|&(x, y)| [v(0.0, 0.0) + v(-x.signum() * 0.01, 0.0), v(-x, y)])
        .collect();
    (
        Scene {
            mesh,
            chokes,
            paths,
        },
        positions,
    )
}

fn travellers<'a>(s: &'a Scene, positions: &[Vec2]) -> Vec<Traveller<'a>> {
    positions
        .iter()
        .zip(&s.paths)
        .enumerate()
        .map(|(i, (&p, path))| Traveller {
            id: i as u32,
            position: p,
            radius: TRAFFIC_RADIUS,
            from: p,
            path: &path[..],
        })
        .collect()
}

/// One tick of [`decide`] on scene `s` with the default settings and a hold of 32 ticks: the
/// travellers standing at `pos`, waiting as `waiting` says.
fn decide_default(
    s: &Scene,
    pos: &[Vec2],
    state: &mut Vec<ChokeState>,
    tick: u64,
    waiting: &[Option<(Choke, Vec2)>],
) -> Vec<Decision> {
    decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        state,
        tick,
        32,
        &travellers(s, pos),
        waiting,
    )
}

#[test]
fn the_defaults_are_the_documented_values() {
    let p = TrafficParams::default();
    assert_eq!(p, TrafficParams::DEFAULT);
    assert_eq!((p.radius, p.hold_seconds), (TRAFFIC_RADIUS, HOLD_SECONDS));
    assert_eq!((p.approach, p.queue), (Fx::from_num(12), Fx::from_num(6)));
    assert!((p.gap.to_num::<f64>() - 2.2).abs() < 1e-9);
    assert_eq!((p.batch, p.yield_within), (BATCH, Fx::from_num(20)));
    assert_eq!(BATCH, 0);
    // Half the width plus 12 r.
    assert_eq!(p.approach_distance(Fx::from_num(2)), Fx::from_num(7));
}

#[test]
fn traffic_settings_are_checked() {
    assert_eq!(TrafficParams::DEFAULT.validate(), Ok(()));
    let ok = |p: TrafficParams| p.validate().is_ok();
    let d = TrafficParams::DEFAULT;
    assert!(!ok(TrafficParams {
        radius: Fx::ZERO,
        ..d
    }));
    assert!(!ok(TrafficParams {
        radius: MAX_TRAFFIC_LENGTH + Fx::from_bits(1),
        ..d
    }));
    assert!(ok(TrafficParams {
        approach: Fx::ZERO,
        queue: Fx::ZERO,
        hold_seconds: MAX_HOLD_SECONDS,
        batch: u32::MAX,
        ..d
    }));
    assert!(!ok(TrafficParams { gap: Fx::ZERO, ..d }));
    assert!(!ok(TrafficParams {
        queue: -Fx::from_bits(1),
        ..d
    }));
    assert!(!ok(TrafficParams {
        hold_seconds: MAX_HOLD_SECONDS + 1,
        ..d
    }));
}

/// A room [-10, 10] x [-8, 8] split by a wall `thick` thick (x from `-thick / 2` to
/// `thick / 2`) with a door of `width` around y = 0.
fn thick_door(width: f64, thick: f64) -> NavMesh {
    let mut set = ObstacleSet::default();
    let (h, x) = (width / 2.0, thick / 2.0);
    set.add(ObstacleShape::Polygon(vec![
        v(-x, -8.0),
        v(x, -8.0),
        v(x, -h),
        v(-x, -h),
    ]))
    .unwrap();
    set.add(ObstacleShape::Polygon(vec![
        v(-x, h),
        v(x, h),
        v(x, 8.0),
        v(-x, 8.0),
    ]))
    .unwrap();
    room(&set)
}

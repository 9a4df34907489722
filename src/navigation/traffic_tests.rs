//! Unit tests of traffic control on door and corridor meshes built with [`NavMesh::build`].

use super::lanes::{lane_crossing, lane_crossing_in};
use super::*;
use crate::navigation::NavParams;
use crate::obstacle::{ObstacleSet, ObstacleShape};

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

#[test]
fn a_door_narrower_than_two_diameters_is_one_choke() {
    let c = chokes(&door(1.3), TRAFFIC_RADIUS);
    assert_eq!(c, vec![Choke::new(v(0.0, 0.65), v(0.0, -0.65))]);
    assert_eq!(c[0].a, v(0.0, -0.65));
    assert_eq!(chokes(&door(1.5), TRAFFIC_RADIUS).len(), 1);
    // Up to 2.6 diameters between the tips of polyline walls (the thinnest wall ends): a
    // choke (eighteenth session; before, lanes from two diameters on). From 2.6: lanes.
    assert_eq!(chokes(&door(2.0), TRAFFIC_RADIUS).len(), 1);
    assert_eq!(chokes(&door(2.5), TRAFFIC_RADIUS).len(), 1);
    assert!(chokes(&door(2.8), TRAFFIC_RADIUS).is_empty());
    assert!(!lanes(&door(2.8), TRAFFIC_RADIUS).is_empty());
    assert!(chokes(&door(3.0), TRAFFIC_RADIUS).is_empty());
    // A 4.5-wide corridor has none.
    assert!(chokes(&corridor(4.5), TRAFFIC_RADIUS).is_empty());
    // A 1.3-wide corridor's mouths are chokes.
    let c = chokes(&corridor(1.3), TRAFFIC_RADIUS);
    assert!(c.contains(&Choke::new(v(0.0, 0.0), v(0.0, 1.3))), "{c:?}");
    assert!(c.contains(&Choke::new(v(20.0, 0.0), v(20.0, 1.3))), "{c:?}");
}

/// Between two and 2.6 diameters a gap is a choke when both its corners end thin walls (a
/// door in a wall no thicker than a diameter), not between buildings (a street): the door is
/// reserved, the street is not.
#[test]
fn a_door_up_to_2_6_diameters_in_a_thin_wall_is_a_choke_and_a_street_is_not() {
    let c = chokes(&thick_door(2.0, 1.0), TRAFFIC_RADIUS);
    assert!(
        c.iter().all(|k| (k.b - k.a).length() >= Fx::from_num(2)),
        "only the door's portals: {c:?}"
    );
    assert!(!c.is_empty(), "a door 2 wide in a wall 1 thick is a choke");
    assert!(!chokes(&thick_door(2.5, 1.0), TRAFFIC_RADIUS).is_empty());
    // From 2.6 on (5.2 r): lanes.
    assert!(chokes(&thick_door(2.8, 1.0), TRAFFIC_RADIUS).is_empty());
    // Two 4 x 4 buildings 2 apart: a street, no choke.
    let mut set = ObstacleSet::default();
    for x in [-5.0, 1.0] {
        set.add(ObstacleShape::Polygon(vec![
            v(x, -2.0),
            v(x + 4.0, -2.0),
            v(x + 4.0, 2.0),
            v(x, 2.0),
        ]))
        .unwrap();
    }
    assert!(chokes(&room(&set), TRAFFIC_RADIUS).is_empty());
}

#[test]
fn choke_sides_and_normals() {
    let c = Choke::new(v(0.0, 0.65), v(0.0, -0.65));
    // a = (0, -0.65) -> b = (0, 0.65) points up: left is -x.
    assert_eq!(c.side(v(-1.0, 0.0)), Some(0));
    assert_eq!(c.side(v(1.0, 0.0)), Some(1));
    assert_eq!(c.side(v(0.0, 3.0)), None);
    assert!(c.normal(0).x < Fx::ZERO && c.normal(1).x > Fx::ZERO);
    assert_eq!(c.mid(), Vec2::ZERO);
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

#[test]
fn one_side_goes_and_the_other_waits_beside_the_entrance() {
    // 0, 1 and 4 west, 2 and 3 east; 2 is nearest the door.
    let west = [
        (-2.0, -0.5),
        (-3.0, 1.0),
        (1.5, 0.0),
        (3.0, -1.0),
        (-3.0, -1.0),
    ];
    let (s, pos) = door_scene(&west);
    let mut state = Vec::new();
    let t = travellers(&s, &pos);
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        0,
        32,
        &t,
        &[None; 5],
    );
    assert_eq!(state.len(), 1);
    assert_eq!(
        state[0].holder, 1,
        "the nearest approacher's side (east) holds"
    );
    assert_eq!(d[2], Decision::Through);
    assert_eq!(d[3], Decision::Through);
    let mut spots = Vec::new();
    for i in [0, 1, 4] {
        let Decision::Wait { spot, .. } = d[i] else {
            panic!("{i} should wait: {:?}", d[i]);
        };
        assert!(spot.x < Fx::ZERO, "waits on its own side");
        assert!(s.mesh.is_walkable(spot, TRAFFIC_RADIUS));
        // Along the wall beside the entrance, out of the portal's mouth (w / 2 + 1.6 r
        // aside, at least 1.5 r out), on the hand of the axis it stands on.
        let (x, y) = spot.to_f64();
        assert!(y.abs() >= 0.65 + 0.8 - 1e-6, "{:?}", spot.to_f64());
        assert!(x <= -0.75 + 1e-6, "{:?}", spot.to_f64());
        assert_eq!(y > 0.0, pos[i].y > Fx::ZERO, "{i}");
        spots.push(spot);
    }
    // Of the two south of the axis, the nearer (0) takes the place nearest the door.
    assert!(spots[0].length() < spots[2].length());
    // A waiter standing in the mouth still gets a place beside it, on walkable ground.
    let (s, pos) = door_scene(&[(-0.7, 0.2), (1.0, 0.0)]);
    let mut state = vec![ChokeState::new(s.chokes[0], 1, 0)];
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        1,
        32,
        &travellers(&s, &pos),
        &[None; 2],
    );
    let Decision::Wait { spot, .. } = d[0] else {
        panic!("{:?}", d[0])
    };
    // The first place of its block: 1.5 r out from the wall, w / 2 + 1.6 r aside.
    let (x, y) = spot.to_f64();
    assert!(
        (x + 0.75).abs() < 1e-6 && (y - 1.45).abs() < 1e-6,
        "{x} {y}"
    );
    assert!(s.mesh.is_walkable(spot, TRAFFIC_RADIUS));
}

#[test]
fn ties_go_to_the_lowest_id_and_the_holder_releases_when_its_side_is_done() {
    let (s, pos) = door_scene(&[(2.0, 0.0), (-2.0, 0.0)]);
    let mut state = Vec::new();
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        0,
        32,
        &travellers(&s, &pos),
        &[None; 2],
    );
    assert_eq!(state[0].holder, 1, "id 0 stands east");
    assert_eq!(d[0], Decision::Through);
    assert!(matches!(d[1], Decision::Wait { .. }));
    // Unit 0 through and away (its path no longer crosses): the west side takes the door.
    let mut pos2 = pos.clone();
    pos2[0] = v(-4.0, 0.0);
    let mut s2 = s;
    s2.paths[0] = [v(-5.0, 0.0), v(-6.0, 0.0)];
    let d = decide(
        &TrafficParams::DEFAULT,
        &s2.mesh,
        &s2.chokes,
        &mut state,
        5,
        32,
        &travellers(&s2, &pos2),
        &[None; 2],
    );
    assert_eq!(state[0].holder, 0);
    assert_eq!(state[0].since, 5);
    assert_eq!(d[1], Decision::Through);
}

#[test]
fn the_holder_closes_after_the_hold_time_and_never_switches_with_units_inside() {
    // East unit 0 in the door, east unit 1 approaching, west unit 2 waiting.
    let (s, pos) = door_scene(&[(0.3, 0.0), (2.0, 0.0), (-2.0, 0.0)]);
    let mut state = vec![ChokeState::new(s.chokes[0], 1, 0)];
    let t = travellers(&s, &pos);
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        100,
        32,
        &t,
        &[None; 3],
    );
    assert_eq!(state[0].holder, 1, "unit 0 is still in the door");
    assert_eq!(d[0], Decision::Through);
    assert!(matches!(d[1], Decision::Wait { .. }), "closing: {:?}", d[1]);
    assert!(matches!(d[2], Decision::Wait { .. }));
    // Unit 0 out: the west side takes over, unit 1 waits.
    let (s, pos) = door_scene(&[(-3.0, 5.0), (2.0, 0.0), (-2.0, 0.0)]);
    let mut s = s;
    s.paths[0] = [v(-3.0, 6.0), v(-3.0, 7.0)];
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        101,
        32,
        &travellers(&s, &pos),
        &[None; 3],
    );
    assert_eq!(state[0].holder, 0);
    assert!(matches!(d[1], Decision::Wait { .. }));
    assert_eq!(d[2], Decision::Through);
    // Before the hold time the holder keeps going.
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        110,
        32,
        &travellers(&s, &pos),
        &[None; 3],
    );
    assert_eq!(d[2], Decision::Through);
}

#[test]
fn a_waiter_keeps_its_spot_and_no_one_near_frees_the_door() {
    let (s, pos) = door_scene(&[(2.0, 0.0), (-2.5, 1.0)]);
    let mut state = Vec::new();
    let kept = Some((s.chokes[0], v(-2.4, 1.1)));
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        0,
        32,
        &travellers(&s, &pos),
        &[None, kept],
    );
    assert_eq!(
        d[1],
        Decision::Wait {
            choke: s.chokes[0],
            spot: v(-2.4, 1.1)
        }
    );
    // Far away: no relation, the reservation is dropped.
    let far = [v(-9.0, 7.0), v(9.0, 7.0)];
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        1,
        32,
        &travellers(&s, &far),
        &[None; 2],
    );
    assert_eq!(d, vec![Decision::Go; 2]);
    assert!(state.is_empty());
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
fn a_waypoint_on_the_portals_line_still_counts_as_crossing_it() {
    // The west side holds; unit 1 stands east with a path whose first point lies exactly on
    // the portal's line (x = 0), as the funnel makes when it wraps a door's corner. It
    // approaches from the east and must wait (it used to go: no side for that point).
    let (mut s, pos) = door_scene(&[(-2.0, 0.0), (1.5, 0.3)]);
    s.paths[1] = [v(0.0, 0.1), v(-3.0, 0.0)];
    let mut state = vec![ChokeState::new(s.chokes[0], 0, 0)];
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        1,
        32,
        &travellers(&s, &pos),
        &[None; 2],
    );
    assert_eq!(d[0], Decision::Through);
    assert!(matches!(d[1], Decision::Wait { .. }), "{:?}", d[1]);
    assert_eq!(state[0].holder, 0);
}

#[test]
fn the_holding_side_queues_in_single_file_within_its_queue() {
    // Both west, 0.5 apart in path length, 2.7 and 3.2 from the door (within w/2 + 6 r =
    // 3.65): the first goes, the second waits at the first place of its block beside the
    // entrance (out of the way of the one going). With a queue of 3 r (2.15) both are
    // outside it and both go.
    let (s, pos) = door_scene(&[(-2.7, 0.0), (-3.2, 0.0)]);
    let run = |p: &TrafficParams| {
        let mut state = Vec::new();
        decide(
            p,
            &s.mesh,
            &s.chokes,
            &mut state,
            0,
            32,
            &travellers(&s, &pos),
            &[None; 2],
        )
    };
    let d = run(&TrafficParams::DEFAULT);
    assert_eq!(d[0], Decision::Through);
    let Decision::Wait { choke, spot } = d[1] else {
        panic!("{:?}", d[1])
    };
    assert_eq!(choke, s.chokes[0]);
    let (x, y) = spot.to_f64();
    assert!(
        (x + 0.75).abs() < 1e-6 && (y.abs() - 1.45).abs() < 1e-6,
        "{x} {y}"
    );
    let short = TrafficParams {
        queue: Fx::from_num(3),
        ..TrafficParams::DEFAULT
    };
    assert_eq!(run(&short), [Decision::Through, Decision::Go]);
}

#[test]
fn a_side_closes_once_its_batch_went_in() {
    // East holds the door since tick 0 (hold time 32 ticks not up at tick 1). East unit 0 has
    // just crossed into the west (from x = 1); east unit 1 approaches; west unit 2 waits.
    let (s, pos) = door_scene(&[(-0.3, 0.0), (2.0, 0.0), (-2.0, 0.0)]);
    let run = |batch: u32| {
        let mut state = vec![ChokeState::new(s.chokes[0], 1, 0)];
        let mut t = travellers(&s, &pos);
        t[0].from = v(1.0, 0.0);
        let p = TrafficParams {
            batch,
            ..TrafficParams::DEFAULT
        };
        let d = decide(&p, &s.mesh, &s.chokes, &mut state, 1, 32, &t, &[None; 3]);
        (d, state[0])
    };
    // No batches: unit 1 follows unit 0 (more than the gap behind it); nothing is counted.
    let (d, st) = run(0);
    assert_eq!(d[..2], [Decision::Go, Decision::Through]);
    assert!(matches!(d[2], Decision::Wait { .. }));
    assert_eq!((st.holder, st.passed, st.last), (1, 0, NO_UNIT));
    // Batches of 1: unit 0 is counted, the east side closes and unit 1 waits too; the
    // door stays east's while unit 0 is in it.
    let (d, st) = run(1);
    assert_eq!(d[0], Decision::Go);
    assert!(matches!(d[1], Decision::Wait { .. }), "{:?}", d[1]);
    assert!(matches!(d[2], Decision::Wait { .. }));
    assert_eq!((st.holder, st.passed, st.last), (1, 1, 0));
    // Batches of 2: counted, not closed yet.
    let (d, st) = run(2);
    assert_eq!(d[1], Decision::Through);
    assert_eq!((st.passed, st.last), (1, 0));
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

/// Random portals (ascending, as `chokes` and `lanes` give them) and points on a 200 × 200
/// map, from a fixed seed.
fn random_portals(seed: u64) -> (Vec<Choke>, Vec<Vec2>) {
    let mut z = seed;
    let mut next = move |n: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        crate::util::splitmix64(z) % n
    };
    let mut coord = |n: u64| Fx::from_bits(((next(n) as i64) - (n as i64) / 2) << 28);
    let mut portals: Vec<Choke> = (0..60)
        .map(|_| {
            let a = Vec2::new(coord(3200), coord(3200));
            let b = a + Vec2::new(coord(96), coord(96));
            Choke::new(a, b)
        })
        .collect();
    portals.sort_unstable();
    portals.dedup();
    let points = (0..400)
        .map(|_| Vec2::new(coord(3600), coord(3600)))
        .collect();
    (portals, points)
}

/// The index's windows hold every portal the plain scans find: `near` equals `near_portal`,
/// `right_of_way` equals `has_right_of_way`, the lane crossing over the x-range, the y-order or
/// the grid's cells (short segments) equals the scan of the whole list, and the window of a
/// reach holds every portal whose middle is within it along x.
#[test]
fn the_portal_index_answers_as_the_plain_scans() {
    let params = TrafficParams::DEFAULT;
    for seed in 1..6 {
        let (portals, points) = random_portals(seed);
        let index = PortalIndex::new(&portals, Fx::ZERO);
        let more = LaneIndex::new(&portals);
        let (mut near, mut crossed, mut right, mut crossed_short) = (0, 0, 0, 0);
        for (i, &p) in points.iter().enumerate() {
            let plain = near_portal(&params, &portals, p);
            assert_eq!(index.near(&params, p), plain, "seed {seed}, {p:?}");
            near += usize::from(plain);
            let q = points[(i * 7 + 3) % points.len()];
            let all = lane_crossing_in(&portals, 0..portals.len(), p, q);
            for y in [None, Some(&more)] {
                assert_eq!(
                    lane_crossing(&index, y, p, q),
                    all,
                    "seed {seed}, {p:?} -> {q:?}, indexed: {}",
                    y.is_some()
                );
            }
            // Short segments, read through the grid's cells.
            let short = |d: Fx| Fx::from_bits(d.to_bits() >> 3);
            let s = p + Vec2::new(short(q.x - p.x), short(q.y - p.y));
            let all_short = lane_crossing_in(&portals, 0..portals.len(), p, s);
            assert_eq!(
                lane_crossing(&index, Some(&more), p, s),
                all_short,
                "seed {seed}, {p:?} -> {s:?}"
            );
            crossed_short += usize::from(all_short.is_some());
            assert_eq!(
                index.right_of_way(p, Fx::from_num(1)),
                has_right_of_way(&portals, p, Fx::from_num(1)),
                "seed {seed}, {p:?}"
            );
            right += usize::from(has_right_of_way(&portals, p, Fx::from_num(1)));
            crossed += usize::from(all.is_some());
            let reach = Fx::from_num(3);
            let window = index.x_window(p.x, reach);
            for (c, portal) in portals.iter().enumerate() {
                if (portal.mid().x - p.x).abs() <= reach {
                    assert!(window.contains(&c), "seed {seed}, portal {c}");
                }
            }
        }
        // Both answers occur (the test would not see a wrong window otherwise).
        assert!(near > 0 && near < points.len(), "seed {seed}: {near} near");
        assert!(crossed > 0, "seed {seed}: no crossing");
        assert!(crossed_short > 0, "seed {seed}: no short crossing");
        assert!(
            right > 0 && right < points.len(),
            "seed {seed}: {right} with right of way"
        );
    }
}

/// Waiting places handed out in one tick are at least two radii plus [`spot_margin`] apart,
/// kept ones included: a fresh waiter never gets a place beside a kept spot that is not
/// exactly one of the block's places (before, only a place equal to a spot taken counted as
/// taken: the new place was 0.05 from the kept one).
#[test]
fn waiting_places_handed_out_together_are_two_radii_apart() {
    // 0 east goes (nearest); 1, 2 and 3 west wait north of the axis; 1 keeps a spot 0.05
    // off the block's first place (-0.75, 1.45).
    let (s, pos) = door_scene(&[(2.0, 0.0), (-2.5, 1.0), (-3.0, 1.5), (-3.5, 2.0)]);
    let mut state = Vec::new();
    let kept = Some((s.chokes[0], v(-0.75, 1.5)));
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        0,
        32,
        &travellers(&s, &pos),
        &[None, kept, None, None],
    );
    assert_eq!(d[0], Decision::Through);
    let spots: Vec<Vec2> = (1..4)
        .map(|i| match d[i] {
            Decision::Wait { spot, .. } => spot,
            other => panic!("{i} should wait: {other:?}"),
        })
        .collect();
    assert_eq!(spots[0], v(-0.75, 1.5), "the kept spot stays");
    let apart = TRAFFIC_RADIUS * 2 + spot_margin(&TrafficParams::DEFAULT);
    for i in 0..spots.len() {
        assert!(s.mesh.is_walkable(spots[i], TRAFFIC_RADIUS));
        assert!(
            spots[i].y > Fx::ZERO,
            "on its own hand: {:?}",
            spots[i].to_f64()
        );
        for j in i + 1..spots.len() {
            let d = (spots[i] - spots[j]).length();
            assert!(
                d >= apart,
                "{i} {j}: {:?} {:?} {d}",
                spots[i].to_f64(),
                spots[j].to_f64()
            );
        }
    }
    // The margin is a tenth of the radius planned for (rounded down to the raw bit).
    assert_eq!(spot_margin(&TrafficParams::DEFAULT), TRAFFIC_RADIUS / 10);
    assert!(spot_margin(&TrafficParams::DEFAULT) > Fx::lit("0.0499"));
    // Deterministic: the same inputs give the same places.
    let mut again = Vec::new();
    let d2 = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut again,
        0,
        32,
        &travellers(&s, &pos),
        &[None, kept, None, None],
    );
    assert_eq!(d, d2);
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

#[test]
fn a_door_through_a_thick_wall_is_one_door() {
    let mesh = thick_door(1.3, 1.0);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    let west = Choke::new(v(-0.5, -0.65), v(-0.5, 0.65));
    let east = Choke::new(v(0.5, -0.65), v(0.5, 0.65));
    // Its mouths and the diagonal between them (1.64 long) are chokes.
    assert_eq!(c.len(), 3, "{c:?}");
    let (iw, ie) = (
        c.binary_search(&west).unwrap(),
        c.binary_search(&east).unwrap(),
    );
    let d = doors(&mesh, &c, TRAFFIC_RADIUS);
    assert_eq!((d.passages(), d.chokes()), (1, &c[..]));
    // One key (the least choke, the west mouth) for all three.
    let key = (0..c.len()).map(|i| d.door_of(i, 0).0).min().unwrap();
    assert_eq!(key, 0);
    assert!((0..c.len()).all(|i| d.door_of(i, 0).0 == key && d.door_of(i, 1).0 == key));
    assert!(d.is_key(key) && !d.is_key(ie));
    assert_eq!(d.members(key), &[0, 1, 2]);
    // The door's sides are the key's, carried along: the west of every choke is the key's
    // west side, the east its east side.
    let (w, e) = (v(-3.0, 0.0), v(3.0, 0.0));
    let sw = c[key].side(w).unwrap();
    for (i, choke) in c.iter().enumerate() {
        assert_eq!(d.door_of(i, choke.side(w).unwrap()).1, sw, "choke {i}");
        assert_eq!(d.door_of(i, choke.side(e).unwrap()).1, 1 - sw, "choke {i}");
    }
    // The mouth of each end, with its side facing out; where a unit outside enters.
    assert_eq!(d.mouth(key, sw), (west, west.side(w).unwrap()));
    assert_eq!(d.mouth(key, 1 - sw), (east, east.side(e).unwrap()));
    assert_eq!(d.entry(&c[key], w), Some((west, west.side(w).unwrap())));
    assert_eq!(d.entry(&c[key], e), Some((east, east.side(e).unwrap())));
    assert_eq!(d.entry(&c[ie], e), None, "not a door's key");
    let _ = iw;
    // Inside the passage, between the mouths; not outside them.
    assert!(d.in_passage(&mesh, key, v(0.0, 0.0)));
    assert!(d.in_passage(&mesh, key, v(0.3, -0.5)));
    assert!(!d.in_passage(&mesh, key, v(-0.7, 0.0)) && !d.in_passage(&mesh, key, v(2.0, 0.0)));
    // A door in a wall without thickness is one choke alone; a corridor narrower than two
    // diameters is one door of its two mouths; a door two diameters wide is no choke at all.
    let thin = door(1.3);
    assert_eq!(
        doors(&thin, &chokes(&thin, TRAFFIC_RADIUS), TRAFFIC_RADIUS).passages(),
        0
    );
    let lane = corridor(1.3);
    let cc = chokes(&lane, TRAFFIC_RADIUS);
    let dc = doors(&lane, &cc, TRAFFIC_RADIUS);
    assert_eq!(dc.passages(), 1);
    let k = dc.door_of(0, 0).0;
    for mouth in [
        Choke::new(v(0.0, 0.0), v(0.0, 1.3)),
        Choke::new(v(20.0, 0.0), v(20.0, 1.3)),
    ] {
        assert_eq!(dc.door_of(cc.binary_search(&mouth).unwrap(), 0).0, k);
    }
    // From 2.6 diameters (`5.2 r`) on a door has lanes, no choke (one 2 wide in a wall 1
    // thick is a choke: `a_door_up_to_2_6_diameters_in_a_thin_wall_is_a_choke_and_a_street_is_not`).
    let wide = thick_door(2.8, 1.0);
    assert!(chokes(&wide, TRAFFIC_RADIUS).is_empty());
    // Pure: the same mesh gives the same doors.
    assert_eq!(d, doors(&mesh, &c, TRAFFIC_RADIUS));
}

/// [`decide`] with the default settings, a hold of 32 ticks and no one waiting yet.
fn decide_movers(
    mesh: &NavMesh,
    chokes: &[Choke],
    state: &mut Vec<ChokeState>,
    tick: u64,
    travellers: &[Traveller<'_>],
) -> Vec<Decision> {
    let waiting = vec![None; travellers.len()];
    decide(
        &TrafficParams::DEFAULT,
        mesh,
        chokes,
        state,
        tick,
        32,
        travellers,
        &waiting,
    )
}

/// `(unit at position, going from, its path)` travellers for a thick door's tests.
fn movers(units: &[(Vec2, Vec2, Vec2)]) -> Vec<(Vec2, Vec2, [Vec2; 1])> {
    units.iter().map(|&(p, from, to)| (p, from, [to])).collect()
}

fn as_travellers(m: &[(Vec2, Vec2, [Vec2; 1])]) -> Vec<Traveller<'_>> {
    m.iter()
        .enumerate()
        .map(|(i, (p, from, path))| Traveller {
            id: i as u32,
            position: *p,
            radius: TRAFFIC_RADIUS,
            from: *from,
            path: &path[..],
        })
        .collect()
}

#[test]
fn both_ends_of_a_thick_door_share_one_reservation() {
    // 0 west of the door, 1 east of it and nearer: each approaches the mouth on its side.
    // Reserved mouth by mouth, both went in and met inside; as one door, 1 goes and 0 waits
    // beside the west mouth.
    let mesh = thick_door(1.3, 1.0);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    let m = movers(&[
        (v(-2.5, 0.0), v(-2.5, 0.0), v(4.0, 0.0)),
        (v(2.0, 0.0), v(2.0, 0.0), v(-4.0, 0.0)),
    ]);
    let mut state = Vec::new();
    let d = decide_movers(&mesh, &c, &mut state, 0, &as_travellers(&m));
    assert_eq!(state.len(), 1, "{state:?}");
    assert_eq!(state[0].choke, c[0], "the door's key");
    assert_eq!(d[1], Decision::Through);
    let Decision::Wait { choke, spot } = d[0] else {
        panic!("0 should wait: {d:?}");
    };
    assert_eq!(choke, c[0]);
    assert!(
        spot.x < Fx::lit("-0.5"),
        "beside the west mouth: {:?}",
        spot.to_f64()
    );
}

#[test]
fn a_unit_inside_a_long_passage_holds_the_door() {
    // A door 1.3 wide through a wall 4 thick: its diagonals are long, so its chokes are its
    // two mouths alone. Unit 0, going east, stands in the middle of the passage, its disc
    // touching neither mouth; unit 1 waits east. The west side's hold time is up, yet the
    // door stays the west's while 0 is inside (it would otherwise be sent back).
    let mesh = thick_door(1.3, 4.0);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    assert_eq!(c.len(), 2, "{c:?}");
    for choke in &c {
        let far = cmp_dist_point_segment(choke.a, choke.b, Vec2::ZERO, TRAFFIC_RADIUS);
        assert_eq!(far, Ordering::Greater);
    }
    let m = movers(&[
        (v(0.0, 0.0), v(-1.0, 0.0), v(5.0, 0.0)),
        (v(3.5, 0.0), v(3.5, 0.0), v(-5.0, 0.0)),
    ]);
    let west_side = c[0].side(v(-3.0, 0.0)).unwrap();
    let mut state = vec![ChokeState::new(c[0], west_side, 0)];
    let d = decide_movers(&mesh, &c, &mut state, 100, &as_travellers(&m));
    assert_eq!(state.len(), 1);
    assert_eq!(
        (state[0].holder, state[0].since),
        (west_side, 0),
        "kept by the west"
    );
    assert_eq!(d[0], Decision::Go);
    assert!(matches!(d[1], Decision::Wait { .. }), "{d:?}");
    // Once 0 is out east, the door goes to the east side.
    let m = movers(&[
        (v(6.0, 0.0), v(5.0, 0.0), v(8.0, 0.0)),
        (v(3.5, 0.0), v(3.5, 0.0), v(-5.0, 0.0)),
    ]);
    let d = decide_movers(&mesh, &c, &mut state, 101, &as_travellers(&m));
    assert_eq!(state[0].holder, 1 - west_side);
    assert_eq!(d[1], Decision::Through);
}

#[test]
fn a_unit_deep_in_a_long_corridor_holds_it() {
    // A corridor 1.3 wide and 20 long is one door of its two mouths (x = 0 and x = 20). Unit 0
    // is in its middle, 10 from either mouth (beyond any mouth's reach), going east; unit 1
    // waits east. The west keeps the corridor while 0 is in it, though its hold time is up.
    let mesh = corridor(1.3);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    let d = doors(&mesh, &c, TRAFFIC_RADIUS);
    assert_eq!(d.passages(), 1);
    let key = d.door_of(0, 0).0;
    assert_eq!(d.passage_at(&mesh, v(10.0, 0.65)), Some(key));
    assert_eq!(d.passage_at(&mesh, v(-1.0, 0.65)), None);
    let m = movers(&[
        (v(10.0, 0.65), v(9.0, 0.65), v(25.0, 0.65)),
        (v(22.0, 0.65), v(22.0, 0.65), v(-5.0, 0.65)),
    ]);
    let west_side = d.door_of(key, c[key].side(v(-3.0, 0.65)).unwrap()).1;
    let mut state = vec![ChokeState::new(c[key], west_side, 0)];
    let t = as_travellers(&m);
    let out = decide_movers(&mesh, &c, &mut state, 100, &t);
    assert_eq!(state.len(), 1);
    assert_eq!(state[0].holder, west_side, "kept by the west");
    assert_eq!(out[0], Decision::Go);
    assert!(matches!(out[1], Decision::Wait { .. }), "{out:?}");
    // The mouth a unit outside enters by.
    let (mouth, _) = d.entry(&c[key], v(-2.0, 0.65)).unwrap();
    assert_eq!(mouth, Choke::new(v(0.0, 0.0), v(0.0, 1.3)));
    let (mouth, _) = d.entry(&c[key], v(23.0, 0.65)).unwrap();
    assert_eq!(mouth, Choke::new(v(20.0, 0.0), v(20.0, 1.3)));
}

/// A door 2 wide in a wall 1 thick is three chokes (its mouths and the diagonal between them,
/// thin wall ends up to `DOOR_RADII` radii) grouped into one door: one reservation for the
/// whole passage, not one per mouth (the head-on meeting inside that `Doors` prevents).
#[test]
fn a_thin_wall_door_2_wide_is_one_door() {
    let mesh = thick_door(2.0, 1.0);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    assert_eq!(c.len(), 3, "{c:?}");
    let d = doors(&mesh, &c, TRAFFIC_RADIUS);
    let keys: Vec<usize> = (0..c.len()).map(|i| d.door_of(i, 0).0).collect();
    assert_eq!(d.passages(), 1, "keys {keys:?}");
    assert!(keys.iter().all(|&k| k == keys[0]), "keys {keys:?}");
}

/// The portals of a door 2 wide in a thin wall are chokes (reserved, one file at a time) and
/// not lanes too (two files keeping right), which the lanes' doc and the chokes' contradicted.
#[test]
fn a_thin_wall_door_is_not_also_a_lane() {
    let mesh = thick_door(2.0, 1.0);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    let l = lanes(&mesh, TRAFFIC_RADIUS);
    assert_eq!(c.len(), 3, "{c:?}");
    let both: Vec<_> = c.iter().filter(|k| l.contains(k)).collect();
    assert!(both.is_empty(), "chokes that are lanes too: {both:?}");
    // A door 2.8 wide (past DOOR_RADII) is lanes, not chokes.
    let wide = thick_door(2.8, 1.0);
    assert!(chokes(&wide, TRAFFIC_RADIUS).is_empty());
    assert!(!lanes(&wide, TRAFFIC_RADIUS).is_empty());
}

/// A unit at rest (no path left, its rest point given as `from`) standing or resting in the
/// lane in front of a busy door's mouth steps aside ([`Decision::Aside`]): beside the lane,
/// level with its rest point, on the hand of the axis that lies on; one at rest out of the
/// lane stays. Kept aside while the door is busy, it walks back (goes) once nobody comes
/// through.
/// The lane of the mouth units come out of counts too; a unit still beyond the approach
/// distance does not make the door busy.
#[test]
fn a_unit_at_rest_in_front_of_a_busy_mouth_steps_aside() {
    let mesh = door(1.3);
    let chokes = chokes(&mesh, TRAFFIC_RADIUS);
    let params = TrafficParams::DEFAULT;
    let door_of = doors(&mesh, &chokes, params.radius);
    let unit = |id, position, path| Traveller {
        id,
        position,
        radius: TRAFFIC_RADIUS,
        from: position,
        path,
    };
    // 0 comes from the east, through the door (the door is busy); 1 rests in the east lane (1.5 out of the
    // door, near its axis), 2 rests beside it (out of the lane), 3 in the west lane.
    let through = [v(-0.01, 0.0), v(-4.0, 0.0)];
    let (rest1, rest2, rest3) = (v(1.5, 0.1), v(1.5, 1.4), v(-1.0, -0.3));
    let t = [
        unit(0, v(3.0, 0.0), &through[..]),
        unit(1, rest1, &[]),
        unit(2, rest2, &[]),
        unit(3, rest3, &[]),
    ];
    let mut state = Vec::new();
    let d = decide_at(&params, &mesh, &door_of, &mut state, 0, 32, &t, &[None; 4]);
    assert_eq!(d[0], Decision::Through);
    assert_eq!(d[2], Decision::Go, "out of the lane: stays");
    let aside = |d: Decision| match d {
        Decision::Aside { choke, spot } => (choke, spot),
        other => panic!("in the lane: {other:?}"),
    };
    let (choke, spot) = aside(d[1]);
    assert_eq!(choke, chokes[0]);
    let (x, y) = spot.to_f64();
    assert!((x - 1.5).abs() < 1e-6, "level with its goal: {x}");
    assert!(
        y >= 0.65 + 0.5 + 0.05 - 1e-6,
        "north of the axis, clear of the lane: {y}"
    );
    assert!(mesh.is_walkable(spot, TRAFFIC_RADIUS));
    let (x, y) = aside(d[3]).1.to_f64();
    assert!(
        x < 0.0 && y <= -(0.65 + 0.5),
        "west, south of the axis: {x} {y}"
    );
    // Aside at its place, its goal kept as its path: it keeps the place while the door is
    // busy, and goes back once nobody comes through.
    let goal = [rest1];
    let kept = [None, Some((choke, spot))];
    let t = [unit(0, v(2.0, 0.0), &through[..]), unit(1, spot, &goal[..])];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 1, 32, &t, &kept);
    assert_eq!(d[1], Decision::Aside { choke, spot });
    // Settled on an earlier leg of its path, it kept more than its goal: aside all the same.
    let legs = [v(2.5, 0.5), rest1];
    let t = [unit(0, v(2.0, 0.0), &through[..]), unit(1, spot, &legs[..])];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 1, 32, &t, &kept);
    assert_eq!(d[1], Decision::Aside { choke, spot });
    let t = [unit(0, v(-9.0, 7.0), &[]), unit(1, spot, &goal[..])];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 2, 32, &t, &kept);
    assert_eq!(d[1], Decision::Go);
    // Pushed into the lane from a rest point beside it (its `from`), a unit steps aside too,
    // level with its rest point; resting in the lane but pushed out of it, too.
    let pushed = Traveller {
        from: rest2,
        ..unit(1, rest1, &[])
    };
    let t = [unit(0, v(3.0, 0.0), &through[..]), pushed];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 3, 32, &t, &[None; 2]);
    let (x, y) = aside(d[1]).1.to_f64();
    assert!((x - 1.5).abs() < 1e-6 && y > 1.15, "{x} {y}");
    let out = Traveller {
        from: rest1,
        ..unit(1, rest2, &[])
    };
    let t = [unit(0, v(3.0, 0.0), &through[..]), out];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 3, 32, &t, &[None; 2]);
    assert!(matches!(d[1], Decision::Aside { .. }), "{:?}", d[1]);
    // Aside, a unit whose kept point lies beyond the door (pushed through it while it
    // waited) is no longer aside: it goes.
    let beyond = [v(-1.5, 0.1)];
    let t = [
        unit(0, v(3.0, 0.0), &through[..]),
        unit(1, v(-2.0, 0.5), &beyond[..]),
    ];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 3, 32, &t, &kept);
    assert_eq!(d[1], Decision::Go);
    // Nobody on the way, or only a waiter at a far place: nobody steps aside.
    let t = [unit(1, rest1, &[]), unit(3, rest3, &[])];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 4, 32, &t, &[None; 2]);
    assert_eq!(d, vec![Decision::Go; 2]);
    // A unit coming from beyond the approach distance (6.65) does not make the door busy yet.
    let t = [unit(0, v(8.0, 0.0), &through[..]), unit(1, rest1, &[])];
    let d = decide_at(&params, &mesh, &door_of, &mut state, 5, 32, &t, &[None; 2]);
    assert_eq!(d[1], Decision::Go);
}

/// The waiting block is six ranks long and grows outwards: places 0 to 11 fill two files of
/// six ranks along the wall, place 12 starts the next layer two files further out at the
/// first rank; no place of the first 48 lies farther along the wall than the sixth rank.
#[test]
fn the_waiting_block_grows_outwards_after_six_ranks() {
    let mesh = door(1.3);
    let c = chokes(&mesh, TRAFFIC_RADIUS)[0];
    let params = TrafficParams::DEFAULT;
    // Side 0 is west (left of a → b, upwards); its right hand facing the door is south.
    let at = |k| {
        spot(
            &params,
            &mesh,
            &c,
            (0, false),
            k,
            v(-5.0, 0.0),
            TRAFFIC_RADIUS,
        )
        .to_f64()
    };
    let (x0, y0) = at(0);
    let (x12, y12) = at(12);
    assert!((y12 - y0).abs() < 1e-6, "same rank: {y0} {y12}");
    assert!(
        (x0 - x12 - 2.2).abs() < 1e-6,
        "two files further out: {x0} {x12}"
    );
    let (_, y10) = at(10);
    assert!(
        (y0 - y10 - 5.0 * 1.1).abs() < 1e-6,
        "sixth rank: {y0} {y10}"
    );
    for k in 0..48 {
        let (x, y) = at(k);
        assert!(y >= y10 - 1e-6 && y <= y0 + 1e-6, "{k}: {x} {y}");
        assert!(x < 0.0 && y < 0.0, "{k}: on its side and hand");
    }
}

/// Where a unit at rest steps aside to, and what it is told when things go wrong (the second
/// review of the rule): no place behind another wall (in an alcove as wide as the lane it
/// stays at rest, yielding, instead of pressing towards a place it cannot reach); no place in
/// another busy door's lane; a unit aside pushed through the door to the other side gets no
/// place on the far side (it is told where to wait on the side it is on, or to go); and
/// `waiting` shorter than the travellers, or a rest point far outside the map, panics nowhere.
#[test]
fn stepping_aside_never_sends_a_unit_behind_a_wall_or_back_through_the_door() {
    let params = TrafficParams::DEFAULT;
    let unit = |id, position, from, path| Traveller {
        id,
        position,
        radius: TRAFFIC_RADIUS,
        from,
        path,
    };
    let walls = |lines: &[[(f64, f64); 2]]| {
        let mut set = ObstacleSet::default();
        for l in lines {
            set.add(ObstacleShape::Polyline(vec![
                v(l[0].0, l[0].1),
                v(l[1].0, l[1].1),
            ]))
            .unwrap();
        }
        room(&set)
    };
    let door_walls = [[(0.0, -8.0), (0.0, -0.65)], [(0.0, 0.65), (0.0, 8.0)]];
    let rest = v(1.2, 0.3);
    let east = [v(0.01, 0.0), v(6.0, 0.0)];
    // An alcove 3.2 wide east of the door: nothing beside the lane is in sight.
    let alcove = walls(&[
        door_walls[0],
        door_walls[1],
        [(0.0, 1.6), (8.0, 1.6)],
        [(0.0, -1.6), (8.0, -1.6)],
    ]);
    let chokes_a = chokes(&alcove, params.radius);
    let t = [
        unit(0, v(-3.0, 0.0), v(-4.0, 0.0), &east[..]),
        unit(1, rest, rest, &[]),
    ];
    let mut state = Vec::new();
    let d = decide(
        &params, &alcove, &chokes_a, &mut state, 0, 32, &t, &[None; 2],
    );
    if let Decision::Aside { spot, .. } = d[1] {
        assert!(
            alcove.raycast(rest, spot, TRAFFIC_RADIUS / 2).clear,
            "a place out of sight: {:?}",
            spot.to_f64()
        );
    }
    // Two doors 2.3 apart: with both busy, no place in the other's lane.
    let two = walls(&[
        [(0.0, -8.0), (0.0, -0.65)],
        [(0.0, 0.65), (0.0, 1.65)],
        [(0.0, 2.95), (0.0, 8.0)],
    ]);
    let chokes_2 = chokes(&two, params.radius);
    let lane_b = [v(0.01, 2.3), v(4.0, 2.3)];
    let t = [
        unit(0, v(-3.0, 0.0), v(-4.0, 0.0), &east[..]),
        unit(1, rest, rest, &[]),
        unit(2, v(-3.0, 2.3), v(-4.0, 2.3), &lane_b[..]),
    ];
    let mut state = Vec::new();
    let d = decide(&params, &two, &chokes_2, &mut state, 0, 32, &t, &[None; 3]);
    let Decision::Aside { spot, .. } = d[1] else {
        panic!("{:?}", d[1]);
    };
    let (x, y) = spot.to_f64();
    assert!(
        !(x > 0.0 && x < 2.0 && (y - 2.3).abs() < 1.15),
        "a place in the other door's lane: {x} {y}"
    );
    // Aside east, pushed through to the west while the east side holds the door: never told
    // to wait at its place on the east side.
    let mesh = door(1.3);
    let chokes_1 = chokes(&mesh, params.radius);
    let west = [v(-0.01, 0.0), v(-4.0, 0.0)];
    let t = [
        unit(0, v(3.0, 0.0), v(4.0, 0.0), &west[..]),
        unit(1, rest, rest, &[]),
    ];
    let mut state = Vec::new();
    let d = decide(&params, &mesh, &chokes_1, &mut state, 0, 32, &t, &[None; 2]);
    let Decision::Aside { choke, spot } = d[1] else {
        panic!("{:?}", d[1]);
    };
    let goal = [rest];
    for p in [v(-0.8, 0.3), v(-1.0, 1.5)] {
        let t = [
            unit(0, v(2.0, 0.0), v(4.0, 0.0), &west[..]),
            unit(1, p, p, &goal[..]),
        ];
        let mut st = state.clone();
        let d = decide(
            &params,
            &mesh,
            &chokes_1,
            &mut st,
            1,
            32,
            &t,
            &[None, Some((choke, spot))],
        );
        match d[1] {
            Decision::Wait { spot: s, .. } | Decision::Aside { spot: s, .. } => {
                assert!(
                    s.x < Fx::ZERO,
                    "told to wait across the door: {:?}",
                    s.to_f64()
                );
            }
            Decision::Go | Decision::Through => {}
        }
    }
    // Hostile input through the public function: no panic.
    let t = [
        unit(0, v(3.0, 0.0), v(4.0, 0.0), &west[..]),
        unit(1, v(5.0, 5.0), v(5.0, 5.0), &[]),
    ];
    let mut state = Vec::new();
    let d = decide(&params, &mesh, &chokes_1, &mut state, 0, 32, &t, &[None]);
    assert_eq!(d.len(), 2);
    let far = Vec2::new(Fx::MAX - Fx::from_num(1), Fx::MIN + Fx::from_num(1));
    let t = [
        unit(0, v(3.0, 0.0), v(4.0, 0.0), &west[..]),
        unit(1, rest, far, &[]),
    ];
    let d = decide(&params, &mesh, &chokes_1, &mut state, 1, 32, &t, &[None; 2]);
    assert_eq!(d.len(), 2);
}

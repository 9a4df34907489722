//! Stepping aside at a busy door's mouth, and the waiting block's layout.

use super::*;

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

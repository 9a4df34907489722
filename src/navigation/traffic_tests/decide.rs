//! Reservations, single file and waiting places at a door of one choke ([`decide`]).

use super::*;

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
    let d = decide_default(&s, &pos, &mut state, 1, &[None; 2]);
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
    let d = decide_default(&s, &pos, &mut state, 0, &[None; 2]);
    assert_eq!(state[0].holder, 1, "id 0 stands east");
    assert_eq!(d[0], Decision::Through);
    assert!(matches!(d[1], Decision::Wait { .. }));
    // Unit 0 through and away (its path no longer crosses): the west side takes the door.
    let mut pos2 = pos.clone();
    pos2[0] = v(-4.0, 0.0);
    let mut s2 = s;
    s2.paths[0] = [v(-5.0, 0.0), v(-6.0, 0.0)];
    let d = decide_default(&s2, &pos2, &mut state, 5, &[None; 2]);
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
    let d = decide_default(&s, &pos, &mut state, 101, &[None; 3]);
    assert_eq!(state[0].holder, 0);
    assert!(matches!(d[1], Decision::Wait { .. }));
    assert_eq!(d[2], Decision::Through);
    // Before the hold time the holder keeps going.
    let d = decide_default(&s, &pos, &mut state, 110, &[None; 3]);
    assert_eq!(d[2], Decision::Through);
}

#[test]
fn a_waiter_keeps_its_spot_and_no_one_near_frees_the_door() {
    let (s, pos) = door_scene(&[(2.0, 0.0), (-2.5, 1.0)]);
    let mut state = Vec::new();
    let kept = Some((s.chokes[0], v(-2.4, 1.1)));
    let d = decide_default(&s, &pos, &mut state, 0, &[None, kept]);
    assert_eq!(
        d[1],
        Decision::Wait {
            choke: s.chokes[0],
            spot: v(-2.4, 1.1)
        }
    );
    // Far away: no relation, the reservation is dropped.
    let far = [v(-9.0, 7.0), v(9.0, 7.0)];
    let d = decide_default(&s, &far, &mut state, 1, &[None; 2]);
    assert_eq!(d, vec![Decision::Go; 2]);
    assert!(state.is_empty());
}

#[test]
fn a_waypoint_on_the_portals_line_still_counts_as_crossing_it() {
    // The west side holds; unit 1 stands east with a path whose first point lies exactly on
    // the portal's line (x = 0), as the funnel makes when it wraps a door's corner. It
    // approaches from the east and must wait (it used to go: no side for that point).
    let (mut s, pos) = door_scene(&[(-2.0, 0.0), (1.5, 0.3)]);
    s.paths[1] = [v(0.0, 0.1), v(-3.0, 0.0)];
    let mut state = vec![ChokeState::new(s.chokes[0], 0, 0)];
    let d = decide_default(&s, &pos, &mut state, 1, &[None; 2]);
    assert_eq!(d[0], Decision::Through);
    assert!(matches!(d[1], Decision::Wait { .. }), "{:?}", d[1]);
    assert_eq!(state[0].holder, 0);
}

#[test]
fn the_holding_side_queues_in_single_file_within_its_queue() {
    // Both west, 0.5 apart in path length, 2.7 and 3.2 from the door (within w/2 + 6 r =
    // 3.65): the first goes, the second waits. With no one approaching from the east it waits
    // on the axis of the west mouth, at the first place of its axis queue (2.5 r out); with a
    // unit approaching from the east (farther, so the west takes the door), at the first
    // place of its block beside the entrance (out of the way of the units coming out). With
    // a queue of 3 r (2.15) both are outside it and both go.
    let run = |units: &[(f64, f64)], p: &TrafficParams| {
        let (s, pos) = door_scene(units);
        let mut state = Vec::new();
        let d = decide(
            p,
            &s.mesh,
            &s.chokes,
            &mut state,
            0,
            32,
            &travellers(&s, &pos),
            &vec![None; units.len()],
        );
        (d, s.chokes[0])
    };
    let wait_at = |d: Decision, door: Choke| {
        let Decision::Wait { choke, spot } = d else {
            panic!("{d:?}")
        };
        assert_eq!(choke, door);
        spot.to_f64()
    };
    let (d, door) = run(&[(-2.7, 0.0), (-3.2, 0.0)], &TrafficParams::DEFAULT);
    assert_eq!(d[0], Decision::Through);
    let (x, y) = wait_at(d[1], door);
    assert!((x + 1.25).abs() < 1e-6 && y.abs() < 1e-6, "{x} {y}");
    let (d, door) = run(
        &[(-2.7, 0.0), (-3.2, 0.0), (3.5, 0.0)],
        &TrafficParams::DEFAULT,
    );
    assert_eq!(d[0], Decision::Through);
    let (x, y) = wait_at(d[1], door);
    assert!(
        (x + 0.75).abs() < 1e-6 && (y.abs() - 1.45).abs() < 1e-6,
        "{x} {y}"
    );
    let short = TrafficParams {
        queue: Fx::from_num(3),
        ..TrafficParams::DEFAULT
    };
    let (d, _) = run(&[(-2.7, 0.0), (-3.2, 0.0)], &short);
    assert_eq!(d, [Decision::Through, Decision::Go]);
}

/// The axis queue moves up: a waiter held on the third place of the west mouth's axis queue,
/// the only one, is sent to the first; a unit at rest on the axis 3 from the door cuts the queue
/// short before it (no place within its reach), so a second waiter beyond gets a block place;
/// once a unit approaches from the east the waiter on the axis is sent to a block place (the
/// axis is the way out of the door) and never kept there.
#[test]
fn the_axis_queue_moves_up_stops_short_of_units_at_rest_and_clears_for_the_other_side() {
    let (s, _) = door_scene(&[(-2.7, 0.0)]);
    let door = s.chokes[0];
    let third = v(-0.5 * (2.5 + 2.0 * 2.8), 0.0);
    let mut state = Vec::new();
    // Unit 0 goes; unit 1, a waiter given the third axis place, is held (within the gap
    // behind unit 0) and, alone on the axis, moves up to the first place.
    let (s, pos) = door_scene(&[(-1.5, 0.0), (-2.2, 0.3)]);
    let d = decide_default(&s, &pos, &mut state, 0, &[None, Some((door, third))]);
    assert_eq!(d[0], Decision::Through);
    assert_eq!(
        d[1],
        Decision::Wait {
            choke: door,
            spot: v(-1.25, 0.0)
        }
    );
    // Held at the door since tick 0; unit 0 goes, units 1 and 2 wait, unit 3 rests on the
    // axis 3 from the door (its path done): the queue ends before the second place (2.65
    // out, within 1.05 of the rest point), so unit 2 gets a block place.
    let (mut s, pos) = door_scene(&[(-2.0, 0.0), (-2.6, 0.4), (-3.3, -0.7), (-3.0, 0.0)]);
    s.paths[3] = [v(-3.0, 0.0), v(-3.0, 0.0)];
    let mut t = travellers(&s, &pos);
    t[3].path = &[];
    let mut state = Vec::new();
    let d = decide(
        &TrafficParams::DEFAULT,
        &s.mesh,
        &s.chokes,
        &mut state,
        0,
        32,
        &t,
        &[None; 4],
    );
    assert_eq!(d[0], Decision::Through);
    assert_eq!(
        d[1],
        Decision::Wait {
            choke: door,
            spot: v(-1.25, 0.0)
        }
    );
    let Decision::Wait { spot, .. } = d[2] else {
        panic!("{:?}", d[2])
    };
    assert!(spot.to_f64().1.abs() > 1.0, "{:?}", spot.to_f64());
    assert_eq!(d[3], Decision::Go);
    // The east approaches: the waiter on the axis goes to a block place.
    let (s, pos) = door_scene(&[(-1.5, 0.0), (-2.2, 0.3), (4.5, 0.0)]);
    let mut state = vec![ChokeState::new(door, 0, 0)];
    let on_axis = Some((door, v(-1.25, 0.0)));
    let d = decide_default(&s, &pos, &mut state, 1, &[None, on_axis, None]);
    assert_eq!(d[0], Decision::Through);
    let Decision::Wait { spot, .. } = d[1] else {
        panic!("{:?}", d[1])
    };
    assert!(spot.to_f64().1.abs() > 1.0, "{:?}", spot.to_f64());
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
    let d = decide_default(&s, &pos, &mut state, 0, &[None, kept, None, None]);
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
    let d2 = decide_default(&s, &pos, &mut again, 0, &[None, kept, None, None]);
    assert_eq!(d, d2);
}

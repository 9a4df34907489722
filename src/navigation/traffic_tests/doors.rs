//! Chokes in series as one door: thick walls, corridors, thin-wall doors.

use super::*;

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
    // From 3.1 diameters (`6.2 r`) on a door has lanes, no choke (one 2 wide in a wall 1
    // thick is a choke: `a_door_up_to_3_1_diameters_in_a_thin_wall_is_a_choke_and_a_street_is_not`).
    let wide = thick_door(3.2, 1.0);
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

/// Whether a door goes two abreast is told by its narrowest choke, whichever way the map
/// faces: a door splayed through a wall 0.8 thick, one mouth 2.4 wide and the other 2.8,
/// holds its holder in single file both ways round (its key choke, the least in raw-bit
/// order, is the narrow mouth one way and the wide one the other: by the key alone the
/// mirror image went two abreast, a review of the twenty-ninth session). A door 2.8 wide at
/// both mouths goes two abreast: one unit let through, the others going on, none waiting.
#[test]
fn a_door_goes_two_abreast_by_its_narrowest_choke_whichever_way_it_faces() {
    let splayed = |west: f64, east: f64| {
        let (w, e) = (west / 2.0, east / 2.0);
        let mut set = ObstacleSet::default();
        set.add(ObstacleShape::Polygon(vec![
            v(-0.4, w),
            v(0.4, e),
            v(0.4, 8.0),
            v(-0.4, 8.0),
        ]))
        .unwrap();
        set.add(ObstacleShape::Polygon(vec![
            v(-0.4, -8.0),
            v(0.4, -8.0),
            v(0.4, -e),
            v(-0.4, -w),
        ]))
        .unwrap();
        room(&set)
    };
    // Three units west of the door going east, the nearest 2 from it.
    let m = movers(&[
        (v(-2.0, 0.0), v(-2.0, 0.0), v(4.0, 0.0)),
        (v(-2.8, 0.3), v(-2.8, 0.3), v(4.0, 0.0)),
        (v(-3.6, -0.3), v(-3.6, -0.3), v(4.0, 0.0)),
    ]);
    for (west, east, abreast) in [(2.4, 2.8, false), (2.8, 2.4, false), (2.8, 2.8, true)] {
        if abreast {
            // Two abreast only where two of the holder's largest fit: with a unit of radius
            // 0.8 in its file (two need 3.2), single file (a review: heavy units went two
            // abreast through doors 3.15 wide).
            let mesh = splayed(west, east);
            let c = chokes(&mesh, TRAFFIC_RADIUS);
            let mut heavy = as_travellers(&m);
            heavy[1].radius = Fx::lit("0.8");
            let d = decide_movers(&mesh, &c, &mut Vec::new(), 0, &heavy);
            assert!(
                d.iter().any(|d| matches!(d, Decision::Wait { .. })),
                "a heavy unit in the file: single file, {d:?}"
            );
        }
        let mesh = splayed(west, east);
        let c = chokes(&mesh, TRAFFIC_RADIUS);
        assert!(!c.is_empty(), "{west} | {east}: no choke");
        let mut state = Vec::new();
        let d = decide_movers(&mesh, &c, &mut state, 0, &as_travellers(&m));
        let through = d.iter().filter(|d| **d == Decision::Through).count();
        let waiting = d
            .iter()
            .filter(|d| matches!(d, Decision::Wait { .. }))
            .count();
        assert_eq!(through, 1, "{west} | {east}: {d:?}");
        if abreast {
            assert_eq!(d[1..], [Decision::Go, Decision::Go], "{west} | {east}");
        } else {
            assert!(waiting >= 1, "{west} | {east}: single file, {d:?}");
        }
    }
}

/// The diagonal inside a door 3 wide through a wall 1 thick (3.16, past `DOOR_RADII` radii
/// while its mouths are chokes) is no lane portal: keep right would steer the units going
/// through the door to one side of it (a review of the twenty-ninth session).
#[test]
fn the_diagonal_inside_a_door_through_a_thick_wall_is_no_lane() {
    let mesh = thick_door(3.0, 1.0);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    assert_eq!(c.len(), 2, "the two mouths: {c:?}");
    let l = lanes(&mesh, TRAFFIC_RADIUS);
    let corner = |p: Vec2| c.iter().any(|k| k.a == p || k.b == p);
    let inside: Vec<_> = l.iter().filter(|k| corner(k.a) && corner(k.b)).collect();
    assert!(inside.is_empty(), "lanes inside the door: {inside:?}");
    // Two walls 0.4 thick, each with a door 2 wide, facing each other across a corridor 3.2
    // wide: the portals across the corridor between the doors' corners (3.2 long) are lanes
    // (a review found them dropped by a rule on lengths between choke corners).
    let mut set = ObstacleSet::default();
    for x in [-0.2, 3.4] {
        for (y0, y1) in [(-8.0, -1.0), (1.0, 8.0)] {
            set.add(ObstacleShape::Polygon(vec![
                v(x, y0),
                v(x + 0.4, y0),
                v(x + 0.4, y1),
                v(x, y1),
            ]))
            .unwrap();
        }
    }
    let mesh = room(&set);
    let c = chokes(&mesh, TRAFFIC_RADIUS);
    assert!(!c.is_empty());
    let across: Vec<_> = lanes(&mesh, TRAFFIC_RADIUS)
        .into_iter()
        .filter(|k| {
            (k.b - k.a).length() >= Fx::lit("3.19") && corner_of(&c, k.a) && corner_of(&c, k.b)
        })
        .collect();
    assert!(
        !across.is_empty(),
        "no lane across the corridor between the doors"
    );
}

/// Whether `p` is a corner of one of `chokes`.
fn corner_of(chokes: &[Choke], p: Vec2) -> bool {
    chokes.iter().any(|k| k.a == p || k.b == p)
}

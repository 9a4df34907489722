//! Which portals are chokes and lanes, and the portal index.

use super::*;

#[test]
fn a_door_narrower_than_two_diameters_is_one_choke() {
    let c = chokes(&door(1.3), TRAFFIC_RADIUS);
    assert_eq!(c, vec![Choke::new(v(0.0, 0.65), v(0.0, -0.65))]);
    assert_eq!(c[0].a, v(0.0, -0.65));
    assert_eq!(chokes(&door(1.5), TRAFFIC_RADIUS).len(), 1);
    // Up to 3.1 diameters between the tips of polyline walls (the thinnest wall ends): a
    // choke (eighteenth session, up to 2.6; twenty-ninth, 3.1; before, lanes from two
    // diameters on). From 3.1: lanes.
    assert_eq!(chokes(&door(2.0), TRAFFIC_RADIUS).len(), 1);
    assert_eq!(chokes(&door(2.5), TRAFFIC_RADIUS).len(), 1);
    assert_eq!(chokes(&door(2.8), TRAFFIC_RADIUS).len(), 1);
    assert_eq!(chokes(&door(3.0), TRAFFIC_RADIUS).len(), 1);
    assert!(chokes(&door(3.2), TRAFFIC_RADIUS).is_empty());
    assert!(!lanes(&door(3.2), TRAFFIC_RADIUS).is_empty());
    // A 4.5-wide corridor has none.
    assert!(chokes(&corridor(4.5), TRAFFIC_RADIUS).is_empty());
    // A 1.3-wide corridor's mouths are chokes.
    let c = chokes(&corridor(1.3), TRAFFIC_RADIUS);
    assert!(c.contains(&Choke::new(v(0.0, 0.0), v(0.0, 1.3))), "{c:?}");
    assert!(c.contains(&Choke::new(v(20.0, 0.0), v(20.0, 1.3))), "{c:?}");
}

/// Between two and 3.1 diameters a gap is a choke when both its corners end thin walls (a
/// door in a wall no thicker than a diameter), not between buildings (a street): the door is
/// reserved, the street is not. From 2.6 diameters the walls must run on from the corners:
/// not a gap between crates.
#[test]
fn a_door_up_to_3_1_diameters_in_a_thin_wall_is_a_choke_and_a_street_is_not() {
    let c = chokes(&thick_door(2.0, 1.0), TRAFFIC_RADIUS);
    assert!(
        c.iter().all(|k| (k.b - k.a).length() >= Fx::from_num(2)),
        "only the door's portals: {c:?}"
    );
    assert!(!c.is_empty(), "a door 2 wide in a wall 1 thick is a choke");
    assert!(!chokes(&thick_door(2.5, 1.0), TRAFFIC_RADIUS).is_empty());
    assert!(!chokes(&thick_door(3.0, 1.0), TRAFFIC_RADIUS).is_empty());
    // From 3.1 on (6.2 r): lanes.
    assert!(chokes(&thick_door(3.2, 1.0), TRAFFIC_RADIUS).is_empty());
    // Two 1 x 1 crates 2.5 apart: a choke (thin ends); 3 apart: none (no wall runs on).
    for (gap, choke) in [(2.5, true), (3.0, false)] {
        let mut set = ObstacleSet::default();
        for x in [-1.0 - gap / 2.0, gap / 2.0] {
            set.add(ObstacleShape::Polygon(vec![
                v(x, -0.5),
                v(x + 1.0, -0.5),
                v(x + 1.0, 0.5),
                v(x, 0.5),
            ]))
            .unwrap();
        }
        assert_eq!(
            !chokes(&room(&set), TRAFFIC_RADIUS).is_empty(),
            choke,
            "crates {gap} apart"
        );
    }
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

/// For units larger than the traffic radius: the thin-wall doors too narrow for two of them
/// (up to `6.2 R`), never a street between buildings, whatever their size.
#[test]
fn larger_units_get_the_thin_wall_doors_too_narrow_for_them_and_no_streets() {
    let heavy = Fx::lit("0.8");
    // A door 4 wide in a wall 1 thick: no choke for 0.5 (two files pass), a door for 0.8.
    let mesh = thick_door(4.0, 1.0);
    assert!(chokes(&mesh, TRAFFIC_RADIUS).is_empty());
    let big = chokes_for_sizes(&mesh, TRAFFIC_RADIUS, heavy);
    assert!(!big.is_empty(), "a door 4 wide is one for units of 0.8");
    // Its three chokes (the mouths and the diagonal) are one door.
    let doors = doors(&mesh, &big, heavy);
    let keys = (0..doors.chokes().len())
        .filter(|&c| doors.is_key(c))
        .count();
    assert_eq!((doors.chokes().len(), keys), (3, 1));
    // From 6.2 R (4.96) on: none.
    assert!(chokes_for_sizes(&thick_door(5.0, 1.0), TRAFFIC_RADIUS, heavy).is_empty());
    // No larger unit: the traffic radius's chokes alone.
    let light = chokes(&thick_door(2.0, 1.0), TRAFFIC_RADIUS);
    assert_eq!(
        chokes_for_sizes(&thick_door(2.0, 1.0), TRAFFIC_RADIUS, TRAFFIC_RADIUS),
        light
    );
    // Two 4 x 4 buildings 2.5 apart (a street), two 2 x 2 ones 4 apart (thin for units of
    // 1.5, not for the traffic radius) and two 1 x 1 crates 3 apart (thin for the traffic
    // radius, but no wall runs on from them: among crates a larger unit made every gap a
    // door, the review of the twenty-third session): no choke for the larger size.
    for (size, gap, big) in [
        (4.0, 2.5, heavy),
        (2.0, 4.0, Fx::lit("1.5")),
        (1.0, 3.0, heavy),
    ] {
        let mut set = ObstacleSet::default();
        for x in [-size - gap / 2.0, gap / 2.0] {
            set.add(ObstacleShape::Polygon(vec![
                v(x, -size / 2.0),
                v(x + size, -size / 2.0),
                v(x + size, size / 2.0),
                v(x, size / 2.0),
            ]))
            .unwrap();
        }
        assert!(
            chokes_for_sizes(&room(&set), TRAFFIC_RADIUS, big).is_empty(),
            "buildings {size} wide, {gap} apart"
        );
    }
}

/// Two round pillars drawn finely (80-gons of radius 1 and 0.6) 2.8 and 3 apart are no door
/// for the traffic radius: their walls never reach the gap's width away, however many
/// vertices are walked (until the twenty-ninth session's review the walk answered yes past
/// 64 vertices, and 17 to 29 chokes lay between them).
#[test]
fn finely_drawn_round_pillars_are_no_door() {
    for radius in [1.0, 0.6] {
        for gap in [2.8, 3.0] {
            let mut set = ObstacleSet::default();
            for s in [-1.0, 1.0] {
                let cx = s * (gap / 2.0 + radius);
                let ring: Vec<Vec2> = (0..80)
                    .map(|k| {
                        let a = f64::from(k) * std::f64::consts::TAU / 80.0;
                        v(cx + radius * a.cos(), radius * a.sin())
                    })
                    .collect();
                set.add(ObstacleShape::Polygon(ring)).unwrap();
            }
            let mesh = room(&set);
            assert!(
                chokes(&mesh, TRAFFIC_RADIUS).is_empty(),
                "pillars of {radius}, {gap} apart"
            );
        }
    }
    // A wall drawn finely (a polyline with a vertex every 0.04, 75 within 3 of the door's
    // corner) keeps its door 2.8 wide (a review: walked 64 vertices, it had lost it).
    let mut set = ObstacleSet::default();
    for s in [-1.0, 1.0] {
        let line: Vec<Vec2> = (0..=150)
            .map(|k| v(0.0, s * (1.4 + 0.04 * f64::from(k))))
            .collect();
        set.add(ObstacleShape::Polyline(line)).unwrap();
    }
    assert_eq!(
        chokes(&room(&set), TRAFFIC_RADIUS).len(),
        1,
        "a finely drawn wall"
    );
}

/// The larger units' doors need walls that reach the door's width away, walked along their
/// edges: walls drawn in pieces, touched by other walls or the boundary, split into short
/// edges, chamfered or with door posts keep every door the thin ends alone give; crates do
/// not. (The second review of the twenty-third session: with "one wall edge at least
/// `5.2 R` long" every case below but the first lost its doors.)
#[test]
fn the_larger_units_doors_are_doors_in_walls_however_the_walls_are_drawn() {
    let heavy = Fx::lit("0.8");
    let rect = |set: &mut ObstacleSet, x0: f64, y0: f64, x1: f64, y1: f64| {
        set.add(ObstacleShape::Polygon(vec![
            v(x0, y0),
            v(x1, y0),
            v(x1, y1),
            v(x0, y1),
        ]))
        .unwrap();
    };
    // The doors the thin ends alone give (no reach asked), less the traffic radius's.
    let extra = |mesh: &NavMesh, reach: bool| {
        let light = chokes(mesh, TRAFFIC_RADIUS);
        let mut d = if reach {
            chokes_for_sizes(mesh, TRAFFIC_RADIUS, heavy)
        } else {
            let thin = thin_ends(mesh, TRAFFIC_RADIUS);
            let limit = heavy.saturating_mul(DOOR_RADII);
            wall_portals_where(mesh, Fx::ZERO, limit, |p, q| thin[p] && thin[q])
        };
        d.retain(|c| light.binary_search(c).is_err());
        d
    };
    let mut walls: Vec<(&str, ObstacleSet)> = Vec::new();
    let mut set = ObstacleSet::default();
    // Doors 4 wide: a door for units of 0.8, lanes for the traffic radius.
    rect(&mut set, -0.5, -8.0, 0.5, -2.0);
    rect(&mut set, -0.5, 2.0, 0.5, 8.0);
    walls.push(("a wall 1 thick", set.clone()));
    set.add(ObstacleShape::Polyline(vec![v(0.5, -4.0), v(4.0, -4.0)]))
        .unwrap();
    set.add(ObstacleShape::Polyline(vec![v(-0.5, -4.0), v(-4.0, -4.0)]))
        .unwrap();
    walls.push(("stub walls touching its faces 2 from the door", set));
    let mut set = ObstacleSet::default();
    rect(&mut set, -0.5, -8.0, 0.5, -5.0);
    rect(&mut set, -0.5, -5.0, 0.5, -2.0);
    rect(&mut set, -0.5, 2.0, 0.5, 8.0);
    walls.push(("drawn in two pieces", set));
    let mut set = ObstacleSet::default();
    for s in [-1.0, 1.0] {
        set.add(ObstacleShape::Polyline(vec![
            v(0.0, 8.0 * s),
            v(0.0, 6.0 * s),
            v(0.0, 4.0 * s),
            v(0.0, 2.0 * s),
        ]))
        .unwrap();
    }
    walls.push(("a polyline with vertices every 2", set));
    let mut set = ObstacleSet::default();
    rect(&mut set, -0.5, -8.0, 0.5, -6.0);
    rect(&mut set, -0.5, -2.0, 0.5, 2.0);
    rect(&mut set, -0.5, 6.0, 0.5, 8.0);
    walls.push(("two doors, pieces 2, 4 and 2 long", set));
    let mut set = ObstacleSet::default();
    rect(&mut set, -0.5, -8.0, 0.5, 2.0);
    rect(&mut set, -0.5, 6.0, 0.5, 8.0);
    walls.push(("a piece 2 long to the boundary", set));
    let mut set = ObstacleSet::default();
    set.add(ObstacleShape::Polygon(vec![
        v(-0.5, -8.0),
        v(0.5, -8.0),
        v(0.5, -2.1),
        v(0.4, -2.0),
        v(-0.4, -2.0),
        v(-0.5, -2.1),
    ]))
    .unwrap();
    set.add(ObstacleShape::Polygon(vec![
        v(-0.5, 2.1),
        v(-0.4, 2.0),
        v(0.4, 2.0),
        v(0.5, 2.1),
        v(0.5, 8.0),
        v(-0.5, 8.0),
    ]))
    .unwrap();
    walls.push(("corners chamfered 0.1", set));
    for (what, set) in &walls {
        let mesh = room(set);
        let given = extra(&mesh, false);
        assert!(!given.is_empty(), "{what}: no door for 0.8 at all");
        assert_eq!(extra(&mesh, true), given, "{what}");
    }
    // Crates 1 x 1, 4 apart: thin ends, no wall.
    let mut set = ObstacleSet::default();
    rect(&mut set, -3.0, -0.5, -2.0, 0.5);
    rect(&mut set, 2.0, -0.5, 3.0, 0.5);
    let mesh = room(&set);
    assert!(!extra(&mesh, false).is_empty());
    assert!(extra(&mesh, true).is_empty(), "crates");
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
    // A door 3.2 wide (past DOOR_RADII) is lanes, not chokes.
    let wide = thick_door(3.2, 1.0);
    assert!(chokes(&wide, TRAFFIC_RADIUS).is_empty());
    assert!(!lanes(&wide, TRAFFIC_RADIUS).is_empty());
}

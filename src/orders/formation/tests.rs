use super::assign::{hungarian, sweep, total};
use super::*;
use proptest::prelude::*;

fn fx(v: f64) -> Fx {
    Fx::from_num(v)
}

fn distinct(points: &[Vec2]) -> bool {
    let mut s: Vec<_> = points.iter().map(|p| (p.x, p.y)).collect();
    s.sort_unstable();
    s.windows(2).all(|w| w[0] != w[1])
}

/// A deterministic scatter of `n` points in a square of side `side` (splitmix64).
fn scatter(n: usize, side: i64, seed: u64) -> Vec<Vec2> {
    (0..n as u64)
        .map(|k| {
            let h = crate::util::splitmix64(seed ^ k.wrapping_mul(0x9E37_79B9));
            let g = crate::util::splitmix64(h);
            let unit = |h: u64| Fx::from_bits((h >> 32) as i64) * Fx::from_num(side);
            Vec2::new(unit(h), unit(g))
        })
        .collect()
}

fn ids(n: usize) -> Vec<AgentId> {
    (0..n as u32).map(|i| AgentId(i * 3 + 1)).collect()
}

#[test]
fn ceil_sqrt_is_the_ceiling() {
    for n in 0..2000usize {
        let r = ceil_sqrt(n);
        assert!(r * r >= n && (r == 0 || (r - 1) * (r - 1) < n), "{n}");
    }
}

#[test]
fn layouts_have_their_shapes() {
    let s = Fx::from_num(2);
    // Box of 9: three ranks of three, centred, front rank first, left to right.
    let (b, w) = layout(FormationKind::Box, 9, s);
    assert_eq!(w, 3);
    assert_eq!(b[0], Vec2::from_int(-2, 2));
    assert_eq!(b[4], Vec2::from_int(0, 0));
    assert_eq!(b[8], Vec2::from_int(2, -2));
    // Box of 10: four files, the last rank's two centred.
    let (b, _) = layout(FormationKind::Box, 10, s);
    assert_eq!(&b[8..], &[Vec2::from_int(-1, -2), Vec2::from_int(1, -2)]);
    // Line of 100: 4 ranks of 25; Column of 100: 4 files.
    let (l, w) = layout(FormationKind::Line, 100, s);
    assert_eq!((w, l.iter().filter(|p| p.y == l[0].y).count()), (25, 25));
    let (c, w) = layout(FormationKind::Column, 100, s);
    assert_eq!((w, c.iter().filter(|p| p.y == c[0].y).count()), (4, 4));
    // One unit: on the goal.
    for kind in [
        FormationKind::Line,
        FormationKind::Box,
        FormationKind::Column,
        FormationKind::Spread,
    ] {
        assert_eq!(layout(kind, 1, s).0, vec![Vec2::ZERO], "{kind:?}");
    }
}

#[test]
fn spread_takes_the_nearest_lattice_points() {
    let s = Fx::ONE;
    let (p, _) = layout(FormationKind::Spread, 7, s);
    // The centre and its six neighbours, all at distance 1.
    assert_eq!(p[0], Vec2::ZERO);
    for q in &p[1..] {
        assert!((q.length() - Fx::ONE).abs() < fx(1e-8), "{q:?}");
    }
    for n in [2, 19, 100, 1000, 4321] {
        let (p, _) = layout(FormationKind::Spread, n, s);
        assert_eq!(p.len(), n);
        assert!(distinct(&p));
        // Every pair at least the spacing apart (lattice), less rounding.
        let far = p.iter().map(|q| q.length()).max().unwrap();
        // A hexagonal disc of n points has radius about sqrt(n · √3 / (2π)) = 0.525 √n.
        let bound = fx(0.56 * (n as f64).sqrt() + 1.0);
        assert!(far <= bound, "{n}: {far} > {bound}");
    }
    let (p, _) = layout(FormationKind::Spread, 200, s);
    for (k, a) in p.iter().enumerate() {
        for b in &p[k + 1..] {
            assert!((*a - *b).length() >= fx(0.999_999), "{a:?} {b:?}");
        }
    }
}

/// Brute force over every permutation: the Hungarian result is optimal.
#[test]
fn hungarian_is_exact_on_small_sets() {
    fn best(units: &[Vec2], slots: &[Vec2]) -> i128 {
        fn rec(units: &[Vec2], slots: &[Vec2], used: &mut Vec<bool>, k: usize) -> i128 {
            if k == units.len() {
                return 0;
            }
            let mut m = i128::MAX;
            for s in 0..slots.len() {
                if !used[s] {
                    used[s] = true;
                    let c = i128::from((slots[s] - units[k]).length().to_bits());
                    m = m.min(c + rec(units, slots, used, k + 1));
                    used[s] = false;
                }
            }
            m
        }
        rec(units, slots, &mut vec![false; slots.len()], 0)
    }
    for seed in 0..40 {
        let n = 1 + seed as usize % 7;
        let units = scatter(n, 20, seed);
        let slots = scatter(n, 20, seed + 1000);
        let to = hungarian(&units, &slots);
        let mut seen = to.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        assert_eq!(
            total(&units, &slots, &to),
            best(&units, &slots),
            "seed {seed}"
        );
    }
}

/// The sweep against the exact optimum: units scattered (or in a loose block) around their
/// start, slots a box or a spread 30 to 60 away. The figures go to docs/formations.md.
#[test]
fn assignment_quality() {
    let mut worst: f64 = 1.0;
    let mut sum = 0.0;
    let mut count = 0;
    for seed in 0..24u64 {
        let n = 65 + (seed as usize * 13) % 136;
        let spread = seed % 2 == 0;
        let units = scatter(n, 2 * ceil_sqrt(n) as i64 + 10, seed);
        let goal = Vec2::from_int(30 + seed as i32, 40 - seed as i32);
        let c = centre(&units).unwrap();
        let f = facing(c, goal, None);
        let kind = if spread {
            FormationKind::Spread
        } else {
            FormationKind::Box
        };
        let (local, band) = layout(kind, n, Fx::lit("2.5"));
        let slots: Vec<Vec2> = local.iter().map(|&l| place(goal, f, l).unwrap()).collect();
        let exact = total(&units, &slots, &hungarian(&units, &slots));
        let to = sweep(&units, &slots, f, band);
        let mut seen = to.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        let ours = total(&units, &slots, &to);
        assert!(ours >= exact);
        let ratio = ours as f64 / exact as f64;
        worst = worst.max(ratio);
        sum += ratio;
        count += 1;
    }
    eprintln!(
        "sweep / exact total distance over {count} groups of 65..200: mean {:.4}, worst {worst:.4}",
        sum / f64::from(count)
    );
    assert!(worst < 1.05, "worst {worst}");
}

#[test]
fn plans_give_distinct_slots_for_every_kind() {
    for kind in [
        FormationKind::Keep,
        FormationKind::Line,
        FormationKind::Box,
        FormationKind::Column,
        FormationKind::Spread,
    ] {
        for n in [1usize, 2, 7, 64, 65, 300] {
            let units: Vec<_> = ids(n)
                .into_iter()
                .zip(scatter(n, 3 * ceil_sqrt(n) as i64 + 3, n as u64))
                .collect();
            let plan = plan(&units, Vec2::from_int(100, 50), kind, Fx::lit("2.5"), None).unwrap();
            let slots: Vec<Vec2> = plan.slots.iter().map(|s| s.1).collect();
            assert_eq!(slots.len(), n);
            assert!(distinct(&slots), "{kind:?} {n}");
            assert!(plan.slots.windows(2).all(|w| w[0].0 < w[1].0));
            // The goal is the layout's centre (within a spacing, for uneven ranks).
            let c = centre(&slots).unwrap();
            assert!(
                (c - Vec2::from_int(100, 50)).length() < Fx::lit("2.5"),
                "{kind:?} {n}"
            );
        }
    }
}

#[test]
fn keep_translates_a_compact_group_and_converges_a_loose_one() {
    let units: Vec<_> = ids(4)
        .into_iter()
        .zip([
            Vec2::from_int(0, 0),
            Vec2::from_int(3, 0),
            Vec2::from_int(0, 3),
            Vec2::from_int(3, 3),
        ])
        .collect();
    let goal = Vec2::new(Fx::from_num(50), Fx::lit("1.5"));
    let p = plan(&units, goal, FormationKind::Keep, Fx::lit("2.5"), None).unwrap();
    assert_eq!(p.placed, FormationKind::Keep);
    let c = Vec2::new(Fx::lit("1.5"), Fx::lit("1.5"));
    for (&(_, from), &(_, to)) in units.iter().zip(&p.slots) {
        assert_eq!(to - goal, from - c);
    }
    // Turned to face +y (the heading was +x): offsets rotate by +90°.
    let p = plan(
        &units,
        goal,
        FormationKind::Keep,
        Fx::lit("2.5"),
        Some(Vec2::from_int(0, 1)),
    )
    .unwrap();
    let (_, first) = p.slots[0];
    assert!((first - (goal + Vec2::new(Fx::lit("1.5"), Fx::lit("-1.5")))).length() < fx(1e-6));
    // The goal inside the selection's box: converge into a box instead.
    let inside = plan(
        &units,
        Vec2::from_int(1, 2),
        FormationKind::Keep,
        Fx::lit("2.5"),
        None,
    )
    .unwrap();
    assert_eq!(inside.placed, FormationKind::Box);
    // A loose group (one unit far away): a box too.
    let mut loose = units.clone();
    loose[3].1 = Vec2::from_int(40, -30);
    let p = plan(&loose, goal, FormationKind::Keep, Fx::lit("2.5"), None).unwrap();
    assert_eq!(p.placed, FormationKind::Box);
}

#[test]
fn bad_input_is_refused() {
    let one = [(AgentId(0), Vec2::ZERO)];
    let go = |u: &[(AgentId, Vec2)], g, s, f| plan(u, g, FormationKind::Box, s, f);
    assert!(go(&[], Vec2::ZERO, Fx::ONE, None).is_err());
    assert!(go(&one, Vec2::ZERO, Fx::ZERO, None).is_err());
    assert!(go(&one, Vec2::ZERO, Fx::ONE, Some(Vec2::ZERO)).is_err());
    assert!(go(&one, Vec2::from_int(2_000_000, 0), Fx::ONE, None).is_err());
    let twice = [(AgentId(0), Vec2::ZERO), (AgentId(0), Vec2::ZERO)];
    assert!(go(&twice, Vec2::ZERO, Fx::ONE, None).is_err());
    // A formation spilling out of the domain: refused, not wrapped.
    let many: Vec<_> = ids(400).into_iter().map(|id| (id, Vec2::ZERO)).collect();
    let edge = Vec2::new(Fx::from_num(999_990), Fx::ZERO);
    assert!(go(&many, edge, Fx::from_num(10), None).is_err());
    // Units on one point: Keep falls back to the box, slots distinct.
    let p = plan(
        &many,
        Vec2::from_int(500, 0),
        FormationKind::Keep,
        Fx::ONE,
        None,
    )
    .unwrap();
    assert_eq!(p.placed, FormationKind::Box);
}

/// 100,000 units (more than a group holds, to bound the cost): slots distinct, each unit one.
#[test]
fn a_hundred_thousand_units_are_assigned() {
    let n = 100_000;
    let units = scatter(n, 900, 7);
    for kind in [FormationKind::Box, FormationKind::Spread] {
        let (local, band) = layout(kind, n, Fx::lit("2.5"));
        let f = Vec2::from_int(1, 0);
        let slots: Vec<Vec2> = local
            .iter()
            .map(|&l| place(Vec2::from_int(2000, 0), f, l).unwrap())
            .collect();
        assert!(distinct(&slots));
        let to = assign(&units, &slots, f, band);
        let mut seen = to;
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(k, &s)| k == s), "{kind:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The plan depends only on the set of (id, position) pairs, not their order.
    #[test]
    fn plans_ignore_the_input_order(
        n in 1usize..90,
        seed in any::<u64>(),
        rot in any::<u64>(),
        kind in 0u8..5,
    ) {
        let kind = FormationKind::from_canonical_byte(kind).unwrap();
        let units: Vec<_> = ids(n).into_iter().zip(scatter(n, 40, seed)).collect();
        let goal = Vec2::from_int(-60, 25);
        let a = plan(&units, goal, kind, Fx::lit("1.25"), None).unwrap();
        let mut shuffled = units.clone();
        shuffled.rotate_left((rot % n as u64) as usize);
        shuffled.reverse();
        let b = plan(&shuffled, goal, kind, Fx::lit("1.25"), None).unwrap();
        prop_assert_eq!(&a, &b);
        let slots: Vec<Vec2> = a.slots.iter().map(|s| s.1).collect();
        prop_assert!(distinct(&slots));
    }
}

#[test]
fn restored_formations_are_checked() {
    let good = Formation {
        kind: FormationKind::Keep,
        placed: FormationKind::Box,
        goal: Vec2::from_int(3, 4),
        facing: Vec2::from_int(0, 1),
        slots: vec![(AgentId(0), Vec2::ZERO), (AgentId(2), Vec2::from_int(1, 0))],
        march: None,
    };
    assert!(good.validate(3).is_ok());
    assert_eq!(good.slot(AgentId(2)), Some(Vec2::from_int(1, 0)));
    assert_eq!(good.slot(AgentId(1)), None);
    let bad = |f: &dyn Fn(&mut Formation)| {
        let mut g = good.clone();
        f(&mut g);
        g.validate(3).is_err()
    };
    assert!(bad(&|g| g.slots.reverse()));
    assert!(bad(&|g| g.slots.clear()));
    assert!(bad(&|g| g.slots[1].0 = AgentId(3)));
    assert!(bad(&|g| g.facing = Vec2::ZERO));
    assert!(bad(&|g| g.kind = FormationKind::Line));
    assert!(bad(&|g| g.placed = FormationKind::Spread));
    assert!(bad(&|g| g.slots[0].1 = Vec2::from_int(2_000_000, 0)));
}

mod marching {
    use super::super::march::{March, Member, Phase, Zone, ranks, zones};
    use super::*;

    fn p(x: i32, y: i32) -> Vec2 {
        Vec2::from_int(x, y)
    }

    /// Column ranks: the front rank first, each rank centre first, then left before right.
    #[test]
    fn ranks_funnel_front_rank_first_centre_first() {
        let slots = vec![
            (AgentId(0), p(-2, 2)),
            (AgentId(1), p(0, 2)),
            (AgentId(2), p(2, 2)),
            (AgentId(3), p(-2, 0)),
            (AgentId(4), p(0, 0)),
        ];
        assert_eq!(ranks(&slots), vec![1, 0, 2, 4, 3]);
    }

    /// Zones: the narrow stretch of a straight path where the clearance is under the half
    /// width, its files from the least clearance; two stretches closer than `merge` are one.
    #[test]
    fn zones_cover_the_narrow_stretches() {
        let path = [p(0, 0), p(100, 0)];
        let narrow = |x: Fx| {
            (Fx::from_num(40)..=Fx::from_num(50)).contains(&x)
                || (Fx::from_num(55)..=Fx::from_num(60)).contains(&x)
        };
        let clearance = |q: Vec2, max: Fx| if narrow(q.x) { Fx::from_num(2) } else { max };
        let half = Fx::from_num(10);
        let (r, s, sc) = (Fx::lit("0.5"), Fx::lit("2.5"), Fx::lit("1.25"));
        let z = zones(&path, half, r, s, sc, Fx::from_num(10), clearance);
        assert_eq!(z.len(), 1, "{z:?}");
        assert!(
            z[0].a <= Fx::from_num(40) && z[0].b >= Fx::from_num(60),
            "{z:?}"
        );
        // ⌊(4 − 1.5) / 1.25⌋ + 1 = 3 files.
        assert_eq!(z[0].files, 3);
        let z = zones(&path, half, r, s, sc, Fx::from_num(1), clearance);
        assert_eq!(z.len(), 2, "{z:?}");
        // Open ground: none.
        assert!(zones(&path, half, r, s, sc, Fx::ZERO, |_, max| max).is_empty());
    }

    fn a_march(zones: Vec<Zone>) -> March {
        let members = (0..4)
            .map(|k| Member {
                id: AgentId(k),
                slot: Vec2::new(
                    Fx::from_num(2 * (k as i32 % 2) - 1),
                    Fx::from_num(1 - 2 * (k as i32 / 2)),
                ),
                rank: k,
            })
            .collect();
        March {
            path: vec![p(0, 0), p(100, 0)],
            pace: Fx::ONE,
            spacing: Fx::from_num(2),
            column_spacing: Fx::ONE,
            zones,
            members,
            s: Fx::ZERO,
            column: false,
            held: Fx::ZERO,
            zone: 0,
            waited: 0,
            moved: false,
            obstacles: (0, 0),
        }
    }

    /// The laggard rule: the frame waits while a member lags, at most `wait_ticks` in a row;
    /// then it goes on until nobody lags, and may wait again after that.
    #[test]
    fn the_frame_waits_for_laggards_but_not_for_ever() {
        let mut m = a_march(Vec::new());
        let dt = Fx::ONE;
        for _ in 0..3 {
            assert!(!m.advance(true, dt, 3));
            assert_eq!(m.s, Fx::ZERO);
            assert!(!m.moved);
        }
        for k in 1..=5 {
            m.advance(true, dt, 3);
            assert_eq!(m.s, Fx::from_num(k), "goes on once the wait ran out");
        }
        m.advance(false, dt, 3);
        assert_eq!(m.waited, 0);
        m.advance(true, dt, 3);
        assert_eq!(m.s, Fx::from_num(6), "waits again after a clear tick");
        // It ends at the path's end.
        let mut done = false;
        for _ in 0..200 {
            done = m.advance(false, dt, 3);
            if done {
                break;
            }
        }
        assert!(done);
        assert_eq!(m.s, Fx::from_num(100));
    }

    /// Through a zone: wide, then the column (the rear waiting for its turn), then re-formed
    /// past the zone, then wide again from the re-forming centre.
    #[test]
    fn a_march_goes_through_a_zone_as_a_column() {
        let zone = Zone {
            a: Fx::from_num(20),
            b: Fx::from_num(30),
            files: 1,
        };
        let mut m = a_march(vec![zone]);
        let dt = Fx::ONE;
        let mut seen = Vec::new();
        for _ in 0..200 {
            let phases: Vec<Phase> = m.members.iter().map(|k| m.target(k).2).collect();
            for ph in phases {
                if !seen.contains(&ph) {
                    seen.push(ph);
                }
            }
            if m.advance(false, dt, 3) {
                break;
            }
        }
        assert_eq!(
            seen,
            vec![Phase::Wide, Phase::Column, Phase::Held, Phase::Reformed],
            "in order of first appearance"
        );
        assert!(!m.column);
        assert_eq!(m.zone, 1);
        // In the column, one file: every target on the path.
        let mut m = a_march(vec![zone]);
        while !m.column {
            m.advance(false, dt, 3);
        }
        for k in &m.members {
            let (t, _, ph) = m.target(k);
            if ph == Phase::Column {
                assert_eq!(t.y, Fx::ZERO);
            }
        }
    }

    /// The final approach: the frame keeps its pace until `pace · STOP_SECONDS` from the end,
    /// then slows down (never below an eighth of the pace) and ends on the path's end.
    #[test]
    fn the_frame_slows_down_before_the_end() {
        use super::super::march::STOP_SECONDS;
        let mut m = a_march(Vec::new());
        let dt = Fx::lit("0.25");
        let mut steps = Vec::new();
        loop {
            let before = m.s;
            let done = m.advance(false, dt, 3);
            steps.push((before, m.s - before));
            if done {
                break;
            }
        }
        assert_eq!(m.s, Fx::from_num(100));
        let far = Fx::from_num(100) - m.pace * STOP_SECONDS;
        for &(s, step) in &steps {
            if s <= far {
                assert_eq!(step, m.pace * dt, "full pace at {s}");
            } else {
                assert!(step < m.pace * dt, "slower at {s}");
            }
        }
        let approach: Vec<Fx> = steps
            .iter()
            .filter(|(s, _)| *s > far)
            .map(|&(_, d)| d)
            .collect();
        assert!(approach.len() > 8, "{approach:?}");
        assert!(approach.windows(2).all(|w| w[1] <= w[0]), "{approach:?}");
        assert!(
            approach[..approach.len() - 1]
                .iter()
                .all(|&d| d >= m.pace * dt / 8)
        );
    }

    /// A column of two files: ranks side by side in a row, each row a column spacing behind
    /// the one before.
    #[test]
    fn a_column_of_two_files_goes_in_rows() {
        let zone = Zone {
            a: Fx::from_num(20),
            b: Fx::from_num(30),
            files: 2,
        };
        let mut m = a_march(vec![zone]);
        while !m.column {
            m.advance(false, Fx::ONE, 3);
        }
        for _ in 0..5 {
            m.advance(false, Fx::ONE, 3);
        }
        let t: Vec<(Vec2, Phase)> = m
            .members
            .iter()
            .map(|k| {
                let (p, _, ph) = m.target(k);
                (p, ph)
            })
            .collect();
        assert!(t.iter().all(|&(_, ph)| ph == Phase::Column), "{t:?}");
        assert_eq!(t[0].0.x, t[1].0.x, "ranks 0 and 1 side by side");
        assert_eq!(t[0].0.y, -t[1].0.y);
        assert_eq!(t[0].0.x - t[2].0.x, m.column_spacing, "the next row behind");
    }

    /// The blocks as drawn enclose every member's target, one block per phase present.
    #[test]
    fn blocks_enclose_the_targets() {
        let zone = Zone {
            a: Fx::from_num(20),
            b: Fx::from_num(30),
            files: 1,
        };
        let mut m = a_march(vec![zone]);
        let mut phases_seen = Vec::new();
        for _ in 0..120 {
            let blocks = m.blocks();
            let mut phases: Vec<Phase> = blocks.iter().map(|b| b.phase).collect();
            phases.dedup();
            assert_eq!(phases.len(), blocks.len(), "one block per phase");
            for k in &m.members {
                let (t, _, ph) = m.target(k);
                let b = blocks.iter().find(|b| b.phase == ph).expect("its block");
                let (front, _) = m.point_at(b.front);
                let (rear, _) = m.point_at(b.rear);
                // The path is the x axis, heading +x: the right is -y.
                assert!(rear.x <= t.x && t.x <= front.x, "{t:?} in {b:?}");
                assert!(b.left <= -t.y && -t.y <= b.right, "{t:?} in {b:?}");
            }
            for b in blocks {
                if !phases_seen.contains(&b.phase) {
                    phases_seen.push(b.phase);
                }
            }
            if m.advance(false, Fx::ONE, 3) {
                break;
            }
        }
        assert_eq!(phases_seen.len(), 4, "{phases_seen:?}");
    }
}

//! The agent kd-tree query against a brute-force reference on random scenes.
//!
//! The query must return exactly the `max_neighbors` smallest keys `(distance², slot)` with
//! `distance² < range²`, in key order, never the agent itself. The scenes are built to make ties
//! the rule rather than the exception: agents on small integer and half-integer grids (many
//! exactly equal distances, many duplicated positions, whole stacks of agents on one point),
//! ranges that land exactly on lattice distances, and coordinates near the domain's corners
//! (`±10⁶`, where squared distances need more than 96 bits). Ranges cover both search paths:
//! below 65,536 units (packed `u128` keys) and above (the clearance tracker's unbounded query).

use lockstep_orca::math::{Fx, Vec2};
use lockstep_orca::oracles::{AgentTree, NeighborKey};
use proptest::prelude::*;

/// Every key below `range²`, sorted by `(distance², slot)`, truncated to `max`.
fn brute(positions: &[Vec2], slot: u32, range: Fx, max: usize) -> Vec<NeighborKey> {
    let c = positions[slot as usize];
    let r2 = i128::from(range.to_bits()) * i128::from(range.to_bits());
    let mut keys: Vec<NeighborKey> = (0..positions.len() as u32)
        .filter(|&s| s != slot)
        .map(|s| {
            let dx = i128::from(positions[s as usize].x.to_bits()) - i128::from(c.x.to_bits());
            let dy = i128::from(positions[s as usize].y.to_bits()) - i128::from(c.y.to_bits());
            (dx * dx + dy * dy, s)
        })
        .filter(|k| k.0 < r2)
        .collect();
    keys.sort_unstable();
    keys.truncate(max);
    keys
}

/// Raw `I32F32` bits of `units + frac / 2³²`.
fn raw(units: i64, frac: i64) -> i64 {
    (units << 32) + frac
}

/// A scene: one of several position generators, chosen by `kind`.
fn scene() -> impl Strategy<Value = Vec<Vec2>> {
    let small_grid = (
        0i64..=6,
        prop::collection::vec((any::<u32>(), any::<u32>()), 1..120),
    )
        .prop_map(|(k, cells)| {
            // Integer lattice in [-k, k]²: duplicates and equal distances everywhere.
            let side = (2 * k + 1) as u32;
            cells
                .into_iter()
                .map(|(a, b)| {
                    Vec2::from_bits(
                        raw(i64::from(a % side) - k, 0),
                        raw(i64::from(b % side) - k, 0),
                    )
                })
                .collect::<Vec<_>>()
        });
    let half_grid = prop::collection::vec((-40i64..=40, -40i64..=40), 1..150).prop_map(|cells| {
        // Half-integer lattice, wider: several leaves, ties across leaf boundaries.
        cells
            .into_iter()
            .map(|(a, b)| Vec2::from_bits(a << 31, b << 31))
            .collect::<Vec<_>>()
    });
    let corners = (
        prop::collection::vec((0u8..4, -3i64..=3, -3i64..=3), 1..80),
        any::<bool>(),
    )
        .prop_map(|(cells, exact)| {
            // Stacks near the domain's corners: distances up to 2.83·10⁶ units.
            let m = 1_000_000i64;
            cells
                .into_iter()
                .map(|(corner, a, b)| {
                    let (sx, sy) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][corner as usize];
                    let (ox, oy) = if exact { (0, 0) } else { (a.abs(), b.abs()) };
                    Vec2::from_bits(
                        raw(sx * (m - 3 + a.abs()), sx * ox),
                        raw(sy * (m - 3 + b.abs()), sy * oy),
                    )
                })
                .collect::<Vec<_>>()
        });
    let random_bits = prop::collection::vec((any::<i64>(), any::<i64>()), 1..100).prop_map(|v| {
        // Anywhere in the domain, at full raw resolution (no ties, deep trees).
        let lim = 1_000_000i64 << 32;
        v.into_iter()
            .map(|(x, y)| Vec2::from_bits(x % lim, y % lim))
            .collect::<Vec<_>>()
    });
    prop_oneof![small_grid, half_grid, corners, random_bits]
}

/// A range: lattice distances (exact ties with the strict `<`), odd raw values, both sides of
/// the packed-key bound (65,536 units), and the clearance tracker's unbounded range.
fn range() -> impl Strategy<Value = Fx> {
    prop_oneof![
        (0i64..=10).prop_map(|r| Fx::from_bits(raw(r, 0))),
        (0i64..=40).prop_map(|r| Fx::from_bits(r << 31)),
        (0i64..=10_000 << 32).prop_map(Fx::from_bits),
        Just(Fx::from_bits(raw(65_536, 0) - 1)),
        Just(Fx::from_bits(raw(65_536, 0))),
        Just(Fx::from_num(4_000_000)),
    ]
}

fn max_neighbors() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..=12, Just(1usize), Just(200usize), Just(1024usize)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every agent's query equals the brute-force reference, for several ranges and caps on
    /// the same tree.
    #[test]
    fn query_matches_brute_force(
        positions in scene(),
        queries in prop::collection::vec((range(), max_neighbors()), 1..4),
    ) {
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let mut out = Vec::new();
        for &(range, max) in &queries {
            for slot in 0..positions.len() as u32 {
                tree.query(&positions, slot, range, max, &mut out);
                prop_assert_eq!(
                    &out,
                    &brute(&positions, slot, range, max),
                    "slot {} range {} max {}", slot, range, max
                );
            }
        }
    }

    /// A tree rebuilt over another scene (buffers reused, smaller or larger) answers for the
    /// new scene only.
    #[test]
    fn rebuilt_tree_matches_brute_force(first in scene(), second in scene(), range in range()) {
        let mut tree = AgentTree::default();
        tree.build(&first);
        tree.build(&second);
        let mut out = Vec::new();
        for slot in 0..second.len() as u32 {
            tree.query(&second, slot, range, 10, &mut out);
            prop_assert_eq!(&out, &brute(&second, slot, range, 10));
        }
    }
}

/// Ties decided by the id alone: 60 agents on one point and a ring of 8 at distance 1, so the
/// cap cuts through a run of equal distances.
#[test]
fn stacked_agents_keep_the_lowest_ids() {
    let mut positions = vec![Vec2::from_int(5, 5); 60];
    for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (0, -1)] {
        positions.push(Vec2::from_int(5 + dx, 5 + dy));
        positions.insert(7, Vec2::from_int(5 + dx, 5 + dy));
    }
    let mut tree = AgentTree::default();
    tree.build(&positions);
    let mut out = Vec::new();
    for slot in [0u32, 7, 30, 67] {
        for max in [1usize, 5, 10, 59, 64, 100] {
            for range in [Fx::ONE, Fx::from_num(2), Fx::from_num(4_000_000)] {
                tree.query(&positions, slot, range, max, &mut out);
                assert_eq!(
                    out,
                    brute(&positions, slot, range, max),
                    "slot {slot} max {max}"
                );
            }
        }
    }
    // Slot 0's nearest are the other agents of its stack, lowest slots first.
    tree.query(&positions, 0, Fx::ONE, 3, &mut out);
    assert_eq!(out, vec![(0, 1), (0, 2), (0, 3)]);
}

/// A large scene (above the parallel build's threshold, so with the `parallel` feature the tree
/// is built on rayon's pool): scattered agents, a lattice with duplicates and a stack. Sampled
/// queries equal the brute-force reference.
#[test]
fn large_scene_matches_brute_force() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut positions: Vec<Vec2> = (0..9_000)
        .map(|_| {
            let (a, b) = (next() % (200 << 32), next() % (200 << 32));
            Vec2::from_bits(a as i64 - (100 << 32), b as i64 - (100 << 32))
        })
        .collect();
    positions
        .extend((0..3_000).map(|_| Vec2::from_int((next() % 50) as i32, (next() % 50) as i32)));
    positions.extend(std::iter::repeat_n(Vec2::from_int(-20, 30), 1_500));
    let mut tree = AgentTree::default();
    tree.build(&positions);
    let mut out = Vec::new();
    for slot in (0..positions.len() as u32).step_by(23) {
        for (range, max) in [(Fx::from_num(3), 10), (Fx::from_num(12), 10), (Fx::ONE, 40)] {
            tree.query(&positions, slot, range, max, &mut out);
            assert_eq!(out, brute(&positions, slot, range, max), "slot {slot}");
        }
    }
}

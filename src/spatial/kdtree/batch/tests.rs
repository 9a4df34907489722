//! The batched lists against the per-slot query and against brute force.

use super::*;
use crate::spatial::kdtree::prefilter::tests::dist_sq;
use proptest::prelude::*;

/// Per slot: (range, max) varied, including no neighbours, a cap above the agent count,
/// an unpacked range and a zero range.
fn params(slot: u32) -> (Fx, usize) {
    match slot % 7 {
        0 => (Fx::from_num(3), 10),
        1 => (Fx::lit("1.5"), 4),
        2 => (Fx::from_num(6), 0),
        3 => (Fx::from_num(70_000), 5),
        4 => (Fx::from_num(2), 100_000),
        5 => (Fx::ZERO, 3),
        _ => (Fx::lit("4.25"), 16),
    }
}

/// A [`Lists`] keeping every list by slot, with the per-slot hints (as the tick does).
struct Kept {
    params: fn(u32) -> (Fx, usize),
    hints: Vec<u64>,
    reach: u64,
    lists: Vec<Option<Vec<u32>>>,
    lasts: Vec<u128>,
}

impl Lists for Kept {
    fn query(&self, slot: u32) -> SlotQuery {
        let (range, max_neighbors) = (self.params)(slot);
        let h = u128::from(self.hints[slot as usize]);
        SlotQuery {
            range,
            max_neighbors,
            hint_sq: h * h,
        }
    }

    fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128) {
        let s = slot as usize;
        assert!(self.lists[s].is_none(), "slot {slot} found twice");
        assert_eq!(list.len(), list.slots().len());
        assert_eq!(list.is_empty(), list.slots().is_empty());
        self.lists[s] = Some(list.slots());
        self.lasts[s] = last_sq;
        self.hints[s] = super::super::next_hint(last_sq, self.reach);
    }
}

/// Checks every slot's batched list against the per-slot query over a few moving ticks.
fn check_scene(positions: Vec<Vec2>, ticks: usize) {
    check_scene_with(positions, ticks, params);
}

fn check_scene_with(mut positions: Vec<Vec2>, ticks: usize, params: fn(u32) -> (Fx, usize)) {
    let mut tree = AgentTree::default();
    let (mut keys, mut plain) = (Vec::new(), Vec::new());
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let reach = 1u64 << 29;
    let n = positions.len();
    let mut kept = Kept {
        params,
        hints: vec![0; n],
        reach,
        lists: Vec::new(),
        lasts: Vec::new(),
    };
    for tick in 0..ticks {
        tree.build(&positions);
        if tick == 2 {
            // Hints from elsewhere (speed only): still the same lists.
            for (i, h) in kept.hints.iter_mut().enumerate() {
                *h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 40);
            }
        }
        kept.lists.clear();
        kept.lists.resize(n, None);
        kept.lasts.clear();
        kept.lasts.resize(n, 0);
        let hints = kept.hints.clone();
        tree.query_all(&positions, &mut kept);
        for slot in 0..n as u32 {
            let (range, max) = params(slot);
            plain.clear();
            let h = u128::from(hints[slot as usize]);
            let last =
                tree.query_slots_hinted(&positions, slot, range, max, h * h, &mut keys, &mut plain);
            let s = slot as usize;
            assert_eq!(
                kept.lists[s].as_deref(),
                Some(&plain[..]),
                "tick {tick}, slot {slot}"
            );
            assert_eq!(kept.lasts[s], last, "tick {tick}, slot {slot}");
        }
        // Move every agent by less than `reach`.
        for p in &mut positions {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let dx = (x % (1 << 29)) as i64 - (1 << 28);
            let dy = ((x >> 32) % (1 << 29)) as i64 - (1 << 28);
            *p = Vec2::from_bits(p.x.to_bits() + dx, p.y.to_bits() + dy);
        }
    }
}

#[test]
fn batched_lists_are_the_per_slot_lists() {
    // Scattered, a tie-heavy lattice, and a stack on one point.
    let scattered: Vec<Vec2> = (0..700)
        .map(|i| Vec2::from_bits((i * 7919 % 1000) << 27, (i * 104_729 % 997) << 27))
        .collect();
    check_scene(scattered, 5);
    let lattice: Vec<Vec2> = (0..600).map(|i| Vec2::from_int(i % 25, i / 25)).collect();
    check_scene(lattice, 3);
    let mut stacked = vec![Vec2::from_int(3, -7); 40];
    stacked.extend((0..200).map(|i| Vec2::from_int(i % 20, i / 20)));
    check_scene(stacked, 3);
    check_scene(vec![Vec2::ZERO], 2);
    check_scene(Vec::new(), 2);
}

#[test]
fn batched_lists_when_the_candidates_overflow() {
    // 3,000 agents on a dense lattice, each with a range covering all of them: every
    // first gather exceeds the candidate buffer (the per-slot fallback), the hinted
    // ones fit.
    let positions: Vec<Vec2> = (0..3000)
        .map(|i| Vec2::from_bits((i % 60) << 28, (i / 60) << 28))
        .collect();
    assert!(cand_cap(3000, 16) < 3000);
    check_scene_with(positions, 3, |slot| {
        (Fx::from_num(100), if slot % 3 == 0 { 16 } else { 5 })
    });
}

#[test]
fn batched_lists_with_near_ties_and_cuts() {
    // A unit lattice with raw jitter of 0 to 3, slots shuffled: lattice ties become
    // distances² a few 2³² raw apart (the same proxy high part, different keys, see
    // `Pick`), and a range of 4 with lists of 3 or 5 fills the selection buffer (cuts
    // with ties at the cut).
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 900;
    let mut positions: Vec<Vec2> = (0..n)
        .map(|i: i64| {
            let (a, b) = (i % 30, i / 30);
            let (e, f) = ((next() % 4) as i64, (next() % 4) as i64);
            Vec2::from_bits((a << 32) + e, (b << 32) + f)
        })
        .collect();
    for i in (1..positions.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        positions.swap(i, j);
    }
    check_scene_with(positions.clone(), 2, |slot| {
        (Fx::from_num(4), if slot % 2 == 0 { 3 } else { 5 })
    });
    // With a stack of 60 on one point: cuts that cannot shrink the buffer (every key of
    // the stack ties), so the exact selection runs.
    positions.extend(std::iter::repeat_n(Vec2::from_int(7, 7), 60));
    check_scene_with(positions, 1, |_| (Fx::from_num(4), 3));
}

#[test]
fn batched_lists_in_a_deep_tree() {
    // Clusters of 17 on four exponential ladders (±x, ±y): splits peel clusters off one
    // by one, so the tree is deep (the gather climbs long chains), and a range of 60,000
    // (packed) reaches every cluster.
    let mut positions = Vec::new();
    for k in 0..46 {
        for (x, y) in [(1i64 << k, 0), (-(1 << k), 0), (0, 1 << k), (0, -(1 << k))] {
            positions.extend(std::iter::repeat_n(Vec2::from_bits(x, y), 17));
        }
    }
    let mut tree = AgentTree::default();
    tree.build(&positions);
    let depth = |mut node: usize| {
        let mut d = 0;
        while node != 0 {
            node = tree.nodes[node].parent as usize;
            d += 1;
        }
        d
    };
    let deepest = (0..tree.nodes.len()).map(depth).max().unwrap();
    assert!(deepest > 40, "depth {deepest}");
    check_scene_with(positions, 1, |slot| {
        (Fx::from_num(60_000), if slot % 2 == 0 { 10 } else { 40 })
    });
}

/// A [`Lists`] with a fixed query per slot, keeping every list and result.
struct Table {
    queries: Vec<SlotQuery>,
    lists: Vec<Option<Vec<u32>>>,
    lasts: Vec<u128>,
}

impl Lists for Table {
    fn query(&self, slot: u32) -> SlotQuery {
        self.queries[slot as usize]
    }

    fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128) {
        let s = slot as usize;
        assert!(self.lists[s].is_none(), "slot {slot} found twice");
        self.lists[s] = Some(list.slots());
        self.lasts[s] = last_sq;
    }
}

/// Brute force: the slots of the `max` smallest keys `(distance², slot)` below
/// `range²`, and the last one's distance² when there are `max` (else 0; always 0 for
/// ranges past the packed bound, as the per-slot query).
fn brute(positions: &[Vec2], slot: u32, q: &SlotQuery) -> (Vec<u32>, u128) {
    let c = positions[slot as usize];
    let c = (c.x.to_bits(), c.y.to_bits());
    let r2 = wide_mul(q.range, q.range).unsigned_abs();
    let mut keys: Vec<(u128, u32)> = (0..positions.len() as u32)
        .filter(|&s| s != slot)
        .map(|s| {
            let p = positions[s as usize];
            (dist_sq(c, (p.x.to_bits(), p.y.to_bits())), s)
        })
        .filter(|k| k.0 < r2)
        .collect();
    keys.sort_unstable();
    keys.truncate(q.max_neighbors);
    let last = match keys.last() {
        Some(k) if keys.len() == q.max_neighbors && r2 < PACKED_BOUND => k.0,
        _ => 0,
    };
    (keys.into_iter().map(|k| k.1).collect(), last)
}

/// Tie-heavy scenes (as `tests/determinism/kdtree_reference.rs`): integer and
/// half-integer lattices with duplicates, stacks near the domain's corners, and points
/// at full raw resolution.
fn scene() -> impl Strategy<Value = Vec<Vec2>> {
    let grid = (
        0i64..=6,
        prop::collection::vec((any::<u32>(), any::<u32>()), 1..160),
    )
        .prop_map(|(k, cells)| {
            let side = (2 * k + 1) as u32;
            cells
                .into_iter()
                .map(|(a, b)| {
                    Vec2::from_int(
                        i64::from(a % side) as i32 - k as i32,
                        i64::from(b % side) as i32 - k as i32,
                    )
                })
                .collect::<Vec<_>>()
        });
    let half = prop::collection::vec((-40i64..=40, -40i64..=40), 1..200).prop_map(|cells| {
        cells
            .into_iter()
            .map(|(a, b)| Vec2::from_bits(a << 31, b << 31))
            .collect()
    });
    let corners = prop::collection::vec((0u8..4, -3i64..=3, -3i64..=3), 1..80).prop_map(|cells| {
        let m = 1_000_000i64;
        cells
            .into_iter()
            .map(|(corner, a, b)| {
                let (sx, sy) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][corner as usize];
                Vec2::from_bits(
                    (sx * (m - 3 + a.abs())) << 32,
                    (sy * (m - 3 + b.abs())) << 32,
                )
            })
            .collect()
    });
    let scattered = prop::collection::vec((any::<i64>(), any::<i64>()), 1..120).prop_map(|v| {
        let lim = 1_000i64 << 32;
        v.into_iter()
            .map(|(x, y)| Vec2::from_bits(x % lim, y % lim))
            .collect()
    });
    // A lattice with raw jitter of 0 to 3: distances² a few 2³² raw apart, the same proxy
    // high part (see `Pick`) with different keys.
    let jittered = prop::collection::vec((-6i64..=6, -6i64..=6, 0i64..4, 0i64..4), 1..150)
        .prop_map(|cells| {
            cells
                .into_iter()
                .map(|(a, b, e, f)| Vec2::from_bits((a << 32) + e, (b << 32) + f))
                .collect()
        });
    prop_oneof![grid, half, corners, scattered, jittered]
}

/// A query: lattice ranges (exact ties with the strict `<`), odd raw ranges, ranges
/// past the packed bound; caps from 0 to past the agent count; no hint, a hint from the
/// lattice, or any hint.
fn query() -> impl Strategy<Value = SlotQuery> {
    let range = prop_oneof![
        (0i64..=10).prop_map(|r| Fx::from_bits(r << 32)),
        (0i64..=40).prop_map(|r| Fx::from_bits(r << 31)),
        (0i64..=(2_000 << 32)).prop_map(Fx::from_bits),
        Just(Fx::from_bits((65_536 << 32) - 1)),
        Just(Fx::from_num(70_000)),
    ];
    let max = prop_oneof![0usize..=12, Just(1usize), Just(40usize), Just(1024usize)];
    let hint = prop_oneof![
        Just(0u128),
        (0u128..=200).prop_map(|k| k << 62),
        any::<u64>().prop_map(|h| u128::from(h) * u128::from(h)),
    ];
    (range, max, hint).prop_map(|(range, max_neighbors, hint_sq)| SlotQuery {
        range,
        max_neighbors,
        hint_sq,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    /// Every batched list and result equals brute force, on tie-heavy scenes, with
    /// per-slot queries mixed (one query for all, or one per slot): the prefilter, the
    /// buffer cut and the square gather box never change a list.
    #[test]
    fn batched_lists_match_brute_force(
        positions in scene(),
        shared in query(),
        mixed in prop::collection::vec(query(), 1..8),
        per_slot in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let n = positions.len();
        let queries: Vec<SlotQuery> = (0..n)
            .map(|s| if per_slot { mixed[s % mixed.len()] } else { shared })
            .collect();
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let mut table = Table { queries, lists: vec![None; n], lasts: vec![0; n] };
        tree.query_all(&positions, &mut table);
        // The same lists by ranges of slots (as the parallel step's groups), one scratch
        // reused across them.
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(n + 1)).collect();
        bounds.extend([0, n]);
        bounds.sort_unstable();
        let mut ranged = Table {
            queries: table.queries.clone(),
            lists: vec![None; n],
            lasts: vec![0; n],
        };
        let mut scratch = QueryScratch::default();
        for w in bounds.windows(2) {
            tree.query_range(&positions, w[0]..w[1], &mut scratch, &mut ranged);
        }
        for slot in 0..n as u32 {
            let s = slot as usize;
            let (list, last) = brute(&positions, slot, &table.queries[s]);
            prop_assert_eq!(table.lists[s].as_deref(), Some(&list[..]), "slot {}", slot);
            prop_assert_eq!(table.lasts[s], last, "slot {}", slot);
            prop_assert_eq!(ranged.lists[s].as_deref(), Some(&list[..]), "ranged, slot {}", slot);
            prop_assert_eq!(ranged.lasts[s], last, "ranged, slot {}", slot);
        }
    }
}

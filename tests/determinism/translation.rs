//! Translation invariance: a scene (agents and obstacles) shifted by any offset that keeps it inside the coordinate
//! domain yields exactly the shifted positions, identical velocities and identical neighbour
//! lists on every tick (float RVO2 does not: its Circle takes 3547 ticks at the origin and 3124
//! shifted by (1000, -1000)).
//!
//! Holds because every geometric quantity of the tick is a difference of positions, exact in
//! fixed point; the kd-tree split `(min + max) / 2` shifts exactly too (2·offset is even).

use crate::det_support;

use det_support::{random_scene, random_scene_with_obstacles, script};
use lockstep_orca::{Fx, Simulator, Vec2};
use proptest::prelude::*;

/// Half-side of the random scenes.
const EXTENT: f64 = 20.0;
/// Ticks per case. Agents move at most 3 units/s · 0.25 s per tick, so the scene stays within
/// `EXTENT + 0.75 · TICKS` (+ teleports within EXTENT) of its centre.
const TICKS: u64 = 60;
/// Largest offset component that keeps every case inside ±1,000,000.
const MAX_OFFSET: i64 = 1_000_000 - 100;

fn offset_component() -> impl Strategy<Value = Fx> {
    let max = Fx::from_num(MAX_OFFSET).to_bits();
    prop_oneof![
        // Anywhere, with arbitrary fraction bits.
        (-max..=max).prop_map(Fx::from_bits),
        // Near either edge of the domain.
        (0i64..(1i64 << 40)).prop_map(move |d| Fx::from_bits(max - d)),
        (0i64..(1i64 << 40)).prop_map(move |d| Fx::from_bits(-max + d)),
        // Small offsets (sub-ulp-scale shifts of the kd-tree's splits).
        (-1000i64..1000).prop_map(Fx::from_bits),
    ]
}

fn check(seed: u64, n: usize, obstacles: usize, offset: Vec2) -> Result<(), TestCaseError> {
    let mut base = random_scene_with_obstacles(seed, n, obstacles, EXTENT, Vec2::ZERO);
    let mut moved = random_scene_with_obstacles(seed, n, obstacles, EXTENT, offset);
    let mut inputs_base = script(seed ^ 0x55, 2, EXTENT, Vec2::ZERO);
    let mut inputs_moved = script(seed ^ 0x55, 2, EXTENT, offset);
    for _ in 0..TICKS {
        let tick = base.tick();
        for c in inputs_base(&base) {
            base.queue_command(tick, c).unwrap();
        }
        for c in inputs_moved(&moved) {
            moved.queue_command(tick, c).unwrap();
        }
        base.step().unwrap();
        moved.step().unwrap();
        prop_assert_eq!(base.agent_ids(), moved.agent_ids());
        for &id in base.agent_ids() {
            let (p, q) = (
                base.agent_position(id).unwrap(),
                moved.agent_position(id).unwrap(),
            );
            prop_assert_eq!(p + offset, q, "tick {} agent {}", tick + 1, id.0);
            prop_assert_eq!(
                base.agent_velocity(id).unwrap(),
                moved.agent_velocity(id).unwrap(),
                "tick {} agent {}",
                tick + 1,
                id.0
            );
            prop_assert_eq!(
                base.agent_neighbors(id).unwrap(),
                moved.agent_neighbors(id).unwrap()
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn shifted_scene_moves_identically(
        seed in any::<u64>(),
        n in 1usize..48,
        obstacles in 0usize..6,
        x in offset_component(),
        y in offset_component(),
    ) {
        check(seed, n, obstacles, Vec2::new(x, y))?;
    }
}

/// The corners of the domain, explicitly, with a dense crowd (many neighbours, overlaps).
#[test]
fn dense_crowd_at_every_corner() {
    let m = Fx::from_num(MAX_OFFSET);
    for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
        let offset = Vec2::new(m * Fx::from_num(sx), m * Fx::from_num(sy));
        check(1234, 120, 8, offset).unwrap();
    }
}

/// The scene really moves (guards against a vacuous comparison).
#[test]
fn the_scenes_are_not_static() {
    let mut sim: Simulator = random_scene(1234, 120, EXTENT, Vec2::ZERO);
    let before = sim.agent_position(sim.agent_ids()[0]).unwrap();
    for _ in 0..10 {
        sim.step().unwrap();
    }
    assert_ne!(sim.agent_position(sim.agent_ids()[0]).unwrap(), before);
}

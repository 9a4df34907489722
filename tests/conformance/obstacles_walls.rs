//! A two-vertex wall always constrains an agent on its side: for agents resting against it at
//! `r + δ` (δ a few ulps to a few thousand — where ORCA's cut-off line holds sliding agents),
//! every branch of the obstacle-line construction emits a line. The only branch that could
//! emit none is the "foreign leg", which leaves the constraint to the neighbouring edge; at a
//! wall's end that edge is the wall's other side, which never sees the agent.

use lockstep_orca::obstacle::ObstacleAgent;
use lockstep_orca::oracles::{ObstacleBranch, VertexView, obstacle_line};
use lockstep_orca::{AgentId, Fx, Vec2};
use proptest::prelude::*;

/// The wall (0, y1) → (0, y2), y1 > y2, as the ring of a two-vertex polyline seen from its left
/// side (x < 0), turned by `quarter` quarter turns (exact).
fn wall(y1: Fx, y2: Fx, quarter: u8) -> (VertexView, VertexView, impl Fn(Vec2) -> Vec2) {
    let turn = move |p: Vec2| match quarter % 4 {
        0 => p,
        1 => Vec2::new(-p.y, p.x),
        2 => Vec2::new(-p.x, -p.y),
        _ => Vec2::new(p.y, -p.x),
    };
    let down = turn(Vec2::from_int(0, -1));
    let a = VertexView {
        point: turn(Vec2::new(Fx::ZERO, y1)),
        unit_dir: down,
        convex: true,
        prev_unit_dir: -down,
    };
    let b = VertexView {
        point: turn(Vec2::new(Fx::ZERO, y2)),
        unit_dir: -down,
        convex: true,
        prev_unit_dir: down,
    };
    (a, b, turn)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn agent_resting_on_a_wall_always_gets_a_line(
        y1 in 1i64..(20i64 << 32),
        len in (1i64 << 28)..(20i64 << 32),
        y_frac in -0.2f64..1.2,
        radius in (1i64 << 28)..(2i64 << 32),
        delta in 1i64..4000,
        vx in -(1i64 << 30)..(1i64 << 30),
        vy in -(2i64 << 32)..(2i64 << 32),
        tau in prop::sample::select(vec![1i64, 2, 5]),
        quarter in 0u8..4,
    ) {
        let (y1, y2) = (Fx::from_bits(y1), Fx::from_bits(y1 - len));
        let (a, b, turn) = wall(y1, y2, quarter);
        let r = Fx::from_bits(radius);
        let y = y2 + Fx::from_num(y_frac) * Fx::from_bits(len);
        let agent = ObstacleAgent {
            id: AgentId(0),
            position: turn(Vec2::new(-(r + Fx::from_bits(delta)), y)),
            velocity: turn(Vec2::from_bits(vx, vy)),
            radius: r,
            max_speed: Fx::from_num(2),
            time_horizon_obst: Fx::from_num(tau),
        };
        let (line, branch) = obstacle_line(&agent, &a, &b, &[]);
        prop_assert_ne!(branch, ObstacleBranch::ForeignLeg);
        prop_assert!(line.is_some(), "{branch:?}");
    }
}

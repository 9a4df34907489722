//! Avoidance priorities ([`AgentParams::priority`]): the lower one gives way, but the higher
//! one never walks deep through a lower one that cannot ([`Share::of_pair`]).

// f64 only measures the results.
#![allow(clippy::float_arithmetic)]

use lockstep_orca::orca::lines::{DEEP_OVERLAP, Share};
use lockstep_orca::{AgentParams, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2};

#[test]
fn shares_are_half_once_discs_overlap_deeper_than_three_eighths() {
    let radii = Fx::ONE;
    assert_eq!(DEEP_OVERLAP, Fx::lit("0.375"));
    // Centres 0.625 apart: an overlap of exactly 3/8, not deeper.
    let at = Vec2::new(Fx::lit("0.625"), Fx::ZERO);
    let inside = Vec2::new(Fx::lit("0.625") - Fx::DELTA, Fx::ZERO);
    assert_eq!(Share::of_pair(0, 200, at, radii), Share::All);
    assert_eq!(Share::of_pair(200, 0, at, radii), Share::None);
    assert_eq!(Share::of_pair(0, 200, inside, radii), Share::Half);
    assert_eq!(Share::of_pair(200, 0, inside, radii), Share::Half);
    assert_eq!(Share::of_pair(200, 0, -inside, radii), Share::Half);
    // Apart, or of equal priority: as `Share::of`.
    let apart = Vec2::new(Fx::lit("1.5"), Fx::ZERO);
    assert_eq!(Share::of_pair(0, 200, apart, radii), Share::All);
    assert_eq!(Share::of_pair(200, 0, apart, radii), Share::None);
    assert_eq!(Share::of_pair(5, 5, Vec2::ZERO, radii), Share::Half);
    assert_eq!(Share::of_pair(5, 5, apart, radii), Share::Half);
}

/// A unit of priority 0 at rest at the end of a dead-end slot 1.2 wide, and one of priority
/// 200 walking into the slot towards its end: the one at rest cannot get out of the way.
/// Returns the deepest overlap of the two discs (radius 0.5) and the distance between their
/// centres at the end.
fn dead_end(dt: &str) -> (f64, f64) {
    let v = |x: f64, y: f64| Vec2::from_f64(x, y).unwrap();
    let rect =
        |x0, y0, x1, y1| ObstacleShape::Polygon(vec![v(x0, y0), v(x1, y0), v(x1, y1), v(x0, y1)]);
    let unit = |priority| AgentParams {
        radius: Fx::lit("0.5"),
        max_speed: Fx::lit("1.5"),
        time_horizon: Fx::from_num(2),
        time_horizon_obst: Fx::from_num(2),
        priority,
        ..AgentParams::default()
    };
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit(dt),
        agent_defaults: unit(128),
    })
    .unwrap();
    sim.add_obstacle(rect(-3.0, -1.0, -0.6, 8.0)).unwrap();
    sim.add_obstacle(rect(0.6, -1.0, 3.0, 8.0)).unwrap();
    sim.add_obstacle(rect(-0.6, -1.0, 0.6, 0.0)).unwrap();
    let low = sim.add_agent_with(v(0.0, 0.55), unit(0)).unwrap();
    let high = sim.add_agent_with(v(0.0, 5.0), unit(200)).unwrap();
    sim.set_agent_pref_velocity(high, v(0.0, -1.5)).unwrap();
    let mut deepest = 0.0f64;
    let mut apart = 0.0;
    for _ in 0..(10.0 / dt.parse::<f64>().unwrap()) as u32 {
        sim.step().unwrap();
        let (a, b) = (
            sim.agent_position(low).unwrap().to_f64(),
            sim.agent_position(high).unwrap().to_f64(),
        );
        apart = (a.0 - b.0).hypot(a.1 - b.1);
        deepest = deepest.max(1.0 - apart);
    }
    (deepest, apart)
}

/// Before the deep-overlap rule the unit of priority 200 walked on through the other until
/// the one at rest was pressed against the slot's end: centres 0.20 apart at time step 0.1 (an
/// overlap of 0.8 of a diameter); now 0.40 at most.
#[test]
fn a_higher_priority_never_walks_deep_through_one_that_cannot_give_way() {
    for dt in ["0.1", "0.25"] {
        let (deepest, apart) = dead_end(dt);
        println!("dt {dt}: deepest overlap {deepest:.3}, centres {apart:.3} apart at the end");
        assert!(deepest <= 0.45, "walked {deepest} into it");
    }
}

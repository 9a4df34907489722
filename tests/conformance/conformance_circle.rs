//! Trajectory conformance with C++ RVO2 on Circle 250
//! (`fixtures/rvo2/rvo2_circle250_steps0-300.csv.gz`, format in `fixtures/rvo2/REFERENCE.md`).
//!
//! The scene starts from RVO2's exact initial positions (step 0 of the file, converted with
//! `Vec2::from_f64`), goals at `-start`, defaults (15, 10, 10, 10, 1.5, 2), time step 0.25. Each
//! tick the preferred velocity is `goal - position`, normalised (fixed point) when its squared
//! length exceeds 1, as in RVO2's Circle example. After every tick we compare all positions with
//! RVO2's float trajectory.
//!
//! Requirement: the largest position difference stays `<= 0.01` over ticks 1..=100. A float build
//! of RVO2 with different compiler flags drifts by 1e-3 only after ~280 ticks, so a larger gap
//! early on would mean a semantic difference. Beyond tick 100 the figures are only reported
//! (printed at ticks 10, 50, 100, 200, 300; the test asserts they are finite).

#![allow(clippy::float_arithmetic)]

use flate2::read::GzDecoder;
use lockstep_orca::{AgentId, AgentParams, Fx, Simulator, SimulatorParams, Vec2};
use std::io::Read;

const FIXTURE: &str = "fixtures/rvo2/rvo2_circle250_steps0-300.csv.gz";
const AGENTS: usize = 250;
const TICKS: usize = 300;

/// Positions by step (0..=300) and agent id.
fn load() -> Vec<Vec<(f64, f64)>> {
    let mut text = String::new();
    GzDecoder::new(std::fs::File::open(FIXTURE).expect("fixture"))
        .read_to_string(&mut text)
        .expect("gzip");
    let mut steps = vec![vec![(f64::NAN, f64::NAN); AGENTS]; TICKS + 1];
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let step: usize = f[0].parse().unwrap();
        let id: usize = f[1].parse().unwrap();
        steps[step][id] = (f[2].parse().unwrap(), f[3].parse().unwrap());
    }
    assert!(
        steps
            .iter()
            .flatten()
            .all(|p| p.0.is_finite() && p.1.is_finite())
    );
    steps
}

#[test]
fn circle250_tracks_rvo2_for_100_ticks() {
    let reference = load();
    let mut sim = Simulator::new(SimulatorParams {
        time_step: Fx::lit("0.25"),
        agent_defaults: AgentParams {
            neighbor_dist: Fx::from_num(15),
            max_neighbors: 10,
            time_horizon: Fx::from_num(10),
            time_horizon_obst: Fx::from_num(10),
            radius: Fx::lit("1.5"),
            max_speed: Fx::from_num(2),
            priority: lockstep_orca::DEFAULT_PRIORITY,
        },
    })
    .unwrap();
    sim.set_liveness(lockstep_orca::Liveness::Rvo2); // RVO2's behaviour, compared with RVO2
    let mut goals = Vec::new();
    for &(x, y) in &reference[0] {
        let p = Vec2::from_f64(x, y).unwrap();
        sim.add_agent(p).unwrap();
        goals.push(-p);
    }

    let mut max_diff = vec![0.0f64; TICKS + 1];
    for tick in 1..=TICKS {
        for (i, &goal) in goals.iter().enumerate() {
            let id = AgentId(i as u32);
            let mut pref = goal - sim.agent_position(id).unwrap();
            if pref.length_squared_wide() > lockstep_orca::math::wide_mul(Fx::ONE, Fx::ONE) {
                pref = pref.normalize_or_zero();
            }
            sim.set_agent_pref_velocity(id, pref).unwrap();
        }
        sim.step().unwrap();
        for (i, &(rx, ry)) in reference[tick].iter().enumerate() {
            let (x, y) = sim.agent_position(AgentId(i as u32)).unwrap().to_f64();
            max_diff[tick] = max_diff[tick].max((x - rx).hypot(y - ry));
        }
    }

    let worst_100 = max_diff[1..=100].iter().copied().fold(0.0, f64::max);
    println!("circle 250 vs RVO2, max position difference over all agents:");
    for t in [1, 10, 50, 100, 150, 200, 250, 280, 300] {
        println!("  tick {t:>3}: {:.3e}", max_diff[t]);
    }
    println!("  max over ticks 1..=100: {worst_100:.3e}");
    let first_over = |eps: f64| max_diff.iter().position(|&d| d > eps);
    println!(
        "  first tick > 1e-4: {:?}, > 1e-3: {:?}, > 1e-2: {:?}",
        first_over(1e-4),
        first_over(1e-3),
        first_over(1e-2)
    );
    assert!(
        worst_100 <= 0.01,
        "max difference over ticks 1..=100 is {worst_100}"
    );
    assert!(max_diff.iter().all(|d| d.is_finite()));
}

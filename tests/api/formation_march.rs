//! Moving as a group (`Command::FormationMarch`, [`lockstep_orca::orders::formation::march`]):
//! the acceptance scenes (a box of 200 through a 4-unit gap, two groups crossing), the march
//! as state (hash, snapshot, a mid-march restore continuing bit-identically) and bad input.

use lockstep_orca::orders::formation::{FormationKind, FormationStatus};
use lockstep_orca::{AgentParams, Command, Fx, Simulator, SimulatorParams, Vec2};

#[cfg(feature = "scenario")]
#[path = "../../examples/common/monitor.rs"]
#[allow(dead_code)]
mod monitor;

fn v(x: i32, y: i32) -> Vec2 {
    Vec2::from_int(x, y)
}

/// The figures of one acceptance scene.
#[derive(Debug)]
#[allow(dead_code)]
struct Figures {
    /// Seconds from the order to all at rest (no position changing by a bit, every group arrived).
    at_rest: f64,
    /// Largest distance from a unit to its slot at rest.
    slot_error: f64,
    /// Distance travelled by all units.
    travelled: f64,
    /// The sum of the straight lines from start to slot (the assignment's lower bound).
    bound: f64,
    /// Smallest distance between two discs' edges during the run (negative: overlap).
    worst_overlap: f64,
    /// Smallest wall clearance during the run.
    wall: f64,
    /// Distinct slots.
    distinct: usize,
    /// Units.
    units: usize,
    /// The final state hash.
    hash: u64,
}

/// Runs a scene of `fixtures/scenarios` until every group arrived and nothing moved for 100
/// ticks (or `limit` ticks), measuring as it goes.
#[cfg(feature = "scenario")]
fn measure(name: &str, groups: &[u32], limit: u64) -> Figures {
    use lockstep_orca::scenario::Scenario;
    let path = format!(
        "{}/fixtures/scenarios/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let scenario = Scenario::load(std::path::Path::new(&path)).unwrap();
    assert_eq!(scenario.perturbation, None, "zero random input");
    let (mut sim, driver) = scenario.build().unwrap();
    let ids = sim.agent_ids().to_vec();
    let starts: Vec<Vec2> = ids
        .iter()
        .map(|&id| sim.agent_position(id).unwrap())
        .collect();
    let mut monitor = monitor::Monitor::new(&sim);
    let mut travelled = 0.0;
    let mut last = starts.clone();
    let dt = sim.time_step().to_num::<f64>();
    let (mut rest_run, mut at_rest) = (0, 0);
    while sim.tick() < limit {
        let tick = sim.tick();
        driver.apply_events(&mut sim, tick).unwrap();
        sim.step().unwrap();
        monitor.observe(&sim);
        let mut moving = false;
        for (k, &id) in ids.iter().enumerate() {
            let p = sim.agent_position(id).unwrap();
            let (x, y) = (p - last[k]).to_f64();
            travelled += x.hypot(y);
            moving |= p != last[k];
            last[k] = p;
        }
        let arrived = groups
            .iter()
            .all(|&g| sim.formation_status(g).unwrap().status == FormationStatus::Arrived);
        rest_run = if arrived && !moving { rest_run + 1 } else { 0 };
        if rest_run == 1 {
            at_rest = sim.tick();
        }
        if rest_run >= 100 {
            break;
        }
    }
    assert!(
        rest_run >= 100,
        "{name}: not at rest by tick {}",
        sim.tick()
    );
    let (mut slot_error, mut bound, mut slots) = (0f64, 0f64, Vec::new());
    for &g in groups {
        for &(id, slot) in &sim.formation(g).unwrap().slots {
            let k = ids.iter().position(|&i| i == id).unwrap();
            let (x, y) = (sim.agent_position(id).unwrap() - slot).to_f64();
            slot_error = slot_error.max(x.hypot(y));
            let (sx, sy) = (slot - starts[k]).to_f64();
            bound += sx.hypot(sy);
            slots.push((slot.x.to_bits(), slot.y.to_bits()));
        }
    }
    slots.sort_unstable();
    slots.dedup();
    let r = monitor.report;
    Figures {
        at_rest: at_rest as f64 * dt,
        slot_error,
        travelled,
        bound,
        worst_overlap: r.min_agent_clearance,
        wall: r.min_obstacle_clearance,
        distinct: slots.len(),
        units: ids.len(),
        hash: sim.state_hash(),
    }
}

#[cfg(feature = "scenario")]
fn assert_scene(name: &str, f: &Figures) {
    eprintln!(
        "{name}: all at rest {:.2} s after the order, largest slot error {:.4}, travelled {:.1} \
         against the assignment's lower bound {:.1} ({:.3}x), worst overlap {:.4}, wall \
         clearance {:.4}",
        f.at_rest,
        f.slot_error,
        f.travelled,
        f.bound,
        f.travelled / f.bound,
        f.worst_overlap,
        f.wall
    );
    assert_eq!(f.distinct, f.units, "{name}: distinct slots");
    assert!(f.slot_error <= 0.5, "{name}: {f:?}");
    assert!(f.wall >= -0.001, "{name}: {f:?}");
}

/// 200 units in a box cross a 4-unit gap between two buildings as a column and re-form on the
/// far side: every unit at rest in its own slot, walls held.
#[cfg(feature = "scenario")]
#[test]
fn a_box_of_200_crosses_a_gap_and_reforms() {
    let f = measure("formation_gap200", &[1], 4000);
    assert_scene("formation_gap200", &f);
}

/// Two groups crossing each other at right angles both arrive in formation.
#[cfg(feature = "scenario")]
#[test]
fn two_groups_crossing_at_right_angles_both_arrive() {
    let f = measure("formation_cross", &[1, 2], 3000);
    assert_scene("formation_cross", &f);
}

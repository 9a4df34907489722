//! Arrival figures of every golden scene (printed; run with `--ignored --nocapture`): the
//! first tick at which every agent is within its goal tolerance, and at `max_ticks` how many
//! are within it and how many of those are settled (speed below 0.01).

use lockstep_orca::Fx;
use lockstep_orca::golden::golden_scenes;
use lockstep_orca::scenario::{RunOptions, Scenario};
use std::path::Path;

#[test]
#[ignore = "measurement: prints the arrival figures of the golden scenes"]
fn arrival_figures_of_the_golden_scenes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, path) in golden_scenes(root).unwrap() {
        let scenario = Scenario::load(&path).unwrap();
        let (mut sim, driver) = scenario.build().unwrap();
        let options = RunOptions {
            stop_when_reached: false,
            track_clearance: false,
            ..RunOptions::default()
        };
        let mut first_all = None;
        let report = driver
            .run_with(&mut sim, &options, |sim| {
                if first_all.is_none() && driver.all_reached(sim) {
                    first_all = Some(sim.tick());
                }
            })
            .unwrap();
        let reached = driver.num_reached(&sim);
        let slow = sim
            .agent_ids()
            .iter()
            .filter(|&&id| sim.agent_velocity(id).unwrap().length_squared() < Fx::lit("0.0001"))
            .count();
        println!(
            "FIG {name}: agents {} max_ticks {} all_reached_at {:?} reached_at_end {reached} speed<0.01_at_end {slow}",
            sim.agent_ids().len(),
            report.ticks,
            first_all
        );
    }
}

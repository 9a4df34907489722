//! Rollback, as a lockstep / rollback-netcode client does it: keep a snapshot per tick and an
//! input log; when an input for a past tick arrives late, restore that tick's snapshot, insert
//! the input and re-simulate up to the present. The re-simulated ticks are bit-identical to a
//! run that had the input on time (printed side by side).
//!
//! `cargo run --example rollback`
//!
//! The late input here is a remote player's: agent 5's speed limit, queued for tick 12,
//! reaching this client at tick 20.

use lockstep_orca::math::unit_from_turns;
use lockstep_orca::{AgentId, AgentParams, Command, Fx, Simulator, SimulatorParams, Vec2};
use std::collections::BTreeMap;

/// Each tick's local inputs: every agent steers toward the point opposite its start on a
/// ring (agent `i` started at `RING[i]`).
fn local_inputs(sim: &Simulator) -> Vec<Command> {
    sim.agent_ids()
        .iter()
        .map(|&id| {
            let to_goal = -start(id.0) - sim.agent_position(id).unwrap();
            let v = to_goal.normalize_or_zero();
            Command::SetPrefVelocity { id, v }
        })
        .collect()
}

/// Start of agent `i`: 12 points on a ring of radius 20.
fn start(i: u32) -> Vec2 {
    unit_from_turns(Fx::from_num(i) / Fx::from_num(12)) * Fx::from_num(20)
}

fn new_scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..12 {
        sim.add_agent(start(i)).unwrap();
    }
    sim
}

/// One tick: queue the logged inputs of this tick, step, return the new hash.
fn advance(sim: &mut Simulator, log: &mut BTreeMap<u64, Vec<Command>>) -> u64 {
    let tick = sim.tick();
    let inputs = log.entry(tick).or_insert_with(|| local_inputs(sim));
    for c in inputs.iter() {
        sim.queue_command(tick, c.clone()).unwrap();
    }
    sim.step().unwrap();
    sim.state_hash()
}

/// No arguments: `--help` prints the usage, anything else is refused with status 2.
fn refuse_arguments() {
    if let Some(arg) = std::env::args().nth(1) {
        let usage = "usage: cargo run --release --example rollback (no arguments)";
        if arg == "-h" || arg == "--help" {
            println!("{usage}");
            std::process::exit(0);
        }
        eprintln!("error: unexpected argument `{arg}`\n{usage}");
        std::process::exit(2);
    }
}

fn main() {
    refuse_arguments();
    const LATE_TICK: u64 = 12;
    const NOW: u64 = 20;
    // A remote player's input for tick 12: agent 5 slows down. It reaches us at tick 20.
    let late = Command::SetParams {
        id: AgentId(5),
        params: AgentParams {
            max_speed: Fx::ONE,
            ..AgentParams::default()
        },
    };

    // The authority: had the input on time.
    let mut authority = new_scene();
    let mut log_a = BTreeMap::new();
    let mut expected = Vec::new();
    for _ in 0..NOW {
        if authority.tick() == LATE_TICK {
            let mut inputs = local_inputs(&authority);
            inputs.push(late.clone());
            log_a.insert(LATE_TICK, inputs);
        }
        expected.push(advance(&mut authority, &mut log_a));
    }

    // The client: predicts without it, keeping a snapshot of every tick.
    let mut client = new_scene();
    let mut log = BTreeMap::new();
    let mut snapshots = Vec::new();
    let mut predicted = Vec::new();
    for _ in 0..NOW {
        snapshots.push(client.snapshot());
        predicted.push(advance(&mut client, &mut log));
    }

    // The late input arrives: roll back to tick 32, add it, re-simulate to now.
    let mut inputs = log.remove(&LATE_TICK).unwrap();
    inputs.push(late);
    log.insert(LATE_TICK, inputs);
    client = Simulator::restore(&snapshots[LATE_TICK as usize]).unwrap();
    let mut resimulated = Vec::new();
    while client.tick() < NOW {
        resimulated.push(advance(&mut client, &mut log));
    }

    println!("tick  predicted         re-simulated      on-time (authority)");
    let mut all_match = true;
    for (i, r) in resimulated.iter().enumerate() {
        let t = LATE_TICK as usize + i;
        let same = *r == expected[t];
        all_match &= same;
        println!(
            "{:4}  {:016x}  {:016x}  {:016x} {}",
            t + 1,
            predicted[t],
            r,
            expected[t],
            if same { "match" } else { "MISMATCH" }
        );
    }
    assert!(all_match, "re-simulation diverged");
    assert_ne!(
        predicted.last(),
        resimulated.last(),
        "the late input must matter"
    );
    assert_eq!(client.state_hash(), authority.state_hash());
    println!(
        "rolled back {} ticks; state after re-simulation equals the authority's",
        NOW - LATE_TICK
    );
}

//! `bench`: the reference scenes of `fixtures/rvo2/REFERENCE.md`, timed like RVO2's driver of
//! `rvo2-bench`, printed as one line of `key=value` pairs.

use crate::Fail;
use clap::{Args, ValueEnum};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::{StageTimes, StepStats};
use serde_json::json;
use std::time::{Duration, Instant};

/// The Blocks scene, built into the binary so `bench blocks` runs from anywhere.
const BLOCKS_TOML: &str = include_str!("../../../fixtures/scenarios/blocks.toml");

/// A reference scene.
#[derive(Clone, Copy, ValueEnum)]
pub enum Scene {
    /// N agents on a jittered square grid (spacing 3, seed 12345), goals mirrored; 100 ticks.
    Crowd,
    /// N agents on a ring of radius 3N/(2 pi), goals at the antipodes; 100 ticks.
    Circle,
    /// RVO2's Circle example (250 agents, ring radius 200), until every goal is reached.
    Circle250,
    /// RVO2's Blocks (fixtures/scenarios/blocks.toml, 100 agents, seed 1), until every goal is
    /// reached (at most 40,000 ticks).
    Blocks,
    /// crowd N (default 10,000) among N obstacle segments: one 1-unit post at the centre of
    /// each grid cell, alternately horizontal and vertical; 100 ticks.
    Obstacles,
    /// Navigation costs (issue 25): N units (default 1,000) on 200 buildings planning to one
    /// common goal and to distinct goals, and one building added to a 1,000-building map, each
    /// against the step of the same run (see `bench_nav.rs`).
    Navigation,
}

/// Time the simulator on a reference scene; print one line of key=value pairs.
///
/// The line holds `total_ms` (mean milliseconds per tick of setting preferred velocities plus
/// stepping, monotonic clock around those calls only: scene setup and goal tests are outside),
/// `pref_ms`, `step_ms`, `agent_steps_per_s`, the final state `hash` and the `StepStats`
/// counters of the last tick. `rvo2-bench pair SCENE [N] -- lockstep-orca bench SCENE [N]`
/// reads its `total_ms=`.
#[derive(Args)]
pub struct BenchArgs {
    /// The scene.
    #[arg(value_enum)]
    pub scene: Scene,
    /// Agents (crowd and circle only).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub n: Option<u32>,
    /// Ticks to time (default: 100 for crowd and circle; circle250 and blocks run until every
    /// goal is reached, at most this many).
    #[arg(long, value_name = "T")]
    pub ticks: Option<u64>,
    /// Worker threads of the step (rayon pool; more than 1 needs a build with the `parallel`
    /// feature). Default 1.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// The deadlock-resolution mode: `resolve` (the simulator's default, what a game gets) or
    /// `rvo2` (RVO2's behaviour exactly, without the steering stage's work). Default: the
    /// scene's own (`resolve` for every bench scene).
    #[arg(long, value_enum)]
    pub liveness: Option<LivenessArg>,
    /// Print one JSON document on stdout instead of the key=value line (fields in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// `--liveness`.
#[derive(Clone, Copy, ValueEnum)]
pub enum LivenessArg {
    /// Deterministic deadlock resolution (the simulator's default).
    Resolve,
    /// RVO2's behaviour exactly.
    Rvo2,
}

/// The obstacles scene: `crowd n` and one post per grid cell (see [`Scene::Obstacles`]).
fn crowd_among_posts(n: u32) -> Scenario {
    use lockstep_orca::{Fx, ObstacleShape, Vec2};
    let mut s = Scenario::crowd(n);
    s.name = Some(format!("crowd {n} among {n} segments"));
    // The crowd's grid: spacing 3, ceil(sqrt n) columns, centred on the origin; the posts sit
    // at the cell centres between four agents (1.5 + 1.5 units off each axis), 0.5 units each
    // way, so no agent starts on one.
    let cols = (1..=n).find(|c| c * c >= n).unwrap_or(1);
    let rows = n.div_ceil(cols);
    let spacing = Fx::from_num(3);
    let x0 = -spacing * Fx::from_num(cols - 1) / 2;
    let y0 = -spacing * Fx::from_num(rows - 1) / 2;
    let half = Fx::from_num(3) / 2;
    let arm = Fx::from_num(1) / 2;
    for k in 0..n {
        let (i, j) = (k % cols, k / cols);
        let c = Vec2::new(
            x0 + spacing * Fx::from_num(i) + half,
            y0 + spacing * Fx::from_num(j) + half,
        );
        let d = if (i + j) % 2 == 0 {
            Vec2::new(arm, Fx::ZERO)
        } else {
            Vec2::new(Fx::ZERO, arm)
        };
        s.obstacles
            .push(ObstacleShape::Polyline(vec![c - d, c + d]));
    }
    s
}

fn scenario(args: &BenchArgs) -> Result<(String, Scenario, bool), Fail> {
    let need_n = |name: &str| {
        args.n
            .ok_or_else(|| Fail::input(format!("bench {name} needs N, the number of agents")))
    };
    let no_n = |name: &str| match args.n {
        Some(_) => Err(Fail::input(format!("bench {name} takes no N"))),
        None => Ok(()),
    };
    Ok(match args.scene {
        Scene::Crowd => ("crowd".into(), Scenario::crowd(need_n("crowd")?), false),
        Scene::Circle => (
            "circle".into(),
            Scenario::scaling_circle(need_n("circle")?),
            false,
        ),
        Scene::Circle250 => {
            no_n("circle250")?;
            ("circle250".into(), Scenario::rvo2_circle(), true)
        }
        Scene::Blocks => {
            no_n("blocks")?;
            let mut s = Scenario::from_toml_str(BLOCKS_TOML)
                .map_err(|e| Fail::failed(format!("blocks.toml: {e}")))?;
            // As the `blocks` example: run to completion (the file stops at 1,500 ticks).
            s.max_ticks = 40_000;
            ("blocks".into(), s, true)
        }
        Scene::Obstacles => {
            let n = args.n.unwrap_or(10_000);
            ("obstacles".into(), crowd_among_posts(n), false)
        }
        Scene::Navigation => {
            return Err(Fail::input("bench navigation has no scenario".to_string()));
        }
    })
}

fn stats_pairs(s: &StepStats) -> Vec<(&'static str, u64)> {
    vec![
        ("tick", s.tick),
        ("step_agents", s.agents),
        ("commands_applied", s.commands_applied),
        ("commands_rejected", s.commands_rejected),
        ("obstacle_tree_rebuilt", u64::from(s.obstacle_tree_rebuilt)),
        ("neighbors_found", s.neighbors_found),
        ("pairs_solved", s.pairs_solved),
        ("pairs_reused", s.pairs_reused),
        ("obstacle_lines", s.obstacle_lines),
        ("agent_lines", s.agent_lines),
        ("lp3_fallbacks", s.lp3_fallbacks),
        ("obstacle_lp3_fallbacks", s.obstacle_lp3_fallbacks),
        ("at_max_speed", s.at_max_speed),
    ]
}

/// Milliseconds, for the report (timing is user I/O, never simulation input).
#[allow(clippy::float_arithmetic)]
fn ms(d: Duration, ticks: u64) -> f64 {
    d.as_secs_f64() * 1e3 / ticks.max(1) as f64
}

#[allow(clippy::float_arithmetic)]
fn per_s(agent_steps: u64, d: Duration) -> f64 {
    agent_steps as f64 / d.as_secs_f64().max(1e-12)
}

pub fn bench(args: &BenchArgs) -> Result<(), Fail> {
    if matches!(args.scene, Scene::Navigation) {
        if args.ticks.is_some() || args.threads != 1 || args.liveness.is_some() || args.json {
            return Err(Fail::input(
                "bench navigation takes only N (no --ticks, --threads, --liveness or --json)"
                    .to_string(),
            ));
        }
        return crate::bench_nav::run(args.n.unwrap_or(1_000));
    }
    // With the `parallel` feature even one thread gets its own pool: the global pool would
    // use every core.
    if args.threads == 1 && !cfg!(feature = "parallel") {
        return run(args);
    }
    pool(args.threads)?.install(|| run(args))
}

#[cfg(feature = "parallel")]
fn pool(threads: u32) -> Result<rayon::ThreadPool, Fail> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .build()
        .map_err(|e| Fail::failed(format!("thread pool: {e}")))
}

/// Without the `parallel` feature the step is serial: refuse `--threads` above 1 rather than
/// time something else than what was asked.
#[cfg(not(feature = "parallel"))]
fn pool(_threads: u32) -> Result<Serial, Fail> {
    Err(Fail::input(
        "--threads above 1 needs a build with the `parallel` feature \
         (cargo build --release --features parallel)"
            .to_string(),
    ))
}

#[cfg(not(feature = "parallel"))]
struct Serial;

#[cfg(not(feature = "parallel"))]
impl Serial {
    fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// Stage names and mean milliseconds per tick.
fn stage_ms(t: &StageTimes, ticks: u64) -> Vec<(&'static str, f64)> {
    vec![
        ("inputs_ms", ms(t.inputs, ticks)),
        ("orders_ms", ms(t.orders, ticks)),
        ("obstacles_ms", ms(t.obstacles, ticks)),
        ("tree_ms", ms(t.tree, ticks)),
        ("neighbors_ms", ms(t.neighbors, ticks)),
        ("solve_ms", ms(t.solve, ticks)),
        ("integrate_ms", ms(t.integrate, ticks)),
    ]
}

fn run(args: &BenchArgs) -> Result<(), Fail> {
    let (scene, mut scenario, until_reached) = scenario(args)?;
    match args.liveness {
        Some(LivenessArg::Resolve) => scenario.liveness = lockstep_orca::Liveness::Resolve,
        Some(LivenessArg::Rvo2) => scenario.liveness = lockstep_orca::Liveness::Rvo2,
        None => {}
    }
    let liveness = match scenario.liveness {
        lockstep_orca::Liveness::Resolve => "resolve",
        lockstep_orca::Liveness::Rvo2 => "rvo2",
    };
    let (mut sim, driver) = scenario
        .build()
        .map_err(|e| Fail::failed(format!("{scene}: {e}")))?;
    // The scene description is not needed once built (peak memory is the simulator's).
    drop(scenario);
    let agents = sim.num_agents();
    let max_ticks = match (until_reached, args.ticks) {
        (_, Some(t)) => t,
        (false, None) => 100,
        (true, None) => driver.max_ticks(),
    };
    sim.set_stage_timing(true);
    let mut stages = StageTimes::default();
    let (mut pref, mut step) = (Duration::ZERO, Duration::ZERO);
    let mut ticks = 0;
    let mut agent_steps = 0u64;
    while ticks < max_ticks && !(until_reached && driver.all_reached(&sim)) {
        let tick = sim.tick();
        let t0 = Instant::now();
        driver
            .apply_events(&mut sim, tick)
            .and_then(|()| driver.set_pref_velocities(&mut sim, tick))
            .map_err(|e| Fail::failed(format!("tick {tick}: {e}")))?;
        let t1 = Instant::now();
        sim.step()
            .map_err(|e| Fail::failed(format!("tick {tick}: {e}")))?;
        let t2 = Instant::now();
        pref += t1 - t0;
        step += t2 - t1;
        stages += sim.stage_times();
        ticks += 1;
        agent_steps += sim.num_agents() as u64;
    }
    let total = pref + step;
    let stats = stats_pairs(sim.step_stats());
    let split = stage_ms(&stages, ticks);
    let hash = format!("{:016x}", sim.state_hash());
    if args.json {
        let last: serde_json::Map<String, serde_json::Value> = stats
            .iter()
            .map(|&(k, v)| (k.to_string(), json!(v)))
            .collect();
        let doc = json!({
            "scene": scene,
            "n": args.n,
            "agents": agents,
            "ticks": ticks,
            "all_reached": driver.all_reached(&sim),
            "total_ms": ms(total, ticks),
            "pref_ms": ms(pref, ticks),
            "step_ms": ms(step, ticks),
            "agent_steps_per_s": per_s(agent_steps, total),
            "threads": args.threads,
            "liveness": liveness,
            "hash": hash,
            "stages_ms": split.iter().map(|&(k, v)| (k.trim_end_matches("_ms").to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "last_step": last,
        });
        println!("{doc}");
    } else {
        let mut line = format!(
            "scene={scene} agents={agents} ticks={ticks} threads={} liveness={} all_reached={} total_ms={:.6} pref_ms={:.6} step_ms={:.6} agent_steps_per_s={:.0} hash={hash}",
            args.threads,
            liveness,
            driver.all_reached(&sim),
            ms(total, ticks),
            ms(pref, ticks),
            ms(step, ticks),
            per_s(agent_steps, total),
        );
        for (k, v) in split {
            line.push_str(&format!(" {k}={v:.6}"));
        }
        for (k, v) in stats {
            line.push_str(&format!(" {k}={v}"));
        }
        println!("{line}");
    }
    Ok(())
}

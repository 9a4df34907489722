//! `bench navigation`: the navigation costs of issue 25's acceptance, measured in the same run
//! as the step they are compared with, printed as one line of `key=value` pairs.
//!
//! 1. **One common goal.** `N` units (default 1,000) on a map of 200 buildings are all told to
//!    navigate to one point at tick 0; the ticks until every unit has its first plan, the
//!    planning time ([`StageTimes::planning`](lockstep_orca::StageTimes::planning): the requests served, without stage 1a's
//!    triggers and traffic control) summed over them, and its ratio to one step of those units
//!    (the median of 20 steps after, stage 1a excluded), and the largest planning time of one
//!    of those ticks against the step (`common_goal_max_ratio`). The order is first served on
//!    a copy of the simulator and thrown away: the process's first plans, with their
//!    allocations and caches cold, give `common_goal_cold_ratio` and `_cold_max_ratio`; the
//!    figures above are the second, warm run, as the steps are. Also all of stage 1a over the same
//!    ticks (`_stage1a_ratio`: traffic control included) and the ticks until no plan is
//!    pending at all (`_quiet_ticks`: replans of units already moving included).
//!    The 20 steps after give `steady_stage1a_ratio`: stage 1a of units on their way (the
//!    replan triggers and traffic control, every tick), median, as a ratio to the step.
//! 2. **Distinct goals.** Then every unit gets its own goal: the ticks until all have their
//!    first plans (and until quiet) and the largest planning time of one tick up to then, as a
//!    ratio to the step; `distinct_quiet_max_ratio` is the largest up to quiet (the whole
//!    searches that complete the quick first plans, under the same budget).
//! 3. **Rebuild.** On a map of 1,000 buildings one building is added in the open: the local
//!    rebuild ([`NavMesh::update`]) and a full build, timed (medians of 5), and the local
//!    rebuild as a ratio to the step.
//!
//! Times on a loaded machine are noisy; the instruction counts of the same run are not:
//! `valgrind --tool=callgrind --dump-before='*bench_nav::mark*' lockstep-orca bench navigation`
//! writes one profile part per step (the cold copy's ticks first, then the measured ones), and
//! in each part the inclusive count of
//! `Simulator::navigate` (stage 1a) and of `serve_requests` (its planning) sit beside the
//! step's total (both are never inlined for this).

use crate::Fail;
use lockstep_orca::navigation::{NavMesh, NavParams, PathStatus};
use lockstep_orca::obstacle::ObstacleSet;
use lockstep_orca::{
    AgentId, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2, splitmix64,
};
use std::time::{Duration, Instant};

/// Buildings of the planning map and of the rebuild map.
const PLAN_BUILDINGS: u32 = 200;
const REBUILD_BUILDINGS: u32 = 1_000;

/// `n` rectangular buildings (2 to 9 units a side) scattered over a square of side `side`
/// centred on the origin, none over the vertical strip `|x| < 4` (kept open for the probe
/// building), seed `seed`.
fn buildings(n: u32, side: i32, seed: u64) -> Vec<ObstacleShape> {
    let mut s = seed;
    let mut next = |m: i32| {
        s = splitmix64(s);
        (s % m as u64) as i32
    };
    let mut out = Vec::new();
    while out.len() < n as usize {
        let (x, y) = (next(side) - side / 2, next(side) - side / 2);
        let (w, h) = (2 + next(8), 2 + next(8));
        if x < 4 && x + w > -4 {
            continue;
        }
        let p = |x: i32, y: i32| Vec2::from_int(x, y);
        out.push(ObstacleShape::Polygon(vec![
            p(x, y),
            p(x + w, y),
            p(x + w, y + h),
            p(x, y + h),
        ]));
    }
    out
}

/// A square boundary of half-width `half`.
fn square(half: i32) -> Vec<Vec2> {
    let (lo, hi) = (-half, half);
    vec![
        Vec2::from_int(lo, lo),
        Vec2::from_int(hi, lo),
        Vec2::from_int(hi, hi),
        Vec2::from_int(lo, hi),
    ]
}

/// Walkable points for a unit of radius `r` (the units' own) on a grid of spacing 3 over
/// `x in [x0, x1)`, in row order, at most `n`.
fn spots(mesh: &NavMesh, r: Fx, x0: i32, x1: i32, half: i32, n: usize) -> Vec<Vec2> {
    let mut out = Vec::new();
    for y in (-half + 3..half - 3).step_by(3) {
        for x in (x0..x1).step_by(3) {
            let p = Vec2::from_int(x, y);
            if out.len() < n && mesh.is_walkable(p, r) {
                out.push(p);
            }
        }
    }
    out
}

/// Milliseconds of a duration (report only).
#[allow(clippy::float_arithmetic)]
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[allow(clippy::float_arithmetic)]
fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn failed(what: &str) -> impl Fn(lockstep_orca::SimError) -> Fail + '_ {
    move |e| Fail::failed(format!("bench navigation: {what}: {e}"))
}

/// A mark between the bench's steps for an instruction count: `valgrind --tool=callgrind
/// --dump-before='*bench_nav::mark*'` writes one profile part per step (each part: the step
/// and its stage 1a, `navigate`), so the planning and the step are counted in the same run on
/// a loaded machine. Does nothing else.
#[inline(never)]
fn mark(what: &str) {
    std::hint::black_box(what);
}

/// Steps until every unit has its first plan for its order, then on until no plan is pending
/// at all (replans included; at most 400 ticks): the ticks to the first, to the second, the
/// planning time and the time of all of stage 1a of each tick up to the first, and the largest
/// planning time of a tick up to the second.
#[allow(clippy::type_complexity)]
fn serve(
    sim: &mut Simulator,
    ids: &[AgentId],
    standing: &mut u64,
) -> Result<(u32, u32, Vec<Duration>, Vec<Duration>, Duration), Fail> {
    let (mut plans, mut stage) = (Vec::new(), Vec::new());
    let mut busiest = Duration::ZERO;
    let mut first = None;
    for tick in 1..=400u32 {
        mark("serve");
        sim.step().map_err(failed("step"))?;
        let records: Vec<_> = ids
            .iter()
            .map(|&id| sim.nav_status(id).ok().flatten())
            .collect();
        // Units at the end of a partial plan still waiting for its completion.
        for (&id, r) in ids.iter().zip(&records) {
            let waiting =
                r.is_some_and(|r| r.is_pending() && r.status() == Some(PathStatus::Partial));
            if waiting
                && let (Ok(Some(order)), Ok(p)) = (sim.agent_order(id), sim.agent_position(id))
                && order.progress() + 1 >= order.path().len()
                && (order.target() - p).length() <= Fx::ONE
            {
                *standing += 1;
            }
        }
        busiest = busiest.max(sim.stage_times().planning);
        if first.is_none() {
            plans.push(sim.stage_times().planning);
            stage.push(sim.stage_times().navigate);
            if records
                .iter()
                .all(|r| r.is_some_and(|r| r.status().is_some()))
            {
                first = Some(tick);
            }
        }
        if let Some(first) = first
            && !records.iter().any(|r| r.is_some_and(|r| r.is_pending()))
        {
            return Ok((first, tick, plans, stage, busiest));
        }
    }
    Ok((first.unwrap_or(u32::MAX), u32::MAX, plans, stage, busiest))
}

/// Runs the three measurements; prints the line.
pub fn run(units: u32) -> Result<(), Fail> {
    let half = 160;
    let sim_params = SimulatorParams::default();
    let r = sim_params.agent_defaults.radius;
    let mut sim = Simulator::new(sim_params).map_err(failed("simulator"))?;
    for b in buildings(PLAN_BUILDINGS, 2 * half - 20, 1) {
        sim.add_obstacle(b).map_err(failed("building"))?;
    }
    let params = NavParams {
        boundary: Some(square(half)),
        ..NavParams::default()
    };
    sim.set_navigation(Some(params))
        .map_err(failed("navigation"))?;
    let mesh = sim
        .nav_mesh()
        .ok_or_else(|| Fail::failed("bench navigation: no mesh".to_string()))?
        .clone();
    let starts = spots(&mesh, r, -half + 3, -half / 3, half, units as usize);
    if starts.len() < units as usize {
        return Err(Fail::input(format!(
            "bench navigation: room for {} units, not {units}",
            starts.len()
        )));
    }
    let goal = spots(&mesh, r, half - 20, half - 3, half, 1)[0];
    let mut ids = Vec::new();
    for &p in &starts {
        ids.push(sim.add_agent(p).map_err(failed("agent"))?);
    }
    sim.set_stage_timing(true);

    // 1. One common goal.
    for &id in &ids {
        let c = Command::NavigateTo { id, goal };
        sim.queue_command(sim.tick(), c).map_err(failed("order"))?;
    }
    // Served first on a copy: the process's first plans (its allocations and caches fresh),
    // reported as `common_goal_cold_*`; the measured run is then warm, as in a game that has
    // been planning for a while (and as the steps it is compared with are).
    let (_, _, cold, _, _) = serve(&mut sim.clone(), &ids, &mut 0)?;
    let cold_total: Duration = cold.iter().sum();
    let cold_max = cold.iter().copied().max().unwrap_or_default();
    let (common_ticks, common_quiet, common, common_stage, _) = serve(&mut sim, &ids, &mut 0)?;
    let common_total: Duration = common.iter().sum();
    let common_max = common.iter().copied().max().unwrap_or_default();
    let common_stage: Duration = common_stage.iter().sum();
    let (mut steps, mut steady) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        mark("step");
        let t0 = Instant::now();
        sim.step().map_err(failed("step"))?;
        let navigate = sim.stage_times().navigate;
        steps.push(t0.elapsed().saturating_sub(navigate));
        steady.push(navigate);
    }
    let step = median(steps);
    let steady = median(steady);

    // 2. Distinct goals: each unit to a walkable spot of its own across the map.
    let goals = spots(&mesh, r, half / 3, half - 3, half, units as usize);
    for (i, &id) in ids.iter().enumerate() {
        let c = Command::NavigateTo {
            id,
            goal: goals[i % goals.len()],
        };
        sim.queue_command(sim.tick(), c).map_err(failed("order"))?;
    }
    let mut standing = 0;
    let (distinct_ticks, distinct_quiet, distinct, _, distinct_quiet_max) =
        serve(&mut sim, &ids, &mut standing)?;
    let distinct_max = distinct.iter().copied().max().unwrap_or_default();
    // Units the crowd pushed past the map's edge (the boundary's walls hold them in).
    let edge = Fx::from_num(half);
    let outside = sim
        .agents()
        .positions()
        .iter()
        .filter(|p| p.x.abs() > edge || p.y.abs() > edge)
        .count();

    mark("rebuild");
    // 3. One building added to a map of 1,000.
    let big_half = 330;
    let mut set = ObstacleSet::default();
    for b in buildings(REBUILD_BUILDINGS, 2 * big_half - 20, 2) {
        set.add(b).map_err(failed("building"))?;
    }
    let big = NavParams {
        boundary: Some(square(big_half)),
        ..NavParams::default()
    };
    let base = NavMesh::build(&set, &big).map_err(failed("mesh"))?;
    let p = |x: i32, y: i32| Vec2::from_int(x, y);
    set.add(ObstacleShape::Polygon(vec![
        p(-2, -3),
        p(2, -3),
        p(2, 3),
        p(-2, 3),
    ]))
    .map_err(failed("building"))?;
    let (mut local, mut full) = (Vec::new(), Vec::new());
    let mut work = None;
    for _ in 0..5 {
        let t0 = Instant::now();
        let out = base.update(&set, &big).map_err(failed("rebuild"))?;
        local.push(t0.elapsed());
        work = out.map(|(_, w)| w);
        let t0 = Instant::now();
        let _ = NavMesh::build(&set, &big).map_err(failed("build"))?;
        full.push(t0.elapsed());
    }
    let (local, full) = (median(local), median(full));
    let work = work.unwrap_or_default();

    println!(
        "scene=navigation units={units} buildings={PLAN_BUILDINGS} triangles={} step_ms={:.6} \
         common_goal_ticks={common_ticks} common_goal_quiet_ticks={common_quiet} common_goal_plan_ms={:.6} common_goal_ratio={:.3} common_goal_max_ratio={:.3} common_goal_cold_ratio={:.3} common_goal_cold_max_ratio={:.3} common_goal_stage1a_ratio={:.3} \
         steady_stage1a_ratio={:.3} distinct_ticks={distinct_ticks} distinct_quiet_ticks={distinct_quiet} distinct_standing_agent_ticks={standing} distinct_max_tick_plan_ms={:.6} distinct_max_ratio={:.3} distinct_quiet_max_ratio={:.3} distinct_outside={outside} \
         rebuild_buildings={REBUILD_BUILDINGS} rebuild_triangles={} rebuild_local_ms={:.6} \
         rebuild_full_ms={:.6} rebuild_ratio={:.3} rebuild_local={} rebuild_cavity={} \
         rebuild_widths={} hash={:016x}",
        mesh.triangles().len(),
        ms(step),
        ms(common_total),
        ratio(common_total, step),
        ratio(common_max, step),
        ratio(cold_total, step),
        ratio(cold_max, step),
        ratio(common_stage, step),
        ratio(steady, step),
        ms(distinct_max),
        ratio(distinct_max, step),
        ratio(distinct_quiet_max, step),
        base.triangles().len(),
        ms(local),
        ms(full),
        ratio(local, step),
        !work.full,
        work.cavity,
        work.widths,
        sim.state_hash(),
    );
    Ok(())
}

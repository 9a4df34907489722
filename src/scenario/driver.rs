//! The [`Driver`]: what a game loop does around [`Simulator::step`] in RVO2's examples — set
//! preferred velocities towards goals, step, check whether everyone has arrived — plus the
//! measurements a scenario run reports (minimum clearance, state hashes).

use super::{Perturbation, Policy, Scenario};
use crate::agent::AgentId;
use crate::error::SimError;
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};
use crate::sim::Simulator;
use crate::spatial::kdtree::{AgentTree, NeighborKey};

/// Drives the agents of a built [`Scenario`]: goals, the preferred-velocity policy and the stop
/// conditions. Holds no simulation state, so one driver can drive several copies of a scene.
#[derive(Clone, Debug)]
pub struct Driver {
    ids: Vec<AgentId>,
    goals: Vec<Vec2>,
    /// `tolerance²` per agent, exact (raw Q64.64).
    tolerance_sq: Vec<i128>,
    policy: Policy,
    perturbation: Option<Perturbation>,
    max_ticks: u64,
}

/// Options of [`Driver::run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Tick limit for this run. `None`: the scenario's `max_ticks`.
    pub max_ticks: Option<u64>,
    /// Stop as soon as every agent has reached its goal. Default `true`; with `false` the run
    /// always lasts `max_ticks` ticks.
    pub stop_when_reached: bool,
    /// Record the state hash every this many ticks (tick 0 included). `0`: none. Default 0.
    pub hash_every: u64,
    /// Track the minimum pairwise clearance (costs a kd-tree build and one query per agent per
    /// tick). Default `true`.
    pub track_clearance: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            max_ticks: None,
            stop_when_reached: true,
            hash_every: 0,
            track_clearance: true,
        }
    }
}

/// What a [`Driver::run`] measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunReport {
    /// Ticks stepped by this run.
    pub ticks: u64,
    /// Whether every agent was within its goal tolerance at the end.
    pub all_reached: bool,
    /// Smallest `distance - (radius_a + radius_b)` over all pairs and all observed states
    /// (initial state included), negative when discs overlapped, with the simulator tick where it
    /// occurred. `None` with fewer than two agents or with tracking off.
    pub min_clearance: Option<(Fx, u64)>,
    /// [`Simulator::state_hash`] after the last tick.
    pub final_hash: u64,
    /// `(tick, state hash)` every [`RunOptions::hash_every`] ticks, tick 0 (before the first
    /// step) included.
    pub hashes: Vec<(u64, u64)>,
}

impl RunReport {
    /// The golden text of a run: what `fixtures/golden/` pins and what the cross-platform check
    /// compares. Every line is exact (hex hashes, raw Q32.32 bits), so a difference anywhere in
    /// the trajectory shows up.
    #[must_use]
    pub fn golden_text(&self, name: &str) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(out, "scenario: {name}");
        let _ = writeln!(out, "ticks: {}", self.ticks);
        let _ = writeln!(out, "all_reached: {}", self.all_reached);
        match self.min_clearance {
            Some((c, tick)) => {
                let _ = writeln!(
                    out,
                    "min_clearance: {c} (bits {}, tick {tick})",
                    c.to_bits()
                );
            }
            None => {
                let _ = writeln!(out, "min_clearance: none");
            }
        }
        for (tick, hash) in &self.hashes {
            let _ = writeln!(out, "hash {tick}: {hash:016x}");
        }
        let _ = writeln!(out, "final: {:016x}", self.final_hash);
        out
    }
}

impl Driver {
    pub(super) fn new(scenario: &Scenario, ids: Vec<AgentId>) -> Self {
        let tolerance_sq = scenario
            .agents
            .iter()
            .map(|a| {
                let t = scenario.goal_tolerance.unwrap_or(a.params.radius);
                wide_mul(t, t)
            })
            .collect();
        Self {
            ids,
            goals: scenario.agents.iter().map(|a| a.goal).collect(),
            tolerance_sq,
            policy: scenario.policy,
            perturbation: scenario.perturbation,
            max_ticks: scenario.max_ticks,
        }
    }

    /// The driven agents' ids, in scenario order.
    #[must_use]
    pub fn agent_ids(&self) -> &[AgentId] {
        &self.ids
    }

    /// The agents' goals, in scenario order.
    #[must_use]
    pub fn goals(&self) -> &[Vec2] {
        &self.goals
    }

    /// The scenario's tick limit.
    #[must_use]
    pub fn max_ticks(&self) -> u64 {
        self.max_ticks
    }

    /// The preferred velocity the policy gives an agent at `position` heading for `goal`
    /// (before perturbation).
    #[must_use]
    pub fn policy_velocity(&self, position: Vec2, goal: Vec2) -> Vec2 {
        match self.policy {
            Policy::GoalSeeking { pref_speed } => {
                let to_goal = goal - position;
                if to_goal.length_squared_wide() > wide_mul(pref_speed, pref_speed) {
                    to_goal.normalize_or_zero() * pref_speed
                } else {
                    to_goal
                }
            }
        }
    }

    /// Sets every driven agent's preferred velocity for the coming `tick` (RVO2's
    /// `setPreferredVelocities`): the policy's velocity plus the perturbation, if any.
    /// Allocation-free.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`] if a driven agent was removed from the simulator.
    pub fn set_pref_velocities(&self, sim: &mut Simulator, tick: u64) -> Result<(), SimError> {
        for (&id, &goal) in self.ids.iter().zip(&self.goals) {
            let mut pref = self.policy_velocity(sim.agent_position(id)?, goal);
            if let Some(p) = &self.perturbation {
                pref += p.offset(tick, id.0);
            }
            sim.set_agent_pref_velocity(id, pref)?;
        }
        Ok(())
    }

    /// Whether every driven agent is within its goal tolerance (`|p - goal|² <= tolerance²`,
    /// exact). Agents no longer in the simulator count as arrived.
    #[must_use]
    pub fn all_reached(&self, sim: &Simulator) -> bool {
        self.ids.iter().enumerate().all(|(i, &id)| {
            sim.agent_position(id).map_or(true, |p| {
                (p - self.goals[i]).length_squared_wide() <= self.tolerance_sq[i]
            })
        })
    }

    /// Runs the scene: `while not done { set_pref_velocities; step }` (RVO2's example loop),
    /// where done means every agent reached its goal (if [`RunOptions::stop_when_reached`]) or
    /// the tick limit was hit.
    ///
    /// # Errors
    /// A [`SimError`] from the simulator (e.g. an agent leaving the domain).
    pub fn run(&self, sim: &mut Simulator, options: &RunOptions) -> Result<RunReport, SimError> {
        self.run_with(sim, options, |_| {})
    }

    /// As [`run`](Self::run), calling `observe` on the initial state and after every step
    /// (the command-line runner writes its CSV there).
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_with(
        &self,
        sim: &mut Simulator,
        options: &RunOptions,
        mut observe: impl FnMut(&Simulator),
    ) -> Result<RunReport, SimError> {
        let max_ticks = options.max_ticks.unwrap_or(self.max_ticks);
        let mut clearance = ClearanceTracker::default();
        let mut hashes = Vec::new();
        let mut record = |sim: &mut Simulator, ticks: u64, hashes: &mut Vec<(u64, u64)>| {
            if options.track_clearance {
                clearance.observe(sim);
            }
            if options.hash_every != 0 && ticks.is_multiple_of(options.hash_every) {
                hashes.push((sim.tick(), sim.state_hash()));
            }
            observe(sim);
        };
        record(sim, 0, &mut hashes);
        let mut ticks = 0;
        while ticks < max_ticks && !(options.stop_when_reached && self.all_reached(sim)) {
            self.set_pref_velocities(sim, sim.tick())?;
            sim.step()?;
            ticks += 1;
            record(sim, ticks, &mut hashes);
        }
        Ok(RunReport {
            ticks,
            all_reached: self.all_reached(sim),
            min_clearance: clearance.min(),
            final_hash: sim.state_hash(),
            hashes,
        })
    }
}

/// Tracks the smallest pairwise clearance `distance - (r_a + r_b)` over the states it observes.
///
/// Each observation builds a kd-tree over the positions (reusing its buffers) and, for every
/// agent `a`, finds its nearest neighbour `n` (any distance). When all radii are equal that
/// neighbour has `a`'s smallest clearance. Otherwise a second query collects every agent closer
/// than `d(a, n) + r_max - r_min` (up to 1,024 of them), which contains every agent whose
/// clearance to `a` could beat `n`'s. Distances are floors of exact roots, so the minimum is
/// exact to one ulp. Cost: a tree build and one or two queries per agent per observation.
#[derive(Clone, Debug, Default)]
pub struct ClearanceTracker {
    tree: AgentTree,
    found: Vec<NeighborKey>,
    min: Option<(Fx, u64)>,
}

/// Longer than any distance inside the coordinate domain (its diagonal is about 2.83·10⁶).
const UNBOUNDED: Fx = Fx::lit("4000000");

impl ClearanceTracker {
    /// Measures the current state of `sim`.
    pub fn observe(&mut self, sim: &Simulator) {
        let positions = &sim.positions;
        let params = &sim.params;
        if positions.len() < 2 {
            return;
        }
        let r_max = params.iter().map(|p| p.radius).max().unwrap_or(Fx::ZERO);
        let r_min = params.iter().map(|p| p.radius).min().unwrap_or(Fx::ZERO);
        self.tree.build(positions);
        for slot in 0..positions.len() {
            let r = params[slot].radius;
            self.tree
                .query(positions, slot as u32, UNBOUNDED, 1, &mut self.found);
            let Some(&(nearest_sq, _)) = self.found.first() else {
                continue;
            };
            if r_max != r_min {
                // A farther agent b beats n only if d(a,b) - r_b < d(a,n) - r_n, which needs
                // d(a,b) < d(a,n) + r_max - r_min. One ulp of slack covers the floored root.
                let range = sqrt_wide(nearest_sq) + (r_max - r_min) + Fx::DELTA;
                self.tree.query(
                    positions,
                    slot as u32,
                    range,
                    crate::domain::MAX_NEIGHBORS as usize,
                    &mut self.found,
                );
            }
            for &(dist_sq, other) in &self.found {
                let c = sqrt_wide(dist_sq) - r - params[other as usize].radius;
                if self.min.is_none_or(|(m, _)| c < m) {
                    self.min = Some((c, sim.tick()));
                }
            }
        }
    }

    /// The smallest clearance seen so far and the tick where it occurred.
    #[must_use]
    pub fn min(&self) -> Option<(Fx, u64)> {
        self.min
    }
}

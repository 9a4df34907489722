//! The [`Driver`]: what a game loop does around [`Simulator::step`] in RVO2's examples — set
//! preferred velocities towards goals, step, check whether everyone has arrived — plus the
//! measurements a scenario run reports (minimum clearance, state hashes).

use super::{Event, EventAction, Perturbation, Policy, RoadmapGraph, Scenario};
use crate::agent::{AgentId, AgentParams};
use crate::command::Command;
use crate::error::SimError;
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};
use crate::obstacle::ObstacleSet;
use crate::sim::Simulator;
use crate::spatial::kdtree::{AgentTree, NeighborKey};

/// Drives the agents of a built [`Scenario`]: goals, the preferred-velocity policy, the
/// scenario's events and the stop conditions.
///
/// # Orders, or preferred velocities
/// With the **goal-seeking** policy (the default) the driver steers nothing itself: the
/// scenario's goals and routes are [move orders](crate::orders) that
/// [`Scenario::build`] gives the simulator (a [`Command::MoveTo`] to the first point of the
/// path, a [`Command::QueueMove`] for each further one), the policy's speeds and the
/// perturbation are its [`Steering`](crate::orders::Steering), and the simulator computes the
/// preferred velocities in its step. Everything that changes across ticks (the route progress,
/// a goal changed by an event or a player's order) is simulation state: hashed, snapshotted,
/// restored by a rollback, carried by a replay as a few orders. Events do the same: `set_goal`
/// is a `MoveTo`, an added agent gets its orders in the tick it is added.
///
/// With the **roadmap** policy the driver computes every agent's preferred velocity each tick
/// ([`set_pref_velocities`](Self::set_pref_velocities), or as [`Command::SetPrefVelocity`]s
/// from [`tick_commands`](Self::tick_commands)), from its goal at that tick. An agent that has
/// an order anyway (a player's `MoveTo`) is left to the order.
///
/// Either way the driver holds no state that changes across ticks: everything it does is a
/// function of the tick and the simulator, so one driver can drive several copies of a scene
/// (a rollback's resimulation, a replay, a SyncTest).
#[derive(Clone, Debug)]
pub struct Driver {
    /// Every agent the scene will ever have: scenario agents, then agents added by events.
    ids: Vec<AgentId>,
    /// Initial goal of each.
    goals: Vec<Vec2>,
    /// `tolerance²` per agent, exact (raw Q64.64).
    tolerance_sq: Vec<i128>,
    /// `[added, removed)` tick interval during which each agent is driven.
    active: Vec<(u64, u64)>,
    /// `set_goal` events per agent: `(tick, goal)`, ascending tick. Empty for most agents.
    goal_changes: Vec<Vec<(u64, Vec2)>>,
    policy: Policy,
    roadmap: Option<RoadmapGraph>,
    perturbation: Option<Perturbation>,
    events: Vec<Event>,
    /// For each event, the index (into `ids`) of the agent it adds.
    event_agent: Vec<Option<usize>>,
    max_ticks: u64,
    /// Per agent (empty when the scene has no route): the waypoints before its goal.
    routes: Vec<Vec<Vec2>>,
    /// Whether agents are steered by orders (the goal-seeking policy) rather than by the
    /// driver's preferred velocities (the roadmap policy).
    orders: bool,
    /// Per agent: whether it navigates (its goals are [`Command::NavigateTo`]s).
    navigate: Vec<bool>,
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
    /// What the deadlock resolution and the LP did over the run, summed over the steps'
    /// [`StepStats`](crate::tick::StepStats).
    pub outcomes: RunOutcomes,
    /// With navigation: `(tick, NavMesh::digest)` at the checkpoints of
    /// [`hashes`](Self::hashes) where the mesh differs from the last one listed (tick 0
    /// always), so a building placed mid-run shows as a second entry. Empty without
    /// navigation or without hash checkpoints.
    pub meshes: Vec<(u64, u64)>,
}

/// Per-agent outcomes of a run, summed over its steps ([`RunReport::outcomes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOutcomes {
    /// Stalls begun (an agent's stall counter going from 0 to 1; see [`crate::liveness`]).
    pub stalls: u64,
    /// Agent-ticks spent stalled.
    pub stalled_ticks: u64,
    /// Agent-ticks spent yielding right of way or making way.
    pub yield_ticks: u64,
    /// Agent-ticks solved by LP3 (relaxed: a dense crowd, or walls alone infeasible).
    pub lp3_ticks: u64,
    /// Agent-ticks stalled with the preferred velocity pointing into a wall.
    pub blocked_ticks: u64,
}

impl RunOutcomes {
    fn add(&mut self, s: &crate::tick::StepStats) {
        self.stalls += s.stalls_begun;
        self.stalled_ticks += s.stalled;
        self.yield_ticks += s.yielding;
        self.lp3_ticks += s.lp3_fallbacks + s.obstacle_lp3_fallbacks;
        self.blocked_ticks += s.blocked_by_obstacle;
    }
}

impl RunReport {
    /// The golden text of a run: what `fixtures/golden/` pins and what the cross-platform check
    /// compares. Every line is exact (hex hashes, raw Q32.32 bits), so a difference anywhere in
    /// the trajectory shows up. With navigation, `mesh <tick>: <digest>` lines follow the
    /// hashes ([`meshes`](Self::meshes)): the navigation mesh is derived, not hashed state, so
    /// its digest is compared here.
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
        let o = &self.outcomes;
        let _ = writeln!(
            out,
            "outcomes: stalls {} stalled_ticks {} yield_ticks {} lp3_ticks {} blocked_ticks {}",
            o.stalls, o.stalled_ticks, o.yield_ticks, o.lp3_ticks, o.blocked_ticks
        );
        for (tick, hash) in &self.hashes {
            let _ = writeln!(out, "hash {tick}: {hash:016x}");
        }
        for (tick, digest) in &self.meshes {
            let _ = writeln!(out, "mesh {tick}: {digest:016x}");
        }
        let _ = writeln!(out, "final: {:016x}", self.final_hash);
        out
    }
}

impl Driver {
    pub(super) fn new(scenario: &Scenario, mut ids: Vec<AgentId>, sim: &Simulator) -> Self {
        let tol = |p: &AgentParams| {
            let t = scenario.goal_tolerance.unwrap_or(p.radius);
            wide_mul(t, t)
        };
        let mut goals: Vec<Vec2> = scenario.agents.iter().map(|a| a.goal).collect();
        let mut tolerance_sq: Vec<i128> = scenario.agents.iter().map(|a| tol(&a.params)).collect();
        let mut active = vec![(0, u64::MAX); goals.len()];
        let mut goal_changes = vec![Vec::new(); goals.len()];
        let mut all_goals = goals.clone();
        let mut next_id = ids.last().map_or(0, |id| id.0 + 1);
        let mut event_agent = Vec::with_capacity(scenario.events.len());
        for e in &scenario.events {
            event_agent.push(None);
            match e.action {
                EventAction::AddAgent(a) => {
                    *event_agent.last_mut().expect("pushed") = Some(ids.len());
                    ids.push(AgentId(next_id));
                    next_id += 1;
                    goals.push(a.goal);
                    tolerance_sq.push(tol(&a.params));
                    active.push((e.tick, u64::MAX));
                    goal_changes.push(Vec::new());
                    all_goals.push(a.goal);
                }
                EventAction::RemoveAgent(id) => {
                    if let Ok(i) = ids.binary_search(&id) {
                        active[i].1 = active[i].1.min(e.tick);
                    }
                }
                EventAction::SetGoal { id, goal } => {
                    if let Ok(i) = ids.binary_search(&id) {
                        goal_changes[i].push((e.tick, goal));
                    }
                }
                _ => {}
            }
        }
        for e in &scenario.events {
            if let EventAction::SetGoal { goal, .. } = e.action {
                all_goals.push(goal);
            }
        }
        let mut routes = Vec::new();
        if !scenario.routes.is_empty() {
            routes = ids
                .iter()
                .map(|id| scenario.routes.get(id).cloned().unwrap_or_default())
                .collect();
        }
        let roadmap = match &scenario.policy {
            Policy::Roadmap { vertices, .. } => Some(RoadmapGraph::build(
                sim.obstacles(),
                &all_goals,
                vertices,
                scenario.defaults.radius,
            )),
            Policy::GoalSeeking { .. } => None,
        };
        let navigate = ids
            .iter()
            .map(|id| scenario.navigate.contains(id))
            .collect();
        Self {
            ids,
            navigate,
            goals,
            tolerance_sq,
            active,
            goal_changes,
            policy: scenario.policy.clone(),
            roadmap,
            perturbation: scenario.perturbation,
            events: scenario.events.clone(),
            event_agent,
            max_ticks: scenario.max_ticks,
            routes,
            orders: matches!(scenario.policy, Policy::GoalSeeking { .. }),
        }
    }

    /// Whether the driver steers by [orders](crate::orders) (the goal-seeking policy; see
    /// [`Driver`]).
    #[must_use]
    pub fn steers_by_orders(&self) -> bool {
        self.orders
    }

    /// The order commands that send agent `index` along its route to `goal`: a `MoveTo` to the
    /// first point, a `QueueMove` for each further one; for a navigating agent, a
    /// [`Command::NavigateTo`] to the first point (the simulator plans the way) and a
    /// `QueueMove` for each further one (navigated legs, [`Simulator::nav_legs`]).
    pub(crate) fn route_orders(&self, index: usize, goal: Vec2) -> impl Iterator<Item = Command> {
        let id = self.ids[index];
        let navigate = self.navigates(index);
        let route = self.route(index).iter().copied();
        route.chain([goal]).enumerate().map(move |(k, p)| {
            if navigate && k == 0 {
                Command::NavigateTo { id, goal: p }
            } else if k == 0 {
                Command::MoveTo { id, goal: p }
            } else {
                Command::QueueMove { id, goal: p }
            }
        })
    }

    /// Whether agent `index` (into [`agent_ids`](Self::agent_ids)) navigates: its goals are
    /// reached by planned paths ([`Scenario::navigate`]).
    #[must_use]
    pub fn navigates(&self, index: usize) -> bool {
        self.navigate.get(index).copied().unwrap_or(false)
    }

    /// The waypoints agent `index` (into [`agent_ids`](Self::agent_ids)) visits before its
    /// goal (empty without a route).
    #[must_use]
    pub fn route(&self, index: usize) -> &[Vec2] {
        self.routes.get(index).map_or(&[], Vec::as_slice)
    }

    /// Every driven agent's id: the scenario's agents in order, then the agents its events add
    /// (in event order).
    #[must_use]
    pub fn agent_ids(&self) -> &[AgentId] {
        &self.ids
    }

    /// The agents' initial goals, in [`agent_ids`](Self::agent_ids) order.
    #[must_use]
    pub fn goals(&self) -> &[Vec2] {
        &self.goals
    }

    /// The goal of agent `index` (into [`agent_ids`](Self::agent_ids)) at `tick`, after any
    /// `set_goal` event up to that tick.
    #[must_use]
    pub fn goal_at(&self, index: usize, tick: u64) -> Vec2 {
        self.goal_changes[index]
            .iter()
            .rev()
            .find(|(t, _)| *t <= tick)
            .map_or(self.goals[index], |&(_, g)| g)
    }

    /// Whether agent `index` is driven at `tick` (added at or before it, not yet removed).
    #[must_use]
    pub fn is_active(&self, index: usize, tick: u64) -> bool {
        let (from, to) = self.active[index];
        from <= tick && tick < to
    }

    /// The scenario's tick limit.
    #[must_use]
    pub fn max_ticks(&self) -> u64 {
        self.max_ticks
    }

    /// The scenario's events.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The roadmap graph, with the roadmap policy.
    #[must_use]
    pub fn roadmap(&self) -> Option<&RoadmapGraph> {
        self.roadmap.as_ref()
    }

    /// Indices of the events of `tick`, in list order.
    fn events_range(&self, tick: u64) -> std::ops::Range<usize> {
        let from = self.events.partition_point(|e| e.tick < tick);
        let to = self.events.partition_point(|e| e.tick <= tick);
        from..to
    }

    /// The goal-seeking rule (see [`Policy::GoalSeeking`]).
    fn seek(&self, position: Vec2, target: Vec2) -> Vec2 {
        let (pref_speed, slow_within) = (self.policy.pref_speed(), self.policy.slow_within());
        let to_goal = target - position;
        if to_goal.length_squared_wide() > wide_mul(slow_within, slow_within) {
            // Far: full preferred speed towards the target.
            to_goal.normalize_or_zero() * pref_speed
        } else if slow_within == pref_speed {
            // Near, RVO2's rule: the remaining vector.
            to_goal
        } else if slow_within == Fx::ZERO {
            // At the target (|g| <= 0).
            Vec2::ZERO
        } else {
            // Near: linear slow-down.
            to_goal * (pref_speed / slow_within)
        }
    }

    /// The preferred velocity the goal-seeking rule gives an agent at `position` heading for
    /// `goal` (before perturbation), at the policy's speed. With the roadmap policy this is the
    /// rule applied to the chosen vertex; see [`pref_velocity`](Self::pref_velocity).
    #[must_use]
    pub fn policy_velocity(&self, position: Vec2, goal: Vec2) -> Vec2 {
        self.seek(position, goal)
    }

    /// The preferred velocity the driver gives agent `index` at `tick`, at `position` with
    /// `radius`, heading for `goal`: the policy applied to the goal (the roadmap policy: to the
    /// roadmap vertex it picks), plus the perturbation, if any. What
    /// [`set_pref_velocities`](Self::set_pref_velocities) sets and
    /// [`tick_commands`](Self::tick_commands) sends with the roadmap policy (the goal-seeking
    /// policy leaves this to the simulator's orders, whose rule gives the same result towards
    /// a goal: see [`crate::orders`]). `obstacles` must be built for the roadmap policy to be
    /// cheap ([`Scenario::build`] builds them).
    #[must_use]
    pub fn pref_velocity(
        &self,
        obstacles: &ObstacleSet,
        index: usize,
        tick: u64,
        position: Vec2,
        radius: Fx,
        goal: Vec2,
    ) -> Vec2 {
        let target = match &self.roadmap {
            None => Some(goal),
            Some(map) => match map.goal_vertex(goal) {
                Some(g) => map.target(obstacles, position, radius, g),
                None => Some(goal),
            },
        };
        let Some(target) = target else {
            return Vec2::ZERO; // Nothing visible: stand still (the roadmap example's fallback).
        };
        let mut pref = self.seek(position, target);
        if let Some(p) = &self.perturbation {
            pref += p.offset(tick, self.ids[index].0);
        }
        pref
    }

    /// The commands of the events of `tick` that change the simulator, in list order, with
    /// the agent index of each added agent: an event's own command, the initial velocity of an
    /// added agent, and with orders the `MoveTo` of a `set_goal` and an added agent's orders.
    fn event_commands(&self, tick: u64, mut out: impl FnMut(Command, Option<usize>)) {
        let range = self.events_range(tick);
        for (k, e) in range.clone().zip(&self.events[range]) {
            if let Some(c) = e.action.command() {
                out(c, self.event_agent[k]);
            }
            match e.action {
                EventAction::AddAgent(a) => {
                    let Some(index) = self.event_agent[k] else {
                        continue;
                    };
                    if a.velocity != Vec2::ZERO {
                        out(
                            Command::SetVelocity {
                                id: self.ids[index],
                                v: a.velocity,
                            },
                            None,
                        );
                    }
                    if !a.model.is_default() {
                        out(
                            Command::SetModel {
                                id: self.ids[index],
                                model: a.model,
                            },
                            None,
                        );
                    }
                    if self.orders {
                        for c in self.route_orders(index, a.goal) {
                            out(c, None);
                        }
                    }
                }
                EventAction::SetGoal { id, goal } if self.orders => {
                    let navigate = self.ids.binary_search(&id).is_ok_and(|i| self.navigates(i));
                    out(
                        if navigate {
                            Command::NavigateTo { id, goal }
                        } else {
                            Command::MoveTo { id, goal }
                        },
                        None,
                    );
                }
                _ => {}
            }
        }
    }

    /// Applies the events of `tick` to `sim` (in list order, as [`Simulator::apply`] of their
    /// commands: see [`tick_commands`](Self::tick_commands) for which). Call it before
    /// [`set_pref_velocities`](Self::set_pref_velocities) of the same tick; [`run`](Self::run)
    /// does. Allocation-free when `tick` has no events.
    ///
    /// # Errors
    /// A [`SimError`] if the simulator rejects an event (e.g. an added agent got an unexpected
    /// id because the simulator was changed outside the driver).
    pub fn apply_events(&self, sim: &mut Simulator, tick: u64) -> Result<(), SimError> {
        let mut result = Ok(());
        self.event_commands(tick, |c, _| {
            if result.is_ok() {
                result = sim.apply(&c).map(drop);
            }
        });
        result
    }

    /// Sets every agent's preferred velocity for the coming `tick` (RVO2's
    /// `setPreferredVelocities`) with the roadmap policy: the policy's velocity plus the
    /// perturbation, if any, for every agent driven at `tick` that has no order. With the
    /// goal-seeking policy it does nothing (the orders steer). Allocation-free.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`] if a driven agent is not in the simulator (removed outside the
    /// driver, or its `add_agent` event was not applied).
    pub fn set_pref_velocities(&self, sim: &mut Simulator, tick: u64) -> Result<(), SimError> {
        if self.orders {
            return Ok(());
        }
        sim.process_obstacles();
        for (index, &id) in self.ids.iter().enumerate() {
            if !self.is_active(index, tick) || sim.agent_order(id)?.is_some() {
                continue;
            }
            let position = sim.agent_position(id)?;
            let radius = sim.agent_params(id)?.radius;
            let goal = self.goal_at(index, tick);
            let pref = self.pref_velocity(sim.obstacles(), index, tick, position, radius, goal);
            sim.set_agent_pref_velocity(id, pref)?;
        }
        Ok(())
    }

    /// The lockstep form of one tick of [`run`](Self::run): the commands that make `sim`
    /// (at `tick`, before the step) do exactly what [`apply_events`](Self::apply_events) plus
    /// [`set_pref_velocities`](Self::set_pref_velocities) do, for queueing at `tick`
    /// ([`Simulator::queue_command`], or a replay's input closure).
    ///
    /// The tick's events come first as commands (an added agent with an initial velocity gets
    /// a [`Command::SetVelocity`]; with the goal-seeking policy `set_goal` is a
    /// [`Command::MoveTo`] and an added agent gets its orders). With the goal-seeking policy
    /// that is all: a tick without events has no command. With the roadmap policy one
    /// [`Command::SetPrefVelocity`] per agent driven at `tick` without an order follows,
    /// ascending id, computed from the state the events leave (an added agent at its start, a
    /// moved agent at its new position, new parameters' radius). The queue applies agent
    /// additions first and each agent's commands in this order, so the step sees the same
    /// state as with the direct calls. Agents missing from `sim` are skipped.
    #[must_use]
    pub fn tick_commands(&self, sim: &Simulator, tick: u64) -> Vec<Command> {
        let mut out = Vec::new();
        let mut added = Vec::new();
        self.event_commands(tick, |c, index| {
            if let (Command::AddAgent { position, params }, Some(index)) = (&c, index) {
                added.push((index, *position, params.radius));
            }
            out.push(c);
        });
        if self.orders {
            return out;
        }
        let range = self.events_range(tick);
        let events = &self.events[range];
        out.reserve(sim.num_agents());
        for (index, &id) in self.ids.iter().enumerate() {
            if !self.is_active(index, tick) || sim.agent_order(id).is_ok_and(|o| o.is_some()) {
                continue;
            }
            // State after this tick's events (in list order: the last one wins).
            let mut position = sim.agent_position(id).ok();
            let mut radius = sim.agent_params(id).ok().map(|p| p.radius);
            if let Some(&(_, p, r)) = added.iter().find(|a| a.0 == index) {
                position = Some(p);
                radius = Some(r);
            }
            for e in events {
                match e.action {
                    EventAction::SetPosition { id: t, position: p } if t == id => {
                        position = Some(p);
                    }
                    EventAction::SetParams { id: t, params } if t == id => {
                        radius = Some(params.radius);
                    }
                    _ => {}
                }
            }
            if let (Some(position), Some(radius)) = (position, radius) {
                let goal = self.goal_at(index, tick);
                let pref = self.pref_velocity(sim.obstacles(), index, tick, position, radius, goal);
                out.push(Command::SetPrefVelocity { id, v: pref });
            }
        }
        out
    }

    /// Whether every driven agent is within its goal tolerance (`|p - goal|² <= tolerance²`,
    /// exact, against its goal at the simulator's tick). Agents no longer in the simulator count
    /// as arrived. Never true while events remain (an event at or after the simulator's tick).
    #[must_use]
    pub fn all_reached(&self, sim: &Simulator) -> bool {
        let tick = sim.tick();
        if self.events.last().is_some_and(|e| e.tick >= tick) {
            return false;
        }
        (0..self.ids.len()).all(|i| self.is_reached(sim, i, tick))
    }

    /// How many of the scene's agents ([`agent_ids`](Self::agent_ids)) are within their goal
    /// tolerance at the simulator's tick, counting agents no longer in the simulator as arrived
    /// (the rule of [`all_reached`](Self::all_reached), agent by agent; agents not added yet
    /// count as not arrived).
    #[must_use]
    pub fn num_reached(&self, sim: &Simulator) -> usize {
        let tick = sim.tick();
        (0..self.ids.len())
            .filter(|&i| self.active[i].0 <= tick && self.is_reached(sim, i, tick))
            .count()
    }

    /// Whether agent `index` is within its goal tolerance of its goal: for a planned order
    /// ([`Command::NavigateTo`]) the goal it was given, or the walkable point the plan moved an
    /// unwalkable goal to ([`PathStatus::GoalAdjusted`](crate::navigation::PathStatus));
    /// otherwise its order's goal when it has one, else its scene goal at `tick`. An agent
    /// with navigated legs still queued ([`Simulator::nav_legs`]) has not arrived. Absent
    /// agents count as arrived.
    fn is_reached(&self, sim: &Simulator, index: usize, tick: u64) -> bool {
        use crate::navigation::PathStatus;
        let id = self.ids[index];
        let Ok(p) = sim.agent_position(id) else {
            return true;
        };
        if sim.nav_legs(id).is_ok_and(|l| !l.is_empty()) {
            return false;
        }
        let goal = match (sim.nav_status(id), sim.agent_order(id)) {
            (Ok(Some(nav)), _) => match nav.status() {
                Some(PathStatus::GoalAdjusted { to }) => to,
                _ => nav.goal(),
            },
            (_, Ok(Some(order))) => order.goal(),
            _ => self.goal_at(index, tick),
        };
        (p - goal).length_squared_wide() <= self.tolerance_sq[index]
    }

    /// Runs the scene: `while not done { apply_events; set_pref_velocities; step }` (RVO2's
    /// example loop, plus the scenario's events),
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
        let mut meshes: Vec<(u64, u64)> = Vec::new();
        let mut record = |sim: &mut Simulator, ticks: u64, hashes: &mut Vec<(u64, u64)>| {
            if options.track_clearance {
                clearance.observe(sim);
            }
            if options.hash_every != 0 && ticks.is_multiple_of(options.hash_every) {
                hashes.push((sim.tick(), sim.state_hash()));
                if let Some(mesh) = sim.nav_mesh() {
                    let digest = mesh.digest();
                    if meshes.last().is_none_or(|&(_, d)| d != digest) {
                        meshes.push((sim.tick(), digest));
                    }
                }
            }
            observe(sim);
        };
        record(sim, 0, &mut hashes);
        let mut ticks = 0;
        let mut outcomes = RunOutcomes::default();
        while ticks < max_ticks && !(options.stop_when_reached && self.all_reached(sim)) {
            let tick = sim.tick();
            self.apply_events(sim, tick)?;
            self.set_pref_velocities(sim, tick)?;
            sim.step()?;
            outcomes.add(sim.step_stats());
            ticks += 1;
            record(sim, ticks, &mut hashes);
        }
        Ok(RunReport {
            ticks,
            all_reached: self.all_reached(sim),
            min_clearance: clearance.min(),
            final_hash: sim.state_hash(),
            hashes,
            outcomes,
            meshes,
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
        let positions = sim.agents().positions();
        let params = sim.agents().params();
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

//! The tick's diagnostics: what the stages of the last step did ([`StepStats`]), how long
//! they took ([`StageTimes`]), and what happened to each agent ([`AgentOutcome`]), with the
//! per-chunk counters the solve pass sums into [`StepStats`].
//!
//! None of it is state: it is not hashed, snapshotted or compared, and nothing the step
//! computes depends on it.

use crate::agent::AgentId;
use crate::math::Fx;
use crate::orca::lp::SolvePath;
use std::time::{Duration, Instant};

/// Counters of one [`step`](crate::Simulator::step), named after its stages (see the
/// [module docs](crate::tick)). Read them with
/// [`Simulator::step_stats`](crate::Simulator::step_stats) after the step.
///
/// Diagnostics, not state: a restored or cloned simulator starts from the default, and the
/// counters do not enter the state hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StepStats {
    /// The tick the step started from.
    pub tick: u64,
    /// Agents simulated (after the inputs were applied).
    pub agents: u64,
    /// Stage 1: queued commands applied.
    pub commands_applied: u64,
    /// Stage 1: queued commands skipped because they were invalid when their tick came (see
    /// [`Simulator::rejected_commands`](crate::Simulator::rejected_commands)).
    pub commands_rejected: u64,
    /// Stage 1a: navigation requests served (paths planned) by this step
    /// ([`Command::NavigateTo`](crate::Command::NavigateTo)).
    pub nav_requests_served: u64,
    /// Stage 1a: node expansions of this step's path searches (what the navigation budget
    /// counts; a search of 0 expansions is charged 1).
    pub nav_expansions: u64,
    /// Stage 1a: agents moved out of the obstacles added by this step's commands, to the
    /// nearest walkable point for their radius (navigation on; docs/obstacles.md § "Obstacles
    /// added over agents").
    pub agents_freed: u64,
    /// Stage 1b: agents steered by their move order ([`crate::orders`]).
    pub ordered: u64,
    /// Stage 2: whether the obstacle tree was rebuilt by this step.
    pub obstacle_tree_rebuilt: bool,
    /// Stage 4: agent neighbours found, over all agents.
    pub neighbors_found: u64,
    /// Stages 5 and 6: agent pairs solved (stage 5 solves each slot's pairs with its higher
    /// neighbours; stage 6 those a lower neighbour did not hand over).
    pub pairs_solved: u64,
    /// Stage 6: neighbour entries that reused the lower id's solution of the same pair.
    pub pairs_reused: u64,
    /// Stage 6: obstacle ORCA lines built.
    pub obstacle_lines: u64,
    /// Stage 6: agent ORCA lines built (`neighbors_found`, less the neighbours of lower
    /// priority, which get no line unless the two discs overlap,
    /// [`deep_overlap_line`](crate::orca::lines::deep_overlap_line)).
    pub agent_lines: u64,
    /// Stage 7: agents whose LP2 failed on an agent line, solved by LP3 (a dense crowd).
    pub lp3_fallbacks: u64,
    /// Stage 7: agents whose obstacle lines alone were infeasible (squeezed into a gap or a
    /// corner), solved by LP3 over the obstacle lines.
    pub obstacle_lp3_fallbacks: u64,
    /// Stage 7: agents whose new speed is their max speed (within `max_speed · 2⁻¹⁶` of
    /// `max_speed²`, i.e. about 2⁻¹⁷ units per second; agents with max speed 0 are not
    /// counted).
    pub at_max_speed: u64,
    /// Stage 5b: agents whose preferred direction was turned (passing side or
    /// escalation, [`crate::liveness`]).
    pub steered: u64,
    /// Stage 5b: agents yielding right of way.
    pub yielding: u64,
    /// Stage 7: agents stalled after this step (their stall counter is above 0).
    pub stalled: u64,
    /// Stage 7: agents whose stall began with this step (their counter went from 0 to 1).
    pub stalls_begun: u64,
    /// Stage 7: stalled agents whose own preferred velocity points into a wall.
    pub blocked_by_obstacle: u64,
    /// Stage 7: agents with an acceleration limit ([`crate::AgentModel::max_accel`]) that
    /// found no velocity satisfying the walls within reach and braked
    /// ([`SolvePath::Braked`]).
    pub braked: u64,
}

/// Wall-clock time of each stage of the last [`step`](crate::Simulator::step), measured only
/// when enabled with [`Simulator::set_stage_timing`](crate::Simulator::set_stage_timing) (zero
/// otherwise). Read with [`Simulator::stage_times`](crate::Simulator::stage_times).
///
/// Diagnostics for profiling (`lockstep-orca bench` prints them), never state and never an
/// input of the simulation: the step reads the monotonic clock, nothing it computes depends on
/// it. Platforms without a clock (`wasm32-unknown-unknown`) must leave timing off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StageTimes {
    /// Stage 1: applying the queued commands.
    pub inputs: Duration,
    /// Stage 1a: navigation (the mesh rebuilt after obstacle commands, replan triggers, path
    /// searches).
    pub navigate: Duration,
    /// Part of stage 1a (counted in [`navigate`](Self::navigate), not again in
    /// [`total`](Self::total)): serving the pending path requests within the budget, the
    /// searches and field plans and the orders they give, without the replan triggers and the
    /// traffic control around them.
    pub planning: Duration,
    /// Stage 1b: steering ordered agents.
    pub orders: Duration,
    /// Stage 2: rebuilding the obstacle tree (when the set changed).
    pub obstacles: Duration,
    /// Stage 3: building the agent kd-tree.
    pub tree: Duration,
    /// Stages 4 and 5: neighbour search and the pairs solved by the lower id.
    pub neighbors: Duration,
    /// Stages 5b to 7 and stage 8's new positions: steering, ORCA lines, linear programs,
    /// outcomes.
    pub solve: Duration,
    /// Stages 8 and 9: the domain check, committing the motion and the inputs.
    pub integrate: Duration,
}

impl StageTimes {
    /// The sum of the stages.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.inputs
            + self.navigate
            + self.orders
            + self.obstacles
            + self.tree
            + self.neighbors
            + self.solve
            + self.integrate
    }
}

impl std::ops::AddAssign<&StageTimes> for StageTimes {
    /// Adds another step's times stage by stage (sums over a run).
    fn add_assign(&mut self, t: &StageTimes) {
        self.inputs += t.inputs;
        self.navigate += t.navigate;
        self.planning += t.planning;
        self.orders += t.orders;
        self.obstacles += t.obstacles;
        self.tree += t.tree;
        self.neighbors += t.neighbors;
        self.solve += t.solve;
        self.integrate += t.integrate;
    }
}

/// Times consecutive stages when enabled (one branch per stage when not).
pub(crate) struct StageClock(Option<Instant>);

impl StageClock {
    #[inline]
    pub(crate) fn start(enabled: bool) -> Self {
        Self(enabled.then(Instant::now))
    }

    /// Adds the time since the last lap to `into`.
    #[inline]
    pub(crate) fn lap(&mut self, into: &mut Duration) {
        if let Some(t0) = self.0 {
            let t1 = Instant::now();
            *into += t1 - t0;
            self.0 = Some(t1);
        }
    }
}

/// What happened to one agent in the last step
/// ([`Simulator::agent_outcome`](crate::Simulator::agent_outcome)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AgentOutcome {
    /// Which program produced its new velocity: [`SolvePath::Lp2`] solved every line; the LP3
    /// paths relaxed some.
    pub solve: SolvePath,
    /// With an LP3 path: the largest violation of an agent line the new velocity accepts, in
    /// units per second (the exact `det(direction, point − v)` of the most violated line,
    /// rounded toward −∞; 0 when none is violated). 0 with LP2.
    pub penetration: Fx,
    /// The tick its current stall began, if it is stalled after this step (see
    /// [`crate::liveness`]): the tick at the start of its first stalled step.
    pub stalled_since: Option<u64>,
    /// The agent it gave right of way to in this step, if it yielded.
    pub yielding_to: Option<AgentId>,
    /// Stalled with its own preferred velocity pointing into a wall (it violates one of the
    /// agent's obstacle lines): the game should give it another route.
    pub blocked_by_obstacle: bool,
    /// Whether its preferred direction was turned by the deadlock resolution.
    pub steered: bool,
    /// "No solution": with an acceleration limit, no velocity within reach satisfied its
    /// obstacle lines, and it braked ([`SolvePath::Braked`]).
    pub no_solution: bool,
}

impl Default for AgentOutcome {
    fn default() -> Self {
        Self {
            solve: SolvePath::Lp2,
            penetration: Fx::ZERO,
            stalled_since: None,
            yielding_to: None,
            blocked_by_obstacle: false,
            steered: false,
            no_solution: false,
        }
    }
}

/// One chunk's counters of stages 5b to 8 ([`StepStats`]' fields of the same names, and the
/// pairs that stage 6 solved or reused).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SolveCounts {
    pub(super) pairs_solved: u64,
    pub(super) pairs_reused: u64,
    pub(super) steered: u64,
    pub(super) yielding: u64,
    pub(super) obstacle_lines: u64,
    pub(super) agent_lines: u64,
    pub(super) lp3: u64,
    pub(super) lp3_obstacles: u64,
    pub(super) at_max: u64,
    pub(super) stalled: u64,
    pub(super) begun: u64,
    pub(super) blocked: u64,
    pub(super) braked: u64,
}

impl SolveCounts {
    pub(super) fn add(&mut self, o: &Self) {
        self.pairs_solved += o.pairs_solved;
        self.pairs_reused += o.pairs_reused;
        self.steered += o.steered;
        self.yielding += o.yielding;
        self.obstacle_lines += o.obstacle_lines;
        self.agent_lines += o.agent_lines;
        self.lp3 += o.lp3;
        self.lp3_obstacles += o.lp3_obstacles;
        self.at_max += o.at_max;
        self.stalled += o.stalled;
        self.begun += o.begun;
        self.blocked += o.blocked;
        self.braked += o.braked;
    }

    #[inline]
    pub(super) fn count(&mut self, obstacle_lines: usize, path: SolvePath, at_max: bool) {
        self.obstacle_lines += obstacle_lines as u64;
        match path {
            SolvePath::Lp2 => {}
            SolvePath::Lp3Agents => self.lp3 += 1,
            SolvePath::Lp3Obstacles => self.lp3_obstacles += 1,
            SolvePath::Braked => self.braked += 1,
        }
        self.at_max += u64::from(at_max);
    }
}

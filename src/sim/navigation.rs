//! Navigation in the simulator: the navigation settings and every navigating agent's record
//! (state), the derived mesh, the queries games ask, and stage 1a of the tick, `navigate`,
//! which plans [`Command::NavigateTo`](crate::Command::NavigateTo) orders within a budget.
//!
//! # State and derived data
//! [`NavParams`] (set with [`Simulator::set_navigation`]) and the per-agent [`NavRecord`]s
//! (sorted by agent id), the budget debt and the "obstacles changed" flag are state: hashed
//! (an extension of the canonical bytes written only when navigation is in use, so states that
//! never use it keep their hashes), snapshotted (format version 5) and compared by
//! [`snapshot::diff`](crate::snapshot::diff). The [`NavMesh`] is derived: a pure function of
//! the obstacle set and the parameters, shared as an `Arc` with saved states
//! ([`SimState`](crate::SimState)), rebuilt when either changes and after a restore — never
//! stored.
//!
//! # Stage 1a, `navigate` (after the inputs, before the orders are steered)
//! 1. The mesh is rebuilt if an obstacle command of this tick changed the set: locally, around
//!    the change, into the mesh a full build gives ([`NavMesh::update`]).
//! 2. Each navigating agent with a plan, ascending id, checks its replan triggers, all read
//!    from state: the obstacle set changed since the last stage 1a and a segment of its
//!    remaining path is no longer clear for its radius ([`NavMesh::raycast`]), or its last plan
//!    was [`Unreachable`](PathStatus::Unreachable) (a removed obstacle may open a way); it
//!    made no progress towards its current target for 3 s ([`STUCK_SECONDS`]: the distance
//!    shrank by less than `speed · dt / 16` since its best; an order that has arrived or given
//!    up rests and is never stuck, nor is an `Unreachable` plan's agent stepped aside for good
//!    at a door (`navigation_traffic`) walking back to its place while its way there is clear
//!    of walls); it stands at the end of a
//!    [`NoStart`](PathStatus::NoStart) plan; or it comes within [`PARTIAL_LOOKAHEAD_RADII`]
//!    radii of the end of a [`Partial`](PathStatus::Partial) plan (a field's window, a capped
//!    search), which is extended at once. Any other triggered replan becomes pending and is
//!    served once 2 s ([`REPLAN_COOLDOWN_SECONDS`]) have passed since the agent's last plan;
//!    meanwhile it follows its old path. An agent with queued legs
//!    ([`Simulator::nav_legs`]) whose plan (not `Partial`, not `NoStart`) is done as a waypoint
//!    is (within the waypoint tolerance of its end, or past it, the order at its last point)
//!    or whose order arrived, or whose order gave up (whatever its plan), and that is not
//!    waiting at a door takes its next leg: its record becomes a new order's (that goal, pending, status `None`), served
//!    in step 3 as a first plan from where it is, while it goes on along its old path.
//! 3. Pending requests are served first plans of new orders first, oldest request first
//!    (ties in ascending agent id), then replans in ascending agent id. An agent whose `(goal, radius)` is
//!    shared by at least [`FIELD_MIN_USERS`] navigating agents (state: the records and the
//!    radii) is planned from that goal's distance field
//!    ([`Field`](crate::navigation::Field)): its corridor is read off the field and pulled
//!    to the string's first corner, and the path on from there is the field's, shared by the
//!    units turning at that corner: the whole route to the goal. Where the shared path would
//!    need the funnel's repair, the corridor of at most [`FIELD_WINDOW`] portals is pulled
//!    instead; a longer route is then [`Partial`](PathStatus::Partial) and extended near its
//!    end. A start the field cannot serve, and every other agent, gets its
//!    own search. The fields are kept between ticks as a cache (`FieldCache`), never state:
//!    what a field answers and charges is a function of the mesh and its key. Each tick may
//!    spend [`NavParams::budget`] node expansions less the debt: a search costs its
//!    expansions plus [`SEARCH_PLAN_EXPANSIONS`] (its point location, walkability tests,
//!    funnel and order), a plan of at most one expansion (one triangle, a goal in plain
//!    sight) [`FIELD_PLAN_EXPANSIONS`]; a plan from a field costs [`FIELD_PLAN_EXPANSIONS`] plus the
//!    field's growth past what this tick already charged for it, a quarter per triangle
//!    ([`FIELD_SETTLES_PER_EXPANSION`]), counted as a fresh field would grow (its rank of the
//!    start's triangle), cached or not. A search runs whole (at most
//!    [`NavParams::search_cap`] expansions) inside the tick, so no half-done search is ever
//!    state. Requests are started while the tick's spending is below its allowance; the last
//!    one may overshoot, and the overshoot is owed (the debt) and repaid by the next ticks. A
//!    request that does not get its turn stays pending.
//!
//!    **Quick first plans.** When the agents waiting for a first plan are more than the
//!    allowance can serve at the least a search costs (two expansions and
//!    [`SEARCH_PLAN_EXPANSIONS`]), or one of them already waited a tick and the allowance
//!    could not serve them all even at the search cap, each first plan that needs a search of
//!    its own is capped at [`NavParams::quick_plan_cap`] expansions (8 by default; 0 turns
//!    quick plans off) and charged
//!    [`QUICK_PLAN_EXPANSIONS`] on top. When it stops short of the goal, its
//!    [`Partial`](PathStatus::Partial) path (along the most promising corridor) sets the unit
//!    moving at once and the record stays pending: the full search from where the unit then
//!    is comes in the replans pass, with no cooldown, as the budget allows. So many new
//!    orders get every unit moving within a few ticks instead of each waiting for its whole
//!    search. Decided from state alone (the records, their ticks, the allowance); nothing
//!    new is kept.
//! 4. The plan's points become the agent's [`Order`] (an ordinary path: stage 1b steers along
//!    it), from its position. A plan without points ([`PathStatus::NoStart`]) holds the agent
//!    where it stands.
//!
//! Until its first plan an agent holds its position. Without navigation, or when the mesh
//! could not be built, `NavigateTo` behaves as `MoveTo`: the order goes straight to the goal and
//! the record says so ([`NavRecord::is_straight`]). A failed step undoes the stage with the
//! inputs: the orders it replaced go into the input log, the records and the mesh are put back.

use super::Simulator;
use crate::agent::AgentId;
use crate::domain::{self, check_range, checked_point};
use crate::error::SimError;
use crate::hash::CanonicalPart;
use crate::math::{Fx, Vec2};
use crate::navigation::{
    MAX_NAV_LEGS, MAX_QUICK_PLAN_CAP, NavMesh, NavParams, NavPath, PathRequest, PathStatus,
    QUICK_PLAN_CAP, RayHit, SearchWork,
};
use crate::orders::{MAX_PATH_POINTS, Order};
use crate::util::ByteSink;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

// The distance fields kept between ticks and the keys they serve: their own file.
#[path = "navigation_fields.rs"]
mod fields;
use fields::{FIELD_CACHE, FieldCache, SharedKeys, shared_keys};

// Stage 1a itself (the triggers, the requests, the budget): its own file.
#[path = "navigation_stage.rs"]
mod stage;

// Queued navigated legs (QueueMove after NavigateTo): their own file.
#[path = "navigation_legs.rs"]
mod legs;

// Traffic control at chokepoints (stage 1a, step 5): its own file, its own section.
#[path = "navigation_traffic.rs"]
mod traffic;
pub(crate) use traffic::{TrafficState, Waiter};

// Traffic control's cell lookups (the cores of crowds at rest, the units not at rest).
#[path = "navigation_traffic_grids.rs"]
mod traffic_grids;

// The derived data beside the state (the mesh, the kept fields and traffic portals, the
// search's scratch): its own file.
#[path = "navigation_derived.rs"]
mod derived;
pub(crate) use derived::NavDerived;

/// Seconds a navigating agent waits between two plans (Detour's `TARGET_REPLAN_DELAY` is 1).
pub(crate) const REPLAN_COOLDOWN_SECONDS: u64 = 2;
/// Seconds without progress after which a navigating agent replans.
pub(crate) const STUCK_SECONDS: u64 = 3;
/// Least navigating agents sharing a goal and a radius for their plans to come from one
/// distance field ([`Field`](crate::navigation::Field); plan §2.3) instead of a search each.
pub(crate) const FIELD_MIN_USERS: usize = 4;
/// Most portals of a plan taken from a field when its path is not the field's shared one: the
/// unit plans again near the window's end.
pub(crate) const FIELD_WINDOW: usize = 16;
/// Field triangles settled per expansion charged to the budget (a settle costs about a
/// quarter of a search expansion).
pub(crate) const FIELD_SETTLES_PER_EXPANSION: u32 = 4;
/// Expansions charged for one plan taken from a field (its corridor walk, funnel and order),
/// and for a plan that needed no search: measured with callgrind (`bench navigation`) at
/// about 11 search expansions' instructions (a charged unit is about 1.7 k instructions).
pub(crate) const FIELD_PLAN_EXPANSIONS: u64 = 11;
/// Expansions charged for a search on top of its own: its point location, walkability tests,
/// plain-sight test, funnel of the whole corridor and order, measured with callgrind at about
/// 24 expansions' instructions, so that the budget bounds the instructions of a tick's
/// planning and not only its expansions.
pub(crate) const SEARCH_PLAN_EXPANSIONS: u64 = 24;
/// Expansions charged for a quick first plan on top of its own (its point location,
/// walkability tests, fallback end, funnel and order), measured with callgrind.
pub(crate) const QUICK_PLAN_EXPANSIONS: u64 = 12;
/// How far before the end of a [`Partial`](PathStatus::Partial) plan, in radii, the unit
/// plans again (so a field's windows follow on without a stop).
pub(crate) const PARTIAL_LOOKAHEAD_RADII: i64 = 4;

// A navigated leg is a waypoint of the way: as many as a plain path holds behind its start.
const _: () = assert!(MAX_NAV_LEGS == MAX_PATH_POINTS - 1);

/// Most boundary vertices [`NavParams::boundary`] may have.
pub(crate) const MAX_BOUNDARY_VERTICES: usize = crate::obstacle::MAX_VERTICES;

/// One navigating agent's record: what it asked for and how its plan stands. Part of the
/// state. Read it with [`Simulator::nav_status`].
///
/// | [`status`](Self::status) | [`is_pending`](Self::is_pending) | meaning |
/// | --- | --- | --- |
/// | `None` | `true` | waiting for its first plan, holding its position |
/// | `None` | `false` | no mesh: the order goes straight to the goal, as `MoveTo` ([`is_straight`](Self::is_straight)) |
/// | `Some(s)` | `false` | following the plan of status `s` |
/// | `Some(s)` | `true` | a replan is due; following the old plan meanwhile (`Some(Partial)` right after a first plan: a quick plan, completed as the budget allows) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavRecord {
    goal: Vec2,
    status: Option<PathStatus>,
    pending: bool,
    planned_tick: u64,
    no_progress: u16,
    /// The least distance to the current target seen since the target was taken.
    best: Fx,
    /// The order's progress index that `best` was measured for.
    target: u32,
}

impl NavRecord {
    fn new(goal: Vec2, pending: bool, tick: u64) -> Self {
        Self {
            goal,
            status: None,
            pending,
            planned_tick: tick,
            no_progress: 0,
            best: Fx::ZERO,
            target: 0,
        }
    }

    /// The goal of the [`NavigateTo`](crate::Command::NavigateTo).
    #[must_use]
    pub fn goal(&self) -> Vec2 {
        self.goal
    }

    /// How the last plan ended; `None` before the first plan and without a mesh.
    #[must_use]
    pub fn status(&self) -> Option<PathStatus> {
        self.status
    }

    /// Whether a plan (the first, or a replan) waits to be served by stage 1a.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.pending
    }

    /// Whether the order was given without a mesh (no navigation, or a mesh that could not be
    /// built): it goes straight to the goal, as [`Command::MoveTo`](crate::Command::MoveTo).
    #[must_use]
    pub fn is_straight(&self) -> bool {
        self.status.is_none() && !self.pending
    }

    /// The tick of the last plan (before the first plan: of the request, or of the request
    /// it replaced while that one still waited, [`Command::NavigateTo`](crate::Command::NavigateTo)).
    #[must_use]
    pub fn planned_tick(&self) -> u64 {
        self.planned_tick
    }

    /// Ticks in a row without progress towards the current target.
    #[must_use]
    pub fn no_progress(&self) -> u16 {
        self.no_progress
    }

    /// Checks a decoded record (snapshot restore).
    fn validate(&self) -> Result<(), SimError> {
        checked_point(self.goal, "navigation goal")?;
        if let Some(PathStatus::GoalAdjusted { to } | PathStatus::Unreachable { to }) = self.status
        {
            checked_point(to, "navigation end point")?;
        }
        check_range(
            self.best,
            Fx::ZERO,
            Fx::MAX,
            "navigation best distance",
            ">= 0",
        )
    }
}

/// The navigation state: settings, records (ascending agent id), budget debt, and whether the
/// obstacle set changed since the last stage 1a.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NavState {
    pub params: Option<NavParams>,
    pub records: Vec<(AgentId, NavRecord)>,
    /// Expansions spent beyond the budget, repaid first.
    pub debt: u32,
    /// The obstacle set changed since the last stage 1a (paths are checked against the mesh).
    pub recheck: bool,
    /// Traffic control at chokepoints (see "Traffic" at the end of this file).
    pub traffic: TrafficState,
    /// The queued navigated legs ([`Command::QueueMove`](crate::Command::QueueMove) after a
    /// [`Command::NavigateTo`](crate::Command::NavigateTo)): per agent with a record, ascending
    /// id, the goals planned one after the other once the current one is reached; never empty.
    pub legs: Vec<(AgentId, Vec<Vec2>)>,
    /// The queued legs in all (derived from `legs`; bounded by
    /// [`MAX_TOTAL_PATH_POINTS`](crate::orders::MAX_TOTAL_PATH_POINTS)).
    pub leg_total: usize,
}

impl NavState {
    fn find(&self, id: AgentId) -> Result<usize, usize> {
        self.records.binary_search_by_key(&id, |&(i, _)| i)
    }

    pub(crate) fn get(&self, id: AgentId) -> Option<&NavRecord> {
        self.find(id).ok().map(|k| &self.records[k].1)
    }

    /// Drops agent `id`'s record and its queued legs (it got another order, was stopped or
    /// removed).
    pub(crate) fn forget(&mut self, id: AgentId) {
        if let Ok(k) = self.find(id) {
            self.records.remove(k);
        }
        self.drop_legs(id);
    }

    fn put(&mut self, id: AgentId, record: NavRecord) {
        match self.find(id) {
            Ok(k) => self.records[k].1 = record,
            Err(k) => self.records.insert(k, (id, record)),
        }
    }

    /// A restored navigation state, checked: valid settings, records in ascending id, each
    /// for an agent that has an order (`has_order`).
    pub(crate) fn restored(
        params: Option<NavParams>,
        records: Vec<(AgentId, NavRecord)>,
        debt: u32,
        recheck: bool,
        legs: Vec<(AgentId, Vec<Vec2>)>,
        has_order: impl Fn(AgentId) -> bool,
    ) -> Result<Self, Result<SimError, &'static str>> {
        if let Some(p) = &params {
            validate_params(p).map_err(Ok)?;
        }
        if records.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(Err("navigation record ids not strictly ascending"));
        }
        for (id, r) in &records {
            if !has_order(*id) {
                return Err(Err("navigation record of an agent without an order"));
            }
            r.validate().map_err(Ok)?;
        }
        if legs.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(Err("navigation leg ids not strictly ascending"));
        }
        let mut k = 0;
        for (id, goals) in &legs {
            // Both lists ascend: one merge pass finds every leg list's record.
            while records.get(k).is_some_and(|(r, _)| r < id) {
                k += 1;
            }
            let Some((_, r)) = records.get(k).filter(|(r, _)| r == id) else {
                return Err(Err("navigation legs of an agent without a record"));
            };
            if r.is_straight() {
                return Err(Err("navigation legs of an order that does not navigate"));
            }
            if !(1..=MAX_NAV_LEGS).contains(&goals.len()) {
                return Err(Err("navigation legs: 1 to 1,024 goals"));
            }
            for &g in goals {
                checked_point(g, "navigation leg").map_err(Ok)?;
            }
        }
        let leg_total = legs.iter().map(|(_, g)| g.len()).sum();
        if leg_total > crate::orders::MAX_TOTAL_PATH_POINTS {
            return Err(Err("navigation legs: more than 4,194,304 in all"));
        }
        Ok(Self {
            params,
            records,
            debt,
            recheck,
            traffic: TrafficState::default(),
            legs,
            leg_total,
        })
    }
}

fn put_fx(out: &mut dyn ByteSink, v: Fx) {
    out.put(&v.to_bits().to_le_bytes());
}

fn put_vec2(out: &mut dyn ByteSink, v: Vec2) {
    put_fx(out, v.x);
    put_fx(out, v.y);
}

impl CanonicalPart for NavState {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The navigation extension's bytes (see [`crate::hash`]).
    fn write_canonical(&self, out: &mut dyn ByteSink) {
        out.put(&[u8::from(self.params.is_some())]);
        if let Some(p) = &self.params {
            let boundary = p.boundary.as_deref();
            out.put(&[u8::from(boundary.is_some())]);
            let boundary = boundary.unwrap_or_default();
            out.put(&(boundary.len() as u32).to_le_bytes());
            for &v in boundary {
                put_vec2(out, v);
            }
            put_fx(out, p.margin);
            out.put(&p.budget.to_le_bytes());
            out.put(&p.search_cap.to_le_bytes());
        }
        out.put(&self.debt.to_le_bytes());
        out.put(&[u8::from(self.recheck)]);
        out.put(&(self.records.len() as u32).to_le_bytes());
        for (id, r) in &self.records {
            out.put(&id.0.to_le_bytes());
            put_vec2(out, r.goal);
            let (tag, to) = match r.status {
                None => (0xFF, Vec2::ZERO),
                Some(s @ (PathStatus::GoalAdjusted { to } | PathStatus::Unreachable { to })) => {
                    (s.canonical_byte(), to)
                }
                Some(s) => (s.canonical_byte(), Vec2::ZERO),
            };
            out.put(&[tag]);
            put_vec2(out, to);
            out.put(&[u8::from(r.pending)]);
            out.put(&r.planned_tick.to_le_bytes());
            out.put(&r.no_progress.to_le_bytes());
            put_fx(out, r.best);
            out.put(&r.target.to_le_bytes());
        }
        self.traffic
            .write_canonical(self.params.as_ref().map(|p| &p.traffic), out);
        if let Some(p) = self
            .params
            .as_ref()
            .filter(|p| p.quick_plan_cap != QUICK_PLAN_CAP)
        {
            out.put(b"Q");
            out.put(&p.quick_plan_cap.to_le_bytes());
        }
        // The queued legs, only when some agent has one (states without keep their hashes).
        if !self.legs.is_empty() {
            out.put(b"L");
            out.put(&(self.legs.len() as u32).to_le_bytes());
            for (id, goals) in &self.legs {
                out.put(&id.0.to_le_bytes());
                out.put(&(goals.len() as u32).to_le_bytes());
                for &g in goals {
                    put_vec2(out, g);
                }
            }
        }
    }
}

/// Checks navigation settings: budget and search cap at least 1, margin `0 ..= 1,000,000`,
/// quick-plan cap at most [`MAX_QUICK_PLAN_CAP`], a boundary of 3 to [`MAX_BOUNDARY_VERTICES`] points in the domain.
fn validate_params(p: &NavParams) -> Result<(), SimError> {
    if p.budget == 0 || p.search_cap == 0 {
        return Err(SimError::OutOfDomain {
            what: "navigation budget / search_cap",
            allowed: ">= 1",
        });
    }
    check_range(
        p.margin,
        Fx::ZERO,
        domain::MAX_COORD,
        "navigation margin",
        "0 ..= 1,000,000",
    )?;
    p.traffic.validate()?;
    if p.quick_plan_cap > MAX_QUICK_PLAN_CAP {
        return Err(SimError::OutOfDomain {
            what: "navigation quick_plan_cap",
            allowed: "0 ..= 64",
        });
    }
    if let Some(b) = &p.boundary {
        if !(3..=MAX_BOUNDARY_VERTICES).contains(&b.len()) {
            return Err(SimError::OutOfDomain {
                what: "navigation boundary",
                allowed: "3 ..= 4,096 points",
            });
        }
        for &v in b {
            checked_point(v, "navigation boundary point")?;
        }
    }
    Ok(())
}

/// `seconds` in ticks of `dt` (> 0), rounded up.
fn ticks(seconds: u64, dt: Fx) -> u64 {
    let dt = u128::from(dt.to_bits().unsigned_abs().max(1));
    (u128::from(seconds) << 32)
        .div_ceil(dt)
        .min(u128::from(u64::MAX)) as u64
}

fn no_mesh() -> SimError {
    SimError::OutOfDomain {
        what: "navigation query",
        allowed: "a navigation mesh (Simulator::set_navigation)",
    }
}

/// The order that follows `points` from `start` (a hold at `start` without points), at most
/// [`MAX_PATH_POINTS`] points: the plan is cut there, and the second flag says so.
fn planned_order(start: Vec2, mut points: Vec<Vec2>) -> (Order, bool) {
    let cut = points.len() > MAX_PATH_POINTS;
    points.truncate(MAX_PATH_POINTS);
    let order = Order::along(start, points).unwrap_or_else(|| Order::new(start, start));
    (order, cut)
}

impl Simulator {
    /// Turns navigation on with `params` (or off with `None`): the navigation mesh is built
    /// from the obstacle set ([`NavMesh::build`]) and kept up to date as obstacles come and go;
    /// [`Command::NavigateTo`](crate::Command::NavigateTo) orders plan their paths over it in
    /// stage 1a of the tick, `navigate` ([`crate::tick`]). The settings are state (hashed,
    /// snapshotted); the mesh is derived (rebuilt after a restore, never stored). An explicit
    /// [`NavParams::boundary`] is also a wall of the avoidance for every agent, navigating
    /// or not: a room in the obstacle tree ([`ObstacleSet::walls`](crate::obstacle::ObstacleSet::walls)),
    /// derived from the settings like the mesh.
    ///
    /// How requests are served: pending first plans, then replans, each in ascending agent
    /// id, each search whole
    /// (at most [`NavParams::search_cap`] expansions), while the tick's spending is below
    /// [`NavParams::budget`] less the debt; a search costs its expansions plus a fixed charge
    /// for its funnel, point location and order (a plan from a distance field, or one that
    /// needs no search, costs a smaller fixed charge); the
    /// overshoot of the last search is a debt repaid by the next ticks. A request not served
    /// stays pending (state). An agent holds its position until its first plan, then follows
    /// it as an ordinary [`Order`] path. It replans (once 2 s have passed since its last plan)
    /// when an obstacle change blocks the rest of its path for its radius (or its last plan
    /// was `Unreachable`), after 3 s without progress towards its current target, and at the
    /// end of a `Partial` or `NoStart` plan. Without navigation, or while the mesh cannot be
    /// built (an obstacle change past a cap), `NavigateTo` behaves as `MoveTo`.
    ///
    /// Turning navigation on (or changing the settings) plans every navigating agent again
    /// from scratch; turning it off leaves planned paths as they are and sends agents that
    /// wait for a first plan straight to their goals.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] for a budget or search cap of 0, a margin outside
    /// `0 ..= 1,000,000`, a quick-plan cap above 64, a boundary of fewer than 3 or more than 4,096 points or with a point
    /// outside the domain, or when the mesh cannot be built ([`NavMesh::build`]'s errors);
    /// nothing changes then.
    pub fn set_navigation(&mut self, params: Option<NavParams>) -> Result<(), SimError> {
        let derived = match &params {
            Some(p) => {
                validate_params(p)?;
                let mesh = NavMesh::build(&self.obstacles, p)?;
                Some(Arc::new(mesh))
            }
            None => None,
        };
        self.nav_mesh.mesh = derived;
        self.nav_mesh.stale = false;
        let on = params.is_some();
        self.nav.params = params;
        self.sync_walls();
        self.nav.debt = 0;
        self.nav.recheck = false;
        let Self {
            nav,
            orders,
            agents,
            ..
        } = self;
        // Agents sent straight to their goals: their queued legs follow as plain waypoints.
        let mut straight = Vec::new();
        for (id, r) in &mut nav.records {
            if on {
                // Planned again from scratch; the current order is followed meanwhile.
                r.status = None;
                r.pending = true;
            } else if r.status.is_none() && r.pending {
                // Holding for a first plan that will not come: straight to the goal now.
                let position = agents.get(*id).map_or(r.goal, |a| a.position);
                if orders.replan(*id, Order::new(position, r.goal)).is_ok() {
                    r.pending = false;
                    straight.push(*id);
                }
            } else {
                r.pending = false;
            }
        }
        for id in straight {
            nav.straighten_legs(id, orders);
        }
        Ok(())
    }

    /// The navigation settings, `None` when navigation is off.
    #[must_use]
    pub fn navigation(&self) -> Option<&NavParams> {
        self.nav.params.as_ref()
    }

    /// The navigation mesh of the current obstacle set (derived from the state, never stored):
    /// `None` when navigation is off or the mesh could not be built. After
    /// [`obstacles_mut`](Self::obstacles_mut) it is brought up to date by the next step or
    /// [`process_obstacles`](Self::process_obstacles).
    #[must_use]
    pub fn nav_mesh(&self) -> Option<&NavMesh> {
        self.nav_mesh.mesh.as_deref()
    }

    /// Agent `id`'s navigation record (`NavRecord`): `None` when its order is not a
    /// [`NavigateTo`](crate::Command::NavigateTo). The record holds the requested goal
    /// (`goal()`), how the last plan ended (`status()`, a [`PathStatus`]), whether a plan waits
    /// for the budget (`is_pending()`), the tick of the last plan (`planned_tick()`) and the
    /// ticks without progress (`no_progress()`):
    ///
    /// | `status()` | `is_pending()` | meaning |
    /// | --- | --- | --- |
    /// | `None` | `true` | waiting for its first plan, holding its position |
    /// | `None` | `false` | no mesh: the order goes straight to the goal, as `MoveTo` (`is_straight()`) |
    /// | `Some(s)` | `false` | following the plan of status `s` |
    /// | `Some(s)` | `true` | a replan is due; following the old plan meanwhile (`Some(Partial)` right after a first plan: a quick plan, completed as the budget allows) |
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn nav_status(&self, id: AgentId) -> Result<Option<NavRecord>, SimError> {
        self.slot(id)?;
        Ok(self.nav.get(id).copied())
    }

    /// Every navigation record, ascending agent id.
    pub(crate) fn nav_records(&self) -> &[(AgentId, NavRecord)] {
        &self.nav.records
    }

    /// The navigation state (hash, snapshot).
    pub(crate) fn nav_state(&self) -> &NavState {
        &self.nav
    }

    /// The mesh, and the radius checked, for a query.
    fn query_mesh(&self, points: &[Vec2], radius: Fx) -> Result<&NavMesh, SimError> {
        for &p in points {
            checked_point(p, "navigation query point")?;
        }
        check_range(
            radius,
            Fx::ZERO,
            domain::MAX_RADIUS,
            "navigation query radius",
            "0 ..= 1,000",
        )?;
        self.nav_mesh().ok_or_else(no_mesh)
    }

    /// A path from `from` to `to` for a disc of `radius` over the navigation mesh, at most
    /// [`NavParams::search_cap`] expansions (see [`NavMesh::find_path`]). Reads the derived
    /// mesh, never changes the state.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] for a point outside the domain, a radius outside
    /// `0 ..= 1,000`, or without a mesh.
    pub fn nav_path(&self, from: Vec2, to: Vec2, radius: Fx) -> Result<NavPath, SimError> {
        let mesh = self.query_mesh(&[from, to], radius)?;
        let cap = self.nav.params.as_ref().map_or(1, |p| p.search_cap);
        let req = PathRequest {
            start: from,
            goal: to,
            radius,
            cap,
        };
        Ok(mesh.find_path(&req, &mut SearchWork::default()))
    }

    /// The walkable point for a disc of `radius` nearest to `p` ([`NavMesh::nearest_walkable`]).
    ///
    /// # Errors
    /// As [`nav_path`](Self::nav_path).
    pub fn nav_nearest_walkable(&self, p: Vec2, radius: Fx) -> Result<Option<Vec2>, SimError> {
        Ok(self.query_mesh(&[p], radius)?.nearest_walkable(p, radius))
    }

    /// Moves a disc of `radius` from `from` towards `to` over the mesh, stopping at the first
    /// wall ([`NavMesh::raycast`]).
    ///
    /// # Errors
    /// As [`nav_path`](Self::nav_path).
    pub fn nav_raycast(&self, from: Vec2, to: Vec2, radius: Fx) -> Result<RayHit, SimError> {
        Ok(self
            .query_mesh(&[from, to], radius)?
            .raycast(from, to, radius))
    }

    /// Whether a disc of `radius` at `p` lies in walkable space ([`NavMesh::is_walkable`]).
    ///
    /// # Errors
    /// As [`nav_path`](Self::nav_path).
    pub fn nav_is_walkable(&self, p: Vec2, radius: Fx) -> Result<bool, SimError> {
        Ok(self.query_mesh(&[p], radius)?.is_walkable(p, radius))
    }

    /// [`Command::NavigateTo`](crate::Command::NavigateTo): records the request and gives the
    /// agent a holding order (straight to the goal without navigation; when the mesh turns
    /// out missing, stage 1a sends it straight in the same tick); returns the order it
    /// replaced. Reads only state (never the mesh, which may be stale until stage 1a).
    ///
    /// The goal the agent already navigates to keeps the plan, the order and its progress
    /// while the agent is on its way by that plan (waiting for its first plan, or its order
    /// unfinished and the agent within 4 radii of its current leg): only the queued legs and
    /// the order's speed go, as with any new order. A finished order (arrived, given up) or
    /// an agent moved off its path (a teleport, a crowd) is planned afresh. A request that replaces
    /// one still waiting for its first plan keeps that one's tick, its place among the first
    /// plans served (stage 1a serves them oldest first): orders repeated faster than the
    /// budget serves them never keep the same units waiting for ever.
    pub(super) fn navigate_to(
        &mut self,
        id: AgentId,
        goal: Vec2,
    ) -> Result<Option<Order>, SimError> {
        checked_point(goal, "goal")?;
        let position = self.agent_position(id)?;
        let planned = self.nav.params.is_some();
        let current = self.nav.get(id).copied();
        // Still on its way by that plan: waiting for its first plan (made from wherever it
        // stands then), or its order unfinished and the unit within 4 radii of its current
        // leg (not moved off it by a teleport or a crowd: a plan from there is made afresh).
        let reach = self.agent_params(id)?.radius.saturating_mul_int(4);
        let on_its_way = |r: &NavRecord, o: &Order| {
            r.status.is_none()
                || (!o.status().is_finished() && {
                    let next = o.progress();
                    let from = next
                        .checked_sub(1)
                        .and_then(|k| o.path().get(k))
                        .copied()
                        .unwrap_or_else(|| o.start());
                    crate::geom::cmp_dist_point_segment(from, o.target(), position, reach)
                        != std::cmp::Ordering::Greater
                })
        };
        if planned
            && let Some(r) = current
            && r.goal == goal
            && !r.is_straight()
            && self.orders.get(&id).is_some_and(|o| on_its_way(&r, o))
        {
            let old = self.set_order_speed(id, None)?;
            self.nav.drop_legs(id);
            return Ok(Some(old));
        }
        let since = current
            .filter(|r| r.pending && r.status.is_none())
            .map_or(self.tick, |r| r.planned_tick);
        let order = Order::new(position, if planned { position } else { goal });
        let old = self.orders.insert(id, order)?;
        self.nav.put(id, NavRecord::new(goal, planned, since));
        self.nav.drop_legs(id);
        Ok(old)
    }

    /// Makes agent `id`'s current order, a straight way to `goal` in plain sight, its
    /// navigation plan (a record of status `Complete`, planned now): it walks on undisturbed,
    /// and the replan triggers (no progress for 3 s, an obstacle change across its way) plan
    /// it anew if it is pushed off or the way closes. Used at the end of a march.
    pub(super) fn navigate_as_planned(&mut self, id: AgentId, goal: Vec2) {
        let mut record = NavRecord::new(goal, false, self.tick);
        record.status = Some(PathStatus::Complete);
        if let (Some(o), Ok(p)) = (self.orders.get(&id), self.agent_position(id)) {
            record.best = (o.target() - p).length();
            record.target = o.progress() as u32;
        }
        self.nav.put(id, record);
        self.nav.drop_legs(id);
    }

    /// Records that the obstacle set changed: the mesh is rebuilt before it is next read, and
    /// the next stage 1a checks the navigating agents' paths.
    pub(super) fn obstacles_changed(&mut self) {
        self.nav_mesh.stale = true;
        self.nav.recheck |= self.nav.params.is_some();
    }

    /// Rebuilds the mesh if the obstacle set changed since it was built.
    pub(super) fn sync_nav_mesh(&mut self) {
        if self.nav_mesh.stale {
            self.sync_walls();
            self.nav_mesh
                .refresh(&self.obstacles, self.nav.params.as_ref());
        }
    }

    /// Gives the obstacle set the walls of the settings' boundary (the boundary holds the
    /// agents in: its walls join the obstacle tree), unless it has them: after
    /// `set_navigation`, and after any change of the set (`obstacles_mut` may have replaced
    /// it by a set without them), before the tree is next built, and on restore.
    pub(super) fn sync_walls(&mut self) {
        let boundary = self.nav.params.as_ref().and_then(|p| p.boundary.as_deref());
        let walls = crate::obstacle::ObstacleSet::walls_of(boundary);
        if !self.obstacles.has_walls(walls.as_ref()) {
            Arc::make_mut(&mut self.obstacles).set_walls(walls);
        }
    }
}

//! Orders: move orders as simulation state, steered by the simulator itself.
//!
//! A game does not have to compute every unit's preferred velocity every tick. It gives orders,
//! as lockstep [`Command`](crate::Command)s or through [`Simulator::apply`](crate::Simulator::apply):
//!
//! * [`Command::MoveTo`](crate::Command::MoveTo): go to a point (replaces any path);
//! * [`Command::QueueMove`](crate::Command::QueueMove): then go on to another point (a
//!   shift-click: the path's current end becomes a waypoint, passed at full speed);
//! * [`Command::Stop`](crate::Command::Stop): drop the order and stand (preferred velocity zero).
//!
//! An order is part of the state: hashed, snapshotted, restored by a rollback, carried by a
//! replay. So a replay of a match stores the orders, not thousands of preferred velocities per
//! tick, and a rollback that restores a state restores what every unit was told to do.
//!
//! # The steering rule (stage 1b of the tick, after the inputs)
//! Every tick, each agent with an order first advances along its path: while its current target
//! is a waypoint (not the path's last point) that it is *done with*, the next point becomes the
//! target. A waypoint `w` is done when the agent is within the waypoint tolerance of it, or past
//! it: with `a` the point before `w` (the agent's position when the order was given, for the
//! first point), `(position − w) · (w − a) > 0` (exact `i128`). Then its preferred velocity is
//! set, with `s` the order speed and `l` the slow-down distance of [`Steering`]:
//!
//! * towards a waypoint: `unit(w − position) · s` (full speed, never slowing);
//! * towards the goal, `g = goal − position`: `unit(g) · s` when `|g|² > l²`, otherwise `g` when
//!   `l = s` (RVO2's rule), zero when `l = 0`, else `g · (s / l)` (a linear slow-down);
//! * plus the [`Steering::perturbation`], if any ([`Perturbation::offset`] of the tick and id);
//! * each component clamped to the velocity domain (±1,000).
//!
//! An agent without an order keeps the preferred velocity it was given ([`Command::SetPrefVelocity`](crate::Command::SetPrefVelocity),
//! RVO2's model). For an agent *with* an order the order decides: a `SetPrefVelocity` is
//! overwritten at its next step (send [`Command::Stop`](crate::Command::Stop) first to steer it by hand).
//! An order stays until `Stop`, a new order or the agent's removal, but it *finishes*: see
//! [arrival](#arrival-and-the-order-lifecycle).
//!
//! # Arrival and the order lifecycle
//! Every order has a status ([`OrderStatus`]: moving, blocked, arrived, given up), kept in the
//! order with its counter of ticks without progress and its rest point (state: hashed,
//! snapshotted, replayed), queryable with
//! [`Simulator::order_status`](crate::Simulator::order_status); each step lists its changes
//! in [`Simulator::order_events`](crate::Simulator::order_events). A unit that reaches its goal
//! (within [`Steering::arrive_within`]) rests there; units sent to one point settle around it
//! (within `settle(n)`, [`settle_radius`], and rest within [`settled_reach`]) instead of
//! pushing for ever; a pushed unit walks
//! back or settles next to its goal; with [`Steering::give_up_after`] a unit without progress
//! gives up. The rules are in [`arrival`] (and docs/orders.md). An order
//! may have its own speed ([`Command::SetOrderSpeed`](crate::Command::SetOrderSpeed)), and
//! [`groups`] give one order to many units.
//!
//! ```
//! use lockstep_orca::{Command, Simulator, SimulatorParams, Vec2};
//!
//! let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
//! let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
//! sim.queue_command(0, Command::MoveTo { id: a, goal: Vec2::from_int(10, 0) }).unwrap();
//! sim.queue_command(0, Command::QueueMove { id: a, goal: Vec2::from_int(10, 10) }).unwrap();
//! for _ in 0..200 {
//!     sim.step().unwrap();
//! }
//! let order = sim.agent_order(a).unwrap().unwrap();
//! assert_eq!(order.target(), Vec2::from_int(10, 10)); // the waypoint (10, 0) is done
//! assert!((sim.agent_position(a).unwrap() - order.goal()).length() < 1);
//! ```

use crate::agent::AgentId;
use crate::domain::{self, check_range, checked_point};
use crate::error::SimError;
use crate::math::{Fx, Vec2, unit_from_turns, wide_mul};
use crate::util::{SeededWords, splitmix64};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::HashMap;

pub mod arrival;
pub mod formation;
pub mod groups;
pub use arrival::{
    Arrival, BLOCKED_AFTER, OrderEvent, OrderEventKind, OrderStatus, SETTLE_AFTER, settle_radius,
    settled_reach,
};
pub(crate) use arrival::{ArrivalInput, Crowd, next_arrival, resting, ticks_for};

/// Every agent's order, by id (absent: no order), and the number of path points they hold in
/// all (bounded by [`MAX_TOTAL_PATH_POINTS`]). Part of the state.
///
/// A vector sorted by id: the tick reads it in id order, in chunks (stage 1b), and agent slots
/// are in id order too, so the two are merged rather than searched. Giving or dropping an order
/// moves the ones after it (a command, not a per-tick cost).
///
/// Equality is the state's: the list, the point count and the groups (the goal counts and
/// their per-order copy are derived from the list).
#[derive(Debug, Default)]
pub(crate) struct Orders {
    list: Vec<(AgentId, Order)>,
    points: usize,
    /// How many orders have each goal (raw bits): derived from `list`, kept by every change.
    /// Looked up, never iterated (so a hash map: a plan that changes a unit's goal counts
    /// twice).
    goals: HashMap<(i64, i64), u32, SeededWords>,
    /// `goals` read for each order, aligned with `list`, when `shared_fresh`: a cache that
    /// spares stage 1b a map lookup per order per tick (the arrival rule asks it). Derived
    /// from `list`, refreshed by [`refresh_shared`](Self::refresh_shared) after a change.
    shared: Vec<u32>,
    shared_fresh: bool,
    /// The groups ([`groups`]): state that goes with the orders (hashed, snapshotted with
    /// them).
    pub(crate) groups: groups::Groups,
}

impl Clone for Orders {
    fn clone(&self) -> Self {
        Self {
            list: self.list.clone(),
            points: self.points,
            goals: self.goals.clone(),
            shared: self.shared.clone(),
            shared_fresh: self.shared_fresh,
            groups: self.groups.clone(),
        }
    }

    /// Field by field, so the vectors keep their buffers (a rollback loop reuses them).
    fn clone_from(&mut self, source: &Self) {
        self.list.clone_from(&source.list);
        self.points = source.points;
        self.goals.clone_from(&source.goals);
        self.shared.clone_from(&source.shared);
        self.shared_fresh = source.shared_fresh;
        self.groups.clone_from(&source.groups);
    }
}

impl PartialEq for Orders {
    fn eq(&self, other: &Self) -> bool {
        self.list == other.list && self.points == other.points && self.groups == other.groups
    }
}

impl Eq for Orders {}

fn goal_key(p: Vec2) -> (i64, i64) {
    (p.x.to_bits(), p.y.to_bits())
}

impl Orders {
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn find(&self, id: AgentId) -> Result<usize, usize> {
        self.list.binary_search_by_key(&id, |&(i, _)| i)
    }

    pub(crate) fn get(&self, id: &AgentId) -> Option<&Order> {
        self.find(*id).ok().map(|k| &self.list[k].1)
    }

    /// Agent `id`'s order, for ids asked in ascending order: the search starts at `*from`
    /// (0 for the first id) and gallops forward (steps 1, 2, 4, … then a binary search in the
    /// last step), leaving `*from` at the first order not below `id`. The same answer as
    /// [`get`](Self::get), in `O(log gap)` instead of `O(log n)`: a loop over the navigation
    /// records (ascending ids) reads the orders of neighbours in the list.
    pub(crate) fn get_from(&self, from: &mut usize, id: AgentId) -> Option<&Order> {
        let list = &self.list[(*from).min(self.list.len())..];
        let (mut lo, mut step) = (0, 1);
        // `list[..lo]` is below `id`; find an end `hi` with `list[hi].0 >= id` (or the end).
        let hi = loop {
            let probe = lo + step - 1;
            match list.get(probe) {
                Some(&(i, _)) if i < id => {
                    lo = probe + 1;
                    step *= 2;
                }
                _ => break probe.min(list.len()),
            }
        };
        let k = lo + list[lo..hi].partition_point(|&(i, _)| i < id);
        *from = (*from).min(self.list.len()) + k;
        self.list
            .get(*from)
            .filter(|(i, _)| *i == id)
            .map(|(_, o)| o)
    }

    /// Agent `id`'s order, to change its speed (not its path: the goal counts stay).
    pub(crate) fn get_mut(&mut self, id: &AgentId) -> Option<&mut Order> {
        let k = self.find(*id).ok()?;
        Some(&mut self.list[k].1)
    }

    /// Brings the per-order goal counts of [`list_and_shared`](Self::list_and_shared) up to date after a change
    /// (one map lookup per order; nothing when nothing changed).
    pub(crate) fn refresh_shared(&mut self) {
        if !self.shared_fresh {
            let Self {
                list,
                goals,
                shared,
                ..
            } = self;
            shared.clear();
            shared.extend(
                list.iter()
                    .map(|(_, o)| goals.get(&goal_key(o.goal())).copied().unwrap_or(0)),
            );
            self.shared_fresh = true;
        }
    }

    fn count_goal(&mut self, goal: Vec2, add: bool) {
        self.shared_fresh = false;
        let key = goal_key(goal);
        if add {
            *self.goals.entry(key).or_insert(0) += 1;
        } else if let Some(c) = self.goals.get_mut(&key) {
            *c -= 1;
            if *c == 0 {
                self.goals.remove(&key);
            }
        }
    }

    /// How many orders have goal `goal` (exact bits).
    pub(crate) fn sharing(&self, goal: Vec2) -> u32 {
        self.goals.get(&goal_key(goal)).copied().unwrap_or(0)
    }

    /// Ascending id.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = (&AgentId, &Order)> {
        self.list.iter().map(|(id, o)| (id, o))
    }

    /// The orders, ascending by id.
    pub(crate) fn as_slice(&self) -> &[(AgentId, Order)] {
        &self.list
    }

    /// The orders, ascending by id, to change their progress, beside how many orders share
    /// each one's goal, aligned with them (after [`refresh_shared`](Self::refresh_shared)).
    pub(crate) fn list_and_shared(&mut self) -> (&mut [(AgentId, Order)], &[u32]) {
        debug_assert!(self.shared_fresh);
        (&mut self.list, &self.shared)
    }

    /// The orders, ascending by id, to swap their progress ([`Order::swap_progress`]).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [(AgentId, Order)] {
        &mut self.list
    }

    fn total_error() -> SimError {
        SimError::OutOfDomain {
            what: "order path points in all",
            allowed: "at most 4,194,304",
        }
    }

    /// Gives agent `id` a new order, returning the one it replaces. Refused (nothing changes)
    /// when the points in all would pass [`MAX_TOTAL_PATH_POINTS`].
    pub(crate) fn insert(&mut self, id: AgentId, order: Order) -> Result<Option<Order>, SimError> {
        self.insert_at(id, order, self.find(id))
    }

    /// [`insert`](Self::insert) with `at`, [`find`](Self::find)`(id)`, already known.
    fn insert_at(
        &mut self,
        id: AgentId,
        order: Order,
        at: Result<usize, usize>,
    ) -> Result<Option<Order>, SimError> {
        let old = at.map_or(0, |k| self.list[k].1.path.len());
        let points = self.points - old + order.path.len();
        if points > MAX_TOTAL_PATH_POINTS {
            return Err(Self::total_error());
        }
        self.points = points;
        let old = match at {
            // The same goal (a replan): its count stands.
            Ok(k) if self.list[k].1.goal() == order.goal() => {
                return Ok(Some(std::mem::replace(&mut self.list[k].1, order)));
            }
            Ok(k) => Some(std::mem::replace(&mut self.list[k].1, order)),
            Err(k) => {
                self.list.insert(k, (id, order));
                None
            }
        };
        let goal = match at {
            Ok(k) | Err(k) => self.list[k].1.goal(),
        };
        self.count_goal(goal, true);
        if let Some(o) = &old {
            self.count_goal(o.goal(), false);
        }
        Ok(old)
    }

    /// Gives agent `id` a new path for the same order (a navigation plan or replan): as
    /// [`insert`](Self::insert), the order's own speed carried over.
    pub(crate) fn replan(
        &mut self,
        id: AgentId,
        mut order: Order,
    ) -> Result<Option<Order>, SimError> {
        let at = self.find(id);
        if let Ok(k) = at {
            order.set_speed(self.list[k].1.speed());
        }
        self.insert_at(id, order, at)
    }

    /// Appends `goal` to agent `id`'s path ([`Order::queue`]). `Ok(false)` when it has no order.
    pub(crate) fn queue(&mut self, id: AgentId, goal: Vec2) -> Result<bool, SimError> {
        let Ok(k) = self.find(id) else {
            return Ok(false);
        };
        if self.points >= MAX_TOTAL_PATH_POINTS {
            return Err(Self::total_error());
        }
        let old_goal = self.list[k].1.goal();
        self.list[k].1.queue(goal)?;
        self.points += 1;
        self.count_goal(old_goal, false);
        self.count_goal(goal, true);
        Ok(true)
    }

    pub(crate) fn remove(&mut self, id: &AgentId) -> Option<Order> {
        let k = self.find(*id).ok()?;
        let (_, o) = self.list.remove(k);
        self.points -= o.path.len();
        self.count_goal(o.goal(), false);
        Some(o)
    }
}

/// Most path points all orders together may hold (2²², 64 MiB of points): what bounds the
/// orders' share of a snapshot.
pub const MAX_TOTAL_PATH_POINTS: usize = 1 << 22;

/// Most points an order's path may hold (1,024 waypoints and the goal, a scenario route's
/// limit); a [`Command::QueueMove`](crate::Command::QueueMove)
/// beyond it is rejected.
pub const MAX_PATH_POINTS: usize = 1_025;

/// One agent's move order: a path of points and how far along it the agent is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    /// Where the agent stood when the order was given: the point before the first waypoint.
    start: Vec2,
    /// The points to visit, the last one being the goal. Never empty.
    path: Vec<Vec2>,
    /// Index into `path` of the current target.
    next: u32,
    /// Arrival and lifecycle ([`OrderStatus`]). Not in the serde form of snapshot formats 3
    /// and 4 (which restore it as a new order's); format 5 stores it beside the order.
    #[serde(skip)]
    arrival: Arrival,
    /// The order's own preferred speed (`None`: the [`Steering::speed`], else the agent's
    /// `max_speed`). Stored as `arrival` is.
    #[serde(skip)]
    speed: Option<Fx>,
}

/// What stage 1b changes in an order each tick: its progress along the path and its arrival
/// state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    pub next: u32,
    pub arrival: Arrival,
}

impl Order {
    /// Swaps the order's progress with `p` (stage 1b applies and undoes its steps so).
    pub(crate) fn swap_progress(&mut self, p: &mut Progress) {
        std::mem::swap(&mut self.next, &mut p.next);
        std::mem::swap(&mut self.arrival, &mut p.arrival);
    }

    /// An order to go to `goal` from `start`.
    pub(crate) fn new(start: Vec2, goal: Vec2) -> Self {
        Self {
            start,
            path: vec![goal],
            next: 0,
            arrival: Arrival::default(),
            speed: None,
        }
    }

    /// Where the order stands.
    #[must_use]
    pub fn status(&self) -> OrderStatus {
        self.arrival.status
    }

    /// The order's arrival state (status, ticks without progress, rest point).
    #[must_use]
    pub fn arrival(&self) -> Arrival {
        self.arrival
    }

    /// An order along `path` (waypoints, the goal last) from `start`, taking the points as
    /// they are: the order [`new`](Self::new) then [`queue`](Self::queue) of each later point
    /// would give, without growing the path point by point. `None` for an empty path or one
    /// of more than [`MAX_PATH_POINTS`] points.
    pub(crate) fn along(start: Vec2, path: Vec<Vec2>) -> Option<Self> {
        (!path.is_empty() && path.len() <= MAX_PATH_POINTS).then_some(Self {
            start,
            path,
            next: 0,
            arrival: Arrival::default(),
            speed: None,
        })
    }

    /// The order's own speed, if it has one.
    #[must_use]
    pub fn speed(&self) -> Option<Fx> {
        self.speed
    }

    /// Sets the order's own speed (checked by the caller).
    pub(crate) fn set_speed(&mut self, speed: Option<Fx>) {
        self.speed = speed;
    }

    /// Sets the arrival state (a restored snapshot's; checked by [`validate`](Self::validate)).
    pub(crate) fn set_arrival(&mut self, arrival: Arrival) {
        self.arrival = arrival;
    }

    /// Checks a decoded order (snapshot restore): non-empty path within the limit, the index
    /// inside it, every point in the domain.
    pub(crate) fn validate(&self) -> Result<(), SimError> {
        if self.path.is_empty() || self.path.len() > MAX_PATH_POINTS {
            return Err(SimError::OutOfDomain {
                what: "order path",
                allowed: "1 ..= 1,025 points",
            });
        }
        if self.next as usize >= self.path.len() {
            return Err(SimError::OutOfDomain {
                what: "order progress",
                allowed: "below the path length",
            });
        }
        checked_point(self.start, "order start")?;
        for &p in &self.path {
            checked_point(p, "order point")?;
        }
        checked_point(self.arrival.rest, "order rest point")?;
        if let Some(s) = self.speed {
            check_range(s, Fx::ZERO, domain::MAX_SPEED, "order speed", "0 ..= 1,000")?;
        }
        Ok(())
    }

    /// Appends `goal` to the path (the old goal becomes a waypoint).
    pub(crate) fn queue(&mut self, goal: Vec2) -> Result<(), SimError> {
        if self.path.len() >= MAX_PATH_POINTS {
            return Err(SimError::OutOfDomain {
                what: "order path",
                allowed: "1 ..= 1,025 points",
            });
        }
        self.path.push(goal);
        // A new goal: the order moves again (a shift-click after arrival goes on).
        self.arrival = Arrival::default();
        Ok(())
    }

    /// The point the agent stood at when the order was given.
    #[must_use]
    pub fn start(&self) -> Vec2 {
        self.start
    }

    /// Every point of the path, waypoints first, the goal last.
    #[must_use]
    pub fn path(&self) -> &[Vec2] {
        &self.path
    }

    /// Index into [`path`](Self::path) of the point the agent heads for.
    #[must_use]
    pub fn progress(&self) -> usize {
        self.next as usize
    }

    /// The point the agent heads for (as of the last step).
    #[must_use]
    pub fn target(&self) -> Vec2 {
        self.path[self.next as usize]
    }

    /// The path's last point.
    #[must_use]
    pub fn goal(&self) -> Vec2 {
        self.path[self.path.len() - 1]
    }

    /// Whether waypoint `k` is done for an agent at `position` (see the [module docs](self)).
    fn waypoint_done(&self, k: usize, position: Vec2, tolerance_sq: i128) -> bool {
        let w = self.path[k];
        let a = if k == 0 { self.start } else { self.path[k - 1] };
        let to = position - w;
        to.length_squared_wide() <= tolerance_sq || to.dot_wide(w - a) > 0
    }

    /// Whether the path's last point would be done as a waypoint at `position` (within
    /// `tolerance` of it, or past it), its progress being there: the end of a navigated leg
    /// with another queued behind it.
    pub(crate) fn end_done(&self, position: Vec2, tolerance: Fx) -> bool {
        let k = self.path.len() - 1;
        self.next as usize == k && self.waypoint_done(k, position, wide_mul(tolerance, tolerance))
    }

    /// The progress after advancing past every waypoint done at `position`, a waypoint being
    /// done within `tolerance` of it (or past it).
    #[inline]
    pub(crate) fn advanced(&self, position: Vec2, tolerance: Fx) -> u32 {
        let mut k = self.next as usize;
        if k + 1 < self.path.len() {
            // A waypoint ahead (the tolerance's square only then: most orders are at their goal).
            let tolerance_sq = wide_mul(tolerance, tolerance);
            while k + 1 < self.path.len() && self.waypoint_done(k, position, tolerance_sq) {
                k += 1;
            }
        }
        k as u32
    }
}

/// How ordered agents are steered: simulator-wide, part of the state (hashed, snapshotted).
/// The default: every field `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Steering {
    /// The preferred speed of an ordered agent. `None` (the default): each agent's own
    /// `max_speed`.
    pub speed: Option<Fx>,
    /// The distance from the goal under which an agent slows down. `None` (the default): the
    /// speed (RVO2's rule: the remaining vector once closer than the speed). `Some(0)`: full
    /// speed up to the goal.
    pub slow_within: Option<Fx>,
    /// The distance within which a waypoint is done. `None` (the default): the agent's radius.
    pub waypoint_tolerance: Option<Fx>,
    /// A deterministic perturbation added to every ordered agent's preferred velocity. Default
    /// none.
    pub perturbation: Option<Perturbation>,
    /// The distance from its goal within which an order has arrived ([`OrderStatus::Arrived`],
    /// the rule of [`arrival`](self#arrival-and-the-order-lifecycle)). `None` (the default):
    /// the agent's radius. (Not in the serde form of snapshot formats 3 and 4; format 5 stores
    /// it.)
    #[serde(skip)]
    pub arrive_within: Option<Fx>,
    /// How long (seconds) an order may make no progress before it gives up
    /// ([`OrderStatus::GivenUp`]). `None` (the default): never; an order without progress is
    /// only [`OrderStatus::Blocked`] (after [`BLOCKED_AFTER`], 3 s). Stored as `arrive_within`.
    #[serde(skip)]
    pub give_up_after: Option<Fx>,
    /// RVO2's goal rule for every order: orders sharing a goal never settle short of it (each
    /// keeps heading for its goal, as in RVO2), so a scene ported from RVO2 keeps its
    /// trajectories. Default `false`: units sent to one point settle around it (the rule of
    /// [`arrival`](self#arrival-and-the-order-lifecycle)). (Not in the serde form of snapshot
    /// formats 3 and 4; format 5 stores it.)
    #[serde(skip)]
    pub rvo2_goals: bool,
}

impl Steering {
    /// Checks every field against the domain: speed `0 ..= 1,000`, slow-down distance `0` or
    /// `0.001 ..= 1,000,000`, waypoint tolerance `0 ..= 1,000,000`, perturbation magnitude
    /// `0 ..= 1,000`.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] naming the first bad field.
    pub fn validate(&self) -> Result<(), SimError> {
        if let Some(s) = self.speed {
            check_range(
                s,
                Fx::ZERO,
                domain::MAX_SPEED,
                "steering speed",
                "0 ..= 1,000",
            )?;
        }
        if let Some(l) = self.slow_within
            && l != Fx::ZERO
        {
            check_range(
                l,
                domain::MIN_TIME,
                domain::MAX_COORD,
                "steering slow_within",
                "0 or 0.001 ..= 1,000,000",
            )?;
        }
        if let Some(t) = self.waypoint_tolerance {
            check_range(
                t,
                Fx::ZERO,
                domain::MAX_COORD,
                "waypoint tolerance",
                "0 ..= 1,000,000",
            )?;
        }
        if let Some(p) = self.perturbation {
            check_range(
                p.magnitude,
                Fx::ZERO,
                domain::MAX_SPEED,
                "perturbation magnitude",
                "0 ..= 1,000",
            )?;
        }
        if let Some(d) = self.arrive_within {
            check_range(
                d,
                Fx::ZERO,
                domain::MAX_COORD,
                "steering arrive_within",
                "0 ..= 1,000,000",
            )?;
        }
        if let Some(t) = self.give_up_after {
            check_range(
                t,
                domain::MIN_TIME,
                domain::MAX_COORD,
                "steering give_up_after",
                "0.001 ..= 1,000,000 s",
            )?;
        }
        Ok(())
    }

    /// Whether the fields stored beside the serde form (`arrive_within`, `give_up_after`) are
    /// the defaults.
    #[must_use]
    pub(crate) fn arrival_is_default(&self) -> bool {
        self.arrive_within.is_none() && self.give_up_after.is_none() && !self.rvo2_goals
    }

    /// The preferred velocity of agent `id` heading for a target (`heading`; the goal when
    /// `to_goal`) at `tick`, at the order speed `speed` (the rule of the [module docs](self)).
    #[inline]
    pub(crate) fn pref_velocity(
        &self,
        id: AgentId,
        tick: u64,
        heading: &Heading,
        to_goal: bool,
        speed: Fx,
    ) -> Vec2 {
        let pref = self.goal_rule(heading, to_goal, speed);
        // The goal rule's components are at most `speed` ≤ MAX_SPEED in magnitude (see
        // `goal_rule`): only a perturbation can take them past it.
        debug_assert!(pref.max_abs_component() <= domain::MAX_SPEED);
        let Some(p) = &self.perturbation else {
            return pref;
        };
        let pref = pref + p.offset(tick, id.0);
        let clamp = |v: Fx| v.clamp(-domain::MAX_SPEED, domain::MAX_SPEED);
        Vec2::new(clamp(pref.x), clamp(pref.y))
    }

    /// The preferred velocity towards `target` at `speed`, before the perturbation: full speed
    /// towards a waypoint, the slow-down towards the goal (`to_goal`).
    ///
    /// Each component is at most `speed` in magnitude (`speed` ≤ [`domain::MAX_SPEED`], as every
    /// source of it is checked): a direction's components are at most 1 and the product
    /// rounds toward −∞, which cannot pass the representable `−speed`; in the slow-down zone
    /// `|to| ≤ slow`, and `speed / slow` truncates toward zero, so `|to · (speed / slow)|` ≤
    /// `speed` likewise.
    #[inline]
    fn goal_rule(&self, heading: &Heading, to_goal: bool, speed: Fx) -> Vec2 {
        let slow = self.slow_within.unwrap_or(speed);
        let to = heading.to;
        if !to_goal || to.length_squared_wide() > wide_mul(slow, slow) {
            heading.direction() * speed
        } else if slow == speed {
            to
        } else if slow == Fx::ZERO {
            Vec2::ZERO
        } else {
            // |to| <= slow here, and speed / slow <= 1,000 / 0.001 fits.
            to * (speed / slow)
        }
    }
}

/// The vector from an agent to a target, with its length and direction from one square root,
/// taken on first use: stage 1b reads them twice (the arrival rule's progress test and the
/// goal rule) and often not at all (a unit at rest on its goal, or slowing down towards it,
/// needs neither).
#[derive(Clone, Debug)]
pub(crate) struct Heading {
    /// The target.
    pub target: Vec2,
    /// `target − position`.
    pub to: Vec2,
    /// Whether `len` and `dir` hold [`Vec2::length_and_direction`] of `to` yet. Plain cells,
    /// not an `Option` of the tuple: the values stay in registers (an `Option` of the tuple
    /// goes through memory, and reading it back stalls).
    known: Cell<bool>,
    len: Cell<Fx>,
    dir: Cell<Vec2>,
}

impl Heading {
    /// The heading from `position` to `target`.
    #[inline]
    pub(crate) fn new(position: Vec2, target: Vec2) -> Self {
        Self {
            target,
            to: target - position,
            known: Cell::new(false),
            len: Cell::new(Fx::ZERO),
            dir: Cell::new(Vec2::ZERO),
        }
    }

    /// `(|to|, to normalised)`, zeros for the zero vector: bit-identical to
    /// [`Vec2::length_and_direction`] (the same kernel, inlined).
    #[inline(always)]
    fn len_dir(&self) -> (Fx, Vec2) {
        if !self.known.get() {
            if self.to != Vec2::ZERO {
                let (len, dir) = self.to.length_and_direction_of_nonzero_inlined();
                self.len.set(len);
                self.dir.set(dir);
            }
            self.known.set(true);
        }
        (self.len.get(), self.dir.get())
    }

    /// `|to|` (bit-identical to [`Vec2::length`]).
    #[inline]
    pub(crate) fn length(&self) -> Fx {
        self.len_dir().0
    }

    /// `to` normalised (bit-identical to [`Vec2::normalize_or_zero`]).
    #[inline]
    pub(crate) fn direction(&self) -> Vec2 {
        self.len_dir().1
    }
}

/// A deterministic perturbation added to preferred velocities (RVO2's examples add random noise
/// to break symmetric deadlocks; this one is seeded and fixed point).
///
/// For agent `id` at tick `t` a 64-bit hash `h` is drawn (see [`PerturbationHash`]); the angle
/// is `(h >> 32) / 2³²` turns and the length `magnitude · (h mod 2³²) / 2³²`, i.e. angle
/// uniform, length uniform in `[0, magnitude)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Perturbation {
    /// Seed of the hash.
    pub seed: u64,
    /// Upper bound on the perturbation's length (RVO2's Blocks uses 1e-4).
    pub magnitude: Fx,
    /// How seed, tick and id are mixed. Default [`PerturbationHash::Nested`].
    pub hash: PerturbationHash,
}

/// How [`Perturbation::offset`] draws its hash from (seed, tick, agent id).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PerturbationHash {
    /// `h = splitmix64(splitmix64(splitmix64(seed) ^ tick) ^ id)`; the length is the
    /// fixed-point product `magnitude · fraction` (file value `"nested"`, the default).
    #[default]
    Nested,
    /// The hash of the obstacle scenes' files (`blocks.toml`, `roadmap.toml`, …):
    /// `h = splitmix64(seed ^ splitmix64(tick ^ (id << 40)))`; the length is
    /// `floor((h mod 2³²) · bits(magnitude) / 2³²)` ulps (file value `"packed"`).
    Packed,
}

impl PerturbationHash {
    /// The tag of the canonical encoding: 0 nested, 1 packed.
    #[must_use]
    pub fn canonical_byte(self) -> u8 {
        match self {
            Self::Nested => 0,
            Self::Packed => 1,
        }
    }
}

impl Perturbation {
    /// The perturbation vector of `agent` at `tick`.
    #[must_use]
    pub fn offset(&self, tick: u64, agent: u32) -> Vec2 {
        match self.hash {
            PerturbationHash::Nested => {
                let h = splitmix64(splitmix64(splitmix64(self.seed) ^ tick) ^ u64::from(agent));
                let turns = Fx::from_bits((h >> 32) as i64);
                let fraction = Fx::from_bits((h & 0xFFFF_FFFF) as i64);
                unit_from_turns(turns) * (self.magnitude * fraction)
            }
            PerturbationHash::Packed => {
                let h = splitmix64(self.seed ^ splitmix64(tick ^ (u64::from(agent) << 40)));
                let turns = Fx::from_bits((h >> 32) as i64);
                // magnitude <= 1,000 (validated): the product fits in i128 easily.
                let len =
                    (i128::from(h & 0xFFFF_FFFF) * i128::from(self.magnitude.to_bits())) >> 32;
                unit_from_turns(turns) * Fx::from_bits(len as i64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A raw Q32.32 value in `[lo, hi]` (whole units).
    fn fx_in(lo: i64, hi: i64) -> impl Strategy<Value = Fx> {
        ((lo << 32)..=(hi << 32)).prop_map(Fx::from_bits)
    }

    proptest! {
        /// The galloping lookup answers as the binary search for every ascending run of ids,
        /// present or not, and its cursor never passes an order still to be asked for.
        #[test]
        fn get_from_answers_as_get(
            held in proptest::collection::btree_set(0u32..400, 0..120),
            asked in proptest::collection::btree_set(0u32..420, 0..160),
        ) {
            let mut orders = Orders::default();
            for &i in &held {
                let goal = Vec2::from_int(i as i32, 1);
                orders.insert(AgentId(i), Order::new(Vec2::ZERO, goal)).unwrap();
            }
            let mut from = 0;
            for &i in &asked {
                let fast = orders.get_from(&mut from, AgentId(i)).map(Order::goal);
                prop_assert_eq!(fast, orders.get(&AgentId(i)).map(Order::goal), "id {}", i);
                prop_assert!(from <= held.len());
            }
        }

        /// The goal rule never leaves `[−speed, speed]` per component, for every speed and
        /// slow-down distance the checks allow: `pref_velocity` skips the clamp to
        /// [`domain::MAX_SPEED`] without a perturbation on this ground.
        #[test]
        fn the_goal_rule_stays_within_the_speed(
            p in (fx_in(-1_000_000, 1_000_000), fx_in(-1_000_000, 1_000_000)),
            d in (fx_in(-2_000, 2_000), fx_in(-2_000, 2_000), 0u32..40),
            speed in fx_in(0, 1_000),
            slow in prop_oneof![
                Just(None),
                Just(Some(Fx::ZERO)),
                fx_in(0, 1_000_000).prop_map(|s| Some(s.max(domain::MIN_TIME))),
            ],
            to_goal in any::<bool>(),
            axis in any::<bool>(),
        ) {
            // Targets at every scale, from a few ulps to thousands of units away, and along an
            // axis (a direction component of exactly 1: the bound is tight there).
            let position = Vec2::new(p.0, p.1);
            let offset = Vec2::new(
                Fx::from_bits(d.0.to_bits() >> d.2),
                if axis { Fx::ZERO } else { Fx::from_bits(d.1.to_bits() >> d.2) },
            );
            let steering = Steering { slow_within: slow, ..Steering::default() };
            prop_assert!(steering.validate().is_ok());
            let heading = Heading::new(position, position + offset);
            let pref = steering.pref_velocity(AgentId(1), 7, &heading, to_goal, speed);
            prop_assert!(pref.x.abs() <= speed && pref.y.abs() <= speed, "{pref:?} at {speed}");
        }
    }
}

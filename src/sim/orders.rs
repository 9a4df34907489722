//! Stage 1b of the tick: agents with a move order advance along their paths, arrive or not,
//! and get their preferred velocities ([`crate::orders`]); the order commands; the order
//! status and the step's order events.

use super::Simulator;
use super::orders_at_rest::{
    AtRest, behind_at_rest, collect_at_rest, collect_resting, goal_taken_at_rest, touches_at_rest,
};
use crate::agent::{AgentId, AgentParams};
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use crate::navigation::PathStatus;
use crate::obstacle::ObstacleSet;
use crate::orders::{
    Arrival, ArrivalInput, BLOCKED_AFTER, Crowd, Heading, Order, OrderEvent, OrderStatus, Progress,
    SETTLE_AFTER, Steering, next_arrival, resting, ticks_for,
};

/// Stage 1b's step for one order (aligned with the orders, ascending id): the agent's slot,
/// and its new progress and preferred velocity. Applying it swaps these with the state's, so
/// the entry then holds the old values, and swapping again undoes it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct OrderStep {
    slot: u32,
    progress: Progress,
    pref: Vec2,
}

impl OrderStep {
    /// The order's status before the step (once the step is applied, the entry holds the old
    /// progress).
    pub(super) fn old_status(&self) -> OrderStatus {
        self.progress.arrival.status
    }
}

impl Simulator {
    /// Stage 1b: for every agent with an order (ascending id), advances its path past the
    /// waypoints it is done with and sets its preferred velocity by the steering rule, in one
    /// pass that also keeps what each step replaced (for [`finish_inputs`](Self::finish_inputs)
    /// to undo on failure). With the `parallel` feature large ranges of orders are split in
    /// two by slot (each half reads the state and writes only its own orders, preferred
    /// velocities and steps).
    pub(super) fn steer_orders(&mut self) {
        // The chain rule of arrival asks for obstacles near shared goals.
        self.build_obstacles();
        let Self {
            orders,
            agents,
            steering,
            inputs,
            tick,
            time_step,
            obstacles,
            nav,
            ..
        } = self;
        let steps = &mut inputs.steered;
        steps.clear();
        steps.resize(orders.len(), OrderStep::default());
        let dt = *time_step;
        orders.refresh_shared();
        let (ids, positions, velocities, params, prefs) = agents.steering_view();
        let settle_ticks = ticks_for(SETTLE_AFTER, dt);
        let (list, shared) = orders.list_and_shared();
        // With RVO2's goal rule no goal counts as shared: nothing reads the crowd at rest.
        let shared_goals = if steering.rvo2_goals { &[][..] } else { shared };
        let at_rest_radius = collect_at_rest(
            &mut inputs.at_rest,
            list,
            shared_goals,
            (ids, positions, params),
        );
        let resting_radius = if steering.rvo2_goals {
            inputs.resting.clear();
            Fx::ZERO
        } else {
            collect_resting(
                &mut inputs.resting,
                list,
                shared,
                (ids, positions, params),
                steering.arrive_within,
            )
        };
        let state = SteerState {
            ids,
            positions,
            velocities,
            params,
            steering: *steering,
            tick: *tick,
            at_rest: &inputs.at_rest,
            at_rest_radius,
            resting: &inputs.resting,
            resting_radius,
            obstacles,
            waiters: &nav.traffic.waiters,
            nav_records: &nav.records,
            settle_ticks,
            blocked_ticks: ticks_for(BLOCKED_AFTER, dt),
            give_up_ticks: steering
                .give_up_after
                .map_or(u32::MAX, |t| ticks_for(t, dt)),
        };
        let changed = steer_range(&state, list, shared, prefs, 0, steps);
        // The status changes, in id order (the steps now hold the old progress); most steps
        // change none, and then there is nothing to look for.
        let events = &mut inputs.order_events;
        events.clear();
        // Room for one event per order: grows only when the orders do.
        events.reserve(steps.len());
        if changed {
            for ((id, order), step) in orders.iter().zip(steps.iter()) {
                let old = step.progress.arrival.status;
                events.extend(OrderEvent::of_change(*tick, *id, old, order.status()));
            }
        }
        self.work.stats.ordered = self.inputs.steered.len() as u64;
        self.formation_step_events();
    }

    /// The status of agent `id`'s order ([`crate::orders`]): `None` when it has none.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`] if no agent has this id.
    pub fn order_status(&self, id: AgentId) -> Result<Option<OrderStatus>, SimError> {
        Ok(self.agent_order(id)?.map(Order::status))
    }

    /// What happened to orders in the last [`step`](Self::step): every status change
    /// (arrived, blocked, given up, moving again), ascending agent id. One exception: a
    /// navigating unit at rest that traffic control steps aside for a door reads `Moving`
    /// without an event; back on its goal it reports `Arrived` again
    /// ([`door_wait`](Self::door_wait)). A buffer reused from
    /// step to step, with room for one event per order: it allocates only when the number of
    /// orders grows past what it held. Empty after a failed step. Not state: not hashed, snapshotted or restored.
    #[must_use]
    pub fn order_events(&self) -> &[OrderEvent] {
        &self.inputs.order_events
    }

    /// Undoes stage 1b (a failed step).
    pub(super) fn unsteer_orders(&mut self) {
        let Self {
            orders,
            agents,
            inputs,
            ..
        } = self;
        // The steps hold what stage 1b replaced: swapping again puts it back.
        let prefs = agents.pref_velocities_mut();
        for ((_, order), step) in orders.as_mut_slice().iter_mut().zip(&mut inputs.steered) {
            order.swap_progress(&mut step.progress);
            std::mem::swap(&mut prefs[step.slot as usize], &mut step.pref);
        }
        inputs.steered.clear();
        inputs.order_events.clear();
        inputs.formation_events.clear();
    }

    /// [`Command::MoveTo`](crate::Command::MoveTo) (`queue == false`) or
    /// [`Command::QueueMove`](crate::Command::QueueMove): returns the order it replaced.
    pub(super) fn give_order(
        &mut self,
        id: AgentId,
        goal: Vec2,
        queue: bool,
    ) -> Result<Option<Order>, SimError> {
        crate::domain::checked_point(goal, "goal")?;
        let position = self.agent_position(id)?;
        let old = self.orders.get(&id).cloned();
        if !(queue && self.orders.queue(id, goal)?) {
            self.orders.insert(id, Order::new(position, goal))?;
        }
        Ok(old)
    }

    /// Sets the speed of agent `id`'s order ([`Command::SetOrderSpeed`](crate::Command::SetOrderSpeed)):
    /// `None` for the steering's speed, else `0 ..= 1,000`. Returns the order as it was.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`]; [`SimError::OutOfDomain`] for a speed out of range or an
    /// agent without an order (`what: "order"`). Nothing changes then.
    pub fn set_order_speed(&mut self, id: AgentId, speed: Option<Fx>) -> Result<Order, SimError> {
        crate::command::Command::SetOrderSpeed { id, speed }.validate_values(self.time_step)?;
        self.agent_position(id)?;
        let order = self.orders.get_mut(&id).ok_or(SimError::OutOfDomain {
            what: "order",
            allowed: "an agent with a move order",
        })?;
        let old = order.clone();
        order.set_speed(speed);
        Ok(old)
    }

    /// Group `group`'s members, ascending id ([`crate::orders::groups`]); `None` when it does
    /// not exist.
    #[must_use]
    pub fn group(&self, group: u32) -> Option<&[AgentId]> {
        self.orders.groups.get(group)
    }

    /// Every group, ascending group id, with its members.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = (u32, &[AgentId])> + '_ {
        self.orders.groups.iter()
    }

    /// Sets group `group`'s members ([`Command::SetGroup`](crate::Command::SetGroup)): sorted,
    /// duplicates and ids of absent agents dropped; empty deletes the group. Returns the old
    /// members.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] for a group id of [`MAX_GROUPS`](crate::orders::groups::MAX_GROUPS)
    /// or more or too many members. Nothing changes then.
    pub fn set_group(
        &mut self,
        group: u32,
        members: &[AgentId],
    ) -> Result<Option<Vec<AgentId>>, SimError> {
        crate::orders::groups::check_group(group, members.len())?;
        let mut list: Vec<AgentId> = members
            .iter()
            .copied()
            .filter(|&id| self.agents.contains(id))
            .collect();
        list.sort_unstable();
        list.dedup();
        Ok(self.orders.groups.set(group, list))
    }

    /// Puts a group back as it was (undo).
    pub(super) fn restore_group(&mut self, group: u32, members: Option<Vec<AgentId>>) {
        self.orders.groups.set(group, members.unwrap_or_default());
    }

    /// Orders every present member of `group` to `goal` ([`Command::GroupMove`](crate::Command::GroupMove)),
    /// ascending id; returns the old order of each member whose order changed (for the undo).
    /// A plain order ends a member's navigation; with `queue`, a navigating member gets a
    /// navigated leg instead ([`Simulator::nav_legs`]: its order stays, its speed set with
    /// `slowest`).
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] for a bad group id or goal, a group that does not exist or
    /// has no member present (`what: "group"`), or orders past the path-point limits. Nothing
    /// changes then.
    pub fn group_move(
        &mut self,
        group: u32,
        goal: Vec2,
        queue: bool,
        slowest: bool,
    ) -> Result<Vec<(AgentId, Option<Order>)>, SimError> {
        let members = self.group_members(group, goal)?;
        self.group_order(&members, goal, queue, slowest, false)
    }

    /// Orders every present member of `group` to `goal` by planned paths
    /// ([`Command::GroupNavigate`](crate::Command::GroupNavigate)): [`Command::NavigateTo`](crate::Command::NavigateTo)
    /// each, ascending id, at the slowest member's speed with `slowest`; with `queue`, a
    /// navigating member gets a navigated leg instead ([`Simulator::nav_legs`]) and any other
    /// member the navigation order. Returns the old order of each member whose order changed
    /// (for the undo).
    ///
    /// # Errors
    /// As [`Simulator::group_move`]. Nothing changes then (orders, navigation records and
    /// legs are put back).
    pub fn group_navigate(
        &mut self,
        group: u32,
        goal: Vec2,
        queue: bool,
        slowest: bool,
    ) -> Result<Vec<(AgentId, Option<Order>)>, SimError> {
        // `navigate_to` changes the records and legs of the members it reaches before an
        // error: the members' are saved first and put back (only theirs: a copy of the whole
        // navigation state cost more than a tick with many units navigating).
        let members = self.group_members(group, goal)?;
        let saved: Vec<_> = members.iter().map(|&id| (id, self.nav.saved(id))).collect();
        self.group_order(&members, goal, queue, slowest, true)
            .inspect_err(|_| {
                for (id, s) in saved {
                    self.nav.put_back(id, s);
                }
            })
    }

    /// The present members of `group`, ascending id, for a group order to `goal`.
    ///
    /// # Errors
    /// As [`Simulator::group_move`]: a bad group id or goal, a group without a member present.
    fn group_members(&self, group: u32, goal: Vec2) -> Result<Vec<AgentId>, SimError> {
        crate::orders::groups::check_group(group, 0)?;
        crate::domain::checked_point(goal, "goal")?;
        self.members_present(group)
    }

    /// [`Simulator::group_move`] (`navigate` false) or [`Simulator::group_navigate`] of
    /// `members` (checked by [`group_members`](Self::group_members)).
    fn group_order(
        &mut self,
        members: &[AgentId],
        goal: Vec2,
        queue: bool,
        slowest: bool,
        navigate: bool,
    ) -> Result<Vec<(AgentId, Option<Order>)>, SimError> {
        let speed = if slowest {
            Some(self.slowest_speed(members)?)
        } else {
            None
        };
        // The order given to a member that gets no leg: a navigation order, or a plain one
        // (which ends its navigation).
        let give = move |sim: &mut Self, id: AgentId, goal: Vec2| {
            if navigate {
                sim.navigate_to(id, goal)
            } else {
                sim.give_order(id, goal, queue)
            }
        };
        if !queue {
            let given = self.give_each(members.iter().map(|&id| (id, goal)), speed, give)?;
            if !navigate {
                for &id in members {
                    self.nav.forget(id);
                }
            }
            return Ok(given);
        }
        // Queued: a navigating member gets a navigated leg (its order stays, at the group's
        // speed), the others a waypoint (or the navigation order). All or none: the legs are
        // taken back on an error.
        let mut plain = Vec::with_capacity(members.len());
        let mut legged = Vec::new();
        let mut result = Ok(());
        for &id in members {
            match self.queue_leg(id, goal) {
                Ok(true) => legged.push(id),
                Ok(false) => plain.push(id),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let mut sped = Vec::new();
        if result.is_ok() && speed.is_some() {
            for &id in &legged {
                match self.set_order_speed(id, speed) {
                    Ok(old) => sped.push((id, old)),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
        }
        let given =
            result.and_then(|()| self.give_each(plain.iter().map(|&id| (id, goal)), speed, give));
        match given {
            Ok(mut given) => {
                // A plain waypoint ends navigation.
                if !navigate {
                    for &id in &plain {
                        self.nav.forget(id);
                    }
                }
                // The orders whose speed changed are replaced orders too (for the undo).
                given.extend(sped.into_iter().map(|(id, old)| (id, Some(old))));
                Ok(given)
            }
            Err(e) => {
                for &id in &legged {
                    self.nav.unqueue_leg(id);
                }
                for (id, old) in sped {
                    self.restore_order(id, Some(old));
                }
                Err(e)
            }
        }
    }

    /// Gives each `(id, goal)` the order `give` makes, and the order speed `speed` when it is
    /// `Some`, all or none: on the first error every order already given is put back and
    /// the error returned. The replaced orders, in the given order.
    pub(super) fn give_each(
        &mut self,
        goals: impl ExactSizeIterator<Item = (AgentId, Vec2)>,
        speed: Option<Fx>,
        mut give: impl FnMut(&mut Self, AgentId, Vec2) -> Result<Option<Order>, SimError>,
    ) -> Result<Vec<(AgentId, Option<Order>)>, SimError> {
        let mut done = Vec::with_capacity(goals.len());
        for (id, goal) in goals {
            let given = give(self, id, goal).and_then(|old| {
                done.push((id, old));
                match speed {
                    Some(_) => self.set_order_speed(id, speed).map(drop),
                    None => Ok(()),
                }
            });
            if let Err(e) = given {
                for (id, old) in done.into_iter().rev() {
                    self.restore_order(id, old);
                }
                return Err(e);
            }
        }
        Ok(done)
    }

    /// Group `group`'s members present, ascending id.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] (`what: "group"`) for a group that does not exist or has no
    /// member present.
    pub(super) fn members_present(&self, group: u32) -> Result<Vec<AgentId>, SimError> {
        let members: Vec<AgentId> = self
            .orders
            .groups
            .get(group)
            .unwrap_or_default()
            .iter()
            .copied()
            .filter(|&id| self.agents.contains(id))
            .collect();
        if members.is_empty() {
            return Err(SimError::OutOfDomain {
                what: "group",
                allowed: "an existing group with a member present",
            });
        }
        Ok(members)
    }

    /// The least order speed of `members` (present, non-empty): the
    /// [`Steering::speed`], else each one's `max_speed`.
    pub(super) fn slowest_speed(&self, members: &[AgentId]) -> Result<Fx, SimError> {
        let mut least = None;
        for &id in members {
            let s = self
                .steering
                .speed
                .unwrap_or(self.agent_params(id)?.max_speed);
            least = Some(least.map_or(s, |l: Fx| l.min(s)));
        }
        least.ok_or(SimError::OutOfDomain {
            what: "group",
            allowed: "an existing group with a member present",
        })
    }

    /// [`Command::Stop`](crate::Command::Stop): returns the dropped order and the old
    /// preferred velocity.
    pub(super) fn stop_agent(&mut self, id: AgentId) -> Result<(Option<Order>, Vec2), SimError> {
        let pref = self.agent_pref_velocity(id)?;
        self.set_agent_pref_velocity(id, Vec2::ZERO)?;
        Ok((self.orders.remove(&id), pref))
    }

    /// Puts an order back as it was (undo).
    pub(super) fn restore_order(&mut self, id: AgentId, order: Option<Order>) {
        match order {
            Some(o) => {
                // The order held these points a moment ago: the total stays within bounds.
                let restored = self.orders.insert(id, o);
                debug_assert!(restored.is_ok());
            }
            None => {
                self.orders.remove(&id);
            }
        }
    }
}

/// What stage 1b reads: the agents' ids, positions, velocities and parameters by slot, the
/// steering and the tick lengths of the arrival rule.
struct SteerState<'a> {
    ids: &'a [AgentId],
    /// The orders at rest on shared goals ([`collect_at_rest`]), and the largest radius among
    /// them.
    at_rest: &'a [AtRest],
    at_rest_radius: Fx,
    /// The units of the orders at rest on goals of their own ([`collect_resting`], by x), and
    /// the largest radius among them: the units at rest a unit on its way may stop behind.
    resting: &'a [AtRest],
    resting_radius: Fx,
    /// The obstacles (their tree built): walls near shared goals.
    obstacles: &'a ObstacleSet,
    /// The navigation records (ascending id): a partial plan's end is not a goal to settle at.
    nav_records: &'a [(AgentId, super::NavRecord)],
    /// The units waiting for a door (traffic control's state, ascending id): their orders lead
    /// to waiting places, not goals, and never arrive.
    waiters: &'a [super::navigation::Waiter],
    positions: &'a [Vec2],
    velocities: &'a [Vec2],
    params: &'a [AgentParams],
    steering: Steering,
    tick: u64,
    settle_ticks: u32,
    blocked_ticks: u32,
    give_up_ticks: u32,
}

/// Stage 1b for `orders` (ascending id), in one pass: each order's new progress and its
/// agent's preferred velocity, read from the state only (`shared`, aligned with `orders`,
/// holds how many orders share each one's goal), are swapped in, and `steps` (aligned with
/// `orders`) receive the slot and what was replaced. `prefs` holds the slots from `base` on.
/// Returns whether any order's status changed. With the `parallel` feature large ranges are
/// split in two at the middle order, the preferred velocities at its slot (the slots ascend
/// as the ids do), and the halves run on rayon's pool: each order writes only itself, its
/// step and its own slot, so the result is the serial one.
fn steer_range(
    state: &SteerState<'_>,
    orders: &mut [(AgentId, Order)],
    shared: &[u32],
    prefs: &mut [Vec2],
    base: usize,
    steps: &mut [OrderStep],
) -> bool {
    debug_assert_eq!(orders.len(), steps.len());
    debug_assert_eq!(orders.len(), shared.len());
    let ids = state.ids;
    #[cfg(feature = "parallel")]
    if orders.len() > 4 * crate::tick::CHUNK {
        let mid = orders.len() / 2;
        // The slot of the agent of order `mid` (every order has its agent).
        let split = ids.partition_point(|a| *a < orders[mid].0) - base;
        let (steps_lo, steps_hi) = steps.split_at_mut(mid);
        let (orders_lo, orders_hi) = orders.split_at_mut(mid);
        let (shared_lo, shared_hi) = shared.split_at(mid);
        let (prefs_lo, prefs_hi) = prefs.split_at_mut(split);
        let (lo, hi) = rayon::join(
            || steer_range(state, orders_lo, shared_lo, prefs_lo, base, steps_lo),
            || {
                steer_range(
                    state,
                    orders_hi,
                    shared_hi,
                    prefs_hi,
                    base + split,
                    steps_hi,
                )
            },
        );
        return lo | hi;
    }
    // Both ascend: one search for the first agent, then a merge.
    let mut slot = orders.first().map_or(base, |(id, _)| {
        base + ids[base..].partition_point(|a| a < id)
    });
    let mut changed = false;
    for (((id, order), step), &shared) in orders.iter_mut().zip(steps).zip(shared) {
        while slot < ids.len() && ids[slot] < *id {
            slot += 1;
        }
        // Removing an agent drops its order, so every order has its agent.
        debug_assert_eq!(ids.get(slot), Some(&*id));
        let (mut progress, mut pref) = plan_order(state, *id, order, shared, slot);
        changed |= progress.arrival.status != order.status();
        // Applied now; the step keeps what it replaced (swapping again undoes it).
        order.swap_progress(&mut progress);
        std::mem::swap(&mut prefs[slot - base], &mut pref);
        *step = OrderStep {
            slot: slot as u32,
            progress,
            pref,
        };
    }
    changed
}

/// One order's step: its progress along the path, its arrival state and its preferred
/// velocity (the rules of [`crate::orders`]); `shared` orders have its goal.
#[inline]
fn plan_order(
    state: &SteerState<'_>,
    id: AgentId,
    order: &Order,
    shared: u32,
    slot: usize,
) -> (Progress, Vec2) {
    let steering = &state.steering;
    let position = state.positions[slot];
    let params = &state.params[slot];
    let tolerance = steering.waypoint_tolerance.unwrap_or(params.radius);
    let next = order.advanced(position, tolerance);
    let to_goal = next as usize + 1 == order.path().len();
    let target = order.path()[next as usize];
    let speed: Fx = order.speed().or(steering.speed).unwrap_or(params.max_speed);
    let input = ArrivalInput {
        position,
        velocity: state.velocities[slot],
        radius: params.radius,
        speed,
        arrive_within: steering.arrive_within.unwrap_or(params.radius),
        settle_ticks: state.settle_ticks,
        blocked_ticks: state.blocked_ticks,
        give_up_ticks: state.give_up_ticks,
    };
    let goal = order.goal();
    let heading = Heading::new(position, target);
    let after = &order.path()[next as usize + 1..];
    // A unit waiting for a door is on its way: its order to the waiting place never arrives
    // (it comes to rest there by the goal rule, and no arrival is reported).
    let waiting = state
        .waiters
        .binary_search_by_key(&id, |w| w.id)
        .is_ok_and(|k| order.path() == [state.waiters[k].spot]);
    let arrival = if waiting {
        Arrival::default()
    } else {
        let crowd = GoalCrowd {
            state,
            id,
            goal,
            position,
            radius: params.radius,
            ahead: heading.to,
        };
        next_arrival(
            order.arrival(),
            &input,
            &heading,
            after,
            goal,
            || {
                // With RVO2's goal rule no goal counts as shared: nothing settles short of its
                // goal; nor short of the end of a partial plan (a window of the way, extended
                // near its end).
                let partial = || {
                    state
                        .nav_records
                        .binary_search_by_key(&id, |r| r.0)
                        .is_ok_and(|k| state.nav_records[k].1.status() == Some(PathStatus::Partial))
                };
                if steering.rvo2_goals || partial() {
                    1
                } else {
                    shared
                }
            },
            &crowd,
        )
    };
    let pref = if resting(&arrival, goal) {
        Vec2::ZERO
    } else {
        steering.pref_velocity(id, state.tick, &heading, to_goal, speed)
    };
    (Progress { next, arrival }, pref)
}

/// The rule against the crowd's questions about one order's goal ([`Crowd`]), answered from
/// the state: the obstacle tree and the orders at rest.
struct GoalCrowd<'a, 'b> {
    state: &'b SteerState<'a>,
    id: AgentId,
    goal: Vec2,
    position: Vec2,
    radius: Fx,
    ahead: Vec2,
}

impl GoalCrowd<'_, '_> {
    /// Whether the order's path ends short of its goal, at the end of a window of the way (a
    /// partial plan, or none from a start with no walkable point near it), which is no goal.
    fn window(&self) -> bool {
        let records = self.state.nav_records;
        records
            .binary_search_by_key(&self.id, |r| r.0)
            .is_ok_and(|k| {
                matches!(
                    records[k].1.status(),
                    Some(PathStatus::Partial | PathStatus::NoStart)
                )
            })
    }
}

impl Crowd for GoalCrowd<'_, '_> {
    fn walled(&self, d: Fx) -> bool {
        self.state.obstacles.any_edge_within(self.goal, d)
    }

    fn sees_goal(&self, d: Fx) -> bool {
        // The line from the unit to the disc's edge. A unit inside the disc has none: walls
        // inside the disc are not looked at (until the thirty-third session it had to see
        // the goal itself, and one beside a building inside the disc pushed on for good).
        // `d` (a settle radius) is at least 0, so past this `len` is positive.
        let to = self.position - self.goal;
        let len = to.length();
        if len <= d {
            return true;
        }
        let edge = self.goal + to * (d / len);
        self.state
            .obstacles
            .query_visibility(self.position, edge, Fx::ZERO)
    }

    fn behind(&self, gap: Fx) -> bool {
        !self.window()
            && behind_at_rest(
                (self.state.resting, self.state.resting_radius),
                self.state.obstacles,
                (self.goal, self.position, self.radius),
                gap,
            )
    }

    fn goal_taken(&self) -> bool {
        !self.window()
            && goal_taken_at_rest(
                (self.state.resting, self.state.resting_radius),
                self.goal,
                self.radius,
            )
    }

    fn touching(&self, in_sight: bool) -> bool {
        touches_at_rest(
            (self.state.at_rest, self.state.at_rest_radius),
            self.goal,
            self.position,
            self.radius,
            self.ahead,
            in_sight.then_some(self.state.obstacles),
        )
    }
}

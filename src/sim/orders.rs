//! Stage 1b of the tick: agents with a move order advance along their paths and get their
//! preferred velocities ([`crate::orders`]); and the order commands.

use super::Simulator;
use crate::agent::{AgentId, AgentParams};
use crate::error::SimError;
use crate::math::Vec2;
use crate::orders::{Order, Steering};

/// Stage 1b's step for one order (aligned with the orders, ascending id): the agent's slot,
/// and its new progress and preferred velocity. Applying it swaps these with the state's, so
/// the entry then holds the old values, and swapping again undoes it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct OrderStep {
    slot: u32,
    next: u32,
    pref: Vec2,
}

impl Simulator {
    /// Stage 1b: for every agent with an order (ascending id), advances its path past the
    /// waypoints it is done with and sets its preferred velocity by the steering rule, in one
    /// pass that also keeps what each step replaced (for [`finish_inputs`](Self::finish_inputs)
    /// to undo on failure). With the `parallel` feature large ranges of orders are split in
    /// two by slot (each half reads the state and writes only its own orders, preferred
    /// velocities and steps).
    pub(super) fn steer_orders(&mut self) {
        let Self {
            orders,
            agents,
            steering,
            inputs,
            tick,
            ..
        } = self;
        let steps = &mut inputs.steered;
        steps.clear();
        steps.resize(orders.len(), OrderStep::default());
        let (ids, positions, params, prefs) = agents.steering_view();
        let state = SteerState {
            ids,
            positions,
            params,
            steering: *steering,
            tick: *tick,
        };
        steer_range(&state, orders.as_mut_slice(), prefs, 0, steps);
        self.work.stats.ordered = self.inputs.steered.len() as u64;
    }

    /// Swaps every order step with the state's progress and preferred velocity (applies the
    /// steps, or undoes applied ones).
    fn swap_order_steps(
        orders: &mut crate::orders::Orders,
        agents: &mut crate::agent::Agents,
        steps: &mut [OrderStep],
    ) {
        swap_steps(
            orders.as_mut_slice(),
            agents.pref_velocities_mut(),
            0,
            steps,
        );
    }

    /// Undoes stage 1b (a failed step).
    pub(super) fn unsteer_orders(&mut self) {
        let Self {
            orders,
            agents,
            inputs,
            ..
        } = self;
        Self::swap_order_steps(orders, agents, &mut inputs.steered);
        inputs.steered.clear();
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

/// Swaps `steps` (aligned with `orders`) with the orders' progress and the preferred
/// velocities of their slots; `prefs` holds the slots from `base` on. With the `parallel`
/// feature large runs split in two at the middle step, the preferred velocities at that step's
/// slot (the steps' slots ascend, as the orders' ids do), and the halves run on rayon's pool:
/// each step writes only its own order and its own slot, so the result is the serial one.
fn swap_steps(
    orders: &mut [(AgentId, Order)],
    prefs: &mut [Vec2],
    base: usize,
    steps: &mut [OrderStep],
) {
    debug_assert_eq!(orders.len(), steps.len());
    #[cfg(feature = "parallel")]
    if steps.len() > 4 * crate::tick::CHUNK {
        let mid = steps.len() / 2;
        let split = steps[mid].slot as usize - base;
        let (steps_lo, steps_hi) = steps.split_at_mut(mid);
        let (orders_lo, orders_hi) = orders.split_at_mut(mid);
        let (prefs_lo, prefs_hi) = prefs.split_at_mut(split);
        rayon::join(
            || swap_steps(orders_lo, prefs_lo, base, steps_lo),
            || swap_steps(orders_hi, prefs_hi, base + split, steps_hi),
        );
        return;
    }
    for ((_, order), step) in orders.iter_mut().zip(steps) {
        order.swap_progress(&mut step.next);
        let pref = &mut prefs[step.slot as usize - base];
        std::mem::swap(pref, &mut step.pref);
    }
}

/// What stage 1b reads: the agents' ids, positions and parameters by slot, and the steering.
struct SteerState<'a> {
    ids: &'a [AgentId],
    positions: &'a [Vec2],
    params: &'a [AgentParams],
    steering: Steering,
    tick: u64,
}

/// Stage 1b for `orders` (ascending id), whose agents' slots start at `base`: `prefs` are
/// the preferred velocities of the slots from `base` on, and `steps` (aligned with `orders`)
/// receive each agent's slot and the progress and preferred velocity its new ones replace.
fn steer_range(
    state: &SteerState<'_>,
    orders: &mut [(AgentId, Order)],
    prefs: &mut [Vec2],
    base: usize,
    steps: &mut [OrderStep],
) {
    debug_assert_eq!(orders.len(), steps.len());
    let ids = state.ids;
    #[cfg(feature = "parallel")]
    if orders.len() > 4 * crate::tick::CHUNK {
        let mid = orders.len() / 2;
        let mid_id = orders[mid].0;
        // The slot of the agent of order `mid` (every order has its agent).
        let split = ids.partition_point(|a| *a < mid_id) - base;
        let (steps_lo, steps_hi) = steps.split_at_mut(mid);
        let (orders_lo, orders_hi) = orders.split_at_mut(mid);
        let (prefs_lo, prefs_hi) = prefs.split_at_mut(split);
        rayon::join(
            || steer_range(state, orders_lo, prefs_lo, base, steps_lo),
            || steer_range(state, orders_hi, prefs_hi, base + split, steps_hi),
        );
        return;
    }
    // Both ascend: one search for the first agent, then a merge.
    let mut slot = orders
        .first()
        .map_or(0, |(id, _)| ids.partition_point(|a| a < id));
    let steering = state.steering;
    for ((id, order), step) in orders.iter_mut().zip(steps) {
        while slot < ids.len() && ids[slot] < *id {
            slot += 1;
        }
        // Removing an agent drops its order, so every order has its agent.
        debug_assert_eq!(ids.get(slot), Some(&*id));
        let position = state.positions[slot];
        let params = &state.params[slot];
        let tolerance = steering.waypoint_tolerance.unwrap_or(params.radius);
        let mut next = order.advanced(position, tolerance);
        let to_goal = next as usize + 1 == order.path().len();
        let target = order.path()[next as usize];
        let mut pref =
            steering.pref_velocity(*id, state.tick, position, target, to_goal, params.max_speed);
        // Applied now; the step keeps what it replaced (swapping again undoes it).
        order.swap_progress(&mut next);
        std::mem::swap(&mut prefs[slot - base], &mut pref);
        *step = OrderStep {
            slot: slot as u32,
            next,
            pref,
        };
    }
}

//! Stage 1b of the tick: agents with a move order advance along their paths and get their
//! preferred velocities ([`crate::orders`]); and the order commands.

use super::Simulator;
use crate::agent::AgentId;
use crate::error::SimError;
use crate::math::{Vec2, wide_mul};
use crate::orders::Order;

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
    /// waypoints it is done with and sets its preferred velocity by the steering rule. The
    /// steps are computed chunk by chunk (in parallel with the `parallel` feature; each reads
    /// only the state and writes only its own entries), then applied in order, keeping what
    /// they replaced for [`finish_inputs`](Self::finish_inputs) to undo on failure.
    pub(super) fn steer_orders(&mut self) {
        let Self {
            orders,
            agents,
            steering,
            inputs,
            tick,
            ..
        } = self;
        let list = orders.as_slice();
        let steps = &mut inputs.steered;
        steps.clear();
        steps.resize(list.len(), OrderStep::default());
        let (agents_ref, steering, tick) = (&*agents, *steering, *tick);
        crate::tick::for_each_chunk_of(list, steps, |orders, steps| {
            let ids = agents_ref.ids();
            // Both ascend: one search for the chunk's first agent, then a merge.
            let mut slot = orders
                .first()
                .map_or(0, |(id, _)| ids.partition_point(|a| a < id));
            for ((id, order), step) in orders.iter().zip(steps) {
                while slot < ids.len() && ids[slot] < *id {
                    slot += 1;
                }
                // Removing an agent drops its order, so every order has its agent.
                debug_assert_eq!(ids.get(slot), Some(id));
                let position = agents_ref.positions()[slot];
                let params = agents_ref.params()[slot];
                let tolerance = steering.waypoint_tolerance.unwrap_or(params.radius);
                let next = order.advanced(position, wide_mul(tolerance, tolerance));
                let to_goal = next as usize + 1 == order.path().len();
                let target = order.path()[next as usize];
                *step = OrderStep {
                    slot: slot as u32,
                    next,
                    pref: steering.pref_velocity(
                        *id,
                        tick,
                        position,
                        target,
                        to_goal,
                        params.max_speed,
                    ),
                };
            }
        });
        Self::swap_order_steps(orders, agents, steps);
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

//! Stage 1b of the tick: agents with a move order advance along their paths and get their
//! preferred velocities ([`crate::orders`]); and the order commands.

use super::Simulator;
use crate::agent::AgentId;
use crate::error::SimError;
use crate::math::{Vec2, wide_mul};
use crate::orders::Order;

/// What stage 1b changed for one agent, to undo it if the step fails.
#[derive(Clone, Copy, Debug)]
pub(super) struct SteerUndo {
    id: AgentId,
    slot: usize,
    pref_velocity: Vec2,
    progress: u32,
}

impl Simulator {
    /// Stage 1b: for every agent with an order (ascending id), advances its path past the
    /// waypoints it is done with and sets its preferred velocity by the steering rule. Logs
    /// what it changed, for [`finish_inputs`](Self::finish_inputs) to undo on failure.
    pub(super) fn steer_orders(&mut self) {
        self.inputs.steered.clear();
        let Self {
            orders,
            agents,
            steering,
            inputs,
            tick,
            ..
        } = self;
        for (&id, order) in orders.iter_mut() {
            // Removing an agent drops its order, so every order has its agent.
            let Some(slot) = agents.slot(id) else {
                continue;
            };
            let position = agents.positions()[slot];
            let params = agents.params()[slot];
            let tolerance = steering.waypoint_tolerance.unwrap_or(params.radius);
            let next = order.advanced(position, wide_mul(tolerance, tolerance));
            let to_goal = next as usize + 1 == order.path().len();
            let target = order.path()[next as usize];
            let pref =
                steering.pref_velocity(id, *tick, position, target, to_goal, params.max_speed);
            inputs.steered.push(SteerUndo {
                id,
                slot,
                pref_velocity: agents.pref_velocities()[slot],
                progress: order.progress() as u32,
            });
            order.set_progress(next);
            agents.set_pref_velocity(slot, pref);
        }
        self.work.stats.ordered = self.inputs.steered.len() as u64;
    }

    /// Undoes stage 1b (a failed step).
    pub(super) fn unsteer_orders(&mut self) {
        for u in self.inputs.steered.drain(..) {
            self.agents.set_pref_velocity(u.slot, u.pref_velocity);
            self.orders.set_progress(u.id, u.progress);
        }
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

//! Queued navigated legs: a [`Command::QueueMove`](crate::Command::QueueMove) given to a
//! navigating agent queues its goal behind the current one ([`NavState::legs`], state), and
//! stage 1a plans it when the current goal is done (`navigation_stage.rs`). Here: the list's
//! operations and the simulator's entry points.

use super::NavState;
use crate::agent::AgentId;
use crate::domain::checked_point;
use crate::error::SimError;
use crate::math::Vec2;
use crate::navigation::MAX_NAV_LEGS;
use crate::sim::Simulator;

impl NavState {
    /// Agent `id`'s queued legs (empty for none).
    pub(crate) fn legs(&self, id: AgentId) -> &[Vec2] {
        self.legs
            .binary_search_by_key(&id, |(i, _)| *i)
            .map_or(&[], |k| self.legs[k].1.as_slice())
    }

    /// Drops agent `id`'s queued legs, returning them.
    pub(super) fn drop_legs(&mut self, id: AgentId) -> Vec<Vec2> {
        match self.legs.binary_search_by_key(&id, |(i, _)| *i) {
            Ok(k) => {
                let goals = self.legs.remove(k).1;
                self.leg_total -= goals.len();
                goals
            }
            Err(_) => Vec::new(),
        }
    }

    /// Takes the first of agent `id`'s queued legs (the list is dropped when it empties).
    pub(super) fn next_leg(&mut self, id: AgentId) -> Option<Vec2> {
        let k = self.legs.binary_search_by_key(&id, |(i, _)| *i).ok()?;
        let goals = &mut self.legs[k].1;
        let goal = goals.remove(0);
        if goals.is_empty() {
            self.legs.remove(k);
        }
        self.leg_total -= 1;
        Some(goal)
    }

    /// Sends agent `id`'s queued legs straight, as plain waypoints behind its order (its
    /// navigation went straight: no mesh), and ends its navigation when it had legs: a plain
    /// path through its goal and legs (planned again when navigation comes back, it would
    /// lose them). The callers' orders are one point long, so the agent's own bound always
    /// holds its legs; a leg past the orders' bound in all is dropped.
    pub(super) fn straighten_legs(&mut self, id: AgentId, orders: &mut crate::orders::Orders) {
        let legs = self.drop_legs(id);
        if legs.is_empty() {
            return;
        }
        for goal in legs {
            if orders.queue(id, goal).is_err() {
                break;
            }
        }
        if let Ok(k) = self.find(id) {
            self.records.remove(k);
        }
    }

    /// Agent `id`'s record and queued legs, to be put back with [`put_back`](Self::put_back)
    /// (the undo of a refused order that changes them, for those agents only).
    pub(in crate::sim) fn saved(&self, id: AgentId) -> (Option<super::NavRecord>, Vec<Vec2>) {
        (self.get(id).copied(), self.legs(id).to_vec())
    }

    /// Puts agent `id`'s record and queued legs back as [`saved`](Self::saved) returned them.
    pub(in crate::sim) fn put_back(
        &mut self,
        id: AgentId,
        (record, legs): (Option<super::NavRecord>, Vec<Vec2>),
    ) {
        match record {
            Some(r) => self.put(id, r),
            None => {
                if let Ok(k) = self.find(id) {
                    self.records.remove(k);
                }
            }
        }
        self.drop_legs(id);
        if let Err(k) = self.legs.binary_search_by_key(&id, |(i, _)| *i)
            && !legs.is_empty()
        {
            self.leg_total += legs.len();
            self.legs.insert(k, (id, legs));
        }
    }

    /// Takes back the last leg queued for agent `id` (a refused group move's undo).
    pub(in crate::sim) fn unqueue_leg(&mut self, id: AgentId) {
        if let Ok(k) = self.legs.binary_search_by_key(&id, |(i, _)| *i) {
            let goals = &mut self.legs[k].1;
            goals.pop();
            if goals.is_empty() {
                self.legs.remove(k);
            }
            self.leg_total -= 1;
        }
    }
}

impl Simulator {
    /// [`Command::QueueMove`](crate::Command::QueueMove) for a navigating agent: queues `goal`
    /// as a navigated leg, planned once the agent's current navigated goal is reached (stage
    /// 1a). Returns `false`, changing nothing, when the agent does not navigate (no record,
    /// or a straight one: no mesh when it was ordered): the caller appends a plain waypoint
    /// then.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] for a goal outside the domain, or past [`MAX_NAV_LEGS`] legs
    /// for the agent or [`MAX_TOTAL_PATH_POINTS`](crate::orders::MAX_TOTAL_PATH_POINTS) in
    /// all; [`SimError::UnknownAgent`]. Nothing changes then.
    pub(in crate::sim) fn queue_leg(&mut self, id: AgentId, goal: Vec2) -> Result<bool, SimError> {
        checked_point(goal, "goal")?;
        self.agent_position(id)?;
        // A record that is not straight: planned, or waiting for a plan. (With navigation
        // turned off since, its legs go straight when their turn comes, as its order does.)
        let navigates = self.nav.get(id).is_some_and(|r| !r.is_straight());
        if !navigates {
            return Ok(false);
        }
        if self.nav.legs(id).len() >= MAX_NAV_LEGS {
            return Err(SimError::OutOfDomain {
                what: "navigation legs",
                allowed: "at most 1,024 queued per agent",
            });
        }
        if self.nav.leg_total >= crate::orders::MAX_TOTAL_PATH_POINTS {
            return Err(SimError::OutOfDomain {
                what: "navigation legs in all",
                allowed: "at most 4,194,304",
            });
        }
        let legs = &mut self.nav.legs;
        match legs.binary_search_by_key(&id, |(i, _)| *i) {
            Ok(k) => legs[k].1.push(goal),
            Err(k) => legs.insert(k, (id, vec![goal])),
        }
        self.nav.leg_total += 1;
        Ok(true)
    }

    /// Agent `id`'s queued navigated legs, in the order they will be planned: the goals of the
    /// [`Command::QueueMove`](crate::Command::QueueMove)s given after its
    /// [`Command::NavigateTo`](crate::Command::NavigateTo), behind its current goal
    /// ([`NavRecord::goal`](super::NavRecord::goal)). Empty without any. Part of the state.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn nav_legs(&self, id: AgentId) -> Result<&[Vec2], SimError> {
        self.slot(id)?;
        Ok(self.nav.legs(id))
    }
}

//! Traffic control's state ([`TrafficState`]): the held chokes, the waiters and the
//! priorities it set, their canonical bytes and their checks on restore, and the
//! [`Simulator::door_wait`] query. The per-tick control that changes it is in
//! `navigation_traffic.rs`. Part of [`traffic`](super).

use super::{GOING, PASSING, RETURNING, RIGHT_OF_WAY, WAITING, YIELD};
use crate::agent::AgentId;
use crate::domain::checked_point;
use crate::error::SimError;
use crate::math::Vec2;
use crate::navigation::traffic::{Choke, ChokeState, DoorWait, NO_UNIT, TrafficParams};
use crate::orders::MAX_PATH_POINTS;
use crate::sim::Simulator;
use crate::util::ByteSink;
use serde::{Deserialize, Serialize};

/// An agent waiting for a choke (state).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Waiter {
    pub id: AgentId,
    /// The choke it waits for.
    pub choke: Choke,
    /// Where it waits (its order's only point while it waits).
    pub spot: Vec2,
    /// The planned path it resumes (its remaining points, 1 ..= `MAX_PATH_POINTS`; for a
    /// unit whose plan is `Unreachable` stepped aside for good, its place: `[spot]`).
    pub path: Vec<Vec2>,
}

/// Traffic control's state: held chokes (ascending key), waiters (ascending id), and the
/// agents given the right of way with the priority each had before (ascending id).
///
/// `right_of_way` is not part of the serde form (snapshot versions 6 and 7 keep their bytes):
/// the snapshot writes it after the rest, in version 8, when it is not empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TrafficState {
    pub chokes: Vec<ChokeState>,
    pub waiters: Vec<Waiter>,
    #[serde(skip)]
    pub right_of_way: Vec<Level>,
}

/// An agent whose avoidance priority traffic control set: its id, the priority it had, the
/// level applied ([`RIGHT_OF_WAY`], [`GOING`], [`PASSING`], [`YIELD`] or [`RETURNING`];
/// [`WAITING`] in a state saved before the twenty-second session).
pub(crate) type Level = (AgentId, u8, u8);

fn put_vec2(out: &mut dyn ByteSink, v: Vec2) {
    out.put(&v.x.to_bits().to_le_bytes());
    out.put(&v.y.to_bits().to_le_bytes());
}

impl TrafficState {
    /// Whether some held choke counts a batch ([`ChokeState::passed`] or
    /// [`ChokeState::last`] not at their defaults).
    pub(crate) fn counting(&self) -> bool {
        self.chokes
            .iter()
            .any(|c| c.passed != 0 || c.last != NO_UNIT)
    }

    /// The batch counters of the held chokes (`passed`, `last`), in the chokes' order
    /// (snapshot version 10).
    pub(crate) fn counters(&self) -> Vec<(u32, u32)> {
        self.chokes.iter().map(|c| (c.passed, c.last)).collect()
    }

    /// Sets the batch counters of the held chokes from [`counters`](Self::counters)' form.
    ///
    /// # Errors
    /// When there are not as many counters as held chokes.
    pub(crate) fn set_counters(&mut self, counters: &[(u32, u32)]) -> Result<(), &'static str> {
        if counters.len() != self.chokes.len() {
            return Err("traffic batch counters not one per held choke");
        }
        for (c, &(passed, last)) in self.chokes.iter_mut().zip(counters) {
            (c.passed, c.last) = (passed, last);
        }
        Ok(())
    }

    /// The canonical bytes: first, only when `params` (the settings) are not the defaults,
    /// marker byte `P`, radius, hold seconds (`u64`), approach, queue, gap, batch (`u32`),
    /// yield reach;
    /// then nothing when the state is empty; else marker byte `T`, held choke count (`u32`),
    /// per choke its corners a, b, holder byte, since tick (`u64`); waiter count (`u32`), per
    /// waiter id (`u32`), choke a, b, spot, path length (`u32`), the points; then, only while
    /// some held choke counts a batch, marker byte `B` and per held choke the units counted in
    /// its turn (`u32`) and the id counted last (`u32`); then, only when some agent has the
    /// right of way, marker byte `R`, their count (`u32`) and per agent id (`u32`) and the
    /// priority it had (`u8`).
    pub(crate) fn write_canonical(&self, params: Option<&TrafficParams>, out: &mut dyn ByteSink) {
        if let Some(p) = params.filter(|p| **p != TrafficParams::DEFAULT) {
            out.put(b"P");
            out.put(&p.radius.to_bits().to_le_bytes());
            out.put(&p.hold_seconds.to_le_bytes());
            for v in [p.approach, p.queue, p.gap] {
                out.put(&v.to_bits().to_le_bytes());
            }
            out.put(&p.batch.to_le_bytes());
            out.put(&p.yield_within.to_bits().to_le_bytes());
        }
        if self.chokes.is_empty() && self.waiters.is_empty() && self.right_of_way.is_empty() {
            return;
        }
        out.put(b"T");
        out.put(&(self.chokes.len() as u32).to_le_bytes());
        for c in &self.chokes {
            put_vec2(out, c.choke.a);
            put_vec2(out, c.choke.b);
            out.put(&[c.holder]);
            out.put(&c.since.to_le_bytes());
        }
        out.put(&(self.waiters.len() as u32).to_le_bytes());
        for w in &self.waiters {
            out.put(&w.id.0.to_le_bytes());
            put_vec2(out, w.choke.a);
            put_vec2(out, w.choke.b);
            put_vec2(out, w.spot);
            out.put(&(w.path.len() as u32).to_le_bytes());
            for &p in &w.path {
                put_vec2(out, p);
            }
        }
        if self.counting() {
            out.put(b"B");
            for c in &self.chokes {
                out.put(&c.passed.to_le_bytes());
                out.put(&c.last.to_le_bytes());
            }
        }
        if !self.right_of_way.is_empty() {
            out.put(b"R");
            out.put(&(self.right_of_way.len() as u32).to_le_bytes());
            for (id, priority, level) in &self.right_of_way {
                out.put(&id.0.to_le_bytes());
                out.put(&[*priority, *level]);
            }
        }
    }

    /// Checks a decoded traffic state: canonical order, levels and points in range, ids below
    /// the id counter `next_id`. A waiter or a priority entry need not have its agent's
    /// navigation record or hold order: an order, a stop or a removal between steps leaves
    /// them behind, and the next tick's traffic control drops the waiter and gives the
    /// priority back (an absent agent has none to give), as it does without the snapshot. An
    /// id not given yet is refused: the next agent added would get it, and the entry with it.
    pub(crate) fn validate(&self, next_id: u32) -> Result<(), Result<SimError, &'static str>> {
        if self.waiters.iter().any(|w| w.id.0 >= next_id)
            || self.right_of_way.iter().any(|r| r.0.0 >= next_id)
        {
            return Err(Err("traffic entry for an agent id not given yet"));
        }
        if self.chokes.windows(2).any(|w| w[0].choke >= w[1].choke) {
            return Err(Err("traffic chokes not strictly ascending"));
        }
        if self.waiters.windows(2).any(|w| w[0].id >= w[1].id) {
            return Err(Err("traffic waiter ids not strictly ascending"));
        }
        if self
            .right_of_way
            .iter()
            .any(|r| ![RIGHT_OF_WAY, GOING, PASSING, YIELD, RETURNING, WAITING].contains(&r.2))
        {
            return Err(Err("traffic priority level out of range"));
        }
        if self.right_of_way.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(Err("traffic right-of-way ids not strictly ascending"));
        }
        for c in &self.chokes {
            if c.holder > 1 || !c.choke.is_canonical() {
                return Err(Err("traffic choke record out of range"));
            }
            checked_point(c.choke.a, "traffic choke").map_err(Ok)?;
            checked_point(c.choke.b, "traffic choke").map_err(Ok)?;
        }
        for w in &self.waiters {
            if w.path.is_empty() || w.path.len() > MAX_PATH_POINTS || !w.choke.is_canonical() {
                return Err(Err("traffic waiter record out of range"));
            }
            for &p in w.path.iter().chain([&w.spot, &w.choke.a, &w.choke.b]) {
                checked_point(p, "traffic point").map_err(Ok)?;
            }
        }
        Ok(())
    }
}

impl Simulator {
    /// Whether agent `id` waits for a door (a choke, [`crate::navigation::traffic`]) and
    /// where: the choke and its waiting place. `None` when it does not wait (it has no
    /// navigation order, goes on its path, or traffic control is off).
    ///
    /// While it waits, the agent's [order](Self::agent_order) is a plain move to the waiting
    /// place and its [`NavigateTo`](crate::Command::NavigateTo) goal stays in its
    /// [`nav_status`](Self::nav_status); when its side takes the door it resumes its planned
    /// path. Read it after a [`step`](Self::step): the waiters of that step's stage 1a (state:
    /// hashed and snapshotted with the navigation state).
    ///
    /// A waiting agent is on its way: its order stays [`OrderStatus::Moving`](crate::orders::OrderStatus::Moving) while it waits
    /// (reaching its waiting place is no arrival, and reports no event).
    ///
    /// An agent at rest that **stepped aside** for a busy door
    /// ([`Decision::Aside`](crate::navigation::traffic::Decision::Aside)) waits the same way:
    /// its order is a plain move to its place beside the mouth's lane, its status reads
    /// `Moving` (the step that stepped it aside reports no event), and once nobody relates to
    /// the door it walks back to its goal and reports [`OrderStatus::Arrived`](crate::orders::OrderStatus::Arrived) again.
    ///
    /// # Errors
    /// [`SimError::UnknownAgent`].
    pub fn door_wait(&self, id: AgentId) -> Result<Option<DoorWait>, SimError> {
        self.agent_position(id)?;
        let waiters = &self.nav.traffic.waiters;
        Ok(waiters
            .binary_search_by_key(&id, |w| w.id)
            .ok()
            .map(|k| DoorWait {
                choke: waiters[k].choke,
                spot: waiters[k].spot,
            }))
    }
}

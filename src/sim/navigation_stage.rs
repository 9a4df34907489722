//! Stage 1a of the tick, `navigate` (the module docs of `sim/navigation.rs` list its steps):
//! the mesh brought up to date, the replan triggers, the requests served within the budget,
//! then traffic control.

use super::{
    FIELD_CACHE, FIELD_PLAN_EXPANSIONS, FIELD_SETTLES_PER_EXPANSION, FIELD_WINDOW, NavRecord,
    PARTIAL_LOOKAHEAD_RADII, QUICK_PLAN_EXPANSIONS, REPLAN_COOLDOWN_SECONDS,
    SEARCH_PLAN_EXPANSIONS, STUCK_SECONDS, SharedKeys, planned_order, shared_keys, ticks,
};
use crate::agent::AgentId;
use crate::math::{Fx, Vec2};
use crate::navigation::{NavMesh, PathRequest, PathStatus};
use crate::orders::Order;
use crate::sim::Simulator;
use crate::tick::StageClock;

impl Simulator {
    /// Stage 1a: see the [module docs](self). Never inlined, so an instruction profile
    /// (`bench navigation` under callgrind) counts it apart from the step.
    #[inline(never)]
    pub(in crate::sim) fn navigate(&mut self) {
        self.sync_nav_mesh();
        if !self.inputs.added_obstacles.is_empty() {
            let added = std::mem::take(&mut self.inputs.added_obstacles);
            let old = self.inputs.mesh_before();
            self.work.stats.agents_freed = self.free_buried(old, &added, true);
        }
        let budget = self.nav.params.as_ref().map_or(0, |p| p.budget);
        let allowance = budget.saturating_sub(self.nav.debt);
        self.nav.debt = self.nav.debt.saturating_sub(budget);
        if self.nav.records.is_empty() {
            self.nav.recheck = false;
            self.end_traffic();
            return;
        }
        self.check_triggers();
        self.nav.recheck = false;
        let mut clock = StageClock::start(self.work.timing);
        self.serve_requests(allowance);
        clock.lap(&mut self.work.times.planning);
        self.control_traffic();
    }

    /// Stage 1a, step 2: progress counters and replan triggers.
    fn check_triggers(&mut self) {
        let dt = self.time_step;
        let stuck = ticks(STUCK_SECONDS, dt);
        let Self {
            nav,
            nav_mesh,
            orders,
            agents,
            steering,
            ..
        } = self;
        let mesh = nav_mesh.mesh.as_deref();
        let recheck = nav.recheck;
        let tick = self.tick;
        let ids = agents.ids();
        let (positions, params) = (agents.positions(), agents.params());
        let (mut slot, mut at) = (0, 0);
        // Agents whose current leg is done and that have another queued (ascending id).
        let mut leg_done = Vec::new();
        let has_legs = !nav.legs.is_empty();
        for (id, r) in &mut nav.records {
            while slot < ids.len() && ids[slot] < *id {
                slot += 1;
            }
            let (Some(status), false) = (r.status, r.pending) else {
                continue;
            };
            let Some(order) = orders.get_from(&mut at, *id) else {
                continue;
            };
            if ids.get(slot) != Some(id) {
                // Every record's agent exists (records go with their agents); never trust it.
                continue;
            }
            let (position, p) = (positions[slot], &params[slot]);
            let next = order.progress();
            let d = (order.target() - position).length();
            let tolerance = steering.waypoint_tolerance.unwrap_or(p.radius);
            let at_end = next + 1 == order.path().len() && d <= tolerance;
            let speed = steering.speed.unwrap_or(p.max_speed);
            let step = speed.saturating_mul(dt) / 16;
            // A finished order (arrived: at rest at its goal or settled next to it; given
            // up) rests: it is never stuck, and a replan would set it moving again.
            let finished = order.status().is_finished();
            if finished || at_end || next as u32 != r.target || r.best.saturating_sub(d) >= step {
                r.best = d;
                r.target = next as u32;
                r.no_progress = 0;
            } else {
                r.no_progress = r.no_progress.saturating_add(1);
            }
            let stuck_now = u64::from(r.no_progress) >= stuck;
            // A partial plan (a field's window, a capped search) is extended before its end,
            // so the unit does not stop there.
            let lookahead = p.radius.saturating_mul_int(PARTIAL_LOOKAHEAD_RADII);
            let near_end = next + 1 == order.path().len() && d <= tolerance.max(lookahead);
            let ended = (at_end && status == PathStatus::NoStart)
                || (near_end && status == PathStatus::Partial);
            // A leg whose plan reached its end (done as a waypoint is: within the tolerance or
            // past it) or whose order finished hands over to the next queued leg, planned as
            // a first plan from where the agent is: it does not stop at the waypoint.
            // A given-up order hands over whatever its plan (a partial one's extension would
            // never come: a finished order is never stuck); a NoStart plan replans its leg.
            let given_up = order.status() == crate::orders::OrderStatus::GivenUp;
            if has_legs
                && (given_up
                    || (!matches!(status, PathStatus::Partial | PathStatus::NoStart)
                        && (finished || order.end_done(position, tolerance))))
                && nav.legs.binary_search_by_key(id, |(i, _)| *i).is_ok()
                // A waiter's order leads to its waiting spot, not to its leg's end.
                && nav.traffic.waiters.binary_search_by_key(id, |w| w.id).is_err()
            {
                leg_done.push(*id);
                continue;
            }
            let blocked = recheck
                && mesh.is_some_and(|m| {
                    matches!(status, PathStatus::Unreachable { .. })
                        || path_blocked(m, order, next, p.radius)
                });
            // A unit whose goal cannot be reached that stepped aside for a door rests beside
            // it for good (`control_traffic`): its order leads to that place, not to its
            // plan's end (in the door's lane). Walking back to it after a push, it is not
            // stuck while its way there is clear of walls (only units hold it; a replan would
            // send it into the lane again); pushed behind a wall, it plans again.
            let rests_aside = stuck_now
                && matches!(status, PathStatus::Unreachable { to } if order.goal() != to)
                && nav
                    .traffic
                    .waiters
                    .binary_search_by_key(id, |w| w.id)
                    .is_err()
                && mesh.is_some_and(|m| way_clear(m, order, position, p.radius));
            if (stuck_now && !rests_aside) || ended || blocked {
                r.pending = true;
                r.no_progress = 0;
            }
        }
        for id in leg_done {
            if let (Some(goal), Ok(k)) = (nav.next_leg(id), nav.find(id)) {
                nav.records[k].1 = NavRecord::new(goal, true, tick);
            }
        }
    }

    /// Stage 1a, steps 3 and 4: serves the pending requests within `allowance` expansions.
    /// Never inlined, so an instruction profile counts the planning apart from the triggers
    /// and the traffic control.
    #[inline(never)]
    fn serve_requests(&mut self, allowance: u32) {
        let cooldown = ticks(REPLAN_COOLDOWN_SECONDS, self.time_step);
        let (cap, quick_cap) = self
            .nav
            .params
            .as_ref()
            .map_or((1, 0), |p| (p.search_cap, p.quick_plan_cap));
        let tick = self.tick;
        let Self {
            nav,
            nav_mesh,
            orders,
            agents,
            inputs,
            work,
            ..
        } = self;
        let mesh = nav_mesh.mesh.clone();
        let ids = agents.ids();
        let (positions, params) = (agents.positions(), agents.params());
        let (mut spent, mut served, mut expansions) = (0u64, 0u64, 0u64);
        let shared = if mesh.is_some() && nav.records.iter().any(|(_, r)| r.pending) {
            shared_keys(&nav.records, ids, params)
        } else {
            SharedKeys::default()
        };
        // Under pressure, first plans are quick: capped searches whose partial paths set the
        // units moving at once, completed by full replans after
        // ([`NavParams::quick_plan_cap`](crate::navigation::NavParams::quick_plan_cap); 0: never).
        let quick = quick_cap > 0
            && mesh.is_some()
            && first_plans_must_wait(&nav.records, (tick, allowance, cap));
        // Per field this tick fetched: its key and the settles charged so far (a fresh field's
        // work). At most `FIELD_CACHE` fields, so the cache never drops one this tick uses
        // (whose rebuild these charges would not count).
        let mut charged: Vec<((i64, i64, i64, i64), u32)> = Vec::new();
        // Agents sent straight (no mesh): their queued legs follow as plain waypoints.
        let mut straight = Vec::new();
        // First plans of new orders before replans (replans of units already moving never
        // keep a new order waiting): the first plans by their request's tick, the oldest
        // first (a unit ordered again while it waited keeps its request's tick, so orders
        // repeated faster than the budget serves them cannot keep the same units waiting for
        // ever), ties in ascending id; then the replans in ascending id.
        // (The replans are listed after the first plans are served: a quick first plan is
        // completed in the same tick when the budget is left.)
        let mut queue: Vec<usize> = Vec::new();
        'passes: for first_plans in [true, false] {
            let records = &nav.records;
            queue.clear();
            queue.extend((0..records.len()).filter(|&k| {
                let r = &records[k].1;
                r.pending && r.status.is_none() == first_plans
            }));
            if first_plans {
                queue.sort_unstable_by_key(|&k| (records[k].1.planned_tick, records[k].0));
            }
            // The agents' slots: a cursor that moves on while the queue keeps to id order
            // (the usual case: requests of one tick), a binary search where it does not.
            let mut cursor = 0usize;
            for &k in &queue {
                let (id, r) = &mut nav.records[k];
                let ahead = ids.get(cursor).is_some_and(|x| x <= id);
                let window = &ids[cursor.min(ids.len())..(cursor + 8).min(ids.len())];
                let slot = match window.iter().position(|x| x >= id) {
                    // Sorted ids: the first not below `id` is it, or it is absent.
                    Some(j) if ahead => (window[j] == *id).then_some(cursor + j),
                    _ => ids.binary_search(id).ok(),
                };
                let Some(slot) = slot else {
                    continue;
                };
                cursor = slot + 1;
                let position = positions[slot];
                let Some(mesh) = mesh.as_deref() else {
                    // No mesh: straight to the goal, as MoveTo.
                    let old = orders.replan(*id, Order::new(position, r.goal));
                    if let Ok(old) = old {
                        inputs.log_order(*id, old);
                    }
                    *r = NavRecord::new(r.goal, false, r.planned_tick);
                    straight.push(*id);
                    continue;
                };
                // A partial plan's extension waits for no cooldown: it is asked only near the
                // plan's end.
                let extension = r.status == Some(PathStatus::Partial);
                if r.status.is_some()
                    && !extension
                    && tick < r.planned_tick.saturating_add(cooldown)
                {
                    continue;
                }
                if spent >= u64::from(allowance) {
                    // Out of budget this tick: the rest stay pending, in their order.
                    break 'passes;
                }
                let radius = params[slot].radius;
                // A first plan under pressure that needs a search of its own is quick.
                let quick_plan = quick && first_plans;
                let from_field = if let Some(key) = shared.field_key(r.goal, radius)
                    && let Some(arc) = nav_mesh.mesh.as_ref()
                {
                    let bits = key.bits();
                    let k = match charged.iter().position(|(b, _)| *b == bits) {
                        Some(k) => k,
                        // One field more than the cache keeps, this tick: the request waits for
                        // the next tick (a rule on the keys in serving order, so the same on
                        // every peer whatever each one's cache holds).
                        None if charged.len() >= FIELD_CACHE => continue,
                        None => {
                            charged.push((bits, 0));
                            charged.len() - 1
                        }
                    };
                    let field = nav_mesh.fields.get(arc, key, tick);
                    field
                        .path_from(mesh, position, FIELD_WINDOW, &mut nav_mesh.work)
                        .map(|path| (path, k))
                } else {
                    None
                };
                let searched = from_field.is_none();
                let path = if let Some((path, k)) = from_field {
                    // The unit's share and the field's growth past what this tick charged.
                    let grown = path.expansions.saturating_sub(charged[k].1);
                    charged[k].1 = charged[k].1.max(path.expansions);
                    // Reported as charged, so the stats tell the budget's spending.
                    let charge = FIELD_PLAN_EXPANSIONS
                        + u64::from(grown.div_ceil(FIELD_SETTLES_PER_EXPANSION));
                    spent += charge;
                    expansions += charge;
                    path
                } else {
                    let (cap, fixed) = if quick_plan {
                        (cap.min(quick_cap), QUICK_PLAN_EXPANSIONS)
                    } else {
                        (cap, SEARCH_PLAN_EXPANSIONS)
                    };
                    let req = PathRequest {
                        start: position,
                        goal: r.goal,
                        radius,
                        cap,
                    };
                    let path = mesh.find_path(&req, &mut nav_mesh.work);
                    spent += if path.expansions > 1 {
                        u64::from(path.expansions) + fixed
                    } else {
                        FIELD_PLAN_EXPANSIONS
                    };
                    expansions += u64::from(path.expansions);
                    path
                };
                served += 1;
                let (order, cut) = planned_order(position, path.points);
                let (end, mut target) = (order.goal(), Some(order.target()));
                let old = orders.replan(*id, order).or_else(|_| {
                    // The planned order did not fit: its target is not the order's.
                    target = None;
                    orders.replan(*id, Order::new(position, end))
                });
                if let Ok(old) = old {
                    inputs.log_order(*id, old);
                }
                *r = NavRecord {
                    status: Some(if cut {
                        PathStatus::Partial
                    } else {
                        path.status
                    }),
                    best: (target.unwrap_or_else(|| order_target(orders, *id)) - position).length(),
                    // A quick search that stopped short is completed as soon as the budget
                    // allows (a field's window is extended near its end, as always).
                    ..NavRecord::new(
                        r.goal,
                        quick_plan && searched && path.status == PathStatus::Partial,
                        tick,
                    )
                };
            }
        }
        for id in straight {
            nav.straighten_legs(id, orders);
        }
        let over = spent.saturating_sub(u64::from(allowance));
        nav.debt = nav
            .debt
            .saturating_add(u32::try_from(over).unwrap_or(u32::MAX));
        work.stats.nav_requests_served = served;
        work.stats.nav_expansions = expansions;
    }
}

/// Whether first plans are quick this tick: the agents waiting for one are more than the
/// allowance can serve at the least a search costs (two expansions and
/// [`SEARCH_PLAN_EXPANSIONS`]), or one of them already waited a tick (its order is older than
/// this tick) and the allowance could not serve them all even at the search cap (so none
/// waits a second tick for want of a quick plan). Only plans that need a search of their own
/// are made quick; the count takes every waiting agent, so that it needs no field lookup.
fn first_plans_must_wait(
    records: &[(AgentId, NavRecord)],
    (tick, allowance, cap): (u64, u32, u32),
) -> bool {
    let (mut waiting, mut waited) = (0u64, false);
    for (_, r) in records {
        if r.pending && r.status.is_none() {
            waiting += 1;
            waited |= r.planned_tick < tick;
        }
    }
    let allowance = u64::from(allowance);
    waiting.saturating_mul(SEARCH_PLAN_EXPANSIONS + 2) > allowance
        || (waited && waiting.saturating_mul(u64::from(cap) + SEARCH_PLAN_EXPANSIONS) > allowance)
}

/// The target of agent `id`'s order (it has one).
fn order_target(orders: &crate::orders::Orders, id: AgentId) -> Vec2 {
    orders.get(&id).map_or(Vec2::ZERO, Order::target)
}

/// Whether a disc of `radius` at `position` can go straight to `order`'s current target and
/// on along the rest of its path without touching a wall.
fn way_clear(mesh: &NavMesh, order: &Order, position: Vec2, radius: Fx) -> bool {
    segments_clear(mesh, position, &order.path()[order.progress()..], radius)
}

/// Whether every segment of the polyline from `from` through `points` is clear for a disc of
/// `radius`.
fn segments_clear(mesh: &NavMesh, mut from: Vec2, points: &[Vec2], radius: Fx) -> bool {
    for &to in points {
        if from != to && !mesh.raycast(from, to, radius).clear {
            return false;
        }
        from = to;
    }
    true
}

/// Whether a segment of `order`'s path from its current target `next` on (starting from the
/// point before it) is no longer clear for a disc of `radius`.
fn path_blocked(mesh: &NavMesh, order: &Order, next: usize, radius: Fx) -> bool {
    let path = order.path();
    let from = if next == 0 {
        order.start()
    } else {
        path[next - 1]
    };
    !segments_clear(mesh, from, &path[next..], radius)
}

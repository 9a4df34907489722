//! Traffic control in stage 1a: the glue between [`crate::navigation::traffic`] (chokes,
//! reservations, decisions) and the navigating agents' orders.
//!
//! After the plans are served, every planned navigating agent is a traveller: its position,
//! radius and remaining path (for a waiting agent, the path it will resume). The decisions:
//! - **Wait** at a spot: the agent's planned path is kept aside in its [`Waiter`] record and
//!   its order becomes a plain move to the spot (so it steers there and rests, pressing
//!   nowhere); a waiter keeps its spot while it waits for the same choke; its no-progress
//!   counter stays at zero (waiting is not being stuck).
//! - **Go**: a waiter's order becomes its kept path again, from where it stands (through the
//!   portal's middle first when its next point lies beyond the portal but the straight line
//!   to it passes beside it: a straight path through the door, resumed from a spot beside
//!   it); its progress is measured afresh (its best distance was to its spot: the walk to
//!   the door counted as no progress and replanned it after 3 s). Through a door narrower
//!   than `3 r` it goes in along the door's axis (`through_narrow_door`): to a point
//!   `1.5 r` out on the axis, through the middle of each mouth, to a point `2 r` beyond,
//!   then on along its path past the door.
//!
//! Then the rules of the road:
//! - **Keep right** ([`traffic::keep_right`]): an agent going on its path whose next segment
//!   crosses a lane portal crossed both ways, outside its right lane, gets the nearest point
//!   of that lane inserted as its next target (not when it is its next target already, nor
//!   when its order has already passed it).
//! - **Right of way**: an agent going whose disc is within its radius of a choke
//!   ([`traffic::has_right_of_way`]) gets the highest avoidance priority
//!   ([`RIGHT_OF_WAY`]): the others give way to it.
//! - **The unit let through goes first**: an agent let through a choke in single file
//!   ([`Decision::Through`]) gets [`GOING`] until it has the right of way there: the waiters
//!   pressed round the mouth and the units of its side not let through yet give way to it. A
//!   waiter keeps its own priority: below the default ([`WAITING`], until the twenty-second
//!   session) every unit of its side still on its way walked through the waiters without an
//!   avoidance line on its side, and a crowd sent through a door from one side piled up in
//!   the mouth.
//! - **A short look at a door's walls** (twenty-seventh session): for the step, an agent with
//!   [`RIGHT_OF_WAY`] looks at most [`RIGHT_OF_WAY_HORIZON`] (0.5 s) ahead at obstacles and
//!   one with [`GOING`] at most [`GOING_HORIZON`] (1 s), each at least two time steps and
//!   never more than its own `time_horizon_obst` ([`Simulator::obstacle_horizon_caps`]; the
//!   ORCA stage reads the caps, the agent's parameters stay as the game set them). RVO2
//!   chooses an obstacle's line by the agent's current velocity: a unit let through from a
//!   place beside the entrance reaches the door's axis moving along the wall, and with 0.15 to
//!   spare at the jambs (a door 1.3 wide, radius 0.5) a horizon of 2 s held its speed towards
//!   the door to 0.1 to 0.5 u/s for 3 to 4 ticks until it had turned (RVO2's default of 10 s,
//!   far longer). A horizon of at least one time step still keeps it out of the walls. A
//!   unit whose own priority already reaches the level gets none, and so no cap.
//! - **A short look near a lane portal** (twenty-eighth session): for the step, an agent
//!   on its way (its order not finished, not waiting for a door) within
//!   [`LANE_HORIZON_REACH`] radii of a lane portal's middle looks at
//!   most [`LANE_HORIZON`] (2 s) ahead at obstacles, at least two time steps and never more
//!   than its own (a door's lower cap wins). With RVO2's default of 10 s, the front of a crowd
//!   braked for the jambs from far off and packed the mouth: 100 units through a gap 3 wide
//!   took 97.75 s, now 84.5 s.
//! - **Step aside** ([`Decision::Aside`]): an agent at rest (arrived) standing or resting in
//!   the lane in front of a door's mouth while anyone relates to the door waits beside the
//!   lane, as a waiter, its goal kept as the path it resumes once nobody relates to the door
//!   ([`traffic::decide_at`], "Stepping aside"): units entering the mouth pushed it into the
//!   passage, where it headed back against them. Not an agent with a queued leg: it goes
//!   (back) to its goal, where the leg takes over. An agent whose plan is
//!   [`Unreachable`](PathStatus::Unreachable) (it ends at the nearest reachable point) steps
//!   aside for good (thirty-fourth session): the path it resumes is its place, where it then
//!   rests (its plan stays `Unreachable`, and is replanned, to its end, at the next obstacle
//!   change anywhere); it walked back into the lane whenever the door freed and was stepped
//!   aside again (sweep seed 885). A traveller at rest is given its rest point as `from`.
//! - **Yield at rest**: an agent whose order has arrived, within `20 r` of a choke or a lane
//!   portal ([`traffic::near_portal`], [`TrafficParams::yield_within`]), gets the lowest
//!   ([`YIELD`]): units still on their way pass through those already there, which return
//!   after. Near a lane portal (and no choke), one pushed more than its radius from its rest
//!   point gets [`RETURNING`] instead, one above: it walks back through those at rest, which
//!   give way (between units at rest a quarter radius apart ORCA allowed it a crawl). A unit
//!   settled off a goal it shares never walks back (it wants zero velocity wherever it is
//!   pushed): it never gets [`RETURNING`]. It yields only **within reach of a unit not at
//!   rest** (on its way, waiting, let through, or walking back: that unit's radius and the
//!   distance it covers at full speed in its time horizon, and the resting unit's radius,
//!   [`MoverGrid`]); with none in reach it keeps its own priority, so units at rest share
//!   their avoidance. Until the thirty-first session it yielded to every unit, so one pinned
//!   between a wall and units at rest that held their priority (a crowd's core) could not get
//!   out of an overlap, and none of them moved: a minute after every unit had finished, 33 of
//!   the navigation sweep's 500 scenes 16 to 515 had a pair overlapping by more than 0.1 (up
//!   to 0.92), now 4.
//! - **The core of a crowd at rest holds**: near a lane portal (not a choke), a unit settled
//!   on a shared goal within the settle radius of it
//!   ([`settle_radius`](crate::orders::settle_radius)) keeps its own priority. The units
//!   still on their way to that goal then share the avoidance with it (ORCA) and stop at the
//!   crowd's edge, where the arrival rule settles them, instead of walking through units that
//!   yield without an avoidance line on their side: in a street leading to a full plaza they
//!   ploughed the crowd together, pairs overlapping by up to a whole diameter, never at rest.
//!   Units settled beyond that radius (the overflow of a crowd that walls keep from its disc)
//!   still yield, so a crowd pressing in through a door spreads past it; but where walls
//!   crowd the goal (an obstacle edge within the settle radius of it) only to units on their
//!   way to another goal (thirty-fifth session): the units of their own goal stop against
//!   them and settle, queued behind the crowd (the arrival rule's "Against the crowd"). A
//!   crowd larger than its walled yard filled the street to it, and the units still coming
//!   pushed those settled there about at 0.2 to 0.9 u/s for minutes, pairs overlapping by up to
//!   0.83 (`settled::a_crowd_larger_than_its_yard_comes_to_rest`).
//! - **Passing**: an agent on its way that touches a unit of such a core at rest on another
//!   goal (discs within `r / 2`) gets [`PASSING`], above the default: that crowd gives way to
//!   it, as it did when its units yielded. Not an agent whose own priority (the game's) is
//!   that high or higher: it keeps its own.
//! - **Stop beside the goal** ([`stop_beside`]): away from chokes, an agent arrived on a goal of
//!   its own (no other order has it; never with [`Steering::rvo2_goals`](crate::orders::Steering::rvo2_goals)),
//!   within `arrive_within` of it but held back short of it (moving towards it at under half
//!   the goal rule's speed), stops where it stands: its order's rest point becomes its
//!   position, so it wants zero velocity (the order's [arrival](crate::orders::arrival) rule
//!   keeps it there while it stays within `arrive_within`, and walks it back when pushed
//!   farther). In a grid of goals a quarter radius apart, units centring on their exact points
//!   pushed each other at 0.1 to 0.5 u/s for minutes (the corridor's last 20 s); near a door
//!   the units stay on the goal rule (stopped where pushed, they stood in the door's way).
//!
//! The caps on the obstacle horizon are derived from the levels in the state at every step,
//! after this stage, and are never state themselves.
//!
//! The priority an agent had is kept in the state and given back when the rule no longer
//! applies (or traffic control ends); a priority the game sets meanwhile is the one given
//! back. Priority changes and inserted lane points are logged for a failed step's undo.
//!
//! A waiter whose order was replaced by anything else (a new command, a replan) is dropped;
//! so is one whose agent left. The state ([`TrafficState`]: the held chokes, the waiters and
//! the priorities set, ascending) is hashed (after the records, only when not empty, so
//! states without traffic keep their hashes) and snapshotted with the navigation state (the
//! priorities set in snapshot format 8).
//!
//! The chokes and lane portals themselves, with their indexes, are derived: a pure function
//! of the mesh, the traffic radius and the largest navigating radius (a served plan's unit,
//! at rest or not), made once per mesh and radii and kept beside the mesh
//! (`NavDerived::traffic_portals`), never state. A cold cache after a restore makes the same
//! lists: `tests/navigation/traffic.rs::a_snapshot_mid_door_continues_bit_identically` steps
//! a restored copy (cold) beside the original (warm) through a door's traffic.

// The state (its records, bytes and checks, and the `door_wait` query): its own file.
#[path = "navigation_traffic_state.rs"]
mod state;
pub(crate) use state::{Level, TrafficState, Waiter};

use super::traffic_grids::{CoreGrid, CoreUnit, Mover, MoverGrid};
use super::{Simulator, planned_order, ticks};
use crate::agent::AgentId;
use crate::geom::segments_intersect;
use crate::math::{Fx, Vec2, wide_mul};
use crate::navigation::PathStatus;
use crate::navigation::traffic::{
    self, Choke, Decision, GOING, RIGHT_OF_WAY, TrafficParams, Traveller,
};
use crate::orders::arrival::held_back;
use crate::orders::{Arrival, MAX_PATH_POINTS, Order, OrderStatus, settle_radius};

/// The avoidance priority of a navigating agent at rest at its goal (arrived): the lowest, so
/// units still on their way pass through those already there (which then return), instead of
/// pressing against them.
pub(crate) const YIELD: u8 = 0;

/// The avoidance priority a navigating agent waiting for a choke had until the twenty-second
/// session (still accepted in a restored state, never set now): below those on their way,
/// which it gave way to. Waiters pressed round a door's mouth at the priority of the unit let
/// through had held it to a walk (one unit every 1.7 s, where single file takes 0.73 s); but
/// every unit of the waiters' side still on its way then walked through them without an
/// avoidance line on its side: a crowd of 200 sent through a door 2 wide from one side piled
/// up in its mouth, pairs overlapping by up to 0.98 of a diameter. Now a waiter keeps its own
/// priority and the unit let through gets [`GOING`].
pub(crate) const WAITING: u8 = 64;

/// The avoidance priority of a navigating agent arrived and pushed more than its radius from
/// its rest point, walking back: above those at rest ([`YIELD`]), which give way to it, and
/// below those still on their way. At [`YIELD`] too it crept back at the pace ORCA allows
/// between units at rest a quarter radius apart (the corridor's goal grids took 40 s to
/// settle after the last arrival).
pub(crate) const RETURNING: u8 = 1;

/// The avoidance priority of an agent on its way that touches the core of a crowd at rest on
/// another goal (see the module docs): above the default (128) and below [`RIGHT_OF_WAY`], so
/// that crowd gives way to it.
pub(crate) const PASSING: u8 = 160;

/// The obstacle time horizon (seconds) of a unit with the right of way at a door
/// ([`RIGHT_OF_WAY`]), when its own is longer: see [`Simulator::obstacle_horizon_caps`].
pub(crate) const RIGHT_OF_WAY_HORIZON: Fx = Fx::lit("0.5");

/// The obstacle time horizon (seconds) of a unit let through a door ([`GOING`]), when its own
/// is longer: see [`Simulator::obstacle_horizon_caps`].
pub(crate) const GOING_HORIZON: Fx = Fx::ONE;

/// The obstacle time horizon (seconds) of a unit on its way near a lane portal (within
/// [`LANE_HORIZON_REACH`] radii of its middle), when its own is longer: see
/// [`Simulator::obstacle_horizon_caps`].
pub(crate) const LANE_HORIZON: Fx = Fx::lit("2");

/// How near (in traffic radii) to a lane portal's middle a unit on its way looks at most
/// [`LANE_HORIZON`] ahead at obstacles.
pub(crate) const LANE_HORIZON_REACH: Fx = Fx::lit("12");

/// How an arrived unit rests, for its level near a portal.
#[derive(Clone, Copy)]
enum Rest {
    /// At rest on its goal: [`YIELD`], or [`RETURNING`] when pushed off it.
    Level(u8),
    /// Settled off its goal (its rest point elsewhere): in the core of the crowd at rest on a
    /// shared goal, or yielding (see the module docs).
    Off { goal: Vec2, rest: Vec2 },
}

impl Simulator {
    /// Stage 1a, step 5: traffic control at chokepoints (see the [module docs](self)).
    pub(super) fn control_traffic(&mut self) {
        let Some(mesh) = self.nav_mesh.mesh.clone() else {
            self.end_traffic();
            return;
        };
        let rules = self
            .nav
            .params
            .as_ref()
            .map_or(TrafficParams::DEFAULT, |p| p.traffic);
        let hold = ticks(rules.hold_seconds, self.time_step);
        let tick = self.tick;
        // Stopping beside a goal is settling short of it: never with RVO2's goal rule.
        let (arrive_within, stop) = (self.steering.arrive_within, !self.steering.rvo2_goals);
        // The largest navigating unit's radius: the chokes are doors for it too; the units no
        // larger than the traffic radius pass those that are not doors for them (see
        // `traffic::Doors` and `relation`).
        let big = {
            let (ids, params) = (self.agents.ids(), self.agents.params());
            let mut slot = 0;
            let mut big = rules.radius;
            for (id, r) in &self.nav.records {
                while slot < ids.len() && ids[slot] < *id {
                    slot += 1;
                }
                if r.status.is_some() && slot < ids.len() && ids[slot] == *id {
                    big = big.max(params[slot].radius);
                }
            }
            big
        };
        // The mesh is there (checked above), so are its portals.
        let (doors, lanes, lanes_index, short_look) = self
            .nav_mesh
            .traffic_portals(rules.radius, big)
            .map(|p| (p.doors, p.lanes, p.lanes_index, p.short_look))
            .unwrap_or_default();
        let chokes = doors.chokes();
        // The overflow of a crowd asks whether walls crowd its goal: the tree is built here,
        // as stage 1b would (the step's statistic counts a build here too).
        self.work.stats.obstacle_tree_rebuilt |= !self.obstacles.is_built();
        self.build_obstacles();
        let Self {
            nav,
            orders,
            agents,
            inputs,
            near_lanes,
            obstacles,
            ..
        } = self;
        let mut state = std::mem::take(&mut nav.traffic);
        // Waiters whose order someone else replaced, or whose agent or record left.
        state.waiters.retain(|w| {
            nav.get(w.id).is_some() && orders.get(&w.id).is_some_and(|o| o.path() == [w.spot])
        });
        if chokes.is_empty() && lanes.is_empty() && state.waiters.is_empty() {
            nav.traffic = state;
            self.end_traffic();
            return;
        }
        let ids = agents.ids();
        let (positions, params) = (agents.positions(), agents.params());
        let n = nav.records.len();
        // Each traveller's id, slot, waiter index and whether its plan is `Unreachable`.
        let mut who: Vec<(AgentId, usize, Option<usize>, bool)> = Vec::with_capacity(n);
        let mut travellers = Vec::with_capacity(n);
        let mut waiting = Vec::with_capacity(n);
        let (mut slot, mut w, mut at) = (0, 0, 0);
        for (id, r) in &nav.records {
            while slot < ids.len() && ids[slot] < *id {
                slot += 1;
            }
            while w < state.waiters.len() && state.waiters[w].id < *id {
                w += 1;
            }
            if r.status.is_none() || slot >= ids.len() || ids[slot] != *id {
                continue;
            }
            let Some(order) = orders.get_from(&mut at, *id) else {
                continue;
            };
            let position = positions[slot];
            let waiter = (w < state.waiters.len() && state.waiters[w].id == *id).then_some(w);
            let (from, path) = match waiter {
                Some(w) => (position, &state.waiters[w].path[..]),
                // At rest (arrived): not travelling, it reserves nothing and is in no door.
                // Its `from` is its rest point (what stepping aside looks at).
                None if order.arrival().status == OrderStatus::Arrived => {
                    (order.arrival().rest, &[][..])
                }
                None => {
                    let next = order.progress();
                    let from = if next == 0 {
                        order.start()
                    } else {
                        order.path()[next - 1]
                    };
                    (from, &order.path()[next..])
                }
            };
            let unreachable = matches!(r.status, Some(PathStatus::Unreachable { .. }));
            who.push((*id, slot, waiter, unreachable));
            waiting.push(waiter.map(|w| (state.waiters[w].choke, state.waiters[w].spot)));
            travellers.push(Traveller {
                id: id.0,
                position,
                radius: params[slot].radius,
                from,
                path,
            });
        }
        let decisions = traffic::decide_at(
            &rules,
            &mesh,
            &doors,
            &mut state.chokes,
            tick,
            hold,
            &travellers,
            &waiting,
        );
        drop(travellers);
        let (choke_index, lane_index) = (
            traffic::PortalIndex::new(chokes, Fx::ZERO),
            traffic::PortalIndex::new(&lanes, Fx::ZERO),
        );
        // The chokes for units no larger than the traffic radius (all of them, unless some
        // are doors only for larger units): their right of way and yielding look at these
        // (kept with the doors, never made per tick).
        let all_light = doors.all_light();
        let light_index =
            traffic::PortalIndex::new(if all_light { &[] } else { doors.light_chokes() }, Fx::ZERO);
        let chokes_for = |radius: Fx| {
            if radius > rules.radius || all_light {
                &choke_index
            } else {
                &light_index
            }
        };
        let mut right: Vec<(AgentId, u8)> = Vec::with_capacity(n);
        let mut resting: Vec<(AgentId, Vec2, Fx, Rest)> = Vec::new();
        // The units on their way (id, position, radius, goal), which the core of a crowd at
        // rest on another goal lets through, but those whose own priority is `PASSING` or
        // above.
        let mut passers: Vec<(AgentId, Vec2, Fx, Vec2)> = Vec::new();
        // The units not at rest (on their way, waiting, let through, or walking back to their
        // rest points), how far each reaches (see `MoverGrid`) and its order's goal: units at
        // rest near a portal yield only within reach of one.
        let mut movers: Vec<Mover> = Vec::new();
        let mut waiters = Vec::with_capacity(state.waiters.len());
        let mut kept = std::mem::take(&mut state.waiters)
            .into_iter()
            .map(Some)
            .collect::<Vec<_>>();
        // Units going on their paths (not waiters resuming; also units at rest whose order
        // has a target), for keeping right.
        let mut going = Vec::with_capacity(n);
        // Of those, the ones whose order is not finished (on their way), for the cap on the
        // obstacle horizon near lane portals.
        let mut on_way = Vec::with_capacity(n);
        // Waiters resuming their paths (their progress is measured afresh).
        let mut resumed = Vec::new();
        // The arms replace orders of agents that have one: the list's positions stay.
        let mut at = 0;
        for ((id, slot, waiter, unreachable), decision) in who.into_iter().zip(decisions) {
            let position = positions[slot];
            let old = waiter.and_then(|w| kept[w].take());
            // A unit with a queued leg never steps aside: it goes (back) to its goal, where its
            // next leg takes over (a waiter's leg waits for its order to end). A unit whose
            // plan is `Unreachable` (it ends at the nearest reachable point) steps aside for
            // good: it waits at its place beside the lane as any unit stepping aside does, but
            // the path it resumes when the door frees is that place, so it never walks back
            // into the lane (sweep seed 885: five heavy units ending in one door's mouth walked
            // back whenever it freed, took it again and were stepped aside again, for
            // minutes).
            let mut for_good = false;
            let decision = match decision {
                Decision::Aside { .. } if nav.legs.binary_search_by_key(&id, |l| l.0).is_ok() => {
                    Decision::Go
                }
                Decision::Aside { choke, spot } => {
                    for_good = unreachable;
                    Decision::Wait { choke, spot }
                }
                d => d,
            };
            // Arrived: at rest within its radius of its rest point (it yields), or pushed
            // farther and walking back (it returns, through those at rest); or settled off its
            // goal (see `Rest::Off`).
            // The order's arrival, goal and target (read once: the arms below replace orders).
            let (arrival, target) = orders
                .get_from(&mut at, id)
                .map(|o| ((o.arrival(), o.goal()), o.target()))
                .unzip();
            let rests = arrival.and_then(|(a, goal)| {
                (a.status == OrderStatus::Arrived).then(|| {
                    let r = params[slot].radius;
                    if a.rest != goal {
                        Rest::Off { goal, rest: a.rest }
                    } else if (position - a.rest).length_squared_wide() <= wide_mul(r, r) {
                        Rest::Level(YIELD)
                    } else {
                        Rest::Level(RETURNING)
                    }
                })
            });
            // A unit at rest stepping aside for a door (see `traffic::decide_at`) waits.
            let waits = matches!(decision, Decision::Wait { .. });
            // Its own priority: the one it had before a level, else its current one.
            let own = || {
                state
                    .right_of_way
                    .binary_search_by_key(&id, |r| r.0)
                    .map_or(params[slot].priority, |k| state.right_of_way[k].1)
            };
            let goes = matches!(decision, Decision::Go | Decision::Through);
            let resting_now = rests.filter(|_| waiter.is_none() && !waits);
            // A mover: any unit of this loop (navigating) but one at rest, or one whose order
            // has given up (it rests where it stopped). A unit walking back (`RETURNING`) is
            // one, so near a choke, where it keeps yielding, it finds itself in reach.
            let given_up = arrival.is_some_and(|(a, _)| a.status == OrderStatus::GivenUp);
            if !given_up && !matches!(resting_now, Some(Rest::Level(YIELD) | Rest::Off { .. })) {
                movers.push((
                    position,
                    MoverGrid::reach(&params[slot]),
                    arrival.map(|a| a.1),
                ));
            }
            if let Some(rest) = resting_now {
                resting.push((id, position, params[slot].radius, rest));
            } else if goes
                && chokes_for(params[slot].radius).right_of_way(position, params[slot].radius)
            {
                right.push((id, RIGHT_OF_WAY));
            } else if decision == Decision::Through {
                if own() < GOING {
                    right.push((id, GOING));
                }
            } else if !waits // A waiter keeps its own priority (see `WAITING`).
                && let Some((_, goal)) =
                    arrival.filter(|(a, _)| waiter.is_none() && !a.status.is_finished())
                && own() < PASSING
            {
                passers.push((id, position, params[slot].radius, goal));
            }
            match (decision, old) {
                (Decision::Go | Decision::Through, None) => {
                    if let Some(target) = target {
                        going.push((id, position, target, params[slot].radius));
                        if arrival.is_some_and(|(a, _)| !a.status.is_finished()) {
                            on_way.push((id, position));
                        }
                    }
                }
                (Decision::Go | Decision::Through, Some(w)) => {
                    let mut path = w.path;
                    let r = params[slot].radius;
                    if let Some(axis) =
                        through_narrow_door(&mesh, &doors, &w.choke, position, r, &path)
                    {
                        path = axis;
                    } else
                    // A straight path through the door resumed from a spot beside it would
                    // run into the wall: through the middle of the door's mouth first (the
                    // portal's, for a door of one choke).
                    if let (Some((mouth, here)), Some(&next)) =
                        (doors.entry(&w.choke, position), path.first())
                        && mouth.side(next) == Some(1 - here)
                        && !segments_intersect(position, next, mouth.a, mouth.b)
                        && path.len() < MAX_PATH_POINTS
                    {
                        path.insert(0, mouth.mid());
                    }
                    let (order, _) = planned_order(position, path);
                    if let Ok(old) = orders.insert(id, order) {
                        inputs.log_order(id, old);
                        resumed.push(id);
                    }
                }
                (Decision::Wait { choke, spot } | Decision::Aside { choke, spot }, old) => {
                    let path = match old {
                        Some(w) if w.choke == choke && w.spot == spot => {
                            waiters.push(w);
                            continue;
                        }
                        _ if for_good => vec![spot],
                        Some(w) => w.path,
                        None => orders
                            .get(&id)
                            .map(|o| o.path()[o.progress()..].to_vec())
                            .unwrap_or_default(),
                    };
                    if path.is_empty() {
                        continue;
                    }
                    if let Ok(old) = orders.insert(id, Order::new(position, spot)) {
                        inputs.log_order(id, old);
                        waiters.push(Waiter {
                            id,
                            choke,
                            spot,
                            path,
                        });
                    }
                }
            }
        }
        // Units on their way near a lane portal or a door crossed two abreast look less far
        // ahead at its walls (see `obstacle_horizon_caps`): in ascending id, as `on_way` is.
        let lane_rules = TrafficParams {
            yield_within: LANE_HORIZON_REACH,
            ..rules
        };
        let short_index = traffic::PortalIndex::new(&short_look, Fx::ZERO);
        near_lanes.extend(
            on_way
                .iter()
                .filter(|u| short_index.near(&lane_rules, u.1))
                .map(|u| u.0),
        );
        // Keep right at lane portals crossed both ways: the lane point becomes the next target.
        let units: Vec<_> = going.iter().map(|g| (g.1, g.2, g.3)).collect();
        for (g, lane) in going
            .iter()
            .zip(traffic::keep_right_by(&lane_index, &lanes_index, &units))
        {
            let (Some(p), Some(order)) = (lane, orders.get(&g.0)) else {
                continue;
            };
            let rest = &order.path()[order.progress()..];
            // Already its next target (set on an earlier tick, not reached yet): it was put in
            // again every tick, and a unit held short of it carried a path of hundreds of
            // copies of one point.
            if rest.len() >= MAX_PATH_POINTS || rest.first() == Some(&p) {
                continue;
            }
            // A lane point the order already passed (reached within the waypoint tolerance)
            // is not put in again: a unit held within the tolerance of it, but not across the
            // portal, had it put back every other tick and walked back and forth for good,
            // its order restarted each time, so it never read `Blocked` (sweep seeds 135, 150,
            // 368, 475).
            if order.path()[..order.progress()].contains(&p) {
                continue;
            }
            let mut path = Vec::with_capacity(rest.len() + 1);
            path.push(p);
            path.extend_from_slice(rest);
            let (order, _) = planned_order(g.1, path);
            if let Ok(old) = orders.insert(g.0, order) {
                inputs.log_order(g.0, old);
            }
        }
        // Waiting is not being stuck.
        for w in &waiters {
            if let Ok(k) = nav.find(w.id) {
                nav.records[k].1.no_progress = 0;
            }
        }
        // A waiter resuming its path measures its progress afresh: its best distance was to
        // its spot, and against it the walk to the door counted as no progress (a replan
        // after 3 s, whose path could clip the door's corner).
        for id in resumed {
            if let Ok(k) = nav.find(id) {
                let r = &mut nav.records[k].1;
                (r.best, r.no_progress) = (Fx::MAX, 0);
            }
        }
        state.waiters = waiters;
        nav.traffic = state;
        // Units at rest near a choke or a lane portal yield. Near a lane portal (not a choke) a
        // unit pushed off its rest point returns above them; near a choke it stays yielding
        // (walking back with precedence it pushed into the door's queue: the door scenes took
        // 2 to 10 s longer).
        let velocities = agents.velocities();
        // The levels of the units at rest (the goal counts read once every order of the tick
        // is in place, as stage 1b reads them), and the core of each crowd at rest.
        let mut core: Vec<CoreUnit> = Vec::new();
        let mut by_choke = Vec::with_capacity(resting.len());
        let movers = MoverGrid::new(movers);
        for &(id, position, r, rest) in &resting {
            let near_choke = chokes_for(r).near(&rules, position);
            by_choke.push(near_choke);
            // Yielding is for units on their way: with none in reach a unit at rest keeps its
            // own priority, so units at rest share their avoidance and an overlap between
            // two of them resolves (a yielding unit pinned against a wall or units at rest that
            // held their priority stayed overlapped for good).
            let yields = || movers.reaches(position, r, None);
            if near_choke {
                if yields() {
                    right.push((id, YIELD));
                }
                continue;
            }
            if !lane_index.near(&rules, position) {
                continue;
            }
            let level = match rest {
                Rest::Level(level) => level,
                Rest::Off { goal, rest } => {
                    let n = orders.sharing(goal);
                    if n >= 2 {
                        // Settled on a shared goal: it never walks back (pushed, it rests where
                        // it is), so never RETURNING (at 1 it stood without avoiding the units
                        // at rest round it, which could not get out of its way: the pair stayed
                        // overlapped for good). Within the settle radius it holds.
                        let s = settle_radius(r, n);
                        if (position - goal).length_squared_wide() <= wide_mul(s, s) {
                            core.push((position, r, goal));
                            continue;
                        }
                        // Beyond it (the overflow), where walls crowd the goal, it holds
                        // against the units of its own goal: it yields only to units on their
                        // way elsewhere (those of its goal stop against it and queue).
                        if !yields()
                            || (obstacles.any_edge_within(goal, s)
                                && !movers.reaches(position, r, Some(goal)))
                        {
                            continue;
                        }
                        right.push((id, YIELD));
                        continue;
                    } else if (position - rest).length_squared_wide() <= wide_mul(r, r) {
                        YIELD
                    } else {
                        RETURNING
                    }
                }
            };
            if level == YIELD && !yields() {
                continue;
            }
            right.push((id, level));
        }
        if !core.is_empty() && !passers.is_empty() {
            let grid = CoreGrid::new(core, &passers);
            for &(id, position, r, goal) in &passers {
                if grid.touches(position, r, goal) {
                    right.push((id, PASSING));
                }
            }
        }
        for (&(id, position, _, _), near_choke) in resting.iter().zip(by_choke) {
            if near_choke {
                continue;
            }
            // Away from chokes, one held back short of a goal of its own stops beside it (units
            // sharing a goal settle by the arrival rule).
            let (Some(slot), Some(order)) = (agents.slot(id).filter(|_| stop), orders.get(&id))
            else {
                continue;
            };
            let radius = params[slot].radius;
            let within = arrive_within.unwrap_or(radius);
            // The goal count (a map lookup) last: most units at rest are not held back.
            let Some(arrival) = stop_beside(order, position, velocities[slot], radius, within)
                .filter(|_| orders.sharing(order.goal()) == 1)
            else {
                continue;
            };
            if let Some(order) = orders.get_mut(&id) {
                let old = order.clone();
                order.set_arrival(arrival);
                inputs.log_order(id, Some(old));
            }
        }
        right.sort_unstable();
        self.set_levels(&right);
    }

    /// Sets the avoidance priority of the agents `levels` (ascending id: the agent and its
    /// level, [`RIGHT_OF_WAY`], [`GOING`], [`PASSING`], [`YIELD`] or [`RETURNING`]) and
    /// gives the others that had one their priority back. The priority an agent had is kept
    /// in the state until it is given back; a priority the game set meanwhile (anything but
    /// the level applied) is the one kept.
    /// Changes are logged for a failed step's undo.
    fn set_levels(&mut self, levels: &[(AgentId, u8)]) {
        let old = std::mem::take(&mut self.nav.traffic.right_of_way);
        let mut new = Vec::with_capacity(levels.len());
        let mut o = old.iter().peekable();
        let give_back = |sim: &mut Self, r: &Level| {
            sim.set_priority_logged(r.0, |p| (p == r.2).then_some(r.1));
        };
        for &(id, level) in levels {
            while let Some(r) = o.next_if(|r| r.0 < id) {
                give_back(self, r);
            }
            let had = o.next_if(|r| r.0 == id).copied();
            let mut kept = level;
            self.set_priority_logged(id, |p| {
                kept = match had {
                    Some(r) if p == r.2 => r.1,
                    _ => p,
                };
                (p != level).then_some(level)
            });
            new.push((id, kept, level));
        }
        for r in o {
            give_back(self, r);
        }
        self.nav.traffic.right_of_way = new;
    }

    /// Fills [`Simulator::obstacle_caps`] for this step from the traffic levels set in stage
    /// 1a: a unit with the right of way at a door looks [`RIGHT_OF_WAY_HORIZON`] ahead against
    /// obstacles, a unit let through one [`GOING_HORIZON`], a unit on its way near a lane
    /// portal or a door crossed two abreast (`traffic::short_look_portals`; listed in
    /// [`Simulator::near_lanes`] by traffic control this step, emptied here)
    /// [`LANE_HORIZON`], the least where several apply, each at least two time steps and never
    /// more than its own; every other slot keeps its own (no caps at all when no unit has
    /// either level or is near a lane portal). Derived from the state (the levels are in it,
    /// the units near lane portals are found from it), never state.
    pub(crate) fn obstacle_horizon_caps(&mut self) {
        self.obstacle_caps.clear();
        let levels = &self.nav.traffic.right_of_way;
        if self.near_lanes.is_empty() && !levels.iter().any(|l| l.2 == RIGHT_OF_WAY || l.2 == GOING)
        {
            return;
        }
        let floor = self.time_step.saturating_mul_int(2);
        self.obstacle_caps.resize(self.agents.len(), Fx::MAX);
        for &id in &self.near_lanes {
            if let Some(slot) = self.agents.slot(id) {
                self.obstacle_caps[slot] = LANE_HORIZON.max(floor);
            }
        }
        self.near_lanes.clear();
        for &(id, _, level) in levels {
            let cap = match level {
                RIGHT_OF_WAY => RIGHT_OF_WAY_HORIZON,
                GOING => GOING_HORIZON,
                _ => continue,
            };
            if let Some(slot) = self.agents.slot(id) {
                let c = &mut self.obstacle_caps[slot];
                *c = (*c).min(cap.max(floor));
            }
        }
    }

    /// Sets agent `id`'s priority to `f(current)` when that is `Some`, logging the change.
    fn set_priority_logged(&mut self, id: AgentId, f: impl FnOnce(u8) -> Option<u8>) {
        let Some(slot) = self.agents.slot(id) else {
            return;
        };
        let mut p = self.agents.params()[slot];
        if let Some(priority) = f(p.priority) {
            self.inputs.log_params(id, p);
            p.priority = priority;
            self.agents.set_params(slot, p);
        }
    }

    /// Ends traffic control: every agent with the right of way gets its priority back, and
    /// the state is emptied.
    pub(super) fn end_traffic(&mut self) {
        self.set_levels(&[]);
        self.nav.traffic = TrafficState::default();
    }
}

/// The arrival state of an order arrived on its goal that stops where it stands, beside its
/// goal: within `arrive_within` of the goal but not on it (farther than
/// `radius / 32`), and held back: its velocity towards the goal is under half of
/// `|goal − position|`, what RVO2's goal rule asks there (exact: `2 · (v · g) < |g|²`, `g`
/// the vector to the goal, `i128`). `None` otherwise.
fn stop_beside(
    order: &Order,
    position: Vec2,
    velocity: Vec2,
    radius: Fx,
    arrive_within: Fx,
) -> Option<Arrival> {
    let a = order.arrival();
    let to = order.goal() - position;
    let d2 = to.length_squared_wide();
    let tiny = radius / 32;
    let held = held_back(velocity, to);
    (a.status == OrderStatus::Arrived
        && a.rest == order.goal()
        && d2 <= wide_mul(arrive_within, arrive_within)
        && d2 > wide_mul(tiny, tiny)
        && held)
        .then_some(Arrival {
            rest: position,
            no_progress: 0,
            ..a
        })
}

/// The path of a waiter let through a door whose mouth is narrower than `3 r` (less than
/// half a radius to spare on either side): from its place to a point `1.5 r` out on the axis
/// of the door's mouth on its side (when a disc of half its radius reaches it), through the
/// middle of each mouth, to a point `2 r` out beyond the far one (when it is walkable for the
/// unit and reached from the far mouth's middle), then on along its kept path from the first
/// of its first 8 points that lies beyond the far mouth and more than `w / 2 + 3 r` from
/// either mouth's middle. Its kept path rounds a corner of the door at `r` and a hair: from a
/// place beside the entrance the line to it passes that corner closer than `r`, and ORCA's
/// obstacle lines held the unit to a crawl until it was lined up (a door 1.3 wide passed 0.5
/// units a second). `None` (the path as before): a mouth `3 r` wide or more (a slanted
/// passage's mouths are wider than the passage), a unit in front of neither mouth, mouths
/// that do not see each other, no such point among the first 8 (a goal just past the door),
/// a way on from the last point put in that is not clear for the unit (the points dropped may
/// have rounded an obstacle just past the door), or a path longer than `MAX_PATH_POINTS`.
fn through_narrow_door(
    mesh: &crate::navigation::NavMesh,
    doors: &traffic::Doors,
    door: &Choke,
    position: Vec2,
    r: Fx,
    path: &[Vec2],
) -> Option<Vec<Vec2>> {
    let (mouth, here) = doors.entry(door, position)?;
    let width = (mouth.b - mouth.a).length();
    if width >= r.saturating_mul_int(3) {
        return None;
    }
    let key = doors.chokes().binary_search(door).ok()?;
    let (far, far_out) = (0..2u8)
        .map(|s| doors.mouth(key, s))
        .find(|m| m.0 != mouth)
        .unwrap_or((mouth, 1 - here));
    if far != mouth && !mesh.raycast(mouth.mid(), far.mid(), r / 2).clear {
        return None;
    }
    let zone = |c: &Choke, q: Vec2| {
        let reach = ((c.b - c.a).length() / 2).saturating_add(r.saturating_mul_int(3));
        (q - c.mid()).length_squared_wide() <= wide_mul(reach, reach)
    };
    let k = path
        .iter()
        .take(8)
        .position(|&q| far.side(q) == Some(far_out) && !zone(&far, q) && !zone(&mouth, q))?;
    let n = mouth.normal(here);
    let mut out = Vec::with_capacity(path.len() - k + 4);
    let approach = mouth.mid() + n * (r.saturating_mul_int(3) / 2);
    if mesh.raycast(position, approach, r / 2).clear {
        out.push(approach);
    }
    out.push(mouth.mid());
    if far != mouth {
        out.push(far.mid());
    }
    let beyond = far.mid() + far.normal(far_out) * r.saturating_mul_int(2);
    if mesh.is_walkable(beyond, r) && mesh.raycast(far.mid(), beyond, r / 2).clear {
        out.push(beyond);
    }
    // The points dropped may have rounded an obstacle just past the door: the way on must
    // be clear for the unit from the last point put in.
    let last = out.last().copied().unwrap_or(position);
    if !mesh.raycast(last, path[k], r).clear {
        return None;
    }
    out.extend_from_slice(&path[k..]);
    (out.len() <= MAX_PATH_POINTS).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mover grid answers as a scan of every mover does: positions near the origin and
    /// across the domain, reaches from 0 to past the domain (the grid then scans), resting
    /// radii small and larger than a cell.
    #[test]
    fn the_mover_grid_answers_as_a_scan() {
        let mut s = 7u64;
        let mut next = |m: i64| {
            s = crate::splitmix64(s);
            (s % (2 * m as u64 + 1)) as i64 - m
        };
        let fx = |bits: i64| Fx::from_bits(bits);
        // Positions within the domain (|x| < 2^21); the last reach is past it (the grid scans).
        for (spread, far) in [
            (8i64, 4i64),
            (1 << 20, 64),
            (1 << 20, 1 << 18),
            (1 << 10, (1 << 30) - 1),
        ] {
            // Goals from a small set (and none: a mover without an order).
            let goals = [None, Some(Vec2::ZERO), Some(Vec2::from_int(1, 0))];
            let movers: Vec<Mover> = (0..200)
                .map(|_| {
                    let p = Vec2::new(fx(next(spread) << 32), fx(next(spread) << 32));
                    let goal = goals[usize::try_from(next(1) + 1).unwrap()];
                    (p, fx(next(far).abs() << 32), goal)
                })
                .collect();
            let grid = MoverGrid::new(movers.clone());
            for _ in 0..2_000 {
                let p = Vec2::new(fx(next(spread) << 32), fx(next(spread) << 32));
                let r = fx(next(far).abs() << 31);
                // `except`: movers whose order has that goal do not count.
                for except in goals {
                    let scan = movers.iter().any(|&(q, reach, goal)| {
                        let d = reach.saturating_add(r);
                        (except.is_none() || goal != except)
                            && (q - p).length_squared_wide() <= wide_mul(d, d)
                    });
                    assert_eq!(grid.reaches(p, r, except), scan, "{p:?} {r} {except:?}");
                }
            }
        }
        assert!(!MoverGrid::new(Vec::new()).reaches(Vec2::ZERO, Fx::ONE, None));
    }

    /// An order arrived on its goal stops beside it only when held back within
    /// `arrive_within`: not when moving towards it at half the goal rule's speed or more, not
    /// on its goal, not farther than `arrive_within`, not when not arrived on its goal.
    #[test]
    fn stop_beside_only_when_held_back_short_of_the_goal() {
        let goal = Vec2::ZERO;
        let mut order = Order::new(Vec2::from_int(-5, 0), goal);
        let on_goal = Arrival {
            status: OrderStatus::Arrived,
            no_progress: 0,
            rest: goal,
        };
        order.set_arrival(on_goal);
        let (r, within) = (Fx::lit("0.5"), Fx::lit("0.5"));
        let p = Vec2::new(Fx::lit("-0.4"), Fx::ZERO);
        let stop = |o: &Order, p: Vec2, v: Vec2| stop_beside(o, p, v, r, within);
        // Still: stops where it stands.
        let a = stop(&order, p, Vec2::ZERO).expect("held back");
        assert_eq!((a.status, a.rest), (OrderStatus::Arrived, p));
        // Towards the goal at 0.19 (under half of |g| = 0.4): held; at 0.2: free.
        assert!(stop(&order, p, Vec2::new(Fx::lit("0.19"), Fx::ZERO)).is_some());
        assert!(stop(&order, p, Vec2::new(Fx::lit("0.2"), Fx::ZERO)).is_none());
        // On the goal (within r / 32), or beyond arrive_within: keeps the goal rule.
        assert!(stop(&order, Vec2::new(Fx::lit("-0.015"), Fx::ZERO), Vec2::ZERO).is_none());
        assert!(stop(&order, Vec2::new(Fx::lit("-0.6"), Fx::ZERO), Vec2::ZERO).is_none());
        // Already beside it, or still moving: nothing.
        order.set_arrival(a);
        assert!(stop(&order, p, Vec2::ZERO).is_none());
        order.set_arrival(Arrival::default());
        assert!(stop(&order, p, Vec2::ZERO).is_none());
    }

    /// The caps on the obstacle horizon follow the levels in the state: 0.5 s with the right
    /// of way, 1 s let through, nothing for the other levels and no caps at all without
    /// either; never below two time steps; 2 s near a lane portal (the lower cap wins).
    #[test]
    fn obstacle_horizon_caps_follow_the_levels() {
        use crate::SimulatorParams;
        let mut sim = Simulator::new(SimulatorParams {
            time_step: Fx::lit("0.25"),
            ..SimulatorParams::default()
        })
        .unwrap();
        let ids: Vec<AgentId> = (0..4)
            .map(|k| sim.add_agent(Vec2::from_int(k * 10, 0)).unwrap())
            .collect();
        sim.nav.traffic.right_of_way = vec![(ids[1], 128, PASSING), (ids[3], 128, YIELD)];
        sim.obstacle_horizon_caps();
        assert!(sim.obstacle_caps.is_empty());
        sim.nav.traffic.right_of_way = vec![
            (ids[0], 128, RIGHT_OF_WAY),
            (ids[1], 128, GOING),
            (ids[3], 128, YIELD),
        ];
        sim.obstacle_horizon_caps();
        let caps_of = |sim: &Simulator| -> Vec<Fx> {
            ids.iter()
                .map(|&id| sim.obstacle_caps[sim.agents.slot(id).unwrap()])
                .collect()
        };
        assert_eq!(caps_of(&sim), [Fx::lit("0.5"), Fx::ONE, Fx::MAX, Fx::MAX]);
        // At a time step of 0.75 s both are 1.5 s: two time steps.
        sim.time_step = Fx::lit("0.75");
        sim.obstacle_horizon_caps();
        let caps = caps_of(&sim);
        assert_eq!(caps, [Fx::lit("1.5"), Fx::lit("1.5"), Fx::MAX, Fx::MAX]);
        // Near a lane portal: 2 s, a door level's cap for a unit with one (never above 2 s);
        // the list is emptied.
        sim.time_step = Fx::lit("0.25");
        sim.near_lanes = vec![ids[0], ids[2]];
        sim.obstacle_horizon_caps();
        assert!(sim.near_lanes.is_empty());
        assert_eq!(
            caps_of(&sim),
            [Fx::lit("0.5"), Fx::ONE, Fx::from_num(2), Fx::MAX]
        );
        // Near a lane portal alone.
        sim.nav.traffic.right_of_way.clear();
        sim.near_lanes = vec![ids[3]];
        sim.obstacle_horizon_caps();
        assert_eq!(caps_of(&sim), [Fx::MAX, Fx::MAX, Fx::MAX, Fx::from_num(2)]);
        // At a time step of 1.5 s the lane cap is 3 s: two time steps.
        sim.time_step = Fx::lit("1.5");
        sim.near_lanes = vec![ids[3]];
        sim.obstacle_horizon_caps();
        assert_eq!(caps_of(&sim), [Fx::MAX, Fx::MAX, Fx::MAX, Fx::from_num(3)]);
        sim.obstacle_horizon_caps();
        assert!(sim.obstacle_caps.is_empty());
    }

    /// Traffic control lists the units on their way within `12 r` of a lane portal's middle
    /// (a gap 4 wide), not a unit at rest there nor one on its way farther off: after a step
    /// the first looks 2 s ahead at obstacles, the others their own 10 s.
    #[test]
    fn only_units_on_their_way_near_a_lane_portal_are_capped() {
        use crate::navigation::NavParams;
        use crate::{AgentParams, Command, ObstacleShape, SimulatorParams};
        // RVO2's default horizons of 10 s, units of radius 0.5.
        let mut sim = Simulator::new(SimulatorParams {
            time_step: Fx::lit("0.25"),
            agent_defaults: AgentParams {
                radius: Fx::lit("0.5"),
                max_speed: Fx::lit("1.5"),
                ..AgentParams::default()
            },
        })
        .unwrap();
        let v = |x: i32, y: i32| Vec2::from_int(x, y);
        let h = Fx::from_num(2);
        let rect = |x0: Fx, y0: Fx, x1: Fx, y1: Fx| {
            ObstacleShape::Polygon(vec![
                Vec2::new(x0, y0),
                Vec2::new(x1, y0),
                Vec2::new(x1, y1),
                Vec2::new(x0, y1),
            ])
        };
        let (half, wall) = (Fx::from_num(20), Fx::lit("0.5"));
        sim.add_obstacle(rect(-wall, -half, wall, -h)).unwrap();
        sim.add_obstacle(rect(-wall, h, wall, half)).unwrap();
        sim.set_navigation(Some(NavParams {
            boundary: Some(vec![v(-20, -20), v(20, -20), v(20, 20), v(-20, 20)]),
            ..NavParams::default()
        }))
        .unwrap();
        let resting = sim.add_agent(v(-3, 3)).unwrap();
        let going = sim.add_agent(v(-4, -1)).unwrap();
        let far = sim.add_agent(v(-12, 12)).unwrap();
        for (id, goal) in [(resting, v(-3, 3)), (going, v(10, 0)), (far, v(-12, 16))] {
            sim.apply(&Command::NavigateTo { id, goal }).unwrap();
        }
        let mut seen = 0;
        for _ in 0..8 {
            // At rest before the step (its order finished), and the unit going still short of
            // the gap.
            let at_rest = sim
                .agent_order(resting)
                .unwrap()
                .is_some_and(|o| o.status().is_finished());
            let short = sim.agent_position(going).unwrap().x < Fx::from_num(-1);
            sim.step().unwrap();
            assert!(sim.near_lanes.is_empty());
            let cap = |id| {
                sim.agents
                    .slot(id)
                    .and_then(|k| sim.obstacle_caps.get(k).copied())
                    .unwrap_or(Fx::MAX)
            };
            if at_rest && short {
                assert_eq!(cap(going), Fx::from_num(2));
                assert_eq!(cap(resting), Fx::MAX);
                assert_eq!(cap(far), Fx::MAX);
                seen += 1;
            }
        }
        assert!(seen >= 2, "checked on {seen} ticks");
    }
}

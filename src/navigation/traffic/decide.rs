//! The decisions of one tick ([`decide_at`]): who holds each door, who goes through it in
//! single file, who waits where, who steps aside; and the priority levels of the units going
//! through. The rules are in the [module docs](super). Part of [`traffic`](super).

use super::aside;
use super::doors::Doors;
use super::relation::{Relation, relation};
use super::spots::{
    Block, Disc, axis_places, hand_of, on_axis, spot, spot_candidates, spot_margin,
};
use super::{Choke, ChokeState, PortalIndex, TrafficParams, half};
use crate::geom::cmp_dist_point_segment;
use crate::math::{Fx, Vec2, wide_mul};
use crate::navigation::NavMesh;

/// One navigating unit, as [`decide`] sees it.
#[derive(Clone, Copy, Debug)]
pub struct Traveller<'a> {
    /// The unit's id (ties).
    pub id: u32,
    /// Where it stands.
    pub position: Vec2,
    /// Its radius.
    pub radius: Fx,
    /// The point its current segment started from (the previous waypoint or the order start);
    /// for a unit at rest (no path left), its rest point (see "Stepping aside").
    pub from: Vec2,
    /// The rest of its planned path: its current target first.
    pub path: &'a [Vec2],
}

/// What a unit does at a choke this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Follow the planned path.
    Go,
    /// Follow the planned path, let through a choke in single file (see the
    /// [module docs](super)): the units waiting round its mouth give way to it
    /// ([`GOING`]).
    Through,
    /// At rest in the lane of a busy door's mouth: wait beside the lane at `spot` (see
    /// "Stepping aside" in the [module docs](super)), then walk back to the goal (the
    /// simulator keeps a unit whose goal cannot be reached at `spot` for good).
    Aside {
        /// The door stepped aside for (its key choke).
        choke: Choke,
        /// Where to wait.
        spot: Vec2,
    },
    /// Wait for the choke at `spot` (the choke's key says which).
    Wait {
        /// The choke waited for.
        choke: Choke,
        /// Where to wait (see the [module docs](super)).
        spot: Vec2,
    },
}

/// Where a navigating agent waits for a choke ([`Simulator::door_wait`](crate::Simulator::door_wait)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoorWait {
    /// The door it waits for: its key choke (the least of its chokes, see [`Doors`]).
    pub choke: Choke,
    /// Its waiting place beside the entrance (its order's goal while it waits).
    pub spot: Vec2,
}

/// One tick of traffic control: updates the reservations `state` (held chokes only, ascending
/// key; records of chokes no longer in `chokes` or with no one near are dropped) and returns
/// each traveller's decision, in the order given. `waiting` says, per traveller, the choke and
/// spot it already waits at (kept while it still waits there, on its hand and in front of its
/// side's mouth, so waiters do not wander; a traveller past its end waits nowhere).
/// `hold_ticks`: see the [module docs](super).
#[must_use]
#[allow(clippy::too_many_arguments)] // the settings, the mesh, the state and the tick's inputs
pub fn decide(
    params: &TrafficParams,
    mesh: &NavMesh,
    chokes: &[Choke],
    state: &mut Vec<ChokeState>,
    tick: u64,
    hold_ticks: u64,
    travellers: &[Traveller<'_>],
    waiting: &[Option<(Choke, Vec2)>],
) -> Vec<Decision> {
    let doors = super::doors(mesh, chokes, params.radius);
    decide_at(
        params, mesh, &doors, state, tick, hold_ticks, travellers, waiting,
    )
}

/// [`decide`] with the chokes grouped into doors beforehand ([`doors()`](super::doors()), of the same mesh
/// and [`TrafficParams::radius`], or of a larger radius with each door marked whether it is
/// one for the traffic radius, as the simulator makes them for units of several sizes: see
/// the [module docs](super)): what a caller keeping the doors beside its mesh calls.
#[must_use]
#[allow(clippy::too_many_arguments)] // the settings, the mesh, the state and the tick's inputs
pub fn decide_at(
    params: &TrafficParams,
    mesh: &NavMesh,
    doors: &Doors,
    state: &mut Vec<ChokeState>,
    tick: u64,
    hold_ticks: u64,
    travellers: &[Traveller<'_>],
    waiting: &[Option<(Choke, Vec2)>],
) -> Vec<Decision> {
    let chokes = doors.chokes();
    // A traveller without an entry in `waiting` does not wait.
    let padded: Vec<Option<(Choke, Vec2)>>;
    let waiting = if waiting.len() == travellers.len() {
        waiting
    } else {
        padded = (0..travellers.len())
            .map(|i| waiting.get(i).copied().flatten())
            .collect();
        &padded[..]
    };
    // Only doors' key chokes are reserved.
    state.retain(|s| {
        chokes
            .binary_search(&s.choke)
            .is_ok_and(|c| doors.is_key(c))
    });
    let widths: Vec<Fx> = chokes.iter().map(|c| (c.b - c.a).length()).collect();
    let reach_max = widths.iter().fold(Fx::ZERO, |m, &w| {
        m.max(params.approach_distance(w).saturating_add(w))
    });
    let index = PortalIndex::new(chokes, reach_max);
    // The units larger than the traffic radius first: the doors that are doors only for
    // them are doors for everyone while they use them (see `relation`).
    let relate = |t: &Traveller<'_>, w: &Option<(Choke, Vec2)>, in_use: &[usize]| {
        relation(
            params,
            (mesh, doors),
            &index,
            &widths,
            t,
            w.map(|w| w.0),
            in_use,
        )
    };
    let large = |t: &Traveller<'_>| t.radius > params.radius;
    let mut rel: Vec<Option<Relation>> = vec![None; travellers.len()];
    let mut in_use = Vec::new();
    let all_light = doors.all_light();
    if !all_light {
        for ((t, w), r) in travellers.iter().zip(waiting).zip(&mut rel) {
            if large(t) {
                *r = relate(t, w, &[]);
                in_use.extend(r.map(|r| r.choke).filter(|&c| !doors.is_light(c)));
            }
        }
        in_use.sort_unstable();
        in_use.dedup();
    }
    for ((t, w), r) in travellers.iter().zip(waiting).zip(&mut rel) {
        if all_light || !large(t) {
            *r = relate(t, w, &in_use);
        }
    }
    // Per choke with anyone near: who approaches / is in it on each side.
    let mut near: Vec<usize> = rel.iter().flatten().map(|r| r.choke).collect();
    near.sort_unstable();
    near.dedup();
    // Chokes held but with no one near are released.
    state.retain(|s| {
        chokes
            .binary_search(&s.choke)
            .is_ok_and(|c| near.binary_search(&c).is_ok())
    });
    // (choke index, open side or None: both closed) for the decisions.
    let mut open: Vec<(usize, Option<u8>, bool)> = Vec::with_capacity(near.len());
    // Per entry of `open`: whether the side not holding has no one approaching.
    let mut alone: Vec<bool> = Vec::with_capacity(near.len());
    // Whether the holder of `h` closes: the other side approaches, and the hold time is up
    // or the batch went in.
    let closes = |h: &ChokeState, approach: &[bool; 2]| {
        approach[usize::from(1 - h.holder)]
            && (tick.saturating_sub(h.since) >= hold_ticks
                || (params.batch > 0 && h.passed >= params.batch))
    };
    for &c in &near {
        let key = chokes[c];
        let k = state.binary_search_by(|s| s.choke.cmp(&key));
        let held = k.ok().map(|k| state[k]);
        let mut approach = [false; 2];
        let mut inside = [false; 2];
        let mut first: Option<(Fx, u32, u8)> = None;
        // The holder's unit that entered the portal last: past its line, the least far.
        let mut newest: Option<(Fx, u32)> = None;
        for (t, r) in travellers.iter().zip(&rel) {
            let Some(r) = r.filter(|r| r.choke == c) else {
                continue;
            };
            let s = usize::from(r.side);
            approach[s] = true;
            // In the portal: past its line, or overlapping it on the holding side (a unit of
            // the other side pushed against the portal waits, and never blocks a switch).
            let holding = held.is_some_and(|h| h.holder == r.side);
            inside[s] |= r.crossed || (r.inside && holding);
            if holding && r.crossed {
                // Past the line of the mouth it entered by.
                let (m, out) = doors.mouth(c, r.side);
                let past = (t.position - m.mid()).dot(m.normal(1 - out));
                if newest.is_none_or(|n| (past, t.id) < n) {
                    newest = Some((past, t.id));
                }
            }
            if first.is_none_or(|f| (r.distance, t.id) < (f.0, f.1)) {
                first = Some((r.distance, t.id, r.side));
            }
        }
        let mut next = held;
        if let Some(h) = next.as_mut() {
            // A unit of the holder newly past the portal's line counts into its batch (only
            // with batches on: the counters stay at their defaults otherwise).
            if let Some((_, id)) = newest.filter(|_| params.batch > 0)
                && id != h.last
            {
                h.passed = h.passed.saturating_add(1);
                h.last = id;
            }
            let (mine, other) = (usize::from(h.holder), usize::from(1 - h.holder));
            if !inside[mine] && (closes(h, &approach) || !approach[mine]) {
                next = approach[other].then(|| ChokeState::new(key, 1 - h.holder, tick));
            }
        } else if let Some((_, _, side)) = first {
            next = Some(ChokeState::new(key, side, tick));
        }
        match (k, next) {
            (Ok(k), Some(h)) => state[k] = h,
            (Ok(k), None) => {
                state.remove(k);
            }
            (Err(k), Some(h)) => state.insert(k, h),
            (Err(_), None) => {}
        }
        let closing = next.is_some_and(|h| closes(&h, &approach));
        open.push((c, next.map(|h| h.holder), closing));
        alone.push(next.is_some_and(|h| !approach[usize::from(1 - h.holder)]));
    }
    // The holding side goes in single file (see the module docs); everyone else related to
    // a choke, and the holding side's units not let through yet, waits at a spot.
    let mut out = vec![Decision::Go; travellers.len()];
    let mut file: Vec<(usize, Fx, u32, usize)> = Vec::new();
    let mut waits: Vec<usize> = Vec::new();
    for (i, (t, r)) in travellers.iter().zip(&rel).enumerate() {
        let Some(r) = r else {
            continue;
        };
        let Ok(o) = open.binary_search_by_key(&r.choke, |o| o.0) else {
            continue;
        };
        let (_, holder, closing) = open[o];
        if r.crossed {
            continue;
        }
        if holder == Some(r.side) && (r.inside || !closing) {
            file.push((r.choke, r.distance, t.id, i));
        } else {
            waits.push(i);
        }
    }
    // Within `w / 2 + queue` of path length of the portal (a waiter at any distance: its spot
    // may lie beyond) a unit goes only behind the one let through before it, in single file:
    // a waiter `gap` behind it, a unit already going `2 r` (so a unit let through is not sent
    // back to a spot when the one ahead slows in the mouth); once one is held, all behind it
    // are held too (releasing them past it sent both to the mouth at once). The others wait
    // at their spots beside the entrance, out of the way of the one going (units all pressing
    // on the mouth held each other, and the wall corners, to a crawl). Waiters released as
    // their distance grew walking to their spots, and held again on coming back, crossed
    // each other's paths at speed: the worst overlaps of the door scenes.
    file.sort_unstable_by_key(|f| (f.0, f.1, f.2));
    let gap = params.r(params.gap);
    let close = params.r(Fx::from_num(2));
    // Per key choke: the narrowest choke of its door (the key is the least in raw-bit order,
    // which says nothing of its width: a door splayed one way would go two abreast and its
    // mirror image in single file).
    let mut narrowest = widths.clone();
    for (c, &w) in widths.iter().enumerate() {
        let key = doors.door_of(c, 0).0;
        if let Some(n) = narrowest.get_mut(key) {
            *n = (*n).min(w);
        }
    }
    // Per key choke: the largest radius in its holder's file, at least the traffic radius
    // (two abreast only where two of the largest fit: two units of 0.8 need 3.2).
    let mut largest = vec![params.radius; chokes.len()];
    for &(c, _, _, i) in &file {
        if let (Some(l), Some(t)) = (largest.get_mut(c), travellers.get(i)) {
            *l = (*l).max(t.radius);
        }
    }
    // (choke, the distance of the unit let through last, None once one was held).
    let mut last: Option<(usize, Option<Fx>)> = None;
    for (c, distance, _, i) in file {
        let width = (chokes[c].b - chokes[c].a).length();
        let abreast = largest
            .get(c)
            .map(|&l| l.saturating_mul(super::TWO_ABREAST_RADII));
        if narrowest.get(c).zip(abreast).is_some_and(|(&n, a)| n >= a) {
            // Two abreast (a door between thin wall ends at least `TWO_ABREAST_RADII` radii
            // of its largest unit wide): the nearest unit of the holder is let through, the
            // others go on, none held (in single file a gap 3 wide passed one unit where two
            // fit).
            if last.is_none_or(|l| l.0 != c) {
                out[i] = Decision::Through;
                last = Some((c, Some(distance)));
            }
            continue;
        }
        let waiter = waiting[i].is_some_and(|w| w.0 == chokes[c]);
        let near = waiter || distance <= half(width) + params.r(params.queue);
        let ahead = last.filter(|l| l.0 == c).map(|l| l.1);
        match ahead {
            Some(_) if !near => {}
            Some(None) => waits.push(i),
            Some(Some(ld)) if distance < ld.saturating_add(if waiter { gap } else { close }) => {
                waits.push(i);
                last = Some((c, None));
            }
            _ => {
                last = Some((c, Some(distance)));
                out[i] = Decision::Through;
            }
        }
    }
    // Stepping aside (see `aside`): the doors busy (anyone related to them: in them,
    // approaching them or waiting for them); the units at rest (their rest point given as
    // `from`) standing or resting in the lane of one of their mouths; and the units already
    // aside (a kept path ending on the side of the door their place is on, not crossing it)
    // while their door is busy. (traveller, door key, the side of the lane's mouth, the point
    // its place is level with: its rest point; for one already aside, its path's end.)
    let mut aside: Vec<(usize, usize, u8, Vec2)> = Vec::new();
    let mut busy: Vec<usize> = rel.iter().flatten().map(|r| r.choke).collect();
    busy.sort_unstable();
    busy.dedup();
    let lanes = aside::Lanes::new(params, doors, &busy);
    // The side of door `c` whose mouth `p` lies in front of.
    let front = |c: usize, p: Vec2| {
        (0..2u8).find(|&s| {
            let (m, out) = doors.mouth(c, s);
            m.side(p) == Some(out)
        })
    };
    if !busy.is_empty() {
        for (i, t) in travellers.iter().enumerate() {
            match (rel[i], waiting[i], t.path) {
                (None, None, []) => {
                    // Its place is level with its rest point (where it returns), also when
                    // only where it stands is in the lane: level with where it stood, the
                    // units pushed in were placed in the door's way again (a door 2 wide:
                    // both sides inside at once).
                    if let Some((c, side)) = lanes
                        .at(t.position, t.radius)
                        .or_else(|| lanes.at(t.from, t.radius))
                    {
                        aside.push((i, c, side, t.from));
                    }
                }
                (None, Some((choke, spot)), &[.., goal]) => {
                    let Ok(c) = chokes.binary_search(&choke) else {
                        continue;
                    };
                    if busy.binary_search(&c).is_ok()
                        && let Some(side) = front(c, spot)
                        && front(c, goal) == Some(side)
                    {
                        aside.push((i, c, side, goal));
                    }
                }
                _ => {}
            }
        }
    }
    // Spots: a waiter keeps its spot while it waits for the same choke on the same hand; the
    // others take the free places of their block nearest the portal, in order of (choke,
    // side, hand, distance, id). A place is free when it is at least the two radii plus
    // [`SPOT_MARGIN`] from every spot taken this tick, of any block and any choke (blocks of
    // chokes near each other overlap; a spot moved out along the normal can land beside
    // another place of its block): before, only a place exactly equal to a spot of the same
    // block counted as taken, and waiters came to rest on top of each other.
    let hand = |i: usize| {
        let r = rel[i].expect("waits are related");
        let (mouth, out) = doors.mouth(r.choke, r.side);
        (
            r.choke,
            r.side,
            hand_of(&mouth, out, travellers[i].position),
        )
    };
    let margin = spot_margin(params);
    // (spot, the radius of its unit).
    let mut taken: Vec<(Vec2, Fx)> = Vec::new();
    let mut fresh: Vec<(Block, Fx, u32, usize)> = Vec::new();
    // The axis queues' waiters take their places after the kept spots of the others, so the
    // places are checked free of them (see `axis_queues`).
    let queues = axis_queues(
        params,
        doors,
        (&open, &alone),
        (travellers, &rel),
        (waiting, &waits),
    );
    let mut in_axis = vec![false; travellers.len()];
    for q in &queues {
        for &(_, _, _, i) in &q.2 {
            in_axis[i] = true;
        }
    }
    // The spot waiter `i` keeps: on its hand and in front of its side's mouth (one pushed
    // through the door while it waited gets a place on the side it is on now), never a place
    // of an axis queue.
    let kept_spot = |i: usize| {
        let key = hand(i);
        let choke = chokes[key.0];
        let (mouth, face) = doors.mouth(key.0, key.1);
        waiting[i]
            .filter(|&(c, spot)| {
                c == choke
                    && hand_of(&mouth, face, spot) == key.2
                    && front(key.0, spot) == Some(key.1)
                    && !on_axis(params, (&mouth, face), spot)
            })
            .map(|(_, spot)| (choke, spot))
    };
    let fresh_entry = |i: usize| {
        (
            hand(i),
            rel[i].map_or(Fx::ZERO, |r| r.distance),
            travellers[i].id,
            i,
        )
    };
    for &i in &waits {
        if in_axis[i] {
            continue;
        }
        match kept_spot(i) {
            Some((choke, spot)) => {
                out[i] = Decision::Wait { choke, spot };
                taken.push((spot, travellers[i].radius));
            }
            None => fresh.push(fresh_entry(i)),
        }
    }
    // Units aside keep their places too (before any is handed out), on either hand; the others
    // take theirs after the waiters, in order of (block, id).
    let mut fresh_aside: Vec<(Block, u32, usize, Vec2)> = Vec::new();
    for &(i, c, side, q) in &aside {
        let t = &travellers[i];
        let (mouth, face) = doors.mouth(c, side);
        let key = (c, side, hand_of(&mouth, face, q));
        match waiting[i] {
            // Its place, on either hand (see `Lanes::beside`).
            Some((w, spot)) if w == chokes[c] => {
                out[i] = Decision::Aside { choke: w, spot };
                taken.push((spot, t.radius));
            }
            _ => fresh_aside.push((key, t.id, i, q)),
        }
    }
    // The waiters of the axis queues: a place on the axis, else their kept spot in the
    // blocks, else a fresh one.
    for i in place_axis_queues(
        params,
        (mesh, doors),
        &queues,
        travellers,
        kept_spot,
        (&mut out, &mut taken),
    ) {
        fresh.push(fresh_entry(i));
    }
    fresh.sort_unstable_by_key(|f| (f.0, f.1, f.2));
    fresh_aside.sort_unstable_by_key(|f| (f.0, f.1));
    for (key, _, _, i) in fresh {
        let t = &travellers[i];
        let choke = chokes[key.0];
        // Beside the mouth of the waiter's end of the door.
        let (mouth, face) = doors.mouth(key.0, key.1);
        let free = |s: Vec2| free_of(&taken, s, t.radius, margin);
        // A spot taken rules out the places within its reach: a few of its block's lattice
        // (2.2 r apart), more for units larger than `r`; the loop is bounded.
        let spot = (0..spot_candidates(params, t.radius, taken.len()))
            .map(|k| spot(params, mesh, &mouth, (face, key.2), k, t.position, t.radius))
            .find(|&s| free(s))
            .unwrap_or(t.position);
        taken.push((spot, t.radius));
        out[i] = Decision::Wait { choke, spot };
    }
    // A unit stepping aside first tries the places beside the lane (level with its point in
    // the lane), then the block's places past its first two ranks; a place must be walkable,
    // free, in no busy lane, and in sight of the unit (a disc of half its radius reaches it).
    // With none, it stays at rest where it is (it yields there, as before stepping aside).
    for ((c, side, left), _, i, q) in fresh_aside {
        let t = &travellers[i];
        let (mouth, face) = doors.mouth(c, side);
        let usable = |s: Vec2| {
            free_of(&taken, s, t.radius, margin)
                && lanes.at(s, t.radius).is_none()
                && mesh.is_walkable(s, t.radius)
                && mesh.raycast(t.position, s, t.radius / 2).clear
        };
        let found = lanes
            .beside(params, (c, side), q, (t.radius, left), margin)
            .find(|&s| usable(s))
            .or_else(|| {
                (4..spot_candidates(params, t.radius, taken.len()).saturating_add(4))
                    .map(|k| spot(params, mesh, &mouth, (face, left), k, t.position, t.radius))
                    .find(|&s| s != t.position && usable(s))
            });
        if let Some(spot) = found {
            taken.push((spot, t.radius));
            out[i] = Decision::Aside {
                choke: chokes[c],
                spot,
            };
        }
    }
    out
}

/// One axis queue: the door's key choke, the holding side, and its waiters in queue order:
/// (not already on an axis place, path length, id, traveller).
type AxisQueue = (usize, u8, Vec<(bool, Fx, u32, usize)>);

/// The axis queues (see the [module docs](super)): for each door whose mouth is narrower than
/// `3 r`, held by one side while the other has no one approaching and the holder is not
/// closing, its waiters of the traffic radius or smaller, in queue order: those already on
/// an axis place first, in order of (path length, id), then the others of the side in the
/// same order. Their places are handed out by [`place_axis_queues`].
#[allow(clippy::type_complexity)] // the tick's inputs, as in `decide_at`
fn axis_queues(
    params: &TrafficParams,
    doors: &Doors,
    (open, alone): (&[(usize, Option<u8>, bool)], &[bool]),
    (travellers, rel): (&[Traveller<'_>], &[Option<Relation>]),
    (waiting, waits): (&[Option<(Choke, Vec2)>], &[usize]),
) -> Vec<AxisQueue> {
    let chokes = doors.chokes();
    let mut queues = Vec::new();
    for (o, _) in open.iter().zip(alone).filter(|(o, a)| **a && !o.2) {
        let (Some(h), c) = (o.1, o.0) else {
            continue;
        };
        let (mouth, face) = doors.mouth(c, h);
        // Only a door whose mouth is narrower than `3 r`: one a unit goes in along the axis
        // of (`sim::navigation_traffic`), where ORCA's obstacle lines hold a unit coming in
        // from the side to a crawl until it is lined up. (At every door the queue also sped
        // doors 2 wide, but moved crowds near the goal by chance into churning: sweep seed 17.)
        if (mouth.b - mouth.a).length() >= params.radius.saturating_mul_int(3) {
            continue;
        }
        let mut queue: Vec<(bool, Fx, u32, usize)> = waits
            .iter()
            .filter_map(|&i| {
                let r = rel[i].filter(|r| r.choke == c && r.side == h)?;
                let t = &travellers[i];
                (t.radius <= params.radius).then(|| {
                    let on = waiting[i].is_some_and(|(ch, sp)| {
                        ch == chokes[c] && on_axis(params, (&mouth, face), sp)
                    });
                    (!on, r.distance, t.id, i)
                })
            })
            .collect();
        if !queue.is_empty() {
            queue.sort_unstable();
            queues.push((c, h, queue));
        }
    }
    queues
}

/// Hands out the places of the axis `queues` ([`axis_places`]) in queue order, each place
/// free of the spots `taken` (the others' kept spots, the queues before), in two passes: the
/// first finds how many places each queue could have and gives the waiters beyond them their
/// kept spots in the blocks (`keep`, added to `taken`), so that no queue is placed on a spot
/// kept after it; the second hands the places out against all of these. Sets the waiters'
/// decisions, adds their spots to `taken`, and returns the waiters left without any spot
/// (to be given a fresh place in the blocks), in queue order.
fn place_axis_queues(
    params: &TrafficParams,
    (mesh, doors): (&NavMesh, &Doors),
    queues: &[AxisQueue],
    travellers: &[Traveller<'_>],
    keep: impl Fn(usize) -> Option<(Choke, Vec2)>,
    (out, taken): (&mut [Decision], &mut Vec<Disc>),
) -> Vec<usize> {
    let mut left = Vec::new();
    if queues.is_empty() {
        return left;
    }
    // The navigating units at rest (no path left, not waiting): where they stand and their
    // rest points; and the rest points of those stepping aside (their kept paths' ends),
    // where they walk back to.
    let mut resting: Vec<Disc> = Vec::new();
    for (t, d) in travellers.iter().zip(out.iter()) {
        match d {
            Decision::Go if t.path.is_empty() => {
                resting.extend([(t.position, t.radius), (t.from, t.radius)]);
            }
            Decision::Aside { .. } => {
                resting.push((t.path.last().copied().unwrap_or(t.from), t.radius));
            }
            _ => {}
        }
    }
    // Waiter `i` waits at `spot` (a place on the axis), else at its kept spot, else it is
    // left for a fresh one.
    let place_or_keep =
        |i: usize,
         spot: Option<(Choke, Vec2)>,
         (out, taken, left): (&mut [Decision], &mut Vec<Disc>, &mut Vec<usize>)| {
            match spot.or_else(|| keep(i)) {
                Some((choke, spot)) => {
                    out[i] = Decision::Wait { choke, spot };
                    taken.push((spot, travellers[i].radius));
                }
                None => left.push(i),
            }
        };
    // First pass: the waiters beyond each queue's places keep their spots.
    let mut room = Vec::with_capacity(queues.len());
    for (c, h, queue) in queues {
        let (mouth, face) = doors.mouth(*c, *h);
        let n = axis_places(params, (mesh, doors), (*c, &mouth, face), (&resting, taken)).len();
        room.push(n);
        for &(_, _, _, i) in queue.iter().skip(n) {
            place_or_keep(i, None, (&mut *out, &mut *taken, &mut left));
        }
    }
    // Second pass: the places, against every spot kept.
    for ((c, h, queue), n) in queues.iter().zip(room) {
        let (mouth, face) = doors.mouth(*c, *h);
        let places = axis_places(params, (mesh, doors), (*c, &mouth, face), (&resting, taken));
        let choke = doors.chokes()[*c];
        for (k, &(_, _, _, i)) in queue.iter().take(n).enumerate() {
            let spot = places.get(k).map(|&spot| (choke, spot));
            place_or_keep(i, spot, (&mut *out, &mut *taken, &mut left));
        }
    }
    left
}

/// Whether a place `s` for a unit of `radius` is at least the two radii plus `margin` from
/// every place `taken` (with its unit's radius).
fn free_of(taken: &[(Vec2, Fx)], s: Vec2, radius: Fx, margin: Fx) -> bool {
    taken.iter().all(|&(q, r)| {
        let apart = radius.saturating_add(r).saturating_add(margin);
        (s - q).length_squared_wide() >= wide_mul(apart, apart)
    })
}

/// The avoidance priority of a unit with the right of way at a choke (the highest).
pub const RIGHT_OF_WAY: u8 = u8::MAX;

/// The avoidance priority of a unit let through a choke in single file ([`Decision::Through`])
/// until it has the [right of way](has_right_of_way) there: above the default, so the units
/// waiting round the mouth at their own priority, and those of its side not let through yet,
/// give way to it; below [`RIGHT_OF_WAY`], so it gives way to the units in the passage.
pub const GOING: u8 = 192;

/// Whether a unit of `radius` at `position` has the right of way at one of `chokes` when it
/// goes (its decision is [`Decision::Go`] or [`Decision::Through`]): its disc is within `radius` of the portal (its
/// centre nearer than `2 · radius`). The others give way to it in the avoidance: a unit
/// passing a door slowed by those around the mouth was what held the flow.
#[must_use]
pub fn has_right_of_way(chokes: &[Choke], position: Vec2, radius: Fx) -> bool {
    let reach = radius.saturating_mul(Fx::from_num(2));
    chokes
        .iter()
        .any(|c| cmp_dist_point_segment(c.a, c.b, position, reach).is_lt())
}

//! How a unit relates to a door ([`relation`]): the door it approaches or is in, from
//! which side, how far along its path. Part of [`decide_at`](super::decide_at).

use super::{Choke, Doors, PortalIndex, TrafficParams, Traveller};
use crate::geom::{cmp_dist_point_segment, segments_intersect};
use crate::math::Fx;
use crate::navigation::NavMesh;

/// How a unit relates to one choke.
#[derive(Clone, Copy, Debug)]
pub(super) struct Relation {
    pub(super) choke: usize,
    pub(super) side: u8,
    /// Path length to the crossing (zero when in the portal).
    pub(super) distance: Fx,
    /// The disc overlaps the portal.
    pub(super) inside: bool,
    /// The centre is past the portal's line (crossed on its current segment), or inside its
    /// door's passage.
    pub(super) crossed: bool,
}

/// The unit's nearest choke ahead on its path within the approach distance, or the choke it
/// is in. A unit already waiting for choke `waits_for` keeps its relation to it at any
/// distance (its block may reach past the approach distance).
///
/// A unit no larger than the traffic radius relates only to the doors that are doors for it
/// ([`Doors::is_light`]) and to those in `in_use` (the keys, ascending, of the doors that
/// larger units relate to this tick): a door that only larger units need to take turns in is
/// one for everyone while they use it (the light units flowing through its mouth both ways
/// knotted with the larger ones taking turns), and no door otherwise.
pub(super) fn relation(
    params: &TrafficParams,
    (mesh, doors): (&NavMesh, &Doors),
    chokes: &PortalIndex<'_>,
    widths: &[Fx],
    t: &Traveller<'_>,
    waits_for: Option<Choke>,
    in_use: &[usize],
) -> Option<Relation> {
    // At rest (no path left): no choke (its `from` is its goal, not a segment's start).
    if t.path.is_empty() {
        return None;
    }
    // Whether the unit relates to choke `c` (through its door; a key is its own door's).
    let light = t.radius <= params.radius;
    let relates = |c: usize| {
        !light || doors.is_light(c) || in_use.binary_search(&doors.door_of(c, 0).0).is_ok()
    };
    let Some(best) = member_relation(params, doors, chokes, widths, t, waits_for, relates) else {
        // Deep in a long passage no choke of its door may be within reach: the door it is in,
        // from the end it came from (its path's next crossing of one of the door's chokes).
        return passage_relation(mesh, doors, t).filter(|r| relates(r.choke));
    };
    // Seen through its door: the door's key and side; a centre inside the door's passage is
    // in it, past its first choke (whatever it overlaps), so it goes on. Counted only as
    // overlapping (in, for the holding side; a waiter otherwise), the holding side's units
    // inside the passage were held behind each other at distance 0 and a door 3 thick took
    // 148.75 s and 153.75 s instead of 99.5 s and 95.75 s.
    let (key, side) = doors.door_of(best.choke, best.side);
    let mut r = Relation {
        choke: key,
        side,
        ..best
    };
    if !t.path.is_empty() && doors.in_passage(mesh, key, t.position) {
        (r.distance, r.inside, r.crossed) = (Fx::ZERO, true, true);
    }
    Some(r)
}

/// The relation of a unit whose centre is inside a door's passage with none of the door's
/// chokes within its reach: in the door, from the side its path's next crossing of one of
/// the door's chokes leaves (none: no relation).
fn passage_relation(mesh: &NavMesh, doors: &Doors, t: &Traveller<'_>) -> Option<Relation> {
    if t.path.is_empty() {
        return None;
    }
    let key = doors.passage_at(mesh, t.position)?;
    let members = doors.members(key);
    let mut p = t.position;
    for &q in t.path {
        let crossing = members
            .iter()
            .map(|&c| (c as usize, doors.chokes[c as usize]))
            .filter(|(_, m)| p != q && segments_intersect(p, q, m.a, m.b))
            .find_map(|(c, m)| {
                let from = m.side(p).or_else(|| m.side(t.from))?;
                (m.side(q) != Some(from)).then_some((c, from))
            });
        if let Some((c, from)) = crossing {
            let (_, side) = doors.door_of(c, from);
            return Some(Relation {
                choke: key,
                side,
                distance: Fx::ZERO,
                inside: true,
                crossed: true,
            });
        }
        p = q;
    }
    None
}

/// [`relation`] to the chokes themselves: the nearest choke ahead, or the one it is in (a
/// waiter keeps its relation to every choke of its door at any distance).
fn member_relation(
    params: &TrafficParams,
    doors: &Doors,
    chokes: &PortalIndex<'_>,
    widths: &[Fx],
    t: &Traveller<'_>,
    waits_for: Option<Choke>,
    relates: impl Fn(usize) -> bool,
) -> Option<Relation> {
    let mut best: Option<Relation> = None;
    // Only the chokes within the farthest reach along x can pass the cheap reject below, and
    // the one waited for (any reach); ascending, as the whole list was read before.
    let window = chokes.x_window(t.position.x, chokes.reach_max);
    let waited = waits_for.and_then(|w| chokes.list.binary_search(&w).ok());
    // The chokes of the door waited for (ascending), also those outside the window.
    let single = waited.filter(|&w| doors.is_key(w) && doors.members(w).is_empty());
    let single = single.map(|w| [w as u32]);
    let members: &[u32] = match (&single, waited) {
        (Some(one), _) => one,
        (None, Some(w)) => doors.members(w),
        (None, None) => &[],
    };
    let (start, end) = (window.start, window.end);
    let before = members
        .iter()
        .map(|&c| c as usize)
        .filter(move |&c| c < start);
    let after = members
        .iter()
        .map(|&c| c as usize)
        .filter(move |&c| c >= end);
    for c in before.chain(window).chain(after) {
        if !relates(c) {
            continue;
        }
        let choke = &chokes.list[c];
        let width = widths[c];
        let waits_here = waited.is_some_and(|w| doors.door_of(c, 0).0 == w && doors.is_key(w));
        let reach = if waits_here {
            Fx::MAX
        } else {
            params.approach_distance(width)
        };
        // Cheap reject: the midpoint farther than the reach (plus the width) as the crow flies.
        if (choke.mid() - t.position).max_abs_component() > reach.saturating_add(width) {
            continue;
        }
        let overlaps = cmp_dist_point_segment(choke.a, choke.b, t.position, t.radius).is_lt();
        // Crossed on the current segment and still overlapping: in, from the side it left.
        if overlaps
            && segments_intersect(t.from, t.position, choke.a, choke.b)
            && let Some(side) = choke.side(t.from)
            && choke.side(t.position) != Some(side)
        {
            let r = Relation {
                choke: c,
                side,
                distance: Fx::ZERO,
                inside: true,
                crossed: true,
            };
            best = Some(nearer(best, r));
            continue;
        }
        // Walk the path to its first crossing of the portal. A waypoint exactly on the
        // portal's line (the funnel puts one there when it wraps a door's corner) belongs to
        // neither side: the crossing is from the last point off the line before it to the
        // first one after it.
        let mut walked = Fx::ZERO;
        let mut p = t.position;
        let mut behind = choke.side(t.position).or_else(|| choke.side(t.from));
        let mut found = false;
        for (k, &q) in t.path.iter().enumerate() {
            if walked > reach {
                break;
            }
            if p != q && segments_intersect(p, q, choke.a, choke.b) {
                let ahead = t.path[k..].iter().find_map(|&x| choke.side(x));
                let distance = walked.saturating_add((choke.mid() - p).length());
                if let (Some(side), Some(other)) = (behind, ahead)
                    && side != other
                {
                    found = true;
                    if distance <= reach || overlaps {
                        let r = Relation {
                            choke: c,
                            side,
                            distance: if overlaps { Fx::ZERO } else { distance },
                            inside: overlaps,
                            crossed: false,
                        };
                        best = Some(nearer(best, r));
                    }
                    break;
                }
            }
            walked = walked.saturating_add((q - p).length());
            behind = choke.side(q).or(behind);
            p = q;
        }
        // A waiter whose kept path, from where it waits, passes beside the portal (a straight
        // path through the door, resumed from a spot beside it): it still waits for this
        // choke, from its side, at its distance from the middle (it resumes through it).
        if waits_here
            && !found
            && let Some(side) = choke.side(t.position)
            && t.path.last().and_then(|&q| choke.side(q)) == Some(1 - side)
        {
            let r = Relation {
                choke: c,
                side,
                distance: if overlaps {
                    Fx::ZERO
                } else {
                    (choke.mid() - t.position).length()
                },
                inside: overlaps,
                crossed: false,
            };
            best = Some(nearer(best, r));
        }
    }
    best
}

fn nearer(best: Option<Relation>, r: Relation) -> Relation {
    match best {
        Some(b) if (b.distance, b.choke) <= (r.distance, r.choke) => b,
        _ => r,
    }
}

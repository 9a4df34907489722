//! Traffic control at chokepoints: one direction at a time through a narrow portal.
//!
//! A **choke** is a portal of the mesh (an open edge between two walkable triangles) whose
//! two ends are both wall vertices and which is shorter than `4 · traffic_radius`: narrower
//! than two unit diameters, so two units cannot pass each other in it (a door, a gap between
//! two buildings). Its key is its two corners in ascending `(x, y)` raw-bit order (`a`, `b`),
//! so it depends on the geometry alone, never on triangle or vertex indices. Side 0 is the
//! left of `a → b`, side 1 the right.
//!
//! Each tick, [`decide`] looks at every navigating unit's remaining planned path: a unit whose
//! path crosses a choke within [`approach_distance`] of path length *approaches* it from the
//! side it stands on (only its nearest choke counts); a unit whose disc already overlaps the
//! portal while crossing it, or that crossed it on its current segment and still overlaps it,
//! is *in* it. The reservation ([`ChokeState`]) of a choke belongs to one side at a time:
//! - with no holder, the side of the nearest approacher (path length, then id) takes it;
//! - approachers on the holder's side go; those on the other side **wait**;
//! - once the other side has approachers and `hold_ticks` have passed since the holder took
//!   it, the holder *closes*: its approachers not yet in the portal wait too;
//! - the holder gives the choke up when none of its units is in it and it is closing or has
//!   no approacher left; the other side takes it if it has approachers (else it is free).
//!
//! A waiting unit gets a **waiting spot** where it stands, or, if it stands closer than
//! [`clear_distance`] to the portal's midpoint, the point at that distance from the midpoint on
//! its own side (in its direction, else straight out along the portal's normal), kept only
//! where [`NavMesh::is_walkable`] holds for its radius (else where it stands). So waiters never
//! stand in the portal's mouth, and nothing here moves a unit towards a wall.
//!
//! Pure: the chokes are derived from the mesh; the reservations are state the caller keeps
//! (sorted by key, only held chokes), hashed and snapshotted as [`ChokeState`] records.

use super::NavMesh;
use crate::geom::{cmp_dist_point_segment, left_of, segments_intersect};
use crate::math::{Fx, Vec2};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// The radius traffic control plans for (the default agent radius): portals narrower than
/// `4 ·` this are chokes.
pub const TRAFFIC_RADIUS: Fx = Fx::from_bits(1 << 31);

/// Seconds a side keeps a choke while the other side waits (then it closes).
pub const HOLD_SECONDS: u64 = 8;

/// A choke: a portal narrower than two unit diameters. `a < b` in `(x, y)` raw-bit order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choke {
    /// The portal's first corner (the smaller).
    pub a: Vec2,
    /// The portal's second corner.
    pub b: Vec2,
}

/// The reservation of a held choke (state): which side holds it, since which tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChokeState {
    /// The choke's key.
    pub choke: Choke,
    /// The holding side: 0 (left of `a → b`) or 1.
    pub holder: u8,
    /// The tick the holder took the choke.
    pub since: u64,
}

impl Ord for Choke {
    fn cmp(&self, o: &Self) -> Ordering {
        (key(self.a), key(self.b)).cmp(&(key(o.a), key(o.b)))
    }
}

impl PartialOrd for Choke {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

// Choke is a key in ChokeState: serialize it as its two corners.
impl Serialize for Choke {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.a, self.b).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Choke {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (a, b) = <(Vec2, Vec2)>::deserialize(d)?;
        Ok(Self { a, b })
    }
}

fn key(p: Vec2) -> (i64, i64) {
    (p.x.to_bits(), p.y.to_bits())
}

impl Choke {
    /// The choke between `p` and `q` (in either order).
    #[must_use]
    pub fn new(p: Vec2, q: Vec2) -> Self {
        if key(p) <= key(q) {
            Self { a: p, b: q }
        } else {
            Self { a: q, b: p }
        }
    }

    /// The portal's midpoint.
    #[must_use]
    pub fn mid(&self) -> Vec2 {
        self.a + (self.b - self.a).half()
    }

    /// The side `p` lies on: `Some(0)` left of `a → b`, `Some(1)` right, `None` on the line.
    #[must_use]
    pub fn side(&self, p: Vec2) -> Option<u8> {
        match left_of(self.a, self.b, p).cmp(&0) {
            Ordering::Greater => Some(0),
            Ordering::Less => Some(1),
            Ordering::Equal => None,
        }
    }

    /// The unit normal pointing into side `s`.
    #[must_use]
    pub fn normal(&self, s: u8) -> Vec2 {
        let left = (self.b - self.a).perp().normalize_or_zero();
        if s == 0 { left } else { -left }
    }

    /// Whether a checked state record names a choke with sane values (restore).
    #[must_use]
    pub fn is_canonical(&self) -> bool {
        key(self.a) < key(self.b)
    }
}

/// The chokes of `mesh` for units of `traffic_radius`, ascending: every open edge between two
/// walkable triangles, shorter than `4 · traffic_radius`, whose corners both end a wall edge.
#[must_use]
pub fn chokes(mesh: &NavMesh, traffic_radius: Fx) -> Vec<Choke> {
    let verts = mesh.vertices();
    let tris = mesh.triangles();
    let mut on_wall = vec![false; verts.len()];
    for t in tris {
        for k in 0..3 {
            if t.wall[k] {
                on_wall[t.v[k] as usize] = true;
                on_wall[t.v[(k + 1) % 3] as usize] = true;
            }
        }
    }
    let limit = traffic_radius.saturating_mul(Fx::from_num(4));
    let mut out = Vec::new();
    for (i, t) in tris.iter().enumerate() {
        if !t.walkable {
            continue;
        }
        for k in 0..3 {
            let n = t.adj[k];
            // Each edge once: from its lower-indexed triangle.
            if t.wall[k]
                || n as usize >= tris.len()
                || (n as usize) < i
                || !tris[n as usize].walkable
            {
                continue;
            }
            let (p, q) = (t.v[k] as usize, t.v[(k + 1) % 3] as usize);
            if !(on_wall[p] && on_wall[q]) {
                continue;
            }
            let (p, q) = (verts[p], verts[q]);
            // length < limit, exactly: compare squares wide.
            if (q - p).length_squared_wide() < wide_sq(limit) {
                out.push(Choke::new(p, q));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn wide_sq(v: Fx) -> i128 {
    let b = i128::from(v.to_bits());
    b * b
}

/// Path length within which a unit approaching a choke of `width` is controlled.
#[must_use]
pub fn approach_distance(width: Fx) -> Fx {
    half(width) + TRAFFIC_RADIUS.saturating_mul(Fx::from_num(12))
}

/// Distance from the portal's midpoint inside which a waiting unit is moved back out.
#[must_use]
pub fn clear_distance(width: Fx) -> Fx {
    half(width) + TRAFFIC_RADIUS.saturating_mul(Fx::from_num(3))
}

fn half(v: Fx) -> Fx {
    Fx::from_bits(v.to_bits() >> 1)
}

/// One navigating unit, as [`decide`] sees it.
#[derive(Clone, Copy, Debug)]
pub struct Traveller<'a> {
    /// The unit's id (ties).
    pub id: u32,
    /// Where it stands.
    pub position: Vec2,
    /// Its radius.
    pub radius: Fx,
    /// The point its current segment started from (the previous waypoint or the order start).
    pub from: Vec2,
    /// The rest of its planned path: its current target first.
    pub path: &'a [Vec2],
}

/// What a unit does at a choke this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Follow the planned path.
    Go,
    /// Wait for the choke at `spot` (the choke's key says which).
    Wait {
        /// The choke waited for.
        choke: Choke,
        /// Where to wait (see the [module docs](self)).
        spot: Vec2,
    },
}

/// How a unit relates to one choke.
#[derive(Clone, Copy, Debug)]
struct Relation {
    choke: usize,
    side: u8,
    /// Path length to the crossing (zero when in the portal).
    distance: Fx,
    inside: bool,
}

/// The unit's nearest choke ahead on its path within the approach distance, or the choke it
/// is in.
fn relation(chokes: &[Choke], t: &Traveller<'_>) -> Option<Relation> {
    let mut best: Option<Relation> = None;
    for (c, choke) in chokes.iter().enumerate() {
        let width = (choke.b - choke.a).length();
        let reach = approach_distance(width);
        // Cheap reject: the midpoint farther than the reach (plus the width) as the crow flies.
        if (choke.mid() - t.position).max_abs_component() > reach.saturating_add(width) {
            continue;
        }
        let overlaps = cmp_dist_point_segment(choke.a, choke.b, t.position, t.radius).is_lt();
        // Crossed on the current segment and still overlapping: in, from the side it left.
        if overlaps && segments_intersect(t.from, t.position, choke.a, choke.b) {
            if let Some(side) = choke.side(t.from) {
                if choke.side(t.position) != Some(side) {
                    let r = Relation {
                        choke: c,
                        side,
                        distance: Fx::ZERO,
                        inside: true,
                    };
                    best = Some(nearer(best, r));
                    continue;
                }
            }
        }
        let mut walked = Fx::ZERO;
        let mut p = t.position;
        for &q in t.path {
            if walked > reach {
                break;
            }
            if p != q && segments_intersect(p, q, choke.a, choke.b) {
                if let (Some(side), Some(_)) = (choke.side(p), choke.side(q)) {
                    if choke.side(q) != Some(side) {
                        let distance = walked.saturating_add((choke.mid() - p).length());
                        if distance <= reach || overlaps {
                            let r = Relation {
                                choke: c,
                                side,
                                distance: if overlaps { Fx::ZERO } else { distance },
                                inside: overlaps,
                            };
                            best = Some(nearer(best, r));
                        }
                    }
                }
                break;
            }
            walked = walked.saturating_add((q - p).length());
            p = q;
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

/// The waiting spot of a unit at `position` (radius `radius`) on side `side` of `choke`.
fn spot(mesh: &NavMesh, choke: &Choke, side: u8, position: Vec2, radius: Fx) -> Vec2 {
    let width = (choke.b - choke.a).length();
    let clear = clear_distance(width);
    let m = choke.mid();
    let off = position - m;
    if off.length() >= clear {
        return position;
    }
    let n = choke.normal(side);
    let dir = match off.try_normalize() {
        Some(u) if u.dot(n) > Fx::from_bits(1 << 30) => u,
        _ => n,
    };
    for d in [dir, n] {
        let s = m + d * clear;
        if mesh.is_walkable(s, radius) {
            return s;
        }
    }
    position
}

/// One tick of traffic control: updates the reservations `state` (held chokes only, ascending
/// key; records of chokes no longer in `chokes` or with no one near are dropped) and returns
/// each traveller's decision, in the order given. `waiting` says, per traveller, the choke and
/// spot it already waits at (kept while it still waits there, so waiters do not wander).
/// `hold_ticks`: see the [module docs](self).
#[must_use]
pub fn decide(
    mesh: &NavMesh,
    chokes: &[Choke],
    state: &mut Vec<ChokeState>,
    tick: u64,
    hold_ticks: u64,
    travellers: &[Traveller<'_>],
    waiting: &[Option<(Choke, Vec2)>],
) -> Vec<Decision> {
    state.retain(|s| chokes.binary_search(&s.choke).is_ok());
    let rel: Vec<Option<Relation>> = travellers.iter().map(|t| relation(chokes, t)).collect();
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
    for &c in &near {
        let mut approach = [false; 2];
        let mut inside = [false; 2];
        let mut first: Option<(Fx, u32, u8)> = None;
        for (t, r) in travellers.iter().zip(&rel) {
            let Some(r) = r.filter(|r| r.choke == c) else {
                continue;
            };
            let s = usize::from(r.side);
            approach[s] = true;
            inside[s] |= r.inside;
            if first.is_none_or(|f| (r.distance, t.id) < (f.0, f.1)) {
                first = Some((r.distance, t.id, r.side));
            }
        }
        let key = chokes[c];
        let k = state.binary_search_by(|s| s.choke.cmp(&key));
        let mut holder = k.ok().map(|k| (state[k].holder, state[k].since));
        if let Some((h, since)) = holder {
            let o = usize::from(1 - h);
            let closing = approach[o] && tick.saturating_sub(since) >= hold_ticks;
            if !inside[usize::from(h)] && (closing || !approach[usize::from(h)]) {
                holder = approach[o].then_some((1 - h, tick));
            }
        } else if let Some((_, _, side)) = first {
            holder = Some((side, tick));
        }
        match (k, holder) {
            (Ok(k), Some((h, since))) => {
                state[k] = ChokeState {
                    choke: key,
                    holder: h,
                    since,
                }
            }
            (Ok(k), None) => {
                state.remove(k);
            }
            (Err(k), Some((h, since))) => state.insert(
                k,
                ChokeState {
                    choke: key,
                    holder: h,
                    since,
                },
            ),
            (Err(_), None) => {}
        }
        let closing = holder.is_some_and(|(h, since)| {
            approach[usize::from(1 - h)] && tick.saturating_sub(since) >= hold_ticks
        });
        open.push((c, holder.map(|(h, _)| h), closing));
    }
    travellers
        .iter()
        .zip(&rel)
        .zip(waiting)
        .map(|((t, r), w)| {
            let Some(r) = r else {
                return Decision::Go;
            };
            let Ok(i) = open.binary_search_by_key(&r.choke, |o| o.0) else {
                return Decision::Go;
            };
            let (_, holder, closing) = open[i];
            if r.inside || (holder == Some(r.side) && !closing) {
                return Decision::Go;
            }
            let choke = chokes[r.choke];
            let spot = match *w {
                Some((c, s)) if c == choke => s,
                _ => spot(mesh, &choke, r.side, t.position, t.radius),
            };
            Decision::Wait { choke, spot }
        })
        .collect()
}

#[cfg(test)]
#[path = "traffic_tests.rs"]
mod tests;

//! Traffic control at chokepoints: one direction at a time through a narrow portal.
//!
//! A **choke** is a portal of the mesh (an open edge between two walkable triangles) whose
//! two ends are both wall vertices and which is shorter than `4 · traffic_radius`: narrower
//! than two unit diameters, so two units cannot pass each other in it (a door, a gap between
//! two buildings); or, up to [`DOOR_RADII`] radii, a door between two thin wall ends
//! ([`chokes`]). Its key is its two corners in ascending `(x, y)` raw-bit order (`a`, `b`),
//! so it depends on the geometry alone, never on triangle or vertex indices. Side 0 is the
//! left of `a → b`, side 1 the right.
//!
//! **Units of several sizes.** The simulator makes the chokes for its largest navigating
//! radius too ([`chokes_for_sizes`]: the doors between thin wall ends that are doors for the
//! larger units, not the streets). A unit larger than `traffic_radius` relates to all of
//! them; a unit no larger relates to those that are chokes for `traffic_radius`, and to a
//! door for larger units only while a larger unit relates to it that tick (everyone takes
//! turns there then; otherwise it is no door for them).
//!
//! Chokes in series (a door through a wall with thickness: its mouths and the diagonal between
//! them; a corridor narrower than `4 · traffic_radius`) are **one door** ([`doors()`], see
//! [`Doors`]): reserved as one under the key of its least choke, with sides carried along its
//! passage, so the two sides can never each hold one of its mouths. Below, "choke" means a
//! door's key choke, and a unit relates to the door through whichever of its chokes it meets.
//!
//! Each tick, [`decide`] looks at every navigating unit's remaining planned path: a unit whose
//! path crosses a choke within [`TrafficParams::approach_distance`] of path length *approaches* it from the
//! side it stands on (only its nearest choke counts); a unit whose disc already overlaps the
//! portal while crossing it, or that crossed it on its current segment and still overlaps it,
//! or whose centre is inside its door's passage, is *in* it; a unit with no path left (at rest
//! at its goal) relates to no choke. The reservation ([`ChokeState`]) of a choke belongs to one side at a time:
//! - with no holder, the side of the nearest approacher (path length, then id) takes it;
//! - approachers on the holder's side go, in single file (at a door at least
//!   [`TWO_ABREAST_RADII`] radii wide, two abreast: only the nearest is let through, the
//!   others go on, none is held): within the queue
//!   ([`TrafficParams::queue`]; a waiter at any distance) the units go in single file: a
//!   waiter goes only [`TrafficParams::gap`] of path length behind the one let through
//!   before it (a unit already going, `2 r`), and once one is held all behind it are held,
//!   else they wait at a place beside the entrance (out of the way of the one going); those
//!   on the other side **wait** there too;
//! - once the other side has approachers and `hold_ticks` have passed since the holder took
//!   it, or [`TrafficParams::batch`] of its units went in since (a unit counts when its
//!   centre passes the portal's line; batches 0: no limit), the holder *closes*: its
//!   approachers not yet in the portal wait too;
//! - the holder gives the choke up when none of its units is in it and it is closing or has
//!   no approacher left; the other side takes it if it has approachers (else it is free).
//!
//! A waiting unit gets a **waiting spot** in a block along the wall beside the entrance, on
//! the hand of the portal's axis it stands on (so it never crosses the mouth, and the units
//! coming out pass between the two blocks), two files deep and six ranks long, then growing
//! outwards by two files at a time, the nearest waiters taking the
//! free places nearest the portal; a spot is kept while its unit waits. A place is free when
//! it is at least the two units' radii plus [`spot_margin`] from every spot held or handed
//! out in the same tick, whatever its block or choke, so no two waiters rest on top of each
//! other. Every spot is checked with [`NavMesh::is_walkable`] for the unit's radius (moved
//! out along the portal's normal, else the unit waits where it stands, when that is free;
//! else it tries the next place): nothing here moves a unit towards a wall. A waiter
//! whose kept path, resumed from its spot, would pass beside the portal (a straight path
//! through the door) still waits for it (the simulator resumes it through the portal's
//! middle).
//!
//! **The axis queue** (twenty-fifth session). At a door whose mouth is narrower than `3 r`,
//! while one side holds it, is not closing, and the other side has no one approaching, the
//! holder's waiters of the traffic radius or smaller wait in single file on the axis of their
//! mouth instead of in the blocks: up to six places, the first `2.5 r` out from the mouth's
//! middle and then `2.8 r` apart, each walkable, in sight of the mouth's middle for `r`, its
//! way from there no closer than `r` to another door's portals (a door facing this one across
//! a corridor ends the queue), and clear of every navigating unit at rest (where it stands
//! and its rest point; the rest point of one stepping aside) and of every spot already
//! handed out (the two radii plus [`spot_margin`] apart); the queue ends before the first
//! place that is not. Its waiters take their places after the other waiters' kept spots;
//! those the queue has no place for keep or take places in the blocks. Those already
//! on an axis place move up in order of (path length, id) as the head goes, then the other
//! waiters of the side fill the free places in the same order; the rest wait in the blocks.
//! Once the other side approaches, an axis place is no longer kept: its waiter goes to a
//! block, off the way out of the door. A unit let through from a block beside such a door
//! came in from the side, and ORCA's obstacle lines held it to a crawl until it was lined
//! up with the door (with its current velocity pointing at a corner they can leave it no
//! velocity at all, as in C++ RVO2); from the axis it walks straight in.
//!
//! The units let through in single file get [`Decision::Through`] (the simulator gives them
//! the right of way over the waiters, [`GOING`]); a unit already past the portal's line, or
//! related to no door, gets [`Decision::Go`].
//!
//! **Stepping aside.** While a door is busy (anyone approaching it, in it or waiting for
//! it), a unit at rest (no path left; its rest point given as [`Traveller::from`]) whose disc,
//! where it stands or at its rest point, overlaps the *lane* of one of the door's mouths (the
//! strip as wide as the mouth, from its line out to `4 r`: where the units let through close
//! onto its axis) gets [`Decision::Aside`]: it waits beside the lane, level with its rest
//! point (at least `1.5 r` out), on the hand of the axis that lies on, else on the other hand,
//! else farther out or farther aside (16 places), else at a place of the waiting block past
//! its first two ranks (the units let through slide along the wall into the mouth from
//! there); a place must be walkable, free, in no busy door's lane and in sight (a disc of half
//! the unit's radius reaches it); with none, the unit stays at rest where it is. It
//! keeps its place (its kept path ending on the side of the door its place is on) while
//! the door is busy, and goes back once it is not (the simulator sends a unit whose goal
//! cannot be reached to its place for good: `sim::navigation_traffic`). A centre inside a
//! door's passage or behind a mouth's line is in no lane (a unit sent into a door stays there
//! and yields). Units entering a mouth had pushed a unit at rest in front of it into the
//! passage, where its order reopened and it headed back against them with the right of way.
//!
//! Beyond reservations, the rules of the road the simulator applies with these functions:
//! the unit passing a choke has the **right of way** ([`has_right_of_way`]); units at rest
//! near a portal yield ([`near_portal`]); and at **lane portals** ([`lanes`]: corridor mouths
//! and gaps two to six diameters wide) crossed both ways units **keep right**
//! ([`keep_right`]).
//!
//! Pure: the chokes are derived from the mesh; the reservations are state the caller keeps
//! (sorted by key, only held chokes), hashed and snapshotted as [`ChokeState`] records.

use super::NavMesh;
use crate::error::SimError;
use crate::geom::left_of;
use crate::math::{Fx, Vec2};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

mod aside;
mod decide;
mod doors;
mod lanes;
mod relation;
mod spots;
pub use decide::{
    Decision, DoorWait, GOING, RIGHT_OF_WAY, Traveller, decide, decide_at, has_right_of_way,
};
pub use doors::{Doors, doors};
pub(crate) use lanes::{LaneIndex, PortalIndex, keep_right_by};
pub use lanes::{keep_right, near_portal};
pub use spots::spot_margin;

/// The radius traffic control plans for by default (the default agent radius, 0.5):
/// [`TrafficParams::radius`].
pub const TRAFFIC_RADIUS: Fx = Fx::from_bits(1 << 31);

/// Seconds a side keeps a choke by default while the other side waits (then it closes):
/// [`TrafficParams::hold_seconds`].
pub const HOLD_SECONDS: u64 = 20;

/// Units a side lets into a choke in one turn by default while the other side waits:
/// [`TrafficParams::batch`]; 0, no limit: on the measured door scenes batches of 6 and 10
/// changed nothing and smaller ones were slower (docs/navigation.md, "Doors").
pub const BATCH: u32 = 0;

/// Traffic control's settings, part of [`NavParams`](super::NavParams) (the `[navigation.traffic]`
/// table of a scenario). Every length is in units of [`radius`](Self::radius) (`r`), as
/// fixed-point multiples, so the rules scale with the units they plan for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficParams {
    /// The radius planned for (`r`): portals narrower than `4 r` are chokes (up to
    /// [`DOOR_RADII`] `r` between thin wall ends, [`chokes`]). Units larger than `r` also
    /// take turns in the thin-wall doors too narrow for two of them ([`chokes_for_sizes`],
    /// made by the simulator for its largest navigating radius); smaller units are treated
    /// as units of `r`. Set it to the radius of a game's common units.
    pub radius: Fx,
    /// Seconds a side keeps a choke while the other side waits (then it closes).
    pub hold_seconds: u64,
    /// Path length, past half the portal's width, within which a unit approaching a choke is
    /// controlled (in `r`; default 12).
    pub approach: Fx,
    /// The holding side's queue: within half the width plus this (in `r`; default 6) of
    /// path length from the portal, units go in single file, [`gap`](Self::gap) apart, else
    /// they wait at their spots (see the [module docs](self)).
    pub queue: Fx,
    /// The single-file gap of the queue, in path length (in `r`; default 2.2): a waiter goes
    /// this far behind the unit let through before it (a unit already going is held only
    /// closer than `2 r`).
    pub gap: Fx,
    /// Batches: once this many of the holding side's units have entered the portal in its
    /// turn, the holder closes as soon as the other side waits (as after
    /// [`hold_seconds`](Self::hold_seconds)), so the sides take turns by batches. 0: no
    /// limit (only the hold time).
    pub batch: u32,
    /// Units at rest at their goals within this (in `r`; default 20) of a choke's or a lane
    /// portal's middle yield to those still going ([`near_portal`]) while one of those (or a
    /// unit walking back) is within reach: its radius and the distance it covers at full
    /// speed in its time horizon, and the resting unit's radius; 0: none yields.
    pub yield_within: Fx,
}

/// The largest [`TrafficParams::radius`], [`approach`](TrafficParams::approach),
/// [`queue`](TrafficParams::queue) and [`gap`](TrafficParams::gap) accepted (units, radii).
pub const MAX_TRAFFIC_LENGTH: Fx = Fx::from_bits(1_000 << 32);

/// The longest [`TrafficParams::hold_seconds`] accepted: one day.
pub const MAX_HOLD_SECONDS: u64 = 86_400;

impl TrafficParams {
    /// The defaults: radius 0.5, hold 20 s, approach 12 r, queue 6 r, gap 2.2 r, no batch
    /// limit ([`BATCH`]), yield within 20 r.
    pub const DEFAULT: Self = Self {
        radius: TRAFFIC_RADIUS,
        hold_seconds: HOLD_SECONDS,
        approach: Fx::from_bits(12 << 32),
        queue: Fx::from_bits(6 << 32),
        // 2.2 = 11 / 5, rounded down to the raw bit.
        gap: Fx::from_bits((11 << 32) / 5),
        batch: BATCH,
        yield_within: Fx::from_bits(20 << 32),
    };

    /// Checks the settings: a radius above 0, a gap above 0, approach, queue and yield reach at
    /// least 0,
    /// each at most [`MAX_TRAFFIC_LENGTH`]; a hold of at most [`MAX_HOLD_SECONDS`]. Any
    /// batch is valid.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] naming the first value out of range.
    pub fn validate(&self) -> Result<(), SimError> {
        let range = |v: Fx, min_exclusive: bool, what: &'static str, allowed: &'static str| {
            let low = if min_exclusive {
                v <= Fx::ZERO
            } else {
                v < Fx::ZERO
            };
            if low || v > MAX_TRAFFIC_LENGTH {
                Err(SimError::OutOfDomain { what, allowed })
            } else {
                Ok(())
            }
        };
        range(self.radius, true, "traffic radius", "> 0 and <= 1,000")?;
        range(
            self.approach,
            false,
            "traffic approach",
            "0 ..= 1,000 radii",
        )?;
        range(self.queue, false, "traffic queue", "0 ..= 1,000 radii")?;
        range(
            self.yield_within,
            false,
            "traffic yield_within",
            "0 ..= 1,000 radii",
        )?;
        range(self.gap, true, "traffic gap", "> 0 and <= 1,000 radii")?;
        if self.hold_seconds > MAX_HOLD_SECONDS {
            return Err(SimError::OutOfDomain {
                what: "traffic hold_seconds",
                allowed: "0 ..= 86,400",
            });
        }
        Ok(())
    }

    /// `k` radii.
    fn r(&self, k: Fx) -> Fx {
        self.radius.saturating_mul(k)
    }

    /// Path length within which a unit approaching a choke of `width` is controlled: half
    /// the width plus [`approach`](Self::approach) radii.
    #[must_use]
    pub fn approach_distance(&self, width: Fx) -> Fx {
        half(width) + self.r(self.approach)
    }
}

impl Default for TrafficParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A choke: a portal narrower than two unit diameters (or a door between thin wall ends up
/// to [`DOOR_RADII`] radii, [`chokes`]). `a < b` in `(x, y)` raw-bit order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choke {
    /// The portal's first corner (the smaller).
    pub a: Vec2,
    /// The portal's second corner.
    pub b: Vec2,
}

/// The reservation of a held choke (state): which side holds it, since which tick, and how
/// many of its units entered the portal in this turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChokeState {
    /// The choke's key.
    pub choke: Choke,
    /// The holding side: 0 (left of `a → b`) or 1.
    pub holder: u8,
    /// The tick the holder took the choke.
    pub since: u64,
    /// The holder's units counted into the portal in this turn (see [`TrafficParams::batch`]).
    /// Not in the serde form (snapshot versions 6 to 9 keep their bytes): the snapshot
    /// writes it after the rest, from version 10.
    #[serde(skip)]
    pub passed: u32,
    /// The id of the unit counted last ([`NO_UNIT`]: none yet).
    #[serde(skip, default = "no_unit")]
    pub last: u32,
}

/// [`ChokeState::last`] before any unit was counted.
pub const NO_UNIT: u32 = u32::MAX;

fn no_unit() -> u32 {
    NO_UNIT
}

impl ChokeState {
    /// A choke taken by side `holder` at tick `since`, nobody counted yet.
    #[must_use]
    pub fn new(choke: Choke, holder: u8, since: u64) -> Self {
        Self {
            choke,
            holder,
            since,
            passed: 0,
            last: NO_UNIT,
        }
    }
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
/// walkable triangles whose corners both end a wall edge, shorter than `4 · traffic_radius`;
/// and, up to [`DOOR_RADII`] radii, such an edge between two *thin* wall ends (each corner ends
/// a wall edge at most `2 · traffic_radius` long: the end of a wall no thicker than a unit's
/// diameter; or is the tip of a polyline wall, a vertex ending one wall edge only). A door 2 wide in a wall (for radius 0.5) is too narrow for two files to pass
/// and gets a reservation; a street 2 wide between buildings (their corners end long faces)
/// is left to the avoidance, as before.
#[must_use]
pub fn chokes(mesh: &NavMesh, traffic_radius: Fx) -> Vec<Choke> {
    let narrow = traffic_radius.saturating_mul(Fx::from_num(4));
    let mut out = wall_portals(mesh, Fx::ZERO, narrow);
    let thin_end = thin_ends(mesh, traffic_radius);
    let door = traffic_radius.saturating_mul(DOOR_RADII);
    // From `TWO_ABREAST_RADII` on, walls must run on from both corners (as for the larger
    // units' doors, [`chokes_beside`]): a door in a wall, not a gap between crates.
    let abreast = traffic_radius.saturating_mul(TWO_ABREAST_RADII);
    let abreast_sq = crate::math::wide_mul(abreast, abreast);
    // Made only when a gap asks for it (most meshes have no thin-wall gap that wide).
    let walls = std::cell::OnceCell::new();
    let verts = mesh.vertices();
    let doors = wall_portals_where(mesh, narrow, door, |p, q| {
        let width = (verts[q] - verts[p]).length_squared_wide();
        thin_end[p]
            && thin_end[q]
            && (width < abreast_sq || {
                let walls = walls.get_or_init(|| WallGraph::new(mesh));
                walls.reaches(p, width) && walls.reaches(q, width)
            })
    });
    if !doors.is_empty() {
        out.extend(doors);
        out.sort_unstable();
        out.dedup();
    }
    out
}

/// The chokes for units of `traffic_radius` ([`chokes`]) and, for the larger units of radius
/// up to `large`, the doors between thin wall ends up to [`DOOR_RADII`] `· large` wide
/// (thin as [`chokes`] tells them for `traffic_radius`: each corner ends a wall edge at most
/// `2 · traffic_radius` long, or is a polyline's tip; and from each corner the walls reach,
/// along their edges, a vertex at least the door's width away: a door in a wall, not a gap
/// between crates), ascending. Not the streets between
/// buildings (their corners end long faces): the avoidance lets larger units squeeze past
/// each other there, and taking turns at every street's mouth knotted the crowds pressing
/// into it (the twenty-third session's sweep: three more scenes jammed than it freed). Nor,
/// for units much larger than `traffic_radius`, the gaps between buildings no wider than
/// their diameter (thin for them, not for the walls the traffic radius is made for): units
/// of radius 1.5 among buildings 2 to 4 wide took turns between them.
#[must_use]
pub fn chokes_for_sizes(mesh: &NavMesh, traffic_radius: Fx, large: Fx) -> Vec<Choke> {
    chokes_beside(mesh, chokes(mesh, traffic_radius), traffic_radius, large)
}

/// [`chokes_for_sizes`] from the chokes for `traffic_radius` (as [`chokes`] gives them).
pub(crate) fn chokes_beside(
    mesh: &NavMesh,
    mut out: Vec<Choke>,
    traffic_radius: Fx,
    large: Fx,
) -> Vec<Choke> {
    if large <= traffic_radius {
        return out;
    }
    let door = large.saturating_mul(DOOR_RADII);
    // Thin wall ends whose walls reach at least the door's width away: a door in a wall, not
    // a gap between small obstacles (crates, posts: among them a larger unit made every gap
    // a door, and the units of the traffic radius took turns there). Reached along the wall
    // edges, through the vertices they share: the mesh splits a wall's face wherever another
    // wall, a piece of the same wall or the boundary touches it, so one edge's length says
    // nothing (the review of the twenty-third session: a wall drawn in two pieces, rooms,
    // door posts lost their doors that way).
    let thin_end = thin_ends(mesh, traffic_radius);
    let walls = WallGraph::new(mesh);
    let verts = mesh.vertices();
    let doors = wall_portals_where(mesh, Fx::ZERO, door, |p, q| {
        let width = (verts[q] - verts[p]).length_squared_wide();
        thin_end[p] && thin_end[q] && walls.reaches(p, width) && walls.reaches(q, width)
    });
    if !doors.is_empty() {
        out.extend(doors);
        out.sort_unstable();
        out.dedup();
    }
    out
}

/// The wall edges of a mesh as a graph on its vertices (each vertex's neighbours along wall
/// edges, ascending), for [`WallGraph::reaches`].
struct WallGraph<'a> {
    verts: &'a [Vec2],
    /// Per vertex: the range of its neighbours in `next`.
    start: Vec<u32>,
    next: Vec<u32>,
}

impl<'a> WallGraph<'a> {
    /// How many vertices [`reaches`](Self::reaches) visits at most (then it answers no).
    const VISITS: usize = 256;

    fn new(mesh: &'a NavMesh) -> Self {
        let verts = mesh.vertices();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for t in mesh.triangles() {
            for k in 0..3 {
                if t.wall[k] {
                    let (a, b) = (t.v[k], t.v[(k + 1) % 3]);
                    edges.push((a, b));
                    edges.push((b, a));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut start = vec![0u32; verts.len() + 1];
        for &(a, _) in &edges {
            if let Some(s) = start.get_mut(a as usize + 1) {
                *s = s.saturating_add(1);
            }
        }
        for i in 1..start.len() {
            start[i] = start[i].saturating_add(start[i - 1]);
        }
        Self {
            verts,
            start,
            next: edges.into_iter().map(|e| e.1).collect(),
        }
    }

    /// Whether the walls at vertex `from` reach a vertex whose squared distance from it is at
    /// least `dist_sq`, walking wall edges through the vertices they share (a depth-first
    /// walk, the last neighbour first). Past [`VISITS`](Self::VISITS) vertices, all nearer
    /// than that, it answers no: a wall drawn with a vertex every `width / 256` or closer
    /// loses its door. (Until the twenty-ninth session it answered yes past 64 vertices, and
    /// two round pillars drawn as 80-gons 2.8 apart made a door; a review found it. A pillar
    /// drawn with more vertices is walked round whole, and answers no.)
    fn reaches(&self, from: usize, dist_sq: i128) -> bool {
        let Some(&origin) = self.verts.get(from) else {
            return false;
        };
        // Sorted, so a long walk costs `VISITS · log VISITS`, not `VISITS²`.
        let mut seen: Vec<u32> = vec![from as u32];
        let mut stack: Vec<u32> = vec![from as u32];
        while let Some(v) = stack.pop() {
            let (a, b) = (
                self.start[v as usize] as usize,
                self.start[v as usize + 1] as usize,
            );
            for &n in &self.next[a..b] {
                let Err(at) = seen.binary_search(&n) else {
                    continue;
                };
                if (self.verts[n as usize] - origin).length_squared_wide() >= dist_sq {
                    return true;
                }
                if seen.len() >= Self::VISITS {
                    return false;
                }
                seen.insert(at, n);
                stack.push(n);
            }
        }
        false
    }
}

/// Per vertex of `mesh`: whether it is a *thin* wall end for units of `radius` (it ends a
/// wall edge at most `2 · radius` long, or is the tip of a polyline wall).
fn thin_ends(mesh: &NavMesh, radius: Fx) -> Vec<bool> {
    let thin = wide_sq(radius.saturating_mul(Fx::from_num(2)));
    let verts = mesh.vertices();
    let mut thin_end = vec![false; verts.len()];
    // Per vertex: the wall edges that end at it, each counted once (from its lower-indexed
    // triangle, or its only one on the hull). One: the tip of a polyline wall, the thinnest
    // wall end there is.
    let mut walls_at = vec![0u8; verts.len()];
    for (i, t) in mesh.triangles().iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (t.v[k] as usize, t.v[(k + 1) % 3] as usize);
            if !t.wall[k] {
                continue;
            }
            if (verts[b] - verts[a]).length_squared_wide() <= thin {
                thin_end[a] = true;
                thin_end[b] = true;
            }
            let n = t.adj[k];
            if n == super::NO_TRIANGLE || (n as usize) > i {
                walls_at[a] = walls_at[a].saturating_add(1);
                walls_at[b] = walls_at[b].saturating_add(1);
            }
        }
    }
    for (end, &w) in thin_end.iter_mut().zip(&walls_at) {
        *end |= w == 1;
    }
    thin_end
}

/// How wide, in radii, a gap between two thin wall ends may be and still be a choke (a door):
/// 6.2 (`3.1` diameters; a gap 3 wide for radius 0.5). From [`TWO_ABREAST_RADII`] on such a
/// door is held by one side at a time but not crossed in single file. Until the
/// twenty-ninth session it was 5.2 and a gap 3 wide in a wall was two lanes ([`keep_right`]):
/// the two crowds of a counterflow met in it and jammed (16 units a side with RVO2's default
/// horizons took 111.75 s to arrive, 45.75 s now).
pub const DOOR_RADII: Fx = Fx::lit("6.2");

/// From how wide, in radii of the largest unit in its holder's file (at least the traffic
/// radius), a door (its narrowest choke at least this wide: a door between thin wall ends,
/// up to [`DOOR_RADII`]) lets its holder's units go two abreast: 5.2 (`2.6` diameters, where
/// two files begin to pass). Its holding side is not held in single file: its unit
/// nearest the door is let through ([`Decision::Through`], the right of way over the
/// waiters), the others go on along their paths ([`Decision::Go`]); the other side waits as
/// at every door.
pub const TWO_ABREAST_RADII: Fx = Fx::lit("5.2");

/// The portals near which units on their way look at most 2 s ahead at walls, ascending:
/// the `lanes` (as [`lanes`] gives them) and the `chokes` (as [`chokes`] gives them for
/// `traffic_radius`) at least [`TWO_ABREAST_RADII`] radii wide, those of the doors crossed two
/// abreast by units of the traffic radius (listed whatever the units in the file, and a choke
/// of a door whose other chokes are narrower too: near a door splayed from 2.4 to 2.8 wide the
/// units going on look 2 s ahead, though the door is crossed in single file).
/// A unit let through such a door looks less far still (the doors' caps); the others going on
/// behind it with RVO2's default 10 s braked for the jambs from far off and packed the mouth
/// (100 to 160 units from one side through doors 2.8 and 3 wide: 555 pair-ticks deeper than a
/// quarter of a diameter without this, 101 with it).
#[must_use]
pub fn short_look_portals(lanes: &[Choke], chokes: &[Choke], traffic_radius: Fx) -> Vec<Choke> {
    let abreast = traffic_radius.saturating_mul(TWO_ABREAST_RADII);
    let mut out: Vec<Choke> = lanes.to_vec();
    out.extend(chokes.iter().filter(|c| (c.b - c.a).length() >= abreast));
    out.sort_unstable();
    out.dedup();
    out
}

/// The lane portals of `mesh` for units of `traffic_radius`, ascending: every open edge
/// between two walkable triangles whose corners both end a wall edge, from `4 ·
/// traffic_radius` (two diameters: two files pass) to less than `12 · traffic_radius` long
/// (a corridor's mouth, a wide gap between buildings), but the [`chokes`] (a door up to
/// [`DOOR_RADII`] radii between thin wall ends is reserved, one side at a time, not two
/// lanes) and the portals inside such a door through a wall with thickness (an edge of a
/// triangle whose other edges are a choke and a thin wall edge). See [`keep_right`].
#[must_use]
pub fn lanes(mesh: &NavMesh, traffic_radius: Fx) -> Vec<Choke> {
    lanes_beside(mesh, &chokes(mesh, traffic_radius), traffic_radius)
}

/// [`lanes`] from the chokes for `traffic_radius` (as [`chokes`] gives them).
pub(crate) fn lanes_beside(mesh: &NavMesh, chokes: &[Choke], traffic_radius: Fx) -> Vec<Choke> {
    let mut out = wall_portals(
        mesh,
        traffic_radius.saturating_mul(Fx::from_num(4)),
        traffic_radius.saturating_mul(Fx::from_num(12)),
    );
    // Nor a portal inside a door through a wall with thickness: an edge of a walkable triangle
    // whose other two edges are a choke and a thin wall edge (at most `2 r`: the wall's end
    // face). In a wall 1 thick a door 3 wide has mouths of 3, chokes, and a diagonal of 3.16
    // between them; as a lane, keep right steered the units going through the door to one
    // side (a review of the twenty-ninth session found it).
    let verts = mesh.vertices();
    let thin = wide_sq(traffic_radius.saturating_mul(Fx::from_num(2)));
    let mut inside: Vec<Choke> = Vec::new();
    for t in mesh.triangles().iter().filter(|t| t.walkable) {
        let corner = |k: usize| verts[t.v[k % 3] as usize];
        let edge = |k: usize| Choke::new(corner(k), corner(k + 1));
        for w in 0..3 {
            let (p, q) = (corner(w), corner(w + 1));
            if !t.wall[w] || (q - p).length_squared_wide() > thin {
                continue;
            }
            for (c, other) in [(w + 1, w + 2), (w + 2, w + 1)] {
                if !t.wall[c % 3] && chokes.binary_search(&edge(c)).is_ok() {
                    inside.push(edge(other));
                }
            }
        }
    }
    inside.sort_unstable();
    out.retain(|c| chokes.binary_search(c).is_err() && inside.binary_search(c).is_err());
    out
}

/// The open edges between walkable triangles whose corners both end a wall edge, at least
/// `min` and shorter than `limit`, ascending.
fn wall_portals(mesh: &NavMesh, min: Fx, limit: Fx) -> Vec<Choke> {
    wall_portals_where(mesh, min, limit, |_, _| true)
}

/// [`wall_portals`] whose corners (vertex indices) pass `keep` too.
fn wall_portals_where(
    mesh: &NavMesh,
    min: Fx,
    limit: Fx,
    keep: impl Fn(usize, usize) -> bool,
) -> Vec<Choke> {
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
            if !(on_wall[p] && on_wall[q] && keep(p, q)) {
                continue;
            }
            let (p, q) = (verts[p], verts[q]);
            // min <= length < limit, exactly: compare squares wide.
            let sq = (q - p).length_squared_wide();
            if sq >= wide_sq(min) && sq < wide_sq(limit) {
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

fn half(v: Fx) -> Fx {
    Fx::from_bits(v.to_bits() >> 1)
}

// The tests build their maps from f64 literals (test input, never the simulation path).
#[cfg(test)]
#[allow(clippy::float_arithmetic)]
#[path = "traffic_tests/mod.rs"]
mod tests;

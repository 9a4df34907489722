//! Doors: chokes in series controlled as one (see [`Doors`]).

use super::Choke;
use crate::geom::left_of;
use crate::math::{Fx, Vec2};
use crate::navigation::{NO_TRIANGLE, NavMesh};

/// The chokes of a mesh grouped into doors ([`doors()`]).
///
/// A door through a wall with thickness, or a corridor narrower than two unit diameters, is
/// crossed through several portals of the mesh in a row (a door one unit thick: its two
/// mouths and the diagonal between them), each a choke. Reserved one by one, each side could
/// hold the mouth nearest it and the two sides met head-on inside the door: 20 units a side
/// through a door 1.3 wide in a wall 1 thick took 134.25 s and 153.5 s (both id orders), with
/// 18 ticks of both sides inside the door; as one door, 90.0 s and 91.0 s and never both
/// (`tests/navigation/traffic.rs`, `counterflow_through_a_door_in_a_thick_wall_takes_turns`).
///
/// A **passage** is a chain of walkable triangles, each with exactly one wall edge and its
/// two other edges open to walkable triangles, the widest disc crossing it between them
/// narrower than [`DOOR_RADII`](super::DOOR_RADII) `· traffic_radius` (its
/// [`width`](crate::navigation::NavTriangle::width)), the widest a choke can be: a door 2 wide
/// through a thin wall is one door as a narrower one is (`tests/navigation/traffic.rs`,
/// `counterflow_through_a_2_wide_door_in_a_thin_wall_takes_turns`: 20 units a side, west first, took
/// 101.75 s with its three chokes reserved one by one, the sides meeting inside for 54 ticks;
/// as one door 61.75 s, in both id orders, and never both). A passage whose two ends (the open edges leading out of
/// the chain) are both chokes makes the chokes along it one **door**:
/// - its key is its least choke (the *key choke*), the one the reservation
///   ([`ChokeState`](super::ChokeState)) and the waiters name;
/// - its sides are the key choke's sides, carried along the passage: side `s` of the door is
///   the end of the passage that lies on side `s` of the key choke, so a unit approaching any
///   of its chokes from that end approaches the door from side `s`;
/// - a unit whose centre is inside the passage is in the door;
/// - the units waiting on side `s` wait beside that end's mouth.
///
/// A choke not on such a passage is a door by itself, as before. The doors are a pure
/// function of the mesh and the radius the chokes are made for (the traffic radius, or the
/// largest navigating radius: [`chokes_for_sizes`](super::chokes_for_sizes)), derived with
/// the chokes (never state).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Doors {
    /// The chokes, ascending.
    pub(crate) chokes: Vec<Choke>,
    /// Per choke: its door (an index into `list`, `u32::MAX`: a door by itself) and, per side
    /// of the choke, the door's side.
    member: Vec<(u32, [u8; 2])>,
    /// The doors of more than one choke.
    list: Vec<Door>,
    /// The doors of `list` by their passages' least x: (x, index), ascending.
    by_x: Vec<(Fx, u32)>,
    /// The widest passage box along x.
    widest: Fx,
    /// Per choke: whether its door is a door for units of the traffic radius too (see
    /// [`Doors::with_light`]); empty: every door is.
    light: Vec<bool>,
    /// The chokes whose doors are light, ascending (with `light` empty: not used).
    light_chokes: Vec<Choke>,
}

/// A door of more than one choke.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Door {
    /// The key choke (the least of its chokes): an index into the chokes.
    key: u32,
    /// Per side of the door: the choke at that end and its side facing out of the passage.
    mouth: [(u32, u8); 2],
    /// Its chokes, ascending.
    members: Vec<u32>,
    /// The passage's triangles.
    tris: Vec<u32>,
    /// Their box `(x0, x1, y0, y1)`.
    bounds: (Fx, Fx, Fx, Fx),
}

/// Whether `p` lies in one of the triangles `tris` of `mesh` (within their box `bounds`).
fn in_tris(mesh: &NavMesh, tris: &[u32], bounds: (Fx, Fx, Fx, Fx), p: Vec2) -> bool {
    if p.x < bounds.0 || p.x > bounds.1 || p.y < bounds.2 || p.y > bounds.3 {
        return false;
    }
    tris.iter().any(|&t| {
        let Some(t) = mesh.tris.get(t as usize) else {
            return false;
        };
        let v =
            t.v.map(|i| mesh.verts.get(i as usize).copied().unwrap_or(p));
        (0..3).all(|k| left_of(v[k], v[(k + 1) % 3], p) >= 0)
    })
}

const ALONE: u32 = u32::MAX;

impl Doors {
    /// The chokes, ascending.
    #[must_use]
    pub fn chokes(&self) -> &[Choke] {
        &self.chokes
    }

    /// How many doors are made of more than one choke.
    #[must_use]
    pub fn passages(&self) -> usize {
        self.list.len()
    }

    /// These doors, made for a radius larger than the traffic radius, with `light[c]` telling
    /// whether choke `c` is a choke for the traffic radius too. A door with such a choke is a
    /// *light* door, every choke of it light ([`is_light`](Self::is_light)); the others are
    /// doors only for the larger units ([`relation`](super::relation) lets the units no larger
    /// than the traffic radius pass them while no larger unit uses them). A `light` of another
    /// length is ignored.
    #[must_use]
    pub(crate) fn with_light(mut self, mut light: Vec<bool>) -> Self {
        if light.len() != self.chokes.len() {
            return self;
        }
        // A door is light as a whole: a unit no larger than the traffic radius relates to it
        // through any of its chokes, as a larger unit does.
        for d in &self.list {
            if d.members.iter().any(|&c| light[c as usize]) {
                for &c in &d.members {
                    light[c as usize] = true;
                }
            }
        }
        // All light: kept empty (the same answers, read without a look-up).
        if !light.iter().all(|&l| l) {
            self.light_chokes = (self.chokes.iter().zip(&light))
                .filter(|(_, l)| **l)
                .map(|(c, _)| *c)
                .collect();
            self.light = light;
        }
        self
    }

    /// The chokes whose doors are [light](Self::is_light), ascending: what the units no
    /// larger than the traffic radius look at for their right of way and their yielding.
    pub(crate) fn light_chokes(&self) -> &[Choke] {
        if self.light.is_empty() {
            &self.chokes
        } else {
            &self.light_chokes
        }
    }

    /// Whether choke `c`'s door is a door for units of the traffic radius (every door is,
    /// unless the doors were made for a larger radius: [`with_light`](Self::with_light)).
    pub(crate) fn is_light(&self, c: usize) -> bool {
        self.light.get(c).copied().unwrap_or(true)
    }

    /// Whether all doors are [light](Self::is_light).
    pub(crate) fn all_light(&self) -> bool {
        // `with_light` keeps no flags when every door is light.
        self.light.is_empty()
    }

    /// The key choke of choke `c`'s door (an index into [`chokes`](Self::chokes)), and the
    /// door's side for side `side` of choke `c`.
    pub(crate) fn door_of(&self, c: usize, side: u8) -> (usize, u8) {
        match self.member.get(c) {
            Some(&(d, map)) if d != ALONE => (
                self.list[d as usize].key as usize,
                map[usize::from(side & 1)],
            ),
            _ => (c, side),
        }
    }

    fn door(&self, key: usize) -> Option<&Door> {
        self.member
            .get(key)
            .filter(|m| m.0 != ALONE)
            .map(|m| &self.list[m.0 as usize])
    }

    /// The chokes of the door keyed by choke `key`, ascending (empty for a door of one choke
    /// or a choke that is no door's key).
    pub(crate) fn members(&self, key: usize) -> &[u32] {
        self.door(key)
            .filter(|d| d.key as usize == key)
            .map_or(&[], |d| &d.members[..])
    }

    /// Whether choke `c` is the key of its door (every choke alone is).
    pub(crate) fn is_key(&self, c: usize) -> bool {
        self.door(c).is_none_or(|d| d.key as usize == c)
    }

    /// The choke at side `side`'s end of the door keyed by choke `key`, with its own side
    /// facing out of the door (the choke itself and `side` for a door of one choke).
    pub(crate) fn mouth(&self, key: usize, side: u8) -> (Choke, u8) {
        match self.door(key) {
            Some(d) => {
                let (m, out) = d.mouth[usize::from(side & 1)];
                (self.chokes[m as usize], out)
            }
            None => (self.chokes[key], side),
        }
    }

    /// Whether `p` lies inside the passage of the door keyed by choke `key` (never for a door
    /// of one choke; never with a mesh other than the doors').
    pub(crate) fn in_passage(&self, mesh: &NavMesh, key: usize, p: Vec2) -> bool {
        self.door(key)
            .is_some_and(|d| in_tris(mesh, &d.tris, d.bounds, p))
    }

    /// The key of the door of more than one choke whose passage holds `p`, if any (the
    /// passages' boxes are scanned in ascending order of their least x).
    pub(crate) fn passage_at(&self, mesh: &NavMesh, p: Vec2) -> Option<usize> {
        let end = self.by_x.partition_point(|&(x0, _)| x0 <= p.x);
        let start =
            self.by_x[..end].partition_point(|&(x0, _)| x0 < p.x.saturating_sub(self.widest));
        self.by_x[start..end].iter().find_map(|&(_, d)| {
            let d = &self.list[d as usize];
            in_tris(mesh, &d.tris, d.bounds, p).then_some(d.key as usize)
        })
    }

    /// The mouth of door `door` (a key choke) that `p` stands outside of (the nearer when
    /// outside both), with its side facing out: where a unit there enters the door. `None`
    /// when `door` is not a key choke of these doors or `p` is outside neither mouth.
    #[must_use]
    pub fn entry(&self, door: &Choke, p: Vec2) -> Option<(Choke, u8)> {
        let key = self.chokes.binary_search(door).ok()?;
        if !self.is_key(key) {
            return None;
        }
        // Outside both (the mouths of a bent passage facing the same way): the nearer.
        (0..2u8)
            .map(|s| self.mouth(key, s))
            .filter(|(m, out)| m.side(p) == Some(*out))
            .min_by_key(|(m, _)| (m.mid() - p).length_squared_wide())
    }
}

/// The chokes of `mesh` (ascending, as [`chokes`](super::chokes) gives them for
/// `traffic_radius`, or [`chokes_for_sizes`](super::chokes_for_sizes) for a larger radius,
/// given here as `traffic_radius`) grouped into doors (see [`Doors`]).
#[must_use]
pub fn doors(mesh: &NavMesh, chokes: &[Choke], traffic_radius: Fx) -> Doors {
    // Passages as wide as the widest chokes (thin-wall doors up to `DOOR_RADII` radii): a
    // passage is a door only where chokes end it, so wider streets are not grouped.
    let limit = traffic_radius.saturating_mul(super::DOOR_RADII);
    let tris = &mesh.tris;
    let walkable = |t: u32| tris.get(t as usize).is_some_and(|t| t.walkable);
    // Per triangle: the wall edge of a passage triangle.
    let passage: Vec<Option<usize>> = tris
        .iter()
        .map(|t| {
            if !t.walkable || t.wall.iter().filter(|&&w| w).count() != 1 {
                return None;
            }
            let j = t.wall.iter().position(|&w| w)?;
            let open = [(j + 1) % 3, (j + 2) % 3];
            (open.iter().all(|&k| walkable(t.adj[k])) && t.width[(j + 2) % 3] < limit).then_some(j)
        })
        .collect();
    let edge_choke = |t: usize, k: usize| {
        let v = tris[t].v;
        let c = Choke::new(
            mesh.verts[v[k] as usize],
            mesh.verts[v[(k + 1) % 3] as usize],
        );
        chokes.binary_search(&c).ok()
    };
    let mut out = Doors {
        chokes: chokes.to_vec(),
        member: vec![(ALONE, [0, 1]); chokes.len()],
        list: Vec::new(),
        by_x: Vec::new(),
        widest: Fx::ZERO,
        light: Vec::new(),
        light_chokes: Vec::new(),
    };
    let mut seen = vec![false; tris.len()];
    for start in 0..tris.len() {
        let Some(j) = passage[start] else { continue };
        // Start from an end of a chain: an open edge leading out of the passages.
        let Some(k0) = [(j + 1) % 3, (j + 2) % 3]
            .into_iter()
            .find(|&k| passage[tris[start].adj[k] as usize].is_none())
        else {
            continue;
        };
        if seen[start] {
            continue;
        }
        // Walk the chain: (edge's choke, the triangle before it, the triangle after it).
        let mut edges: Vec<(Option<usize>, usize, usize)> = Vec::new();
        let mut chain = Vec::new();
        let (mut t, mut k_in) = (start, k0);
        edges.push((edge_choke(t, k_in), tris[t].adj[k_in] as usize, t));
        loop {
            seen[t] = true;
            chain.push(t as u32);
            let j = passage[t].unwrap_or(0);
            let k_out = if (j + 1) % 3 == k_in {
                (j + 2) % 3
            } else {
                (j + 1) % 3
            };
            let n = tris[t].adj[k_out];
            edges.push((edge_choke(t, k_out), t, n as usize));
            if n == NO_TRIANGLE || passage[n as usize].is_none() || seen[n as usize] {
                break;
            }
            let n = n as usize;
            let Some(back) = (0..3).find(|&k| tris[n].adj[k] as usize == t) else {
                break;
            };
            (t, k_in) = (n, back);
        }
        // Both ends chokes, and the chain left the passages at its last edge (not a ring).
        let (first, last) = (edges[0], edges[edges.len() - 1]);
        if first.0.is_none() || last.0.is_none() || passage.get(last.2).is_none_or(Option::is_some)
        {
            continue;
        }
        // Per choke on the chain: its side facing the chain's first end (the side of the
        // triangle before it).
        let mut members: Vec<(usize, u8)> = Vec::new();
        let mut ok = true;
        for &(c, before, after) in &edges {
            let Some(c) = c else { continue };
            let choke = chokes[c];
            // The vertex of a triangle not on the choke lies strictly on one side.
            let off = |t: usize| {
                tris[t]
                    .v
                    .iter()
                    .map(|&i| mesh.verts[i as usize])
                    .find(|&p| p != choke.a && p != choke.b)
                    .and_then(|p| choke.side(p))
            };
            let side = off(before).or_else(|| off(after).map(|s| 1 - s));
            match side {
                Some(s) => members.push((c, s)),
                None => ok = false,
            }
        }
        if !ok || members.len() < 2 {
            continue;
        }
        let key = members.iter().map(|m| m.0).min().unwrap_or(0);
        // The door's side facing the first end: the key choke's own.
        let first_side = members.iter().find(|m| m.0 == key).map_or(0, |m| m.1);
        let d = u32::try_from(out.list.len()).unwrap_or(ALONE);
        for &(c, s) in &members {
            let mut map = [0u8; 2];
            map[usize::from(s)] = first_side;
            map[usize::from(1 - s)] = 1 - first_side;
            out.member[c] = (d, map);
        }
        let (m0, s0) = members[0];
        let (m1, s1) = members[members.len() - 1];
        let mut mouth = [(0u32, 0u8); 2];
        // The first end's mouth faces out on its side facing the first end; the last's on
        // its other side.
        mouth[usize::from(first_side)] = (m0 as u32, s0);
        mouth[usize::from(1 - first_side)] = (m1 as u32, 1 - s1);
        let mut list: Vec<u32> = members.iter().map(|m| m.0 as u32).collect();
        list.sort_unstable();
        let mut bounds = (Fx::MAX, Fx::MIN, Fx::MAX, Fx::MIN);
        for &t in &chain {
            for i in tris[t as usize].v {
                let q = mesh.verts[i as usize];
                bounds = (
                    bounds.0.min(q.x),
                    bounds.1.max(q.x),
                    bounds.2.min(q.y),
                    bounds.3.max(q.y),
                );
            }
        }
        out.by_x.push((bounds.0, d));
        out.widest = out.widest.max(bounds.1.saturating_sub(bounds.0));
        out.list.push(Door {
            key: key as u32,
            members: list,
            mouth,
            tris: chain,
            bounds,
        });
    }
    out.by_x.sort_unstable();
    out
}

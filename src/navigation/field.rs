//! Shared searches: a distance field over the mesh from one goal, for one radius (plan §2.3).
//!
//! When many units are sent to one goal, each running its own search repeats the same work. A
//! [`Field`] is one Dijkstra from the goal's triangle over the triangles, under the search's
//! clearance rules; every unit then takes its corridor from the field (a walk along the
//! triangles' `via` links, no search) and pulls it with the funnel. Past the string's first
//! corner the pulled and smoothed path is the field's, shared by every unit that turns there
//! (`field_paths.rs`): a unit pulls only its stretch to that corner.
//!
//! - **Metric.** Each settled triangle `T` keeps the funnel ([`Cone`]) of its corridor from
//!   the goal, through the portals shrunk by `r`, as the search keeps it from the start: the
//!   string's last corner, its length from the goal, and the funnel's sides. `d(T)` is that
//!   length plus the distance from the corner to `T`'s exit portal, the search's `g` bound: close
//!   to the corridor's taut length, so the field's corridors follow the geodesics (units in
//!   different streets keep to their streets) rather than a chain of portal points. The funnel
//!   then pulls each unit's corridor taut. With a [`FieldKey::choke_cost`] the string's
//!   length also carries the cost of the narrow portals crossed (each run of them once: a
//!   triangle keeps what its exit's run was charged, and a portal before it in the run adds
//!   only what it costs more).
//! - **Moves.** Entering `T` from a neighbour by edge `e` and leaving by `T`'s exit needs `T`'s
//!   width pivoting on the two edges to be at least `2r + 4 ulp` (as in the search), the edge
//!   `e` open (not a wall, the neighbour walkable) and at least `2r` long.
//! - **Canonical.** The heap orders by `(d, triangle index)`; a triangle is settled once, its
//!   link set by the first strictly shorter relaxation. The field grows lazily
//!   ([`Field::settle`]): it is settled only as far as its users need, and because Dijkstra
//!   settles triangles in the same order whatever it is stopped at, the link and the rank (the
//!   settle index) of a triangle are the same however far the field has grown. So a field kept
//!   between ticks (a cache, never state) gives the same corridors and the same charge as one
//!   built fresh after a restore: its content is a function of the mesh and its [`FieldKey`]
//!   only. So are its shared paths, kept per corner.

use super::funnel::{self, Cone};
use super::search::{SearchWork, dist_raw_point_segment, nearest_on_segment};
use super::{NavMesh, NavPath, PathStatus};
use crate::math::{Fx, Vec2, wide_mul};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[path = "field_paths.rs"]
mod paths;

/// A field's key: the goal (as requested), the radius and what crossing a narrow portal costs
/// on top of its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldKey {
    /// The requested goal (the field's goal is this point, or the nearest walkable one).
    pub goal: Vec2,
    /// The units' radius.
    pub radius: Fx,
    /// The length added to a corridor for crossing a narrow portal `4 r` wide: an open edge
    /// between walkable triangles whose ends are both on walls and which is shorter than
    /// `12 r` (a door, a gap between buildings, a street) costs this times `4 r` over its
    /// length, once per run of such edges in a row (at the run's costliest: a door through a
    /// wall of a few radii counts once; an edge of `12 r` or more across a passage, as in a
    /// very thick wall, ends the run). 0 (or less): shortest corridors; above
    /// [`MAX_CHOKE_COST`] it counts as that. The simulator sets it for a crowd sent to one
    /// goal, so that a large group prefers a wider way round to a queue in single file
    /// (docs/navigation.md, "Crowds prefer wide ways").
    pub choke_cost: Fx,
}

impl FieldKey {
    /// The key of shortest corridors (no [`choke_cost`](Self::choke_cost)).
    #[must_use]
    pub fn new(goal: Vec2, radius: Fx) -> Self {
        Self {
            goal,
            radius,
            choke_cost: Fx::ZERO,
        }
    }

    /// The key's canonical order: `(x, y, r, choke cost)` raw bits.
    #[must_use]
    pub fn bits(&self) -> (i64, i64, i64, i64) {
        (
            self.goal.x.to_bits(),
            self.goal.y.to_bits(),
            self.radius.to_bits(),
            self.choke_cost.to_bits(),
        )
    }
}

/// The largest [`FieldKey::choke_cost`] counted (2²⁰ units; a larger one counts as this):
/// runs charged at it can add up many times before a distance saturates.
pub const MAX_CHOKE_COST: Fx = Fx::from_bits(1 << 52);

/// No exit: the goal's triangle, or not settled.
const NO_VIA: u8 = 3;
/// Not settled.
const UNSETTLED: u32 = u32::MAX;

/// A distance field over a mesh from one goal for one radius: one Dijkstra from the goal's
/// triangle under the search's clearance rules, whose corridors serve every unit sent to that
/// goal ([`Field::path_from`]: a walk along the triangles' links and the funnel, no search).
///
/// A triangle's distance is the length of its corridor's funnel from the goal plus the
/// distance to its exit portal (the search's `g` bound); the heap orders by
/// `(distance, triangle index)` and each triangle is settled once. The field grows lazily
/// ([`Field::settle`]); since Dijkstra settles triangles in the same order wherever it is
/// stopped, a triangle's corridor and rank do not depend on how far the field has grown. So
/// a field kept between ticks gives the same answers as a fresh one: its content is a function
/// of the mesh and its [`FieldKey`] only (workspace, never state).
#[derive(Clone, Debug)]
pub struct Field {
    key: FieldKey,
    /// The goal the paths end at (the key's, or the nearest walkable point), and whether it
    /// was adjusted. `None`: no walkable goal (the field is empty).
    goal: Option<(Vec2, bool)>,
    goal_tri: u32,
    /// Per triangle: the tentative (then settled) distance, raw Q32.32.
    dist: Vec<u64>,
    /// Per triangle: the exit edge towards the goal ([`NO_VIA`] for the goal's triangle).
    via: Vec<u8>,
    /// Per triangle: the funnel of its corridor from the goal up to its exit portal.
    cone: Vec<Cone>,
    /// Per triangle: the settle index ([`UNSETTLED`] before).
    rank: Vec<u32>,
    /// Per triangle: its exit portal as a unit leaving by it sees it, shrunk by `r`, and the
    /// triangle after it ([`paths::Exit`]), kept once a plan used it.
    exits: Vec<paths::Exit>,
    settled: u32,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    min_width: Fx,
    /// Per vertex: whether it ends a wall edge (narrow portals' ends); empty without a
    /// choke cost.
    on_wall: Vec<bool>,
    /// Per triangle: the cost already charged for the run of narrow portals its exit
    /// begins (raw Q32.32; 0 when its exit is not one); empty without a choke cost.
    run_cost: Vec<u64>,
    /// The shared paths after the string's corners.
    paths: paths::CornerMemo,
}

impl Field {
    /// A field of `mesh` for `key`, nothing settled yet but the goal's triangle. The goal is
    /// moved to [`NavMesh::nearest_walkable`] when it is not walkable for the radius; with no
    /// walkable point the field is empty (every [`Field::path_from`] answers `None`).
    #[must_use]
    pub fn new(mesh: &NavMesh, key: FieldKey) -> Self {
        let n = mesh.tris.len();
        let r = key.radius.max(Fx::ZERO);
        let mut f = Self {
            key,
            goal: None,
            goal_tri: super::NO_TRIANGLE,
            dist: vec![u64::MAX; n],
            via: vec![NO_VIA; n],
            cone: vec![Cone::at(Vec2::ZERO); n],
            rank: vec![UNSETTLED; n],
            exits: vec![paths::Exit::UNMADE; n],
            settled: 0,
            heap: BinaryHeap::new(),
            min_width: r.saturating_mul_int(2).saturating_add(Fx::from_bits(4)),
            on_wall: if key.choke_cost > Fx::ZERO {
                wall_vertices(mesh)
            } else {
                Vec::new()
            },
            run_cost: if key.choke_cost > Fx::ZERO {
                vec![0; n]
            } else {
                Vec::new()
            },
            paths: paths::CornerMemo::new(n),
        };
        let goal = if mesh.is_walkable(key.goal, r) {
            Some((key.goal, false))
        } else {
            mesh.nearest_walkable(key.goal, r).map(|p| (p, true))
        };
        let Some((g, adjusted)) = goal else {
            return f;
        };
        let Some(t) = mesh.locate(g) else {
            return f;
        };
        f.goal = Some((g, adjusted));
        f.goal_tri = t;
        f.dist[t as usize] = 0;
        f.cone[t as usize] = Cone::at(g);
        f.heap.push(Reverse((0, t)));
        f
    }

    /// The key the field was made for.
    #[must_use]
    pub fn key(&self) -> FieldKey {
        self.key
    }

    /// Triangles settled so far.
    #[must_use]
    pub fn settled(&self) -> u32 {
        self.settled
    }

    /// Grows the field until triangle `tri` is settled: its rank (how many triangles a fresh
    /// field settles before it), or `None` when the field cannot reach it (the whole
    /// reachable part is then settled). Each call's work is the triangles it settles.
    pub fn settle(&mut self, mesh: &NavMesh, tri: u32) -> Option<u32> {
        let i = tri as usize;
        if i >= self.rank.len() {
            return None;
        }
        while self.rank[i] == UNSETTLED {
            let Reverse((d, t)) = self.heap.pop()?;
            let ti = t as usize;
            if self.rank[ti] != UNSETTLED || d > self.dist[ti] {
                continue;
            }
            self.rank[ti] = self.settled;
            self.settled += 1;
            self.relax(mesh, t);
        }
        Some(self.rank[i])
    }

    /// Relaxes the neighbours of the just settled triangle `t`.
    fn relax(&mut self, mesh: &NavMesh, t: u32) {
        let ti = t as usize;
        let tri = &mesh.tris[ti];
        let exit = self.via[ti];
        let r = self.key.radius.max(Fx::ZERO);
        let two_r = r.saturating_mul_int(2);
        for e in 0..3u8 {
            if e == exit || !mesh.open(t, e) {
                continue;
            }
            let n = tri.adj[e as usize];
            let ni = n as usize;
            if self.rank[ni] != UNSETTLED {
                continue;
            }
            // A unit enters `t` by edge `e` and leaves by `t`'s exit.
            if exit != NO_VIA && !mesh.traversal_ok(t, e, exit, self.min_width) {
                continue;
            }
            let (a, b) = mesh.edge(t, e as usize);
            if (b - a).length_squared_wide() < wide_mul(two_r, two_r) {
                continue;
            }
            let Some(k) = mesh.entry_edge(n, tri.v, e) else {
                continue;
            };
            // Going away from the goal across a → b, `b` is on the left; the portal's direction
            // from left to right is the edge's from its end to its start (the mesh's, the same
            // bits as `funnel::shrink` normalising it here).
            let (left, right) = funnel::shrink_along(b, a, r, || mesh.edge_dir_back(t, e as usize));
            let mut cone = self.cone[ti].step(left, right);
            // A narrow portal's cost, once per run of them: the run's greatest (of its
            // narrowest portal), charged as the unit leaves it.
            let after = self.run_cost.get(ti).copied().unwrap_or(0);
            let here = self.portal_cost(mesh, t, e);
            let run = if here > 0 { here.max(after) } else { 0 };
            cone.g = cone.g.saturating_add(here.saturating_sub(after));
            let d = cone
                .g
                .saturating_add(dist_raw_point_segment(right, left, cone.apex));
            if d < self.dist[ni] {
                self.dist[ni] = d;
                self.via[ni] = k;
                self.cone[ni] = cone;
                if !self.run_cost.is_empty() {
                    self.run_cost[ni] = run;
                }
                self.heap.push(Reverse((d, n)));
            }
        }
    }

    /// The cost (raw Q32.32) of crossing edge `e` of `t` for the field's crowd: for an
    /// open edge shorter than `12 r` whose ends are both on walls (a door, a gap between
    /// buildings, a street), [`FieldKey::choke_cost`] times `4 r` over its length (a portal
    /// twice as wide passes twice the files); otherwise 0.
    fn portal_cost(&self, mesh: &NavMesh, t: u32, e: u8) -> u64 {
        if self.on_wall.len() != mesh.verts.len() {
            return 0;
        }
        let r = self.key.radius.max(Fx::ZERO);
        let v = mesh.tris[t as usize].v;
        let (p, q) = (v[e as usize] as usize, v[(e as usize + 1) % 3] as usize);
        if !self.on_wall[p] || !self.on_wall[q] {
            return 0;
        }
        let twelve_r = r.saturating_mul_int(12);
        let len_sq = (mesh.verts[q] - mesh.verts[p]).length_squared_wide();
        if len_sq >= wide_mul(twelve_r, twelve_r) || len_sq <= 0 {
            return 0;
        }
        let len = crate::math::sqrt_wide(len_sq).max(Fx::from_bits(1));
        let cost = self
            .key
            .choke_cost
            .min(MAX_CHOKE_COST)
            .saturating_mul(r.saturating_mul_int(4))
            .saturating_div(len);
        u64::try_from(cost.to_bits()).unwrap_or(0)
    }

    /// Walks the corridor from `start_tri` into `work` (portals, their triangles, shrunk), at
    /// most `window` portals: whether it reached the goal's triangle.
    fn walk_window(
        &mut self,
        mesh: &NavMesh,
        start_tri: u32,
        window: usize,
        work: &mut SearchWork,
    ) -> bool {
        work.portals.clear();
        work.portal_tris.clear();
        work.funnel.shrunk.clear();
        let mut t = start_tri;
        while t != self.goal_tri && work.portals.len() < window.max(1) {
            let exit = self.exit(mesh, t);
            work.portals.push(exit.portal);
            work.portal_tris.push(t);
            work.funnel.shrunk.push(exit.shrunk);
            t = exit.next;
        }
        t == self.goal_tri
    }

    /// A path from `start` to the field's goal for the field's radius. The corridor is taken
    /// from the field and the string pulled through it to its first corner; from there on the
    /// path is the field's, made once per corner and shared by every unit turning there
    /// (`field_paths.rs`). It is the path the funnel pulls and smooths over the whole
    /// corridor, and ends at the goal ([`PathStatus::Complete`], or
    /// [`PathStatus::GoalAdjusted`]).
    ///
    /// Where that path would need the funnel's repair (a portal end closer than `r`), or for a
    /// radius of 0, the unit's corridor of at most `window` portals is pulled on its own: when
    /// it does not reach the goal, the path ends on its last portal (shrunk by `r`), at the
    /// point nearest the start, and the status is [`PathStatus::Partial`]: the unit plans
    /// again from there. A start that is not walkable is moved as [`NavMesh::find_path`]
    /// moves it.
    ///
    /// `None` when the field cannot serve the start (no walkable goal, no walkable start, or a
    /// start the field does not reach): the caller runs [`NavMesh::find_path`]. The
    /// [`expansions`](NavPath::expansions) of the result are the field's rank of the start's
    /// triangle plus one (what a fresh field settles to serve it). The answer is a function of
    /// the mesh, the key and `start` only, whatever the field and its shared paths hold.
    pub fn path_from(
        &mut self,
        mesh: &NavMesh,
        start: Vec2,
        window: usize,
        work: &mut SearchWork,
    ) -> Option<NavPath> {
        let (goal, adjusted) = self.goal?;
        let r = self.key.radius.max(Fx::ZERO);
        let mut points = Vec::new();
        let located = mesh.locate(start);
        let (start, start_tri) = match located {
            Some(t) if mesh.walkable_in(start, r, t) => (start, t),
            _ => {
                let p = mesh.nearest_walkable(start, r)?;
                points.push(p);
                (p, mesh.locate(p)?)
            }
        };
        let rank = self.settle(mesh, start_tri)?;
        let complete = if adjusted {
            PathStatus::GoalAdjusted { to: goal }
        } else {
            PathStatus::Complete
        };
        let (end, status) = match self.plan_shared(mesh, start, start_tri, work, &mut points) {
            paths::Shared::Done => {
                return Some(NavPath {
                    points,
                    status: complete,
                    expansions: rank.saturating_add(1),
                });
            }
            paths::Shared::Straight => (goal, complete),
            paths::Shared::Unshared => {
                if self.walk_window(mesh, start_tri, window, work) {
                    (goal, complete)
                } else {
                    (window_end(mesh, start, r, work)?, PathStatus::Partial)
                }
            }
        };
        funnel::path_shrunk(
            &mesh.verts,
            start,
            &work.portals,
            end,
            r,
            &mut work.funnel,
            &mut points,
        );
        Some(NavPath {
            points,
            status,
            expansions: rank.saturating_add(1),
        })
    }
}

/// Per vertex of `mesh`: whether it ends a wall edge.
fn wall_vertices(mesh: &NavMesh) -> Vec<bool> {
    let mut on_wall = vec![false; mesh.verts.len()];
    for t in &mesh.tris {
        for k in 0..3 {
            if t.wall[k] {
                on_wall[t.v[k] as usize] = true;
                on_wall[t.v[(k + 1) % 3] as usize] = true;
            }
        }
    }
    on_wall
}

/// Where a window's path ends: on its last portal (shrunk), at the point nearest the start,
/// or else the middle, whichever is walkable (tried back from the last portal, dropping the
/// portals past it from `work`): any point of a portal ends a string inside the corridor, and
/// units side by side keep their sides instead of meeting at one point. The portal stays in
/// the corridor, so the funnel keeps `r` from its ends too.
fn window_end(mesh: &NavMesh, start: Vec2, r: Fx, work: &mut SearchWork) -> Option<Vec2> {
    while let (Some(&from), Some(&(l, rt))) = (work.portal_tris.last(), work.funnel.shrunk.last()) {
        let near = nearest_on_segment(l, rt, start);
        let mid = l + (rt - l).half();
        // The points lie on the portal: located from the triangle it leaves.
        let end = [near, mid].into_iter().find(|&q| {
            mesh.locate_from(q, from)
                .is_some_and(|t| mesh.walkable_in(q, r, t))
        });
        if end.is_some() {
            return end;
        }
        work.portals.pop();
        work.portal_tris.pop();
        work.funnel.shrunk.pop();
    }
    None
}

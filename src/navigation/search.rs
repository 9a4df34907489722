//! The path search over the mesh's triangles: TA* (Demyen & Buro 2006) with clearance, then
//! the funnel.
//!
//! States are (triangle, entry edge) pairs with parent links and no closed list; a directed
//! entry is expanded at most [`K_EXPANSIONS`] times. A move through triangle `T` from its entry
//! edge to another edge is allowed when that edge is not a wall, the triangle across is
//! walkable, and `T`'s width pivoting on the two edges' shared vertex is at least
//! `2r + 4 ulp` (the widths are floors, so rounding never opens a gap). Leaving the start
//! triangle needs an edge at least `2r` long.
//!
//! Bounds (all raw Q32.32 in `u64`, distances floored square roots of exact squares):
//! `h = dist(goal, edge)` and `g = max(dist(start, edge), dist(start, goal) − h, g_p + h_p − h)`,
//! Demyen's admissible bounds, `g` raised to the length of the node's funnel ([`Cone`]). Each
//! corridor that reaches the goal's triangle is pulled ([`funnel::pull_shrunk`]) and the
//! shortest is kept.
//!
//! The search is optimistic (Thayer & Ruml 2008) in two phases. Until the first corridor
//! reaches the goal's triangle the heap orders by `(g + 1.02 · h, h, node index)`: weighted A*,
//! which heads for the goal instead of widening every near-tie of `f` over open ground.
//! Then the open list is re-keyed by `f = g + h` and the search goes on in A*'s order until
//! `50 · best ≤ 51 · f_min` (no open corridor can beat the best by more than 2 %: the same
//! bound as plain A* with this stop), on an empty heap, or at the request's cap. Nodes are
//! created in the mesh's rotation order from the located start and every key ends in the node
//! index, so the result is canonical.
//!
//! Start and goal handling, unreachable goals and capped searches follow plan §2.5: see
//! [`NavMesh::find_path`].

use super::funnel::{self, Cone, FunnelWork, Portal, dist_raw};
use super::{NO_TRIANGLE, NavMesh, NavPath, PathRequest, PathStatus};
use crate::geom::ratio;
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How often one directed entry (triangle, entry edge) may be expanded (plan §2.1, K).
const K_EXPANSIONS: u8 = 2;

/// The first phase orders the open list by `g + w · h` with `w = 1 + 1 / GREEDY_DIVISOR`
/// (1.02): progress towards the goal breaks the near-ties of `f`, so the first corridor to the
/// goal's triangle comes early. Measured on `bench navigation`'s 1,000 distinct goals: 92,731
/// expansions with A*'s order, 56,897 with this (1.2 and 2 gave 65,658 and 77,738: a greedier
/// first corridor leaves more to the second phase).
const GREEDY_DIVISOR: u64 = 50;

/// Most points of a path: `orders::MAX_PATH_POINTS` (1,025) less the start (the navigation
/// layer may not import `orders`).
pub(crate) const MAX_PATH_POINTS: usize = 1_024;

/// How many explored portals are tried as the end of an unreachable or capped path before
/// one gives an end ([`NavMesh::fallback_end`]).
const FALLBACK_TRIES: usize = 8;

/// How many explored portals are tried in all for that end (the branch and bound's bound on
/// its work: each try is one [`NavMesh::portal_end`], up to `3 · END_STEPS` walkability tests).
const FALLBACK_MAX_TRIES: usize = 32;

/// How many explored nodes (the least by `h`, then portal, then index) the end of an
/// unreachable or capped path is chosen from: a portal is entered by at most 10 nodes (each
/// way, one per expansion of the triangle before it, [`K_EXPANSIONS`] through each of its two
/// other edges, and one from the start), so these hold at least [`FALLBACK_MAX_TRIES`]
/// portals, and only they are sorted (an exhaustive search on a large map explores tens of
/// thousands).
const FALLBACK_NODES: usize = 10 * FALLBACK_MAX_TRIES;

/// Halvings of the bisection for a walkable end beside a portal's point nearest the goal
/// ([`NavMesh::portal_end`]), each one walkability test: the point found is within 2⁻²⁴ of
/// the distance to the portal's end from the first walkable point that way.
const END_STEPS: usize = 24;

/// No parent: the node leaves the start triangle.
const ROOT: u32 = u32::MAX;

/// A search node: the triangle entered, the edge (of that triangle) it was entered by, the
/// parent node and the bounds.
#[derive(Clone, Copy, Debug)]
struct Node {
    tri: u32,
    entry: u8,
    parent: u32,
    g: u64,
    h: u64,
    /// The string's funnel up to the entry edge (the `g` bound's source).
    cone: Cone,
    /// The crossing of the entry edge (`3 · parent triangle + exit edge`), whose shrunk portal
    /// the corridor's funnel reuses.
    crossing: u32,
}

/// What a search needs of one edge crossing: `h` (the goal's distance to the edge) and the
/// shrunk portal (left and right ends in the direction of travel).
#[derive(Clone, Copy, Debug, Default)]
struct Crossing {
    h: u64,
    left: Vec2,
    right: Vec2,
}

/// Scratch buffers of the search, reused between searches (workspace, never state): the node
/// arena, the heap, the generation-stamped expansion counters and the funnel's buffers. After
/// the first searches on a mesh a search allocates only its result.
#[derive(Clone, Debug, Default)]
pub struct SearchWork {
    nodes: Vec<Node>,
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// Per directed entry `3 · tri + edge`: the generation that last counted it.
    stamp: Vec<u32>,
    /// Per directed entry: expansions in the generation of `stamp`.
    count: Vec<u8>,
    generation: u32,
    /// Per directed edge crossing `3 · tri + edge`: the generation its [`Crossing`] was
    /// computed in (each search computes a crossing once, however many nodes make it).
    crossing_stamp: Vec<u32>,
    crossings: Vec<Crossing>,
    /// Per mesh vertex: the generation its distance to the goal was computed in, and that
    /// distance (an `h` whose nearest point is a portal's end is its vertex's distance).
    vert_stamp: Vec<u32>,
    vert_dist: Vec<u64>,
    pub(super) portals: Vec<Portal>,
    /// Per portal of a field's corridor: the triangle it leaves (a hint to locate a point on
    /// the portal).
    pub(super) portal_tris: Vec<u32>,
    pub(super) funnel: FunnelWork,
    /// The node whose corridor was pulled last ([`ROOT`]: none this search): its portals are in
    /// `portals` and `funnel.shrunk`, its corners in `funnel.corners`.
    pulled: u32,
    /// The explored portals an unreachable or capped path's end is chosen from
    /// ([`NavMesh::fallback_end`]): `(h, portal key, node)`.
    fallback: Vec<(u64, u64, u32)>,
}

impl SearchWork {
    /// Starts a search on a mesh of `tris` triangles and `verts` vertices.
    fn reset(&mut self, tris: usize, verts: usize) {
        self.nodes.clear();
        self.heap.clear();
        self.pulled = ROOT;
        if self.stamp.len() < 3 * tris {
            self.stamp.resize(3 * tris, 0);
            self.count.resize(3 * tris, 0);
            self.crossing_stamp.resize(3 * tris, 0);
            self.crossings.resize(3 * tris, Crossing::default());
        }
        if self.vert_stamp.len() < verts {
            self.vert_stamp.resize(verts, 0);
            self.vert_dist.resize(verts, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.crossing_stamp.fill(0);
            self.vert_stamp.fill(0);
            self.generation = 1;
        }
    }

    /// `dist_raw(verts[v], goal)`, computed once per search and vertex.
    #[inline(always)]
    fn goal_dist(&mut self, v: u32, at: Vec2, goal: Vec2) -> u64 {
        let i = v as usize;
        if self.vert_stamp[i] != self.generation {
            self.vert_stamp[i] = self.generation;
            self.vert_dist[i] = sqrt_raw((goal - at).length_squared_wide());
        }
        self.vert_dist[i]
    }

    /// `h` of the edge from vertex `ia` (at `a`) to `ib` (at `b`):
    /// [`dist_raw_point_segment`]`(a, b, goal)`, an end's distance taken from the vertex cache.
    #[inline]
    fn goal_dist_to_edge(&mut self, (ia, a): (u32, Vec2), (ib, b): (u32, Vec2), goal: Vec2) -> u64 {
        let e = b - a;
        let s_num = (goal - a).dot_wide(e);
        if s_num <= 0 {
            self.goal_dist(ia, a, goal)
        } else if s_num >= e.length_squared_wide() {
            self.goal_dist(ib, b, goal)
        } else {
            dist_raw_point_segment(a, b, goal)
        }
    }

    /// Re-keys the open list by `f = g + h`: the end of the first (weighted) phase.
    fn reorder_by_f(&mut self) {
        let mut open = std::mem::take(&mut self.heap).into_vec();
        for Reverse(e) in &mut open {
            let n = &self.nodes[e.2 as usize];
            e.0 = n.g.saturating_add(n.h);
        }
        self.heap = BinaryHeap::from(open);
    }

    /// Counts one expansion of a directed entry; `false` when it already had its K.
    fn admit(&mut self, tri: u32, entry: u8) -> bool {
        let i = 3 * tri as usize + entry as usize;
        if self.stamp[i] != self.generation {
            self.stamp[i] = self.generation;
            self.count[i] = 0;
        }
        if self.count[i] >= K_EXPANSIONS {
            return false;
        }
        self.count[i] += 1;
        true
    }

    /// Writes the corridor from the start triangle to `node` (its portals, in travel order) to
    /// `self.portals`, and their shrunk ends (kept by the crossings) to the funnel's buffer;
    /// with `include_last == false` the node's own entry is left out.
    fn corridor(&mut self, mesh: &NavMesh, node: u32, include_last: bool) {
        self.portals.clear();
        self.funnel.shrunk.clear();
        let mut at = node;
        let mut first = true;
        while at != ROOT {
            let n = self.nodes[at as usize];
            if include_last || !first {
                let v = mesh.tris[n.tri as usize].v;
                let k = n.entry as usize;
                self.portals.push(Portal {
                    left: v[k],
                    right: v[(k + 1) % 3],
                });
                let c = self.crossings[n.crossing as usize];
                self.funnel.shrunk.push((c.left, c.right));
            }
            first = false;
            at = n.parent;
        }
        self.portals.reverse();
        self.funnel.shrunk.reverse();
    }
}

/// The outcome of the triangle search.
enum Found {
    /// A corridor to the goal's triangle: the node that enters it.
    Goal(u32),
    /// No corridor (or the cap was hit first): the explored states are in the arena.
    None { capped: bool },
}

/// The fixed inputs of one search.
struct Query {
    start: Vec2,
    goal: Vec2,
    radius: Fx,
    /// `2r + 4 ulp`: the least width a traversal needs.
    min_width: Fx,
    start_tri: u32,
    goal_tri: u32,
    start_goal: u64,
    cap: u32,
}

impl NavMesh {
    /// Plans a path for `req`: the shortest corridor of triangles a disc of radius
    /// `req.radius` fits through (TA*, stopping once no open corridor can beat the best one
    /// found by more than 2 %), pulled taut and pushed out to keep `radius` from every corner
    /// it bends around. A goal in plain sight (no wall closer than the radius to the segment,
    /// exact) is reached straight.
    ///
    /// - A start that is not walkable for the radius is moved to
    ///   [`nearest_walkable`](Self::nearest_walkable), and that point is the path's first; with
    ///   none, the status is [`PathStatus::NoStart`] and the path is empty.
    /// - A goal that is not walkable is replaced the same way: [`PathStatus::GoalAdjusted`].
    /// - A goal that cannot be reached (an island, a gap narrower than `2r`): the path ends at
    ///   a walkable point of the explored corridors nearest to the goal,
    ///   [`PathStatus::Unreachable`].
    /// - The cap hit before any corridor reached the goal: the path leads along the most
    ///   promising corridor, to the entry portal of the node the search would have expanded
    ///   next (its walkable point nearest the goal, else its middle; failing both, as an
    ///   unreachable goal's path ends), [`PathStatus::Partial`]; also when the path has more
    ///   than 1,024 points (it is cut there).
    ///
    /// A negative radius counts as zero. A cap of zero plans nothing ([`PathStatus::Partial`],
    /// no points). When the cap is hit after a corridor reached the goal, that corridor's path
    /// is returned as complete. Never panics; the work is bounded by `req.cap` expansions (each
    /// a constant amount of work plus one funnel when a corridor reaches the goal's triangle).
    #[must_use]
    pub fn find_path(&self, req: &PathRequest, work: &mut SearchWork) -> NavPath {
        let r = req.radius.max(Fx::ZERO);
        let mut points = Vec::new();
        if req.cap == 0 {
            return finish(points, PathStatus::Partial, 0);
        }
        let start = match self.locate(req.start) {
            Some(t) if self.walkable_in(req.start, r, t) => Some((req.start, Some(t))),
            _ => self.nearest_walkable(req.start, r).map(|p| {
                points.push(p);
                (p, self.locate(p))
            }),
        };
        let Some((start, start_tri)) = start else {
            return NavPath {
                points,
                status: PathStatus::NoStart,
                expansions: 0,
            };
        };
        let goal = match self.locate(req.goal) {
            Some(t) if self.walkable_in(req.goal, r, t) => Some((req.goal, false, Some(t))),
            _ => self
                .nearest_walkable(req.goal, r)
                .map(|p| (p, true, self.locate(p))),
        };
        let Some((goal, adjusted, goal_tri)) = goal else {
            // No walkable point anywhere near the goal: stay.
            return finish(points, PathStatus::Unreachable { to: start }, 0);
        };
        let complete = if adjusted {
            PathStatus::GoalAdjusted { to: goal }
        } else {
            PathStatus::Complete
        };
        let (Some(start_tri), Some(goal_tri)) = (start_tri, goal_tri) else {
            return finish(points, PathStatus::Unreachable { to: start }, 0);
        };
        // In one triangle, or in plain sight: straight there.
        if start_tri == goal_tri || self.in_plain_sight_from(start, start_tri, goal, r) {
            points.push(goal);
            return finish(points, complete, 1);
        }
        let q = Query {
            start,
            goal,
            radius: r,
            min_width: r.saturating_mul_int(2).saturating_add(Fx::from_bits(4)),
            start_tri,
            goal_tri,
            start_goal: dist_raw(start, goal),
            cap: req.cap,
        };
        let (found, expansions) = self.search(&q, work);
        match found {
            Found::Goal(node) => {
                if work.pulled == node {
                    // The search pulled this corridor last: its corners are in the funnel.
                    funnel::path_pulled(
                        &self.verts,
                        q.start,
                        &work.portals,
                        goal,
                        q.radius,
                        &mut work.funnel,
                        &mut points,
                    );
                } else {
                    work.corridor(self, node, true);
                    self.pull_into(&q, goal, work, &mut points);
                }
                finish(points, complete, expansions)
            }
            Found::None { capped } => {
                let ahead = if capped {
                    self.capped_end(&q, work)
                } else {
                    None
                };
                let (node, to) = ahead.unwrap_or_else(|| self.fallback_end(&q, work));
                if node != ROOT {
                    work.corridor(self, node, false);
                    self.pull_into(&q, to, work, &mut points);
                }
                let status = if capped {
                    PathStatus::Partial
                } else {
                    PathStatus::Unreachable { to }
                };
                finish(points, status, expansions)
            }
        }
    }

    /// Pulls `work.portals` from the query's start to `end` and appends the smoothed points.
    fn pull_into(&self, q: &Query, end: Vec2, work: &mut SearchWork, out: &mut Vec<Vec2>) {
        funnel::path_shrunk(
            &self.verts,
            q.start,
            &work.portals,
            end,
            q.radius,
            &mut work.funnel,
            out,
        );
    }

    /// TA*: returns the best corridor's last node (or none) and the expansions spent.
    fn search(&self, q: &Query, w: &mut SearchWork) -> (Found, u32) {
        w.reset(self.tris.len(), self.verts.len());
        let mut best: Option<(u64, u32)> = None;
        let mut expansions = 1u32;
        let root = Node {
            tri: q.start_tri,
            entry: 0,
            parent: ROOT,
            g: 0,
            h: q.start_goal,
            cone: Cone::at(q.start),
            crossing: 0,
        };
        // The first phase (weighted) lasts until a corridor reaches the goal's triangle.
        let mut greedy = true;
        for e in 0..3u8 {
            if self.exit_allowed_from_start(q, e) {
                self.push_child(q, w, &root, ROOT, e, &mut best);
            }
        }
        let mut capped = false;
        loop {
            if greedy && best.is_some() {
                greedy = false;
                w.reorder_by_f();
            }
            let Some(&Reverse((key, _, idx))) = w.heap.peek() else {
                break;
            };
            if !greedy
                && let Some((b, _)) = best
                && within_bound(b, key)
            {
                break;
            }
            if expansions >= q.cap {
                capped = true;
                break;
            }
            w.heap.pop();
            let node = w.nodes[idx as usize];
            if !w.admit(node.tri, node.entry) {
                continue;
            }
            expansions += 1;
            for step in 1..3u8 {
                let e_out = (node.entry + step) % 3;
                if self.traversal_allowed(q, node.tri, node.entry, e_out) {
                    self.push_child(q, w, &node, idx, e_out, &mut best);
                }
            }
        }
        let found = match best {
            Some((_, node)) => Found::Goal(node),
            None => Found::None { capped },
        };
        (found, expansions)
    }

    /// Whether the search may leave the start triangle through its edge `e`: an open edge to
    /// a walkable triangle, at least `2r` long.
    fn exit_allowed_from_start(&self, q: &Query, e: u8) -> bool {
        if !self.open(q.start_tri, e) {
            return false;
        }
        let (a, b) = self.edge(q.start_tri, e as usize);
        let two_r = q.radius.saturating_mul_int(2);
        (b - a).length_squared_wide() >= wide_mul(two_r, two_r)
    }

    /// Whether edge `e` of `tri` leads to a walkable triangle (not a wall, not the hull).
    pub(super) fn open(&self, tri: u32, e: u8) -> bool {
        let t = &self.tris[tri as usize];
        let k = e as usize;
        !t.wall[k]
            && t.adj[k] != NO_TRIANGLE
            && self.tris.get(t.adj[k] as usize).is_some_and(|n| n.walkable)
    }

    /// Whether a disc of the query's radius crosses `tri` from edge `e_in` to edge `e_out`.
    fn traversal_allowed(&self, q: &Query, tri: u32, e_in: u8, e_out: u8) -> bool {
        self.open(tri, e_out) && self.traversal_ok(tri, e_in, e_out, q.min_width)
    }

    /// Whether `tri` is at least `min_width` wide between its edges `e_in` and `e_out`.
    pub(super) fn traversal_ok(&self, tri: u32, e_in: u8, e_out: u8, min_width: Fx) -> bool {
        // Edges k − 1 and k meet at vertex k, whose traversal width is `width[k]`.
        let pivot = if e_out == (e_in + 1) % 3 { e_out } else { e_in };
        self.tris[tri as usize].width[pivot as usize] >= min_width
    }

    /// Creates the node crossing edge `e_out` of `parent`'s triangle: funnels it when it enters
    /// the goal's triangle (updating `best`), otherwise pushes it on the heap unless it cannot
    /// beat `best`: keyed by `g + 1.02 · h` while no corridor is found, by `f` after.
    fn push_child(
        &self,
        q: &Query,
        w: &mut SearchWork,
        parent: &Node,
        parent_idx: u32,
        e_out: u8,
        best: &mut Option<(u64, u32)>,
    ) {
        let t = &self.tris[parent.tri as usize];
        let next = t.adj[e_out as usize];
        let Some(entry) = self.entry_edge(next, t.v, e_out) else {
            return;
        };
        let key = 3 * parent.tri as usize + e_out as usize;
        let Crossing {
            h,
            left: pl,
            right: pr,
        } = if w.crossing_stamp[key] == w.generation {
            w.crossings[key]
        } else {
            let k = e_out as usize;
            let (ia, ib) = (t.v[k], t.v[(k + 1) % 3]);
            let (a, b) = (self.verts[ia as usize], self.verts[ib as usize]);
            // Travelling across edge a → b of the parent, `b` is on the left.
            let (left, right) = funnel::shrink_along(b, a, q.radius, || {
                self.edge_dir_back(parent.tri, e_out as usize)
            });
            let c = Crossing {
                h: w.goal_dist_to_edge((ia, a), (ib, b), q.goal),
                left,
                right,
            };
            w.crossings[key] = c;
            w.crossing_stamp[key] = w.generation;
            c
        };
        let cone = parent.cone.step(pl, pr);
        // `g = max(through, other)` with `through = cone.g + dist(apex, portal)`; the distance
        // is rooted only when it can exceed `other − cone.g` (usually Demyen's bounds win).
        let other = q
            .start_goal
            .saturating_sub(h)
            .max(parent.g.saturating_add(parent.h).saturating_sub(h));
        let g = match other.checked_sub(cone.g) {
            Some(room) => match dist_raw_point_segment_above(pr, pl, cone.apex, room) {
                Some(d) => cone.g.saturating_add(d).max(other),
                None => other,
            },
            None => cone
                .g
                .saturating_add(dist_raw_point_segment(pr, pl, cone.apex))
                .max(other),
        };
        let f = g.saturating_add(h);
        if let Some((b_len, _)) = *best
            && within_bound(b_len, f)
        {
            return;
        }
        let Ok(idx) = u32::try_from(w.nodes.len()) else {
            return;
        };
        w.nodes.push(Node {
            tri: next,
            entry,
            parent: parent_idx,
            g,
            h,
            cone,
            crossing: key as u32,
        });
        if next == q.goal_tri {
            w.corridor(self, idx, true);
            let len = funnel::pull_shrunk(q.start, &w.portals, q.goal, &mut w.funnel);
            w.pulled = idx;
            if best.is_none_or(|(b_len, _)| len < b_len) {
                *best = Some((len, idx));
            }
        } else {
            // Weighted until a corridor is found (the open list is re-keyed by `f` then, so
            // a sibling pushed after that corridor may take either key).
            let key = if best.is_none() { greedy_key(g, h) } else { f };
            w.heap.push(Reverse((key, h, idx)));
        }
    }

    /// The index, in triangle `next`, of the edge it shares with edge `e` of a triangle with
    /// vertices `v` (the same two vertices, reversed).
    pub(super) fn entry_edge(&self, next: u32, v: [u32; 3], e: u8) -> Option<u8> {
        let n = self.tris.get(next as usize)?;
        let (a, b) = (v[e as usize], v[(e as usize + 1) % 3]);
        (0..3u8).find(|&k| n.v[k as usize] == b && n.v[(k as usize + 1) % 3] == a)
    }

    /// Where a capped path ends first: the node the search would have expanded next (the
    /// heap's top: the most promising corridor), on its entry portal (shrunk by the radius)
    /// at the point nearest the goal, else the middle, whichever is walkable. (A way point:
    /// the unit replans before it gets there. Not [`portal_end`](Self::portal_end)'s point
    /// beside the wall, which slowed the crowds of the navigation sweep's door scenes.)
    fn capped_end(&self, q: &Query, w: &SearchWork) -> Option<(u32, Vec2)> {
        let &Reverse((_, _, idx)) = w.heap.peek()?;
        let n = &w.nodes[idx as usize];
        let (a, b) = {
            let (a, b) = self.edge(n.tri, n.entry as usize);
            funnel::shrink(a, b, q.radius)
        };
        let near = nearest_on_segment(a, b, q.goal);
        let mid = a + (b - a).half();
        [near, mid]
            .into_iter()
            .find(|&p| self.is_walkable_from(p, q.radius, n.tri))
            .map(|p| (idx, p))
    }

    /// The walkable end of an unreachable goal's path on node `n`'s entry portal (shrunk by
    /// the radius): its point nearest the goal when walkable; else, towards each of the
    /// portal's ends and its middle that is walkable, the first walkable point that way
    /// (bisected to [`END_STEPS`] halvings), moved a diameter on when that is walkable and
    /// costs at most a radius of distance to the goal, the one nearest the goal (ties: the
    /// first of ends, then middle); `None` when none is walkable.
    ///
    /// (The point nearest the goal often lies within the radius of the wall the portal leads
    /// along; the middle of a long portal may then be far from the goal, farther than the
    /// start: a unit sent to an unreachable goal walked away from it.)
    fn portal_end(&self, q: &Query, n: &Node) -> Option<Vec2> {
        // The portal the same way round whichever side it was entered from, so that its end
        // is the same.
        let (ia, ib) = self.portal_corners(n);
        let (a, b) = (self.verts[ia as usize], self.verts[ib as usize]);
        let (a, b) = funnel::shrink(a, b, q.radius);
        let walkable = |p: Vec2| self.is_walkable_from(p, q.radius, n.tri);
        let near = nearest_on_segment(a, b, q.goal);
        if walkable(near) {
            return Some(near);
        }
        let towards = |end: Vec2| {
            if end == near || !walkable(end) {
                return None;
            }
            // `lo` is not walkable, `hi` is.
            let (mut lo, mut hi) = (near, end);
            for _ in 0..END_STEPS {
                let mid = lo + (hi - lo).half();
                if mid == lo || mid == hi {
                    break;
                }
                if walkable(mid) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            // A diameter on, clear of the wall's corner (where the way to the goal leads,
            // a door's mouth: a unit resting tight against it plugged the door).
            let along = end - hi;
            let len = along.length();
            let step = q.radius.saturating_mul_int(2);
            if len > step {
                let on = hi + along * (step / len);
                // Only where that costs at most a radius of distance to the goal (along a
                // long portal leading away from it, the wall's corner is the place).
                let (d_on, d_hi) = ((on - q.goal).length(), (hi - q.goal).length());
                if d_on <= d_hi.saturating_add(q.radius) && walkable(on) {
                    return Some(on);
                }
            }
            Some(hi)
        };
        let dist = |p: Vec2| (p - q.goal).length_squared_wide();
        let mid = a + (b - a).half();
        // The first found wins a tie: towards `a`, `b`, then the middle.
        [a, b, mid]
            .into_iter()
            .filter_map(towards)
            .fold(None, |best: Option<Vec2>, p| match best {
                Some(o) if dist(o) <= dist(p) => Some(o),
                _ => Some(p),
            })
    }

    /// Where an unreachable or capped path ends: of the explored entry portals nearer the goal
    /// than the start, the [`portal_end`](Self::portal_end) nearest the goal (ties: the least
    /// `h`, then the portal's vertex pair), found by branch and bound: portals in the order of
    /// `h` (the goal's distance to the portal, a bound on its end's up to rounding), each
    /// portal once whichever way it was crossed, until `h` reaches the best end's distance,
    /// [`FALLBACK_TRIES`] portals gave none or [`FALLBACK_MAX_TRIES`] were tried (of the
    /// [`FALLBACK_NODES`] least nodes); the start itself stays the end when none is found
    /// (node [`ROOT`]).
    ///
    /// The end depends only on the mesh, the query and the explored portals nearer the goal
    /// than the start, never on the order the search met them in: starts that explore the
    /// same portals, all farther from the goal than them, get one end; a unit nearer the goal
    /// than every such portal stays where it is. (Before, the first of several portals at the
    /// same distance won, so units sent together from different starts rested at different
    /// points and one could neither reach its end nor settle with the others: sweep seed
    /// 1009.)
    fn fallback_end(&self, q: &Query, w: &mut SearchWork) -> (u32, Vec2) {
        let mut portals = std::mem::take(&mut w.fallback);
        portals.clear();
        portals.extend(
            w.nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.h < q.start_goal)
                .map(|(i, n)| (n.h, self.portal_key(n), i as u32)),
        );
        // The least `FALLBACK_NODES` (a total order: the node index is unique), then sorted.
        if portals.len() > FALLBACK_NODES {
            portals.select_nth_unstable(FALLBACK_NODES);
            portals.truncate(FALLBACK_NODES);
        }
        portals.sort_unstable();
        portals.dedup_by_key(|&mut (_, key, _)| key);
        let mut best: Option<(i128, u32, Vec2)> = None;
        for (tries, &(h, _, idx)) in portals.iter().enumerate() {
            let h_sq = i128::from(h).saturating_mul(i128::from(h));
            if best.is_some_and(|(d, _, _)| h_sq >= d)
                || (best.is_none() && tries >= FALLBACK_TRIES)
                || tries >= FALLBACK_MAX_TRIES
            {
                break;
            }
            if let Some(p) = self.portal_end(q, &w.nodes[idx as usize]) {
                let d = (p - q.goal).length_squared_wide();
                if best.is_none_or(|(b, _, _)| d < b) {
                    best = Some((d, idx, p));
                }
            }
        }
        w.fallback = portals;
        best.map_or((ROOT, q.start), |(_, idx, p)| (idx, p))
    }

    /// Node `n`'s entry portal as its two vertex indices, the lesser first: the same whichever
    /// way the portal is crossed.
    fn portal_corners(&self, n: &Node) -> (u32, u32) {
        let v = self.tris[n.tri as usize].v;
        let (a, b) = (v[n.entry as usize], v[(n.entry as usize + 1) % 3]);
        (a.min(b), a.max(b))
    }

    /// A portal's key, the same whichever way it is crossed: its
    /// [`portal_corners`](Self::portal_corners) in one number.
    fn portal_key(&self, n: &Node) -> u64 {
        let (a, b) = self.portal_corners(n);
        (u64::from(a) << 32) | u64::from(b)
    }
}

/// The heap key of the first phase: `g + h + h / GREEDY_DIVISOR` (weighted A*, `w = 1.02`).
#[inline]
fn greedy_key(g: u64, h: u64) -> u64 {
    g.saturating_add(h).saturating_add(h / GREEDY_DIVISOR)
}

/// Whether a corridor of length `best` is within 2 % of every corridor with bound `f`:
/// `50 · best ≤ 51 · f`.
#[inline]
fn within_bound(best: u64, f: u64) -> bool {
    50 * u128::from(best) <= 51 * u128::from(f)
}

/// The floored square root of a raw Q64.64 square, as raw Q32.32 bits.
#[inline]
pub(super) fn sqrt_raw(sq: i128) -> u64 {
    sqrt_wide(sq).to_bits().unsigned_abs()
}

/// The distance from `q` to the closed segment `a b`, floored, as raw Q32.32 bits:
/// `sqrt_raw(dist_sq_point_segment(a, b, q))` bit for bit (its plain form, compared in the
/// tests), without squaring the perpendicular distance only to take its root again.
#[inline]
pub(super) fn dist_raw_point_segment(a: Vec2, b: Vec2, q: Vec2) -> u64 {
    let e = b - a;
    let d = q - a;
    let s_num = d.dot_wide(e);
    if s_num <= 0 {
        return sqrt_raw(d.length_squared_wide());
    }
    if s_num >= e.length_squared_wide() {
        return sqrt_raw((q - b).length_squared_wide());
    }
    // `dist_sq_point_segment` squares this (non-negative) quotient; the floored root of an
    // exact square is the quotient itself.
    let num = e.det_wide(d).abs();
    let len = e.length().to_bits();
    if num < 1 << 94 && len > 0 {
        // `ratio(num, wide(len))` divides `num · 2³²` by `len · 2³²` when `num` needs no
        // normalising shift (below 2⁹⁴): the same floored quotient as `num / len`, a division
        // by a 64-bit divisor (one machine division where the quotient fits 64 bits).
        let q = num.unsigned_abs() / u128::from(len.unsigned_abs());
        return u64::try_from(q)
            .map_or(i64::MAX.unsigned_abs(), |q| q.min(i64::MAX.unsigned_abs()));
    }
    ratio(num, crate::geom::wide(e.length()))
        .to_bits()
        .unsigned_abs()
}

/// [`dist_raw_point_segment`]`(a, b, q)` when it exceeds `m`, `None` when it is at most `m`:
/// near an end the floored root is compared by its square (`⌊√s⌋ ≤ m ⇔ s < (m + 1)²`), so
/// no root is taken unless the distance is needed.
#[inline]
pub(super) fn dist_raw_point_segment_above(a: Vec2, b: Vec2, q: Vec2, m: u64) -> Option<u64> {
    let e = b - a;
    let d = q - a;
    let s_num = d.dot_wide(e);
    let sq = if s_num <= 0 {
        d.length_squared_wide()
    } else if s_num >= e.length_squared_wide() {
        (q - b).length_squared_wide()
    } else {
        // Beside the segment: the quotient, as `dist_raw_point_segment` computes it.
        return Some(dist_raw_point_segment(a, b, q)).filter(|&x| x > m);
    };
    // Below 2¹²⁶ the root is below 2⁶³ (no wrap in `sqrt_raw`); `m ≥ 2⁶³` then bounds it.
    if (0..1 << 126).contains(&sq) {
        if m >= 1 << 63 {
            return None;
        }
        let m1 = u128::from(m + 1);
        return if sq.unsigned_abs() < m1 * m1 {
            None
        } else {
            Some(sqrt_raw(sq))
        };
    }
    Some(sqrt_raw(sq)).filter(|&x| x > m)
}

/// The point of segment `a b` nearest `p`.
pub(super) fn nearest_on_segment(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let e = b - a;
    let len_sq = e.length_squared_wide();
    let s = (p - a).dot_wide(e);
    if len_sq <= 0 || s <= 0 {
        return a;
    }
    if s >= len_sq {
        return b;
    }
    a + e * ratio(s, len_sq)
}

/// The result: `points` cut at [`MAX_PATH_POINTS`] (then [`PathStatus::Partial`]).
fn finish(mut points: Vec<Vec2>, status: PathStatus, expansions: u32) -> NavPath {
    let status = if points.len() > MAX_PATH_POINTS {
        points.truncate(MAX_PATH_POINTS);
        PathStatus::Partial
    } else {
        status
    };
    NavPath {
        points,
        status,
        expansions,
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;

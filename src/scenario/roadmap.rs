//! The roadmap policy's visibility graph (RVO2's Roadmap example, in fixed point).
//!
//! # Graph
//! Vertices: the scene's distinct goals (scenario agents, then agents added by events, then
//! goals given by `set_goal` events, each in order of first appearance), followed by the
//! policy's roadmap vertices in file order. There is a directed edge `i → j` (`i ≠ j`) when
//! [`ObstacleSet::query_visibility`]`(v_i, v_j, radius)` holds, `radius` being the scenario's
//! default agent radius; its length is `|v_j - v_i|` ([`Vec2::length`], the floor of the exact
//! root).
//!
//! # Distances
//! For every goal vertex `g`, Dijkstra from `g` over the edges as listed (`u → w` relaxes
//! `dist(w) = dist(u) + |u w|`, strict `<`), taking the unfinished vertex of smallest finite
//! distance, lowest index on ties. `dist(v, g)` is that distance, or "unreachable". Sums
//! saturate at [`Fx::MAX`] (no wrap; unreachable in practice inside the domain).
//!
//! # Target
//! Each tick, an agent at `p` with radius `r` heading for goal vertex `g` scans the vertices in
//! index order with visibility radius `r`, then `r / 2`, then 0, stopping at the first radius that
//! finds any visible vertex: `cost(v) = |v - p| + dist(v, g)` (unreachable counts as +∞); a
//! vertex replaces the best so far when no best exists yet or its cost is strictly smaller, and
//! it is visible (visibility is only queried for candidates that would win). If nothing is
//! visible even with radius 0, the agent has no target and its preferred velocity is zero (no
//! perturbation either). Every distance is a fixed-point floor of the exact root, never a
//! float.

use crate::math::{Fx, Vec2};
use crate::obstacle::ObstacleSet;
use std::collections::BTreeMap;

/// The roadmap: vertices (goals first) and the shortest distance from every vertex to every
/// goal vertex. Built once by [`Scenario::build`](super::Scenario::build).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoadmapGraph {
    vertices: Vec<Vec2>,
    goal_index: BTreeMap<(i64, i64), usize>,
    /// `dist[g][v]`: shortest distance from vertex `v` to goal vertex `g`; `None` unreachable.
    dist: Vec<Vec<Option<Fx>>>,
}

/// `a < b` where `None` is +∞.
fn less(a: Option<Fx>, b: Option<Fx>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x < y,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

impl RoadmapGraph {
    /// Builds the graph over `goals` (duplicates are merged; first appearance fixes the order)
    /// followed by `roadmap`, with visibility radius `radius`.
    #[must_use]
    pub fn build(obstacles: &ObstacleSet, goals: &[Vec2], roadmap: &[Vec2], radius: Fx) -> Self {
        let mut vertices = Vec::new();
        let mut goal_index = BTreeMap::new();
        for &g in goals {
            goal_index
                .entry((g.x.to_bits(), g.y.to_bits()))
                .or_insert_with(|| {
                    vertices.push(g);
                    vertices.len() - 1
                });
        }
        let goal_count = vertices.len();
        vertices.extend_from_slice(roadmap);
        let n = vertices.len();
        let mut adj: Vec<Vec<(usize, Fx)>> = vec![Vec::new(); n];
        for (i, edges) in adj.iter_mut().enumerate() {
            for j in 0..n {
                if i != j && obstacles.query_visibility(vertices[i], vertices[j], radius) {
                    edges.push((j, (vertices[j] - vertices[i]).length()));
                }
            }
        }
        let dist = (0..goal_count)
            .map(|g| {
                let mut dist: Vec<Option<Fx>> = vec![None; n];
                let mut done = vec![false; n];
                dist[g] = Some(Fx::ZERO);
                for _ in 0..n {
                    // Unfinished vertex of smallest finite distance, lowest index on ties.
                    let mut next: Option<(Fx, usize)> = None;
                    for u in 0..n {
                        if let (false, Some(d)) = (done[u], dist[u])
                            && next.is_none_or(|(b, _)| d < b)
                        {
                            next = Some((d, u));
                        }
                    }
                    let Some((du, u)) = next else { break };
                    done[u] = true;
                    for &(w, c) in &adj[u] {
                        let via = Some(du.saturating_add(c));
                        if less(via, dist[w]) {
                            dist[w] = via;
                        }
                    }
                }
                dist
            })
            .collect();
        Self {
            vertices,
            goal_index,
            dist,
        }
    }

    /// All vertices, goals first.
    #[must_use]
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// The vertex index of a goal given to [`build`](Self::build).
    #[must_use]
    pub fn goal_vertex(&self, goal: Vec2) -> Option<usize> {
        self.goal_index
            .get(&(goal.x.to_bits(), goal.y.to_bits()))
            .copied()
    }

    /// Shortest distance from vertex `v` to goal vertex `g` (`None`: unreachable or out of
    /// range).
    #[must_use]
    pub fn distance(&self, v: usize, g: usize) -> Option<Fx> {
        self.dist.get(g).and_then(|d| d.get(v).copied().flatten())
    }

    /// The vertex an agent at `position` with `radius` heading for goal vertex `goal` steers
    /// to (see the [module docs](self)), or `None` when none is visible even with radius 0.
    #[must_use]
    pub fn target(
        &self,
        obstacles: &ObstacleSet,
        position: Vec2,
        radius: Fx,
        goal: usize,
    ) -> Option<Vec2> {
        let dist = self.dist.get(goal)?;
        for r in [radius, radius / Fx::from_num(2), Fx::ZERO] {
            let mut best: Option<(Option<Fx>, usize)> = None;
            for (k, &vert) in self.vertices.iter().enumerate() {
                let cost = dist[k].map(|d| (vert - position).length().saturating_add(d));
                if best.is_none_or(|(c, _)| less(cost, c))
                    && obstacles.query_visibility(position, vert, r)
                {
                    best = Some((cost, k));
                }
            }
            if let Some((_, k)) = best {
                return Some(self.vertices[k]);
            }
        }
        None
    }
}

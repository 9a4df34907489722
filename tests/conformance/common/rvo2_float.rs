//! A float port of RVO2 2.0.3's pipeline (test-only code, written from RVO2's published
//! algorithm): agent kd-tree with its in-place partition and leaf size 10, neighbour insertion,
//! agent ORCA lines, obstacles (`addObstacle`, the obstacle kd-tree with RVO2's exhaustive split
//! choice and edge splitting, obstacle neighbours, obstacle ORCA lines), LP1/LP2/LP3 (obstacle
//! lines kept in every projected program) and the position update, generic over `f32`/`f64`.
//!
//! In `f32`, with RVO2's operation order (vector division as multiplication by the reciprocal,
//! `0.5 * u`, left-to-right sums, `std::min`/`std::max` argument order), it is the C++ float
//! build: `rvo2_float` (its test module) checks it against the recorded RVO2 trajectory. In `f64` it is
//! the same algorithm with 2⁻⁵³ rounding. It exists to separate what our fixed-point
//! arithmetic does from what the algorithm does. `rvo2_float` also checks the obstacle
//! pipeline against RVO2's one-step obstacle scenes and its Blocks example.
#![allow(clippy::float_arithmetic, dead_code)]

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The float type of the port.
pub trait Real:
    Copy
    + PartialOrd
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Rounds an `f64` to this type.
    fn of(v: f64) -> Self;
    /// Widens to `f64` (exact).
    fn to64(self) -> f64;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Positive infinity.
    fn infinity() -> Self {
        Self::of(f64::INFINITY)
    }
}

impl Real for f32 {
    fn of(v: f64) -> Self {
        v as f32
    }
    fn to64(self) -> f64 {
        f64::from(self)
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn abs(self) -> Self {
        f32::abs(self)
    }
}

impl Real for f64 {
    fn of(v: f64) -> Self {
        v
    }
    fn to64(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

/// `std::min(a, b)`: `b < a ? b : a`.
fn min<F: Real>(a: F, b: F) -> F {
    if b < a { b } else { a }
}

/// `std::max(a, b)`: `a < b ? b : a`.
fn max<F: Real>(a: F, b: F) -> F {
    if a < b { b } else { a }
}

/// RVO2's `Vector2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V<F>(pub F, pub F);

impl<F: Real> V<F> {
    /// `v * w`.
    pub fn dot(self, o: Self) -> F {
        self.0 * o.0 + self.1 * o.1
    }
    /// `det(v, w)`.
    pub fn det(self, o: Self) -> F {
        self.0 * o.1 - self.1 * o.0
    }
    /// `absSq(v)`.
    pub fn abs_sq(self) -> F {
        self.dot(self)
    }
    /// `s * v`.
    pub fn scale(self, s: F) -> Self {
        V(self.0 * s, self.1 * s)
    }
    /// RVO2's `v / s`: multiplication by `1 / s`.
    pub fn div(self, s: F) -> Self {
        self.scale(F::of(1.0) / s)
    }
    /// `normalize(v)`.
    pub fn normalize(self) -> Self {
        self.div(self.abs_sq().sqrt())
    }
    /// Widens to `f64`.
    pub fn to64(self) -> (f64, f64) {
        (self.0.to64(), self.1.to64())
    }
}

impl<F: Real> Add for V<F> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        V(self.0 + o.0, self.1 + o.1)
    }
}

impl<F: Real> Sub for V<F> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        V(self.0 - o.0, self.1 - o.1)
    }
}

impl<F: Real> Neg for V<F> {
    type Output = Self;
    fn neg(self) -> Self {
        V(-self.0, -self.1)
    }
}

/// A directed ORCA line; the permitted side is to its left.
#[derive(Clone, Copy, Debug)]
pub struct Line<F> {
    /// A point on the line.
    pub point: V<F>,
    /// Unit direction.
    pub dir: V<F>,
}

fn eps<F: Real>() -> F {
    F::of(1e-5)
}

fn lp1<F: Real>(lines: &[Line<F>], no: usize, radius: F, opt: V<F>, dir_opt: bool) -> Option<V<F>> {
    let l = lines[no];
    let zero = F::of(0.0);
    let dot = l.point.dot(l.dir);
    let disc = dot * dot + radius * radius - l.point.abs_sq();
    if disc < zero {
        return None;
    }
    let s = disc.sqrt();
    let (mut tl, mut tr) = (-dot - s, -dot + s);
    for o in &lines[..no] {
        let den = l.dir.det(o.dir);
        let num = o.dir.det(l.point - o.point);
        if den.abs() <= eps() {
            if num < zero {
                return None;
            }
            continue;
        }
        let t = num / den;
        if den >= zero {
            tr = min(tr, t);
        } else {
            tl = max(tl, t);
        }
        if tl > tr {
            return None;
        }
    }
    let at = |t: F| l.point + l.dir.scale(t);
    Some(if dir_opt {
        if opt.dot(l.dir) > zero {
            at(tr)
        } else {
            at(tl)
        }
    } else {
        let t = l.dir.dot(opt - l.point);
        if t < tl {
            at(tl)
        } else if t > tr {
            at(tr)
        } else {
            at(t)
        }
    })
}

/// RVO2's `linearProgram2`: (index of the failing line or `lines.len()`, result).
pub fn lp2<F: Real>(lines: &[Line<F>], radius: F, opt: V<F>, dir_opt: bool) -> (usize, V<F>) {
    let mut result = if dir_opt {
        opt.scale(radius)
    } else if opt.abs_sq() > radius * radius {
        opt.normalize().scale(radius)
    } else {
        opt
    };
    for i in 0..lines.len() {
        if lines[i].dir.det(lines[i].point - result) > F::of(0.0) {
            match lp1(lines, i, radius, opt, dir_opt) {
                Some(v) => result = v,
                None => return (i, result),
            }
        }
    }
    (lines.len(), result)
}

/// RVO2's `linearProgram3` with no obstacle lines.
pub fn lp3<F: Real>(lines: &[Line<F>], begin: usize, radius: F, result: V<F>) -> V<F> {
    lp3_obst(lines, 0, begin, radius, result)
}

/// RVO2's `linearProgram3`: the first `num_obst` lines are obstacle lines, copied into every
/// projected program and never relaxed.
pub fn lp3_obst<F: Real>(
    lines: &[Line<F>],
    num_obst: usize,
    begin: usize,
    radius: F,
    mut result: V<F>,
) -> V<F> {
    let mut distance = F::of(0.0);
    for i in begin..lines.len() {
        let li = lines[i];
        if li.dir.det(li.point - result) <= distance {
            continue;
        }
        // Result does not satisfy constraint of line i.
        let mut proj = lines[..num_obst].to_vec();
        for lj in &lines[num_obst..i.max(num_obst)] {
            let determinant = li.dir.det(lj.dir);
            let point = if determinant.abs() <= eps() {
                // Lines i and j are parallel.
                if li.dir.dot(lj.dir) > F::of(0.0) {
                    // Same direction.
                    continue;
                }
                // Opposite directions.
                (li.point + lj.point).scale(F::of(0.5))
            } else {
                li.point + li.dir.scale(lj.dir.det(li.point - lj.point) / determinant)
            };
            proj.push(Line {
                point,
                dir: (lj.dir - li.dir).normalize(),
            });
        }
        let (fail, v) = lp2(&proj, radius, V(-li.dir.1, li.dir.0), true);
        // A failure is float error: the current result is kept.
        if fail == proj.len() {
            result = v;
        }
        distance = li.dir.det(li.point - result);
    }
    result
}

/// RVO2's velocity choice: LP2, then LP3 from the failing line.
pub fn solve<F: Real>(lines: &[Line<F>], max_speed: F, pref: V<F>) -> V<F> {
    solve_obst(lines, 0, max_speed, pref)
}

/// RVO2's velocity choice with `num_obst` leading obstacle lines.
pub fn solve_obst<F: Real>(lines: &[Line<F>], num_obst: usize, max_speed: F, pref: V<F>) -> V<F> {
    let (fail, v) = lp2(lines, max_speed, pref, false);
    if fail < lines.len() {
        lp3_obst(lines, num_obst, fail, max_speed, v)
    } else {
        v
    }
}

/// What one agent's ORCA line needs of an agent.
#[derive(Clone, Copy, Debug)]
pub struct Body<F> {
    /// Position.
    pub pos: V<F>,
    /// Current velocity.
    pub vel: V<F>,
    /// Radius.
    pub radius: F,
}

/// RVO2's ORCA line of `me` with respect to `other` (`Agent::computeNewVelocity`'s loop body).
pub fn agent_line<F: Real>(me: Body<F>, other: Body<F>, inv_tau: F, time_step: F) -> Line<F> {
    let f = F::of;
    let p = other.pos - me.pos;
    let v = me.vel - other.vel;
    let dist_sq = p.abs_sq();
    let r = me.radius + other.radius;
    let r_sq = r * r;
    let (dir, u);
    if dist_sq > r_sq {
        let w = v - p.scale(inv_tau);
        let w_len_sq = w.abs_sq();
        let dot1 = w.dot(p);
        if dot1 < f(0.0) && dot1 * dot1 > r_sq * w_len_sq {
            // Cut-off circle.
            let w_len = w_len_sq.sqrt();
            let unit_w = w.div(w_len);
            dir = V(unit_w.1, -unit_w.0);
            u = unit_w.scale(r * inv_tau - w_len);
        } else {
            let leg = (dist_sq - r_sq).sqrt();
            if p.det(w) > f(0.0) {
                // Left leg.
                dir = V(p.0 * leg - p.1 * r, p.0 * r + p.1 * leg).div(dist_sq);
            } else {
                // Right leg.
                dir = (-V(p.0 * leg + p.1 * r, -p.0 * r + p.1 * leg)).div(dist_sq);
            }
            u = dir.scale(v.dot(dir)) - v;
        }
    } else {
        // Overlap: cut-off circle of the time step.
        let inv_dt = f(1.0) / time_step;
        let w = v - p.scale(inv_dt);
        let w_len = w.abs_sq().sqrt();
        let unit_w = w.div(w_len);
        dir = V(unit_w.1, -unit_w.0);
        u = unit_w.scale(r * inv_dt - w_len);
    }
    Line {
        point: me.vel + u.scale(f(0.5)),
        dir,
    }
}

/// `leftOf(a, b, c)`: positive when `c` lies to the left of the line `a → b`.
pub fn left_of<F: Real>(a: V<F>, b: V<F>, c: V<F>) -> F {
    (a - c).det(b - a)
}

/// RVO2's `Obstacle`: one vertex of an obstacle ring and the edge leaving it.
#[derive(Clone, Copy, Debug)]
pub struct Obstacle<F> {
    /// The vertex.
    pub point: V<F>,
    /// Unit direction of the edge to `next` (of the original edge for split fragments).
    pub dir: V<F>,
    /// Index of the next vertex.
    pub next: usize,
    /// Index of the previous vertex.
    pub prev: usize,
    /// Whether the vertex is convex.
    pub convex: bool,
}

/// What one agent's obstacle lines need of the agent.
#[derive(Clone, Copy, Debug)]
pub struct ObstAgent<F> {
    /// Position.
    pub pos: V<F>,
    /// Current velocity.
    pub vel: V<F>,
    /// Radius.
    pub radius: F,
    /// Obstacle time horizon.
    pub time_horizon_obst: F,
}

/// The obstacle part of RVO2's `Agent::computeNewVelocity`: appends one line per obstacle
/// neighbour (`neighbors`: `(distance², obstacle index)`, sorted) that is neither already
/// covered nor ignored.
pub fn obstacle_lines<F: Real>(
    obst: &[Obstacle<F>],
    neighbors: &[(F, usize)],
    me: ObstAgent<F>,
    lines: &mut Vec<Line<F>>,
) {
    let f = F::of;
    let zero = f(0.0);
    let one = f(1.0);
    let (pos, vel, radius) = (me.pos, me.vel, me.radius);
    let inv = one / me.time_horizon_obst;
    let origin = V(zero, zero);
    for &(_, first) in neighbors {
        let mut o1 = first;
        let mut o2 = obst[o1].next;
        let rel1 = obst[o1].point - pos;
        let rel2 = obst[o2].point - pos;

        // Already taken care of by previously constructed obstacle lines?
        let covered = lines.iter().any(|l| {
            (rel1.scale(inv) - l.point).det(l.dir) - inv * radius >= -eps::<F>()
                && (rel2.scale(inv) - l.point).det(l.dir) - inv * radius >= -eps::<F>()
        });
        if covered {
            continue;
        }

        // Not yet covered. Check for collisions.
        let dist_sq1 = rel1.abs_sq();
        let dist_sq2 = rel2.abs_sq();
        let radius_sq = radius * radius;
        let obstacle_vector = obst[o2].point - obst[o1].point;
        let s = (-rel1).dot(obstacle_vector) / obstacle_vector.abs_sq();
        let dist_sq_line = (-rel1 - obstacle_vector.scale(s)).abs_sq();

        if s < zero && dist_sq1 <= radius_sq {
            // Collision with left vertex. Ignore if non-convex.
            if obst[o1].convex {
                lines.push(Line {
                    point: origin,
                    dir: V(-rel1.1, rel1.0).normalize(),
                });
            }
            continue;
        }
        if s > one && dist_sq2 <= radius_sq {
            // Collision with right vertex. Ignore if non-convex or if the next edge takes care
            // of it.
            if obst[o2].convex && rel2.det(obst[o2].dir) >= zero {
                lines.push(Line {
                    point: origin,
                    dir: V(-rel2.1, rel2.0).normalize(),
                });
            }
            continue;
        }
        if s >= zero && s <= one && dist_sq_line <= radius_sq {
            // Collision with the segment.
            lines.push(Line {
                point: origin,
                dir: -obst[o1].dir,
            });
            continue;
        }

        // No collision: legs. Viewed obliquely, both legs come from one vertex; at a
        // non-convex vertex the leg extends the cut-off line.
        let left_leg_of = |rel: V<F>, leg: F, dist_sq: F| {
            V(rel.0 * leg - rel.1 * radius, rel.0 * radius + rel.1 * leg).div(dist_sq)
        };
        let right_leg_of = |rel: V<F>, leg: F, dist_sq: F| {
            V(rel.0 * leg + rel.1 * radius, -rel.0 * radius + rel.1 * leg).div(dist_sq)
        };
        let (mut left_leg, mut right_leg);
        if s < zero && dist_sq_line <= radius_sq {
            // Viewed obliquely: the left vertex defines the velocity obstacle.
            if !obst[o1].convex {
                continue;
            }
            o2 = o1;
            let leg1 = (dist_sq1 - radius_sq).sqrt();
            left_leg = left_leg_of(rel1, leg1, dist_sq1);
            right_leg = right_leg_of(rel1, leg1, dist_sq1);
        } else if s > one && dist_sq_line <= radius_sq {
            // Viewed obliquely: the right vertex defines the velocity obstacle.
            if !obst[o2].convex {
                continue;
            }
            o1 = o2;
            let leg2 = (dist_sq2 - radius_sq).sqrt();
            left_leg = left_leg_of(rel2, leg2, dist_sq2);
            right_leg = right_leg_of(rel2, leg2, dist_sq2);
        } else {
            // Usual situation.
            left_leg = if obst[o1].convex {
                let leg1 = (dist_sq1 - radius_sq).sqrt();
                left_leg_of(rel1, leg1, dist_sq1)
            } else {
                // Left vertex non-convex: the left leg extends the cut-off line.
                -obst[o1].dir
            };
            right_leg = if obst[o2].convex {
                let leg2 = (dist_sq2 - radius_sq).sqrt();
                right_leg_of(rel2, leg2, dist_sq2)
            } else {
                // Right vertex non-convex: the right leg extends the cut-off line.
                obst[o1].dir
            };
        }

        // A leg never points into the neighbouring edge at a convex vertex: take that edge's
        // cut-off line instead ("foreign" leg: projecting on it adds no constraint).
        let left_neighbor = obst[o1].prev;
        let mut left_foreign = false;
        let mut right_foreign = false;
        if obst[o1].convex && left_leg.det(-obst[left_neighbor].dir) >= zero {
            left_leg = -obst[left_neighbor].dir;
            left_foreign = true;
        }
        if obst[o2].convex && right_leg.det(obst[o2].dir) <= zero {
            right_leg = obst[o2].dir;
            right_foreign = true;
        }

        // Cut-off centres.
        let left_cutoff = (obst[o1].point - pos).scale(inv);
        let right_cutoff = (obst[o2].point - pos).scale(inv);
        let cutoff_vector = right_cutoff - left_cutoff;
        let same = o1 == o2;

        // Is the current velocity projected on a cut-off circle?
        let t = if same {
            f(0.5)
        } else {
            (vel - left_cutoff).dot(cutoff_vector) / cutoff_vector.abs_sq()
        };
        let t_left = (vel - left_cutoff).dot(left_leg);
        let t_right = (vel - right_cutoff).dot(right_leg);
        let rinv = radius * inv;

        if (t < zero && t_left < zero) || (same && t_left < zero && t_right < zero) {
            // Project on the left cut-off circle.
            let unit_w = (vel - left_cutoff).normalize();
            lines.push(Line {
                dir: V(unit_w.1, -unit_w.0),
                point: left_cutoff + unit_w.scale(rinv),
            });
            continue;
        }
        if t > one && t_right < zero {
            // Project on the right cut-off circle.
            let unit_w = (vel - right_cutoff).normalize();
            lines.push(Line {
                dir: V(unit_w.1, -unit_w.0),
                point: right_cutoff + unit_w.scale(rinv),
            });
            continue;
        }

        // Project on the left leg, the right leg or the cut-off line, whichever is closest.
        let inf = F::infinity();
        let dist_sq_cutoff = if t < zero || t > one || same {
            inf
        } else {
            (vel - (left_cutoff + cutoff_vector.scale(t))).abs_sq()
        };
        let dist_sq_left = if t_left < zero {
            inf
        } else {
            (vel - (left_cutoff + left_leg.scale(t_left))).abs_sq()
        };
        let dist_sq_right = if t_right < zero {
            inf
        } else {
            (vel - (right_cutoff + right_leg.scale(t_right))).abs_sq()
        };

        if dist_sq_cutoff <= dist_sq_left && dist_sq_cutoff <= dist_sq_right {
            // Project on the cut-off line.
            let dir = -obst[o1].dir;
            lines.push(Line {
                dir,
                point: left_cutoff + V(-dir.1, dir.0).scale(rinv),
            });
            continue;
        }
        if dist_sq_left <= dist_sq_right {
            // Project on the left leg.
            if left_foreign {
                continue;
            }
            let dir = left_leg;
            lines.push(Line {
                dir,
                point: left_cutoff + V(-dir.1, dir.0).scale(rinv),
            });
            continue;
        }
        // Project on the right leg.
        if right_foreign {
            continue;
        }
        let dir = -right_leg;
        lines.push(Line {
            dir,
            point: right_cutoff + V(-dir.1, dir.0).scale(rinv),
        });
    }
}

/// Simulation parameters shared by every agent (RVO2's defaults).
#[derive(Clone, Copy, Debug)]
pub struct Params<F> {
    /// Time step.
    pub time_step: F,
    /// Neighbour search radius.
    pub neighbor_dist: F,
    /// Neighbour cap.
    pub max_neighbors: usize,
    /// Agent time horizon.
    pub time_horizon: F,
    /// Obstacle time horizon (unused without obstacles).
    pub time_horizon_obst: F,
    /// Maximum speed.
    pub max_speed: F,
}

impl<F: Real> Params<F> {
    /// Parameters with the obstacle time horizon equal to the agent one (what an agents-only
    /// caller wants: without obstacles it is never read).
    pub fn new(
        time_step: F,
        neighbor_dist: F,
        max_neighbors: usize,
        time_horizon: F,
        max_speed: F,
    ) -> Self {
        Self {
            time_step,
            neighbor_dist,
            max_neighbors,
            time_horizon,
            time_horizon_obst: time_horizon,
            max_speed,
        }
    }
}

/// One agent of [`Sim`].
#[derive(Clone, Debug)]
pub struct Agent<F> {
    /// Position.
    pub pos: V<F>,
    /// Velocity.
    pub vel: V<F>,
    /// Preferred velocity, set before each step.
    pub pref: V<F>,
    /// Radius.
    pub radius: F,
    new_vel: V<F>,
    neighbors: Vec<(F, usize)>,
    obstacle_neighbors: Vec<(F, usize)>,
}

#[derive(Clone, Copy, Debug)]
struct Node<F> {
    begin: usize,
    end: usize,
    left: usize,
    right: usize,
    min: V<F>,
    max: V<F>,
}

const MAX_LEAF_SIZE: usize = 10;

#[derive(Clone, Copy, Debug)]
struct ObstNode {
    obstacle: usize,
    left: Option<usize>,
    right: Option<usize>,
}

/// RVO2's `RVOSimulator`, stepping like its serial `doStep`.
#[derive(Clone, Debug)]
pub struct Sim<F> {
    /// Parameters.
    pub params: Params<F>,
    /// Agents in `addAgent` order.
    pub agents: Vec<Agent<F>>,
    /// The kd-tree's agent order: kept across steps and re-partitioned in place, as RVO2 does.
    order: Vec<usize>,
    tree: Vec<Node<F>>,
    /// Obstacle vertices in RVO2's `obstacles_` order (split fragments appended by
    /// [`Sim::process_obstacles`]).
    pub obstacles: Vec<Obstacle<F>>,
    obstacle_tree: Vec<ObstNode>,
    obstacle_root: Option<usize>,
}

impl<F: Real> Sim<F> {
    /// An empty simulation.
    pub fn new(params: Params<F>) -> Self {
        Self {
            params,
            agents: Vec::new(),
            order: Vec::new(),
            tree: Vec::new(),
            obstacles: Vec::new(),
            obstacle_tree: Vec::new(),
            obstacle_root: None,
        }
    }

    /// `addObstacle(vertices)`: a closed ring of vertices (counter-clockwise = solid); two
    /// vertices make a two-sided segment. Returns the index of the first vertex, `None` for
    /// fewer than two vertices.
    pub fn add_obstacle(&mut self, vertices: &[V<F>]) -> Option<usize> {
        let n = vertices.len();
        if n < 2 {
            return None;
        }
        let first = self.obstacles.len();
        for i in 0..n {
            let idx = self.obstacles.len();
            let next_i = if i == n - 1 { 0 } else { i + 1 };
            let prev_i = if i == 0 { n - 1 } else { i - 1 };
            let convex =
                n == 2 || left_of(vertices[prev_i], vertices[i], vertices[next_i]) >= F::of(0.0);
            self.obstacles.push(Obstacle {
                point: vertices[i],
                dir: (vertices[next_i] - vertices[i]).normalize(),
                next: if i == n - 1 { first } else { idx + 1 },
                prev: if i == 0 { first + n - 1 } else { idx - 1 },
                convex,
            });
        }
        Some(first)
    }

    /// `processObstacles()`: builds the obstacle kd-tree (splitting edges that straddle a split
    /// line; the fragments are appended to [`Sim::obstacles`]).
    pub fn process_obstacles(&mut self) {
        self.obstacle_tree.clear();
        let all: Vec<usize> = (0..self.obstacles.len()).collect();
        self.obstacle_root = self.build_obstacle_tree(&all);
    }

    /// `KdTree::buildObstacleTreeRecursive`.
    fn build_obstacle_tree(&mut self, obstacles: &[usize]) -> Option<usize> {
        if obstacles.is_empty() {
            return None;
        }
        let node = self.obstacle_tree.len();
        self.obstacle_tree.push(ObstNode {
            obstacle: 0,
            left: None,
            right: None,
        });
        let n = obstacles.len();
        let e = eps::<F>();
        let p = |s: &Self, k: usize| s.obstacles[k].point;
        let key = |l: usize, r: usize| (l.max(r), l.min(r));

        // The split edge minimising (larger side, smaller side), first in order on ties.
        let mut optimal = 0;
        let (mut min_left, mut min_right) = (n, n);
        for i in 0..n {
            let (mut left_size, mut right_size) = (0, 0);
            let i1 = obstacles[i];
            let i2 = self.obstacles[i1].next;
            for (j, &j1) in obstacles.iter().enumerate() {
                if i == j {
                    continue;
                }
                let j2 = self.obstacles[j1].next;
                let a = left_of(p(self, i1), p(self, i2), p(self, j1));
                let b = left_of(p(self, i1), p(self, i2), p(self, j2));
                if a >= -e && b >= -e {
                    left_size += 1;
                } else if a <= e && b <= e {
                    right_size += 1;
                } else {
                    left_size += 1;
                    right_size += 1;
                }
                if key(left_size, right_size) >= key(min_left, min_right) {
                    break;
                }
            }
            if key(left_size, right_size) < key(min_left, min_right) {
                min_left = left_size;
                min_right = right_size;
                optimal = i;
            }
        }

        // Build the split node.
        let mut left = Vec::with_capacity(min_left);
        let mut right = Vec::with_capacity(min_right);
        let i = optimal;
        let i1 = obstacles[i];
        let i2 = self.obstacles[i1].next;
        for (j, &j1) in obstacles.iter().enumerate() {
            if i == j {
                continue;
            }
            let j2 = self.obstacles[j1].next;
            let (pi1, pi2, pj1, pj2) = (p(self, i1), p(self, i2), p(self, j1), p(self, j2));
            let a = left_of(pi1, pi2, pj1);
            let b = left_of(pi1, pi2, pj2);
            if a >= -e && b >= -e {
                left.push(j1);
            } else if a <= e && b <= e {
                right.push(j1);
            } else {
                // Split edge j at the split line.
                let t = (pi2 - pi1).det(pj1 - pi1) / (pi2 - pi1).det(pj1 - pj2);
                let split_point = pj1 + (pj2 - pj1).scale(t);
                let fragment = self.obstacles.len();
                self.obstacles.push(Obstacle {
                    point: split_point,
                    dir: self.obstacles[j1].dir,
                    next: j2,
                    prev: j1,
                    convex: true,
                });
                self.obstacles[j1].next = fragment;
                self.obstacles[j2].prev = fragment;
                if a > F::of(0.0) {
                    left.push(j1);
                    right.push(fragment);
                } else {
                    right.push(j1);
                    left.push(fragment);
                }
            }
        }
        self.obstacle_tree[node].obstacle = i1;
        let l = self.build_obstacle_tree(&left);
        let r = self.build_obstacle_tree(&right);
        self.obstacle_tree[node].left = l;
        self.obstacle_tree[node].right = r;
        Some(node)
    }

    /// `KdTree::queryObstacleTreeRecursive`.
    fn query_obstacles(
        &self,
        pos: V<F>,
        range_sq: F,
        node: Option<usize>,
        out: &mut Vec<(F, usize)>,
    ) {
        let Some(node) = node else {
            return;
        };
        let n = self.obstacle_tree[node];
        let o1 = self.obstacles[n.obstacle];
        let o2 = self.obstacles[o1.next];
        let zero = F::of(0.0);
        let agent_left_of_line = left_of(o1.point, o2.point, pos);
        let (near, far) = if agent_left_of_line >= zero {
            (n.left, n.right)
        } else {
            (n.right, n.left)
        };
        self.query_obstacles(pos, range_sq, near, out);
        let dist_sq_line = agent_left_of_line * agent_left_of_line / (o2.point - o1.point).abs_sq();
        if dist_sq_line < range_sq {
            if agent_left_of_line < zero {
                // The agent is on the right side of the edge and can see it.
                self.insert_obstacle_neighbor(pos, n.obstacle, range_sq, out);
            }
            // Try the other side of the line.
            self.query_obstacles(pos, range_sq, far, out);
        }
    }

    /// `Agent::insertObstacleNeighbor`: distance² to the segment, insertion sort.
    fn insert_obstacle_neighbor(
        &self,
        pos: V<F>,
        k: usize,
        range_sq: F,
        out: &mut Vec<(F, usize)>,
    ) {
        let o = self.obstacles[k];
        let next = self.obstacles[o.next];
        let edge = next.point - o.point;
        let r = (pos - o.point).dot(edge) / edge.abs_sq();
        let dist_sq = if r < F::of(0.0) {
            (pos - o.point).abs_sq()
        } else if r > F::of(1.0) {
            (pos - next.point).abs_sq()
        } else {
            (pos - (o.point + edge.scale(r))).abs_sq()
        };
        if dist_sq < range_sq {
            out.push((dist_sq, k));
            let mut i = out.len() - 1;
            while i != 0 && dist_sq < out[i - 1].0 {
                out[i] = out[i - 1];
                i -= 1;
            }
            out[i] = (dist_sq, k);
        }
    }

    /// Agent `i`'s obstacle neighbours as of the last step: `(distance², obstacle index)`.
    pub fn obstacle_neighbors(&self, i: usize) -> &[(F, usize)] {
        &self.agents[i].obstacle_neighbors
    }

    /// Agent `i`'s agent neighbours as of the last step: `(distance², agent index)`.
    pub fn agent_neighbors(&self, i: usize) -> &[(F, usize)] {
        &self.agents[i].neighbors
    }

    /// `addAgent(position)` with zero velocity.
    pub fn add_agent(&mut self, pos: V<F>, radius: F) -> usize {
        self.agents.push(Agent {
            pos,
            vel: V(F::of(0.0), F::of(0.0)),
            pref: V(F::of(0.0), F::of(0.0)),
            radius,
            new_vel: V(F::of(0.0), F::of(0.0)),
            neighbors: Vec::new(),
            obstacle_neighbors: Vec::new(),
        });
        self.agents.len() - 1
    }

    /// `doStep()`: build the agent tree, compute every new velocity (obstacle neighbours, agent
    /// neighbours, obstacle lines, agent lines, LP), then move every agent.
    pub fn step(&mut self) {
        self.build_tree();
        let prm = self.params;
        let inv_tau = F::of(1.0) / prm.time_horizon;
        let mut lines = Vec::new();
        for i in 0..self.agents.len() {
            // computeNeighbors: obstacles, then agents.
            let mut obstacle_neighbors = std::mem::take(&mut self.agents[i].obstacle_neighbors);
            obstacle_neighbors.clear();
            let range = prm.time_horizon_obst * prm.max_speed + self.agents[i].radius;
            self.query_obstacles(
                self.agents[i].pos,
                range * range,
                self.obstacle_root,
                &mut obstacle_neighbors,
            );
            let mut neighbors = std::mem::take(&mut self.agents[i].neighbors);
            neighbors.clear();
            if prm.max_neighbors > 0 {
                let mut range_sq = prm.neighbor_dist * prm.neighbor_dist;
                self.query(i, &mut range_sq, 0, &mut neighbors);
            }
            // computeNewVelocity.
            let body = |a: &Agent<F>| Body {
                pos: a.pos,
                vel: a.vel,
                radius: a.radius,
            };
            let me = body(&self.agents[i]);
            lines.clear();
            obstacle_lines(
                &self.obstacles,
                &obstacle_neighbors,
                ObstAgent {
                    pos: me.pos,
                    vel: me.vel,
                    radius: me.radius,
                    time_horizon_obst: prm.time_horizon_obst,
                },
                &mut lines,
            );
            let num_obst = lines.len();
            lines.extend(
                neighbors
                    .iter()
                    .map(|&(_, j)| agent_line(me, body(&self.agents[j]), inv_tau, prm.time_step)),
            );
            self.agents[i].new_vel =
                solve_obst(&lines, num_obst, prm.max_speed, self.agents[i].pref);
            self.agents[i].neighbors = neighbors;
            self.agents[i].obstacle_neighbors = obstacle_neighbors;
        }
        for a in &mut self.agents {
            a.vel = a.new_vel;
            a.pos = a.pos + a.vel.scale(prm.time_step);
        }
    }

    fn build_tree(&mut self) {
        let n = self.agents.len();
        while self.order.len() < n {
            self.order.push(self.order.len());
        }
        let zero = V(F::of(0.0), F::of(0.0));
        self.tree.resize(
            (2 * n).max(1) - 1,
            Node {
                begin: 0,
                end: 0,
                left: 0,
                right: 0,
                min: zero,
                max: zero,
            },
        );
        if n > 0 {
            self.build(0, n, 0);
        }
    }

    fn coord(&self, k: usize, vertical: bool) -> F {
        let p = self.agents[self.order[k]].pos;
        if vertical { p.0 } else { p.1 }
    }

    fn build(&mut self, begin: usize, end: usize, node: usize) {
        let first = self.agents[self.order[begin]].pos;
        let (mut lo, mut hi) = (first, first);
        for k in begin + 1..end {
            let p = self.agents[self.order[k]].pos;
            hi.0 = max(hi.0, p.0);
            lo.0 = min(lo.0, p.0);
            hi.1 = max(hi.1, p.1);
            lo.1 = min(lo.1, p.1);
        }
        self.tree[node].begin = begin;
        self.tree[node].end = end;
        self.tree[node].min = lo;
        self.tree[node].max = hi;
        if end - begin > MAX_LEAF_SIZE {
            let vertical = hi.0 - lo.0 > hi.1 - lo.1;
            let half = F::of(0.5);
            let split = if vertical {
                half * (hi.0 + lo.0)
            } else {
                half * (hi.1 + lo.1)
            };
            let (mut left, mut right) = (begin, end);
            while left < right {
                while left < right && self.coord(left, vertical) < split {
                    left += 1;
                }
                while right > left && self.coord(right - 1, vertical) >= split {
                    right -= 1;
                }
                if left < right {
                    self.order.swap(left, right - 1);
                    left += 1;
                    right -= 1;
                }
            }
            if left == begin {
                left += 1;
            }
            let (l, r) = (node + 1, node + 2 * (left - begin));
            self.tree[node].left = l;
            self.tree[node].right = r;
            self.build(begin, left, l);
            self.build(left, end, r);
        }
    }

    fn box_dist_sq(&self, node: usize, p: V<F>) -> F {
        let n = &self.tree[node];
        let zero = F::of(0.0);
        let sq = |x: F| x * x;
        sq(max(zero, n.min.0 - p.0))
            + sq(max(zero, p.0 - n.max.0))
            + sq(max(zero, n.min.1 - p.1))
            + sq(max(zero, p.1 - n.max.1))
    }

    fn query(&self, i: usize, range_sq: &mut F, node: usize, out: &mut Vec<(F, usize)>) {
        let n = self.tree[node];
        if n.end - n.begin <= MAX_LEAF_SIZE {
            for k in n.begin..n.end {
                self.insert_neighbor(i, self.order[k], range_sq, out);
            }
            return;
        }
        let p = self.agents[i].pos;
        let (dl, dr) = (self.box_dist_sq(n.left, p), self.box_dist_sq(n.right, p));
        if dl < dr {
            if dl < *range_sq {
                self.query(i, range_sq, n.left, out);
                if dr < *range_sq {
                    self.query(i, range_sq, n.right, out);
                }
            }
        } else if dr < *range_sq {
            self.query(i, range_sq, n.right, out);
            if dl < *range_sq {
                self.query(i, range_sq, n.left, out);
            }
        }
    }

    /// `Agent::insertAgentNeighbor`: insertion sort on distance², ties after earlier entries.
    fn insert_neighbor(&self, i: usize, j: usize, range_sq: &mut F, out: &mut Vec<(F, usize)>) {
        if i == j {
            return;
        }
        let d = (self.agents[i].pos - self.agents[j].pos).abs_sq();
        if d >= *range_sq {
            return;
        }
        let cap = self.params.max_neighbors;
        if out.len() < cap {
            out.push((d, j));
        }
        let mut k = out.len() - 1;
        while k != 0 && d < out[k - 1].0 {
            out[k] = out[k - 1];
            k -= 1;
        }
        out[k] = (d, j);
        if out.len() == cap {
            *range_sq = out[out.len() - 1].0;
        }
    }
}

/// Circle's and Blocks' `setPreferredVelocities` (without perturbation): unit vector to the
/// goal, or the goal vector itself when its length is at most 1.
pub fn goal_pref<F: Real>(pos: V<F>, goal: V<F>) -> V<F> {
    let g = goal - pos;
    if g.abs_sq() > F::of(1.0) {
        g.normalize()
    } else {
        g
    }
}

/// RVO2's recorded Circle (`fixtures/rvo2/rvo2_circle250_steps0-300.csv.gz`): for steps
/// 0..=300, every agent's (position, velocity) as the `f32` values RVO2 printed (`%.9g`
/// round-trips a float).
pub fn recorded_circle() -> Vec<Vec<(V<f32>, V<f32>)>> {
    use std::io::Read;
    let mut text = String::new();
    let file = std::fs::File::open("fixtures/rvo2/rvo2_circle250_steps0-300.csv.gz");
    flate2::read::GzDecoder::new(file.expect("fixture"))
        .read_to_string(&mut text)
        .expect("gzip");
    let nan = V(f32::NAN, f32::NAN);
    let mut steps = vec![vec![(nan, nan); 250]; 301];
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let x = |k: usize| f[k].parse::<f32>().expect("number");
        let (step, id): (usize, usize) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        steps[step][id] = (V(x(2), x(3)), V(x(4), x(5)));
    }
    steps
}

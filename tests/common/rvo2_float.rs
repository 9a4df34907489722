//! A float port of RVO2's agent pipeline (test-only code, written from RVO2's published
//! algorithm): kd-tree with its in-place partition and leaf size 10, neighbour insertion,
//! agent ORCA lines, LP1/LP2/LP3 and the position update, generic over `f32`/`f64`.
//!
//! In `f32`, with RVO2's operation order (vector division as multiplication by the reciprocal,
//! `0.5 * u`, left-to-right sums, `std::min`/`std::max` argument order), it is the C++ float
//! build: `tests/rvo2_float.rs` checks it against the recorded RVO2 trajectory. In `f64` it is
//! the same algorithm with 2⁻⁵³ rounding. It exists to separate what our fixed-point
//! arithmetic does from what the algorithm does (no obstacles: agents only).
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
pub fn lp3<F: Real>(lines: &[Line<F>], begin: usize, radius: F, mut result: V<F>) -> V<F> {
    let mut distance = F::of(0.0);
    for i in begin..lines.len() {
        let li = lines[i];
        if li.dir.det(li.point - result) <= distance {
            continue;
        }
        let mut proj = Vec::new();
        for lj in &lines[..i] {
            let determinant = li.dir.det(lj.dir);
            let point = if determinant.abs() <= eps() {
                if li.dir.dot(lj.dir) > F::of(0.0) {
                    continue;
                }
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
        if fail == proj.len() {
            result = v;
        }
        distance = li.dir.det(li.point - result);
    }
    result
}

/// RVO2's velocity choice: LP2, then LP3 from the failing line.
pub fn solve<F: Real>(lines: &[Line<F>], max_speed: F, pref: V<F>) -> V<F> {
    let (fail, v) = lp2(lines, max_speed, pref, false);
    if fail < lines.len() {
        lp3(lines, fail, max_speed, v)
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
    /// Maximum speed.
    pub max_speed: F,
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

/// RVO2's `RVOSimulator` without obstacles, stepping like its serial `doStep`.
#[derive(Clone, Debug)]
pub struct Sim<F> {
    /// Parameters.
    pub params: Params<F>,
    /// Agents in `addAgent` order.
    pub agents: Vec<Agent<F>>,
    /// The kd-tree's agent order: kept across steps and re-partitioned in place, as RVO2 does.
    order: Vec<usize>,
    tree: Vec<Node<F>>,
}

impl<F: Real> Sim<F> {
    /// An empty simulation.
    pub fn new(params: Params<F>) -> Self {
        Self {
            params,
            agents: Vec::new(),
            order: Vec::new(),
            tree: Vec::new(),
        }
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
        });
        self.agents.len() - 1
    }

    /// `doStep()`: build the tree, compute every new velocity, then move every agent.
    pub fn step(&mut self) {
        self.build_tree();
        let inv_tau = F::of(1.0) / self.params.time_horizon;
        for i in 0..self.agents.len() {
            let mut neighbors = std::mem::take(&mut self.agents[i].neighbors);
            neighbors.clear();
            if self.params.max_neighbors > 0 {
                let mut range_sq = self.params.neighbor_dist * self.params.neighbor_dist;
                self.query(i, &mut range_sq, 0, &mut neighbors);
            }
            let body = |a: &Agent<F>| Body {
                pos: a.pos,
                vel: a.vel,
                radius: a.radius,
            };
            let me = body(&self.agents[i]);
            let lines: Vec<Line<F>> = neighbors
                .iter()
                .map(|&(_, j)| {
                    agent_line(me, body(&self.agents[j]), inv_tau, self.params.time_step)
                })
                .collect();
            self.agents[i].new_vel = solve(&lines, self.params.max_speed, self.agents[i].pref);
            self.agents[i].neighbors = neighbors;
        }
        for a in &mut self.agents {
            a.vel = a.new_vel;
            a.pos = a.pos + a.vel.scale(self.params.time_step);
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

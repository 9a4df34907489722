//! What differs between two simulator states: [`diff`] and [`SnapshotDiff`] (re-exported by
//! [`crate::snapshot`]).

use crate::agent::{Agent, AgentId, AgentParams};
use crate::agent_model::AgentModel;
use crate::command::Command;
use crate::math::{Fx, Vec2};
use crate::obstacle::{ObstacleId, ObstacleSet, ObstacleShape};
use crate::orders::formation::March;
use crate::orders::{Order, Steering};
use crate::sim::Simulator;
use std::fmt;

/// Where a [`Difference`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// A simulator-wide value: tick, time, time step, next agent id, deadlock-resolution mode.
    Simulator,
    /// The agent defaults ([`Simulator::agent_defaults`]).
    Defaults,
    /// One agent.
    Agent(AgentId),
    /// The obstacle set as a whole: count, neighbour mode, id counter.
    Obstacles,
    /// One obstacle.
    Obstacle(ObstacleId),
    /// The queue of pending commands.
    Commands,
    /// The navigation settings and budget ([`Simulator::navigation`]).
    Navigation,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Simulator => write!(f, "simulator"),
            Self::Defaults => write!(f, "defaults"),
            Self::Agent(id) => write!(f, "agent {}", id.0),
            Self::Obstacles => write!(f, "obstacles"),
            Self::Obstacle(id) => write!(f, "obstacle {}", id.0),
            Self::Commands => write!(f, "commands"),
            Self::Navigation => write!(f, "navigation"),
        }
    }
}

/// One differing field: its place, its name and the two values, written exactly (scalars are
/// Q32.32 decimals that parse back to the same bits, [`Fx`]'s `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Where.
    pub scope: Scope,
    /// The field: `tick`, `position`, `params.radius`, `stall`, `present`, `pending[3]`, ….
    pub field: String,
    /// Its value in the first state (`absent` when only the other has it).
    pub a: String,
    /// Its value in the second state.
    pub b: String,
}

/// Every difference between two states, in a fixed order: simulator fields, defaults, agents
/// by ascending id, obstacles, pending commands, navigation (settings and budget, then each
/// navigating agent's record, under its agent's scope, fields `nav.*`). Empty when the states are equal (then their
/// [`state_hash`](Simulator::state_hash)es are too).
///
/// ```
/// use lockstep_orca::snapshot::{self, Scope};
/// use lockstep_orca::{AgentId, Simulator, SimulatorParams, Vec2};
///
/// let mut a = Simulator::new(SimulatorParams::default()).unwrap();
/// a.add_agent(Vec2::from_int(0, 0)).unwrap();
/// a.add_agent(Vec2::from_int(5, 0)).unwrap();
/// let mut b = a.clone();
/// b.set_agent_position(AgentId(1), Vec2::from_int(5, 1)).unwrap();
/// let d = snapshot::diff(&a, &b);
/// assert_eq!(d.agents(), [AgentId(1)]);
/// assert_eq!(d.differences[0].scope, Scope::Agent(AgentId(1)));
/// assert_eq!(d.to_string(), "agent 1 position: (5, 0) | (5, 1)\n");
/// assert!(snapshot::diff(&a, &a).is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotDiff {
    /// The differences, in the order above.
    pub differences: Vec<Difference>,
}

impl SnapshotDiff {
    /// Whether the two states are equal.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.differences.is_empty()
    }

    /// The agents with at least one difference (present in one state only included), ascending.
    #[must_use]
    pub fn agents(&self) -> Vec<AgentId> {
        let mut out: Vec<AgentId> = self
            .differences
            .iter()
            .filter_map(|d| match d.scope {
                Scope::Agent(id) => Some(id),
                _ => None,
            })
            .collect();
        out.dedup();
        out
    }

    fn push(&mut self, scope: Scope, field: impl Into<String>, a: String, b: String) {
        self.differences.push(Difference {
            scope,
            field: field.into(),
            a,
            b,
        });
    }

    fn cmp<T: PartialEq + fmt::Display>(&mut self, scope: Scope, field: &str, a: T, b: T) {
        if a != b {
            self.push(scope, field, a.to_string(), b.to_string());
        }
    }
}

/// One line per difference: `SCOPE FIELD: A | B`.
impl fmt::Display for SnapshotDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.differences {
            writeln!(f, "{} {}: {} | {}", d.scope, d.field, d.a, d.b)?;
        }
        Ok(())
    }
}

/// A [`Vec2`] as `(x, y)`, exact.
struct V(Vec2);

impl PartialEq for V {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.0.x, self.0.y)
    }
}

fn params(d: &mut SnapshotDiff, scope: Scope, prefix: &str, a: &AgentParams, b: &AgentParams) {
    let name = |f: &str| format!("{prefix}{f}");
    let fx: [(&str, Fx, Fx); 5] = [
        ("neighbor_dist", a.neighbor_dist, b.neighbor_dist),
        ("time_horizon", a.time_horizon, b.time_horizon),
        (
            "time_horizon_obst",
            a.time_horizon_obst,
            b.time_horizon_obst,
        ),
        ("radius", a.radius, b.radius),
        ("max_speed", a.max_speed, b.max_speed),
    ];
    d.cmp(
        scope,
        &name("max_neighbors"),
        a.max_neighbors,
        b.max_neighbors,
    );
    for (f, x, y) in fx {
        d.cmp(scope, &name(f), x, y);
    }
    d.cmp(scope, &name("priority"), a.priority, b.priority);
}

fn agent(d: &mut SnapshotDiff, a: &Agent, b: &Agent) {
    let s = Scope::Agent(a.id);
    d.cmp(s, "position", V(a.position), V(b.position));
    d.cmp(s, "velocity", V(a.velocity), V(b.velocity));
    d.cmp(s, "pref_velocity", V(a.pref_velocity), V(b.pref_velocity));
    params(d, s, "params.", &a.params, &b.params);
    d.cmp(s, "stall", a.stall, b.stall);
    model(d, s, &a.model, &b.model);
}

/// An optional scalar as its value or `none`.
struct O(Option<Fx>);

impl PartialEq for O {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl fmt::Display for O {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v}"),
            None => write!(f, "none"),
        }
    }
}

fn model(d: &mut SnapshotDiff, s: Scope, a: &AgentModel, b: &AgentModel) {
    d.cmp(s, "model.layers", a.layers, b.layers);
    d.cmp(s, "model.mask", a.mask, b.mask);
    d.cmp(s, "model.body_radius", O(a.body_radius), O(b.body_radius));
    d.cmp(s, "model.max_accel", O(a.max_accel), O(b.max_accel));
    d.cmp(
        s,
        "model.support_velocity",
        V(a.support_velocity),
        V(b.support_velocity),
    );
    d.cmp(s, "model.slope", V(a.slope), V(b.slope));
    d.cmp(s, "model.speed_limit", O(a.speed_limit), O(b.speed_limit));
}

fn shape_kind(s: &ObstacleShape) -> &'static str {
    match s {
        ObstacleShape::Polygon(_) => "polygon",
        ObstacleShape::Polyline(_) => "polyline",
    }
}

fn obstacles(d: &mut SnapshotDiff, a: &ObstacleSet, b: &ObstacleSet) {
    let s = Scope::Obstacles;
    d.cmp(s, "count", a.len(), b.len());
    if a.neighbor_mode() != b.neighbor_mode() {
        d.push(
            s,
            "neighbor_mode",
            format!("{:?}", a.neighbor_mode()),
            format!("{:?}", b.neighbor_mode()),
        );
    }
    d.cmp(s, "next_id", a.next_id().0, b.next_id().0);
    let (mut ia, mut ib) = (a.iter().peekable(), b.iter().peekable());
    loop {
        match (ia.peek().copied(), ib.peek().copied()) {
            (None, None) => break,
            (Some((id, x)), Some((jd, y))) if id == jd => {
                let scope = Scope::Obstacle(id);
                d.cmp(scope, "kind", shape_kind(x), shape_kind(y));
                let (vx, vy) = (x.vertices(), y.vertices());
                d.cmp(scope, "vertices", vx.len(), vy.len());
                for (i, (p, q)) in vx.iter().zip(vy).enumerate() {
                    d.cmp(scope, &format!("vertex[{i}]"), V(*p), V(*q));
                }
                ia.next();
                ib.next();
            }
            (Some((id, x)), other) if other.is_none_or(|(jd, _)| id < jd) => {
                let what = format!("{} of {} vertices", shape_kind(x), x.vertices().len());
                d.push(Scope::Obstacle(id), "present", what, "absent".into());
                ia.next();
            }
            (_, Some((jd, y))) => {
                let what = format!("{} of {} vertices", shape_kind(y), y.vertices().len());
                d.push(Scope::Obstacle(jd), "present", "absent".into(), what);
                ib.next();
            }
            (Some(_), None) => unreachable!("handled by the guard above"),
        }
    }
}

/// A pending command as text: its debug form, but an added obstacle as its kind, vertex count
/// and first vertices (a shape may have 4,096).
fn command_text(c: &Command) -> String {
    const SHOWN: usize = 4;
    let Command::AddObstacle { shape } = c else {
        return format!("{c:?}");
    };
    let v = shape.vertices();
    let mut text = format!(
        "AddObstacle {{ {} of {} vertices:",
        shape_kind(shape),
        v.len()
    );
    for p in v.iter().take(SHOWN) {
        text += &format!(" {}", V(*p));
    }
    if v.len() > SHOWN {
        text += " …";
    }
    text + " }"
}

/// The navigation settings, budget debt and records of `a` and `b`.
fn navigation(d: &mut SnapshotDiff, a: &Simulator, b: &Simulator) {
    let s = Scope::Navigation;
    let (na, nb) = (a.nav_state(), b.nav_state());
    if na.params != nb.params {
        d.push(
            s,
            "params",
            format!("{:?}", na.params),
            format!("{:?}", nb.params),
        );
    }
    d.cmp(s, "debt", na.debt, nb.debt);
    d.cmp(s, "recheck", na.recheck, nb.recheck);
    // Traffic control (held chokes, waiters, priorities set): one line, as debug text.
    if na.traffic != nb.traffic {
        d.push(
            s,
            "traffic",
            format!("{:?}", na.traffic),
            format!("{:?}", nb.traffic),
        );
    }
    let (ra, rb) = (a.nav_records(), b.nav_records());
    let (mut i, mut j) = (0, 0);
    while i < ra.len() || j < rb.len() {
        match (ra.get(i), rb.get(j)) {
            (Some((x, p)), Some((y, q))) if x == y => {
                let sc = Scope::Agent(*x);
                let before = d.differences.len();
                d.cmp(sc, "nav.goal", V(p.goal()), V(q.goal()));
                if p.status() != q.status() {
                    d.push(
                        sc,
                        "nav.status",
                        format!("{:?}", p.status()),
                        format!("{:?}", q.status()),
                    );
                }
                d.cmp(sc, "nav.pending", p.is_pending(), q.is_pending());
                d.cmp(sc, "nav.planned_tick", p.planned_tick(), q.planned_tick());
                d.cmp(sc, "nav.no_progress", p.no_progress(), q.no_progress());
                let (la, lb) = (na.legs(*x), nb.legs(*y));
                if la != lb {
                    let show = |l: &[crate::math::Vec2]| {
                        let points: Vec<String> = l.iter().map(|&g| V(g).to_string()).collect();
                        format!("[{}]", points.join(", "))
                    };
                    d.push(sc, "nav.legs", show(la), show(lb));
                }
                // The progress measure (best distance, target index) otherwise.
                if p != q && d.differences.len() == before {
                    d.push(sc, "nav.progress", format!("{p:?}"), format!("{q:?}"));
                }
                i += 1;
                j += 1;
            }
            (Some((x, p)), other) if other.is_none_or(|(y, _)| x < y) => {
                let what = format!("navigating to {}", V(p.goal()));
                d.push(Scope::Agent(*x), "nav.present", what, "absent".into());
                i += 1;
            }
            (_, Some((y, q))) => {
                let what = format!("navigating to {}", V(q.goal()));
                d.push(Scope::Agent(*y), "nav.present", "absent".into(), what);
                j += 1;
            }
            (_, None) => break,
        }
    }
}

/// An optional value as text (`none` when absent).
fn opt<T: fmt::Display>(v: Option<T>) -> String {
    v.map_or("none".into(), |v| v.to_string())
}

/// The steering (scope simulator, fields `steering.*`).
fn steering(d: &mut SnapshotDiff, a: &Steering, b: &Steering) {
    let s = Scope::Simulator;
    d.cmp(s, "steering.speed", opt(a.speed), opt(b.speed));
    d.cmp(
        s,
        "steering.slow_within",
        opt(a.slow_within),
        opt(b.slow_within),
    );
    d.cmp(
        s,
        "steering.waypoint_tolerance",
        opt(a.waypoint_tolerance),
        opt(b.waypoint_tolerance),
    );
    if a.perturbation != b.perturbation {
        d.push(
            s,
            "steering.perturbation",
            format!("{:?}", a.perturbation),
            format!("{:?}", b.perturbation),
        );
    }
    d.cmp(
        s,
        "steering.arrive_within",
        opt(a.arrive_within),
        opt(b.arrive_within),
    );
    d.cmp(
        s,
        "steering.give_up_after",
        opt(a.give_up_after),
        opt(b.give_up_after),
    );
    d.cmp(s, "steering.rvo2_goals", a.rvo2_goals, b.rvo2_goals);
}

/// One agent's order (scope the agent, fields `order`, `order.*`).
fn order(d: &mut SnapshotDiff, id: AgentId, a: Option<&Order>, b: Option<&Order>) {
    let s = Scope::Agent(id);
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (None, None) => return,
        (a, b) => {
            let text =
                |o: Option<&Order>| o.map_or("none".into(), |o| format!("to {}", V(o.goal())));
            return d.push(s, "order", text(a), text(b));
        }
    };
    d.cmp(s, "order.start", V(a.start()), V(b.start()));
    if a.path() != b.path() {
        let text = |o: &Order| {
            let pts: Vec<String> = o.path().iter().map(|&p| V(p).to_string()).collect();
            pts.join(" ")
        };
        d.push(s, "order.path", text(a), text(b));
    }
    d.cmp(s, "order.progress", a.progress(), b.progress());
    let (x, y) = (a.arrival(), b.arrival());
    if x.status != y.status {
        d.push(
            s,
            "order.status",
            format!("{:?}", x.status),
            format!("{:?}", y.status),
        );
    }
    d.cmp(s, "order.no_progress", x.no_progress, y.no_progress);
    d.cmp(s, "order.rest", V(x.rest), V(y.rest));
    d.cmp(s, "order.speed", opt(a.speed()), opt(b.speed()));
}

/// Every order, by ascending agent id (an order on one side only is an `order` difference).
fn orders(d: &mut SnapshotDiff, a: &Simulator, b: &Simulator) {
    let (mut x, mut y) = (a.orders().peekable(), b.orders().peekable());
    loop {
        match (x.peek().map(|o| o.0), y.peek().map(|o| o.0)) {
            (None, None) => break,
            (Some(i), Some(j)) if i == j => {
                order(d, i, x.next().map(|o| o.1), y.next().map(|o| o.1));
            }
            (Some(i), Some(j)) if j < i => order(d, j, None, y.next().map(|o| o.1)),
            (Some(i), _) => order(d, i, x.next().map(|o| o.1), None),
            (None, Some(j)) => order(d, j, None, y.next().map(|o| o.1)),
        }
    }
}

/// Every group whose members differ (scope simulator, field `group[G]`; `absent` for a group
/// on one side only).
fn groups(d: &mut SnapshotDiff, a: &Simulator, b: &Simulator) {
    let text = |m: Option<&[AgentId]>| {
        m.map_or("absent".into(), |m| {
            let ids: Vec<String> = m.iter().map(|id| id.0.to_string()).collect();
            format!("[{}]", ids.join(" "))
        })
    };
    let mut ids: Vec<u32> = a
        .groups()
        .map(|g| g.0)
        .chain(b.groups().map(|g| g.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for g in ids {
        let (x, y) = (a.group(g), b.group(g));
        if x != y {
            d.push(Scope::Simulator, format!("group[{g}]"), text(x), text(y));
        }
    }
}

/// Every group whose formation move differs (scope simulator): `formation[G]` (`absent` on one
/// side), else `formation[G].kind`, `.placed`, `.goal`, `.facing`, `.slots` (the count),
/// `formation[G].slot[ID]` for each unit whose slot differs (or is on one side only), and the
/// march ([`march`]).
fn formations(d: &mut SnapshotDiff, a: &Simulator, b: &Simulator) {
    let mut ids: Vec<u32> = a
        .formations()
        .map(|g| g.0)
        .chain(b.formations().map(|g| g.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let s = Scope::Simulator;
    for g in ids {
        let (x, y) = match (a.formation(g), b.formation(g)) {
            (Some(x), Some(y)) => (x, y),
            (x, _) => {
                presence(d, format!("formation[{g}]"), x.is_some());
                continue;
            }
        };
        let name = |f: &str| format!("formation[{g}].{f}");
        if x.kind != y.kind {
            d.push(
                s,
                name("kind"),
                format!("{:?}", x.kind),
                format!("{:?}", y.kind),
            );
        }
        if x.placed != y.placed {
            let (l, r) = (format!("{:?}", x.placed), format!("{:?}", y.placed));
            d.push(s, name("placed"), l, r);
        }
        d.cmp(s, &name("goal"), V(x.goal), V(y.goal));
        d.cmp(s, &name("facing"), V(x.facing), V(y.facing));
        d.cmp(s, &name("slots"), x.slots.len(), y.slots.len());
        let slot = |f: &crate::orders::formation::Formation, id| {
            f.slot(id)
                .map_or("absent".to_string(), |p| V(p).to_string())
        };
        let mut units: Vec<AgentId> = x.slots.iter().chain(&y.slots).map(|s| s.0).collect();
        units.sort_unstable();
        units.dedup();
        for id in units {
            let (l, r) = (slot(x, id), slot(y, id));
            if l != r {
                d.push(s, format!("formation[{g}].slot[{}]", id.0), l, r);
            }
        }
        march(d, g, x.march.as_deref(), y.march.as_deref());
    }
}

/// `field` present on one side only (`left`: on the left one).
fn presence(d: &mut SnapshotDiff, field: String, left: bool) {
    let (here, there) = ("present".to_string(), "absent".to_string());
    let (l, r) = if left { (here, there) } else { (there, here) };
    d.push(Scope::Simulator, field, l, r);
}

/// The differences of group `g`'s marches: `formation[G].march` (`absent` on one side), else
/// `.march.path` (the point count, then each point that differs), `.pace`, `.spacing`,
/// `.column_spacing`, `.zones`, `.members`, `.s`, `.held`, `.column`, `.zone`, `.waited`,
/// `.moved`, `.obstacles`.
fn march(d: &mut SnapshotDiff, g: u32, x: Option<&March>, y: Option<&March>) {
    let s = Scope::Simulator;
    let (x, y) = match (x, y) {
        (Some(x), Some(y)) => (x, y),
        (None, None) => return,
        (x, _) => {
            presence(d, format!("formation[{g}].march"), x.is_some());
            return;
        }
    };
    let name = |f: &str| format!("formation[{g}].march.{f}");
    d.cmp(s, &name("path"), x.path.len(), y.path.len());
    for (k, (p, q)) in x.path.iter().zip(&y.path).enumerate() {
        d.cmp(s, &name(&format!("path[{k}]")), V(*p), V(*q));
    }
    d.cmp(s, &name("pace"), x.pace, y.pace);
    d.cmp(s, &name("spacing"), x.spacing, y.spacing);
    d.cmp(
        s,
        &name("column_spacing"),
        x.column_spacing,
        y.column_spacing,
    );
    if x.zones != y.zones {
        d.push(
            s,
            name("zones"),
            format!("{:?}", x.zones),
            format!("{:?}", y.zones),
        );
    }
    if x.members != y.members {
        let (l, r) = (x.members.len(), y.members.len());
        d.push(
            s,
            name("members"),
            format!("{l} (differ)"),
            format!("{r} (differ)"),
        );
    }
    d.cmp(s, &name("s"), x.s, y.s);
    d.cmp(s, &name("held"), x.held, y.held);
    d.cmp(s, &name("column"), x.column, y.column);
    d.cmp(s, &name("zone"), x.zone, y.zone);
    d.cmp(s, &name("waited"), x.waited, y.waited);
    d.cmp(s, &name("moved"), x.moved, y.moved);
    if x.obstacles != y.obstacles {
        d.push(
            s,
            name("obstacles"),
            format!("{:?}", x.obstacles),
            format!("{:?}", y.obstacles),
        );
    }
}

/// Every difference between the states of `a` and `b` (see [`SnapshotDiff`]).
///
/// Compares what a [snapshot](crate::snapshot) holds: tick, global time, time step, next
/// agent id, deadlock-resolution mode, agent defaults, every agent by id (position, velocity,
/// preferred velocity, each parameter, stall counter; agents present in one state only), the
/// steering (`steering.*`), every order by agent id (`order` when one side has none, else
/// `order.start`, `.path`, `.progress`, `.status`, `.no_progress`, `.rest`, `.speed`), the
/// groups (`group[G]`), the formation moves (`formation[G]…`), the
/// obstacles (count, neighbour mode, id counter, each obstacle by id: kind, vertex count,
/// vertices), the pending commands in canonical order and the navigation state. Restore two snapshot files with
/// [`Simulator::restore`] to compare them (the CLI's `diff A B`).
#[must_use]
pub fn diff(a: &Simulator, b: &Simulator) -> SnapshotDiff {
    let mut d = SnapshotDiff::default();
    let s = Scope::Simulator;
    d.cmp(s, "tick", a.tick(), b.tick());
    d.cmp(s, "global_time", a.global_time(), b.global_time());
    d.cmp(s, "time_step", a.time_step(), b.time_step());
    d.cmp(s, "next_agent_id", a.next_agent_id().0, b.next_agent_id().0);
    if a.liveness() != b.liveness() {
        d.push(
            s,
            "liveness",
            format!("{:?}", a.liveness()),
            format!("{:?}", b.liveness()),
        );
    }
    params(
        &mut d,
        Scope::Defaults,
        "",
        &a.agent_defaults(),
        &b.agent_defaults(),
    );
    let (aa, ab) = (a.agents(), b.agents());
    let (ids_a, ids_b) = (aa.ids(), ab.ids());
    let (mut i, mut j) = (0, 0);
    while i < ids_a.len() || j < ids_b.len() {
        match (ids_a.get(i), ids_b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                agent(&mut d, &aa.at(i), &ab.at(j));
                i += 1;
                j += 1;
            }
            (Some(&x), y) if y.is_none_or(|&y| x < y) => {
                let p = V(aa.positions()[i]).to_string();
                d.push(
                    Scope::Agent(x),
                    "present",
                    format!("at {p}"),
                    "absent".into(),
                );
                i += 1;
            }
            (_, Some(&y)) => {
                let p = V(ab.positions()[j]).to_string();
                d.push(
                    Scope::Agent(y),
                    "present",
                    "absent".into(),
                    format!("at {p}"),
                );
                j += 1;
            }
            (_, None) => break,
        }
    }
    steering(&mut d, &a.steering(), &b.steering());
    orders(&mut d, a, b);
    groups(&mut d, a, b);
    formations(&mut d, a, b);
    obstacles(&mut d, a.obstacles(), b.obstacles());
    let (qa, qb) = (a.pending_commands().to_vec(), b.pending_commands().to_vec());
    d.cmp(Scope::Commands, "count", qa.len(), qb.len());
    let show = |p: Option<&crate::command::PendingCommand>| {
        p.map_or("absent".to_string(), |p| {
            format!("tick {} {}", p.tick, command_text(&p.command))
        })
    };
    for k in 0..qa.len().max(qb.len()) {
        let (x, y) = (qa.get(k), qb.get(k));
        if x != y {
            d.push(Scope::Commands, format!("pending[{k}]"), show(x), show(y));
        }
    }
    navigation(&mut d, a, b);
    d
}

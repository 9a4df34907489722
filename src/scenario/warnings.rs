//! The validation report: things a valid scenario allows but a user most likely did not mean
//! ([`Scenario::warnings`]). Exact integer geometry (`i128` products), no floats.

use super::{EventAction, Scenario};
use crate::agent::AgentId;
use crate::geom::{
    Containment, Orientation, dist_sq_point_segment, point_in_polygon, polygon_orientation,
};
use crate::math::{Fx, Vec2, sqrt_wide, wide_mul};
use crate::obstacle::ObstacleShape;
use std::fmt;

/// `max_ticks` above this (or 0) is reported as absurd: a million ticks is about 70 hours of
/// simulated time at RVO2's time step of 0.25, and a run that never reaches every goal steps
/// all of them.
pub const ABSURD_MAX_TICKS: u64 = 1_000_000;

/// At most this many warnings of one kind are listed; the rest are counted in one
/// [`ScenarioWarning::Omitted`].
pub const MAX_LISTED_PER_KIND: usize = 16;

/// Which point of an agent a [`ScenarioWarning::GoalInsideObstacle`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalPoint {
    /// Its goal (the final point of its route).
    Goal,
    /// Waypoint `k` of its route.
    Waypoint(usize),
    /// The goal given by the `set_goal` event with this index.
    SetGoal(usize),
}

/// One finding of [`Scenario::warnings`]. Obstacles are numbered as in the file (`#0` first),
/// events too; agents by id.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScenarioWarning {
    /// `max_ticks` is 0 (a run steps nothing), above [`ABSURD_MAX_TICKS`], or `u64::MAX`
    /// (unbounded: a run that never reaches every goal never stops).
    MaxTicks {
        /// The scenario's `max_ticks`.
        max_ticks: u64,
    },
    /// Events at or after `max_ticks`: a run (which steps ticks `0 .. max_ticks`) never applies
    /// them, and never reports every goal reached while an event is pending.
    EventsBeyondMaxTicks {
        /// How many events.
        count: usize,
        /// Index of the first of them.
        first_event: usize,
        /// Its tick.
        first_tick: u64,
        /// The scenario's `max_ticks`.
        max_ticks: u64,
    },
    /// A clockwise polygon: a room that keeps agents inside, not a solid block (RVO2's
    /// convention: agents are kept on the right of every edge; counter-clockwise = solid).
    Room {
        /// The obstacle.
        obstacle: usize,
    },
    /// An agent's start lies inside a solid (counter-clockwise) polygon, or on an obstacle's
    /// edge.
    StartInsideObstacle {
        /// The agent.
        agent: AgentId,
        /// The obstacle.
        obstacle: usize,
        /// On an edge (of any obstacle kind) rather than strictly inside a solid polygon.
        on_edge: bool,
    },
    /// An agent's disc at its start crosses an obstacle's edge (its centre is outside):
    /// `distance(start, edge) < radius`.
    StartTouchesObstacle {
        /// The agent.
        agent: AgentId,
        /// The obstacle.
        obstacle: usize,
    },
    /// Agents whose discs overlap at tick 0 (`|a - b| < r_a + r_b`; the scenario's agents and
    /// the agents added at tick 0).
    StartsOverlap {
        /// Number of overlapping pairs.
        pairs: u64,
        /// The pair that overlaps most (ties: the lowest ids), lower id first.
        deepest: (AgentId, AgentId),
        /// By how much it overlaps: `r_a + r_b - |a - b|`.
        depth: Fx,
    },
    /// A goal or waypoint inside a solid (counter-clockwise) polygon or on an obstacle's edge:
    /// the agent cannot get there.
    GoalInsideObstacle {
        /// The agent.
        agent: AgentId,
        /// Which of its points.
        point: GoalPoint,
        /// The obstacle.
        obstacle: usize,
        /// On an edge (of any obstacle kind) rather than strictly inside a solid polygon.
        on_edge: bool,
    },
    /// A navigating agent's goal (or `set_goal` goal) inside a solid polygon or on an
    /// obstacle's edge: the planner cannot reach it and ends the path at the nearest walkable
    /// point instead (the order's status says so).
    NavigateGoalBlocked {
        /// The agent.
        agent: AgentId,
        /// Which of its points ([`GoalPoint::Goal`] or [`GoalPoint::SetGoal`]).
        point: GoalPoint,
        /// The obstacle.
        obstacle: usize,
    },
    /// A navigating agent starts, or has its goal, outside the `[navigation]` boundary (or on
    /// it): off the map, where the planner has no mesh. The start is moved onto the map by
    /// the planner (the nearest walkable point), the goal likewise.
    OutsideNavBoundary {
        /// The agent.
        agent: AgentId,
        /// Its start (`true`) or its goal (`false`).
        start: bool,
    },
    /// More than [`MAX_LISTED_PER_KIND`] warnings of one kind: the others, counted.
    Omitted {
        /// The kind, as its variant name (`"StartInsideObstacle"`, ...).
        kind: &'static str,
        /// How many were left out.
        count: usize,
    },
}

impl fmt::Display for ScenarioWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::MaxTicks { max_ticks: 0 } => write!(f, "max_ticks = 0: a run steps no tick"),
            Self::MaxTicks {
                max_ticks: u64::MAX,
            } => write!(
                f,
                "max_ticks = {} is unbounded: a run that never reaches every goal never stops",
                u64::MAX
            ),
            Self::MaxTicks { max_ticks } => write!(
                f,
                "max_ticks = {max_ticks} is above {ABSURD_MAX_TICKS}: a run that does not \
                 finish steps every one of them"
            ),
            Self::EventsBeyondMaxTicks {
                count,
                first_event,
                first_tick,
                max_ticks,
            } => {
                write!(f, "event #{first_event} (tick {first_tick})")?;
                if count > 1 {
                    write!(f, " and {} more", count - 1)?;
                }
                write!(
                    f,
                    " at or after max_ticks = {max_ticks}: never applied, and the run never \
                     reports every goal reached"
                )
            }
            Self::Room { obstacle } => write!(
                f,
                "obstacle #{obstacle} is a room: clockwise, it keeps agents inside (a solid \
                 block is counter-clockwise)"
            ),
            Self::StartInsideObstacle {
                agent,
                obstacle,
                on_edge,
            } => write!(
                f,
                "agent {} starts {} obstacle #{obstacle}",
                agent.0,
                if on_edge { "on an edge of" } else { "inside" }
            ),
            Self::StartTouchesObstacle { agent, obstacle } => write!(
                f,
                "agent {} starts with its disc across an edge of obstacle #{obstacle}",
                agent.0
            ),
            Self::StartsOverlap {
                pairs,
                deepest: (a, b),
                depth,
            } => write!(
                f,
                "{pairs} pair{} of agents overlap at the start (deepest: agents {} and {}, by \
                 {depth})",
                if pairs == 1 { "" } else { "s" },
                a.0,
                b.0
            ),
            Self::GoalInsideObstacle {
                agent,
                point,
                obstacle,
                on_edge,
            } => {
                match point {
                    GoalPoint::Goal => write!(f, "agent {}: goal", agent.0)?,
                    GoalPoint::Waypoint(k) => write!(f, "agent {}: waypoint #{k}", agent.0)?,
                    GoalPoint::SetGoal(e) => write!(f, "agent {}: goal of event #{e}", agent.0)?,
                }
                if on_edge {
                    write!(f, " is on an edge of obstacle #{obstacle}")
                } else {
                    write!(f, " is inside obstacle #{obstacle}")
                }
            }
            Self::NavigateGoalBlocked {
                agent,
                point,
                obstacle,
            } => {
                match point {
                    GoalPoint::SetGoal(e) => write!(f, "agent {}: goal of event #{e}", agent.0)?,
                    _ => write!(f, "agent {}: goal", agent.0)?,
                }
                write!(
                    f,
                    " is inside obstacle #{obstacle} (or on its edge); the agent navigates, so \
                     its path ends at the nearest walkable point"
                )
            }
            Self::OutsideNavBoundary { agent, start } => write!(
                f,
                "agent {} navigates but its {} is not inside the navigation boundary",
                agent.0,
                if start { "start" } else { "goal" }
            ),
            Self::Omitted { kind, count } => {
                write!(f, "... and {count} more warnings of the kind {kind}")
            }
        }
    }
}

/// What an obstacle is to the agents, by its kind and winding (RVO2's convention: agents are
/// kept on the right of every edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObstacleKind {
    /// A counter-clockwise polygon: a solid block agents stay out of.
    Solid,
    /// A clockwise polygon: a room that keeps the agents inside it.
    Room,
    /// A polyline: a wall, repelling on both sides.
    Wall,
}

impl fmt::Display for ObstacleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Solid => "solid (counter-clockwise polygon)",
            Self::Room => "room (clockwise polygon)",
            Self::Wall => "wall (polyline)",
        })
    }
}

/// The kind of a shape: the sign of its exact signed area for a polygon.
#[must_use]
pub fn obstacle_kind(shape: &ObstacleShape) -> ObstacleKind {
    match shape {
        ObstacleShape::Polygon(v) if polygon_orientation(v) == Orientation::CounterClockwise => {
            ObstacleKind::Solid
        }
        ObstacleShape::Polygon(_) => ObstacleKind::Room,
        ObstacleShape::Polyline(_) => ObstacleKind::Wall,
    }
}

/// The edges of a shape: a polygon's closed ring, a polyline's open chain.
fn edges(shape: &ObstacleShape) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
    let (v, closed) = match shape {
        ObstacleShape::Polygon(v) => (v, true),
        ObstacleShape::Polyline(v) => (v, false),
    };
    let n = v.len();
    let count = if closed { n } else { n.saturating_sub(1) };
    (0..count).map(move |i| (v[i], v[(i + 1) % n]))
}

/// Smallest squared distance (raw Q64.64) from `p` to an edge of `shape`.
fn edge_dist_sq(shape: &ObstacleShape, p: Vec2) -> i128 {
    edges(shape)
        .map(|(a, b)| dist_sq_point_segment(a, b, p))
        .min()
        .unwrap_or(i128::MAX)
}

/// Whether `p` is on an edge of `shape` (`Some(true)`), strictly inside the solid part of it
/// (a counter-clockwise polygon's interior, `Some(false)`), or neither (`None`).
///
/// "On an edge" is a squared distance that rounds to zero ([`dist_sq_point_segment`]): every
/// point exactly on an edge, and possibly one within about an ulp of it. Any other point is off
/// the boundary, where [`point_in_polygon`] is the exact winding-number test.
fn blocked(shape: &ObstacleShape, solid: bool, p: Vec2) -> Option<bool> {
    if edge_dist_sq(shape, p) == 0 {
        return Some(true);
    }
    match shape {
        ObstacleShape::Polygon(v) if solid && point_in_polygon(v, p) == Containment::Inside => {
            Some(false)
        }
        _ => None,
    }
}

/// Warnings of one kind, listed up to [`MAX_LISTED_PER_KIND`], the rest counted.
struct Capped<'a> {
    out: &'a mut Vec<ScenarioWarning>,
    kind: &'static str,
    listed: usize,
}

impl Capped<'_> {
    fn push(&mut self, w: ScenarioWarning) {
        if self.listed < MAX_LISTED_PER_KIND {
            self.out.push(w);
        }
        self.listed += 1;
    }
}

impl Drop for Capped<'_> {
    fn drop(&mut self) {
        if self.listed > MAX_LISTED_PER_KIND {
            self.out.push(ScenarioWarning::Omitted {
                kind: self.kind,
                count: self.listed - MAX_LISTED_PER_KIND,
            });
        }
    }
}

impl Scenario {
    /// Each obstacle's kind, in file order: which polygons are solid, which are rooms, which
    /// obstacles are walls ([`ObstacleKind`]).
    #[must_use]
    pub fn obstacle_kinds(&self) -> Vec<ObstacleKind> {
        self.obstacles.iter().map(obstacle_kind).collect()
    }

    /// The validation report: what this scenario allows but its author most likely did not
    /// mean, in this order:
    ///
    /// 1. `max_ticks` 0, above [`ABSURD_MAX_TICKS`] (1,000,000) or `u64::MAX` (unbounded);
    /// 2. events at or after `max_ticks` (one warning for all of them);
    /// 3. clockwise polygons, which are rooms (agents kept inside), not solid blocks;
    /// 4. agents (scenario agents and agents added by events) starting inside a solid polygon
    ///    or on an edge, or with their disc across an edge;
    /// 5. agents overlapping each other at the start (one warning: the number of pairs and the
    ///    deepest one);
    /// 6. goals, waypoints and `set_goal` goals inside a solid polygon or on an edge (for a
    ///    navigating agent, [`ScenarioWarning::NavigateGoalBlocked`]: its path will end beside
    ///    the obstacle);
    /// 7. navigating agents whose start or goal is not strictly inside an explicit
    ///    `[navigation]` boundary.
    ///
    /// At most [`MAX_LISTED_PER_KIND`] warnings of kinds 4, 6 and 7 are listed each, then one
    /// [`ScenarioWarning::Omitted`]. Exact integer geometry: point-in-polygon by winding number
    /// on `i128` orientation tests, edge distances squared. Cost: agents × obstacle edges, plus
    /// a sweep over the starts sorted by x for the overlaps. A scenario that fails
    /// [`validate`](Self::validate) gets an empty report (its error says more).
    #[must_use]
    pub fn warnings(&self) -> Vec<ScenarioWarning> {
        let mut out = Vec::new();
        if self.validate().is_err() {
            return out;
        }
        if self.max_ticks == 0 || self.max_ticks > ABSURD_MAX_TICKS {
            out.push(ScenarioWarning::MaxTicks {
                max_ticks: self.max_ticks,
            });
        }
        let late: Vec<(usize, u64)> = self
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.tick >= self.max_ticks)
            .map(|(i, e)| (i, e.tick))
            .collect();
        if let Some(&(first_event, first_tick)) = late.first() {
            out.push(ScenarioWarning::EventsBeyondMaxTicks {
                count: late.len(),
                first_event,
                first_tick,
                max_ticks: self.max_ticks,
            });
        }
        let kinds = self.obstacle_kinds();
        let solid: Vec<bool> = kinds.iter().map(|&k| k == ObstacleKind::Solid).collect();
        for (i, &kind) in kinds.iter().enumerate() {
            if kind == ObstacleKind::Room {
                out.push(ScenarioWarning::Room { obstacle: i });
            }
        }
        // Every agent of the scene: (start, radius, goal), and how many are there at tick 0.
        let mut agents: Vec<(Vec2, Fx, Vec2)> = self
            .agents
            .iter()
            .map(|a| (a.start, a.params.radius, a.goal))
            .collect();
        let mut at_start = vec![true; agents.len()];
        for e in &self.events {
            if let EventAction::AddAgent(a) = e.action {
                agents.push((a.start, a.params.radius, a.goal));
                at_start.push(e.tick == 0);
            }
        }
        {
            let mut inside = Capped {
                out: &mut out,
                kind: "StartInsideObstacle",
                listed: 0,
            };
            let mut touching = Vec::new();
            for (id, &(start, radius, _)) in agents.iter().enumerate() {
                let agent = AgentId(id as u32);
                for (k, o) in self.obstacles.iter().enumerate() {
                    if let Some(on_edge) = blocked(o, solid[k], start) {
                        inside.push(ScenarioWarning::StartInsideObstacle {
                            agent,
                            obstacle: k,
                            on_edge,
                        });
                    } else if edge_dist_sq(o, start) < wide_mul(radius, radius) {
                        touching.push(ScenarioWarning::StartTouchesObstacle { agent, obstacle: k });
                    }
                }
            }
            drop(inside);
            let mut capped = Capped {
                out: &mut out,
                kind: "StartTouchesObstacle",
                listed: 0,
            };
            for w in touching {
                capped.push(w);
            }
        }
        let initial: Vec<(usize, Vec2, Fx)> = agents
            .iter()
            .enumerate()
            .filter(|&(i, _)| at_start[i])
            .map(|(i, a)| (i, a.0, a.1))
            .collect();
        if let Some(w) = overlaps(&initial) {
            out.push(w);
        }
        let mut goals = Capped {
            out: &mut out,
            kind: "GoalInsideObstacle",
            listed: 0,
        };
        let mut check = |agent: AgentId, point: GoalPoint, p: Vec2| {
            for (k, o) in self.obstacles.iter().enumerate() {
                if let Some(on_edge) = blocked(o, solid[k], p) {
                    goals.push(if self.navigate.contains(&agent) {
                        ScenarioWarning::NavigateGoalBlocked {
                            agent,
                            point,
                            obstacle: k,
                        }
                    } else {
                        ScenarioWarning::GoalInsideObstacle {
                            agent,
                            point,
                            obstacle: k,
                            on_edge,
                        }
                    });
                }
            }
        };
        for (id, &(_, _, goal)) in agents.iter().enumerate() {
            let agent = AgentId(id as u32);
            if let Some(route) = self.routes.get(&agent) {
                for (k, &w) in route.iter().enumerate() {
                    check(agent, GoalPoint::Waypoint(k), w);
                }
            }
            check(agent, GoalPoint::Goal, goal);
        }
        for (i, e) in self.events.iter().enumerate() {
            if let EventAction::SetGoal { id, goal } = e.action {
                check(id, GoalPoint::SetGoal(i), goal);
            }
        }
        drop(goals);
        self.boundary_warnings(&agents, &mut out);
        out
    }

    /// Kind 7 of [`warnings`](Self::warnings): navigating agents starting or heading outside
    /// an explicit boundary (`agents`: every agent's start, radius and goal, by id).
    fn boundary_warnings(&self, agents: &[(Vec2, Fx, Vec2)], out: &mut Vec<ScenarioWarning>) {
        let Some(boundary) = self.navigation.as_ref().and_then(|n| n.boundary.as_ref()) else {
            return;
        };
        let mut capped = Capped {
            out,
            kind: "OutsideNavBoundary",
            listed: 0,
        };
        for &agent in &self.navigate {
            let Some(&(start, _, goal)) = agents.get(agent.0 as usize) else {
                continue;
            };
            for (p, is_start) in [(start, true), (goal, false)] {
                if point_in_polygon(boundary, p) != Containment::Inside {
                    capped.push(ScenarioWarning::OutsideNavBoundary {
                        agent,
                        start: is_start,
                    });
                }
            }
        }
    }
}

/// The overlapping pairs among `(id, start, radius)`: a sweep over the agents sorted by x,
/// testing each agent against the later ones closer in x than its radius plus the largest
/// radius; exact (`|a - b|² < (r_a + r_b)²` in `i128`).
fn overlaps(agents: &[(usize, Vec2, Fx)]) -> Option<ScenarioWarning> {
    let r_max = agents.iter().map(|a| a.2).max()?;
    let mut order: Vec<usize> = (0..agents.len()).collect();
    order.sort_by_key(|&k| (agents[k].1.x, k));
    let mut pairs = 0u64;
    let mut deepest: Option<(Fx, (AgentId, AgentId))> = None;
    for (n, &k) in order.iter().enumerate() {
        let (i, p, r) = agents[k];
        let reach = r + r_max;
        for &l in &order[n + 1..] {
            let (j, q, s) = agents[l];
            if q.x - p.x >= reach {
                break;
            }
            let d2 = (q - p).length_squared_wide();
            let sum = r + s;
            if d2 < wide_mul(sum, sum) {
                pairs += 1;
                let depth = sum - sqrt_wide(d2);
                let pair = (AgentId(i.min(j) as u32), AgentId(i.max(j) as u32));
                let better =
                    deepest.is_none_or(|(d, best)| depth > d || (depth == d && pair < best));
                if better {
                    deepest = Some((depth, pair));
                }
            }
        }
    }
    deepest.map(|(depth, deepest)| ScenarioWarning::StartsOverlap {
        pairs,
        deepest,
        depth,
    })
}

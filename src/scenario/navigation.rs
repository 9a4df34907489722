//! Navigation in scenarios: the `[navigation]` table's checks, the settings a scene hands the
//! simulator ([`Scenario::nav_params`]) and the rules for agents with `navigate = true`.
//!
//! A navigating agent's goal is a [`Command::NavigateTo`](crate::command::Command::NavigateTo):
//! the simulator plans the path over its navigation mesh (`crate::navigation`) and follows it,
//! replanning when an obstacle event cuts it. The scene's own route (`route = [...]`) and the
//! roadmap policy are the other two ways to find a way; an agent uses one.

use super::{EventAction, Policy, Scenario, ScenarioError, sim_err};
use crate::command::Command;
use crate::domain::{self, check_range};
use crate::math::{Fx, Vec2};
use crate::navigation::NavParams;
use crate::obstacle::ObstacleShape;

/// Largest `margin` of the `[navigation]` table (units).
pub const MAX_NAV_MARGIN: Fx = Fx::lit("10000");

impl Scenario {
    /// Navigation: valid settings (a simple boundary polygon of at most 4,096 vertices inside the
    /// domain, a margin in `0 ..= 10,000`, a budget and a search cap of at least 1, a quick-plan
    /// cap of at most 64, traffic settings that pass
    /// [`TrafficParams::validate`](crate::navigation::traffic::TrafficParams::validate))
    /// whenever an agent navigates or the table is given; every navigating agent exists, has
    /// no route, and the policy is goal seeking.
    pub(super) fn validate_navigation(&self) -> Result<(), ScenarioError> {
        let invalid = |context: String, reason: &str| ScenarioError::Invalid {
            context,
            reason: reason.into(),
        };
        if let Some(p) = &self.navigation {
            if let Some(b) = &p.boundary {
                crate::obstacle::polygon::validate(&ObstacleShape::Polygon(b.clone()))
                    .map_err(sim_err("navigation boundary"))?;
            }
            check_range(p.margin, Fx::ZERO, MAX_NAV_MARGIN, "margin", "0 ..= 10,000")
                .map_err(sim_err("navigation"))?;
            if p.budget == 0 {
                return Err(invalid(
                    "navigation".into(),
                    "budget must be at least 1 (node expansions per tick)",
                ));
            }
            if p.search_cap == 0 {
                return Err(invalid(
                    "navigation".into(),
                    "search_cap must be at least 1 (node expansions per search)",
                ));
            }
            p.traffic
                .validate()
                .map_err(sim_err("navigation.traffic"))?;
            if p.quick_plan_cap > crate::navigation::MAX_QUICK_PLAN_CAP {
                return Err(invalid(
                    "navigation".into(),
                    "quick_plan_cap must be at most 64 (expansions of a quick first plan)",
                ));
            }
        }
        if matches!(self.policy, Policy::Roadmap { .. })
            && let Some(k) = self
                .events
                .iter()
                .position(|e| matches!(e.action, EventAction::Group(Command::GroupNavigate { .. })))
        {
            return Err(invalid(
                format!("event #{k}"),
                "`group_move` with `navigate = true` needs the goal_seeking policy (the roadmap \
                 policy steers by its own graph)",
            ));
        }
        let Some(&last) = self.navigate.last() else {
            return Ok(());
        };
        if self.navigation.is_none() {
            return Err(invalid(
                format!("agent {}", last.0),
                "navigates, but the scene has no navigation settings (`navigation: None`)",
            ));
        }
        let total = self.total_agents();
        if last.0 as usize >= total {
            return Err(invalid(
                format!("agent {}", last.0),
                &format!("navigates but the scene has only {total} agents"),
            ));
        }
        if matches!(self.policy, Policy::Roadmap { .. }) {
            return Err(invalid(
                format!("agent {}", last.0),
                "`navigate = true` needs the goal_seeking policy (the roadmap policy steers by \
                 its own graph)",
            ));
        }
        Ok(())
    }

    /// The navigation settings the built simulator gets (`None` without navigation): the
    /// scene's [`navigation`](Self::navigation), with a missing boundary replaced by the
    /// bounding box of the whole scene grown by `margin` on every side (clamped to the
    /// coordinate domain). The scene is every obstacle vertex (those of `add_obstacle` events
    /// too), every agent's start and goal (agents added by events too), every route point and
    /// every `set_goal` goal and the goal of every group and formation move. So a navigating
    /// agent starts inside the map even where the
    /// obstacles alone would give a smaller one (the simulator's own default boundary is the
    /// obstacles' box). The rectangle is counter-clockwise from its lower-left corner.
    #[must_use]
    pub fn nav_params(&self) -> Option<NavParams> {
        let mut params = self.navigation.clone()?;
        if params.boundary.is_none()
            && let Some((lo, hi)) = self.bounding_box()
        {
            let m = params.margin;
            let c = |v: Fx| v.clamp(-domain::MAX_COORD, domain::MAX_COORD);
            let (lo, hi) = (
                Vec2::new(c(lo.x - m), c(lo.y - m)),
                Vec2::new(c(hi.x + m), c(hi.y + m)),
            );
            params.boundary = Some(vec![lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)]);
        }
        Some(params)
    }

    /// The smallest box holding every point of the scene (see [`nav_params`](Self::nav_params)),
    /// `None` for an empty scene. A box of zero width or height is widened by one unit so it
    /// stays a polygon after a zero margin.
    fn bounding_box(&self) -> Option<(Vec2, Vec2)> {
        let mut points: Vec<Vec2> = Vec::new();
        for o in &self.obstacles {
            points.extend_from_slice(o.vertices());
        }
        for a in &self.agents {
            points.extend([a.start, a.goal]);
        }
        for route in self.routes.values() {
            points.extend(route);
        }
        for e in &self.events {
            match &e.action {
                EventAction::AddAgent(a) => points.extend([a.start, a.goal]),
                EventAction::SetGoal { goal, .. } => points.push(*goal),
                EventAction::AddObstacle(o) => points.extend_from_slice(o.vertices()),
                EventAction::Group(
                    Command::GroupMove { goal, .. }
                    | Command::GroupNavigate { goal, .. }
                    | Command::FormationMove { goal, .. }
                    | Command::FormationMarch { goal, .. },
                ) => points.push(*goal),
                _ => {}
            }
        }
        let first = *points.first()?;
        let (mut lo, mut hi) = (first, first);
        for p in points {
            lo = Vec2::new(lo.x.min(p.x), lo.y.min(p.y));
            hi = Vec2::new(hi.x.max(p.x), hi.y.max(p.y));
        }
        if hi.x == lo.x {
            hi.x += Fx::ONE;
        }
        if hi.y == lo.y {
            hi.y += Fx::ONE;
        }
        Some((lo, hi))
    }
}

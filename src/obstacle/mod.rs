//! Static obstacles (placeholder until the obstacle module lands: holds no obstacles).

use crate::AgentId;
use crate::math::{Fx, Vec2};
use crate::orca::Line;
use serde::{Deserialize, Serialize};

/// What obstacle-line construction needs to know about the agent.
#[derive(Clone, Copy, Debug)]
pub struct ObstacleAgent {
    /// Agent id.
    pub id: AgentId,
    /// Position.
    pub position: Vec2,
    /// Current velocity.
    pub velocity: Vec2,
    /// Radius.
    pub radius: Fx,
    /// Maximum speed.
    pub max_speed: Fx,
    /// Obstacle time horizon.
    pub time_horizon_obst: Fx,
}

/// Stable obstacle identifier (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObstacleId(pub u32);

/// An obstacle's outline, in RVO2's vertex convention.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObstacleShape {
    /// Closed polygon: counter-clockwise = solid obstacle, clockwise = boundary that keeps agents
    /// inside (e.g. a room or navmesh outline).
    Polygon(Vec<Vec2>),
    /// Open polyline (a wall), two or more vertices, passable from neither side.
    Polyline(Vec<Vec2>),
}

/// The set of static obstacles and its derived BSP tree.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ObstacleSet {}

impl ObstacleSet {
    /// Adds an obstacle. Placeholder: rejects everything until the obstacle module lands.
    ///
    /// # Errors
    /// Always [`crate::SimError::InvalidObstacle`] for now.
    pub fn add(&mut self, _shape: ObstacleShape) -> Result<ObstacleId, crate::SimError> {
        Err(crate::SimError::InvalidObstacle(
            "obstacles not implemented yet",
        ))
    }

    /// Removes an obstacle.
    ///
    /// # Errors
    /// [`crate::SimError::UnknownObstacle`].
    pub fn remove(&mut self, id: ObstacleId) -> Result<(), crate::SimError> {
        Err(crate::SimError::UnknownObstacle(id.0))
    }

    /// Visibility query (placeholder: no obstacles, always visible).
    pub fn query_visibility(&self, _from: Vec2, _to: Vec2, _radius: Fx) -> bool {
        true
    }

    /// Rebuilds derived structures if the set changed since the last build.
    pub fn ensure_built(&mut self) {}

    /// Appends the ORCA lines of every obstacle near `agent` to `out`; returns how many.
    pub fn agent_lines(&self, _agent: &ObstacleAgent, _out: &mut Vec<Line>) -> usize {
        0
    }
}

impl ObstacleSet {
    /// Appends the canonical bytes of the obstacle set (see [`crate::hash`]).
    pub fn write_canonical(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&0u32.to_le_bytes());
    }
}

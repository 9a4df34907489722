//! Static obstacles (placeholder until the obstacle module lands: holds no obstacles).

use crate::math::{Fx, Vec2};
use crate::orca::Line;
use crate::AgentId;
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

/// The set of static obstacles and its derived BSP tree.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ObstacleSet {}

impl ObstacleSet {
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

//! Agents: stable ids, per-agent parameters and their validation.

use crate::domain::{self, check_range, check_scale};
use crate::error::SimError;
use crate::math::Fx;
use serde::{Deserialize, Serialize};

/// Stable agent identifier. Ids are handed out in increasing order and never reused, even
/// after [`remove_agent`](crate::Simulator::remove_agent); every tie in the simulation is broken
/// by this id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AgentId(pub u32);

/// Per-agent parameters (RVO2's `setAgentDefaults` / `addAgent` arguments, as a struct).
///
/// Each field is checked against [`crate::domain`] when it enters a simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentParams {
    /// Maximum distance (centre to centre) at which other agents are considered. Default 15.
    /// Larger values cost neighbour-search time; smaller ones react later.
    pub neighbor_dist: Fx,
    /// Maximum number of agent neighbours taken into account (the nearest ones, ties by id).
    /// Default 10. Fewer is faster but risks ignoring a colliding agent.
    pub max_neighbors: u32,
    /// Seconds ahead for which velocities are safe with respect to other agents. Default 10.
    /// Larger values react earlier and more conservatively.
    pub time_horizon: Fx,
    /// Seconds ahead for which velocities are safe with respect to obstacles. Default 10.
    pub time_horizon_obst: Fx,
    /// Agent disc radius in world units. Default 1.5.
    pub radius: Fx,
    /// Maximum speed in units per second. Default 2.
    pub max_speed: Fx,
}

impl Default for AgentParams {
    /// RVO2's Circle example defaults: (15, 10, 10, 10, 1.5, 2).
    fn default() -> Self {
        Self {
            neighbor_dist: Fx::from_num(15),
            max_neighbors: 10,
            time_horizon: Fx::from_num(10),
            time_horizon_obst: Fx::from_num(10),
            radius: Fx::lit("1.5"),
            max_speed: Fx::from_num(2),
        }
    }
}

impl AgentParams {
    /// Checks every field, and the velocity-scale ratios for the given time step.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] or [`SimError::VelocityScale`] naming the first bad field.
    pub fn validate(&self, time_step: Fx) -> Result<(), SimError> {
        check_range(
            self.neighbor_dist,
            Fx::ZERO,
            domain::MAX_NEIGHBOR_DIST,
            "neighbor_dist",
            "0 ..= 10,000",
        )?;
        if self.max_neighbors > domain::MAX_NEIGHBORS {
            return Err(SimError::OutOfDomain {
                what: "max_neighbors",
                allowed: "0 ..= 1,024",
            });
        }
        let horizon = "0.001 ..= 10,000";
        check_range(
            self.time_horizon,
            domain::MIN_TIME,
            domain::MAX_TIME_HORIZON,
            "time_horizon",
            horizon,
        )?;
        check_range(
            self.time_horizon_obst,
            domain::MIN_TIME,
            domain::MAX_TIME_HORIZON,
            "time_horizon_obst",
            horizon,
        )?;
        check_range(
            self.radius,
            domain::MIN_RADIUS,
            domain::MAX_RADIUS,
            "radius",
            "0.001 ..= 1,000",
        )?;
        check_range(
            self.max_speed,
            Fx::ZERO,
            domain::MAX_SPEED,
            "max_speed",
            "0 ..= 1,000",
        )?;
        check_scale(self.radius, time_step, "radius / time_step")?;
        check_scale(self.radius, self.time_horizon, "radius / time_horizon")?;
        check_scale(
            self.radius,
            self.time_horizon_obst,
            "radius / time_horizon_obst",
        )?;
        check_scale(
            self.neighbor_dist,
            self.time_horizon,
            "neighbor_dist / time_horizon",
        )?;
        Ok(())
    }
}

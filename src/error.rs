//! The error type of every fallible call.

use crate::agent::AgentId;
use std::fmt;

/// Why a call was rejected. A rejected call never changes the simulator's state.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SimError {
    /// A parameter lies outside the documented numeric domain ([`crate::domain`]).
    OutOfDomain {
        /// The parameter's name, e.g. `"radius"` or `"position"`.
        what: &'static str,
        /// The accepted range, in words.
        allowed: &'static str,
    },
    /// A ratio of parameters would let a velocity-space quantity leave the domain
    /// (see [`crate::domain::MAX_VELOCITY_SCALE`]).
    VelocityScale {
        /// Which ratio, e.g. `"radius / time_step"`.
        ratio: &'static str,
        /// The limit it exceeds, in units per second
        /// ([`MAX_VELOCITY_SCALE`](crate::domain::MAX_VELOCITY_SCALE)).
        limit: i32,
    },
    /// No agent has this id (never added, or removed).
    UnknownAgent(AgentId),
    /// A step would move this agent outside the coordinate domain.
    AgentLeftDomain(AgentId),
    /// The id counter is exhausted (2³² agents added over the simulator's life).
    TooManyAgents,
    /// An obstacle was rejected; the reason says why.
    InvalidObstacle(&'static str),
    /// No obstacle has this id.
    UnknownObstacle(u32),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfDomain { what, allowed } => {
                write!(f, "{what} is outside the domain (allowed: {allowed})")
            }
            Self::VelocityScale { ratio, limit } => write!(
                f,
                "{ratio} exceeds the velocity scale limit of {limit} units/s"
            ),
            Self::UnknownAgent(id) => write!(f, "no agent with id {}", id.0),
            Self::AgentLeftDomain(id) => {
                write!(f, "agent {} would leave the coordinate domain", id.0)
            }
            Self::TooManyAgents => write!(f, "agent id space exhausted"),
            Self::InvalidObstacle(why) => write!(f, "invalid obstacle: {why}"),
            Self::UnknownObstacle(id) => write!(f, "no obstacle with id {id}"),
        }
    }
}

impl std::error::Error for SimError {}

//! The ORCA core: half-plane construction and the linear programs, as pure functions.
//!
//! Nothing here knows about a world: an agent, its neighbours' states and a few parameters go in,
//! [`Line`]s and a velocity come out, so every branch is testable with hand-computed numbers.
//!
//! * [`lines`] builds ORCA half-planes (agent–agent here; obstacle lines in the obstacle module).
//! * [`lp`] holds RVO2's incremental linear programs LP1, LP2 and LP3, and [`lp::solve`], one
//!   agent's velocity.
//! * [`lens`] holds the same programs over the lens of the speed circle and the reachable
//!   circle, for an agent with an acceleration limit
//!   ([`AgentModel::max_accel`](crate::agent_model::AgentModel::max_accel)), and its braking
//!   rule (docs/agent-model.md).
//! * `reference` (feature `test-oracles`) is a brute-force candidate solver, the test oracle of
//!   LP2 and of the lens LP.

pub mod lens;
pub mod lines;
pub mod lp;
#[cfg(any(test, feature = "test-oracles"))]
pub mod reference;

use crate::math::Vec2;
use serde::{Deserialize, Serialize};

/// A directed line `point + t·direction`; the permitted half-plane is on its **left**
/// (`direction.det(v - point) >= 0`), as in RVO2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// A point on the line.
    pub point: Vec2,
    /// Unit direction of the line.
    pub direction: Vec2,
}

impl Line {
    /// How far `v` lies on the forbidden (right) side: `det(direction, point - v)`, positive when
    /// violated. Exact (`i128`) so the sign test never rounds.
    #[inline]
    #[must_use]
    pub fn violation_wide(&self, v: Vec2) -> i128 {
        self.direction.det_wide(self.point - v)
    }
}

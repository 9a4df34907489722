//! # lockstep-orca
//!
//! Deterministic ORCA crowd avoidance (the algorithm of RVO2) in fixed-point integer math:
//! two machines fed the same inputs produce the same bytes, tick after tick.
//!
//! See the README for the numeric domain, the determinism contract and the architecture.
#![deny(clippy::float_arithmetic)]
#![warn(missing_docs)]

pub mod agent;
pub mod command;
pub mod domain;
pub mod error;
pub mod golden;
pub mod hash;
pub mod math;
pub mod obstacle;
pub mod orca;
pub mod replay;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod spatial;

pub use agent::{AgentId, AgentParams};
pub use command::{Command, PendingCommand, RejectedCommand};
pub use error::SimError;
pub use math::{Fx, Vec2};
pub use obstacle::{ObstacleId, ObstacleShape};
pub use replay::{Replay, VerifyReport};
pub use sim::{Simulator, SimulatorParams};
pub use snapshot::SnapshotError;

//! # lockstep-orca
//!
//! Deterministic crowd collision avoidance for lockstep simulations: ORCA (the algorithm of
//! RVO2) in fixed-point integer math. Two machines fed the same inputs produce the same bytes,
//! tick after tick, on every architecture.
//!
//! ```
//! use lockstep_orca::{Fx, Simulator, SimulatorParams, Vec2};
//!
//! let mut sim = Simulator::new(SimulatorParams::default())?;
//! let a = sim.add_agent(Vec2::from_int(-10, 0))?;
//! let b = sim.add_agent(Vec2::from_int(10, 1))?;
//! sim.set_agent_pref_velocity(a, Vec2::from_int(1, 0))?;
//! sim.set_agent_pref_velocity(b, Vec2::from_int(-1, 0))?;
//! for _ in 0..100 {
//!     sim.step()?;
//! }
//! assert!(sim.agent_position(a)?.x > Fx::from_num(10)); // they passed each other
//! # Ok::<(), lockstep_orca::SimError>(())
//! ```
//!
//! ## Where things are
//!
//! | item | what |
//! | --- | --- |
//! | [`Simulator`] | agents, obstacles and the tick ([`tick`] lists its stages; [`StepStats`] counts what they did) |
//! | [`liveness`] | deadlock resolution without randomness (on by default; [`Liveness::Rvo2`] is RVO2 exactly) and [`AgentOutcome`] |
//! | [`Agents`] | the agent store: every agent's state by slot, read-only (`sim.agents()`) |
//! | [`math`] | [`Fx`] (Q32.32) and [`Vec2`], with every rounding rule stated |
//! | [`domain`] | the guaranteed numeric domain and its checks |
//! | [`geom`] | exact plane geometry: orientation, segment intersection, point–segment distance, polygon area and containment |
//! | [`orca`] | the pure ORCA core: agent lines, LP1/LP2/LP3 |
//! | [`obstacle`] | static obstacles: validation, BSP tree, obstacle lines, visibility |
//! | [`navigation`] | the navigation mesh, planned paths and path queries |
//! | [`command`] | lockstep inputs queued per tick, applied in canonical order |
//! | [`hash`], [`snapshot`], [`replay`] | the determinism contract: state hash, snapshots, replays |
//! | `netcode` | the ggrs adapter: the simulator as rollback / lockstep game state, validated order messages (feature `ggrs`, off by default) |
//! | `scenario`, `golden` | scenario files, the goal-seeking driver, golden runs (feature `scenario`, on by default) |
//! | [`docs`] | the manual: scenarios, determinism, replays, obstacles, numeric domain, RVO2, performance, architecture, netcode |
//!
//! ## Features
//! * `scenario` (default): the scenario format (TOML), the driver, golden runs. Without it
//!   (`default-features = false`) the crate is the simulator, snapshots, replays and hashes,
//!   with no `toml` dependency.
//! * `cli` (default, implies `scenario`): the `lockstep-orca` command-line runner and its
//!   dependencies.
//! * `ggrs` (off): the `netcode` module, the simulator as [ggrs](https://docs.rs/ggrs/0.13)
//!   0.13 game state (rollback and lockstep), with the `ggrs` dependency.
//! * `test-oracles`: brute-force references and internal structures for the crate's own
//!   tests (`oracles`, and with `ggrs` `NetGame::set_frame_for_test`); not a stable API.

#![forbid(unsafe_code)]

mod agent;
pub mod agent_model;
pub mod command;
pub mod docs;
pub mod domain;
mod error;
pub mod geom;
#[cfg(feature = "scenario")]
pub mod golden;
pub mod hash;
pub mod liveness;
pub mod math;
pub mod navigation;
#[cfg(feature = "ggrs")]
pub mod netcode;
pub mod obstacle;
#[cfg(feature = "test-oracles")]
pub mod oracles;
pub mod orca;
pub mod orders;
pub mod replay;
#[cfg(feature = "scenario")]
pub mod scenario;
mod sim;
pub mod snapshot;
mod snapshot_diff;
mod spatial;
pub mod tick;
mod util;

pub use agent::{Agent, AgentId, AgentParams, Agents, DEFAULT_PRIORITY};
pub use agent_model::AgentModel;
pub use command::{Command, CommandQueue, PendingCommand, RejectedCommand};
pub use error::SimError;
pub use liveness::Liveness;
pub use math::{Fx, Vec2};
pub use navigation::{NavParams, PathStatus};
pub use obstacle::{ObstacleId, ObstacleNeighbors, ObstacleShape};
pub use orders::{Order, OrderEvent, OrderStatus, Steering};
pub use replay::{Replay, VerifyReport};
pub use sim::{NavRecord, SimState, Simulator, SimulatorParams};
pub use snapshot::SnapshotError;
pub use tick::{AgentOutcome, StageTimes, StepStats};
pub use util::splitmix64;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

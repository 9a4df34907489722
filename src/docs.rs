//! The manual: the repository's `docs/*.md` files, one module each.
//!
//! They are included here so docs.rs shows them and every Rust code block in them compiles and
//! runs as a doctest (`cargo test --doc`): an example that stops matching the code fails the
//! build. `tests/docs.rs` checks the command outputs they quote. The modules are empty; read
//! their documentation.

#[cfg(feature = "scenario")]
#[doc = include_str!("../docs/scenarios.md")]
pub mod scenarios {}

#[doc = include_str!("../docs/determinism.md")]
pub mod determinism {}

#[doc = include_str!("../docs/orders.md")]
pub mod orders {}

#[doc = include_str!("../docs/replays.md")]
pub mod replays {}

#[doc = include_str!("../docs/obstacles.md")]
pub mod obstacles {}

#[doc = include_str!("../docs/navigation.md")]
pub mod navigation {}

#[doc = include_str!("../docs/formations.md")]
pub mod formations {}

#[doc = include_str!("../docs/domain.md")]
pub mod domain {}

#[doc = include_str!("../docs/rvo2.md")]
pub mod rvo2 {}

#[doc = include_str!("../docs/agent-model.md")]
pub mod agent_model {}

#[doc = include_str!("../docs/performance.md")]
pub mod performance {}

#[doc = include_str!("../docs/architecture.md")]
pub mod architecture {}

#[doc = include_str!("../docs/cli.md")]
pub mod cli {}

#[cfg(feature = "ggrs")]
#[doc = include_str!("../docs/netcode.md")]
pub mod netcode {}

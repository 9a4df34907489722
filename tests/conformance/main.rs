//! Conformance with RVO2 and with independent references: the float port of RVO2
//! (`common/rvo2_float.rs`) against the recorded C++ runs, our fixed point against RVO2 (one
//! step, Circle's trajectory, obstacles), the LP and the ORCA line branches against references,
//! and the obstacle scenes' wall holding.
//!
//! One test binary (each module was its own `tests/*.rs` binary before):
//! `cargo test --release --test conformance rvo2_float:: -- --nocapture` runs one module.

mod common;

#[cfg(feature = "scenario")]
mod circle;
mod conformance_agents;
mod conformance_circle;
mod lp_lens_reference;
mod lp_reference;
mod obstacles_conformance;
#[cfg(feature = "scenario")]
mod obstacles_scenes;
mod obstacles_walls;
mod orca_branches;
#[cfg(feature = "scenario")]
mod rvo2_float;

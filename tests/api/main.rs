//! The public API: agent lookup, the numeric domain at the boundary and at its edges, the
//! obstacle set, the world commands, the scenario format and driver, and the `lockstep-orca`
//! command-line tool (`cli` and `pictures`, with the `cli` feature, which the binary needs).
//!
//! One test binary (each module was its own `tests/*.rs` binary before): `cargo test --test api`,
//! one module with `cargo test --test api scenario::`.

mod agent_lookup;
mod agent_model;
mod arrival;
#[cfg(feature = "scenario")]
mod arrival_figures;
#[cfg(feature = "cli")]
mod cli;
mod domain;
mod domain_edges;
mod domain_reach;
#[cfg(feature = "scenario")]
mod errors;
mod formation;
mod formation_march;
mod formation_review;
mod geom;
mod group_navigate;
mod groups;
#[cfg(feature = "scenario")]
mod liveness_scenes;
mod nav_legs;
mod navigation;
mod obstacles_api;
mod orders;
#[cfg(feature = "cli")]
mod pictures;
#[cfg(feature = "scenario")]
mod routes;
#[cfg(feature = "scenario")]
mod scenario;
#[cfg(feature = "scenario")]
mod scenario_navigation;
#[cfg(feature = "scenario")]
mod scenario_warnings;
mod world_commands;

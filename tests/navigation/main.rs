//! Navigation tests: the mesh, the planner, path quality against an independent oracle.

mod buried;
mod crowds;
#[cfg(feature = "scenario")]
mod doors;
mod mesh;
mod mixed_sizes;
mod one_sided;
mod planner;
mod quality;
mod rebuild;
mod settled;
mod sweep;
#[cfg(feature = "scenario")]
mod traffic;
mod walls;

//! Helpers shared by integration tests.
pub mod obstacle_scenes;
pub mod rvo2_float;

//! Helpers shared by integration tests.
pub mod obstacle_scenes;

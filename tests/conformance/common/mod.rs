//! Helpers shared by integration tests.
pub mod rvo2_float;
pub mod scenes;

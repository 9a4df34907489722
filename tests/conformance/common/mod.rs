//! Helpers of the conformance tests: the float port of RVO2 ([`rvo2_float`]) and the obstacle
//! scenes of `fixtures/scenarios/` loaded through the scenario API ([`scenes`]).
pub mod rvo2_float;
#[cfg(feature = "scenario")]
pub mod scenes;

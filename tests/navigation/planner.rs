//! Navigation: planner tests.

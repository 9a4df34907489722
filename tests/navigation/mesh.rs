//! Navigation: mesh tests.

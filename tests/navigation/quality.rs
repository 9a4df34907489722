//! Navigation: quality tests.

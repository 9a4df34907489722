//! Exact predicates beyond [`crate::geom`]: the in-circle test.

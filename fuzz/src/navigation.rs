//! The navigation mesh's triangulation kernel, compiled from the crate's sources into this
//! package's tests (the kernel is crate-private in `lockstep-orca`, so no public path reaches
//! it). The included files name `crate::geom`, `crate::math` and `crate::navigation`, which
//! `lib.rs` provides by re-exporting the crate's public items; nothing is copied, so the fuzz
//! target checks the very code the crate builds. When the crate exposes the kernel (for example
//! under its `test-oracles` feature), this file and the two re-export modules go.

pub(crate) use lockstep_orca::navigation::NO_TRIANGLE;

#[path = "../../src/navigation/predicates.rs"]
pub(crate) mod predicates;

#[path = "../../src/navigation/cdt/mod.rs"]
pub(crate) mod cdt;

//! Fuzz targets of lockstep-orca: see [`targets`] and `fuzz/README.md`. The library itself is
//! empty; the targets are its tests.

#[cfg(test)]
mod net_messages;
#[cfg(test)]
mod targets;

// The navigation kernel, exposed by the crate's `test-oracles` feature (see `navigation.rs`).
#[cfg(test)]
mod nav_mesh;
#[cfg(test)]
mod nav_plan;
#[cfg(test)]
mod navigation;

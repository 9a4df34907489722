//! Fuzz targets of lockstep-orca: see [`targets`] and `fuzz/README.md`. The library itself is
//! empty; the targets are its tests.

#[cfg(test)]
mod targets;

#[cfg(test)]
mod nav_mesh;

//! Fuzz targets of lockstep-orca: see [`targets`] and `fuzz/README.md`. The library itself is
//! empty; the targets are its tests.

#[cfg(test)]
mod net_messages;
#[cfg(test)]
mod targets;

// The navigation kernel's sources and the crate paths they name (see `navigation.rs`).
#[cfg(test)]
#[allow(dead_code)]
mod navigation;
#[cfg(test)]
mod geom {
    pub(crate) use lockstep_orca::geom::left_of;
}
#[cfg(test)]
mod math {
    pub(crate) use lockstep_orca::math::Vec2;
}
#[cfg(test)]
mod nav_mesh;

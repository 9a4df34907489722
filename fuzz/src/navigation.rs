//! The navigation mesh's triangulation kernel, as the crate exposes it under its
//! `test-oracles` feature (`lockstep_orca::navigation::cdt`, with the brute-force validator
//! `cdt::check`), under the path the `nav_cdt` target names.

pub(crate) use lockstep_orca::navigation::cdt;

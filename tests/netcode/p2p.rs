//! The two-process tests of `examples/ggrs_p2p.rs` (next commit).

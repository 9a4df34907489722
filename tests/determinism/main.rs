//! The determinism contract: golden state hashes, snapshots, replays (world changes included),
//! translation invariance, hostile-input decoding, the pair-reuse shortcut, the kd-tree and the
//! numeric kernels against their references.
//!
//! One test binary (each module was its own `tests/*.rs` binary before):
//! `cargo test --test determinism`, one module with `cargo test --test determinism golden::`.
//! `det_support` holds the random scenes and input scripts the modules share.

mod det_support;

mod decode_fuzz;
#[cfg(feature = "scenario")]
mod golden;
mod kdtree_reference;
mod kernels;
mod liveness;
mod nav_legs;
mod nav_restore;
mod nav_soak;
mod pair_reuse;
#[cfg(feature = "parallel")]
mod parallel;
mod replay;
mod snapshot;
mod snapshot_diff;
mod translation;
mod world_replay;

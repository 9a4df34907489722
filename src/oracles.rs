//! Test oracles (feature `test-oracles`, off by default): the brute-force references the
//! crate's tests check the fast paths against, and the internal structures they inspect.
//!
//! Not part of the stable API: these items may change in any release. The crate's own
//! integration tests enable the feature through a dev-dependency on the crate itself.
//!
//! With the `ggrs` feature the feature also adds `NetGame::set_frame_for_test` (a method, so
//! not re-exported here), which puts a netcode game's frame counter near its end.

pub use crate::obstacle::bsp::{Bsp, FragmentView, SplitChoice, query_edges_brute, visible_brute};
pub use crate::obstacle::lines::{ObstacleBranch, VertexView, obstacle_line};
pub use crate::obstacle::polygon::{ObstacleVertex, push_shape, ring, validate};
pub use crate::orca::reference;
pub use crate::spatial::kdtree::{AgentTree, NeighborKey};

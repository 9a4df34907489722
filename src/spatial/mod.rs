//! Spatial indices: the agent kd-tree (rebuilt every tick from positions and ids).

pub mod kdtree;

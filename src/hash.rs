//! The canonical state encoding and its hash.
//!
//! [`Simulator::state_hash`](crate::Simulator::state_hash) is `xxh3_64` (XXH3, 64-bit, seed 0,
//! from the `xxhash-rust` crate) of these bytes, all integers little-endian, every scalar as its
//! raw Q32.32 `i64` bits:
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `b"LSORCA01"` (changes with the encoding) |
//! | 8 | tick (`u64`) |
//! | 8 | global time |
//! | 8 | time step |
//! | 4 | next agent id (`u32`) |
//! | 36 | agent defaults: neighbor_dist, max_neighbors (`u32`), time_horizon, time_horizon_obst, radius, max_speed |
//! | 4 | agent count (`u32`) |
//! | 84 per agent, ascending id | id (`u32`), position x, y, velocity x, y, pref velocity x, y, then the 36 parameter bytes |
//! | … | obstacle set, see [`ObstacleSet::write_canonical`](crate::obstacle::ObstacleSet::write_canonical) |
//!
//! Derived data (kd-tree, obstacle BSP, neighbour lists) is not included: it is a function of
//! the above.

use crate::agent::AgentParams;
use crate::math::{Fx, Vec2};
use crate::sim::Simulator;

/// Magic prefix of the canonical encoding.
pub const CANONICAL_MAGIC: &[u8; 8] = b"LSORCA01";

/// The hash function: XXH3-64 with seed 0.
#[must_use]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

fn fx(out: &mut Vec<u8>, v: Fx) {
    out.extend_from_slice(&v.to_bits().to_le_bytes());
}

fn vec2(out: &mut Vec<u8>, v: Vec2) {
    fx(out, v.x);
    fx(out, v.y);
}

fn params(out: &mut Vec<u8>, p: &AgentParams) {
    fx(out, p.neighbor_dist);
    out.extend_from_slice(&p.max_neighbors.to_le_bytes());
    fx(out, p.time_horizon);
    fx(out, p.time_horizon_obst);
    fx(out, p.radius);
    fx(out, p.max_speed);
}

pub(crate) fn write_state(sim: &Simulator, out: &mut Vec<u8>) {
    let s = sim.raw_parts();
    out.extend_from_slice(CANONICAL_MAGIC);
    out.extend_from_slice(&s.tick.to_le_bytes());
    fx(out, s.global_time);
    fx(out, s.time_step);
    out.extend_from_slice(&s.next_id.to_le_bytes());
    params(out, s.defaults);
    out.extend_from_slice(&(s.ids.len() as u32).to_le_bytes());
    for i in 0..s.ids.len() {
        out.extend_from_slice(&s.ids[i].0.to_le_bytes());
        vec2(out, s.positions[i]);
        vec2(out, s.velocities[i]);
        vec2(out, s.pref_velocities[i]);
        params(out, &s.params[i]);
    }
    s.obstacles.write_canonical(out);
}

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
//! | 44 | agent defaults: neighbor_dist, max_neighbors (`u32`), time_horizon, time_horizon_obst, radius, max_speed |
//! | 4 | agent count (`u32`) |
//! | 96 per agent, ascending id | id (`u32`), position x, y, velocity x, y, pref velocity x, y, then the 44 parameter bytes |
//! | … | obstacle set, see [`ObstacleSet::write_canonical`](crate::obstacle::ObstacleSet::write_canonical) |
//! | 4 | pending command count (`u32`) |
//! | … per pending command, in canonical order ([`crate::command`]) | tick (`u64`), tag (`u8`, [`Command::tag`](crate::command::Command::tag)), then the variant's fields: |
//! | | tag 0 `SetPrefVelocity`: id (`u32`), v x, y (20 bytes) |
//! | | tag 1 `AddAgent`: position x, y, the 44 parameter bytes (60 bytes) |
//! | | tag 2 `RemoveAgent`: id (`u32`) (4 bytes) |
//! | | tag 3 `SetParams`: id (`u32`), the 44 parameter bytes (48 bytes) |
//! | | tag 4 `SetPosition`: id (`u32`), position x, y (20 bytes) |
//! | | tag 5 `SetVelocity`: id (`u32`), v x, y (20 bytes) |
//!
//! Pending commands are hashed because they decide future ticks; with no commands queued (the
//! usual state between steps when inputs are queued just before their tick) they add 4 bytes.
//!
//! Derived data (kd-tree, obstacle BSP, neighbour lists) is not included: it is a function of
//! the above.

use crate::agent::AgentParams;
use crate::command::{Command, PendingCommand};
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
        write_agent(sim, i, out);
    }
    s.obstacles.write_canonical(out);
    out.extend_from_slice(&(s.pending.len() as u32).to_le_bytes());
    for p in s.pending {
        write_pending(p, out);
    }
}

/// The 84 canonical bytes of the agent in `slot` (one row of the table above).
pub(crate) fn write_agent(sim: &Simulator, slot: usize, out: &mut Vec<u8>) {
    let s = sim.raw_parts();
    out.extend_from_slice(&s.ids[slot].0.to_le_bytes());
    vec2(out, s.positions[slot]);
    vec2(out, s.velocities[slot]);
    vec2(out, s.pref_velocities[slot]);
    params(out, &s.params[slot]);
}

fn write_pending(p: &PendingCommand, out: &mut Vec<u8>) {
    out.extend_from_slice(&p.tick.to_le_bytes());
    out.push(p.command.tag());
    match &p.command {
        Command::SetPrefVelocity { id, v } | Command::SetVelocity { id, v } => {
            out.extend_from_slice(&id.0.to_le_bytes());
            vec2(out, *v);
        }
        Command::AddAgent {
            position,
            params: pa,
        } => {
            vec2(out, *position);
            params(out, pa);
        }
        Command::RemoveAgent { id } => out.extend_from_slice(&id.0.to_le_bytes()),
        Command::SetParams { id, params: pa } => {
            out.extend_from_slice(&id.0.to_le_bytes());
            params(out, pa);
        }
        Command::SetPosition { id, position } => {
            out.extend_from_slice(&id.0.to_le_bytes());
            vec2(out, *position);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Simulator, SimulatorParams, Vec2};

    /// The table above, checked: header 84 bytes, 96 per agent, 9 for an empty obstacle set,
    /// 4 for an empty command queue.
    #[test]
    fn canonical_layout_sizes_match_the_table() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let mut out = Vec::new();
        sim.write_canonical_bytes(&mut out);
        assert_eq!(out.len(), 8 + 8 + 8 + 8 + 4 + 44 + 4 + 9 + 4);
        assert_eq!(&out[..8], super::CANONICAL_MAGIC);
        for i in 0..3 {
            sim.add_agent(Vec2::from_int(i, 0)).unwrap();
        }
        out.clear();
        sim.write_canonical_bytes(&mut out);
        assert_eq!(out.len(), 84 + 3 * 96 + 9 + 4);
    }
}

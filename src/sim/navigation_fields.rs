//! Shared searches in stage 1a: which requests are served from a distance field (the
//! `(goal, radius)` keys shared by enough navigating agents, read from state) and the fields
//! kept between ticks (a cache, never state). See [`Field`] for why a cached field answers as a
//! fresh one does.

use super::{FIELD_MIN_USERS, NavRecord};
use crate::agent::{AgentId, AgentParams};
use crate::math::{Fx, Vec2};
use crate::navigation::{Field, FieldKey, NavMesh};
use crate::util::SeededWords;
use std::collections::HashMap;
use std::sync::Arc;

/// Most distance fields kept between ticks; past it the least recently used goes. Also the most
/// fields one tick fetches ([`serve_requests`](super::Simulator::serve_requests) keeps the
/// requests of further keys pending), so the cache never drops a field the tick is using.
pub(super) const FIELD_CACHE: usize = 8;

/// The distance fields kept between ticks, each with the mesh it was made on and the tick it
/// was last used. A cache, never state: a field's content is a function of its mesh and key,
/// and a triangle's corridor and rank do not depend on how far the field has grown
/// ([`Field`]), so a hit, a miss and a restored simulator give the same plans and charges.
#[derive(Clone, Debug, Default)]
pub(super) struct FieldCache {
    entries: Vec<(Arc<NavMesh>, Field, u64)>,
    /// The index of the entry returned last.
    last: Option<usize>,
}

impl FieldCache {
    /// The field of `key` on `mesh`, made when missing (dropping fields of other meshes and,
    /// past [`FIELD_CACHE`], the least recently used).
    pub(super) fn get(&mut self, mesh: &Arc<NavMesh>, key: FieldKey, tick: u64) -> &mut Field {
        // The field asked for last, asked again (units of one goal served in a row): every
        // entry is of its mesh then (the last call dropped the others).
        if let Some(k) = self.last
            && let Some((m, f, _)) = self.entries.get(k)
            && Arc::ptr_eq(m, mesh)
            && f.key() == key
        {
            let entry = &mut self.entries[k];
            entry.2 = tick;
            return &mut entry.1;
        }
        self.entries.retain(|(m, _, _)| Arc::ptr_eq(m, mesh));
        let at = match self.entries.iter().position(|(_, f, _)| f.key() == key) {
            Some(k) => k,
            None => {
                if self.entries.len() >= FIELD_CACHE
                    && let Some(old) = (0..self.entries.len()).min_by_key(|&k| self.entries[k].2)
                {
                    // Never one this tick fetched: a tick fetches at most `FIELD_CACHE`.
                    debug_assert!(self.entries[old].2 < tick, "a field of this tick dropped");
                    self.entries.swap_remove(old);
                }
                self.entries
                    .push((Arc::clone(mesh), Field::new(mesh, key), tick));
                self.entries.len() - 1
            }
        };
        self.last = Some(at);
        let entry = &mut self.entries[at];
        entry.2 = tick;
        &mut entry.1
    }
}

/// How many navigating agents share each `(goal, radius)` key ([`goal_radius`]): the keys
/// shared by at least [`FIELD_MIN_USERS`] get their plans from fields. From state only (the
/// records, which stay after arrival, and the agents' radii): a count per key, read by
/// [`SharedKeys::field_key`] and never iterated, so the map's order never matters. Its hash ([`SeededWords`]) is seeded at random per process: goals a
/// hostile peer sends cannot be chosen to collide (the counts, and so the plans, do not depend
/// on it).
pub(super) fn shared_keys(
    records: &[(AgentId, NavRecord)],
    ids: &[AgentId],
    params: &[AgentParams],
) -> SharedKeys {
    let mut counts = HashMap::with_capacity_and_hasher(records.len(), SeededWords::default());
    // Runs of one key (agents sent together) are counted first and added to the map once.
    let mut run: Option<((i64, i64, i64), u32)> = None;
    let mut slot = 0;
    for (id, r) in records {
        while slot < ids.len() && ids[slot] < *id {
            slot += 1;
        }
        if ids.get(slot) == Some(id) {
            let key = goal_radius(r.goal, params[slot].radius);
            match &mut run {
                Some((k, n)) if *k == key => *n += 1,
                _ => {
                    if let Some((k, n)) = run.replace((key, 1)) {
                        *counts.entry(k).or_insert(0u32) += n;
                    }
                }
            }
        }
    }
    if let Some((k, n)) = run {
        *counts.entry(k).or_insert(0u32) += n;
    }
    SharedKeys(counts)
}

/// A `(goal, radius)` key's raw bits, as [`shared_keys`] counts them.
pub(super) fn goal_radius(goal: Vec2, radius: Fx) -> (i64, i64, i64) {
    (goal.x.to_bits(), goal.y.to_bits(), radius.to_bits())
}

/// How many navigating agents share each `(goal, radius)` key ([`shared_keys`]).
#[derive(Debug, Default)]
pub(super) struct SharedKeys(HashMap<(i64, i64, i64), u32, SeededWords>);

impl SharedKeys {
    /// The field key of agents of `radius` sent to `goal` when at least
    /// [`FIELD_MIN_USERS`] share it (their plans come from its field): its
    /// [`choke_cost`](FieldKey::choke_cost) is [`crowd_choke_cost`] of their number.
    pub(super) fn field_key(&self, goal: Vec2, radius: Fx) -> Option<FieldKey> {
        let &n = self.0.get(&goal_radius(goal, radius))?;
        (n as usize >= FIELD_MIN_USERS).then(|| FieldKey {
            choke_cost: crowd_choke_cost(radius, n),
            ..FieldKey::new(goal, radius)
        })
    }
}

/// The choke cost of a field shared by `users` agents of `radius`: `radius` times the
/// largest power of two not above `users`, at most [`CROWD_CHOKE_USERS`] (so `4 r` for 4 to 7
/// users, `8 r` from 8 on). A crowd crosses a door one file wide in single file, about `2 r`
/// apart, so its average unit waits about `users · r` of path for its turn; the cost stays
/// well below that for large crowds, because on random maps larger costs (up to `64 r`) sent
/// crowds down fewer, wider ways and made them slower, while `8 r` already sends a crowd
/// through a gate a few units round rather than a door one unit wide (docs/navigation.md,
/// "Crowds prefer wide ways").
pub(super) fn crowd_choke_cost(radius: Fx, users: u32) -> Fx {
    let level = users.clamp(1, CROWD_CHOKE_USERS).ilog2();
    radius.max(Fx::ZERO).saturating_mul_int(1 << level)
}

/// The most users [`crowd_choke_cost`] counts (measured: docs/navigation.md, "Crowds prefer
/// wide ways").
pub(super) const CROWD_CHOKE_USERS: u32 = 8;

//! The canonical state encoding and its hash.
//!
//! [`Simulator::state_hash`](crate::Simulator::state_hash) is `xxh3_64` (XXH3, 64-bit, seed 0,
//! from the `xxhash-rust` crate) of these bytes, all integers little-endian, every scalar as its
//! raw Q32.32 `i64` bits:
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `b"LSORCA03"` (changes with the encoding) |
//! | 8 | tick (`u64`) |
//! | 8 | global time |
//! | 8 | time step |
//! | 4 | next agent id (`u32`) |
//! | 1 | liveness mode ([`Liveness::canonical_byte`](crate::liveness::Liveness::canonical_byte): 0 RVO2, 1 resolve) |
//! | 45 | steering ([`crate::orders::Steering`]): speed, slow_within, waypoint_tolerance, each a flag byte (0 none, 1 some) and the value (0 when none); perturbation: flag byte, seed (`u64`), magnitude, hash kind (`u8`, 0 nested, 1 packed), zeros when none |
//! | 45 | agent defaults: neighbor_dist, max_neighbors (`u32`), time_horizon, time_horizon_obst, radius, max_speed, priority (`u8`) |
//! | 4 | agent count (`u32`) |
//! | 99 per agent, ascending id | id (`u32`), position x, y, velocity x, y, pref velocity x, y, the 45 parameter bytes, stall counter (`u16`) |
//! | 4 | order count (`u32`) |
//! | 28 + 16 k per order, ascending agent id | agent id (`u32`), start x, y, progress (`u32`), point count k (`u32`), the k points x, y ([`crate::orders`]) |
//! | … | obstacle set, see [`ObstacleSet::write_canonical`](crate::obstacle::ObstacleSet::write_canonical) |
//! | 4 | pending command count (`u32`) |
//! | … per pending command, in canonical order ([`crate::command`]) | tick (`u64`), tag (`u8`, [`Command::tag`](crate::command::Command::tag)), then the variant's fields: |
//! | | tag 0 `SetPrefVelocity`: id (`u32`), v x, y (20 bytes) |
//! | | tag 1 `AddAgent`: position x, y, the 45 parameter bytes (61 bytes) |
//! | | tag 2 `RemoveAgent`: id (`u32`) (4 bytes) |
//! | | tag 3 `SetParams`: id (`u32`), the 45 parameter bytes (49 bytes) |
//! | | tag 4 `SetPosition`: id (`u32`), position x, y (20 bytes) |
//! | | tag 5 `SetVelocity`: id (`u32`), v x, y (20 bytes) |
//! | | tags 6 `MoveTo`, 7 `QueueMove`: id (`u32`), goal x, y (20 bytes) |
//! | | tag 8 `Stop`: id (`u32`) (4 bytes) |
//! | | tag 9 `SetPriority`: id (`u32`), priority (`u8`) (5 bytes) |
//! | | tag 10 `SetModel`: id (`u32`), the 67 model bytes (71 bytes) |
//! | | tag 11 `SpawnAgent`: position x, y, the 45 parameter bytes, the 67 model bytes (128 bytes) |
//! | | tag 12 `AddObstacle`: kind (`u8`, 0 polygon, 1 polyline), vertex count k (`u32`), the k vertices x, y (5 + 16 k bytes) |
//! | | tag 13 `RemoveObstacle`: obstacle id (`u32`) (4 bytes) |
//! | | tag 14 `NavigateTo`: id (`u32`), goal x, y (20 bytes) |
//! | … | **only when some agent's [`AgentModel`] is not the default**, the agent-model extension: marker byte 1, count `n` (`u32`), then `n` × (id (`u32`), the 67 model bytes), ascending id, non-default models only |
//! | | tag 15 `SetOrderSpeed`: id (`u32`), speed (flag byte and value) (13 bytes) |
//! | | tag 16 `SetGroup`: group (`u32`), member count k (`u32`), the k ids (`u32`) (8 + 4 k bytes) |
//! | | tag 17 `GroupMove`: group (`u32`), goal x, y, queue (`u8`), slowest (`u8`) (22 bytes) |
//! | | tag 18 `FormationMove`: group (`u32`), goal x, y, kind (`u8`, [`FormationKind::canonical_byte`](crate::orders::formation::FormationKind::canonical_byte)), facing (flag byte, x, y, zeros when none), spacing (flag byte and value), slowest (`u8`) (48 bytes) |
//! | | tag 19 `FormationMarch`: as tag 18 (48 bytes) |
//! | | tag 20 `GroupNavigate`: as tag 17 (22 bytes) |
//! | … | **only when some agent has an order, a group exists or the arrival steering is not the default**, the order-lifecycle extension: marker byte 2; `arrive_within`, `give_up_after` ([`Steering`], each a flag byte and the value, 0 when none), `rvo2_goals` (`u8`); then per order, ascending agent id as in the order rows: status (`u8`, [`OrderStatus::canonical_byte`](crate::orders::OrderStatus::canonical_byte)), ticks without progress (`u32`), rest point x, y, order speed (flag byte and value) (30 bytes each); then the group count (`u32`) and per group, ascending group id: id (`u32`), member count k (`u32`), the k member ids (`u32`, ascending) ([`crate::orders::groups`]) |
//! | … | **only when navigation is in use** (settings set, a navigation record, a debt or a pending path check), the navigation extension: marker byte 3, then the settings: flag byte (0 off, 1 on), and when on a boundary flag byte, boundary point count (`u32`), the points x, y, margin, budget (`u32`), search cap (`u32`); the budget debt (`u32`), the "obstacles changed" flag byte, record count (`u32`), then per navigating agent in ascending id: id (`u32`), goal x, y, plan status byte (`0xFF` none, else [`PathStatus::canonical_byte`](crate::navigation::PathStatus::canonical_byte)), its end point x, y (zeros but for `GoalAdjusted` / `Unreachable`), pending byte, planned tick (`u64`), no-progress ticks (`u16`), best distance, target index (`u32`) (60 bytes); then traffic control (`TrafficState::write_canonical` in `src/sim/navigation_traffic.rs`): only when the traffic settings are not the defaults, marker byte `P` and the settings; only while traffic control holds a choke, keeps a waiter or sets some agent's priority, marker byte `T`, the held chokes and the waiters, then, while a batch is counted, marker byte `B` and the batch counters, then, when some agent's priority is set, marker byte `R` and per agent its id, the priority it had and the level set; then, when the quick-plan cap ([`NavParams::quick_plan_cap`](crate::navigation::NavParams::quick_plan_cap)) is not the default, marker byte `Q` and the cap (`u32`); then, while some agent has queued navigated legs ([`Simulator::nav_legs`](crate::Simulator::nav_legs)), marker byte `L`, the count of agents with legs (`u32`) and per agent in ascending id: id (`u32`), leg count (`u32`), the goals x, y |
//! | … | **only when some group has a formation move** ([`crate::orders::formation`]), the formation extension: marker byte 4, formation count (`u32`), then per formation, ascending group id: group (`u32`), kind and placed layout (`u8` each), goal x, y, facing x, y, slot count k (`u32`), then k × (agent id (`u32`), slot x, y), ascending id (42 + 20 k bytes); then, **only while some group moves together** ([`crate::orders::formation::march`]), the march extension: marker byte 5, marching formation count (`u32`), then per marching formation, ascending group id: group (`u32`), path point count (`u32`) and the points x, y, pace, spacing, column spacing, zone count (`u32`) and per zone a, b, files (`u32`), member count (`u32`) and per member id (`u32`), slot x, y, rank (`u32`), then the frame: s, held, column and moved (`u8` each), zone (`u32`), waited (`u32`), the obstacle stamp (next obstacle id `u32`, obstacle count `u32`) |
//!
//! The 67 model bytes: layers (`u32`), mask (`u32`), body_radius, max_accel (each a flag byte
//! and the value, 0 when none), support velocity x, y, slope x, y, speed_limit (flag and
//! value). A simulation that never sets a model hashes exactly as before the model existed,
//! and one that never uses navigation exactly as before navigation existed.
//!
//! Pending commands are hashed because they decide future ticks; with no commands queued (the
//! usual state between steps when inputs are queued just before their tick) they add 4 bytes.
//!
//! Derived data (kd-tree, obstacle BSP, neighbour lists) is not included: it is a function of
//! the above.

use crate::agent::{Agent, AgentParams, Agents};
use crate::agent_model::AgentModel;
use crate::command::{Command, CommandQueue, PendingCommand};
use crate::liveness::Liveness;
use crate::math::{Fx, Vec2};
use crate::obstacle::ObstacleSet;
use crate::orders::{Orders, Steering};
use crate::util::ByteSink;
use xxhash_rust::xxh3::Xxh3Default;

/// Magic prefix of the canonical encoding.
pub const CANONICAL_MAGIC: &[u8; 8] = b"LSORCA03";

/// The hash function: XXH3-64 with seed 0.
#[must_use]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// XXH3-64 (seed 0) of a byte stream, without holding the stream: equal to [`hash_bytes`] of
/// the concatenation. Buffers 4 KiB on the stack between updates.
pub(crate) struct StreamHasher {
    state: Xxh3Default,
    buf: [u8; 4096],
    len: usize,
}

impl StreamHasher {
    pub(crate) fn new() -> Self {
        Self {
            state: Xxh3Default::new(),
            buf: [0; 4096],
            len: 0,
        }
    }

    pub(crate) fn finish(mut self) -> u64 {
        self.state.update(&self.buf[..self.len]);
        self.len = 0;
        self.state.digest()
    }

    /// XXH3-128 (seed 0) of the stream.
    pub(crate) fn finish128(mut self) -> u128 {
        self.state.update(&self.buf[..self.len]);
        self.len = 0;
        self.state.digest128()
    }
}

impl ByteSink for StreamHasher {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if self.len + bytes.len() > self.buf.len() {
            self.state.update(&self.buf[..self.len]);
            self.len = 0;
            if bytes.len() > self.buf.len() {
                self.state.update(bytes);
                return;
            }
        }
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
}

/// A part of the state kept by the simulation layer, which this layer encodes through this
/// interface (the navigation state of `sim::navigation`).
pub(crate) trait CanonicalPart {
    /// Whether the part is in its default state: then nothing of it is written.
    fn is_default(&self) -> bool;
    /// Writes the part's bytes (after its marker).
    fn write_canonical(&self, out: &mut dyn ByteSink);
}

/// A borrowed view of every field that decides future ticks: what the encoding covers.
pub(crate) struct StateRef<'a> {
    pub tick: u64,
    pub global_time: Fx,
    pub time_step: Fx,
    pub next_id: u32,
    pub liveness: Liveness,
    pub defaults: &'a AgentParams,
    pub agents: &'a Agents,
    pub steering: &'a Steering,
    pub orders: &'a Orders,
    pub obstacles: &'a ObstacleSet,
    /// `None` encodes an empty queue (the sync hash).
    pub pending: Option<&'a CommandQueue>,
    /// The navigation state (an extension, written only when not the default).
    pub nav: &'a dyn CanonicalPart,
}

#[inline]
fn fx(out: &mut impl ByteSink, v: Fx) {
    out.put(&v.to_bits().to_le_bytes());
}

#[inline]
fn vec2(out: &mut impl ByteSink, v: Vec2) {
    fx(out, v.x);
    fx(out, v.y);
}

#[inline]
fn params(out: &mut impl ByteSink, p: &AgentParams) {
    fx(out, p.neighbor_dist);
    out.put(&p.max_neighbors.to_le_bytes());
    fx(out, p.time_horizon);
    fx(out, p.time_horizon_obst);
    fx(out, p.radius);
    fx(out, p.max_speed);
    out.put(&[p.priority]);
}

/// The 67 canonical bytes of an agent model.
fn model(out: &mut impl ByteSink, m: &AgentModel) {
    out.put(&m.layers.to_le_bytes());
    out.put(&m.mask.to_le_bytes());
    option_fx(out, m.body_radius);
    option_fx(out, m.max_accel);
    vec2(out, m.support_velocity);
    vec2(out, m.slope);
    option_fx(out, m.speed_limit);
}

fn option_fx(out: &mut impl ByteSink, v: Option<Fx>) {
    out.put(&[u8::from(v.is_some())]);
    fx(out, v.unwrap_or(Fx::ZERO));
}

fn steering(out: &mut impl ByteSink, s: &Steering) {
    option_fx(out, s.speed);
    option_fx(out, s.slow_within);
    option_fx(out, s.waypoint_tolerance);
    out.put(&[u8::from(s.perturbation.is_some())]);
    let p = s.perturbation.unwrap_or(crate::orders::Perturbation {
        seed: 0,
        magnitude: Fx::ZERO,
        hash: crate::orders::PerturbationHash::Nested,
    });
    out.put(&p.seed.to_le_bytes());
    fx(out, p.magnitude);
    out.put(&[p.hash.canonical_byte()]);
}

pub(crate) fn write_state(s: &StateRef<'_>, out: &mut impl ByteSink) {
    out.put(CANONICAL_MAGIC);
    out.put(&s.tick.to_le_bytes());
    fx(out, s.global_time);
    fx(out, s.time_step);
    out.put(&s.next_id.to_le_bytes());
    out.put(&[s.liveness.canonical_byte()]);
    steering(out, s.steering);
    params(out, s.defaults);
    out.put(&(s.agents.len() as u32).to_le_bytes());
    for a in s.agents.iter() {
        write_agent(&a, out);
    }
    out.put(&(s.orders.len() as u32).to_le_bytes());
    for (id, o) in s.orders.iter() {
        out.put(&id.0.to_le_bytes());
        vec2(out, o.start());
        out.put(&(o.progress() as u32).to_le_bytes());
        out.put(&(o.path().len() as u32).to_le_bytes());
        for &p in o.path() {
            vec2(out, p);
        }
    }
    s.obstacles.write_canonical_to(out);
    let n = s.pending.map_or(0, CommandQueue::len);
    out.put(&(n as u32).to_le_bytes());
    for p in s.pending.into_iter().flat_map(CommandQueue::iter) {
        write_pending(p, out);
    }
    // The agent-model extension: only when some agent's model is not the default, so states
    // that never use it keep their bytes (and every golden hash).
    if s.agents.models().is_some() {
        out.put(&[1]);
        let n = s.agents.iter().filter(|a| !a.model.is_default()).count();
        out.put(&(n as u32).to_le_bytes());
        for a in s.agents.iter().filter(|a| !a.model.is_default()) {
            out.put(&a.id.0.to_le_bytes());
            model(out, &a.model);
        }
    }
    // The order-lifecycle extension: states without orders (and with the default arrival
    // steering) keep their bytes.
    let groups = &s.orders.groups;
    if !s.orders.is_empty() || !s.steering.arrival_is_default() || !groups.is_empty() {
        out.put(&[2]);
        option_fx(out, s.steering.arrive_within);
        option_fx(out, s.steering.give_up_after);
        out.put(&[u8::from(s.steering.rvo2_goals)]);
        for (_, o) in s.orders.iter() {
            let a = o.arrival();
            out.put(&[a.status.canonical_byte()]);
            out.put(&a.no_progress.to_le_bytes());
            vec2(out, a.rest);
            option_fx(out, o.speed());
        }
        out.put(&(groups.iter().len() as u32).to_le_bytes());
        for (g, members) in groups.iter() {
            out.put(&g.to_le_bytes());
            out.put(&(members.len() as u32).to_le_bytes());
            for id in members {
                out.put(&id.0.to_le_bytes());
            }
        }
    }
    // The navigation extension: likewise only when navigation is in use.
    if !s.nav.is_default() {
        out.put(&[3]);
        s.nav.write_canonical(out);
    }
    // The formation extension: only when some group has a formation move.
    let formations = s.orders.groups.formations();
    if formations.len() > 0 {
        out.put(&[4]);
        out.put(&(formations.len() as u32).to_le_bytes());
        for (g, f) in formations {
            out.put(&g.to_le_bytes());
            out.put(&[f.kind.canonical_byte(), f.placed.canonical_byte()]);
            vec2(out, f.goal);
            vec2(out, f.facing);
            out.put(&(f.slots.len() as u32).to_le_bytes());
            for &(id, p) in &f.slots {
                out.put(&id.0.to_le_bytes());
                vec2(out, p);
            }
        }
        // The march extension: only while some group moves together.
        let marching = || {
            s.orders
                .groups
                .formations()
                .filter_map(|(g, f)| Some((g, f.march.as_deref()?)))
        };
        let count = marching().count();
        if count > 0 {
            out.put(&[5]);
            out.put(&(count as u32).to_le_bytes());
            for (g, m) in marching() {
                out.put(&g.to_le_bytes());
                write_march(out, m);
            }
        }
    }
}

/// A march's canonical bytes (the march extension of the table above).
fn write_march(out: &mut impl ByteSink, m: &crate::orders::formation::March) {
    out.put(&(m.path.len() as u32).to_le_bytes());
    for &p in &m.path {
        vec2(out, p);
    }
    fx(out, m.pace);
    fx(out, m.spacing);
    fx(out, m.column_spacing);
    out.put(&(m.zones.len() as u32).to_le_bytes());
    for z in &m.zones {
        fx(out, z.a);
        fx(out, z.b);
        out.put(&z.files.to_le_bytes());
    }
    out.put(&(m.members.len() as u32).to_le_bytes());
    for k in &m.members {
        out.put(&k.id.0.to_le_bytes());
        vec2(out, k.slot);
        out.put(&k.rank.to_le_bytes());
    }
    fx(out, m.s);
    fx(out, m.held);
    out.put(&[u8::from(m.column), u8::from(m.moved)]);
    out.put(&m.zone.to_le_bytes());
    out.put(&m.waited.to_le_bytes());
    out.put(&m.obstacles.0.to_le_bytes());
    out.put(&m.obstacles.1.to_le_bytes());
}

/// The 99 canonical bytes of one agent (one row of the table above).
pub(crate) fn write_agent(a: &Agent, out: &mut impl ByteSink) {
    out.put(&a.id.0.to_le_bytes());
    vec2(out, a.position);
    vec2(out, a.velocity);
    vec2(out, a.pref_velocity);
    params(out, &a.params);
    out.put(&a.stall.to_le_bytes());
}

/// The hash of one agent's canonical bytes (the replays' per-agent checkpoint hash), its 67
/// model bytes appended when its model is not the default.
pub(crate) fn agent_hash(a: &Agent) -> u64 {
    let mut h = StreamHasher::new();
    write_agent(a, &mut h);
    if !a.model.is_default() {
        model(&mut h, &a.model);
    }
    h.finish()
}

fn write_pending(p: &PendingCommand, out: &mut impl ByteSink) {
    out.put(&p.tick.to_le_bytes());
    out.put(&[p.command.tag()]);
    match &p.command {
        Command::SetPrefVelocity { id, v } | Command::SetVelocity { id, v } => {
            out.put(&id.0.to_le_bytes());
            vec2(out, *v);
        }
        Command::AddAgent {
            position,
            params: pa,
        } => {
            vec2(out, *position);
            params(out, pa);
        }
        Command::RemoveAgent { id } => out.put(&id.0.to_le_bytes()),
        Command::SetParams { id, params: pa } => {
            out.put(&id.0.to_le_bytes());
            params(out, pa);
        }
        Command::SetPosition { id, position } => {
            out.put(&id.0.to_le_bytes());
            vec2(out, *position);
        }
        Command::MoveTo { id, goal }
        | Command::QueueMove { id, goal }
        | Command::NavigateTo { id, goal } => {
            out.put(&id.0.to_le_bytes());
            vec2(out, *goal);
        }
        Command::Stop { id } => out.put(&id.0.to_le_bytes()),
        Command::SetPriority { id, priority } => {
            out.put(&id.0.to_le_bytes());
            out.put(&[*priority]);
        }
        Command::SetModel { id, model: m } => {
            out.put(&id.0.to_le_bytes());
            model(out, m);
        }
        Command::SpawnAgent {
            position,
            params: pa,
            model: m,
        } => {
            vec2(out, *position);
            params(out, pa);
            model(out, m);
        }
        Command::AddObstacle { shape } => {
            out.put(&[shape.kind_byte()]);
            let vertices = shape.vertices();
            // At most MAX_VERTICES (4,096): validated when queued and when restored.
            out.put(&(vertices.len() as u32).to_le_bytes());
            for &v in vertices {
                vec2(out, v);
            }
        }
        Command::RemoveObstacle { id } => out.put(&id.0.to_le_bytes()),
        Command::SetOrderSpeed { id, speed } => {
            out.put(&id.0.to_le_bytes());
            option_fx(out, *speed);
        }
        Command::SetGroup { group, members } => {
            out.put(&group.to_le_bytes());
            out.put(&(members.len() as u32).to_le_bytes());
            for id in members {
                out.put(&id.0.to_le_bytes());
            }
        }
        Command::GroupMove {
            group,
            goal,
            queue,
            slowest,
        }
        | Command::GroupNavigate {
            group,
            goal,
            queue,
            slowest,
        } => {
            out.put(&group.to_le_bytes());
            vec2(out, *goal);
            out.put(&[u8::from(*queue), u8::from(*slowest)]);
        }
        Command::FormationMove {
            group,
            goal,
            formation,
            facing,
            spacing,
            slowest,
        }
        | Command::FormationMarch {
            group,
            goal,
            formation,
            facing,
            spacing,
            slowest,
        } => {
            out.put(&group.to_le_bytes());
            vec2(out, *goal);
            out.put(&[formation.canonical_byte(), u8::from(facing.is_some())]);
            vec2(out, facing.unwrap_or(Vec2::ZERO));
            option_fx(out, *spacing);
            out.put(&[u8::from(*slowest)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Simulator, SimulatorParams, Vec2};

    /// The table above, checked: header 131 bytes, 99 per agent, 4 for no order, 9 for an empty
    /// obstacle set, 4 for an empty command queue; 28 + 16 per point for an order, and the
    /// order-lifecycle extension (23 + 30 per order + 8 + 4 per member per group).
    #[test]
    fn canonical_layout_sizes_match_the_table() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let mut out = Vec::new();
        sim.write_canonical_bytes(&mut out);
        assert_eq!(out.len(), 8 + 8 + 8 + 8 + 4 + 1 + 45 + 45 + 4 + 4 + 9 + 4);
        assert_eq!(&out[..8], super::CANONICAL_MAGIC);
        for i in 0..3 {
            sim.add_agent(Vec2::from_int(i, 0)).unwrap();
        }
        out.clear();
        sim.write_canonical_bytes(&mut out);
        assert_eq!(out.len(), 131 + 3 * 99 + 4 + 9 + 4);
        let goal = Vec2::from_int(5, 5);
        sim.apply(&crate::Command::MoveTo {
            id: crate::AgentId(1),
            goal,
        })
        .unwrap();
        sim.apply(&crate::Command::QueueMove {
            id: crate::AgentId(1),
            goal,
        })
        .unwrap();
        out.clear();
        sim.write_canonical_bytes(&mut out);
        // The order row, then the order-lifecycle extension: marker, the two steering
        // options (9 bytes each), 30 bytes for the order, the group count.
        let lifecycle = 1 + 2 * 9 + 1 + 30 + 4;
        assert_eq!(
            out.len(),
            131 + 3 * 99 + 4 + 28 + 2 * 16 + 9 + 4 + lifecycle
        );
        // A group of two: 4 + 4 + 2 * 4 bytes more.
        sim.apply(&crate::Command::SetGroup {
            group: 9,
            members: vec![crate::AgentId(0), crate::AgentId(2)],
        })
        .unwrap();
        out.clear();
        sim.write_canonical_bytes(&mut out);
        assert_eq!(
            out.len(),
            131 + 3 * 99 + 4 + 28 + 2 * 16 + 9 + 4 + lifecycle + 16
        );
    }

    /// The formation extension: marker and count (5 bytes), then 42 + 20 k bytes per formation
    /// of k slots; a pending `FormationMove` is 48 bytes after its tick and tag.
    #[test]
    fn the_formation_extension_matches_the_table() {
        use crate::orders::formation::FormationKind;
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        for i in 0..3 {
            sim.add_agent(Vec2::from_int(4 * i, 0)).unwrap();
        }
        let members = sim.agent_ids().to_vec();
        sim.apply(&crate::Command::SetGroup { group: 2, members })
            .unwrap();
        let order = crate::Command::FormationMove {
            group: 2,
            goal: Vec2::from_int(50, 0),
            formation: FormationKind::Line,
            facing: Some(Vec2::from_int(1, 0)),
            spacing: None,
            slowest: false,
        };
        let size = |sim: &Simulator| {
            let mut out = Vec::new();
            sim.write_canonical_bytes(&mut out);
            out.len()
        };
        let before = size(&sim);
        sim.queue_command(5, order.clone()).unwrap();
        assert_eq!(size(&sim), before + 8 + 1 + 48);
        sim.clear_pending_commands();
        let mut moved = sim.clone();
        moved.apply(&order).unwrap();
        // Three new orders (28 + 16 bytes each, 30 in the lifecycle extension), then the
        // formation extension.
        assert_eq!(size(&moved), before + 3 * (44 + 30) + 5 + 42 + 3 * 20);
    }

    /// The navigation extension: 32 + 16 k bytes of settings with a boundary of k points, 9 of
    /// debt, flag and count, 60 per record; nothing when navigation is not in use.
    #[test]
    fn the_navigation_extension_matches_the_table() {
        let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
        let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
        let base = 131 + 99 + 4 + 9 + 4;
        let len = |sim: &Simulator| {
            let mut out = Vec::new();
            sim.write_canonical_bytes(&mut out);
            out.len()
        };
        assert_eq!(len(&sim), base);
        let square = [(0, 0), (9, 0), (9, 9), (0, 9)].map(|(x, y)| Vec2::from_int(x, y));
        let params = crate::navigation::NavParams {
            boundary: Some(square.to_vec()),
            ..Default::default()
        };
        sim.set_navigation(Some(params)).unwrap();
        let ext = 1 + (1 + 1 + 4 + 4 * 16 + 8 + 4 + 4) + (4 + 1 + 4);
        assert_eq!(len(&sim), base + ext);
        let goal = Vec2::from_int(5, 5);
        sim.apply(&crate::Command::NavigateTo { id: a, goal })
            .unwrap();
        // The order (28 + 16 bytes) also brings the order-lifecycle extension: marker, the two
        // steering options, 30 bytes for the order, the group count.
        let lifecycle = 1 + 2 * 9 + 1 + 30 + 4;
        assert_eq!(len(&sim), base + 28 + 16 + ext + 60 + lifecycle);
        sim.set_navigation(None).unwrap();
        sim.apply(&crate::Command::Stop { id: a }).unwrap();
        assert_eq!(len(&sim), base);
    }
}

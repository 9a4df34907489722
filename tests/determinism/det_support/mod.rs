//! Random scenes and input scripts shared by the determinism tests (snapshot, replay,
//! translation, decode fuzz). Deterministic: everything derives from a `u64` seed through
//! SplitMix64.
#![allow(dead_code)]
// Ranges are given as f64 test inputs (user I/O, converted once).
#![allow(clippy::float_arithmetic)]

use lockstep_orca::splitmix64;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2,
};

/// A SplitMix64 stream.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix64(self.0)
    }

    /// Uniform in `lo..=hi` (raw bits), for small spans.
    pub fn bits(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo) as u64 + 1;
        lo + (self.next() % span) as i64
    }

    pub fn fx(&mut self, lo: f64, hi: f64) -> Fx {
        let lo = Fx::from_num(lo).to_bits();
        let hi = Fx::from_num(hi).to_bits();
        Fx::from_bits(self.bits(lo, hi))
    }

    pub fn vec(&mut self, extent: f64) -> Vec2 {
        Vec2::new(self.fx(-extent, extent), self.fx(-extent, extent))
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random agent parameters inside the domain (radius 0.2..1.5, speed 0.5..3, …).
pub fn random_params(rng: &mut Rng) -> AgentParams {
    AgentParams {
        neighbor_dist: rng.fx(2.0, 15.0),
        max_neighbors: rng.below(12) as u32 + 1,
        time_horizon: rng.fx(0.5, 10.0),
        time_horizon_obst: rng.fx(0.5, 10.0),
        radius: rng.fx(0.2, 1.5),
        max_speed: rng.fx(0.5, 3.0),
        priority: lockstep_orca::DEFAULT_PRIORITY,
    }
}

/// `n` agents with random parameters in a square of half-side `extent` around `center`, each
/// with a random preferred velocity (|component| ≤ 3).
pub fn random_scene(seed: u64, n: usize, extent: f64, center: Vec2) -> Simulator {
    let mut rng = Rng(seed);
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    for _ in 0..n {
        let params = random_params(&mut rng);
        let id = sim
            .add_agent_with(center + rng.vec(extent), params)
            .unwrap();
        sim.set_agent_pref_velocity(id, rng.vec(3.0)).unwrap();
    }
    sim
}

/// Adds `k` random obstacles within `extent` of `center`: axis-aligned boxes (counter-clockwise
/// polygons, 0.5 to 4 units a side) and diagonal walls (two-vertex polylines). They may overlap
/// each other and agents.
pub fn add_random_obstacles(sim: &mut Simulator, seed: u64, k: usize, extent: f64, center: Vec2) {
    let mut rng = Rng(seed ^ 0x0B57);
    for i in 0..k {
        let c = center + rng.vec(extent);
        let (w, h) = (rng.fx(0.5, 4.0), rng.fx(0.5, 4.0));
        let shape = if i % 3 == 2 {
            ObstacleShape::Polyline(vec![c, c + Vec2::new(w, h)])
        } else {
            ObstacleShape::Polygon(vec![
                c,
                c + Vec2::new(w, Fx::ZERO),
                c + Vec2::new(w, h),
                c + Vec2::new(Fx::ZERO, h),
            ])
        };
        sim.add_obstacle(shape).unwrap();
    }
}

/// [`random_scene`] plus `k` random obstacles.
pub fn random_scene_with_obstacles(
    seed: u64,
    n: usize,
    k: usize,
    extent: f64,
    center: Vec2,
) -> Simulator {
    let mut sim = random_scene(seed, n, extent, center);
    add_random_obstacles(&mut sim, seed, k, extent, center);
    sim
}

/// A random but valid command for `sim` (mostly preferred velocities; sometimes adds, removes,
/// parameter changes, teleports within `extent` of `center`, velocity changes).
pub fn random_command(rng: &mut Rng, sim: &Simulator, extent: f64, center: Vec2) -> Command {
    let ids = sim.agent_ids();
    let pick = |rng: &mut Rng| ids[rng.below(ids.len() as u64) as usize];
    let roll = rng.below(100);
    if ids.is_empty() || roll < 5 {
        return Command::AddAgent {
            position: center + rng.vec(extent),
            params: random_params(rng),
        };
    }
    match roll {
        5..=7 => Command::RemoveAgent { id: pick(rng) },
        8..=11 => Command::SetParams {
            id: pick(rng),
            params: random_params(rng),
        },
        12..=14 => Command::SetPosition {
            id: pick(rng),
            position: center + rng.vec(extent),
        },
        15..=17 => Command::SetVelocity {
            id: pick(rng),
            v: rng.vec(2.0),
        },
        _ => Command::SetPrefVelocity {
            id: pick(rng),
            v: rng.vec(3.0),
        },
    }
}

/// An input script: up to `per_tick` random commands each tick, from a seed. A pure function of
/// (seed, tick, state), so two runs from equal states produce equal inputs.
pub fn script(
    seed: u64,
    per_tick: u64,
    extent: f64,
    center: Vec2,
) -> impl FnMut(&Simulator) -> Vec<Command> {
    move |sim: &Simulator| {
        let mut rng = Rng(seed ^ splitmix64(sim.tick()));
        let n = rng.below(per_tick + 1);
        let mut out = Vec::new();
        // Commands addressing agents removed earlier in the same tick would be skipped (valid,
        // but noisy): generate against the pre-tick state and avoid duplicate removals.
        let mut removed: Vec<AgentId> = Vec::new();
        for _ in 0..n {
            let c = random_command(&mut rng, sim, extent, center);
            if let Some(id) = c.target() {
                if removed.contains(&id) {
                    continue;
                }
                if matches!(c, Command::RemoveAgent { .. }) {
                    removed.push(id);
                }
            }
            out.push(c);
        }
        out
    }
}

/// Steps `sim` `ticks` times feeding `inputs`, returning the hash after every tick.
pub fn run_hashes(
    sim: &mut Simulator,
    ticks: u64,
    inputs: &mut impl FnMut(&Simulator) -> Vec<Command>,
) -> Vec<u64> {
    (0..ticks)
        .map(|_| {
            let tick = sim.tick();
            for c in inputs(sim) {
                sim.queue_command(tick, c).unwrap();
            }
            sim.step().unwrap();
            sim.state_hash()
        })
        .collect()
}

/// Re-seals a payload in the snapshot/replay envelope with a correct checksum (to reach the
/// decoder behind the checksum).
pub fn reseal(magic: &[u8; 8], version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The payload of a sealed file.
pub fn payload(bytes: &[u8]) -> &[u8] {
    &bytes[20..bytes.len() - 8]
}

/// Navigation on inside `[-50, 50]²`, agent `a` at the origin without an order and agent `b`
/// at `(5, 0)` navigating to `(9, 9)` (applied, not yet planned): the hostile-snapshot tests'
/// state.
pub fn navigating_pair() -> (Simulator, AgentId, AgentId) {
    use lockstep_orca::navigation::NavParams;
    let v = Vec2::from_int;
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.set_navigation(Some(NavParams {
        boundary: Some(vec![v(-50, -50), v(50, -50), v(50, 50), v(-50, 50)]),
        ..NavParams::default()
    }))
    .unwrap();
    let a = sim.add_agent(v(0, 0)).unwrap();
    let b = sim.add_agent(v(5, 0)).unwrap();
    sim.apply(&lockstep_orca::Command::NavigateTo {
        id: b,
        goal: v(9, 9),
    })
    .unwrap();
    (sim, a, b)
}

/// The square building of half-side `half` centred on `(x, y)`.
pub fn square(x: i32, y: i32, half: i32) -> ObstacleShape {
    let v = Vec2::from_int;
    ObstacleShape::Polygon(vec![
        v(x - half, y - half),
        v(x + half, y - half),
        v(x + half, y + half),
        v(x - half, y + half),
    ])
}

//! The navigation soak's world (the `nav_soak` example, and its short run in the tests): a
//! simulator and its **shadow**, restored from its snapshot at irregular intervals, fed the same
//! commands on a walled map of doors and buildings, their state hashes compared after every
//! tick. See `examples/nav_soak.rs`.

#[path = "scene_kit.rs"]
mod scene_kit;

use lockstep_orca::navigation::NavParams;
use lockstep_orca::orders::formation::FormationKind;
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleId, ObstacleShape, Simulator, SimulatorParams, Vec2,
    snapshot, splitmix64,
};
use scene_kit::{Rng, block, fx};
use std::collections::BTreeMap;

/// Half the map's side.
const HALF: i32 = 60;
/// Units at the start (spawns and removals keep the count near it).
pub const UNITS: usize = 240;

/// The units: the navigation scenes' (radius 0.5, top speed 1.5, ten neighbours within 10, two
/// seconds of look-ahead).
fn unit() -> AgentParams {
    AgentParams {
        neighbor_dist: Fx::from_num(10),
        max_neighbors: 10,
        time_horizon: Fx::from_num(2),
        time_horizon_obst: Fx::from_num(2),
        radius: fx(1, 2),
        max_speed: fx(3, 2),
        ..AgentParams::default()
    }
}

/// A heavier unit (radius 0.8, slower): its goals are other distance fields, and the doors
/// one unit wide are closed to it.
fn heavy() -> AgentParams {
    AgentParams {
        radius: fx(4, 5),
        max_speed: Fx::ONE,
        ..unit()
    }
}

/// Ticks between order rounds (a round's tick is this plus up to half of it).
const ROUND: u64 = 300;

/// The map: the wall across the middle (x in [-1/2, 1/2]) with doors 1.3 wide at y = ±30, one
/// 3 wide at y = 0 and gaps 2 wide at the boundary, and buildings in cells of 13, two of
/// three cells built, streets at least 4 wide.
fn map(rng: &mut Rng) -> Vec<ObstacleShape> {
    let (w0, w1) = (fx(-1, 2), fx(1, 2));
    // The wall's pieces between the doors, in twentieths.
    let cuts = [
        (-58 * 20, -30 * 20 - 13),
        (-30 * 20 + 13, -30),
        (30, 30 * 20 - 13),
        (30 * 20 + 13, 58 * 20),
    ];
    let mut out: Vec<ObstacleShape> = cuts
        .iter()
        .map(|&(a, b)| block(w0, fx(a, 20), w1, fx(b, 20)))
        .collect();
    for side in [-1, 1] {
        for cx in 0..4 {
            for cy in 0..9 {
                if rng.below(3) == 0 {
                    continue;
                }
                let (w, h) = (rng.range(2, 8), rng.range(2, 8));
                let (ox, oy) = (rng.range(2, 11 - w + 1), rng.range(2, 11 - h + 1));
                let x = if side < 0 {
                    -HALF + 4 + cx * 13 + ox
                } else {
                    5 + cx * 13 + ox
                };
                let y = -HALF + 2 + cy * 13 + oy;
                let i = Fx::from_num;
                out.push(block(i(x), i(y), i(x + w), i(y + h)));
            }
        }
    }
    out
}

/// A point of the map on a grid of a quarter unit (walkable or not).
fn anywhere(rng: &mut Rng) -> Vec2 {
    let q = (HALF - 1) * 4;
    Vec2::new(fx(rng.range(-q, q), 4), fx(rng.range(-q, q), 4))
}

/// A walkable point for the heavy units' radius (tried on the quarter grid; near the map's
/// corner else).
fn walkable(sim: &Simulator, rng: &mut Rng) -> Vec2 {
    let r = heavy().radius;
    for _ in 0..64 {
        let p = anywhere(rng);
        if sim.nav_is_walkable(p, r).unwrap_or(false) {
            return p;
        }
    }
    Vec2::from_int(-HALF + 2, -HALF + 2)
}

/// The two simulators and the log of the tick's commands.
struct Feed<'a> {
    a: &'a mut Simulator,
    b: &'a mut Simulator,
    log: &'a mut Vec<Command>,
}

/// Queues `command` for the current tick on both simulators (logged when queued); the shadow
/// must answer as the first one does.
fn feed(f: &mut Feed<'_>, command: Command) -> Result<(), String> {
    let (a, b) = (&mut *f.a, &mut *f.b);
    let (ra, rb) = (
        a.queue_command(a.tick(), command.clone()),
        b.queue_command(b.tick(), command.clone()),
    );
    if ra.is_ok() {
        f.log.push(command.clone());
    }
    if ra == rb {
        Ok(())
    } else {
        Err(format!(
            "tick {}: {command:?} answered {ra:?}, the shadow {rb:?}",
            a.tick()
        ))
    }
}

/// One round of orders: every unit a new one (six in ten one of six shared goals, half of the
/// twelve in turn; three in ten a point of its own; one in ten a stop), then one in ten a
/// `QueueMove` after it (a navigated leg; after a stop, a plain order) and one in ten an
/// order speed; a group in formation every third
/// round (marching together every other time); three units removed and three spawned (one of
/// them anywhere, in a building too). Six goals for two radii are twelve distance fields a
/// round: more than the eight the cache keeps, so fields are evicted and made again.
fn round(f: &mut Feed<'_>, rng: &mut Rng, n: u64, goals: &[Vec2]) -> Result<(), String> {
    let ids: Vec<AgentId> = f.a.agent_ids().to_vec();
    for &id in &ids {
        let command = match rng.below(10) {
            0..=5 => Command::NavigateTo {
                id,
                goal: goals[(n % 2 * 6 + rng.below(6)) as usize],
            },
            6..=8 => Command::NavigateTo {
                id,
                goal: anywhere(rng),
            },
            _ => Command::Stop { id },
        };
        feed(f, command)?;
        match rng.below(10) {
            0 => feed(
                f,
                Command::QueueMove {
                    id,
                    goal: anywhere(rng),
                },
            )?,
            1 => feed(
                f,
                Command::SetOrderSpeed {
                    id,
                    speed: Some(fx(rng.range(1, 4), 2)),
                },
            )?,
            _ => {}
        }
    }
    if n % 3 == 2 && ids.len() > 40 {
        let start = rng.below(ids.len() as u64 - 40) as usize;
        let members = ids[start..start + 40].to_vec();
        feed(f, Command::SetGroup { group: 1, members })?;
        let goal = goals[rng.below(goals.len() as u64) as usize];
        let formation = [
            FormationKind::Box,
            FormationKind::Line,
            FormationKind::Spread,
        ][rng.below(3) as usize];
        let together = n % 6 == 5;
        let slowest = rng.below(2) == 0;
        let order = Command::formation(together, 1, goal, formation, None, None, slowest);
        feed(f, order)?;
    }
    // Three units removed (three in a row of the id list, from a random place) and three
    // spawned, one in four heavy.
    let ids = f.a.agent_ids().to_vec();
    if ids.len() > UNITS / 2 {
        let start = rng.below(ids.len() as u64 - 2) as usize;
        for &id in &ids[start..start + 3] {
            feed(f, Command::RemoveAgent { id })?;
        }
    }
    for k in 0..3 {
        let position = if k == 0 {
            anywhere(rng)
        } else {
            walkable(f.a, rng)
        };
        let params = if rng.below(4) == 0 { heavy() } else { unit() };
        feed(f, Command::AddAgent { position, params })?;
    }
    Ok(())
}

/// What a soak did so far (reports; the hashes are what is compared).
#[derive(Clone, Copy, Debug, Default)]
pub struct SoakCounts {
    /// Order rounds given.
    pub rounds: u64,
    /// Times the shadow was restored from the first simulator's snapshot (the first included).
    pub restores: u64,
    /// Paths planned (`StepStats::nav_requests_served`, the first simulator's).
    pub served: u64,
    /// Commands rejected when their tick came.
    pub rejected: u64,
    /// Buildings dropped.
    pub drops: u64,
    /// Pieces of the middle wall taken down or put back (doors and lanes merging, splitting).
    pub wall_changes: u64,
    /// Units that crossed the middle wall (by any of its doors).
    pub crossings: u64,
}

/// A simulator and its shadow on the soak's map.
pub struct Soak {
    /// The simulator whose caches live from tick 0.
    pub a: Simulator,
    /// The shadow, restored from `a`'s snapshot now and then.
    pub b: Simulator,
    rng: Rng,
    goals: Vec<Vec2>,
    next_round: u64,
    last_restore: u64,
    next_restore: u64,
    restore_rng: Rng,
    dropped: Vec<ObstacleId>,
    /// The middle wall's four pieces, and each one's id while it stands.
    wall: Vec<(ObstacleShape, Option<ObstacleId>)>,
    sides: BTreeMap<AgentId, bool>,
    /// The commands queued for the last tick stepped (what a replay records).
    pub commands: Vec<Command>,
    /// What it did so far.
    pub counts: SoakCounts,
}

impl Soak {
    /// The world of seed `seed`: the map, [`UNITS`] units (one in four heavy) at walkable
    /// places, twelve shared goals, the shadow restored from the first snapshot.
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        let params = SimulatorParams {
            time_step: fx(1, 4),
            agent_defaults: unit(),
        };
        let mut a = Simulator::new(params).expect("valid parameters");
        let mut wall = Vec::new();
        for (k, shape) in map(&mut rng).into_iter().enumerate() {
            let id = a.add_obstacle(shape.clone()).expect("a valid building");
            if k < 4 {
                wall.push((shape, Some(id)));
            }
        }
        let h = Fx::from_num(HALF);
        let boundary = vec![
            Vec2::new(-h, -h),
            Vec2::new(h, -h),
            Vec2::new(h, h),
            Vec2::new(-h, h),
        ];
        let nav = NavParams {
            boundary: Some(boundary),
            ..NavParams::default()
        };
        a.set_navigation(Some(nav)).expect("a valid map");
        while a.num_agents() < UNITS {
            let p = walkable(&a, &mut rng);
            let params = if a.num_agents() % 4 == 3 {
                heavy()
            } else {
                unit()
            };
            a.add_agent_with(p, params).expect("inside the domain");
        }
        let goals = (0..12).map(|_| walkable(&a, &mut rng)).collect();
        let b = Simulator::restore(&a.snapshot()).expect("its own snapshot");
        // The shadow's restores have their own stream (the first simulator's run does not
        // depend on them): the first comes early (short runs have one), then every 200 to 2,000
        // ticks.
        let mut restore_rng = Rng(splitmix64(seed ^ 0x5eed));
        let next_restore = 100 + restore_rng.below(400);
        Self {
            a,
            b,
            rng,
            goals,
            next_round: 0,
            last_restore: 0,
            next_restore,
            restore_rng,
            dropped: Vec::new(),
            wall,
            sides: BTreeMap::new(),
            commands: Vec::new(),
            counts: SoakCounts {
                restores: 1,
                ..SoakCounts::default()
            },
        }
    }

    /// One tick: the shadow restored when its time has come, the tick's commands (a round of
    /// orders every 300 to 450 ticks; every 400 ticks a building dropped anywhere, on units and
    /// paths too, and the oldest of four taken away; every 1,000 ticks a piece of the middle
    /// wall taken down, or put back with a new id, so doors turn into open ground and back
    /// while units queue at them), a step of both. `Err` says how they disagreed: a command
    /// answered differently, a step failing on one side only, or the state hashes after the
    /// step (with `snapshot::diff`).
    pub fn tick(&mut self) -> Result<(), String> {
        let tick = self.a.tick();
        if tick == self.next_restore {
            self.b = Simulator::restore(&self.a.snapshot()).expect("its own snapshot");
            self.counts.restores += 1;
            self.last_restore = tick;
            self.next_restore = tick + 200 + self.restore_rng.below(1_800);
        }
        self.commands.clear();
        let mut f = Feed {
            a: &mut self.a,
            b: &mut self.b,
            log: &mut self.commands,
        };
        if tick == self.next_round {
            round(&mut f, &mut self.rng, self.counts.rounds, &self.goals)?;
            self.counts.rounds += 1;
            self.next_round = tick + ROUND + self.rng.below(ROUND / 2);
        }
        if tick % 400 == 150 {
            if self.dropped.len() >= 4 {
                let id = self.dropped.remove(0);
                feed(&mut f, Command::RemoveObstacle { id })?;
            }
            let id = f.a.obstacles().next_id();
            let rng = &mut self.rng;
            let (p, w, h) = (anywhere(rng), rng.range(2, 6), rng.range(2, 6));
            let shape = block(p.x, p.y, p.x + Fx::from_num(w), p.y + Fx::from_num(h));
            feed(&mut f, Command::AddObstacle { shape })?;
            self.dropped.push(id);
            self.counts.drops += 1;
        }
        if tick % 1_000 == 650 {
            let k = self.rng.below(self.wall.len() as u64) as usize;
            let (shape, id) = &mut self.wall[k];
            match id.take() {
                Some(old) => feed(&mut f, Command::RemoveObstacle { id: old })?,
                None => {
                    *id = Some(f.a.obstacles().next_id());
                    let shape = shape.clone();
                    feed(&mut f, Command::AddObstacle { shape })?;
                }
            }
            self.counts.wall_changes += 1;
        }
        let (a, b) = (f.a, f.b);
        let (sa, sb) = (a.step(), b.step());
        if sa.is_ok() != sb.is_ok() {
            return Err(format!("tick {tick}: step {sa:?}, the shadow's {sb:?}"));
        }
        sa.map_err(|e| format!("tick {tick}: the soak left the domain: {e:?}"))?;
        if a.state_hash() != b.state_hash() {
            return Err(format!(
                "tick {}: hash {:016x}, the shadow's {:016x} ({} ticks after its restore)\n{:?}",
                a.tick(),
                a.state_hash(),
                b.state_hash(),
                a.tick() - self.last_restore,
                snapshot::diff(a, b)
            ));
        }
        let stats = a.step_stats();
        self.counts.served += stats.nav_requests_served;
        self.counts.rejected += stats.commands_rejected;
        let agents = a.agents();
        for (&id, p) in agents.ids().iter().zip(agents.positions()) {
            let east = p.x > Fx::ZERO;
            if self.sides.insert(id, east).is_some_and(|was| was != east) {
                self.counts.crossings += 1;
            }
        }
        Ok(())
    }
}

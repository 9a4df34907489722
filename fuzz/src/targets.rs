//! The fuzz targets (bolero). Under `cargo test -p lockstep-orca-fuzz` each runs as an ordinary
//! test: bolero feeds it generated inputs, and every input kept in
//! `fuzz/src/__fuzz__/targets__<target>/corpus/` and `crashes/`. Under
//! `cargo bolero test -p lockstep-orca-fuzz targets::<target> --sanitizer NONE` it runs as
//! coverage-guided fuzzing with libFuzzer on stable Rust; `fuzz/README.md` says how, and what the
//! runs found.
//!
//! Every target asserts that nothing panics, overflows (tests run with overflow checks on) or
//! hangs, and what it can say about a successful result.
//!
//! 1. `snapshot_restore`: bytes, and edits of a valid snapshot behind a recomputed checksum.
//! 2. `replay_decode`: bytes, and edits of one frame of a valid replay with every chained
//!    checksum recomputed, through the streaming verifier. The replay (and the snapshot of
//!    target 1) holds the commands of tags 14–17 (navigate, order speed, group set and move)
//!    in its tick frames, its pending commands and its state.
//! 3. `scenario_toml`: text, and edits of the fixture scenarios (obstacle events included);
//!    what parses is built and stepped when small.
//! 4. `command_stream`: commands (world commands included: buildings added and removed,
//!    agents spawned with a model, groups set and moved, formation moves; navigate orders and
//!    order speeds)
//!    applied to a walled scene and stepped, invariants each tick
//!    (speeds within max speed, no centre inside the solid block, with navigation on no centre
//!    past the map boundary's wall, the same hashes on a second run of the same stream).
//! 5. `ggrs_input`: the netcode adapter's per-player messages, as bytes (`NetInput::from_bytes`)
//!    and as orders (`NetInput::from_orders`), applied to a two-player game (four agents, or a
//!    small scene with events) for up to 16 frames: two games fed the same inputs agree on the
//!    checksum, the rejections and the hash reports; every skipped order is counted; a third
//!    game that mispredicts, loads its save and re-simulates agrees too. The open game has a
//!    catalogue (unit types, models, a building and a wall over the frame's vertex budget),
//!    so spawns with parameters and model, model changes and buildings placed and removed
//!    (owned or not) are fuzzed too, and so are the navigate, order-speed and group kinds
//!    (11–17: ranges and masks naming other players' units, group moves, formation moves
//!    with every layout, facings and spacings in and out of range); the skipped group
//!    members agree; the recordings of the match (one through the rollback) are equal and
//!    verify.
//! 6. `nav_cdt`: points (a small lattice, where collinear and cocircular points abound, or
//!    spread over the predicates' whole range) and constraint segments for the navigation
//!    mesh's constrained Delaunay triangulation: `Ok` or a clear error; an `Ok` result passes the
//!    brute-force validator (counter-clockwise, symmetric adjacency, Euler count, hull covered,
//!    constraints inserted or counted as dropped, constrained Delaunay) and does not change when
//!    the input order is reversed.

use crate::net_messages::{NET_SCENE, NetMessage, net_game, net_input};
use ggrs::{GameStateCell, InputStatus};
use lockstep_orca::netcode::{MAX_ORDERS, NetError, NetGame, NetInput, NetState};
use lockstep_orca::replay::{self, REPLAY_MAGIC, REPLAY_VERSION, RecordOptions};
use lockstep_orca::scenario::Scenario;
use lockstep_orca::snapshot::{HEADER_BYTES, TRAILER_BYTES};
use lockstep_orca::{
    AgentId, AgentParams, Command, Fx, ObstacleShape, Simulator, SimulatorParams, Vec2,
};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Bytes with edits applied: `(position, value)` sets a byte, `(position, 0..=3 with the high
/// bit)` inserts, removes or truncates. Positions wrap around the length.
fn edit(base: &[u8], edits: &[(u16, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(pos, val) in edits {
        if b.is_empty() {
            break;
        }
        let at = pos as usize % b.len();
        match val {
            0xF0 => b.insert(at, 0xFF),
            0xF1 => {
                b.remove(at);
            }
            0xF2 => b.truncate(at),
            _ => b[at] = val,
        }
    }
    b
}

// ------------------------------------------------------------------ 1. snapshot restore

/// A small scene with everything a snapshot holds: agents, orders, a wall, pending commands.
fn snapshot_seed() -> Vec<u8> {
    let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
    sim.add_obstacle(ObstacleShape::Polyline(vec![
        Vec2::from_int(-5, 6),
        Vec2::from_int(5, 6),
    ]))
    .unwrap();
    for i in 0..4 {
        let id = sim.add_agent(Vec2::from_int(i * 3 - 4, 0)).unwrap();
        sim.apply(&Command::MoveTo {
            id,
            goal: Vec2::from_int(4 - i * 3, 3),
        })
        .unwrap();
    }
    // A group and an order speed in the state (tags 16 and 15).
    for c in [command(14, 0, 0, 3), command(13, 0, 24, 0)] {
        sim.apply(&c).unwrap();
    }
    sim.step().unwrap();
    sim.queue_command(3, Command::Stop { id: AgentId(1) })
        .unwrap();
    // Pending commands of every kind the replay and snapshot formats carry since format 4/5:
    // navigate (14), order speed (15), group set (16) and move (17).
    for c in [
        command(9, 0, 40, 40),
        command(10, 1, 0, 0),
        command(11, 2, -40, 40),
        command(12, 3, 20, -8),
        command(13, 3, -1, 0),
        command(14, 1, 0, 2),
        command(15, 6, -20, 30),
    ] {
        sim.queue_command(4, c).unwrap();
    }
    sim.snapshot()
}

fn reseal_snapshot(bytes: &mut [u8]) {
    if bytes.len() < HEADER_BYTES + TRAILER_BYTES {
        return;
    }
    let len = (bytes.len() - HEADER_BYTES - TRAILER_BYTES) as u64;
    bytes[12..20].copy_from_slice(&len.to_le_bytes());
    let end = bytes.len() - TRAILER_BYTES;
    let sum = lockstep_orca::hash::hash_bytes(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
}

fn check_restore(bytes: &[u8]) {
    if let Ok(mut sim) = Simulator::restore(bytes) {
        // What restores is in the domain: it snapshots to bytes that restore to the same
        // state, and it steps (or fails cleanly) without overflow.
        let again = Simulator::restore(&sim.snapshot()).expect("a restored state restores");
        assert_eq!(again.state_hash(), sim.state_hash());
        for _ in 0..3 {
            if sim.step().is_err() {
                break;
            }
        }
    }
}

#[test]
fn snapshot_restore() {
    let seed = snapshot_seed();
    // The seed holds a group, an order speed and pending commands of tags 14-17.
    let sim = Simulator::restore(&seed).unwrap();
    assert_eq!(sim.group(3), Some(&[AgentId(0), AgentId(3)][..]));
    let order = sim.agent_order(AgentId(0)).unwrap().unwrap();
    assert_eq!(order.speed(), Some(Fx::from_num(24)));
    let tags: Vec<u8> = (sim.pending_commands().iter())
        .map(|p| p.command.tag())
        .collect();
    assert!((14..=17).all(|t| tags.contains(&t)), "{tags:?}");
    bolero::check!()
        .with_type::<(bool, Vec<(u16, u8)>, Vec<u8>)>()
        .for_each(|(raw, edits, bytes)| {
            if *raw {
                check_restore(bytes);
            } else {
                let mut b = edit(&seed, edits);
                reseal_snapshot(&mut b);
                check_restore(&b);
            }
        });
}

// ------------------------------------------------------------------ 2. replay decode

fn replay_seed() -> Vec<u8> {
    let mut sim = Simulator::restore(&snapshot_seed()).unwrap();
    let stop = Command::Stop { id: AgentId(2) };
    replay::record(
        &mut sim,
        6,
        RecordOptions {
            checkpoint_interval: 2,
        },
        |s| match s.tick() {
            // Tags 14-17 in the tick frames too: navigate, a group set, then its move and an
            // order speed.
            2 => vec![
                command(9, 0, -40, -40),
                command(11, 3, 40, -40),
                command(12, 1, 16, 16),
                command(14, 2, 0, 3),
            ],
            3 => vec![stop.clone(), command(15, 2, 8, 3), command(13, 1, 20, 0)],
            5 => vec![command(10, 0, 0, 0)],
            _ => Vec::new(),
        },
    )
    .unwrap()
    .to_bytes()
    .unwrap()
}

/// The frames of a well-formed replay, as (kind, payload): 12 header bytes, then
/// `kind u8 | length u32 | payload | checksum u64` per frame.
fn split_frames(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 12;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 1..at + 5].try_into().unwrap()) as usize;
        out.push((bytes[at], bytes[at + 5..at + 5 + len].to_vec()));
        at += 13 + len;
    }
    out
}

/// A replay of these frames, each checksum chained on the previous one as the format says.
fn assemble(frames: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = REPLAY_MAGIC.to_vec();
    out.extend_from_slice(&REPLAY_VERSION.to_le_bytes());
    let mut check = 0;
    for (kind, payload) in frames {
        let start = out.len();
        out.push(*kind);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(payload);
        check = xxh3_64_with_seed(&out[start..], check);
        out.extend_from_slice(&check.to_le_bytes());
    }
    out
}

#[test]
fn replay_decode() {
    let frames = split_frames(&replay_seed());
    assert!(
        replay::verify_stream(&assemble(&frames)[..])
            .unwrap()
            .is_match()
    );
    bolero::check!()
        .with_type::<(bool, u8, u8, Vec<(u16, u8)>, Vec<u8>)>()
        .for_each(|(raw, which, kind, edits, bytes)| {
            let input = if *raw {
                bytes.clone()
            } else {
                let mut f = frames.clone();
                let i = *which as usize % f.len();
                if *kind > 0xF0 {
                    f[i].0 = kind & 7;
                }
                f[i].1 = edit(&f[i].1, edits);
                assemble(&f)
            };
            // Any outcome but a panic; a replay that verifies re-ran its own ticks.
            if let Ok(report) = replay::verify_stream(&input[..]) {
                let _ = report.is_match();
            }
        });
}

// ------------------------------------------------------------------ 3. scenario TOML

const FIXTURES: &[&str] = &[
    include_str!("../../fixtures/scenarios/add_remove.toml"),
    include_str!("../../fixtures/scenarios/building.toml"),
    include_str!("../../fixtures/scenarios/corridor.toml"),
    include_str!("../../fixtures/scenarios/swap_perturbed.toml"),
    include_str!("../../fixtures/scenarios/roadmap.toml"),
    include_str!("../../fixtures/liveness/door_counterflow.toml"),
    include_str!("../../fixtures/liveness/ring_center.toml"),
];

fn check_scenario(text: &str) {
    let Ok(scenario) = Scenario::from_toml_str(text) else {
        return;
    };
    // Building validates again; small scenes are built and stepped a little (warnings are
    // computed too: they read every part of the scene).
    let agents = scenario.agents.len() + scenario.events.len();
    let vertices: usize = scenario.obstacles.iter().map(|o| o.vertices().len()).sum();
    if agents > 300 || vertices > 300 {
        return;
    }
    let _ = scenario.warnings();
    if let Ok((mut sim, driver)) = scenario.build() {
        for _ in 0..4 {
            let tick = sim.tick();
            if driver.apply_events(&mut sim, tick).is_err()
                || driver.set_pref_velocities(&mut sim, tick).is_err()
                || sim.step().is_err()
            {
                break;
            }
        }
    }
}

#[test]
fn scenario_toml() {
    bolero::check!()
        .with_type::<(bool, u8, Vec<(u16, u8)>, String)>()
        .for_each(|(raw, which, edits, text)| {
            if *raw {
                check_scenario(text);
            } else {
                let base = FIXTURES[*which as usize % FIXTURES.len()].as_bytes();
                check_scenario(&String::from_utf8_lossy(&edit(base, edits)));
            }
        });
}

// ------------------------------------------------------------------ 4. command stream

/// The solid block in the middle of the command-stream scene: [-3, 3] × [-3, 3].
const BLOCK: i32 = 3;

fn walled_scene() -> Simulator {
    let mut sim = Simulator::new(SimulatorParams {
        agent_defaults: AgentParams {
            radius: Fx::lit("0.5"),
            ..AgentParams::default()
        },
        ..SimulatorParams::default()
    })
    .unwrap();
    let b = BLOCK;
    sim.add_obstacle(ObstacleShape::Polygon(vec![
        Vec2::from_int(-b, -b),
        Vec2::from_int(b, -b),
        Vec2::from_int(b, b),
        Vec2::from_int(-b, b),
    ]))
    .unwrap();
    sim
}

/// A point of the field from two bytes: within ±16, outside the block and a margin around it.
fn field_point(x: i8, y: i8) -> Vec2 {
    let (mut x, y) = (i32::from(x) / 8, i32::from(y) / 8);
    if x.abs() <= BLOCK + 1 && y.abs() <= BLOCK + 1 {
        x = if x < 0 { -(BLOCK + 2) } else { BLOCK + 2 };
    }
    Vec2::from_int(x, y)
}

/// One command from a fuzz tuple (kind, agent, x, y).
fn command(kind: u8, agent: u8, x: i8, y: i8) -> Command {
    let id = AgentId(u32::from(agent % 12));
    let v = Vec2::new(
        Fx::from_num(i32::from(x)) / 16,
        Fx::from_num(i32::from(y)) / 16,
    );
    match kind % 17 {
        // Of two sizes (bit 5 of `agent`): units larger than the traffic radius get doors of
        // their own (navigation's traffic control for units of several sizes).
        0 => Command::AddAgent {
            position: field_point(x, y),
            params: AgentParams {
                radius: if agent & 0x20 != 0 {
                    Fx::lit("0.8")
                } else {
                    Fx::lit("0.5")
                },
                max_speed: Fx::from_num(1 + i32::from(agent % 4)),
                ..AgentParams::default()
            },
        },
        1 => Command::MoveTo {
            id,
            goal: Vec2::from_int(i32::from(x) / 4, i32::from(y) / 4),
        },
        2 => Command::QueueMove {
            id,
            goal: Vec2::from_int(i32::from(y) / 4, i32::from(x) / 4),
        },
        3 => Command::Stop { id },
        4 => Command::SetPrefVelocity { id, v },
        5 => Command::SetVelocity { id, v },
        6 => Command::SetPriority {
            id,
            priority: x as u8,
        },
        7 => Command::RemoveAgent { id },
        // A small building outside the block: a counter-clockwise triangle of size 1 to 4,
        // reaching away from the block (a flat one, refused, when bit 6 of `agent` is set).
        9 => {
            let p = field_point(x, y);
            let s = Fx::from_num(1 + i32::from(agent % 4));
            let sx = if p.x < Fx::ZERO { -s } else { s };
            let sy = match (agent & 0x40 != 0, p.y < Fx::ZERO) {
                (true, _) => Fx::ZERO,
                (false, true) => -s,
                (false, false) => s,
            };
            let mut shape = vec![p, p + Vec2::new(sx, Fx::ZERO), p + Vec2::new(sx, sy)];
            if (sx < Fx::ZERO) != (sy < Fx::ZERO) {
                shape.swap(1, 2);
            }
            Command::AddObstacle {
                shape: ObstacleShape::Polygon(shape),
            }
        }
        // Never obstacle 0, the block the invariants rely on.
        10 => Command::RemoveObstacle {
            id: lockstep_orca::obstacle::ObstacleId(1 + u32::from(agent % 4)),
        },
        11 => Command::SpawnAgent {
            position: field_point(x, y),
            params: AgentParams {
                radius: Fx::lit("0.5"),
                ..AgentParams::default()
            },
            model: model(agent, x, y, v),
        },
        // Issue 25/26's commands (tags 14-17): navigate (a move without navigation), an order
        // speed (none for a negative x; up to 1,000 and past it when bit 6 of `agent` is set),
        // a group of the agents `agent .. agent + y % 8` (ids past the agents, duplicates and
        // a group id past the bound when bit 7 of `agent` is set), a group move.
        12 => Command::NavigateTo {
            id,
            goal: Vec2::from_int(i32::from(x) / 4, i32::from(y) / 4),
        },
        13 => Command::SetOrderSpeed {
            id,
            speed: (x >= 0).then(|| {
                let scale = if agent & 0x40 == 0 { 16 } else { 120 };
                Fx::from_num(i32::from(x) * scale) / 16
            }),
        },
        14 => Command::SetGroup {
            group: group_id(agent, y),
            members: (0..u32::from(y.unsigned_abs() % 8))
                .map(|k| AgentId((u32::from(agent % 12) + k * 3) % 14))
                .collect(),
        },
        // With bit 0 of `agent`, the navigated group move (tag 20).
        15 => {
            let (group, goal) = (
                group_id(agent, y),
                Vec2::from_int(i32::from(x) / 4, i32::from(y) / 4),
            );
            let (queue, slowest) = (agent & 0x20 != 0, agent & 0x10 != 0);
            if agent & 1 != 0 {
                Command::GroupNavigate {
                    group,
                    goal,
                    queue,
                    slowest,
                }
            } else {
                Command::GroupMove {
                    group,
                    goal,
                    queue,
                    slowest,
                }
            }
        }
        // Issue 27's formation move (tag 18), or with bit 0 of `agent` the group moving
        // together (tag 19): every layout, the facing `v` when bit 5 of `agent` is set (zero,
        // refused, when x and y are), a spacing of y / 16 when bit 4 is (zero and negative
        // ones refused), the slowest member's speed with bit 6.
        16 => {
            let group = group_id(agent, y);
            let goal = Vec2::from_int(i32::from(x) / 4, i32::from(y) / 4);
            let formation =
                lockstep_orca::orders::formation::FormationKind::from_canonical_byte(x as u8 % 5)
                    .unwrap_or_default();
            let facing = (agent & 0x20 != 0).then_some(v);
            let spacing = (agent & 0x10 != 0).then(|| Fx::from_num(i32::from(y)) / 16);
            let slowest = agent & 0x40 != 0;
            Command::formation(
                agent & 1 != 0,
                group,
                goal,
                formation,
                facing,
                spacing,
                slowest,
            )
        }
        // The agent model (issue 14): masks, body radius, acceleration, support, slope.
        _ => Command::SetModel {
            id,
            model: model(agent, x, y, v),
        },
    }
}

/// A group id from fuzz bytes: `0 ..= 3`, or past the simulator's bound when bit 7 is set.
fn group_id(agent: u8, y: i8) -> u32 {
    let g = u32::from(y as u8 & 3);
    if agent & 0x80 == 0 {
        g
    } else {
        lockstep_orca::orders::groups::MAX_GROUPS + g
    }
}

/// An agent model from fuzz bytes: masks, body radius, acceleration, support, slope.
fn model(agent: u8, x: i8, y: i8, v: Vec2) -> lockstep_orca::AgentModel {
    lockstep_orca::AgentModel {
        layers: u32::from(x as u8 & 3),
        mask: u32::from(y as u8 & 3),
        body_radius: (x & 4 != 0).then(|| Fx::lit("0.3")),
        max_accel: (y & 4 != 0).then(|| Fx::from_num(i32::from(agent % 8))),
        // Supports up to 0.18 units/s and slopes up to 0.7 (k ≤ 1.22): the effective max speed
        // (at least 0.82) can always hold an agent still against its support, so the walls can
        // always be kept (a faster conveyor carries it into the wall).
        support_velocity: v * Fx::lit("0.015625"),
        slope: Vec2::new(v.y, v.x) * Fx::lit("0.0625"),
        speed_limit: (x & 8 != 0).then_some(Fx::ONE),
    }
}

/// The map boundary of the command-stream scene when navigation is on: the square
/// `[-EDGE, EDGE]²` (field points are within ±16).
const EDGE: i32 = 20;

/// Runs the stream; checks the invariants every tick; returns the hash after every tick. A
/// stream whose first delay byte has bit 7 set runs with navigation on and the square of
/// [`EDGE`] as the map boundary, a wall: then no centre may leave it either, and navigate
/// orders plan.
fn run_stream(ops: &[(u8, u8, i8, i8, u8)]) -> Vec<u64> {
    let mut sim = walled_scene();
    let navigation = ops.first().is_some_and(|op| op.4 & 0x80 != 0);
    if navigation {
        let e = EDGE;
        let boundary = vec![
            Vec2::from_int(-e, -e),
            Vec2::from_int(e, -e),
            Vec2::from_int(e, e),
            Vec2::from_int(-e, e),
        ];
        sim.set_navigation(Some(lockstep_orca::navigation::NavParams {
            boundary: Some(boundary),
            ..lockstep_orca::navigation::NavParams::default()
        }))
        .unwrap();
    }
    let mut hashes = Vec::new();
    let b = Fx::from_num(BLOCK);
    let edge = Fx::from_num(EDGE);
    for chunk in ops.chunks(4).take(48) {
        let tick = sim.tick();
        for &(kind, agent, x, y, delay) in chunk {
            // Rejections (unknown agents, values outside the domain) are fine: they change nothing.
            let _ = sim.queue_command(tick + u64::from(delay % 3), command(kind, agent, x, y));
        }
        if sim.step().is_err() {
            break;
        }
        let agents = sim.agents();
        for s in 0..agents.len() {
            let (v, p) = (agents.velocities()[s], agents.positions()[s]);
            let max = agents.params()[s].max_speed;
            // An agent that braked (its acceleration left no velocity satisfying the walls
            // within its speed circle) may exceed its max speed while it brakes.
            let braked = sim
                .agent_outcome(agents.ids()[s])
                .ok()
                .flatten()
                .is_some_and(|o| o.no_solution);
            // Within max speed, up to rounding (a few ulps of the squares).
            assert!(
                braked
                    || v.length_squared_wide()
                        <= lockstep_orca::math::wide_mul(max, max) + (1 << 40),
                "agent {:?}: speed above max",
                agents.ids()[s]
            );
            // No centre strictly inside the block (agents start and are added outside it).
            assert!(
                !(p.x.abs() < b && p.y.abs() < b),
                "agent {:?} inside the block at {p:?}",
                agents.ids()[s]
            );
            // With navigation, no centre past the map's edge (its wall).
            assert!(
                !navigation || (p.x.abs() <= edge && p.y.abs() <= edge),
                "agent {:?} past the map's edge at {p:?}",
                agents.ids()[s]
            );
        }
        hashes.push(sim.state_hash());
    }
    hashes
}

#[test]
fn command_stream() {
    bolero::check!()
        .with_type::<Vec<(u8, u8, i8, i8, u8)>>()
        .for_each(|ops| {
            let first = run_stream(ops);
            assert_eq!(first, run_stream(ops), "the same stream gave other hashes");
        });
}

// ------------------------------------------------------------------ 5. ggrs input

// The messages (every wire kind), the games and the catalogue are in `net_messages.rs`.

/// Runs up to 16 frames of messages on three games: `a` and `b` must agree on everything
/// after every frame (checksum, rejections, hash reports), and every rejected order is counted;
/// `c` mispredicts at frame `rollback_at` (three frames with the players' inputs swapped),
/// loads its save of that frame and re-simulates, and must agree with `a` again.
fn run_net(scene: Option<&Scenario>, rollback_at: u8, frames: &[(NetMessage, NetMessage)]) {
    let inputs: Vec<[(NetInput, InputStatus); 2]> = frames
        .iter()
        .take(16)
        .map(|(p0, p1)| [net_input(p0), net_input(p1)])
        .collect();
    let (mut a, mut b, mut c) = (net_game(scene), net_game(scene), net_game(scene));
    // `c`'s recording follows its rollback; it must verify like `a`'s.
    a.start_recording(RecordOptions {
        checkpoint_interval: 4,
    });
    c.start_recording(RecordOptions {
        checkpoint_interval: 4,
    });
    run_net_frames(&mut a, &mut b, &mut c, rollback_at, &inputs);
    let (ra, rc) = (a.recorded_replay().unwrap(), c.recorded_replay().unwrap());
    assert_eq!(ra, rc);
    let report = replay::verify(&ra);
    assert!(report.is_match(), "{report}");
}

fn run_net_frames(
    a: &mut NetGame,
    b: &mut NetGame,
    c: &mut NetGame,
    rollback_at: u8,
    inputs: &[[(NetInput, InputStatus); 2]],
) {
    let rollback_at = usize::from(rollback_at) % (inputs.len() + 1);
    let cell = GameStateCell::<NetState>::default();
    for (f, input) in inputs.iter().enumerate() {
        if f == rollback_at {
            let saved = c.checksum();
            c.save(&cell, f as i32).unwrap();
            for wrong in inputs[f..].iter().take(3) {
                // A failed step is fine here: the load below is what a session does next.
                if c.advance(&[wrong[1], wrong[0]]).is_err() {
                    break;
                }
            }
            c.load(&cell, f as i32).unwrap();
            assert_eq!(c.checksum(), saved);
            assert_eq!(c.frame() as usize, f);
        }
        let (frame, rejected, skipped) =
            (a.frame(), a.rejected_orders(), a.skipped_group_members());
        let result = a.advance(input);
        assert_eq!(b.advance(input), result);
        assert_eq!(c.advance(input), result);
        if let Err(e) = result {
            // Only the simulator can fail an advance of the right number of players; the
            // failure is the same on every peer.
            assert!(matches!(e, NetError::Sim(_)), "{e}");
            return;
        }
        assert_eq!(a.frame(), frame + 1);
        assert_eq!(a.checksum(), b.checksum());
        assert_eq!(a.checksum(), c.checksum());
        assert_eq!(a.last_rejections(), b.last_rejections());
        assert_eq!(a.last_rejections(), c.last_rejections());
        assert_eq!(a.hash_mismatches(), b.hash_mismatches());
        assert_eq!(a.skipped_group_members(), c.skipped_group_members());
        assert!(a.skipped_group_members() >= skipped);
        assert_eq!(a.unchecked_hash_reports(), b.unchecked_hash_reports());
        // Every skipped order is counted (the scene's refused commands are listed, not counted).
        let orders = a
            .last_rejections()
            .iter()
            .filter(|r| r.player != usize::MAX)
            .count();
        assert_eq!(a.rejected_orders(), rejected + orders as u64);
        for r in a.last_rejections() {
            assert_eq!(r.frame, frame);
            assert!(r.slot < MAX_ORDERS && (r.player < 2 || r.player == usize::MAX));
        }
    }
}

#[test]
fn ggrs_input() {
    let scene = Scenario::from_toml_str(NET_SCENE).unwrap();
    // A fixed match through the harness first: both players select by range and mask (naming
    // each other's units), move their groups with a waypoint at the slowest speed, navigate,
    // set an order speed, and send a bad group index; a rollback at frame 1.
    let orders = |o: &[(u8, u8, i16, i16, u8)]| (0, Vec::new(), o.to_vec());
    let seed: Vec<(NetMessage, NetMessage)> = vec![
        (orders(&[(12, 0, 3, 0, 3)]), orders(&[(14, 1, 0b111, 0, 2)])),
        (
            orders(&[(15, 0, 40, 8, 3), (15, 0, -8, 40, 3), (11, 2, 1024, 0, 0)]),
            orders(&[(15, 0, 40, -8, 2), (10, 3, -40, 0, 0)]),
        ),
        // Player 1's bytes: a group index past its 64 (kind 13, arg 64).
        (orders(&[]), (1, vec![13, 64, 0, 0, 0, 0, 2], Vec::new())),
    ];
    for with_scene in [false, true] {
        run_net(with_scene.then_some(&scene), 1, &seed);
    }
    bolero::check!()
        .with_type::<(bool, u8, Vec<(NetMessage, NetMessage)>)>()
        .for_each(|(with_scene, rollback_at, frames)| {
            run_net(with_scene.then_some(&scene), *rollback_at, frames);
        });
}

// ------------------------------------------------------------------ 6. navigation CDT

/// Points and constraints for the triangulation kernel: `(mode, points, constraints)`. Mode bit
/// 0 clear: the points are on a lattice of 2^28 raw steps (`i8` multiples; duplicates, collinear
/// and cocircular sets are common); set: the `i16`s are spread over `±2^53` raw, the predicates'
/// whole range (bit 1 pushes a coordinate past it, which must be refused). Constraint ends are
/// taken modulo the point count (bit 2 leaves them raw: out-of-range indices must be refused).
type CdtInput = (u8, Vec<(i16, i16)>, Vec<(u8, u8)>);

fn run_cdt((mode, raw_points, raw_constraints): &CdtInput) {
    use crate::navigation::cdt::{CdtError, check::validate, triangulate};
    let points: Vec<Vec2> = raw_points
        .iter()
        .take(48)
        .map(|&(x, y)| {
            let (x, y) = (i64::from(x), i64::from(y));
            if mode & 1 == 0 {
                Vec2::from_bits((x % 128) << 28, (y % 128) << 28)
            } else if mode & 2 != 0 && x == i64::from(i16::MAX) {
                Vec2::from_bits(1 << 53, y)
            } else {
                Vec2::from_bits(x << 37 | (y & 0xFF), y << 37 | (x & 0xFF))
            }
        })
        .collect();
    let n = u8::try_from(points.len()).unwrap_or(u8::MAX).max(1);
    let constraints: Vec<[u32; 2]> = raw_constraints
        .iter()
        .take(48)
        .map(|&(a, b)| {
            if mode & 4 == 0 {
                [u32::from(a % n), u32::from(b % n)]
            } else {
                [u32::from(a), u32::from(b)]
            }
        })
        .collect();
    match triangulate(&points, &constraints) {
        Ok(t) => {
            validate(&points, &constraints, &t);
            // Reversed input order: the same triangulation, up to the renumbering.
            let Some(last) = u32::try_from(points.len()).unwrap().checked_sub(1) else {
                return;
            };
            let rev_points: Vec<Vec2> = points.iter().rev().copied().collect();
            let rev_constraints: Vec<[u32; 2]> = constraints
                .iter()
                .rev()
                .map(|&[a, b]| [last - b, last - a])
                .collect();
            let mut r = triangulate(&rev_points, &rev_constraints).unwrap();
            for tri in &mut r.tris {
                *tri = tri.map(|i| last - i);
            }
            assert_eq!(r, t, "the input order changed the triangulation");
        }
        Err(CdtError::DuplicatePoint) => {
            let mut sorted = points.clone();
            sorted.sort_by_key(|p| (p.x, p.y));
            assert!(sorted.windows(2).any(|w| w[0] == w[1]), "no duplicate");
        }
        Err(CdtError::BadConstraint) => assert!(
            constraints
                .iter()
                .any(|&[a, b]| a == b || a as usize >= points.len() || b as usize >= points.len()),
            "no bad constraint"
        ),
        Err(CdtError::OutOfRange) => assert!(
            points
                .iter()
                .any(|p| p.x.to_bits().abs() >= 1 << 53 || p.y.to_bits().abs() >= 1 << 53),
            "no point out of range"
        ),
    }
}

#[test]
fn nav_cdt() {
    bolero::check!().with_type::<CdtInput>().for_each(run_cdt);
}

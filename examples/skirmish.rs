//! A small headless game on the netcode: two players, a headquarters each, twelve soldiers
//! each with hit points moved as one control group, a wall placed mid-game, soldiers that die
//! by the game's rules; two processes over loopback UDP with ggrs, in rollback or lockstep
//! mode, the match recorded and verified. The tutorial in docs/netcode.md ("A game on the netcode") reads this file.
//!
//! ```text
//! cargo run --release --features ggrs --example skirmish -- --local-port 7000 --remote 127.0.0.1:7001 --player 0
//! cargo run --release --features ggrs --example skirmish -- --local-port 7001 --remote 127.0.0.1:7000 --player 1
//! ```
//!
//! Each peer prints `frame F hash H` every 20 frames once frame F is confirmed (the lines of
//! the two peers agree), then `score ...`, then verifies its recording of the match and prints
//! `replay verified: ...` (and writes it to `--replay PATH` if given). Exit status: 0 done, 1
//! the peers disagreed or the replay did not verify, 2 bad arguments, 3 a timeout or an error.

use ggrs::{GgrsError, InputStatus, PlayerType, SessionBuilder, SessionState};
use ggrs::{P2PSession, UdpNonBlockingSocket};
use lockstep_orca::netcode::{
    Catalogue, GameRules, MAX_ORDERS, NetConfig, NetGame, Orders, PlayerOrder, StateWriter, Turn,
    WireOrder,
};
use lockstep_orca::replay::{self, RecordOptions};
use lockstep_orca::{AgentId, Command, ObstacleShape, Simulator, SimulatorParams, Vec2};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

// ---- The game: its input, its rolled-back state, its rules -------------------------------

/// One player's input for one frame: the crate's order slots plus the game's own field (the
/// stance), and the lockstep hash report. Integers only: every byte string is an input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct SkirmishInput {
    orders: [WireOrder; MAX_ORDERS],
    /// 1: the player's soldiers open fire; 0: hold fire; anything else is ignored.
    stance: u8,
    hash_tag: u32,
    hash: u64,
}

/// Hit points a soldier starts with; damage is one point per enemy in range per frame.
const HIT_POINTS: i32 = 40;
/// Weapon range (squared distances are compared in `Fx`).
const RANGE: i32 = 5;

/// The game's rolled-back state: the default order rules (with the catalogue of buildings),
/// each soldier's hit points, each player's stance and kills. Saved, loaded and checksummed by
/// `NetGame` together with the simulator.
#[derive(Clone, Debug)]
struct Skirmish {
    orders: Orders,
    hit_points: BTreeMap<AgentId, i32>,
    firing: [bool; 2],
    kills: [u32; 2],
}

impl GameRules for Skirmish {
    type Input = SkirmishInput;

    fn step(&mut self, turn: &mut Turn<'_>, inputs: &[(SkirmishInput, InputStatus)]) {
        // 1. The players' orders, through the default mapping (ownership checked there; a
        //    refused slot is counted and listed, identically on every peer).
        for (player, (input, _)) in inputs.iter().enumerate() {
            self.orders.apply_slots(turn, player, &input.orders);
            match input.stance {
                0 | 1 => self.firing[player] = input.stance == 1,
                _ => {}
            }
        }
        // 2. Combat on the state at the frame's start: every soldier loses one point per
        //    armed enemy in range; a soldier at zero dies (removed by a command, so a replay
        //    of the match carries the death).
        let sim = turn.sim();
        let soldiers: Vec<(AgentId, usize, Vec2)> = turn
            .units()
            .filter(|(id, _)| self.hit_points.contains_key(id))
            .filter_map(|(id, owner)| Some((id, owner, sim.agent_position(id).ok()?)))
            .collect();
        // Exact squared distances, Q64.64 bits: no rounding, no overflow.
        let range2 = i128::from(RANGE * RANGE) << 64;
        let mut dead = Vec::new();
        for &(id, owner, p) in &soldiers {
            let hits = soldiers
                .iter()
                .filter(|&&(_, o, q)| {
                    o != owner && self.firing[o] && (q - p).length_squared_wide() < range2
                })
                .count() as i32;
            if let Some(hp) = self.hit_points.get_mut(&id) {
                *hp -= hits;
                if *hp <= 0 {
                    dead.push((id, owner));
                }
            }
        }
        for (id, owner) in dead {
            self.hit_points.remove(&id);
            self.kills[1 - owner] += 1;
            turn.push(Command::RemoveAgent { id });
        }
    }

    fn write_state(&self, out: &mut StateWriter<'_>) {
        self.orders.write_state(out);
        out.u32(self.hit_points.len() as u32);
        for (id, hp) in &self.hit_points {
            out.u32(id.0);
            out.i64(i64::from(*hp));
        }
        out.bytes(&[u8::from(self.firing[0]), u8::from(self.firing[1])]);
        out.u32(self.kills[0]);
        out.u32(self.kills[1]);
    }

    fn reported_hash(input: &SkirmishInput) -> Option<(u32, u64)> {
        input.hash_tag.checked_sub(1).map(|f| (f, input.hash))
    }
}

/// Building types: 0 a headquarters (a 4 × 4 square), 1 a wall (a 1 × 12 bar).
fn catalogue() -> Catalogue {
    let rect = |w: i32, h: i32| {
        ObstacleShape::Polygon(vec![
            Vec2::from_int(0, 0),
            Vec2::from_int(w, 0),
            Vec2::from_int(w, h),
            Vec2::from_int(0, h),
        ])
    };
    Catalogue {
        unit_types: Vec::new(),
        buildings: vec![rect(4, 4), rect(1, 12)],
    }
}

/// Twelve soldiers a side, player 0 on the left, player 1 on the right.
fn new_game() -> NetGame<Skirmish> {
    let mut sim = Simulator::new(SimulatorParams::default()).expect("default parameters");
    let mut owners = Vec::new();
    for player in 0..2 {
        for i in 0..12 {
            let x = if player == 0 { -30 } else { 30 };
            let id = sim
                .add_agent(Vec2::from_int(x, i * 2 - 11))
                .expect("in domain");
            owners.push((id, player));
        }
    }
    let rules = Skirmish {
        orders: Orders::with_catalogue(catalogue()),
        hit_points: owners.iter().map(|&(id, _)| (id, HIT_POINTS)).collect(),
        firing: [false; 2],
        kills: [0; 2],
    };
    let mut game = NetGame::with_rules(sim, 2, rules).expect("two players");
    for (id, player) in owners {
        game.assign(id, player).expect("added above");
    }
    game
}

/// The deterministic script of `player` at `frame`: a headquarters at frame 1; the army
/// selected as control group 0 by one id range and sent to the centre by one group order at
/// the slowest soldier's speed; open fire; a waypoint behind for one soldier; player 1 builds a
/// wall mid-game; at frame 160 the survivors fall back, again one order for the whole group.
fn script(player: usize, frame: i32, units: &[AgentId]) -> (Vec<PlayerOrder>, u8) {
    let side = if player == 0 { -1 } else { 1 };
    let army = |x: i32| PlayerOrder::GroupMove {
        group: 0,
        goal: Vec2::from_int(x, 0),
        queue: false,
        slowest: true,
        navigate: false,
    };
    let orders = match frame {
        1 => vec![PlayerOrder::PlaceBuilding {
            position: Vec2::from_int(40 * side, -2),
            building: 0,
        }],
        // The soldiers have consecutive ids: one range (first to last) selects them all.
        10 => vec![
            PlayerOrder::SetGroup {
                group: 0,
                first: units[0],
                count: units[units.len() - 1].0 - units[0].0 + 1,
            },
            army(side),
        ],
        13 => vec![PlayerOrder::QueueMove {
            unit: units[0],
            goal: Vec2::from_int(10 * side, -20),
        }],
        100 if player == 1 => vec![PlayerOrder::PlaceBuilding {
            position: Vec2::from_int(20, -6),
            building: 1,
        }],
        160 => vec![army(25 * side)],
        _ => vec![],
    };
    let stance = match frame {
        10 => 1,
        _ => 2, // unchanged
    };
    (orders, stance)
}

fn input_of(orders: &[PlayerOrder], stance: u8) -> SkirmishInput {
    let mut input = SkirmishInput {
        stance,
        ..SkirmishInput::default()
    };
    for (slot, order) in input.orders.iter_mut().zip(orders) {
        *slot = order.encode().unwrap_or_default();
    }
    input
}

// ---- The session: two processes over UDP --------------------------------------------------

struct Args {
    local_port: u16,
    remote: SocketAddr,
    player: usize,
    frames: u32,
    lockstep: bool,
    replay: Option<std::path::PathBuf>,
    timeout: Duration,
}

const USAGE: &str = "usage: skirmish --local-port PORT --remote ADDR --player 0|1 \
[--frames N (240)] [--mode rollback|lockstep] [--replay PATH] [--timeout-secs S (30)]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        local_port: 0,
        remote: SocketAddr::from(([127, 0, 0, 1], 0)),
        player: 9,
        frames: 240,
        lockstep: false,
        replay: None,
        timeout: Duration::from_secs(30),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = || format!("{flag}: bad value `{v}`");
        match flag.as_str() {
            "--local-port" => a.local_port = v.parse().map_err(|_| bad())?,
            "--remote" => a.remote = v.parse().map_err(|_| bad())?,
            "--player" if v == "0" || v == "1" => a.player = v.parse().map_err(|_| bad())?,
            "--frames" => a.frames = v.parse().map_err(|_| bad())?,
            "--mode" if v == "rollback" || v == "lockstep" => a.lockstep = v == "lockstep",
            "--replay" => a.replay = Some(v.into()),
            "--timeout-secs" => a.timeout = Duration::from_secs(v.parse().map_err(|_| bad())?),
            _ => return Err(bad()),
        }
    }
    if a.player > 1 || a.local_port == 0 || a.remote.port() == 0 {
        return Err("--local-port, --remote and --player 0|1 are required".into());
    }
    Ok(a)
}

fn start_session(args: &Args) -> Result<P2PSession<NetConfig<Skirmish>>, GgrsError> {
    let socket = UdpNonBlockingSocket::bind_to_port(args.local_port).map_err(|e| {
        GgrsError::InvalidRequest {
            info: e.to_string(),
        }
    })?;
    let b = SessionBuilder::<NetConfig<Skirmish>>::new()
        .with_num_players(2)?
        .with_input_delay(2)
        .add_player(PlayerType::Local, args.player)?
        .add_player(PlayerType::Remote(args.remote), 1 - args.player)?;
    let b = if args.lockstep {
        b.with_max_prediction_window(0)
    } else {
        b.with_desync_detection_mode(ggrs::DesyncDetection::On { interval: 20 })
    };
    b.start_p2p_session(socket)
}

fn fail(code: i32, message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(code);
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| fail(2, &format!("{e}\n{USAGE}")));
    let deadline = Instant::now() + args.timeout;
    let mut session = start_session(&args).unwrap_or_else(|e| fail(3, &e.to_string()));
    let mut game = new_game();
    let units = game.units_of(args.player);
    game.set_hash_interval(20);
    game.start_recording(RecordOptions {
        checkpoint_interval: 30,
    });
    let (mut next_print, mut done_at) = (0u32, None::<Instant>);
    let mut desync = false;
    loop {
        let now = Instant::now();
        if now > deadline {
            fail(3, &format!("timeout at frame {}", game.frame()));
        }
        // After the last frame, keep answering the peer a little so it can finish too.
        if done_at.is_some_and(|t| now - t > Duration::from_millis(1000)) {
            break;
        }
        session.poll_remote_clients();
        for event in session.events() {
            if let ggrs::GgrsEvent::DesyncDetected { frame, .. } = event {
                eprintln!("desync detected at frame {frame}");
                desync = true;
            }
        }
        desync |= !game.hash_mismatches().is_empty();
        if session.current_state() == SessionState::Running && done_at.is_none() {
            let (orders, stance) = script(args.player, session.current_frame(), &units);
            let mut input = input_of(&orders, stance);
            // Lockstep mode: ggrs computes no checksums, so the peers exchange their own in the
            // inputs (in rollback mode a frame's state may still be a prediction: ggrs's own
            // desync detection compares confirmed frames).
            if args.lockstep
                && let Some(h) = game.recorded_checksum(game.frame())
            {
                input.hash_tag = game.frame() + 1;
                input.hash = h as u64;
            }
            session
                .add_local_input(args.player, input)
                .unwrap_or_else(|e| fail(3, &e.to_string()));
            match session.advance_frame() {
                Ok(requests) => game
                    .handle_requests(requests)
                    .unwrap_or_else(|e| fail(3, &e.to_string())),
                Err(GgrsError::PredictionThreshold) => {}
                Err(e) => fail(3, &e.to_string()),
            }
            let confirmed = if args.lockstep {
                game.frame()
            } else {
                u32::try_from(session.confirmed_frame()).unwrap_or(0)
            };
            while next_print <= confirmed.min(game.frame()) && next_print <= args.frames {
                if let Some(h) = game.recorded_checksum(next_print) {
                    println!("frame {next_print} hash {h:032x}");
                }
                next_print += 20;
            }
            if next_print > args.frames {
                done_at = Some(now);
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let g = game.rules();
    println!(
        "score: kills {} / {}, soldiers left {} / {}, buildings {}",
        g.kills[0],
        g.kills[1],
        game.units_of(0).len(),
        game.units_of(1).len(),
        game.simulator().obstacles().len()
    );
    // The match as a replay: re-simulated from the initial snapshot, every tick's hash checked.
    let recording = game.recorded_replay().expect("recording started");
    let report = replay::verify(&recording);
    let tick = u64::from(args.frames);
    let at_frames = recording
        .steps
        .get(args.frames as usize - 1)
        .map(|s| s.hash);
    println!(
        "replay hash at tick {tick}: {:016x}",
        at_frames.unwrap_or(0)
    );
    println!(
        "replay verified: {} ({} ticks recorded)",
        if report.is_match() {
            "match"
        } else {
            "MISMATCH"
        },
        recording.ticks()
    );
    if let Some(path) = &args.replay {
        let bytes = recording
            .to_bytes()
            .unwrap_or_else(|e| fail(3, &e.to_string()));
        std::fs::write(path, bytes).unwrap_or_else(|e| fail(3, &e.to_string()));
    }
    if desync || !report.is_match() {
        eprintln!("{report}");
        std::process::exit(1);
    }
}

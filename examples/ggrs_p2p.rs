//! Two peers over loopback UDP with ggrs: rollback (input delay and prediction) or pure
//! lockstep (`max_prediction_window(0)`), each player steering its own six units with orders.
//! Both peers print `frame F hash H` every K frames once frame F is confirmed; the lines agree.
//!
//! ```text
//! cargo run --release --features ggrs --example ggrs_p2p -- --local-port 7000 --remote 127.0.0.1:7001 --player 0
//! cargo run --release --features ggrs --example ggrs_p2p -- --local-port 7001 --remote 127.0.0.1:7000 --player 1
//! ```
//!
//! With `--inject-desync FRAME` this peer perturbs its state at that frame (one agent moves by
//! 2⁻³² units). The desync is detected (ggrs's `DesyncDetected` in rollback mode, the crate's
//! hash exchange carried in the inputs in lockstep mode) and reported with the frame, and each
//! peer writes its snapshot of that frame (`Simulator::snapshot` bytes) to `--dump-dir`.
//!
//! Exit status: 0 the peers agreed, 1 a desync was detected, 2 bad arguments, 3 a timeout or
//! a network or game error.

use ggrs::{DesyncDetection, GgrsError, GgrsEvent, PlayerType, SessionBuilder, SessionState};
use ggrs::{P2PSession, UdpNonBlockingSocket};
use lockstep_orca::netcode::{NetConfig, NetGame, NetInput, PlayerOrder};
use lockstep_orca::{AgentId, Fx, Simulator, SimulatorParams, Vec2};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: ggrs_p2p --local-port PORT --remote ADDR --player 0|1 [options]
  --local-port PORT      UDP port to bind
  --remote ADDR          the other peer, e.g. 127.0.0.1:7001
  --player 0|1           this peer's player handle
  --frames N             frames to confirm (default 300)
  --mode rollback|lockstep  (default rollback)
  --input-delay D        frames of input delay (default 2)
  --hash-every K         print and compare the state hash every K frames (default 10)
  --inject-desync FRAME  perturb this peer's state at FRAME
  --dump-dir DIR         where desync snapshots go (default .)
  --timeout-secs S       give up after S seconds (default 30)";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Rollback,
    Lockstep,
}

struct Args {
    local_port: u16,
    remote: SocketAddr,
    player: usize,
    frames: u32,
    mode: Mode,
    input_delay: usize,
    hash_every: u32,
    inject: Option<u32>,
    dump_dir: PathBuf,
    timeout: Duration,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let (mut local_port, mut remote, mut player) = (None, None, None);
    let mut a = Args {
        local_port: 0,
        remote: SocketAddr::from(([127, 0, 0, 1], 0)),
        player: 0,
        frames: 300,
        mode: Mode::Rollback,
        input_delay: 2,
        hash_every: 10,
        inject: None,
        dump_dir: PathBuf::from("."),
        timeout: Duration::from_secs(30),
    };
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let bad = |what: &str| format!("{flag}: `{value}` is not {what}");
        match flag.as_str() {
            "--local-port" => local_port = Some(value.parse().map_err(|_| bad("a port"))?),
            "--remote" => remote = Some(value.parse().map_err(|_| bad("an address"))?),
            "--player" => {
                player = Some(match value.as_str() {
                    "0" => 0,
                    "1" => 1,
                    _ => return Err(bad("0 or 1")),
                })
            }
            "--frames" => a.frames = value.parse().map_err(|_| bad("a frame count"))?,
            "--mode" => {
                a.mode = match value.as_str() {
                    "rollback" => Mode::Rollback,
                    "lockstep" => Mode::Lockstep,
                    _ => return Err(bad("rollback or lockstep")),
                }
            }
            "--input-delay" => a.input_delay = value.parse().map_err(|_| bad("a delay"))?,
            "--hash-every" => {
                a.hash_every = value.parse().map_err(|_| bad("an interval"))?;
                if a.hash_every == 0 {
                    return Err(bad("a positive interval"));
                }
            }
            "--inject-desync" => a.inject = Some(value.parse().map_err(|_| bad("a frame"))?),
            "--dump-dir" => a.dump_dir = PathBuf::from(value),
            "--timeout-secs" => {
                a.timeout = Duration::from_secs(value.parse().map_err(|_| bad("seconds"))?)
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    a.local_port = local_port.ok_or("--local-port is required")?;
    a.remote = remote.ok_or("--remote is required")?;
    a.player = player.ok_or("--player is required")?;
    Ok(a)
}

/// Six units per player: player 0's on the left, player 1's on the right.
fn new_game() -> NetGame {
    let mut sim = Simulator::new(SimulatorParams::default()).expect("default parameters");
    let mut owners = Vec::new();
    for player in 0..2 {
        for i in 0..6 {
            let x = if player == 0 { -20 } else { 20 };
            let id = sim
                .add_agent(Vec2::from_int(x, i * 4 - 10))
                .expect("in domain");
            owners.push((id, player));
        }
    }
    let mut game = NetGame::new(sim, 2).expect("two players");
    for (id, player) in owners {
        game.assign(id, player).expect("added above");
    }
    game
}

/// The deterministic order script of `player` at `frame`: the group crosses to the other
/// side and back every 80 frames (in two inputs, four orders fit one), queues a detour,
/// changes a priority, stops a unit, spawns one and removes it.
fn script(player: usize, frame: i32, units: &[AgentId]) -> Vec<PlayerOrder> {
    let side = if (frame / 80) % 2 == 0 { 1 } else { -1 };
    let side = if player == 0 { side } else { -side };
    let goal = |k: usize| Vec2::from_int(20 * side, k as i32 * 4 - 10);
    match frame % 80 {
        3 => (0..4)
            .map(|k| PlayerOrder::MoveTo {
                unit: units[k],
                goal: goal(k),
            })
            .collect(),
        4 => (4..6)
            .map(|k| PlayerOrder::MoveTo {
                unit: units[k],
                goal: goal(k),
            })
            .collect(),
        30 => vec![PlayerOrder::QueueMove {
            unit: units[0],
            goal: Vec2::from_int(0, 30),
        }],
        50 => vec![PlayerOrder::SetPriority {
            unit: units[1],
            priority: (frame % 256) as u8,
        }],
        60 => vec![PlayerOrder::Stop { unit: units[2] }],
        70 if frame == 70 => vec![PlayerOrder::Spawn {
            position: Vec2::from_int(0, if player == 0 { -40 } else { 40 }),
        }],
        _ => vec![],
    }
}

fn start_session(args: &Args) -> Result<P2PSession<NetConfig>, GgrsError> {
    let socket = UdpNonBlockingSocket::bind_to_port(args.local_port).map_err(|e| {
        GgrsError::InvalidRequest {
            info: format!("bind port {}: {e}", args.local_port),
        }
    })?;
    let mut b = SessionBuilder::<NetConfig>::new()
        .with_num_players(2)?
        .with_input_delay(args.input_delay)
        .add_player(PlayerType::Local, args.player)?
        .add_player(PlayerType::Remote(args.remote), 1 - args.player)?;
    b = match args.mode {
        Mode::Rollback => b.with_desync_detection_mode(DesyncDetection::On {
            interval: args.hash_every,
        }),
        Mode::Lockstep => b.with_max_prediction_window(0),
    };
    b.start_p2p_session(socket)
}

/// The first desync this peer saw.
struct Desync {
    frame: u32,
    /// The two hashes in hex: 128-bit ggrs checksums, or the 64 bits the lockstep exchange
    /// carries.
    local: String,
    remote: String,
    at: Instant,
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(3);
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("error: {e}\n{USAGE}");
        std::process::exit(2);
    });
    let deadline = Instant::now() + args.timeout;
    let mut session = start_session(&args).unwrap_or_else(|e| fail(&e.to_string()));
    let mut game = new_game();
    let units = game.units_of(args.player);
    game.set_hash_interval(args.hash_every);
    // Snapshots of every hashed frame (the latest simulation of it), for the desync dump; and
    // the injected fault.
    let snapshots: Arc<Mutex<BTreeMap<u32, Vec<u8>>>> = Arc::default();
    let (snaps, k, inject) = (snapshots.clone(), args.hash_every, args.inject);
    #[allow(deprecated)] // fault injection: what the hook is for
    game.set_frame_hook(Some(Box::new(move |frame, sim: &mut Simulator| {
        if Some(frame) == inject
            && let Some(&id) = sim.agent_ids().first()
        {
            let p = sim.agent_position(id).expect("listed");
            let _ = sim.set_agent_position(id, p + Vec2::new(Fx::DELTA, Fx::ZERO));
        }
        if frame.is_multiple_of(k) {
            let mut s = snaps.lock().unwrap_or_else(PoisonError::into_inner);
            s.insert(frame, sim.snapshot());
            while s.len() > 64 {
                s.pop_first();
            }
        }
    })));

    let mut next_print = 0u32;
    let mut desync: Option<Desync> = None;
    let mut done_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if now > deadline {
            fail(&format!(
                "timeout after {} s at frame {} (confirmed {})",
                args.timeout.as_secs(),
                game.frame(),
                session.confirmed_frame()
            ));
        }
        // After the last frame (or a desync), keep answering the peer a little so it can
        // finish too, then leave.
        let linger = Duration::from_millis(1500);
        if done_at.is_some_and(|t| now - t > linger)
            || desync.as_ref().is_some_and(|d| now - d.at > linger)
        {
            break;
        }
        session.poll_remote_clients();
        for event in session.events() {
            if let GgrsEvent::DesyncDetected {
                frame,
                local_checksum,
                remote_checksum,
                ..
            } = event
                && desync.is_none()
            {
                desync = Some(Desync {
                    frame: u32::try_from(frame).unwrap_or(0),
                    local: format!("{local_checksum:032x}"),
                    remote: format!("{remote_checksum:032x}"),
                    at: now,
                });
            }
        }
        if let (None, Some(m)) = (&desync, game.hash_mismatches().first()) {
            desync = Some(Desync {
                frame: m.frame,
                local: format!("{:016x}", m.local),
                remote: format!("{:016x}", m.remote),
                at: now,
            });
        }
        if session.current_state() == SessionState::Running && done_at.is_none() {
            let frame = session.current_frame();
            let mut input = NetInput::from_orders(&script(args.player, frame, &units))
                .unwrap_or_else(|e| fail(&e.to_string()));
            if args.mode == Mode::Lockstep
                && let Some(h) = game.recorded_checksum(game.frame())
            {
                input = input.with_hash(game.frame(), h);
            }
            session
                .add_local_input(args.player, input)
                .unwrap_or_else(|e| fail(&e.to_string()));
            match session.advance_frame() {
                Ok(requests) => game
                    .handle_requests(requests)
                    .unwrap_or_else(|e| fail(&e.to_string())),
                Err(GgrsError::PredictionThreshold) => {}
                Err(e) => fail(&e.to_string()),
            }
            // Frame F's state is final once every input before it is confirmed.
            let confirmed = match args.mode {
                Mode::Rollback => u32::try_from(session.confirmed_frame()).unwrap_or(0),
                Mode::Lockstep => game.frame(),
            };
            while next_print <= confirmed.min(game.frame()) && next_print <= args.frames {
                if let Some(h) = game.recorded_checksum(next_print) {
                    println!("frame {next_print} hash {h:032x}");
                }
                next_print += args.hash_every;
            }
            if next_print > args.frames {
                done_at = Some(now);
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }

    let Some(d) = desync else {
        println!("agreement through frame {}", args.frames);
        return;
    };
    println!(
        "desync detected at frame {}: local hash {}, remote hash {}",
        d.frame, d.local, d.remote
    );
    match snapshots
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&d.frame)
    {
        Some(bytes) => {
            let path = args.dump_dir.join(format!(
                "ggrs_p2p_player{}_frame{}.snap",
                args.player, d.frame
            ));
            match std::fs::write(&path, bytes) {
                Ok(()) => println!("wrote snapshot of frame {} to {}", d.frame, path.display()),
                Err(e) => eprintln!("error: {}: {e}", path.display()),
            }
        }
        None => eprintln!("no snapshot of frame {} kept", d.frame),
    }
    std::process::exit(1);
}

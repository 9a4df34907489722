//! The tutorial game, `examples/skirmish.rs`, as two processes in both modes: equal hash lines,
//! each peer's recording of the match verifies (file and in-process), with its buildings, both
//! recordings agree on the last confirmed tick's hash, and a waypoint moved in a recording is
//! named (unit, waypoint, tick).

use super::p2p::{build_example, free_port, wait_bounded};
use lockstep_orca::replay::{self, Replay};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

fn skirmish() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| build_example("skirmish")).clone()
}

fn run_pair(mode: &str) -> [Output; 2] {
    let exe = skirmish();
    let ports = [free_port(), free_port()];
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skirmish");
    std::fs::create_dir_all(&dir).unwrap();
    let children: Vec<Child> = (0..2)
        .map(|p| {
            Command::new(&exe)
                .args(["--local-port", &ports[p].to_string()])
                .args(["--remote", &format!("127.0.0.1:{}", ports[1 - p])])
                .args(["--player", &p.to_string(), "--mode", mode])
                .args(["--frames", "240", "--timeout-secs", "60", "--replay"])
                .arg(replay_path(mode, p))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut outs = children
        .into_iter()
        .map(|c| wait_bounded(c, Duration::from_secs(90)));
    [outs.next().unwrap(), outs.next().unwrap()]
}

fn lines(o: &Output, prefix: &str) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

fn the_match_agrees_and_replays(mode: &str) {
    let [a, b] = run_pair(mode);
    for o in [&a, &b] {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{mode}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(lines(o, "replay verified: match").len(), 1, "{mode}");
    }
    let hashes = lines(&a, "frame ");
    assert_eq!(hashes.len(), 13, "{mode}: frames 0, 20, …, 240: {hashes:?}");
    assert_eq!(
        hashes,
        lines(&b, "frame "),
        "{mode}: the peers' hash lines differ"
    );
    assert_eq!(lines(&a, "replay hash"), lines(&b, "replay hash"), "{mode}");
    // Soldiers died by the game's rules, and the wall went up mid-game (two headquarters and
    // a wall), in both peers' games.
    let score = lines(&a, "score: ");
    assert_eq!(score.len(), 1);
    assert!(score[0].ends_with("buildings 3"), "{score:?}");
    assert!(!score[0].contains("soldiers left 12 / 12"), "{score:?}");
    // Each peer's replay file verifies (buildings and deaths are commands in it); the same
    // replay with one waypoint moved by one unit names the unit and the waypoint.
    for p in 0..2 {
        let bytes = std::fs::read(replay_path(mode, p)).unwrap();
        assert!(
            replay::verify_bytes(&bytes).unwrap().is_match(),
            "{mode} {p}"
        );
        let mut rec = Replay::from_bytes(&bytes).unwrap();
        let buildings = (rec.steps.iter().flat_map(|s| &s.commands))
            .filter(|c| matches!(c, lockstep_orca::Command::AddObstacle { .. }))
            .count();
        assert_eq!(buildings, 3, "{mode} {p}");
        let (tick, unit, goal) = rec
            .steps
            .iter_mut()
            .find_map(|s| {
                s.commands
                    .iter_mut()
                    .find_map(|c| match c {
                        lockstep_orca::Command::QueueMove { id, goal } => Some((*id, goal)),
                        _ => None,
                    })
                    .map(|(id, goal)| (s.tick, id, goal))
            })
            .expect("the script queues a waypoint");
        let recorded = *goal;
        let moved = recorded + lockstep_orca::Vec2::from_int(1, 0);
        *goal = moved;
        let report = replay::verify(&rec);
        let d = report.divergence().expect("a moved waypoint diverges");
        assert_eq!(d.tick, tick + 1, "{report}");
        assert!(
            d.orders.iter().any(|o| o.id == unit
                && o.field
                    == replay::OrderField::Waypoint {
                        index: 1,
                        expected: recorded,
                        actual: moved,
                    }),
            "{mode} {p}: {report}"
        );
    }
}

fn replay_path(mode: &str, player: usize) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("skirmish")
        .join(format!("{mode}_{player}.lsr"))
}

#[test]
fn the_skirmish_agrees_and_replays_in_rollback_mode() {
    the_match_agrees_and_replays("rollback");
}

#[test]
fn the_skirmish_agrees_and_replays_in_lockstep_mode() {
    the_match_agrees_and_replays("lockstep");
}

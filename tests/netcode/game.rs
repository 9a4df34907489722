//! The tutorial game, `examples/skirmish.rs`, as two processes in both modes: equal hash lines,
//! each peer's recording of the match verifies, and both recordings agree on the last
//! confirmed tick's hash.

use super::p2p::{build_example, free_port, wait_bounded};
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
                .arg(dir.join(format!("{mode}_{p}.lsr")))
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
}

#[test]
fn the_skirmish_agrees_and_replays_in_rollback_mode() {
    the_match_agrees_and_replays("rollback");
}

#[test]
fn the_skirmish_agrees_and_replays_in_lockstep_mode() {
    the_match_agrees_and_replays("lockstep");
}

//! The two-process tests of `examples/ggrs_p2p.rs`: both peers on free loopback ports, bounded
//! in time by the example's own `--timeout-secs` and by a kill here.
//!
//! Cargo offers no `CARGO_BIN_EXE_*` for examples, and `cargo test --test netcode` builds none.
//! So the first test that needs the example runs `cargo build --profile <profile> --features
//! ggrs[,parallel] --example ggrs_p2p` (the features of this test's build) through `env!("CARGO")` (the profile this test was built with; a
//! no-op when the binary is fresh, and never a stale binary), then runs it from
//! `target/<profile>/examples/`, next to this test's directory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn example() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| build_example("ggrs_p2p")).clone()
}

/// Builds example `name` (feature `ggrs`, and `parallel` when this test has it) once per test
/// run (a no-op when it is fresh: a binary left from an older build must not be tested) and
/// returns its path.
pub(super) fn build_example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("release") => "release",
        _ => "test",
    };
    // The features this test was built with, so the example links the same library build.
    let features = if cfg!(feature = "parallel") {
        "ggrs,parallel"
    } else {
        "ggrs"
    };
    let status = Command::new(env!("CARGO"))
        .args(["build", "--profile", profile, "--features", features])
        .args(["--example", name])
        .current_dir(ROOT)
        .status()
        .unwrap();
    assert!(
        status.success() && path.exists(),
        "could not build {}",
        path.display()
    );
    path
}

/// A loopback UDP port that was free a moment ago.
pub(super) fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits for `child`, killing it after `limit` (then the output says so through its status).
pub(super) fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Runs both peers for 300 frames; `inject` goes to player 1 only. Returns both outputs.
fn run_pair(mode: &str, inject: Option<u32>, dump: &Path) -> [Output; 2] {
    let exe = example();
    let ports = [free_port(), free_port()];
    let children: Vec<Child> = (0..2)
        .map(|p| {
            let mut cmd = Command::new(&exe);
            cmd.args(["--local-port", &ports[p].to_string()])
                .args(["--remote", &format!("127.0.0.1:{}", ports[1 - p])])
                .args([
                    "--player",
                    &p.to_string(),
                    "--mode",
                    mode,
                    "--frames",
                    "300",
                ])
                .args([
                    "--input-delay",
                    "2",
                    "--hash-every",
                    "10",
                    "--timeout-secs",
                    "60",
                ])
                .arg("--dump-dir")
                .arg(dump)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let (1, Some(f)) = (p, inject) {
                cmd.args(["--inject-desync", &f.to_string()]);
            }
            cmd.spawn().unwrap()
        })
        .collect();
    let mut outs = children
        .into_iter()
        .map(|c| wait_bounded(c, Duration::from_secs(90)));
    [outs.next().unwrap(), outs.next().unwrap()]
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn hash_lines(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter(|l| l.starts_with("frame "))
        .map(str::to_string)
        .collect()
}

fn dump_dir(label: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("ggrs_p2p")
        .join(label);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn agreement(mode: &str) {
    let dir = dump_dir(&format!("agree_{mode}"));
    let [a, b] = run_pair(mode, None, &dir);
    for o in [&a, &b] {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{mode}: {}\n{}",
            stdout(o),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let lines = hash_lines(&a);
    // Frames 0, 10, …, 300.
    assert_eq!(lines.len(), 31, "{lines:?}");
    assert_eq!(
        lines,
        hash_lines(&b),
        "{mode}: the peers' hash lines differ"
    );
    assert!(lines[30].starts_with("frame 300 hash "));
}

fn desync(mode: &str) {
    let dir = dump_dir(&format!("desync_{mode}"));
    let [a, b] = run_pair(mode, Some(150), &dir);
    let mut snaps = Vec::new();
    for (p, o) in [&a, &b].into_iter().enumerate() {
        let out = stdout(o);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{mode} player {p}: {out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains("desync detected at frame 150:"),
            "{mode} player {p}: {out}"
        );
        let path = dir.join(format!("ggrs_p2p_player{p}_frame150.snap"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let sim = lockstep_orca::Simulator::restore(&bytes).unwrap();
        assert_eq!(sim.tick(), 150);
        snaps.push(sim);
    }
    // The two snapshots are of the same frame and differ in the one agent the fault moved
    // (by 2^-32), which the snapshot diff names.
    assert_ne!(snaps[0].state_hash(), snaps[1].state_hash());
    let diff = lockstep_orca::snapshot::diff(&snaps[0], &snaps[1]);
    assert_eq!(diff.agents(), [snaps[0].agent_ids()[0]], "{mode}");
    // Up to the last hash line before the fault, the peers agree.
    let before = |o: &Output| -> Vec<String> {
        hash_lines(o)
            .into_iter()
            .take_while(|l| !l.starts_with("frame 150 "))
            .collect()
    };
    assert_eq!(before(&a).len(), 15);
    assert_eq!(before(&a), before(&b));
}

#[test]
fn two_processes_agree_in_rollback_mode() {
    agreement("rollback");
}

#[test]
fn two_processes_agree_in_lockstep_mode() {
    agreement("lockstep");
}

#[test]
fn an_injected_desync_is_detected_in_rollback_mode() {
    desync("rollback");
}

#[test]
fn an_injected_desync_is_detected_in_lockstep_mode() {
    desync("lockstep");
}

#[test]
fn bad_arguments_exit_with_status_2() {
    let out = Command::new(example())
        .args(["--player", "7"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 or 1"));
}

#[test]
fn a_missing_peer_times_out() {
    let port = free_port();
    let out = Command::new(example())
        .args([
            "--local-port",
            &free_port().to_string(),
            "--remote",
            &format!("127.0.0.1:{port}"),
        ])
        .args(["--player", "0", "--timeout-secs", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("timeout"));
}

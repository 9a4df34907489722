//! The runner's `record` and `verify` subcommands, end to end through the binary.

use lockstep_orca::Command as Cmd;
use lockstep_orca::replay::Replay;
use lockstep_orca::{Fx, Vec2};
use std::path::PathBuf;
use std::process::{Command, Output};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios");

fn runner(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep-orca"))
        .args(args)
        .output()
        .expect("runner starts")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh scratch directory per test (tests run in parallel).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The line `prefix<value>` of `text`.
fn line_value<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}"))
}

/// Records `add_remove.toml` for 120 ticks (events at ticks 40-100 included) and returns the
/// replay's path.
fn record_add_remove(dir: &std::path::Path) -> PathBuf {
    let out = dir.join("add_remove.replay");
    let o = runner(&[
        "record",
        &format!("{FIXTURES}/add_remove.toml"),
        out.to_str().unwrap(),
        "--ticks",
        "120",
        "--hash-every",
        "20",
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    out
}

#[test]
fn record_then_verify_succeeds_and_matches_run() {
    let dir = scratch("roundtrip");
    let out = record_add_remove(&dir);
    let o = runner(&["verify", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("OK: 120 ticks reproduced"), "{text}");
    // `record` feeds the simulator through commands only, `run` calls the driver directly:
    // the same trajectory.
    let rec = runner(&[
        "record",
        &format!("{FIXTURES}/add_remove.toml"),
        dir.join("again.replay").to_str().unwrap(),
        "--ticks",
        "120",
    ]);
    let run = runner(&[
        "run",
        &format!("{FIXTURES}/add_remove.toml"),
        "--ticks",
        "120",
    ]);
    let (rec, run) = (stdout(&rec), stdout(&run));
    assert_eq!(
        line_value(&rec, "final hash: "),
        line_value(&run, "final hash: ")
    );
    assert!(text.contains(line_value(&rec, "final hash: ")), "{text}");
    // Recording is deterministic: the same command line writes the same bytes.
    let again = record_add_remove(&scratch("roundtrip-again"));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(again).unwrap());
}

#[test]
fn tampered_command_is_named_at_the_right_tick() {
    let dir = scratch("tamper");
    let out = record_add_remove(&dir);
    let mut replay = Replay::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    // Tick 57: nudge the preferred velocity of agent 10 (a left-group agent in the crossing).
    let inputs = replay
        .inputs
        .iter_mut()
        .find(|t| t.tick == 57)
        .expect("tick 57 has commands");
    let cmd = inputs
        .commands
        .iter_mut()
        .find(|c| matches!(c, Cmd::SetPrefVelocity { id, .. } if id.0 == 10))
        .expect("agent 10 is driven at tick 57");
    let Cmd::SetPrefVelocity { v, .. } = cmd else {
        unreachable!()
    };
    *v += Vec2::new(Fx::ZERO, Fx::lit("0.5"));
    let tampered = dir.join("tampered.replay");
    std::fs::write(&tampered, replay.to_bytes()).unwrap();
    let o = runner(&["verify", tampered.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    // The commands of tick 57 are consumed by the step 57 -> 58: the hash at 58 differs first.
    assert!(text.starts_with("DIVERGED at tick 58:"), "{text}");
    // The next checkpoint (every 20 ticks: tick 60) names agent 10.
    assert!(
        text.contains("differ") && text.contains(" at tick 60:"),
        "{text}"
    );
    assert!(text.contains("\n  agent 10: expected ("), "{text}");
}

#[test]
fn corrupted_or_truncated_replays_exit_1_with_a_clear_message() {
    let dir = scratch("corrupt");
    let out = record_add_remove(&dir);
    let bytes = std::fs::read(&out).unwrap();
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x20;
    let cases = [
        ("flipped.replay", flipped),
        ("truncated.replay", bytes[..bytes.len() - 7].to_vec()),
        ("garbage.replay", b"not a replay at all".to_vec()),
        ("empty.replay", Vec::new()),
    ];
    for (name, data) in cases {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        let o = runner(&["verify", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("is not a valid replay file:"), "{name}: {err}");
        assert!(stdout(&o).is_empty(), "{name}: nothing on stdout");
    }
    let o = runner(&["verify", dir.join("missing.replay").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    let scen = format!("{FIXTURES}/add_remove.toml");
    for args in [
        vec!["record"],
        vec!["record", scen.as_str()],
        vec!["record", scen.as_str(), "out", "extra"],
        vec!["record", scen.as_str(), "out", "--ticks"],
        vec!["record", scen.as_str(), "out", "--hash-every", "0"],
        vec!["record", scen.as_str(), "out", "--bogus"],
        vec!["verify"],
        vec!["verify", "a", "b"],
        vec!["verify", "--now"],
    ] {
        let o = runner(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("usage:"), "{args:?}");
    }
}

#[test]
fn record_reports_bad_scenarios_with_exit_1() {
    let dir = scratch("badscen");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "time_step = 0.25\n[[event]]\ntick = 3\nremove_agent = 9\n",
    )
    .unwrap();
    let out = dir.join("never.replay");
    let o = runner(&["record", bad.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("agent 9 does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

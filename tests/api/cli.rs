//! The command-line tool end to end through the binary: `record`, `verify` (files and stdin),
//! `diff`, every
//! subcommand's `--help`, `--version`, the exit codes (0 ok, 1 failed run or mismatch, 2 bad
//! input), the JSON of `run`, `verify` and `bench`, `golden`, and safe file handling (no output
//! over an input, outputs checked before the run and written through a temporary file, bounded
//! input reads). The README pictures are in `tests/api/pictures.rs`.

use lockstep_orca::Command as Cmd;
use lockstep_orca::Vec2;
use lockstep_orca::replay::Replay;
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
    let _ = std::fs::remove_dir_all(&dir);
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

/// Adds an order for agent 10 to the replay's commands of tick 57 (the scene steers by orders,
/// so a tick without events has no command to change).
fn tamper_tick_57(replay: &mut Replay) {
    let step = replay
        .steps
        .iter_mut()
        .find(|t| t.tick == 57)
        .expect("tick 57 was recorded");
    step.commands.push(Cmd::MoveTo {
        id: lockstep_orca::AgentId(10),
        goal: Vec2::from_int(0, 30),
    });
}

#[test]
fn tampered_command_is_named_at_the_right_tick() {
    let dir = scratch("tamper");
    let out = record_add_remove(&dir);
    let mut replay = Replay::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    // Tick 57: order agent 10 (a left-group agent in the crossing) elsewhere.
    tamper_tick_57(&mut replay);
    let tampered = dir.join("tampered.replay");
    std::fs::write(&tampered, replay.to_bytes().unwrap()).unwrap();
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
fn corrupted_or_truncated_replays_exit_2_with_a_clear_message() {
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
        ("padded.replay", [bytes.as_slice(), b"x"].concat()),
        ("version1.replay", {
            let mut v = bytes.clone();
            v[8] = 1;
            v
        }),
    ];
    for (name, data) in cases {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        let o = runner(&["verify", path.to_str().unwrap()]);
        // A file that is not a valid replay is bad input: exit 2.
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("is not a valid replay file:"), "{name}: {err}");
        assert!(stdout(&o).is_empty(), "{name}: nothing on stdout");
    }
    let o = runner(&["verify", dir.join("missing.replay").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
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
        // clap's message: the usage, or a pointer to `--help`.
        let err = stderr(&o);
        assert!(
            err.contains("Usage:") || err.contains("--help"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn record_reports_bad_scenarios_with_exit_2() {
    let dir = scratch("badscen");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "time_step = 0.25\n[[event]]\ntick = 3\nremove_agent = 9\n",
    )
    .unwrap();
    let out = dir.join("never.replay");
    let o = runner(&["record", bad.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("agent 9 does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

/// A scenario whose run fails at tick 1: two overlapping agents at the edge of the coordinate
/// square are pushed apart, one of them out of it.
const LEAVES_DOMAIN: &str = "time_step = 0.25\nmax_ticks = 50\nagents = [{ start = [999999.5, 0], goal = [999999.5, 0] }, { start = [999999, 0], goal = [999999, 0] }]\n";

const SUBCOMMANDS: [&str; 7] = [
    "run", "record", "verify", "diff", "render", "golden", "bench",
];

#[test]
fn version_and_help_explain_every_subcommand() {
    let o = runner(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o).trim(),
        format!("lockstep-orca {}", env!("CARGO_PKG_VERSION"))
    );
    let o = runner(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let top = stdout(&o);
    for sub in SUBCOMMANDS {
        assert!(top.contains(&format!("  {sub} ")), "{sub} in:\n{top}");
    }
    assert!(top.contains("Exit codes: 0 success; 1"), "{top}");
    // Each subcommand's help: its usage line and a sentence that explains it.
    let explains = [
        ("run", "Runs until every agent reached its goal"),
        (
            "record",
            "feeding the simulator only through lockstep commands",
        ),
        ("verify", "compare every tick's state hash"),
        ("diff", "Compare two snapshot files"),
        ("render", "animated GIF"),
        ("golden", "golden hash lines"),
        ("bench", "total_ms"),
    ];
    for (sub, phrase) in explains {
        for help in ["--help", "-h"] {
            let o = runner(&[sub, help]);
            assert_eq!(o.status.code(), Some(0), "{sub} {help}: {}", stderr(&o));
            let text = stdout(&o);
            assert!(
                text.contains(&format!("Usage: lockstep-orca {sub}")),
                "{sub}: {text}"
            );
            if help == "--help" {
                assert!(
                    text.contains(phrase),
                    "{sub} --help lacks `{phrase}`:\n{text}"
                );
            }
        }
        let o = runner(&["help", sub]);
        assert_eq!(o.status.code(), Some(0), "help {sub}");
    }
}

#[test]
fn exit_codes_0_1_2() {
    let dir = scratch("exit-codes");
    let swap = format!("{FIXTURES}/swap_perturbed.toml");
    // 0: a run that works.
    let o = runner(&["run", &swap, "--ticks", "5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 1: a run that fails.
    let fails = dir.join("leaves.toml");
    std::fs::write(&fails, LEAVES_DOMAIN).unwrap();
    let o = runner(&["run", fails.to_str().unwrap(), "--ticks", "10"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("simulation failed at tick 1: agent 0 would leave"),
        "{}",
        stderr(&o)
    );
    // The record of a failing run leaves no file behind, not even the temporary one.
    let out = dir.join("leaves.replay");
    let o = runner(&[
        "record",
        fails.to_str().unwrap(),
        out.to_str().unwrap(),
        "--ticks",
        "10",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "only leaves.toml"
    );
    // 2: bad input. Command lines, a missing file, a file that is not a scenario.
    let garbage = dir.join("garbage.toml");
    std::fs::write(&garbage, "this is = not [ toml").unwrap();
    let svg = dir.join("x.svg");
    for args in [
        vec!["run"],
        vec!["run", &swap, "--ticks", "x"],
        vec!["run", &swap, "--hash-every", "0"],
        vec!["bogus"],
        vec![],
        vec!["bench", "crowd"],
        vec!["bench", "circle250", "5"],
        vec!["bench", "square", "5"],
        vec!["render", &swap],
        vec!["run", "/nonexistent/scene.toml"],
        vec!["run", garbage.to_str().unwrap()],
        vec!["golden", garbage.to_str().unwrap()],
        vec![
            "render",
            garbage.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ],
    ] {
        let o = runner(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    }
}

#[test]
fn outputs_never_overwrite_inputs() {
    let dir = scratch("overwrite");
    let scen = dir.join("s.toml");
    std::fs::copy(format!("{FIXTURES}/swap_perturbed.toml"), &scen).unwrap();
    let original = std::fs::read(&scen).unwrap();
    let s = scen.to_str().unwrap();
    let other_spelling = format!("{}/../cli-overwrite/s.toml", dir.display());
    for args in [
        vec!["record", s, s],
        vec!["record", s, other_spelling.as_str()],
        vec!["run", s, "--csv", s],
        vec!["run", s, "--csv", other_spelling.as_str()],
        vec!["render", s, "--png", s],
        vec!["render", s, "--png", "a.png", "--svg", "a.png"],
    ] {
        let o = runner(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("refusing to write") || err.contains("named as two outputs"),
            "{args:?}: {err}"
        );
        assert!(stdout(&o).is_empty(), "{args:?}: nothing runs");
        assert_eq!(std::fs::read(&scen).unwrap(), original, "{args:?}");
    }
    // Through a symbolic link or a hard link: the same file, refused.
    #[cfg(unix)]
    {
        let sym = dir.join("sym.toml");
        std::os::unix::fs::symlink(&scen, &sym).unwrap();
        let hard = dir.join("hard.toml");
        std::fs::hard_link(&scen, &hard).unwrap();
        for link in [&sym, &hard] {
            let o = runner(&["record", s, link.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(2), "{link:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("refusing to write"), "{}", stderr(&o));
        }
        assert_eq!(std::fs::read(&scen).unwrap(), original);
    }
    // A replay over itself (its input) is refused too.
    let out = dir.join("r.replay");
    let o = runner(&["record", s, out.to_str().unwrap(), "--ticks", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = out.to_str().unwrap();
    let o = runner(&["render", r, "--svg", r]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(std::fs::read(&out).unwrap().starts_with(b"LSORCARP"));
}

#[test]
fn unwritable_outputs_fail_before_the_run() {
    let dir = scratch("unwritable");
    let scen = format!("{FIXTURES}/circle250.toml");
    let missing = dir.join("no/such/dir/out");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["record", scen.as_str(), m],
        vec!["run", scen.as_str(), "--csv", m],
        vec!["render", scen.as_str(), "--gif", m],
        vec!["record", scen.as_str(), dir.to_str().unwrap()],
    ] {
        let start = std::time::Instant::now();
        let o = runner(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write"),
            "{args:?}: {}",
            stderr(&o)
        );
        // Nothing ran: no header, and far quicker than the 2,860-tick run.
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        assert!(start.elapsed().as_secs() < 5, "{args:?}");
    }
}

#[test]
fn outputs_appear_whole_under_their_name_and_no_temporary_file_stays() {
    let dir = scratch("tempfiles");
    let scen = format!("{FIXTURES}/swap_perturbed.toml");
    let csv = dir.join("t.csv");
    let o = runner(&["run", &scen, "--ticks", "4", "--csv", csv.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    // Header + 5 states (ticks 0..=4) of 16 agents.
    assert_eq!(text.lines().count(), 1 + 5 * 16);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["t.csv"], "no temporary file left");
}

#[test]
fn input_reads_are_bounded_by_a_stated_limit() {
    let dir = scratch("limits");
    let big = dir.join("big.toml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((16 << 20) + 1)
        .unwrap();
    let o = runner(&["run", big.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("larger than the scenario size limit of 16777216 bytes"),
        "{}",
        stderr(&o)
    );
    // A replay is streamed: a 1 GiB sparse file is refused by its header, after 12 bytes.
    let huge = dir.join("huge.replay");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let o = runner(&["verify", huge.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a valid replay file: bad magic"),
        "{}",
        stderr(&o)
    );
    // So is a snapshot for `diff`, after 20 bytes.
    let o = runner(&["diff", huge.to_str().unwrap(), huge.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a valid snapshot file: bad magic"),
        "{}",
        stderr(&o)
    );
}

/// `verify -` streams stdin: a valid replay verifies (exit 0), an endless stream of zeros is
/// refused (exit 2), whatever comes after its header.
#[test]
fn verify_reads_stdin() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = scratch("stdin");
    let out = record_add_remove(&dir);
    let run_with = |input: Vec<u8>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lockstep-orca"))
            .args(["verify", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The runner may stop reading early: a broken pipe is expected then.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let o = child.wait_with_output().unwrap();
        writer.join().unwrap();
        o
    };
    let o = run_with(std::fs::read(&out).unwrap());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("OK: 120 ticks reproduced"));
    assert!(stdout(&o).contains(" ticks/s"), "{}", stdout(&o));
    let o = run_with(vec![0; 1 << 20]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("stdin is not a valid replay file: bad magic"),
        "{}",
        stderr(&o)
    );
}

/// Writes `sim`'s snapshot to `dir/name` and returns the path.
fn write_snapshot(dir: &std::path::Path, name: &str, sim: &lockstep_orca::Simulator) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, sim.snapshot()).unwrap();
    path
}

/// `diff A B`: exit 0 and `identical` for equal states, 1 and one line per difference for
/// different ones (naming the agent and the field), 2 for a file that is not a snapshot.
#[test]
fn diff_exit_codes_and_report() {
    use lockstep_orca::{AgentId, Simulator, SimulatorParams};
    let dir = scratch("diff");
    let mut a = Simulator::new(SimulatorParams::default()).unwrap();
    for i in 0..4 {
        a.add_agent(Vec2::from_int(3 * i, 0)).unwrap();
    }
    let mut b = a.clone();
    b.set_agent_velocity(AgentId(2), Vec2::from_int(1, 0))
        .unwrap();
    b.remove_agent(AgentId(3)).unwrap();
    let (pa, pb) = (
        write_snapshot(&dir, "a.snap", &a),
        write_snapshot(&dir, "b.snap", &b),
    );
    let (pa, pb) = (pa.to_str().unwrap(), pb.to_str().unwrap());
    let o = runner(&["diff", pa, pa]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("identical: state hash "),
        "{}",
        stdout(&o)
    );
    let o = runner(&["diff", pa, pb]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("agent 2 velocity: (0, 0) | (1, 0)\n"),
        "{text}"
    );
    assert!(
        text.contains("agent 3 present: at (9, 0) | absent\n"),
        "{text}"
    );
    assert!(text.contains("2 differences (2 agents)"), "{text}");
    let o = runner(&["diff", pa, pb, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["identical"], false);
    assert_eq!(v["agents"], serde_json::json!([2, 3]));
    assert_eq!(v["differences"][0]["field"], "velocity");
    // Bad input: a replay, a truncated snapshot, a missing file.
    let replay = record_add_remove(&dir);
    let cut = dir.join("cut.snap");
    let bytes = a.snapshot();
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    for bad in [replay, cut, dir.join("missing.snap")] {
        let o = runner(&["diff", pa, bad.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: {}",
            bad.display(),
            stderr(&o)
        );
        assert!(stdout(&o).is_empty());
    }
}

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(
        o.stdout.iter().filter(|&&b| b == b'\n').count(),
        1,
        "one line"
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn run_json_is_one_document_with_the_documented_fields() {
    let scen = format!("{FIXTURES}/swap_perturbed.toml");
    let o = runner(&["run", &scen, "--hash-every", "200", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    // The same run in this process gives every value.
    let s = lockstep_orca::scenario::Scenario::load(&scen).unwrap();
    let (mut sim, driver) = s.build().unwrap();
    let options = lockstep_orca::scenario::RunOptions {
        hash_every: 200,
        ..lockstep_orca::scenario::RunOptions::default()
    };
    let r = driver.run(&mut sim, &options).unwrap();
    let (c, at) = r.min_clearance.unwrap();
    assert_eq!(v["scenario"], "swap_perturbed");
    assert_eq!(v["agents"], 16);
    assert_eq!(v["ticks"], r.ticks);
    assert_eq!(v["all_reached"], true);
    assert_eq!(v["final_hash"], format!("{:016x}", r.final_hash));
    assert_eq!(v["min_clearance"]["tick"], at);
    assert_eq!(v["min_clearance"]["value"], c.to_string());
    assert_eq!(v["min_clearance"]["bits"], c.to_bits());
    assert_eq!(v["hashes"][1]["tick"], 200);
    assert_eq!(v["hashes"][1]["hash"], format!("{:016x}", r.hashes[1].1));
    assert_eq!(v["hashes"].as_array().unwrap().len(), r.hashes.len());
    assert_eq!(v["outcomes"]["stalls"], r.outcomes.stalls);
    assert_eq!(v["outcomes"]["yield_ticks"], r.outcomes.yield_ticks);
    assert!(v["csv"].is_null());
    assert!(v["warnings"].is_array());
    // The same run as text.
    let text = stdout(&runner(&["run", &scen]));
    assert_eq!(line_value(&text, "final hash: "), v["final_hash"]);
}

#[test]
fn verify_json_reports_match_and_divergence() {
    let dir = scratch("verify-json");
    let out = record_add_remove(&dir);
    let o = runner(&["verify", out.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["ok"], true);
    assert_eq!(v["ticks"], 120);
    assert_eq!(v["start_tick"], 0);
    let recorded = Replay::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["final_hash"], format!("{:016x}", recorded.final_hash));
    assert!(v["divergence"].is_null());
    assert_eq!(v["bytes"], std::fs::metadata(&out).unwrap().len());
    assert!(v["ticks_per_second"].as_u64().unwrap() > 0, "{v}");
    assert!(v["elapsed_us"].is_u64(), "{v}");
    assert!(v["report"].as_str().unwrap().starts_with("OK: 120 ticks"));
    // Tamper with agent 10 at tick 57, as above.
    let mut replay = Replay::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    tamper_tick_57(&mut replay);
    let bad = dir.join("bad.replay");
    std::fs::write(&bad, replay.to_bytes().unwrap()).unwrap();
    let o = runner(&["verify", bad.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["ok"], false);
    let d = &v["divergence"];
    assert_eq!(d["tick"], 58);
    assert_eq!(d["agents_tick"], 60);
    assert_eq!(d["expected_hash"].as_str().unwrap().len(), 16);
    assert_ne!(d["expected_hash"], d["actual_hash"]);
    let a = d["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == 10)
        .expect("agent 10 differs");
    assert_eq!(a["expected"].as_array().unwrap().len(), 2);
    assert!(a["actual"][0].is_string());
}

/// The stage split keys of `bench` (docs/cli.md).
const STAGES: [&str; 7] = [
    "inputs_ms",
    "orders_ms",
    "obstacles_ms",
    "tree_ms",
    "neighbors_ms",
    "solve_ms",
    "integrate_ms",
];

#[test]
fn bench_prints_one_key_value_line_or_json() {
    let o = runner(&["bench", "crowd", "50", "--ticks", "5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    let pairs: std::collections::BTreeMap<&str, &str> = text
        .split_whitespace()
        .map(|kv| kv.split_once('=').expect("key=value"))
        .collect();
    for key in [
        "scene",
        "agents",
        "ticks",
        "total_ms",
        "pref_ms",
        "step_ms",
        "agent_steps_per_s",
        "hash",
        "neighbors_found",
        "pairs_solved",
        "pairs_reused",
        "lp3_fallbacks",
        "at_max_speed",
        "threads",
    ]
    .iter()
    .chain(&STAGES)
    {
        assert!(pairs.contains_key(key), "{key} in {text}");
    }
    // The stages add up to the step (each tick's stage times are within its step time).
    let ms = |k: &str| pairs[k].parse::<f64>().unwrap();
    let stages: f64 = STAGES.iter().map(|k| ms(k)).sum();
    assert!(
        stages > 0.0 && stages <= ms("step_ms") * 1.0001 + 1e-6,
        "{text}"
    );
    assert_eq!(pairs["threads"], "1");
    assert_eq!(pairs["liveness"], "resolve");
    // RVO2's mode, on request: another run (the steering differs), reported as such.
    let rvo2 = stdout(&runner(&[
        "bench",
        "crowd",
        "50",
        "--ticks",
        "5",
        "--liveness",
        "rvo2",
    ]));
    assert!(rvo2.contains(" liveness=rvo2 "), "{rvo2}");
    assert_eq!(pairs["scene"], "crowd");
    assert_eq!(pairs["agents"], "50");
    assert_eq!(pairs["ticks"], "5");
    assert!(pairs["total_ms"].parse::<f64>().unwrap() >= 0.0);
    // Deterministic: the hash is the crowd's after 5 ticks, whatever the timing.
    let again = stdout(&runner(&["bench", "crowd", "50", "--ticks", "5"]));
    assert!(
        again.contains(&format!("hash={}", pairs["hash"])),
        "{again}"
    );
    let o = runner(&["bench", "circle", "40", "--ticks", "3", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["scene"], "circle");
    assert_eq!(v["n"], 40);
    assert_eq!(v["agents"], 40);
    assert_eq!(v["ticks"], 3);
    assert!(v["total_ms"].as_f64().unwrap() >= 0.0);
    assert!(v["agent_steps_per_s"].is_number());
    assert_eq!(v["last_step"]["tick"], 2);
    assert_eq!(v["last_step"]["step_agents"], 40);
    assert!(v["last_step"]["neighbors_found"].is_u64());
    assert_eq!(v["hash"].as_str().unwrap().len(), 16);
    assert!(v["stages_ms"]["neighbors"].as_f64().unwrap() > 0.0);
    // The crowd among posts: N agents and N segments (the step builds the obstacle tree once).
    let o = runner(&["bench", "obstacles", "200", "--ticks", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("scene=obstacles agents=200 ticks=2"),
        "{text}"
    );
    assert!(!text.contains(" obstacle_lines=0 "), "{text}");
    // Without the parallel feature more than one thread is refused; with it, the same hash.
    let o = runner(&["bench", "crowd", "300", "--ticks", "3", "--threads", "2"]);
    if cfg!(feature = "parallel") {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let serial = stdout(&runner(&["bench", "crowd", "300", "--ticks", "3"]));
        let hash = |t: &str| {
            t.split_whitespace()
                .find(|kv| kv.starts_with("hash="))
                .unwrap()
                .to_string()
        };
        assert_eq!(hash(&stdout(&o)), hash(&serial));
    } else {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("parallel"), "{}", stderr(&o));
    }
}

#[test]
fn golden_prints_and_checks_the_golden_lines() {
    let scen = format!("{FIXTURES}/swap_perturbed.toml");
    let o = runner(&["golden", &scen]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let snap = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/golden/swap_perturbed.snap"
    ))
    .unwrap();
    let body: Vec<String> = snap
        .lines()
        .skip_while(|l| *l != "---")
        .skip(1)
        .skip_while(|l| *l != "---")
        .skip(1)
        .map(|l| format!("hash=swap_perturbed {l}"))
        .collect();
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), body);
    let golden_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/golden");
    let o = runner(&["golden", &scen, "--check", "--golden-dir", golden_dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "ok swap_perturbed\n");
    // A golden file that differs: exit 1.
    let dir = scratch("golden");
    std::fs::write(dir.join("swap_perturbed.snap"), {
        let final_line = snap.lines().find(|l| l.starts_with("final: ")).unwrap();
        snap.replace(final_line, "final: 0000000000000000")
    })
    .unwrap();
    let o = runner(&[
        "golden",
        &scen,
        "--check",
        "--golden-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("MISMATCH swap_perturbed"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn progress_is_not_drawn_when_stderr_is_not_a_terminal() {
    // The tests capture stderr (a pipe): a successful run writes nothing there.
    let o = runner(&["run", &format!("{FIXTURES}/swap_perturbed.toml")]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
}

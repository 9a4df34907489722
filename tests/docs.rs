//! The docs cannot drift: what README.md and docs/*.md show is checked here or generated.
//!
//! Conventions, for whoever edits the docs:
//!
//! * **Checked sessions.** A fenced block whose opening fence directly follows a line
//!   `<!-- checked session -->` is a transcript. Each line starting with `$ ` is a command; the
//!   lines after it, up to the next `$ ` line or the end of the block, are exactly its standard
//!   output (trailing spaces ignored). A line `...` in an expected output stands for any number
//!   of lines. Commands run from a fresh scratch directory per block that holds a copy of
//!   `fixtures/scenarios/`, so paths read as from the repository root and the commands of one
//!   block share the files they write (`record`, then `verify`). Arguments are split at spaces
//!   (no quoting). Every command must exit with status 0. Known commands:
//!   - `lockstep-orca ARGS` and `cargo run --release -- ARGS`: the runner binary;
//!   - `cargo run --release --example NAME [-- ARGS]`: the example NAME, as `cargo test` builds
//!     it (`target/<profile>/examples/NAME`, next to this test's directory). If it has not been
//!     built (e.g. `cargo test --test docs` alone) this test builds it with
//!     `cargo build --profile test --example NAME` (`--profile release` under
//!     `cargo test --release`) first.
//!
//!   The release profile of the shown command and the test profile used here give the same
//!   output: the simulation is deterministic.
//! * **Hashes.** Every word of exactly 16 lowercase hex digits (a state hash) outside ```rust
//!   blocks must appear in the expected output of a checked session or in a golden file
//!   (`fixtures/golden/*.snap`, pinned by `tests/golden.rs`). Hashes inside ```rust blocks are
//!   asserted by the doctests themselves (`src/docs.rs` includes every docs file).
//! * **Fences** open with a language (`rust`, `text`, `sh`, `toml`, …): rustdoc would compile a
//!   bare fence as Rust.
//! * **Size.** README.md is at most 12 KiB: it is the front page, the manual is in docs/.
//! * **Coverage.** `src/docs.rs` includes every `docs/*.md` file, and nothing else.

// Without the `scenario` feature there is no runner: the session checks are compiled out.
#![cfg_attr(not(feature = "scenario"), allow(dead_code))]

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const SESSION_MARK: &str = "<!-- checked session -->";
const README_MAX_BYTES: usize = 12 * 1024;

/// README.md and every docs/*.md, sorted, as (path relative to the root, text).
fn doc_files() -> Vec<(String, String)> {
    let mut files = vec![("README.md".to_string(), read("README.md"))];
    for name in docs_md_names() {
        let rel = format!("docs/{name}");
        files.push((rel.clone(), read(&rel)));
    }
    files
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// File names of docs/*.md, sorted.
fn docs_md_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    names
}

/// A fenced block of a markdown file.
struct Block {
    /// 1-based line of the opening fence.
    line: usize,
    /// The info string (language) of the fence.
    lang: String,
    /// Whether the line before the fence is the session mark.
    checked: bool,
    body: Vec<String>,
}

/// The fenced blocks of `text` (``` fences only, as the docs use), and the lines outside them.
fn blocks(text: &str) -> (Vec<Block>, Vec<String>) {
    let mut out = Vec::new();
    let mut prose = Vec::new();
    let mut current: Option<Block> = None;
    let mut previous = "";
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match current.as_mut() {
            Some(_) if trimmed.starts_with("```") => out.push(current.take().unwrap()),
            Some(b) => b.body.push(line.to_string()),
            None if trimmed.starts_with("```") => {
                current = Some(Block {
                    line: i + 1,
                    lang: trimmed.trim_start_matches('`').trim().to_string(),
                    checked: previous.trim() == SESSION_MARK,
                    body: Vec::new(),
                });
            }
            None => prose.push(line.to_string()),
        }
        previous = line;
    }
    assert!(current.is_none(), "unclosed code fence");
    (out, prose)
}

/// Words of exactly 16 lowercase hex digits.
fn hashes_in(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.len() == 16
                && w.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
        .map(str::to_string)
        .collect()
}

/// One command of a session and its expected output lines.
struct Step {
    command: String,
    expected: Vec<String>,
}

fn steps(block: &Block) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    for line in &block.body {
        if let Some(cmd) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: cmd.trim().to_string(),
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.trim_end().to_string());
        } else {
            return Err(format!("line `{line}` comes before any `$ ` command"));
        }
    }
    if steps.is_empty() {
        return Err("a checked session holds no `$ ` command".into());
    }
    for s in &mut steps {
        while s.expected.last().is_some_and(String::is_empty) {
            s.expected.pop();
        }
    }
    Ok(steps)
}

/// Whether `actual` matches `expected`, where an expected line `...` matches any lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => actual.first() == Some(e) && matches(rest, &actual[1..]),
    }
}

/// The program and arguments a documented command stands for.
fn program(command: &str) -> Result<(PathBuf, Vec<String>), String> {
    let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["lockstep-orca", args @ ..] | ["cargo", "run", "--release", "--", args @ ..] => {
            Ok((runner(), args.iter().map(|s| s.to_string()).collect()))
        }
        ["cargo", "run", "--release", "--example", name, rest @ ..] => {
            let args = match rest {
                [] => Vec::new(),
                ["--", args @ ..] => args.iter().map(|s| s.to_string()).collect(),
                _ => return Err(format!("`{command}`: arguments go after `--`")),
            };
            Ok((example(name)?, args))
        }
        _ => Err(format!(
            "`{command}`: not a known command (see the header of tests/docs.rs)"
        )),
    }
}

#[cfg(feature = "scenario")]
fn runner() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_lockstep-orca"))
}

#[cfg(not(feature = "scenario"))]
fn runner() -> PathBuf {
    panic!("the runner needs the `scenario` feature")
}

/// The example binary `name` of this build, built first if `cargo test` has not.
fn example(name: &str) -> Result<PathBuf, String> {
    // This test runs from target/<profile>/deps/; examples live in target/<profile>/examples/.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("no target directory")?;
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        // target/debug/ holds the test profile's output, target/release/ the release one's.
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("release") => "release",
            _ => "test",
        };
        let status = Command::new(env!("CARGO"))
            .args(["build", "--profile", profile, "--example", name])
            .current_dir(ROOT)
            .status()
            .map_err(|e| format!("cargo build --example {name}: {e}"))?;
        if !status.success() || !path.exists() {
            return Err(format!(
                "example {name} could not be built at {}",
                path.display()
            ));
        }
    }
    Ok(path)
}

/// A scratch directory holding a copy of fixtures/scenarios/.
fn scratch(label: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("docs")
        .join(label);
    let _ = std::fs::remove_dir_all(&dir);
    let scenarios = dir.join("fixtures/scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    for entry in std::fs::read_dir(Path::new(ROOT).join("fixtures/scenarios")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), scenarios.join(entry.file_name())).unwrap();
    }
    dir
}

/// Runs every step of a checked session; the differences found, one message each.
fn check_session(file: &str, block: &Block) -> Vec<String> {
    let place = format!("{file}:{}", block.line);
    let steps = match steps(block) {
        Ok(s) => s,
        Err(e) => return vec![format!("{place}: {e}")],
    };
    let dir = scratch(&place.replace(['/', ':', '.'], "_"));
    let mut problems = Vec::new();
    for step in steps {
        let (exe, args) = match program(&step.command) {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("{place}: {e}"));
                continue;
            }
        };
        let out = match Command::new(&exe).args(&args).current_dir(&dir).output() {
            Ok(o) => o,
            Err(e) => {
                problems.push(format!("{place}: `{}` did not start: {e}", step.command));
                continue;
            }
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let actual: Vec<String> = stdout.lines().map(|l| l.trim_end().to_string()).collect();
        if !out.status.success() {
            problems.push(format!(
                "{place}: `{}` exited with {}; stderr:\n{}",
                step.command,
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        } else if !matches(&step.expected, &actual) {
            problems.push(format!(
                "{place}: `{}` printed\n{}\nbut the docs show\n{}",
                step.command,
                actual.join("\n"),
                step.expected.join("\n")
            ));
        }
    }
    problems
}

#[cfg(feature = "scenario")]
#[test]
fn shown_command_outputs_are_what_the_commands_print() {
    let mut problems = Vec::new();
    let mut sessions = 0;
    for (file, text) in doc_files() {
        for block in blocks(&text).0.iter().filter(|b| b.checked) {
            sessions += 1;
            problems.extend(check_session(&file, block));
        }
    }
    assert!(
        sessions >= 4,
        "expected the README's and the manual's sessions, found {sessions}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[cfg(feature = "scenario")]
#[test]
fn a_wrong_output_is_caught() {
    // The checker itself must be able to fail: a session with a wrong line, and one with an
    // unknown command.
    let text = format!(
        "{SESSION_MARK}\n```text\n$ lockstep-orca verify fixtures/scenarios/circle250.toml\nOK\n```\n"
    );
    let (bl, _) = blocks(&text);
    let problems = check_session("selftest.md", &bl[0]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let text = format!(
        "{SESSION_MARK}\n```text\n$ lockstep-orca run fixtures/scenarios/swap_perturbed.toml\n...\nfinal hash: 0000000000000000\n```\n"
    );
    let (bl, _) = blocks(&text);
    let problems = check_session("selftest2.md", &bl[0]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    // The report quotes what the command printed: a real hash, not the wrong one shown.
    let printed = problems[0]
        .split("but the docs show")
        .next()
        .unwrap_or_default();
    assert!(
        printed.contains("final hash: ") && !printed.contains("0000000000000000"),
        "{problems:?}"
    );
    assert!(program("rm -rf /").is_err());
}

#[test]
fn quoted_hashes_are_checked_somewhere() {
    let mut known = String::new();
    for entry in std::fs::read_dir(Path::new(ROOT).join("fixtures/golden")).unwrap() {
        known.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    let files = doc_files();
    for (_, text) in &files {
        for b in blocks(text).0.iter().filter(|b| b.checked) {
            known.push_str(&b.body.join("\n"));
        }
    }
    let mut unchecked = Vec::new();
    for (file, text) in &files {
        let (bl, prose) = blocks(text);
        let outside_rust = bl
            .iter()
            .filter(|b| b.lang != "rust" && !b.checked)
            .flat_map(|b| b.body.iter().cloned());
        for line in prose.into_iter().chain(outside_rust) {
            for h in hashes_in(&line) {
                if !known.contains(&h) {
                    unchecked.push(format!("{file}: {h}"));
                }
            }
        }
    }
    assert!(
        unchecked.is_empty(),
        "hashes quoted but neither in a checked session nor in fixtures/golden:\n{}",
        unchecked.join("\n")
    );
}

#[test]
fn every_fence_names_its_language() {
    for (file, text) in doc_files() {
        for b in blocks(&text).0 {
            assert!(
                !b.lang.is_empty(),
                "{file}:{}: a bare ``` fence (rustdoc compiles it as Rust): write ```rust, ```text, ```sh or ```toml",
                b.line
            );
        }
    }
}

#[test]
fn readme_is_a_front_page() {
    let size = std::fs::metadata(Path::new(ROOT).join("README.md"))
        .unwrap()
        .len() as usize;
    assert!(
        size <= README_MAX_BYTES,
        "README.md is {size} bytes, more than {README_MAX_BYTES}: move material to docs/"
    );
}

#[test]
fn every_docs_file_is_in_rustdoc() {
    let src = read("src/docs.rs");
    let included: Vec<String> = src
        .split("include_str!(\"../docs/")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect();
    let mut sorted = included.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        docs_md_names(),
        "src/docs.rs must include every docs/*.md file exactly once (as `#[doc = include_str!(\"../docs/NAME.md\")]`)"
    );
}

/// The `use crate::…` imports of a source file, as top-level module names (in code, not in
/// comments; `#[cfg(doc)]` imports, which only feed doc links, left out).
fn crate_imports(rel: &str) -> Vec<String> {
    let text = read(rel);
    let mut out = Vec::new();
    let mut doc_only = false;
    for line in text.lines().map(str::trim) {
        if line == "#[cfg(doc)]" {
            doc_only = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("use crate::")
            && !doc_only
        {
            let module: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push(module);
        }
        doc_only = false;
    }
    out
}

/// docs/architecture.md says the core modules' dependencies point one way: no import cycle among
/// `sim`, `command`, `hash`, `domain` and `error` (the files of each module, submodules
/// included).
#[test]
fn core_modules_import_no_cycle() {
    let modules = ["sim", "command", "hash", "domain", "error"];
    let files = |m: &str| -> Vec<String> {
        let dir = Path::new(ROOT).join("src").join(m);
        let mut f = vec![];
        if Path::new(ROOT).join(format!("src/{m}.rs")).exists() {
            f.push(format!("src/{m}.rs"));
        }
        if dir.is_dir() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                f.push(format!("src/{m}/{name}"));
            }
        }
        assert!(!f.is_empty(), "module {m} has no source file");
        f
    };
    // Edges m -> n between the five modules.
    let edges: Vec<(usize, usize)> = modules
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            let imports: Vec<String> = files(m).iter().flat_map(|f| crate_imports(f)).collect();
            modules
                .iter()
                .enumerate()
                .filter(move |&(j, n)| j != i && imports.iter().any(|x| x == n))
                .map(move |(j, _)| (i, j))
        })
        .collect();
    // Depth-first search for a cycle.
    fn visit(v: usize, edges: &[(usize, usize)], state: &mut [u8], path: &mut Vec<usize>) -> bool {
        state[v] = 1;
        path.push(v);
        for &(_, b) in edges.iter().filter(|e| e.0 == v) {
            if state[b] == 1 || (state[b] == 0 && visit(b, edges, state, path)) {
                path.push(b);
                return true;
            }
        }
        path.pop();
        state[v] = 2;
        false
    }
    let mut state = vec![0u8; modules.len()];
    for v in 0..modules.len() {
        let mut path = Vec::new();
        if state[v] == 0 && visit(v, &edges, &mut state, &mut path) {
            let names: Vec<&str> = path.iter().map(|&i| modules[i]).collect();
            panic!("import cycle: {}", names.join(" -> "));
        }
    }
    // And the check sees real imports: sim does use command, hash and domain.
    for n in [1, 2, 3] {
        assert!(edges.contains(&(0, n)), "sim should import {}", modules[n]);
    }
}

#[test]
fn the_cycle_check_reads_imports() {
    let imports = crate_imports("src/hash.rs");
    assert!(imports.contains(&"command".to_string()), "{imports:?}");
    // command's `Simulator` import only feeds doc links.
    assert!(!crate_imports("src/command.rs").contains(&"Simulator".to_string()));
}

/// README.md, docs/*.md and the crate's sources (`src/**/*.rs`, where rustdoc and comments
/// point at tests), as (path, text).
fn texts_that_name_tests() -> Vec<(String, String)> {
    let mut out = doc_files();
    out.extend(rust_files("src"));
    out
}

/// Every `tests/….rs` path the docs and sources mention exists, and every
/// `cargo test --test NAME` names a test binary that exists (tests move; docs must follow).
#[test]
fn named_tests_exist() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for (file, text) in texts_that_name_tests() {
        for (at, _) in text.match_indices("tests/") {
            // A path: `tests/` then [a-z0-9_/] then `.rs`.
            let rest = &text[at..];
            let len = rest
                .char_indices()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '.'))
                .map_or(rest.len(), |(i, _)| i);
            let path = rest[..len].trim_end_matches('.');
            let preceded_by_word = text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/');
            if preceded_by_word || !path.ends_with(".rs") {
                continue;
            }
            seen += 1;
            if !Path::new(ROOT).join(path).is_file() {
                problems.push(format!("{file}: {path} does not exist"));
            }
        }
        for (at, _) in text.match_indices("--test ") {
            let name: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue;
            }
            seen += 1;
            let root = Path::new(ROOT).join("tests");
            if !root.join(format!("{name}.rs")).is_file()
                && !root.join(&name).join("main.rs").is_file()
            {
                problems.push(format!("{file}: `--test {name}` names no test binary"));
            }
        }
    }
    assert!(seen > 10, "the scan found only {seen} references");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every `.rs` file under `dir` (relative to the root), as (path, text).
fn rust_files(dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![Path::new(ROOT).join(dir)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(ROOT).unwrap().to_string_lossy().into_owned();
                out.push((rel.clone(), read(&rel)));
            }
        }
    }
    out
}

/// The variants of `pub enum NAME` in `text`: the identifiers that open a line indented by
/// exactly four spaces inside its braces.
fn enum_variants(text: &str, name: &str) -> Vec<String> {
    let Some(start) = text.find(&format!("pub enum {name} {{")) else {
        return Vec::new();
    };
    let body = &text[start..];
    let end = body.find("\n}").unwrap_or(body.len());
    body[..end]
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("    ") && !l.starts_with("     "))
        .map(|l| l.trim_start())
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|l| l.chars().take_while(char::is_ascii_alphanumeric).collect())
        .collect()
}

/// The error enums of the public API, and where each is declared.
const ERROR_ENUMS: &[(&str, &str)] = &[
    ("src/error.rs", "SimError"),
    ("src/snapshot/envelope.rs", "SnapshotError"),
    ("src/replay/wire.rs", "ReplayError"),
    ("src/replay/mod.rs", "RecordError"),
    ("src/replay/verify.rs", "VerifyReport"),
    ("src/scenario.rs", "ScenarioError"),
    // The ggrs adapter (feature `ggrs`; the scanner reads text, so it runs without the feature).
    ("src/netcode/mod.rs", "NetError"),
    ("src/netcode/wire.rs", "PlayerOrderError"),
];

/// Every variant of every error enum is produced by some test: the tests name it as
/// `Enum::Variant` (in a `matches!`, an `assert_eq!` or an `Err(..)`), so a new variant without a
/// test fails here. (`tests/api/errors.rs` holds the ones no other test needed; the adapter's are
/// in `tests/netcode.rs`.)
#[test]
fn every_error_variant_is_produced_by_a_test() {
    let tests: String = rust_files("tests").into_iter().map(|(_, t)| t).collect();
    let mut missing = Vec::new();
    let mut counted = 0;
    for (file, name) in ERROR_ENUMS {
        let variants = enum_variants(&read(file), name);
        assert!(
            variants.len() >= 2,
            "{file}: enum {name} not found ({variants:?})"
        );
        for v in variants {
            counted += 1;
            let path = format!("{name}::{v}");
            let named = tests.match_indices(&path).any(|(i, _)| {
                !tests[i + path.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
            });
            if !named {
                missing.push(path);
            }
        }
    }
    assert!(
        counted >= 40,
        "only {counted} variants found: the scanner is broken"
    );
    assert!(
        missing.is_empty(),
        "error variants no test produces: {missing:?}"
    );
}

#[test]
fn the_variant_scanner_reads_enums() {
    let text =
        "pub enum E {\n    /// doc\n    A,\n    B {\n        x: u8,\n    },\n    C(u8),\n}\n";
    assert_eq!(enum_variants(text, "E"), ["A", "B", "C"]);
}

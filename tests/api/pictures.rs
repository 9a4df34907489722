//! The README pictures in `docs/pictures/` are reproduced byte for byte by the `render`
//! commands `docs/cli.md` documents ("The README pictures"): each such line is run with its
//! output redirected to a scratch directory, and every committed picture has its command.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The `lockstep-orca render ... docs/pictures/...` lines of docs/cli.md.
fn picture_commands() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/cli.md")).unwrap();
    text.lines()
        .filter(|l| l.starts_with("lockstep-orca render ") && l.contains(" docs/pictures/"))
        .map(str::to_string)
        .collect()
}

#[test]
fn readme_pictures_are_reproduced_by_their_documented_commands() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pictures");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let commands = picture_commands();
    let mut covered = Vec::new();
    for line in &commands {
        let args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(|w| match w.strip_prefix("docs/pictures/") {
                Some(name) => {
                    covered.push(name.to_string());
                    scratch.join(name).to_string_lossy().into_owned()
                }
                None => w.to_string(),
            })
            .collect();
        let o = Command::new(env!("CARGO_BIN_EXE_lockstep-orca"))
            .args(&args)
            .current_dir(ROOT)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "`{line}`: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let mut committed: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs/pictures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    covered.sort();
    assert_eq!(
        committed, covered,
        "every committed picture has exactly one documented command"
    );
    for name in &committed {
        let expected = std::fs::read(Path::new(ROOT).join("docs/pictures").join(name)).unwrap();
        let actual = std::fs::read(scratch.join(name)).unwrap();
        assert!(
            expected == actual,
            "docs/pictures/{name} differs from what its command writes ({} vs {} bytes); \
             if the change is intended, re-run the command of docs/cli.md",
            expected.len(),
            actual.len()
        );
        assert!(
            expected.len() < 64 * 1024,
            "{name}: keep README pictures small"
        );
    }
}

#[test]
fn the_same_render_command_writes_the_same_bytes() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pictures-twice");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let scen = Path::new(ROOT).join("fixtures/scenarios/swap_perturbed.toml");
    let mut outputs = Vec::new();
    for run in 0..2 {
        let [svg, gif, png] = ["svg", "gif", "png"].map(|ext| scratch.join(format!("{run}.{ext}")));
        let o = Command::new(env!("CARGO_BIN_EXE_lockstep-orca"))
            .arg("render")
            .arg(&scen)
            .args(["--size", "64", "--step", "60", "--color", "id", "--svg"])
            .arg(&svg)
            .arg("--gif")
            .arg(&gif)
            .arg("--png")
            .arg(&png)
            .args(["--at", "120"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outputs.push([svg, gif, png].map(|p| std::fs::read(p).unwrap()));
    }
    assert!(outputs[0] == outputs[1]);
    let [svg, gif, png] = &outputs[0];
    assert!(svg.starts_with(b"<svg"));
    assert!(String::from_utf8_lossy(svg).contains("<polyline"));
    assert!(gif.starts_with(b"GIF89a"));
    assert!(png.starts_with(b"\x89PNG"));
}

#[test]
fn a_replay_renders_too() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pictures-replay");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let exe = env!("CARGO_BIN_EXE_lockstep-orca");
    let scen = Path::new(ROOT).join("fixtures/scenarios/door_counterflow.toml");
    let replay = scratch.join("door.replay");
    let o = Command::new(exe)
        .arg("record")
        .arg(&scen)
        .arg(&replay)
        .args(["--ticks", "40"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_replay = scratch.join("replay.png");
    let from_scenario = scratch.join("scenario.png");
    for (input, out, extra) in [
        (&replay, &from_replay, &[][..]),
        (&scen, &from_scenario, &["--ticks", "40"][..]),
    ] {
        let o = Command::new(exe)
            .arg("render")
            .arg(input)
            .args(["--size", "96", "--png"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // The replay re-runs the same trajectory; only the goal crosses (unknown to a replay)
    // can differ, so both are valid PNGs of the same size.
    let (a, b) = (
        std::fs::read(&from_replay).unwrap(),
        std::fs::read(&from_scenario).unwrap(),
    );
    assert!(a.starts_with(b"\x89PNG") && b.starts_with(b"\x89PNG"));
    assert_eq!(a[16..24], b[16..24], "same width and height");
}

/// A group moving together is drawn with its march: the PNG's palette gains the march's two
/// colours (22 in all, after the navigation's four); the SVG
/// draws the planned path, dashed, in the march's colour.
#[test]
fn a_march_is_drawn() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pictures-march");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let (png, svg) = (scratch.join("m.png"), scratch.join("m.svg"));
    let o = Command::new(env!("CARGO_BIN_EXE_lockstep-orca"))
        .arg("render")
        .arg(Path::new(ROOT).join("fixtures/scenarios/formation_gap200.toml"))
        .args(["--size", "160", "--to", "120", "--no-trails", "--png"])
        .arg(&png)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let png = std::fs::read(png).unwrap();
    // The PLTE chunk: its length (big-endian) precedes its tag.
    let at = png
        .windows(4)
        .position(|w| w == b"PLTE")
        .expect("a palette");
    let len = u32::from_be_bytes(png[at - 4..at].try_into().unwrap()) as usize;
    assert_eq!(len, 22 * 3, "16 colours, the navigation's 4, the march's 2");
    let palette = &png[at + 4..at + 4 + len];
    assert_eq!(&palette[20 * 3..], &[0x1a, 0x3a, 0x8c, 0xf6, 0xc8, 0x7a]);
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("stroke-dasharray"), "the planned path");
    assert!(
        svg.contains("#1a3a8c") && svg.contains("#f6c87a"),
        "path and narrow stretch"
    );
}

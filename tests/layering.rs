//! The crate's modules are layered, and imports point down (docs/architecture.md, "Modules and
//! their dependencies"):
//!
//! * **core** (`math`, `util`, `domain`, `error`, `geom`, `agent`, `agent_model`, `orca`,
//!   `obstacle`, `spatial`, `liveness`): numbers, geometry, the agent store and the pure
//!   algorithms. They import only each other.
//! * **inputs** (`command`, `orders`, `hash`): what the simulation is told and how its state is
//!   hashed. They import the core and each other.
//! * **simulation** (`tick`, `sim`, `snapshot`, `snapshot_diff`, `replay`, `scenario`, `golden`,
//!   `netcode`, `navigation`, `oracles`, `docs`): anything below.
//!
//! Every module declared in `src/lib.rs` must be in one of the three lists, so a new module is
//! placed on purpose. Imports are read as text from `src/**/*.rs` (the binary left out): every
//! `crate::…` path in code (comments, `#[cfg(doc)]` imports and `#[cfg(test)]` modules left
//! out), `use crate::{a, b::c}` groups included. A path must name its real module
//! (`crate::agent::AgentId`, never the crate-root re-export `crate::AgentId`, which would hide
//! the edge).

use std::collections::BTreeSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

const CORE: &[&str] = &[
    "math",
    "util",
    "domain",
    "error",
    "geom",
    "agent",
    "agent_model",
    "orca",
    "obstacle",
    "spatial",
    "liveness",
    "navigation",
];
const INPUTS: &[&str] = &["command", "orders", "hash"];
const SIMULATION: &[&str] = &[
    "tick",
    "sim",
    "snapshot",
    "snapshot_diff",
    "replay",
    "scenario",
    "golden",
    "netcode",
    "oracles",
    "docs",
];

/// The layer of a module: 0 core, 1 inputs, 2 simulation.
fn layer(module: &str) -> Option<usize> {
    [CORE, INPUTS, SIMULATION]
        .iter()
        .position(|l| l.contains(&module))
}

/// The modules `src/lib.rs` declares.
fn declared_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .map(str::trim)
        .filter_map(|l| {
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect()
}

/// The code of a source file: comment lines, `#[cfg(doc)]` items and `#[cfg(test)]` modules
/// removed.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.starts_with("//") {
            continue;
        }
        if t == "#[cfg(doc)]" {
            // Skip the item it guards: up to its `;` (an import) or its closing brace.
            let mut depth = 0i32;
            for l in lines.by_ref() {
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                if depth <= 0 && (l.trim_end().ends_with(';') || l.contains('}')) {
                    break;
                }
            }
            continue;
        }
        if t == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod "))
        {
            let mut depth = 0i32;
            let mut opened = false;
            for l in lines.by_ref() {
                depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
                opened |= l.contains('{');
                if opened && depth <= 0 {
                    break;
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The first segment of every `crate::` path in `code` (groups split at their top level).
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for (i, _) in code.match_indices("crate::") {
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
            continue; // `$crate::` or `my_crate::`
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(first_segment(&item));
        } else {
            out.push(first_segment(rest));
        }
    }
    out.retain(|s| !s.is_empty() && s != "self");
    out
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Every `src/**/*.rs` file but the binary's and `lib.rs`, as (module, path, text).
fn sources() -> Vec<(String, String, String)> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with("bin/") || rel == "lib.rs" {
                return None;
            }
            let first = rel.split('/').next().unwrap();
            let module = first.strip_suffix(".rs").unwrap_or(first).to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            Some((module, format!("src/{rel}"), text))
        })
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap();
    let modules = declared_modules(&lib);
    assert!(modules.len() >= 20, "lib.rs read wrong: {modules:?}");
    let unplaced: Vec<_> = modules.iter().filter(|m| layer(m).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "modules in no layer (place them in tests/layering.rs and docs/architecture.md): {unplaced:?}"
    );
}

#[test]
fn imports_point_down_and_name_their_module() {
    let lib = std::fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap();
    let modules = declared_modules(&lib);
    let mut upward = Vec::new();
    let mut through_root = Vec::new();
    let mut edges = 0;
    for (module, path, text) in sources() {
        let from = layer(&module).unwrap_or_else(|| panic!("{path}: module {module} has no layer"));
        for target in crate_paths(&code_of(&text)) {
            if !modules.contains(&target) {
                through_root.push(format!("{path}: crate::{target}"));
                continue;
            }
            edges += 1;
            let to = layer(&target).expect("declared modules have layers");
            if to > from {
                upward.push(format!("{path} ({module}) imports {target}"));
            }
        }
    }
    assert!(
        edges > 100,
        "only {edges} imports found: the reader is broken"
    );
    assert!(
        upward.is_empty() && through_root.is_empty(),
        "imports pointing up a layer: {upward:#?}\n\
         imports through crate-root re-exports (name the real module): {through_root:#?}"
    );
}

#[test]
fn the_reader_sees_paths_and_skips_tests_and_docs() {
    let text = "//! [`crate::tick`]\nuse crate::{agent::AgentId, math::{Fx, Vec2}};\n\
                #[cfg(doc)]\nuse crate::Simulator;\nfn f() { crate::orca::lp(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::sim::Simulator;\n}\n";
    assert_eq!(crate_paths(&code_of(text)), ["agent", "math", "orca"]);
    // An upward import in a core file would be seen.
    let up = "use crate::tick::StepStats;\n";
    assert_eq!(crate_paths(&code_of(up)), ["tick"]);
    assert!(layer("tick") > layer("agent"));
}

//! `diff A B`: what differs between two snapshot files.

use crate::Fail;
use clap::Args;
use lockstep_orca::snapshot::{
    self, HEADER_BYTES, MAX_PAYLOAD_BYTES, SNAPSHOT_MAGIC, TRAILER_BYTES,
};
use lockstep_orca::{Simulator, SnapshotError};
use serde_json::json;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Compare two snapshot files and print what differs.
///
/// A and B are snapshots (`Simulator::snapshot()` bytes, e.g. written by two lockstep peers
/// when they desynced). Prints one line per differing field: the tick, time, parameters, each
/// agent (by id) whose position, velocity, preferred velocity, parameters or stall counter
/// differ, agents present in one file only, obstacles and pending commands, with the two
/// exact values. Exit 0 when the states are identical, 1 when they differ, 2 on bad input.
#[derive(Args)]
pub struct DiffArgs {
    /// The first snapshot file.
    pub a: PathBuf,
    /// The second snapshot file.
    pub b: PathBuf,
    /// Print one JSON document on stdout instead of the text report (fields in docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// Reads and restores a snapshot file, checking its header before reading the rest (a huge
/// or foreign file costs 20 bytes).
fn load(path: &Path) -> Result<Simulator, Fail> {
    let name = path.display();
    let cannot = |e: std::io::Error| Fail::input(format!("cannot read {name}: {e}"));
    let invalid = |why: String| Fail::input(format!("{name} is not a valid snapshot file: {why}"));
    let mut file = File::open(path).map_err(cannot)?;
    if file.metadata().map_err(cannot)?.is_dir() {
        return Err(Fail::input(format!(
            "cannot read {name}: it is a directory"
        )));
    }
    let mut bytes = vec![0u8; HEADER_BYTES];
    let mut got = 0;
    while got < HEADER_BYTES {
        match file.read(&mut bytes[got..]).map_err(cannot)? {
            0 => break,
            n => got += n,
        }
    }
    bytes.truncate(got);
    if got == HEADER_BYTES && bytes[..8] != SNAPSHOT_MAGIC {
        let e = SnapshotError::BadMagic {
            expected: SNAPSHOT_MAGIC,
        };
        return Err(invalid(e.to_string()));
    }
    if got == HEADER_BYTES {
        let declared = u64::from_le_bytes(bytes[12..20].try_into().unwrap_or_default());
        if declared > MAX_PAYLOAD_BYTES {
            return Err(invalid(format!(
                "declared payload of {declared} bytes exceeds the limit of {MAX_PAYLOAD_BYTES}"
            )));
        }
        // At most the declared payload, the checksum and one byte more (so padding is seen).
        file.take(declared + TRAILER_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
    }
    Simulator::restore(&bytes).map_err(|e| invalid(e.to_string()))
}

pub fn diff(args: &DiffArgs) -> Result<(), Fail> {
    let a = load(&args.a)?;
    let b = load(&args.b)?;
    let d = snapshot::diff(&a, &b);
    if args.json {
        let differences: Vec<_> = d
            .differences
            .iter()
            .map(|x| {
                json!({
                    "scope": x.scope.to_string(),
                    "field": x.field,
                    "a": x.a,
                    "b": x.b,
                })
            })
            .collect();
        let doc = json!({
            "identical": d.is_empty(),
            "hash_a": format!("{:016x}", a.state_hash()),
            "hash_b": format!("{:016x}", b.state_hash()),
            "agents": d.agents().iter().map(|id| id.0).collect::<Vec<_>>(),
            "differences": differences,
        });
        println!("{doc}");
    } else if d.is_empty() {
        println!("identical: state hash {:016x}", a.state_hash());
    } else {
        print!("{d}");
        let n = d.differences.len();
        let agents = d.agents().len();
        println!(
            "{n} difference{} ({agents} agent{}); state hashes {:016x} | {:016x}",
            if n == 1 { "" } else { "s" },
            if agents == 1 { "" } else { "s" },
            a.state_hash(),
            b.state_hash()
        );
    }
    if d.is_empty() {
        Ok(())
    } else {
        Err(Fail::failed(String::new()))
    }
}

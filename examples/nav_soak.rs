//! Navigation soak: warm caches against cold ones, for as long as you let it run.
//!
//! A walled map (a boundary, a wall across the middle with two doors one unit wide, a wider
//! door and lanes at its ends, buildings in a loose grid) holds navigating units that are
//! re-ordered every few hundred ticks: most to a few shared goals (served from distance fields),
//! the others to points of their own (served by searches; some inside buildings, some
//! unreachable), now and then a group in formation. Buildings are dropped onto the map (on
//! units' paths too) and taken away again, units are spawned and removed, all by commands.
//!
//! Beside this simulator runs a **shadow**, restored from its snapshot at irregular intervals:
//! the shadow's distance fields, shared corner paths, mesh and obstacle tree are rebuilt from
//! the state each time, while the first simulator's have lived (and grown, and been evicted)
//! since tick 0. Both get the same commands and their state hashes are compared after every
//! tick. A cache whose content depended on anything but the state (the desync Recoil had), or a
//! piece of state missing from the snapshot or the hash, would make them disagree.
//!
//! ```text
//! cargo run --release --example nav_soak -- [TICKS [EVERY [SEED]]]
//! ```
//!
//! Defaults: 20,000 ticks, a line every 1,000, seed 25 (the map, the orders, the drops and the
//! restores' ticks all come from it): `tick T hash H restores N agents A` on stdout, the same
//! on every run and every machine, and `tick T rss_kb R` on stderr (resident memory, which must
//! stay flat). A disagreement prints the tick, both
//! hashes and what differs (`snapshot::diff`), and exits with status 1.
//!
//! The first simulator's run is also recorded as a replay (streamed to a file in the temporary
//! directory, a checkpoint every 600 ticks) and verified at the end (`replay::verify_stream`):
//! the last lines give its size and whether it matched; a replay that does not match exits
//! with status 1 too.

#[path = "common/nav_soak.rs"]
mod soak;

#[path = "common/soak_args.rs"]
mod soak_args;

use lockstep_orca::replay::{self, RecordOptions, ReplayWriter};
use soak_args::{arg, proc_kb};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::time::Instant;

/// The usage line (`--help`).
const USAGE: &str = "usage: cargo run --release --example nav_soak -- [TICKS [EVERY [SEED]]]";

fn main() {
    let ticks = arg(1, 20_000, USAGE);
    let every = arg(2, 1_000, USAGE).max(1);
    let mut world = soak::Soak::new(arg(3, 25, USAGE));
    let path = std::env::temp_dir().join(format!("nav_soak_{}.replay", std::process::id()));
    let file = BufWriter::new(File::create(&path).expect("a replay file in the temp directory"));
    let options = RecordOptions {
        checkpoint_interval: 600,
    };
    let mut recorder = ReplayWriter::begin(file, &world.a, options).expect("the replay's start");
    let started = Instant::now();
    let line = |w: &soak::Soak| {
        println!(
            "tick {} hash {:016x} restores {} agents {}",
            w.a.tick(),
            w.a.state_hash(),
            w.counts.restores,
            w.a.num_agents()
        );
        // The resident memory is a report for the reader (it must stay flat), not compared.
        eprintln!("tick {} rss_kb {}", w.a.tick(), proc_kb("VmRSS:"));
    };
    for tick in 0..ticks {
        if tick.is_multiple_of(every) {
            line(&world);
        }
        if let Err(e) = world.tick() {
            println!("DISAGREE {e}");
            std::process::exit(1);
        }
        recorder
            .push_tick(&world.commands, &world.a)
            .expect("the replay's tick");
    }
    line(&world);
    let (file, summary) = recorder.finish(&world.a).expect("the replay's end");
    drop(file);
    let report = File::open(&path)
        .map_err(|e| e.to_string())
        .and_then(|f| replay::verify_stream(BufReader::new(f)).map_err(|e| e.to_string()));
    let _ = std::fs::remove_file(&path);
    println!(
        "replay: {} ticks, {} commands, {} bytes, {}",
        summary.ticks,
        summary.commands,
        summary.bytes,
        match &report {
            Ok(r) if r.is_match() => "verified".to_string(),
            Ok(r) => format!("DIVERGED {:?}", r.divergence()),
            Err(e) => format!("unreadable: {e}"),
        }
    );
    // Timing and memory are reports for the reader, not part of the compared output.
    let c = world.counts;
    eprintln!(
        "{ticks} ticks, two simulators: {} order rounds, {} restores, {} buildings dropped, {} \
         changes of the middle wall, {} plans served, {} commands rejected, {} crossings of the \
         middle wall; {:.1} s, peak RSS {} kB",
        c.rounds,
        c.restores,
        c.drops,
        c.wall_changes,
        c.served,
        c.rejected,
        c.crossings,
        started.elapsed().as_secs_f64(),
        proc_kb("VmHWM:")
    );
    if !report.is_ok_and(|r| r.is_match()) {
        std::process::exit(1);
    }
}

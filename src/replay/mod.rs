//! Replays: an initial state, every tick's commands and the hashes they must produce, as a
//! stream.
//!
//! [`ReplayWriter`] records a run as it happens (begin with the simulator, push each tick's
//! commands after its step, finish); [`verify_stream`] re-simulates a replay **while reading
//! it**, in memory bounded independently of the replay's length, and reports the first tick
//! whose state hash differs and which agents differ there. [`record`] / [`record_until`] run a
//! simulator with a closure that produces each tick's commands, and [`record_to`] does the same
//! straight into a writer. [`Replay`] is the same stream held in memory (for tests, tampering
//! and tools), built on the same encoder and decoder.
//!
//! ```
//! use lockstep_orca::replay::{self, RecordOptions, Replay};
//! use lockstep_orca::{Command, Simulator, SimulatorParams, Vec2};
//!
//! let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
//! let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
//! let rec = replay::record(&mut sim, 20, RecordOptions::default(), |_| {
//!     vec![Command::SetPrefVelocity { id: a, v: Vec2::from_int(1, 0) }]
//! })
//! .unwrap();
//! let file = rec.to_bytes().unwrap();
//! let report = replay::verify_stream(&file[..]).unwrap();
//! assert!(report.is_match(), "{report}");
//! assert_eq!(Replay::from_bytes(&file).unwrap(), rec);
//! ```
//!
//! # What a replay stores, and why
//! * the initial [snapshot](crate::snapshot) of the simulator when recording started (so any
//!   state, including one built from a scenario, can be replayed), its tick and state hash;
//! * per tick, the commands queued for it (in the order they were queued), the
//!   [`state_hash`](Simulator::state_hash) after its step and how many of its commands the
//!   step skipped ([`Simulator::rejected_commands`]): verify names the exact first diverging
//!   tick, and an extra command that the step would skip is caught too;
//! * every `checkpoint_interval` ticks (default 60: once a second at 60 Hz) and at the last
//!   tick, every agent's id, exact position and a 32-bit per-agent hash (the low half of
//!   `xxh3_64` of its 99 canonical bytes, see [`crate::hash`]), about 17 bytes per agent.
//!   Verify compares **every** checkpoint with the re-run (an agent the recording claims that
//!   the state does not have, or the reverse, is a divergence even when the hashes match), and
//!   after a hash divergence names every agent that differs at the next checkpoint (id,
//!   expected and actual position; an agent whose position matches but whose hash does not
//!   differs in velocity, parameters or stall counter);
//! * in the same checkpoints (format version 4 on), every agent's move order: its path and
//!   progress. A changed waypoint shows in the state hash at once but moves the agent only
//!   later; verify names it at the next checkpoint ([`OrderDiff`]: the agent, the waypoint's
//!   index, expected and actual point) instead of "every agent matches". A path costs about
//!   12 bytes a point (zigzag LEB128 of the coordinate deltas), a path unchanged since the
//!   previous checkpoint one byte (about 3 bytes an agent with an order in all);
//! * an end frame: the tick count and the final hash.
//!
//! Hash labelling: the hash of step `i` (0-based) is taken when [`Simulator::tick`] reads
//! `start_tick + i + 1`, after the step that applied the commands queued for tick
//! `start_tick + i`. A changed command for tick `t` therefore first shows at tick `t + 1`.
//!
//! # The file format
//! Version [`REPLAY_VERSION`] (5), all integers little-endian. A 12-byte header, checked before
//! anything else is read: magic [`REPLAY_MAGIC`] (`b"LSORCARP"`, 8 bytes) and the version
//! (`u32`). Then frames, each `kind` (`u8`), payload length `L` (`u32`, checked against the
//! kind's limit before a byte of the payload is read), the payload, and a checksum (`u64`):
//! XXH3-64 of kind, length and payload, **seeded with the previous frame's checksum** (0 for
//! the first), so a dropped, repeated or reordered frame fails like a corrupted one.
//!
//! | kind | frame | payload | limit |
//! | --- | --- | --- | --- |
//! | 1 | begin (exactly once, first) | checkpoint interval (`u32`), start tick (`u64`), initial hash (`u64`), the initial snapshot's bytes | [`MAX_BEGIN_FRAME_BYTES`] |
//! | 2 | tick (one per tick, in order) | state hash after the step (`u64`), skipped-command count (LEB128), command count (LEB128), the commands (bincode fixed-int, as in snapshots: 24 bytes a `SetPrefVelocity`) | [`MAX_FRAME_BYTES`] |
//! | 3 | checkpoint (after the tick frame of its tick) | agent count (LEB128); per agent in ascending id: id gap (LEB128, the id minus the previous id plus one), x and y (zigzag LEB128 of the raw Q32.32 bits), agent hash (`u32`); then (version 4 on, when the orders are recorded; a payload that ends after the agents has none recorded) order count (LEB128); per agent holding an order, ascending id: id gap (LEB128), progress (LEB128), path point count plus one (LEB128) and each point's x and y as zigzag LEB128 of the raw bits minus the previous point's (the first minus zero), or 0 alone for the same path as in the previous checkpoint that recorded orders | [`MAX_FRAME_BYTES`] |
//! | 4 | end (exactly once, last; nothing may follow) | tick count (`u64`), final hash (`u64`) | exactly [`END_FRAME_BYTES`] |
//!
//! A frame costs [`FRAME_OVERHEAD_BYTES`] (13) besides its payload, so a tick without commands
//! costs 23 bytes. Readers allocate a frame's buffer only as its bytes arrive, so a lying
//! length costs at most the bytes actually supplied, up to the limit.
//!
//! The commands are [`Command`]s in bincode through serde: the variant's tag as a `u32`
//! ([`Command::tag`]), then its fields in declaration order. The world commands: tag 11
//! `SpawnAgent` (position, parameters, model), tag 12 `AddObstacle` (the shape: `u32` 0 polygon
//! or 1 polyline, vertex count `u64`, the vertices x, y: 16 + 16 k bytes after the tag; at most
//! [`MAX_VERTICES`](crate::obstacle::MAX_VERTICES) vertices are accepted when verifying), tag
//! 13 `RemoveObstacle` (obstacle id `u32`). Tag 18 `FormationMove` (version 5): group (`u32`),
//! goal, the [`FormationKind`](crate::orders::formation::FormationKind) as a `u32` enum tag
//! (0 keep, 1 line, 2 box, 3 column, 4 spread), facing and spacing (options: a `u8` 0 or 1 and
//! the value), slowest (`u8`).
//!
//! # Versions
//! The writer writes version [`REPLAY_VERSION`] (7); the reader reads [`REPLAY_VERSION_MIN`]
//! (2) to 7. Version 7 is version 6 plus the navigated group order [`Command::GroupNavigate`]
//! (tag 20, its fields as tag 17 `GroupMove`'s; a tag above 19 in an older stream is a
//! [`ReplayError::Decode`]); a version 6 replay reads and verifies unchanged. Version 6 is version 5 plus the group march [`Command::FormationMarch`] (tag 19)
//! and begin snapshots of format 9 and later (format 12, the navigated legs, is written only
//! while legs are queued; the command stream is unchanged, a leg being a `QueueMove`).
//! Version 5 is version 4 plus the formation move [`Command::FormationMove`] (tag 18;
//! a tag above 17 in an older stream is a [`ReplayError::Decode`]) and begin snapshots of
//! format 7 (the formations); a version 4 replay reads and verifies unchanged. Version 4 is version 3 plus the move orders in the checkpoints
//! ([`ORDERS_IN_CHECKPOINTS`]), the order commands [`Command::NavigateTo`],
//! [`Command::SetOrderSpeed`], [`Command::SetGroup`] and [`Command::GroupMove`] (tags 14 to 17;
//! a tag above 13 in an older stream is a [`ReplayError::Decode`]) and begin snapshots of
//! format 5. A version 2 or 3 replay verifies as before, its orders unchecked at checkpoints
//! (still in every state hash), and re-encoded it differs from its file in the version field
//! alone (a checkpoint without orders recorded ends after its agents, as in version 3).
//! Version 3 is version 2 plus the world commands (tags 11 to 13): every version 2
//! replay reads and verifies unchanged (a command tag above 10 in a version 2 stream is a
//! [`ReplayError::Decode`]), and a build that reads only version 2 refuses a version 3 replay
//! up front with [`ReplayError::UnsupportedVersion`] rather than failing on the first new
//! command. Versions change only when a reader of the old one could misread or refuse the new
//! one: a new command tag is such a change.

mod verify;
mod wire;

pub use verify::{
    AgentDiff, Divergence, OrderDiff, OrderField, VerifyReport, VerifyStats, verify, verify_bytes,
    verify_stream, verify_stream_with,
};

pub use wire::{
    END_FRAME_BYTES, FRAME_OVERHEAD_BYTES, Frame, MAX_BEGIN_FRAME_BYTES, MAX_FRAME_BYTES,
    ORDERS_IN_CHECKPOINTS, REPLAY_HEADER_BYTES, REPLAY_MAGIC, REPLAY_VERSION, REPLAY_VERSION_MIN,
    ReplayError, ReplayHeader, ReplayReader,
};

use crate::agent::AgentId;
use crate::command::Command;
use crate::error::SimError;
use crate::math::Vec2;
use crate::sim::Simulator;
use std::fmt;
use std::io::{Read, Write};
use wire::{Begin, FrameWriter};

/// Default ticks between agent checkpoints ([`RecordOptions::checkpoint_interval`]).
pub const DEFAULT_CHECKPOINT_INTERVAL: u32 = 60;

/// One recorded tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The tick whose commands these are ([`Simulator::tick`] before the step).
    pub tick: u64,
    /// The commands queued for it, in queue order.
    pub commands: Vec<Command>,
    /// The state hash after the step (at tick `tick + 1`).
    pub hash: u64,
    /// How many commands the step skipped ([`Simulator::rejected_commands`]).
    pub rejected: u32,
}

/// One agent at a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentMark {
    /// The agent.
    pub id: AgentId,
    /// Its position.
    pub position: Vec2,
    /// The low 32 bits of `xxh3_64` of its 99 canonical bytes (id, position, velocity,
    /// preferred velocity, parameters, stall counter).
    pub hash: u32,
}

/// One agent's move order at a checkpoint ([`crate::Order`]): its whole path and how far along
/// it the agent is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderMark {
    /// The agent.
    pub id: AgentId,
    /// The index of its current target in `path` ([`Order::progress`](crate::Order::progress)).
    pub progress: u32,
    /// The path, goal last ([`Order::path`](crate::Order::path)).
    pub path: Vec<Vec2>,
}

/// Every agent at one tick, ascending id, and (format version 4 on) every agent's move order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The tick ([`Simulator::tick`] after the step).
    pub tick: u64,
    /// The agents, ascending id.
    pub agents: Vec<AgentMark>,
    /// The agents that hold a move order, ascending id; `None` when not recorded (a
    /// checkpoint of a replay older than [`ORDERS_IN_CHECKPOINTS`]: verify then does not
    /// compare orders there).
    pub orders: Option<Vec<OrderMark>>,
}

impl Checkpoint {
    /// Every agent of `sim` and its order at its tick: what a recording stores every
    /// checkpoint interval.
    #[must_use]
    pub fn capture(sim: &Simulator) -> Self {
        let mut agents = Vec::new();
        marks(sim, &mut agents);
        let mut orders = Vec::new();
        order_marks(sim, &mut orders);
        Self {
            tick: sim.tick(),
            agents,
            orders: Some(orders),
        }
    }
}

/// The order marks of every agent of `sim` that holds an order, into `out` (cleared first).
fn order_marks(sim: &Simulator, out: &mut Vec<OrderMark>) {
    out.clear();
    for &id in sim.agents().ids() {
        if let Ok(Some(o)) = sim.agent_order(id) {
            out.push(OrderMark {
                id,
                progress: u32::try_from(o.progress()).unwrap_or(u32::MAX),
                path: o.path().to_vec(),
            });
        }
    }
}

/// A whole replay in memory: the frames of the stream (see the [module docs](self)).
///
/// For long replays prefer [`verify_stream`], which never holds more than one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Snapshot of the simulator when recording started.
    pub initial: Vec<u8>,
    /// Its tick.
    pub start_tick: u64,
    /// Its state hash.
    pub initial_hash: u64,
    /// Ticks between agent checkpoints (at least 1).
    pub checkpoint_interval: u32,
    /// Every tick, in order: `steps[i].tick == start_tick + i`.
    pub steps: Vec<Step>,
    /// Agent checkpoints, ascending tick.
    pub checkpoints: Vec<Checkpoint>,
    /// State hash after the last tick.
    pub final_hash: u64,
}

/// Options of [`record`] and [`ReplayWriter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordOptions {
    /// Ticks between agent checkpoints. Default [`DEFAULT_CHECKPOINT_INTERVAL`] (60). Smaller
    /// names diverging agents closer to the first diverging tick; larger makes smaller files
    /// (about 17 bytes per agent per checkpoint). 0 counts as 1.
    pub checkpoint_interval: u32,
}

impl Default for RecordOptions {
    fn default() -> Self {
        Self {
            checkpoint_interval: DEFAULT_CHECKPOINT_INTERVAL,
        }
    }
}

/// Why recording stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// A command the closure produced was rejected by [`Simulator::queue_command`], or the step
    /// failed; the simulator is at `tick`.
    Sim {
        /// The tick at which it happened.
        tick: u64,
        /// Why.
        error: SimError,
    },
    /// The replay could not be written (I/O, or a frame over its limit: a file this crate could
    /// not read back is never written).
    Write {
        /// The tick at which it happened.
        tick: u64,
        /// Why.
        error: ReplayError,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sim { tick, error } => write!(f, "recording stopped at tick {tick}: {error}"),
            Self::Write { tick, error } => {
                write!(
                    f,
                    "recording stopped at tick {tick}: cannot write the replay: {error}"
                )
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// What a finished recording wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordSummary {
    /// The tick recording started from.
    pub start_tick: u64,
    /// Its state hash.
    pub initial_hash: u64,
    /// Ticks recorded.
    pub ticks: u64,
    /// The state hash after the last tick.
    pub final_hash: u64,
    /// Commands recorded.
    pub commands: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// The checkpoint marks of every agent of `sim`, into `out` (cleared first).
fn marks(sim: &Simulator, out: &mut Vec<AgentMark>) {
    out.clear();
    out.extend(sim.agents().iter().map(|a| AgentMark {
        id: a.id,
        position: a.position,
        hash: crate::hash::agent_hash(&a) as u32,
    }));
}

/// Records a run as a replay stream while it happens.
///
/// ```
/// use lockstep_orca::replay::{self, RecordOptions, ReplayWriter};
/// use lockstep_orca::{Command, Simulator, SimulatorParams, Vec2};
///
/// let mut sim = Simulator::new(SimulatorParams::default()).unwrap();
/// let a = sim.add_agent(Vec2::from_int(0, 0)).unwrap();
/// let mut writer = ReplayWriter::begin(Vec::new(), &sim, RecordOptions::default()).unwrap();
/// for _ in 0..30 {
///     let commands = [Command::SetPrefVelocity { id: a, v: Vec2::from_int(1, 0) }];
///     for c in &commands {
///         sim.queue_command(sim.tick(), c.clone()).unwrap();
///     }
///     sim.step().unwrap();
///     writer.push_tick(&commands, &sim).unwrap();
/// }
/// let (file, summary) = writer.finish(&sim).unwrap();
/// assert_eq!(summary.ticks, 30);
/// assert_eq!(summary.bytes, file.len() as u64);
/// assert!(replay::verify_stream(&file[..]).unwrap().is_match());
/// ```
pub struct ReplayWriter<W: Write> {
    frames: FrameWriter<W>,
    interval: u64,
    start_tick: u64,
    initial_hash: u64,
    /// The simulator's tick after the last push.
    tick: u64,
    last_hash: u64,
    checkpointed: bool,
    commands: u64,
    marks: Vec<AgentMark>,
    orders: Vec<OrderMark>,
}

impl<W: Write> ReplayWriter<W> {
    /// Writes the header and the begin frame (`sim`'s snapshot, tick and hash).
    ///
    /// # Errors
    /// [`ReplayError::Io`], or [`ReplayError::FrameTooLarge`] if the snapshot exceeds
    /// [`MAX_BEGIN_FRAME_BYTES`].
    pub fn begin(out: W, sim: &Simulator, options: RecordOptions) -> Result<Self, ReplayError> {
        let interval = options.checkpoint_interval.max(1);
        let mut frames = FrameWriter::new(out)?;
        let initial_hash = sim.state_hash();
        frames.begin(&Begin {
            checkpoint_interval: interval,
            start_tick: sim.tick(),
            initial_hash,
            snapshot: &sim.snapshot(),
        })?;
        Ok(Self {
            frames,
            interval: u64::from(interval),
            start_tick: sim.tick(),
            initial_hash,
            tick: sim.tick(),
            last_hash: initial_hash,
            checkpointed: true,
            commands: 0,
            marks: Vec::new(),
            orders: Vec::new(),
        })
    }

    /// Records one tick: `commands` are those queued for the tick just stepped (every input of
    /// the step must come through here), `sim` the simulator right after the step. Writes the
    /// tick frame (the hash and the skipped-command count are read from `sim`) and, every
    /// checkpoint interval, a checkpoint.
    ///
    /// The contract, per tick: queue the tick's commands, [`step`](Simulator::step), then
    /// `push_tick` with the same commands **before** anything else touches `sim`. Pending
    /// commands are state (in the hash), so commands queued for the next tick before this call
    /// would be recorded in this tick's hash, and [`Simulator::rejected_commands`] covers only
    /// the last step. Commands the queue refused ([`Simulator::queue_command`] returned `Err`)
    /// were not queued and must not be passed.
    ///
    /// # Errors
    /// [`ReplayError::WrongTick`] if `sim` is not one tick past the previous push (nothing is
    /// written); I/O and frame-limit errors.
    pub fn push_tick(&mut self, commands: &[Command], sim: &Simulator) -> Result<(), ReplayError> {
        if sim.tick() != self.tick + 1 {
            return Err(ReplayError::WrongTick {
                expected: self.tick + 1,
                found: sim.tick(),
            });
        }
        let hash = sim.state_hash();
        let rejected = u32::try_from(sim.rejected_commands().len()).unwrap_or(u32::MAX);
        self.frames.tick(hash, rejected, commands)?;
        self.tick += 1;
        self.last_hash = hash;
        self.commands += commands.len() as u64;
        self.checkpointed = false;
        if (self.tick - self.start_tick).is_multiple_of(self.interval) {
            self.checkpoint(sim)?;
        }
        Ok(())
    }

    fn checkpoint(&mut self, sim: &Simulator) -> Result<(), ReplayError> {
        marks(sim, &mut self.marks);
        order_marks(sim, &mut self.orders);
        self.frames.checkpoint(&self.marks, Some(&self.orders))?;
        self.checkpointed = true;
        Ok(())
    }

    /// Ticks pushed so far.
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.tick - self.start_tick
    }

    /// Bytes written so far.
    #[must_use]
    pub fn bytes_written(&self) -> u64 {
        self.frames.bytes()
    }

    /// Writes a checkpoint of the last tick if it has none (so a divergence anywhere can name
    /// agents) and the end frame, flushes, and returns the destination.
    ///
    /// # Errors
    /// [`ReplayError::WrongTick`] if `sim` is at another tick than the last push, or at that
    /// tick with another state hash than the one pushed (the state changed after
    /// [`push_tick`](Self::push_tick): a command queued, an agent moved; then `expected ==
    /// found` and the message says the hash differs); I/O errors.
    pub fn finish(mut self, sim: &Simulator) -> Result<(W, RecordSummary), ReplayError> {
        // The same variant for both (a tick equal to the expected one means the hash differs;
        // its message says so).
        if sim.tick() != self.tick || sim.state_hash() != self.last_hash {
            return Err(ReplayError::WrongTick {
                expected: self.tick,
                found: sim.tick(),
            });
        }
        if !self.checkpointed {
            self.checkpoint(sim)?;
        }
        let ticks = self.ticks();
        let (out, bytes) = self.frames.end(ticks, self.last_hash)?;
        Ok((
            out,
            RecordSummary {
                start_tick: self.start_tick,
                initial_hash: self.initial_hash,
                ticks,
                final_hash: self.last_hash,
                commands: self.commands,
                bytes,
            },
        ))
    }
}

/// Runs `sim` for `ticks` steps and records the run in memory.
///
/// Before each step, `inputs(&sim)` returns that tick's commands (it sees the current state, so
/// it can steer agents toward goals); they are queued for [`Simulator::tick`] in the order
/// returned. `sim` is left at the last tick.
///
/// # Errors
/// [`RecordError`] if a command is rejected when queued or a step fails; `sim` is then at the
/// tick named.
pub fn record<F>(
    sim: &mut Simulator,
    ticks: u64,
    options: RecordOptions,
    inputs: F,
) -> Result<Replay, RecordError>
where
    F: FnMut(&Simulator) -> Vec<Command>,
{
    record_until(sim, ticks, options, inputs, |_| false)
}

/// As [`record`], but stops early, before a step, once `done(&sim)` returns true (e.g. when
/// every agent reached its goal, like the scenario runner).
///
/// # Errors
/// As [`record`].
pub fn record_until<F, D>(
    sim: &mut Simulator,
    max_ticks: u64,
    options: RecordOptions,
    inputs: F,
    done: D,
) -> Result<Replay, RecordError>
where
    F: FnMut(&Simulator) -> Vec<Command>,
    D: FnMut(&Simulator) -> bool,
{
    let (bytes, summary) = record_to(Vec::new(), sim, max_ticks, options, inputs, done)?;
    // The bytes were just written by the encoder the decoder reads: decoding cannot fail.
    Replay::from_bytes(&bytes).map_err(|error| RecordError::Write {
        tick: summary.start_tick + summary.ticks,
        error,
    })
}

/// As [`record_until`], but streams the replay into `out` (through a [`ReplayWriter`]) instead
/// of building it in memory: memory stays bounded whatever the length.
///
/// # Errors
/// As [`record`], and [`RecordError::Write`] if writing fails.
pub fn record_to<W, F, D>(
    out: W,
    sim: &mut Simulator,
    max_ticks: u64,
    options: RecordOptions,
    mut inputs: F,
    mut done: D,
) -> Result<(W, RecordSummary), RecordError>
where
    W: Write,
    F: FnMut(&Simulator) -> Vec<Command>,
    D: FnMut(&Simulator) -> bool,
{
    let write = |tick: u64| move |error| RecordError::Write { tick, error };
    let mut writer = ReplayWriter::begin(out, sim, options).map_err(write(sim.tick()))?;
    let mut i = 0;
    while i < max_ticks && !done(sim) {
        let tick = sim.tick();
        let commands = inputs(sim);
        for c in &commands {
            sim.queue_command(tick, c.clone())
                .map_err(|error| RecordError::Sim { tick, error })?;
        }
        sim.step()
            .map_err(|error| RecordError::Sim { tick, error })?;
        writer.push_tick(&commands, sim).map_err(write(tick))?;
        i += 1;
    }
    writer.finish(sim).map_err(write(sim.tick()))
}

impl Replay {
    /// Number of ticks recorded.
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.steps.len() as u64
    }

    /// The tick after the last one recorded.
    #[must_use]
    pub fn end_tick(&self) -> u64 {
        self.start_tick + self.ticks()
    }

    /// The state hash after every tick: element `i` at tick `start_tick + i + 1`.
    pub fn hashes(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.steps.iter().map(|s| s.hash)
    }

    /// `(tick, hash)` every `k` ticks from the start (ticks `start + k`, `start + 2k`, …) plus
    /// the last tick: the lines a golden file holds.
    #[must_use]
    pub fn hashes_every(&self, k: u64) -> Vec<(u64, u64)> {
        let k = k.max(1);
        let n = self.ticks();
        (1..=n)
            .filter(|i| i % k == 0 || *i == n)
            .map(|i| (self.start_tick + i, self.steps[(i - 1) as usize].hash))
            .collect()
    }

    /// Writes the replay as a stream (format in the [module docs](self)); returns the bytes
    /// written.
    ///
    /// # Errors
    /// [`ReplayError::Inconsistent`] if it cannot be encoded as one (steps not consecutive from
    /// `start_tick`, checkpoints not ascending within the recorded ticks or their agents not in
    /// ascending id order), I/O and frame-limit errors. A final hash that differs from the last
    /// step's is written as is (the reader refuses it).
    pub fn write_to<W: Write>(&self, out: W) -> Result<u64, ReplayError> {
        let bad = ReplayError::Inconsistent;
        if self.checkpoint_interval == 0 {
            return Err(bad("checkpoint interval is zero"));
        }
        let mut frames = FrameWriter::new(out)?;
        frames.begin(&Begin {
            checkpoint_interval: self.checkpoint_interval,
            start_tick: self.start_tick,
            initial_hash: self.initial_hash,
            snapshot: &self.initial,
        })?;
        let mut checkpoints = self.checkpoints.iter().peekable();
        for (i, step) in self.steps.iter().enumerate() {
            if Some(step.tick) != self.start_tick.checked_add(i as u64) {
                return Err(bad("steps not consecutive from the start tick"));
            }
            frames.tick(step.hash, step.rejected, &step.commands)?;
            if let Some(cp) = checkpoints.next_if(|c| c.tick == step.tick + 1) {
                frames.checkpoint(&cp.agents, cp.orders.as_deref())?;
            }
            if checkpoints.peek().is_some_and(|c| c.tick <= step.tick + 1) {
                return Err(bad(
                    "checkpoint ticks not ascending within the recorded range",
                ));
            }
        }
        if checkpoints.next().is_some() {
            return Err(bad(
                "checkpoint ticks not ascending within the recorded range",
            ));
        }
        Ok(frames.end(self.ticks(), self.final_hash)?.1)
    }

    /// The replay as file bytes (see [`write_to`](Self::write_to)).
    ///
    /// # Errors
    /// As [`write_to`](Self::write_to).
    pub fn to_bytes(&self) -> Result<Vec<u8>, ReplayError> {
        let mut out = Vec::with_capacity(64 + self.initial.len() + 32 * self.steps.len());
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// Reads a whole replay stream into memory and checks its structure (the initial snapshot is
    /// checked by verification, which restores it).
    ///
    /// # Errors
    /// [`ReplayError`] for anything malformed.
    pub fn read_from<R: Read>(src: R) -> Result<Replay, ReplayError> {
        let mut reader = ReplayReader::new(src)?;
        let h = reader.header().clone_without_snapshot();
        let mut replay = Replay {
            initial: reader.take_initial(),
            start_tick: h.start_tick,
            initial_hash: h.initial_hash,
            checkpoint_interval: h.checkpoint_interval,
            steps: Vec::new(),
            checkpoints: Vec::new(),
            final_hash: h.initial_hash,
        };
        while let Some(frame) = reader.next_frame()? {
            match frame {
                Frame::Tick(step) => replay.steps.push(step),
                Frame::Checkpoint(cp) => replay.checkpoints.push(cp),
                Frame::End { final_hash, .. } => replay.final_hash = final_hash,
            }
        }
        Ok(replay)
    }

    /// Decodes replay file bytes ([`read_from`](Self::read_from) a slice).
    ///
    /// # Errors
    /// As [`read_from`](Self::read_from).
    pub fn from_bytes(bytes: &[u8]) -> Result<Replay, ReplayError> {
        Self::read_from(bytes)
    }
}

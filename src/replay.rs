//! Replays: an initial state, every tick's commands and the hashes they must produce.
//!
//! [`record`] runs a simulator for N ticks, asking a closure for each tick's [`Command`]s, and
//! returns a [`Replay`]; [`verify`] re-runs a replay from its initial snapshot and reports the
//! first tick whose state hash differs, and which agents differ there. A replay file proves a
//! run on one machine reproduces on another (or after a code change) — or pinpoints where not.
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
//! let file = rec.to_bytes();
//! let report = replay::verify(&Replay::from_bytes(&file).unwrap());
//! assert!(report.is_match(), "{report}");
//! ```
//!
//! # What a replay stores, and why
//! * `initial`: a [snapshot](crate::snapshot) of the simulator when recording started (so any
//!   state, including one built from a scenario, can be replayed), and its state hash.
//! * `inputs`: the commands of every tick that had some, in the order they were queued.
//! * `hashes`: the [`state_hash`](Simulator::state_hash) after **every** tick (8 bytes per tick),
//!   so verify names the exact first diverging tick, not just a checkpoint interval.
//! * `checkpoints`: every `checkpoint_interval` ticks (and at the last tick), each agent's id,
//!   position and a per-agent hash (`xxh3_64` of its 96 canonical bytes, see [`crate::hash`]):
//!   28 bytes per agent. Verify compares them at the first checkpoint at or after the diverging
//!   tick and names every agent whose state differs (id, expected and actual position; an agent
//!   whose position matches but whose hash does not differs in velocity or parameters). Storing
//!   positions rather than only a per-agent hash is what lets the report say *where* the agent
//!   should have been; storing them only at checkpoints keeps files small (250 agents, K = 10:
//!   700 bytes per tick).
//! * `final_hash`: the hash after the last tick (equal to the last entry of `hashes`).
//!
//! Hash labelling: `hashes[i]` is the hash when [`Simulator::tick`] reads
//! `start_tick + i + 1`, i.e. after the step that applied the commands queued for tick
//! `start_tick + i`. A changed command for tick `t` therefore first shows at tick `t + 1`.
//!
//! The file format is the [snapshot envelope](crate::snapshot) with magic `b"LSORCARP"` and
//! version [`REPLAY_VERSION`]; its payload is the [`Replay`] struct in field order.

use crate::agent::AgentId;
use crate::command::Command;
use crate::error::SimError;
use crate::math::Vec2;
use crate::sim::Simulator;
use crate::snapshot::{SnapshotError, open, seal};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Magic prefix of a replay file.
pub const REPLAY_MAGIC: [u8; 8] = *b"LSORCARP";
/// Current replay format version.
pub const REPLAY_VERSION: u32 = 1;

/// The commands queued for one tick, in queue order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickInputs {
    /// The tick they were queued for.
    pub tick: u64,
    /// The commands.
    pub commands: Vec<Command>,
}

/// One agent at a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentMark {
    /// The agent.
    pub id: AgentId,
    /// Its position.
    pub position: Vec2,
    /// `xxh3_64` of its 96 canonical bytes (id, position, velocity, preferred velocity, params).
    pub hash: u64,
}

/// Every agent at one tick, ascending id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The tick ([`Simulator::tick`] after the step).
    pub tick: u64,
    /// The agents, ascending id.
    pub agents: Vec<AgentMark>,
}

/// A recorded run (see the [module docs](self)). Field order is the file format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replay {
    /// Snapshot of the simulator when recording started.
    pub initial: Vec<u8>,
    /// Its tick.
    pub start_tick: u64,
    /// Its state hash.
    pub initial_hash: u64,
    /// Ticks between agent checkpoints (at least 1).
    pub checkpoint_interval: u32,
    /// Commands of every tick that had some, ascending tick.
    pub inputs: Vec<TickInputs>,
    /// State hash after every tick: `hashes[i]` at tick `start_tick + i + 1`.
    pub hashes: Vec<u64>,
    /// Agent checkpoints, ascending tick.
    pub checkpoints: Vec<Checkpoint>,
    /// State hash after the last tick.
    pub final_hash: u64,
}

/// Options of [`record`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordOptions {
    /// Ticks between agent checkpoints. Default 10. Smaller names diverging agents closer to
    /// the first diverging tick; larger makes smaller files (28 bytes per agent per checkpoint).
    pub checkpoint_interval: u32,
}

impl Default for RecordOptions {
    fn default() -> Self {
        Self {
            checkpoint_interval: 10,
        }
    }
}

/// Why [`record`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The tick at which it happened.
    pub tick: u64,
    /// A command the closure produced was rejected by [`Simulator::queue_command`], or the step
    /// failed.
    pub error: SimError,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "recording stopped at tick {}: {}", self.tick, self.error)
    }
}

impl std::error::Error for RecordError {}

fn checkpoint(sim: &Simulator) -> Checkpoint {
    let agents = sim
        .agents()
        .iter()
        .map(|a| AgentMark {
            id: a.id,
            position: a.position,
            hash: crate::hash::agent_hash(&a),
        })
        .collect();
    Checkpoint {
        tick: sim.tick(),
        agents,
    }
}

/// Runs `sim` for `ticks` steps and records the run.
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
    mut inputs: F,
    mut done: D,
) -> Result<Replay, RecordError>
where
    F: FnMut(&Simulator) -> Vec<Command>,
    D: FnMut(&Simulator) -> bool,
{
    let interval = u64::from(options.checkpoint_interval.max(1));
    let start_tick = sim.tick();
    let mut replay = Replay {
        initial: sim.snapshot(),
        start_tick,
        initial_hash: sim.state_hash(),
        checkpoint_interval: interval as u32,
        inputs: Vec::new(),
        hashes: Vec::with_capacity(max_ticks.min(1 << 20) as usize),
        checkpoints: Vec::new(),
        final_hash: 0,
    };
    let mut i = 0;
    while i < max_ticks && !done(sim) {
        let tick = sim.tick();
        let commands = inputs(sim);
        for c in &commands {
            sim.queue_command(tick, *c)
                .map_err(|error| RecordError { tick, error })?;
        }
        if !commands.is_empty() {
            replay.inputs.push(TickInputs { tick, commands });
        }
        sim.step().map_err(|error| RecordError { tick, error })?;
        replay.hashes.push(sim.state_hash());
        i += 1;
        if i.is_multiple_of(interval) {
            replay.checkpoints.push(checkpoint(sim));
        }
    }
    // The last tick always has a checkpoint, so a divergence anywhere can name agents.
    if !i.is_multiple_of(interval) {
        replay.checkpoints.push(checkpoint(sim));
    }
    replay.final_hash = replay.hashes.last().copied().unwrap_or(replay.initial_hash);
    Ok(replay)
}

/// An agent whose state differs at a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentDiff {
    /// The agent.
    pub id: AgentId,
    /// Its recorded position (`None`: the recording has no such agent).
    pub expected: Option<Vec2>,
    /// Its position in the re-run (`None`: the re-run has no such agent).
    pub actual: Option<Vec2>,
}

/// Where a re-run first left the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The first tick whose state hash differs.
    pub tick: u64,
    /// The recorded hash there.
    pub expected_hash: u64,
    /// The re-run's hash there.
    pub actual_hash: u64,
    /// The checkpoint tick at which the agents were compared (the first at or after `tick`;
    /// `None` if the recording has none).
    pub agents_tick: Option<u64>,
    /// The agents that differ there, ascending id. Empty with a checkpoint means the
    /// difference is outside the agents (time, defaults, obstacles, pending commands).
    pub agents: Vec<AgentDiff>,
}

/// The result of [`verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyReport {
    /// Every tick's hash matched.
    Match {
        /// Ticks re-run.
        ticks: u64,
        /// The final hash.
        final_hash: u64,
    },
    /// A tick's hash differed.
    Diverged(Divergence),
    /// The initial snapshot could not be restored.
    BadInitialState(SnapshotError),
    /// The restored initial state does not hash to the recorded initial hash.
    InitialHashMismatch {
        /// Recorded.
        expected: u64,
        /// Restored.
        actual: u64,
    },
    /// A recorded command was rejected when queued.
    CommandRejected {
        /// Its tick.
        tick: u64,
        /// Its index in that tick's commands.
        index: usize,
        /// Why.
        error: SimError,
    },
    /// A step failed.
    StepFailed {
        /// The tick it started from.
        tick: u64,
        /// Why.
        error: SimError,
    },
}

impl VerifyReport {
    /// Whether the replay reproduced exactly (the CLI's exit code 0).
    #[must_use]
    pub fn is_match(&self) -> bool {
        matches!(self, Self::Match { .. })
    }

    /// The first diverging tick, if the run diverged.
    #[must_use]
    pub fn divergence(&self) -> Option<&Divergence> {
        match self {
            Self::Diverged(d) => Some(d),
            _ => None,
        }
    }
}

fn fmt_vec(v: Option<Vec2>) -> String {
    match v {
        None => "absent".to_string(),
        Some(v) => format!("({}, {})", v.x, v.y),
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Match { ticks, final_hash } => {
                write!(
                    f,
                    "OK: {ticks} ticks reproduced, final hash {final_hash:016x}"
                )
            }
            Self::Diverged(d) => {
                write!(
                    f,
                    "DIVERGED at tick {}: expected hash {:016x}, got {:016x}",
                    d.tick, d.expected_hash, d.actual_hash
                )?;
                match d.agents_tick {
                    None => write!(f, "\n  (no agent checkpoint after it)")?,
                    Some(t) if d.agents.is_empty() => write!(
                        f,
                        "\n  at checkpoint tick {t} every agent matches: the difference is elsewhere"
                    )?,
                    Some(t) => {
                        let n = d.agents.len();
                        let noun = if n == 1 {
                            "agent differs"
                        } else {
                            "agents differ"
                        };
                        write!(f, "\n  {n} {noun} at tick {t}:")?;
                        for a in &d.agents {
                            write!(
                                f,
                                "\n  agent {}: expected {}, actual {}",
                                a.id.0,
                                fmt_vec(a.expected),
                                fmt_vec(a.actual)
                            )?;
                            if a.expected == a.actual {
                                write!(f, " (velocity or parameters differ)")?;
                            }
                        }
                    }
                }
                Ok(())
            }
            Self::BadInitialState(e) => write!(f, "FAILED: bad initial snapshot: {e}"),
            Self::InitialHashMismatch { expected, actual } => write!(
                f,
                "FAILED: initial state hash {actual:016x}, recorded {expected:016x}"
            ),
            Self::CommandRejected { tick, index, error } => {
                write!(
                    f,
                    "FAILED: command {index} of tick {tick} rejected: {error}"
                )
            }
            Self::StepFailed { tick, error } => {
                write!(f, "FAILED: step from tick {tick} failed: {error}")
            }
        }
    }
}

fn diff_agents(expected: &Checkpoint, sim: &Simulator) -> Vec<AgentDiff> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let agents = sim.agents();
    let (exp, ids) = (&expected.agents, agents.ids());
    while i < exp.len() || j < ids.len() {
        let e = exp.get(i);
        let a = ids.get(j);
        match (e, a) {
            (Some(e), Some(&id)) if e.id == id => {
                if e.hash != crate::hash::agent_hash(&agents.at(j)) {
                    out.push(AgentDiff {
                        id,
                        expected: Some(e.position),
                        actual: Some(agents.positions()[j]),
                    });
                }
                i += 1;
                j += 1;
            }
            (Some(e), a) if a.is_none_or(|&id| e.id < id) => {
                out.push(AgentDiff {
                    id: e.id,
                    expected: Some(e.position),
                    actual: None,
                });
                i += 1;
            }
            (_, Some(&id)) => {
                out.push(AgentDiff {
                    id,
                    expected: None,
                    actual: Some(agents.positions()[j]),
                });
                j += 1;
            }
            (_, None) => break,
        }
    }
    out
}

/// Re-runs `replay` from its initial snapshot and compares every tick's hash.
///
/// Stops at the first agent checkpoint at or after the first diverging tick (or at the end).
#[must_use]
pub fn verify(replay: &Replay) -> VerifyReport {
    let mut sim = match Simulator::restore(&replay.initial) {
        Ok(sim) => sim,
        Err(e) => return VerifyReport::BadInitialState(e),
    };
    let actual = sim.state_hash();
    if actual != replay.initial_hash || sim.tick() != replay.start_tick {
        return VerifyReport::InitialHashMismatch {
            expected: replay.initial_hash,
            actual,
        };
    }
    let mut inputs = replay.inputs.iter().peekable();
    let mut checkpoints = replay.checkpoints.iter().peekable();
    let mut divergence: Option<Divergence> = None;
    for &expected in &replay.hashes {
        let tick = sim.tick();
        while let Some(ti) = inputs.next_if(|ti| ti.tick <= tick) {
            for (index, c) in ti.commands.iter().enumerate() {
                if let Err(error) = sim.queue_command(ti.tick, *c) {
                    return VerifyReport::CommandRejected {
                        tick: ti.tick,
                        index,
                        error,
                    };
                }
            }
        }
        if let Err(error) = sim.step() {
            return VerifyReport::StepFailed { tick, error };
        }
        let actual = sim.state_hash();
        let now = sim.tick();
        if divergence.is_none() && actual != expected {
            divergence = Some(Divergence {
                tick: now,
                expected_hash: expected,
                actual_hash: actual,
                agents_tick: None,
                agents: Vec::new(),
            });
        }
        while checkpoints.next_if(|c| c.tick < now).is_some() {}
        if let Some(d) = divergence.as_mut()
            && let Some(cp) = checkpoints.next_if(|c| c.tick == now)
        {
            d.agents_tick = Some(now);
            d.agents = diff_agents(cp, &sim);
            break;
        }
    }
    match divergence {
        Some(d) => VerifyReport::Diverged(d),
        None => {
            let final_hash = sim.state_hash();
            if final_hash != replay.final_hash {
                return VerifyReport::Diverged(Divergence {
                    tick: sim.tick(),
                    expected_hash: replay.final_hash,
                    actual_hash: final_hash,
                    agents_tick: None,
                    agents: Vec::new(),
                });
            }
            VerifyReport::Match {
                ticks: replay.hashes.len() as u64,
                final_hash,
            }
        }
    }
}

/// Decodes and verifies a replay file (what the runner's `verify REPLAY` calls).
///
/// # Errors
/// A [`SnapshotError`] if the file is not a well-formed replay.
pub fn verify_bytes(bytes: &[u8]) -> Result<VerifyReport, SnapshotError> {
    Ok(verify(&Replay::from_bytes(bytes)?))
}

impl Replay {
    /// Number of ticks recorded.
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.hashes.len() as u64
    }

    /// The tick after the last one recorded.
    #[must_use]
    pub fn end_tick(&self) -> u64 {
        self.start_tick + self.ticks()
    }

    /// `(tick, hash)` every `k` ticks from the start (ticks `start + k`, `start + 2k`, …) plus
    /// the last tick: the lines a golden file holds.
    #[must_use]
    pub fn hashes_every(&self, k: u64) -> Vec<(u64, u64)> {
        let k = k.max(1);
        let n = self.ticks();
        (1..=n)
            .filter(|i| i % k == 0 || *i == n)
            .map(|i| (self.start_tick + i, self.hashes[(i - 1) as usize]))
            .collect()
    }

    /// The replay as file bytes (format in the [module docs](self)).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let agents: usize = self
            .checkpoints
            .iter()
            .map(|c| 16 + 32 * c.agents.len())
            .sum();
        let commands: usize = self.inputs.iter().map(|t| 16 + 64 * t.commands.len()).sum();
        let hint = 128 + self.initial.len() + 8 * self.hashes.len() + agents + commands;
        seal(REPLAY_MAGIC, REPLAY_VERSION, self, hint)
    }

    /// Reads a replay file and checks its structure (the initial snapshot is checked by
    /// [`verify`], which restores it).
    ///
    /// # Errors
    /// [`SnapshotError`]: the envelope's errors, or
    /// [`Inconsistent`](SnapshotError::Inconsistent) for a malformed structure.
    pub fn from_bytes(bytes: &[u8]) -> Result<Replay, SnapshotError> {
        let replay: Replay = open(bytes, REPLAY_MAGIC, REPLAY_VERSION)?;
        replay.check()?;
        Ok(replay)
    }

    fn check(&self) -> Result<(), SnapshotError> {
        let bad = SnapshotError::Inconsistent;
        if self.checkpoint_interval == 0 {
            return Err(bad("checkpoint interval is zero"));
        }
        let end = self
            .start_tick
            .checked_add(self.ticks())
            .ok_or(bad("tick range overflows"))?;
        let last = self.hashes.last().copied().unwrap_or(self.initial_hash);
        if last != self.final_hash {
            return Err(bad("final hash differs from the last tick's hash"));
        }
        let mut previous = None;
        for ti in &self.inputs {
            if ti.tick < self.start_tick || ti.tick >= end || previous.is_some_and(|p| p >= ti.tick)
            {
                return Err(bad("input ticks not ascending within the recorded range"));
            }
            if ti.commands.is_empty() {
                return Err(bad("empty input tick"));
            }
            previous = Some(ti.tick);
        }
        let mut previous = None;
        for cp in &self.checkpoints {
            if cp.tick <= self.start_tick || cp.tick > end || previous.is_some_and(|p| p >= cp.tick)
            {
                return Err(bad(
                    "checkpoint ticks not ascending within the recorded range",
                ));
            }
            if cp.agents.windows(2).any(|w| w[0].id >= w[1].id) {
                return Err(bad("checkpoint agents not in ascending id order"));
            }
            previous = Some(cp.tick);
        }
        Ok(())
    }
}

//! Verification: a replay re-run tick by tick against its hashes and checkpoints
//! ([`verify_stream`], [`verify`], [`verify_bytes`]), and the report of what differs.

use super::*;

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

/// How an agent's move order differs at a checkpoint (the first difference along the order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderField {
    /// The agent holds an order on one side only (`expected`: whether the recording has one).
    Presence {
        /// Whether the recording says the agent has an order.
        expected: bool,
    },
    /// The paths have different lengths.
    PathLength {
        /// Recorded points.
        expected: usize,
        /// Re-run points.
        actual: usize,
    },
    /// Path point `index` (0 the first waypoint, the last the goal) differs.
    Waypoint {
        /// Its index in the path.
        index: usize,
        /// The recorded point.
        expected: Vec2,
        /// The re-run's point.
        actual: Vec2,
    },
    /// The agent is at another point of the same path.
    Progress {
        /// Recorded progress.
        expected: u32,
        /// Re-run progress.
        actual: u32,
    },
}

/// An agent whose move order differs at a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderDiff {
    /// The agent.
    pub id: AgentId,
    /// The first field that differs.
    pub field: OrderField,
}

impl fmt::Display for OrderDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id.0;
        match &self.field {
            OrderField::Presence { expected: true } => {
                write!(f, "agent {id}: order: expected one, the re-run has none")
            }
            OrderField::Presence { expected: false } => {
                write!(f, "agent {id}: order: expected none, the re-run has one")
            }
            OrderField::PathLength { expected, actual } => write!(
                f,
                "agent {id}: order path length: expected {expected}, actual {actual}"
            ),
            OrderField::Waypoint {
                index,
                expected,
                actual,
            } => write!(
                f,
                "agent {id}: order waypoint {index}: expected {}, actual {}",
                fmt_vec(Some(*expected)),
                fmt_vec(Some(*actual))
            ),
            OrderField::Progress { expected, actual } => write!(
                f,
                "agent {id}: order progress: expected {expected}, actual {actual}"
            ),
        }
    }
}

/// The first difference between two marks of one agent's order, if any.
fn order_field(e: &OrderMark, a: &OrderMark) -> Option<OrderField> {
    let first = e
        .path
        .iter()
        .zip(&a.path)
        .enumerate()
        .find(|(_, (p, q))| p != q);
    Some(match first {
        Some((index, (&expected, &actual))) => OrderField::Waypoint {
            index,
            expected,
            actual,
        },
        None if e.path.len() != a.path.len() => OrderField::PathLength {
            expected: e.path.len(),
            actual: a.path.len(),
        },
        None if e.progress != a.progress => OrderField::Progress {
            expected: e.progress,
            actual: a.progress,
        },
        None => return None,
    })
}

/// The orders of `sim` that differ from the checkpoint's, ascending id (none when the
/// checkpoint has no orders recorded).
fn diff_orders(expected: &Checkpoint, sim: &Simulator) -> Vec<OrderDiff> {
    use std::cmp::Ordering;
    let Some(recorded) = &expected.orders else {
        return Vec::new();
    };
    let mut actual = Vec::new();
    order_marks(sim, &mut actual);
    let mut out = Vec::new();
    let (mut exp, mut act) = (recorded.iter().peekable(), actual.iter().peekable());
    loop {
        let order = match (exp.peek(), act.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(e), Some(a)) => e.id.cmp(&a.id),
        };
        let diff = match order {
            Ordering::Less => exp
                .next()
                .map(|e| (e.id, OrderField::Presence { expected: true })),
            Ordering::Greater => act
                .next()
                .map(|a| (a.id, OrderField::Presence { expected: false })),
            Ordering::Equal => match (exp.next(), act.next()) {
                (Some(e), Some(a)) => order_field(e, a).map(|f| (e.id, f)),
                _ => None,
            },
        };
        if let Some((id, field)) = diff {
            out.push(OrderDiff { id, field });
        }
    }
    out
}

/// Where a re-run first left the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The first tick whose state hash differs, or the checkpoint tick whose agents differ
    /// although the hash matched (then `expected_hash == actual_hash`: the checkpoint claims
    /// a state the run does not have).
    pub tick: u64,
    /// The recorded hash there.
    pub expected_hash: u64,
    /// The re-run's hash there.
    pub actual_hash: u64,
    /// The checkpoint tick at which the agents were compared (the first at or after `tick`;
    /// `None` if the recording has none, or the re-run could not reach it).
    pub agents_tick: Option<u64>,
    /// The agents that differ there, ascending id. Empty with a checkpoint means the
    /// difference is outside the agents (time, defaults, obstacles, pending commands, orders).
    pub agents: Vec<AgentDiff>,
    /// The agents whose move order differs there (format version 4 on), ascending id: a
    /// changed waypoint is named here (agent, waypoint index, tick) before the agent has moved
    /// differently.
    pub orders: Vec<OrderDiff>,
}

/// The result of verifying a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyReport {
    /// Every tick's hash, skipped-command count and checkpoint matched.
    Match {
        /// Ticks re-run.
        ticks: u64,
        /// The final hash.
        final_hash: u64,
    },
    /// A tick's hash, or a checkpoint's agents, differed.
    Diverged(Divergence),
    /// The restored initial state does not hash to the recorded initial hash (or is at another
    /// tick).
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
    /// A step skipped another number of commands than the recording says (an extra or a
    /// changed command that the step refuses leaves the hash alone, but not this count).
    RejectedCount {
        /// The tick of the commands.
        tick: u64,
        /// Recorded.
        expected: u32,
        /// In the re-run.
        actual: u32,
    },
    /// A step failed.
    StepFailed {
        /// The tick it started from.
        tick: u64,
        /// Why.
        error: SimError,
    },
    /// The in-memory [`Replay`] given to [`verify`] is not a well-formed replay ([`verify_stream`]
    /// returns this as its `Err`).
    Invalid(ReplayError),
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
                if d.expected_hash == d.actual_hash {
                    write!(
                        f,
                        "DIVERGED at tick {}: the state hash {:016x} matches, the checkpoint does not",
                        d.tick, d.actual_hash
                    )?;
                } else {
                    write!(
                        f,
                        "DIVERGED at tick {}: expected hash {:016x}, got {:016x}",
                        d.tick, d.expected_hash, d.actual_hash
                    )?;
                }
                match d.agents_tick {
                    None => write!(f, "\n  (no agent checkpoint after it)")?,
                    Some(t) if d.agents.is_empty() && d.orders.is_empty() => write!(
                        f,
                        "\n  at checkpoint tick {t} every agent matches: the difference is elsewhere"
                    )?,
                    Some(t) if d.agents.is_empty() => {
                        write!(
                            f,
                            "\n  at checkpoint tick {t} every agent's position, velocity and parameters match; orders differ:"
                        )?;
                    }
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
                                write!(f, " (velocity, parameters or stall counter differ)")?;
                            }
                        }
                    }
                }
                for o in &d.orders {
                    write!(f, "\n  {o}")?;
                }
                Ok(())
            }
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
            Self::RejectedCount {
                tick,
                expected,
                actual,
            } => write!(
                f,
                "FAILED: the step of tick {tick} skipped {actual} commands, the recording says {expected}"
            ),
            Self::StepFailed { tick, error } => {
                write!(f, "FAILED: step from tick {tick} failed: {error}")
            }
            Self::Invalid(e) => write!(f, "FAILED: not a valid replay: {e}"),
        }
    }
}

/// The agents of `sim` that differ from the checkpoint (by hash, or present on one side only).
fn diff_agents(expected: &Checkpoint, sim: &Simulator) -> Vec<AgentDiff> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let agents = sim.agents();
    let (exp, ids) = (&expected.agents, agents.ids());
    while i < exp.len() || j < ids.len() {
        match (exp.get(i), ids.get(j)) {
            (Some(e), Some(&id)) if e.id == id => {
                if e.hash != crate::hash::agent_hash(&agents.at(j)) as u32 {
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

/// What [`verify_stream_with`] did besides its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyStats {
    /// The tick the replay starts from.
    pub start_tick: u64,
    /// Ticks re-simulated.
    pub ticks_run: u64,
    /// Bytes read from the source.
    pub bytes_read: u64,
}

/// Re-simulates a replay stream while reading it, and compares every tick's hash and
/// skipped-command count and every checkpoint.
///
/// Memory: the simulator, one frame (at most [`MAX_FRAME_BYTES`]) and the frame's decoded
/// commands or checkpoint, whatever the replay's length; nothing is read ahead. Stops at the
/// first agent checkpoint at or after the first diverging tick, or at the first other failure
/// (then the rest of the stream is not read), else at the end frame, having checked that no
/// byte follows it.
///
/// # Errors
/// [`ReplayError`] if the stream is not a well-formed replay (the report is for well-formed
/// replays that do or do not reproduce).
pub fn verify_stream<R: Read>(src: R) -> Result<VerifyReport, ReplayError> {
    verify_stream_with(src, |_| {}).map(|(report, _)| report)
}

/// As [`verify_stream`], calling `on_tick(ticks_done)` after every tick (for progress), and
/// returning what was read and run.
///
/// # Errors
/// As [`verify_stream`].
pub fn verify_stream_with<R: Read>(
    src: R,
    mut on_tick: impl FnMut(u64),
) -> Result<(VerifyReport, VerifyStats), ReplayError> {
    let mut reader = ReplayReader::new(src)?;
    let header = reader.header().clone_without_snapshot();
    let initial = reader.take_initial();
    let mut sim = Simulator::restore(&initial).map_err(ReplayError::InitialState)?;
    drop(initial);
    let mut stats = VerifyStats {
        start_tick: header.start_tick,
        ticks_run: 0,
        bytes_read: reader.bytes_read(),
    };
    let actual = sim.state_hash();
    if actual != header.initial_hash || sim.tick() != header.start_tick {
        let report = VerifyReport::InitialHashMismatch {
            expected: header.initial_hash,
            actual,
        };
        return Ok((report, stats));
    }
    let mut divergence: Option<Divergence> = None;
    let report = 'frames: loop {
        let frame = reader.next_frame()?;
        stats.bytes_read = reader.bytes_read();
        let Some(frame) = frame else {
            // `None` comes only after the end frame, which returns below.
            break VerifyReport::Match {
                ticks: stats.ticks_run,
                final_hash: sim.state_hash(),
            };
        };
        match frame {
            Frame::Tick(step) => {
                for (index, c) in step.commands.iter().enumerate() {
                    if let Err(error) = sim.queue_command(step.tick, c.clone()) {
                        // After a hash divergence the divergence is the cause: report it.
                        break 'frames divergence.take().map_or(
                            VerifyReport::CommandRejected {
                                tick: step.tick,
                                index,
                                error,
                            },
                            VerifyReport::Diverged,
                        );
                    }
                }
                if let Err(error) = sim.step() {
                    break 'frames divergence.take().map_or(
                        VerifyReport::StepFailed {
                            tick: step.tick,
                            error,
                        },
                        VerifyReport::Diverged,
                    );
                }
                stats.ticks_run += 1;
                on_tick(stats.ticks_run);
                if divergence.is_some() {
                    continue;
                }
                let actual = sim.state_hash();
                if actual != step.hash {
                    divergence = Some(Divergence {
                        tick: sim.tick(),
                        expected_hash: step.hash,
                        actual_hash: actual,
                        agents_tick: None,
                        agents: Vec::new(),
                        orders: Vec::new(),
                    });
                    continue;
                }
                let rejected = u32::try_from(sim.rejected_commands().len()).unwrap_or(u32::MAX);
                if rejected != step.rejected {
                    break VerifyReport::RejectedCount {
                        tick: step.tick,
                        expected: step.rejected,
                        actual: rejected,
                    };
                }
            }
            Frame::Checkpoint(cp) => {
                let agents = diff_agents(&cp, &sim);
                let orders = diff_orders(&cp, &sim);
                if let Some(mut d) = divergence.take() {
                    d.agents_tick = Some(cp.tick);
                    d.agents = agents;
                    d.orders = orders;
                    break VerifyReport::Diverged(d);
                }
                if !agents.is_empty() || !orders.is_empty() {
                    let hash = sim.state_hash();
                    break VerifyReport::Diverged(Divergence {
                        tick: cp.tick,
                        expected_hash: hash,
                        actual_hash: hash,
                        agents_tick: Some(cp.tick),
                        agents,
                        orders,
                    });
                }
            }
            Frame::End { .. } => {
                if let Some(d) = divergence.take() {
                    break VerifyReport::Diverged(d);
                }
            }
        }
    };
    stats.bytes_read = reader.bytes_read();
    Ok((report, stats))
}

impl ReplayHeader {
    pub(super) fn clone_without_snapshot(&self) -> ReplayHeader {
        ReplayHeader {
            checkpoint_interval: self.checkpoint_interval,
            start_tick: self.start_tick,
            initial_hash: self.initial_hash,
            initial: Vec::new(),
        }
    }
}

/// Re-runs an in-memory replay (through its encoding: the same code as [`verify_stream`]).
///
/// A replay that cannot be encoded or read back is reported as [`VerifyReport::Invalid`].
#[must_use]
pub fn verify(replay: &Replay) -> VerifyReport {
    match replay.to_bytes() {
        Ok(bytes) => verify_bytes(&bytes).unwrap_or_else(VerifyReport::Invalid),
        Err(e) => VerifyReport::Invalid(e),
    }
}

/// Verifies replay file bytes ([`verify_stream`] over a slice).
///
/// # Errors
/// As [`verify_stream`].
pub fn verify_bytes(bytes: &[u8]) -> Result<VerifyReport, ReplayError> {
    verify_stream(bytes)
}

//! The match recording: [`NetGame::start_recording`](super::NetGame::start_recording) keeps the
//! live timeline as a [`Replay`] (the commands the rules queued each frame, the state hash after
//! each step, a checkpoint every interval), rewound with every rollback, so at any time it is
//! the replay of the frames simulated last: [`crate::replay::verify`] re-simulates it from the
//! recorded initial snapshot and checks every tick, buildings included.

use super::NetError;
use crate::command::Command;
use crate::replay::{Checkpoint, RecordOptions, Replay, Step};
use crate::sim::Simulator;

/// A recording in progress (not state: rewound on load, never in the checksum).
#[derive(Clone, Debug)]
pub(super) struct Recording {
    /// The game's frame when recording started (the replay's tick `start_tick`).
    start_frame: u32,
    replay: Replay,
}

impl Recording {
    pub(super) fn new(sim: &Simulator, frame: u32, options: RecordOptions) -> Self {
        let hash = sim.state_hash();
        Self {
            start_frame: frame,
            replay: Replay {
                initial: sim.snapshot(),
                start_tick: sim.tick(),
                initial_hash: hash,
                checkpoint_interval: options.checkpoint_interval.max(1),
                steps: Vec::new(),
                checkpoints: Vec::new(),
                final_hash: hash,
            },
        }
    }

    /// Records the tick just stepped: `commands` were queued for it, `sim` is after the step.
    pub(super) fn push(&mut self, commands: &[Command], sim: &Simulator) {
        let r = &mut self.replay;
        let hash = sim.state_hash();
        r.steps.push(Step {
            tick: sim.tick() - 1,
            commands: commands.to_vec(),
            hash,
            rejected: u32::try_from(sim.rejected_commands().len()).unwrap_or(u32::MAX),
        });
        r.final_hash = hash;
        if (r.steps.len() as u64).is_multiple_of(u64::from(r.checkpoint_interval)) {
            r.checkpoints.push(Checkpoint::capture(sim));
        }
    }

    /// Drops the frames from `frame` on (a load of `frame`'s state).
    pub(super) fn rewind(&mut self, frame: u32) -> Result<(), NetError> {
        let keep = frame
            .checked_sub(self.start_frame)
            .ok_or(NetError::FrameMismatch {
                requested: i32::try_from(frame).unwrap_or(i32::MAX),
                actual: self.start_frame,
            })? as usize;
        let r = &mut self.replay;
        if keep < r.steps.len() {
            r.steps.truncate(keep);
            let last_tick = r.start_tick + keep as u64;
            r.checkpoints.retain(|c| c.tick <= last_tick);
            r.final_hash = r.steps.last().map_or(r.initial_hash, |s| s.hash);
        }
        Ok(())
    }

    /// The replay so far, finished like [`ReplayWriter::finish`](crate::replay::ReplayWriter::finish)
    /// does: a checkpoint of the last tick if it has none (`sim` is at that tick).
    pub(super) fn replay(&self, sim: &Simulator) -> Replay {
        let mut replay = self.replay.clone();
        let last = replay.start_tick + replay.steps.len() as u64;
        if !replay.steps.is_empty() && replay.checkpoints.last().is_none_or(|c| c.tick != last) {
            replay.checkpoints.push(Checkpoint::capture(sim));
        }
        replay
    }
}

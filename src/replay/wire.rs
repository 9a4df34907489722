//! The replay file format, version 5 (reading versions 2 to 4 too): a header and a stream of
//! checksummed frames, written and read one frame at a time (the byte-level table is in the
//! [module docs](super#the-file-format)).

use super::{AgentMark, Checkpoint, OrderMark, Step};
use crate::agent::AgentId;
use crate::command::Command;
use crate::math::{Fx, Vec2};
use std::fmt;
use std::io::{self, Read, Write};

/// Magic prefix of a replay file.
pub const REPLAY_MAGIC: [u8; 8] = *b"LSORCARP";
/// Current replay format version, the one written. Version 3 added the world commands
/// ([`Command::SpawnAgent`], [`Command::AddObstacle`], [`Command::RemoveObstacle`], tags 11 to
/// 13) to version 2; version 4 adds the order commands [`Command::NavigateTo`],
/// [`Command::SetOrderSpeed`], [`Command::SetGroup`] and [`Command::GroupMove`] (tags 14 to 17),
/// every agent's move order in the checkpoints, and begin frames whose snapshot may be of
/// format 5 (navigation, the order lifecycle and the groups); version 5 adds the formation
/// move [`Command::FormationMove`] (tag 18) and begin snapshots of format 7; version 6 adds
/// [`Command::FormationMarch`] (tag 19) and begin snapshots of format 9; version 7 adds
/// [`Command::GroupNavigate`] (tag 20). Versions 2 to 6 read unchanged (see the
/// [module docs](super#versions)).
pub const REPLAY_VERSION: u32 = 7;
/// The first replay format version whose checkpoints carry the agents' move orders.
pub const ORDERS_IN_CHECKPOINTS: u32 = 4;
/// Oldest replay format version this build reads (version 1 was a single envelope; it is
/// refused with [`ReplayError::UnsupportedVersion`]).
pub const REPLAY_VERSION_MIN: u32 = 2;
/// The largest command tag of replay format version 2 ([`Command::SetModel`]).
const LAST_TAG_V2: u8 = 10;
/// The largest command tag of replay format version 3 ([`Command::RemoveObstacle`]).
const LAST_TAG_V3: u8 = 13;
/// The largest command tag of replay format version 4 ([`Command::GroupMove`]).
const LAST_TAG_V4: u8 = 17;
/// The largest command tag of replay format version 5 ([`Command::FormationMove`]).
const LAST_TAG_V5: u8 = 18;
/// The largest command tag of replay format version 6 ([`Command::FormationMarch`]).
const LAST_TAG_V6: u8 = 19;
/// Bytes of the file header: magic and version.
pub const REPLAY_HEADER_BYTES: usize = 12;
/// Bytes around every frame's payload: kind (1), payload length (4), checksum (8).
pub const FRAME_OVERHEAD_BYTES: usize = 13;
/// Largest payload of the begin frame, which holds the initial snapshot: 32 MiB (about 330,000
/// agents at 99 bytes each).
pub const MAX_BEGIN_FRAME_BYTES: u32 = 32 << 20;
/// Largest payload of a tick or checkpoint frame: 16 MiB (about 690,000 `SetPrefVelocity`
/// commands in one tick, or a checkpoint of about 900,000 agents).
pub const MAX_FRAME_BYTES: u32 = 16 << 20;
/// Payload of the end frame: tick count and final hash.
pub const END_FRAME_BYTES: u32 = 16;
/// Bytes the reader asks of its source per read while filling a frame: a declared length is
/// allocated only as the bytes arrive, never up front.
const READ_CHUNK: usize = 64 << 10;

/// Frame kinds (the first byte of a frame).
pub(crate) const KIND_BEGIN: u8 = 1;
pub(crate) const KIND_TICK: u8 = 2;
pub(crate) const KIND_CHECKPOINT: u8 = 3;
pub(crate) const KIND_END: u8 = 4;

fn kind_name(kind: u8) -> &'static str {
    match kind {
        KIND_BEGIN => "begin",
        KIND_TICK => "tick",
        KIND_CHECKPOINT => "checkpoint",
        KIND_END => "end",
        _ => "unknown",
    }
}

/// Why a replay stream could not be read or written. Every variant that concerns a position in
/// the stream names its byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The source or the destination failed (the I/O error's kind and message).
    Io {
        /// The error kind.
        kind: io::ErrorKind,
        /// Its message.
        message: String,
    },
    /// The stream ended inside the header or a frame, or before the end frame.
    Truncated {
        /// Bytes read before the end.
        offset: u64,
        /// What was being read.
        what: &'static str,
    },
    /// The first 8 bytes are not [`REPLAY_MAGIC`].
    BadMagic,
    /// The format version is not one this build reads ([`REPLAY_VERSION_MIN`] to
    /// [`REPLAY_VERSION`]).
    UnsupportedVersion {
        /// Version found.
        found: u32,
        /// The newest version this build reads ([`REPLAY_VERSION`]).
        supported: u32,
    },
    /// A frame kind this version does not define, or a frame where the stream allows none
    /// (a second begin frame, a checkpoint before any tick, a frame after the end frame).
    UnexpectedFrame {
        /// Offset of the frame.
        offset: u64,
        /// Its kind byte.
        kind: u8,
    },
    /// A frame's declared payload length exceeds its kind's limit (checked before reading it).
    FrameTooLarge {
        /// Offset of the frame.
        offset: u64,
        /// Its kind byte.
        kind: u8,
        /// Declared payload length.
        declared: u64,
        /// The limit ([`MAX_BEGIN_FRAME_BYTES`], [`MAX_FRAME_BYTES`] or [`END_FRAME_BYTES`]).
        max: u64,
    },
    /// A frame's checksum does not match: the bytes were corrupted, or frames were dropped,
    /// reordered or spliced in (the checksums are chained).
    ChecksumMismatch {
        /// Offset of the frame.
        offset: u64,
    },
    /// A frame's payload is not a valid encoding.
    Decode {
        /// Offset of the frame.
        offset: u64,
        /// What is wrong.
        why: String,
    },
    /// Bytes follow the end frame.
    TrailingBytes {
        /// Offset of the first one.
        offset: u64,
    },
    /// The frames do not describe a consistent run (the reason says which), or an in-memory
    /// [`Replay`](super::Replay) cannot be encoded as one.
    Inconsistent(&'static str),
    /// The initial snapshot (in the begin frame) cannot be restored.
    InitialState(crate::snapshot::SnapshotError),
    /// [`ReplayWriter`](super::ReplayWriter) was given a simulator at another tick than the next one (or changed
    /// after its last tick was pushed).
    WrongTick {
        /// The tick the writer expected.
        expected: u64,
        /// The simulator's tick.
        found: u64,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { message, .. } => write!(f, "I/O error: {message}"),
            Self::Truncated { offset, what } => {
                write!(
                    f,
                    "truncated: the stream ends at byte {offset}, inside {what}"
                )
            }
            Self::BadMagic => write!(f, "bad magic (expected \"LSORCARP\")"),
            Self::UnsupportedVersion { found, supported } => write!(
                f,
                "unsupported version: replay format version {found} (this build reads {REPLAY_VERSION_MIN} to {supported})"
            ),
            Self::UnexpectedFrame { offset, kind } => write!(
                f,
                "unexpected {} frame (kind {kind}) at byte {offset}",
                kind_name(*kind)
            ),
            Self::FrameTooLarge {
                offset,
                kind,
                declared,
                max,
            } => write!(
                f,
                "{} frame at byte {offset} declares {declared} bytes, over the limit of {max}",
                kind_name(*kind)
            ),
            Self::ChecksumMismatch { offset } => {
                write!(f, "checksum mismatch in the frame at byte {offset}")
            }
            Self::Decode { offset, why } => {
                write!(f, "undecodable frame at byte {offset}: {why}")
            }
            Self::TrailingBytes { offset } => {
                write!(f, "trailing bytes after the end frame, from byte {offset}")
            }
            Self::Inconsistent(why) => write!(f, "inconsistent replay: {why}"),
            Self::InitialState(e) => write!(f, "bad initial snapshot: {e}"),
            Self::WrongTick { expected, found } if expected == found => write!(
                f,
                "the simulator is at tick {found} as the replay writer expects, but its state hash is not the one pushed: the state changed after push_tick (a command queued for the next tick, an agent changed)"
            ),
            Self::WrongTick { expected, found } => write!(
                f,
                "the simulator is at tick {found}, the replay writer expected tick {expected}"
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

impl From<io::Error> for ReplayError {
    fn from(e: io::Error) -> Self {
        Self::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

mod payload;
pub(crate) use payload::Begin;
use payload::*;

// ---------------------------------------------------------------------- the frame writer

/// Writes the header and frames, chaining checksums; knows nothing about simulators.
pub(crate) struct FrameWriter<W: Write> {
    out: W,
    check: u64,
    bytes: u64,
    payload: Vec<u8>,
    /// The orders of the last checkpoint that recorded them (unchanged paths refer to it).
    orders: Vec<OrderMark>,
}

impl<W: Write> FrameWriter<W> {
    pub(crate) fn new(mut out: W) -> Result<Self, ReplayError> {
        out.write_all(&REPLAY_MAGIC)?;
        out.write_all(&REPLAY_VERSION.to_le_bytes())?;
        Ok(Self {
            out,
            check: 0,
            bytes: REPLAY_HEADER_BYTES as u64,
            payload: Vec::new(),
            orders: Vec::new(),
        })
    }

    /// Bytes written so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Writes `self.payload` as a frame of `kind` (refusing one over the limit: a file this
    /// crate cannot read back is never written).
    fn frame(&mut self, kind: u8) -> Result<(), ReplayError> {
        let max = if kind == KIND_BEGIN {
            MAX_BEGIN_FRAME_BYTES
        } else {
            MAX_FRAME_BYTES
        };
        let len = self.payload.len() as u64;
        if len > u64::from(max) {
            return Err(ReplayError::FrameTooLarge {
                offset: self.bytes,
                kind,
                declared: len,
                max: u64::from(max),
            });
        }
        let mut head = [0u8; 5];
        head[0] = kind;
        head[1..].copy_from_slice(&(len as u32).to_le_bytes());
        let check = frame_check(self.check, &head, &self.payload);
        self.out.write_all(&head)?;
        self.out.write_all(&self.payload)?;
        self.out.write_all(&check.to_le_bytes())?;
        self.check = check;
        self.bytes += FRAME_OVERHEAD_BYTES as u64 + len;
        Ok(())
    }

    pub(crate) fn begin(&mut self, b: &Begin<'_>) -> Result<(), ReplayError> {
        self.payload.clear();
        encode_begin(b, &mut self.payload);
        self.frame(KIND_BEGIN)
    }

    pub(crate) fn tick(
        &mut self,
        hash: u64,
        rejected: u32,
        commands: &[Command],
    ) -> Result<(), ReplayError> {
        self.payload.clear();
        encode_tick(hash, rejected, commands, &mut self.payload);
        self.frame(KIND_TICK)
    }

    pub(crate) fn checkpoint(
        &mut self,
        agents: &[AgentMark],
        orders: Option<&[OrderMark]>,
    ) -> Result<(), ReplayError> {
        self.payload.clear();
        encode_checkpoint(agents, orders, &self.orders, &mut self.payload)?;
        if let Some(o) = orders {
            self.orders.clear();
            self.orders.extend_from_slice(o);
        }
        self.frame(KIND_CHECKPOINT)
    }

    /// Writes the end frame, flushes and hands the destination back.
    pub(crate) fn end(mut self, ticks: u64, final_hash: u64) -> Result<(W, u64), ReplayError> {
        self.payload.clear();
        self.payload.extend_from_slice(&ticks.to_le_bytes());
        self.payload.extend_from_slice(&final_hash.to_le_bytes());
        self.frame(KIND_END)?;
        self.out.flush()?;
        Ok((self.out, self.bytes))
    }
}

/// A frame's checksum: XXH3-64 of its kind, length and payload, seeded with the previous
/// frame's checksum (0 for the begin frame).
fn frame_check(seed: u64, head: &[u8; 5], payload: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(seed);
    h.update(head);
    h.update(payload);
    h.digest()
}

// ---------------------------------------------------------------------- the frame reader

/// What [`ReplayReader::new`] reads first: the begin frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayHeader {
    /// Ticks between agent checkpoints, as recorded.
    pub checkpoint_interval: u32,
    /// The tick of the initial state.
    pub start_tick: u64,
    /// The state hash of the initial state.
    pub initial_hash: u64,
    /// The initial state's [snapshot](crate::snapshot) bytes (restored by
    /// [`verify_stream`](super::verify_stream); empty once taken with
    /// [`ReplayReader::take_initial`]).
    pub initial: Vec<u8>,
}

/// One frame after the begin frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// One tick: its commands, the hash after it, how many commands were skipped.
    Tick(Step),
    /// Every agent after the tick of the frame before.
    Checkpoint(Checkpoint),
    /// The end: the number of ticks and the final hash (already checked against the tick
    /// frames: the count equals theirs, the hash the last one's).
    End {
        /// Ticks in the replay.
        ticks: u64,
        /// The state hash after the last tick.
        final_hash: u64,
    },
}

/// Reads a replay stream frame by frame, in memory bounded by the largest frame
/// ([`MAX_FRAME_BYTES`], or [`MAX_BEGIN_FRAME_BYTES`] for the first) whatever the stream's
/// length.
///
/// [`new`](Self::new) reads and checks the 12-byte header before anything else, then the begin
/// frame; [`next_frame`](Self::next_frame) returns the tick, checkpoint and end frames in order,
/// then `None` once it has checked that nothing follows the end frame. Every structural check
/// is done here (declared lengths against the limits before reading, checksums, consecutive
/// ticks, a checkpoint only after a tick, the end frame's count and hash); checking the run
/// itself is [`verify_stream`](super::verify_stream)'s job.
pub struct ReplayReader<R: Read> {
    src: R,
    /// The format version of the stream (read from its header).
    version: u32,
    header: ReplayHeader,
    buf: Vec<u8>,
    check: u64,
    offset: u64,
    /// Tick frames read.
    ticks: u64,
    /// Tick of the last tick frame, and whether a checkpoint already followed it.
    last_tick: Option<(u64, bool)>,
    last_hash: u64,
    /// The orders of the last checkpoint that recorded them (unchanged paths refer to it).
    orders: Vec<OrderMark>,
    ended: bool,
    finished: bool,
}

/// `read_exact` that reports a clean end of stream as [`ReplayError::Truncated`].
fn read_exact_at<R: Read>(
    src: &mut R,
    buf: &mut [u8],
    offset: u64,
    what: &'static str,
) -> Result<(), ReplayError> {
    let mut filled = 0;
    while filled < buf.len() {
        match src.read(&mut buf[filled..]) {
            Ok(0) => {
                return Err(ReplayError::Truncated {
                    offset: offset + filled as u64,
                    what,
                });
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

impl<R: Read> ReplayReader<R> {
    /// Checks the header, then reads the begin frame.
    ///
    /// # Errors
    /// [`ReplayError`]: I/O, truncated, bad magic or version (read from the first 12 bytes, so
    /// a stream of anything else is refused after 12 bytes), or a bad begin frame.
    pub fn new(mut src: R) -> Result<Self, ReplayError> {
        let mut head = [0u8; REPLAY_HEADER_BYTES];
        read_exact_at(&mut src, &mut head, 0, "the header")?;
        if head[..8] != REPLAY_MAGIC {
            return Err(ReplayError::BadMagic);
        }
        let found = u32::from_le_bytes(head[8..12].try_into().unwrap_or_default());
        if !(REPLAY_VERSION_MIN..=REPLAY_VERSION).contains(&found) {
            return Err(ReplayError::UnsupportedVersion {
                found,
                supported: REPLAY_VERSION,
            });
        }
        let mut reader = Self {
            src,
            version: found,
            header: ReplayHeader {
                checkpoint_interval: 0,
                start_tick: 0,
                initial_hash: 0,
                initial: Vec::new(),
            },
            buf: Vec::new(),
            check: 0,
            offset: REPLAY_HEADER_BYTES as u64,
            ticks: 0,
            last_tick: None,
            last_hash: 0,
            orders: Vec::new(),
            ended: false,
            finished: false,
        };
        let at = reader.offset;
        let kind = reader.read_frame(true)?;
        if kind != KIND_BEGIN {
            return Err(ReplayError::UnexpectedFrame { offset: at, kind });
        }
        let bad = |why: &str| ReplayError::Decode {
            offset: at,
            why: why.to_string(),
        };
        let mut c = Cursor::new(&reader.buf);
        let interval = c.u32().map_err(bad)?;
        let start_tick = c.u64().map_err(bad)?;
        let initial_hash = c.u64().map_err(bad)?;
        if interval == 0 {
            return Err(ReplayError::Inconsistent("checkpoint interval is zero"));
        }
        reader.header = ReplayHeader {
            checkpoint_interval: interval,
            start_tick,
            initial_hash,
            initial: c.rest().to_vec(),
        };
        reader.last_hash = initial_hash;
        // The begin frame's buffer may be large: do not keep it for the small frames.
        reader.buf = Vec::new();
        Ok(reader)
    }

    /// The stream's format version ([`REPLAY_VERSION_MIN`] to [`REPLAY_VERSION`]).
    #[must_use]
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The begin frame's contents.
    #[must_use]
    pub fn header(&self) -> &ReplayHeader {
        &self.header
    }

    /// Takes the initial snapshot bytes out of the header (to restore them without a copy).
    pub fn take_initial(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.header.initial)
    }

    /// Bytes consumed from the source so far.
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// Reads one frame into `self.buf`: head, length check against the kind's limit, payload
    /// (in chunks, as it arrives), checksum. Returns the kind.
    fn read_frame(&mut self, first: bool) -> Result<u8, ReplayError> {
        let at = self.offset;
        let mut head = [0u8; 5];
        read_exact_at(&mut self.src, &mut head, at, "a frame header")?;
        let kind = head[0];
        let declared = u32::from_le_bytes(head[1..].try_into().unwrap_or_default());
        let max = match kind {
            KIND_BEGIN if first => MAX_BEGIN_FRAME_BYTES,
            KIND_TICK | KIND_CHECKPOINT if !first => MAX_FRAME_BYTES,
            KIND_END if !first => END_FRAME_BYTES,
            _ => return Err(ReplayError::UnexpectedFrame { offset: at, kind }),
        };
        if declared > max {
            return Err(ReplayError::FrameTooLarge {
                offset: at,
                kind,
                declared: u64::from(declared),
                max: u64::from(max),
            });
        }
        let len = declared as usize;
        self.buf.clear();
        let mut pos = at + 5;
        while self.buf.len() < len {
            let start = self.buf.len();
            let n = (len - start).min(READ_CHUNK);
            self.buf.resize(start + n, 0);
            read_exact_at(
                &mut self.src,
                &mut self.buf[start..],
                pos,
                "a frame payload",
            )?;
            pos += n as u64;
        }
        let mut sum = [0u8; 8];
        read_exact_at(&mut self.src, &mut sum, pos, "a frame checksum")?;
        let check = frame_check(self.check, &head, &self.buf);
        if u64::from_le_bytes(sum) != check {
            return Err(ReplayError::ChecksumMismatch { offset: at });
        }
        self.check = check;
        self.offset = pos + 8;
        Ok(kind)
    }

    /// The next frame, or `None` after the end frame once the stream is checked to end there.
    ///
    /// # Errors
    /// [`ReplayError`] for anything malformed; after an error the reader is not usable.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, ReplayError> {
        if self.finished {
            return Ok(None);
        }
        if self.ended {
            let mut one = [0u8; 1];
            loop {
                match self.src.read(&mut one) {
                    Ok(0) => break,
                    Ok(_) => {
                        return Err(ReplayError::TrailingBytes {
                            offset: self.offset,
                        });
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e.into()),
                }
            }
            self.finished = true;
            return Ok(None);
        }
        let at = self.offset;
        let kind = self.read_frame(false).map_err(|e| match e {
            ReplayError::Truncated { offset, .. } if offset == at => ReplayError::Truncated {
                offset,
                what: "the frames (no end frame)",
            },
            e => e,
        })?;
        let bad = |why: &str| ReplayError::Decode {
            offset: at,
            why: why.to_string(),
        };
        match kind {
            KIND_TICK => {
                let tick = self
                    .header
                    .start_tick
                    .checked_add(self.ticks)
                    .filter(|&t| t < u64::MAX - 1)
                    .ok_or(ReplayError::Inconsistent("tick counter overflows"))?;
                let step = decode_tick(&self.buf, tick, self.version).map_err(bad)?;
                self.ticks += 1;
                self.last_tick = Some((tick + 1, false));
                self.last_hash = step.hash;
                Ok(Some(Frame::Tick(step)))
            }
            KIND_CHECKPOINT => {
                let tick = match self.last_tick {
                    Some((t, false)) => t,
                    _ => return Err(ReplayError::UnexpectedFrame { offset: at, kind }),
                };
                let cp =
                    decode_checkpoint(&self.buf, tick, self.version, &self.orders).map_err(bad)?;
                if let Some(o) = &cp.orders {
                    self.orders.clone_from(o);
                }
                self.last_tick = Some((tick, true));
                Ok(Some(Frame::Checkpoint(cp)))
            }
            _ => {
                let mut c = Cursor::new(&self.buf);
                let ticks = c.u64().map_err(bad)?;
                let final_hash = c.u64().map_err(bad)?;
                if ticks != self.ticks {
                    return Err(ReplayError::Inconsistent(
                        "the end frame's tick count differs from the tick frames'",
                    ));
                }
                if final_hash != self.last_hash {
                    return Err(ReplayError::Inconsistent(
                        "final hash differs from the last tick's hash",
                    ));
                }
                self.ended = true;
                Ok(Some(Frame::End { ticks, final_hash }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_overlong() {
        let values = [0i64, 1, -1, 63, -64, 64, i64::MAX, i64::MIN, 1 << 40];
        for v in values {
            let mut out = Vec::new();
            put_ivar(&mut out, v);
            let mut c = Cursor::new(&out);
            assert_eq!(c.ivar(), Ok(v));
            assert!(c.done());
        }
        let mut out = Vec::new();
        put_uvar(&mut out, u64::MAX);
        assert_eq!(out.len(), 10);
        assert_eq!(Cursor::new(&out).uvar(), Ok(u64::MAX));
        // An 11th continuation byte, and a 10th byte with more than the 64th bit.
        assert!(Cursor::new(&[0x80; 11]).uvar().is_err());
        let mut big = vec![0xff; 9];
        big.push(0x02);
        assert!(Cursor::new(&big).uvar().is_err());
    }
}

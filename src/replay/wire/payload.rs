//! The frames' payloads: the primitive encodings (LEB128 integers, a bounded cursor) and the
//! begin, tick and checkpoint payloads, encoded and decoded (the frame layer around them is
//! in [the parent module](super)).

use super::*;

// ---------------------------------------------------------------------- primitive encodings

/// Appends `v` as LEB128 (7 bits a byte, low first).
pub(super) fn put_uvar(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-mapped then as LEB128.
pub(super) fn put_ivar(out: &mut Vec<u8>, v: i64) {
    put_uvar(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// A cursor over one frame's payload; every read is bounds-checked.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        let end = self.at.checked_add(n).ok_or("length overflows")?;
        let s = self.bytes.get(self.at..end).ok_or("payload too short")?;
        self.at = end;
        Ok(s)
    }

    pub(super) fn u64(&mut self) -> Result<u64, &'static str> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().unwrap_or_default()))
    }

    pub(super) fn u32(&mut self) -> Result<u32, &'static str> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes(b.try_into().unwrap_or_default()))
    }

    pub(super) fn uvar(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err("varint overflows 64 bits");
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint longer than 10 bytes")
    }

    pub(super) fn ivar(&mut self) -> Result<i64, &'static str> {
        let u = self.uvar()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    pub(super) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at..]
    }

    pub(super) fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

type CommandConfig = bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Fixint,
    bincode::config::Limit<{ MAX_FRAME_BYTES as usize }>,
>;

/// Commands are encoded as in snapshots: bincode 2.0.1 through serde, little-endian
/// fixed-width integers (a `SetPrefVelocity` is 24 bytes: tag `u32`, id `u32`, two `i64`).
pub(super) fn command_config() -> CommandConfig {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<{ MAX_FRAME_BYTES as usize }>()
}

// ---------------------------------------------------------------------- payload encodings

/// Fields of the begin frame.
pub(crate) struct Begin<'a> {
    pub checkpoint_interval: u32,
    pub start_tick: u64,
    pub initial_hash: u64,
    pub snapshot: &'a [u8],
}

pub(super) fn encode_begin(b: &Begin<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(&b.checkpoint_interval.to_le_bytes());
    out.extend_from_slice(&b.start_tick.to_le_bytes());
    out.extend_from_slice(&b.initial_hash.to_le_bytes());
    out.extend_from_slice(b.snapshot);
}

pub(super) fn encode_tick(hash: u64, rejected: u32, commands: &[Command], out: &mut Vec<u8>) {
    out.extend_from_slice(&hash.to_le_bytes());
    put_uvar(out, u64::from(rejected));
    put_uvar(out, commands.len() as u64);
    for c in commands {
        // Encoding plain enums of integers into a Vec cannot fail.
        let _ = bincode::serde::encode_into_std_write(c, out, command_config());
    }
}

/// Appends a checkpoint's payload; `Err` if its agents or orders are not in strictly
/// ascending id order.
pub(super) fn encode_checkpoint(
    agents: &[AgentMark],
    orders: Option<&[OrderMark]>,
    previous: &[OrderMark],
    out: &mut Vec<u8>,
) -> Result<(), ReplayError> {
    put_uvar(out, agents.len() as u64);
    let mut next = 0u64; // the smallest id the next agent may have
    for a in agents {
        let id = u64::from(a.id.0);
        let gap = id.checked_sub(next).ok_or(ReplayError::Inconsistent(
            "checkpoint agents not in strictly ascending id order",
        ))?;
        put_uvar(out, gap);
        put_ivar(out, a.position.x.to_bits());
        put_ivar(out, a.position.y.to_bits());
        out.extend_from_slice(&a.hash.to_le_bytes());
        next = id + 1;
    }
    // Orders not recorded (a checkpoint read from a version 2 or 3 replay): nothing, so the
    // payload is the version 3 one.
    let Some(orders) = orders else {
        return Ok(());
    };
    put_uvar(out, orders.len() as u64);
    let mut next = 0u64;
    let mut prev = previous.iter().peekable();
    for o in orders {
        let id = u64::from(o.id.0);
        let gap = id.checked_sub(next).ok_or(ReplayError::Inconsistent(
            "checkpoint orders not in strictly ascending id order",
        ))?;
        put_uvar(out, gap);
        put_uvar(out, u64::from(o.progress));
        next = id + 1;
        while prev.next_if(|p| p.id < o.id).is_some() {}
        if prev
            .peek()
            .is_some_and(|p| p.id == o.id && p.path == o.path)
        {
            put_uvar(out, 0); // the path of the previous checkpoint
            continue;
        }
        put_uvar(out, o.path.len() as u64 + 1);
        let mut at = Vec2::ZERO;
        for p in &o.path {
            put_ivar(out, p.x.to_bits().wrapping_sub(at.x.to_bits()));
            put_ivar(out, p.y.to_bits().wrapping_sub(at.y.to_bits()));
            at = *p;
        }
    }
    Ok(())
}

/// Decodes a tick frame of a replay of format `version` (whose commands may use only the tags
/// that version defines).
pub(super) fn decode_tick(payload: &[u8], tick: u64, version: u32) -> Result<Step, &'static str> {
    let mut c = Cursor::new(payload);
    let hash = c.u64()?;
    let rejected = u32::try_from(c.uvar()?).map_err(|_| "rejected count over u32")?;
    let n = c.uvar()?;
    if n > c.rest().len() as u64 {
        return Err("command count exceeds the frame");
    }
    let mut commands = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (cmd, read) =
            bincode::serde::decode_from_slice::<Command, _>(c.rest(), command_config())
                .map_err(|_| "undecodable command")?;
        if version < 3 && cmd.tag() > LAST_TAG_V2 {
            return Err("a command of replay format version 3 in a version 2 replay");
        }
        if version < 4 && cmd.tag() > LAST_TAG_V3 {
            return Err("a command of replay format version 4 in an older replay");
        }
        if version < 5 && cmd.tag() > LAST_TAG_V4 {
            return Err("a command of replay format version 5 in an older replay");
        }
        if version < 6 && cmd.tag() > LAST_TAG_V5 {
            return Err("a command of replay format version 6 in an older replay");
        }
        if version < 7 && cmd.tag() > LAST_TAG_V6 {
            return Err("a command of replay format version 7 in an older replay");
        }
        c.take(read)?;
        commands.push(cmd);
    }
    if !c.done() {
        return Err("bytes after the last command");
    }
    Ok(Step {
        tick,
        commands,
        hash,
        rejected,
    })
}

/// Decodes a checkpoint frame; `previous` holds the orders of the last checkpoint that
/// recorded them (paths marked unchanged are copied from it).
pub(super) fn decode_checkpoint(
    payload: &[u8],
    tick: u64,
    version: u32,
    previous: &[OrderMark],
) -> Result<Checkpoint, &'static str> {
    let mut c = Cursor::new(payload);
    let n = c.uvar()?;
    // Each agent takes at least 7 bytes (gap, x, y: one byte each at least; hash: 4).
    if n > (c.rest().len() / 7) as u64 {
        return Err("agent count exceeds the frame");
    }
    let mut agents = Vec::with_capacity(n as usize);
    let mut next = 0u64;
    for _ in 0..n {
        let id = next
            .checked_add(c.uvar()?)
            .filter(|&id| id <= u64::from(u32::MAX))
            .ok_or("agent id over u32")?;
        let x = Fx::from_bits(c.ivar()?);
        let y = Fx::from_bits(c.ivar()?);
        let hash = c.u32()?;
        agents.push(AgentMark {
            id: AgentId(id as u32),
            position: Vec2::new(x, y),
            hash,
        });
        next = id + 1;
    }
    // Version 4 on, an orders section may follow; a payload that ends after the agents has
    // none recorded.
    let mut orders = None;
    if version >= ORDERS_IN_CHECKPOINTS && !c.done() {
        let list = orders.get_or_insert_with(Vec::new);
        let n = c.uvar()?;
        // Each order takes at least 3 bytes (gap, progress, point count).
        if n > (c.rest().len() / 3) as u64 {
            return Err("order count exceeds the frame");
        }
        list.reserve(n as usize);
        let mut next = 0u64;
        let mut prev = previous.iter().peekable();
        for _ in 0..n {
            let id = next
                .checked_add(c.uvar()?)
                .filter(|&id| id <= u64::from(u32::MAX))
                .ok_or("order's agent id over u32")?;
            let progress = u32::try_from(c.uvar()?).map_err(|_| "order progress over u32")?;
            next = id + 1;
            let id = AgentId(id as u32);
            let len = match c.uvar()? {
                0 => {
                    while prev.next_if(|p| p.id < id).is_some() {}
                    let same = prev
                        .next_if(|p| p.id == id)
                        .ok_or("an unchanged path with no previous one")?;
                    list.push(OrderMark {
                        id,
                        progress,
                        path: same.path.clone(),
                    });
                    continue;
                }
                n => n - 1,
            };
            // Each point takes at least 2 bytes.
            if len > (c.rest().len() / 2) as u64 {
                return Err("path length exceeds the frame");
            }
            let mut path = Vec::with_capacity(len as usize);
            let mut at = (0i64, 0i64);
            for _ in 0..len {
                at.0 = at.0.wrapping_add(c.ivar()?);
                at.1 = at.1.wrapping_add(c.ivar()?);
                path.push(Vec2::new(Fx::from_bits(at.0), Fx::from_bits(at.1)));
            }
            list.push(OrderMark { id, progress, path });
        }
    }
    if !c.done() {
        return Err("bytes after the last agent");
    }
    Ok(Checkpoint {
        tick,
        agents,
        orders,
    })
}

//! The snapshot envelope: magic, version, payload length, the bincode payload and its
//! checksum ([`seal`], [`open`]), and why bytes are refused ([`SnapshotError`]). The module
//! docs of `snapshot.rs` give the layout.

use super::{HEADER_BYTES, MAX_PAYLOAD_BYTES, TRAILER_BYTES};
use crate::error::SimError;
use serde::{Serialize, de::DeserializeOwned};
use std::fmt;

/// Why bytes could not be decoded as a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// Fewer bytes than the fixed header and trailer need.
    Truncated {
        /// Bytes given.
        len: u64,
    },
    /// The magic does not match (not this kind of file).
    BadMagic {
        /// The magic expected.
        expected: [u8; 8],
    },
    /// The format version is not one this build reads.
    UnsupportedVersion {
        /// Version found.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The declared payload length exceeds [`MAX_PAYLOAD_BYTES`].
    TooLarge {
        /// Declared length.
        declared: u64,
        /// The limit.
        max: u64,
    },
    /// The declared payload length does not match the bytes given (truncated or padded file).
    LengthMismatch {
        /// Payload length declared in the header.
        declared: u64,
        /// Payload bytes actually present.
        actual: u64,
    },
    /// The checksum does not match: the bytes were corrupted.
    ChecksumMismatch {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the bytes.
        computed: u64,
    },
    /// The payload is not a valid encoding (bincode's message).
    Decode(String),
    /// The payload decoded but did not use all its bytes.
    TrailingBytes {
        /// Unused bytes.
        extra: u64,
    },
    /// A value is refused by the validation the API applies to the same input (outside the
    /// domain, an invalid obstacle shape); the inner error says which.
    Invalid(SimError),
    /// A structural invariant does not hold (the reason says which).
    Inconsistent(&'static str),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated { len } => write!(f, "truncated: only {len} bytes"),
            Self::BadMagic { expected } => write!(
                f,
                "bad magic (expected {:?})",
                String::from_utf8_lossy(expected)
            ),
            Self::UnsupportedVersion { found, supported } => {
                write!(
                    f,
                    "format version {found} not supported (this build reads {supported})"
                )
            }
            Self::TooLarge { declared, max } => {
                write!(
                    f,
                    "declared payload of {declared} bytes exceeds the limit of {max}"
                )
            }
            Self::LengthMismatch { declared, actual } => write!(
                f,
                "payload length mismatch: header says {declared} bytes, file has {actual}"
            ),
            Self::ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch: stored {stored:016x}, computed {computed:016x}"
            ),
            Self::Decode(msg) => write!(f, "undecodable payload: {msg}"),
            Self::TrailingBytes { extra } => write!(f, "{extra} trailing bytes after the payload"),
            Self::Invalid(e) => write!(f, "invalid value: {e}"),
            Self::Inconsistent(why) => write!(f, "inconsistent state: {why}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

type Config = bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Fixint,
    bincode::config::Limit<{ MAX_PAYLOAD_BYTES as usize }>,
>;

fn config() -> Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<{ MAX_PAYLOAD_BYTES as usize }>()
}

/// Encodes `value` with the format's bincode configuration inside the envelope.
///
/// A payload over [`MAX_PAYLOAD_BYTES`] is still written (and then refused by [`open`]).
pub(crate) fn seal<T: Serialize>(
    magic: [u8; 8],
    version: u32,
    value: &T,
    size_hint: usize,
) -> Vec<u8> {
    let unlimited = bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding();
    let mut out = Vec::with_capacity(HEADER_BYTES + size_hint + TRAILER_BYTES);
    out.extend_from_slice(&magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    // Serializing plain structs of integers into a Vec cannot fail.
    let _ = bincode::serde::encode_into_std_write(value, &mut out, unlimited);
    let len = (out.len() - HEADER_BYTES) as u64;
    out[12..20].copy_from_slice(&len.to_le_bytes());
    let sum = crate::hash::hash_bytes(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Checks the envelope and decodes its payload (no domain validation: the caller does that).
///
/// # Errors
/// Every [`SnapshotError`] variant but the last two.
pub(crate) fn open<T: DeserializeOwned>(
    bytes: &[u8],
    magic: [u8; 8],
    version: u32,
) -> Result<T, SnapshotError> {
    let len = bytes.len() as u64;
    if bytes.len() < HEADER_BYTES + TRAILER_BYTES {
        return Err(SnapshotError::Truncated { len });
    }
    if bytes[..8] != magic {
        return Err(SnapshotError::BadMagic { expected: magic });
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if found != version {
        return Err(SnapshotError::UnsupportedVersion {
            found,
            supported: version,
        });
    }
    let declared = u64::from_le_bytes(bytes[12..20].try_into().unwrap_or_default());
    if declared > MAX_PAYLOAD_BYTES {
        return Err(SnapshotError::TooLarge {
            declared,
            max: MAX_PAYLOAD_BYTES,
        });
    }
    let actual = len - (HEADER_BYTES + TRAILER_BYTES) as u64;
    if declared != actual {
        return Err(SnapshotError::LengthMismatch { declared, actual });
    }
    let body_end = bytes.len() - TRAILER_BYTES;
    let stored = u64::from_le_bytes(bytes[body_end..].try_into().unwrap_or_default());
    let computed = crate::hash::hash_bytes(&bytes[..body_end]);
    if stored != computed {
        return Err(SnapshotError::ChecksumMismatch { stored, computed });
    }
    let payload = &bytes[HEADER_BYTES..body_end];
    let (value, read) = bincode::serde::decode_from_slice::<T, _>(payload, config())
        .map_err(|e| SnapshotError::Decode(e.to_string()))?;
    if read != payload.len() {
        return Err(SnapshotError::TrailingBytes {
            extra: (payload.len() - read) as u64,
        });
    }
    Ok(value)
}

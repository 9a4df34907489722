//! Small helpers used across the crate, its tests, benches and scenario files.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a fixed, documented integer mix. The crate's
/// only source of pseudo-randomness: scenario perturbations, random scenes and the overlap
/// tie-break direction all derive from it, so they are the same on every machine.
#[must_use]
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Where canonical bytes go: a byte vector, or the state hasher (which streams them).
pub(crate) trait ByteSink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

impl ByteSink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A multiply-and-rotate hash of integer words (the `FxHash` family), seeded once per process
/// from std's random keys: a few instructions per word where std's SipHash costs about ten
/// times more (0.4 M per tick for 1,000 navigating agents), and not predictable by a peer.
/// Only speed may depend on it: its users (the shared goals' counts, the triangles a local
/// mesh search has seen) are looked up, never iterated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeededWords(u64);

impl Default for SeededWords {
    fn default() -> Self {
        static SEED: OnceLock<u64> = OnceLock::new();
        Self(*SEED.get_or_init(|| RandomState::new().hash_one(0u64)))
    }
}

impl BuildHasher for SeededWords {
    type Hasher = WordHasher;

    fn build_hasher(&self) -> WordHasher {
        WordHasher(self.0)
    }
}

/// The hasher of [`SeededWords`].
#[derive(Debug)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0xf135_7aea_2e62_a9c5);
    }
}

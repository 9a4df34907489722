//! Small helpers used across the crate, its tests, benches and scenario files.

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

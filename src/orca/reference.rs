//! Brute-force reference solver (seed 002's candidate enumeration), used by tests to check LP2.

//! Proxy-key selection: one agent's list chosen from its candidates ([`Cands::choose`]).
//!
//! The keys below the limit are appended to a buffer unsorted; a full buffer is cut to the
//! `max` smallest keys (which tightens the limit), and the keys found are sorted once at the
//! end: fewer moves and fewer mispredicted branches than an insertion per key. [`Pick`]'s
//! buffer holds 64-bit proxies of the keys (the distance²'s high bits and the slot), which
//! sort in key order but for near ties, sorted again by their exact keys ([`sort_runs`]); when
//! ties defeat a cut, the exact 128-bit keys are selected instead ([`Select`]).

use super::prefilter::{Cands, GatherBox};
use super::{limit_key, pack_key, packed_dist, sq_diff};
use crate::math::Vec2;

/// What a selection's candidate loop ([`Cands::select`]) hands each candidate it does not
/// rule out to: [`Pick`] (proxy keys, the usual one) or [`Select`] (exact keys, its fallback).
pub(super) trait Offer: Copy {
    /// The buffer's entries.
    type Key: Copy;
    /// The list's cap.
    fn max(&self) -> usize;
    /// The largest distance² (raw Q64.64) the selection can still accept: the prefilter's
    /// bound is computed from it.
    fn limit_d(&self) -> u128;
    /// Offers the candidate of slot `slot` at the exact distance² `d`, appending it to `buf`
    /// if it is below the limit.
    fn offer(&mut self, buf: &mut [Self::Key], d: u128, slot: u32);
}

/// One agent's selection: the keys accepted so far, packed ([`pack_key`]) in a buffer
/// (`buf`, kept apart), and the limit (as [`Search`](super::Search)'s: keys `(d, s)` are
/// accepted iff `d ≤ limit_d` and `pack_key(d, s) < limit_packed`). Keys are appended
/// unsorted; when the buffer is full it is cut to its `max` smallest keys, the largest of
/// which becomes the limit (the keys cut could never be in the list); at the end the keys are
/// sorted and cut to `max`. The result is the list of the per-agent search: the `max`
/// smallest keys below the first limit, sorted.
///
/// The buffer is longer than `max`, or than the number of candidates (it never fills).
/// [`Pick`]'s fallback: it never fails.
#[derive(Clone, Copy, Debug)]
pub(super) struct Select {
    len: usize,
    max: usize,
    limit_d: u128,
    limit_packed: u128,
}

impl Select {
    /// An empty list of at most `max` entries, accepting keys below `(limit_d, 0)`, or with
    /// `hinted` every key with distance² `≤ limit_d` (as the per-slot query's hint: the slot
    /// `u32::MAX` is never a candidate).
    #[inline(always)]
    fn new(max: usize, limit_d: u128, hinted: bool) -> Self {
        Self {
            len: 0,
            max,
            limit_d,
            limit_packed: limit_key(limit_d, hinted),
        }
    }

    /// Sorts the keys found and cuts them to `max`: the list, nearest first.
    #[inline(always)]
    fn finish(&mut self, buf: &mut [u128]) {
        if self.len > 2 * self.max + 8 {
            // Many more than the list: cut first.
            cut(&mut buf[..self.len], self.max);
            self.len = self.max;
        }
        sort(&mut buf[..self.len]);
        self.len = self.len.min(self.max);
    }
}

impl Offer for Select {
    type Key = u128;

    #[inline(always)]
    fn max(&self) -> usize {
        self.max
    }

    #[inline(always)]
    fn limit_d(&self) -> u128 {
        self.limit_d
    }

    /// Appends the key `(d, slot)` if it is below the limit.
    #[inline(always)]
    fn offer(&mut self, buf: &mut [u128], d: u128, slot: u32) {
        // d ≤ limit_d < 2⁹⁶, so the packing is exact.
        if d <= self.limit_d {
            let key = pack_key(d, slot);
            if key < self.limit_packed {
                buf[self.len] = key;
                self.len += 1;
                if self.len == buf.len() {
                    // Full: cut to the `max` smallest keys (`max < buf.len()`).
                    self.limit_packed = cut(buf, self.max);
                    self.limit_d = packed_dist(self.limit_packed);
                    self.len = self.max;
                }
            }
        }
    }
}

/// Moves the `max` smallest keys of `buf` to its front (in any order) and returns the
/// largest of them (`0 < max < buf.len()`).
#[cold]
#[inline(never)]
fn cut(buf: &mut [u128], max: usize) -> u128 {
    *buf.select_nth_unstable(max - 1).1
}

/// Insertion sort (a handful of keys).
#[inline(always)]
fn sort<T: Copy + Ord>(keys: &mut [T]) {
    for i in 1..keys.len() {
        let key = keys[i];
        let mut j = i;
        while j > 0 {
            let prev = keys[j - 1];
            if prev < key {
                break;
            }
            keys[j] = prev;
            j -= 1;
        }
        keys[j] = key;
    }
}

/// Sorts a few proxy keys: [`sort`]'s insertion without its inner loop's exit branch (one
/// mispredicted exit per key there, the hottest spot of the neighbour stage in `perf`), up to
/// [`BRANCHLESS_SORT_MAX`] keys; [`sort`] beyond (the branch-free insertion costs `n²/2`
/// steps).
///
/// Inserting `x` into the sorted `a[..i]` gives `b[0] = min(a[0], x)`, `b[k] = max(min(a[k],
/// x), a[k − 1])` for `0 < k ≤ i` (with `a[i] = x`): below `x`'s place `min(a[k], x) = a[k]
/// ≥ a[k − 1]`; at it `min(a[k], x) = x > a[k − 1]`; above it `a[k − 1] ≥ x`. Written from
/// `k = i` down, each step reads `a[k − 1]` before it is overwritten.
#[inline(always)]
fn sort_proxies(keys: &mut [u64]) {
    if keys.len() > BRANCHLESS_SORT_MAX {
        sort(keys);
        return;
    }
    for i in 1..keys.len() {
        let x = keys[i];
        for k in (1..=i).rev() {
            keys[k] = keys[k].min(x).max(keys[k - 1]);
        }
        keys[0] = keys[0].min(x);
    }
}

/// The most keys [`sort_proxies`] sorts without branches.
const BRANCHLESS_SORT_MAX: usize = 16;

/// One agent's selection by proxy keys, [`Select`]'s with 64-bit keys: the candidate of slot
/// `slot` at distance² `d` (raw Q64.64, below 2⁹⁶) has the proxy `⌊d / 2³²⌋` with its low
/// bits (`mask = 2^b − 1`, at least every slot) replaced by `slot`. Its high part `h(d) =
/// ⌊d / 2^(32 + b)⌋` never decreases with `d`, so proxies with different high parts are in
/// key order, and so are proxies with the same distance² (by slot); only proxies with the same
/// high part and different distances² (within `2^(32 + b)` of each other, about `2⁻¹⁸` units²
/// for 10,000 agents) may not be, and those runs are sorted by their exact keys at the end.
/// Moving and comparing one word instead of two makes the sort about half as dear.
///
/// The limit is one exclusive bound on the distance², `below` (a hint `≤ hint`, a range
/// `< range²`). A full buffer is cut to the proxies whose high part is at most that of the
/// `max`-th smallest `P` (there are at least `max` of them, so a key of a larger high part
/// is never in the list) and `below` becomes at most `(⌊P / 2^b⌋ + 1)·2^(32 + b)`; if that
/// keeps the whole buffer (more than `max + 16` equal high parts), the selection fails and
/// [`Select`] runs instead.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pick {
    len: usize,
    max: usize,
    /// Candidates with distance² below this are accepted.
    below: u128,
    /// The proxies' slot bits.
    mask: u64,
    /// A cut could not shrink the buffer: the list is [`Select`]'s.
    failed: bool,
}

impl Pick {
    /// An empty list of at most `max` entries accepting distances² `< limit_d`, or with
    /// `hinted` `≤ limit_d` (as [`Select::new`]; `limit_d < 2⁹⁶`), for slots at most `mask`
    /// (`2^b − 1`, `b ≤ 32`).
    #[inline(always)]
    fn new(max: usize, limit_d: u128, hinted: bool, mask: u64) -> Self {
        Self {
            len: 0,
            max,
            below: limit_d + u128::from(hinted),
            mask,
            failed: false,
        }
    }

    /// Sorts the proxies found and their runs of equal high parts (by their exact keys, the
    /// points being `positions` and the agent at `center`; `exact` is scratch as long as
    /// the buffer): returns the list's length (its first entries), or `None` when the
    /// selection failed.
    #[inline(always)]
    fn finish(
        &mut self,
        buf: &mut [u64],
        positions: &[Vec2],
        center: (i64, i64),
        exact: &mut [u128],
    ) -> Option<usize> {
        if self.len > 2 * self.max + 8 && !self.failed {
            // Many more than the list: cut first (it may fail).
            let len = self.len;
            (self.len, self.below, self.failed) =
                cut_proxies(&mut buf[..len], self.max, self.mask, self.below);
        }
        if self.failed {
            return None;
        }
        let keys = &mut buf[..self.len];
        sort_proxies(keys);
        // Runs of equal high parts that start in the list (rare: a scalar scan, stopping at
        // the first).
        let mask = self.mask;
        let scan = &keys[..keys.len().min(self.max + 1)];
        if scan.windows(2).any(|w| w[0] ^ w[1] <= mask) {
            sort_runs(keys, self.max, mask, positions, center, exact);
        }
        Some(self.len.min(self.max))
    }
}

/// The proxy of the key `(d, slot)` (see [`Pick`]): `⌊d / 2³²⌋` with its low bits (`mask`)
/// replaced by `slot`. `d < 2⁹⁶`, so `⌊d / 2³²⌋` fits in 64 bits.
#[inline(always)]
fn proxy_key(d: u128, slot: u32, mask: u64) -> u64 {
    ((d >> 32) as u64 & !mask) | u64::from(slot)
}

impl Offer for Pick {
    type Key = u64;

    #[inline(always)]
    fn max(&self) -> usize {
        self.max
    }

    #[inline(always)]
    fn limit_d(&self) -> u128 {
        self.below.saturating_sub(1)
    }

    #[inline(always)]
    fn offer(&mut self, buf: &mut [u64], d: u128, slot: u32) {
        if d < self.below {
            buf[self.len] = proxy_key(d, slot, self.mask);
            self.len += 1;
            if self.len == buf.len() {
                (self.len, self.below, self.failed) =
                    cut_proxies(buf, self.max, self.mask, self.below);
            }
        }
    }
}

/// Cuts the full proxy buffer `buf` of a [`Pick`] with the bound `below` (see [`Pick`]):
/// returns the new length, bound, and whether it failed (the length then 0, the bound 0: no
/// more keys accepted).
#[cold]
#[inline(never)]
fn cut_proxies(buf: &mut [u64], max: usize, mask: u64, below: u128) -> (usize, u128, bool) {
    let top = *buf.select_nth_unstable(max - 1).1 | mask;
    // Keep the proxies past the `max` smallest with the same high part (`p ≤ top`).
    let mut kept = max;
    for i in max..buf.len() {
        if buf[i] <= top {
            buf.swap(kept, i);
            kept += 1;
        }
    }
    if kept == buf.len() {
        (0, 0, true)
    } else {
        // h(d) ≤ h(top) ⟺ ⌊d / 2³²⌋ ≤ top ⟺ d < (top + 1)·2³² (≤ 2⁹⁶).
        (kept, below.min((u128::from(top) + 1) << 32), false)
    }
}

/// Sorts the runs of proxies of the sorted `keys` (see [`Pick`]) with equal high parts that
/// start in the first `max` by their exact keys `(distance², slot)`, the points being
/// `positions` and the agent at `center` (`exact`: scratch as long as `keys`).
#[cold]
#[inline(never)]
fn sort_runs(
    keys: &mut [u64],
    max: usize,
    mask: u64,
    positions: &[Vec2],
    center: (i64, i64),
    exact: &mut [u128],
) {
    let mut start = 0;
    while start < max && start + 1 < keys.len() {
        if keys[start] ^ keys[start + 1] > mask {
            start += 1;
            continue;
        }
        let high = keys[start] | mask;
        let end = start + keys[start..].iter().take_while(|&&p| p <= high).count();
        let run = &mut keys[start..end];
        let exact = &mut exact[..run.len()];
        for (e, &p) in exact.iter_mut().zip(run.iter()) {
            let slot = (p & mask) as usize;
            let at = positions[slot];
            let d = sq_diff(at.x.to_bits(), center.0) + sq_diff(at.y.to_bits(), center.1);
            *e = pack_key(d, slot as u32);
        }
        // Insertion sort by the exact keys, the proxies moving along.
        for i in 1..run.len() {
            let (key, p) = (exact[i], run[i]);
            let mut j = i;
            while j > 0 && exact[j - 1] > key {
                exact[j] = exact[j - 1];
                run[j] = run[j - 1];
                j -= 1;
            }
            exact[j] = key;
            run[j] = p;
        }
        start = end;
    }
}

/// Where [`Cands::choose`] left a list: its length in proxy keys, or in exact keys.
#[derive(Clone, Copy, Debug)]
pub(super) enum Chosen {
    Picked(usize),
    Exact(usize),
}

impl Chosen {
    /// The list's length.
    #[inline(always)]
    pub(super) fn len(self) -> usize {
        match self {
            Chosen::Picked(len) | Chosen::Exact(len) => len,
        }
    }
}

impl Cands {
    /// The list of agent `own` (at `center`) of at most `max` entries with the first limit
    /// `limit` (`hinted` as in [`Select::new`]) from the first `n` candidates: by proxy keys
    /// ([`Pick`], slots at most `mask`, the points `positions`) in `bufs.0`, or when that
    /// fails by exact keys ([`Select`]) in `bufs.1`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn choose(
        &mut self,
        n: usize,
        quant: &GatherBox,
        (own, center): (usize, (i64, i64)),
        (proxies, exact): (&mut [u64], &mut [u128]),
        (positions, mask): (&[Vec2], u64),
        max: usize,
        limit: u128,
        hinted: bool,
    ) -> Chosen {
        let pick = Pick::new(max, limit, hinted, mask);
        let mut pick = self.select(n, quant, own, center, proxies, pick);
        if let Some(found) = pick.finish(proxies, positions, center, exact) {
            return Chosen::Picked(found);
        }
        Chosen::Exact(self.select_exact(
            n,
            quant,
            own,
            center,
            exact,
            Select::new(max, limit, hinted),
        ))
    }

    /// [`choose`](Self::choose)'s fallback (rare, kept out of line): the selection `sel` by
    /// exact keys in `exact`, finished; returns the list's length.
    #[cold]
    #[inline(never)]
    fn select_exact(
        &mut self,
        n: usize,
        quant: &GatherBox,
        own: usize,
        center: (i64, i64),
        exact: &mut [u128],
        sel: Select,
    ) -> usize {
        let mut sel = self.select(n, quant, own, center, exact, sel);
        sel.finish(exact);
        sel.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sort_proxies` sorts like the standard sort on both sides of its branch-free limit, with
    /// and without equal keys, in every order of a few keys.
    #[test]
    fn sort_proxies_sorts() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..=2 * BRANCHLESS_SORT_MAX + 3 {
            for round in 0..400 {
                let mut keys: Vec<u64> = (0..len)
                    .map(|_| {
                        state = crate::util::splitmix64(state);
                        // Some rounds draw from a few values (equal keys), some from all of u64.
                        if round % 2 == 0 { state % 5 } else { state }
                    })
                    .collect();
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_proxies(&mut keys);
                assert_eq!(keys, expected, "len {len}");
            }
        }
        // Descending and ascending runs, and the extremes.
        for len in 0..=BRANCHLESS_SORT_MAX + 1 {
            let mut down: Vec<u64> = (0..len as u64).rev().map(|k| u64::MAX - k).collect();
            sort_proxies(&mut down);
            assert!(down.windows(2).all(|w| w[0] <= w[1]));
            let mut up: Vec<u64> = (0..len as u64).collect();
            sort_proxies(&mut up);
            assert_eq!(up, (0..len as u64).collect::<Vec<_>>());
        }
    }
}

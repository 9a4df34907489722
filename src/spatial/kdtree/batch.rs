//! Leaf-batched queries ([`AgentTree::query_all`]): every slot's list, leaf by leaf.
//!
//! The agents of one leaf share almost all of their search. For each leaf the tree is walked
//! once with the leaf's box and the largest first limit of its agents (`G`), and every point
//! within `√G` of the box along each axis (the gather box: a square band, a superset of the
//! points within `√G` of the box) is gathered into a small buffer. Each agent of the leaf
//! then selects its list from the candidates with the per-agent search's keys and limits
//! (the key order `(distance², slot)`, the strict `< range²`, the hint semantics). A point
//! within an agent's limit is within `√G` of the box (the agent is in it), so the candidates
//! hold every key the agent's own search could accept: the lists are those of
//! [`AgentTree::query_slots_hinted`] by construction. When an agent's hinted list is short
//! and the candidates do not cover its full range, it searches again with the full range, as
//! the per-slot query does.
//!
//! The selection (all exact; speed only):
//! * A prefilter ([`prefilter`], [`GatherBox::bound`]): the gather box's coordinates are
//!   quantized to 14 bits, and for agents with many candidates (at least `2·max + 16`) each
//!   candidate's quantized squared distance (the high halves of two 16-bit squares, eight
//!   candidates a vector operation) is compared with a bound proven to lie above every
//!   distance² the exact limit accepts. Only the candidates that pass get exact `i128`
//!   keys; the others could not be accepted. Agents with few candidates test every exact
//!   key.
//! * The keys below the limit are appended to a buffer unsorted ([`Pick`]); a full buffer
//!   is cut to the `max` smallest keys (which tightens the limit), and the keys found are
//!   sorted once at the end: fewer moves and fewer mispredicted branches than an insertion
//!   per key. The buffer holds 64-bit proxies of the keys (the distance²'s high bits and the
//!   slot), which sort in key order but for near ties, sorted again by their exact keys; when
//!   ties defeat a cut, the exact 128-bit keys are selected instead ([`Select`]).
//!
//! The candidate buffer holds at most [`cand_cap`] points (a few kilobytes, reserved once): a
//! leaf whose gather would overflow it (a first tick without hints in a dense crowd, say)
//! runs the per-slot query for each of its agents instead. Either way the lists are the same.
//!
//! The lists are handed to the caller's [`Lists`] as they are found (in tree order), so they
//! are stored once, where the caller keeps them. [`AgentTree::query_range`] finds the lists of
//! a range of slots (the parallel step's groups of chunks): the leaves holding several of its
//! slots batched, the others slot by slot.

use super::{AgentTree, MAX_LEAF_SIZE, NeighborKey, PACKED_BOUND, Search, sq_diff};
use crate::math::{Fx, Vec2, root_bound, wide_mul};

/// Quantized candidate offsets are below `2^QBITS` (see [`GatherBox`]): differences of two are
/// below `2¹⁴` in magnitude and sums of two squares below `2²⁹`, exact in `i32`.
const QBITS: u32 = 14;

/// The prefilter's flags are read a word (this many one-byte flags) at a time.
const WORD: usize = 8;

/// A gathered candidate: raw coordinates and slot.
#[derive(Clone, Copy, Debug, Default)]
struct Cand {
    x: i64,
    y: i64,
    slot: u32,
}

impl Cand {
    /// Its exact squared distance (raw Q64.64) from the raw point `(cx, cy)`.
    #[inline(always)]
    fn dist_sq(&self, (cx, cy): (i64, i64)) -> u128 {
        sq_diff(self.x, cx) + sq_diff(self.y, cy)
    }
}

/// The batched queries' scratch (kept between calls): one leaf's candidates, the per-slot
/// query's keys (the fallback), and one agent's list (packed keys, nearest first).
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    cands: Cands,
    keys: Vec<NeighborKey>,
    list: Vec<u128>,
    /// One agent's list in proxy keys ([`Pick`]), nearest first.
    proxies: Vec<u64>,
}

/// A leaf's candidates: each one's coordinates and slot, and its quantized coordinates (see
/// [`GatherBox`]) apart, so that one agent's prefilter flags (one byte per candidate) are
/// computed several at a time. Every array has `room` entries (a multiple of [`WORD`], at
/// least the candidate cap): the gather writes every point it scans and keeps it by
/// counting it, and the prefilter runs over whole words.
#[derive(Clone, Debug, Default)]
struct Cands {
    cands: Vec<Cand>,
    qx: Vec<i16>,
    qy: Vec<i16>,
    flags: Vec<u8>,
}

impl Scratch {
    /// Makes room for `cap` candidates and lists of `longest` entries (never shrinks).
    fn reserve(&mut self, cap: usize, longest: usize) {
        let room = cap.next_multiple_of(WORD);
        let c = &mut self.cands;
        if c.cands.len() < room {
            c.cands.resize(room, Cand::default());
            c.qx.resize(room, 0);
            c.qy.resize(room, 0);
            c.flags.resize(room, 0);
        }
        if self.keys.capacity() < longest {
            self.keys.clear();
            self.keys.reserve(longest);
        }
        // The selection's buffer (see `Select`): longer than every cap up to `longest`, or
        // than every candidate count (at most `longest + 1` with longer caps).
        let buffer = 2 * longest + 16;
        if self.list.len() < buffer {
            self.list.resize(buffer, 0);
            self.proxies.resize(buffer, 0);
        }
    }
}

/// A leaf's gather box and its quantization: the leaf's box widened by `r > √limit_sq`
/// along each axis (a point whose squared distance to the leaf's box is at most `limit_sq`
/// is within `√limit_sq` of it along each axis), clamped to the coordinates (the same
/// points): `[x0, x0 + wx] × [y0, y0 + wy]` (raw, `w < 2⁶⁴`). A coordinate `c` of the box
/// is quantized to `(c − c0) >> shift`, below `2^QBITS`.
#[derive(Clone, Copy, Debug)]
struct GatherBox {
    x0: i64,
    y0: i64,
    wx: u64,
    wy: u64,
    shift: u32,
}

impl GatherBox {
    /// The gather box of the leaf box `[min, max]` for the limit `limit_sq` (raw Q64.64).
    fn new(min: Vec2, max: Vec2, limit_sq: u128) -> Self {
        let r = i128::from(root_bound(limit_sq));
        let clamp = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        let x0 = clamp(i128::from(min.x.to_bits()) - r);
        let y0 = clamp(i128::from(min.y.to_bits()) - r);
        let wx = clamp(i128::from(max.x.to_bits()) + r).abs_diff(x0);
        let wy = clamp(i128::from(max.y.to_bits()) + r).abs_diff(y0);
        let bits = 64 - wx.max(wy).leading_zeros();
        Self {
            x0,
            y0,
            wx,
            wy,
            shift: bits.saturating_sub(QBITS),
        }
    }

    /// The offsets of `(x, y)` from the box's low corner modulo 2⁶⁴: for the points of the
    /// box (and only for them) they are in `[0, wx] × [0, wy]`, the true offsets.
    #[inline(always)]
    fn offsets(&self, x: i64, y: i64) -> (u64, u64) {
        (
            x.wrapping_sub(self.x0) as u64,
            y.wrapping_sub(self.y0) as u64,
        )
    }

    /// Whether the point of offsets `(u, v)` ([`offsets`](Self::offsets)) is in the box.
    #[inline(always)]
    fn holds(&self, (u, v): (u64, u64)) -> bool {
        (u <= self.wx) & (v <= self.wy)
    }

    /// Whether the box meets the box `[min, max]`.
    #[inline(always)]
    fn meets(&self, min: Vec2, max: Vec2) -> bool {
        // Each one's low corner is at most the other's high corner (`x0 + wx` is an i64:
        // the box is clamped to the coordinates).
        max.x.to_bits() >= self.x0
            && max.y.to_bits() >= self.y0
            && min.x.to_bits() <= self.x0.wrapping_add(self.wx as i64)
            && min.y.to_bits() <= self.y0.wrapping_add(self.wy as i64)
    }

    /// The quantized coordinate of the offset `u` (in `[0, w]`).
    #[inline(always)]
    fn quantize(&self, u: u64) -> i16 {
        (u >> self.shift) as i16
    }

    /// The prefilter's bound for the distance² limit `limit_d`: a candidate whose quantized
    /// offset from the agent `(qdx, qdy)` has `⌊qdx² / 2¹⁶⌋ + ⌊qdy² / 2¹⁶⌋ > bound` has
    /// distance² above `limit_d`, so it cannot be accepted.
    ///
    /// With `s = 2^shift`, each raw coordinate is `(q·s + ρ) + c0` with `0 ≤ ρ < s`, so each
    /// true difference is within `s` (exclusive) of `s` times the quantized one and, by the
    /// triangle inequality, `√d > s·(√q − √2)` for `q = qdx² + qdy²`. With `r = √limit_d /
    /// s` (real) and an integer `R ≥ r`, `X = ⌊limit_d / s²⌋ + 3 + 3R` is above `(r + √2)²
    /// = r² + 2√2·r + 2`, so `q > X` gives `√d > s·r = √limit_d`. `R`: with `limit_d <
    /// 2^e`, `√limit_d < 2^⌈e/2⌉`, so `R = ⌈2^⌈e/2⌉ / s⌉` (at most `2r + 1`: the bound is
    /// within `6r + 4` of `r²`, no square root needed). The prefilter sums the squares' high
    /// halves (`q ≥ (hx + hy)·2¹⁶`), so with `t = ⌊X / 2¹⁶⌋`, `hx + hy > t` gives
    /// `q ≥ (t + 1)·2¹⁶ > X`. `i16::MAX` (no rejection: `hx + hy < 2¹³`) when larger. All
    /// in `u128` (`X < 2⁹⁶ + 3·2⁶⁵`).
    #[inline]
    fn bound(&self, limit_d: u128) -> i16 {
        let half = (128 - limit_d.leading_zeros()).div_ceil(2);
        // ⌈2^half / 2^shift⌉ (shift ≤ 50, half ≤ 64).
        let big_r = 1u128 << half.saturating_sub(self.shift);
        let x = (limit_d >> (2 * self.shift)) + 3 + 3 * big_r;
        (x >> 16).min(i16::MAX as u128) as i16
    }
}

/// The prefilter: `flags[i] = 1` when candidate `i`'s quantized offset from `(cx, cy)`
/// has `⌊qdx² / 2¹⁶⌋ + ⌊qdy² / 2¹⁶⌋ ≤ t`, else 0 (it cannot be accepted, see
/// [`GatherBox::bound`]). Quantized coordinates are in `[0, 2^QBITS)`, so the differences are
/// below `2¹⁴` in magnitude, their squares below `2²⁸` and the sum of the high halves below
/// `2¹³`: all exact. Written so that it vectorizes (16-bit lanes, high-half multiplies).
#[inline(always)]
fn prefilter(qx: &[i16], qy: &[i16], cx: i16, cy: i16, t: i16, flags: &mut [u8]) {
    for ((f, &x), &y) in flags.iter_mut().zip(qx).zip(qy) {
        let dx = i32::from(x.wrapping_sub(cx));
        let dy = i32::from(y.wrapping_sub(cy));
        // Wrapping only for the padding past the candidates (any values; flags unused).
        let h = (((dx * dx) >> 16) as i16).wrapping_add(((dy * dy) >> 16) as i16);
        *f = u8::from(h <= t);
    }
}

/// One slot's query for [`AgentTree::query_all`].
#[derive(Clone, Copy, Debug)]
pub struct SlotQuery {
    /// The neighbour distance: neighbours have distance² `< range²`.
    pub range: Fx,
    /// The list's cap.
    pub max_neighbors: usize,
    /// The distance² limit the search starts with (raw Q64.64; 0 for none), as in
    /// [`AgentTree::query_slots_hinted`]: speed only, every hint gives the same list.
    pub hint_sq: u128,
}

/// A list found by [`AgentTree::query_all`]: the neighbours' slots, nearest first.
#[derive(Clone, Copy, Debug)]
pub struct Found<'a> {
    list: FoundList<'a>,
}

/// Where a [`Found`] list is: packed keys (the batched selection), or the per-slot query's
/// keys (packed or not, see [`AgentTree::query_raw`]).
#[derive(Clone, Copy, Debug)]
enum FoundList<'a> {
    Packed(&'a [u128]),
    Keys(&'a [NeighborKey], bool),
    /// Proxy keys ([`Pick`]): each one's low bits (`mask`) are its slot.
    Picked(&'a [u64], u64),
}

impl Found<'_> {
    /// The number of neighbours.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        match self.list {
            FoundList::Packed(keys) => keys.len(),
            FoundList::Keys(keys, _) => keys.len(),
            FoundList::Picked(keys, _) => keys.len(),
        }
    }

    /// Whether the list is empty.
    #[cfg_attr(not(test), allow(dead_code))]
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours' slots, nearest first (ties by slot).
    #[cfg_attr(not(test), allow(dead_code))]
    #[must_use]
    pub fn slots(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.append_slots(&mut out);
        out
    }

    /// Appends the neighbours' slots, nearest first (ties by slot), to `out`.
    #[inline(always)]
    pub fn append_slots(&self, out: &mut Vec<u32>) {
        match self.list {
            FoundList::Packed(keys) => out.extend(keys.iter().map(|&k| k as u32)),
            FoundList::Keys(keys, packed) => {
                out.extend(keys.iter().map(|&k| AgentTree::raw_slot(k, packed)));
            }
            FoundList::Picked(keys, mask) => {
                out.extend(keys.iter().map(|&p| (p & mask) as u32));
            }
        }
    }
}

/// What [`AgentTree::query_all`] reads each slot's query from and hands each list to.
pub trait Lists {
    /// The query of `slot`.
    fn query(&self, slot: u32) -> SlotQuery;
    /// The list of `slot` (called once per slot, in tree order), and the distance² of its
    /// last neighbour when the list is full (`max_neighbors` found), else 0 (what
    /// [`AgentTree::query_slots_hinted`] returns).
    fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128);
}

/// The candidate buffer's room for a tree whose longest list has `longest` entries: enough
/// for a leaf's gather within a hinted limit (its own points and a band around its box a few
/// neighbour distances wide), bounded by the point count.
fn cand_cap(points: usize, longest: usize) -> usize {
    (32 * longest.max(MAX_LEAF_SIZE)).max(512).min(points)
}

/// What a selection's candidate loop ([`Cands::select`]) hands each candidate it does not
/// rule out to: [`Pick`] (proxy keys, the usual one) or [`Select`] (exact keys, its fallback).
trait Offer: Copy {
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

/// One agent's selection: the keys accepted so far, packed `distance² << 32 | slot`, in a
/// buffer (`buf`, kept apart), and the limit (as [`Search`]'s: keys `(d, s)` are accepted
/// iff `d ≤ limit_d` and `d << 32 | s < limit_packed`). Keys are appended unsorted; when
/// the buffer is full it is cut to its `max` smallest keys, the largest of which becomes
/// the limit (the keys cut could never be in the list); at the end the keys are sorted and
/// cut to `max`. The result is the list of the per-agent search: the `max` smallest keys
/// below the first limit, sorted.
///
/// The buffer is longer than `max`, or than the number of candidates (it never fills).
/// [`Pick`]'s fallback: it never fails.
#[derive(Clone, Copy, Debug)]
struct Select {
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
            limit_packed: if hinted {
                limit_d << 32 | u128::from(u32::MAX)
            } else {
                limit_d << 32
            },
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
            let key = d << 32 | u128::from(slot);
            if key < self.limit_packed {
                buf[self.len] = key;
                self.len += 1;
                if self.len == buf.len() {
                    // Full: cut to the `max` smallest keys (`max < buf.len()`).
                    self.limit_packed = cut(buf, self.max);
                    self.limit_d = self.limit_packed >> 32;
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
struct Pick {
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
            // d < 2⁹⁶: d >> 32 fits in 64 bits.
            buf[self.len] = ((d >> 32) as u64 & !self.mask) | u64::from(slot);
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
            *e = d << 32 | slot as u128;
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
enum Chosen {
    Picked(usize),
    Exact(usize),
}

impl Chosen {
    /// The list's length.
    #[inline(always)]
    fn len(self) -> usize {
        match self {
            Chosen::Picked(len) | Chosen::Exact(len) => len,
        }
    }
}

impl Cands {
    /// Continues the selection `sel`, its buffer `buf` (see [`Pick`] and [`Select`]), with
    /// the first `n` candidates but `own` (the agent's own index), the agent being at
    /// `center` (raw).
    #[inline(always)]
    fn select<S: Offer>(
        &mut self,
        n: usize,
        quant: &GatherBox,
        own: usize,
        center: (i64, i64),
        buf: &mut [S::Key],
        sel: S,
    ) -> S {
        if n >= 2 * sel.max() + FILTER_MIN {
            self.select_filtered(n, quant, own, center, buf, sel)
        } else {
            self.select_plain(n, own, center, buf, sel)
        }
    }

    /// The list of agent `own` (at `center`) of at most `max` entries with the first limit
    /// `limit` (`hinted` as in [`Select::new`]) from the first `n` candidates: by proxy keys
    /// ([`Pick`], slots at most `mask`, the points `positions`) in `bufs.0`, or when that
    /// fails by exact keys ([`Select`]) in `bufs.1`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn choose(
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

    /// [`select`](Self::select), every candidate's exact key tested.
    #[inline(always)]
    fn select_plain<S: Offer>(
        &self,
        n: usize,
        own: usize,
        center: (i64, i64),
        buf: &mut [S::Key],
        sel: S,
    ) -> S {
        // A local copy (kept in registers: the argument's memory is written back on a panic).
        let mut s = sel;
        let (before, after) = self.cands[..n].split_at(own);
        for c in &after[1..] {
            s.offer(buf, c.dist_sq(center), c.slot);
        }
        for c in before.iter().rev() {
            s.offer(buf, c.dist_sq(center), c.slot);
        }
        s
    }

    /// [`select`](Self::select), prefiltered: the prefilter with the bound of `sel`'s limit
    /// flags the candidates that may be accepted, and only their exact keys are computed.
    #[inline(never)]
    fn select_filtered<S: Offer>(
        &mut self,
        n: usize,
        quant: &GatherBox,
        own: usize,
        center: (i64, i64),
        buf: &mut [S::Key],
        sel: S,
    ) -> S {
        // A local copy (kept in registers: the argument's memory is written back on a panic).
        let mut s = sel;
        let room = n.next_multiple_of(WORD);
        let t = quant.bound(s.limit_d());
        let flags = &mut self.flags[..room];
        let (qx, qy) = (&self.qx[..room], &self.qy[..room]);
        prefilter(qx, qy, qx[own], qy[own], t, flags);
        flags[own] = 0;
        // The padding past the candidates: the last word's flags from `n` on (`room` is `n`
        // rounded up to a word).
        if room > n {
            let last = &mut flags[room - WORD..];
            let word = u64::from_le_bytes(last.try_into().unwrap_or_default());
            let kept = word & (u64::MAX >> (8 * (room - n)));
            last.copy_from_slice(&kept.to_le_bytes());
        }
        let cands = &self.cands[..room];
        for (word, group) in flags.chunks_exact(WORD).zip(cands.chunks_exact(WORD)) {
            let mut bits = u64::from_le_bytes(word.try_into().unwrap_or_default());
            while bits != 0 {
                // The first flagged candidate of the word (flags are bytes 0 or 1).
                let c = &group[(bits.trailing_zeros() / 8) as usize];
                bits &= bits - 1;
                s.offer(buf, c.dist_sq(center), c.slot);
            }
        }
        s
    }
}

/// [`AgentTree::query_range`] batches the leaves holding at least this many of its slots
/// (a gather costs about as much as three per-slot queries).
#[cfg_attr(not(any(test, feature = "parallel")), allow(dead_code))]
const RANGE_BATCH_MIN: usize = 4;

/// The scratch of [`AgentTree::query_range`], kept between calls (one per concurrent call):
/// the batched queries' scratch and a bit per node (the leaves taken).
#[cfg_attr(not(any(test, feature = "parallel")), allow(dead_code))]
#[derive(Clone, Debug, Default)]
pub struct QueryScratch {
    batch: Scratch,
    seen: Vec<u64>,
}

/// Agents with at least `2·max + FILTER_MIN` candidates select with the prefilter.
const FILTER_MIN: usize = 16;

impl AgentTree {
    /// Every slot's neighbour list, leaf by leaf: for each slot `s` with
    /// `lists.query(s)`, the list and result of
    /// [`query_slots_hinted`](Self::query_slots_hinted), handed to
    /// `lists.found`. `positions` must be the slice the tree was last built
    /// from. The lists do not depend on the hints, nor on how the work is batched.
    pub fn query_all<L: Lists>(&mut self, positions: &[Vec2], lists: &mut L) {
        if self.nodes.is_empty() {
            return;
        }
        let mut scratch = std::mem::take(&mut self.batch);
        // Leaves are numbered depth first: in node order they are in tree order. Each leaf
        // sizes the scratch for its own lists (it only grows: a steady run never allocates).
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i];
            if (node.end - node.begin) as usize <= MAX_LEAF_SIZE {
                self.leaf_batch::<L, false>(positions, i, usize::MAX, 0..0, lists, &mut scratch);
            }
        }
        self.batch = scratch;
    }

    /// The lists of the slots `slots` (as [`query_all`](Self::query_all) for those
    /// slots, in another order): the leaves of the slots are taken in the order of their
    /// first slot; a leaf holding at least [`RANGE_BATCH_MIN`] of the slots is batched, the
    /// others' slots are queried one by one. `scratch` is the caller's (one per concurrent
    /// call).
    #[cfg_attr(not(any(test, feature = "parallel")), allow(dead_code))]
    pub fn query_range<L: Lists>(
        &self,
        positions: &[Vec2],
        slots: std::ops::Range<usize>,
        scratch: &mut QueryScratch,
        lists: &mut L,
    ) {
        if self.nodes.is_empty() || slots.is_empty() {
            return;
        }
        let QueryScratch {
            batch: scratch,
            seen,
        } = scratch;
        let n = positions.len();
        let longest = slots
            .clone()
            .map(|s| lists.query(s as u32).max_neighbors)
            .max()
            .unwrap_or(0)
            .min(n - 1);
        let cap = cand_cap(n, longest);
        scratch.reserve(cap, longest);
        // One bit per node: the leaves taken so far.
        seen.clear();
        seen.resize(self.nodes.len().div_ceil(64), 0);
        let listed = slots.start as u32..slots.end as u32;
        for slot in listed.clone() {
            let leaf = self.leaf_of[slot as usize] as usize;
            let (word, bit) = (leaf / 64, 1u64 << (leaf % 64));
            if seen[word] & bit != 0 {
                continue;
            }
            seen[word] |= bit;
            let node = &self.nodes[leaf];
            let members = &self.order[node.begin as usize..node.end as usize];
            let count = members.iter().filter(|&o| listed.contains(o)).count();
            if count >= RANGE_BATCH_MIN {
                self.leaf_batch::<L, true>(positions, leaf, cap, listed.clone(), lists, scratch);
                continue;
            }
            for &slot in members.iter().filter(|&o| listed.contains(o)) {
                let q = lists.query(slot);
                let range_sq = wide_mul(q.range, q.range).unsigned_abs();
                let keys = &mut scratch.keys;
                let max = q.max_neighbors;
                let (packed, last) =
                    self.query_keys_hinted(positions, slot, max, range_sq, q.hint_sq, keys);
                let list = FoundList::Keys(keys, packed);
                lists.found(slot, Found { list }, last);
            }
        }
    }

    /// The lists of the agents of the leaf `leaf_node` (with `RANGED`, only those whose
    /// slots are in `slots`), with at most `cap` candidates (and at most [`cand_cap`] for the
    /// leaf's longest list).
    fn leaf_batch<L: Lists, const RANGED: bool>(
        &self,
        positions: &[Vec2],
        leaf_node: usize,
        cap: usize,
        slots: std::ops::Range<u32>,
        lists: &mut L,
        scratch: &mut Scratch,
    ) {
        let leaf = &self.nodes[leaf_node];
        let (begin, end) = (leaf.begin as usize, leaf.end as usize);
        let count = end - begin;
        // Per agent: (range², max, first limit, hinted, in `slots`); max 0: nothing to do.
        let mut plan = [(0u128, 0usize, 0u128, false, false); MAX_LEAF_SIZE];
        let mut gather_sq = 0u128;
        let mut any = false;
        for (p, &slot) in plan[..count].iter_mut().zip(&self.order[begin..end]) {
            if RANGED && !slots.contains(&slot) {
                continue;
            }
            let q = lists.query(slot);
            let range_sq = wide_mul(q.range, q.range).unsigned_abs();
            let hinted = q.hint_sq > 0 && q.hint_sq < range_sq;
            let limit = if hinted { q.hint_sq } else { range_sq };
            *p = (range_sq, q.max_neighbors, limit, hinted, true);
            if q.max_neighbors > 0 && range_sq < PACKED_BOUND {
                gather_sq = gather_sq.max(limit);
                any = true;
            }
        }
        // The candidate cap and the scratch for the leaf's longest list (`cap`: at most the
        // caller's, which reserved for it).
        let points = positions.len();
        let longest = plan[..count].iter().map(|p| p.1).max().unwrap_or(0);
        let longest = longest.min(points - 1);
        let cap = cap.min(cand_cap(points, longest));
        scratch.reserve(cap, longest);
        // Every slot is at most the proxies' mask (see `Pick`).
        let mask = (points.next_power_of_two() - 1) as u64;
        let gathered = if any {
            self.gather(leaf_node, gather_sq, cap, &mut scratch.cands)
        } else {
            None
        };
        for (k, &(range_sq, max, limit, hinted, listed)) in plan[..count].iter().enumerate() {
            if RANGED && !listed {
                continue;
            }
            let slot = self.order[begin + k];
            let Scratch {
                cands,
                keys,
                list,
                proxies,
            } = &mut *scratch;
            if max == 0 {
                let list = FoundList::Packed(&[]);
                lists.found(slot, Found { list }, 0);
                continue;
            }
            let (n, quant) = match gathered {
                Some(g) if range_sq < PACKED_BOUND => g,
                _ => {
                    // The per-slot query (an unpacked range, or candidates that did not fit).
                    let hint_sq = if hinted { limit } else { 0 };
                    let (packed, last) =
                        self.query_keys_hinted(positions, slot, max, range_sq, hint_sq, keys);
                    let list = FoundList::Keys(keys, packed);
                    lists.found(slot, Found { list }, last);
                    continue;
                }
            };
            let center = (self.xs[begin + k], self.ys[begin + k]);
            let agent = (k, center);
            let bufs = (&mut proxies[..], &mut list[..]);
            let points = (positions, mask);
            let mut chosen = cands.choose(n, &quant, agent, bufs, points, max, limit, hinted);
            if chosen.len() < max && hinted {
                if gather_sq >= range_sq {
                    // The candidates cover the full range.
                    let bufs = (&mut proxies[..], &mut list[..]);
                    chosen = cands.choose(n, &quant, agent, bufs, points, max, range_sq, false);
                } else {
                    keys.clear();
                    let center = positions[slot as usize];
                    let mut search = Search::<true>::new(self, center, slot, max, range_sq, keys);
                    search.run(self.leaf_of[slot as usize]);
                    let last = if keys.len() == max {
                        (keys[max - 1].0 as u128) >> 32
                    } else {
                        0
                    };
                    let list = FoundList::Keys(keys, true);
                    lists.found(slot, Found { list }, last);
                    continue;
                }
            }
            let (list, last) = match chosen {
                Chosen::Picked(found) => {
                    let keys = &proxies[..found];
                    let last = if found == max {
                        let at = positions[(keys[max - 1] & mask) as usize];
                        sq_diff(at.x.to_bits(), center.0) + sq_diff(at.y.to_bits(), center.1)
                    } else {
                        0
                    };
                    (FoundList::Picked(keys, mask), last)
                }
                Chosen::Exact(found) => {
                    let last = if found == max { list[max - 1] >> 32 } else { 0 };
                    (FoundList::Packed(&list[..found]), last)
                }
            };
            lists.found(slot, Found { list }, last);
        }
    }

    /// Gathers into `s` every point whose distance to the box of `leaf_node` (a leaf) is at
    /// most `√limit_sq` along each axis (a superset of the points within `√limit_sq` of the
    /// box, so of every key an agent of the leaf can accept), with their quantization: the
    /// leaf's own first (in tree order, so agent `k` of the leaf is candidate `k`), then the
    /// others in tree order. Returns their number and quantization, or `None` (candidates
    /// incomplete) when they would exceed `cap`.
    #[inline(never)]
    fn gather(
        &self,
        leaf_node: usize,
        limit_sq: u128,
        cap: usize,
        s: &mut Cands,
    ) -> Option<(usize, GatherBox)> {
        let nodes = &self.nodes;
        let leaf = &nodes[leaf_node];
        let (b, e) = (leaf.begin as usize, leaf.end as usize);
        if e - b > cap {
            return None;
        }
        let gbox = GatherBox::new(leaf.min, leaf.max, limit_sq);
        // The leaf's own points first (all in the box): each agent's nearest keys are
        // mostly there.
        let mut n = self.gather_leaf(b..e, 0, s, &gbox);
        // Depth first over the nodes whose box meets the gather box, without a stack: after
        // a subtree, climb to the first ancestor that is a left child (numbered right after
        // its parent) and go on with its sibling. Any depth, no recursion.
        let mut node = 0usize;
        loop {
            let nd = &nodes[node];
            if node != leaf_node && gbox.meets(nd.min, nd.max) {
                if (nd.end - nd.begin) as usize > MAX_LEAF_SIZE {
                    node = nd.left as usize;
                    continue;
                }
                let (b, e) = (nd.begin as usize, nd.end as usize);
                if n + (e - b) > cap {
                    return None;
                }
                n = self.gather_leaf(b..e, n, s, &gbox);
            }
            loop {
                if node == 0 {
                    return Some((n, gbox));
                }
                let nd = &nodes[node];
                if node == nd.parent as usize + 1 {
                    node = nd.sibling as usize;
                    break;
                }
                node = nd.parent as usize;
            }
        }
    }

    /// Writes the points at tree positions `range` as candidates from `n` on, keeping
    /// (counting) those in the gather box; returns the new count.
    #[inline(never)]
    fn gather_leaf(
        &self,
        range: std::ops::Range<usize>,
        mut n: usize,
        s: &mut Cands,
        gbox: &GatherBox,
    ) -> usize {
        let gbox = *gbox;
        let room = s.cands.len();
        let (cands, qx, qy) = (&mut s.cands[..room], &mut s.qx[..room], &mut s.qy[..room]);
        let (slots, xs) = (&self.order[range.clone()], &self.xs[range.clone()]);
        for ((&slot, &x), &y) in slots.iter().zip(xs).zip(&self.ys[range]) {
            let (u, v) = gbox.offsets(x, y);
            cands[n] = Cand { x, y, slot };
            qx[n] = gbox.quantize(u);
            qy[n] = gbox.quantize(v);
            n += usize::from(gbox.holds((u, v)));
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    /// Per slot: (range, max) varied, including no neighbours, a cap above the agent count,
    /// an unpacked range and a zero range.
    fn params(slot: u32) -> (Fx, usize) {
        match slot % 7 {
            0 => (Fx::from_num(3), 10),
            1 => (Fx::lit("1.5"), 4),
            2 => (Fx::from_num(6), 0),
            3 => (Fx::from_num(70_000), 5),
            4 => (Fx::from_num(2), 100_000),
            5 => (Fx::ZERO, 3),
            _ => (Fx::lit("4.25"), 16),
        }
    }

    /// A [`Lists`] keeping every list by slot, with the per-slot hints (as the tick does).
    struct Kept {
        params: fn(u32) -> (Fx, usize),
        hints: Vec<u64>,
        reach: u64,
        lists: Vec<Option<Vec<u32>>>,
        lasts: Vec<u128>,
    }

    impl Lists for Kept {
        fn query(&self, slot: u32) -> SlotQuery {
            let (range, max_neighbors) = (self.params)(slot);
            let h = u128::from(self.hints[slot as usize]);
            SlotQuery {
                range,
                max_neighbors,
                hint_sq: h * h,
            }
        }

        fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128) {
            let s = slot as usize;
            assert!(self.lists[s].is_none(), "slot {slot} found twice");
            assert_eq!(list.len(), list.slots().len());
            assert_eq!(list.is_empty(), list.slots().is_empty());
            self.lists[s] = Some(list.slots());
            self.lasts[s] = last_sq;
            self.hints[s] = super::super::next_hint(last_sq, self.reach);
        }
    }

    /// Checks every slot's batched list against the per-slot query over a few moving ticks.
    fn check_scene(positions: Vec<Vec2>, ticks: usize) {
        check_scene_with(positions, ticks, params);
    }

    fn check_scene_with(mut positions: Vec<Vec2>, ticks: usize, params: fn(u32) -> (Fx, usize)) {
        let mut tree = AgentTree::default();
        let (mut keys, mut plain) = (Vec::new(), Vec::new());
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let reach = 1u64 << 29;
        let n = positions.len();
        let mut kept = Kept {
            params,
            hints: vec![0; n],
            reach,
            lists: Vec::new(),
            lasts: Vec::new(),
        };
        for tick in 0..ticks {
            tree.build(&positions);
            if tick == 2 {
                // Hints from elsewhere (speed only): still the same lists.
                for (i, h) in kept.hints.iter_mut().enumerate() {
                    *h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 40);
                }
            }
            kept.lists.clear();
            kept.lists.resize(n, None);
            kept.lasts.clear();
            kept.lasts.resize(n, 0);
            let hints = kept.hints.clone();
            tree.query_all(&positions, &mut kept);
            for slot in 0..n as u32 {
                let (range, max) = params(slot);
                plain.clear();
                let h = u128::from(hints[slot as usize]);
                let last = tree.query_slots_hinted(
                    &positions,
                    slot,
                    range,
                    max,
                    h * h,
                    &mut keys,
                    &mut plain,
                );
                let s = slot as usize;
                assert_eq!(
                    kept.lists[s].as_deref(),
                    Some(&plain[..]),
                    "tick {tick}, slot {slot}"
                );
                assert_eq!(kept.lasts[s], last, "tick {tick}, slot {slot}");
            }
            // Move every agent by less than `reach`.
            for p in &mut positions {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let dx = (x % (1 << 29)) as i64 - (1 << 28);
                let dy = ((x >> 32) % (1 << 29)) as i64 - (1 << 28);
                *p = Vec2::from_bits(p.x.to_bits() + dx, p.y.to_bits() + dy);
            }
        }
    }

    #[test]
    fn batched_lists_are_the_per_slot_lists() {
        // Scattered, a tie-heavy lattice, and a stack on one point.
        let scattered: Vec<Vec2> = (0..700)
            .map(|i| Vec2::from_bits((i * 7919 % 1000) << 27, (i * 104_729 % 997) << 27))
            .collect();
        check_scene(scattered, 5);
        let lattice: Vec<Vec2> = (0..600).map(|i| Vec2::from_int(i % 25, i / 25)).collect();
        check_scene(lattice, 3);
        let mut stacked = vec![Vec2::from_int(3, -7); 40];
        stacked.extend((0..200).map(|i| Vec2::from_int(i % 20, i / 20)));
        check_scene(stacked, 3);
        check_scene(vec![Vec2::ZERO], 2);
        check_scene(Vec::new(), 2);
    }

    #[test]
    fn batched_lists_when_the_candidates_overflow() {
        // 3,000 agents on a dense lattice, each with a range covering all of them: every
        // first gather exceeds the candidate buffer (the per-slot fallback), the hinted
        // ones fit.
        let positions: Vec<Vec2> = (0..3000)
            .map(|i| Vec2::from_bits((i % 60) << 28, (i / 60) << 28))
            .collect();
        assert!(cand_cap(3000, 16) < 3000);
        check_scene_with(positions, 3, |slot| {
            (Fx::from_num(100), if slot % 3 == 0 { 16 } else { 5 })
        });
    }

    #[test]
    fn batched_lists_with_near_ties_and_cuts() {
        // A unit lattice with raw jitter of 0 to 3, slots shuffled: lattice ties become
        // distances² a few 2³² raw apart (the same proxy high part, different keys, see
        // `Pick`), and a range of 4 with lists of 3 or 5 fills the selection buffer (cuts
        // with ties at the cut).
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 900;
        let mut positions: Vec<Vec2> = (0..n)
            .map(|i: i64| {
                let (a, b) = (i % 30, i / 30);
                let (e, f) = ((next() % 4) as i64, (next() % 4) as i64);
                Vec2::from_bits((a << 32) + e, (b << 32) + f)
            })
            .collect();
        for i in (1..positions.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            positions.swap(i, j);
        }
        check_scene_with(positions.clone(), 2, |slot| {
            (Fx::from_num(4), if slot % 2 == 0 { 3 } else { 5 })
        });
        // With a stack of 60 on one point: cuts that cannot shrink the buffer (every key of
        // the stack ties), so the exact selection runs.
        positions.extend(std::iter::repeat_n(Vec2::from_int(7, 7), 60));
        check_scene_with(positions, 1, |_| (Fx::from_num(4), 3));
    }

    #[test]
    fn batched_lists_in_a_deep_tree() {
        // Clusters of 17 on four exponential ladders (±x, ±y): splits peel clusters off one
        // by one, so the tree is deep (the gather climbs long chains), and a range of 60,000
        // (packed) reaches every cluster.
        let mut positions = Vec::new();
        for k in 0..46 {
            for (x, y) in [(1i64 << k, 0), (-(1 << k), 0), (0, 1 << k), (0, -(1 << k))] {
                positions.extend(std::iter::repeat_n(Vec2::from_bits(x, y), 17));
            }
        }
        let mut tree = AgentTree::default();
        tree.build(&positions);
        let depth = |mut node: usize| {
            let mut d = 0;
            while node != 0 {
                node = tree.nodes[node].parent as usize;
                d += 1;
            }
            d
        };
        let deepest = (0..tree.nodes.len()).map(depth).max().unwrap();
        assert!(deepest > 40, "depth {deepest}");
        check_scene_with(positions, 1, |slot| {
            (Fx::from_num(60_000), if slot % 2 == 0 { 10 } else { 40 })
        });
    }

    /// Whether the gather and the prefilter keep the candidate `p` for the agent `a` (in
    /// `gbox`) with the limit `limit`: exactly the production steps on one candidate.
    fn kept(gbox: &GatherBox, a: (i64, i64), p: (i64, i64), limit: u128) -> bool {
        let (ua, va) = gbox.offsets(a.0, a.1);
        let (u, v) = gbox.offsets(p.0, p.1);
        assert!(gbox.holds((ua, va)), "the agent is in its leaf's box");
        let qx = [gbox.quantize(u)];
        let qy = [gbox.quantize(v)];
        let mut flag = [0u8];
        let t = gbox.bound(limit);
        prefilter(&qx, &qy, gbox.quantize(ua), gbox.quantize(va), t, &mut flag);
        gbox.holds((u, v)) && flag[0] == 1
    }

    /// Exact squared distance (in i128: any i64 coordinates whose difference fits).
    fn dist_sq(a: (i64, i64), p: (i64, i64)) -> u128 {
        let dx = i128::from(a.0) - i128::from(p.0);
        let dy = i128::from(a.1) - i128::from(p.1);
        (dx * dx + dy * dy) as u128
    }

    /// A coordinate: small, domain-sized (±10⁶ units), or near the ends of `i64`.
    fn coord() -> impl Strategy<Value = i64> {
        prop_oneof![
            -(1i64 << 36)..(1i64 << 36),
            -(1_000_000i64 << 32)..(1_000_000i64 << 32),
            (i64::MAX - (1 << 50))..=i64::MAX,
            i64::MIN..=(i64::MIN + (1 << 50)),
            any::<i64>(),
        ]
    }

    /// A non-negative offset: zero, small, or up to 2⁵⁰ raw (2⁵⁰ units² limits).
    fn extent() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            0u64..(1 << 20),
            0u64..(1 << 36),
            0u64..(1 << 50)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// The gather box and the prefilter never drop a candidate the exact test accepts:
        /// a point within the agent's limit (`d ≤ limit`, ties included) of an agent of the
        /// leaf, the agent's limit at most the leaf's gather limit, anywhere in `i64`
        /// (clamped boxes at the ends) and at every scale.
        #[test]
        fn prefilter_never_rejects_an_accepted_key(
            (ax, ay) in (coord(), coord()),
            (lo_x, hi_x, lo_y, hi_y) in (extent(), extent(), extent(), extent()),
            (dx, dy) in (-(1i64 << 47)..(1i64 << 47), -(1i64 << 47)..(1i64 << 47)),
            small in any::<bool>(),
            (slack, extra) in (0u64..4, extent()),
        ) {
            // A candidate at (dx, dy) from the agent (scaled down at random), inside i64.
            let (dx, dy) = if small { (dx >> 30, dy >> 30) } else { (dx, dy) };
            let (Some(px), Some(py)) = (ax.checked_add(dx), ay.checked_add(dy)) else {
                return Ok(());
            };
            let (a, p) = ((ax, ay), (px, py));
            // The agent's limit: the candidate's distance² exactly (a tie), or a little
            // more; the leaf's gather limit at least that. Packed ranges only (< 2⁹⁶).
            let limit = dist_sq(a, p) + u128::from(slack);
            let gather = limit + u128::from(extra);
            prop_assume!(gather < PACKED_BOUND);
            // The leaf's box holds the agent.
            let min = Vec2::from_bits(ax.saturating_sub(lo_x as i64), ay.saturating_sub(lo_y as i64));
            let max = Vec2::from_bits(ax.saturating_add(hi_x as i64), ay.saturating_add(hi_y as i64));
            let gbox = GatherBox::new(min, max, gather);
            prop_assert!(kept(&gbox, a, p, limit), "{gbox:?} a {a:?} p {p:?} limit {limit}");
            // The quantized coordinates of the box's points are in [0, 2^QBITS).
            let (u, v) = gbox.offsets(px, py);
            prop_assert!((0..1 << QBITS).contains(&gbox.quantize(u)));
            prop_assert!((0..1 << QBITS).contains(&gbox.quantize(v)));
        }
    }

    #[test]
    fn prefilter_edges() {
        // Lattice ties at the limit, the agent on the gather box's corners, the box at the
        // ends of i64, zero limits and zero-size boxes.
        let corners = [
            (0, 0),
            (i64::MAX, i64::MAX),
            (i64::MIN, i64::MIN),
            (i64::MAX, i64::MIN),
            (1_000_000 << 32, -1_000_000 << 32),
        ];
        for &(ax, ay) in &corners {
            for unit in [1i64, 1 << 16, 1 << 31, 1 << 32, 1 << 40] {
                for (i, j) in [(0, 0), (1, 0), (0, -1), (3, 4), (-5, 12), (7, 7), (100, -1)] {
                    let (Some(px), Some(py)) = (ax.checked_add(i * unit), ay.checked_add(j * unit))
                    else {
                        continue;
                    };
                    let (a, p) = ((ax, ay), (px, py));
                    let limit = dist_sq(a, p);
                    for box_extent in [0i64, unit, 1 << 45] {
                        let min = Vec2::from_bits(
                            ax.saturating_sub(box_extent),
                            ay.saturating_sub(box_extent),
                        );
                        let max = Vec2::from_bits(ax, ay);
                        for gather in [limit, limit + 1, limit * 4 + 7] {
                            let gbox = GatherBox::new(min, max, gather);
                            assert!(kept(&gbox, a, p, limit), "{gbox:?} {a:?} {p:?}");
                        }
                    }
                }
            }
        }
        // A far candidate is rejected by a tight limit (the prefilter does filter).
        let gbox = GatherBox::new(Vec2::ZERO, Vec2::from_int(10, 10), 100 << 64);
        let (a, p) = ((0, 0), (10 << 32, 10 << 32));
        assert!(!kept(&gbox, a, p, 4 << 64));
        assert!(kept(&gbox, a, p, 200 << 64));
    }

    /// A [`Lists`] with a fixed query per slot, keeping every list and result.
    struct Table {
        queries: Vec<SlotQuery>,
        lists: Vec<Option<Vec<u32>>>,
        lasts: Vec<u128>,
    }

    impl Lists for Table {
        fn query(&self, slot: u32) -> SlotQuery {
            self.queries[slot as usize]
        }

        fn found(&mut self, slot: u32, list: Found<'_>, last_sq: u128) {
            let s = slot as usize;
            assert!(self.lists[s].is_none(), "slot {slot} found twice");
            self.lists[s] = Some(list.slots());
            self.lasts[s] = last_sq;
        }
    }

    /// Brute force: the slots of the `max` smallest keys `(distance², slot)` below
    /// `range²`, and the last one's distance² when there are `max` (else 0; always 0 for
    /// ranges past the packed bound, as the per-slot query).
    fn brute(positions: &[Vec2], slot: u32, q: &SlotQuery) -> (Vec<u32>, u128) {
        let c = positions[slot as usize];
        let c = (c.x.to_bits(), c.y.to_bits());
        let r2 = wide_mul(q.range, q.range).unsigned_abs();
        let mut keys: Vec<(u128, u32)> = (0..positions.len() as u32)
            .filter(|&s| s != slot)
            .map(|s| {
                let p = positions[s as usize];
                (dist_sq(c, (p.x.to_bits(), p.y.to_bits())), s)
            })
            .filter(|k| k.0 < r2)
            .collect();
        keys.sort_unstable();
        keys.truncate(q.max_neighbors);
        let last = match keys.last() {
            Some(k) if keys.len() == q.max_neighbors && r2 < PACKED_BOUND => k.0,
            _ => 0,
        };
        (keys.into_iter().map(|k| k.1).collect(), last)
    }

    /// Tie-heavy scenes (as `tests/determinism/kdtree_reference.rs`): integer and
    /// half-integer lattices with duplicates, stacks near the domain's corners, and points
    /// at full raw resolution.
    fn scene() -> impl Strategy<Value = Vec<Vec2>> {
        let grid = (
            0i64..=6,
            prop::collection::vec((any::<u32>(), any::<u32>()), 1..160),
        )
            .prop_map(|(k, cells)| {
                let side = (2 * k + 1) as u32;
                cells
                    .into_iter()
                    .map(|(a, b)| {
                        Vec2::from_int(
                            i64::from(a % side) as i32 - k as i32,
                            i64::from(b % side) as i32 - k as i32,
                        )
                    })
                    .collect::<Vec<_>>()
            });
        let half = prop::collection::vec((-40i64..=40, -40i64..=40), 1..200).prop_map(|cells| {
            cells
                .into_iter()
                .map(|(a, b)| Vec2::from_bits(a << 31, b << 31))
                .collect()
        });
        let corners =
            prop::collection::vec((0u8..4, -3i64..=3, -3i64..=3), 1..80).prop_map(|cells| {
                let m = 1_000_000i64;
                cells
                    .into_iter()
                    .map(|(corner, a, b)| {
                        let (sx, sy) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][corner as usize];
                        Vec2::from_bits(
                            (sx * (m - 3 + a.abs())) << 32,
                            (sy * (m - 3 + b.abs())) << 32,
                        )
                    })
                    .collect()
            });
        let scattered = prop::collection::vec((any::<i64>(), any::<i64>()), 1..120).prop_map(|v| {
            let lim = 1_000i64 << 32;
            v.into_iter()
                .map(|(x, y)| Vec2::from_bits(x % lim, y % lim))
                .collect()
        });
        // A lattice with raw jitter of 0 to 3: distances² a few 2³² raw apart, the same proxy
        // high part (see `Pick`) with different keys.
        let jittered = prop::collection::vec((-6i64..=6, -6i64..=6, 0i64..4, 0i64..4), 1..150)
            .prop_map(|cells| {
                cells
                    .into_iter()
                    .map(|(a, b, e, f)| Vec2::from_bits((a << 32) + e, (b << 32) + f))
                    .collect()
            });
        prop_oneof![grid, half, corners, scattered, jittered]
    }

    /// A query: lattice ranges (exact ties with the strict `<`), odd raw ranges, ranges
    /// past the packed bound; caps from 0 to past the agent count; no hint, a hint from the
    /// lattice, or any hint.
    fn query() -> impl Strategy<Value = SlotQuery> {
        let range = prop_oneof![
            (0i64..=10).prop_map(|r| Fx::from_bits(r << 32)),
            (0i64..=40).prop_map(|r| Fx::from_bits(r << 31)),
            (0i64..=(2_000 << 32)).prop_map(Fx::from_bits),
            Just(Fx::from_bits((65_536 << 32) - 1)),
            Just(Fx::from_num(70_000)),
        ];
        let max = prop_oneof![0usize..=12, Just(1usize), Just(40usize), Just(1024usize)];
        let hint = prop_oneof![
            Just(0u128),
            (0u128..=200).prop_map(|k| k << 62),
            any::<u64>().prop_map(|h| u128::from(h) * u128::from(h)),
        ];
        (range, max, hint).prop_map(|(range, max_neighbors, hint_sq)| SlotQuery {
            range,
            max_neighbors,
            hint_sq,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]

        /// Every batched list and result equals brute force, on tie-heavy scenes, with
        /// per-slot queries mixed (one query for all, or one per slot): the prefilter, the
        /// buffer cut and the square gather box never change a list.
        #[test]
        fn batched_lists_match_brute_force(
            positions in scene(),
            shared in query(),
            mixed in prop::collection::vec(query(), 1..8),
            per_slot in any::<bool>(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let n = positions.len();
            let queries: Vec<SlotQuery> = (0..n)
                .map(|s| if per_slot { mixed[s % mixed.len()] } else { shared })
                .collect();
            let mut tree = AgentTree::default();
            tree.build(&positions);
            let mut table = Table { queries, lists: vec![None; n], lasts: vec![0; n] };
            tree.query_all(&positions, &mut table);
            // The same lists by ranges of slots (as the parallel step's groups), one scratch
            // reused across them.
            let mut bounds: Vec<usize> = cuts.iter().map(|c| c.index(n + 1)).collect();
            bounds.extend([0, n]);
            bounds.sort_unstable();
            let mut ranged = Table {
                queries: table.queries.clone(),
                lists: vec![None; n],
                lasts: vec![0; n],
            };
            let mut scratch = QueryScratch::default();
            for w in bounds.windows(2) {
                tree.query_range(&positions, w[0]..w[1], &mut scratch, &mut ranged);
            }
            for slot in 0..n as u32 {
                let s = slot as usize;
                let (list, last) = brute(&positions, slot, &table.queries[s]);
                prop_assert_eq!(table.lists[s].as_deref(), Some(&list[..]), "slot {}", slot);
                prop_assert_eq!(table.lasts[s], last, "slot {}", slot);
                prop_assert_eq!(ranged.lists[s].as_deref(), Some(&list[..]), "ranged, slot {}", slot);
                prop_assert_eq!(ranged.lasts[s], last, "ranged, slot {}", slot);
            }
        }
    }
}

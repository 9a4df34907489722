//! The quantized prefilter: a leaf's candidates ([`Cands`]), their gather box quantized to
//! 14 bits ([`GatherBox`]), and the loop that hands an agent's candidates to its selection
//! ([`Cands::select`]), ruling out on 16-bit coordinates the candidates that cannot be accepted.
//!
//! For agents with many candidates (at least `2·max + FILTER_MIN`) each candidate's quantized
//! squared distance (the high halves of two 16-bit squares, eight candidates a vector
//! operation, [`prefilter`]) is compared with a bound proved to lie above every distance² the
//! exact limit accepts ([`GatherBox::bound`]). Only the candidates that pass get exact `i128`
//! keys; the others could not be accepted. Agents with few candidates test every exact key.
//! Speed only: the proptest `prefilter_never_rejects_an_accepted_key` checks that no accepted
//! key is ever ruled out, at every scale and at the ends of `i64`.

use super::select::Offer;
use super::sq_diff;
use crate::math::{Vec2, root_bound};

/// Quantized candidate offsets are below `2^QBITS` (see [`GatherBox`]): differences of two are
/// below `2¹⁴` in magnitude and sums of two squares below `2²⁹`, exact in `i32`.
const QBITS: u32 = 14;

/// The prefilter's flags are read a word (this many one-byte flags) at a time.
pub(super) const WORD: usize = 8;

/// A gathered candidate: raw coordinates and slot.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cand {
    pub(super) x: i64,
    pub(super) y: i64,
    pub(super) slot: u32,
}

impl Cand {
    /// Its exact squared distance (raw Q64.64) from the raw point `(cx, cy)`.
    #[inline(always)]
    fn dist_sq(&self, (cx, cy): (i64, i64)) -> u128 {
        sq_diff(self.x, cx) + sq_diff(self.y, cy)
    }
}

/// A leaf's candidates: each one's coordinates and slot, and its quantized coordinates (see
/// [`GatherBox`]) apart, so that one agent's prefilter flags (one byte per candidate) are
/// computed several at a time. Every array has `room` entries (a multiple of [`WORD`], at
/// least the candidate cap): the gather writes every point it scans and keeps it by
/// counting it, and the prefilter runs over whole words.
#[derive(Clone, Debug, Default)]
pub(super) struct Cands {
    pub(super) cands: Vec<Cand>,
    pub(super) qx: Vec<i16>,
    pub(super) qy: Vec<i16>,
    pub(super) flags: Vec<u8>,
}

/// A leaf's gather box and its quantization: the leaf's box widened by `r > √limit_sq`
/// along each axis (a point whose squared distance to the leaf's box is at most `limit_sq`
/// is within `√limit_sq` of it along each axis), clamped to the coordinates (the same
/// points): `[x0, x0 + wx] × [y0, y0 + wy]` (raw, `w < 2⁶⁴`). A coordinate `c` of the box
/// is quantized to `(c − c0) >> shift`, below `2^QBITS`.
#[derive(Clone, Copy, Debug)]
pub(super) struct GatherBox {
    x0: i64,
    y0: i64,
    wx: u64,
    wy: u64,
    shift: u32,
}

impl GatherBox {
    /// The gather box of the leaf box `[min, max]` for the limit `limit_sq` (raw Q64.64).
    pub(super) fn new(min: Vec2, max: Vec2, limit_sq: u128) -> Self {
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
    pub(super) fn offsets(&self, x: i64, y: i64) -> (u64, u64) {
        (
            x.wrapping_sub(self.x0) as u64,
            y.wrapping_sub(self.y0) as u64,
        )
    }

    /// Whether the point of offsets `(u, v)` ([`offsets`](Self::offsets)) is in the box.
    #[inline(always)]
    pub(super) fn holds(&self, (u, v): (u64, u64)) -> bool {
        (u <= self.wx) & (v <= self.wy)
    }

    /// Whether the box meets the box `[min, max]`.
    #[inline(always)]
    pub(super) fn meets(&self, min: Vec2, max: Vec2) -> bool {
        // Each one's low corner is at most the other's high corner (`x0 + wx` is an i64:
        // the box is clamped to the coordinates).
        max.x.to_bits() >= self.x0
            && max.y.to_bits() >= self.y0
            && min.x.to_bits() <= self.x0.wrapping_add(self.wx as i64)
            && min.y.to_bits() <= self.y0.wrapping_add(self.wy as i64)
    }

    /// The quantized coordinate of the offset `u` (in `[0, w]`).
    #[inline(always)]
    pub(super) fn quantize(&self, u: u64) -> i16 {
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

/// Agents with at least `2·max + FILTER_MIN` candidates select with the prefilter.
const FILTER_MIN: usize = 16;

impl Cands {
    /// Continues the selection `sel`, its buffer `buf` (see [`Pick`] and [`Select`]), with
    /// the first `n` candidates but `own` (the agent's own index), the agent being at
    /// `center` (raw).
    ///
    /// [`Pick`]: super::select::Pick
    /// [`Select`]: super::select::Select
    #[inline(always)]
    pub(super) fn select<S: Offer>(
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::spatial::kdtree::PACKED_BOUND;
    use proptest::prelude::*;

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
    pub(crate) fn dist_sq(a: (i64, i64), p: (i64, i64)) -> u128 {
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
}

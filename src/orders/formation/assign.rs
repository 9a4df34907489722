//! Slot assignment: the exact Hungarian method up to [`EXACT_MAX`] units, a band sweep with
//! bounded pair swaps above (the rules and costs in the [formation docs](super)).

use crate::math::Vec2;

/// The largest group assigned exactly (Hungarian, `O(n³)`).
pub const EXACT_MAX: usize = 64;
/// Passes of pair swaps after the band sweep.
pub const SWAP_PASSES: usize = 2;
/// How many following slots (in sweep order) each slot is tried against in a swap pass (the
/// slot one band behind is tried as well).
pub const SWAP_WINDOW: usize = 4;

/// The cost of sending a unit at `p` to slot `s`: the floored fixed-point distance, as raw
/// bits.
#[inline]
fn cost(p: Vec2, s: Vec2) -> i64 {
    (s - p).length().to_bits()
}

/// Assigns `units` (positions, in ascending id) one-to-one to `slots` (as many, layout order):
/// returns, for each unit, the index of its slot. `facing` and `band` steer the sweep used
/// above [`EXACT_MAX`] units (see the [formation docs](super)). Deterministic: ties go to the
/// lower index.
///
/// # Panics
/// Never for equal lengths; with `units.len() != slots.len()` the lengths are cut to the
/// shorter (and the longer's tail left unassigned).
#[must_use]
pub fn assign(units: &[Vec2], slots: &[Vec2], facing: Vec2, band: usize) -> Vec<usize> {
    let n = units.len().min(slots.len());
    let (units, slots) = (&units[..n], &slots[..n]);
    if n <= EXACT_MAX {
        hungarian(units, slots)
    } else {
        sweep(units, slots, facing, band.max(1))
    }
}

/// The exact minimum-total-cost assignment (Kuhn–Munkres with potentials, the `O(n³)` form:
/// one shortest augmenting path per unit, each at most `n` relaxation rounds of `n` columns).
pub(crate) fn hungarian(units: &[Vec2], slots: &[Vec2]) -> Vec<usize> {
    let n = units.len();
    let costs: Vec<i64> = units
        .iter()
        .flat_map(|&p| slots.iter().map(move |&s| cost(p, s)))
        .collect();
    const INF: i128 = i128::MAX / 4;
    // 1-based: row 0 / column 0 are the virtual start of each augmenting path.
    let mut u = vec![0i128; n + 1];
    let mut v = vec![0i128; n + 1];
    let mut owner = vec![0usize; n + 1];
    let mut way = vec![0usize; n + 1];
    let mut min_v = vec![INF; n + 1];
    let mut used = vec![false; n + 1];
    for i in 1..=n {
        owner[0] = i;
        let mut j0 = 0;
        min_v.fill(INF);
        used.fill(false);
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let mut delta = INF;
            let mut j1 = 0;
            for j in 1..=n {
                if used[j] {
                    continue;
                }
                let cur = i128::from(costs[(i0 - 1) * n + j - 1]) - u[i0] - v[j];
                if cur < min_v[j] {
                    min_v[j] = cur;
                    way[j] = j0;
                }
                if min_v[j] < delta {
                    delta = min_v[j];
                    j1 = j;
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_v[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        while j0 != 0 {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
        }
    }
    let mut out = vec![0usize; n];
    for j in 1..=n {
        out[owner[j] - 1] = j - 1;
    }
    out
}

/// The band sweep and the bounded pair swaps (see the [formation docs](super)).
pub(crate) fn sweep(units: &[Vec2], slots: &[Vec2], facing: Vec2, band: usize) -> Vec<usize> {
    let n = units.len();
    let right = Vec2::new(facing.y, -facing.x);
    // Front to back (the largest `p · f` first), then left to right, then index.
    let order = |points: &[Vec2]| {
        let mut keyed: Vec<(i128, i128, usize)> = points
            .iter()
            .enumerate()
            .map(|(k, p)| (-p.dot_wide(facing), p.dot_wide(right), k))
            .collect();
        keyed.sort_unstable();
        // Within each band: left to right, then front to back, then index.
        for chunk in keyed.chunks_mut(band) {
            chunk.sort_unstable_by_key(|&(f, r, k)| (r, f, k));
        }
        keyed.into_iter().map(|(_, _, k)| k).collect::<Vec<usize>>()
    };
    let unit_order = order(units);
    // `seq[t]`: the slot at sweep position t; `at[t]`: the unit in it.
    let seq = order(slots);
    let mut at = unit_order;
    let mut d: Vec<i64> = (0..n).map(|t| cost(units[at[t]], slots[seq[t]])).collect();
    for _ in 0..SWAP_PASSES {
        let mut swapped = false;
        for t in 0..n {
            let behind = t + band;
            let window = (t + 1..n.min(t + 1 + SWAP_WINDOW)).chain((behind < n).then_some(behind));
            for o in window {
                let (a, b) = (units[at[t]], units[at[o]]);
                let (cross_a, cross_b) = (cost(a, slots[seq[o]]), cost(b, slots[seq[t]]));
                if i128::from(cross_a) + i128::from(cross_b) < i128::from(d[t]) + i128::from(d[o]) {
                    at.swap(t, o);
                    d[t] = cross_b;
                    d[o] = cross_a;
                    swapped = true;
                }
            }
        }
        if !swapped {
            break;
        }
    }
    let mut out = vec![0usize; n];
    for t in 0..n {
        out[at[t]] = seq[t];
    }
    out
}

/// The total cost of an assignment (raw bits, `i128`): what the tests compare.
#[cfg(test)]
pub(crate) fn total(units: &[Vec2], slots: &[Vec2], to: &[usize]) -> i128 {
    units
        .iter()
        .zip(to)
        .map(|(&p, &s)| i128::from(cost(p, slots[s])))
        .sum()
}

//! Waiting places beside a door's mouth ([`spot`]), kept apart ([`spot_margin`],
//! [`spot_candidates`]), and the hand of the mouth's axis a unit stands on ([`hand_of`]).
//! Part of [`decide_at`](super::decide_at).

use super::{Choke, TrafficParams, half};
use crate::math::{Fx, Vec2};
use crate::navigation::NavMesh;

/// Files of one layer of the waiting block.
const BLOCK_FILES: u32 = 2;
/// Ranks of one layer of the waiting block along the wall: past them the block grows outwards
/// (another layer of two files), not along the wall.
const BLOCK_RANKS: u32 = 6;

/// Waiting spot `k` on side `side` of `choke` for a unit of `radius` standing at `position`:
/// a block beside the entrance, on the waiter's right facing the portal (`left`: on its
/// left), in layers of [`BLOCK_FILES`] files by [`BLOCK_RANKS`] ranks: spot `k` is in layer
/// `l = k / 12`, file `k % 2 + 2 l` (`1.5 r` out from the wall, then `2.2 r` further per file)
/// and rank `(k % 12) / 2` (the first `w / 2 + 1.6 r` aside from the portal's axis, then
/// `2.2 r` apart). So a long queue waits in a block about `13 r` along the wall and as deep
/// as it needs, not along the wall to the map's edge (200 units from one side through a door
/// 1.3 wide: the farthest waiter 35.0 from the door's axis, 59.5 when the block was two files
/// deep and as long as the queue). Units coming out of the portal pass between the two
/// blocks; units of the side let through slide along the wall into the portal. A spot where
/// the unit would not be walkable moves out along the normal by `r`, up to 8 times; failing
/// that this is `position` (the unit waits where it stands). [`decide`](super::decide) takes
/// the first place (or `position`) free of the spots taken, else `position`.
pub(super) fn spot(
    params: &TrafficParams,
    mesh: &NavMesh,
    choke: &Choke,
    (side, left): (u8, bool),
    k: u32,
    position: Vec2,
    radius: Fx,
) -> Vec2 {
    let r = params.radius;
    let width = (choke.b - choke.a).length();
    let n = choke.normal(side);
    // Facing the door (−n), the right hand is n rotated by +90°.
    let right = if left { -n.perp() } else { n.perp() };
    let per = BLOCK_FILES * BLOCK_RANKS;
    let (rank, file) = (
        (k % per) / BLOCK_FILES,
        k % BLOCK_FILES + BLOCK_FILES * (k / per),
    );
    let step = r.saturating_mul(Fx::from_num(11)) / 5;
    let out = r.saturating_mul(Fx::from_num(3)) / 2 + step.saturating_mul(Fx::from_num(file));
    let aside = half(width)
        + r.saturating_mul(Fx::from_num(8)) / 5
        + step.saturating_mul(Fx::from_num(rank));
    let mut s = choke.mid() + n * out + right * aside;
    for _ in 0..=8 {
        if mesh.is_walkable(s, radius) {
            return s;
        }
        s += n * r;
    }
    position
}

/// The least room between two waiters' discs at their spots ([`decide`](super::decide)): a tenth of the
/// radius planned for (0.05 with the default radius), so spots handed out at the same time
/// are at least the two units' radii plus this apart.
#[must_use]
pub fn spot_margin(params: &TrafficParams) -> Fx {
    params.radius / 10
}

/// How many places of a block a fresh waiter of `radius` tries, with `taken` spots already
/// handed out: each spot taken can rule out the places within `2 · reach` of it, where
/// `reach` is about the larger of `radius` and `r`: up to `(2 · reach / 2.2 r + 1)²` of the
/// lattice, the two files of the block bounding one direction. Then the unit waits where it
/// stands.
pub(super) fn spot_candidates(params: &TrafficParams, radius: Fx, taken: usize) -> u32 {
    // Ranks within reach of one spot: 2 · reach / 2.2 r + 2 = 10 · reach / 11 r + 2, on the
    // raw bits (both positive: the radii are checked above 0), at most 64.
    let r = i128::from(params.radius.to_bits().max(1));
    let reach = i128::from(radius.to_bits()).max(r);
    let ranks = u32::try_from((10 * reach / (11 * r) + 2).min(64)).unwrap_or(64);
    let per_spot = ranks.saturating_mul(BLOCK_FILES);
    u32::try_from(taken)
        .unwrap_or(u32::MAX)
        .saturating_add(1)
        .saturating_mul(per_spot)
        .min(4_096)
}

/// A waiting block: (choke index, side, left hand).
pub(super) type Block = (usize, u8, bool);

/// Whether `p` lies on the left hand of `choke`'s axis for a unit of side `side` facing it.
pub(super) fn hand_of(choke: &Choke, side: u8, p: Vec2) -> bool {
    (p - choke.mid()).dot(choke.normal(side).perp()) < Fx::ZERO
}

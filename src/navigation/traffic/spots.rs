//! Waiting places beside a door's mouth ([`spot`]), kept apart ([`spot_margin`],
//! [`spot_candidates`]), and the hand of the mouth's axis a unit stands on ([`hand_of`]).
//! Part of [`decide_at`](super::decide_at).

use super::{Choke, TrafficParams, half};
use crate::geom::cmp_dist_segment_segment;
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

/// Places of the axis queue ([`axis_places`]): while one side holds a door narrower than
/// `3 r` and the other has no one approaching it, the holder's waiters nearest the door wait in single file on the
/// axis of its mouth instead of in the blocks beside it.
pub(super) const AXIS_PLACES: u32 = 6;
/// The first place of the axis queue from the mouth's middle, and the step between places,
/// in tenths of `r`: `2.5 r` (a unit going in through the mouth is `2 r` clear of it) and
/// `2.8 r` (units in a file `2.6 r` to `3.2 r` apart went through a door 1.3 wide one every
/// 0.75 to 1.0 s; packed `2.2 r` apart, one every 1 to 3.5 s).
const AXIS_FIRST: i64 = 25;
const AXIS_STEP: i64 = 28;

/// A point and a radius: a unit's disc, or a spot and its unit's radius.
pub(super) type Disc = (Vec2, Fx);

/// The places of the axis queue of door `key` (its key choke) in front of `mouth` on its side
/// `face` (its normal points out of the door there) for units of the traffic radius `r`,
/// nearest the mouth first: at most [`AXIS_PLACES`], ending before the first one that is not
/// walkable for `r`, not in sight of the mouth's middle for `r` (a disc of `r` reaches it in
/// a straight line), whose way from the mouth's middle passes within `r` of another door's
/// portal (a second door facing this one: the queue would run into it and the room beyond),
/// or whose disc would meet the disc of a unit at rest (`resting`: its point and radius) or of
/// a spot already handed out (`taken`), with [`spot_margin`] between them.
pub(super) fn axis_places(
    params: &TrafficParams,
    (mesh, doors): (&NavMesh, &super::Doors),
    (key, mouth, face): (usize, &Choke, u8),
    (resting, taken): (&[Disc], &[Disc]),
) -> Vec<Vec2> {
    let r = params.radius;
    let n = mouth.normal(face);
    let margin = spot_margin(params);
    let mut out = Vec::new();
    for j in 0..i64::from(AXIS_PLACES) {
        let q = mouth.mid() + n * (r.saturating_mul_int(AXIS_FIRST + AXIS_STEP * j) / 10);
        let clear = resting.iter().chain(taken).all(|&(p, pr)| {
            let apart = r.saturating_add(pr).saturating_add(margin);
            (q - p).length_squared_wide() >= crate::math::wide_mul(apart, apart)
        });
        let other_door = || {
            let m = mouth.mid();
            let (x0, x1) = (
                m.x.min(q.x).saturating_sub(r),
                m.x.max(q.x).saturating_add(r),
            );
            let (y0, y1) = (
                m.y.min(q.y).saturating_sub(r),
                m.y.max(q.y).saturating_add(r),
            );
            doors.chokes().iter().enumerate().any(|(k, ch)| {
                ch.a.x.max(ch.b.x) >= x0
                    && ch.a.x.min(ch.b.x) <= x1
                    && ch.a.y.max(ch.b.y) >= y0
                    && ch.a.y.min(ch.b.y) <= y1
                    && doors.door_of(k, 0).0 != key
                    && cmp_dist_segment_segment(m, q, ch.a, ch.b, r).is_lt()
            })
        };
        if !clear
            || !mesh.is_walkable(q, r)
            || !mesh.raycast(mouth.mid(), q, r).clear
            || other_door()
        {
            break;
        }
        out.push(q);
    }
    out
}

/// Whether `spot` is a place of an axis queue in front of `mouth` on side `face`: in front of
/// it and within `r / 4` of its axis. A block's places lie at least `w / 2 + 1.6 r` aside
/// ([`spot`]), so this tells them apart without the mesh.
pub(super) fn on_axis(params: &TrafficParams, (mouth, face): (&Choke, u8), spot: Vec2) -> bool {
    let d = spot - mouth.mid();
    let n = mouth.normal(face);
    d.dot(n) > Fx::ZERO && d.dot(n.perp()).abs() <= params.radius / 4
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

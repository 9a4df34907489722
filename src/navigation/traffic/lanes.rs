//! Lanes: keeping right at lane portals crossed both ways ([`keep_right`]), the yield test
//! near portals ([`near_portal`]), and the index both read portals through ([`PortalIndex`]:
//! the window of an ascending portal list along x), also used by the choke relations.

use super::{Choke, TrafficParams, half, wide_sq};
use crate::geom::{cmp_dist_point_segment, segments_intersect};
use crate::math::{Fx, Vec2};

/// Keeping right at lane portals, for units going from `position` towards `target` (their
/// current target) with `radius` (the `units`, in order): for each, the point to make its
/// next target, or `None`.
///
/// A unit's lane portal is the one of `lanes` its segment crosses nearest to `position`
/// (`target` strictly on the other side; a target on a portal's line is such a point
/// already). Only where units cross a lane portal **both ways** (counterflow) does a unit
/// keep right: a unit that would cross it outside its right lane (from `1.1 r` to the right
/// of the middle, so that two units passing each other at the lanes' inner edges do not
/// touch, to `w / 2 − 1.5 r`, so that a unit there clears the corners) gets the nearest point
/// of that lane; one crossing inside it keeps its path (units are not funnelled onto one
/// point). Keeping right at a corridor's mouths splits it into two lanes,
/// one per direction: head-on crowds that met in the middle held each other for minutes. A
/// flow one way keeps its paths.
#[must_use]
pub fn keep_right(lanes: &[Choke], units: &[(Vec2, Vec2, Fx)]) -> Vec<Option<Vec2>> {
    let index = PortalIndex::new(lanes, Fx::ZERO);
    keep_right_by(&index, &LaneIndex::new(lanes), units)
}

/// [`keep_right`] with the lanes' indexes made beforehand (`index` and `more`, of the same
/// lanes).
pub(crate) fn keep_right_by(
    index: &PortalIndex<'_>,
    more: &LaneIndex,
    units: &[(Vec2, Vec2, Fx)],
) -> Vec<Option<Vec2>> {
    let lanes = index.list;
    let crossing: Vec<Option<(usize, u8)>> = units
        .iter()
        .map(|&(position, target, _)| lane_crossing(index, Some(more), position, target))
        .collect();
    let mut sides = vec![0u8; lanes.len()];
    for &(l, side) in crossing.iter().flatten() {
        sides[l] |= 1 << side;
    }
    units
        .iter()
        .zip(&crossing)
        .map(|(&(position, target, radius), c)| {
            let (l, _) = c.filter(|c| sides[c.0] == 3)?;
            let lane = &lanes[l];
            let span = lane.b - lane.a;
            let width = span.length();
            let u = span.normalize_or_zero();
            // Along the portal from its middle, positive to the unit's right (its direction
            // rotated by −90°).
            let u = if (-(target - position).perp()).dot_wide(u) >= 0 {
                u
            } else {
                -u
            };
            let near = radius.saturating_mul(Fx::from_num(11)) / 10;
            let far = half(width).saturating_sub(radius.saturating_mul(Fx::from_num(3)) / 2);
            if far < near {
                return None;
            }
            // Where the segment crosses the portal, as an offset from the middle.
            let at = crossing_offset(lane, u, position, target);
            (at < near || at > far).then(|| lane.mid() + u * at.clamp(near, far))
        })
        .collect()
}

/// The offset along `u` (a unit vector along `lane`) from the lane's middle of the point where
/// the segment `p → q` crosses the lane's line (the segment is known to cross it).
fn crossing_offset(lane: &Choke, u: Vec2, p: Vec2, q: Vec2) -> Fx {
    // Signed distances of p and q from the line: the crossing is at p + (q − p) · dp / (dp − dq).
    let n = u.perp();
    let (dp, dq) = ((p - lane.mid()).dot(n), (q - lane.mid()).dot(n));
    let denom = dp - dq;
    if denom == Fx::ZERO {
        return Fx::ZERO;
    }
    let (op, oq) = ((p - lane.mid()).dot(u), (q - lane.mid()).dot(u));
    op + (oq - op).saturating_mul(dp / denom)
}

/// The lane portal (index, side crossed from) the segment `position → target` crosses nearest
/// to `position` (ties: the lowest index), `target` strictly on its other side.
pub(super) fn lane_crossing(
    lanes: &PortalIndex<'_>,
    more: Option<&LaneIndex>,
    position: Vec2,
    target: Vec2,
) -> Option<(usize, u8)> {
    // Only lanes whose box meets the segment's can be crossed: those of the grid cells the
    // segment's box covers (when they are few), else the lanes whose x-range can meet the
    // segment's, or those whose y-range can, whichever are fewer. The same answer as the
    // whole list: the nearest crossing, ties by index, whatever the order read (a lane listed
    // in two cells is tested twice, to the same result).
    let (lo, hi) = box_of(position, target);
    if let Some(cells) = more.and_then(|m| m.grid.cells(lo, hi)) {
        return lane_crossing_in(lanes.list, cells, position, target);
    }
    let range = lanes.x_range(lo.x, hi.x);
    if let Some(m) = more.filter(|_| range.len() > 8) {
        let along_y = m.y_range(lo.y, hi.y);
        if along_y.len() < range.len() {
            let order = m.by_y[along_y].iter().map(|&(_, l)| l as usize);
            return lane_crossing_in(lanes.list, order, position, target);
        }
    }
    lane_crossing_in(lanes.list, range, position, target)
}

/// The lanes indexed beyond [`PortalIndex`]'s x-order: along y (ties by index), for
/// segments that run along x, and in a grid of square cells, for short segments. Made once
/// per mesh and traffic radius (a pure function of the lanes).
#[derive(Clone, Debug, Default)]
pub(crate) struct LaneIndex {
    /// `(min(a.y, b.y), index)`, ascending.
    by_y: Vec<(Fx, u32)>,
    /// The largest `max − min` of the lanes' y.
    span_y: Fx,
    grid: LaneGrid,
}

impl LaneIndex {
    /// The index of `lanes` (at most `u32::MAX` of them, as any mesh's edges).
    pub(crate) fn new(lanes: &[Choke]) -> Self {
        let mut by_y: Vec<(Fx, u32)> = lanes
            .iter()
            .zip(0u32..)
            .map(|(c, l)| (c.a.y.min(c.b.y), l))
            .collect();
        by_y.sort_unstable();
        let span_y = lanes.iter().fold(Fx::ZERO, |m, c| {
            m.max(c.a.y.max(c.b.y).saturating_sub(c.a.y.min(c.b.y)))
        });
        Self {
            by_y,
            span_y,
            grid: LaneGrid::new(lanes),
        }
    }

    /// The positions in `by_y` of the lanes whose y-range can meet `[lo, hi]` (smaller y in
    /// `[lo − span_y, hi]`).
    fn y_range(&self, lo: Fx, hi: Fx) -> std::ops::Range<usize> {
        let from = lo.saturating_sub(self.span_y);
        self.by_y.partition_point(|&(y, _)| y < from)..self.by_y.partition_point(|&(y, _)| y <= hi)
    }
}

/// The box of `a` and `b`: its smallest and largest corners.
fn box_of(a: Vec2, b: Vec2) -> (Vec2, Vec2) {
    (
        Vec2::new(a.x.min(b.x), a.y.min(b.y)),
        Vec2::new(a.x.max(b.x), a.y.max(b.y)),
    )
}

/// Most grid cells a query reads; a larger box is read through the x- or y-order.
const GRID_QUERY_CELLS: usize = 32;

/// Most cells of a lane grid: the cell side doubles from 8 units until the lanes' box fits.
const GRID_CELLS: usize = 4_096;

/// The lanes in a uniform grid of square cells of side `2^shift` raw units, from `origin` (the
/// lanes' smallest raw coordinates): each lane is listed, ascending, in every cell its box
/// meets. Cell coordinates are clamped to the grid, so a point outside it falls in a border
/// cell, and a lane box and a query box that meet share a cell.
#[derive(Clone, Debug, Default)]
struct LaneGrid {
    origin: (i64, i64),
    shift: u32,
    dims: (usize, usize),
    /// Per cell (row-major), where its lanes start in `lanes`; one more at the end.
    start: Vec<u32>,
    lanes: Vec<u32>,
}

impl LaneGrid {
    fn new(lanes: &[Choke]) -> Self {
        let Some(first) = lanes.first() else {
            return Self::default();
        };
        let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
        let (mut lo, mut hi) = (bits(first.a), bits(first.a));
        for c in lanes {
            for p in [bits(c.a), bits(c.b)] {
                lo = (lo.0.min(p.0), lo.1.min(p.1));
                hi = (hi.0.max(p.0), hi.1.max(p.1));
            }
        }
        let mut grid = Self {
            origin: lo,
            shift: 35, // 8 units of 2³² raw bits
            ..Self::default()
        };
        loop {
            let (nx, ny) = (grid.axis(hi.0, lo.0) + 1, grid.axis(hi.1, lo.1) + 1);
            if nx.saturating_mul(ny) <= GRID_CELLS || grid.shift >= 62 {
                grid.dims = (nx, ny);
                break;
            }
            grid.shift += 1;
        }
        let boxes: Vec<_> = lanes
            .iter()
            .map(|c| {
                let (lo, hi) = box_of(c.a, c.b);
                grid.cell_box(lo, hi)
            })
            .collect();
        let cells = grid.dims.0 * grid.dims.1;
        let mut count = vec![0u32; cells + 1];
        for &((x0, x1), (y0, y1)) in &boxes {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    count[y * grid.dims.0 + x + 1] += 1;
                }
            }
        }
        for k in 0..cells {
            count[k + 1] += count[k];
        }
        let mut fill = count.clone();
        grid.lanes = vec![0; count[cells] as usize];
        for (l, &((x0, x1), (y0, y1))) in (0u32..).zip(&boxes) {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let k = y * grid.dims.0 + x;
                    grid.lanes[fill[k] as usize] = l;
                    fill[k] += 1;
                }
            }
        }
        grid.start = count;
        grid
    }

    /// The cell coordinate of raw coordinate `v` along an axis starting at `origin`, before
    /// clamping to the grid's upper end (0 below the origin).
    fn axis(&self, v: i64, origin: i64) -> usize {
        let d = (i128::from(v) - i128::from(origin)).max(0) >> self.shift;
        usize::try_from(d).unwrap_or(usize::MAX)
    }

    /// The cells (`x` and `y` ranges, inclusive, clamped) of the box `lo ..= hi`.
    fn cell_box(&self, lo: Vec2, hi: Vec2) -> ((usize, usize), (usize, usize)) {
        let (mx, my) = (self.dims.0.max(1) - 1, self.dims.1.max(1) - 1);
        let x = |v: Fx| self.axis(v.to_bits(), self.origin.0).min(mx);
        let y = |v: Fx| self.axis(v.to_bits(), self.origin.1).min(my);
        ((x(lo.x), x(hi.x)), (y(lo.y), y(hi.y)))
    }

    /// The lanes listed in the cells the box `lo ..= hi` covers (a lane may come more than
    /// once), or `None` when those are more than [`GRID_QUERY_CELLS`] (or there is no grid).
    fn cells(&self, lo: Vec2, hi: Vec2) -> Option<impl Iterator<Item = usize> + '_> {
        if self.start.is_empty() {
            return None;
        }
        let ((x0, x1), (y0, y1)) = self.cell_box(lo, hi);
        if (x1 - x0 + 1) * (y1 - y0 + 1) > GRID_QUERY_CELLS {
            return None;
        }
        Some((y0..=y1).flat_map(move |y| {
            let row = y * self.dims.0;
            let (from, to) = (self.start[row + x0], self.start[row + x1 + 1]);
            self.lanes[from as usize..to as usize]
                .iter()
                .map(|&l| l as usize)
        }))
    }
}

/// [`lane_crossing`] over the lanes `ls` (indices into `lanes`, in any order); over all of them
/// it is the plain form, the fast one's test oracle.
pub(super) fn lane_crossing_in(
    lanes: &[Choke],
    ls: impl IntoIterator<Item = usize>,
    position: Vec2,
    target: Vec2,
) -> Option<(usize, u8)> {
    let lo = (position.x.min(target.x), position.y.min(target.y));
    let hi = (position.x.max(target.x), position.y.max(target.y));
    let mut best: Option<(i128, usize, u8)> = None;
    for l in ls {
        let lane = &lanes[l];
        // Bounding boxes first (cheap), then the exact crossing.
        if lane.a.x.max(lane.b.x) < lo.0
            || lane.a.x.min(lane.b.x) > hi.0
            || lane.a.y.max(lane.b.y) < lo.1
            || lane.a.y.min(lane.b.y) > hi.1
        {
            continue;
        }
        let (Some(from), Some(to)) = (lane.side(position), lane.side(target)) else {
            continue;
        };
        if from == to || !segments_intersect(position, target, lane.a, lane.b) {
            continue;
        }
        let d = (lane.mid() - position).length_squared_wide();
        if best.is_none_or(|b| (d, l) < (b.0, b.1)) {
            best = Some((d, l, from));
        }
    }
    best.map(|b| (b.1, b.2))
}

/// Whether `position` is within [`TrafficParams::yield_within`] radii (default `20 r`) of the
/// middle of one of `portals` (chokes or lane portals): where units at rest at their goals
/// yield to those still going (beyond a door or a corridor, where the first through settle
/// in the way of the next). Kept near portals: in a crowd converging on one point, units
/// yielding everywhere were run over (an overlap of 0.996).
#[must_use]
pub fn near_portal(params: &TrafficParams, portals: &[Choke], position: Vec2) -> bool {
    let reach = params.r(params.yield_within);
    portals
        .iter()
        .any(|c| (c.mid() - position).length_squared_wide() < wide_sq(reach))
}

/// Portals (ascending, so by `a.x`) with the largest x-extent among them and a reach: the
/// portals whose middle or x-range can come within some distance of a point along x form one
/// contiguous range of the list, found by two binary searches instead of a scan.
pub(crate) struct PortalIndex<'a> {
    /// The portals, ascending.
    pub list: &'a [Choke],
    /// The largest `b.x − a.x` of the list (`a.x <= b.x`: `a` is the smaller corner).
    pub(super) span: Fx,
    /// A reach the caller bounds its distances by ([`relation`](super::relation): the farthest approach).
    pub reach_max: Fx,
}

impl<'a> PortalIndex<'a> {
    /// The index of `list` (ascending).
    pub(crate) fn new(list: &'a [Choke], reach_max: Fx) -> Self {
        debug_assert!(list.windows(2).all(|w| w[0] < w[1]));
        let span = list
            .iter()
            .fold(Fx::ZERO, |m, c| m.max(c.b.x.saturating_sub(c.a.x)));
        Self {
            list,
            span,
            reach_max,
        }
    }

    /// The range of portals whose x-range `[a.x, b.x]` meets `[lo, hi]`, and some more:
    /// `a.x` in `[lo − span, hi]`.
    pub(super) fn x_range(&self, lo: Fx, hi: Fx) -> std::ops::Range<usize> {
        let from = lo.saturating_sub(self.span);
        self.list.partition_point(|c| c.a.x < from)..self.list.partition_point(|c| c.a.x <= hi)
    }

    /// The range of portals whose x-range comes within `reach` of `x` (a superset of those
    /// whose middle does).
    pub(super) fn x_window(&self, x: Fx, reach: Fx) -> std::ops::Range<usize> {
        self.x_range(x.saturating_sub(reach), x.saturating_add(reach))
    }

    /// [`has_right_of_way`](super::has_right_of_way) over the index (of the chokes): only the
    /// chokes within the reach along x are read, the same answer.
    pub(crate) fn right_of_way(&self, position: Vec2, radius: Fx) -> bool {
        let reach = radius.saturating_mul(Fx::from_num(2));
        self.list[self.x_window(position.x, reach)]
            .iter()
            .any(|c| cmp_dist_point_segment(c.a, c.b, position, reach).is_lt())
    }

    /// [`near_portal`] over the index: only the portals within the reach along x are read.
    pub(crate) fn near(&self, params: &TrafficParams, position: Vec2) -> bool {
        let reach = params.r(params.yield_within);
        self.list[self.x_window(position.x, reach)]
            .iter()
            .any(|c| (c.mid() - position).length_squared_wide() < wide_sq(reach))
    }
}

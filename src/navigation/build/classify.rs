//! Walkable or blocked: where each triangle's centroid lies relative to the boundary and the
//! solid (counter-clockwise) polygons, exactly.
//!
//! The centroid `(a + b + c) / 3` is never rounded: the rings are scaled by 3 instead and the
//! test point is `a + b + c` (plan §1.2; coordinates below 2^22.6 units stay far inside
//! [`crate::geom::MAX_EXACT_COORD`]). Containment is [`crate::geom::point_in_polygon`]'s
//! nonzero-winding rule, evaluated on the edges whose y-range holds the point (the others add
//! no winding and cannot hold it), found through horizontal bands.

use super::grid::{Grid, RawBox, union};
use super::pieces::{Raw, vec};
use crate::geom::{Containment, left_of};

/// A ring scaled by 3, its edges bucketed by horizontal bands.
pub(crate) struct Ring {
    pts: Vec<Raw>,
    bbox: RawBox,
    y0: i64,
    band: i128,
    start: Vec<u32>,
    edges: Vec<u32>,
}

impl Ring {
    /// The ring of `pts` (at least one point, raw bits), scaled by 3.
    pub(crate) fn new(pts: &[Raw]) -> Self {
        let pts: Vec<Raw> = pts.iter().map(|p| (3 * p.0, 3 * p.1)).collect();
        let n = pts.len();
        let bbox = union(pts.iter().map(|&p| (p, p))).unwrap_or_default();
        let bands = (n / 4).clamp(1, 1024);
        let band = (i128::from(bbox.1.1 - bbox.0.1) / bands as i128 + 1).max(1);
        let band_of = |y: i64| ((i128::from(y) - i128::from(bbox.0.1)) / band) as usize;
        let mut start = vec![0u32; bands + 2];
        let y_range = |i: usize| {
            let (a, b) = (pts[i], pts[(i + 1) % n]);
            (band_of(a.1.min(b.1)), band_of(a.1.max(b.1)))
        };
        for i in 0..n {
            let (lo, hi) = y_range(i);
            (lo..=hi).for_each(|b| start[b + 1] += 1);
        }
        for b in 0..=bands {
            start[b + 1] += start[b];
        }
        let mut fill = start.clone();
        let mut edges = vec![0u32; start[bands + 1] as usize];
        for i in 0..n {
            let (lo, hi) = y_range(i);
            for b in lo..=hi {
                edges[fill[b] as usize] = i as u32;
                fill[b] += 1;
            }
        }
        Self {
            pts,
            bbox,
            y0: bbox.0.1,
            band,
            start,
            edges,
        }
    }

    /// The scaled ring's bounding box.
    pub(crate) fn bbox(&self) -> RawBox {
        self.bbox
    }

    /// Where `p` (already scaled by 3) lies: [`crate::geom::point_in_polygon`] of the scaled
    /// ring, exactly.
    pub(crate) fn contains(&self, p: Raw) -> Containment {
        let b = self.bbox;
        if p.0 < b.0.0 || p.0 > b.1.0 || p.1 < b.0.1 || p.1 > b.1.1 {
            return Containment::Outside;
        }
        let band = ((i128::from(p.1) - i128::from(self.y0)) / self.band) as usize;
        let n = self.pts.len();
        let mut winding = 0i64;
        for &i in &self.edges[self.start[band] as usize..self.start[band + 1] as usize] {
            let (a, c) = (self.pts[i as usize], self.pts[(i as usize + 1) % n]);
            let l = left_of(vec(a), vec(c), vec(p));
            let in_box = p.0 >= a.0.min(c.0)
                && p.0 <= a.0.max(c.0)
                && p.1 >= a.1.min(c.1)
                && p.1 <= a.1.max(c.1);
            if l == 0 && in_box {
                return Containment::Boundary;
            }
            if a.1 <= p.1 {
                if c.1 > p.1 && l > 0 {
                    winding += 1;
                }
            } else if c.1 <= p.1 && l < 0 {
                winding -= 1;
            }
        }
        if winding == 0 {
            Containment::Outside
        } else {
            Containment::Inside
        }
    }
}

/// The classifier: the boundary ring and the solid polygons, bucketed by their boxes.
pub(crate) struct Classifier {
    boundary: Ring,
    solids: Vec<Ring>,
    grid: Option<Grid>,
}

impl Classifier {
    /// A classifier for `boundary` and the solid rings `solids` (raw, unscaled).
    pub(crate) fn new(boundary: &[Raw], solids: &[Vec<Raw>]) -> Self {
        let boundary = Ring::new(boundary);
        let solids: Vec<Ring> = solids.iter().map(|s| Ring::new(s)).collect();
        let boxes: Vec<RawBox> = solids.iter().map(Ring::bbox).collect();
        let grid = union(boxes.iter().copied()).map(|b| Grid::new(b, &boxes, boxes.len()));
        Self {
            boundary,
            solids,
            grid,
        }
    }

    /// Whether the triangle `a b c` (raw) is walkable: its centroid strictly inside the
    /// boundary and neither inside nor on any solid polygon.
    pub(crate) fn walkable(&self, a: Raw, b: Raw, c: Raw) -> bool {
        let p = (a.0 + b.0 + c.0, a.1 + b.1 + c.1);
        if self.boundary.contains(p) != Containment::Inside {
            return false;
        }
        let Some(grid) = &self.grid else { return true };
        let solid = |i: &u32| self.solids[*i as usize].contains(p) != Containment::Outside;
        let (cx, cy) = grid.cell_of(p);
        !(grid.items(cx, cy).iter().any(solid) || grid.big.iter().any(solid))
    }
}

//! The seed grid of point location: a coarse grid over the mesh's bounding box naming, for each
//! cell, a triangle near it, where [`NavMesh::locate`] starts walking. It only shortens walks:
//! the located triangle does not depend on it (see `locate`'s tie rule).

use super::NavMesh;
use crate::math::Vec2;

/// A grid of start triangles over the mesh's bounding box.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SeedGrid {
    /// Lower corner of the box (raw bits).
    lo: (i64, i64),
    /// Upper corner of the box (raw bits).
    hi: (i64, i64),
    /// Cell side: `2^shift` raw units (a power of two, so a cell is found by shifts: no
    /// division per triangle or per query).
    shift: u32,
    nx: usize,
    ny: usize,
    /// One triangle per cell, row-major.
    cells: Vec<u32>,
}

impl SeedGrid {
    /// The grid of `mesh`: square cells whose side is the power of two just above the side of
    /// two triangles per cell (so two to eight per cell, evenly spread; fewer empty cells,
    /// whose seeds are borrowed from a neighbour, than with a side of exactly two).
    pub(crate) fn new(mesh: &NavMesh) -> Self {
        let raw = |p: Vec2| (p.x.to_bits(), p.y.to_bits());
        let Some(first) = mesh.verts.first() else {
            return Self::default();
        };
        if mesh.tris.is_empty() {
            return Self::default();
        }
        let (mut lo, mut hi) = (raw(*first), raw(*first));
        for &p in &mesh.verts {
            let p = raw(p);
            lo = (lo.0.min(p.0), lo.1.min(p.1));
            hi = (hi.0.max(p.0), hi.1.max(p.1));
        }
        let side = (mesh.tris.len() / 2).isqrt() + 1;
        let span = i128::from(hi.0 - lo.0).max(i128::from(hi.1 - lo.1));
        let shift = (span / side as i128 + 1).ilog2() + 1;
        let nx = ((i128::from(hi.0) - i128::from(lo.0)) >> shift) as usize + 1;
        let ny = ((i128::from(hi.1) - i128::from(lo.1)) >> shift) as usize + 1;
        let mut grid = Self {
            lo,
            hi,
            shift,
            nx,
            ny,
            cells: vec![u32::MAX; nx * ny],
        };
        for t in 0..mesh.tris.len() {
            let c = mesh.corners(t as u32);
            // i64 when the sum fits (any built mesh: |raw| < 2^53), i128 otherwise; the same
            // quotient either way.
            let third = |f: fn(Vec2) -> i64| {
                let (a, b, c) = (f(c[0]), f(c[1]), f(c[2]));
                a.checked_add(b).and_then(|s| s.checked_add(c)).map_or_else(
                    || ((i128::from(a) + i128::from(b) + i128::from(c)) / 3) as i64,
                    |s| s / 3,
                )
            };
            let centroid = (third(|p| p.x.to_bits()), third(|p| p.y.to_bits()));
            let cell = grid.cell(centroid);
            if grid.cells[cell] == u32::MAX {
                grid.cells[cell] = t as u32;
            }
        }
        // Empty cells take the last filled cell before them (the first filled one at the start).
        let first_filled = grid.cells.iter().copied().find(|&t| t != u32::MAX);
        let mut last = first_filled.unwrap_or(0);
        for c in &mut grid.cells {
            if *c == u32::MAX {
                *c = last;
            } else {
                last = *c;
            }
        }
        grid
    }

    /// The cell index of a raw point inside the box.
    fn cell(&self, p: (i64, i64)) -> usize {
        let axis = |v: i64, lo: i64| ((i128::from(v) - i128::from(lo)) >> self.shift) as usize;
        let (cx, cy) = (axis(p.0, self.lo.0), axis(p.1, self.lo.1));
        cy.min(self.ny - 1) * self.nx + cx.min(self.nx - 1)
    }

    /// The mesh's bounding box (raw bits; of its vertices, hull corners included).
    pub(crate) fn bounds(&self) -> ((i64, i64), (i64, i64)) {
        (self.lo, self.hi)
    }

    /// Whether `p` lies in the grid's (the mesh's) bounding box.
    pub(crate) fn covers(&self, p: Vec2) -> bool {
        let (x, y) = (p.x.to_bits(), p.y.to_bits());
        !self.cells.is_empty()
            && x >= self.lo.0
            && x <= self.hi.0
            && y >= self.lo.1
            && y <= self.hi.1
    }

    /// The start triangle for `p` (inside the box).
    pub(crate) fn seed(&self, p: Vec2) -> u32 {
        self.cells[self.cell((p.x.to_bits(), p.y.to_bits()))]
    }
}

//! A uniform bucket grid of axis-aligned boxes on raw coordinates: the broad phase of the
//! builder (which segments may cross, which vertices may lie on a segment, which polygons may
//! contain a point). It only narrows candidate sets; every decision is an exact test made by the
//! caller, so the grid's shape never changes a result.

/// A box on raw Q32.32 bits: `(min x, min y)`, `(max x, max y)`, both inclusive.
pub(crate) type RawBox = ((i64, i64), (i64, i64));

/// Items bucketed by the cells their boxes overlap (compressed rows: `start[c]..start[c + 1]`
/// in `items`). An item overlapping more than [`BIG_CELLS`] cells is kept in `big` instead, so
/// a long boundary edge costs one entry, not a row of cells.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    x0: i64,
    y0: i64,
    size: i128,
    nx: usize,
    ny: usize,
    start: Vec<u32>,
    items: Vec<u32>,
    /// Items too large for the cells, in ascending order.
    pub big: Vec<u32>,
}

/// Most cells one item is bucketed into before it goes to [`Grid::big`].
const BIG_CELLS: usize = 64;

impl Grid {
    /// Buckets `boxes` (item `i` is `boxes[i]`) over `bounds` (which contains them all) into
    /// about `target` square cells.
    pub(crate) fn new(bounds: RawBox, boxes: &[RawBox], target: usize) -> Self {
        let ((x0, y0), (x1, y1)) = bounds;
        let span = i128::from(x1 - x0).max(i128::from(y1 - y0)).max(1);
        let side = target.max(1).isqrt() + 1;
        let size = (span / side as i128 + 1).max(1);
        let nx = (i128::from(x1 - x0) / size + 1) as usize;
        let ny = (i128::from(y1 - y0) / size + 1) as usize;
        let mut grid = Self {
            x0,
            y0,
            size,
            nx,
            ny,
            start: vec![0; nx * ny + 1],
            items: Vec::new(),
            big: Vec::new(),
        };
        let mut ranges = Vec::with_capacity(boxes.len());
        for (i, b) in boxes.iter().enumerate() {
            let r = grid.cell_range(*b);
            if (r.1 - r.0 + 1) * (r.3 - r.2 + 1) > BIG_CELLS {
                grid.big.push(i as u32);
                ranges.push(None);
            } else {
                for cy in r.2..=r.3 {
                    for cx in r.0..=r.1 {
                        grid.start[cy * nx + cx + 1] += 1;
                    }
                }
                ranges.push(Some(r));
            }
        }
        for c in 0..nx * ny {
            grid.start[c + 1] += grid.start[c];
        }
        let mut fill = grid.start.clone();
        grid.items = vec![0; grid.start[nx * ny] as usize];
        for (i, r) in ranges.iter().enumerate() {
            let Some(r) = r else { continue };
            for cy in r.2..=r.3 {
                for cx in r.0..=r.1 {
                    let c = cy * nx + cx;
                    grid.items[fill[c] as usize] = i as u32;
                    fill[c] += 1;
                }
            }
        }
        grid
    }

    /// The number of columns and rows.
    pub(crate) fn dims(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    /// The cell holding a point (clamped to the grid).
    pub(crate) fn cell_of(&self, p: (i64, i64)) -> (usize, usize) {
        let clamp = |v: i64, o: i64, n: usize| -> usize {
            let c = (i128::from(v) - i128::from(o)) / self.size;
            c.clamp(0, n as i128 - 1) as usize
        };
        (clamp(p.0, self.x0, self.nx), clamp(p.1, self.y0, self.ny))
    }

    /// The cells a box overlaps: `(x from, x to, y from, y to)`, inclusive.
    pub(crate) fn cell_range(&self, b: RawBox) -> (usize, usize, usize, usize) {
        let (lo, hi) = (self.cell_of(b.0), self.cell_of(b.1));
        (lo.0, hi.0, lo.1, hi.1)
    }

    /// The items bucketed in cell `(cx, cy)`, ascending.
    pub(crate) fn items(&self, cx: usize, cy: usize) -> &[u32] {
        let c = cy * self.nx + cx;
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }
}

/// The bounding box of two points.
pub(crate) fn box_of(a: (i64, i64), b: (i64, i64)) -> RawBox {
    ((a.0.min(b.0), a.1.min(b.1)), (a.0.max(b.0), a.1.max(b.1)))
}

/// The bounding box of a list of boxes, `None` when empty.
pub(crate) fn union(boxes: impl IntoIterator<Item = RawBox>) -> Option<RawBox> {
    boxes.into_iter().reduce(|a, b| {
        (
            (a.0.0.min(b.0.0), a.0.1.min(b.0.1)),
            (a.1.0.max(b.1.0), a.1.1.max(b.1.1)),
        )
    })
}

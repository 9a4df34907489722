//! The march layer of `render`: for every group moving together
//! ([`Command::FormationMarch`](lockstep_orca::Command::FormationMarch)) its shared path, the
//! stretches where it narrows to a column (a band as wide as the column), and the moving frame:
//! the outline of each block of members (the formation around the moving centre, the ranks
//! still waiting for their turn, the column, the ranks re-formed past the narrow stretch) and
//! an arrowhead at the frame's head, pointing along the path. Sampled with the positions,
//! read through the public API (`Simulator::formations`, [`March::blocks`]); floats only to
//! place pixels.
#![allow(clippy::float_arithmetic)]

use super::View;
use super::nav::Pt;
use super::svg_doc::{fmt1, hex, points_attr};
use lockstep_orca::orders::formation::March;
use lockstep_orca::orders::formation::march::Phase;
use lockstep_orca::{Fx, Simulator};
use std::collections::BTreeMap;

/// Points per block edge in an outline (the outline bends with the path).
const EDGE_SAMPLES: i64 = 12;

/// One march as drawn at one tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarchPicture {
    /// The shared path.
    pub path: Vec<Pt>,
    /// Each narrow stretch: its centre line and the column's width.
    pub zones: Vec<(Vec<Pt>, f64)>,
    /// Each block's outline (closed).
    pub outlines: Vec<Vec<Pt>>,
    /// The arrowhead at the frame's head (tip first).
    pub head: Option<[Pt; 3]>,
}

impl MarchPicture {
    /// The picture of `m`.
    pub fn of(m: &March) -> Self {
        let at = |s: Fx, x: f64| {
            let (p, dir) = m.point_at(s);
            let ((px, py), (dx, dy)) = (p.to_f64(), dir.to_f64());
            (px + x * dy, py - x * dx)
        };
        let fx = |v: Fx| v.to_num::<f64>();
        // Half the column's spacing (1.25 radii of the largest member): the outline encloses
        // the members' discs, not only their targets.
        let pad = fx(m.column_spacing) / 2.0;
        let width = |files: u32| fx(m.column_spacing) * f64::from(files);
        let zones = m
            .zones
            .iter()
            .map(|z| (stretch(z.a, z.b, |s| at(s, 0.0)), width(z.files)))
            .collect();
        let mut outlines = Vec::new();
        let mut head = None;
        for b in m.blocks() {
            let (rear, front) = (b.rear - Fx::from_num(pad), b.front + Fx::from_num(pad));
            let (left, right) = (fx(b.left) - pad, fx(b.right) + pad);
            let mut line = stretch(rear, front, |s| at(s, left));
            let mut back = stretch(rear, front, |s| at(s, right));
            back.reverse();
            line.append(&mut back);
            outlines.push(line);
            if matches!(b.phase, Phase::Wide | Phase::Column) {
                let mid = (left + right) / 2.0;
                let size = (pad * 2.0).max(fx(m.spacing));
                let tip = at(front + Fx::from_num(size), mid);
                let l = at(front, mid - size / 2.0);
                let r = at(front, mid + size / 2.0);
                head = Some([tip, l, r]);
            }
        }
        Self {
            path: m.path.iter().map(|p| p.to_f64()).collect(),
            zones,
            outlines,
            head,
        }
    }
}

/// `EDGE_SAMPLES + 1` points of `f` from arc `a` to arc `b`.
fn stretch(a: Fx, b: Fx, f: impl Fn(Fx) -> Pt) -> Vec<Pt> {
    let step = (b - a) / EDGE_SAMPLES;
    (0..=EDGE_SAMPLES)
        .map(|k| f(if k == EDGE_SAMPLES { b } else { a + step * k }))
        .collect()
}

/// The march layer of a run: per sampled tick, the marches then (ascending group id).
#[derive(Debug, Default)]
pub struct MarchLayer {
    /// Per sampled tick with a march: `(group, picture)`.
    pub frames: BTreeMap<u64, Vec<(u32, MarchPicture)>>,
}

impl MarchLayer {
    /// Samples `sim` at its tick: every march under way.
    pub fn observe(&mut self, sim: &Simulator) {
        let marches: Vec<(u32, MarchPicture)> = sim
            .formations()
            .filter_map(|(g, f)| Some((g, MarchPicture::of(f.march.as_deref()?))))
            .collect();
        if !marches.is_empty() {
            self.frames.insert(sim.tick(), marches);
        }
    }

    /// Whether any march was sampled.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The marches at `tick`.
    pub fn at(&self, tick: u64) -> &[(u32, MarchPicture)] {
        self.frames.get(&tick).map_or(&[], Vec::as_slice)
    }

    /// Each group's march as first sampled (its planned path and narrow stretches), ascending
    /// group id.
    pub fn first(&self) -> BTreeMap<u32, &MarchPicture> {
        let mut out = BTreeMap::new();
        for marches in self.frames.values() {
            for (g, m) in marches {
                out.entry(*g).or_insert(m);
            }
        }
        out
    }
}

/// The marches in the SVG: each group's path and narrow stretches as first sampled.
pub fn svg(mut doc: svg::Document, layer: &MarchLayer, view: &View) -> svg::Document {
    use svg::node::element::Polyline;
    for m in layer.first().values() {
        for (line, width) in &m.zones {
            doc = doc.add(
                Polyline::new()
                    .set("points", points_attr(view, line.iter().copied()))
                    .set("fill", "none")
                    .set("stroke", hex(super::MARCH_BAND))
                    .set("stroke-width", fmt1(view.r(*width, 2.0))),
            );
        }
        doc = doc.add(
            Polyline::new()
                .set("points", points_attr(view, m.path.iter().copied()))
                .set("fill", "none")
                .set("stroke", hex(super::MARCH_LINE))
                .set("stroke-width", 1)
                .set("stroke-dasharray", "4 3"),
        );
    }
    doc
}

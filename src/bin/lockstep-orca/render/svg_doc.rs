//! `render`'s SVG: the obstacles (or the navigation mesh), every agent's trajectory with a
//! disc at its start and a cross at its goal, and the marches' planned paths. Coordinates
//! are printed with one decimal, so the same run writes the same bytes.

use super::{
    BACKGROUND, MARK, NAV_BLOCKED, NAV_EDGE, NAV_WALKABLE, NAV_WALL, OBSTACLE_EDGE, OBSTACLE_FILL,
    Picture, View, march, nav, rgb, shape_points, signed_area2,
};
use lockstep_orca::ObstacleShape;

pub(super) fn hex(c: usize) -> String {
    let [r, g, b] = rgb(c);
    format!("#{r:02x}{g:02x}{b:02x}")
}

pub(super) fn fmt1(v: f64) -> String {
    let s = format!("{v:.1}");
    if s == "-0.0" { "0.0".into() } else { s }
}

pub(super) fn points_attr(view: &View, points: impl Iterator<Item = (f64, f64)>) -> String {
    let mut s = String::new();
    let mut last = String::new();
    for (x, y) in points {
        let point = format!("{},{}", fmt1(view.x(x)), fmt1(view.y(y)));
        // A point that rounds to the previous one adds nothing (an agent waiting at its goal).
        if point == last {
            continue;
        }
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&point);
        last = point;
    }
    s
}

pub(super) fn svg_document(p: &Picture, view: &View) -> svg::Document {
    use svg::node::element::{Circle, Path as SvgPath, Polygon, Polyline, Rectangle};
    let mut doc = svg::Document::new()
        .set("width", view.width)
        .set("height", view.height)
        .set("viewBox", (0, 0, view.width, view.height))
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", hex(BACKGROUND)),
        );
    let mesh = p.nav.as_ref().and_then(|n| n.mesh_at(u64::MAX));
    if let Some(mesh) = mesh {
        doc = svg_mesh(doc, mesh, view);
    }
    for s in p.obstacles.iter().filter(|_| mesh.is_none()) {
        let pts = shape_points(s);
        let attr = points_attr(view, pts.iter().copied());
        doc = match s {
            ObstacleShape::Polygon(_) if signed_area2(&pts) > 0.0 => doc.add(
                Polygon::new()
                    .set("points", attr)
                    .set("fill", hex(OBSTACLE_FILL))
                    .set("stroke", hex(OBSTACLE_EDGE)),
            ),
            ObstacleShape::Polygon(_) => doc.add(
                Polygon::new()
                    .set("points", attr)
                    .set("fill", "none")
                    .set("stroke", hex(OBSTACLE_EDGE))
                    .set("stroke-width", 2),
            ),
            ObstacleShape::Polyline(_) => doc.add(
                Polyline::new()
                    .set("points", attr)
                    .set("fill", "none")
                    .set("stroke", hex(OBSTACLE_EDGE))
                    .set("stroke-width", 2),
            ),
        };
    }
    doc = march::svg(doc, &p.march, view);
    for t in &p.tracks {
        doc = doc.add(
            Polyline::new()
                .set(
                    "points",
                    points_attr(view, t.points.iter().map(|&(_, x, y)| (x, y))),
                )
                .set("fill", "none")
                .set("stroke", hex(t.colour))
                .set("stroke-width", 1)
                .set("stroke-opacity", 0.8),
        );
    }
    for t in &p.tracks {
        let (_, x, y) = t.points[0];
        doc = doc.add(
            Circle::new()
                .set("cx", fmt1(view.x(x)))
                .set("cy", fmt1(view.y(y)))
                .set("r", fmt1(view.r(t.radius, 1.5)))
                .set("fill", hex(t.colour))
                .set("fill-opacity", 0.4)
                .set("stroke", hex(t.colour)),
        );
        let end = match t.goal {
            Some(g) => Some(g),
            None if p.replay => t.points.last().map(|&(_, x, y)| (x, y)),
            None => None,
        };
        if let Some((gx, gy)) = end {
            let (cx, cy, d) = (view.x(gx), view.y(gy), view.r(t.radius, 2.0) * 0.7);
            let data = format!(
                "M{} {}L{} {}M{} {}L{} {}",
                fmt1(cx - d),
                fmt1(cy - d),
                fmt1(cx + d),
                fmt1(cy + d),
                fmt1(cx - d),
                fmt1(cy + d),
                fmt1(cx + d),
                fmt1(cy - d)
            );
            doc = doc.add(
                SvgPath::new()
                    .set("d", data)
                    .set("stroke", hex(MARK))
                    .set("stroke-width", 1),
            );
        }
    }
    doc
}

/// The navigation mesh in the SVG: triangles filled by class with thin edges, walls bold.
fn svg_mesh(mut doc: svg::Document, mesh: &nav::MeshPicture, view: &View) -> svg::Document {
    use svg::node::element::{Line, Polygon};
    for (corners, walkable) in &mesh.triangles {
        let fill = if *walkable { NAV_WALKABLE } else { NAV_BLOCKED };
        doc = doc.add(
            Polygon::new()
                .set("points", points_attr(view, corners.iter().copied()))
                .set("fill", hex(fill))
                .set("stroke", hex(NAV_EDGE))
                .set("stroke-width", 0.5),
        );
    }
    for &((ax, ay), (bx, by)) in &mesh.walls {
        doc = doc.add(
            Line::new()
                .set("x1", fmt1(view.x(ax)))
                .set("y1", fmt1(view.y(ay)))
                .set("x2", fmt1(view.x(bx)))
                .set("y2", fmt1(view.y(by)))
                .set("stroke", hex(NAV_WALL))
                .set("stroke-width", 2),
        );
    }
    doc
}

//! `render`: pictures of a run. An SVG of the obstacles and every agent's trajectory, an
//! animated GIF and a PNG still. With navigation on, the navigation mesh and the planned paths
//! (`render/nav.rs`). Groups moving together: their shared path, the stretches where they
//! narrow to a column and the moving frame (`render/march.rs`).
//!
//! Rendering only reads positions through the public API (`agent_ids`, `agent_position`,
//! `agent_params`, `obstacles`) after each tick of an ordinary run. It feeds nothing back.
//! Floats appear only here, to place pixels: that is user output, never simulation input.
//! Hence the module-wide `allow(clippy::float_arithmetic)`.
#![allow(clippy::float_arithmetic)]

mod march;
mod nav;
mod svg_doc;

use crate::Fail;
use crate::files::{self, Output};
use crate::progress::Progress;
use crate::run;
use clap::{Args, ValueEnum};
use lockstep_orca::replay::{Frame, REPLAY_MAGIC, ReplayError, ReplayReader};
use lockstep_orca::scenario::RunOptions;
use lockstep_orca::{ObstacleShape, Simulator};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// Render a scenario run or a replay: an SVG, an animated GIF and/or a PNG still.
///
/// INPUT is a scenario file (TOML), which is run as `run` runs it, or a replay file (written by
/// `record`), which is re-run from its commands. The SVG shows the obstacles (solid polygons
/// filled, rooms and walls outlined) and every agent's trajectory, coloured by group or id,
/// with a disc at its start and a cross at its goal (a unit in a formation: at its slot; a
/// replay has no goals: the cross marks where each agent ended). The GIF shows the agents as discs, frame by frame, with their trails;
/// its palette is fixed and it is drawn without anti-aliasing, so the same command writes the
/// same bytes. The PNG is one such frame. Positions are sampled every --step ticks in the
/// range --from..=--to, plus the range's last tick. When the scene has navigation the pictures
/// show the navigation mesh instead of the obstacles (walkable triangles light with thin
/// edges, blocked triangles dark, walls bold) and, in the GIF and the PNG, each navigating
/// agent's remaining planned path in its colour. A group moving together (a formation move
/// with `together = true`) shows, while it marches, its shared path, the stretches where it
/// narrows to a column (a pale band as wide as the column) and the moving frame: the outline
/// of each block of members (around the moving centre, waiting for their turn, in the column,
/// re-formed past the narrow stretch) with an arrowhead at the frame's head. The SVG shows each
/// group's path and narrow stretches as planned.
#[derive(Args)]
pub struct RenderArgs {
    /// A scenario file (TOML, at most 16 MiB) or a replay file (streamed).
    pub input: PathBuf,
    /// Write the SVG picture of the whole range here.
    #[arg(long, value_name = "OUT")]
    pub svg: Option<PathBuf>,
    /// Write the animated GIF here (one frame per sampled tick).
    #[arg(long, value_name = "OUT")]
    pub gif: Option<PathBuf>,
    /// Write a PNG still of one frame (tick --at) here.
    #[arg(long, value_name = "OUT")]
    pub png: Option<PathBuf>,
    /// The longer side of the picture, in pixels.
    #[arg(long, value_name = "PX", default_value_t = 480, value_parser = clap::value_parser!(u32).range(16..=4096))]
    pub size: u32,
    /// Sample positions every K ticks (trajectory points and animation frames).
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub step: u64,
    /// First tick shown.
    #[arg(long, value_name = "T", default_value_t = 0)]
    pub from: u64,
    /// Last tick shown (default: the end of the run; a scenario run stops here).
    #[arg(long, value_name = "T")]
    pub to: Option<u64>,
    /// Run a scenario exactly N ticks (default: until every goal is reached or max_ticks).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    /// The tick of the PNG still (default: the last tick shown).
    #[arg(long, value_name = "T")]
    pub at: Option<u64>,
    /// Colour agents by group (the direction from start to goal, in 8 sectors) or by id.
    #[arg(long, value_enum, default_value_t = ColorBy::Group)]
    pub color: ColorBy,
    /// Draw no trails in the GIF and the PNG (only the agents; smaller animations).
    #[arg(long)]
    pub no_trails: bool,
    /// Delay between GIF frames, in hundredths of a second.
    #[arg(long, value_name = "CS", default_value_t = 5)]
    pub delay: u16,
}

/// How agents are coloured.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorBy {
    /// Agents heading the same way (start to goal, 8 sectors of 45 degrees) share a colour.
    Group,
    /// Colour cycles through the palette by agent id.
    Id,
}

/// The fixed palette (RGB): background, obstacle fill, obstacle edge, marks, then the agents'.
const PALETTE: [[u8; 3]; 16] = [
    [0xff, 0xff, 0xff],
    [0xc8, 0xc8, 0xc8],
    [0x50, 0x50, 0x50],
    [0x00, 0x00, 0x00],
    [0xe6, 0x19, 0x4b],
    [0x3c, 0xb4, 0x4b],
    [0x43, 0x63, 0xd8],
    [0xf5, 0x82, 0x31],
    [0x91, 0x1e, 0xb4],
    [0x42, 0xd4, 0xf4],
    [0xf0, 0x32, 0xe6],
    [0x9a, 0x63, 0x24],
    [0x46, 0x99, 0x90],
    [0x80, 0x00, 0x00],
    [0x00, 0x00, 0x75],
    [0xaa, 0xaa, 0x00],
];
const BACKGROUND: usize = 0;
const OBSTACLE_FILL: usize = 1;
const OBSTACLE_EDGE: usize = 2;
const MARK: usize = 3;
const FIRST_AGENT_COLOUR: usize = 4;
const AGENT_COLOURS: usize = PALETTE.len() - FIRST_AGENT_COLOUR;

/// The colours the navigation layer adds after [`PALETTE`] (a picture without navigation
/// keeps the 16-colour palette, so its bytes do not change): walkable triangles, the mesh's
/// edges, blocked triangles, walls.
const NAV_PALETTE: [[u8; 3]; 4] = [
    [0xf4, 0xf4, 0xec],
    [0xd8, 0xd8, 0xd0],
    [0x78, 0x78, 0x78],
    [0x10, 0x10, 0x10],
];
const NAV_WALKABLE: usize = PALETTE.len();
const NAV_EDGE: usize = PALETTE.len() + 1;
const NAV_BLOCKED: usize = PALETTE.len() + 2;
const NAV_WALL: usize = PALETTE.len() + 3;

/// The colours the march layer adds after [`NAV_PALETTE`] (a picture without a march keeps
/// its palette, so its bytes do not change): the shared path and the frame's outlines, the
/// narrow stretches' bands.
const MARCH_PALETTE: [[u8; 3]; 2] = [[0x1a, 0x3a, 0x8c], [0xf6, 0xc8, 0x7a]];
const MARCH_LINE: usize = PALETTE.len() + NAV_PALETTE.len();
const MARCH_BAND: usize = MARCH_LINE + 1;

/// The RGB of palette index `c` (the navigation colours follow [`PALETTE`], the march's
/// follow those).
fn rgb(c: usize) -> [u8; 3] {
    let nav = c.checked_sub(PALETTE.len());
    let march = nav.and_then(|k| k.checked_sub(NAV_PALETTE.len()));
    match (PALETTE.get(c), march) {
        (Some(&c), _) => c,
        (None, Some(k)) => MARCH_PALETTE[k],
        (None, None) => NAV_PALETTE[nav.unwrap_or(0)],
    }
}

/// One agent's samples.
struct Track {
    id: u32,
    radius: f64,
    /// `(tick, x, y)`, ascending tick.
    points: Vec<(u64, f64, f64)>,
    goal: Option<(f64, f64)>,
    colour: usize,
}

/// What a run showed: obstacles, the sampled ticks and each agent's track.
struct Picture {
    trails: bool,
    obstacles: Vec<ObstacleShape>,
    ticks: Vec<u64>,
    tracks: Vec<Track>,
    replay: bool,
    /// The navigation mesh and planned paths, when the run has navigation.
    nav: Option<nav::NavLayer>,
    /// The marches (empty when no group moved together).
    march: march::MarchLayer,
}

/// What a run's sampling gives: the sampled ticks, each agent's track, the navigation layer
/// (with navigation) and the march layer.
type Samples = (
    Vec<u64>,
    Vec<Track>,
    Option<nav::NavLayer>,
    march::MarchLayer,
);

/// One agent in one state: id, x, y, radius.
type AgentState = (u32, f64, f64, f64);

/// Samples positions after each tick (and the initial state).
struct Sampler {
    from: u64,
    to: u64,
    step: u64,
    at: Option<u64>,
    ticks: Vec<u64>,
    tracks: BTreeMap<u32, Track>,
    /// The latest state not sampled, kept so the range's last tick is always shown.
    pending: Option<(u64, Vec<AgentState>)>,
    /// The navigation layer, sampled with the positions (stays empty without navigation).
    nav: nav::NavLayer,
    /// Whether the simulator has navigation.
    has_nav: bool,
    /// The march layer, sampled with the positions.
    march: march::MarchLayer,
}

impl Sampler {
    fn state(sim: &Simulator) -> Vec<AgentState> {
        sim.agent_ids()
            .iter()
            .filter_map(|&id| {
                let p = sim.agent_position(id).ok()?.to_f64();
                let r = sim.agent_params(id).ok()?.radius.to_num::<f64>();
                Some((id.0, p.0, p.1, r))
            })
            .collect()
    }

    fn push(&mut self, tick: u64, state: Vec<AgentState>) {
        self.ticks.push(tick);
        for (id, x, y, r) in state {
            let t = self.tracks.entry(id).or_insert_with(|| Track {
                id,
                radius: r,
                points: Vec::new(),
                goal: None,
                colour: 0,
            });
            t.points.push((tick, x, y));
        }
    }

    fn observe(&mut self, sim: &Simulator) {
        let tick = sim.tick();
        if tick < self.from || tick > self.to {
            return;
        }
        let state = Self::state(sim);
        if (tick - self.from).is_multiple_of(self.step) || self.at == Some(tick) {
            self.pending = None;
            self.push(tick, state);
            self.has_nav |= self.nav.observe(sim);
            self.march.observe(sim);
        } else {
            self.pending = Some((tick, state));
        }
    }

    /// The samples; `last` is the simulator at the end of the run, sampled for the navigation
    /// layer when its tick was pending.
    fn finish(mut self, last: Option<&Simulator>) -> Samples {
        if let Some((tick, state)) = self.pending.take() {
            self.push(tick, state);
            if let Some(sim) = last.filter(|s| s.tick() == tick) {
                self.has_nav |= self.nav.observe(sim);
                self.march.observe(sim);
            }
        }
        let nav = self.has_nav.then_some(self.nav);
        (
            self.ticks,
            self.tracks.into_values().collect(),
            nav,
            self.march,
        )
    }
}

fn is_replay(path: &Path) -> Result<bool, Fail> {
    let mut magic = [0u8; 8];
    let mut f = std::fs::File::open(path)
        .map_err(|e| Fail::input(format!("cannot read {}: {e}", path.display())))?;
    let n = f.read(&mut magic).unwrap_or(0);
    Ok(n == 8 && magic == REPLAY_MAGIC)
}

/// Runs the input and samples it.
fn collect(args: &RenderArgs) -> Result<Picture, Fail> {
    let to = args.to.unwrap_or(u64::MAX);
    if to < args.from {
        return Err(Fail::input("--to is before --from"));
    }
    let mut sampler = Sampler {
        from: args.from,
        to,
        step: args.step,
        at: args.at,
        ticks: Vec::new(),
        tracks: BTreeMap::new(),
        pending: None,
        nav: nav::NavLayer::default(),
        has_nav: false,
        march: march::MarchLayer::default(),
    };
    let replay = is_replay(&args.input)?;
    let (obstacles, goals, last) = if replay {
        if args.ticks.is_some() {
            return Err(Fail::input(
                "--ticks applies to scenarios; a replay runs its own ticks",
            ));
        }
        let src = run::open_replay(&args.input)?;
        let invalid = |e: &ReplayError| run::invalid_replay(&args.input, e);
        let mut reader = ReplayReader::new(src).map_err(|e| invalid(&e))?;
        let mut sim = Simulator::restore(&reader.take_initial()).map_err(|e| {
            Fail::input(format!(
                "{}: bad initial snapshot: {e}",
                args.input.display()
            ))
        })?;
        let obstacles = sim.obstacles().iter().map(|(_, s)| s.clone()).collect();
        let progress = Progress::spinner("rendering".to_string());
        sampler.observe(&sim);
        while let Some(frame) = reader.next_frame().map_err(|e| invalid(&e))? {
            let Frame::Tick(step) = frame else { continue };
            let tick = step.tick;
            if tick >= to {
                break;
            }
            for c in step.commands {
                sim.queue_command(tick, c)
                    .map_err(|e| Fail::failed(format!("replay tick {tick}: {e}")))?;
            }
            sim.step()
                .map_err(|e| Fail::failed(format!("replay tick {tick}: {e}")))?;
            sampler.observe(&sim);
        }
        progress.finish();
        (obstacles, BTreeMap::new(), sim)
    } else {
        let (scenario, mut sim, driver) = run::build(&args.input)?;
        let options = RunOptions {
            max_ticks: Some(match args.ticks {
                Some(n) => n.min(to),
                None => driver.max_ticks().min(to),
            }),
            stop_when_reached: args.ticks.is_none(),
            hash_every: 0,
            track_clearance: false,
        };
        let progress = Progress::bar(options.max_ticks.unwrap_or(0), "render");
        driver
            .run_with(&mut sim, &options, |sim| {
                sampler.observe(sim);
                progress.set(sim.tick());
            })
            .map_err(|e| Fail::failed(format!("simulation failed at tick {}: {e}", sim.tick())))?;
        progress.finish();
        let last = sim.tick();
        let mut goals: BTreeMap<u32, (f64, f64)> = driver
            .agent_ids()
            .iter()
            .enumerate()
            .map(|(i, id)| (id.0, driver.goal_at(i, last).to_f64()))
            .collect();
        // A unit in a formation is marked at its slot (its group's last formation move).
        for (_, formation) in sim.formations() {
            for &(id, slot) in &formation.slots {
                goals.insert(id.0, slot.to_f64());
            }
        }
        (scenario.obstacles.clone(), goals, sim)
    };
    let (ticks, mut tracks, nav, march) = sampler.finish(Some(&last));
    if ticks.is_empty() {
        return Err(Fail::input(format!(
            "nothing to render: the run has no tick in {}..={}",
            args.from,
            args.to.map_or("end".into(), |t| t.to_string())
        )));
    }
    for t in &mut tracks {
        t.goal = goals.get(&t.id).copied();
        t.colour = FIRST_AGENT_COLOUR
            + match args.color {
                ColorBy::Id => t.id as usize % AGENT_COLOURS,
                ColorBy::Group => group(t) % AGENT_COLOURS,
            };
    }
    Ok(Picture {
        trails: !args.no_trails,
        obstacles,
        ticks,
        tracks,
        replay,
        nav,
        march,
    })
}

/// The sector (0..8, 45 degrees each, counter-clockwise from +x) of the direction from the
/// track's start to its goal (or, without a goal, its last point).
fn group(t: &Track) -> usize {
    let (_, x0, y0) = t.points[0];
    let (x1, y1) = t
        .goal
        .unwrap_or_else(|| t.points.last().map_or((x0, y0), |&(_, x, y)| (x, y)));
    let (dx, dy) = (x1 - x0, y1 - y0);
    if dx == 0.0 && dy == 0.0 {
        return 0;
    }
    let turns = dy.atan2(dx) / std::f64::consts::TAU + 1.0 / 16.0;
    (turns.rem_euclid(1.0) * 8.0) as usize % 8
}

/// World to pixels: a uniform scale, y up, a margin of 4 pixels.
struct View {
    min_x: f64,
    max_y: f64,
    scale: f64,
    width: u32,
    height: u32,
}

const MARGIN: f64 = 4.0;

impl View {
    fn new(p: &Picture, size: u32) -> Self {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        let mut grow = |x: f64, y: f64, r: f64| {
            x0 = x0.min(x - r);
            y0 = y0.min(y - r);
            x1 = x1.max(x + r);
            y1 = y1.max(y + r);
        };
        for s in &p.obstacles {
            for v in s.vertices() {
                let (x, y) = v.to_f64();
                grow(x, y, 0.0);
            }
        }
        for (x, y) in p.nav.iter().flat_map(nav::NavLayer::points) {
            grow(x, y, 0.0);
        }
        for t in &p.tracks {
            for &(_, x, y) in &t.points {
                grow(x, y, t.radius);
            }
            if let Some((x, y)) = t.goal {
                grow(x, y, t.radius);
            }
        }
        if x0 > x1 {
            (x0, y0, x1, y1) = (-1.0, -1.0, 1.0, 1.0);
        }
        let span = (x1 - x0).max(y1 - y0).max(1e-9);
        let inner = f64::from(size) - 2.0 * MARGIN;
        let scale = inner / span;
        let px = |d: f64| ((d * scale + 2.0 * MARGIN).round() as u32).clamp(16, size);
        Self {
            min_x: x0,
            max_y: y1,
            scale,
            width: px(x1 - x0),
            height: px(y1 - y0),
        }
    }

    fn x(&self, x: f64) -> f64 {
        MARGIN + (x - self.min_x) * self.scale
    }

    fn y(&self, y: f64) -> f64 {
        MARGIN + (self.max_y - y) * self.scale
    }

    /// A radius in pixels, at least `min`.
    fn r(&self, r: f64, min: f64) -> f64 {
        (r * self.scale).max(min)
    }
}

/// Twice the signed area: positive for counter-clockwise (solid) polygons.
fn signed_area2(points: &[(f64, f64)]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum()
}

fn shape_points(s: &ObstacleShape) -> Vec<(f64, f64)> {
    s.vertices().iter().map(|v| v.to_f64()).collect()
}

pub fn render(args: &RenderArgs) -> Result<(), Fail> {
    let outputs: Vec<&Path> = [&args.svg, &args.gif, &args.png]
        .into_iter()
        .flatten()
        .map(PathBuf::as_path)
        .collect();
    if outputs.is_empty() {
        return Err(Fail::input(
            "render needs at least one of --svg, --gif, --png",
        ));
    }
    files::check_outputs(&outputs, &[&args.input])?;
    // Every output's temporary file exists before the run: an unwritable path fails now.
    let svg = args.svg.as_deref().map(Output::create).transpose()?;
    let gif = args.gif.as_deref().map(Output::create).transpose()?;
    let png = args.png.as_deref().map(Output::create).transpose()?;
    let picture = collect(args)?;
    let view = View::new(&picture, args.size);
    if let Some(mut out) = svg {
        let doc = svg_doc::svg_document(&picture, &view);
        let name = out.path().display().to_string();
        svg::write(out.writer(), &doc).map_err(|e| Fail::failed(format!("{name}: {e}")))?;
        out.commit()?;
    }
    if let Some(mut out) = gif {
        let name = out.path().display().to_string();
        write_gif(out.writer(), &picture, &view, args.delay)
            .map_err(|e| Fail::failed(format!("{name}: {e}")))?;
        out.commit()?;
    }
    if let Some(mut out) = png {
        let last = *picture.ticks.last().expect("non-empty");
        let at = args.at.unwrap_or(last);
        let frame = picture
            .ticks
            .iter()
            .rposition(|&t| t <= at)
            .ok_or_else(|| Fail::input(format!("--at {at} is before the first tick shown")))?;
        let name = out.path().display().to_string();
        let indices = frame_indices(&picture, &view, picture.ticks[frame]);
        write_png(out.writer(), &view, palette_len(&picture), &indices)
            .map_err(|e| Fail::failed(format!("{name}: {e}")))?;
        out.commit()?;
    }
    Ok(())
}

fn paint(c: usize) -> Paint<'static> {
    let [r, g, b] = rgb(c);
    let mut paint = Paint::default();
    paint.set_color(Color::from_rgba8(r, g, b, 255));
    // No anti-aliasing: every pixel is a palette colour, so frames map to the fixed palette
    // exactly and the bytes are deterministic.
    paint.anti_alias = false;
    paint
}

fn stroke(width: f32) -> Stroke {
    Stroke {
        width,
        ..Stroke::default()
    }
}

/// Draws the frame at `tick` (agents at their position then, trails up to it) and maps it to
/// palette indices.
fn frame_indices(p: &Picture, view: &View, tick: u64) -> Vec<u8> {
    let mut pm = Pixmap::new(view.width, view.height).expect("size in 16..=4096");
    let [r, g, b] = PALETTE[BACKGROUND];
    pm.fill(Color::from_rgba8(r, g, b, 255));
    let id = Transform::identity();
    let line = |pts: &[(f64, f64)], close: bool| {
        let mut pb = PathBuilder::new();
        for (i, &(x, y)) in pts.iter().enumerate() {
            let (x, y) = (view.x(x) as f32, view.y(y) as f32);
            if i == 0 {
                pb.move_to(x, y);
            } else {
                pb.line_to(x, y);
            }
        }
        if close {
            pb.close();
        }
        pb.finish()
    };
    let mesh = p.nav.as_ref().and_then(|n| n.mesh_at(tick));
    if let Some(mesh) = mesh {
        for (corners, walkable) in &mesh.triangles {
            if let Some(path) = line(corners, true) {
                let fill = if *walkable { NAV_WALKABLE } else { NAV_BLOCKED };
                pm.fill_path(&path, &paint(fill), FillRule::Winding, id, None);
                pm.stroke_path(&path, &paint(NAV_EDGE), &stroke(1.0), id, None);
            }
        }
        for &(a, b) in &mesh.walls {
            if let Some(path) = line(&[a, b], false) {
                pm.stroke_path(&path, &paint(NAV_WALL), &stroke(2.0), id, None);
            }
        }
    }
    for s in p.obstacles.iter().filter(|_| mesh.is_none()) {
        let pts = shape_points(s);
        let solid = matches!(s, ObstacleShape::Polygon(_)) && signed_area2(&pts) > 0.0;
        let closed = matches!(s, ObstacleShape::Polygon(_));
        if let Some(path) = line(&pts, closed) {
            if solid {
                pm.fill_path(&path, &paint(OBSTACLE_FILL), FillRule::Winding, id, None);
            }
            let w = if solid { 1.0 } else { 2.0 };
            pm.stroke_path(&path, &paint(OBSTACLE_EDGE), &stroke(w), id, None);
        }
    }
    let marches = p.march.at(tick);
    for (_, m) in marches {
        for (centre, width) in &m.zones {
            let band = Stroke {
                width: view.r(*width, 4.0) as f32,
                ..Stroke::default()
            };
            if let Some(path) = line(centre, false) {
                pm.stroke_path(&path, &paint(MARCH_BAND), &band, id, None);
            }
        }
    }
    for t in &p.tracks {
        let trail: Vec<(f64, f64)> = t
            .points
            .iter()
            .take_while(|&&(k, _, _)| k <= tick)
            .map(|&(_, x, y)| (x, y))
            .collect();
        if p.trails
            && trail.len() >= 2
            && let Some(path) = line(&trail, false)
        {
            pm.stroke_path(&path, &paint(t.colour), &stroke(1.0), id, None);
        }
    }
    let paths = p.nav.as_ref().and_then(|n| n.paths.get(&tick));
    for (agent, path) in paths.into_iter().flatten() {
        let colour = p
            .tracks
            .iter()
            .find(|t| t.id == *agent)
            .map_or(MARK, |t| t.colour);
        if path.len() >= 2
            && let Some(path) = line(path, false)
        {
            pm.stroke_path(&path, &paint(colour), &stroke(1.0), id, None);
        }
    }
    for t in &p.tracks {
        if let Some((gx, gy)) = t.goal {
            let (cx, cy) = (view.x(gx) as f32, view.y(gy) as f32);
            let d = (view.r(t.radius, 2.0) * 0.7) as f32;
            let mut pb = PathBuilder::new();
            pb.move_to(cx - d, cy - d);
            pb.line_to(cx + d, cy + d);
            pb.move_to(cx - d, cy + d);
            pb.line_to(cx + d, cy - d);
            if let Some(path) = pb.finish() {
                pm.stroke_path(&path, &paint(MARK), &stroke(1.0), id, None);
            }
        }
    }
    for (_, m) in marches {
        if let Some(path) = line(&m.path, false) {
            pm.stroke_path(&path, &paint(MARCH_LINE), &stroke(1.0), id, None);
        }
        for outline in &m.outlines {
            if let Some(path) = line(outline, true) {
                pm.stroke_path(&path, &paint(MARCH_LINE), &stroke(1.0), id, None);
            }
        }
        if let Some(path) = m.head.and_then(|h| line(&h, true)) {
            pm.fill_path(&path, &paint(MARCH_LINE), FillRule::Winding, id, None);
        }
    }
    for t in &p.tracks {
        if let Some(&(_, x, y)) = t.points.iter().find(|&&(k, _, _)| k == tick) {
            let r = view.r(t.radius, 1.5) as f32;
            if let Some(path) = PathBuilder::from_circle(view.x(x) as f32, view.y(y) as f32, r) {
                pm.fill_path(&path, &paint(t.colour), FillRule::Winding, id, None);
            }
        }
    }
    let colours = palette_len(p);
    pm.pixels()
        .iter()
        .map(|px| {
            let c = [px.red(), px.green(), px.blue()];
            nearest(c, colours)
        })
        .collect()
}

/// The palette index of a colour among the first `colours` (exact for every colour drawn;
/// nearest otherwise).
fn nearest(c: [u8; 3], colours: usize) -> u8 {
    let d = |p: [u8; 3]| -> u32 {
        p.iter()
            .zip(c)
            .map(|(&a, b)| (i32::from(a) - i32::from(b)).unsigned_abs().pow(2))
            .sum()
    };
    (0..colours)
        .min_by_key(|&i| d(rgb(i)))
        .expect("non-empty palette") as u8
}

/// How many colours the picture uses: [`PALETTE`], plus [`NAV_PALETTE`] with navigation, plus
/// (after the navigation colours, whether used or not) [`MARCH_PALETTE`] with a march.
fn palette_len(p: &Picture) -> usize {
    if !p.march.is_empty() {
        MARCH_BAND + 1
    } else if p.nav.is_some() {
        PALETTE.len() + NAV_PALETTE.len()
    } else {
        PALETTE.len()
    }
}

fn palette_bytes(colours: usize) -> Vec<u8> {
    (0..colours).flat_map(rgb).collect()
}

fn write_gif(w: &mut impl Write, p: &Picture, view: &View, delay: u16) -> Result<(), String> {
    let (width, height) = (view.width as u16, view.height as u16);
    let mut enc = gif::Encoder::new(w, width, height, &palette_bytes(palette_len(p)))
        .map_err(|e| e.to_string())?;
    enc.set_repeat(gif::Repeat::Infinite)
        .map_err(|e| e.to_string())?;
    for &tick in &p.ticks {
        let frame = gif::Frame {
            width,
            height,
            delay,
            buffer: std::borrow::Cow::Owned(frame_indices(p, view, tick)),
            ..gif::Frame::default()
        };
        enc.write_frame(&frame).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn write_png(
    w: &mut impl Write,
    view: &View,
    colours: usize,
    indices: &[u8],
) -> Result<(), String> {
    let mut enc = png::Encoder::new(w, view.width, view.height);
    enc.set_color(png::ColorType::Indexed);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_palette(palette_bytes(colours));
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(indices)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

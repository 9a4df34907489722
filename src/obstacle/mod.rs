//! Static obstacles: polygons and polylines, their BSP tree, and the ORCA lines they induce.
//!
//! * [`ObstacleSet`] owns the obstacles (primary data: shapes with stable [`ObstacleId`]s and
//!   the id counter) and derived data (vertex arena and BSP tree), rebuilt deterministically
//!   from the primary data alone whenever the set changed — obstacles may be added and removed
//!   between any two ticks. The navigation boundary's walls
//!   ([`ObstacleSet::walls`]) join the tree, derived from the simulator's settings.
//! * [`ObstacleShape`]: the vertex convention (validated on entry); the shapes become an
//!   [`ObstacleVertex`] arena.
//! * The obstacle BSP tree, with segment splitting and a sampled split choice
//!   ([`ObstacleSet::bsp_stats`] reports its size).
//! * [`ObstacleNeighbors`]: which obstacle neighbours an agent sees — whole edges (default,
//!   tree-independent) or RVO2's split fragments (RVO2-compatible).
//! * RVO2's obstacle ORCA lines as pure functions ([`ObstacleSet::agent_lines`]), on exact
//!   position-scale geometry (`i128` products).
//!
//! # Determinism and translation invariance
//! Every geometric test takes coordinate differences only. In the default
//! [`ObstacleNeighbors::WholeEdges`] mode the BSP's shape may change under translation (split
//! points round), but no result does: the neighbour set of an agent is "edges with the agent
//! strictly on their right (exact test) and distance below
//! `time_horizon_obst · max_speed + radius`", sorted by `(dist², vertex index)`, whatever the
//! tree. Vertex indices number the arena built from the obstacles in id order, then the walls.
//!
//! In [`ObstacleNeighbors::Rvo2Fragments`] mode the neighbours are the tree's fragments, so the
//! result depends on the tree; it is still translation invariant, because the exhaustive split
//! choice scores fragments with exact side tests (differences only) and a split point is
//! `a + round((b − a)·t)` with `t` from differences only: a shifted map gives exactly the
//! shifted tree and the shifted fragments.
//!
//! # Domain
//! Vertices obey the coordinate domain of [`crate::domain`] (`|x|, |y| ≤ 10⁶`); no further
//! constraint is needed: position-scale quantities are exact `i128` and the emitted lines are
//! bounded by the agents' velocity-scale limits.

pub(crate) mod bsp;
pub(crate) mod geom;
pub(crate) mod lines;
pub(crate) mod polygon;

pub use bsp::BspStats;
pub use lines::VertexView;
pub use polygon::{MAX_VERTICES, ObstacleVertex};

use crate::agent::AgentId;
use crate::error::SimError;
use crate::math::{Fx, Vec2};
use crate::orca::Line;
use crate::util::ByteSink;
use bsp::{Bsp, SplitChoice};
use lines::obstacle_line;
use serde::{Deserialize, Serialize};

/// What obstacle-line construction needs to know about the agent.
#[derive(Clone, Copy, Debug)]
pub struct ObstacleAgent {
    /// Agent id.
    pub id: AgentId,
    /// Position.
    pub position: Vec2,
    /// Current velocity.
    pub velocity: Vec2,
    /// Radius.
    pub radius: Fx,
    /// Maximum speed.
    pub max_speed: Fx,
    /// Obstacle time horizon.
    pub time_horizon_obst: Fx,
}

/// Stable obstacle identifier (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObstacleId(pub u32);

/// The id the map boundary's walls ([`ObstacleSet::walls`]) carry in the vertex arena: never
/// handed out ([`ObstacleSet::add`] stops at `u32::MAX − 1`).
pub const WALLS_ID: ObstacleId = ObstacleId(u32::MAX);

/// An obstacle's outline, in RVO2's vertex convention.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObstacleShape {
    /// Closed polygon: counter-clockwise = solid obstacle, clockwise = boundary that keeps agents
    /// inside (e.g. a room or navmesh outline).
    Polygon(Vec<Vec2>),
    /// Open polyline (a wall), two or more vertices, passable from neither side. With
    /// navigation on, a gap up to 2.6 unit diameters between two polylines' tips is a door
    /// that traffic control reserves (docs/navigation.md § Doors).
    Polyline(Vec<Vec2>),
}

impl ObstacleShape {
    /// The vertices as given.
    #[must_use]
    pub fn vertices(&self) -> &[Vec2] {
        match self {
            Self::Polygon(v) | Self::Polyline(v) => v,
        }
    }

    /// Canonical kind byte: 0 = polygon, 1 = polyline.
    #[must_use]
    pub fn kind_byte(&self) -> u8 {
        match self {
            Self::Polygon(_) => 0,
            Self::Polyline(_) => 1,
        }
    }
}

/// Which obstacle neighbours an agent sees, and so which obstacle ORCA lines it gets.
///
/// RVO2 splits edges while building its obstacle tree and then hands the **fragments** to the
/// agents as separate neighbours, treating every split point as a convex vertex (a fragment's
/// end at a split point grows a leg and a cut-off like a real corner). Its lines therefore
/// depend on the tree's shape, which RVO2 picks with an exhaustive `O(N²)`-per-level split
/// choice.
///
/// | mode | neighbours | tree build | matches RVO2 (one step, 3,387 velocities within 1e-3) |
/// | --- | --- | --- | --- |
/// | [`WholeEdges`](Self::WholeEdges) (default) | whole original edges; independent of the tree | sampled split choice, `O(k·N)` per level | 98.67 % |
/// | [`Rvo2Fragments`](Self::Rvo2Fragments) | RVO2's split fragments, split points convex | RVO2's exhaustive choice, `O(N²)` per level | 99.76 % |
///
/// Choose [`Rvo2Fragments`](Self::Rvo2Fragments) to reproduce RVO2 (porting a game tuned on it,
/// comparing against it); keep [`WholeEdges`](Self::WholeEdges) otherwise: its lines do not
/// change when an unrelated obstacle elsewhere changes the tree, it has no phantom corners in
/// the middle of a wall, and its build is far cheaper on large maps (the tree is rebuilt
/// whenever obstacles are added or removed). Both modes are deterministic and translation
/// invariant, and both are part of the state (snapshots and [`crate::hash`]). Visibility
/// ([`ObstacleSet::query_visibility`]) and [`ObstacleSet::query_neighbors`] always test whole
/// edges; only the agents' obstacle lines follow the mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObstacleNeighbors {
    /// Whole original edges (default): an agent's obstacle lines do not depend on the tree,
    /// which is built with the fast sampled split choice (sampled).
    #[default]
    WholeEdges,
    /// RVO2-compatible: the tree is built with RVO2's exhaustive split choice
    /// (exhaustive, `O(N²)` per level) and its split fragments are the
    /// neighbours, split points counting as convex vertices, in RVO2's traversal and insertion
    /// order.
    Rvo2Fragments,
}

impl ObstacleNeighbors {
    /// Canonical byte: 0 = whole edges, 1 = RVO2 fragments.
    #[must_use]
    pub fn canonical_byte(self) -> u8 {
        match self {
            Self::WholeEdges => 0,
            Self::Rvo2Fragments => 1,
        }
    }

    /// The split choice the tree is built with in this mode.
    #[must_use]
    pub(crate) fn split_choice(self) -> SplitChoice {
        match self {
            Self::WholeEdges => SplitChoice::default(),
            Self::Rvo2Fragments => SplitChoice::Exhaustive,
        }
    }
}

/// Derived data: vertex arena and BSP tree (never serialized, never hashed).
#[derive(Clone, Debug, Default)]
struct Derived {
    arena: Vec<ObstacleVertex>,
    bsp: Bsp,
}

impl Derived {
    fn build(
        obstacles: &[(ObstacleId, ObstacleShape)],
        walls: Option<&ObstacleShape>,
        choice: SplitChoice,
    ) -> Self {
        let mut arena = Vec::new();
        for (id, shape) in obstacles {
            polygon::push_shape(&mut arena, *id, shape);
        }
        // After every obstacle, so the obstacles' vertex indices (the neighbours' tie break)
        // do not depend on whether there are walls.
        if let Some(walls) = walls {
            polygon::push_shape(&mut arena, WALLS_ID, walls);
        }
        let bsp = Bsp::build(&arena, choice);
        Self { arena, bsp }
    }
}

/// The set of static obstacles and its derived BSP tree.
///
/// Serialization (snapshots) keeps only the primary data — the shapes with their ids, the id
/// counter and the [`ObstacleNeighbors`] mode, in that order; the tree is marked unbuilt after
/// deserialization and rebuilt on the next [`ensure_built`](Self::ensure_built).
///
/// ```
/// use lockstep_orca::obstacle::{ObstacleSet, ObstacleShape};
/// use lockstep_orca::{Fx, Vec2};
///
/// let mut set = ObstacleSet::default();
/// let square = vec![
///     Vec2::from_int(0, 0),
///     Vec2::from_int(2, 0),
///     Vec2::from_int(2, 2),
///     Vec2::from_int(0, 2),
/// ];
/// set.add(ObstacleShape::Polygon(square)).unwrap();
/// set.ensure_built();
/// let r = Fx::lit("0.5");
/// assert!(!set.query_visibility(Vec2::from_int(-5, 1), Vec2::from_int(5, 1), r));
/// assert!(set.query_visibility(Vec2::from_int(-5, 3), Vec2::from_int(5, 3), r));
/// ```
///
/// Deserializing (serde) checks what [`add`](Self::add) checks: ids strictly ascending and
/// below the id counter, every shape valid, the vertex bound; a set that breaks one is an
/// error, never a set in a state the methods do not expect.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(try_from = "ObstacleSetData")]
pub struct ObstacleSet {
    /// Obstacles in ascending id order.
    obstacles: Vec<(ObstacleId, ObstacleShape)>,
    /// The next id to hand out.
    next_id: u32,
    /// Which obstacle neighbours the agents see (and so which split choice builds the tree).
    neighbor_mode: ObstacleNeighbors,
    /// The map boundary's walls (a clockwise ring), derived from the navigation settings: see
    /// [`walls`](Self::walls).
    #[serde(skip)]
    walls: Option<ObstacleShape>,
    #[serde(skip)]
    derived: Derived,
    /// Whether `derived` matches `obstacles` (false after any change and after deserializing).
    #[serde(skip)]
    built: bool,
    /// Vertices of all obstacles together (derived; counted again when deserializing).
    #[serde(skip)]
    vertices: usize,
}

/// The serialized fields of an [`ObstacleSet`] (the same encoding), unchecked: its `TryFrom`
/// checks them on the way in. Snapshots decode this and convert, so a bad set is reported as
/// the simulator error it is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ObstacleSetData {
    obstacles: Vec<(ObstacleId, ObstacleShape)>,
    next_id: u32,
    neighbor_mode: ObstacleNeighbors,
}

impl From<&ObstacleSet> for ObstacleSetData {
    fn from(set: &ObstacleSet) -> Self {
        Self {
            obstacles: set.obstacles.clone(),
            next_id: set.next_id,
            neighbor_mode: set.neighbor_mode,
        }
    }
}

impl TryFrom<ObstacleSetData> for ObstacleSet {
    type Error = SimError;

    fn try_from(data: ObstacleSetData) -> Result<Self, SimError> {
        let mut previous: Option<ObstacleId> = None;
        let mut vertices = 0usize;
        for (id, shape) in &data.obstacles {
            if previous.is_some_and(|p| p >= *id) || id.0 >= data.next_id {
                return Err(SimError::InvalidObstacle(
                    "obstacle ids not strictly ascending below the id counter",
                ));
            }
            previous = Some(*id);
            polygon::validate(shape)?;
            vertices = vertices.saturating_add(shape.vertices().len());
            if vertices > crate::domain::MAX_OBSTACLE_VERTICES {
                return Err(SimError::OutOfDomain {
                    what: "obstacle vertices in all",
                    allowed: "at most 1,048,576",
                });
            }
        }
        Ok(Self {
            obstacles: data.obstacles,
            next_id: data.next_id,
            neighbor_mode: data.neighbor_mode,
            walls: None,
            derived: Derived::default(),
            built: false,
            vertices,
        })
    }
}

impl ObstacleSet {
    /// Adds an obstacle after validating it (see [`ObstacleShape`] for the rules) and returns its id.
    /// Ids increase and are never reused. The tree is rebuilt before the next query.
    ///
    /// # Errors
    /// [`SimError::InvalidObstacle`] (with the reason) or [`SimError::OutOfDomain`]; the set is
    /// then unchanged.
    pub fn add(&mut self, shape: ObstacleShape) -> Result<ObstacleId, SimError> {
        polygon::validate(&shape)?;
        let vertices = self.vertices + shape.vertices().len();
        if vertices > crate::domain::MAX_OBSTACLE_VERTICES {
            return Err(SimError::OutOfDomain {
                what: "obstacle vertices in all",
                allowed: "at most 1,048,576",
            });
        }
        let next = self
            .next_id
            .checked_add(1)
            .ok_or(SimError::InvalidObstacle("obstacle id space exhausted"))?;
        let id = ObstacleId(self.next_id);
        self.next_id = next;
        self.obstacles.push((id, shape));
        self.vertices = vertices;
        self.built = false;
        Ok(id)
    }

    /// Vertices of all obstacles together (at most
    /// [`MAX_OBSTACLE_VERTICES`](crate::domain::MAX_OBSTACLE_VERTICES)).
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.vertices
    }

    /// The id the next added obstacle receives (ids are handed out ascending, never reused):
    /// what a sender of [`Command::AddObstacle`](crate::Command::AddObstacle) predicts ids with.
    #[must_use]
    pub fn next_id(&self) -> ObstacleId {
        ObstacleId(self.next_id)
    }

    /// Removes an obstacle. The tree is rebuilt before the next query.
    ///
    /// # Errors
    /// [`SimError::UnknownObstacle`].
    pub fn remove(&mut self, id: ObstacleId) -> Result<(), SimError> {
        let i = self.index(id)?;
        let (_, shape) = self.obstacles.remove(i);
        self.vertices -= shape.vertices().len();
        self.built = false;
        Ok(())
    }

    fn index(&self, id: ObstacleId) -> Result<usize, SimError> {
        self.obstacles
            .binary_search_by_key(&id, |(i, _)| *i)
            .map_err(|_| SimError::UnknownObstacle(id.0))
    }

    /// Number of obstacles.
    #[must_use]
    pub fn len(&self) -> usize {
        self.obstacles.len()
    }

    /// Whether there are no obstacles.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.obstacles.is_empty()
    }

    /// The obstacles, ascending by id.
    pub fn iter(&self) -> impl Iterator<Item = (ObstacleId, &ObstacleShape)> {
        self.obstacles.iter().map(|(id, s)| (*id, s))
    }

    /// The shape of one obstacle.
    ///
    /// # Errors
    /// [`SimError::UnknownObstacle`].
    pub fn shape(&self, id: ObstacleId) -> Result<&ObstacleShape, SimError> {
        Ok(&self.obstacles[self.index(id)?].1)
    }

    /// The obstacle neighbour mode (default [`ObstacleNeighbors::WholeEdges`]).
    #[must_use]
    pub fn neighbor_mode(&self) -> ObstacleNeighbors {
        self.neighbor_mode
    }

    /// Sets the obstacle neighbour mode (see [`ObstacleNeighbors`] for the trade-offs). A change
    /// marks the tree unbuilt: it is rebuilt, with the mode's split choice, before the next
    /// query ([`ensure_built`](Self::ensure_built)); setting the current mode changes nothing.
    pub fn set_neighbor_mode(&mut self, mode: ObstacleNeighbors) {
        if mode != self.neighbor_mode {
            self.neighbor_mode = mode;
            self.built = false;
        }
    }

    /// The map boundary's walls: the navigation boundary
    /// ([`NavParams::boundary`](crate::navigation::NavParams::boundary)) as a clockwise ring, a
    /// room that holds the agents inside it, in the tree after every obstacle (vertex owner
    /// [`WALLS_ID`]). Derived from the simulator's navigation settings (set by
    /// [`Simulator::set_navigation`](crate::Simulator::set_navigation), on restore, and again
    /// after any change of the set through the simulator), never stored nor hashed with the
    /// set: `None` without navigation or without an explicit boundary, and on a set of one's
    /// own.
    #[must_use]
    pub fn walls(&self) -> Option<&[Vec2]> {
        self.walls.as_ref().map(ObstacleShape::vertices)
    }

    /// The walls of `boundary`: the ring turned clockwise (`None` without a boundary). The
    /// boundary was validated as a simple polygon (a ring that is not valid gives no walls).
    pub(crate) fn walls_of(boundary: Option<&[Vec2]>) -> Option<ObstacleShape> {
        boundary.and_then(|b| {
            let mut ring = b.to_vec();
            if crate::geom::polygon_orientation(&ring) == crate::geom::Orientation::CounterClockwise
            {
                ring.reverse();
            }
            let shape = ObstacleShape::Polygon(ring);
            polygon::validate(&shape).is_ok().then_some(shape)
        })
    }

    /// Whether the walls are [`walls_of`](Self::walls_of) `boundary`.
    pub(crate) fn has_walls(&self, walls: Option<&ObstacleShape>) -> bool {
        self.walls.as_ref() == walls
    }

    /// Sets the walls (made by [`walls_of`](Self::walls_of)); the tree is rebuilt before the
    /// next query when they change.
    pub(crate) fn set_walls(&mut self, walls: Option<ObstacleShape>) {
        if walls != self.walls {
            self.walls = walls;
            self.built = false;
        }
    }

    /// Rebuilds derived structures if the set or its mode changed since the last build. In
    /// [`ObstacleNeighbors::Rvo2Fragments`] mode this is RVO2's `O(N²)`-per-level build.
    pub fn ensure_built(&mut self) {
        if !self.built {
            self.derived = Derived::build(
                &self.obstacles,
                self.walls.as_ref(),
                self.neighbor_mode.split_choice(),
            );
            self.built = true;
        }
    }

    /// Whether the derived tree is up to date.
    #[must_use]
    pub fn is_built(&self) -> bool {
        self.built
    }

    /// Runs `f` on the derived data, building a temporary copy if the set is not built.
    fn with_derived<R>(&self, f: impl FnOnce(&Derived) -> R) -> R {
        if self.built {
            f(&self.derived)
        } else {
            f(&Derived::build(
                &self.obstacles,
                self.walls.as_ref(),
                self.neighbor_mode.split_choice(),
            ))
        }
    }

    /// The vertex arena (one entry per directed edge), built from the obstacles in id order,
    /// then the [`walls`](Self::walls). Empty until [`ensure_built`](Self::ensure_built).
    #[must_use]
    pub fn vertices(&self) -> &[ObstacleVertex] {
        &self.derived.arena
    }

    /// An upper bound on the obstacle neighbours (and so obstacle lines) of any agent: the
    /// number of BSP nodes. The tick reserves its buffers to it, so it never grows them.
    #[must_use]
    pub fn max_neighbor_count(&self) -> usize {
        self.derived.bsp.node_count()
    }

    /// Node count and depth of the BSP tree (until built: of the last build).
    #[must_use]
    pub fn bsp_stats(&self) -> bsp::BspStats {
        self.derived.bsp.stats()
    }

    /// The obstacle edges near `position`, RVO2's obstacle neighbours: every edge with
    /// `position` strictly on its right and a distance `< range`, as `(dist², vertex index)`
    /// sorted ascending (`dist²` raw Q64.64). Appends to `out`. Always whole edges, whatever
    /// the [`neighbor_mode`](Self::neighbor_mode).
    pub fn query_neighbors(&self, position: Vec2, range: Fx, out: &mut Vec<(i128, u32)>) {
        self.with_derived(|d| {
            d.bsp.query_edges(position, range, out);
        });
    }

    /// Whether some obstacle edge lies within `range` of `position` (distance `< range`), from
    /// either side: inside a solid polygon, outside a room and on an edge's line too. Allocates
    /// nothing.
    #[must_use]
    pub fn any_edge_within(&self, position: Vec2, range: Fx) -> bool {
        self.with_derived(|d| d.bsp.any_edge_within(position, range))
    }

    /// Whether a disc of `radius` can move in a straight line from `from` to `to` without
    /// touching an obstacle edge (closer than `radius`, or crossing it). Every edge counts,
    /// from both sides.
    #[must_use]
    pub fn query_visibility(&self, from: Vec2, to: Vec2, radius: Fx) -> bool {
        self.with_derived(|d| d.bsp.visible(from, to, radius).0)
    }

    /// Appends the ORCA lines of every obstacle edge (or, in
    /// [`ObstacleNeighbors::Rvo2Fragments`] mode, every edge fragment) near `agent` to `out`, in
    /// neighbour order (RVO2's `computeNewVelocity`, first part); returns how many.
    ///
    /// The search range is RVO2's `time_horizon_obst · max_speed + radius`. See
    /// [`agent_lines_with`](Self::agent_lines_with) to reuse the neighbour buffer.
    pub fn agent_lines(&self, agent: &ObstacleAgent, out: &mut Vec<Line>) -> usize {
        self.agent_lines_with(agent, out, &mut Vec::new())
    }

    /// [`agent_lines`](Self::agent_lines) with a caller-owned neighbour buffer (cleared first),
    /// so a tick allocates nothing once the buffer is warm. Dispatches on the
    /// [`neighbor_mode`](Self::neighbor_mode); both modes read the cached tree.
    pub fn agent_lines_with(
        &self,
        agent: &ObstacleAgent,
        out: &mut Vec<Line>,
        neighbors: &mut Vec<(i128, u32)>,
    ) -> usize {
        let mode = self.neighbor_mode;
        self.with_derived(|d| match mode {
            ObstacleNeighbors::WholeEdges => edge_lines(d, agent, out, neighbors),
            ObstacleNeighbors::Rvo2Fragments => fragment_lines(d, agent, out, neighbors),
        })
    }

    /// RVO2-compatible obstacle lines whatever the set's mode (**analysis only**): the lines
    /// [`agent_lines`](Self::agent_lines) gives in [`ObstacleNeighbors::Rvo2Fragments`] mode.
    /// Uses the cached tree when the set is built in that mode, otherwise builds RVO2's tree
    /// (exhaustive split choice) for this call alone — slow.
    pub fn agent_lines_rvo2_fragments(&self, agent: &ObstacleAgent, out: &mut Vec<Line>) -> usize {
        let mut neighbors = Vec::new();
        if self.built && self.neighbor_mode == ObstacleNeighbors::Rvo2Fragments {
            fragment_lines(&self.derived, agent, out, &mut neighbors)
        } else {
            let d = Derived::build(
                &self.obstacles,
                self.walls.as_ref(),
                SplitChoice::Exhaustive,
            );
            fragment_lines(&d, agent, out, &mut neighbors)
        }
    }
}

/// RVO2's obstacle search range: `time_horizon_obst · max_speed + radius`.
fn search_range(agent: &ObstacleAgent) -> Fx {
    agent
        .time_horizon_obst
        .saturating_mul(agent.max_speed)
        .saturating_add(agent.radius)
}

/// Obstacle lines from whole edges ([`ObstacleNeighbors::WholeEdges`]).
fn edge_lines(
    d: &Derived,
    agent: &ObstacleAgent,
    out: &mut Vec<Line>,
    neighbors: &mut Vec<(i128, u32)>,
) -> usize {
    neighbors.clear();
    d.bsp
        .query_edges(agent.position, search_range(agent), neighbors);
    let start = out.len();
    for &(_, edge) in neighbors.iter() {
        let (v1, v2) = edge_views(&d.arena, edge);
        if let (Some(line), _) = obstacle_line(agent, &v1, &v2, &out[start..]) {
            out.push(line);
        }
    }
    out.len() - start
}

/// Obstacle lines from RVO2's split fragments ([`ObstacleNeighbors::Rvo2Fragments`]): each
/// fragment is an edge between its own end points; an end at a split point is, as in RVO2, a
/// convex vertex whose neighbouring edge runs in the fragment's own direction.
fn fragment_lines(
    d: &Derived,
    agent: &ObstacleAgent,
    out: &mut Vec<Line>,
    neighbors: &mut Vec<(i128, u32)>,
) -> usize {
    neighbors.clear();
    d.bsp
        .query_fragments(agent.position, search_range(agent), neighbors);
    let start = out.len();
    for &(_, node) in neighbors.iter() {
        let f = d.bsp.fragment(node);
        let (mut v1, mut v2) = edge_views(&d.arena, f.edge);
        let dir = v1.unit_dir;
        v1.point = f.a;
        v2.point = f.b;
        if f.a_split {
            // RVO2's split vertex: convex, and the edge before it continues the fragment.
            v1.convex = true;
            v1.prev_unit_dir = dir;
        }
        if f.b_split {
            v2.convex = true;
            v2.unit_dir = dir;
        }
        if let (Some(line), _) = obstacle_line(agent, &v1, &v2, &out[start..]) {
            out.push(line);
        }
    }
    out.len() - start
}

/// The two vertex views of the edge starting at arena index `edge`.
#[must_use]
pub fn edge_views(arena: &[ObstacleVertex], edge: u32) -> (VertexView, VertexView) {
    let view = |i: u32| {
        let v = &arena[i as usize];
        VertexView {
            point: v.point,
            unit_dir: v.unit_dir,
            convex: v.convex,
            prev_unit_dir: arena[v.prev as usize].unit_dir,
        }
    };
    (view(edge), view(arena[edge as usize].next))
}

impl ObstacleSet {
    /// Appends the canonical bytes of the obstacle set (see [`crate::hash`]).
    ///
    /// Layout, all integers little-endian: neighbour mode (`u8`:
    /// [`ObstacleNeighbors::canonical_byte`], 0 whole edges, 1 RVO2 fragments); next obstacle
    /// id (`u32`, it decides the ids of future obstacles); obstacle count (`u32`); then per obstacle in ascending id order: id (`u32`), kind (`u8`: 0 polygon, 1
    /// polyline), vertex count (`u32`), and each vertex as its raw Q32.32 bits, x then y (`i64`
    /// each). Derived data (the arena and the tree) is not included: it is a function of these
    /// bytes.
    pub fn write_canonical(&self, out: &mut Vec<u8>) {
        self.write_canonical_to(out);
    }

    /// [`write_canonical`](Self::write_canonical) into any byte sink (the streaming hasher).
    pub(crate) fn write_canonical_to(&self, out: &mut impl ByteSink) {
        out.put(&[self.neighbor_mode.canonical_byte()]);
        out.put(&self.next_id.to_le_bytes());
        out.put(&(self.obstacles.len() as u32).to_le_bytes());
        for (id, shape) in &self.obstacles {
            out.put(&id.0.to_le_bytes());
            out.put(&[shape.kind_byte()]);
            let v = shape.vertices();
            out.put(&(v.len() as u32).to_le_bytes());
            for p in v {
                out.put(&p.x.to_bits().to_le_bytes());
                out.put(&p.y.to_bits().to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
mod serde_tests {
    use super::*;
    use crate::math::Vec2;

    fn config() -> impl bincode::config::Config {
        bincode::config::standard()
    }

    fn square(x: i32) -> ObstacleShape {
        ObstacleShape::Polygon(vec![
            Vec2::from_int(x, 0),
            Vec2::from_int(x + 1, 0),
            Vec2::from_int(x + 1, 1),
            Vec2::from_int(x, 1),
        ])
    }

    fn round_trip(set: &ObstacleSet) -> Result<ObstacleSet, bincode::error::DecodeError> {
        let bytes = bincode::serde::encode_to_vec(set, config()).unwrap();
        bincode::serde::decode_from_slice(&bytes, config()).map(|(s, _)| s)
    }

    #[test]
    fn a_deserialized_set_counts_its_vertices_and_removes() {
        let mut set = ObstacleSet::default();
        let a = set.add(square(0)).unwrap();
        set.add(square(5)).unwrap();
        let mut back = round_trip(&set).unwrap();
        assert_eq!(back.num_vertices(), 8);
        back.remove(a).unwrap();
        assert_eq!(back.num_vertices(), 4);
        assert_eq!(back.next_id(), set.next_id());
    }

    #[test]
    fn a_set_that_breaks_the_rules_does_not_deserialize() {
        let mut set = ObstacleSet::default();
        set.add(square(0)).unwrap();
        set.add(square(5)).unwrap();
        // Ids out of order.
        let mut bad = set.clone();
        bad.obstacles.swap(0, 1);
        assert!(round_trip(&bad).is_err());
        // An id at the counter (a later add would hand it out again).
        let mut bad = set.clone();
        bad.next_id = 1;
        assert!(round_trip(&bad).is_err());
        // A degenerate shape.
        let mut bad = set.clone();
        bad.obstacles[0].1 = ObstacleShape::Polygon(vec![Vec2::ZERO, Vec2::ZERO, Vec2::ZERO]);
        assert!(round_trip(&bad).is_err());
        assert!(round_trip(&set).is_ok());
    }
}

//! Navigation: a navigation mesh of the walkable space, planned paths, and the queries games
//! ask (path, nearest walkable point, line of sight with a radius).
//!
//! Everything here is exact integer geometry on the raw Q32.32 bits of [`Vec2`]: orientation
//! and in-circle predicates never round, so the mesh and every path are the same bytes on every
//! target. The mesh is *derived* state: a pure function of the obstacle set and the
//! [`NavParams`], rebuilt after a restore exactly as it was built before (like the obstacle
//! BSP), never stored in a snapshot.
//!
//! | file | what |
//! | --- | --- |
//! | `predicates.rs` | exact in-circle test (256-bit) with symbolic perturbation of ties |
//! | `cdt.rs` | the constrained Delaunay triangulation kernel: points + constraint segments |
//! | `build.rs` | obstacle set + boundary → constraint pieces (split at crossings), the CDT, walkable classification |
//! | `mesh.rs` | [`NavMesh`]: triangles, adjacency, walls, clearance widths, digest |
//! | `widths.rs` | clearance widths of every traversal of every triangle (Demyen & Buro 2006) |
//! | `query.rs` | point location, walkable tests, nearest walkable point, raycast with a radius |
//! | `search.rs` | the path search over triangles (A* with clearance) |
//! | `field.rs` | shared searches: a distance field from one goal serving many units |
//! | `funnel.rs` | string pulling of a corridor into a path that keeps a radius from walls |
//! | `traffic.rs` | traffic control at chokepoints: narrow portals held by one direction at a time |

mod build;
/// The triangulation kernel, public only under the `test-oracles` feature (for the `nav_cdt`
/// fuzz target and tests); not part of the stable API.
#[cfg(feature = "test-oracles")]
pub mod cdt;
#[cfg(not(feature = "test-oracles"))]
pub(crate) mod cdt;
mod field;
mod funnel;
mod mesh;
pub(crate) mod predicates;
mod query;
mod search;
pub mod traffic;
mod widths;

pub use build::RebuildWork;
pub use field::{Field, FieldKey, MAX_CHOKE_COST};
pub use mesh::{NO_TRIANGLE, NavMesh, NavTriangle};
pub use query::RayHit;
pub use search::SearchWork;

use crate::math::{Fx, Vec2};
use serde::{Deserialize, Serialize};

/// Navigation settings: part of the simulation state (hashed, snapshotted), set with
/// `Simulator::set_navigation`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavParams {
    /// The map boundary: a simple polygon (either winding) enclosing the walkable space. It
    /// is also a wall of the avoidance, a room that holds every agent inside it
    /// ([`ObstacleSet::walls`](crate::obstacle::ObstacleSet::walls)).
    /// `None`: the bounding box of every obstacle grown by [`margin`](Self::margin), which
    /// bounds the mesh only (agents may leave it).
    pub boundary: Option<Vec<Vec2>>,
    /// How far the default boundary reaches past the obstacles' bounding box (units).
    pub margin: Fx,
    /// Search work allowed per tick, in node expansions (deterministic units, never time).
    pub budget: u32,
    /// Search work allowed for one search, in node expansions.
    pub search_cap: u32,
    /// Traffic control at chokepoints ([`traffic`]): checked with
    /// [`TrafficParams::validate`](traffic::TrafficParams::validate). Not in the serde form
    /// (snapshot versions 6 to 9 keep their bytes): the snapshot writes it after the rest, from
    /// version 10, when it is not the default.
    #[serde(skip)]
    pub traffic: traffic::TrafficParams,
    /// The expansion cap of a *quick* first plan ([`QUICK_PLAN_CAP`] by default, at most
    /// [`MAX_QUICK_PLAN_CAP`]; 0 turns quick plans off). While the first plans waiting exceed
    /// what the budget serves, each first plan that needs a search of its own is capped here
    /// and charged a fixed amount on top: its [`Partial`](PathStatus::Partial) path sets the
    /// unit moving at once, and the whole search follows as the budget allows. With 0 every
    /// first plan waits for its whole search (a unit holds its position meanwhile). Not in the
    /// serde form (snapshot versions 6 to 10 keep their bytes): the snapshot writes it after the
    /// rest, from version 11, when it is not the default, and the state hash includes it then.
    #[serde(skip, default = "quick_plan_cap_default")]
    pub quick_plan_cap: u32,
}

/// The default [`NavParams::quick_plan_cap`]: expansions of a quick first plan.
pub const QUICK_PLAN_CAP: u32 = 8;

/// The largest [`NavParams::quick_plan_cap`]: a quick plan is a short capped search, charged
/// a fixed amount measured for short corridors; a longer one is a whole search.
pub const MAX_QUICK_PLAN_CAP: u32 = 64;

/// Most navigated legs an agent may have queued behind its current goal
/// ([`Command::QueueMove`](crate::Command::QueueMove) after a
/// [`Command::NavigateTo`](crate::Command::NavigateTo),
/// [`Simulator::nav_legs`](crate::Simulator::nav_legs)): as many as the waypoints a plain
/// path may hold behind its first point (`orders::MAX_PATH_POINTS − 1`, checked at compile time).
pub const MAX_NAV_LEGS: usize = 1_024;

fn quick_plan_cap_default() -> u32 {
    QUICK_PLAN_CAP
}

impl Default for NavParams {
    fn default() -> Self {
        Self {
            boundary: None,
            margin: Fx::from_num(8),
            budget: 2_400,
            search_cap: 50_000,
            traffic: traffic::TrafficParams::DEFAULT,
            quick_plan_cap: QUICK_PLAN_CAP,
        }
    }
}

/// How a planned path ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PathStatus {
    /// The path reaches the requested goal.
    Complete,
    /// The goal was not walkable for the radius (inside a building, too close to a wall, off
    /// the map); the path reaches the nearest walkable point instead, `to`.
    GoalAdjusted {
        /// The point the path ends at.
        to: Vec2,
    },
    /// The goal is walkable but cannot be reached from the start (an island, a gap narrower
    /// than `2r`); the path ends at a reachable point near the goal, `to`: of the explored
    /// portals nearest the goal, the walkable point nearest it (docs/navigation.md).
    Unreachable {
        /// The point the path ends at.
        to: Vec2,
    },
    /// The search hit its expansion cap; the path leads towards the goal as far as the best
    /// node found, and the unit replans from there.
    Partial,
    /// The start is not walkable and no walkable point is near it: no path.
    NoStart,
}

impl PathStatus {
    /// The canonical byte of the variant (hash, snapshot, replay).
    #[must_use]
    pub fn canonical_byte(self) -> u8 {
        match self {
            Self::Complete => 0,
            Self::GoalAdjusted { .. } => 1,
            Self::Unreachable { .. } => 2,
            Self::Partial => 3,
            Self::NoStart => 4,
        }
    }
}

/// One path request: from `start` to `goal` for a unit of radius `radius`, at most `cap` node
/// expansions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathRequest {
    /// Where the unit stands.
    pub start: Vec2,
    /// Where it wants to go.
    pub goal: Vec2,
    /// The unit's radius: the path keeps this far from walls and never passes a gap narrower
    /// than `2 · radius`.
    pub radius: Fx,
    /// Most node expansions this search may do.
    pub cap: u32,
}

/// The result of [`NavMesh::find_path`]: the path's points (after the start, ending at the
/// goal or at the point [`status`](Self::status) names), how it ends, and the work it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NavPath {
    /// The waypoints after the start; the last is where the path ends.
    pub points: Vec<Vec2>,
    /// How the path ends.
    pub status: PathStatus,
    /// Node expansions the search did (what the budget counts).
    pub expansions: u32,
}

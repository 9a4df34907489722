//! The derived navigation data kept beside the simulator's state ([`NavDerived`]): the mesh
//! built from the obstacle set and the settings, the distance fields kept between ticks, the
//! traffic portals, and the search's scratch buffers. None of it is state: each piece is a
//! pure function of the state (rebuilt cold after a restore, the same answers).

use super::FieldCache;
use crate::math::Fx;
use crate::navigation::{NavMesh, NavParams, SearchWork};
use std::sync::Arc;

/// The derived navigation data (not state): the mesh built from the obstacle set and the
/// settings, whether an obstacle change since has not been built yet, and the search's scratch
/// buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct NavDerived {
    /// `None` without navigation, or when the mesh could not be built.
    pub mesh: Option<Arc<NavMesh>>,
    /// The obstacle set changed after `mesh` was built.
    pub stale: bool,
    pub(super) work: SearchWork,
    /// Distance fields kept between ticks (a cache: see [`FieldCache`]).
    pub(super) fields: FieldCache,
    /// The traffic portals of `mesh` (a cache: see [`TrafficPortals`] and [`PortalCache`]).
    portals: Option<PortalCache>,
}

/// The chokes, doors and lane portals of a mesh for a traffic radius `r` and the largest
/// navigating radius `big` ([`crate::navigation::traffic::chokes_for_sizes`],
/// [`crate::navigation::traffic::doors`], [`crate::navigation::traffic::lanes`]): a pure
/// function of the mesh and the two radii, so it is never state (not hashed, not
/// snapshotted): a cold cache after a restore makes the same lists.
#[derive(Clone, Debug)]
pub(crate) struct TrafficPortals {
    /// The chokes (ascending), grouped into doors, each marked whether its door is one for
    /// `r` ([`crate::navigation::traffic::Doors`]).
    pub doors: Arc<crate::navigation::traffic::Doors>,
    /// The lane portals, ascending.
    pub lanes: Arc<[crate::navigation::traffic::Choke]>,
    /// The lane portals indexed along y and in a grid (for the lane crossings).
    pub lanes_index: Arc<crate::navigation::traffic::LaneIndex>,
    /// The lane portals and the chokes at least `5.2 r` wide (doors crossed two abreast by
    /// units of the traffic radius), ascending: near them units on their way look at most 2 s
    /// ahead at walls ([`crate::navigation::traffic::short_look_portals`]).
    pub short_look: Arc<[crate::navigation::traffic::Choke]>,
}

/// How many doors lists, each for one largest radius, [`PortalCache`] keeps.
const DOORS_KEPT: usize = 4;

/// The traffic portals of one mesh and traffic radius `r`, kept while both stay (the mesh is
/// held, `Arc::ptr_eq`, so a new mesh is never taken for the old one): what depends on `r`
/// alone (the chokes for `r`, the lanes and their index) once, and the doors of the last
/// [`DOORS_KEPT`] largest radii asked for. A game changing its largest navigating radius
/// every tick (a unit's radius or order toggled) rebuilt everything every tick with one
/// entry; now only the doors, and not for sizes it goes back to. What is kept never changes
/// an answer: every entry is the pure function of its key.
#[derive(Clone, Debug)]
pub(crate) struct PortalCache {
    mesh: Arc<NavMesh>,
    radius: Fx,
    /// The chokes for `radius`, ascending.
    light: Vec<crate::navigation::traffic::Choke>,
    lanes: Arc<[crate::navigation::traffic::Choke]>,
    lanes_index: Arc<crate::navigation::traffic::LaneIndex>,
    short_look: Arc<[crate::navigation::traffic::Choke]>,
    /// (largest radius, its doors), the most recently asked for last.
    doors: Vec<(Fx, Arc<crate::navigation::traffic::Doors>)>,
}

impl NavDerived {
    /// The mesh of `obstacles` under `params` (`None`: no navigation, or the build failed).
    pub(crate) fn build(
        obstacles: &crate::obstacle::ObstacleSet,
        params: Option<&NavParams>,
    ) -> Self {
        Self {
            mesh: params.and_then(|p| NavMesh::build(obstacles, p).ok().map(Arc::new)),
            stale: false,
            work: SearchWork::default(),
            fields: FieldCache::default(),
            portals: None,
        }
    }

    /// Brings the mesh up to date with `obstacles` after a change: rebuilt locally from the
    /// current mesh ([`NavMesh::update`], the same mesh a full build gives, bit for bit), kept
    /// when nothing it depends on changed, built whole when there is no mesh yet.
    pub(crate) fn refresh(
        &mut self,
        obstacles: &crate::obstacle::ObstacleSet,
        params: Option<&NavParams>,
    ) {
        self.stale = false;
        let Some(p) = params else {
            self.mesh = None;
            return;
        };
        self.mesh = match self.mesh.take() {
            Some(old) => match old.update(obstacles, p) {
                Ok(None) => Some(old),
                Ok(Some((mesh, _))) => Some(Arc::new(mesh)),
                Err(_) => None,
            },
            None => NavMesh::build(obstacles, p).ok().map(Arc::new),
        };
    }

    /// The chokes and lane portals of the current mesh for `radius` (made on the first call
    /// after the mesh or the radii changed). The chokes and doors are made for `big` (the
    /// largest navigating unit's radius, when above `radius`), each door marked whether it
    /// is one for `radius` too ([`Doors`](crate::navigation::traffic::Doors)); the lane
    /// portals are made for `radius`. `None` without a mesh.
    pub(crate) fn traffic_portals(&mut self, radius: Fx, big: Fx) -> Option<TrafficPortals> {
        use crate::navigation::traffic;
        let mesh = self.mesh.as_ref()?;
        let big = big.max(radius);
        let fresh = self
            .portals
            .as_ref()
            .is_some_and(|p| p.radius == radius && Arc::ptr_eq(&p.mesh, mesh));
        if !fresh {
            let light = traffic::chokes(mesh, radius);
            let lanes = traffic::lanes_beside(mesh, &light, radius);
            self.portals = Some(PortalCache {
                mesh: Arc::clone(mesh),
                radius,
                short_look: traffic::short_look_portals(&lanes, &light, radius).into(),
                light,
                lanes_index: Arc::new(traffic::LaneIndex::new(&lanes)),
                lanes: lanes.into(),
                doors: Vec::new(),
            });
        }
        let cache = self.portals.as_mut()?;
        let doors = match cache.doors.iter().position(|d| d.0 == big) {
            Some(k) => {
                let entry = cache.doors.remove(k);
                cache.doors.push(entry);
                Arc::clone(&cache.doors[cache.doors.len() - 1].1)
            }
            None => {
                let chokes = traffic::chokes_beside(mesh, cache.light.clone(), radius, big);
                let mut doors = traffic::doors(mesh, &chokes, big);
                if big > radius {
                    let light = chokes
                        .iter()
                        .map(|c| cache.light.binary_search(c).is_ok())
                        .collect();
                    doors = doors.with_light(light);
                }
                let doors = Arc::new(doors);
                if cache.doors.len() >= DOORS_KEPT {
                    cache.doors.remove(0);
                }
                cache.doors.push((big, Arc::clone(&doors)));
                doors
            }
        };
        Some(TrafficPortals {
            doors,
            lanes: Arc::clone(&cache.lanes),
            lanes_index: Arc::clone(&cache.lanes_index),
            short_look: Arc::clone(&cache.short_look),
        })
    }

    /// The mesh and staleness without the scratch buffers (what a saved state shares).
    pub(crate) fn shared(&self) -> Self {
        Self {
            mesh: self.mesh.clone(),
            stale: self.stale,
            work: SearchWork::default(),
            fields: FieldCache::default(),
            portals: None,
        }
    }

    /// Takes `other`'s mesh and staleness, keeping the scratch buffers.
    pub(crate) fn assign(&mut self, other: &Self) {
        self.mesh.clone_from(&other.mesh);
        self.stale = other.stale;
    }
}

//! One frame of the game's rules: [`Turn`], what a [`GameRules::step`](super::GameRules::step)
//! sees and does, and the adapter's own state it works on (unit and building ownership, the
//! count of skipped orders).
//!
//! A turn reads the state at the start of the frame and produces that frame's commands. Its
//! methods are the checked ways to change the world on a player's behalf: [`Turn::apply`] (the
//! default mapping of a [`PlayerOrder`] to its command, ownership checked), [`Turn::spawn`],
//! [`Turn::place_building`], [`Turn::remove_building`]; [`Turn::push`] queues a command of the
//! game's own making (a unit killed by the rules), unchecked. Whatever a method refuses is
//! skipped and, through [`Turn::reject`], counted in the state and listed, identically on every
//! peer.

use super::groups::FormationShape;
use super::wire::{MAX_UNITS_PER_PLAYER, MAX_WAYPOINTS, PlayerOrder, PlayerOrderError};
use super::{NET_MAGIC, Rejection};
use crate::agent::{AgentId, AgentParams};
use crate::agent_model::AgentModel;
use crate::command::Command;
use crate::domain::MAX_OBSTACLE_VERTICES;
use crate::math::Vec2;
use crate::obstacle::{ObstacleId, ObstacleShape};
use crate::sim::Simulator;
use crate::util::ByteSink;
use std::collections::BTreeMap;

/// Obstacle vertices the players of one frame may place together ([`Turn::place_building`]):
/// the bound that keeps a hostile peer from stalling every other peer's frame with huge
/// polygons. A building beyond it is skipped ([`PlayerOrderError::VertexBudget`]).
pub const MAX_FRAME_VERTICES: usize = 1024;

/// A unit of the adapter's table: its owner, and whether a player has given it a move order
/// or a stop (then the scene's driver no longer steers it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) owner: u8,
    pub(super) commanded: bool,
}

/// The adapter's own state, beside the simulator's and the game's: what persists across frames.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Adapter {
    pub(super) frame: u32,
    pub(super) units: BTreeMap<AgentId, Unit>,
    /// Buildings players placed, by obstacle id: their owner.
    pub(super) buildings: BTreeMap<ObstacleId, u8>,
    pub(super) rejected: u64,
    /// Ids group orders named that were not a present unit of the sender: skipped.
    pub(super) skipped_members: u64,
}

impl Adapter {
    pub(super) fn write_bytes(&self, out: &mut impl ByteSink) {
        out.put(NET_MAGIC);
        out.put(&self.frame.to_le_bytes());
        out.put(&self.rejected.to_le_bytes());
        out.put(&self.skipped_members.to_le_bytes());
        out.put(&(self.units.len() as u32).to_le_bytes());
        for (id, u) in &self.units {
            out.put(&id.0.to_le_bytes());
            out.put(&[u.owner, u8::from(u.commanded)]);
        }
        out.put(&(self.buildings.len() as u32).to_le_bytes());
        for (id, owner) in &self.buildings {
            out.put(&id.0.to_le_bytes());
            out.put(&[*owner]);
        }
    }

    /// After a step: units whose agent is gone leave the table (scene agents not added yet
    /// stay), and so do buildings whose obstacle is gone.
    pub(super) fn prune(&mut self, sim: &Simulator) {
        let next_id = sim.next_agent_id();
        self.units
            .retain(|&id, _| id >= next_id || sim.contains_agent(id));
        let obstacles = sim.obstacles();
        self.buildings.retain(|&id, _| obstacles.shape(id).is_ok());
    }
}

/// One frame of the rules: the state at the frame's start (read-only simulator, ownership) and
/// the frame's commands being gathered. Handed to [`GameRules::step`](super::GameRules::step).
pub struct Turn<'a> {
    pub(super) sim: &'a Simulator,
    pub(super) adapter: &'a mut Adapter,
    pub(super) out: &'a mut Vec<Command>,
    pub(super) rejections: &'a mut Vec<Rejection>,
    /// Path points each unit holds after this frame's orders so far.
    pub(super) path_len: &'a mut BTreeMap<AgentId, usize>,
    /// Members of the simulator's groups this frame's orders set so far.
    pub(super) groups: &'a mut BTreeMap<u32, Vec<AgentId>>,
    /// Agents added this frame before the players' commands (the scene's), and by players.
    pub(super) adds: u32,
    /// The scene still adds agents by events: player spawns would shift their ids.
    pub(super) scene_adds_ahead: bool,
    /// Obstacles added this frame so far, and their vertices.
    pub(super) obstacles_added: u32,
    pub(super) vertices: usize,
}

impl Turn<'_> {
    /// The frame being advanced (its state is the simulator's now).
    #[must_use]
    pub fn frame(&self) -> u32 {
        self.adapter.frame
    }

    /// The simulator at the start of the frame (read-only: the frame's changes are commands).
    #[must_use]
    pub fn sim(&self) -> &Simulator {
        self.sim
    }

    /// The owner of unit `id`, if a player owns it.
    #[must_use]
    pub fn owner(&self, id: AgentId) -> Option<usize> {
        self.adapter.units.get(&id).map(|u| usize::from(u.owner))
    }

    /// Whether `player` owns unit `id` and the unit is in the simulator.
    #[must_use]
    pub fn owns(&self, player: usize, id: AgentId) -> bool {
        self.owner(id) == Some(player) && self.sim.contains_agent(id)
    }

    /// Every owned unit and its owner, ascending id (units spawned this frame included).
    pub fn units(&self) -> impl Iterator<Item = (AgentId, usize)> + '_ {
        self.adapter
            .units
            .iter()
            .map(|(&id, u)| (id, usize::from(u.owner)))
    }

    /// The owner of building `id`, if a player placed it ([`place_building`](Self::place_building)).
    #[must_use]
    pub fn building_owner(&self, id: ObstacleId) -> Option<usize> {
        self.adapter.buildings.get(&id).map(|&o| usize::from(o))
    }

    /// Queues a command of the game's own making for this frame (a unit its rules killed, a
    /// reinforcement): no ownership check, the simulator's validation only (a refused command
    /// is listed with player `usize::MAX`). Agent and obstacle additions count toward the ids
    /// the next spawns and buildings predict.
    pub fn push(&mut self, command: Command) {
        match &command {
            Command::AddAgent { .. } | Command::SpawnAgent { .. } => self.adds += 1,
            Command::AddObstacle { shape } => {
                self.obstacles_added += 1;
                self.vertices += shape.vertices().len();
            }
            Command::SetGroup { group, members } => {
                let mut members = members.clone();
                members.sort_unstable();
                members.dedup();
                self.groups.insert(*group, members);
            }
            _ => {}
        }
        self.out.push(command);
    }

    /// Skips an order of `player` (its `slot` in the input, for the listing): counted in the
    /// state ([`NetGame::rejected_orders`](super::NetGame::rejected_orders)) and listed
    /// ([`NetGame::last_rejections`](super::NetGame::last_rejections)).
    pub fn reject(&mut self, player: usize, slot: usize, error: PlayerOrderError) {
        self.adapter.rejected += 1;
        self.rejections.push(Rejection {
            frame: self.adapter.frame,
            player,
            slot,
            error,
        });
    }

    /// Turns one order of `player` into its simulator command: **the default input → command
    /// mapping** (the one [`Orders`](super::Orders) uses; a game's rules call it for the orders
    /// they accept). Move orders are the simulator's own ([`Command::MoveTo`],
    /// [`Command::QueueMove`], [`Command::Stop`], [`Command::SetPriority`],
    /// [`Command::NavigateTo`], [`Command::SetOrderSpeed`], [`crate::orders`]); a unit order
    /// needs the sender to own the unit, an order speed a unit with an order. The group orders
    /// ([`select`](Self::select), [`group_move`](Self::group_move),
    /// [`group_navigate`](Self::group_navigate), [`formation_move`](Self::formation_move))
    /// become [`Command::SetGroup`], [`Command::GroupMove`], [`Command::GroupNavigate`] and
    /// [`Command::FormationMove`] on the sender's own groups, holding
    /// only the sender's units. The catalogue orders
    /// ([`PlayerOrder::SpawnType`], [`PlayerOrder::SetModel`], [`PlayerOrder::PlaceBuilding`])
    /// need a catalogue and are refused here ([`PlayerOrderError::UnknownType`]); a
    /// [`PlayerOrder::RemoveBuilding`] needs the sender to own the building.
    ///
    /// # Errors
    /// Why the order is refused; nothing is queued then.
    pub fn apply(&mut self, player: usize, order: PlayerOrder) -> Result<(), PlayerOrderError> {
        match order {
            PlayerOrder::Spawn { position } => {
                let params = self.sim.agent_defaults();
                return self.spawn(player, position, params, None).map(drop);
            }
            PlayerOrder::RemoveBuilding { building } => {
                return self.remove_building(player, building);
            }
            PlayerOrder::SpawnType { unit_type, .. } | PlayerOrder::SetModel { unit_type, .. } => {
                return Err(PlayerOrderError::UnknownType(unit_type));
            }
            PlayerOrder::PlaceBuilding { building, .. } => {
                return Err(PlayerOrderError::UnknownType(building));
            }
            PlayerOrder::SetGroup {
                group,
                first,
                count,
            } => return self.select_range(player, group, first, count, false),
            PlayerOrder::AddToGroup {
                group,
                first,
                count,
            } => return self.select_range(player, group, first, count, true),
            PlayerOrder::AddMaskToGroup { group, first, mask } => {
                return self.select_mask(player, group, first, mask);
            }
            PlayerOrder::GroupMove {
                group,
                goal,
                queue,
                slowest,
                navigate,
            } => return self.group_order(player, group, goal, queue, slowest, navigate),
            PlayerOrder::FormationMove {
                group,
                goal,
                formation,
                facing,
                spacing,
                slowest,
                together,
            } => {
                let facing = facing.map(|(x, y)| Vec2::from_int(i32::from(x), i32::from(y)));
                let shape = FormationShape {
                    formation,
                    facing,
                    spacing,
                    slowest,
                    together,
                };
                return self.formation_move(player, group, goal, shape);
            }
            _ => {}
        }
        let id = order.unit().ok_or(PlayerOrderError::Malformed)?;
        if !self.owns(player, id) {
            return Err(PlayerOrderError::NotOwner(id));
        }
        let command = match order {
            PlayerOrder::MoveTo { goal, .. } => {
                self.path_len.insert(id, 1);
                Command::MoveTo { id, goal }
            }
            PlayerOrder::NavigateTo { goal, .. } => {
                self.path_len.insert(id, 1);
                Command::NavigateTo { id, goal }
            }
            PlayerOrder::QueueMove { goal, .. } => {
                let len = self.path_len_of(id);
                if len > MAX_WAYPOINTS {
                    return Err(PlayerOrderError::QueueFull(id));
                }
                self.path_len.insert(id, len + 1);
                Command::QueueMove { id, goal }
            }
            PlayerOrder::SetOrderSpeed { speed, .. } => {
                if self.path_len_of(id) == 0 {
                    return Err(PlayerOrderError::NoOrder(id));
                }
                Command::SetOrderSpeed { id, speed }
            }
            PlayerOrder::Stop { .. } => {
                self.path_len.insert(id, 0);
                Command::Stop { id }
            }
            PlayerOrder::Remove { .. } => Command::RemoveAgent { id },
            PlayerOrder::SetPriority { priority, .. } => Command::SetPriority { id, priority },
            _ => return Err(PlayerOrderError::Malformed),
        };
        if matches!(
            command,
            Command::MoveTo { .. }
                | Command::QueueMove { .. }
                | Command::Stop { .. }
                | Command::NavigateTo { .. }
        ) && let Some(u) = self.adapter.units.get_mut(&id)
        {
            u.commanded = true;
        }
        self.out.push(command);
        Ok(())
    }

    /// Path points unit `id` holds after this frame's orders so far (0 without an order; the
    /// passed waypoints count, as the simulator's bound counts them); for
    /// a navigating unit, whose `QueueMove`s queue navigated legs, its goal and its legs
    /// ([`Simulator::nav_legs`](crate::Simulator::nav_legs), bounded as a path's waypoints).
    pub(super) fn path_len_of(&mut self, id: AgentId) -> usize {
        let sim = self.sim;
        let navigates = self.navigates(id);
        *self.path_len.entry(id).or_insert_with(|| {
            match sim.agent_order(id) {
                Ok(Some(_)) if navigates => 1 + sim.nav_legs(id).map_or(0, <[_]>::len),
                // The whole path: the simulator bounds it, passed waypoints included.
                Ok(Some(o)) => o.path().len(),
                _ => 0,
            }
        })
    }

    /// Whether unit `id` navigates by a plan at the frame's start (its `QueueMove`s, and a
    /// queued group move's goal, become navigated legs).
    pub(super) fn navigates(&self, id: AgentId) -> bool {
        self.sim
            .nav_status(id)
            .is_ok_and(|r| r.is_some_and(|r| !r.is_straight()))
    }

    /// Adds a unit owned by `player` at `position` with `params` (and `model`, if given: a
    /// [`Command::SpawnAgent`], else a [`Command::AddAgent`]) and returns the id it will get.
    ///
    /// # Errors
    /// [`PlayerOrderError::SpawnDuringSceneAdds`] while the scene still adds agents by events;
    /// [`PlayerOrderError::UnitLimit`] past [`MAX_UNITS_PER_PLAYER`] or the id space;
    /// [`PlayerOrderError::Sim`] for parameters or a model the simulator refuses.
    pub fn spawn(
        &mut self,
        player: usize,
        position: crate::math::Vec2,
        params: AgentParams,
        model: Option<AgentModel>,
    ) -> Result<AgentId, PlayerOrderError> {
        if self.scene_adds_ahead {
            return Err(PlayerOrderError::SpawnDuringSceneAdds);
        }
        let owned = self
            .adapter
            .units
            .values()
            .filter(|u| usize::from(u.owner) == player)
            .count();
        let id = self
            .sim
            .next_agent_id()
            .0
            .checked_add(self.adds)
            .filter(|id| *id < u32::MAX && owned < MAX_UNITS_PER_PLAYER)
            .ok_or(PlayerOrderError::UnitLimit)?;
        let command = match model {
            Some(model) => Command::SpawnAgent {
                position,
                params,
                model,
            },
            None => Command::AddAgent { position, params },
        };
        // Validated now, so that the predicted id is the one the step hands out.
        command
            .validate_values(self.sim.time_step())
            .map_err(PlayerOrderError::Sim)?;
        self.push(command);
        self.adapter.units.insert(
            AgentId(id),
            Unit {
                owner: player as u8,
                commanded: true,
            },
        );
        Ok(AgentId(id))
    }

    /// Places a building of `player`: a [`Command::AddObstacle`] with `shape`, owned by the
    /// player; returns the obstacle id it will get.
    ///
    /// # Errors
    /// [`PlayerOrderError::VertexBudget`] when the frame's buildings would exceed
    /// [`MAX_FRAME_VERTICES`] or the world's [`MAX_OBSTACLE_VERTICES`];
    /// [`PlayerOrderError::Sim`] for a shape the simulator refuses (degenerate, outside the
    /// domain); [`PlayerOrderError::UnitLimit`] when the obstacle ids are exhausted.
    pub fn place_building(
        &mut self,
        player: usize,
        shape: ObstacleShape,
    ) -> Result<ObstacleId, PlayerOrderError> {
        let n = shape.vertices().len();
        let frame_total = self.vertices.saturating_add(n);
        if frame_total > MAX_FRAME_VERTICES
            || self
                .sim
                .obstacles()
                .num_vertices()
                .saturating_add(frame_total)
                > MAX_OBSTACLE_VERTICES
        {
            return Err(PlayerOrderError::VertexBudget(n));
        }
        let command = Command::AddObstacle { shape };
        command
            .validate_values(self.sim.time_step())
            .map_err(PlayerOrderError::Sim)?;
        let id = self
            .sim
            .obstacles()
            .next_id()
            .0
            .checked_add(self.obstacles_added)
            .ok_or(PlayerOrderError::UnitLimit)?;
        self.push(command);
        self.adapter.buildings.insert(ObstacleId(id), player as u8);
        Ok(ObstacleId(id))
    }

    /// Removes building `id` of `player` ([`Command::RemoveObstacle`]).
    ///
    /// # Errors
    /// [`PlayerOrderError::NotBuildingOwner`] unless `player` placed it and it still stands.
    pub fn remove_building(
        &mut self,
        player: usize,
        id: ObstacleId,
    ) -> Result<(), PlayerOrderError> {
        if self.building_owner(id) != Some(player) {
            return Err(PlayerOrderError::NotBuildingOwner(id));
        }
        self.adapter.buildings.remove(&id);
        self.out.push(Command::RemoveObstacle { id });
        Ok(())
    }
}

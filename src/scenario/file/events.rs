//! The `events` of the scenario file: their TOML forms and how they resolve to the scenario's
//! events (`add_agent`, `set_goal`, `set_params`, obstacles, groups, group and formation moves; see
//! the format in [the parent module](super)).

use super::*;

/// `set_group = { group = 1, members = [0, 1, 2] }` or `{ group = 1, first = 0, count = 100 }`
/// (the agents `first .. first + count`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSetGroup {
    group: u32,
    members: Option<Vec<u32>>,
    first: Option<u32>,
    count: Option<u32>,
}

/// `formation_move = { group = 1, goal = [60, 0], formation = "box", facing = [1, 0],
/// spacing = 2.5, slowest = true, together = true }` (formation, facing, spacing, slowest and
/// together optional; `together = true` gives a
/// [`Command::FormationMarch`](crate::command::Command::FormationMarch)).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileFormationMove {
    group: u32,
    goal: Point,
    formation: Option<String>,
    facing: Option<Point>,
    spacing: Option<Num>,
    slowest: Option<bool>,
    together: Option<bool>,
}

/// `group_move = { group = 1, goal = [60, 0], navigate = true, queue = false, slowest = true }`
/// (navigate, queue and slowest optional, default false; `navigate = true` gives a
/// [`Command::GroupNavigate`](crate::command::Command::GroupNavigate), else a
/// [`Command::GroupMove`](crate::command::Command::GroupMove)).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileGroupMove {
    group: u32,
    goal: Point,
    navigate: Option<bool>,
    queue: Option<bool>,
    slowest: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSetGoal {
    id: u32,
    goal: Point,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSetPosition {
    id: u32,
    position: Point,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSetVelocity {
    id: u32,
    velocity: Point,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSetParams {
    id: u32,
    neighbor_dist: Option<Num>,
    max_neighbors: Option<u32>,
    time_horizon: Option<Num>,
    time_horizon_obst: Option<Num>,
    radius: Option<Num>,
    max_speed: Option<Num>,
    priority: Option<u8>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSetModel {
    id: u32,
    layers: Option<u32>,
    mask: Option<u32>,
    body_radius: Option<Num>,
    max_accel: Option<Num>,
    support_velocity: Option<Point>,
    slope: Option<Point>,
    speed_limit: Option<Num>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileEvent {
    tick: u64,
    add_agent: Option<FileAgent>,
    remove_agent: Option<u32>,
    set_goal: Option<FileSetGoal>,
    set_params: Option<FileSetParams>,
    set_position: Option<FileSetPosition>,
    set_velocity: Option<FileSetVelocity>,
    set_model: Option<FileSetModel>,
    add_obstacle: Option<FileObstacle>,
    remove_obstacle: Option<u32>,
    set_group: Option<FileSetGroup>,
    formation_move: Option<FileFormationMove>,
    group_move: Option<FileGroupMove>,
}

/// Resolves the events: one action each; `set_params` overrides apply to the agent's parameters
/// as left by the earlier events of the list (added agents: the scenario defaults plus their
/// own overrides). Existence of the targeted agents is checked by [`Scenario::validate`].
pub(super) fn parse_events(
    file: Vec<FileEvent>,
    agents: &[AgentSpec],
    defaults: AgentParams,
    model: AgentModel,
    routes: &mut RouteBuilder,
    navigate: &mut BTreeSet<AgentId>,
) -> Result<Vec<Event>, ScenarioError> {
    let mut params: Vec<AgentParams> = agents.iter().map(|a| a.params).collect();
    let mut models: Vec<AgentModel> = agents.iter().map(|a| a.model).collect();
    let mut events = Vec::with_capacity(file.len());
    for (i, e) in file.into_iter().enumerate() {
        let ctx = || format!("event #{i} (tick {})", e.tick);
        let given = usize::from(e.add_agent.is_some())
            + usize::from(e.remove_agent.is_some())
            + usize::from(e.set_goal.is_some())
            + usize::from(e.set_params.is_some())
            + usize::from(e.set_position.is_some())
            + usize::from(e.set_velocity.is_some())
            + usize::from(e.set_model.is_some())
            + usize::from(e.add_obstacle.is_some())
            + usize::from(e.remove_obstacle.is_some())
            + usize::from(e.set_group.is_some())
            + usize::from(e.formation_move.is_some())
            + usize::from(e.group_move.is_some());
        if given != 1 {
            return Err(invalid(
                ctx(),
                "give exactly one of add_agent, remove_agent, set_goal, set_params, \
                 set_position, set_velocity, set_model, add_obstacle, remove_obstacle, \
                 set_group, group_move, formation_move",
            ));
        }
        let action = if let Some(a) = &e.add_agent {
            if params.len() >= crate::scenario::MAX_SCENARIO_AGENTS {
                return Err(invalid(ctx(), "too many agents"));
            }
            let (spec, route) = agent_spec(a, defaults, model, &ctx())?;
            routes.add(AgentId(params.len() as u32), route, &ctx())?;
            if a.navigate == Some(true) {
                navigate.insert(AgentId(params.len() as u32));
            }
            params.push(spec.params);
            models.push(spec.model);
            EventAction::AddAgent(spec)
        } else if let Some(id) = e.remove_agent {
            EventAction::RemoveAgent(AgentId(id))
        } else if let Some(o) = e.add_obstacle {
            EventAction::AddObstacle(obstacle_shape(o, ctx())?)
        } else if let Some(id) = e.remove_obstacle {
            EventAction::RemoveObstacle(ObstacleId(id))
        } else if let Some(g) = &e.set_group {
            EventAction::Group(set_group(g, &ctx())?)
        } else if let Some(f) = &e.formation_move {
            EventAction::Group(formation_move(f, &ctx())?)
        } else if let Some(g) = &e.group_move {
            EventAction::Group(group_move(g))
        } else if let Some(g) = &e.set_goal {
            EventAction::SetGoal {
                id: AgentId(g.id),
                goal: point(g.goal),
            }
        } else if let Some(p) = &e.set_params {
            let Some(current) = params.get_mut(p.id as usize) else {
                return Err(invalid(
                    ctx(),
                    format!("agent {} does not exist at this point", p.id),
                ));
            };
            *current = ParamOverrides {
                neighbor_dist: p.neighbor_dist,
                max_neighbors: p.max_neighbors,
                time_horizon: p.time_horizon,
                time_horizon_obst: p.time_horizon_obst,
                radius: p.radius,
                max_speed: p.max_speed,
                priority: p.priority,
                ..ParamOverrides::default()
            }
            .apply(*current);
            EventAction::SetParams {
                id: AgentId(p.id),
                params: *current,
            }
        } else if let Some(m) = &e.set_model {
            let Some(current) = models.get_mut(m.id as usize) else {
                return Err(invalid(
                    ctx(),
                    format!("agent {} does not exist at this point", m.id),
                ));
            };
            *current = ParamOverrides {
                layers: m.layers,
                mask: m.mask,
                body_radius: m.body_radius,
                max_accel: m.max_accel,
                support_velocity: m.support_velocity,
                slope: m.slope,
                speed_limit: m.speed_limit,
                ..ParamOverrides::default()
            }
            .apply_model(*current);
            EventAction::SetModel {
                id: AgentId(m.id),
                model: *current,
            }
        } else if let Some(p) = &e.set_position {
            EventAction::SetPosition {
                id: AgentId(p.id),
                position: point(p.position),
            }
        } else {
            let Some(v) = &e.set_velocity else {
                return Err(invalid(ctx(), "no action"));
            };
            EventAction::SetVelocity {
                id: AgentId(v.id),
                velocity: point(v.velocity),
            }
        };
        events.push(Event {
            tick: e.tick,
            action,
        });
    }
    Ok(events)
}

/// The [`Command::SetGroup`](crate::command::Command::SetGroup) of a `set_group` event.
fn set_group(g: &FileSetGroup, ctx: &str) -> Result<crate::command::Command, ScenarioError> {
    let members: Vec<AgentId> = match (&g.members, g.first, g.count) {
        (Some(m), None, None) => m.iter().map(|&i| AgentId(i)).collect(),
        (None, Some(first), Some(count))
            if count as usize <= crate::orders::groups::MAX_GROUP_MEMBERS =>
        {
            (0..count)
                .map(|k| first.checked_add(k).map(AgentId))
                .collect::<Option<_>>()
                .ok_or_else(|| invalid(ctx.to_string(), "agent ids past u32"))?
        }
        _ => {
            return Err(invalid(
                ctx.to_string(),
                "set_group needs `members = [...]` or `first` and `count` (at most 65,536)",
            ));
        }
    };
    Ok(crate::command::Command::SetGroup {
        group: g.group,
        members,
    })
}

/// The [`Command::FormationMove`](crate::command::Command::FormationMove) of a
/// `formation_move` event.
fn formation_move(
    f: &FileFormationMove,
    ctx: &str,
) -> Result<crate::command::Command, ScenarioError> {
    use crate::orders::formation::FormationKind;
    let formation = match &f.formation {
        None => FormationKind::default(),
        Some(name) => FormationKind::from_name(name).ok_or_else(|| {
            invalid(
                ctx.to_string(),
                format!("unknown formation {name:?} (keep, line, box, column or spread)"),
            )
        })?,
    };
    let (group, goal, facing) = (f.group, point(f.goal), f.facing.map(point));
    let (spacing, slowest) = (f.spacing.map(|s| s.0), f.slowest.unwrap_or(false));
    Ok(crate::command::Command::formation(
        f.together.unwrap_or(false),
        group,
        goal,
        formation,
        facing,
        spacing,
        slowest,
    ))
}

/// The [`Command::GroupMove`](crate::command::Command::GroupMove) or
/// [`Command::GroupNavigate`](crate::command::Command::GroupNavigate) of a `group_move` event
/// (its values are checked with the other group events').
fn group_move(g: &FileGroupMove) -> crate::command::Command {
    let (group, goal) = (g.group, point(g.goal));
    let (queue, slowest) = (g.queue.unwrap_or(false), g.slowest.unwrap_or(false));
    if g.navigate.unwrap_or(false) {
        crate::command::Command::GroupNavigate {
            group,
            goal,
            queue,
            slowest,
        }
    } else {
        crate::command::Command::GroupMove {
            group,
            goal,
            queue,
            slowest,
        }
    }
}

//! The units at rest that stage 1b's arrival rule reads ([`crate::orders::arrival`]): the
//! lists built from the state at the start of the stage (a crowd at rest on each shared goal;
//! the units at rest on goals of their own) and the questions asked of them (does a unit touch
//! the crowd at rest on its goal; does it stand behind a unit at rest where the two cannot
//! pass). Nothing here is kept across ticks: each list is a reused buffer, rebuilt every tick.

use crate::agent::{AgentId, AgentParams};
use crate::math::{Fx, Vec2, wide_mul};
use crate::obstacle::ObstacleSet;
use crate::orders::arrival::off_goal;
use crate::orders::{Order, OrderStatus, settled_reach};

/// An order at rest (arrived) on a goal it shares, as stage 1b found it: the goal, and its
/// agent's position and radius.
#[derive(Clone, Copy, Debug)]
pub(super) struct AtRest {
    goal: Vec2,
    position: Vec2,
    radius: Fx,
}

/// The sort key of a goal (its bits): the orders at rest on one goal are one run of the list.
fn goal_bits(goal: Vec2) -> (i64, i64) {
    (goal.x.to_bits(), goal.y.to_bits())
}

/// The sort key of the list: the goal's bits, then the position's x (within one goal's run,
/// the units at rest near a point are found by x).
fn at_rest_key(a: &AtRest) -> (i64, i64, i64) {
    (
        a.goal.x.to_bits(),
        a.goal.y.to_bits(),
        a.position.x.to_bits(),
    )
}

/// Pushes onto `out` the arrived orders (ascending id, `shared` aligned with them) that `keep`
/// accepts (given the order, how many orders share its goal and its agent's radius), each as
/// its goal and its agent's position and radius, and returns the largest radius pushed (zero
/// for none). The agents' slots ascend as the ids do: one merge finds them. Room for every
/// order is reserved, so the buffer grows only when the orders do.
fn push_arrived(
    out: &mut Vec<AtRest>,
    orders: &[(AgentId, Order)],
    shared: &[u32],
    (ids, positions, params): (&[AgentId], &[Vec2], &[AgentParams]),
    keep: impl Fn(&Order, u32, Fx) -> bool,
) -> Fx {
    out.reserve(orders.len());
    let (mut slot, mut largest) = (0, Fx::ZERO);
    for ((id, order), &n) in orders.iter().zip(shared) {
        while slot < ids.len() && ids[slot] < *id {
            slot += 1;
        }
        if order.status() != OrderStatus::Arrived || ids.get(slot) != Some(id) {
            continue;
        }
        let radius = params[slot].radius;
        if keep(order, n, radius) {
            largest = largest.max(radius);
            out.push(AtRest {
                goal: order.goal(),
                position: positions[slot],
                radius,
            });
        }
    }
    largest
}

/// Whether some order on a shared goal may ask [`touches_at_rest`] this tick: one on its way
/// (it may join the crowd at rest on its goal), or one settled next to its goal (at rest
/// elsewhere than on it) whose agent was pushed out of [`settled_reach`] (it stays at rest at
/// the crowd's edge while it touches the crowd). A crowd at rest, none pushed out, asks
/// nothing: the list is not built. The reach is computed once per run of orders with one
/// radius and one count.
fn may_ask(
    orders: &[(AgentId, Order)],
    shared: &[u32],
    (ids, positions, params): (&[AgentId], &[Vec2], &[AgentParams]),
) -> bool {
    let (mut slot, mut last) = (0, None);
    for ((id, order), &n) in orders.iter().zip(shared) {
        if n < 2 {
            continue;
        }
        let status = order.status();
        if !status.is_finished() {
            return true;
        }
        if status != OrderStatus::Arrived || order.arrival().rest == order.goal() {
            continue;
        }
        while slot < ids.len() && ids[slot] < *id {
            slot += 1;
        }
        if ids.get(slot) != Some(id) {
            continue;
        }
        let radius = params[slot].radius;
        let reach = match last {
            Some((r, k, reach)) if r == radius && k == n => reach,
            _ => {
                let reach = settled_reach(radius, n);
                last = Some((radius, n, reach));
                reach
            }
        };
        let d = positions[slot] - order.goal();
        if d.length_squared_wide() > wide_mul(reach, reach) {
            return true;
        }
    }
    false
}

/// Fills `out` with the orders at rest on shared goals, sorted by goal, from the state at the
/// start of stage 1b (so the list is the same whatever order, or thread, reads it), when some
/// order may ask [`touches_at_rest`] this tick ([`may_ask`]); else leaves it empty.
pub(super) fn collect_at_rest(
    out: &mut Vec<AtRest>,
    orders: &[(AgentId, Order)],
    shared: &[u32],
    (ids, positions, params): (&[AgentId], &[Vec2], &[AgentParams]),
) -> Fx {
    out.clear();
    if !may_ask(orders, shared, (ids, positions, params)) {
        return Fx::ZERO;
    }
    let largest = push_arrived(out, orders, shared, (ids, positions, params), |_, n, _| {
        n >= 2
    });
    // In place (a stable sort of more than a few dozen entries allocates). The order among
    // equal keys is never read: `touches_at_rest` asks whether any entry touches.
    out.sort_unstable_by_key(at_rest_key);
    largest
}

/// Whether a unit at `p` (radius `r`) heading along `ahead` touches an order at rest on `goal`
/// in front of it: their discs within `r / 2` of each other, the other's centre on the side
/// `ahead` points to. `at_rest` is sorted by goal and x, and none of its radii is above the
/// one given with it: only the run of `goal` whose x lies within reach of `p`'s is read. With
/// `sight`, only an order whose disc `p` sees counts ([`sees_disc`]; asked of the touching
/// ones only).
pub(super) fn touches_at_rest(
    (at_rest, largest): (&[AtRest], Fx),
    goal: Vec2,
    p: Vec2,
    r: Fx,
    ahead: Vec2,
    sight: Option<&ObstacleSet>,
) -> bool {
    let (gx, gy) = goal_bits(goal);
    let span = r.saturating_add(largest).saturating_add(r / 2);
    let (lo, hi) = (p.x.saturating_sub(span), p.x.saturating_add(span));
    let first = at_rest.partition_point(|a| at_rest_key(a) < (gx, gy, lo.to_bits()));
    at_rest[first..]
        .iter()
        .take_while(|a| at_rest_key(a) <= (gx, gy, hi.to_bits()))
        .any(|a| {
            let d = a.position - p;
            let reach = r.saturating_add(a.radius).saturating_add(r / 2);
            d.length_squared_wide() <= wide_mul(reach, reach)
                && d.dot_wide(ahead) > 0
                && sight.is_none_or(|set| sees_disc(set, p, a.position, a.radius))
        })
}

/// Whether `p` sees the disc of radius `r` at `c`: no edge of `set` crosses (or touches) the
/// segment from `p` to its centre, or to one of the two points of its rim square to the line
/// between them. A wall across the way between the two hides all three; the corner of a
/// building that the line between two touching units' centres cuts (a wedge sharper than
/// about 74° for equal radii, a right angle for a unit at rest much smaller than the one
/// asking) hides the centre only.
pub(super) fn sees_disc(set: &ObstacleSet, p: Vec2, c: Vec2, r: Fx) -> bool {
    set.query_visibility(p, c, Fx::ZERO)
        || (c - p).try_normalize().is_some_and(|dir| {
            let side = dir.perp() * r;
            set.query_visibility(p, c + side, Fx::ZERO)
                || set.query_visibility(p, c - side, Fx::ZERO)
        })
}

/// Fills `out` with the units of the orders at rest on a goal of their own (arrived, alone
/// with their goal, resting within a radius of it: pushed off, each walks back), their goal,
/// position and radius, sorted by the position's x, from the state at the start of stage 1b,
/// when some order is on its way, or alone with its goal and at rest short of it (the only
/// ones that may stop behind such a unit, or stay stopped); else leaves it empty. Returns the
/// largest radius in the list. Each unit on its way scans the entries within its reach in x
/// (all of them when the units at rest stand in one column along y: rare, as they rest on
/// goals of their own).
pub(super) fn collect_resting(
    out: &mut Vec<AtRest>,
    orders: &[(AgentId, Order)],
    shared: &[u32],
    (ids, positions, params): (&[AgentId], &[Vec2], &[AgentParams]),
    arrive_within: Option<Fx>,
) -> Fx {
    out.clear();
    let arrived = |o: &Order| o.status() == OrderStatus::Arrived;
    // Asked by orders on their way, by those alone with their goal at rest short of it (which
    // stay so while such a unit stands in their way, or their goal is taken), and by those
    // alone with their goal, arrived on it and off it (held off it, or pushed beyond
    // `arrive_within`: they rest where they are, their goal taken).
    let mut slot = 0;
    let mut asks = |id: AgentId, o: &Order, n: u32| {
        if !arrived(o) || (n < 2 && o.arrival().rest != o.goal()) {
            return true;
        }
        if n >= 2 {
            return false;
        }
        while slot < ids.len() && ids[slot] < id {
            slot += 1;
        }
        if ids.get(slot) != Some(&id) {
            return false;
        }
        // Off its goal: held off it (within `arrive_within`), or pushed beyond that.
        let (p, r) = (positions[slot], params[slot].radius);
        let aw = arrive_within.unwrap_or(r);
        off_goal(p, o.goal(), r) || (p - o.goal()).length_squared_wide() > wide_mul(aw, aw)
    };
    if !orders
        .iter()
        .zip(shared)
        .any(|((id, o), &n)| asks(*id, o, n))
        || !orders.iter().any(|(_, o)| arrived(o))
    {
        return Fx::ZERO;
    }
    // Resting within a radius of its goal (the rest point is the goal, or beside it).
    let on_goal = |o: &Order, n: u32, radius: Fx| {
        let off = o.arrival().rest - o.goal();
        n < 2 && off.length_squared_wide() <= wide_mul(radius, radius)
    };
    let largest = push_arrived(out, orders, shared, (ids, positions, params), on_goal);
    // The order among equal x is never read: `behind_at_rest` asks whether any entry is in
    // the way.
    out.sort_unstable_by_key(|a| a.position.x.to_bits());
    largest
}

/// Whether a unit at `p` (radius `r`) on the last leg to `goal` stands behind a unit at rest
/// on another goal in a passage too narrow for the two to pass (the arrival rule's
/// `Crowd::behind`): their discs within `gap`, the other's centre ahead of `p` and short of
/// the goal, and no room to pass across the way ([`room_to_pass`]) anywhere from the other's
/// centre to the goal ([`no_room_on`]). `resting` is sorted by x, none of its radii above the
/// one given with it.
pub(super) fn behind_at_rest(
    (resting, largest): (&[AtRest], Fx),
    obstacles: &ObstacleSet,
    (goal, p, r): (Vec2, Vec2, Fx),
    gap: Fx,
) -> bool {
    let way = goal - p;
    let span = r.saturating_add(largest).saturating_add(gap);
    let (lo, hi) = (p.x.saturating_sub(span), p.x.saturating_add(span));
    let first = resting.partition_point(|a| a.position.x < lo);
    resting[first..]
        .iter()
        .take_while(|a| a.position.x <= hi)
        .any(|a| {
            let d = a.position - p;
            let reach = r.saturating_add(a.radius).saturating_add(gap);
            a.goal != goal
                && d.length_squared_wide() <= wide_mul(reach, reach)
                && d.dot_wide(way) > 0
                && (goal - a.position).dot_wide(way) > 0
                && no_room_on(obstacles, (a.position, goal), way, (r, a.radius))
        })
}

/// Whether a unit at rest on a goal of its own other than `goal`, and near it (within its
/// radius), has its goal nearer to `goal` than its radius and `r`: the two goals cannot both
/// be rested on (the arrival rule's `Crowd::goal_taken`). `resting` is sorted by x, none of
/// its radii above the one given with it.
pub(super) fn goal_taken_at_rest((resting, largest): (&[AtRest], Fx), goal: Vec2, r: Fx) -> bool {
    // The other's centre lies within its radius of its goal, which lies within `r` and its
    // radius of `goal`.
    let span = r.saturating_add(largest).saturating_add(largest);
    let (lo, hi) = (goal.x.saturating_sub(span), goal.x.saturating_add(span));
    let first = resting.partition_point(|a| a.position.x < lo);
    resting[first..]
        .iter()
        .take_while(|a| a.position.x <= hi)
        .any(|a| {
            let reach = r.saturating_add(a.radius);
            a.goal != goal
                && (a.goal - goal).length_squared_wide() < wide_mul(reach, reach)
                && (a.position - a.goal).length_squared_wide() <= wide_mul(a.radius, a.radius)
        })
}

/// The most points [`no_room_on`] tries along a stretch: beyond `64 r` a unit never stops
/// behind another (the goal is too far past it to say the way is narrow all along).
const STRETCH_POINTS: i64 = 64;

/// Whether two units (radii `r` of the one on its way and `r_at` of the one at rest at
/// `from`) find no room to pass side by side ([`room_to_pass`], across `way`) anywhere on the
/// stretch from `from` to `to`: at `from`, at `to`, and at points at most `r` apart between
/// them (at most [`STRETCH_POINTS`]; a longer stretch counts as room). Without the points
/// between, a unit at rest in one narrow street stopped one bound for a goal in another
/// narrow street beyond open ground, 17 from it, for good (the thirtieth session's
/// review).
fn no_room_on(
    obstacles: &ObstacleSet,
    (from, to): (Vec2, Vec2),
    way: Vec2,
    (r, r_at): (Fx, Fx),
) -> bool {
    let both = r.saturating_add(r_at);
    if room_to_pass(obstacles, from, way, both, r_at) || room_to_pass(obstacles, to, way, both, r) {
        return false;
    }
    let stretch = to - from;
    let len = stretch.length();
    let step = r.max(Fx::from_bits(1));
    // The parts of at most `r`: `ceil(len / r)`, saturating (never a panic on overflow).
    let parts = len
        .checked_div(step)
        .and_then(|q| q.checked_ceil())
        .map_or(i64::MAX, |q| q.to_num::<i64>().max(1));
    if parts > STRETCH_POINTS {
        return false;
    }
    let n = Fx::from_num(parts);
    (1..parts).all(|k| {
        let q = from + stretch * (Fx::from_num(k) / n);
        !room_to_pass(obstacles, q, way, both, r)
    })
}

/// Whether two units whose radii sum to `both` fit side by side across the way `way` at `q`:
/// a segment `2 · both · 17/16` long, square to `way`, through `q` is clear of walls, with `q`
/// `r` from either end or at its middle (`r`: the radius of the unit at `q`).
fn room_to_pass(obstacles: &ObstacleSet, q: Vec2, way: Vec2, both: Fx, r: Fx) -> bool {
    let Some(across) = way.perp().try_normalize() else {
        return true;
    };
    let width = both.saturating_mul_int(2).saturating_add(both / 8);
    [r, width / 2, width.saturating_sub(r)]
        .into_iter()
        .any(|a| {
            let from = q - across * a;
            let to = q + across * width.saturating_sub(a);
            obstacles.query_visibility(from, to, Fx::ZERO)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::obstacle::ObstacleShape;

    fn v(x: &str, y: &str) -> Vec2 {
        Vec2::new(Fx::lit(x), Fx::lit(y))
    }

    fn set(shape: ObstacleShape) -> ObstacleSet {
        let mut set = ObstacleSet::default();
        set.add(shape).unwrap();
        set
    }

    /// Round a building's right-angle corner (the building below and left of the origin), a
    /// unit of radius 1 touches one at rest of radius 0.3 (centres 1.777 apart, within
    /// 1 + 0.3 + 1 / 2), each clear of the building by its radius, and the line between the
    /// centres cuts the corner: the centre is hidden, the side of the disc is not.
    #[test]
    fn a_disc_round_a_corner_is_seen_by_its_side() {
        let building = set(ObstacleShape::Polygon(vec![
            v("-5", "-5"),
            v("0", "-5"),
            v("0", "0"),
            v("-5", "0"),
        ]));
        let (p, c) = (v("1", "-0.55"), v("-0.56", "0.3"));
        let reach = Fx::lit("1.8");
        assert!((c - p).length_squared_wide() <= wide_mul(reach, reach));
        assert!(
            !building.query_visibility(p, c, Fx::ZERO),
            "the corner hides the centre"
        );
        assert!(sees_disc(&building, p, c, Fx::lit("0.3")));
    }

    /// A thin wall across the way between two touching units hides the disc.
    #[test]
    fn a_thin_wall_between_hides_the_disc() {
        let wall = set(ObstacleShape::Polyline(vec![v("0", "-5"), v("0", "5")]));
        let (p, c) = (v("-0.6", "0"), v("0.6", "0.1"));
        assert!(!sees_disc(&wall, p, c, Fx::lit("0.5")));
        // Without it, in plain sight.
        let away = set(ObstacleShape::Polyline(vec![v("5", "-5"), v("5", "5")]));
        assert!(sees_disc(&away, p, c, Fx::lit("0.5")));
    }
}

//! The tree's build: RVO2's midpoint split and in-place partition, serial
//! ([`build_sub`]) and with the large subtrees on rayon (`build_par`, feature `parallel`),
//! which gives the serial tree node for node.

#[cfg(feature = "parallel")]
use super::PAR_MIN;
use super::{MAX_LEAF_SIZE, Node};
use crate::math::Vec2;

/// The part of the tree's arrays a subtree's build works on: tree positions
/// `base..base + order.len()`.
pub(super) struct Part<'a> {
    pub(super) order: &'a mut [u32],
    pub(super) xs: &'a mut [i64],
    pub(super) ys: &'a mut [i64],
    pub(super) base: usize,
}

impl<'a> Part<'a> {
    /// The two parts `[..mid]` and `[mid..]`.
    fn split(self, mid: usize) -> (Part<'a>, Part<'a>) {
        let (ol, or) = self.order.split_at_mut(mid);
        let (xl, xr) = self.xs.split_at_mut(mid);
        let (yl, yr) = self.ys.split_at_mut(mid);
        (
            Part {
                order: ol,
                xs: xl,
                ys: yl,
                base: self.base,
            },
            Part {
                order: or,
                xs: xr,
                ys: yr,
                base: self.base + mid,
            },
        )
    }
}

/// Where a build records each agent's leaf.
pub(super) trait Leaves {
    /// The agents `slots` (at tree positions `base..`) are in leaf `node`.
    fn mark(&mut self, slots: &[u32], base: usize, node: u32);
}

/// Leaves by slot: the tree's `leaf_of` itself (the serial build).
pub(super) struct BySlot<'a>(pub(super) &'a mut [u32]);

impl Leaves for BySlot<'_> {
    #[inline(always)]
    fn mark(&mut self, slots: &[u32], _base: usize, node: u32) {
        for &slot in slots {
            self.0[slot as usize] = node;
        }
    }
}

/// Leaves by tree position, over positions `offset..offset + len` (the parallel build, whose
/// parts are disjoint ranges of positions but not of slots).
#[cfg(feature = "parallel")]
struct ByPosition<'a> {
    leaf_at: &'a mut [u32],
    offset: usize,
}

#[cfg(feature = "parallel")]
impl Leaves for ByPosition<'_> {
    #[inline(always)]
    fn mark(&mut self, slots: &[u32], base: usize, node: u32) {
        let at = base - self.offset;
        self.leaf_at[at..at + slots.len()].fill(node);
    }
}

/// Appends `part`'s node to `nodes` (numbered `first + nodes.len()`, below `parent`) and, when
/// it is not a leaf, partitions `part` at its split (RVO2): returns the node and, for an inner
/// node, the size of its left part (`None` for a leaf, whose agents are marked in `leaves`).
#[inline(always)]
fn make_node<L: Leaves>(
    part: &mut Part<'_>,
    nodes: &mut Vec<Node>,
    first: u32,
    parent: u32,
    leaves: &mut L,
) -> (u32, Option<usize>) {
    let len = part.order.len();
    let (begin, end) = (part.base, part.base + len);
    // The bounding box in one pass (parts are never empty).
    debug_assert!(len > 0);
    let (mut x0, mut x1, mut y0, mut y1) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
    for (&x, &y) in part.xs.iter().zip(part.ys.iter()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let node = first + nodes.len() as u32;
    nodes.push(Node {
        begin: begin as u32,
        end: end as u32,
        left: 0,
        right: 0,
        parent,
        sibling: 0,
        min: Vec2::from_bits(x0, y0),
        max: Vec2::from_bits(x1, y1),
    });
    if len <= MAX_LEAF_SIZE {
        leaves.mark(part.order, begin, node);
        return (node, None);
    }
    // Split the longer side at its midpoint (exact: floor of the raw sum / 2). The sides'
    // lengths compare as Fx differences did: the exact i128 differences.
    let vertical = i128::from(x1) - i128::from(x0) > i128::from(y1) - i128::from(y0);
    let (lo, hi) = if vertical { (x0, x1) } else { (y0, y1) };
    let split = ((i128::from(lo) + i128::from(hi)) >> 1) as i64;
    // RVO2's in-place partition, moving the coordinates with the slots.
    let (mut left, mut right) = (0, len);
    {
        // `keys`: the split axis' coordinates; `other`: the other axis'.
        let (order, keys, other) = if vertical {
            (&mut *part.order, &mut *part.xs, &mut *part.ys)
        } else {
            (&mut *part.order, &mut *part.ys, &mut *part.xs)
        };
        while left < right {
            while left < right && keys[left] < split {
                left += 1;
            }
            while right > left && keys[right - 1] >= split {
                right -= 1;
            }
            if left < right {
                order.swap(left, right - 1);
                keys.swap(left, right - 1);
                other.swap(left, right - 1);
                left += 1;
                right -= 1;
            }
        }
    }
    let left_size = if left == 0 { len / 2 } else { left };
    (node, Some(left_size))
}

/// Builds the subtree over `part` below `parent` into `nodes` (node `i` of `nodes` is node
/// `first + i` of the tree); returns its node. Nodes are numbered in depth-first order (the
/// root is 0, a node's left child is the next node).
pub(super) fn build_sub<L: Leaves>(
    mut part: Part<'_>,
    nodes: &mut Vec<Node>,
    first: u32,
    parent: u32,
    leaves: &mut L,
) -> u32 {
    let (node, split) = make_node(&mut part, nodes, first, parent, leaves);
    let Some(left_size) = split else {
        return node;
    };
    let (lp, rp) = part.split(left_size);
    let left_node = build_sub(lp, nodes, first, node, leaves);
    let right_node = build_sub(rp, nodes, first, node, leaves);
    link(nodes, first, node, left_node, right_node);
    node
}

/// Makes `left` and `right` the children of `node` and each other's siblings (`nodes` starts
/// at node number `first`).
#[inline]
fn link(nodes: &mut [Node], first: u32, node: u32, left: u32, right: u32) {
    nodes[(left - first) as usize].sibling = right;
    nodes[(right - first) as usize].sibling = left;
    let n = &mut nodes[(node - first) as usize];
    n.left = left;
    n.right = right;
}

/// [`build_sub`] with the two subtrees of each part of at least [`PAR_MIN`] agents built in
/// parallel (`rayon::join`), leaves recorded by position in `leaf_at` (tree positions
/// `part.base..`). The tree is the serial one, node for node: the left subtree is built into
/// `nodes` right after its parent, as serially; the right one into a vector of its own,
/// numbered from 0 (its root's parent already global), then renumbered by the number of
/// nodes before it (its links, parents but its root's, and leaf marks: `+ start`) and
/// appended. Nested parts compose: each renumbering is relative to the vector it joins.
///
/// The right subtrees' vectors are `bufs`' (a tree of buffers shaped like the tree of
/// parallel splits, grown when a split is first met and kept between ticks), so a steady run
/// allocates nothing.
#[cfg(feature = "parallel")]
pub(super) fn build_par(
    mut part: Part<'_>,
    nodes: &mut Vec<Node>,
    first: u32,
    parent: u32,
    leaf_at: &mut [u32],
    bufs: &mut ParBufs,
) -> u32 {
    if part.order.len() < PAR_MIN {
        let offset = part.base;
        return build_sub(
            part,
            nodes,
            first,
            parent,
            &mut ByPosition { leaf_at, offset },
        );
    }
    let offset = part.base;
    let mut leaves = ByPosition {
        leaf_at: &mut *leaf_at,
        offset,
    };
    let (node, Some(left_size)) = make_node(&mut part, nodes, first, parent, &mut leaves) else {
        unreachable!("PAR_MIN > MAX_LEAF_SIZE");
    };
    let (lp, rp) = part.split(left_size);
    let (leaf_l, leaf_r) = leaf_at.split_at_mut(left_size);
    let ParBufs {
        right_nodes,
        left: bufs_l,
        right: bufs_r,
    } = bufs;
    let bufs_l = bufs_l.get_or_insert_with(Box::default);
    let bufs_r = bufs_r.get_or_insert_with(Box::default);
    right_nodes.clear();
    let (left_node, _) = rayon::join(
        || build_par(lp, nodes, first, node, leaf_l, bufs_l),
        || build_par(rp, right_nodes, 0, node, leaf_r, bufs_r),
    );
    let start = first + nodes.len() as u32;
    for (i, n) in right_nodes.iter_mut().enumerate() {
        if i > 0 {
            n.parent += start;
            n.sibling += start;
        }
        if (n.end - n.begin) as usize > MAX_LEAF_SIZE {
            n.left += start;
            n.right += start;
        }
    }
    for leaf in leaf_r.iter_mut() {
        *leaf += start;
    }
    nodes.extend_from_slice(right_nodes);
    link(nodes, first, node, left_node, start);
    node
}

/// [`build_par`]'s buffers for one parallel split: the right subtree's nodes, and the buffers
/// of the parallel splits inside its left and right subtrees.
#[cfg(feature = "parallel")]
#[derive(Clone, Debug, Default)]
pub(super) struct ParBufs {
    right_nodes: Vec<Node>,
    left: Option<Box<ParBufs>>,
    right: Option<Box<ParBufs>>,
}

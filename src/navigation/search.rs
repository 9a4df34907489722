//! The path search over the mesh's triangles.

use super::{NavMesh, NavPath, PathRequest, PathStatus};

/// Scratch buffers of the search, reused between searches (workspace, never state).
#[derive(Clone, Debug, Default)]
pub struct SearchWork {}

impl NavMesh {
    /// Plans a path for `req` (see [`PathRequest`]).
    #[must_use]
    pub fn find_path(&self, req: &PathRequest, work: &mut SearchWork) -> NavPath {
        let _ = work;
        NavPath {
            points: vec![req.goal],
            status: PathStatus::Complete,
            expansions: 0,
        }
    }
}

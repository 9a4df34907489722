//! String pulling: a corridor of portals into a path that keeps a radius from walls.

//! The framework catalogue: regions, sources, sinks, guards and side effects. The built-in rows
//! live in `rules/*.toml` (embedded in the binary); users add rows in the same shape. The
//! analysis engine consults only this data.
//!
//! - `schema`: the one file shape, every row with an id;
//! - `compiled`: files merged into the [`Catalogue`] the engine queries, disabled rows left out.

mod compiled;
mod model;
mod rows;
pub mod schema;

pub use compiled::{
    Catalogue, CatalogueError, ClusterLocks, CoarseConversions, Guards, PersistCalls, RowInfo,
    SideEffects, SinkHeaders, SinkParameters, Sinks, Sources, glob, normalize, parse_file,
};
pub use schema::*;

#[cfg(test)]
mod tests;

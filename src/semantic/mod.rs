//! The project model: classes, methods, hierarchy and constants of the scanned files, type and
//! call resolution, the one expression typer, the one typed walk of a body and the call graph.

mod app_settings;
pub mod callgraph;
#[cfg(test)]
mod callgraph_tests;
mod calls;
pub mod modules;
mod project;
#[cfg(test)]
mod resolution_tests;
pub mod typer;
pub mod walk;

pub use callgraph::CallGraph;
pub use calls::method_ref_targets;
pub use project::*;
pub use typer::{Declared, DeclaredSoFar, Defs, Locals, Typer, collect_defs};

use crate::java::ir::Span;

/// A place in a scanned file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: u32,
    pub span: Span,
}

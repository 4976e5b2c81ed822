//! The project model: classes, methods, hierarchy and constants of the scanned files, type and
//! call resolution, and the one expression typer.

mod calls;
pub mod modules;
mod project;
#[cfg(test)]
mod resolution_tests;
pub mod typer;

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

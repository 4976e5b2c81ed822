//! The project model: classes, methods, hierarchy and constants of the scanned files, type and
//! call resolution, the one expression typer, the one typed walk of a body and the call graph.

mod app_profiles;
mod app_settings;
pub mod callgraph;
#[cfg(test)]
mod callgraph_tests;
mod calls;
mod containers;
pub mod generics;
mod held;
pub mod modules;
mod project;
pub mod recursion;
#[cfg(test)]
mod resolution_tests;
mod scopes;
pub mod typer;
pub mod walk;

pub use app_settings::normalize_key;
pub use callgraph::CallGraph;
pub use calls::method_ref_targets;
pub use held::Held;
pub use project::*;
pub use scopes::LocalTypes;
pub use typer::{Declared, DeclaredSoFar, Defs, Factories, Locals, Typer, collect_defs};

use crate::java::ir::Span;

/// A place in a scanned file.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Loc {
    pub file: u32,
    pub span: Span,
}

/// Does `s` match `pattern`, which may start and/or end with `*` (`next*`, `*IdWorker`,
/// `*Snowflake*`) or hold one `*` inside (`acquire*Lock`: a prefix and a suffix, with anything
/// or nothing between)? How framework knowledge names methods and classes.
pub fn glob(pattern: &str, s: &str) -> bool {
    match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
        (Some(rest), _) if rest.ends_with('*') => s.contains(&rest[..rest.len() - 1]),
        (Some(rest), _) => s.ends_with(rest),
        (None, Some(prefix)) => s.starts_with(prefix),
        (None, None) => match pattern.split_once('*') {
            Some((prefix, suffix)) => {
                s.len() >= prefix.len() + suffix.len()
                    && s.starts_with(prefix)
                    && s.ends_with(suffix)
            }
            None => s == pattern,
        },
    }
}

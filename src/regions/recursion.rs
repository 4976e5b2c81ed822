//! Recursive retries (SPEC §3.2): a method that calls itself again from its failure path runs
//! its whole body again for the same operation. The code is read by
//! [`crate::semantic::recursion`]; which operators run a function only on failure is the
//! catalogue's `[[regions.recursion]]` data.

use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Method, Span};
use crate::semantic::recursion::{calls_on_this, failure_path};
use crate::semantic::{Loc, MethodId, Project};

/// Does an operator run its function arguments when the work before it failed (the
/// catalogue's `failure_handlers`)?
fn on_failure(cat: &Catalogue) -> impl Fn(&str) -> bool + '_ {
    |op: &str| {
        cat.regions
            .recursion
            .iter()
            .any(|r| r.failure_handlers.iter().any(|h| h == op))
    }
}

/// The region of method `id` when it retries itself, located at its first recursive call, or
/// at the first call of its failure path on another method of its class that calls it again
/// (`attempt` → `maybeRetry(task, …)` → `scheduler.schedule(() -> attempt(task, …))`): the retry
/// goes round through it.
pub fn recursion_region(project: &Project, cat: &Catalogue, id: MethodId) -> Option<Region> {
    let row = cat.regions.recursion.first()?;
    let m = project.method(id);
    let (direct, others) = failure_path(m, m.body()?, &on_failure(cat));
    let call = match direct {
        Some(r) => r.call,
        None => through_another(project, id, m, &others)?,
    };
    Some(Region::new(
        &row.label,
        m.name.to_string(),
        Loc {
            file: id.0,
            span: call,
        },
        vec![Part::Whole(id)],
        &row.id,
    ))
}

/// The first of `calls` (the failure path's calls on other methods of the class) whose target
/// calls `m` again.
fn through_another(
    project: &Project,
    id: MethodId,
    m: &Method,
    calls: &[(String, usize, Span)],
) -> Option<Span> {
    let class = project.class_of(id);
    calls
        .iter()
        .find(|(name, arity, _)| {
            project.methods_named(class, name).iter().any(|x| {
                let xm = project.method(*x);
                *x != id
                    && xm.params.len() == *arity
                    && xm
                        .body()
                        .is_some_and(|b| calls_on_this(b, &m.name, m.params.len()))
            })
        })
        .map(|(_, _, span)| *span)
}

/// Can method `m` be a recursive retry (the cheap test for [`super::may_hold_region`]): it
/// calls itself, or another method of its class, from its failure path?
pub fn may_retry_itself(m: &Method, body: &Block, cat: &Catalogue) -> bool {
    if cat.regions.recursion.is_empty() {
        return false;
    }
    let (direct, others) = failure_path(m, body, &on_failure(cat));
    direct.is_some() || !others.is_empty()
}

//! Recursive retries (SPEC §3.2): a method that calls itself again from its failure path runs
//! its whole body again for the same operation. The code is read by
//! [`crate::semantic::recursion`]; which operators run a function only on failure is the
//! catalogue's `[[regions.recursion]]` data.

use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::semantic::recursion::{calls_on_this, failure_calls, retries_itself};
use crate::semantic::{Loc, MethodId, Project};

/// The region of method `id` when it retries itself, located at its first recursive call.
pub fn recursion_region(project: &Project, cat: &Catalogue, id: MethodId) -> Option<Region> {
    let row = cat.regions.recursion.first()?;
    let m = project.method(id);
    let is_handler = |op: &str| {
        cat.regions
            .recursion
            .iter()
            .any(|r| r.failure_handlers.iter().any(|h| h == op))
    };
    let call = match retries_itself(m, &is_handler) {
        Some(r) => r.call,
        None => through_another(project, id, &is_handler)?,
    };
    Some(Region::new(
        &row.label,
        m.name.clone(),
        Loc {
            file: id.0,
            span: call,
        },
        vec![Part::Whole(id)],
        &row.id,
    ))
}

/// The first call of `id`'s failure path on another method of its class that calls `id` again
/// (`attempt` → `maybeRetry(task, …)` → `scheduler.schedule(() -> attempt(task, …))`): the
/// retry goes round through it.
fn through_another(
    project: &Project,
    id: MethodId,
    on_failure: &dyn Fn(&str) -> bool,
) -> Option<crate::java::ir::Span> {
    let m = project.method(id);
    if m.is_ctor {
        return None;
    }
    let body = m.body()?;
    let class = project.class_of(id);
    failure_calls(m, body, on_failure)
        .into_iter()
        .find(|(name, arity, _)| {
            project.methods_named(class, name).iter().any(|x| {
                *x != id && project.method(*x).params.len() == *arity && {
                    let xm = project.method(*x);
                    xm.body()
                        .is_some_and(|b| calls_on_this(b, &m.name, m.params.len()))
                }
            })
        })
        .map(|(_, _, span)| span)
}

/// Can method `id` be a recursive retry (the cheap test for [`super::may_hold_region`])?
pub fn may_retry_itself(
    m: &crate::java::ir::Method,
    body: &crate::java::ir::Block,
    cat: &Catalogue,
) -> bool {
    !cat.regions.recursion.is_empty()
        && crate::semantic::recursion::retries_itself_in(m, body, &|op| {
            cat.regions
                .recursion
                .iter()
                .any(|r| r.failure_handlers.iter().any(|h| h == op))
        })
        .is_some()
        || !cat.regions.recursion.is_empty()
            && !crate::semantic::recursion::failure_calls(m, body, &|op| {
                cat.regions
                    .recursion
                    .iter()
                    .any(|r| r.failure_handlers.iter().any(|h| h == op))
            })
            .is_empty()
}

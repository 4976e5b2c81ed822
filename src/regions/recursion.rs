//! Recursive retries (SPEC §3.2): a method that calls itself again from its failure path runs
//! its whole body again for the same operation. The code is read by
//! [`crate::semantic::recursion`]; which operators run a function only on failure is the
//! catalogue's `[[regions.recursion]]` data.

use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::semantic::recursion::retries_itself;
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
    let r = retries_itself(m, &is_handler)?;
    Some(Region::new(
        &row.label,
        m.name.clone(),
        Loc {
            file: id.0,
            span: r.call,
        },
        vec![Part::Whole(id)],
        &row.id,
    ))
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
}

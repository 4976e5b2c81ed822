//! Whether a sink behind a check of the application's own store holds for a region (SPEC 7.4,
//! "an entity saved before the sink"): the check finds the record a failed attempt committed
//! only when it looks it up by values the same on every attempt, and the record outlives the
//! attempt only when no transaction open around its save rolls it back.

use super::{Context, reach};
use crate::dataflow as flow;
use crate::regions::Part;
use crate::semantic::MethodId;
use std::collections::BTreeSet;

/// Calls followed up from the checking method to the region's code.
const MAX_DEPTH: usize = 8;

/// Does the check of `rec`, in method `m`, stop every later attempt of region `i` before the
/// sink?
pub(super) fn holds(cx: &Context, i: usize, m: MethodId, rec: &flow::Recorded) -> bool {
    rec.params.iter().all(|p| stable_param(cx, i, m, *p))
        && (rec.apart || !transaction_around(cx, i))
}

/// Is parameter `p` of `m` the same on every attempt of region `i`: a parameter of the region's
/// own method (SPEC 7.2), or one every call in the region passes a constant or such a parameter
/// (or a property of one) to?
fn stable_param(cx: &Context, i: usize, m: MethodId, p: u16) -> bool {
    let mut seen: BTreeSet<(MethodId, u16)> = BTreeSet::new();
    let mut work = vec![(m, p, 0usize)];
    while let Some((m, p, depth)) = work.pop() {
        if reach::region_code(cx, i, m) {
            continue;
        }
        if depth > MAX_DEPTH || cx.regions[i].entered.iter().any(|(x, _)| *x == m) {
            return false;
        }
        let Some(calls) = reach::calls_in_region(cx, i, m) else {
            return false;
        };
        let called = !calls.is_empty();
        for (c, facts) in calls {
            match facts.get(p as usize) {
                Some(flow::Fact::Const(_)) => {}
                Some(flow::Fact::Param(q)) => {
                    if seen.insert((c, q.param())) {
                        work.push((c, q.param(), depth + 1));
                    }
                }
                _ => return false,
            }
        }
        if !called {
            return false;
        }
    }
    true
}

/// May a transaction be open around the code of region `i`: the region's own method runs in one
/// (the framework calls it through its proxy), or a method it reaches does and is called
/// through a proxy (not on `this`)?
fn transaction_around(cx: &Context, i: usize) -> bool {
    let in_tx = |m: MethodId| crate::regions::in_transaction(cx.project, cx.cat, m);
    let r = &cx.regions[i];
    if r.parts
        .iter()
        .any(|p| matches!(p, Part::Whole(m) | Part::Scopes(m, _) if in_tx(*m)))
    {
        return true;
    }
    cx.reaches.methods(i).any(|m| {
        if !in_tx(m) {
            return false;
        }
        if reach::region_code(cx, i, m) {
            return true;
        }
        let mut within = reach::callers_in_region(cx, i, m).peekable();
        within.peek().is_none()
            || within.any(|c| cx.flows.get(c).is_none_or(|f| !f.self_calls.contains(&m)))
    })
}

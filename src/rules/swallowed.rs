//! Whether a region that runs again only after a failed attempt can still fail once it has
//! started a sink (see `regions::sent_once`): the calls of the region's method that lead to the
//! sink are found on the call graph, and the method's statements decide.

use super::{Context, reach};
use crate::java::ir::Span;
use crate::semantic::MethodId;
use std::collections::BTreeSet;

/// Does region `i` send the key of a sink reached at `at` in method `m` only once: every call
/// of the region's method that may lead to `m` (or, in that method itself, the sink) sits in a
/// `try` that swallows every failure, and nothing after it can fail?
pub(super) fn holds(cx: &Context, i: usize, m: MethodId, at: Span, row: bool) -> bool {
    let Some(root) = crate::regions::redelivered_method(cx.project, cx.cat, &cx.regions[i]) else {
        return false;
    };
    // The methods from which `m` may be called, `m` included; code the region enters through a
    // call (an interceptor, a stored function) is reached from the method making that call.
    let callers = reach::callers(cx);
    let entered = &cx.regions[i].entered;
    let mut up: BTreeSet<MethodId> = BTreeSet::from([m]);
    let mut work = vec![m];
    while let Some(x) = work.pop() {
        let senders = entered.iter().filter(|(p, _)| *p == x).map(|(_, s)| s);
        for c in callers.get(&x).into_iter().flatten().chain(senders) {
            if up.insert(*c) {
                work.push(*c);
            }
        }
    }
    let sink = crate::regions::Sink { method: m, at, row };
    crate::regions::sent_once(cx.project, cx.cat, cx.graph, root, sink, &|t| {
        up.contains(&t)
    })
}

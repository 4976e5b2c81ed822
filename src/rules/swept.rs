//! A scheduled sweep that marks what it selects (SPEC 7.4, a transactional outbox fired by a
//! scheduler). A firing that writes its key only into rows is stable when it writes them in a
//! transaction it opens — its own `@Transactional` method, which the scheduler calls through
//! the bean's proxy, or a method it calls through a proxy — and, in that transaction, sets a
//! property that the transaction's storage queries select their rows by, on an object of those
//! rows' class (`findByStatus("ACTIVE")` … `hold.setStatus("EXPIRED")`). A failed firing rolls
//! the rows, their keys and the marks back; a firing that commits has taken its items out of the
//! next firing's selection, so no later firing sends them again under a new key.
//!
//! Not a guard: a sweep that does not change what it selects by (every firing emits its items
//! anew), a change or a row write in a method that leaves the transaction (`REQUIRES_NEW`), a
//! transaction entered only through calls on `this` (no proxy), and a lambda scheduled by a call
//! (`scheduleAtFixedRate(() -> …)`), which no proxy wraps.

use super::{Context, reach};
use crate::regions::Part;
use crate::semantic::MethodId;
use std::collections::{BTreeSet, HashSet, VecDeque};

/// Does region `i`, a scheduler, write the key that method `m` sends into a row only in a
/// transaction that also marks what its queries select?
pub(super) fn marks_selection(cx: &Context, i: usize, m: MethodId) -> bool {
    let r = &cx.regions[i];
    r.scheduler && starts(cx, i).into_iter().any(|t| marks_within(cx, t, m))
}

/// The methods of region `i` that open a transaction the firing runs in: the scheduled method
/// itself, and methods it reaches whose every call in the region goes through a proxy.
fn starts(cx: &Context, i: usize) -> Vec<MethodId> {
    let in_tx = |m: MethodId| crate::regions::in_transaction(cx.project, cx.cat, m);
    let own = cx.regions[i].own_parts().filter_map(|p| match p {
        Part::Whole(m) => Some(*m),
        Part::Scopes(..) => None,
    });
    let mut out: Vec<MethodId> = own.filter(|m| in_tx(*m)).collect();
    for t in cx.reaches.methods(i) {
        if !in_tx(t) || reach::region_code(cx, i, t) {
            continue;
        }
        let mut callers = reach::callers_in_region(cx, i, t).peekable();
        if callers.peek().is_some()
            && callers.all(|c| cx.flows.get(c).is_some_and(|f| !f.self_calls.contains(&t)))
        {
            out.push(t);
        }
    }
    out
}

/// Does the transaction of `t` run `m` and set a property its queries select by, with nothing
/// in it that leaves the transaction?
fn marks_within(cx: &Context, t: MethodId, m: MethodId) -> bool {
    let leaves = |x: MethodId| crate::regions::commits_apart(cx.project, cx.cat, x);
    let mut seen: HashSet<MethodId> = HashSet::from([t]);
    let mut queue = VecDeque::from([t]);
    while let Some(x) = queue.pop_front() {
        for (_, c) in cx.graph.edges(x) {
            if seen.insert(*c) {
                if leaves(*c) {
                    return false;
                }
                queue.push_back(*c);
            }
        }
    }
    if !seen.contains(&m) {
        return false;
    }
    let sweeps = || {
        seen.iter()
            .filter_map(|x| cx.flows.get(x))
            .map(|f| &f.sweep)
    };
    let selects: BTreeSet<&String> = sweeps().flat_map(|s| &s.selects).collect();
    !selects.is_empty() && sweeps().any(|s| s.marks.iter().any(|k| selects.contains(k)))
}

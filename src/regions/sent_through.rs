//! Interceptors inside the regions that send through their client (SPEC 3.2): an interceptor
//! runs once for each request it intercepts, so it is inside every region from which a request
//! through it is sent. A region that reaches a call sending through a client gets the code of
//! the client's interceptors as parts of its own, entered through that call: their sources are
//! per-attempt for it and their sinks count.

use super::{Part, Region, Sends, merge_parts, reach, scope_within};
use crate::java::ir::{ScopeId, Span};
use crate::semantic::{CallGraph, MethodId, Project};

/// How many times an interceptor's code may lead to another client's interceptors.
const MAX_ROUNDS: usize = 4;

/// Adds to each region the interceptor code of the clients it sends through (`graph` must hold
/// that code, as roots of their own).
pub fn enter_interceptors(
    project: &Project,
    graph: &CallGraph,
    regions: &mut [Region],
    sends: &Sends,
) {
    if sends.by_method.is_empty() && sends.by_call.is_empty() && sends.own_calls.is_empty() {
        return;
    }
    // Each region on its own, in parallel.
    use rayon::prelude::*;
    regions.par_iter_mut().for_each(|r| {
        let own: Vec<MethodId> = r.parts.iter().map(part_method).collect();
        let mut grew = false;
        for _ in 0..MAX_ROUNDS {
            let reached = reach(project, graph, r);
            // A call on a client instance runs where the region runs its scope.
            let own_code = |m: MethodId, s: ScopeId| {
                r.parts.iter().any(|p| match p {
                    Part::Whole(x) => *x == m,
                    Part::Scopes(x, roots) => *x == m && scope_within(project.method(m), s, roots),
                })
            };
            let runs = |m: MethodId, s: ScopeId, span: Span| {
                reached.contains(&m) || r.sends_at.contains(&(m, span)) || own_code(m, s)
            };
            let triggered: Vec<(MethodId, &Vec<Part>)> = sends
                .by_method
                .iter()
                .filter(|(m, _)| reached.contains(m))
                .map(|(m, p)| (*m, p))
                .chain(
                    sends
                        .by_call
                        .iter()
                        .filter(|(m, s, span, _)| runs(*m, *s, *span))
                        .map(|(m, _, _, p)| (*m, p)),
                )
                .chain(
                    sends
                        .own_calls
                        .iter()
                        .filter(|(m, s, _, _)| own_code(*m, *s))
                        .map(|(m, _, _, p)| (*m, p)),
                )
                .collect();
            let mut added = false;
            for (sender, parts) in triggered {
                let sender = &sender;
                for p in parts {
                    let m = part_method(p);
                    // Code written in the region's own method is reached from there. Every
                    // sender is recorded, also one whose interceptor another sender already
                    // brought in (an application-wide interceptor runs for every client).
                    if !own.contains(&m) && !r.entered.contains(&(m, *sender)) {
                        r.entered.push((m, *sender));
                        grew = true;
                    }
                    if r.parts.contains(p) || r.parts.contains(&Part::Whole(m)) {
                        continue;
                    }
                    r.parts.push(p.clone());
                    added = true;
                }
            }
            grew |= added;
            if !added {
                break;
            }
        }
        if grew {
            r.parts = merge_parts(std::mem::take(&mut r.parts));
            r.entered.sort();
        }
    });
}

fn part_method(p: &Part) -> MethodId {
    match p {
        Part::Whole(m) | Part::Scopes(m, _) => *m,
    }
}

//! What the rules share: whether a region covers a site of a method, and the chain of calls
//! from a region to a method.

use super::Context;
use crate::dataflow as flow;
use crate::regions::{self, Part, Region};
use crate::semantic::{MethodId, Project};
use std::collections::{BTreeSet, HashMap};

/// Does region `r` (with its reach) cover a source evaluated in scope `s` and a sink executed
/// in scope `t` of method `m`?
pub(super) fn covers(
    project: &Project,
    r: &Region,
    reach: &BTreeSet<MethodId>,
    m: MethodId,
    src: &flow::SourceSite,
    t: u32,
) -> bool {
    let s = src.scope;
    let within = |roots: &[u32], x: u32| regions::scope_within(project.method(m), x, roots);
    // A counter declared in the method counts attempts only for a region (a loop or a lambda)
    // that updates it without declaring it; a field counter is like any other source.
    if let Some(Some(d)) = src.counter_decl {
        return r.parts.iter().any(|p| {
            matches!(p, Part::Scopes(x, roots)
                if *x == m && within(roots, s) && within(roots, t) && !within(roots, d))
        });
    }
    // A value generated once per holder is per-attempt only where the holder is made anew.
    if let Some(d) = src.holder_decl {
        return reach.contains(&m)
            || r.parts.iter().any(|p| match p {
                Part::Whole(x) => *x == m,
                Part::Scopes(x, roots) => {
                    *x == m && within(roots, s) && within(roots, t) && within(roots, d)
                }
            });
    }
    reach.contains(&m)
        || r.parts.iter().any(|p| match p {
            Part::Whole(x) => *x == m,
            Part::Scopes(x, roots) => *x == m && within(roots, s) && within(roots, t),
        })
}

/// The indexes of the regions of `cx` that cover `src` and a site in scope `t` of method `m`.
pub(super) fn covering(cx: &Context, m: MethodId, src: &flow::SourceSite, t: u32) -> Vec<usize> {
    cx.regions
        .iter()
        .enumerate()
        .filter(|(i, r)| covers(cx.project, r, &cx.reaches[*i], m, src, t))
        .map(|(i, _)| i)
        .collect()
}

/// The chain of methods from a region's code to `target` (BFS over the call graph; with
/// `unguarded`, only calls not under a cluster-wide lock — a flow fact, a lock held at the call,
/// that the interpreter records), as `Class.method` names.
pub(super) fn call_path(
    cx: &Context,
    r: &Region,
    target: MethodId,
    unguarded: bool,
) -> Vec<String> {
    let mut parent: HashMap<MethodId, Option<MethodId>> = HashMap::new();
    let mut queue = std::collections::VecDeque::new();
    for p in &r.parts {
        let m = match p {
            Part::Whole(m) | Part::Scopes(m, _) => *m,
        };
        if parent.insert(m, None).is_none() {
            queue.push_back(m);
        }
    }
    while let Some(m) = queue.pop_front() {
        if m == target {
            break;
        }
        let edges = if unguarded {
            match cx.flows.get(&m) {
                Some(f) => f.unguarded_calls.as_slice(),
                None => continue,
            }
        } else {
            cx.graph.edges(m)
        };
        for (_, c) in edges {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(*c) {
                e.insert(Some(m));
                queue.push_back(*c);
            }
        }
    }
    let project = cx.project;
    let mut chain = Vec::new();
    let mut cur = parent.contains_key(&target).then_some(target);
    while let Some(m) = cur {
        let mm = project.method(m);
        chain.push(format!(
            "{}.{}",
            project.class(project.class_of(m)).name,
            mm.name
        ));
        cur = parent.get(&m).copied().flatten();
        if chain.len() > 64 {
            break;
        }
    }
    chain.reverse();
    chain
}

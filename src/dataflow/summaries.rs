//! Method summaries over the call graph: strongly connected components, callees first.

use super::model::Model;
use super::*;
use crate::semantic::{MethodId, Project};
use rayon::prelude::*;
use std::collections::HashMap;

/// Rounds of the summary fixpoint; call chains longer than this may lose precision.
const MAX_ROUNDS: usize = 64;

/// Summaries of the methods `ids` (callees included). Strongly connected components of the
/// call graph are summarized callees first, level by level in parallel, so every method is
/// interpreted once unless it is part of a recursion, which iterates to a fixpoint.
/// `calls` is the call graph among them (it does not depend on summaries).
pub fn summarize(
    project: &Project,
    model: &dyn Model,
    ids: &[MethodId],
    calls: &HashMap<MethodId, Vec<MethodId>>,
) -> Summaries {
    let mut sums: Summaries = project
        .files
        .iter()
        .map(|f| vec![Summary::default(); f.facts.methods.len()])
        .collect();
    let (sccs, scc_of) = components(ids, calls);
    // Level of a component: one more than its deepest callee component.
    let mut level = vec![0usize; sccs.len()];
    for (c, members) in sccs.iter().enumerate() {
        for m in members {
            for callee in calls.get(m).into_iter().flatten() {
                if let Some(&d) = scc_of.get(callee)
                    && d != c
                {
                    level[c] = level[c].max(level[d] + 1);
                }
            }
        }
    }
    let depth = level.iter().copied().max().map_or(0, |x| x + 1);
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for (c, l) in level.iter().enumerate() {
        by_level[*l].push(c);
    }
    for comps in by_level {
        let recursive = |c: usize| {
            let members = &sccs[c];
            members.len() > 1
                || calls
                    .get(&members[0])
                    .is_some_and(|v| v.contains(&members[0]))
        };
        let (cyclic, single): (Vec<usize>, Vec<usize>) =
            comps.into_iter().partition(|c| recursive(*c));
        let done: Vec<(MethodId, Summary)> = single
            .par_iter()
            .map(|c| {
                let id = sccs[*c][0];
                (id, super::analyze(project, model, &sums, id).summary)
            })
            .collect();
        for (id, summary) in done {
            sums[id.0 as usize][id.1 as usize] = summary;
        }
        for c in cyclic {
            for _ in 0..MAX_ROUNDS {
                let next: Vec<(MethodId, Summary)> = sccs[c]
                    .par_iter()
                    .map(|id| (*id, super::analyze(project, model, &sums, *id).summary))
                    .collect();
                let mut changed = false;
                for (id, summary) in next {
                    let slot = &mut sums[id.0 as usize][id.1 as usize];
                    if *slot != summary {
                        *slot = summary;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
    }
    sums
}

/// Strongly connected components (Tarjan's algorithm with an explicit stack), callees'
/// components before their callers', each sorted; and the component of every method.
fn components(
    ids: &[MethodId],
    calls: &HashMap<MethodId, Vec<MethodId>>,
) -> (Vec<Vec<MethodId>>, HashMap<MethodId, usize>) {
    let index_of: HashMap<MethodId, usize> = ids.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let succ: Vec<Vec<usize>> = ids
        .iter()
        .map(|m| {
            let mut v: Vec<usize> = calls
                .get(m)
                .into_iter()
                .flatten()
                .filter_map(|c| index_of.get(c).copied())
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let n = ids.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next_index = 0usize;
    let mut sccs: Vec<Vec<MethodId>> = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, position in its successor list)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(ids[w]);
                    if w == v {
                        break;
                    }
                }
                comp.sort();
                sccs.push(comp);
            }
        }
    }
    let mut scc_of = HashMap::new();
    for (c, members) in sccs.iter().enumerate() {
        for m in members {
            scc_of.insert(*m, c);
        }
    }
    (sccs, scc_of)
}

//! Method summaries over the call graph: strongly connected components, callees first.

use super::model::Model;
use super::*;
use crate::semantic::{MethodId, Project};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How often one method's summary may change while its recursive cycle iterates: summaries
/// form a finite lattice that only grows, so a cycle of n methods converges within
/// n × (the lattice's height) changes; this bounds the height assumed. A cycle that has not
/// converged by then is reported (see [`summarize`]).
const MAX_CHANGES_PER_METHOD: usize = 64;

/// The fewest members of a fixpoint round that are analysed in parallel.
const PARALLEL_ROUND: usize = 8;

/// Summaries of the methods `ids` (callees included). Strongly connected components of the
/// call graph are summarized callees first, level by level in parallel, so every method is
/// interpreted once unless it is part of a recursion, which iterates to a fixpoint.
/// `calls` is the call graph among them (it does not depend on summaries).
/// Also returns a method of each recursive cycle that did not converge (its summaries, and
/// findings through them, may be incomplete), and the flows (summary left empty) of the
/// methods whose one analysis read only summaries that were final by then: analysing them
/// again against the final summaries gives the same flow, so the caller reuses it.
/// With `reuse`, a method outside a recursive cycle is taken from it when it can tell the
/// analysis would give what it gave before, and every other such method's analysis is handed
/// to it with what it read (see [`Reuse`]).
pub fn summarize(
    project: &mut Project,
    model: &dyn Model,
    ids: &[MethodId],
    calls: &HashMap<MethodId, Vec<MethodId>>,
    reuse: Option<&dyn Reuse>,
) -> (Summaries, Vec<MethodId>, super::Flows) {
    let bodies = reuse.map(|_| BodyFiles::new(project));
    let mut unconverged = Vec::new();
    let mut sums = Summaries(Default::default(), ids.iter().copied().collect());
    let mut settled_flows = HashMap::new();
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
        let single: Vec<MethodId> = single.into_iter().map(|c| sccs[c][0]).collect();
        let done: Vec<(Summary, Option<MethodFlow>)> = project.map_in_batches(&single, |p, id| {
            let (Some(reuse), Some(bodies)) = (reuse, &bodies) else {
                let (mut flow, unsettled) = watching(|| super::analyze(p, model, &sums, id));
                let mut summary = std::mem::take(&mut flow.summary);
                summary.coarsen();
                return (summary, (!unsettled).then_some(flow));
            };
            if let Some((summary, flow)) = reuse.reuse(id, &sums) {
                return (summary, Some(flow));
            }
            let (((mut flow, unsettled), summaries), addrs) =
                crate::java::ir::reading_bodies(|| {
                    reading_summaries(|| watching(|| super::analyze(p, model, &sums, id)))
                });
            let mut summary = std::mem::take(&mut flow.summary);
            summary.coarsen();
            // A body read that is in no file's methods (a copy) cannot be checked later: such
            // an analysis is not kept.
            let files: Option<Vec<u32>> = addrs.iter().map(|a| bodies.file_of(*a)).collect();
            if !unsettled && let Some(mut files) = files {
                files.push(id.0);
                files.sort_unstable();
                files.dedup();
                reuse.keep(id, &summary, &flow, Read { files, summaries }, &sums);
            }
            (summary, (!unsettled).then_some(flow))
        });
        for (id, (summary, flow)) in single.into_iter().zip(done) {
            sums.set(id, summary);
            sums.1.remove(&id);
            if let Some(mut flow) = flow {
                flow.shrink_to_fit();
                settled_flows.insert(id, Box::new(flow));
            }
        }
        for c in &cyclic {
            if !fixpoint(project, model, &sccs[*c], calls, &mut sums) {
                unconverged.push(sccs[*c][0]);
            }
            for m in &sccs[*c] {
                sums.1.remove(m);
            }
        }
        if !cyclic.is_empty() {
            project.release_bodies();
        }
    }
    debug_summaries(project, &sums, ids);
    (sums, unconverged, settled_flows)
}

/// Where the analyses of methods outside recursive cycles can come from and go to: a cache
/// across runs (`workspace::summary_cache`). The analysis of a method reads its own file, the
/// declarations of the project, the bodies of some other methods and the summaries of some
/// methods; given the same, it gives the same summary and flow.
pub trait Reuse: Sync {
    /// The summary and flow of `id` as an earlier analysis gave them, if what it read is the
    /// same now (`sums`: the summaries so far).
    fn reuse(&self, id: MethodId, sums: &Summaries) -> Option<(Summary, MethodFlow)>;
    /// The analysis of `id` (whose flow read only final summaries) and what it read; `sums`
    /// holds the summaries it read.
    fn keep(
        &self,
        id: MethodId,
        summary: &Summary,
        flow: &MethodFlow,
        read: Read,
        sums: &Summaries,
    );
}

/// What one method's analysis read besides the project's declarations and the model.
pub struct Read {
    /// The files whose method bodies it read (its own file among them).
    pub files: Vec<u32>,
    /// The methods whose summaries it read, sorted.
    pub summaries: Vec<MethodId>,
}

/// The file of a method body by the body's address: the methods of each file are one vector.
pub struct BodyFiles(Vec<(usize, usize, u32)>);

impl BodyFiles {
    pub fn new(project: &Project) -> BodyFiles {
        let mut v: Vec<(usize, usize, u32)> = project
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let start = f.facts.methods.as_ptr() as usize;
                let len = std::mem::size_of_val(f.facts.methods.as_slice());
                (start, start + len, i as u32)
            })
            .filter(|(s, e, _)| s < e)
            .collect();
        v.sort_unstable();
        BodyFiles(v)
    }

    pub fn file_of(&self, addr: usize) -> Option<u32> {
        let i = self.0.partition_point(|(s, _, _)| *s <= addr);
        let (s, e, f) = *self.0.get(i.checked_sub(1)?)?;
        (s <= addr && addr < e).then_some(f)
    }
}

thread_local! {
    /// Whether the analysis running on this thread read the summary of a method still to be
    /// summarized (`None`: no analysis is watched).
    static UNSETTLED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
    /// The summaries the analysis running on this thread read, while [`reading_summaries`]
    /// watches.
    static SUMMARY_READS: std::cell::RefCell<Option<Vec<MethodId>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` and tells which methods' summaries it read ([`Summaries::of`]), sorted.
fn reading_summaries<T>(f: impl FnOnce() -> T) -> (T, Vec<MethodId>) {
    let before = SUMMARY_READS.replace(Some(Vec::new()));
    let out = f();
    let mut read = SUMMARY_READS.replace(before).unwrap_or_default();
    read.sort_unstable();
    read.dedup();
    (out, read)
}

/// Notes that the watched analysis read the summary of `m`.
pub(super) fn read_summary(m: MethodId) {
    SUMMARY_READS.with_borrow_mut(|r| {
        if let Some(v) = r {
            v.push(m);
        }
    });
}

/// Runs `f` (one method's analysis) and tells whether it read the summary of a method whose
/// summary was still to come ([`Summaries::of`] of a method not yet summarized, which reads
/// as empty): only a flow that read none is the flow of the final summaries.
fn watching<T>(f: impl FnOnce() -> T) -> (T, bool) {
    let before = UNSETTLED.with(|u| u.replace(Some(false)));
    let out = f();
    let read = UNSETTLED.with(|u| u.replace(before)) == Some(true);
    if read && before.is_some() {
        read_unsettled();
    }
    (out, read)
}

/// Notes that the watched analysis read a summary still to come.
pub(super) fn read_unsettled() {
    UNSETTLED.with(|u| {
        if u.get().is_some() {
            u.set(Some(true));
        }
    });
}

/// With `RETRYLINT_DEBUG_SUMMARY=text`, the summaries of the methods whose `Class.method` name
/// contains `text` go to standard error: to trace which hop of a flow across methods widens it.
fn debug_summaries(project: &Project, sums: &Summaries, ids: &[MethodId]) {
    let Some(want) = std::env::var_os("RETRYLINT_DEBUG_SUMMARY") else {
        return;
    };
    let want = want.to_string_lossy();
    for &id in ids {
        let m = project.method(id);
        let name = format!("{}.{}", project.class(project.class_of(id)).name, m.name);
        if name.contains(want.as_ref()) {
            eprintln!("summary {name}/{}: {:#?}", m.params.len(), sums.of(id));
        }
    }
}

/// Iterates the summaries of the recursive component `members` to a fixpoint: every member once,
/// then again each caller (in the component) of a member whose summary changed, until nothing
/// changes. A member's summary is joined with what it was (see [`Summary::join`]), so it only
/// grows: analysing a member against its callees' newer summaries may otherwise pick another
/// of several equal sources and flip back and forth (a cycle of 1,126 methods in a Spring
/// codebase never settled). `false` when the bound of [`MAX_CHANGES_PER_METHOD`] × members was reached first.
fn fixpoint(
    project: &Project,
    model: &dyn Model,
    members: &[MethodId],
    calls: &HashMap<MethodId, Vec<MethodId>>,
    sums: &mut Summaries,
) -> bool {
    let index: HashMap<MethodId, usize> =
        members.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    for (i, m) in members.iter().enumerate() {
        for callee in calls.get(m).into_iter().flatten() {
            if let Some(&j) = index.get(callee) {
                callers[j].push(i);
            }
        }
    }
    // Rounds: every member first, then the callers (in the component) of the members whose
    // summary changed, each round in parallel against the summaries of the round before. The
    // order within a round does not matter, so the result is the same on every thread count.
    let edges: usize = callers.iter().map(Vec::len).sum();
    let mut budget = (members.len() + edges).saturating_mul(MAX_CHANGES_PER_METHOD);
    let mut dirty: Vec<usize> = (0..members.len()).collect();
    let mut queued = vec![false; members.len()];
    while !dirty.is_empty() {
        if budget < dirty.len() {
            return false;
        }
        budget -= dirty.len();
        let step = |&i: &usize| {
            let mut joined = sums.of(members[i]).clone();
            joined.join(super::analyze(project, model, sums, members[i]).summary);
            (i, joined)
        };
        // A round of a few members runs here: handing it to the thread pool costs more than
        // it saves, and a long cycle settles one member per round (its key travels one call
        // back each time), so a cycle of n methods has n such rounds.
        let next: Vec<(usize, Summary)> = if dirty.len() < PARALLEL_ROUND {
            dirty.iter().map(step).collect()
        } else {
            dirty.par_iter().map(step).collect()
        };
        let mut again = Vec::new();
        for (i, summary) in next {
            if sums.set(members[i], summary) {
                for &c in &callers[i] {
                    if !queued[c] {
                        queued[c] = true;
                        again.push(c);
                    }
                }
            }
        }
        for &c in &again {
            queued[c] = false;
        }
        again.sort_unstable();
        dirty = again;
    }
    true
}

impl Summary {
    /// Bounds the parts a summary names per parameter: beyond [`super::place::MAX_PATHS_PER_PARAM`] parts
    /// of one parameter (a recursive cycle composes its members' paths), that parameter's
    /// parts are named by their first part only, which holds them all.
    pub fn coarsen(&mut self) {
        if self.is_unwritten() {
            return;
        }
        fn too_many<'a>(paths: impl Iterator<Item = &'a ParamPath>) -> BTreeSet<u16> {
            let mut count: BTreeMap<u16, usize> = BTreeMap::new();
            for p in paths {
                if let ParamPath::Field(i, _) = p {
                    *count.entry(*i).or_default() += 1;
                }
            }
            count
                .into_iter()
                .filter(|(_, n)| *n > super::place::MAX_PATHS_PER_PARAM)
                .map(|(i, _)| i)
                .collect()
        }
        let coarse = |p: ParamPath, over: &BTreeSet<u16>| match p {
            ParamPath::Field(i, f) if over.contains(&i) && f.entry_key().is_some() => {
                ParamPath::Field(i, f.outer())
            }
            p => p,
        };
        let over = too_many(self.param_sinks.keys());
        if !over.is_empty() {
            let mut out: BTreeMap<ParamPath, SinkRef> = BTreeMap::new();
            for (p, sink) in std::mem::take(&mut self.param_sinks) {
                let p = coarse(p, &over);
                match out.get_mut(&p) {
                    Some(old) if *old <= sink => {}
                    Some(old) => *old = sink,
                    None => {
                        out.insert(p, sink);
                    }
                }
            }
            self.param_sinks = out;
        }
        let over = too_many(self.ret_params.iter());
        if !over.is_empty() {
            self.ret_params = std::mem::take(&mut self.ret_params)
                .into_iter()
                .map(|p| coarse(p, &over))
                .collect();
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::{FieldPath, ParamPath, SinkRef, Summary};
    use crate::semantic::Loc;

    fn sink() -> SinkRef {
        SinkRef {
            loc: Loc {
                file: 0,
                span: Default::default(),
            },
            label: "setIdempotencyKey(…)".into(),
            at_argument: false,
            row: String::new(),
            row_write: false,
            when: Vec::new(),
            after_saves: std::collections::BTreeMap::new(),
        }
    }

    #[test]
    fn too_many_parts_of_one_parameter_are_named_by_their_first_part() {
        let mut s = Summary::default();
        s.param_sinks.insert(
            ParamPath::Field(1, FieldPath::one("inputData").entry("idempotencyKey")),
            sink(),
        );
        for i in 0..super::super::place::MAX_PATHS_PER_PARAM {
            s.param_sinks.insert(
                ParamPath::Field(0, FieldPath::one("tasks").entry(&format!("k{i}"))),
                sink(),
            );
        }
        let few = s.clone();
        s.coarsen();
        assert_eq!(s, few);
        s.param_sinks.insert(
            ParamPath::Field(0, FieldPath::one("workflowId").entry("x")),
            sink(),
        );
        s.coarsen();
        let keys: Vec<String> = s
            .param_sinks
            .keys()
            .map(|p| match p {
                ParamPath::Field(i, f) => format!("{i}:{f}"),
                ParamPath::Whole(i) => format!("{i}"),
            })
            .collect();
        assert_eq!(
            keys,
            ["0:tasks", "0:workflowId", "1:inputData[\"idempotencyKey\"]"]
        );
    }
}

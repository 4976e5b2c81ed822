//! What the rules share: whether a region covers a site of a method, and the chain of calls
//! from a region to a method.

use super::Context;
use crate::dataflow as flow;
use crate::regions::{self, Part, Region};
use crate::semantic::{MethodId, Project};
use std::collections::{BTreeSet, HashMap};

/// Does region `cx.regions[i]` (with its reach) cover a source evaluated in scope `s` and a
/// sink executed in scope `t` of method `m`?
pub(super) fn covers(cx: &Context, i: usize, m: MethodId, src: &flow::SourceSite, t: u32) -> bool {
    let (project, r) = (cx.project, &cx.regions[i]);
    let reached = || cx.reaches.contains(i, m);
    let s = src.scope;
    let within = |roots: &[u32], x: u32| regions::scope_within(project.method(m), x, roots);
    // Stored into an object the method is handed: per-attempt only in interceptor code the
    // region enters through a client call (the client makes a new request for each call).
    if src.param_held {
        return r.entered.iter().any(|(p, snd)| *p == m && p != snd);
    }
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
        return reached()
            || r.parts.iter().any(|p| match p {
                Part::Whole(x) => *x == m,
                Part::Scopes(x, roots) => {
                    *x == m && within(roots, s) && within(roots, t) && within(roots, d)
                }
            });
    }
    // A value a deferred method reference returns (`Mono.fromSupplier(this::newKey)`) is
    // made on every subscription where the reference is written.
    let deferred = src.via.is_some() && r.deferred_refs.contains(&(m, src.span));
    reached()
        || r.parts.iter().any(|p| match p {
            Part::Whole(x) => *x == m,
            Part::Scopes(x, roots) => *x == m && (within(roots, s) || deferred) && within(roots, t),
        })
}

/// The indexes of the regions of `cx` that cover `src` and a site in scope `t` of method `m`.
/// Only a region whose parts or reach hold `m` can cover it: those are looked up, not every
/// region for every source (20,000 retried methods with a finding each were quadratic).
pub(super) fn covering(cx: &Context, m: MethodId, src: &flow::SourceSite, t: u32) -> Vec<usize> {
    let mut at = cx.reaches.regions_at(m);
    at.retain(|&i| covers(cx, i, m, src, t));
    // A test that retries application code re-runs it only in the test: its region makes
    // findings in test sources alone.
    let test =
        |file: u32| crate::workspace::scan::test_source(&cx.project.files[file as usize].path);
    if !at.is_empty() && !test(m.0) {
        at.retain(|&i| !test(cx.regions[i].loc.file));
    }
    at
}

/// Calls of a parameter passed on that a condition is followed up through (`createAlert(level,
/// type, msg)` → `createAlert(level, type, msg, null)`): deeper, the condition is taken to hold.
const MAX_COND_DEPTH: usize = 4;

/// May the conditions `when`, on parameters of method `m`, hold when region `i` runs `m`? Only
/// the region's own calls of `m` decide: each passes an argument that may satisfy every test,
/// or passes on a parameter of its caller whose own callers in the region may. A call whose
/// arguments are not known, `m` being region code itself (its parameters come from outside the
/// region), a call the interpreter did not see, or a chain deeper than [`MAX_COND_DEPTH`] keep
/// the conditions possible.
pub(super) fn conditions_met(cx: &Context, i: usize, m: MethodId, when: &[flow::Cond]) -> bool {
    if when.is_empty() {
        return true;
    }
    let r = &cx.regions[i];
    // Whether `cond` on a parameter of `m` may hold for some call of `m` in the region.
    let may_hold = |m: MethodId, cond: &flow::Cond| -> bool {
        let mut seen: BTreeSet<(MethodId, flow::Cond)> = BTreeSet::new();
        let mut work: Vec<(MethodId, flow::Cond, usize)> = vec![(m, cond.clone(), 0)];
        while let Some((m, cond, depth)) = work.pop() {
            if depth > MAX_COND_DEPTH
                || region_code(cx, i, m)
                || r.entered.iter().any(|(p, _)| *p == m)
            {
                return true;
            }
            let (j, field) = match &cond.param {
                flow::ParamPath::Whole(j) => (*j as usize, None),
                flow::ParamPath::Field(j, f) => (*j as usize, Some(f)),
            };
            let Some(calls) = calls_in_region(cx, i, m) else {
                return true;
            };
            for (c, facts) in calls {
                let fact = facts.get(j).unwrap_or(&flow::Fact::Unknown);
                let passed_on = match (fact, field) {
                    (flow::Fact::Param(p), None) => p.clone(),
                    (flow::Fact::Param(flow::ParamPath::Whole(k)), Some(f)) => {
                        flow::ParamPath::Field(*k, f.clone())
                    }
                    (fact, None) if !cond.test.admits(fact) => continue,
                    _ => return true,
                };
                let up = flow::Cond {
                    param: passed_on,
                    test: cond.test.clone(),
                };
                if seen.insert((c, up.clone())) {
                    work.push((c, up, depth + 1));
                }
            }
        }
        false
    };
    when.iter().all(|c| may_hold(m, c))
}

/// Is method `m` the code of region `i` itself?
pub(super) fn region_code(cx: &Context, i: usize, m: MethodId) -> bool {
    cx.regions[i].parts.iter().any(|p| match p {
        Part::Whole(y) | Part::Scopes(y, _) => *y == m,
    })
}

/// What each call of method `m` that region `i` makes passes it (the calling method and the
/// facts of its arguments); `None` when they are not all known: a caller in the region the
/// interpreter has no flow for, or a call of `m` it did not take.
pub(super) fn calls_in_region<'c>(
    cx: &'c Context,
    i: usize,
    m: MethodId,
) -> Option<Vec<(MethodId, &'c [flow::Fact])>> {
    let mut out = Vec::new();
    let within = callers_in_region(cx, i, m);
    for c in within {
        let f = cx.flows.get(c)?;
        let untaken = cx
            .graph
            .edges(*c)
            .iter()
            .any(|e| e.1 == m && f.calls.binary_search(e).is_err());
        if untaken {
            return None;
        }
        out.extend(
            f.call_facts
                .iter()
                .filter(|(callee, _)| *callee == m)
                .map(|(_, facts)| (*c, facts.as_slice())),
        );
    }
    Some(out)
}

/// The project methods that call each method (built once).
pub(super) fn callers<'c>(cx: &'c Context) -> &'c HashMap<MethodId, Vec<MethodId>> {
    cx.callers.get_or_init(|| {
        let mut callers: HashMap<MethodId, Vec<MethodId>> = HashMap::new();
        for c in cx.graph.methods() {
            for (_, callee) in cx.graph.edges(c) {
                let v = callers.entry(*callee).or_default();
                if v.last() != Some(&c) {
                    v.push(c);
                }
            }
        }
        callers
    })
}

/// The methods calling `m` that run in region `i`: its own code, or methods it reaches.
pub(super) fn callers_in_region<'c>(
    cx: &'c Context,
    i: usize,
    m: MethodId,
) -> impl Iterator<Item = &'c MethodId> + 'c {
    callers(cx)
        .get(&m)
        .into_iter()
        .flatten()
        .filter(move |c| cx.reaches.contains(i, **c) || region_code(cx, i, **c))
}

/// The chain of methods from a region's code to `target` (BFS over the call graph; with
/// `unguarded`, only calls not under a cluster-wide lock — a flow fact, a lock held at the call,
/// that the interpreter records); empty when `target` is not reached.
pub(super) fn region_path(
    cx: &Context,
    r: &Region,
    target: MethodId,
    unguarded: bool,
) -> Vec<MethodId> {
    let mut parent: HashMap<MethodId, Option<MethodId>> = HashMap::new();
    let mut queue = std::collections::VecDeque::new();
    // Interceptor code the region enters through a sending call is reached through that call.
    let entered = |m: MethodId| r.entered.iter().any(|(p, s)| *p == m && p != s);
    for p in &r.parts {
        let m = match p {
            Part::Whole(m) | Part::Scopes(m, _) => *m,
        };
        if !entered(m) && parent.insert(m, None).is_none() {
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
                None => &[],
            }
        } else {
            cx.graph.edges(m)
        };
        let sent = r.entered.iter().filter(|(_, s)| *s == m).map(|(p, _)| p);
        for c in edges.iter().map(|(_, c)| c).chain(sent) {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(*c) {
                e.insert(Some(m));
                queue.push_back(*c);
            }
        }
    }
    unwind(&parent, target)
}

/// The chain a breadth-first search recorded in `parent` from its start to `target` (empty when
/// `target` was not reached), at most 65 methods long.
fn unwind(parent: &HashMap<MethodId, Option<MethodId>>, target: MethodId) -> Vec<MethodId> {
    let mut chain = Vec::new();
    let mut cur = parent.contains_key(&target).then_some(target);
    while let Some(m) = cur {
        chain.push(m);
        cur = parent.get(&m).copied().flatten();
        if chain.len() > 64 {
            break;
        }
    }
    chain.reverse();
    chain
}

/// The methods on a shortest chain of calls from `from` to `to` (both included; `[from]` when
/// they are the same method, empty when `to` is not reached).
pub(super) fn method_chain(cx: &Context, from: MethodId, to: MethodId) -> Vec<MethodId> {
    let mut parent: HashMap<MethodId, Option<MethodId>> = HashMap::new();
    parent.insert(from, None);
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(m) = queue.pop_front() {
        if m == to {
            break;
        }
        for (_, c) in cx.graph.edges(m) {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(*c) {
                e.insert(Some(m));
                queue.push_back(*c);
            }
        }
    }
    unwind(&parent, to)
}

/// Where `caller` calls `callee` (its first such call, method reference or `new`).
pub(super) fn call_site(cx: &Context, caller: MethodId, callee: MethodId) -> Option<flow::Loc> {
    crate::semantic::callgraph::call_sites(cx.project, cx.cat, caller)
        .into_iter()
        .find(|(_, _, m)| *m == callee)
        .map(|(_, span, _)| flow::Loc {
            file: caller.0,
            span,
        })
}

/// `Class.method` of a project method.
pub(super) fn qualified(project: &Project, m: MethodId) -> String {
    let class = &project.class(project.class_of(m)).name;
    let method = project.method(m);
    if method.is_ctor {
        format!("new {class}")
    } else if method.name == "<init>" {
        format!("{class}'s field initializers")
    } else {
        format!("{class}.{}", method.name)
    }
}

/// A chain of methods as a message names them: the first by its name (the region names its
/// class), each other as `Class.method`, or by its name alone in the class of the one before.
pub(super) fn chain_names(project: &Project, chain: &[MethodId]) -> Vec<String> {
    chain
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let same_class = i == 0 || project.class_of(chain[i - 1]) == project.class_of(*m);
            let mm = project.method(*m);
            if same_class && !mm.is_ctor && mm.name != "<init>" {
                project.method(*m).name.to_string()
            } else {
                qualified(project, *m)
            }
        })
        .collect()
}

/// The code flow of a region that reaches a call (a side effect, a key sink): the region, each
/// call on the way (`chain`, from the region's method), and the call itself with its label.
pub(super) fn flow_steps(
    cx: &Context,
    r: &Region,
    chain: &[MethodId],
    noun: &str,
    call: Option<(&flow::Loc, String)>,
) -> Vec<crate::findings::Related> {
    use crate::findings::related;
    let project = cx.project;
    let what = if r.scheduler {
        format!("{}: fires on every replica", r.describe())
    } else {
        format!("{}: runs again on every {noun}", r.describe())
    };
    let mut steps = vec![related(project, &r.loc, what)];
    for w in chain.windows(2) {
        if let Some(l) = call_site(cx, w[0], w[1]) {
            let what = format!("calls `{}`", qualified(project, w[1]));
            steps.push(related(project, &l, what));
        }
    }
    if let Some((call, last)) = call {
        steps.push(related(project, call, last));
    }
    steps
}

/// The key sinks at which scheduler region `cx.regions[i]` sends a key that is new on each of
/// its executions: a per-attempt source covered by the region (the same facts RL001–RL003
/// report) flows into them. Each sink's location, with the label of one source that reaches
/// it. Every flow is walked once for all the schedulers, each event given to the regions that
/// cover it (not once per scheduler).
pub(super) fn fresh_sinks<'c>(cx: &'c Context, i: usize) -> &'c [(flow::Loc, String)] {
    let all = cx.fresh.get_or_init(|| {
        let mut all: Vec<Vec<(flow::Loc, String)>> = vec![Vec::new(); cx.regions.len()];
        for (id, f) in cx.flows {
            for ev in &f.events {
                let src = &f.sources[ev.source as usize];
                for j in covering(cx, *id, src, ev.scope) {
                    if cx.regions[j].scheduler && conditions_met(cx, j, *id, &event_conds(src, ev))
                    {
                        let label = src.via.as_ref().map_or(&src.label, |d| &d.label);
                        all[j].push((ev.sink.loc.clone(), label.clone()));
                    }
                }
            }
        }
        for out in &mut all {
            out.sort();
            out.dedup_by(|a, b| a.0 == b.0);
        }
        all
    });
    &all[i]
}

/// Does a key header written at `sink` go out, for the code `within` holds (a region's own
/// methods and the methods it reaches), on a request that is not a read? A key written into a
/// header container (`HttpHeaders`, a header map) is sent only where the container is: when
/// every request the region sends it on is a read (a Feign `@GetMapping`, `HttpMethod.GET`,
/// `getForObject`, `restClient.get()`), it deduplicates nothing (SPEC 5). A write, a request
/// whose method cannot be told, and a container never seen sent keep the sink. Any other sink
/// is sent where it is written.
pub(super) fn sent_as_key(
    cx: &Context,
    sink: &flow::Loc,
    within: &dyn Fn(MethodId) -> bool,
) -> bool {
    let Some(m) = cx.project.method_at(sink) else {
        return true;
    };
    let Some(k) = cx.flows.get(&m).and_then(|f| {
        f.containers
            .iter()
            .position(|c| c.from.is_none() && c.sinks.contains(&sink.span))
    }) else {
        return true;
    };
    let mut seen = BTreeSet::new();
    container_sent(cx, m, k, within, &mut seen)
}

/// Is container `k` of method `m` sent on a request that is not a read, by `m` or, where `m`
/// returns it, by the callers `within` holds?
fn container_sent(
    cx: &Context,
    m: MethodId,
    k: usize,
    within: &dyn Fn(MethodId) -> bool,
    seen: &mut BTreeSet<(MethodId, usize)>,
) -> bool {
    if !seen.insert((m, k)) {
        return false;
    }
    let s = cx.flows[&m].containers[k].sends;
    if s.write || !(s.read || s.returned) {
        return true;
    }
    if !s.returned {
        return false;
    }
    // Returned: each caller in the region follows it as a container of its own.
    let mut callers = cx
        .ids
        .iter()
        .filter(|c| within(**c))
        .filter_map(|c| cx.flows.get(c).map(|f| (*c, f)))
        .flat_map(|(c, f)| {
            f.containers
                .iter()
                .enumerate()
                .filter(|(_, x)| x.from == Some(m))
                .map(move |(j, _)| (c, j))
        })
        .peekable();
    // Returned to the framework that runs the region: unknown.
    if callers.peek().is_none() {
        return true;
    }
    let callers: Vec<(MethodId, usize)> = callers.collect();
    callers
        .into_iter()
        .any(|(c, j)| container_sent(cx, c, j, within, seen))
}

/// [`sent_as_key`] for region `cx.regions[i]`: its own methods and its reach.
pub(super) fn sent_in_region(cx: &Context, i: usize, sink: &flow::Loc) -> bool {
    let r = &cx.regions[i];
    let within = |m: MethodId| {
        cx.reaches.contains(i, m)
            || r.parts.iter().any(|p| match p {
                Part::Whole(x) | Part::Scopes(x, _) => *x == m,
            })
    };
    sent_as_key(cx, sink, &within)
}

/// The conditions under which an event happens: its sink's and its source's.
pub(super) fn event_conds(src: &flow::SourceSite, ev: &flow::Event) -> Vec<flow::Cond> {
    let mut when = ev.when.clone();
    when.extend(src.when.iter().cloned());
    when
}

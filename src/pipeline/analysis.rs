//! The analysis of an indexed project, phase by phase: regions → the call graph of the methods
//! they reach → summaries
//! and flows → the rules' checks.

use super::summary_cache::{Round, Scan};
use crate::catalogue::Catalogue;
use crate::dataflow as flow;
use crate::findings::Finding;
use crate::java::ir::ScopeId;
use crate::regions::{self, Part, Region};
use crate::rules;
use crate::semantic::callgraph::callees;
use crate::semantic::{CallGraph, MethodId, Project};
use std::collections::{BTreeSet, HashSet};

/// The caches of a run: per-file facts, and method summaries and flows (when on).
#[derive(Clone, Copy)]
pub(crate) struct Caches<'a> {
    pub facts: &'a crate::cache::Cache,
    pub summaries: Option<&'a super::summary_cache::SummaryCache>,
}

/// Why a method's analysis is incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lost {
    /// The method is larger than the analysis budget.
    Budget,
    /// The method is part of a recursive cycle whose summaries did not converge.
    Cycle,
}

/// Findings, and the methods whose analysis was cut short (and why).
/// With `only`, regions are looked for only in those methods (the prefilter's methods that
/// can lead to a key sink or a side effect; no other region can hold a finding). A `probe`
/// stops once the methods the regions reach are known (the prefilter's forward rounds).
pub(crate) fn find(
    project: &mut Project,
    cat: &Catalogue,
    only: Option<&HashSet<MethodId>>,
    probe: bool,
    caches: Caches,
) -> (Vec<Finding>, Vec<(MethodId, Lost)>) {
    let wanted = |m: &MethodId| only.is_none_or(|o| o.contains(m));
    // Scans, summaries and flows of methods whose analysis read nothing that changed since the
    // last run come from the cache. Not while the index records lookups for the prefilter's
    // forward rounds: a method taken from the cache makes none, and the round would miss the
    // files they need.
    let round = crate::phase("summary cache read", || {
        let c = caches.summaries.filter(|_| project.deps().is_none())?;
        let digests = caches.facts.digests()?;
        Some(c.round(project, &digests))
    });
    let (found, candidates, instance_sends, bean_scans) =
        regions_of(project, cat, &wanted, only.is_none(), round.as_ref());
    // A dead region is the source of no finding of its own; a dead retry annotation is RL006,
    // with the findings it would have once it fires (so its code is analysed too).
    let (mut all_regions, dead_regions): (Vec<Region>, Vec<Region>) =
        found.into_iter().partition(|r| r.dead.is_none());
    let mut dead_regions: Vec<Region> =
        dead_regions.into_iter().filter(|r| r.report_dead).collect();
    // The interceptors of the clients a region may send through run inside it (SPEC 3.2).
    let mut sends = crate::phase("client sends", || {
        regions::client_sends(project, &bean_scans)
    });
    sends.by_call = instance_sends;
    // Clients built by bean methods send through the fields they are injected into.
    sends.by_call.extend(crate::phase("bean clients", || {
        regions::bean_sends(project, cat)
    }));
    // A functional value called where it is held runs the lambdas stored into it: a region
    // that makes the call enters them as it enters a client's interceptors.
    // A call on a functional parameter counts only for a region written in its method.
    let region_code: HashSet<MethodId> = all_regions
        .iter()
        .chain(&dead_regions)
        .flat_map(region_methods)
        .collect();
    let functions = crate::phase("functions", || {
        regions::function_sends(
            project,
            cat,
            &|file, scan| match &round {
                Some(r) => r.scan_plain(Scan::FunctionCalls, (file, u32::MAX), scan),
                None => scan(),
            },
            &|m| region_code.contains(&m),
        )
    });
    sends.by_call.extend(functions.held);
    sends.own_calls = functions.own;
    // The bodies the region search read are given back; those the regions reach are read
    // again below, a batch at a time.
    project.release_bodies();

    // Only methods a region reaches can hold a finding or feed one.
    let graph = crate::phase("relevant", || {
        let roots: Vec<MethodId> = all_regions
            .iter()
            .flat_map(region_methods)
            .chain(
                // A dead region outside `only` reaches no effect: nothing latent to follow.
                dead_regions
                    .iter()
                    .flat_map(region_methods)
                    .filter(|m| wanted(m)),
            )
            .chain(sends.interceptor_methods())
            .collect();
        match &round {
            Some(r) => CallGraph::reached_with(project, roots, &|p, id| {
                r.scan_plain(Scan::Callees, id, || callees(p, cat, id))
            }),
            None => CallGraph::reached_from(project, cat, roots),
        }
    });
    let ids = graph.methods();
    if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
        let files: BTreeSet<u32> = ids.iter().map(|m| m.0).collect();
        eprintln!(
            "retrylint: {} regions, {} candidate methods, {} relevant methods in {} files",
            all_regions.len(),
            candidates,
            ids.len(),
            files.len()
        );
    }
    if probe {
        return (Vec::new(), Vec::new());
    }
    crate::phase("interceptors entered", || {
        regions::enter_interceptors(project, &graph, &mut all_regions, &sends);
        regions::enter_interceptors(project, &graph, &mut dead_regions, &sends);
    });
    let (sums, unconverged, mut flows) = crate::phase("summaries", || {
        let reuse = round.as_ref().map(|r| r as &dyn flow::Reuse);
        flow::summarize(project, cat, &ids, &graph.callee_lists(), reuse)
    });
    if let Some(r) = round {
        if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
            let (scans_reused, scans_run) = r.scan_counts();
            eprintln!(
                "retrylint: scan cache: {scans_reused} method scans taken from the cache, {scans_run} run"
            );
            let (reused, kept) = r.counts();
            eprintln!(
                "retrylint: summary cache: {reused} of {} methods taken from the cache, {} analysed again ({kept} kept)",
                ids.len(),
                ids.len() - reused
            );
        }
        crate::phase("summary cache save", || r.save());
    }
    // The flows the summaries' pass could not give (recursive cycles, and methods that read a
    // summary before it was final) are analysed again against the final summaries.
    let again: Vec<MethodId> = ids
        .iter()
        .filter(|id| !flows.contains_key(id))
        .copied()
        .collect();
    crate::phase("flows", || {
        let more = project.map_in_batches(&again, |p, id| {
            let mut f = flow::analyze(p, cat, &sums, id);
            // The rules read events, effects and calls; the summary is in `sums` already.
            f.summary = flow::Summary::default();
            f
        });
        flows.extend(again.iter().copied().zip(more.into_iter().map(Box::new)));
    });
    // The rules read the flows only: the summaries go before the rules' own allocations come.
    drop(sums);
    let project = &*project;
    if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
        eprintln!(
            "retrylint: {} of {} flows analysed again after the summaries",
            again.len(),
            ids.len()
        );
    }
    debug_assert!(
        interpreter_edges_missing_from_graph(&flows, &graph).is_empty(),
        "the interpreter resolved calls the call graph lacks: {:?}",
        interpreter_edges_missing_from_graph(&flows, &graph)
    );
    if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
        report_untaken_edges(project, &flows, &graph);
        let all = project
            .all_methods()
            .filter(|m| project.method(*m).has_body());
        let (n, decoded) = all.fold((0, 0), |(n, d), m| {
            (n + 1, d + usize::from(project.method(m).body.is_decoded()))
        });
        eprintln!(
            "retrylint: {decoded} of {n} method bodies decoded now, {} decodings so far",
            crate::java::ir::Body::decodings()
        );
    }
    let (reaches, dead_reaches) = crate::phase("reaches", || {
        (
            regions::Reaches::new(project, &graph, &all_regions),
            regions::Reaches::new(project, &graph, &dead_regions),
        )
    });
    if std::env::var_os("RETRYLINT_DEBUG_REGIONS").is_some() {
        largest_regions(project, &all_regions, &reaches);
    }
    let cx = rules::Context {
        project,
        cat,
        ids: &ids,
        flows: &flows,
        graph: &graph,
        regions: &all_regions,
        reaches: &reaches,
        dead_regions: &dead_regions,
        dead_reaches: &dead_reaches,
        fresh: Default::default(),
        callers: Default::default(),
    };
    let out = crate::phase("rules", || rules::check_all(&cx));
    let truncated = ids
        .iter()
        .filter(|id| flows[id].truncated)
        .map(|id| (*id, Lost::Budget))
        .chain(unconverged.into_iter().map(|id| (id, Lost::Cycle)))
        .collect();
    super::release((flows, graph));
    (out, truncated)
}

/// Every region among the `wanted` methods, in source order, with its parts merged; how many
/// methods were interpreted to find them; the calls that send through a client instance
/// with a registered interceptor; and the interceptor beans of declarative clients.
/// Annotations and implementations come from the index; callbacks, pipelines and retry loops
/// from a walk of only the methods that could hold one.
fn regions_of<'c>(
    project: &mut Project,
    cat: &'c Catalogue,
    wanted: &(dyn Fn(&MethodId) -> bool + Sync),
    every: bool,
    round: Option<&Round>,
) -> (
    Vec<Region>,
    usize,
    Vec<regions::InstanceSend>,
    regions::BeanScans<'c>,
) {
    // A dead retry annotation is reported whatever it reaches: beside `wanted`, every method
    // that carries one (or whose class does) is looked at, by the annotation's simple name.
    let reported: HashSet<&str> = cat
        .regions
        .annotation
        .iter()
        .filter(|r| r.report_dead)
        .flat_map(|r| &r.annotations)
        .map(|a| a.rsplit('.').next().unwrap_or(a))
        .collect();
    let names_reported = |anns: &[crate::java::ir::Annotation]| {
        anns.iter()
            .any(|a| reported.contains(a.name.rsplit('.').next().unwrap_or(&a.name)))
    };
    let maybe_dead = |m: &MethodId| {
        let mm = project.method(*m);
        names_reported(&mm.annotations)
            || names_reported(&project.class(project.class_of(*m)).annotations)
    };
    // The project's calls by name, which the annotation regions' liveness reads, a file at a
    // time from the cache.
    let named_calls = |file: u32, walk: &dyn Fn() -> regions::FileNamedCalls| match round {
        Some(r) => r.scan_plain(Scan::NamedCalls, (file, u32::MAX), walk),
        None => walk(),
    };
    let never_fails = |id: MethodId, look: &dyn Fn() -> Option<regions::NeverFails>| match round {
        Some(r) => r.scan_plain(Scan::NeverFails, id, look),
        None => look(),
    };
    let mut all_regions: Vec<Region> = crate::phase("annotation regions", || {
        regions::annotation_regions(
            project,
            cat,
            &|m| wanted(m) || maybe_dead(m),
            wanted,
            &named_calls,
            &never_fails,
        )
        .into_iter()
        .filter(|r| r.report_dead && r.dead.is_some() || region_methods(r).any(|m| wanted(&m)))
        .collect()
    });
    let beans = crate::phase("implementation and bean regions", || {
        // Lambdas typed as a framework type, a row and a file at a time: from the cache when
        // every method is wanted (with the prefilter's set, they depend on it).
        let lambdas = |file: u32, row: usize, walk: &dyn Fn() -> Vec<Region>| match round {
            Some(r) if every => r.scan(
                Scan::LambdaRegions,
                (file, row as u32),
                walk,
                |v| region_files(v),
                |v| encode_regions(&(v.clone(), Vec::new())).map(|(r, _)| r),
                |v| decode_regions((v, Vec::new())).0,
            ),
            _ => walk(),
        };
        all_regions.extend(regions::implementation_regions(
            project,
            cat,
            wanted,
            &lambdas,
            &never_fails,
        ));
        let beans = regions::BeanScans::new(project, cat, wanted);
        all_regions.extend(regions::bean_registrations(project, &beans));
        all_regions.extend(regions::function_bean_regions(project, cat, wanted));
        beans
    });
    // The methods that may hold a region made by a call or a loop, a file at a time.
    let candidates: Vec<MethodId> = crate::phase("region candidates", || {
        use rayon::prelude::*;
        let in_file = |file: u32| -> Vec<u32> {
            let n = project.files[file as usize].facts.methods.len() as u32;
            (0..n)
                .filter(|mi| regions::may_hold_region(project.method((file, *mi)), cat))
                .collect()
        };
        let found: Vec<Vec<u32>> = (0..project.files.len() as u32)
            .into_par_iter()
            .map(|file| match round {
                Some(r) => r.scan_plain(Scan::Candidates, (file, u32::MAX), || in_file(file)),
                None => in_file(file),
            })
            .collect();
        found
            .into_iter()
            .enumerate()
            .flat_map(|(file, v)| v.into_iter().map(move |mi| (file as u32, mi)))
            .filter(|m| wanted(m))
            .collect()
    });
    let found: Vec<(Vec<Region>, Vec<regions::InstanceSend>)> = crate::phase("regions", || {
        project.map_in_batches(&candidates, |p, id| {
            let run = || {
                let mut v = regions::call_regions(p, cat, id);
                v.extend(regions::call_registrations(p, cat, id));
                (v, regions::instance_sends(p, cat, id))
            };
            match round {
                Some(r) => r.scan(
                    Scan::CallRegions,
                    id,
                    run,
                    |v| region_files(&v.0),
                    encode_regions,
                    decode_regions,
                ),
                None => run(),
            }
        })
    });
    let mut sends = Vec::new();
    for (v, s) in found {
        all_regions.extend(v);
        sends.extend(s);
    }
    all_regions.retain(|r| {
        r.report_dead && r.dead.is_some()
            || r.parts.iter().any(|p| match p {
                Part::Whole(m) | Part::Scopes(m, _) => wanted(m),
            })
            || r.sends_at.iter().any(|(m, _)| wanted(m))
            || r.deferred_refs.iter().any(|(m, _)| wanted(m))
    });
    all_regions.sort_by(|a, b| a.loc.cmp(&b.loc).then(a.label.cmp(&b.label)));
    for r in &mut all_regions {
        r.parts = regions::merge_parts(std::mem::take(&mut r.parts));
    }
    (all_regions, candidates.len(), sends, beans)
}

/// A region as the scan cache stores it: every field but `dead` (a dead region is not kept).
type StoredRegion = (
    String,
    String,
    crate::semantic::Loc,
    bool,
    Vec<Part>,
    String,
    bool,
    Vec<(MethodId, MethodId)>,
    Vec<(MethodId, crate::java::ir::Span)>,
    Vec<(MethodId, crate::java::ir::Span)>,
);

/// The regions and instance sends of one method's calls, as the scan cache stores them; `None`
/// when one of the regions is dead.
fn encode_regions(
    found: &(Vec<Region>, Vec<regions::InstanceSend>),
) -> Option<(Vec<StoredRegion>, Vec<regions::InstanceSend>)> {
    let regions = found
        .0
        .iter()
        .map(|r| {
            r.dead.is_none().then(|| {
                (
                    r.label.clone(),
                    r.owner.clone(),
                    r.loc.clone(),
                    r.scheduler,
                    r.parts.clone(),
                    r.row.clone(),
                    r.report_dead,
                    r.entered.clone(),
                    r.sends_at.clone(),
                    r.deferred_refs.clone(),
                )
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((regions, found.1.clone()))
}

fn decode_regions(
    (regions, sends): (Vec<StoredRegion>, Vec<regions::InstanceSend>),
) -> (Vec<Region>, Vec<regions::InstanceSend>) {
    let regions = regions
        .into_iter()
        .map(
            |(label, owner, loc, scheduler, parts, row, report_dead, entered, sends_at, refs)| {
                Region {
                    label,
                    owner,
                    loc,
                    scheduler,
                    parts,
                    row,
                    dead: None,
                    report_dead,
                    entered,
                    sends_at,
                    deferred_refs: refs,
                    // Regions a call makes are located at the call.
                    by: None,
                }
            },
        )
        .collect();
    (regions, sends)
}

/// The files the regions are located in (their spans are there).
fn region_files(regions: &[Region]) -> Vec<u32> {
    regions.iter().map(|r| r.loc.file).collect()
}

/// `RETRYLINT_DEBUG_REGIONS`: the ten regions whose calls reach the most methods, to standard
/// error — where a scan's time goes when one region reaches most of a project.
fn largest_regions(project: &Project, regions: &[Region], reaches: &regions::Reaches) {
    let mut sizes: Vec<(usize, &Region)> = (0..regions.len())
        .map(|i| {
            let reached: HashSet<MethodId> = reaches.methods(i).collect();
            (reached.len(), &regions[i])
        })
        .collect();
    sizes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.loc.cmp(&b.1.loc)));
    for (n, r) in sizes.iter().take(10) {
        let file = &project.files[r.loc.file as usize];
        eprintln!(
            "retrylint: region {} in {} ({}:{}) reaches {n} methods",
            r.label,
            r.owner,
            file.path,
            file.facts.line_of(r.loc.span.start)
        );
    }
}

/// The methods a region's code is written in.
fn region_methods(r: &Region) -> impl Iterator<Item = MethodId> + '_ {
    r.parts.iter().map(|p| match p {
        Part::Whole(m) | Part::Scopes(m, _) => *m,
    })
}

/// The calls the interpreter made that the call graph does not have (none: the interpreter
/// resolves calls with the same typer and resolution, and may only skip some).
pub(crate) fn interpreter_edges_missing_from_graph(
    flows: &crate::dataflow::Flows,
    graph: &CallGraph,
) -> Vec<(MethodId, ScopeId, MethodId)> {
    let mut out: Vec<(MethodId, ScopeId, MethodId)> = flows
        .iter()
        .flat_map(|(m, f)| f.calls.iter().map(move |(s, c)| (*m, *s, *c)))
        .filter(|(m, s, c)| !graph.has_edge(*m, *s, *c))
        .collect();
    out.sort();
    out
}

/// How many call-graph edges the interpreter did not take (a call it answered from what it
/// knew of the receiver's fields, a source or counter call, a method cut short by the budget),
/// with the first few.
fn report_untaken_edges(project: &Project, flows: &crate::dataflow::Flows, graph: &CallGraph) {
    let name = |m: MethodId| {
        format!(
            "{}.{}",
            project.class(project.class_of(m)).name,
            project.method(m).name
        )
    };
    let mut untaken: Vec<String> = Vec::new();
    for m in graph.methods() {
        let taken = flows.get(&m).map(|f| f.calls.as_slice()).unwrap_or(&[]);
        for e in graph.edges(m) {
            if taken.binary_search(e).is_err() {
                untaken.push(format!("{} -> {}", name(m), name(e.1)));
            }
        }
    }
    eprintln!(
        "retrylint: {} call-graph edges the interpreter did not take{}{}",
        untaken.len(),
        if untaken.is_empty() { "" } else { ", e.g. " },
        untaken
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ")
    );
}

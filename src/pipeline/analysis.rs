//! The analysis of an indexed project, phase by phase: regions → relevant methods → summaries
//! and flows → the rules' checks.

use crate::catalogue::Catalogue;
use crate::dataflow::{self as flow, MethodFlow};
use crate::findings::Finding;
use crate::regions::{self, Part, Region};
use crate::rules;
use crate::semantic::{MethodId, Project};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};

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
    project: &Project,
    cat: &Catalogue,
    only: Option<&HashSet<MethodId>>,
    probe: bool,
) -> (Vec<Finding>, Vec<(MethodId, Lost)>) {
    let wanted = |m: &MethodId| only.is_none_or(|o| o.contains(m));
    let empty = flow::Summaries::default();
    let (all_regions, candidates) = regions_of(project, cat, &wanted);

    // Only methods a region reaches can hold a finding or feed one.
    let (ids, calls) = crate::phase("relevant", || {
        relevant_methods(project, cat, &empty, &all_regions)
    });
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
    let (sums, unconverged) =
        crate::phase("summaries", || flow::summarize(project, cat, &ids, &calls));
    let flows: HashMap<MethodId, MethodFlow> = crate::phase("flows", || {
        ids.par_iter()
            .map(|id| {
                let mut f = flow::analyze(project, cat, &sums, *id);
                // The rules read events, effects and calls; the summary is in `sums` already.
                f.summary = flow::Summary::default();
                (*id, f)
            })
            .collect()
    });
    let reaches: Vec<BTreeSet<MethodId>> = all_regions
        .iter()
        .map(|r| regions::reach(project, &flows, r))
        .collect();
    let cx = rules::Context {
        project,
        cat,
        ids: &ids,
        flows: &flows,
        regions: &all_regions,
        reaches: &reaches,
    };
    let out = rules::check_all(&cx);
    let truncated = ids
        .iter()
        .filter(|id| flows[id].truncated)
        .map(|id| (*id, Lost::Budget))
        .chain(unconverged.into_iter().map(|id| (id, Lost::Cycle)))
        .collect();
    (out, truncated)
}

/// Every region among the `wanted` methods, in source order, with its parts merged; and how
/// many methods were interpreted to find them.
/// Annotations and implementations come from the index; callbacks, pipelines and retry loops
/// from a walk of only the methods that could hold one.
fn regions_of(
    project: &Project,
    cat: &Catalogue,
    wanted: &(dyn Fn(&MethodId) -> bool + Sync),
) -> (Vec<Region>, usize) {
    let mut all_regions = regions::annotation_regions(project, cat, wanted);
    all_regions.extend(regions::implementation_regions(project, cat, wanted));
    let candidates: Vec<MethodId> = project
        .all_methods()
        .filter(|m| wanted(m) && regions::may_hold_region(project.method(*m), cat))
        .collect();
    let found: Vec<Vec<Region>> = crate::phase("regions", || {
        candidates
            .par_iter()
            .map(|id| regions::call_regions(project, cat, *id))
            .collect()
    });
    all_regions.extend(found.into_iter().flatten());
    all_regions.retain(|r| {
        r.parts.iter().any(|p| match p {
            Part::Whole(m) | Part::Scopes(m, _) => wanted(m),
        })
    });
    all_regions.sort_by(|a, b| a.loc.cmp(&b.loc).then(a.label.cmp(&b.label)));
    for r in &mut all_regions {
        r.parts = regions::merge_parts(std::mem::take(&mut r.parts));
    }
    (all_regions, candidates.len())
}

/// The methods run by some region (its own methods and everything they call, transitively),
/// sorted, with the call graph among them.
fn relevant_methods(
    project: &Project,
    cat: &Catalogue,
    empty: &flow::Summaries,
    all_regions: &[Region],
) -> (Vec<MethodId>, HashMap<MethodId, Vec<MethodId>>) {
    let mut seen: BTreeSet<MethodId> = BTreeSet::new();
    let mut frontier: Vec<MethodId> = Vec::new();
    for r in all_regions {
        for p in &r.parts {
            let m = match p {
                Part::Whole(m) | Part::Scopes(m, _) => *m,
            };
            if seen.insert(m) {
                frontier.push(m);
            }
        }
    }
    let mut calls: HashMap<MethodId, Vec<MethodId>> = HashMap::new();
    while !frontier.is_empty() {
        let found: Vec<(MethodId, Vec<MethodId>)> = frontier
            .par_iter()
            .map(|id| {
                let f = flow::analyze(project, cat, empty, *id);
                (*id, f.calls.into_iter().map(|(_, m)| m).collect())
            })
            .collect();
        frontier.clear();
        for (id, callees) in found {
            for c in &callees {
                if seen.insert(*c) {
                    frontier.push(*c);
                }
            }
            calls.insert(id, callees);
        }
        frontier.sort();
    }
    (seen.into_iter().collect(), calls)
}

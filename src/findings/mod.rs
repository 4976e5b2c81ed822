//! From flows and regions to findings: a per-attempt source and a key sink executed within the
//! same region execution, reported once per (rule, primary location).

use crate::catalogue::Catalogue;
use crate::flow::{self, Loc, MethodFlow};
use crate::index::{MethodId, Project};
use crate::regions::{self, Part, Region};
use crate::rules::{self, Rule};
use crate::syntax::ir::Span;
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

#[derive(Debug, Clone, Serialize)]
pub struct Related {
    pub path: String,
    #[serde(skip)]
    pub span: Span,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static Rule,
    /// The level it is reported at: the rule's, unless `retrylint.toml` sets another.
    pub level: rules::Level,
    pub path: String,
    pub span: Span,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// The method the primary location is in.
    pub method: String,
    /// The per-attempt value as written (`UUID.randomUUID()`).
    pub source: String,
    pub message: String,
    /// For a value returned by a helper: where the helper evaluates it.
    pub via: Option<Related>,
    pub sinks: Vec<Related>,
    pub regions: Vec<Related>,
    /// Stable across unrelated edits: rule, file, method and the normalized source line.
    pub fingerprint: String,
}

/// The one-based line of a byte offset of a file.
fn line(project: &Project, file: u32, offset: u32) -> u32 {
    project.files[file as usize].facts.line_of(offset)
}

fn related(project: &Project, loc: &Loc, message: String) -> Related {
    Related {
        path: project.files[loc.file as usize].path.clone(),
        span: loc.span,
        line: line(project, loc.file, loc.span.start),
        column: 0,
        end_line: line(project, loc.file, loc.span.end),
        end_column: 0,
        message,
    }
}

/// Does region `r` (with its reach) cover a source evaluated in scope `s` and a sink executed
/// in scope `t` of method `m`?
fn covers(
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
    reach.contains(&m)
        || r.parts.iter().any(|p| match p {
            Part::Whole(x) => *x == m,
            Part::Scopes(x, roots) => *x == m && within(roots, s) && within(roots, t),
        })
}

/// Findings, and the methods the analysis budget cut short.
/// With `only`, regions are looked for only in those methods (the prefilter's methods that
/// can lead to a key sink or a side effect; no other region can hold a finding). A `probe`
/// stops once the methods the regions reach are known (the prefilter's forward rounds).
pub fn find(
    project: &Project,
    cat: &Catalogue,
    only: Option<&HashSet<MethodId>>,
    probe: bool,
) -> (Vec<Finding>, Vec<MethodId>) {
    let wanted = |m: &MethodId| only.is_none_or(|o| o.contains(m));
    // Regions first: annotations and implementations from the index; callbacks, pipelines and
    // retry loops by interpreting only the methods that could hold one.
    let empty: flow::Summaries = project
        .files
        .iter()
        .map(|f| vec![flow::Summary::default(); f.facts.methods.len()])
        .collect();
    let mut all_regions = regions::annotation_regions(project, cat, &wanted);
    all_regions.extend(regions::implementation_regions(project, cat, &wanted));
    let candidates: Vec<MethodId> = project
        .all_methods()
        .filter(|m| wanted(m) && regions::may_hold_region(project.method(*m), cat))
        .collect();
    let found: Vec<Vec<Region>> = crate::phase("regions", || {
        candidates
            .par_iter()
            .map(|id| flow::analyze(project, cat, &empty, *id, true).regions)
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

    // Only methods a region reaches can hold a finding or feed one.
    let (ids, calls) = crate::phase("relevant", || {
        relevant_methods(project, cat, &empty, &all_regions)
    });
    if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
        let files: BTreeSet<u32> = ids.iter().map(|m| m.0).collect();
        eprintln!(
            "retrylint: {} regions, {} candidate methods, {} relevant methods in {} files",
            all_regions.len(),
            candidates.len(),
            ids.len(),
            files.len()
        );
    }
    if probe {
        return (Vec::new(), Vec::new());
    }
    let sums = crate::phase("summaries", || flow::summarize(project, cat, &ids, &calls));
    let flows: HashMap<MethodId, MethodFlow> = crate::phase("flows", || {
        ids.par_iter()
            .map(|id| (*id, flow::analyze(project, cat, &sums, *id, false)))
            .collect()
    });
    let reaches: Vec<BTreeSet<MethodId>> = all_regions
        .iter()
        .map(|r| regions::reach(project, &flows, r))
        .collect();

    // (rule, file, source span) → finding under construction
    let mut grouped: BTreeMap<(&'static str, u32, Span), Finding> = BTreeMap::new();
    let mut region_sets: BTreeMap<(&'static str, u32, Span), BTreeSet<usize>> = BTreeMap::new();
    for id in &ids {
        let f = &flows[id];
        for ev in &f.events {
            let src = &f.sources[ev.source as usize];
            let covering: Vec<usize> = all_regions
                .iter()
                .enumerate()
                .filter(|(i, r)| covers(project, r, &reaches[*i], *id, src, ev.scope))
                .map(|(i, _)| i)
                .collect();
            if covering.is_empty() {
                continue;
            }
            let rule = rules::for_source(src.kind);
            let key = (rule.id, id.0, src.span);
            let entry = grouped.entry(key).or_insert_with(|| Finding {
                rule,
                level: rule.level,
                path: project.files[id.0 as usize].path.clone(),
                span: src.span,
                line: line(project, id.0, src.span.start),
                column: 0,
                end_line: line(project, id.0, src.span.end),
                end_column: 0,
                method: project.method(*id).name.clone(),
                source: src.label.clone(),
                message: String::new(),
                via: src
                    .via
                    .as_ref()
                    .map(|d| related(project, &d.loc, format!("{} is evaluated here", d.label))),
                sinks: Vec::new(),
                regions: Vec::new(),
                fingerprint: String::new(),
            });
            let sink = related(
                project,
                &ev.sink.loc,
                format!("becomes the idempotency key: {}", ev.sink.label),
            );
            if !entry
                .sinks
                .iter()
                .any(|s| s.path == sink.path && s.span == sink.span)
            {
                entry.sinks.push(sink);
            }
            region_sets.entry(key).or_default().extend(covering);
        }
    }
    let mut out = Vec::new();
    for (key, mut f) in grouped {
        f.sinks
            .sort_by(|a, b| (&a.path, a.span).cmp(&(&b.path, b.span)));
        let regs: Vec<&Region> = region_sets[&key].iter().map(|i| &all_regions[*i]).collect();
        for r in &regs {
            let what = if r.scheduler {
                "runs again on every period, on every replica"
            } else {
                "re-executed on every attempt"
            };
            f.regions.push(related(
                project,
                &r.loc,
                format!("{}: {what}", r.describe()),
            ));
        }
        f.message = message(&f, &regs, project);
        out.push(f);
    }
    out.extend(unkeyed_side_effects(
        project,
        &ids,
        &flows,
        &all_regions,
        &reaches,
    ));
    out.extend(unlocked_schedulers(project, cat, &flows, &all_regions));
    let truncated = ids
        .iter()
        .copied()
        .filter(|id| flows[id].truncated)
        .collect();
    (out, truncated)
}

/// What one execution of these regions is called: a scheduler's `run`, a retry's `attempt`.
fn execution_noun(regs: &[&Region]) -> &'static str {
    if regs.iter().all(|r| r.scheduler) {
        "run"
    } else {
        "attempt"
    }
}

fn region_phrase(project: &Project, path: &str, regs: &[&Region]) -> String {
    regs.iter()
        .map(|r| {
            let file = &project.files[r.loc.file as usize].path;
            if file == path {
                format!(
                    "{} (line {})",
                    r.describe(),
                    line(project, r.loc.file, r.loc.span.start)
                )
            } else {
                format!(
                    "{} ({}:{})",
                    r.describe(),
                    file,
                    line(project, r.loc.file, r.loc.span.start)
                )
            }
        })
        .collect::<Vec<_>>()
        .join(" and ")
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
                let f = flow::analyze(project, cat, empty, *id, false);
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

/// The chain of methods from a region's code to `target` (BFS over the call graph; with
/// `unguarded`, only calls not under a cluster-wide lock), as `Class.method` names.
fn call_path(
    project: &Project,
    flows: &HashMap<MethodId, MethodFlow>,
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
        let Some(f) = flows.get(&m) else { continue };
        let edges = if unguarded {
            &f.unguarded_calls
        } else {
            &f.calls
        };
        for (_, c) in edges {
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(*c) {
                e.insert(Some(m));
                queue.push_back(*c);
            }
        }
    }
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

fn through(chain: &[String]) -> String {
    if chain.len() < 2 {
        String::new()
    } else {
        format!(" through `{}`", chain.join("` → `"))
    }
}

/// RL004: a known side effect with no key at all, executed in a region.
fn unkeyed_side_effects(
    project: &Project,
    ids: &[MethodId],
    flows: &HashMap<MethodId, MethodFlow>,
    all_regions: &[Region],
    reaches: &[BTreeSet<MethodId>],
) -> Vec<Finding> {
    let rule: &'static Rule = &rules::UNKEYED_SIDE_EFFECT;
    let mut out: BTreeMap<(u32, Span), (Finding, BTreeSet<usize>, MethodId)> = BTreeMap::new();
    for id in ids {
        for e in &flows[id].effects {
            if e.kind != (flow::EffectKind::SideEffect { keyed: false }) {
                continue;
            }
            let site = flow::SourceSite {
                kind: crate::catalogue::SourceKind::Random,
                span: e.span,
                scope: e.scope,
                label: e.label.clone(),
                via: None,
                counter_decl: None,
            };
            let covering: Vec<usize> = all_regions
                .iter()
                .enumerate()
                .filter(|(i, r)| covers(project, r, &reaches[*i], *id, &site, e.scope))
                .map(|(i, _)| i)
                .collect();
            if covering.is_empty() {
                continue;
            }
            let entry = out.entry((id.0, e.span)).or_insert_with(|| {
                let f = Finding {
                    rule,
                    level: rule.level,
                    path: project.files[id.0 as usize].path.clone(),
                    span: e.span,
                    line: line(project, id.0, e.span.start),
                    column: 0,
                    end_line: line(project, id.0, e.span.end),
                    end_column: 0,
                    method: project.method(*id).name.clone(),
                    source: e.label.clone(),
                    message: String::new(),
                    via: None,
                    sinks: Vec::new(),
                    regions: Vec::new(),
                    fingerprint: String::new(),
                };
                (f, BTreeSet::new(), *id)
            });
            entry.1.extend(covering);
        }
    }
    out.into_values()
        .map(|(mut f, regs, m)| {
            let regs: Vec<&Region> = regs.iter().map(|i| &all_regions[*i]).collect();
            let path = through(&call_path(project, flows, regs[0], m, false));
            for r in &regs {
                f.regions.push(related(project, &r.loc, format!("{}: re-executed", r.describe())));
            }
                        let noun = execution_noun(&regs);
            f.message = format!(
                "{} runs on every {noun} of {}{path} with no idempotency key: a retry after a lost response repeats it",
                f.source,
                region_phrase(project, &f.path, &regs)
            );
            f
        })
        .collect()
}

/// RL005: a per-instance scheduler that reaches a key sink or a side effect with no lock.
fn unlocked_schedulers(
    project: &Project,
    cat: &Catalogue,
    flows: &HashMap<MethodId, MethodFlow>,
    all_regions: &[Region],
) -> Vec<Finding> {
    let rule: &'static Rule = &rules::UNLOCKED_SCHEDULER;
    let locked = |m: MethodId| {
        let mm = project.method(m);
        let class = project.class_of(m);
        mm.annotations.iter().any(|a| {
            let t = project.resolve_type(m.0, Some(class.1 as usize), &a.name);
            cat.guards
                .cluster_locks
                .annotations
                .iter()
                .any(|x| project.type_is(&t, x))
        })
    };
    let mut out: BTreeMap<(u32, Span), Finding> = BTreeMap::new();
    for r in all_regions.iter().filter(|r| r.scheduler) {
        // Methods run whole by the scheduler, and the effects met on the way.
        let mut reached: Vec<(MethodId, &flow::Effect)> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = Vec::new();
        for p in &r.parts {
            match p {
                regions::Part::Whole(m) => {
                    if !locked(*m) && seen.insert(*m) {
                        stack.push(*m);
                    }
                }
                regions::Part::Scopes(m, roots) => {
                    let mm = project.method(*m);
                    let Some(f) = flows.get(m) else { continue };
                    for e in &f.effects {
                        if !e.guarded && regions::scope_within(mm, e.scope, roots) {
                            reached.push((*m, e));
                        }
                    }
                    for (s, callee) in &f.unguarded_calls {
                        let lock_applies = locked(*callee) && !f.self_calls.contains(callee);
                        if regions::scope_within(mm, *s, roots)
                            && !lock_applies
                            && seen.insert(*callee)
                        {
                            stack.push(*callee);
                        }
                    }
                }
            }
        }
        while let Some(m) = stack.pop() {
            let Some(f) = flows.get(&m) else { continue };
            reached.extend(f.effects.iter().filter(|e| !e.guarded).map(|e| (m, e)));
            for (_, callee) in &f.unguarded_calls {
                let lock_applies = locked(*callee) && !f.self_calls.contains(callee);
                if !lock_applies && seen.insert(*callee) {
                    stack.push(*callee);
                }
            }
        }
        reached.sort_by_key(|(m, e)| (m.0, e.span));
        let Some((m, e)) = reached.first() else {
            continue;
        };
        let path = project.files[r.loc.file as usize].path.clone();
        let effect = related(
            project,
            &Loc {
                file: m.0,
                span: e.span,
            },
            format!("reached: {}", e.label),
        );
        let at = if effect.path == path {
            format!("line {}", effect.line)
        } else {
            format!("{}:{}", effect.path, effect.line)
        };
        let what = match e.kind {
            flow::EffectKind::KeySink => format!("an idempotency key ({})", e.label),
            flow::EffectKind::SideEffect { .. } => e.label.clone(),
        };
        let owner = project
            .all_methods()
            .find(|x| r.parts.iter().any(|p| matches!(p, regions::Part::Whole(w) | regions::Part::Scopes(w, _) if w == x)))
            .map(|x| project.method(x).name.clone())
            .unwrap_or_else(|| r.owner.clone());
        out.entry((r.loc.file, r.loc.span)).or_insert_with(|| Finding {
            rule,
            level: rule.level,
            path: path.clone(),
            span: r.loc.span,
            line: line(project, r.loc.file, r.loc.span.start),
            column: 0,
            end_line: line(project, r.loc.file, r.loc.span.end),
            end_column: 0,
            method: owner,
            source: r.describe(),
            message: format!(
                "{} runs on every replica and reaches {what} at {at}{} with no cluster-wide lock: {}",
                r.describe(),
                through(&call_path(project, flows, r, *m, true)),
                rule.consequence
            ),
            via: None,
            sinks: vec![effect],
            regions: Vec::new(),
            fingerprint: String::new(),
        });
    }
    out.into_values().collect()
}

fn message(f: &Finding, regs: &[&Region], project: &Project) -> String {
    let noun = execution_noun(regs);
    let where_ = region_phrase(project, &f.path, regs);
    let sink = f
        .sinks
        .first()
        .map(|s| {
            if s.path == f.path {
                format!("line {}", s.line)
            } else {
                format!("{}:{}", s.path, s.line)
            }
        })
        .unwrap_or_default();
    let becomes = if f.rule.source == Some(crate::catalogue::SourceKind::Attempt) {
        "becomes part of the idempotency key"
    } else {
        "becomes the idempotency key"
    };
    let consequence = if noun == "run" {
        "each run sends a new key"
    } else {
        f.rule.consequence
    };
    format!(
        "{} {} on every {noun} of {} and {becomes} at {sink}: {consequence}",
        f.source, f.rule.verb, where_,
    )
}

/// Columns as UTF-16 code units (SARIF's default), fingerprints, and the final order.
/// Line `n` (0-based) of `t` without its terminator; LF, CRLF and a lone CR end a line.
fn nth_line(t: &str, n: usize) -> &str {
    let mut rest = t;
    for _ in 0..n {
        match rest.find(['\n', '\r']) {
            Some(i) if rest[i..].starts_with("\r\n") => rest = &rest[i + 2..],
            Some(i) => rest = &rest[i + 1..],
            None => return "",
        }
    }
    rest.find(['\n', '\r']).map_or(rest, |i| &rest[..i])
}

pub fn finish(findings: &mut [Finding], texts: &BTreeMap<String, String>) {
    // One-based column of a byte offset in UTF-16 code units, counted from its line's start.
    let col = |path: &str, span: Span, end: bool| -> u32 {
        let off = if end { span.end } else { span.start } as usize;
        match texts.get(path) {
            Some(t) if off <= t.len() && t.is_char_boundary(off) => {
                let start = t[..off].rfind(['\n', '\r']).map_or(0, |i| i + 1);
                t[start..off].encode_utf16().count() as u32 + 1
            }
            _ => 1,
        }
    };
    for f in findings.iter_mut() {
        f.column = col(&f.path, f.span, false);
        f.end_column = col(&f.path, f.span, true);
        for r in f
            .sinks
            .iter_mut()
            .chain(f.regions.iter_mut())
            .chain(f.via.iter_mut())
        {
            r.column = col(&r.path, r.span, false);
            r.end_column = col(&r.path, r.span, true);
        }
    }
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.rule.id).cmp(&(&b.path, b.line, b.column, b.rule.id))
    });
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in findings.iter_mut() {
        let line_text: String = texts
            .get(&f.path)
            .map_or("", |t| nth_line(t, (f.line as usize).saturating_sub(1)))
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let base = format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            f.rule.id, f.path, f.method, line_text
        );
        let n = seen.entry(base.clone()).or_default();
        *n += 1;
        let digest = Sha256::digest(format!("{base}\u{0}{n}").as_bytes());
        f.fingerprint = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    }
}

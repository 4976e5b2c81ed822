//! The check RL001–RL003 share: a per-attempt source of the rule's kind and a key sink executed
//! within the same region execution, reported once per source location. The three rules differ
//! only in the kind of source they report.

use super::{Context, Rule, reach};
use crate::dataflow::{Loc, SourceDesc};
use crate::findings::{Finding, Related, message, related};
use crate::java::ir::Span;
use crate::regions::Region;
use crate::semantic::MethodId;
use std::collections::{BTreeMap, BTreeSet};

/// A finding under construction: the method of its primary location, the source inside a
/// helper, each sink with the call of that method through which it is reached, the regions.
struct Grouped {
    finding: Finding,
    method: MethodId,
    via: Option<SourceDesc>,
    sinks: Vec<(Related, Loc, Span)>,
    regions: BTreeSet<usize>,
}

/// Does a key written into a row stay inside the transaction of each attempt of region `i`
/// (SPEC 7.4, a transactional outbox)? Every attempt of the region is a transaction of its own,
/// and nothing the region runs leaves it: a `REQUIRES_NEW` method commits before the attempt
/// ends, whether it writes the row or is handed the entity to save. A failed attempt then rolls
/// the row and its key back.
fn outbox(cx: &Context, i: usize) -> bool {
    let r = &cx.regions[i];
    let Some(row) = crate::regions::own_transaction(cx.project, cx.cat, r) else {
        return false;
    };
    // The retried method itself may start a new transaction: that is the attempt's own.
    let own = |m: &MethodId| r.own_method() == Some(*m);
    !cx.reaches
        .methods(i)
        .filter(|m| !own(m))
        .any(|m| crate::regions::leaves_transaction(cx.project, row, m))
}

pub(super) fn check(cx: &Context, rule: &'static Rule) -> Vec<Finding> {
    let project = cx.project;
    // (file, source span) → finding under construction
    let mut grouped: BTreeMap<(u32, Span), Grouped> = BTreeMap::new();
    // Region index → whether each of its attempts is a transaction of its own (asked once).
    let mut outboxes: BTreeMap<usize, bool> = BTreeMap::new();
    for id in cx.ids {
        let f = &cx.flows[id];
        for ev in &f.events {
            let src = &f.sources[ev.source as usize];
            if super::for_source(src.kind).id != rule.id {
                continue;
            }
            let mut covering = reach::covering(cx, *id, src, ev.scope);
            // Sources and sinks reached only under tests on the method's parameters that the
            // region's calls fail (`key == null ? UUID… : key` called with a key).
            let when = reach::event_conds(src, ev);
            covering.retain(|i| reach::conditions_met(cx, *i, *id, &when));
            // Behind a check of the own store that stops a later attempt (`records`).
            if let Some(rec) = &ev.recorded {
                covering.retain(|i| !super::recorded::holds(cx, *i, *id, rec));
            }
            if ev.sink.row_write {
                covering.retain(|i| !*outboxes.entry(*i).or_insert_with(|| outbox(cx, *i)));
                covering.retain(|i| !super::swept::marks_selection(cx, *i, *id));
            }
            // A key set on the message a flow step hands on is sent by a later step.
            covering.retain(|i| !super::handed_on::holds(cx, *i, &ev.sink.loc));
            // A key header in a container counts where the region sends the container on a
            // request that is not a read.
            covering.retain(|i| reach::sent_in_region(cx, *i, &ev.sink.loc));
            // A region that re-runs only after a failure, where no failure can follow the sink.
            covering.retain(|i| !super::swallowed::holds(cx, *i, *id, ev.at, ev.sink.row_write));
            if covering.is_empty() {
                continue;
            }
            let entry = grouped.entry((id.0, src.span)).or_insert_with(|| {
                let mut f = Finding::at(rule, project, *id, src.span, src.label.clone());
                f.via = src
                    .via
                    .as_ref()
                    .map(|d| related(project, &d.loc, format!("{} is evaluated here", d.label)));
                f.rows
                    .add_source(src.via.as_ref().map_or(&src.row, |d| &d.row));
                Grouped {
                    finding: f,
                    method: *id,
                    via: src.via.clone(),
                    sinks: Vec::new(),
                    regions: BTreeSet::new(),
                }
            });
            entry.finding.rows.add_sink(&ev.sink.row);
            let sink = related(
                project,
                &ev.sink.loc,
                format!(
                    "becomes the idempotency key: {}",
                    message::sink_name(&ev.sink.label)
                ),
            );
            if !entry
                .sinks
                .iter()
                .any(|(s, _, _)| s.path == sink.path && s.span == sink.span)
            {
                entry.sinks.push((sink, ev.sink.loc.clone(), ev.at));
            }
            entry.regions.extend(covering);
        }
    }
    grouped
        .into_values()
        .map(|mut g| {
            g.sinks
                .sort_by(|a, b| (&a.0.path, a.0.span).cmp(&(&b.0.path, b.0.span)));
            let regs: Vec<&Region> = g.regions.iter().map(|i| &cx.regions[*i]).collect();
            let f = &mut g.finding;
            f.sinks = g.sinks.iter().map(|(s, _, _)| s.clone()).collect();
            for r in &regs {
                f.rows.add_region(&r.row);
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
            let noun = message::execution_noun(&regs);
            // The calls from the region to the source, and from the primary method to the sink.
            let mut to_source = reach::region_path(cx, regs[0], g.method, false);
            if to_source.is_empty() {
                to_source.push(g.method);
            }
            let helper = g.via.as_ref().and_then(|d| project.method_at(&d.loc));
            let into_helper = helper
                .map(|h| reach::method_chain(cx, g.method, h))
                .filter(|c| c.len() >= 2)
                .unwrap_or_default();
            to_source.extend(into_helper.iter().skip(1));
            let first_sink = g.sinks.first();
            let to_sink = first_sink
                .and_then(|(_, loc, _)| project.method_at(loc))
                .filter(|s| *s != g.method)
                .map(|s| reach::method_chain(cx, g.method, s))
                .unwrap_or_default();
            let source = g
                .via
                .as_ref()
                .map_or(f.source.as_str(), |d| d.label.as_str());
            let mut path = reach::chain_names(project, &to_source);
            if path.len() >= 2 {
                path.push(source.to_string());
            }
            let sink_path = reach::chain_names(project, &to_sink);
            // The reported method stays named when a long path is shortened: the path to the
            // sink starts there.
            let primary = to_source.iter().position(|x| *x == g.method);
            let keep: Vec<usize> = primary.filter(|_| to_sink.len() >= 2).into_iter().collect();
            f.message = message::key_message(f, &regs, project, source, &path, &keep, &sink_path);
            // The calls from the region to the reported method lead the code flow.
            if let Some(p) = primary.filter(|p| *p >= 1) {
                f.steps = reach::flow_steps(cx, regs[0], &to_source[..=p], noun, None);
            }
            // The code flow: the source, the calls that return it, the calls that carry it on,
            // the sink.
            let new_value = match rule.source {
                Some(crate::catalogue::SourceKind::Clock) => {
                    format!("{source}: a new time on every {noun}")
                }
                Some(crate::catalogue::SourceKind::Attempt) => {
                    format!("{source}: a different count on every {noun}")
                }
                _ => format!("{source}: a new value on every {noun}"),
            };
            match &g.via {
                Some(d) => {
                    f.steps.push(related(project, &d.loc, new_value));
                    for w in into_helper.windows(2).skip(1).rev() {
                        if let Some(l) = reach::call_site(cx, w[0], w[1]) {
                            let what = format!("returned by `{}`", reach::qualified(project, w[1]));
                            f.steps.push(related(project, &l, what));
                        }
                    }
                    let callee = into_helper.get(1).map_or_else(
                        || f.source.clone(),
                        |h| format!("`{}`", reach::qualified(project, *h)),
                    );
                    let here = Loc {
                        file: g.method.0,
                        span: f.span,
                    };
                    f.steps
                        .push(related(project, &here, format!("returned by {callee}")));
                }
                None => {
                    let here = Loc {
                        file: g.method.0,
                        span: f.span,
                    };
                    f.steps.push(related(project, &here, new_value));
                }
            }
            if let Some((sink, _, at)) = first_sink {
                for (i, w) in to_sink.windows(2).enumerate() {
                    let l = if i == 0 {
                        Some(Loc {
                            file: g.method.0,
                            span: *at,
                        })
                    } else {
                        reach::call_site(cx, w[0], w[1])
                    };
                    if let Some(l) = l {
                        let what = format!("passed on to `{}`", reach::qualified(project, w[1]));
                        f.steps.push(related(project, &l, what));
                    }
                }
                f.steps.push(sink.clone());
            }
            g.finding
        })
        .collect()
}

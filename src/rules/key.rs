//! The check RL001–RL003 share: a per-attempt source of the rule's kind and a key sink executed
//! within the same region execution, reported once per source location. The three rules differ
//! only in the kind of source they report.

use super::{Context, Rule, reach};
use crate::findings::{Finding, message, related};
use crate::java::ir::Span;
use crate::regions::Region;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn check(cx: &Context, rule: &'static Rule) -> Vec<Finding> {
    let project = cx.project;
    // (file, source span) → finding under construction, and the regions covering it
    let mut grouped: BTreeMap<(u32, Span), (Finding, BTreeSet<usize>)> = BTreeMap::new();
    for id in cx.ids {
        let f = &cx.flows[id];
        for ev in &f.events {
            let src = &f.sources[ev.source as usize];
            if super::for_source(src.kind).id != rule.id {
                continue;
            }
            let covering = reach::covering(cx, *id, src, ev.scope);
            if covering.is_empty() {
                continue;
            }
            let (entry, regions) = grouped.entry((id.0, src.span)).or_insert_with(|| {
                let mut f = Finding::at(rule, project, *id, src.span, src.label.clone());
                f.via = src
                    .via
                    .as_ref()
                    .map(|d| related(project, &d.loc, format!("{} is evaluated here", d.label)));
                f.rows
                    .add_source(src.via.as_ref().map_or(&src.row, |d| &d.row));
                (f, BTreeSet::new())
            });
            entry.rows.add_sink(&ev.sink.row);
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
            regions.extend(covering);
        }
    }
    grouped
        .into_values()
        .map(|(mut f, regions)| {
            f.sinks
                .sort_by(|a, b| (&a.path, a.span).cmp(&(&b.path, b.span)));
            let regs: Vec<&Region> = regions.iter().map(|i| &cx.regions[*i]).collect();
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
            f.message = message::key_message(&f, &regs, project);
            f
        })
        .collect()
}

//! Re-execution regions: which code a framework may run more than once, and which methods are
//! reached from it.

mod ack_loops;
mod annotations;
mod attempts;
mod bean_clients;
mod callback_liveness;
mod calls;
mod component_scan;
mod delegation;
mod enablers;
mod failures;
mod function_beans;
mod implementations;
mod item_failures;
pub mod liveness;
mod pipelines;
mod reaches;
mod recursion;
mod redelivery;
mod registration;
mod retried_exceptions;
mod retry_loops;
mod send_calls;
mod sent_through;
mod steps;
mod stored_functions;
mod swallowed;
mod transactions;

pub use annotations::annotation_regions;
pub use bean_clients::bean_sends;
pub use calls::call_regions;
pub use enablers::FileNamedCalls;
pub use function_beans::function_bean_regions;
pub use implementations::implementation_regions;
pub use liveness::NeverFails;
pub use reaches::Reaches;
pub use registration::{
    BeanScans, InstanceSend, Sends, bean_registrations, call_registrations, client_sends,
    instance_sends,
};
pub use retry_loops::{is_retry_loop, may_hold_region};
pub use sent_through::enter_interceptors;
pub use stored_functions::{FileCalls, function_sends};
pub use swallowed::{Sink, redelivered_method, sent_once};
pub use transactions::{commits_apart, in_transaction, leaves_transaction, own_transaction};

use crate::java::ir::*;
use crate::semantic::{CallGraph, Loc, MethodId, Project};
use std::collections::BTreeSet;

/// The code of a region inside one method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Part {
    /// The whole body of a method.
    Whole(MethodId),
    /// These lambda / anonymous-method scopes of a method, with everything nested in them.
    Scopes(MethodId, Vec<ScopeId>),
}

#[derive(Clone, Debug)]
pub struct Region {
    /// `@Retryable method`, `RetryTemplate.execute callback`, …
    pub label: String,
    /// The method the region is written in (for messages).
    pub owner: String,
    /// The annotation or the call that makes the region.
    pub loc: Loc,
    pub scheduler: bool,
    pub parts: Vec<Part>,
    /// The id of the catalogue row that makes it (empty for a retry loop, or a row without one).
    pub row: String,
    /// Why the framework can never run it again; `None` for a live region.
    pub dead: Option<liveness::Dead>,
    /// A dead region of this kind is reported (RL006): a retry annotation, not a listener.
    pub report_dead: bool,
    /// Parts entered through a call that sends a request (an interceptor registered on the
    /// client): (the method of the part, the method that sends). The region reaches them
    /// through that method, not from its own code.
    pub entered: Vec<(MethodId, MethodId)>,
    /// Calls of a lazy pipeline's assembled chain on a variable (`webClient.post()` upstream of
    /// `retryWhen`): a reactive client called there sends again on every subscription, so its
    /// filters run in the region.
    pub sends_at: Vec<(MethodId, Span)>,
    /// Method references a lazy pipeline defers (`Mono.fromSupplier(this::newKey)`): what
    /// calling them returns is made again on every subscription, where the reference is
    /// written.
    pub deferred_refs: Vec<(MethodId, Span)>,
    /// What makes it run again, when its location is that rather than its code (an
    /// interceptor located at the `Retryer` bean that makes its client re-send).
    pub by: Option<String>,
}

impl Region {
    /// A live region that a call makes (a callback's argument, a flow step, a registered
    /// interceptor), located at the call's name.
    pub fn at_call(
        label: &str,
        owner: String,
        file: u32,
        call: &crate::java::ir::Call,
        parts: Vec<Part>,
        row: &str,
    ) -> Region {
        let loc = Loc {
            file,
            span: call.name_span,
        };
        Region::new(label, owner, loc, parts, row)
    }

    /// A live retry region (not a scheduler) made by catalogue row `row`, with nothing entered
    /// through a client yet; set the other fields with struct update syntax.
    pub fn new(label: &str, owner: String, loc: Loc, parts: Vec<Part>, row: &str) -> Region {
        Region {
            label: label.to_string(),
            owner,
            loc,
            scheduler: false,
            parts,
            row: row.to_string(),
            dead: None,
            report_dead: false,
            entered: Vec::new(),
            sends_at: Vec::new(),
            deferred_refs: Vec::new(),
            by: None,
        }
    }

    /// The parts of the region's own code: its parts without those entered through a call
    /// (an interceptor, a stored function), which run inside that call.
    pub fn own_parts(&self) -> impl Iterator<Item = &Part> {
        self.parts.iter().filter(|p| {
            let (Part::Whole(m) | Part::Scopes(m, _)) = p;
            !self.entered.iter().any(|(x, _)| x == m)
        })
    }

    /// The method a retried or redelivered method region is: its one own part, a whole body.
    pub fn own_method(&self) -> Option<MethodId> {
        let own: Vec<&Part> = self.own_parts().collect();
        match own.as_slice() {
            [Part::Whole(id)] => Some(*id),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        let by = self
            .by
            .as_deref()
            .map(|b| format!(", {b}"))
            .unwrap_or_default();
        if self.label.starts_with('@') {
            format!("the {} `{}`{by}", self.label, self.owner)
        } else {
            format!("the {} in `{}`{by}", self.label, self.owner)
        }
    }
}

/// Is scope `s` of `m` inside one of `roots` (or one of them)?
pub fn scope_within(m: &Method, s: ScopeId, roots: &[ScopeId]) -> bool {
    m.scope_within(s, roots)
}

/// Methods whose whole body runs inside the region: the region's own whole methods and every
/// project method called, transitively, from its code.
pub fn reach(project: &Project, graph: &CallGraph, r: &Region) -> BTreeSet<MethodId> {
    let mut seen = BTreeSet::new();
    let mut stack = Vec::new();
    for p in &r.parts {
        match p {
            Part::Whole(m) => {
                if seen.insert(*m) {
                    stack.push(*m);
                }
            }
            Part::Scopes(m, roots) => {
                let mm = project.method(*m);
                for (s, callee) in graph.edges(*m) {
                    if scope_within(mm, *s, roots) && seen.insert(*callee) {
                        stack.push(*callee);
                    }
                }
            }
        }
    }
    while let Some(m) = stack.pop() {
        for (_, callee) in graph.edges(m) {
            if seen.insert(*callee) {
                stack.push(*callee);
            }
        }
    }
    seen
}

/// One part per method: scopes of the same method are one region body (a value made in one
/// deferred stage and used in the next is within the region).
pub fn merge_parts(parts: Vec<Part>) -> Vec<Part> {
    let mut whole: Vec<MethodId> = Vec::new();
    let mut scopes: std::collections::BTreeMap<MethodId, Vec<ScopeId>> =
        std::collections::BTreeMap::new();
    for p in parts {
        match p {
            Part::Whole(m) => whole.push(m),
            Part::Scopes(m, s) => scopes.entry(m).or_default().extend(s),
        }
    }
    whole.sort();
    whole.dedup();
    let mut out: Vec<Part> = whole.iter().map(|m| Part::Whole(*m)).collect();
    for (m, mut s) in scopes {
        if whole.contains(&m) {
            continue;
        }
        s.sort();
        s.dedup();
        out.push(Part::Scopes(m, s));
    }
    out
}

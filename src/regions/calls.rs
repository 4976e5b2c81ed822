//! Regions made by calls: callbacks handed to a retrying call (`RetryTemplate.execute(cb)`),
//! lazy pipelines upstream of a retry operator, hand-written retry loops, and loops that
//! acknowledge the messages they handle.
//!
//! Found by the semantic layer's typed walk of the body (the interpreter's evaluation order, so
//! that a local is typed from the declarations seen so far, as the interpreter types it).

use super::pipelines::Upstream;
use super::retry_loops::is_retry_loop;
use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::java::ir::*;
use crate::semantic::walk::{Body, Visitor, walk};
use crate::semantic::{ClassRef, Defs, Loc, MethodId, Project, method_ref_targets};

/// The callback, pipeline and retry-loop regions made by the calls and loops of method `id`.
pub fn call_regions(project: &Project, cat: &Catalogue, id: MethodId) -> Vec<Region> {
    let mut v = Regions(Vec::new(), cat);
    walk(project, cat, id, &mut v);
    v.0.extend(super::recursion::recursion_region(project, cat, id));
    v.0
}

/// The regions found so far, and the catalogue whose rows make them.
struct Regions<'c>(Vec<Region>, &'c Catalogue);

impl<'p> Visitor<'p> for Regions<'_> {
    fn call(&mut self, body: &Body<'p>, c: &'p Call, _recv_is_type: bool) {
        self.regions_at(body, c);
        if let Some(r) = super::ack_loops::ack_for_each_region(body, self.1, c)
            && !self.0.iter().any(|x| x.loc == r.loc && x.row == r.row)
        {
            self.0.push(r);
        }
    }

    fn loop_stmt(&mut self, body: &Body<'p>, s: &'p Stmt) {
        let mut found = super::ack_loops::ack_loop_region(body, self.1, s);
        if let Stmt::Loop {
            body: b,
            cond,
            update,
            each: None,
            scope,
            span,
            ..
        } = s
            && is_retry_loop(cond.as_ref(), update, b)
        {
            found = Some(Region::new(
                "retry loop",
                body.method.name.to_string(),
                Loc {
                    file: body.id.0,
                    span: *span,
                },
                vec![Part::Scopes(body.id, vec![*scope])],
                "",
            ));
        }
        // A loop inside another loop is walked once for each of the outer loop's passes.
        if let Some(r) = found
            && !self.0.iter().any(|x| x.loc == r.loc && x.row == r.row)
        {
            self.0.push(r);
        }
    }
}

impl Regions<'_> {
    /// A callback or pipeline region made by this call.
    fn regions_at(&mut self, body: &Body<'_>, c: &Call) {
        let cat = self.1;
        for row in &cat.regions.step {
            self.0.extend(super::steps::step_region(body, row, c));
        }
        for row in &cat.regions.callback {
            if !row.methods.contains(&c.name) || c.args.len() < row.min_args {
                continue;
            }
            if let Some(parts) = Self::callback_region(body, cat, row, c) {
                let loc = Loc {
                    file: body.id.0,
                    span: c.name_span,
                };
                // Two rows alike for an unresolved receiver (Spring Retry's and Spring
                // Framework 7's `RetryTemplate`, both matched by the receiver's name) make one
                // region.
                let same = |r: &Region| r.loc == loc && r.label == row.label && r.parts == parts;
                if self.0.iter().any(same) {
                    continue;
                }
                let owner = body.method.name.to_string();
                self.0.push(Region {
                    scheduler: row.scheduler,
                    ..Region::new(&row.label, owner, loc, parts, &row.id)
                });
            }
        }
        for row in &cat.regions.pipeline {
            let Some(r) = &c.recv else { continue };
            if !row.operators.contains(&c.name) {
                continue;
            }
            let up = Upstream::new(body.project, cat, row);
            let is = up
                .is_pipeline(body.id, &body.defs, r, 0)
                .unwrap_or_else(|| up.file_uses_types(body.id.0));
            if !is {
                continue;
            }
            let mut parts = Vec::new();
            up.upstream(body.id, &body.defs, r, 0, &mut parts);
            let found = up.found(parts);
            let parts = found.parts;
            if !parts.is_empty() || !found.sends_at.is_empty() {
                self.0.push(Region {
                    sends_at: found.sends_at,
                    deferred_refs: found.refs,
                    ..Region::at_call(
                        &row.label,
                        body.method.name.to_string(),
                        body.id.0,
                        c,
                        parts,
                        &row.id,
                    )
                });
            }
        }
    }

    /// The code a callback row's call runs again, if the call matches the row.
    fn callback_region(
        body: &Body<'_>,
        cat: &Catalogue,
        row: &crate::catalogue::CallbackRegion,
        c: &Call,
    ) -> Option<Vec<Part>> {
        body.with_typer(|typer| {
            let project = body.project;
            if let Some(w) = &row.when_arg {
                let typed = c
                    .args
                    .get(w.index)
                    .and_then(|a| typer.type_of(a))
                    .is_some_and(|t| w.types.iter().any(|x| project.type_is(&t, x)));
                if !typed {
                    return None;
                }
            }
            let ok = row.receiver_types.iter().any(|t| t == "*")
                || c.recv.as_ref().is_some_and(|r| {
                    let t = if typer.is_type_name(r) {
                        r.dotted().map(|d| typer.resolve(&d))
                    } else {
                        typer.type_of(r)
                    };
                    match t {
                        Some(t) if t.is_known() => {
                            row.receiver_types.iter().any(|x| project.type_is(&t, x))
                        }
                        _ => {
                            row.receiver_types
                                .iter()
                                .any(|x| t.as_ref().is_some_and(|t| project.type_is(t, x)))
                                || row.receiver_name_contains.as_ref().is_some_and(|needle| {
                                    receiver_name(r).to_lowercase().contains(needle.as_str())
                                })
                        }
                    }
                });
            let idx = if row.callback_arg < 0 {
                c.args.len() as i32 + row.callback_arg
            } else {
                row.callback_arg
            };
            let arg = usize::try_from(idx).ok().and_then(|i| c.args.get(i))?;
            if !ok {
                return None;
            }
            // A callback that swallows every failure never fails: it runs once (SPEC 3.3).
            if let Some(ends) = &row.catch_all
                && ends.methods.contains(&c.name)
                && super::callback_liveness::callback_never_fails(
                    project,
                    cat,
                    body.id,
                    arg,
                    &body.defs,
                    &row.callback_methods,
                    ends.unchecked.contains(&c.name),
                )
            {
                return None;
            }
            let parts = callback_parts(
                project,
                body.id,
                arg,
                &row.callback_methods,
                &body.defs,
                &|e| typer.type_of(e),
                &|e| typer.is_type_name(e),
            );
            (!parts.is_empty()).then_some(parts)
        })
    }
}

/// A short name for a receiver: `retryTemplate`, `this.retry`, `template()`.
fn receiver_name(e: &Expr) -> String {
    match e.peel() {
        Expr::Name(n, _) => n.clone(),
        Expr::Field(_, n, _) => n.clone(),
        Expr::Call(c) => c.name.clone(),
        _ => String::new(),
    }
}

/// Lambda/anonymous/method-reference code of a callback argument.
pub(super) fn callback_parts(
    project: &Project,
    id: MethodId,
    arg: &Expr,
    methods: &[String],
    defs: &Defs,
    type_of: &dyn Fn(&Expr) -> Option<crate::semantic::TypeRef>,
    is_type_name: &dyn Fn(&Expr) -> bool,
) -> Vec<Part> {
    let class = project.class_of(id);
    match arg.peel() {
        Expr::Lambda(l) => vec![Part::Scopes(id, vec![l.scope])],
        Expr::New(n) => {
            let scopes: Vec<ScopeId> = n
                .anon
                .iter()
                .filter(|a| methods.is_empty() || methods.contains(&a.name))
                .map(|a| a.scope)
                .collect();
            if scopes.is_empty() {
                Vec::new()
            } else {
                vec![Part::Scopes(id, scopes)]
            }
        }
        Expr::MethodRef(r) => method_ref_targets(project, class, r, type_of, is_type_name)
            .into_iter()
            .map(Part::Whole)
            .collect(),
        Expr::Name(n, _) => match defs.get(n) {
            Some((_, init)) if !matches!(init.peel(), Expr::Name(..)) => {
                callback_parts(project, id, init, methods, defs, type_of, is_type_name)
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The methods named `names` that an object of project class `k` runs: declared with a body by
/// `k` or, failing that, by its nearest project supertype that has one (an abstract writer's
/// `write`); for an interface or abstract type without any, its project implementations'.
pub(super) fn class_callbacks(project: &Project, k: ClassRef, names: &[String]) -> Vec<Part> {
    let declared = |c: ClassRef| -> Vec<Part> {
        project
            .methods_of(c)
            .iter()
            .filter(|m| {
                let mm = project.method(**m);
                mm.has_body() && !mm.is_ctor && names.iter().any(|n| *n == mm.name)
            })
            .map(|m| Part::Whole(*m))
            .collect()
    };
    for c in std::iter::once(k).chain(project.supertypes_of(k).iter().copied()) {
        let found = declared(c);
        if !found.is_empty() {
            return found;
        }
    }
    project
        .subtypes_of(k)
        .iter()
        .flat_map(|c| declared(*c))
        .collect()
}

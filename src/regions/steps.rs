//! Redelivered steps of integration flows (SPEC §3.2): Apache Camel redelivery re-runs the
//! failing processor or bean step of a route (not the route from its start), and a Spring
//! Integration `RequestHandlerRetryAdvice` re-runs the handler it advises. Which calls add a
//! step and what switches redelivery on is the catalogue's `[[regions.step]]` data.

use super::calls::{callback_parts, class_callbacks};
use super::{Part, Region};
use crate::catalogue::StepRegion;
use crate::java::ir::{Call, Expr, LambdaBody, Stmt};
use crate::semantic::walk::{Body, Visitor, walk};
use crate::semantic::{ClassRef, DeclaredSoFar, Project, TypeRef, Typer};

/// The step region call `c` of method `body` adds under `row`, if the row's conditions hold.
pub fn step_region(body: &Body<'_>, row: &StepRegion, c: &Call) -> Option<Region> {
    if !row.methods.contains(&c.name) {
        return None;
    }
    let project = body.project;
    let class = project.class_of(body.id);
    if !row.builder_supertypes.is_empty() {
        if !extends_any(project, class, &row.builder_supertypes) {
            return None;
        }
        if !row.enabled_by_calls.is_empty() && !switches_on(project, body, class, row) {
            return None;
        }
    }
    body.with_typer(|typer| {
        let advice = match &row.advice_method {
            Some(name) => {
                let i = c.args.iter().position(|a| {
                    passes_advice(a, name, &row.advice_types, project, class, typer)
                })?;
                Some(i)
            }
            None => None,
        };
        let mut parts = Vec::new();
        for (i, a) in c.args.iter().enumerate() {
            if Some(i) == advice {
                continue;
            }
            parts = step_parts(body, typer, row, a, c.args.get(i + 1));
            if !parts.is_empty() {
                break;
            }
        }
        (!parts.is_empty()).then(|| {
            Region::at_call(
                &row.label,
                body.method.name.to_string(),
                body.id.0,
                c,
                parts,
                &row.id,
            )
        })
    })
}

/// The code of one step argument: a lambda, an anonymous class, a method reference, or an object
/// of a project class (its callback method, or the method the next argument names).
fn step_parts(
    body: &Body<'_>,
    typer: &Typer<'_, '_, DeclaredSoFar<'_, '_>>,
    row: &StepRegion,
    arg: &Expr,
    next: Option<&Expr>,
) -> Vec<Part> {
    let project = body.project;
    let parts = callback_parts(
        project,
        body.id,
        arg,
        &row.callback_methods,
        &body.defs,
        &|e| typer.type_of(e),
        &|e| typer.is_type_name(e),
    );
    if !parts.is_empty() {
        return parts;
    }
    let Some(TypeRef::Project(k)) = typer.type_of(arg) else {
        return Vec::new();
    };
    let names: Vec<String> = match next.map(Expr::peel) {
        Some(Expr::Str(m, _)) => vec![m.clone()],
        _ => row.callback_methods.clone(),
    };
    class_callbacks(project, k, &names)
}

/// Does class `c` (or a project superclass) extend or implement one of `types`?
fn extends_any(project: &Project, c: ClassRef, types: &[String]) -> bool {
    std::iter::once(c)
        .chain(project.supertypes_of(c).iter().copied())
        .any(|k| {
            project.class(k).supertypes.iter().any(|s| {
                let t = project.resolve_type(k.0, Some(k.1 as usize), s);
                types.iter().any(|x| project.type_is(&t, x))
            })
        })
}

/// Does some method of the class call one of the row's switches with an argument other than
/// `0` (`maximumRedeliveries(3)`, or a value from configuration)?
fn switches_on(project: &Project, body: &Body<'_>, class: ClassRef, row: &StepRegion) -> bool {
    struct Switch<'r>(&'r [String], bool);
    impl<'p> Visitor<'p> for Switch<'_> {
        fn call(&mut self, _: &Body<'p>, c: &'p Call, _: bool) {
            let off = |a: &Expr| matches!(a.peel(), Expr::Lit(v, _) if v.trim() == "0");
            if self.0.contains(&c.name) && !c.args.is_empty() && !c.args.iter().all(off) {
                self.1 = true;
            }
        }
    }
    let mut v = Switch(&row.enabled_by_calls, false);
    walk(project, body.factories, body.id, &mut v);
    for m in project.methods_of(class) {
        if v.1 {
            break;
        }
        if *m != body.id {
            walk(project, body.factories, *m, &mut v);
        }
    }
    v.1
}

/// Does `arg` (an endpoint configurer, `e -> e.advice(retryAdvice())`) pass a value of one of
/// `types` to a call named `method`?
fn passes_advice(
    arg: &Expr,
    method: &str,
    types: &[String],
    project: &Project,
    class: ClassRef,
    typer: &Typer<'_, '_, DeclaredSoFar<'_, '_>>,
) -> bool {
    // The typer leaves an unqualified call untyped: a method of this class (`retryAdvice()`,
    // a `@Bean` method) types it by what it returns.
    let type_of = |a: &Expr| match a.peel() {
        Expr::Call(c) if matches!(c.recv.as_ref().map(Expr::peel), None | Some(Expr::This(_))) => {
            let m = *project
                .methods_in_hierarchy(class, &c.name, c.args.len())
                .first()?;
            let k = project.class_of(m);
            Some(project.resolve_type(m.0, Some(k.1 as usize), &project.method(m).ret))
        }
        _ => typer.type_of(a),
    };
    let Expr::Lambda(l) = arg.peel() else {
        return false;
    };
    let mut exprs: Vec<&Expr> = Vec::new();
    match &l.body {
        LambdaBody::Expr(x) => exprs.push(x),
        LambdaBody::Block(b) => {
            for s in b {
                match s {
                    Stmt::Expr(e) | Stmt::Return(Some(e), _) => exprs.push(e),
                    Stmt::Local { init: Some(e), .. } => exprs.push(e),
                    _ => {}
                }
            }
        }
    }
    while let Some(e) = exprs.pop() {
        if let Expr::Call(c) = e {
            if c.name == method
                && c.args.iter().any(|a| {
                    type_of(a).is_some_and(|t| types.iter().any(|x| project.type_is(&t, x)))
                })
            {
                return true;
            }
            exprs.extend(c.recv.iter());
            exprs.extend(c.args.iter());
        }
    }
    false
}

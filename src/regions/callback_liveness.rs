//! Retry callbacks that never fail (SPEC 3.3): a callback whose body swallows every exception,
//! or only calls a method of its class that does, is never run again by its retry.

use super::delegation::delegates_to_never_failing;
use super::liveness::{simple, swallows_in};
use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Expr, Stmt};
use crate::semantic::{MethodId, Project};

/// Does the callback argument `arg` of a retry call (in method `id`, with its locals `defs`)
/// never fail (SPEC 3.3)? A lambda whose block body, or an anonymous class whose callback
/// methods' bodies, swallow every exception: `Exception` or `Throwable`, or `RuntimeException`
/// where the callback type declares no checked exception (`unchecked`).
pub(super) fn callback_never_fails(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    arg: &Expr,
    defs: &crate::semantic::Defs<'_>,
    methods: &[String],
    unchecked: bool,
) -> bool {
    let swallows = |b: &Block| {
        swallows_in(project, cat, id, b)
            .is_some_and(|(caught, _)| unchecked || simple(caught.trim()) != "RuntimeException")
    };
    // A call on `this` whose every target never fails (`ctx -> charge(order)`).
    let delegates = |call: &crate::java::ir::Call| {
        !call.on_super
            && delegates_to_never_failing(project, cat, id, call, &mut vec![id]).is_some()
    };
    match arg.peel() {
        Expr::Lambda(l) => match &l.body {
            crate::java::ir::LambdaBody::Block(b) => {
                swallows(b)
                    || matches!(&b[..], [Stmt::Return(Some(Expr::Call(c)), _) | Stmt::Expr(Expr::Call(c))] if delegates(c))
            }
            crate::java::ir::LambdaBody::Expr(e) => {
                matches!(e.peel(), Expr::Call(c) if delegates(c))
            }
        },
        Expr::New(n) => {
            let run: Vec<_> = (n.anon.iter())
                .filter(|a| methods.is_empty() || methods.contains(&a.name))
                .collect();
            !run.is_empty() && run.iter().all(|a| swallows(&a.body))
        }
        Expr::Name(v, _) => match defs.get(v) {
            Some((_, init)) if matches!(init.peel(), Expr::Lambda(_) | Expr::New(_)) => {
                callback_never_fails(project, cat, id, init, defs, methods, unchecked)
            }
            _ => false,
        },
        _ => false,
    }
}

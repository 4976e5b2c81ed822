//! Hand-written queue consumers (SPEC §3.2, a redelivered message handler): a loop over the
//! messages a queue client received (an enhanced `for`, or a `forEach` lambda) whose body
//! acknowledges its item — SQS `deleteMessage` with
//! the item's receipt handle — after handling it. A message whose handling fails is not
//! acknowledged: once its visibility timeout ends it is received and handled again, so the body
//! of the loop re-runs for it. Which calls acknowledge is the catalogue's `[[regions.ack_loop]]`
//! data.
//!
//! Not a region: a loop that acknowledges every message whatever its handling did — the
//! acknowledgement in a `finally`, or a statement of its own after handling that sits in `try`
//! blocks catching every exception without rethrowing (and logging, and plain declarations).

use super::liveness::{logs, swallowing_try};
use super::{Part, Region};
use crate::catalogue::{AckLoop, Catalogue};
use crate::java::ir::{Block, Call, Expr, LambdaBody, Node, ScopeId, Span, Stmt};
use crate::semantic::Loc;
use crate::semantic::walk::Body;

/// The region an enhanced-for loop `s` of `body` makes, if its body acknowledges its item.
pub fn ack_loop_region(body: &Body<'_>, cat: &Catalogue, s: &Stmt) -> Option<Region> {
    let Stmt::Loop {
        body: b,
        each: Some((_, item, _)),
        scope,
        span,
        ..
    } = s
    else {
        return None;
    };
    handler_region(body, cat, b, item, *scope, *span)
}

/// The region a `forEach` call `c` of `body` makes, if the lambda it runs for each item
/// (`messages.forEach(m -> { handle(m); sqs.deleteMessage(…m.receiptHandle()…); })`)
/// acknowledges its item.
pub fn ack_for_each_region(body: &Body<'_>, cat: &Catalogue, c: &Call) -> Option<Region> {
    if c.name != "forEach" || c.recv.is_none() {
        return None;
    }
    let [Expr::Lambda(l)] = c.args.as_slice() else {
        return None;
    };
    let LambdaBody::Block(b) = &l.body else {
        return None;
    };
    let scope = body.method.scopes.get(l.scope as usize)?;
    let [(item, _)] = scope.params.as_slice() else {
        return None;
    };
    handler_region(body, cat, b, item, l.scope, c.name_span)
}

/// The region of a body `b` run for each received `item`, in scope `scope`, when it
/// acknowledges the item after handling it and a failure can skip the acknowledgement.
fn handler_region(
    body: &Body<'_>,
    cat: &Catalogue,
    b: &Block,
    item: &str,
    scope: ScopeId,
    span: Span,
) -> Option<Region> {
    for row in &cat.regions.ack_loop {
        let Some(k) = b.iter().position(|st| {
            let mut stack = vec![Node::Stmt(st)];
            while let Some(n) = stack.pop() {
                if matches!(n, Node::Expr(Expr::Call(c)) if acks(body, row, item, c)) {
                    return true;
                }
                n.children(&mut stack);
            }
            false
        }) else {
            continue;
        };
        if always_acknowledged(body, cat, row, item, b, k) {
            return None;
        }
        return Some(Region::new(
            &row.label,
            body.method.name.to_string(),
            Loc {
                file: body.id.0,
                span,
            },
            vec![Part::Scopes(body.id, vec![scope])],
            &row.id,
        ));
    }
    None
}

/// Is `c` one of the row's acknowledgements of `item`: a call of one of its methods whose
/// arguments name the item, on a receiver of one of its classes (or, when the receiver's type
/// is not known, with an argument that reads one of the row's accessors of the item)?
fn acks(body: &Body<'_>, row: &AckLoop, item: &str, c: &Call) -> bool {
    if !row.methods.contains(&c.name) || !c.args.iter().any(|a| names(a, item, None)) {
        return false;
    }
    let Some(recv) = &c.recv else { return false };
    match body.with_typer(|t| t.type_of(recv)) {
        Some(t) => row.classes.iter().any(|x| body.project.type_is(&t, x)),
        None => c
            .args
            .iter()
            .any(|a| names(a, item, Some(&row.item_accessors))),
    }
}

/// Does `e` name `item` (with `accessors`: as the receiver of a call of one of them)?
fn names(e: &Expr, item: &str, accessors: Option<&[String]>) -> bool {
    let mut stack = vec![Node::Expr(e)];
    while let Some(n) = stack.pop() {
        match (n, accessors) {
            (Node::Expr(Expr::Name(x, _)), None) if x == item => return true,
            (Node::Expr(Expr::Call(c)), Some(acc))
                if acc.contains(&c.name)
                    && matches!(c.recv.as_ref(), Some(Expr::Name(x, _)) if x == item) =>
            {
                return true;
            }
            _ => n.children(&mut stack),
        }
    }
    false
}

/// Is the item acknowledged whatever its handling did: the acknowledgement (in statement `k` of
/// the loop's body `b`) sits in a `finally`, or is a statement of its own that every failure
/// before it in the body is caught ahead of?
fn always_acknowledged(
    body: &Body<'_>,
    cat: &Catalogue,
    row: &AckLoop,
    item: &str,
    b: &Block,
    k: usize,
) -> bool {
    let st = &b[k];
    if let Stmt::Try {
        finally: Some(f), ..
    } = st
        && Node::all(f).any(|n| matches!(n, Node::Expr(Expr::Call(c)) if acks(body, row, item, c)))
    {
        return true;
    }
    // A catch clause that hands the exception to a method that throws it rethrows it.
    let rethrows = |var: &str, c: &Block| {
        super::failures::Rethrows::new(body.project, cat).through_call(body.id, var, c, 0)
    };
    matches!(st, Stmt::Expr(_) | Stmt::Local { .. })
        && b[..k].iter().all(|s| cannot_escape(s, &rethrows))
}

/// Can no failure of statement `s` leave the loop's body: a `try` with a clause that catches
/// every exception and no clause that throws (itself or through a method it hands the exception
/// to), a logging call, a declaration without a call?
fn cannot_escape(s: &Stmt, rethrows: &dyn Fn(&str, &Block) -> bool) -> bool {
    match s {
        Stmt::Try { .. } => swallowing_try(s, rethrows).is_some(),
        Stmt::Expr(Expr::Call(c)) => logs(c),
        Stmt::Local { init, .. } => init.as_ref().is_none_or(|e| !calls(e)),
        _ => false,
    }
}

/// Does evaluating `e` call anything?
fn calls(e: &Expr) -> bool {
    let mut stack = vec![Node::Expr(e)];
    while let Some(n) = stack.pop() {
        if matches!(n, Node::Expr(Expr::Call(_) | Expr::New(_))) {
            return true;
        }
        n.children(&mut stack);
    }
    false
}

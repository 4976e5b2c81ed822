//! Steps that hand their message on (SPEC 3.2, Apache Camel redelivery): only the failing step
//! re-runs, with the same exchange. A key a processor step sets on the exchange it receives
//! (`exchange.getIn().setHeader("Idempotency-Key", …)`) is sent by a later step (`.to(…)`),
//! which a redelivery re-runs with the header already set: the step that mints it runs again
//! only when it fails itself, before anything was sent. A key the step sends itself (through a
//! client or a producer template) is still the step's own.

use super::Context;
use crate::dataflow::Loc;
use crate::java::ir::{Block, Expr, Node, ScopeId};
use crate::regions::Part;

/// Is the key sink at `sink` a write into the message that step region `i` receives and hands
/// on (its row names `message_accessors`): a call in the step's own code on the step
/// callback's first parameter or a message taken from it (`exchange.getIn()`), in a step that
/// passes neither on to any call?
pub(super) fn holds(cx: &Context, i: usize, sink: &Loc) -> bool {
    let r = &cx.regions[i];
    let Some(accessors) = cx
        .cat
        .regions
        .step
        .iter()
        .find(|row| row.id == r.row && !row.message_accessors.is_empty())
        .map(|row| &row.message_accessors)
    else {
        return false;
    };
    r.parts.iter().any(|p| {
        let (m, scope) = match p {
            Part::Whole(m) => (*m, None),
            Part::Scopes(m, scopes) => (*m, scopes.first().copied()),
        };
        let method = cx.project.method(m);
        let param = match scope {
            None => method.params.first().map(|x| &x.name),
            Some(s) => method
                .scopes
                .get(s as usize)
                .and_then(|s| s.params.first())
                .map(|(n, _)| n),
        };
        let Some(param) = param else {
            return false;
        };
        if m.0 != sink.file {
            return false;
        }
        let Some(body) = method.peek_body() else {
            return false;
        };
        let code = step_code(&body, scope);
        let message = |e: &Expr| is_message(e, param, accessors);
        // The step hands the exchange or its message to a call: it may send it itself.
        let passes_on = code
            .iter()
            .any(|n| matches!(n, Node::Expr(Expr::Call(c)) if c.args.iter().any(&message)));
        !passes_on
            && code.iter().any(|n| match n {
                Node::Expr(Expr::Call(c)) => {
                    c.span.end == sink.span.end
                        && c.span.start <= sink.span.start
                        && c.recv.as_ref().is_some_and(&message)
                }
                _ => false,
            })
    })
}

/// The nodes of a step's own code: the whole method body, or the lambda or anonymous-class
/// method of scope `scope` in it.
fn step_code(body: &Block, scope: Option<ScopeId>) -> Vec<Node<'_>> {
    let Some(s) = scope else {
        return Node::all(body).collect();
    };
    let roots: Vec<Node<'_>> = Node::all(body)
        .find_map(|n| match n {
            Node::Expr(Expr::Lambda(l)) if l.scope == s => Some(vec![n]),
            Node::Expr(Expr::New(x)) => x
                .anon
                .iter()
                .find(|a| a.scope == s)
                .map(|a| a.body.iter().map(Node::Stmt).collect()),
            _ => None,
        })
        .unwrap_or_default();
    Node::from_roots(roots).collect()
}

/// Is `e` the exchange `param` or its message (`exchange.getIn()`, one of `accessors`)?
fn is_message(e: &Expr, param: &str, accessors: &[String]) -> bool {
    match e.peel() {
        Expr::Name(n, _) => n == param,
        Expr::Call(c) => {
            c.args.is_empty()
                && accessors.contains(&c.name)
                && c.recv
                    .as_ref()
                    .is_some_and(|r| matches!(r.peel(), Expr::Name(n, _) if n == param))
        }
        _ => false,
    }
}

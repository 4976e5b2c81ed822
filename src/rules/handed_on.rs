//! Steps that hand their message on (SPEC 3.2, Apache Camel redelivery): only the failing step
//! re-runs, with the same exchange. A key a processor step sets on the exchange it receives
//! (`exchange.getIn().setHeader("Idempotency-Key", …)`) is sent by a later step (`.to(…)`),
//! which a redelivery re-runs with the header already set: the step that mints it runs again
//! only when it fails itself, before anything was sent. A key the step sends itself (through a
//! client or a producer template) is still the step's own.

use super::Context;
use crate::dataflow::Loc;
use crate::java::ir::{Expr, Node};
use crate::regions::Part;

/// Is the key sink at `sink` a write into the message that step region `i` receives and hands
/// on (its row says `hands_on_message`): a call in the step's own code whose receiver is rooted
/// in the step callback's first parameter?
pub(super) fn holds(cx: &Context, i: usize, sink: &Loc) -> bool {
    let r = &cx.regions[i];
    let hands_on = cx
        .cat
        .regions
        .step
        .iter()
        .any(|row| row.id == r.row && row.hands_on_message);
    if !hands_on {
        return false;
    }
    r.parts.iter().any(|p| {
        let (m, param) = match p {
            Part::Whole(m) => (*m, cx.project.method(*m).params.first().map(|x| &x.name)),
            Part::Scopes(m, scopes) => {
                let method = cx.project.method(*m);
                let first = scopes
                    .first()
                    .and_then(|s| method.scopes.get(*s as usize))
                    .and_then(|s| s.params.first())
                    .map(|(n, _)| n);
                (*m, first)
            }
        };
        let Some(param) = param else {
            return false;
        };
        if m.0 != sink.file {
            return false;
        }
        let Some(body) = cx.project.method(m).peek_body() else {
            return false;
        };
        Node::all(&body).any(|n| match n {
            Node::Expr(Expr::Call(c)) => {
                c.span.end == sink.span.end
                    && c.span.start <= sink.span.start
                    && c.recv.as_ref().is_some_and(|x| rooted_in(x, param))
            }
            _ => false,
        })
    })
}

/// Is `e` the name `param`, or a call chain or field read on it (`exchange.getIn()`)?
fn rooted_in(e: &Expr, param: &str) -> bool {
    let mut at = e.peel();
    loop {
        match at {
            Expr::Name(n, _) => return n == param,
            Expr::Call(c) => match &c.recv {
                Some(r) => at = r.peel(),
                None => return false,
            },
            Expr::Field(r, _, _) => at = r.peel(),
            _ => return false,
        }
    }
}

//! A catch clause that hands the message back to the broker (`[[regions.redelivery]]`): RabbitMQ
//! `channel.basicNack(tag, false, true)`, Spring Kafka `ack.nack(…)`, JMS `session.recover()`.
//! The delivery fails as surely as with a rethrow, so a listener whose whole body sits in a
//! `try` that catches everything still runs again when such a clause requests the redelivery
//! (SPEC 3.3). The manual acknowledgement of SQS listeners (`manual_ack` on the row) is the
//! annotation's counterpart.

use crate::catalogue::{Catalogue, Redelivery};
use crate::java::ir::{Block, Call, Expr, Node};
use crate::semantic::{MethodId, Project};

/// Does `block`, code of method `id` (not in its lambdas), call a redelivery of the catalogue?
pub(super) fn requests_redelivery(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    block: &Block,
) -> bool {
    let rows = &cat.regions.redelivery;
    if rows.is_empty() {
        return false;
    }
    let mut stack: Vec<Node<'_>> = block.iter().map(Node::Stmt).collect();
    while let Some(n) = stack.pop() {
        match n {
            Node::Expr(Expr::Lambda(_)) => {}
            Node::Expr(Expr::Call(c)) => {
                if rows.iter().any(|r| redelivers(project, id, r, c)) {
                    return true;
                }
                n.children(&mut stack);
            }
            n => n.children(&mut stack),
        }
    }
    false
}

/// Is `c` a call of row `r` on a receiver declared with one of its types, whose requeue
/// argument (if the row has one and the call passes it) is not written as one of `unless`?
fn redelivers(project: &Project, id: MethodId, r: &Redelivery, c: &Call) -> bool {
    if !r.methods.contains(&c.name) {
        return false;
    }
    let Some(Expr::Name(name, _)) = c.recv.as_ref().map(Expr::peel) else {
        return false;
    };
    let m = project.method(id);
    let class = project.class_of(id);
    let declared = match m.params.iter().find(|p| p.name == *name) {
        Some(p) => Some((id.0, class.1, p.ty.to_string())),
        None => project
            .field(class, name)
            .map(|(k, f)| (k.0, k.1, f.ty.to_string())),
    };
    let Some((file, k, ty)) = declared else {
        return false;
    };
    let t = project.resolve_type(file, Some(k as usize), &ty);
    if !r.types.iter().any(|x| project.type_is(&t, x)) {
        return false;
    }
    match r.arg.and_then(|i| c.args.get(i)) {
        Some(a) => !written_as(a, &r.unless),
        None => true,
    }
}

/// Is `e` written as one of `values` (a literal, or a constant by its dotted name)?
fn written_as(e: &Expr, values: &[String]) -> bool {
    let text = match e.peel() {
        Expr::Lit(s, _) => Some(s.clone()),
        x => x.dotted(),
    };
    text.is_some_and(|t| values.contains(&t))
}

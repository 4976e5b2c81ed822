//! What can make a retried body fail, or keep it from failing, beyond its own statements: a
//! catch clause that hands the caught exception to a method that throws it (a project method
//! with a `throw`, or a library rethrower of `[[regions.rethrow]]`), and the metrics calls of
//! `[[regions.observability]]` that may come before a catch-all `try` like a logging call.

use super::liveness::{DELEGATION_DEPTH, throws_in};
use crate::catalogue::Catalogue;
use crate::java::ir::{Block, Call, Expr, Node, Stmt};
use crate::semantic::{MethodId, Project};

/// Calls that throw the exception they are handed: a library rethrower of the catalogue
/// (`Throwables.throwIfUnchecked(e)`), or a project method with a `throw` in its body, or that
/// hands its parameter on to one ([`DELEGATION_DEPTH`] calls deep).
pub(super) struct Rethrows<'a> {
    project: &'a Project,
    cat: &'a Catalogue,
}

impl<'a> Rethrows<'a> {
    pub(super) fn new(project: &'a Project, cat: &'a Catalogue) -> Self {
        Rethrows { project, cat }
    }

    /// Does `block`, code of method `id`, call something that may throw the exception held in
    /// `var` (the argument is `var` itself)?
    pub(super) fn through_call(
        &self,
        id: MethodId,
        var: &str,
        block: &Block,
        depth: usize,
    ) -> bool {
        // A logging call is handed the exception to print it, never to throw it: only the
        // other calls are resolved (resolving a method's calls is the costly part).
        let calls: Vec<_> = calls_passing(block, var)
            .into_iter()
            .filter(|(c, _)| !super::liveness::logs(c))
            .collect();
        if calls.is_empty() {
            return false;
        }
        if calls.iter().any(|(c, _)| self.library_rethrower(id, c)) {
            return true;
        }
        if depth >= DELEGATION_DEPTH {
            return false;
        }
        let sites = crate::semantic::callgraph::call_sites(self.project, self.cat, id);
        calls.iter().any(|(c, i)| {
            sites
                .iter()
                .filter(|(_, span, _)| *span == c.span)
                .any(|(_, _, target)| self.may_throw(*target, *i, depth + 1))
        })
    }

    /// May project method `m` throw what it is handed as parameter `i`: its body has a `throw`,
    /// or hands that parameter on to a call that may?
    fn may_throw(&self, m: MethodId, i: usize, depth: usize) -> bool {
        let mm = self.project.method(m);
        let Some(body) = mm.peek_body() else {
            return false;
        };
        let body: &Block = &body;
        if throws_in(body) {
            return true;
        }
        mm.params
            .get(i)
            .is_some_and(|p| self.through_call(m, &p.name, body, depth))
    }

    /// Is `c` a static call of one of the catalogue's library rethrowers?
    fn library_rethrower(&self, id: MethodId, c: &Call) -> bool {
        let Some(d) = c.recv.as_ref().and_then(|r| r.dotted()) else {
            return false;
        };
        let rows = &self.cat.regions.rethrow;
        if !rows.iter().any(|r| r.methods.contains(&c.name)) {
            return false;
        }
        let class = self.project.class_of(id);
        let t = self.project.resolve_type(id.0, Some(class.1 as usize), &d);
        rows.iter()
            .any(|r| r.methods.contains(&c.name) && self.project.type_is(&t, &r.class))
    }
}

/// The calls in `block` (not in a lambda or an anonymous class) that take `var` itself as an
/// argument, with its position.
fn calls_passing<'b>(block: &'b Block, var: &str) -> Vec<(&'b Call, usize)> {
    let mut out = Vec::new();
    let mut stack: Vec<Node<'b>> = block.iter().map(Node::Stmt).collect();
    while let Some(n) = stack.pop() {
        match n {
            Node::Expr(Expr::Lambda(_)) => {}
            Node::Expr(Expr::New(x)) => stack.extend(x.args.iter().map(Node::Expr)),
            Node::Expr(Expr::Call(c)) => {
                if let Some(i) = c
                    .args
                    .iter()
                    .position(|a| matches!(a.peel(), Expr::Name(n, _) if n == var))
                {
                    out.push((&**c, i));
                }
                n.children(&mut stack);
            }
            n => n.children(&mut stack),
        }
    }
    out
}

/// A call on an observability object of the catalogue (`meterRegistry.counter(…).increment()`,
/// `requests.increment()`): it records that the work is about to run and does none of it, so
/// like a logging call it may come before the catch-all `try`. The object is a field of the
/// method's class (or of a class it extends) whose declared type is one of
/// `[[regions.observability]]`'s.
pub(super) fn observes(project: &Project, cat: &Catalogue, id: MethodId, s: &Stmt) -> bool {
    let Stmt::Expr(Expr::Call(c)) = s else {
        return false;
    };
    let Some(root) = super::registration::chain_root(c) else {
        return false;
    };
    let m = project.method(id);
    if m.params.iter().any(|p| p.name == root) {
        return false;
    }
    let Some((owner, f)) = project.field(project.class_of(id), &root) else {
        return false;
    };
    let t = project.resolve_type(owner.0, Some(owner.1 as usize), &f.ty);
    cat.regions
        .observability
        .iter()
        .any(|row| row.types.iter().any(|x| project.type_is(&t, x)))
}

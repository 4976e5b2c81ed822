//! The calls that send through a client variable (SPEC 3.2): calls on the variable itself, and
//! calls of project methods the variable is handed to that send through their parameter.

use crate::catalogue::Catalogue;
use crate::java::ir::{Call, Expr, ScopeId, Span};
use crate::semantic::walk::{Body, Visitor, walk};
use crate::semantic::{MethodId, Project};

/// The scopes of a method's calls on a client variable, other than its registrations.
pub(super) struct SendCalls<'a> {
    pub(super) cat: &'a Catalogue,
    pub(super) var: &'a str,
    pub(super) field: bool,
    pub(super) skip: &'a [String],
    /// The scope and span of each send.
    pub(super) scopes: Vec<(ScopeId, Span)>,
}

/// How many project methods deep a client handed on as an argument is followed
/// (`execute(client, request)` whose body calls `client.newCall(…)`).
const HANDED_ON_DEPTH: usize = 2;

impl SendCalls<'_> {
    /// Is `e` the holder (in a body with these locals and parameters)?
    fn is_var(&self, body: &Body<'_>, e: &Expr) -> bool {
        let shadowed =
            |n: &str| body.defs.contains_key(n) || body.method.params.iter().any(|p| p.name == n);
        match e.peel() {
            Expr::Name(n, _) => n == self.var && (!self.field || !shadowed(n)),
            Expr::Field(r, n, _) => {
                self.field && n == self.var && matches!(r.peel(), Expr::This(_))
            }
            _ => false,
        }
    }

    /// Does a project method that call `c` may run send through the parameter the holder is
    /// passed to (`depth` more methods deep at most)?
    fn sends_through_param(&self, body: &Body<'_>, c: &Call, depth: usize) -> bool {
        let Some(i) = c.args.iter().position(|a| self.is_var(body, a)) else {
            return false;
        };
        let project = body.project;
        let recv = match c.recv.as_ref() {
            None | Some(Expr::This(_)) => None,
            Some(r) if body.is_type_name(r) => {
                Some(body.with_typer(|t| r.dotted().map(|d| t.resolve(&d))))
            }
            Some(r) => Some(body.with_typer(|t| t.type_of(r))),
        };
        let targets = project.resolve_call(project.class_of(body.id), c, recv);
        targets.into_iter().any(|t| {
            let m = project.method(t);
            let Some(p) = m.params.get(i).filter(|_| m.has_body()) else {
                return false;
            };
            let mut inner = SendCalls {
                cat: self.cat,
                var: &p.name,
                field: false,
                skip: self.skip,
                scopes: Vec::new(),
            };
            inner.walk_at(project, t, depth);
            !inner.scopes.is_empty()
        })
    }

    /// Walks method `id`, following the holder into the methods it is passed to, `depth` deep.
    fn walk_at(&mut self, project: &Project, id: MethodId, depth: usize) {
        let mut v = Depth { inner: self, depth };
        walk(project, v.inner.cat, id, &mut v);
    }
}

/// [`SendCalls`] with how deep it may still follow the holder into called methods.
struct Depth<'s, 'a> {
    inner: &'s mut SendCalls<'a>,
    depth: usize,
}

impl<'p> Visitor<'p> for Depth<'_, '_> {
    fn call(&mut self, body: &Body<'p>, c: &'p Call, _recv_is_type: bool) {
        if self.inner.skip.contains(&c.name) {
            return;
        }
        let on_var = c.recv.as_ref().is_some_and(|r| self.inner.is_var(body, r));
        if on_var || self.depth > 0 && self.inner.sends_through_param(body, c, self.depth - 1) {
            self.inner.scopes.push((c.scope, c.span));
        }
    }
}

impl<'p> Visitor<'p> for SendCalls<'_> {
    fn call(&mut self, body: &Body<'p>, c: &'p Call, recv_is_type: bool) {
        Depth {
            inner: self,
            depth: HANDED_ON_DEPTH,
        }
        .call(body, c, recv_is_type);
    }
}

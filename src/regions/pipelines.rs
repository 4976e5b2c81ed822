//! Lazy pipelines (Reactor, RxJava, …): the deferred code upstream of a retry operator.

use super::Part;
use super::calls::{callback_parts, class_callbacks};
use crate::catalogue::{Catalogue, PipelineRegion};
use crate::java::ir::{Block, Call, Expr, Span, Stmt};
use crate::semantic::{
    Declared, Defs, Locals, MethodId, Project, TypeRef, Typer, collect_defs, method_ref_targets,
};

pub(super) fn collect_returns<'a>(b: &'a Block, out: &mut Vec<&'a Expr>) {
    for s in b {
        match s {
            Stmt::Return(Some(e), _) => out.push(e),
            Stmt::If { then, els, .. } => {
                collect_returns(then, out);
                if let Some(e) = els {
                    collect_returns(e, out);
                }
            }
            Stmt::Block(x) | Stmt::Loop { body: x, .. } => collect_returns(x, out),
            Stmt::Try { body, catches, .. } => {
                collect_returns(body, out);
                for (_, c) in catches {
                    collect_returns(c, out);
                }
            }
            _ => {}
        }
    }
}

const MAX_UPSTREAM_DEPTH: usize = 16;

/// The deferred code upstream of a lazy pipeline's retry operator.
pub struct Upstream<'p> {
    pub project: &'p Project,
    pub cat: &'p Catalogue,
    pub row: &'p PipelineRegion,
    /// The calls of the assembled chain made on a variable (a client's `webClient.post()`),
    /// found while the upstream is followed.
    pub chain: std::cell::RefCell<Vec<(MethodId, Span)>>,
    /// The method references written as deferred arguments, found on the way.
    pub refs: std::cell::RefCell<Vec<(MethodId, Span)>>,
}

/// What a syntactic pass knows about a method's locals: its initialised locals (declared
/// types only, so a `var` stays untyped) and its parameters.
struct BodyLocals<'a, 'd> {
    project: &'a Project,
    id: MethodId,
    defs: &'a Defs<'d>,
}

impl Locals for BodyLocals<'_, '_> {
    fn local(&self, name: &str) -> Option<Declared<'_>> {
        if let Some((ty, _)) = self.defs.get(name) {
            return Some(Declared {
                ty,
                init: None,
                assigned: true,
            });
        }
        let p = self
            .project
            .method(self.id)
            .params
            .iter()
            .find(|p| p.name == name)?;
        Some(Declared {
            ty: &p.ty,
            init: None,
            assigned: true,
        })
    }
}

impl<'p> Upstream<'p> {
    pub fn new(project: &'p Project, cat: &'p Catalogue, row: &'p PipelineRegion) -> Self {
        Upstream {
            project,
            cat,
            row,
            chain: Default::default(),
            refs: Default::default(),
        }
    }

    /// What was found, with `parts`.
    pub fn found(self, mut parts: Vec<Part>) -> Found {
        let sorted = |mut v: Vec<(MethodId, Span)>| {
            v.sort();
            v.dedup();
            v
        };
        parts.sort();
        parts.dedup();
        Found {
            parts,
            sends_at: sorted(self.chain.into_inner()),
            refs: sorted(self.refs.into_inner()),
        }
    }

    fn with_typer<R>(
        &self,
        id: MethodId,
        defs: &Defs,
        f: impl FnOnce(&Typer<'_, '_, BodyLocals<'_, '_>>) -> R,
    ) -> R {
        let locals = BodyLocals {
            project: self.project,
            id,
            defs,
        };
        f(&Typer {
            project: self.project,
            factories: self.cat,
            class: self.project.class_of(id),
            locals: &locals,
        })
    }

    /// A type name: not a local, parameter or field, and capitalised at its root.
    fn is_type_name(&self, id: MethodId, defs: &Defs, e: &Expr) -> bool {
        let mut root = e;
        while let Expr::Field(r, _, _) = root {
            root = r;
        }
        matches!(root, Expr::Name(n, _) if n.chars().next().is_some_and(|c| c.is_uppercase()))
            && self.with_typer(id, defs, |t| t.is_type_name(e))
    }

    fn resolve(&self, id: MethodId, written: &str) -> TypeRef {
        let class = self.project.class_of(id);
        self.project
            .resolve_type(id.0, Some(class.1 as usize), written)
    }

    fn is_row_type(&self, t: &TypeRef) -> bool {
        self.row.types.iter().any(|x| self.project.type_is(t, x))
    }

    fn returns_pipeline(&self, m: MethodId) -> bool {
        let mm = self.project.method(m);
        let t = self.project.resolve_type(m.0, Some(mm.class), &mm.ret);
        self.is_row_type(&t)
    }

    fn call_targets(&self, id: MethodId, defs: &Defs, c: &Call) -> Vec<MethodId> {
        let mut v = self.project_targets(id, defs, c);
        v.retain(|m| self.returns_pipeline(*m));
        v
    }

    /// The project methods call `c` of method `id` may run.
    fn project_targets(&self, id: MethodId, defs: &Defs, c: &Call) -> Vec<MethodId> {
        let class = self.project.class_of(id);
        let recv = match &c.recv {
            None | Some(Expr::This(_)) => None,
            Some(r) if self.is_type_name(id, defs, r) => {
                Some(r.dotted().map(|d| self.resolve(id, &d)))
            }
            Some(r) => Some(self.type_of(id, defs, r)),
        };
        self.project.resolve_call(class, c, recv)
    }

    /// The type of a local, parameter or field name (other expressions are not typed here).
    fn type_of(&self, id: MethodId, defs: &Defs, e: &Expr) -> Option<TypeRef> {
        match e.peel() {
            Expr::Name(n, _) => self.with_typer(id, defs, |t| t.type_of_name(n, 0)),
            _ => None,
        }
    }

    /// Is `e` a chain of this pipeline's type? `None` when its root cannot be told.
    pub fn is_pipeline(&self, id: MethodId, defs: &Defs, e: &Expr, depth: usize) -> Option<bool> {
        if depth > MAX_UPSTREAM_DEPTH {
            return None;
        }
        match e.peel() {
            Expr::Call(c) => {
                if let Some(r) = &c.recv
                    && self.is_type_name(id, defs, r)
                {
                    let t = self.resolve(id, &r.dotted()?);
                    return Some(
                        self.is_row_type(&t)
                            || self.row.factories.iter().any(|f| {
                                f.methods.contains(&c.name) && self.project.type_is(&t, &f.class)
                            }),
                    );
                }
                if !self.call_targets(id, defs, c).is_empty()
                    || self.row.chain_methods.contains(&c.name)
                {
                    return Some(true);
                }
                match &c.recv {
                    Some(r) if !matches!(r, Expr::This(_)) => {
                        self.is_pipeline(id, defs, r, depth + 1)
                    }
                    _ => None,
                }
            }
            Expr::Name(n, _) => {
                if let Some(t) = self.type_of(id, defs, e) {
                    return Some(self.is_row_type(&t));
                }
                let (_, init) = defs.get(n)?;
                self.is_pipeline(id, defs, init, depth + 1)
            }
            _ => None,
        }
    }

    /// Does the file import one of the pipeline's types (for chains whose root is unknown)?
    pub fn file_uses_types(&self, file: u32) -> bool {
        self.project.files[file as usize]
            .facts
            .imports
            .iter()
            .any(|i| {
                self.row.types.iter().any(|t| {
                    *t == i.path
                        || (i.wildcard && t.rsplit_once('.').map(|x| x.0) == Some(i.path.as_str()))
                })
            })
    }

    pub fn upstream(&self, id: MethodId, defs: &Defs, e: &Expr, depth: usize, out: &mut Vec<Part>) {
        if depth > MAX_UPSTREAM_DEPTH {
            return;
        }
        match e.peel() {
            Expr::Call(c) => {
                if let Some(r @ (Expr::Name(..) | Expr::Field(..))) =
                    c.recv.as_ref().map(Expr::peel)
                    && !self.is_type_name(id, defs, r)
                {
                    self.chain.borrow_mut().push((id, c.span));
                }
                for (i, a) in c.args.iter().enumerate() {
                    self.deferred_arg(id, defs, c, i, a, depth, out);
                }
                if let Some(r) = &c.recv
                    && !self.is_type_name(id, defs, r)
                    && !matches!(r, Expr::This(_))
                {
                    self.upstream(id, defs, r, depth + 1, out);
                }
                for t in self.call_targets(id, defs, c) {
                    self.upstream_of_method(t, depth + 1, out);
                }
            }
            Expr::Name(n, _) => {
                if let Some((_, init)) = defs.get(n) {
                    self.upstream(id, defs, init, depth + 1, out);
                }
            }
            Expr::Ternary(_, a, b, _) => {
                self.upstream(id, defs, a, depth + 1, out);
                self.upstream(id, defs, b, depth + 1, out);
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn deferred_arg(
        &self,
        id: MethodId,
        defs: &Defs,
        c: &Call,
        i: usize,
        a: &Expr,
        depth: usize,
        out: &mut Vec<Part>,
    ) {
        if self
            .row
            .eager
            .iter()
            .any(|x| x.method == c.name && x.args.contains(&i))
        {
            return;
        }
        if let Some(o) = self.row.objects.iter().find(|o| o.method == c.name) {
            self.object_parts(id, defs, a, &o.calls, depth + 1, out);
            return;
        }
        match a.peel() {
            Expr::Lambda(l) => out.push(Part::Scopes(id, vec![l.scope])),
            Expr::New(n) if !n.anon.is_empty() => {
                out.push(Part::Scopes(id, n.anon.iter().map(|x| x.scope).collect()))
            }
            Expr::MethodRef(r) => {
                self.refs.borrow_mut().push((id, r.span));
                let class = self.project.class_of(id);
                let targets = method_ref_targets(
                    self.project,
                    class,
                    r,
                    |e| self.type_of(id, defs, e),
                    |e| self.is_type_name(id, defs, e),
                );
                out.extend(targets.into_iter().map(Part::Whole));
            }
            Expr::Call(_) | Expr::Name(..)
                if self.is_pipeline(id, defs, a, depth + 1) == Some(true) =>
            {
                self.upstream(id, defs, a, depth + 1, out);
            }
            _ => {}
        }
    }

    /// The code an object handed to the pipeline runs when the pipeline does (a chunk step's
    /// writer bean: its `write`): a lambda, an anonymous class or a method reference written
    /// there; else the methods `calls` of the object's project class, whether the object is a
    /// parameter or field of that type (an injected bean), a local, or made by a project
    /// method (a `@Bean` method of the configuration) whose returns are followed.
    fn object_parts(
        &self,
        id: MethodId,
        defs: &Defs,
        e: &Expr,
        calls: &[String],
        depth: usize,
        out: &mut Vec<Part>,
    ) {
        if depth > MAX_UPSTREAM_DEPTH {
            return;
        }
        let parts = callback_parts(
            self.project,
            id,
            e,
            calls,
            defs,
            &|x| self.type_of(id, defs, x),
            &|x| self.is_type_name(id, defs, x),
        );
        if !parts.is_empty() {
            out.extend(parts);
            return;
        }
        let ty = match e.peel() {
            Expr::New(n) => Some(self.resolve(id, &n.ty)),
            x => self.with_typer(id, defs, |t| t.type_of(x)),
        };
        if let Some(TypeRef::Project(k)) = ty {
            let found = class_callbacks(self.project, k, calls);
            if !found.is_empty() {
                out.extend(found);
                return;
            }
        }
        match e.peel() {
            Expr::Name(n, _) => {
                if let Some((_, init)) = defs.get(n) {
                    self.object_parts(id, defs, init, calls, depth + 1, out);
                }
            }
            Expr::Call(c) => {
                for m in self.project_targets(id, defs, c) {
                    each_return(self.project, m, &mut |inner, r| {
                        self.object_parts(m, inner, r, calls, depth + 1, out)
                    });
                }
            }
            _ => {}
        }
    }

    fn upstream_of_method(&self, m: MethodId, depth: usize, out: &mut Vec<Part>) {
        each_return(self.project, m, &mut |defs, r| {
            self.upstream(m, defs, r, depth + 1, out)
        });
    }
}

/// The deferred parts of the pipeline method `m` returns, when its declared return type is one
/// of a pipeline row's types, with the chain's calls on variables (a client sending on every
/// subscription): what a framework that re-subscribes the returned pipeline runs again.
pub(super) fn returned_upstream(project: &Project, cat: &Catalogue, m: MethodId) -> Option<Found> {
    let row = cat
        .regions
        .pipeline
        .iter()
        .find(|row| Upstream::new(project, cat, row).returns_pipeline(m))?;
    let up = Upstream::new(project, cat, row);
    let mut parts = Vec::new();
    up.upstream_of_method(m, 0, &mut parts);
    Some(up.found(parts))
}

/// A pipeline's deferred upstream: its parts, the chain's calls on variables, the deferred
/// method references (each sorted, without repeats).
pub struct Found {
    pub parts: Vec<Part>,
    pub sends_at: Vec<(MethodId, Span)>,
    pub refs: Vec<(MethodId, Span)>,
}

/// Runs `f` on each expression project method `m` returns, with the method's locals.
pub(super) fn each_return(project: &Project, m: MethodId, f: &mut dyn FnMut(&Defs, &Expr)) {
    let Some(body) = project.method(m).body() else {
        return;
    };
    let mut defs = Defs::new();
    collect_defs(body, &mut defs);
    let mut rets = Vec::new();
    collect_returns(body, &mut rets);
    for r in rets {
        f(&defs, r);
    }
}

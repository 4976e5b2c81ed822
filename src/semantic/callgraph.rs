//! The call graph: for a method, the project methods its code calls, resolved as javac would
//! (SPEC-style static receiver types; see [`Project::resolve_call`]), with the scope of each
//! call site. Calls, method references and object creations count, in lambda and anonymous
//! class bodies too (they are scopes of the method that writes them).
//!
//! Edges are computed only for the methods reached from given roots, in parallel, once each.

use super::walk::{Body, Visitor, walk};
use super::{Factories, MethodId, Project, method_ref_targets};
use crate::java::ir::*;
use std::collections::{BTreeSet, HashMap};

/// The project methods called by method `id`, each with the scope of its call site; sorted,
/// without duplicates.
pub fn callees(
    project: &Project,
    factories: &dyn Factories,
    id: MethodId,
) -> Vec<(ScopeId, MethodId)> {
    let mut v = Edges(Vec::new(), true);
    walk(project, factories, id, &mut v);
    let mut out: Vec<(ScopeId, MethodId)> =
        v.0.into_iter().map(|(scope, _, m)| (scope, m)).collect();
    out.sort();
    out.dedup();
    out
}

/// Every call, method reference and `new` of method `id` that may run a project method: its
/// scope, its span and the method, in evaluation order (a finding's call path is shown at these
/// sites).
pub fn call_sites(
    project: &Project,
    factories: &dyn Factories,
    id: MethodId,
) -> Vec<(ScopeId, Span, MethodId)> {
    let mut v = Edges(Vec::new(), false);
    walk(project, factories, id, &mut v);
    v.0
}

/// The scope of a dependency of a method on another that it does not run: it reads the other's
/// summary (the writers of a function held in a field, [`super::Held`]), which must be made
/// first. The call graph keeps these edges apart from the calls ([`CallGraph::edges`]).
pub const DEPENDENCY: ScopeId = ScopeId::MAX;

/// The edges of a walk; with the dependencies of its held-function calls when `.1`.
struct Edges(Vec<(ScopeId, Span, MethodId)>, bool);

impl<'p> Visitor<'p> for Edges {
    fn call(&mut self, body: &Body<'p>, c: &'p Call, recv_is_type: bool) {
        let project = body.project;
        let recv = match &c.recv {
            None | Some(Expr::This(_)) => None,
            Some(r) if recv_is_type => Some(r.dotted().map(|d| body.with_typer(|t| t.resolve(&d)))),
            Some(r) => Some(body.with_typer(|t| t.type_of(r))),
        };
        // A generated builder's `build()` runs the initializers of the defaults it gives.
        if c.name == "build"
            && c.args.is_empty()
            && let Some(Some(t)) = &recv
        {
            for k in body.with_typer(|ty| ty.built_classes(t)) {
                if let Some(init) = project.class(k).initializer {
                    self.0.push((c.scope, c.span, (k.0, init as u32)));
                }
            }
        }
        let class = project.class_of(body.id);
        let targets = project.resolve_call(class, c, recv);
        for m in body.with_typer(|t| t.narrowed(c, targets)) {
            self.0.push((c.scope, c.span, m));
        }
        if self.1
            && let Some(h) = body.with_typer(|t| t.held_function(c))
        {
            for m in h.writers.into_iter().chain(h.beans) {
                self.0.push((DEPENDENCY, c.span, m));
            }
        }
    }

    fn method_ref(&mut self, body: &Body<'p>, m: &'p MethodRef) {
        let class = body.project.class_of(body.id);
        let targets = body.with_typer(|t| {
            method_ref_targets(
                body.project,
                class,
                m,
                |e| t.type_of(e),
                |e| t.is_type_name(e),
            )
        });
        for x in targets {
            self.0.push((m.scope, m.span, x));
        }
    }

    fn new_object(&mut self, body: &Body<'p>, n: &'p New) {
        let project = body.project;
        let ty = body.with_typer(|t| t.resolve(&n.ty));
        if let super::TypeRef::Project(k) = ty {
            for m in project.construction(k, n.args.len()) {
                self.0.push((n.scope, n.span, m));
            }
        }
    }
}

/// Gives the edges out of a method, as [`callees`] does (from a cache, or computed).
pub type CalleesOf<'a> = &'a (dyn Fn(&Project, MethodId) -> Vec<(ScopeId, MethodId)> + Sync);

/// The call graph among the methods reached from some roots.
#[derive(Debug, Default)]
pub struct CallGraph {
    edges: HashMap<MethodId, Vec<(ScopeId, MethodId)>>,
}

impl CallGraph {
    /// The graph of every method reached from `roots` (the roots included), each method's
    /// edges computed once.
    pub fn reached_from(
        project: &mut Project,
        factories: &dyn Factories,
        roots: impl IntoIterator<Item = MethodId>,
    ) -> CallGraph {
        CallGraph::reached_with(project, roots, &|p, id| callees(p, factories, id))
    }

    /// [`CallGraph::reached_from`] with the edges out of each method given by `callees_of`
    /// (which gives what [`callees`] gives: from a cache, or computed).
    pub fn reached_with(
        project: &mut Project,
        roots: impl IntoIterator<Item = MethodId>,
        callees_of: CalleesOf,
    ) -> CallGraph {
        let mut seen: BTreeSet<MethodId> = BTreeSet::new();
        let mut frontier: Vec<MethodId> = roots.into_iter().filter(|m| seen.insert(*m)).collect();
        let mut edges = HashMap::new();
        while !frontier.is_empty() {
            let found: Vec<(MethodId, Vec<(ScopeId, MethodId)>)> =
                project.map_in_batches(&frontier, |p, id| (id, callees_of(p, id)));
            frontier.clear();
            for (id, out) in found {
                for (_, c) in &out {
                    if seen.insert(*c) {
                        frontier.push(*c);
                    }
                }
                edges.insert(id, out);
            }
            frontier.sort();
        }
        CallGraph { edges }
    }

    /// The methods of the graph, sorted.
    pub fn methods(&self) -> Vec<MethodId> {
        let mut v: Vec<MethodId> = self.edges.keys().copied().collect();
        v.sort();
        v
    }

    /// The calls of `m` (scope of the call site, callee), sorted; none for a method outside
    /// the graph. Its [`DEPENDENCY`] edges are not calls.
    pub fn edges(&self, m: MethodId) -> &[(ScopeId, MethodId)] {
        let all = self.edges.get(&m).map(Vec::as_slice).unwrap_or(&[]);
        &all[..all.partition_point(|(s, _)| *s != DEPENDENCY)]
    }

    /// Is `callee` called from scope `scope` of `caller`?
    pub fn has_edge(&self, caller: MethodId, scope: ScopeId, callee: MethodId) -> bool {
        self.edges(caller).binary_search(&(scope, callee)).is_ok()
    }

    /// Each method's callees, without scopes (the shape summaries are scheduled over).
    pub fn callee_lists(&self) -> HashMap<MethodId, Vec<MethodId>> {
        self.edges
            .iter()
            .map(|(m, out)| {
                let mut v: Vec<MethodId> = out.iter().map(|(_, c)| *c).collect();
                v.sort();
                v.dedup();
                (*m, v)
            })
            .collect()
    }
}

//! Regions made by calls: callbacks handed to a retrying call (`RetryTemplate.execute(cb)`),
//! lazy pipelines upstream of a retry operator, and hand-written retry loops.
//!
//! A pass of its own over a method body, in the data-flow interpreter's evaluation order, so
//! that a local is typed from the declarations seen so far, as the interpreter types it.

use super::pipelines::Upstream;
use super::retry_loops::is_retry_loop;
use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::java::ir::*;
use crate::semantic::{
    DeclaredSoFar, Defs, Loc, MethodId, Project, Typer, collect_defs, method_ref_targets,
};
use std::collections::HashMap;

/// Passes the interpreter makes over a loop body that are not all alike: the first sees the
/// locals declared before the loop, the others also those declared in the body.
const LOOP_PASSES: usize = 2;

/// The callback, pipeline and retry-loop regions made by the calls and loops of method `id`.
pub fn call_regions(project: &Project, cat: &Catalogue, id: MethodId) -> Vec<Region> {
    let method = project.method(id);
    let mut defs = Defs::new();
    if let Some(b) = &method.body {
        collect_defs(b, &mut defs);
    }
    let mut w = Walk {
        project,
        cat,
        id,
        method,
        defs,
        types: method
            .params
            .iter()
            .map(|p| (p.name.clone(), p.ty.clone()))
            .collect(),
        out: Vec::new(),
    };
    if let Some(b) = &method.body {
        w.block(b);
    }
    w.out
}

struct Walk<'p> {
    project: &'p Project,
    cat: &'p Catalogue,
    id: MethodId,
    method: &'p Method,
    defs: Defs<'p>,
    /// Locals declared so far (never forgotten, as in the interpreter).
    types: HashMap<String, String>,
    out: Vec<Region>,
}

impl<'p> Walk<'p> {
    fn with_typer<R>(&self, f: impl FnOnce(&Typer<'_, '_, DeclaredSoFar<'_, '_>>) -> R) -> R {
        let locals = DeclaredSoFar {
            types: &self.types,
            defs: &self.defs,
        };
        f(&Typer {
            project: self.project,
            factories: self.cat,
            class: self.project.class_of(self.id),
            locals: &locals,
        })
    }

    fn is_type_name(&self, e: &Expr) -> bool {
        self.with_typer(|t| t.is_type_name(e))
    }

    fn declare(&mut self, name: &str, ty: &str) {
        self.types.insert(name.to_string(), ty.to_string());
    }

    fn block(&mut self, b: &'p Block) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'p Stmt) {
        match s {
            Stmt::Local { ty, name, init, .. } => {
                self.declare(name, ty);
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            Stmt::Expr(e) | Stmt::Throw(e) | Stmt::Return(Some(e), _) => self.expr(e),
            Stmt::If { cond, then, els } => {
                self.expr(cond);
                self.block(then);
                if let Some(e) = els {
                    self.block(e);
                }
            }
            Stmt::Loop {
                head,
                cond,
                update,
                body,
                each,
                scope,
                span,
            } => {
                self.block(head);
                if each.is_none() && is_retry_loop(body) {
                    self.out.push(Region {
                        label: "retry loop".into(),
                        owner: self.method.name.clone(),
                        loc: Loc {
                            file: self.id.0,
                            span: *span,
                        },
                        scheduler: false,
                        parts: vec![Part::Scopes(self.id, vec![*scope])],
                        row: String::new(),
                    });
                }
                if let Some((ty, name, coll)) = each {
                    self.expr(coll);
                    self.declare(name, ty);
                }
                for _ in 0..LOOP_PASSES {
                    if let Some(c) = cond {
                        self.expr(c);
                    }
                    self.block(body);
                    for u in update {
                        self.expr(u);
                    }
                }
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                self.block(resources);
                self.block(body);
                for (_, c) in catches {
                    self.block(c);
                }
                if let Some(f) = finally {
                    self.block(f);
                }
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Return(None, _) | Stmt::Jump | Stmt::Break | Stmt::Continue => {}
        }
    }

    /// The scope's parameters are declared where a lambda or anonymous method is created.
    fn declare_scope(&mut self, scope: ScopeId) {
        let method = self.method;
        for (n, ty) in &method.scopes[scope as usize].params {
            self.declare(n, ty.as_deref().unwrap_or_default());
        }
    }

    fn expr(&mut self, e: &'p Expr) {
        match e {
            Expr::Call(c) => {
                if let Some(r) = &c.recv
                    && !self.is_type_name(r)
                {
                    self.expr(r);
                }
                for a in &c.args {
                    self.expr(a);
                }
                self.regions_at(c);
            }
            Expr::New(n) => {
                for a in &n.args {
                    self.expr(a);
                }
                for a in &n.anon {
                    self.declare_scope(a.scope);
                    self.block(&a.body);
                }
            }
            Expr::Field(r, _, _) => {
                if !matches!(**r, Expr::This(_)) && !self.is_type_name(r) {
                    self.expr(r);
                }
            }
            Expr::Lambda(l) => {
                self.declare_scope(l.scope);
                match &l.body {
                    LambdaBody::Expr(x) => self.expr(x),
                    LambdaBody::Block(b) => self.block(b),
                }
            }
            Expr::Assign(a) => self.expr(&a.value),
            Expr::Ternary(c, a, b, _) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            Expr::Binary(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Not(x, _) | Expr::Cast(_, x, _) => self.expr(x),
            Expr::Op(xs, _) => {
                for x in xs {
                    self.expr(x);
                }
            }
            Expr::Switch(s, arms, _) => {
                self.expr(s);
                for a in arms {
                    self.block(a);
                }
            }
            Expr::Name(..)
            | Expr::MethodRef(_)
            | Expr::This(_)
            | Expr::Str(..)
            | Expr::Lit(..)
            | Expr::Null(_)
            | Expr::Opaque(_) => {}
        }
    }

    /// A callback or pipeline region made by this call.
    fn regions_at(&mut self, c: &Call) {
        let cat = self.cat;
        for row in &cat.regions.callback {
            if !row.methods.contains(&c.name) || c.args.len() < row.min_args {
                continue;
            }
            if let Some(parts) = self.callback_region(row, c) {
                self.out.push(Region {
                    label: row.label.clone(),
                    owner: self.method.name.clone(),
                    loc: Loc {
                        file: self.id.0,
                        span: c.name_span,
                    },
                    scheduler: row.scheduler,
                    parts,
                    row: row.id.clone(),
                });
            }
        }
        for row in &cat.regions.pipeline {
            let Some(r) = &c.recv else { continue };
            if !row.operators.contains(&c.name) {
                continue;
            }
            let up = Upstream {
                project: self.project,
                cat,
                row,
            };
            let is = up
                .is_pipeline(self.id, &self.defs, r, 0)
                .unwrap_or_else(|| up.file_uses_types(self.id.0));
            if !is {
                continue;
            }
            let mut parts = Vec::new();
            up.upstream(self.id, &self.defs, r, 0, &mut parts);
            parts.sort();
            parts.dedup();
            if !parts.is_empty() {
                self.out.push(Region {
                    label: row.label.clone(),
                    owner: self.method.name.clone(),
                    loc: Loc {
                        file: self.id.0,
                        span: c.name_span,
                    },
                    scheduler: false,
                    parts,
                    row: row.id.clone(),
                });
            }
        }
    }

    /// The code a callback row's call runs again, if the call matches the row.
    fn callback_region(
        &self,
        row: &crate::catalogue::CallbackRegion,
        c: &Call,
    ) -> Option<Vec<Part>> {
        self.with_typer(|typer| {
            let project = self.project;
            if let Some(w) = &row.when_arg {
                let typed = c
                    .args
                    .get(w.index)
                    .and_then(|a| typer.type_of(a))
                    .is_some_and(|t| w.types.iter().any(|x| project.type_is(&t, x)));
                if !typed {
                    return None;
                }
            }
            let ok = row.receiver_types.iter().any(|t| t == "*")
                || c.recv.as_ref().is_some_and(|r| {
                    let t = if typer.is_type_name(r) {
                        r.dotted().map(|d| typer.resolve(&d))
                    } else {
                        typer.type_of(r)
                    };
                    match t {
                        Some(t) if t.is_known() => {
                            row.receiver_types.iter().any(|x| project.type_is(&t, x))
                        }
                        _ => {
                            row.receiver_types
                                .iter()
                                .any(|x| t.as_ref().is_some_and(|t| project.type_is(t, x)))
                                || row.receiver_name_contains.as_ref().is_some_and(|needle| {
                                    receiver_name(r).to_lowercase().contains(needle.as_str())
                                })
                        }
                    }
                });
            let idx = if row.callback_arg < 0 {
                c.args.len() as i32 + row.callback_arg
            } else {
                row.callback_arg
            };
            let arg = usize::try_from(idx).ok().and_then(|i| c.args.get(i))?;
            if !ok {
                return None;
            }
            let parts = callback_parts(
                project,
                self.id,
                arg,
                &row.callback_methods,
                &self.defs,
                &|e| typer.type_of(e),
                &|e| typer.is_type_name(e),
            );
            (!parts.is_empty()).then_some(parts)
        })
    }
}

/// A short name for a receiver: `retryTemplate`, `this.retry`, `template()`.
fn receiver_name(e: &Expr) -> String {
    match e.peel() {
        Expr::Name(n, _) => n.clone(),
        Expr::Field(_, n, _) => n.clone(),
        Expr::Call(c) => c.name.clone(),
        _ => String::new(),
    }
}

/// Lambda/anonymous/method-reference code of a callback argument.
fn callback_parts(
    project: &Project,
    id: MethodId,
    arg: &Expr,
    methods: &[String],
    defs: &Defs,
    type_of: &dyn Fn(&Expr) -> Option<crate::semantic::TypeRef>,
    is_type_name: &dyn Fn(&Expr) -> bool,
) -> Vec<Part> {
    let class = project.class_of(id);
    match arg.peel() {
        Expr::Lambda(l) => vec![Part::Scopes(id, vec![l.scope])],
        Expr::New(n) => {
            let scopes: Vec<ScopeId> = n
                .anon
                .iter()
                .filter(|a| methods.is_empty() || methods.contains(&a.name))
                .map(|a| a.scope)
                .collect();
            if scopes.is_empty() {
                Vec::new()
            } else {
                vec![Part::Scopes(id, scopes)]
            }
        }
        Expr::MethodRef(r) => method_ref_targets(project, class, r, type_of, is_type_name)
            .into_iter()
            .map(Part::Whole)
            .collect(),
        Expr::Name(n, _) => match defs.get(n) {
            Some((_, init)) if !matches!(init.peel(), Expr::Name(..)) => {
                callback_parts(project, id, init, methods, defs, type_of, is_type_name)
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

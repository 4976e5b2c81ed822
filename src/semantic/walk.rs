//! The one typed walk of a method body, shared by the call graph and the call-made regions.
//!
//! It visits statements and expressions in the data-flow interpreter's evaluation order, and
//! types a local from the declarations in scope, as the interpreter does: parameters first,
//! then each local where it is declared, a for-each variable after its collection, a lambda's
//! or anonymous method's parameters where it is created, a catch parameter where its block
//! starts. A declaration lasts until its block ends, as in javac ([`LocalTypes`]): after
//! `if (legacy) { OrderKeys keys = …; }` the name `keys` is the field again. A loop body is
//! walked [`LOOP_PASSES`] times.

use super::{DeclaredSoFar, Defs, Factories, LocalTypes, MethodId, Project, Typer, collect_defs};
use crate::java::ir::*;

/// Passes over a loop body, as the interpreter makes them (the second sees what the first
/// assigned).
pub const LOOP_PASSES: usize = 2;

/// What a visitor is told at each site: the method and the locals in scope.
pub struct Body<'p> {
    pub project: &'p Project,
    /// The library factories the typer knows (the catalogue's, in a run).
    pub factories: &'p dyn Factories,
    pub id: MethodId,
    pub method: &'p Method,
    /// The initialisers of the body's locals (types a `var`).
    pub defs: Defs<'p>,
    types: LocalTypes,
}

impl Body<'_> {
    /// Runs `f` with a typer that knows the locals in scope.
    pub fn with_typer<R>(&self, f: impl FnOnce(&Typer<'_, '_, DeclaredSoFar<'_, '_>>) -> R) -> R {
        let locals = DeclaredSoFar {
            types: self.types.map(),
            defs: &self.defs,
        };
        f(&Typer {
            project: self.project,
            factories: self.factories,
            class: self.project.class_of(self.id),
            locals: &locals,
        })
    }

    /// A name that is neither a local, a parameter nor a field: a type (or package) name.
    pub fn is_type_name(&self, e: &Expr) -> bool {
        self.with_typer(|t| t.is_type_name(e))
    }

    fn declare(&mut self, name: &str, ty: &str) {
        self.types.declare(name, ty);
    }
}

/// What a walk reports; every method has an empty default.
pub trait Visitor<'p> {
    /// A call, after its receiver and arguments; `recv_is_type` says whether the receiver was
    /// a type name before them (as the interpreter decides it).
    fn call(&mut self, _body: &Body<'p>, _c: &'p Call, _recv_is_type: bool) {}
    /// A method reference, where it is evaluated.
    fn method_ref(&mut self, _body: &Body<'p>, _m: &'p MethodRef) {}
    /// An object creation, after its arguments and anonymous class bodies.
    fn new_object(&mut self, _body: &Body<'p>, _n: &'p New) {}
    /// A loop statement, after its head and before its body.
    fn loop_stmt(&mut self, _body: &Body<'p>, _s: &'p Stmt) {}
}

/// Walks the body of method `id` (nothing for a method without one).
pub fn walk<'p>(
    project: &'p Project,
    factories: &'p dyn Factories,
    id: MethodId,
    v: &mut dyn Visitor<'p>,
) {
    let method = project.method(id);
    let Some(b) = method.body() else { return };
    let mut defs = Defs::new();
    collect_defs(b, &mut defs);
    defs.declaring(method);
    let mut types = LocalTypes::default();
    for p in &method.params {
        types.declare(&p.name, written_type(&p.ty, &p.generic));
    }
    let mut w = Walker {
        body: Body {
            project,
            factories,
            id,
            method,
            defs,
            types,
        },
        v,
    };
    w.block(b);
}

struct Walker<'p, 'v> {
    body: Body<'p>,
    v: &'v mut dyn Visitor<'p>,
}

impl<'p> Walker<'p, '_> {
    fn block(&mut self, b: &'p Block) {
        let mark = self.body.types.mark();
        for s in b {
            self.stmt(s);
        }
        self.body.types.unwind(mark);
    }

    fn stmt(&mut self, s: &'p Stmt) {
        match s {
            Stmt::Local {
                ty,
                generic,
                name,
                init,
                ..
            } => {
                self.body.declare(name, written_type(ty, generic));
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
                ..
            } => {
                // The head's locals and the element variable are the loop's own.
                let mark = self.body.types.mark();
                self.block_in_scope(head);
                self.v.loop_stmt(&self.body, s);
                if let Some((ty, name, coll)) = each {
                    self.expr(coll);
                    self.body.declare(name, ty);
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
                self.body.types.unwind(mark);
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                // The resources are in scope in the body only.
                let mark = self.body.types.mark();
                self.block_in_scope(resources);
                self.block(body);
                self.body.types.unwind(mark);
                for (param, c) in catches {
                    let mark = self.body.types.mark();
                    if !param.is_empty() {
                        self.body.declare(param, "");
                    }
                    self.block(c);
                    self.body.types.unwind(mark);
                }
                if let Some(f) = finally {
                    self.block(f);
                }
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Return(None, _) | Stmt::Jump | Stmt::Break | Stmt::Continue => {}
        }
    }

    /// The scope's parameters are declared where a lambda or anonymous method is created;
    /// `inferred`: the types of untyped ones, where they can be told.
    fn declare_scope(&mut self, scope: ScopeId, inferred: &[Option<String>]) {
        let method = self.body.method;
        if let Some(sc) = method.scopes.get(scope as usize) {
            for (i, (n, ty)) in sc.params.iter().enumerate() {
                let ty = ty.as_deref().or_else(|| inferred.get(i)?.as_deref());
                self.body.declare(n, ty.unwrap_or_default());
            }
        }
    }

    fn lambda(&mut self, l: &'p Lambda, inferred: &[Option<String>]) {
        let mark = self.body.types.mark();
        self.declare_scope(l.scope, inferred);
        match &l.body {
            LambdaBody::Expr(x) => self.expr(x),
            LambdaBody::Block(b) => self.block(b),
        }
        self.body.types.unwind(mark);
    }

    /// The statements of a block whose declarations outlast it (a loop's head, `try`
    /// resources): the caller ends their scope.
    fn block_in_scope(&mut self, b: &'p Block) {
        for s in b {
            self.stmt(s);
        }
    }

    fn expr(&mut self, e: &'p Expr) {
        match e {
            Expr::Call(c) => {
                let recv_is_type = c.recv.as_ref().is_some_and(|r| self.body.is_type_name(r));
                if let Some(r) = &c.recv
                    && !recv_is_type
                {
                    self.expr(r);
                }
                for a in &c.args {
                    match a {
                        // As the interpreter types it (a lambda given to a receiver).
                        Expr::Lambda(l) if c.recv.is_some() && !recv_is_type => {
                            let method = self.body.method;
                            let params = &method.scopes[l.scope as usize].params;
                            let inferred =
                                self.body.with_typer(|t| t.lambda_param_types(c, params));
                            self.lambda(l, &inferred);
                        }
                        a => self.expr(a),
                    }
                }
                self.v.call(&self.body, c, recv_is_type);
            }
            Expr::New(n) => {
                for a in &n.args {
                    self.expr(a);
                }
                for a in &n.anon {
                    let mark = self.body.types.mark();
                    self.declare_scope(a.scope, &[]);
                    self.block(&a.body);
                    self.body.types.unwind(mark);
                }
                self.v.new_object(&self.body, n);
            }
            Expr::Field(r, _, _) => {
                if !matches!(**r, Expr::This(_)) && !self.body.is_type_name(r) {
                    self.expr(r);
                }
            }
            Expr::Lambda(l) => self.lambda(l, &[]),
            Expr::MethodRef(m) => self.v.method_ref(&self.body, m),
            // The target is a place, not evaluated (as in the interpreter).
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
            | Expr::This(_)
            | Expr::Str(..)
            | Expr::Lit(..)
            | Expr::Null(_)
            | Expr::Opaque(_) => {}
        }
    }
}

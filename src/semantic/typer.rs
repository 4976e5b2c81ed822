//! The one expression typer: the static type of an expression inside a method, as far as the
//! project model and the library factories the caller knows ([`Factories`]) tell it.
//!
//! What a caller knows about locals differs (the interpreter knows the locals declared so far,
//! in evaluation order; a syntactic pass knows every initialised local of the body), so the
//! typer asks a small [`Locals`] trait for them.

use super::{ClassRef, Project, TypeRef};
use crate::java::ir::{Block, Expr, Stmt};
use std::collections::HashMap;

/// Calls typed through their receivers before giving up (`a.b().c().d()`).
pub(super) const MAX_TYPE_DEPTH: usize = 8;

/// Static factories a code generator adds for a builder class the project declares nested in
/// its class (`Order.builder()` returning `Order.OrderBuilder`).
const GENERATED_BUILDER_FACTORIES: &[&str] = &["builder"];

/// A local variable or parameter as declared.
#[derive(Clone, Copy, Debug)]
pub struct Declared<'a> {
    /// The type as written (with its type arguments, if any); `var`, or empty for an untyped
    /// lambda parameter.
    pub ty: &'a str,
    /// The initialiser, when the caller knows it (types a `var`).
    pub init: Option<&'a Expr>,
    /// Whether the name may hold another value than this initialiser's (it is assigned again,
    /// declared again elsewhere in the method, or the caller cannot tell).
    pub assigned: bool,
}

/// What the caller knows about the locals in scope where an expression is typed.
pub trait Locals {
    /// The local or parameter `name`, if `name` is one.
    fn local(&self, name: &str) -> Option<Declared<'_>>;
}

/// Local initialisers of a block (not inside lambdas), by name: (declared type, initialiser);
/// with, on demand, whether a local's initialiser is the only value its name can hold.
#[derive(Default)]
pub struct Defs<'a> {
    inits: HashMap<String, (&'a str, &'a Expr)>,
    /// The block the initialisers come from.
    body: Option<&'a Block>,
    /// The names the method declares outside its body's statements (its parameters, its
    /// lambdas' and anonymous methods' parameters), once told ([`Self::declaring`]).
    others: Option<Vec<&'a str>>,
    /// The names declared exactly once and never assigned after.
    single: std::sync::OnceLock<std::collections::HashSet<&'a str>>,
}

impl<'a> std::ops::Deref for Defs<'a> {
    type Target = HashMap<String, (&'a str, &'a Expr)>;
    fn deref(&self) -> &Self::Target {
        &self.inits
    }
}

impl<'a> Defs<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Tells the names method `m` declares outside its body's statements, so that
    /// [`Self::only_value`] can answer.
    pub fn declaring(&mut self, m: &'a crate::java::ir::Method) {
        let params = m.params.iter().map(|p| p.name.as_str());
        let scoped = m
            .scopes
            .iter()
            .flat_map(|s| s.params.iter().map(|p| p.0.as_str()));
        self.others = Some(params.chain(scoped).collect());
    }

    /// Is the initialiser of local `name` the only value the name can hold anywhere in the
    /// method: declared once (no other local, loop variable, catch or lambda parameter of that
    /// name — a catch parameter is lowered as a local; the pattern variables of `instanceof`
    /// and `switch` are not kept by the lowering, and not counted) and never assigned again? `false` when the method's other declarations are
    /// not known.
    pub fn only_value(&self, name: &str) -> bool {
        let (Some(body), Some(others)) = (self.body, &self.others) else {
            return false;
        };
        self.single
            .get_or_init(|| {
                use crate::java::ir::Node;
                let mut count: HashMap<&str, usize> = HashMap::new();
                let mut assigned = std::collections::HashSet::new();
                for n in others {
                    *count.entry(n).or_default() += 1;
                }
                for n in Node::all(body) {
                    match n {
                        Node::Stmt(Stmt::Local { name, .. }) => {
                            *count.entry(name.as_str()).or_default() += 1;
                        }
                        Node::Stmt(Stmt::Loop {
                            each: Some((_, name, _)),
                            ..
                        }) => *count.entry(name.as_str()).or_default() += 1,
                        Node::Expr(Expr::Assign(a)) => {
                            if let Expr::Name(n, _) = &a.target {
                                assigned.insert(n.as_str());
                            }
                        }
                        _ => {}
                    }
                }
                count
                    .into_iter()
                    .filter(|(n, c)| *c == 1 && !assigned.contains(n))
                    .map(|(n, _)| n)
                    .collect()
            })
            .contains(name)
    }
}

/// Local variable initializers of a block, its loops and its `try` statements (not inside
/// lambdas), by name.
pub fn collect_defs<'a>(b: &'a Block, out: &mut Defs<'a>) {
    out.body.get_or_insert(b);
    collect_inits(b, &mut out.inits);
}

fn collect_inits<'a>(b: &'a Block, out: &mut HashMap<String, (&'a str, &'a Expr)>) {
    for s in b {
        match s {
            Stmt::Local {
                name,
                init: Some(e),
                ty,
                ..
            } => {
                out.insert(name.clone(), (ty.as_str(), e));
            }
            s => {
                for b in s.blocks() {
                    collect_inits(b, out);
                }
            }
        }
    }
}

/// The locals declared so far in evaluation order (`types`), with the body's initialisers
/// (`defs`) to type a `var`.
pub struct DeclaredSoFar<'a, 'd> {
    pub types: &'a HashMap<String, String>,
    pub defs: &'a Defs<'d>,
}

impl Locals for DeclaredSoFar<'_, '_> {
    fn local(&self, name: &str) -> Option<Declared<'_>> {
        let ty = self.types.get(name)?;
        Some(Declared {
            ty,
            init: self.defs.get(name).map(|(_, e)| *e),
            assigned: !self.defs.only_value(name),
        })
    }
}

/// Library calls whose return type the typer cannot read from the project: factories
/// (`Executors.newFixedThreadPool(…)` returns an `ExecutorService`).
pub trait Factories: Sync {
    /// The type `Owner.method(…)` returns, where `owner_is(class)` tells whether the owner is
    /// `class` (or a subtype of it).
    fn static_factory(&self, owner_is: &dyn Fn(&str) -> bool, method: &str) -> Option<String>;
    /// The type `x.method(…)` returns on a value of the library type `owner` (qualified name).
    fn instance_factory(&self, owner: &str, method: &str) -> Option<String>;
    /// Does a code generator write the builder of a class whose annotations `annotated` tells
    /// (Lombok's `@Builder`)?
    fn generated_builder(&self, annotated: &dyn Fn(&str) -> bool) -> bool {
        let _ = annotated;
        false
    }
    /// Does `x.method(…)` on a value of a library functional type (`owner_is`) run the function
    /// the value holds (`Supplier.get`, `Callable.call`)?
    fn runs_function(&self, _owner_is: &dyn Fn(&str) -> bool, _method: &str) -> bool {
        false
    }
    /// Do these annotations make a method's return value a bean a container injects by type
    /// (`@Bean`)?
    fn makes_bean(&self, _annotated: &dyn Fn(&str) -> bool) -> bool {
        false
    }
    /// For each parameter of a lambda given to `x.method(…)` on a library generic type, the
    /// receiver's type argument it gets (`Map<K, V>.forEach((k, v) -> …)`: `[0, 1]`).
    fn lambda_params(&self, _owner_is: &dyn Fn(&str) -> bool, _method: &str) -> Option<Vec<usize>> {
        None
    }
    /// What `x.method(…)` returns on a library generic type, from its type arguments.
    fn generic_return(
        &self,
        _owner_is: &dyn Fn(&str) -> bool,
        _method: &str,
    ) -> Option<super::generics::GenericReturn> {
        None
    }
}

/// No library factories: how the semantic layer's unit tests type code without a catalogue.
#[cfg(test)]
pub(crate) struct NoFactories;

#[cfg(test)]
impl Factories for NoFactories {
    fn static_factory(&self, _: &dyn Fn(&str) -> bool, _: &str) -> Option<String> {
        None
    }
    fn instance_factory(&self, _: &str, _: &str) -> Option<String> {
        None
    }
}

/// Types expressions written in one class, with what the caller knows about locals.
pub struct Typer<'p, 'l, L: Locals + ?Sized> {
    pub project: &'p Project,
    pub factories: &'p dyn Factories,
    /// The class the code is written in.
    pub class: ClassRef,
    pub locals: &'l L,
}

impl<L: Locals + ?Sized> Typer<'_, '_, L> {
    /// A type name as written in the class (its type arguments, if any, erased).
    pub fn resolve(&self, written: &str) -> TypeRef {
        self.project.resolve_type(
            self.class.0,
            Some(self.class.1 as usize),
            super::generics::erased(written),
        )
    }

    fn is_local(&self, n: &str) -> bool {
        self.locals.local(n).is_some()
    }

    /// A field (not shadowed by a local) visible from the class.
    pub fn is_field(&self, n: &str) -> bool {
        !self.is_local(n) && self.project.field(self.class, n).is_some()
    }

    /// A name that is neither a local, a parameter nor a field: a type (or package) name.
    pub fn is_type_name(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(n, _) => !self.is_local(n) && !self.is_field(n),
            Expr::Field(r, _, _) => self.is_type_name(r),
            _ => false,
        }
    }

    /// The declared return type of a project method.
    pub fn ret_type(&self, m: super::MethodId) -> TypeRef {
        let mm = self.project.method(m);
        self.project.resolve_type(m.0, Some(mm.class), &mm.ret)
    }

    /// The static type of `e`, when it can be told.
    pub fn type_of(&self, e: &Expr) -> Option<TypeRef> {
        self.type_at(e, 0)
    }

    /// The type of a name: a local (a `var` by its initialiser), else a field.
    pub fn type_of_name(&self, n: &str, depth: usize) -> Option<TypeRef> {
        if let Some(d) = self.locals.local(n) {
            if d.ty == "var" {
                return self.type_at(d.init?, depth + 1);
            }
            if d.ty.is_empty() {
                return None;
            }
            return Some(self.resolve(d.ty));
        }
        self.field_type(n)
    }

    fn field_type(&self, n: &str) -> Option<TypeRef> {
        let (owner, f) = self.project.field(self.class, n)?;
        Some(
            self.project
                .resolve_type(owner.0, Some(owner.1 as usize), &f.ty),
        )
    }

    pub(super) fn type_at(&self, e: &Expr, depth: usize) -> Option<TypeRef> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        match e.peel() {
            Expr::Name(n, _) => self.type_of_name(n, depth),
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => self.field_type(n),
            // `other.field` of a project type, or a static field `Type.field`.
            Expr::Field(r, n, _) => {
                let owner = if self.is_type_name(r) {
                    self.resolve(&r.dotted()?)
                } else {
                    self.type_at(r, depth + 1)?
                };
                let k = match owner {
                    TypeRef::Project(k) => k,
                    // A library's public field the catalogue types (`razorpay.payments`).
                    TypeRef::External(f) if !f.is_empty() => {
                        return self
                            .factories
                            .instance_factory(&f, n)
                            .map(TypeRef::External);
                    }
                    _ => return None,
                };
                let (decl, f) = self.project.field(k, n)?;
                Some(
                    self.project
                        .resolve_type(decl.0, Some(decl.1 as usize), &f.ty),
                )
            }
            // A ternary with one typed arm.
            Expr::Ternary(_, a, b, _) => self
                .type_at(a, depth + 1)
                .filter(TypeRef::is_known)
                .or_else(|| self.type_at(b, depth + 1)),
            Expr::New(n) => Some(self.resolve(&n.ty)),
            Expr::Cast(t, _, _) => Some(self.resolve(t)),
            Expr::Call(c) => {
                // `keys().fresh()`, `this.keys()`: a method of this class, else of an
                // enclosing one.
                let Some(recv) = c.recv.as_ref().filter(|r| !matches!(r, Expr::This(_))) else {
                    return self.own_call_type(c, c.recv.is_none());
                };
                if self.is_type_name(recv) {
                    return self.static_call_type(&recv.dotted()?, &c.name, c.args.len());
                }
                let t = self.type_at(recv, depth + 1)?;
                if let Some(g) = self.generic_call_type(&t, c, depth) {
                    return Some(g);
                }
                self.instance_call_type(t, c, depth)
            }
            _ => None,
        }
    }

    /// What a call of a method of this class (`this.name(…)`), or with `outer` of an enclosing
    /// class too (`name(…)`), returns; a super call is left untyped.
    fn own_call_type(&self, c: &crate::java::ir::Call, outer: bool) -> Option<TypeRef> {
        if c.on_super {
            return None;
        }
        let mut k = Some(self.class);
        let mut guard = 0;
        while let Some(cls) = k {
            if let Some(m) = self
                .project
                .methods_in_hierarchy(cls, &c.name, c.args.len())
                .first()
            {
                // An inherited `T get()` of `extends Holder<KeyFactory>` is a `KeyFactory`.
                let g = self.project_generic_return(None, cls, *m, 0);
                return Some(match g {
                    Some(g) => self.resolve(&g),
                    None => self.ret_type(*m),
                });
            }
            guard += 1;
            if !outer || guard > MAX_TYPE_DEPTH {
                return None;
            }
            k = self.project.class(cls).outer.map(|o| (cls.0, o as u32));
        }
        None
    }

    /// What `Owner.name(…)` returns.
    fn static_call_type(&self, owner: &str, name: &str, arity: usize) -> Option<TypeRef> {
        let owner = self.resolve(owner);
        if let Some(t) = self
            .factories
            .static_factory(&|class| self.project.type_is(&owner, class), name)
        {
            return Some(TypeRef::External(t));
        }
        match owner {
            TypeRef::Project(k) => {
                match self.project.methods_in_hierarchy(k, name, arity).first() {
                    Some(m) => Some(self.ret_type(*m)),
                    None if arity == 0 && GENERATED_BUILDER_FACTORIES.contains(&name) => self
                        .generated_builder(k)
                        .or_else(|| self.annotation_builder(k)),
                    None => None,
                }
            }
            // A library's static method returns a library type: never a project one.
            TypeRef::External(_) => Some(TypeRef::External(String::new())),
            TypeRef::Unknown(_) => None,
        }
    }

    /// What `recv.name(…)` returns on a receiver of type `t`.
    fn instance_call_type(
        &self,
        t: TypeRef,
        c: &crate::java::ir::Call,
        depth: usize,
    ) -> Option<TypeRef> {
        let (name, arity) = (c.name.as_str(), c.args.len());
        if name == "build"
            && arity == 0
            && let Some(k) = self.built_by(&t)
        {
            return Some(TypeRef::Project(k));
        }
        match t {
            TypeRef::Project(k) => {
                match self.project.methods_in_hierarchy(k, name, arity).first() {
                    // `holder.get()` on a `Holder<KeyFactory>` is a `KeyFactory`.
                    Some(m) => Some(
                        self.project_generic_return(c.recv.as_ref(), k, *m, depth)
                            .map(|g| self.resolve(&g))
                            .filter(TypeRef::is_known)
                            .unwrap_or_else(|| self.ret_type(*m)),
                    ),
                    None => self.generated_builder_step(k, name, arity),
                }
            }
            // A fluent builder returns itself until `build()`.
            TypeRef::External(f) if f.ends_with("Builder") && !name.starts_with("build") => {
                Some(TypeRef::External(f))
            }
            TypeRef::External(f) => Some(TypeRef::External(
                // A library type's method returns a library type.
                self.factories
                    .instance_factory(&f, name)
                    .unwrap_or_default(),
            )),
            TypeRef::Unknown(_) => None,
        }
    }

    /// The builder class a code generator completes (Lombok's `@Builder`): a class `T` that
    /// declares no `builder()` but a nested class `TBuilder` (written to add methods of its
    /// own, `withDefaults()`) gets a generated `T.builder()` returning that class.
    fn generated_builder(&self, k: ClassRef) -> Option<TypeRef> {
        let class = self.project.class(k);
        let nested = format!("{}Builder", class.name);
        match self.project.resolve_type(k.0, Some(k.1 as usize), &nested) {
            TypeRef::Project(b)
                if self.project.class(b).outer == Some(k.1 as usize) && b.0 == k.0 =>
            {
                Some(TypeRef::Project(b))
            }
            _ => None,
        }
    }

    /// The builder a code generator writes whole for class `k`, annotated so (Lombok's
    /// `@Builder` with no builder class written): a library type named as the nested class it
    /// generates (`T.TBuilder`), whose one-argument calls return it and whose `build()` makes a
    /// `T` ([`Self::built_by`]).
    fn annotation_builder(&self, k: ClassRef) -> Option<TypeRef> {
        let class = self.project.class(k);
        let annotated = |x: &str| {
            class.annotations.iter().any(|a| {
                let t = self.project.resolve_type(k.0, Some(k.1 as usize), &a.name);
                self.project.type_is(&t, x)
            })
        };
        self.factories
            .generated_builder(&annotated)
            .then(|| TypeRef::External(format!("{}.{}Builder", class.fqn, class.name)))
    }

    /// The class a builder of [`Self::annotation_builder`] makes.
    pub fn built_by(&self, t: &TypeRef) -> Option<ClassRef> {
        let TypeRef::External(f) = t else {
            return None;
        };
        let (outer, nested) = f.rsplit_once('.')?;
        let TypeRef::Project(k) = self.project.resolve_type(self.class.0, None, outer) else {
            return None;
        };
        let class = self.project.class(k);
        (nested.strip_suffix("Builder") == Some(class.name.as_str())
            && self.annotation_builder(k).is_some())
        .then_some(k)
    }

    /// The classes whose field initializers a `build()` on a builder of type `t` of
    /// [`Self::annotation_builder`] may run: the class it makes, and its superclasses whose
    /// builder is generated too (`@SuperBuilder`).
    pub fn built_classes(&self, t: &TypeRef) -> Vec<ClassRef> {
        let Some(k) = self.built_by(t) else {
            return Vec::new();
        };
        let sups = self.project.supertypes_of(k).iter().copied();
        std::iter::once(k)
            .chain(sups.filter(|s| self.annotation_builder(*s).is_some()))
            .collect()
    }

    /// A method the builder class of [`Self::generated_builder`] does not declare: a generated
    /// one-argument property setter returns the builder, `build()` the class it builds.
    fn generated_builder_step(&self, b: ClassRef, name: &str, arity: usize) -> Option<TypeRef> {
        let outer = (b.0, self.project.class(b).outer? as u32);
        if self.generated_builder(outer) != Some(TypeRef::Project(b)) {
            return None;
        }
        match (name, arity) {
            ("build", 0) => Some(TypeRef::Project(outer)),
            (_, 1) => Some(TypeRef::Project(b)),
            _ => None,
        }
    }

    /// The receiver type a call is resolved with: `None` for an unqualified call or one on
    /// `this`; `Some(None)` when the receiver's type cannot be told.
    pub fn receiver_type(&self, recv: Option<&Expr>) -> Option<Option<TypeRef>> {
        match recv {
            None | Some(Expr::This(_)) => None,
            Some(r) if self.is_type_name(r) => Some(r.dotted().map(|d| self.resolve(&d))),
            Some(r) => Some(self.type_of(r)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::SourceFile;

    fn project(src: &str) -> Project {
        let facts = crate::java::parse(src.as_bytes()).expect("parses");
        Project::new(vec![SourceFile {
            path: "A.java".into(),
            facts,
        }])
    }

    #[test]
    fn a_var_is_typed_by_its_initialiser_and_a_call_by_its_return_type() {
        let p = project(
            "package p; class B { C next() { return null; } } class C {} \
             class A { void m() { var b = new B(); b.next(); } }",
        );
        let types: HashMap<String, String> = [("b".to_string(), "var".to_string())].into();
        with_typer(&p, &types, |typer, body| {
            let Stmt::Expr(call) = &body[1] else {
                panic!("a call statement")
            };
            let c = p.class(match typer.type_of(call) {
                Some(TypeRef::Project(c)) => c,
                other => panic!("{other:?}"),
            });
            assert_eq!(c.name, "C");
            assert!(!typer.is_type_name(&Expr::Name("b".into(), Default::default())));
            assert!(typer.is_type_name(&Expr::Name("B".into(), Default::default())));
        });
    }

    #[test]
    fn a_generated_builder_is_the_nested_builder_class_its_class_declares() {
        let p = project(
            "package p; class Order { String key; \
               static class OrderBuilder { OrderBuilder withDefaults() { return this; } } } \
             class Plain { static class Helper {} } \
             class A { void m() { Order.builder().key(\"k\").withDefaults().build(); \
               Plain.builder(); } }",
        );
        with_typer(&p, &HashMap::new(), |typer, body| {
            let name_of = |e: &Expr| match typer.type_of(e) {
                Some(TypeRef::Project(c)) => p.class(c).name.to_string(),
                other => format!("{other:?}"),
            };
            let Stmt::Expr(Expr::Call(build)) = &body[0] else {
                panic!("a call statement")
            };
            // `build()` gives the class, every step before it the builder.
            assert_eq!(name_of(&body_expr(&body[0])), "Order");
            let mut cur = build.recv.as_ref().expect("receiver");
            while let Expr::Call(c) = cur {
                assert_eq!(name_of(cur), "OrderBuilder", "{}", c.name);
                match c.recv.as_ref() {
                    Some(r @ Expr::Call(_)) => cur = r,
                    _ => break,
                }
            }
            // A class without a nested `PlainBuilder` has no generated `builder()`.
            assert_eq!(typer.type_of(&body_expr(&body[1])), None);
        });
    }

    /// Runs `f` with a typer for the body of method `m` of `p`, its locals declared as `types`.
    fn with_typer(
        p: &Project,
        types: &HashMap<String, String>,
        f: impl FnOnce(&Typer<'_, '_, DeclaredSoFar<'_, '_>>, &Block),
    ) {
        let m = p
            .all_methods()
            .find(|m| p.method(*m).name == "m")
            .expect("m");
        let body = p.method(m).body().expect("body");
        let mut defs = Defs::new();
        collect_defs(body, &mut defs);
        let locals = DeclaredSoFar { types, defs: &defs };
        let typer = Typer {
            project: p,
            factories: &NoFactories,
            class: p.class_of(m),
            locals: &locals,
        };
        f(&typer, body)
    }

    fn body_expr(s: &Stmt) -> Expr {
        match s {
            Stmt::Expr(e) => e.clone(),
            _ => panic!("an expression statement"),
        }
    }

    /// The locals a body declares (as the interpreter records them: locals, catch parameters,
    /// loop variables), by name.
    fn declared(b: &Block, out: &mut HashMap<String, String>) {
        for s in b {
            match s {
                Stmt::Local { ty, name, .. } => {
                    out.insert(name.clone(), ty.clone());
                }
                s => {
                    if let Stmt::Loop {
                        each: Some((ty, name, _)),
                        ..
                    } = s
                    {
                        out.insert(name.clone(), ty.clone());
                    }
                    for b in s.blocks() {
                        declared(b, out);
                    }
                }
            }
        }
    }

    /// Every call named `name` in `b`, in order.
    fn calls_named<'b>(b: &'b Block, name: &str, out: &mut Vec<&'b Expr>) {
        fn expr<'b>(e: &'b Expr, name: &str, out: &mut Vec<&'b Expr>) {
            if let Expr::Call(c) = e {
                if c.name == name {
                    out.push(e);
                }
                if let Some(r) = &c.recv {
                    expr(r, name, out);
                }
                for a in &c.args {
                    expr(a, name, out);
                }
            }
        }
        for s in b {
            match s {
                Stmt::Local { init: Some(e), .. } | Stmt::Expr(e) => expr(e, name, out),
                Stmt::Return(Some(e), _) => expr(e, name, out),
                Stmt::Loop { head, body, .. } => {
                    calls_named(head, name, out);
                    calls_named(body, name, out);
                }
                Stmt::Try {
                    body,
                    catches,
                    finally,
                    ..
                } => {
                    calls_named(body, name, out);
                    for (_, c) in catches {
                        calls_named(c, name, out);
                    }
                    if let Some(f) = finally {
                        calls_named(f, name, out);
                    }
                }
                Stmt::If { then, els, .. } => {
                    calls_named(then, name, out);
                    if let Some(e) = els {
                        calls_named(e, name, out);
                    }
                }
                Stmt::Block(x) => calls_named(x, name, out),
                _ => {}
            }
        }
    }

    /// The simple names of the types of the calls named `call` in method `method` of `src`,
    /// typed with every local the body declares (`?` where the type cannot be told).
    fn call_types(src: &str, method: &str, call: &str) -> Vec<String> {
        let p = project(src);
        let m = p
            .all_methods()
            .find(|m| p.method(*m).name == method)
            .expect("the method");
        let mm = p.method(m);
        let body = mm.body().expect("a body");
        let mut defs = Defs::new();
        collect_defs(body, &mut defs);
        let mut types: HashMap<String, String> = mm
            .params
            .iter()
            .map(|x| (x.name.to_string(), x.ty.to_string()))
            .collect();
        declared(body, &mut types);
        let locals = DeclaredSoFar {
            types: &types,
            defs: &defs,
        };
        let typer = Typer {
            project: &p,
            factories: &NoFactories,
            class: p.class_of(m),
            locals: &locals,
        };
        let mut calls = Vec::new();
        calls_named(body, call, &mut calls);
        assert!(!calls.is_empty(), "no call `{call}` in `{method}`");
        calls
            .into_iter()
            .map(|c| match typer.type_of(c) {
                Some(TypeRef::Project(k)) => p.class(k).name.to_string(),
                Some(TypeRef::External(e)) if !e.is_empty() => e,
                _ => "?".to_string(),
            })
            .collect()
    }

    const PAYMENTS: &str = "package p; import java.util.List; \
        class Payment { Receipt key() { return null; } } class Receipt {} \
        class DeclinedException extends RuntimeException { Receipt receipt() { return null; } } \
        class TimeoutException extends RuntimeException { Payment payment() { return null; } } \
        class Gateway { Payment open() { return null; } } ";

    #[test]
    fn a_catch_parameter_has_its_declared_type_and_a_multi_catch_its_first_alternative() {
        let src = format!(
            "{PAYMENTS} class A {{ void m(Gateway g) {{ \
             try {{ g.open(); }} catch (DeclinedException e) {{ e.receipt(); }} \
             try {{ g.open(); }} catch (final DeclinedException | TimeoutException e) {{ e.receipt(); }} \
             }} }}"
        );
        assert_eq!(call_types(&src, "m", "receipt"), vec!["Receipt", "Receipt"]);
    }

    #[test]
    fn a_for_each_variable_is_typed_as_declared_or_by_the_iterable_s_element_type() {
        let src = format!(
            "{PAYMENTS} class A {{ private final List<Payment> queued = null; \
             void m(List<Payment> payments, Payment[] array) {{ \
             for (Payment a : payments) {{ a.key(); }} \
             for (var b : payments) {{ b.key(); }} \
             for (var c : array) {{ c.key(); }} \
             for (var d : this.queued) {{ d.key(); }} \
             java.util.Set<? extends Payment> held = null; \
             for (final var e : held) {{ e.key(); }} \
             List raw = payments; \
             for (var f : raw) {{ f.key(); }} \
             }} }}"
        );
        assert_eq!(
            call_types(&src, "m", "key"),
            vec!["Receipt", "Receipt", "Receipt", "Receipt", "Receipt", "?"]
        );
    }

    #[test]
    fn a_project_class_s_type_parameter_is_the_receiver_s_type_argument() {
        let src = "package p; \
            class Key { Receipt mint() { return null; } } class Receipt {} \
            class Holder<T> { T get() { return null; } <T> T as(Class<T> c) { return null; } } \
            interface Lookup<V> { V find(String id); } \
            class Mid<X> extends Holder<X> {} \
            class KeyHolder extends Mid<Key> { void own() { get().mint(); } } \
            class A { Holder<Key> h; Lookup<? extends Key> l; KeyHolder kh; Holder raw; \
              Holder<Key> diamond = new Holder<>(); \
              void m() { h.get().mint(); var k = h.get(); k.mint(); l.find(\"x\").mint(); \
                kh.get().mint(); raw.get().mint(); h.as(Object.class).mint(); \
                new Holder<>().get().mint(); } }";
        assert_eq!(
            call_types(src, "m", "mint"),
            vec!["Receipt", "Receipt", "Receipt", "Receipt", "?", "?", "?"]
        );
        assert_eq!(call_types(src, "own", "mint"), vec!["Receipt"]);
    }

    #[test]
    fn a_var_is_typed_by_a_constructor_or_a_project_method_s_return_type() {
        let src = format!(
            "{PAYMENTS} class A {{ private final Gateway gateway = new Gateway(); \
             void m(List<String> ids) {{ \
             var g = new Gateway(); var p = g.open(); p.key(); \
             for (String id : ids) {{ var q = gateway.open(); q.key(); }} \
             try {{ var r = gateway.open(); r.key(); }} \
             catch (RuntimeException e) {{ var s = g.open(); s.key(); }} \
             finally {{ var t = g.open(); t.key(); }} \
             }} }}"
        );
        assert_eq!(
            call_types(&src, "m", "key"),
            vec!["Receipt", "Receipt", "Receipt", "Receipt", "Receipt"]
        );
    }
}

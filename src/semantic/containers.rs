//! Collections a container fills (SPEC 8: calls resolve as javac would bind them, to the
//! overrides the receiver can run). A field `Map<ProviderType, PaymentProvider> providers`
//! without an initializer, that its class never changes, holds what the application's bean
//! methods of that type put in it: `@Bean Map<ProviderType, PaymentProvider> providers(
//! StripeProvider stripe, AdyenProvider adyen) { … }` makes `providers.get(type).pay(…)` run
//! `StripeProvider.pay` or `AdyenProvider.pay`, not the `pay` of an implementation the map
//! never holds. Where the bean method takes every bean of the element type (a
//! `List<PaymentProvider>` parameter), asks the container (`getBeansOfType`), or no bean method
//! makes the field's type (a `Map<String, PaymentProvider>` Spring fills with every bean), the
//! receiver stays its static type.

use super::generics::{erased, type_args};
use super::{ClassRef, Locals, MethodId, Project, TypeRef, Typer, collect_defs};
use crate::java::ir::{Call, Expr, Node, Stmt, written_type};

/// Library collection types whose `get(…)` returns an element (the last type argument).
const COLLECTIONS: &[&str] = &["java.util.Map", "java.util.List"];

/// Calls on a collection field that put other elements in it.
const MUTATORS: &[&str] = &[
    "put",
    "putAll",
    "putIfAbsent",
    "compute",
    "computeIfAbsent",
    "computeIfPresent",
    "merge",
    "replace",
    "replaceAll",
    "add",
    "addAll",
    "set",
];

/// Calls that ask a container for its beans: what they return is not listed in the code.
const CONTAINER_LOOKUPS: &[&str] = &[
    "getBean",
    "getBeansOfType",
    "getBeanProvider",
    "getBeansWithAnnotation",
    "getObject",
    "getIfAvailable",
    "orderedStream",
    "select",
];

impl<L: Locals + ?Sized> Typer<'_, '_, L> {
    /// The methods of `targets` that call `c` can run, given what its receiver may hold: all of
    /// them unless the receiver is an element of a collection a container fills
    /// ([`Self::element_classes`]); never none.
    pub fn narrowed(&self, c: &Call, targets: Vec<MethodId>) -> Vec<MethodId> {
        if targets.len() < 2 {
            return targets;
        }
        let Some(classes) = c.recv.as_ref().and_then(|r| self.element_classes(r)) else {
            return targets;
        };
        let project = self.project;
        let runs = |m: MethodId| {
            let owner = project.class_of(m);
            classes
                .iter()
                .any(|k| *k == owner || project.supertypes_of(*k).contains(&owner))
        };
        let kept: Vec<MethodId> = targets.iter().copied().filter(|m| runs(*m)).collect();
        if kept.is_empty() { targets } else { kept }
    }

    /// The classes the value of `e` may be, when the code tells: `providers.get(k)` on a
    /// collection field a container fills, a local initialised with it and not assigned
    /// again, or a call of a getter of the class (private, or in a class nothing extends)
    /// whose every `return` gives such an element (`return providers.get(type);`, or a local
    /// holding it) or `null`.
    pub fn element_classes(&self, e: &Expr) -> Option<Vec<ClassRef>> {
        let call = match e.peel() {
            Expr::Name(n, _) => {
                let d = self.locals.local(n)?;
                if d.assigned {
                    return None;
                }
                match d.init?.peel() {
                    Expr::Call(c) => c,
                    _ => return None,
                }
            }
            Expr::Call(c) => c,
            _ => return None,
        };
        if let Some(field) = self.element_field(call, &|n| self.locals.local(n).is_some()) {
            return self.filled_by_beans(field);
        }
        self.getter_elements(call)
    }

    /// The field `call` takes an element of: `field.get(k)` or `this.field.get(k)`, where
    /// `is_local` tells the names a local shadows.
    fn element_field<'e>(
        &self,
        call: &'e Call,
        is_local: &dyn Fn(&str) -> bool,
    ) -> Option<&'e str> {
        if call.name != "get" || call.args.len() != 1 {
            return None;
        }
        match call.recv.as_ref()?.peel() {
            Expr::Name(n, _) if !is_local(n) && self.project.field(self.class, n).is_some() => {
                Some(n)
            }
            Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => Some(n),
            _ => None,
        }
    }

    /// What a getter of the class called by `call` returns, when every `return` of it gives an
    /// element of a container-filled collection field (see [`Self::element_classes`]).
    fn getter_elements(&self, call: &Call) -> Option<Vec<ClassRef>> {
        if !matches!(call.recv, None | Some(Expr::This(_))) {
            return None;
        }
        let project = self.project;
        let [m] = project.resolve_call(self.class, call, None)[..] else {
            return None;
        };
        let method = project.method(m);
        if project.class_of(m) != self.class
            || !(method.modifiers.is_private || project.subtypes_of(self.class).is_empty())
        {
            return None;
        }
        let body = method.peek_body()?;
        let mut defs = super::Defs::new();
        collect_defs(&body, &mut defs);
        let is_local = |n: &str| defs.contains_key(n) || method.params.iter().any(|p| p.name == n);
        let mut out = Vec::new();
        for n in Node::all(&body) {
            let Node::Stmt(Stmt::Return(r, _)) = n else {
                continue;
            };
            let c = match r.as_ref()?.peel() {
                Expr::Null(_) => continue,
                Expr::Call(c) => c,
                Expr::Name(n, _) if !defs.assigned(n) => match defs.get(n.as_str())?.1.peel() {
                    Expr::Call(c) => c,
                    _ => return None,
                },
                _ => return None,
            };
            let field = self.element_field(c, &is_local)?;
            out.extend(self.filled_by_beans(field)?);
        }
        out.sort();
        out.dedup();
        (!out.is_empty()).then_some(out)
    }

    /// The classes a collection field holds when bean methods fill it (see the module).
    fn filled_by_beans(&self, name: &str) -> Option<Vec<ClassRef>> {
        let project = self.project;
        let (owner, f) = project.field(self.class, name)?;
        if f.modifiers.is_static || f.init.is_some() {
            return None;
        }
        let written = written_type(&f.ty, &f.generic);
        let ty = project.resolve_type(owner.0, Some(owner.1 as usize), erased(written));
        if !COLLECTIONS.iter().any(|c| project.type_is(&ty, c)) {
            return None;
        }
        let element = *type_args(written).last()?;
        let TypeRef::Project(v) =
            project.resolve_type(owner.0, Some(owner.1 as usize), erased(element))
        else {
            return None;
        };
        if changed_by_its_class(project, owner, name, written) {
            return None;
        }
        let beans = self.beans_returning(&ty, written);
        if beans.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        for b in beans {
            out.extend(listed(project, b, v)?);
        }
        out.sort();
        out.dedup();
        (!out.is_empty()).then_some(out)
    }
}

/// Does a method of `owner` put other elements into its field `name`, or assign it anything but
/// a constructor parameter of its own type?
fn changed_by_its_class(project: &Project, owner: ClassRef, name: &str, written: &str) -> bool {
    let is_field = |e: &Expr| match e.peel() {
        Expr::Name(n, _) => n == name,
        Expr::Field(r, n, _) => n == name && matches!(r.peel(), Expr::This(_)),
        _ => false,
    };
    project.methods_of(owner).iter().any(|id| {
        let m = project.method(*id);
        let Some(body) = m.peek_body() else {
            return false;
        };
        Node::all(&body).any(|n| match n {
            Node::Expr(Expr::Call(c)) => {
                MUTATORS.contains(&c.name.as_str()) && c.recv.as_ref().is_some_and(is_field)
            }
            Node::Expr(Expr::Assign(a)) if is_field(&a.target) => {
                let from_param = match a.value.peel() {
                    Expr::Name(p, _) => m
                        .params
                        .iter()
                        .any(|x| x.name == *p && written_type(&x.ty, &x.generic) == written),
                    _ => false,
                };
                !(m.is_ctor && from_param)
            }
            _ => false,
        })
    })
}

/// The classes bean method `b` puts into a collection of `v`: the subtypes of `v` it takes as
/// parameters, reads from fields, gets from project methods or makes with `new`, each with its
/// own subtypes (the bean may be one of them); `None` when it takes or asks for beans it does
/// not name (a parameter of type `v` or a collection of it, a container lookup, an anonymous
/// class).
fn listed(project: &Project, b: MethodId, v: ClassRef) -> Option<Vec<ClassRef>> {
    let m = project.method(b);
    let at = project.class_of(b);
    let resolve = |ty: &str| project.resolve_type(b.0, Some(m.class), erased(ty));
    let mut out = Vec::new();
    // A subtype of `v` is kept with its subtypes; `v` or a supertype of it is every bean.
    let take = |t: TypeRef, out: &mut Vec<ClassRef>| -> Option<()> {
        let TypeRef::Project(k) = t else {
            return Some(());
        };
        if k == v || project.supertypes_of(v).contains(&k) {
            return None;
        }
        if project.supertypes_of(k).contains(&v) {
            out.push(k);
            out.extend(project.subtypes_of(k).iter().copied());
        }
        Some(())
    };
    let names_element = |w: &str| {
        type_args(w).iter().any(|a| match resolve(a) {
            TypeRef::Project(k) => {
                k == v
                    || project.supertypes_of(v).contains(&k)
                    || project.supertypes_of(k).contains(&v)
            }
            _ => false,
        })
    };
    // A parameter or field of the configuration whose type is a project class other than a
    // subtype of `v`.
    let other_object = |r: &Expr| {
        let Expr::Name(n, _) = r.peel() else {
            return false;
        };
        let t = match m.params.iter().find(|p| p.name == *n) {
            Some(p) => resolve(&p.ty),
            None => match project.field(at, n) {
                Some((fo, f)) => project.resolve_type(fo.0, Some(fo.1 as usize), erased(&f.ty)),
                None => return false,
            },
        };
        matches!(t, TypeRef::Project(k) if !project.supertypes_of(k).contains(&v))
    };
    for p in &m.params {
        let w = written_type(&p.ty, &p.generic);
        if names_element(w) {
            return None;
        }
        take(resolve(w), &mut out)?;
    }
    let body = m.peek_body()?;
    for n in Node::all(&body) {
        let Node::Expr(e) = n else { continue };
        match e {
            Expr::New(x) => {
                let t = resolve(&x.ty);
                // An anonymous class of the element type: a class no name tells.
                if !x.anon.is_empty()
                    && matches!(t, TypeRef::Project(k) if k == v || project.supertypes_of(k).contains(&v))
                {
                    return None;
                }
                take(t, &mut out)?;
            }
            Expr::Call(c) if CONTAINER_LOOKUPS.contains(&c.name.as_str()) => return None,
            // A call on another project object the bean method takes or reads (a registry's
            // `all()`) may hand it elements it does not name.
            Expr::Call(c) if c.recv.as_ref().is_some_and(&other_object) => return None,
            Expr::Call(c) if matches!(c.recv, None | Some(Expr::This(_))) => {
                for t in project.resolve_call(at, c, None) {
                    let tm = project.method(t);
                    take(
                        project.resolve_type(t.0, Some(tm.class), erased(&tm.ret)),
                        &mut out,
                    )?;
                }
            }
            Expr::Name(n, _) if !m.params.iter().any(|p| p.name == *n) => {
                if let Some((fo, f)) = project.field(at, n) {
                    let w = written_type(&f.ty, &f.generic);
                    if names_element(w) {
                        return None;
                    }
                    take(
                        project.resolve_type(fo.0, Some(fo.1 as usize), erased(w)),
                        &mut out,
                    )?;
                }
            }
            _ => {}
        }
    }
    Some(out)
}

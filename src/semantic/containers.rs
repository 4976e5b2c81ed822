//! Maps a container fills from a bean method (SPEC 8: calls resolve as javac would bind them,
//! to the overrides the receiver can run). Spring injects a `Map` whose key is not a `String`
//! (`Map<ProviderType, PaymentProvider>`) only from a bean of that map type — it cannot make
//! one from the beans of the element type, as it does for `List<T>`, `Set<T>`, `Collection<T>`
//! and `Map<String, T>` whenever any bean of `T` exists. Such a field, without an initializer
//! and never changed by the code, holds what the application's bean methods of its type put
//! in it: `@Bean Map<ProviderType, PaymentProvider> providers(StripeProvider stripe,
//! AdyenProvider adyen) { … }` makes `providers.get(type).pay(…)` run `StripeProvider.pay` or
//! `AdyenProvider.pay`, not the `pay` of an implementation the map never holds. Wherever the
//! code could put something else in (a bean method that takes every bean of the element type,
//! asks the container, or calls other project code; any `put`, alias, getter or hand-made
//! instance of the class; a subclass or setter), the receiver stays its static type.

use super::generics::{erased, type_args};
use super::{ClassRef, Locals, MethodId, Project, TypeRef, Typer, collect_defs};
use crate::java::ir::{Call, Expr, Method, Node, Stmt, written_type};

/// What a map field holds, kept once worked out: the classes (`None`: any implementation), and
/// the method bodies read to tell (read again, for the summary cache, at each use).
pub(super) type Filled = (Option<Vec<ClassRef>>, Vec<usize>);

/// Calls on a map that put other elements in it.
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
];

/// Calls that ask a container for its beans: what they return is not listed in the code.
const CONTAINER_LOOKUPS: &[&str] = &[
    "getBean",
    "getBeansOfType",
    "getBeanProvider",
    "getBeansWithAnnotation",
    "getBeanNamesForType",
];

impl<L: Locals + ?Sized> Typer<'_, '_, L> {
    /// The methods of `targets` that call `c` can run, given what its receiver may hold: all of
    /// them unless the receiver is an element of a map a container fills
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

    /// The classes the value of `e` may be, when the code tells: `providers.get(k)` on a map
    /// field a container fills, a local initialised with it (the only value its name holds in
    /// the method), or a call of a private getter of the class (or of a class nothing extends)
    /// whose every `return` gives such an element or `null`.
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
    /// element of a container-filled map field (see [`Self::element_classes`]).
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
        defs.declaring(method);
        let is_local = |n: &str| defs.contains_key(n) || method.params.iter().any(|p| p.name == n);
        let mut out = Vec::new();
        for n in Node::all(&body) {
            let Node::Stmt(Stmt::Return(r, _)) = n else {
                continue;
            };
            let c = match r.as_ref()?.peel() {
                Expr::Null(_) => continue,
                Expr::Call(c) => c,
                Expr::Name(n, _) if defs.only_value(n) => match defs.get(n.as_str())?.1.peel() {
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

    /// The classes a map field holds when bean methods fill it (see the module).
    fn filled_by_beans(&self, name: &str) -> Option<Vec<ClassRef>> {
        let project = self.project;
        let (owner, f) = project.field(self.class, name)?;
        if f.modifiers.is_static || f.init.is_some() || !f.modifiers.is_private {
            return None;
        }
        let written = written_type(&f.ty, &f.generic);
        let at = |ty: &str| project.resolve_type(owner.0, Some(owner.1 as usize), erased(ty));
        let ty = at(written);
        if !project.type_is(&ty, "java.util.Map") {
            return None;
        }
        let [key, element] = type_args(written)[..] else {
            return None;
        };
        // Spring makes a `Map<String, T>` of every bean of `T`.
        if key.contains('?') || project.type_is(&at(key), "java.lang.String") {
            return None;
        }
        let TypeRef::Project(v) = at(element) else {
            return None;
        };
        let beans = self.beans_of_written(&ty, written, super::held::simple_name(element));
        if beans.is_empty() {
            return None;
        }
        // Kept for the run: a recording index notes its lookups the first time (its notes are
        // the round's), and the summary cache hears of the bodies read at each use.
        let key = (owner, name.to_string());
        if let Some((found, read)) = project
            .filled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned()
        {
            crate::java::ir::note_bodies_read(&read);
            return found;
        }
        let (found, read) = crate::java::ir::reading_bodies(|| {
            let changed = changed_anywhere(project, owner, written)
                || !self.beans_named(&project.class(owner).name).is_empty();
            if changed {
                return None;
            }
            let mut out = Vec::new();
            for b in beans {
                out.extend(listed(project, b, v)?);
            }
            out.sort();
            out.dedup();
            (!out.is_empty()).then_some(out)
        });
        crate::java::ir::note_bodies_read(&read);
        project
            .filled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, (found.clone(), read));
        found
    }
}

/// Can code of the project put into the map a field of `owner` holds something other than
/// what the bean methods do? Its class's generated accessors (Lombok `@Setter`/`@Data`/
/// `@Getter`), or any method of a class with a field of the same type (`written`) or taking one as a
/// parameter that changes it, aliases it, hands it to a call other than a constructor, or
/// returns it.
fn changed_anywhere(project: &Project, owner: ClassRef, written: &str) -> bool {
    // Lombok accessors, on the class or (not kept in the index) on the field: a file that
    // imports them.
    let lombok = ["Setter", "Getter", "Data", "Value", "Delegate"];
    let annotated = project
        .class(owner)
        .annotations
        .iter()
        .any(|a| lombok.contains(&a.name.rsplit('.').next().unwrap_or(&a.name)));
    let imported = project.files[owner.0 as usize]
        .facts
        .imports
        .iter()
        .any(|i| {
            i.path.starts_with("lombok.")
                && (i.wildcard || lombok.contains(&i.path.rsplit('.').next().unwrap_or("")))
        });
    if annotated || imported {
        return true;
    }
    // The same map type, as written in class `k`: the same simple names first, then the same
    // classes (another module's `ProviderType` is another type).
    let resolved = |k: ClassRef, w: &str| -> Vec<TypeRef> {
        std::iter::once(erased(w))
            .chain(type_args(w))
            .map(|t| project.resolve_type(k.0, Some(k.1 as usize), erased(t)))
            .collect()
    };
    let want = resolved(owner, written);
    let simple = |w: &str| {
        let e = erased(w);
        e.rsplit('.').next().unwrap_or(e).trim().to_string()
    };
    let same = |k: ClassRef, w: &str| {
        simple(w) == simple(written) && same_args(w, written) && resolved(k, w) == want
    };
    // A raw `Map` parameter of a constructor or an annotated method (an injection point) may be
    // given the same map too.
    let raw = |w: &str| simple(w) == simple(written) && type_args(w).is_empty();
    // Handing the map to `new X(…)` is safe when X keeps it in a field of the same type (its
    // methods are looked at like any holder's).
    let keeps = |k: ClassRef, x: &crate::java::ir::New| match project.resolve_type(
        k.0,
        Some(k.1 as usize),
        erased(&x.ty),
    ) {
        TypeRef::Project(c) => project
            .class(c)
            .fields
            .iter()
            .any(|f| same(c, written_type(&f.ty, &f.generic))),
        _ => false,
    };
    for (fi, f) in project.files.iter().enumerate() {
        for (ci, c) in f.facts.classes.iter().enumerate() {
            let k = (fi as u32, ci as u32);
            let held: Vec<&str> = c
                .fields
                .iter()
                .filter(|f| same(k, written_type(&f.ty, &f.generic)))
                .map(|f| f.name.as_str())
                .collect();
            for id in project.methods_of(k) {
                let m = project.method(*id);
                let params: Vec<&str> = m
                    .params
                    .iter()
                    .filter(|p| {
                        let w = written_type(&p.ty, &p.generic);
                        same(k, w) || (m.is_ctor || !m.annotations.is_empty()) && raw(w)
                    })
                    .map(|p| p.name.as_str())
                    .collect();
                if (!params.is_empty() || !held.is_empty())
                    && changes(m, &held, &params, &|x| keeps(k, x))
                {
                    return true;
                }
            }
        }
    }
    false
}

/// Do two written types take the same type arguments (by simple names)?
fn same_args(a: &str, b: &str) -> bool {
    let simple = |s: &str| {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
    };
    let (x, y) = (type_args(a), type_args(b));
    x.len() == y.len()
        && x.iter().zip(&y).all(|(p, q)| {
            let (p, q) = (simple(p), simple(q));
            p.last() == q.last()
        })
}

/// Does method `m` change, alias, pass on (other than to a constructor of a class that `keeps`
/// it in a field), hand to a method reference that changes it, or return one of the map fields
/// `fields` of its class or the map parameters `params`? A constructor may assign a parameter
/// to a field.
fn changes(
    m: &Method,
    fields: &[&str],
    params: &[&str],
    keeps: &dyn Fn(&crate::java::ir::New) -> bool,
) -> bool {
    let Some(body) = m.peek_body() else {
        return false;
    };
    let is_map = |e: &Expr| match e.peel() {
        Expr::Name(n, _) => fields.contains(&n.as_str()) || params.contains(&n.as_str()),
        Expr::Field(r, n, _) => matches!(r.peel(), Expr::This(_)) && fields.contains(&n.as_str()),
        _ => false,
    };
    Node::all(&body).any(|n| match n {
        Node::Expr(Expr::Call(c)) => {
            (MUTATORS.contains(&c.name.as_str()) && c.recv.as_ref().is_some_and(is_map))
                || c.args.iter().any(is_map)
        }
        Node::Expr(Expr::New(x)) => x.args.iter().any(is_map) && !keeps(x),
        Node::Expr(Expr::MethodRef(r)) => MUTATORS.contains(&r.name.as_str()) && is_map(&r.recv),
        Node::Expr(Expr::Assign(a)) => {
            (is_map(&a.value) && !(m.is_ctor && is_map(&a.target)))
                || (is_map(&a.target) && !(m.is_ctor && is_map(&a.value)))
        }
        Node::Stmt(Stmt::Local { init: Some(e), .. }) | Node::Stmt(Stmt::Return(Some(e), _)) => {
            is_map(e)
        }
        _ => false,
    })
}

/// The classes bean method `b` puts into a map of `v`: the subtypes of `v` it takes as
/// parameters, reads from fields, gets from the configuration's own bean methods or makes with
/// `new`, each with its own subtypes (the bean may be one of them); `None` when it may put in
/// others it does not name: a parameter or field of type `v` (or a supertype) or of a generic
/// type naming it, a container lookup (`getBeansOfType`), a call on another project object or
/// a static call of a project class,
/// a configuration method returning anything else, an anonymous class,
/// or a configuration class that overrides the bean method.
fn listed(project: &Project, b: MethodId, v: ClassRef) -> Option<Vec<ClassRef>> {
    let m = project.method(b);
    let at = project.class_of(b);
    if project.subtypes_of(at).iter().any(|s| {
        project
            .methods_of(*s)
            .iter()
            .any(|x| project.method(*x).name == m.name)
    }) {
        return None;
    }
    let resolve = |ty: &str| {
        let ty = ty
            .trim_start_matches("? extends ")
            .trim_start_matches("? super ");
        project.resolve_type(b.0, Some(m.class), erased(ty))
    };
    let related = |k: ClassRef| {
        k == v || project.supertypes_of(v).contains(&k) || project.supertypes_of(k).contains(&v)
    };
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
        w.contains('?')
            || type_args(w)
                .iter()
                .any(|a| matches!(resolve(a), TypeRef::Project(k) if related(k)))
    };
    // The type of a parameter or field of the configuration named `n`.
    let declared = |n: &str| -> Option<String> {
        match m.params.iter().find(|p| p.name == n) {
            Some(p) => Some(written_type(&p.ty, &p.generic).to_string()),
            None => project
                .field(at, n)
                .map(|(_, f)| written_type(&f.ty, &f.generic).to_string()),
        }
    };
    // Another project object (not an element): what it returns may be any element.
    let other =
        |t: &TypeRef| matches!(t, TypeRef::Project(k) if !project.supertypes_of(*k).contains(&v));
    let mut out = Vec::new();
    for p in &m.params {
        let w = written_type(&p.ty, &p.generic);
        // A generic parameter of project types (a `List<ProviderFactory>`) hands in objects
        // that may make any element.
        if names_element(w)
            || type_args(w)
                .iter()
                .any(|a| matches!(resolve(a), TypeRef::Project(_)))
        {
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
                if !x.anon.is_empty() && matches!(t, TypeRef::Project(k) if related(k)) {
                    return None;
                }
                take(t, &mut out)?;
            }
            Expr::Call(c) if CONTAINER_LOOKUPS.contains(&c.name.as_str()) => return None,
            Expr::Call(c) => {
                let recv = match c.recv.as_ref().map(Expr::peel) {
                    None | Some(Expr::This(_)) => {
                        for t in project.resolve_call(at, c, None) {
                            let tm = project.method(t);
                            let ret = written_type(&tm.ret, &tm.ret_generic);
                            let rt = project.resolve_type(t.0, Some(tm.class), erased(ret));
                            if names_element(ret) || other(&rt) {
                                return None;
                            }
                            take(rt, &mut out)?;
                        }
                        continue;
                    }
                    Some(r) => r,
                };
                // What the call is made on: a parameter, field, local or loop variable by its
                // declared type, a class by its name, a new object by its class.
                let t = match recv {
                    Expr::Name(n, _) => match declared(n).or_else(|| local_type(&body, n)) {
                        Some(w) if w == "var" => return None,
                        Some(w) => Some(resolve(&w)),
                        // A static call of a project class (a factory, a helper making maps).
                        None => match project.resolve_type(b.0, Some(m.class), n) {
                            TypeRef::Project(_) => return None,
                            t => Some(t),
                        },
                    },
                    Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => {
                        declared(n).map(|w| resolve(&w))
                    }
                    Expr::Field(..) => match recv
                        .dotted()
                        .map(|d| project.resolve_type(b.0, Some(m.class), &d))
                    {
                        Some(TypeRef::Project(_)) => return None,
                        t => t,
                    },
                    Expr::New(x) => Some(resolve(&x.ty)),
                    _ => None,
                };
                if let Some(t) = t
                    && (other(&t) || project.type_is(&t, "java.util.ServiceLoader"))
                {
                    return None;
                }
            }
            Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => {
                let w = declared(n)?;
                if names_element(&w) {
                    return None;
                }
                take(resolve(&w), &mut out)?;
            }
            Expr::Name(n, _)
                if !m.params.iter().any(|p| p.name == *n) && local_type(&body, n).is_none() =>
            {
                if let Some(w) = declared(n) {
                    if names_element(&w) {
                        return None;
                    }
                    take(resolve(&w), &mut out)?;
                }
            }
            _ => {}
        }
    }
    Some(out)
}

/// The declared type of local (or loop variable) `n` of the block, if it declares one.
fn local_type(body: &crate::java::ir::Block, n: &str) -> Option<String> {
    Node::all(body).find_map(|x| match x {
        Node::Stmt(Stmt::Local { name, ty, .. }) if name == n => Some(ty.clone()),
        Node::Stmt(Stmt::Loop {
            each: Some((ty, name, _)),
            ..
        }) if name == n => Some(ty.clone()),
        _ => None,
    })
}

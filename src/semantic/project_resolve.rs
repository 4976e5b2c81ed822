//! Call resolution as javac binds calls (SPEC §8): by the receiver's static type, the method
//! by name and arity in the type and its supertypes — the most specific declaration — plus
//! overrides in its project subtypes; `this(…)`/`super(…)` to constructors; and what `new`
//! runs (constructors, field initializers, superclass constructors).

use super::*;

impl Project {
    fn arity_ok(m: &Method, n: usize) -> bool {
        let p = m.params.len();
        p == n || (p > 0 && m.params[p - 1].ty.ends_with("[]") && n + 1 >= p)
    }

    /// Methods named `name` with `arity` declared in `c` or inherited by it.
    pub fn methods_in_hierarchy(&self, c: ClassRef, name: &str, arity: usize) -> Vec<MethodId> {
        let mut out = Vec::new();
        // A record's component accessor, written or implicit, overrides a supertype's method
        // of its name (an interface default).
        let accessor = arity == 0
            && self.class(c).kind == crate::java::ir::ClassKind::Record
            && self
                .class(c)
                .fields
                .iter()
                .any(|f| f.name == name && !f.modifiers.is_static);
        for k in std::iter::once(c).chain(self.supertypes_of(c).iter().copied()) {
            if accessor && k != c {
                continue;
            }
            for m in self.methods_named(k, name) {
                let mm = self.method(*m);
                if !mm.is_ctor && Self::arity_ok(mm, arity) {
                    out.push(*m);
                }
            }
        }
        // What runs is the most specific declaration: a method of a supertype that a class
        // nearer the receiver overrides (same parameter types) never runs for it.
        let overridden: Vec<bool> = out
            .iter()
            .map(|m| {
                let k = self.class_of(*m);
                out.iter().any(|o| {
                    let ko = self.class_of(*o);
                    ko != k
                        && self.supertypes_of(ko).contains(&k)
                        && same_params(self.method(*m), self.method(*o))
                })
            })
            .collect();
        let mut i = 0;
        out.retain(|_| {
            i += 1;
            !overridden[i - 1]
        });
        // javac tries the methods applicable without variable arity first: `of(id)` runs
        // `of(String)`, not `of(String...)`, when both are declared (JLS 15.12.2).
        let fixed = |m: &MethodId| {
            let ps = &self.method(*m).params;
            ps.len() == arity && ps.last().is_none_or(|p| !p.ty.ends_with("[]"))
        };
        if out.iter().any(fixed) {
            out.retain(fixed);
        }
        out
    }

    /// The direct project superclass of `c` (not an interface), if it has one.
    pub fn superclass(&self, c: ClassRef) -> Option<ClassRef> {
        let sups = self.supertypes_of(c);
        self.supertypes
            .get(&c)
            .into_iter()
            .flatten()
            .copied()
            .find(|k| sups.contains(k) && self.class(*k).kind == crate::java::ir::ClassKind::Class)
    }

    /// What `new K(…)` with `arity` arguments runs besides the call itself: the constructors
    /// of `k` it may bind to, the field initializers of `k` and of its project superclasses,
    /// and the no-argument constructors of the superclasses that a constructor reaches without
    /// an explicit `this(…)`/`super(…)` (which the constructor's own body calls).
    pub fn construction(&self, k: ClassRef, arity: usize) -> Vec<MethodId> {
        let mut out = self.constructors(k, arity);
        let mut implicit = out.iter().all(|m| !self.calls_constructor(*m));
        let mut cur = Some(k);
        let mut seen = Vec::new();
        while let Some(c) = cur {
            if seen.contains(&c) {
                break;
            }
            seen.push(c);
            if let Some(init) = self.class(c).initializer {
                out.push((c.0, init as u32));
            }
            let Some(sup) = self.superclass(c) else { break };
            if implicit {
                let ctors = self.constructors(sup, 0);
                implicit = ctors.iter().all(|m| !self.calls_constructor(*m));
                out.extend(ctors);
            }
            cur = Some(sup);
        }
        out.sort();
        out.dedup();
        out
    }

    /// Does constructor `m` start with `this(…)` or `super(…)`?
    fn calls_constructor(&self, m: MethodId) -> bool {
        self.method(m).delegates
    }

    /// Project methods a call may run, as javac would bind it: by the receiver's static type
    /// (the method by name and arity in the type and its supertypes, plus overrides in its
    /// project subtypes), or, for an unqualified call, in the enclosing classes (innermost
    /// first) and then the static imports. Any other receiver makes a library call: none.
    pub fn resolve_call(
        &self,
        caller: ClassRef,
        call: &Call,
        recv: Option<Option<TypeRef>>,
    ) -> Vec<MethodId> {
        let arity = call.args.len();
        // `this(…)` / `super(…)` in a constructor.
        if recv.is_none() && !call.on_super && matches!(call.name.as_str(), "this" | "super") {
            let k = if call.name == "this" {
                Some(caller)
            } else {
                self.superclass(caller)
            };
            let mut out = k.map(|k| self.constructors(k, arity)).unwrap_or_default();
            if call.name == "super"
                && let Some(k) = k
                && let Some(init) = self.class(k).initializer
            {
                out.push((k.0, init as u32));
            }
            out.sort();
            out.dedup();
            return out;
        }
        // `super.name(…)`: the superclass's (or a direct interface's) method, not an override.
        if recv.is_none() && call.on_super {
            let mut out: Vec<MethodId> = Vec::new();
            let direct: Vec<ClassRef> = self.supertypes.get(&caller).cloned().unwrap_or_default();
            let sups = self.supertypes_of(caller);
            for k in direct.into_iter().filter(|k| sups.contains(k)) {
                out.extend(self.methods_in_hierarchy(k, &call.name, arity));
            }
            out.sort();
            out.dedup();
            return out;
        }
        let mut out = match recv {
            None => {
                // Unqualified or on `this`: the enclosing classes, innermost first.
                let mut cur = Some(caller);
                let mut found = Vec::new();
                while let Some(cc) = cur {
                    found = self.methods_in_hierarchy(cc, &call.name, arity);
                    if !found.is_empty() {
                        for m in found.clone() {
                            // A static method hides and a private one is not inherited: no
                            // subtype overrides either (JLS 8.4.8).
                            if !self.overridable(m) {
                                continue;
                            }
                            let subs = self.subtypes_of(self.class_of(m));
                            for x in self.methods_named_in(subs, &call.name) {
                                if self.overridable(x)
                                    && Self::arity_ok(self.method(x), arity)
                                    && self.modules().run_together(caller.0, x.0)
                                {
                                    found.push(x);
                                }
                            }
                        }
                        break;
                    }
                    cur = self.class(cc).outer.map(|o| (cc.0, o as u32));
                }
                if found.is_empty() {
                    found = self.static_import_methods(caller.0, &call.name, arity);
                }
                found
            }
            Some(Some(TypeRef::Project(c))) => {
                let mut found = self.methods_in_hierarchy(c, &call.name, arity);
                // Overrides in the subtypes, unless what the type binds is static or private.
                let virtual_call = found.is_empty() || found.iter().any(|m| self.overridable(*m));
                if virtual_call {
                    for x in self.methods_named_in(self.subtypes_of(c), &call.name) {
                        let mm = self.method(x);
                        if !mm.is_ctor
                            && self.overridable(x)
                            && Self::arity_ok(mm, arity)
                            && self.modules().run_together(caller.0, x.0)
                        {
                            found.push(x);
                        }
                    }
                }
                found
            }
            // A receiver that is not a project type — a library type, or one that cannot be
            // resolved — makes a library call: never matched to a project method by name.
            Some(Some(TypeRef::External(_) | TypeRef::Unknown(_))) | Some(None) => Vec::new(),
        };
        out.sort();
        out.dedup();
        out
    }

    /// Can a subtype override method `m` (an instance method that is not private)?
    fn overridable(&self, m: MethodId) -> bool {
        let mods = &self.method(m).modifiers;
        !mods.is_static && !mods.is_private
    }

    fn static_import_methods(&self, file: u32, name: &str, arity: usize) -> Vec<MethodId> {
        let mut out = Vec::new();
        for imp in &self.files[file as usize].facts.imports {
            if !imp.is_static {
                continue;
            }
            let class_path = if imp.wildcard {
                imp.path.as_str()
            } else if imp.path.rsplit('.').next() == Some(name) {
                imp.path.rsplit_once('.').map(|x| x.0).unwrap_or("")
            } else {
                continue;
            };
            if let Some(c) = self.lookup(file, class_path) {
                out.extend(self.methods_in_hierarchy(*c, name, arity));
            }
        }
        out
    }

    /// The class a static import of member `name` in `file` comes from, if any.
    pub fn static_import_class(&self, file: u32, name: &str) -> Vec<String> {
        self.files[file as usize]
            .facts
            .imports
            .iter()
            .filter(|i| i.is_static)
            .filter_map(|i| {
                if i.wildcard {
                    Some(i.path.to_string())
                } else if i.path.rsplit('.').next() == Some(name) {
                    i.path.rsplit_once('.').map(|x| x.0.to_string())
                } else {
                    None
                }
            })
            .collect()
    }

    /// Constructors of `c` taking `arity` arguments.
    pub fn constructors(&self, c: ClassRef, arity: usize) -> Vec<MethodId> {
        self.methods_of(c)
            .iter()
            .copied()
            .filter(|m| {
                let mm = self.method(*m);
                mm.is_ctor && Self::arity_ok(mm, arity)
            })
            .collect()
    }
}

/// Do two methods take parameters of the same types (by simple names, type arguments erased)?
fn same_params(a: &crate::java::ir::Method, b: &crate::java::ir::Method) -> bool {
    let simple = |t: &str| {
        let t = crate::semantic::generics::erased(t);
        t.rsplit('.').next().unwrap_or(t).trim().to_string()
    };
    a.params.len() == b.params.len()
        && a.params
            .iter()
            .zip(&b.params)
            .all(|(x, y)| simple(&x.ty) == simple(&y.ty))
}

//! Type arguments, as far as javac would know them: the parameter of a lambda given to a library
//! generic method is typed from the receiver's declared type arguments
//! (`repository.findById(id).map(dispatch -> dispatch.getAttemptCount())` on an
//! `Optional<Dispatch>` gives `dispatch` the type `Dispatch`), and a value read out of a generic
//! container has its type argument's type (`claim.get()` on an `Optional<Claim>` is a `Claim`).
//!
//! Declarations keep their type arguments as written ([`crate::java::ir::Generic`]); here they
//! are *qualified* (every name resolved where it is written, `Optional<Dispatch>` →
//! `java.util.Optional<com.acme.Dispatch>`), so that a type read from another file's declaration
//! can be carried into the method being typed. Which library methods pass which type argument
//! on is catalogue data (`[[sources.generic]]`, [`GenericReturn`]).

use super::{ClassRef, Locals, TypeRef, Typer};
use crate::java::ir::{Call, Expr, written_type};

/// Qualified types built from nested type arguments before giving up.
const MAX_NESTING: usize = 8;

/// What a library generic method returns, from its receiver's type arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenericReturn {
    /// The receiver's type argument `i` itself (`Optional<T>.get()` → `T`).
    Arg(usize),
    /// A library generic type with some of the receiver's type arguments
    /// (`Collection<T>.stream()` → `Stream<T>`: `("java.util.stream.Stream", [0])`).
    Type(String, Vec<usize>),
    /// A library generic type of what the function argument `i` returns (`Stream<T>.map(f)` →
    /// `Stream<R>`: `("java.util.stream.Stream", 0)`).
    Mapped(String, usize),
}

/// The erased part of a written type: `Map<K,V>` → `Map`.
pub fn erased(written: &str) -> &str {
    written.split('<').next().unwrap_or(written)
}

/// The top-level type arguments of a written type: `Map<String,List<X>>` → `["String",
/// "List<X>"]`; none for a type without any.
pub fn type_args(written: &str) -> Vec<&str> {
    let Some(open) = written.find('<') else {
        return Vec::new();
    };
    let Some(inner) = written[open + 1..].trim_end().strip_suffix('>') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, ch) in inner.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner[start..].trim());
    out
}

/// A type argument without its wildcard bound (`? extends Payment` → `Payment`); `None` for an
/// unbounded `?`.
fn unwildcard(arg: &str) -> Option<&str> {
    let a = arg.trim();
    let a = ["?extends", "? extends ", "?super", "? super "]
        .iter()
        .find_map(|p| a.strip_prefix(p))
        .unwrap_or(a)
        .trim();
    (!a.is_empty() && a != "?").then_some(a)
}

/// Where the identifiers of a written type that may name a type parameter are: not a segment
/// after a `.` (`T` in `Map<String,T>`, not `Entry` in `Map.Entry`).
fn ident_spans(written: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let bytes = written.as_bytes();
    let ends = std::iter::once((written.len(), ' '));
    for (i, ch) in written.char_indices().chain(ends) {
        let word = ch.is_alphanumeric() || ch == '_' || ch == '$';
        match (start, word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                if s == 0 || bytes[s - 1] != b'.' {
                    out.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The identifiers of a written type that may name a type parameter ([`ident_spans`]).
fn idents(written: &str) -> impl Iterator<Item = &str> {
    ident_spans(written)
        .into_iter()
        .map(|(s, e)| &written[s..e])
}

/// `written` with each identifier that `with` maps ([`ident_spans`]) replaced.
fn substitute<'r>(written: &str, with: &dyn Fn(&str) -> Option<&'r str>) -> String {
    let mut out = String::with_capacity(written.len());
    let mut at = 0;
    for (s, e) in ident_spans(written) {
        if let Some(r) = with(&written[s..e]) {
            out.push_str(&written[at..s]);
            out.push_str(r);
            at = e;
        }
    }
    out.push_str(&written[at..]);
    out
}

impl<L: Locals + ?Sized> Typer<'_, '_, L> {
    /// A type written in class `at` with every name in it qualified, so that it reads the same
    /// in any class; `None` for an unbounded wildcard.
    pub fn qualify(&self, at: ClassRef, written: &str) -> Option<String> {
        self.qualify_at(at, written, 0)
    }

    fn qualify_at(&self, at: ClassRef, written: &str, depth: usize) -> Option<String> {
        if depth > MAX_NESTING {
            return None;
        }
        let w = unwildcard(written)?;
        let base = erased(w);
        let dims = &base[base.trim_end_matches("[]").len()..];
        let name = base.trim_end_matches("[]");
        let mut out = match self.project.resolve_type(at.0, Some(at.1 as usize), name) {
            TypeRef::Project(k) => self.project.class(k).fqn.to_string(),
            TypeRef::External(f) => f,
            TypeRef::Unknown(n) => n,
        };
        let args = type_args(w);
        if !args.is_empty() {
            let q: Vec<String> = args
                .iter()
                .map(|a| {
                    self.qualify_at(at, a, depth + 1)
                        .unwrap_or_else(|| "?".into())
                })
                .collect();
            out.push('<');
            out.push_str(&q.join(","));
            out.push('>');
        }
        out.push_str(dims);
        Some(out)
    }

    /// The static type of `e`, qualified, with the type arguments it is known to have; `None`
    /// when they cannot be told.
    pub(super) fn generic_at(&self, e: &Expr, depth: usize) -> Option<String> {
        if depth > super::typer::MAX_TYPE_DEPTH {
            return None;
        }
        match e.peel() {
            Expr::Name(n, _) => match self.locals.local(n) {
                Some(d) if d.ty == "var" => self.generic_at(d.init?, depth + 1),
                Some(d) if d.ty.contains('<') => self.qualify(self.class, d.ty),
                Some(_) => None,
                None => self.field_generic(self.class, n),
            },
            Expr::Field(r, n, _) if matches!(**r, Expr::This(_)) => {
                self.field_generic(self.class, n)
            }
            Expr::Ternary(_, a, b, _) => self
                .generic_at(a, depth + 1)
                .or_else(|| self.generic_at(b, depth + 1)),
            Expr::Call(c) => self.call_generic(c, depth),
            _ => None,
        }
    }

    /// A field's declared type with its type arguments, qualified where it is declared.
    fn field_generic(&self, from: ClassRef, n: &str) -> Option<String> {
        let (owner, f) = self.project.field(from, n)?;
        f.generic.as_ref()?;
        self.qualify(owner, written_type(&f.ty, &f.generic))
    }

    /// What a call returns, with its type arguments: a project method's declared return type,
    /// or a library generic method's (catalogue) from its receiver's type arguments.
    fn call_generic(&self, c: &Call, depth: usize) -> Option<String> {
        let recv = c.recv.as_ref()?;
        let owner = if self.is_type_name(recv) {
            self.resolve(&recv.dotted()?)
        } else {
            self.type_at(recv, depth + 1)?
        };
        if let TypeRef::Project(k) = owner {
            let m = *self
                .project
                .methods_in_hierarchy(k, &c.name, c.args.len())
                .first()?;
            if let Some(g) = self.project_generic_return(Some(recv), k, m, depth) {
                return Some(g);
            }
            let mm = self.project.method(m);
            mm.ret_generic.as_ref()?;
            return self.qualify(
                (m.0, mm.class as u32),
                written_type(&mm.ret, &mm.ret_generic),
            );
        }
        let ret = self
            .factories
            .generic_return(&|class| self.project.type_is(&owner, class), &c.name)?;
        if let GenericReturn::Mapped(t, f) = &ret {
            let r = self.fn_return_generic(c.args.get(*f)?)?;
            return Some(format!("{t}<{r}>"));
        }
        let recv_t = self.generic_at(recv, depth + 1)?;
        let args = type_args(&recv_t);
        match ret {
            GenericReturn::Mapped(..) => None,
            GenericReturn::Arg(i) => args.get(i).and_then(|a| unwildcard(a)).map(str::to_string),
            GenericReturn::Type(t, keeps) if keeps.is_empty() => Some(t),
            GenericReturn::Type(t, keeps) => {
                let kept: Option<Vec<&str>> = keeps.iter().map(|i| args.get(*i).copied()).collect();
                Some(format!("{t}<{}>", kept?.join(",")))
            }
        }
    }

    /// What a call of the project method `m`, found on the receiver's project class `k`,
    /// returns when its declared return type names a type parameter of `m`'s class, with the
    /// type arguments the receiver gives it, qualified: `holder.get()` on a
    /// `Holder<KeyFactory>` (`class Holder<T> { T get() }`) is a `KeyFactory`, and so is
    /// `keys.get()` on a `class KeyHolder extends Holder<KeyFactory>`. `None` when the return
    /// type names none, or names one whose argument is not known (a raw type, `<>`, a method's
    /// own type parameter).
    pub(super) fn project_generic_return(
        &self,
        recv: Option<&Expr>,
        k: ClassRef,
        m: super::MethodId,
        depth: usize,
    ) -> Option<String> {
        let mm = self.project.method(m);
        let decl: ClassRef = (m.0, mm.class as u32);
        let params = &self.project.class(decl).type_params;
        let ret = written_type(&mm.ret, &mm.ret_generic);
        // A method's own type parameter hides its class's of the same name.
        let names =
            |n: &str| params.iter().any(|p| p == n) && !mm.type_params.iter().any(|p| p == n);
        if params.is_empty() || !idents(ret).any(&names) {
            return None;
        }
        let args = self.class_args(recv, k, decl, depth)?;
        let bound = |n: &str| -> Option<&str> {
            let i = params.iter().position(|p| p == n)?;
            args.get(i)?.as_deref()
        };
        let written = substitute(ret, &|n| {
            if names(n) {
                Some(bound(n).unwrap_or("?"))
            } else {
                None
            }
        });
        self.qualify(decl, &written)
    }

    /// The type arguments, qualified, that a receiver of project class `k` gives the type
    /// parameters of its class or superclass `decl`: its own declared type arguments
    /// (`Holder<KeyFactory> holder`), carried up through each `extends Base<Arg>` on the way;
    /// `None` for one that is not known. `recv` is the receiver (`None`: an unqualified call).
    fn class_args(
        &self,
        recv: Option<&Expr>,
        k: ClassRef,
        decl: ClassRef,
        depth: usize,
    ) -> Option<Vec<Option<String>>> {
        let own = &self.project.class(k).type_params;
        let mut args: Vec<Option<String>> = match recv.and_then(|r| self.generic_at(r, depth + 1)) {
            Some(g) if !own.is_empty() => type_args(&g)
                .iter()
                .map(|a| unwildcard(a).map(str::to_string))
                .collect(),
            _ => vec![None; own.len()],
        };
        let mut cls = k;
        for _ in 0..MAX_NESTING {
            if cls == decl {
                return Some(args);
            }
            let c = self.project.class(cls);
            let (sup, written) = c.supertypes.iter().find_map(|s| {
                let TypeRef::Project(sk) =
                    self.project.resolve_type(cls.0, Some(cls.1 as usize), s)
                else {
                    return None;
                };
                if sk != decl && !self.project.supertypes_of(sk).contains(&decl) {
                    return None;
                }
                let written = c
                    .generic_supertypes
                    .iter()
                    .find(|g| erased(g) == s.as_str());
                Some((sk, written))
            })?;
            let params = &c.type_params;
            let sup_params = self.project.class(sup).type_params.len();
            args = match written {
                Some(w) => {
                    let bound = |n: &str| {
                        let i = params.iter().position(|p| p == n)?;
                        Some(args.get(i)?.as_deref().unwrap_or("?"))
                    };
                    let q = self.qualify(cls, &substitute(w, &bound))?;
                    type_args(&q)
                        .iter()
                        .map(|a| unwildcard(a).map(str::to_string))
                        .collect()
                }
                None => vec![None; sup_params],
            };
            cls = sup;
        }
        None
    }

    /// What a function argument returns, qualified: the declared return type of the project
    /// method a method reference names (`workflow::getTaskByRefName`, `Task::getName`), when
    /// every method it may name returns the same type; `None` for anything else.
    fn fn_return_generic(&self, f: &Expr) -> Option<String> {
        let Expr::MethodRef(r) = f.peel() else {
            return None;
        };
        let targets = super::calls::method_ref_targets(
            self.project,
            self.class,
            r,
            |e| self.type_of(e),
            |e| self.is_type_name(e),
        );
        let mut ret: Option<String> = None;
        for m in targets {
            let mm = self.project.method(m);
            if mm.is_ctor || mm.ret.is_empty() || mm.ret == "void" {
                return None;
            }
            let q = self.qualify(
                (m.0, mm.class as u32),
                written_type(&mm.ret, &mm.ret_generic),
            )?;
            if ret.as_ref().is_some_and(|x| *x != q) {
                return None;
            }
            ret = Some(q);
        }
        ret
    }

    /// The type of `recv.name(…)` on a library generic type whose catalogue row returns one of
    /// the receiver's type arguments (`optional.get()` on an `Optional<Claim>`), or a library
    /// generic type; `None` when no row says so or the argument is not known.
    pub(super) fn generic_call_type(
        &self,
        owner: &TypeRef,
        c: &Call,
        depth: usize,
    ) -> Option<TypeRef> {
        if matches!(owner, TypeRef::Project(_)) {
            return None;
        }
        let ret = self
            .factories
            .generic_return(&|class| self.project.type_is(owner, class), &c.name)?;
        match ret {
            GenericReturn::Type(t, _) | GenericReturn::Mapped(t, _) => Some(TypeRef::External(t)),
            GenericReturn::Arg(i) => {
                let recv_t = self.generic_at(c.recv.as_ref()?, depth + 1)?;
                let arg = unwildcard(type_args(&recv_t).get(i)?)?;
                // A type variable says nothing more than the library call does.
                Some(self.resolve(arg)).filter(TypeRef::is_known)
            }
        }
    }

    /// The types javac gives the parameters of a lambda passed to `c`, from the receiver's type
    /// arguments (`optional.map(d -> …)` on an `Optional<Dispatch>`, `map.forEach((k, v) -> …)`
    /// on a `Map<String, Payment>`): one per parameter in `params` (name, written type), each
    /// qualified, `None` where it has a written type or cannot be told.
    pub fn lambda_param_types(
        &self,
        c: &Call,
        params: &[(crate::java::ir::Name, Option<crate::java::ir::Name>)],
    ) -> Vec<Option<String>> {
        let mut out = vec![None; params.len()];
        let Some(recv) = c.recv.as_ref() else {
            return out;
        };
        if params.iter().all(|(_, t)| t.is_some()) || self.is_type_name(recv) {
            return out;
        }
        let Some(owner) = self.type_of(recv) else {
            return out;
        };
        if matches!(owner, TypeRef::Project(_)) {
            return out;
        }
        let Some(which) = self
            .factories
            .lambda_params(&|class| self.project.type_is(&owner, class), &c.name)
        else {
            return out;
        };
        let Some(recv_t) = self.generic_at(recv, 0) else {
            return out;
        };
        let args = type_args(&recv_t);
        for (i, slot) in out.iter_mut().enumerate() {
            if params[i].1.is_some() {
                continue;
            }
            *slot = which
                .get(i)
                .and_then(|a| args.get(*a))
                .and_then(|a| unwildcard(a))
                .map(str::to_string);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::ir::Stmt;
    use crate::semantic::{DeclaredSoFar, Defs, Factories, Project, SourceFile, collect_defs};
    use std::collections::HashMap;

    #[test]
    fn a_type_parameter_is_replaced_as_a_whole_name_and_never_after_a_dot() {
        let with = |n: &str| (n == "T").then_some("p.Key");
        assert_eq!(substitute("T", &with), "p.Key");
        assert_eq!(
            substitute("Map<T,List<T>>", &with),
            "Map<p.Key,List<p.Key>>"
        );
        assert_eq!(substitute("a.T<Tx>", &with), "a.T<Tx>");
    }

    /// `Optional<T>`: `map(t -> …)` gets `T`, `get()` returns `T`; `Map<K, V>.forEach` both.
    struct Jdk;

    impl Factories for Jdk {
        fn static_factory(&self, _: &dyn Fn(&str) -> bool, _: &str) -> Option<String> {
            None
        }
        fn instance_factory(&self, _: &str, _: &str) -> Option<String> {
            None
        }
        fn lambda_params(
            &self,
            owner_is: &dyn Fn(&str) -> bool,
            method: &str,
        ) -> Option<Vec<usize>> {
            match method {
                "map" if owner_is("java.util.Optional") => Some(vec![0]),
                "forEach" if owner_is("java.util.Map") => Some(vec![0, 1]),
                _ => None,
            }
        }
        fn generic_return(
            &self,
            owner_is: &dyn Fn(&str) -> bool,
            method: &str,
        ) -> Option<GenericReturn> {
            (method == "get" && owner_is("java.util.Optional")).then_some(GenericReturn::Arg(0))
        }
    }

    #[test]
    fn a_lambda_parameter_gets_the_receiver_s_type_argument_from_another_file_s_declaration() {
        let files = [
            "package p.model; public class Dispatch { public int getAttemptCount() { return 0; } }",
            "package p.repo; import java.util.Optional; import p.model.Dispatch; \
             public interface Repo { Optional<Dispatch> find(Long id); }",
            "package p; import java.util.Map; import p.model.Dispatch; import p.repo.Repo; \
             class A { Repo repo; Map<String, Dispatch> byId; void m() { \
               repo.find(1L).map(d -> d.getAttemptCount()); \
               byId.forEach((k, v) -> v.getAttemptCount()); \
               var found = repo.find(2L); found.get().getAttemptCount(); \
               repo.find(3L).map((Object o) -> o); } }",
        ];
        let p = Project::new(
            files
                .iter()
                .enumerate()
                .map(|(i, src)| SourceFile {
                    path: format!("F{i}.java"),
                    facts: crate::java::parse(src.as_bytes()).expect("parses"),
                })
                .collect(),
        );
        let m = p
            .all_methods()
            .find(|m| p.method(*m).name == "m")
            .expect("m");
        let mm = p.method(m);
        let body = mm.body().expect("body");
        let mut defs = Defs::new();
        collect_defs(body, &mut defs);
        let types: HashMap<String, String> = [("found".to_string(), "var".to_string())].into();
        let locals = DeclaredSoFar {
            types: &types,
            defs: &defs,
        };
        let typer = Typer {
            project: &p,
            factories: &Jdk,
            class: p.class_of(m),
            locals: &locals,
        };
        let call = |i: usize| match &body[i] {
            Stmt::Expr(Expr::Call(c)) => c.clone(),
            other => panic!("{other:?}"),
        };
        let lambda_types = |c: &Call| {
            let Some(Expr::Lambda(l)) = c.args.first() else {
                panic!("a lambda")
            };
            typer.lambda_param_types(c, &mm.scopes[l.scope as usize].params)
        };
        assert_eq!(
            lambda_types(&call(0)),
            vec![Some("p.model.Dispatch".to_string())]
        );
        assert_eq!(
            lambda_types(&call(1)),
            vec![
                Some("java.lang.String".to_string()),
                Some("p.model.Dispatch".to_string())
            ]
        );
        // `found.get()` on a `var` holding the finder's `Optional<Dispatch>` is a `Dispatch`.
        let get = call(3);
        let TypeRef::Project(k) = typer
            .type_of(get.recv.as_ref().expect("recv"))
            .expect("typed")
        else {
            panic!("a project type")
        };
        assert_eq!(p.class(k).name, "Dispatch");
        // A parameter with a written type keeps it.
        assert_eq!(lambda_types(&call(4)), vec![None]);
    }

    #[test]
    fn type_arguments_split_at_the_top_level_only() {
        assert_eq!(type_args("Map<String,List<X>>"), vec!["String", "List<X>"]);
        assert_eq!(type_args("Optional<a.B>"), vec!["a.B"]);
        assert!(type_args("String").is_empty());
        assert_eq!(erased("Map.Entry<K,V>"), "Map.Entry");
        assert_eq!(unwildcard("?extends Payment"), Some("Payment"));
        assert_eq!(unwildcard("?"), None);
    }
}

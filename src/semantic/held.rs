//! Functions held in fields (SPEC §6): `ids.get()` on a field `Supplier<UUID> ids` runs the
//! function put into the field — by its initializer, by a constructor (`this.ids =
//! UUID::randomUUID`, or a parameter a delegating constructor fills), or, for a field without
//! an initializer that a container fills, by a bean method returning the field's type (`@Bean
//! Supplier<UUID> uuids() { return UUID::randomUUID; }`). What the function returns is
//! evaluated at the call: the interpreter takes it from those methods' summaries (the sources
//! they store into the field, the sources a bean method returns), and the call graph makes
//! them dependencies of the caller, summarised first, without making them part of what a
//! region runs.

use super::{ClassRef, Locals, MethodId, Project, TypeRef, Typer};
use crate::java::ir::{Call, ClassKind, Expr};
use std::collections::HashMap;

/// The field a call runs the function of, and the methods that may have put it there.
#[derive(Debug, PartialEq, Eq)]
pub struct Held {
    /// The field, by name.
    pub field: String,
    /// Its class's field initializer and constructors: the sources each stores into the field.
    pub writers: Vec<MethodId>,
    /// The bean methods returning the field's type, for a field without an initializer: the
    /// sources each returns.
    pub beans: Vec<MethodId>,
}

/// Bean methods by the simple name of the type they return.
pub(super) type BeanIndex = HashMap<String, Vec<MethodId>>;

impl<L: Locals + ?Sized> Typer<'_, '_, L> {
    /// The function-holding field `c` calls, if it calls one: a field of the class (not a local
    /// or a parameter), not static, whose type is a library functional type whose function `c`
    /// names (`Supplier.get`) or a project interface whose one abstract method it names.
    pub fn held_function(&self, c: &Call) -> Option<Held> {
        let name = match c.recv.as_ref()?.peel() {
            Expr::Name(n, _) if self.is_field(n) => n,
            Expr::Field(r, n, _) if matches!(r.peel(), Expr::This(_)) => n,
            _ => return None,
        };
        let project = self.project;
        let (owner, field) = project.field(self.class, name)?;
        if field.modifiers.is_static {
            return None;
        }
        let ty = project.resolve_type(
            owner.0,
            Some(owner.1 as usize),
            super::generics::erased(&field.ty),
        );
        let runs = match &ty {
            TypeRef::Project(k) => one_abstract_method(project, *k)
                .is_some_and(|m| m.0 == c.name && m.1 == c.args.len()),
            t => self
                .factories
                .runs_function(&|p| project.type_is(t, p), &c.name),
        };
        if !runs {
            return None;
        }
        let mut writers: Vec<MethodId> = project
            .methods_of(owner)
            .iter()
            .copied()
            .filter(|m| project.method(*m).is_ctor)
            .collect();
        if let Some(init) = project.class(owner).initializer {
            writers.push((owner.0, init as u32));
        }
        writers.sort();
        let beans = if field.init.is_none() {
            let written = crate::java::ir::written_type(&field.ty, &field.generic);
            self.beans_returning(&ty, written)
        } else {
            Vec::new()
        };
        Some(Held {
            field: name.to_string(),
            writers,
            beans,
        })
    }

    /// The bean methods whose declared return type is `ty`, written with the same type
    /// arguments as `written` (by simple names).
    fn beans_returning(&self, ty: &TypeRef, written: &str) -> Vec<MethodId> {
        let simple = simple_name(super::generics::erased(written));
        self.beans_of_written(ty, written, simple)
    }

    /// [`Self::beans_returning`], noting `note` as the name a file not parsed yet would have
    /// to mention to add one (a bean of `Map<K, V>` names `V`, not only `Map`).
    pub(super) fn beans_of_written(
        &self,
        ty: &TypeRef,
        written: &str,
        note: &str,
    ) -> Vec<MethodId> {
        let project = self.project;
        let simple = simple_name(super::generics::erased(written));
        let index = self.bean_index_noting(note);
        let want = type_args(written);
        let mut out: Vec<MethodId> = index
            .get(simple)
            .into_iter()
            .flatten()
            .copied()
            .filter(|b| {
                let m = project.method(*b);
                project.resolve_type(b.0, Some(m.class), super::generics::erased(&m.ret)) == *ty
                    && type_args(crate::java::ir::written_type(&m.ret, &m.ret_generic)) == want
            })
            .collect();
        out.sort();
        out
    }
}

impl<L: Locals + ?Sized> Typer<'_, '_, L> {
    /// The bean methods whose declared return type has the simple name `simple`.
    pub(super) fn beans_named(&self, simple: &str) -> Vec<MethodId> {
        self.bean_index_noting(simple)
            .get(simple)
            .cloned()
            .unwrap_or_default()
    }

    /// The project's bean methods by returned type, noting `note` as a name a file not parsed
    /// yet would have to mention to add one.
    fn bean_index_noting(&self, note: &str) -> &BeanIndex {
        let project = self.project;
        if let Some(d) = project.deps() {
            d.note_name(note);
        }
        project.beans(&|| bean_index(project, self.factories))
    }
}

/// The one abstract method of a project interface (name, arity), if it has exactly one.
fn one_abstract_method(project: &Project, k: ClassRef) -> Option<(&str, usize)> {
    if project.class(k).kind != ClassKind::Interface {
        return None;
    }
    let mut found = None;
    for id in project.methods_of(k) {
        let m = project.method(*id);
        if m.has_body()
            || m.modifiers.is_static
            || m.is_ctor
            || matches!(m.name.as_str(), "equals" | "hashCode" | "toString")
        {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some((m.name.as_str(), m.params.len()));
    }
    found
}

/// Every method whose annotations make its return value a bean, by the simple name of the type
/// it returns.
fn bean_index(project: &Project, factories: &dyn super::Factories) -> BeanIndex {
    let mut out = BeanIndex::new();
    for id in project.all_methods() {
        let m = project.method(id);
        if m.annotations.is_empty() || m.ret.is_empty() || m.is_ctor {
            continue;
        }
        let annotated = |fqn: &str| {
            m.annotations.iter().any(|a| {
                let t = project.resolve_type(id.0, Some(m.class), &a.name);
                project.type_is(&t, fqn)
            })
        };
        if factories.makes_bean(&annotated) {
            let simple = simple_name(super::generics::erased(&m.ret));
            out.entry(simple.to_string()).or_default().push(id);
        }
    }
    out
}

pub(super) fn simple_name(ty: &str) -> &str {
    ty.rsplit('.').next().unwrap_or(ty).trim()
}

/// The type arguments of a written type, each name by its last segment, without spaces:
/// `Supplier<java.util.UUID>` and `Supplier< UUID >` both give `UUID`.
fn type_args(written: &str) -> String {
    let Some(open) = written.find('<') else {
        return String::new();
    };
    let mut out = String::new();
    let mut word = String::new();
    for ch in written[open..].chars() {
        if ch.is_alphanumeric() || ch == '_' || ch == '$' {
            word.push(ch);
        } else if ch == '.' {
            word.clear();
        } else {
            out.push_str(&word);
            word.clear();
            if !ch.is_whitespace() {
                out.push(ch);
            }
        }
    }
    out.push_str(&word);
    out
}

#[cfg(test)]
mod tests {
    use super::type_args;

    #[test]
    fn type_arguments_compare_by_simple_names() {
        assert_eq!(type_args("Supplier<java.util.UUID>"), "<UUID>");
        assert_eq!(type_args("Supplier< UUID >"), "<UUID>");
        assert_eq!(
            type_args("Function<String, Optional<java.time.Instant>>"),
            "<String,Optional<Instant>>"
        );
        assert_eq!(type_args("Clock"), "");
    }
}

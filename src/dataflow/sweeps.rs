//! What a scheduled sweep selects and what it marks (SPEC 7.4, a transactional outbox fired by
//! a scheduler): the properties its storage queries select rows by — the words of a derived
//! query's name (`findByStatusAndDueAtBefore`), or the conditions of the query text its
//! repository method is annotated with (`@Query("… where e.status = 'OPEN'")`) — and the
//! properties it sets on objects of those rows' classes (`hold.setStatus("EXPIRED")`). A firing
//! that, in the transaction that writes its outbox rows, changes what its query selects by takes
//! its items out of the next firing's selection (`rules::swept`).

use super::cx::*;
use crate::java::ir::*;
use crate::semantic::{ClassRef, TypeRef};
use std::collections::BTreeSet;

/// The properties a method's queries select by and those it sets, each as
/// `file:class.property` of the row class (the property lowercased without underscores).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sweep {
    pub selects: BTreeSet<String>,
    pub marks: BTreeSet<String>,
}

impl Sweep {
    pub fn is_empty(&self) -> bool {
        self.selects.is_empty() && self.marks.is_empty()
    }
}

/// A property's name as queries, columns and setters all spell it: `dueAt`, `DueAt` and
/// `due_at` are `dueat`.
pub fn property_key(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn key(class: ClassRef, property: &str) -> String {
    format!("{}:{}.{}", class.0, class.1, property)
}

impl Cx<'_> {
    /// A storage read through a project repository method: the properties it selects its rows
    /// by, for the class of the rows it returns.
    pub(super) fn note_selection(&mut self, c: &Call) {
        let recv = self.receiver_type(c.recv.as_ref());
        let targets = self.project.resolve_call(self.class, c, recv);
        for m in targets {
            let method = self.project.method(m);
            let class = self.project.class_of(m);
            let Some(row) = self.row_class(class, method) else {
                continue;
            };
            let mut props = self.model.selected_by(&c.name);
            for a in &method.annotations {
                let t = self
                    .project
                    .resolve_type(class.0, Some(class.1 as usize), &a.name);
                if !self
                    .model
                    .is_query_annotation(&|x| self.project.type_is(&t, x))
                {
                    continue;
                }
                for (k, v) in &a.args {
                    if matches!(k.as_deref(), None | Some("value"))
                        && let Some(text) = self.constant_text(class, v)
                    {
                        props.extend(super::sql::selected_columns(&text));
                    }
                }
            }
            for p in props {
                self.out.sweep.selects.insert(key(row, &p));
            }
        }
    }

    /// A setter called on an object of a project class with a value the method decides
    /// (`hold.setStatus("EXPIRED")`, `setBreached(true)`, `setStatus(Status.SENT)`,
    /// `setSentAt(Instant.now())`). A value handed in (`summary.setTenantId(tenantId)`, an
    /// upsert writing back what it looked the row up by) or `null` changes nothing the query
    /// selected by.
    pub(super) fn note_mark(&mut self, c: &Call, args: &[super::place::Taint]) {
        let (Some(r), [value]) = (c.recv.as_ref(), c.args.as_slice()) else {
            return;
        };
        let Some(p) = self.model.set_property(&c.name) else {
            return;
        };
        let decided = match value.peel() {
            Expr::Str(..) | Expr::Lit(..) => true,
            Expr::Field(owner, ..) => self.is_type_name(owner),
            e @ Expr::Name(..) => self.project.constant(self.class, e).is_some(),
            _ => false,
        } || args.first().is_some_and(|t| {
            t.iter().any(|o| {
                matches!(o, super::place::Origin::Fresh(i)
                    if self.out.sources.get(*i as usize).is_some_and(|s| s.kind == super::SourceKind::Clock))
            })
        });
        if !decided {
            return;
        }
        if let Some(TypeRef::Project(k)) = self.type_of(r) {
            self.out.sweep.marks.insert(key(k, &p));
        }
    }

    /// The project class of the rows a repository method returns: its return type, or the
    /// element type of a collection, `Optional`, `Stream` or page it returns.
    fn row_class(&self, class: ClassRef, method: &Method) -> Option<ClassRef> {
        let written = written_type(&method.ret, &method.ret_generic);
        let args = crate::semantic::generics::type_args(written);
        let inner = args.first().copied().unwrap_or(written);
        let inner = inner.trim().trim_start_matches("? extends ").trim();
        match self
            .project
            .resolve_type(class.0, Some(class.1 as usize), inner)
        {
            TypeRef::Project(k) => Some(k),
            _ => None,
        }
    }
}

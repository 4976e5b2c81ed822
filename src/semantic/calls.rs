//! Which project methods a method reference names.

use super::{ClassRef, MethodId, Project, TypeRef};
use crate::java::ir::{Expr, MethodRef};

/// The project methods a method reference names.
pub fn method_ref_targets(
    project: &Project,
    class: ClassRef,
    m: &MethodRef,
    type_of: impl Fn(&Expr) -> Option<TypeRef>,
    is_type_name: impl Fn(&Expr) -> bool,
) -> Vec<MethodId> {
    let owner = match &m.recv {
        Expr::This(_) => Some(class),
        r if is_type_name(r) => match r
            .dotted()
            .map(|d| project.resolve_type(class.0, Some(class.1 as usize), &d))
        {
            Some(TypeRef::Project(k)) => Some(k),
            _ => None,
        },
        r => match type_of(r) {
            Some(TypeRef::Project(k)) => Some(k),
            _ => None,
        },
    };
    let Some(owner) = owner else {
        return Vec::new();
    };
    let mut chain = vec![owner];
    chain.extend(project.supertypes_of(owner));
    let mut out: Vec<MethodId> = chain
        .iter()
        .flat_map(|k| project.methods_named(*k, &m.name).iter().copied())
        .collect();
    // `queue::publish` on an interface runs the implementation the object has, as a call does
    // (`Project::resolve_call`): the overrides in the owner's project subtypes.
    out.extend(
        project
            .methods_named_in(project.subtypes_of(owner), &m.name)
            .into_iter()
            .filter(|x| {
                let mm = project.method(*x);
                !mm.is_ctor && !mm.modifiers.is_static
            }),
    );
    out.sort();
    out.dedup();
    out
}

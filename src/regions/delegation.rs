//! Calls on `this` that delegate (SPEC 3.3): what a call on `this` or `super` may run, and
//! whether every method it may run never fails — a retried method or a retry callback whose
//! only work is such a call never fails either.

use super::liveness::{NeverFails, never_fails};
use crate::catalogue::Catalogue;
use crate::java::ir::Expr;
use crate::semantic::{MethodId, Project};

/// Does `call` (in method `id`) call a method on `this` or `super` with simple arguments, every
/// project method of which it may run never failing ([`never_fails`], never through a method
/// already on the chain `seen`)? What the first of them swallows, reached through `call`.
pub(super) fn delegates_to_never_failing(
    project: &Project,
    cat: &Catalogue,
    id: MethodId,
    call: &crate::java::ir::Call,
    seen: &mut Vec<MethodId>,
) -> Option<NeverFails> {
    let on_this = call.on_super
        || matches!(
            call.recv.as_ref().map(Expr::peel),
            None | Some(Expr::This(_))
        );
    if !on_this || !call.args.iter().all(simple_arg) {
        return None;
    }
    let targets = this_targets(project, id, call)?;
    let mut found: Option<NeverFails> = None;
    for t in targets {
        if seen.contains(&t) {
            return None;
        }
        seen.push(t);
        let nf = never_fails(project, cat, t, seen);
        seen.pop();
        found.get_or_insert(nf?);
    }
    found.map(|mut nf| {
        nf.via.insert(0, call.name.clone());
        nf
    })
}

/// The project methods a call on `this` (or `super`) from method `id` may run: the nearest
/// declaration in its class and superclasses (for `super`, above its class) and the overrides in
/// the subclasses of its class. `None` when one has no body (abstract, an interface's) or none is
/// found.
pub(super) fn this_targets(
    project: &Project,
    id: MethodId,
    call: &crate::java::ir::Call,
) -> Option<Vec<MethodId>> {
    let class = project.class_of(id);
    let arity = call.args.len();
    let declared: Vec<MethodId> = project
        .methods_in_hierarchy(class, &call.name, arity)
        .into_iter()
        .filter(|m| !(call.on_super && project.class_of(*m) == class))
        .collect();
    let nearest = declared.first().map(|m| project.class_of(*m))?;
    let mut targets: Vec<MethodId> = declared
        .into_iter()
        .filter(|m| project.class_of(*m) == nearest)
        .collect();
    if !call.on_super {
        for sub in project.subtypes_of(class) {
            for x in project.methods_of(*sub) {
                let xm = project.method(*x);
                if xm.name == call.name && !xm.is_ctor && xm.params.len() == arity {
                    targets.push(*x);
                }
            }
        }
    }
    targets.sort();
    targets.dedup();
    targets
        .iter()
        .all(|t| project.method(*t).has_body())
        .then_some(targets)
}

/// An argument whose evaluation cannot fail in practice: a name, a literal, `this`, a field
/// read of one, or a lambda or method reference (making one runs none of its code: the callee
/// runs it, inside its own body, where the callee's `try` covers it).
pub(super) fn simple_arg(e: &Expr) -> bool {
    match e.peel() {
        Expr::Name(..)
        | Expr::This(_)
        | Expr::Str(..)
        | Expr::Lit(..)
        | Expr::Null(_)
        | Expr::Lambda(_)
        | Expr::MethodRef(_) => true,
        Expr::Field(r, _, _) => simple_arg(r),
        _ => false,
    }
}

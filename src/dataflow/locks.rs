//! Cluster-wide guards: calls and queries that say whether this instance holds a lock, and
//! claims that take items off a shared queue (each item goes to one consumer).

use super::cx::*;
use super::site::CallSite;
use crate::java::ir::*;

impl Cx<'_> {
    /// Does the call answer whether this instance holds a cluster-wide lock?
    pub(super) fn is_lock_call(&self, c: &Call) -> bool {
        let site = CallSite::call(self, c);
        if let Some(cluster_wide) = self.model.lock_method(&site) {
            return cluster_wide;
        }
        if self.model.is_claim(&site) {
            return true;
        }
        c.args.iter().any(|a| {
            let text = match a.peel() {
                Expr::Name(n, _) if self.is_local(n) => match self.defs.get(n) {
                    Some((_, init)) => self.project.constant(self.class, init),
                    None => None,
                },
                other => self.project.constant(self.class, other),
            };
            text.is_some_and(|t| self.model.is_lock_sql(&t))
        }) || self.callee_locks(c)
    }

    /// A project method whose query annotation takes a lock or claims rows.
    pub(super) fn callee_locks(&self, c: &Call) -> bool {
        let recv = self.receiver_type(c.recv.as_ref());
        self.project
            .resolve_call(self.class, c, recv)
            .iter()
            .any(|m| {
                self.project.method(*m).annotations.iter().any(|a| {
                    a.args.iter().any(
                        |(_, v)| matches!(v.peel(), Expr::Str(s, _) if self.model.is_lock_sql(s)),
                    )
                })
            })
    }
}

//! Cluster-wide locks: calls and queries that say whether this instance holds one.

use super::cx::*;
use crate::java::ir::*;

impl Cx<'_> {
    /// Does the call answer whether this instance holds a cluster-wide lock?
    pub(super) fn is_lock_call(&self, c: &Call) -> bool {
        let locks = &self.cat.guards.cluster_locks;
        if locks.methods.contains(&c.name) {
            // A JVM-local lock (`ReentrantLock`, `Semaphore`, a rate limiter) guards one replica.
            let local = c
                .recv
                .as_ref()
                .and_then(|r| self.type_of(r))
                .is_some_and(|t| {
                    locks
                        .local_types
                        .iter()
                        .any(|x| self.project.type_is(&t, x))
                });
            return !local;
        }
        c.args.iter().any(|a| {
            let text = match a.peel() {
                Expr::Name(n, _) if self.is_local(n) => match self.defs.get(n) {
                    Some((_, init)) => self.project.constant(self.class, init),
                    None => None,
                },
                other => self.project.constant(self.class, other),
            };
            text.is_some_and(|t| is_lock_sql(locks, &t))
        }) || self.callee_locks(c)
    }

    /// A project method whose query annotation takes a lock or claims rows.
    pub(super) fn callee_locks(&self, c: &Call) -> bool {
        let recv = self.receiver_type(c.recv.as_ref());
        let locks = &self.cat.guards.cluster_locks;
        self.project
            .resolve_call(self.class, c, recv)
            .iter()
            .any(|m| {
                self.project.method(*m).annotations.iter().any(|a| {
                    a.args
                        .iter()
                        .any(|(_, v)| matches!(v.peel(), Expr::Str(s, _) if is_lock_sql(locks, s)))
                })
            })
    }
}

/// Does SQL text take a cluster-wide lock or claim rows?
fn is_lock_sql(locks: &crate::catalogue::ClusterLocks, sql: &str) -> bool {
    let t = sql.to_lowercase();
    locks.sql.iter().any(|f| t.contains(f.as_str()))
        || locks
            .sql_all
            .iter()
            .any(|all| all.iter().all(|f| t.contains(f.as_str())))
}

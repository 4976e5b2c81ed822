//! Method references: functions whose value carries what calling them returns.

use super::calls::mutated_root;
use super::cx::*;
use super::place::*;
use super::*;
use crate::catalogue::glob;
use crate::java::ir::*;
use crate::semantic::MethodId;

impl Cx<'_> {
    /// A method reference is a function: its value carries what calling it returns, so a
    /// supplier such as `UUID::randomUUID` or `keys::create` is per-attempt where it is used.
    pub(super) fn eval_method_ref(&mut self, m: &MethodRef) -> Taint {
        self.method_ref_edge(m, m.scope);
        // `opt.ifPresent(options::setIdempotencyKey)`: the builder gets a key.
        if self.cat.key_sink_arg(&m.name).is_some()
            && let Some(p) = self.place_of(mutated_root(&m.recv))
        {
            self.env.entry(p).or_default().insert(Origin::Keyed);
        }
        let label = format!(
            "{}::{}",
            m.recv.dotted().unwrap_or_else(|| "this".into()),
            m.name
        );
        let rows = &self.cat.sources.source;
        if self.is_type_name(&m.recv)
            && let Some(d) = m.recv.dotted()
        {
            let t = self.resolve(&d);
            let kind = rows
                .iter()
                .find(|row| {
                    row.classes.iter().any(|k| self.project.type_is(&t, k))
                        && (row.static_methods.iter().any(|x| glob(x, &m.name))
                            || row.instance.iter().any(|x| glob(x, &m.name))
                            || (row.constructor && m.name == "new"))
                })
                .map(|r| r.kind);
            if let Some(kind) = kind {
                return self.fresh(kind, m.span, m.scope, label, None);
            }
        } else if !matches!(m.recv, Expr::This(_))
            && let Some(t) = self.type_of(&m.recv)
        {
            let kind = rows
                .iter()
                .find(|row| {
                    row.instance.iter().any(|x| glob(x, &m.name))
                        && row.classes.iter().any(|k| self.project.type_is(&t, k))
                })
                .map(|r| r.kind);
            if let Some(kind) = kind {
                return self.fresh(kind, m.span, m.scope, label, None);
            }
        }
        let mut out = Taint::new();
        for target in self.method_ref_targets(m) {
            let ret: Vec<SourceDesc> = self.sums.of(target).ret_sources.values().cloned().collect();
            for d in ret {
                let l = format!("{label} (which returns {})", d.label);
                let t = self.fresh(d.kind, m.span, m.scope, l, Some(d));
                union(&mut out, &t);
            }
        }
        out
    }

    pub(super) fn method_ref_edge(&mut self, m: &MethodRef, scope: ScopeId) {
        for target in self.method_ref_targets(m) {
            self.edge(scope, target);
        }
    }

    pub(super) fn method_ref_targets(&self, m: &MethodRef) -> Vec<MethodId> {
        crate::semantic::method_ref_targets(
            self.project,
            self.class,
            m,
            |e| self.type_of(e),
            |e| self.is_type_name(e),
        )
    }
}

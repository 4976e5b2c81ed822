//! Method references: functions whose value carries what calling them returns.

use super::calls::mutated_root;
use super::cx::*;
use super::place::*;
use super::site::CallSite;
use super::*;
use crate::java::ir::*;
use crate::semantic::MethodId;

impl Cx<'_> {
    /// A method reference is a function: its value carries what calling it returns, so a
    /// supplier such as `UUID::randomUUID` or `keys::create` is per-attempt where it is used.
    pub(super) fn eval_method_ref(&mut self, m: &MethodRef) -> Taint {
        self.method_ref_edge(m, m.scope);
        // `opt.ifPresent(options::setIdempotencyKey)`: the builder gets a key.
        if !self
            .model
            .key_sinks(&CallSite::method_ref(self, m))
            .is_empty()
            && let Some(p) = self.place_of(mutated_root(&m.recv))
        {
            self.env.entry(p).or_default().insert(Origin::Keyed);
        }
        let label = format!(
            "{}::{}",
            m.recv.dotted().unwrap_or_else(|| "this".into()),
            m.name
        );
        if !matches!(m.recv, Expr::This(_)) {
            let site = CallSite::method_ref(self, m);
            if let Some(src) = self.model.source(&site) {
                let (kind, row) = (src.kind, src.row.to_string());
                return self.fresh(kind, &row, m.span, m.scope, label, None);
            }
        }
        let mut out = Taint::new();
        for target in self.method_ref_targets(m) {
            let ret: Vec<SourceDesc> = self.sums.of(target).ret_sources.values().cloned().collect();
            for d in ret {
                let l = format!("{label} (which returns {})", d.label);
                let t = self.fresh(d.kind, "", m.span, m.scope, l, Some(d));
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

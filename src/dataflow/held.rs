//! What a call of a function held in a field returns (SPEC §6): `ids.get()` on a field
//! `Supplier<UUID> ids` evaluates the function put there, at the call — so a random or clock
//! function stored once (by the field's initializer, a constructor, or a bean method the
//! container injects) is a per-attempt value wherever a region calls it. The functions are
//! known from the summaries of the methods that may have put them there
//! ([`crate::semantic::Held`]): the sources each stores into the field, or returns as the bean.

use super::cx::*;
use super::place::*;
use super::*;
use crate::java::ir::Call;

impl Cx<'_> {
    /// The per-attempt values a call of a held function returns, each a source at the call
    /// (`ids.get() (which returns UUID::randomUUID)`); none for any other call.
    pub(super) fn held_sources(&mut self, c: &Call) -> Taint {
        let Some(held) = self.with_typer(|t| t.held_function(c)) else {
            return Taint::new();
        };
        let mut found: BTreeMap<SourceKind, SourceDesc> = BTreeMap::new();
        let stored = held
            .writers
            .iter()
            .filter_map(|w| self.sums.of(*w).field_sources.get(&held.field).cloned());
        let returned: Vec<SourceDesc> = held
            .beans
            .iter()
            .flat_map(|b| {
                self.sums
                    .of(*b)
                    .ret_sources
                    .values()
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .collect();
        for mut d in stored.chain(returned) {
            // Evaluated at the call, whatever the writer was given.
            d.when.clear();
            d.committed = false;
            let key = (d.label.clone(), d.loc.clone());
            match found.get(&d.kind) {
                Some(old) if (old.label.clone(), old.loc.clone()) <= key => {}
                _ => {
                    found.insert(d.kind, d);
                }
            }
        }
        let label = self.call_label(c);
        let mut out = Taint::new();
        for mut d in found.into_values() {
            d.label = format!("{} (the function held in `{}`)", d.label, held.field);
            let l = format!("{label} (which returns {})", d.label);
            let t = self.fresh(d.kind, "", c.span, c.scope, l, Some(d));
            union(&mut out, &t);
        }
        out
    }
}

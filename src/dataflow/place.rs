//! Places (where a value is held) and origins (where a value comes from).

use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Origin {
    Fresh(u32),
    Param(u16),
    Field(String),
    /// The value went through a key sink: a request that carries an idempotency key.
    Keyed,
    /// The value says whether this instance holds a cluster-wide lock.
    Lock,
}

pub(super) type Taint = BTreeSet<Origin>;
pub(super) type Env = HashMap<String, Taint>;

pub(super) fn union(a: &mut Taint, b: &Taint) {
    for o in b {
        if !a.contains(o) {
            a.insert(o.clone());
        }
    }
}

pub(super) fn join(a: &Env, b: &Env) -> Env {
    let mut out = a.clone();
    for (k, v) in b {
        union(out.entry(k.clone()).or_default(), v);
    }
    out
}

/// `getKey` → `key`, `isActive` → `active`.
pub(super) fn property_of(method: &str, prefix: &str) -> Option<String> {
    let rest = method.strip_prefix(prefix)?;
    let mut cs = rest.chars();
    let first = cs.next()?;
    if !first.is_uppercase() {
        return None;
    }
    Some(first.to_lowercase().chain(cs).collect())
}

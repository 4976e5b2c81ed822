//! The application's own record of an operation, checked before the sink (SPEC 7.4, "an entity
//! saved before the sink"): a region that first looks its store up by a value the same on every
//! attempt (`if (repo.existsByMessageId(id)) return;`), and commits a record there before the
//! sink (`repo.save(record(id))`), sends its key once — a later attempt finds the record and
//! stops before the sink, so a key minted after the check is never sent twice.
//!
//! Not a guard: a check by a per-attempt value (it never finds the first attempt's record), a
//! check whose result does not end the attempt, a record saved after the sink or in another store
//! than the one checked, and a save that rolls back with a failed attempt (a transaction open
//! around it; see `rules::key`).

use super::cx::*;
use super::model::Check;
use super::place::*;
use super::site::CallSite;
use super::{Recorded, SinkRef, Summary};
use crate::java::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// A check of the own store that ended the attempt when it found a record.
#[derive(Clone, Debug)]
pub(super) struct ActiveCheck {
    pub(super) stores: BTreeSet<String>,
    pub(super) params: BTreeSet<u16>,
}

/// What a storage read (or a call of a project check) looks up by.
#[derive(Clone, Debug, Default)]
pub(super) struct Lookup {
    pub(super) stores: BTreeSet<String>,
    /// Some argument is per-attempt: the read never finds an earlier attempt's record.
    pub(super) fresh: bool,
    /// Parameters of this method the arguments are made of.
    pub(super) params: BTreeSet<u16>,
    /// A project check (its summary's `ret_found`), true when found; else a storage read.
    pub(super) check: bool,
}

/// The saves two paths both made (a save on one path only does not precede the sink).
pub(super) fn meet(
    a: &BTreeMap<String, bool>,
    b: &BTreeMap<String, bool>,
) -> BTreeMap<String, bool> {
    a.iter()
        .filter_map(|(k, x)| b.get(k).map(|y| (k.clone(), *x && *y)))
        .collect()
}

impl Cx<'_> {
    /// The store a call reads or writes: its receiver's type, a repository the project declares
    /// (a Spring Data repository or DAO stands for one kind of record; a `JdbcTemplate` or an
    /// `EntityManager` for any table, so a read and a save through one tell nothing).
    fn store_of(&self, c: &Call) -> Option<String> {
        let r = c.recv.as_ref()?;
        if self.is_type_name(r) {
            return None;
        }
        match self.type_of(r)? {
            crate::semantic::TypeRef::Project(k) => Some(format!("{}:{}", k.0, k.1)),
            _ => None,
        }
    }

    /// Remember a storage read, or a call of a project check, and what it looks up by.
    pub(super) fn note_lookup(&mut self, c: &Call, args: &[Taint], found: &BTreeSet<String>) {
        let stores: BTreeSet<String> = if found.is_empty() {
            if !self.model.stored_read(&CallSite::call(self, c)) {
                return;
            }
            self.store_of(c).into_iter().collect()
        } else {
            found.clone()
        };
        if stores.is_empty() {
            return;
        }
        let mut l = Lookup {
            stores,
            check: !found.is_empty(),
            ..Lookup::default()
        };
        for o in args.iter().flatten() {
            match o {
                Origin::Fresh(_) => l.fresh = true,
                Origin::Param(p) | Origin::ParamField(p, _) => {
                    l.params.insert(*p);
                }
                _ => {}
            }
        }
        self.reads.insert(c.span, l);
    }

    /// A save (`repository.save(record)`); `apart`: it commits apart from whatever transaction
    /// is open around it (a `REQUIRES_NEW` method). A save that joins one holds only where the
    /// region opens none (`rules::recorded`).
    pub(super) fn note_save(&mut self, c: &Call, apart: bool) {
        if let Some(k) = self.store_of(c) {
            self.saves_made.push((k.clone(), apart));
            self.saved.push((k, apart));
        }
    }

    /// A project method's saves, made on every normal return of it.
    pub(super) fn note_callee_saves(&mut self, s: &Summary, apart: bool) {
        for (k, a) in &s.saves {
            self.saved.push((k.clone(), *a || apart));
        }
    }

    /// `cond` is true exactly when the own store holds a record: the lookup it tests (`true`)
    /// or its negation (`false`).
    fn found_check(&self, cond: &Expr) -> Option<(&Lookup, bool)> {
        match cond.peel() {
            Expr::Not(x, _) => self.found_check(x).map(|(l, p)| (l, !p)),
            Expr::Binary(b) if b.op == "==" || b.op == "!=" => {
                let x = match (b.left.peel(), b.right.peel()) {
                    (x, Expr::Null(_)) | (Expr::Null(_), x) => x,
                    _ => return None,
                };
                let l = self.lookup_of(x).filter(|l| !l.check)?;
                Some((l, b.op == "!="))
            }
            Expr::Call(c) => {
                if let Some(l) = self.reads.get(&c.span) {
                    // `repo.existsBy…(…)`, or a project check.
                    return (l.check || c.name.starts_with("exists")).then_some((l, true));
                }
                let check = self.model.check(&c.name)?;
                let l = self.lookup_of(c.recv.as_ref()?).filter(|l| !l.check)?;
                match check {
                    Check::Present => Some((l, true)),
                    Check::Absent => Some((l, false)),
                    Check::FirstAttempt => None,
                }
            }
            _ => None,
        }
    }

    /// The storage read an expression is: the call itself, or a local holding its result.
    pub(super) fn lookup_of(&self, e: &Expr) -> Option<&Lookup> {
        match e.peel() {
            Expr::Call(c) => self.reads.get(&c.span),
            Expr::Name(n, _) => self.reads.get(self.read_locals.get(n)?),
            _ => None,
        }
    }

    /// `Optional<T> seen = repo.findBy…(…)`: the local holds the read's result.
    pub(super) fn note_read_local(&mut self, name: &str, init: Option<&Expr>) {
        self.read_locals.remove(name);
        if let Some(Expr::Call(c)) = init.map(Expr::peel)
            && self.reads.contains_key(&c.span)
        {
            self.read_locals.insert(name.to_string(), c.span);
        }
    }

    /// After `if (cond) { …; return; }`: the attempt goes on only when the store held no record.
    pub(super) fn note_exit_check(&mut self, cond: &Expr) {
        if let Some((l, true)) = self.found_check(cond)
            && !l.fresh
        {
            let check = ActiveCheck {
                stores: l.stores.clone(),
                params: l.params.clone(),
            };
            self.checks.push(check);
        }
    }

    /// The check a sink runs behind, when a record it looks for was saved before the sink.
    pub(super) fn record_guard(&self, sink: &SinkRef) -> Option<Recorded> {
        self.checks.iter().find_map(|ch| {
            let hits: Vec<bool> = ch
                .stores
                .iter()
                .filter_map(|k| sink.after_saves.get(k).copied())
                .collect();
            (!hits.is_empty()).then(|| Recorded {
                params: ch.params.clone(),
                apart: hits.iter().any(|a| *a),
            })
        })
    }

    /// A `return` of the method itself: the saves made on its way.
    pub(super) fn note_exit_saves(&mut self) {
        let now: BTreeMap<String, bool> = self.saved.iter().cloned().collect();
        self.exit_saves = Some(match &self.exit_saves {
            Some(before) => meet(before, &now),
            None => now,
        });
    }

    /// The summary's own-store facts: the saves on every normal return, and whether the
    /// method is a check returning `true` whenever a record is found.
    pub(super) fn note_record_summary(&mut self, falls_off: bool) {
        let mut saves = self.exit_saves.take();
        if falls_off {
            let now: BTreeMap<String, bool> = self.saved.iter().cloned().collect();
            saves = Some(match &saves {
                Some(before) => meet(before, &now),
                None => now,
            });
        }
        self.out.summary.saves = saves.unwrap_or_default();
        self.out.summary.ret_found = self.found_returns().unwrap_or_default();
    }

    /// The stores of a check method: its top-level statements are `if (found) return true;`
    /// (with anything before the `return` that does not return), statements without a `return`,
    /// and a last `return found;` or `return false;`. Found in one of the stores, it returns
    /// `true`.
    fn found_returns(&self) -> Option<BTreeSet<String>> {
        let body = self.method.body()?;
        let mut stores = BTreeSet::new();
        let found_in = |e: &Expr, stores: &mut BTreeSet<String>| -> bool {
            match self.found_check(e) {
                Some((l, true)) if !l.fresh => {
                    stores.extend(l.stores.iter().cloned());
                    true
                }
                _ => false,
            }
        };
        let is_lit = |e: &Expr, v: &str| matches!(e.peel(), Expr::Lit(t, _) if t == v);
        for (i, s) in body.iter().enumerate() {
            let last = i + 1 == body.len();
            let ok = match s {
                Stmt::If {
                    cond,
                    then,
                    els: None,
                } if matches!(then.last(), Some(Stmt::Return(Some(e), _)) if is_lit(e, "true")) => {
                    !then[..then.len() - 1].iter().any(has_return) && found_in(cond, &mut stores)
                }
                Stmt::Return(Some(e), _) if last => is_lit(e, "false") || found_in(e, &mut stores),
                s => !has_return(s),
            };
            if !ok {
                return None;
            }
        }
        (!stores.is_empty()).then_some(stores)
    }
}

/// Does a statement contain a `return` (outside lambdas)?
fn has_return(s: &Stmt) -> bool {
    let mut work: Vec<&Stmt> = vec![s];
    while let Some(s) = work.pop() {
        match s {
            Stmt::Return(..) => return true,
            Stmt::If { then, els, .. } => {
                work.extend(then.iter());
                work.extend(els.iter().flatten());
            }
            Stmt::Loop { head, body, .. } => {
                work.extend(head.iter());
                work.extend(body.iter());
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                work.extend(resources.iter());
                work.extend(body.iter());
                work.extend(catches.iter().flat_map(|(_, b)| b.iter()));
                work.extend(finally.iter().flatten());
            }
            Stmt::Block(b) => work.extend(b.iter()),
            _ => {}
        }
    }
    false
}

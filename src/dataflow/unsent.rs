//! Local maps that never leave their method: a map made here (`new HashMap<>()`) whose only
//! uses are its own entry calls and log statements. An entry put into it under a key name
//! (`details.put("idempotencyKey", …)` for a log line) is not a body field of any request.

use crate::java::ir::*;
use std::collections::{HashMap, HashSet};

/// Map classes a method makes for itself.
const MAP_TYPES: &[&str] = &[
    "HashMap",
    "LinkedHashMap",
    "TreeMap",
    "ConcurrentHashMap",
    "java.util.HashMap",
    "java.util.LinkedHashMap",
    "java.util.TreeMap",
    "java.util.concurrent.ConcurrentHashMap",
];

/// Calls on the map that keep its entries inside it.
const OWN_CALLS: &[&str] = &[
    "put",
    "putIfAbsent",
    "get",
    "getOrDefault",
    "containsKey",
    "containsValue",
    "remove",
    "size",
    "isEmpty",
    "clear",
];

/// Receivers of log statements: an argument there is written to a log, not sent.
const LOGGERS: &[&str] = &["log", "logger", "LOG", "LOGGER", "Log", "Logger"];

/// Deeper code is not looked into, and a map used there counts as sent.
const MAX_DEPTH: usize = 64;

/// The locals of method `m` that hold a map made in the method and never leave it.
pub(super) fn unsent_maps(m: &Method) -> HashSet<String> {
    let Some(body) = m.body() else {
        return HashSet::new();
    };
    let mut scan = Scan::default();
    scan.block(body, 0);
    scan.made
        .into_iter()
        .filter(|(n, made)| *made && !scan.sent.contains(n))
        .map(|(n, _)| n)
        .collect()
}

#[derive(Default)]
struct Scan {
    /// Each local declared, and whether every declaration of that name makes a map here.
    made: HashMap<String, bool>,
    /// Names used where their value may leave the method.
    sent: HashSet<String>,
}

impl Scan {
    fn block(&mut self, b: &Block, depth: usize) {
        for s in b {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        match s {
            Stmt::Local { name, init, .. } => {
                let makes = matches!(init.as_ref().map(Expr::peel),
                    Some(Expr::New(n)) if n.anon.is_empty() && MAP_TYPES.contains(&base(&n.ty)));
                let e = self.made.entry(name.to_string()).or_insert(true);
                *e &= makes;
                if let Some(e) = init {
                    self.expr(e, depth + 1);
                }
            }
            Stmt::Expr(e) | Stmt::Throw(e) | Stmt::Return(Some(e), _) => self.expr(e, depth + 1),
            Stmt::If { cond, then, els } => {
                self.expr(cond, depth + 1);
                self.block(then, depth + 1);
                if let Some(b) = els {
                    self.block(b, depth + 1);
                }
            }
            Stmt::Loop {
                head,
                cond,
                update,
                body,
                each,
                ..
            } => {
                self.block(head, depth + 1);
                if let Some(c) = cond {
                    self.expr(c, depth + 1);
                }
                for u in update {
                    self.expr(u, depth + 1);
                }
                if let Some((name, _, coll)) = each {
                    self.made.insert(name.to_string(), false);
                    self.expr(coll, depth + 1);
                }
                self.block(body, depth + 1);
            }
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => {
                self.block(resources, depth + 1);
                self.block(body, depth + 1);
                for (_, c) in catches {
                    self.block(c, depth + 1);
                }
                if let Some(f) = finally {
                    self.block(f, depth + 1);
                }
            }
            Stmt::Block(b) => self.block(b, depth + 1),
            Stmt::Return(None, _) | Stmt::Break | Stmt::Continue | Stmt::Jump => {}
        }
    }

    /// A use of `e` as a value: a name there may leave the method.
    fn expr(&mut self, e: &Expr, depth: usize) {
        if depth > MAX_DEPTH {
            // Not looked into: every local counts as sent.
            self.sent.extend(self.made.keys().cloned());
            return;
        }
        let d = depth + 1;
        match e {
            Expr::Name(n, _) => {
                self.sent.insert(n.clone());
            }
            Expr::Call(c) => {
                match c.recv.as_ref().map(Expr::peel) {
                    // The map's own entry calls keep it here.
                    Some(Expr::Name(_, _)) if OWN_CALLS.contains(&c.name.as_str()) => {}
                    Some(r) => self.expr(r, d),
                    None => {}
                }
                let logs = matches!(c.recv.as_ref().map(Expr::peel),
                    Some(Expr::Name(n, _)) if LOGGERS.contains(&n.as_str()));
                for a in &c.args {
                    if logs && matches!(a.peel(), Expr::Name(..)) {
                        continue;
                    }
                    self.expr(a, d);
                }
            }
            Expr::New(n) => {
                for a in &n.args {
                    self.expr(a, d);
                }
                for m in &n.anon {
                    self.block(&m.body, d);
                }
            }
            Expr::Field(r, _, _) => self.expr(r, d),
            Expr::Lambda(l) => match &l.body {
                LambdaBody::Expr(x) => self.expr(x, d),
                LambdaBody::Block(b) => self.block(b, d),
            },
            Expr::MethodRef(m) => self.expr(&m.recv, d),
            Expr::Assign(a) => {
                self.expr(&a.target, d);
                self.expr(&a.value, d);
            }
            Expr::Ternary(c, a, b, _) => {
                self.expr(c, d);
                self.expr(a, d);
                self.expr(b, d);
            }
            Expr::Binary(b) => {
                self.expr(&b.left, d);
                self.expr(&b.right, d);
            }
            Expr::Not(x, _) | Expr::Cast(_, x, _) => self.expr(x, d),
            Expr::Op(xs, _) => {
                for x in xs {
                    self.expr(x, d);
                }
            }
            Expr::Switch(s, arms, _) => {
                self.expr(s, d);
                for a in arms {
                    self.block(a, d);
                }
            }
            Expr::This(_) | Expr::Str(..) | Expr::Lit(..) | Expr::Null(_) | Expr::Opaque(_) => {}
        }
    }
}

/// `HashMap<String, Object>` → `HashMap`.
fn base(ty: &str) -> &str {
    ty.split('<').next().unwrap_or(ty).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unsent(src: &str) -> Vec<String> {
        let facts = crate::java::parse(src.as_bytes()).expect("parses");
        let mut v: Vec<String> = unsent_maps(&facts.methods[0]).into_iter().collect();
        v.sort();
        v
    }

    #[test]
    fn a_map_only_filled_and_logged_stays_in_its_method() {
        let src = "class A { void f(Gateway g) {
            Map<String, Object> details = new HashMap<>();
            details.put(\"idempotencyKey\", java.util.UUID.randomUUID().toString());
            log.info(\"paying {}\", details);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put(\"idempotency_key\", \"k\");
            g.post(body);
            Map<String, Object> kept = new HashMap<>();
            kept.put(\"idempotency_key\", \"k\");
            this.last = kept;
            Map<String, Object> shown = new HashMap<>();
            shown.put(\"idempotency_key\", \"k\");
            g.post(shown.toString());
            Map<String, Object> given = new HashMap<>();
            given.put(\"idempotency_key\", \"k\");
            return;
        } }";
        assert_eq!(
            unsent(src),
            vec!["details".to_string(), "given".to_string()]
        );
    }

    #[test]
    fn a_map_returned_captured_or_declared_elsewhere_leaves() {
        let src = "class A { Map<String, Object> f(Map<String, Object> in, boolean b) {
            Map<String, Object> r = new HashMap<>();
            r.put(\"idempotency_key\", \"k\");
            Map<String, Object> c = new HashMap<>();
            c.put(\"idempotency_key\", \"k\");
            run(() -> send(c));
            Map<String, Object> twice = new HashMap<>();
            if (b) { Map<String, Object> twice = in; }
            return r;
        } }";
        assert!(unsent(src).is_empty(), "{:?}", unsent(src));
    }
}

//! Conditions on parameters: a source or sink reached only under `if (key == null)`, `level ==
//! CRITICAL ? … : …`, and the facts a call's arguments have that decide them (SPEC §6, §7.4).
//!
//! A method records, with each source it evaluates and each sink it reaches, the tests on its
//! parameters that guard them, of a few shapes only: a parameter (or one property of it,
//! `alert.getLevel()`) compared with `null` or with constants. A call records what each argument
//! is, as far as its text tells: `null`, a literal, a concatenation or a `new` (not null), a
//! constant, or a parameter of the caller passed on. A condition the argument makes false drops
//! the event on that call; anything unknown keeps it, as without conditions.

use super::cx::*;
use super::place::*;
use super::*;
use crate::java::ir::*;

/// Conditions kept on one source or sink; more (deeper nesting) are dropped, which only keeps
/// more events.
const MAX_CONDS: usize = 4;
/// Constants one test may name (`a == X || a == Y || …`).
const MAX_CONSTS: usize = 8;

/// A test on a parameter, or on one property of it, that guards a source or a sink.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Cond {
    pub param: ParamPath,
    pub test: Test,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Test {
    Null,
    NonNull,
    /// Equal to one of these constants (an enum constant or a `static final` by its simple name,
    /// a string literal in quotes).
    In(BTreeSet<String>),
    NotIn(BTreeSet<String>),
    /// Carrying no idempotency key: a request object the caller made, which the callee sends
    /// to a side effect (the caller may have keyed it, `request.payPalRequestId(k)`).
    Unkeyed,
}

/// What a call's argument is known to be.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Fact {
    Unknown,
    Null,
    /// A literal concatenation, a `new`, a lambda: never null.
    NonNull,
    /// A constant (never null), by the same name a [`Test`] uses.
    Const(String),
    /// The caller's own parameter (or a property of it) passed on.
    Param(ParamPath),
    /// An object that went through a key sink (a request the caller keyed): never null.
    Keyed,
}

impl Test {
    /// May the test hold for an argument with this fact?
    pub fn admits(&self, f: &Fact) -> bool {
        match (self, f) {
            (Test::Null, Fact::NonNull | Fact::Const(_) | Fact::Keyed) => false,
            (Test::Unkeyed, Fact::Keyed) => false,
            (Test::NonNull | Test::In(_), Fact::Null) => false,
            (Test::In(s), Fact::Const(c)) => s.contains(c),
            (Test::NotIn(s), Fact::Const(c)) => !s.contains(c),
            _ => true,
        }
    }

    /// The opposite test; none for [`Test::Unkeyed`], which no `if` writes.
    fn negate(&self) -> Option<Test> {
        Some(match self {
            Test::Null => Test::NonNull,
            Test::NonNull => Test::Null,
            Test::In(s) => Test::NotIn(s.clone()),
            Test::NotIn(s) => Test::In(s.clone()),
            Test::Unkeyed => return None,
        })
    }
}

/// The name a constant is compared by: `AlertLevel.CRITICAL` and a `case CRITICAL` label are
/// both `CRITICAL`.
fn constant_name(dotted: &str) -> Option<String> {
    let last = dotted.rsplit('.').next()?;
    let mut cs = last.chars();
    let first = cs.next()?;
    (first.is_ascii_uppercase()
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    .then(|| last.to_string())
}

impl Cx<'_> {
    /// The conditions in force, as a source or sink records them.
    pub(super) fn cur_conds(&self) -> Vec<Cond> {
        self.conds.iter().take(MAX_CONDS).cloned().collect()
    }

    /// The parameter, or property of a parameter, an expression reads, while the parameter still
    /// holds what the caller passed.
    fn cond_path(&self, e: &Expr) -> Option<ParamPath> {
        match e.peel() {
            Expr::Name(n, _) => {
                let i = self.method.params.iter().position(|p| &p.name == n)?;
                let i = i as u16;
                let unchanged = !self.assigned_params.contains(n)
                    && self
                        .env
                        .get(&Place::local(n))
                        .is_some_and(|t| t.len() == 1 && t.contains(&Origin::Param(i)));
                unchanged.then_some(ParamPath::Whole(i))
            }
            Expr::Call(c) if c.args.is_empty() => {
                let ParamPath::Whole(i) = self.cond_path(c.recv.as_ref()?)? else {
                    return None;
                };
                let prop = property_of(&c.name, "get")
                    .or_else(|| property_of(&c.name, "is"))
                    .unwrap_or_else(|| c.name.clone());
                Some(ParamPath::Field(i, FieldPath::one(&prop)))
            }
            Expr::Field(r, f, _) => match self.cond_path(r)? {
                ParamPath::Whole(i) => Some(ParamPath::Field(i, FieldPath::one(f))),
                ParamPath::Field(..) => None,
            },
            _ => None,
        }
    }

    /// A constant an expression names: a string literal, or an enum constant or `static final`
    /// written in capitals.
    fn constant(&self, e: &Expr) -> Option<String> {
        match e.peel() {
            Expr::Str(s, _) => Some(format!("\"{s}\"")),
            Expr::Name(n, _) if self.is_local(n) => None,
            Expr::Name(..) | Expr::Field(..) => constant_name(&e.peel().dotted()?),
            _ => None,
        }
    }

    /// The tests a condition makes true (a conjunction), when they are of the shapes kept.
    pub(super) fn cond_of(&self, e: &Expr) -> Option<Vec<Cond>> {
        self.tests_of(e).map(|(tests, _)| tests)
    }

    /// The tests a condition makes false when it is false: the negation of a condition that is
    /// exactly one test (`a && b`, or a condition only partly understood, has none).
    pub(super) fn negation_of(&self, e: &Expr) -> Option<Cond> {
        match self.tests_of(e)? {
            (tests, true) => negated(&tests),
            _ => None,
        }
    }

    /// The tests a condition implies, and whether they are all of it (`a && f(x)` implies `a`
    /// but is not `a`).
    fn tests_of(&self, e: &Expr) -> Option<(Vec<Cond>, bool)> {
        match e.peel() {
            Expr::Binary(b) if b.op == "==" || b.op == "!=" => {
                let eq = b.op == "==";
                let (path, other) = match (self.cond_path(&b.left), self.cond_path(&b.right)) {
                    (Some(p), _) => (p, &b.right),
                    (None, Some(p)) => (p, &b.left),
                    (None, None) => return None,
                };
                let test = if matches!(other.peel(), Expr::Null(_)) {
                    Test::Null
                } else {
                    Test::In([self.constant(other)?].into())
                };
                let test = if eq { test } else { test.negate()? };
                Some((vec![Cond { param: path, test }], true))
            }
            Expr::Binary(b) if b.op == "&&" => {
                match (self.tests_of(&b.left), self.tests_of(&b.right)) {
                    (Some((mut l, x)), Some((r, y))) => {
                        l.extend(r);
                        Some((l, x && y))
                    }
                    (Some((l, _)), None) | (None, Some((l, _))) => Some((l, false)),
                    (None, None) => None,
                }
            }
            Expr::Binary(b) if b.op == "||" => {
                let ((l, x), (r, y)) = (self.tests_of(&b.left)?, self.tests_of(&b.right)?);
                match (l.as_slice(), r.as_slice()) {
                    (
                        [
                            Cond {
                                param: p,
                                test: Test::In(a),
                            },
                        ],
                        [
                            Cond {
                                param: q,
                                test: Test::In(b),
                            },
                        ],
                    ) if p == q && a.len() + b.len() <= MAX_CONSTS => Some((
                        vec![Cond {
                            param: p.clone(),
                            test: Test::In(a.union(b).cloned().collect()),
                        }],
                        x && y,
                    )),
                    _ => None,
                }
            }
            Expr::Not(x, _) => match self.tests_of(x)? {
                (tests, true) => Some((vec![negated(&tests)?], true)),
                _ => None,
            },
            // `Level.CRITICAL.equals(level)`, `"EUR".equals(currency)`, `level.equals(X)`.
            Expr::Call(c) if c.name == "equals" && c.args.len() == 1 => {
                let recv = c.recv.as_ref()?;
                let (path, other) = match (self.cond_path(recv), self.cond_path(&c.args[0])) {
                    (Some(p), _) => (p, &c.args[0]),
                    (None, Some(p)) => (p, recv),
                    (None, None) => return None,
                };
                let test = Test::In([self.constant(other)?].into());
                Some((vec![Cond { param: path, test }], true))
            }
            _ => None,
        }
    }

    /// What an argument is known to be, from its text.
    pub(super) fn arg_fact(&self, a: &Expr) -> Fact {
        if let Some(p) = self.cond_path(a) {
            return Fact::Param(p);
        }
        if let Some(c) = self.constant(a) {
            return Fact::Const(c);
        }
        match a.peel() {
            Expr::Null(_) => Fact::Null,
            Expr::New(_) | Expr::Lambda(_) | Expr::MethodRef(_) => Fact::NonNull,
            e if is_concatenation(e) => Fact::NonNull,
            _ => Fact::Unknown,
        }
    }

    /// The facts of a call's arguments, without the unknown ones at the end.
    pub(super) fn arg_facts(&self, args: &[Expr]) -> Vec<Fact> {
        let mut facts: Vec<Fact> = args.iter().map(|a| self.arg_fact(a)).collect();
        while facts.last() == Some(&Fact::Unknown) {
            facts.pop();
        }
        facts
    }

    /// What call `c` passes each parameter ([`Self::arg_facts`]), and which of its arguments
    /// carry a key: a request this method keyed (`request.payPalRequestId(k)`), handed to a
    /// callee that sends it.
    pub(super) fn call_facts(&self, c: &Call, args: &[Taint]) -> Vec<Fact> {
        let mut facts = self.arg_facts(&c.args);
        for (i, t) in args.iter().enumerate().take(c.args.len()) {
            if t.contains(&Origin::Keyed) {
                if facts.len() <= i {
                    facts.resize(i + 1, Fact::Unknown);
                }
                // Keys only accumulate: keyed here, whatever the caller passed.
                facts[i] = Fact::Keyed;
            }
        }
        facts
    }

    /// The request objects a side-effecting call `c` sends that the caller made and passed in
    /// whole (its receiver or arguments, `client.execute(request)`): the call is unkeyed only
    /// where none of them carries a key, which each caller's argument tells.
    pub(super) fn unkeyed_unless_caller_keyed(
        &self,
        c: &Call,
        recv_t: &Taint,
        args: &[Taint],
    ) -> Vec<Cond> {
        let mut when: Vec<Cond> = c
            .recv
            .iter()
            .zip(std::iter::once(recv_t))
            .chain(c.args.iter().zip(args))
            .filter(|(e, _)| self.made_by_caller(e, 0))
            .flat_map(|(_, t)| {
                t.iter().filter_map(|o| match o {
                    Origin::Param(i) => Some(Cond {
                        param: ParamPath::Whole(*i),
                        test: Test::Unkeyed,
                    }),
                    _ => None,
                })
            })
            .collect();
        when.sort();
        when.dedup();
        when
    }

    /// A callee's conditions `when` in this method's terms, for a call with these arguments:
    /// `None` when an argument makes one false (the callee's sink is not reached by this call);
    /// conditions on an argument this method passes on from its own parameter become conditions
    /// on that parameter; the others are dropped.
    pub(super) fn translate_conds(
        &self,
        when: &[Cond],
        arg_exprs: &[Expr],
        args: &[Taint],
    ) -> Option<Vec<Cond>> {
        let mut out = Vec::new();
        for c in when {
            match &c.param {
                ParamPath::Whole(j) => {
                    let Some(a) = arg_exprs.get(*j as usize) else {
                        continue;
                    };
                    match self.arg_fact(a) {
                        Fact::Unknown => {}
                        Fact::Param(p) => out.push(Cond {
                            param: p,
                            test: c.test.clone(),
                        }),
                        f if !c.test.admits(&f) => return None,
                        _ => {}
                    }
                }
                ParamPath::Field(j, f) => {
                    let (Some(e), Some(t)) = (arg_exprs.get(*j as usize), args.get(*j as usize))
                    else {
                        continue;
                    };
                    // A test is on a property, never on a map entry (see `cond_path`).
                    if f.entry_key().is_some() {
                        continue;
                    }
                    // The property as the argument holds it (`Alert.builder().level(level)`).
                    let part = self.field_of(Some(e), t, f.first());
                    let param = match part.iter().next() {
                        Some(Origin::Param(k)) if part.len() == 1 => ParamPath::Whole(*k),
                        Some(Origin::ParamField(k, g)) if part.len() == 1 => {
                            ParamPath::Field(*k, g.clone())
                        }
                        _ => continue,
                    };
                    // Only while the caller's parameter still holds what was passed.
                    let name = &self.method.params[param_index(&param) as usize].name;
                    if !self.assigned_params.contains(name.as_str()) {
                        out.push(Cond {
                            param,
                            test: c.test.clone(),
                        });
                    }
                }
            }
        }
        Some(out)
    }

    /// Run `f` with the conditions `extra` in force as well.
    pub(super) fn under<R>(&mut self, extra: Vec<Cond>, f: impl FnOnce(&mut Self) -> R) -> R {
        let depth = self.conds.len();
        self.conds.extend(extra);
        let r = f(self);
        self.conds.truncate(depth);
        r
    }
}

/// The negation of a condition of one test (of a conjunction, none is kept).
pub(super) fn negated(conds: &[Cond]) -> Option<Cond> {
    match conds {
        [c] => Some(Cond {
            param: c.param.clone(),
            test: c.test.negate()?,
        }),
        _ => None,
    }
}

fn param_index(p: &ParamPath) -> u16 {
    match p {
        ParamPath::Whole(i) | ParamPath::Field(i, _) => *i,
    }
}

/// A string concatenation with a literal part: never null.
fn is_concatenation(e: &Expr) -> bool {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e.peel() {
            Expr::Str(..) => return true,
            Expr::Binary(b) if b.op == "+" => {
                stack.push(&b.left);
                stack.push(&b.right);
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_is_named_by_its_last_segment_in_capitals() {
        assert_eq!(
            constant_name("AlertLevel.CRITICAL").as_deref(),
            Some("CRITICAL")
        );
        assert_eq!(constant_name("MAX_2").as_deref(), Some("MAX_2"));
        assert_eq!(constant_name("alert.level"), None);
        assert_eq!(constant_name("Level.Critical"), None);
    }

    #[test]
    fn an_argument_fact_decides_a_test_only_when_it_contradicts_it() {
        let set = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
        let critical = Test::In(set(&["CRITICAL", "ERROR"]));
        assert!(!critical.admits(&Fact::Const("WARNING".into())));
        assert!(critical.admits(&Fact::Const("ERROR".into())));
        assert!(critical.admits(&Fact::Unknown));
        assert!(!Test::Null.admits(&Fact::NonNull));
        assert!(!Test::Null.admits(&Fact::Const("\"AUTOPAY\"".into())));
        assert!(Test::Null.admits(&Fact::Null));
        assert!(!Test::NonNull.admits(&Fact::Null));
        assert!(Test::NotIn(set(&["WARNING"])).admits(&Fact::Const("ERROR".into())));
        assert!(!Test::NotIn(set(&["WARNING"])).admits(&Fact::Const("WARNING".into())));
    }
}

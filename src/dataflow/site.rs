//! A call, constructor or method reference described to the model in the engine's terms; each
//! answer (the receiver's type, an argument's constant) is computed when the model asks.

use super::cx::Cx;
use super::model::{Form, Site};
use crate::java::ir::*;
use crate::semantic::TypeRef;
use std::cell::OnceCell;

enum What<'a> {
    Call(&'a Call),
    New(&'a New),
    Ref(&'a MethodRef),
}

pub(super) struct CallSite<'a, 'p> {
    cx: &'a Cx<'p>,
    what: What<'a>,
    form: OnceCell<Form>,
    /// The receiver's type: `None` when there is none or it cannot be told.
    recv: OnceCell<Option<TypeRef>>,
    /// The `extends`/`implements` clauses of a project receiver's class and of its project
    /// supertypes, resolved once: a catalogue row asks [`Site::receiver_inherits`] for each of
    /// its classes (seventeen Spring Data repositories for every `get*` call).
    declared_supers: OnceCell<Vec<TypeRef>>,
}

impl<'a, 'p> CallSite<'a, 'p> {
    fn new(cx: &'a Cx<'p>, what: What<'a>) -> Self {
        CallSite {
            cx,
            what,
            form: OnceCell::new(),
            recv: OnceCell::new(),
            declared_supers: OnceCell::new(),
        }
    }

    pub(super) fn call(cx: &'a Cx<'p>, c: &'a Call) -> Self {
        Self::new(cx, What::Call(c))
    }

    pub(super) fn new_object(cx: &'a Cx<'p>, n: &'a New) -> Self {
        Self::new(cx, What::New(n))
    }

    pub(super) fn method_ref(cx: &'a Cx<'p>, m: &'a MethodRef) -> Self {
        Self::new(cx, What::Ref(m))
    }

    fn args(&self) -> &'a [Expr] {
        match self.what {
            What::Call(c) => &c.args,
            What::New(n) => &n.args,
            What::Ref(_) => &[],
        }
    }

    fn recv_type(&self) -> Option<&TypeRef> {
        self.recv
            .get_or_init(|| {
                let cx = self.cx;
                match (&self.what, self.form()) {
                    (What::Call(c), Form::Static) => {
                        c.recv.as_ref()?.dotted().map(|d| cx.resolve(&d))
                    }
                    (What::Call(c), Form::Instance) => cx.type_of(c.recv.as_ref()?),
                    (What::New(n), _) => Some(cx.resolve(&n.ty)),
                    (What::Ref(m), Form::StaticRef) => m.recv.dotted().map(|d| cx.resolve(&d)),
                    (What::Ref(m), _) => cx.type_of(&m.recv),
                    _ => None,
                }
            })
            .as_ref()
    }
}

impl Site for CallSite<'_, '_> {
    fn name(&self) -> &str {
        match self.what {
            What::Call(c) => &c.name,
            What::New(n) => &n.ty,
            What::Ref(m) => &m.name,
        }
    }

    fn form(&self) -> Form {
        *self.form.get_or_init(|| match self.what {
            What::Call(c) => match &c.recv {
                None => Form::Bare,
                Some(r) if self.cx.is_type_name(r) => Form::Static,
                Some(_) => Form::Instance,
            },
            What::New(_) => Form::New,
            What::Ref(m) if self.cx.is_type_name(&m.recv) && m.recv.dotted().is_some() => {
                Form::StaticRef
            }
            What::Ref(_) => Form::InstanceRef,
        })
    }

    fn arg_count(&self) -> usize {
        self.args().len()
    }

    fn receiver_known(&self) -> bool {
        self.recv_type().is_some_and(TypeRef::is_known)
    }

    fn receiver_is(&self, class: &str) -> bool {
        self.recv_type()
            .is_some_and(|t| self.cx.project.type_is(t, class))
    }

    fn receiver_in_project(&self) -> bool {
        matches!(self.recv_type(), Some(TypeRef::Project(_)))
    }

    fn receiver_inherits(&self, class: &str) -> bool {
        let Some(t) = self.recv_type() else {
            return false;
        };
        let p = self.cx.project;
        if p.type_is(t, class) {
            return true;
        }
        let TypeRef::Project(c) = t else {
            return false;
        };
        self.declared_supers
            .get_or_init(|| {
                std::iter::once(*c)
                    .chain(p.supertypes_of(*c).iter().copied())
                    .flat_map(|k| {
                        p.class(k)
                            .supertypes
                            .iter()
                            .map(move |s| p.resolve_type(k.0, Some(k.1 as usize), s))
                    })
                    .collect()
            })
            .iter()
            .any(|ty| p.type_is(ty, class))
    }

    fn arg_text(&self, i: usize) -> Option<String> {
        match self.args().get(i)?.peel() {
            Expr::Str(s, _) => Some(s.clone()),
            other => other.dotted(),
        }
    }

    fn arg_constant(&self, i: usize) -> Option<String> {
        let cx = self.cx;
        match self.args().get(i)?.peel() {
            // A local initialised with a constant (`final String header = "Idempotency-Key";`).
            Expr::Name(n, _) if cx.is_local(n) => cx
                .defs
                .get(n)
                .and_then(|(_, init)| cx.project.constant(cx.class, init)),
            a => cx.project.constant(cx.class, a),
        }
    }

    fn static_import_owners(&self) -> Vec<String> {
        let cx = self.cx;
        match self.what {
            // A static import, unless a method of the enclosing classes shadows it.
            What::Call(c) if c.recv.is_none() => {
                if cx.project.resolve_call(cx.class, c, None).is_empty() {
                    cx.project.static_import_class(cx.file(), &c.name)
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        }
    }

    fn receiver_call(&self) -> Option<&str> {
        match self.what {
            What::Call(c) => match c.recv.as_ref()?.peel() {
                Expr::Call(svc) => Some(&svc.name),
                _ => None,
            },
            _ => None,
        }
    }

    fn receiver_call_on(&self, class: &str) -> bool {
        let What::Call(c) = self.what else {
            return false;
        };
        let Some(Expr::Call(svc)) = c.recv.as_ref().map(|r| r.peel()) else {
            return false;
        };
        let Some(on) = svc.recv.as_ref().filter(|r| !self.cx.is_type_name(r)) else {
            return false;
        };
        match self.cx.type_of(on).filter(TypeRef::is_known) {
            Some(t) => self.cx.project.type_is(&t, class),
            // What the accessor is called on has no known type (`wallet.v2()` with no factory
            // row to type it): the chain's root decides, as it did before accessors were typed.
            None => self.chain_root_is(class),
        }
    }

    fn chain_root_is(&self, class: &str) -> bool {
        let What::Call(c) = self.what else {
            return false;
        };
        let Some(Expr::Call(svc)) = c.recv.as_ref().map(|r| r.peel()) else {
            return false;
        };
        let mut root = svc.recv.as_ref();
        while let Some(Expr::Call(x)) = root.map(|e| e.peel()) {
            root = x.recv.as_ref();
        }
        root.and_then(|x| self.cx.type_of(x))
            .is_some_and(|t| self.cx.project.type_is(&t, class))
    }

    fn arg_lacks(&self, i: usize, property: &str) -> bool {
        self.args()
            .get(i)
            .is_some_and(|a| self.cx.built_without(a, property))
    }

    fn arg_is(&self, i: usize, class: &str) -> bool {
        let Some(a) = self.args().get(i) else {
            return false;
        };
        let is = |t: &TypeRef| self.cx.project.type_is(t, class);
        if self.cx.type_of(a).is_some_and(|t| is(&t)) {
            return true;
        }
        // An object made in place, whose library type the typer may not know: `new
        // CaptureRequest(…)`, or a builder chain started on the class (`CaptureRequest.builder()
        // …build()`).
        let mut at = a.peel();
        loop {
            match at {
                Expr::New(n) => return is(&self.cx.resolve(&n.ty)),
                Expr::Call(c) => match c.recv.as_ref().map(Expr::peel) {
                    Some(r @ Expr::Name(n, _)) if self.cx.is_type_name(r) => {
                        return is(&self.cx.resolve(n));
                    }
                    Some(r) => at = r,
                    None => return false,
                },
                _ => return false,
            }
        }
    }

    fn enclosing_is(&self, class: &str) -> bool {
        let project = self.cx.project;
        let c = self.cx.class;
        std::iter::once(c)
            .chain(project.supertypes_of(c).iter().copied())
            .any(|k| {
                project.type_is(&TypeRef::Project(k), class)
                    || project.class(k).supertypes.iter().any(|s| {
                        project.type_is(&project.resolve_type(k.0, Some(k.1 as usize), s), class)
                    })
            })
    }
}

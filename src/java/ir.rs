//! A small, owned intermediate form of a Java compilation unit.
//!
//! Lowering keeps only what the analysis needs (declarations, calls, data flow shapes and
//! spans), so syntax trees never outlive the parse of their own file.

pub use super::name::Name;
use serde::{Deserialize, Serialize};

/// A byte range in a file. Lines and columns are computed when they are shown, from the file's
/// line index ([`FileFacts::line_of`]) or its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

thread_local! {
    /// Set while [`declarations`] encodes a file: spans and bodies are left out.
    static DECLARATIONS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The bodies read on this thread while [`reading_bodies`] watches (their addresses).
    static BODY_READS: std::cell::RefCell<Option<Vec<usize>>> =
        const { std::cell::RefCell::new(None) };
    /// Set while a method body is encoded or decoded ([`body_code`]): the start of the span
    /// before.
    static SPAN_BEFORE: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) };
}

/// Runs `f`, which encodes or decodes one method body, with every span in it written as its
/// distance from the start of the span before and its length: mostly a byte each, where
/// offsets into the file take two or three each. Encoding and decoding see the spans in the
/// same order, so each knows the one before. Bodies are most of what a parsed project holds.
fn body_code<T>(f: impl FnOnce() -> T) -> T {
    let before = SPAN_BEFORE.replace(Some(0));
    // A body is decoded on its own, later: its names are text even inside a numbered encoding.
    let out = super::name::as_text(f);
    SPAN_BEFORE.set(before);
    out
}

/// As derived, except in [`declarations`], which leaves every span out.
impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        if DECLARATIONS.get() {
            return s.serialize_unit();
        }
        if let Some(before) = SPAN_BEFORE.get() {
            SPAN_BEFORE.set(Some(self.start));
            let len = self.end.wrapping_sub(self.start);
            return (self.start.wrapping_sub(before) as i32, len).serialize(s);
        }
        let mut st = s.serialize_struct("Span", 2)?;
        st.serialize_field("start", &self.start)?;
        st.serialize_field("end", &self.end)?;
        st.end()
    }
}

/// As derived, except inside a method body's code ([`body_code`]).
impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Span, D::Error> {
        if let Some(before) = SPAN_BEFORE.get() {
            let (step, len) = <(i32, u32)>::deserialize(d)?;
            let start = before.wrapping_add(step as u32);
            SPAN_BEFORE.set(Some(start));
            return Ok(Span {
                start,
                end: start.wrapping_add(len),
            });
        }
        #[derive(Deserialize)]
        #[serde(rename = "Span")]
        struct Plain {
            start: u32,
            end: u32,
        }
        let Plain { start, end } = Plain::deserialize(d)?;
        Ok(Span { start, end })
    }
}

/// What a file declares, encoded without spans and without method bodies (nor the lambda
/// scopes inside them): its package, imports, classes with their fields and annotations, and
/// each method's signature. An edit inside a method body, or one that moves code, leaves it
/// unchanged; a new type, method, field, annotation or constant changes it (the summary
/// cache's key, see `workspace::summary_cache`).
pub fn declarations(facts: &FileFacts) -> Vec<u8> {
    let before = DECLARATIONS.replace(true);
    let methods: Vec<_> = facts
        .methods
        .iter()
        .map(|m| {
            (
                (&m.name, m.class, &m.params, &m.ret, &m.ret_generic),
                (
                    &m.annotations,
                    &m.modifiers,
                    m.is_ctor,
                    m.has_body(),
                    &m.throws,
                    &m.type_params,
                ),
            )
        })
        .collect();
    let out = postcard::to_stdvec(&(&facts.package, &facts.imports, &facts.classes, &methods));
    DECLARATIONS.set(before);
    out.unwrap_or_default()
}

/// Runs `f` and tells which method bodies it read ([`Method::body`], [`Method::peek_body`]),
/// by the address of each [`Body`]: the summary cache maps them to the files that hold them.
pub fn reading_bodies<T>(f: impl FnOnce() -> T) -> (T, Vec<usize>) {
    let before = BODY_READS.replace(Some(Vec::new()));
    let out = f();
    let read = BODY_READS.replace(before).unwrap_or_default();
    (out, read)
}

/// Tells the reader of [`reading_bodies`] around this call that the bodies at these addresses
/// (from an inner [`reading_bodies`]) were read: a result worked out once and kept is read
/// again each time it is used.
pub fn note_bodies_read(read: &[usize]) {
    BODY_READS.with_borrow_mut(|r| {
        if let Some(v) = r {
            v.extend_from_slice(read);
        }
    });
}

fn note_body_read(b: &Body) {
    BODY_READS.with_borrow_mut(|r| {
        if let Some(v) = r {
            v.push(b as *const Body as usize);
        }
    });
}

/// Index of a lambda or anonymous-class method inside its enclosing method; 0 is the method body.
pub type ScopeId = u32;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scope {
    pub parent: Option<ScopeId>,
    pub span: Span,
    /// Parameters of the lambda or anonymous method (name, declared type if written).
    pub params: Vec<(Name, Option<Name>)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Annotation {
    /// As written: `Retryable` or `org.springframework.retry.annotation.Retryable`.
    pub name: Name,
    /// (element name, value); an unnamed single value has `None`.
    pub args: Vec<(Option<Name>, Expr)>,
    pub span: Span,
}

impl Annotation {
    /// The simple name of the constant given as element `name` or as the unnamed single value
    /// (`@Transactional(propagation = Propagation.REQUIRES_NEW)`, `@Transactional(TxType.NEVER)`,
    /// `@Transactional(value = TxType.SUPPORTS)` → `REQUIRES_NEW`, `NEVER`, `SUPPORTS`).
    pub fn constant_arg(&self, name: &str) -> Option<String> {
        self.args.iter().find_map(|(k, v)| {
            if !matches!(k.as_deref(), None | Some("value")) && k.as_deref() != Some(name) {
                return None;
            }
            match v.peel() {
                Expr::Name(..) | Expr::Field(..) => v
                    .dotted()
                    .map(|d| d.rsplit('.').next().unwrap_or(&d).to_string()),
                _ => None,
            }
        })
    }
}

/// A declared type as written with its type arguments (`Optional<Dispatch>`,
/// `Map<String,List<Payment>>`; whitespace and annotations dropped), kept beside the erased type
/// only when it has type arguments: the typer reads them to type the parameters of a lambda given
/// to a JDK generic method (`optional.map(d -> …)`), as javac does.
pub type Generic = Option<Name>;

/// The declared type with its type arguments where it has any, else the erased type.
pub fn written_type<'a>(ty: &'a str, generic: &'a Generic) -> &'a str {
    generic.as_deref().unwrap_or(ty)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Param {
    pub name: Name,
    pub ty: Name,
    /// The type with its type arguments, when it has any ([`Generic`]).
    pub generic: Generic,
    pub annotations: Vec<Annotation>,
    pub span: Span,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Modifiers {
    pub is_public: bool,
    pub is_private: bool,
    pub is_static: bool,
    pub is_abstract: bool,
    pub is_final: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Method {
    pub name: Name,
    /// Index of the declaring class in [`FileFacts::classes`].
    pub class: usize,
    pub params: Vec<Param>,
    /// Declared return type; empty for constructors.
    pub ret: Name,
    /// The return type with its type arguments, when it has any ([`Generic`]).
    pub ret_generic: Generic,
    pub annotations: Vec<Annotation>,
    pub modifiers: Modifiers,
    pub is_ctor: bool,
    /// A constructor whose body starts with `this(…)` or `super(…)`: it does not reach the
    /// superclass's no-argument constructor implicitly. Known at lowering, so that every
    /// `new` the analysis walks need not read constructor bodies.
    #[serde(default)]
    pub delegates: bool,
    pub body: Body,
    pub span: Span,
    pub name_span: Span,
    pub scopes: Vec<Scope>,
    /// The exception types of its `throws` clause, as written.
    #[serde(default)]
    pub throws: Vec<Name>,
    /// The names of its own type parameters (`<T> T convert(…)`).
    #[serde(default)]
    pub type_params: Vec<Name>,
}

impl Method {
    /// Is scope `s` inside one of `roots` (or one of them)?
    pub fn scope_within(&self, s: ScopeId, roots: &[ScopeId]) -> bool {
        let mut cur = Some(s);
        let mut guard = 0;
        while let Some(x) = cur {
            if roots.contains(&x) {
                return true;
            }
            cur = self.scopes.get(x as usize).and_then(|sc| sc.parent);
            guard += 1;
            if guard > self.scopes.len() {
                return false;
            }
        }
        false
    }

    /// The method's body; `None` for an abstract, interface or native method. Every reader of a
    /// body goes through here, so that bodies can be stored apart from the declarations.
    pub fn body(&self) -> Option<&Block> {
        self.body.get()
    }

    /// Whether it has a body, without reading it.
    pub fn has_body(&self) -> bool {
        self.body.is_some()
    }

    /// The body for a passing look, decoded for the caller alone if no reader has asked for it
    /// yet (see [`Body::peek`]): for the scans of every method of the project.
    pub fn peek_body(&self) -> Option<std::borrow::Cow<'_, Block>> {
        self.body.peek()
    }
}

/// A method's body. Lowering makes it as a tree; [`FileFacts::seal_bodies`] encodes it (the
/// cache's compact form, about a fifth of the tree's memory) and drops the tree, and its first
/// reader decodes it again. Most methods of a project are never read by the analysis (only
/// those the regions reach, and the few the region search looks into), so most bodies stay
/// encoded for the whole run.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// The encoded tree, once sealed.
    code: Option<Box<[u8]>>,
    /// The tree: as lowered before sealing, decoded from `code` on first read after. Boxed:
    /// most bodies stay encoded, and every method holds this slot.
    tree: std::sync::OnceLock<Box<Block>>,
}

static DECODINGS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Body {
    pub fn new(block: Option<Block>) -> Body {
        let tree = std::sync::OnceLock::new();
        if let Some(b) = block {
            let _ = tree.set(Box::new(b));
        }
        Body { code: None, tree }
    }

    pub fn is_some(&self) -> bool {
        self.code.is_some() || self.tree.get().is_some()
    }

    pub fn get(&self) -> Option<&Block> {
        note_body_read(self);
        match &self.code {
            None => self.tree.get().map(|b| &**b),
            Some(code) => Some(self.tree.get_or_init(|| Box::new(Body::decode(code)))),
        }
    }

    /// The tree for a passing look: the one held, or one decoded for the caller alone and
    /// dropped after it. The scans that look at every method of the project read bodies so,
    /// or every body would stay decoded.
    pub fn peek(&self) -> Option<std::borrow::Cow<'_, Block>> {
        note_body_read(self);
        if let Some(b) = self.tree.get() {
            return Some(std::borrow::Cow::Borrowed(&**b));
        }
        let code = self.code.as_ref()?;
        Some(std::borrow::Cow::Owned(Body::decode(code)))
    }

    fn decode(code: &[u8]) -> Block {
        DECODINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Encoded by `seal` of this build, or read from a cache entry sealed with this
        // machine's key for this facts format.
        let raw = super::packing::unpack(code).expect("a method body packed by this build");
        body_code(|| postcard::from_bytes(&raw)).expect("a method body encoded by this build")
    }

    /// How many times a body was decoded in this process (`RETRYLINT_TIMINGS`).
    pub fn decodings() -> usize {
        DECODINGS.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The tree to change (decoded if sealed; it is no longer sealed after).
    pub fn get_mut(&mut self) -> Option<&mut Block> {
        self.get()?;
        self.code = None;
        self.tree.get_mut().map(|b| &mut **b)
    }

    /// Encode the tree and drop it.
    pub fn seal(&mut self) {
        if self.code.is_none()
            && let Some(b) = self.tree.take()
        {
            // Encoded into a buffer each thread keeps, then copied out at its size: a vector
            // grown byte by byte from empty reallocates (and copies) a large body many times.
            thread_local! {
                static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
            }
            self.code = Some(BUF.with_borrow_mut(|buf| {
                buf.clear();
                let out = body_code(|| postcard::to_extend(&b, std::mem::take(buf)))
                    .expect("a body encodes");
                let code = super::packing::pack(&out);
                // A pathological body does not keep its buffer for the rest of the run.
                if out.capacity() <= 1 << 20 {
                    *buf = out;
                }
                code
            }));
        }
    }

    /// Drop the decoded tree of a sealed body (its next reader decodes it again); a body that
    /// was never sealed keeps its only form.
    pub fn release(&mut self) {
        if self.code.is_some() {
            self.tree.take();
        }
    }

    /// Whether it is held encoded.
    pub fn is_sealed(&self) -> bool {
        self.code.is_some()
    }

    /// Whether its tree is held now (lowered and not sealed, or decoded).
    pub fn is_decoded(&self) -> bool {
        self.tree.get().is_some()
    }
}

/// Serialised as its encoded form: reading a cache entry does not decode the bodies.
impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if DECLARATIONS.get() {
            return s.serialize_none();
        }
        match (&self.code, self.tree.get()) {
            (Some(code), _) => s.serialize_some(&Bytes(code)),
            (None, Some(b)) => {
                let code =
                    body_code(|| postcard::to_stdvec(b)).map_err(serde::ser::Error::custom)?;
                s.serialize_some(&Bytes(&super::packing::pack(&code)))
            }
            (None, None) => s.serialize_none(),
        }
    }
}

struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        struct Code;
        impl<'de> serde::de::Visitor<'de> for Code {
            type Value = Option<Box<[u8]>>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an encoded method body")
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                d.deserialize_bytes(Bytes0).map(Some)
            }
        }
        struct Bytes0;
        impl<'de> serde::de::Visitor<'de> for Bytes0 {
            type Value = Box<[u8]>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(v.into())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Self::Value, E> {
                Ok(v.into())
            }
        }
        Ok(Body {
            code: d.deserialize_option(Code)?,
            tree: std::sync::OnceLock::new(),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClassKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Field {
    pub name: Name,
    pub ty: Name,
    /// The type with its type arguments, when it has any ([`Generic`]).
    pub generic: Generic,
    pub init: Option<Expr>,
    pub modifiers: Modifiers,
    pub span: Span,
}

/// The names annotations give a field (`@JsonProperty("idempotency_key")`): (annotation as
/// written, the string its value element holds), for each annotation of the field whose value is
/// a string literal. A record component's are its parameter's. Kept per class
/// ([`Class::field_names`]), since few fields have any.
pub fn names_of(annotations: &[Annotation]) -> Vec<(Name, Name)> {
    annotations
        .iter()
        .filter_map(|a| {
            let (_, v) = a
                .args
                .iter()
                .find(|(k, _)| k.is_none() || k.as_deref() == Some("value"))?;
            match v {
                // A property placeholder or an expression (`@Value("${psp.url}")`) names nothing.
                Expr::Str(s, _) if !s.contains("${") && !s.contains("#{") => {
                    Some((a.name, Name::new(s)))
                }
                _ => None,
            }
        })
        .collect()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Class {
    pub name: Name,
    /// Package-qualified, with `.` between nested classes.
    pub fqn: Name,
    pub kind: ClassKind,
    pub supertypes: Vec<Name>,
    /// Those of its supertypes written with type arguments, as written ([`Generic`]):
    /// `Holder<KeyFactory>` in `class KeyHolder extends Holder<KeyFactory>`.
    #[serde(default)]
    pub generic_supertypes: Vec<Name>,
    /// The names of its type parameters (`T` in `class Holder<T>`).
    #[serde(default)]
    pub type_params: Vec<Name>,
    pub annotations: Vec<Annotation>,
    pub modifiers: Modifiers,
    pub fields: Vec<Field>,
    pub outer: Option<usize>,
    pub span: Span,
    /// Field initializers run by constructors, lowered as a pseudo-method body (index into methods).
    pub initializer: Option<usize>,
    /// The names annotations give its fields ([`names_of`]): (field, annotation as written,
    /// value).
    pub field_names: Vec<(Name, Name, Name)>,
    /// The annotations of its fields that have an initializer (`@Builder.Default private
    /// String key = …;`): (field, annotation as written). Kept per class, since few fields
    /// have both.
    pub initialized_annotations: Vec<(Name, Name)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Import {
    pub path: Name,
    pub is_static: bool,
    pub wildcard: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FileFacts {
    pub package: Name,
    pub imports: Vec<Import>,
    pub classes: Vec<Class>,
    pub methods: Vec<Method>,
    /// Spans tree-sitter could not parse (ERROR or MISSING nodes), and malformed unicode
    /// escapes.
    pub syntax_errors: Vec<Span>,
    /// The ERROR and MISSING nodes alone: where tree-sitter's error recovery may have given
    /// the code around them another structure (a method nested into the one before it).
    pub recovered: Vec<Span>,
    /// Byte offset at which each line starts.
    pub line_starts: super::lines::LineStarts,
    /// The suppression directives written in the file (comments and `@SuppressWarnings`
    /// values naming retrylint), for the policy layer: it needs no parse of its own.
    pub directives: Vec<Directive>,
    /// Code nested deeper than lowering goes (kept as opaque or dropped): its analysis is
    /// incomplete. Where each cut was made.
    pub too_deep: Vec<Span>,
    /// The hash of the file's [`declarations`], when computed before the facts were cached: a
    /// run that takes them from the cache does not encode every file's declarations again.
    pub declared: Option<[u8; 32]>,
}

impl FileFacts {
    /// The hash of [`declarations`] (the summary cache's key is made of every file's).
    pub fn declarations_digest(&self) -> [u8; 32] {
        use sha2::Digest;
        self.declared
            .unwrap_or_else(|| sha2::Sha256::digest(declarations(self)).into())
    }

    /// Every method body in its encoded form (see [`Body`]).
    pub fn seal_bodies(&mut self) {
        for m in &mut self.methods {
            m.body.seal();
        }
    }

    /// Every sealed body back to its encoded form alone (see [`Body::release`]).
    pub fn release_bodies(&mut self) {
        for m in &mut self.methods {
            m.body.release();
        }
    }

    /// The one-based line of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        self.line_starts.line_of(offset)
    }
}

pub type Block = Vec<Stmt>;

impl Stmt {
    /// The blocks nested directly in this statement, in source order: an `if`'s branches, a
    /// loop's head and body, a `try`'s resources, body, catch blocks and `finally`, a block.
    pub fn blocks(&self) -> Vec<&Block> {
        match self {
            Stmt::If { then, els, .. } => std::iter::once(then).chain(els).collect(),
            Stmt::Loop { head, body, .. } => vec![head, body],
            Stmt::Try {
                resources,
                body,
                catches,
                finally,
            } => [resources, body]
                .into_iter()
                .chain(catches.iter().map(|(_, b)| b))
                .chain(finally)
                .collect(),
            Stmt::Block(b) => vec![b],
            _ => Vec::new(),
        }
    }
}

/// A statement or an expression of a body: what the untyped walks of the IR visit.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
}

impl<'a> Node<'a> {
    /// The nodes nested directly in this one, in source order: a statement's expressions and
    /// the statements of its blocks; an expression's operands, and the bodies of its lambdas,
    /// anonymous class methods and switch arms. Walks keep their own stack (no recursion, so
    /// deep nesting cannot overflow it) and push these.
    pub fn children(self, out: &mut Vec<Node<'a>>) {
        let stmts = |b: &'a Block, out: &mut Vec<Node<'a>>| out.extend(b.iter().map(Node::Stmt));
        match self {
            Node::Stmt(s) => {
                match s {
                    Stmt::Local { init, .. } => out.extend(init.iter().map(Node::Expr)),
                    Stmt::Expr(e) | Stmt::Throw(e) | Stmt::Return(Some(e), _) => {
                        out.push(Node::Expr(e))
                    }
                    Stmt::If { cond, .. } => out.push(Node::Expr(cond)),
                    Stmt::Loop {
                        head,
                        cond,
                        update,
                        body,
                        each,
                        ..
                    } => {
                        stmts(head, out);
                        out.extend(each.iter().map(|(_, _, c)| Node::Expr(c)));
                        out.extend(cond.iter().map(Node::Expr));
                        out.extend(update.iter().map(Node::Expr));
                        stmts(body, out);
                        return;
                    }
                    _ => {}
                }
                for b in s.blocks() {
                    stmts(b, out);
                }
            }
            Node::Expr(e) => match e {
                Expr::Call(c) => {
                    out.extend(c.recv.iter().map(Node::Expr));
                    out.extend(c.args.iter().map(Node::Expr));
                }
                Expr::New(n) => {
                    out.extend(n.args.iter().map(Node::Expr));
                    for a in &n.anon {
                        stmts(&a.body, out);
                    }
                }
                Expr::Lambda(l) => match &l.body {
                    LambdaBody::Expr(x) => out.push(Node::Expr(x)),
                    LambdaBody::Block(b) => stmts(b, out),
                },
                Expr::MethodRef(r) => out.push(Node::Expr(&r.recv)),
                Expr::Field(r, _, _) | Expr::Not(r, _) | Expr::Cast(_, r, _) => {
                    out.push(Node::Expr(r))
                }
                Expr::Assign(a) => out.extend([Node::Expr(&a.target), Node::Expr(&a.value)]),
                Expr::Ternary(a, b, c, _) => {
                    out.extend([Node::Expr(a), Node::Expr(b), Node::Expr(c)])
                }
                Expr::Binary(b) => out.extend([Node::Expr(&b.left), Node::Expr(&b.right)]),
                Expr::Op(xs, _) => out.extend(xs.iter().map(Node::Expr)),
                Expr::Switch(x, arms, _) => {
                    out.push(Node::Expr(x));
                    for a in arms {
                        stmts(a, out);
                    }
                }
                Expr::Name(..)
                | Expr::This(_)
                | Expr::Str(..)
                | Expr::Lit(..)
                | Expr::Null(_)
                | Expr::Opaque(_) => {}
            },
        }
    }

    /// Every node of `block`, each before the nodes nested in it.
    pub fn all(block: &'a Block) -> impl Iterator<Item = Node<'a>> {
        Node::from_roots(block.iter().map(Node::Stmt).collect())
    }

    /// The nodes `roots` (in order) and every node nested in them, each before its own.
    pub fn from_roots(roots: Vec<Node<'a>>) -> impl Iterator<Item = Node<'a>> {
        let mut stack = roots;
        stack.reverse();
        let mut kids = Vec::new();
        std::iter::from_fn(move || {
            let n = stack.pop()?;
            n.children(&mut kids);
            stack.extend(kids.drain(..).rev());
            Some(n)
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Stmt {
    Local {
        ty: String,
        /// The type with its type arguments, when it has any ([`Generic`]).
        generic: Generic,
        name: String,
        init: Option<Expr>,
        span: Span,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    /// while / do / for / enhanced for: the body may run any number of times.
    Loop {
        head: Vec<Stmt>,
        cond: Option<Expr>,
        update: Vec<Expr>,
        body: Block,
        /// `for (T x : coll)`: the element variable.
        each: Option<(String, String, Expr)>,
        /// The scope of the body (its own).
        scope: ScopeId,
        span: Span,
    },
    Try {
        resources: Block,
        body: Block,
        catches: Vec<(String, Block)>,
        finally: Option<Block>,
    },
    Return(Option<Expr>, Span),
    Throw(Expr),
    Block(Block),
    Break,
    Continue,
    /// An empty statement, an assertion: nothing that flows.
    Jump,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Expr {
    Call(Box<Call>),
    New(Box<New>),
    Name(String, Span),
    Field(Box<Expr>, String, Span),
    This(Span),
    Str(String, Span),
    /// A non-string literal, as written (`0`, `true`, `'c'`).
    Lit(String, Span),
    Null(Span),
    Lambda(Box<Lambda>),
    MethodRef(Box<MethodRef>),
    Assign(Box<Assign>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>, Span),
    Binary(Box<Binary>),
    Not(Box<Expr>, Span),
    Cast(String, Box<Expr>, Span),
    /// Any other expression whose value derives from its operands (array access, parentheses…).
    Op(Vec<Expr>, Span),
    /// An expression that yields a fresh, unrelated value (instanceof, class literal…).
    Opaque(Span),
    /// A switch expression: its arms' values.
    Switch(Box<Expr>, Vec<Block>, Span),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Call {
    pub recv: Option<Expr>,
    pub name: String,
    pub args: Vec<Expr>,
    pub span: Span,
    pub name_span: Span,
    /// The lambda, anonymous-method or loop-body scope this call is evaluated in.
    pub scope: ScopeId,
    /// `super.name(…)`
    pub on_super: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct New {
    pub ty: String,
    pub args: Vec<Expr>,
    pub span: Span,
    pub scope: ScopeId,
    /// Methods of an anonymous class body: (name, scope of its body, body).
    pub anon: Vec<AnonMethod>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AnonMethod {
    pub name: String,
    pub scope: ScopeId,
    pub body: Block,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Lambda {
    pub scope: ScopeId,
    pub body: LambdaBody,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LambdaBody {
    Expr(Expr),
    Block(Block),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MethodRef {
    /// `this`, `super`, a type name, or an expression.
    pub recv: Expr,
    pub name: String,
    pub span: Span,
    pub scope: ScopeId,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Assign {
    pub target: Expr,
    /// `=`, `+=`, …
    pub op: String,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Binary {
    pub op: String,
    pub left: Expr,
    pub right: Expr,
    pub span: Span,
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Call(c) => c.span,
            Expr::New(n) => n.span,
            Expr::Name(_, s)
            | Expr::Field(_, _, s)
            | Expr::This(s)
            | Expr::Str(_, s)
            | Expr::Lit(_, s)
            | Expr::Null(s)
            | Expr::Ternary(_, _, _, s)
            | Expr::Not(_, s)
            | Expr::Cast(_, _, s)
            | Expr::Op(_, s)
            | Expr::Opaque(s)
            | Expr::Switch(_, _, s) => *s,
            Expr::Lambda(l) => l.span,
            Expr::MethodRef(m) => m.span,
            Expr::Assign(a) => a.span,
            Expr::Binary(b) => b.span,
        }
    }

    /// `a.b.c` written as names and field accesses, as a dotted string.
    pub fn dotted(&self) -> Option<String> {
        match self {
            Expr::Name(n, _) => Some(n.clone()),
            Expr::Field(recv, name, _) => Some(format!("{}.{}", recv.dotted()?, name)),
            _ => None,
        }
    }

    /// Strip casts and parentheses.
    pub fn peel(&self) -> &Expr {
        let mut e = self;
        loop {
            match e {
                Expr::Cast(_, inner, _) => e = inner,
                Expr::Op(v, _) if v.len() == 1 => e = &v[0],
                _ => return e,
            }
        }
    }
}

/// Where a suppression directive is written and what it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DirectiveForm {
    /// A comment; covers its own line and, when it stands alone on its line(s), the next code
    /// line — all lines of the statement that starts there.
    Comment { line: u32, next: Option<(u32, u32)> },
    /// A `@SuppressWarnings` value; covers the lines of the annotated declaration.
    Annotation { first: u32, last: u32 },
}

/// A suppression directive as written; which rules it names is read by the policy layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Directive {
    /// From the directive's keyword to the end of its text (a comment) or the string literal
    /// (an annotation).
    pub span: Span,
    /// The lines the span starts and ends on.
    pub line: u32,
    pub end_line: u32,
    pub form: DirectiveForm,
    /// The directive as written, for messages.
    pub text: String,
    /// What follows the keyword: rule names and `-- reason`.
    pub rest: String,
    /// Lines of the covered statement that it does not reach: the bodies of lambdas and
    /// anonymous classes nested in it (a callback's code is not the statement's own line).
    pub holes: Vec<(u32, u32)>,
    /// A near-miss of the syntax (`retrylint: ignore`, `retrylint:disable`): it suppresses
    /// nothing and is reported with how to write it.
    pub malformed: bool,
}

impl Class {
    /// The (annotation as written, value) pairs annotations give field `field`.
    pub fn field_named<'a>(&'a self, field: &'a str) -> impl Iterator<Item = (Name, Name)> + 'a {
        self.field_names
            .iter()
            .filter(move |(f, _, _)| f.as_str() == field)
            .map(|(_, a, v)| (*a, *v))
    }
}

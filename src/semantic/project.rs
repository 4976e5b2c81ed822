//! The project index: every class, method and string constant of the scanned files, and the
//! name resolution the analysis needs (types through imports, calls through declared types).

use super::modules::Modules;
use crate::java::ir::{Call, Class, Expr, FileFacts, Method};
use std::collections::HashMap as StdHashMap;

#[path = "project_resolve.rs"]
mod resolve;

/// The index's maps, looked up on every resolution: hashed with a fast hasher seeded at random
/// for each process (a file cannot be written in advance with keys that collide).
type HashMap<K, V> = StdHashMap<K, V, foldhash::fast::RandomState>;

pub type ClassRef = (u32, u32);
pub type MethodId = (u32, u32);

/// How many methods a phase reads before it gives their decoded bodies back (see
/// [`Project::map_in_batches`]): large enough that a body several methods of a batch read is
/// decoded once for them, small enough that a batch's bodies are a few megabytes.
pub const BODY_BATCH: usize = 1024;

pub struct SourceFile {
    pub path: String,
    pub facts: FileFacts,
}

/// A type as far as it can be resolved from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    Project(ClassRef),
    External(String),
    /// Not resolvable: the simple name as written.
    Unknown(String),
}

impl TypeRef {
    /// A type a catalogue row can be checked against: not unresolved, and not a library type
    /// whose name is unknown (what a library method returns).
    pub fn is_known(&self) -> bool {
        !matches!(self, TypeRef::Unknown(_))
            && !matches!(self, TypeRef::External(f) if f.is_empty())
    }
}

pub struct Project {
    pub files: Vec<SourceFile>,
    /// Methods [`Project::map_in_batches`] ran since the decoded bodies were last given back.
    mapped: usize,
    /// Every class by fully qualified name: several build modules may hold the same one.
    class_by_fqn: HashMap<String, Vec<ClassRef>>,
    modules: Modules,
    methods_of_class: HashMap<ClassRef, Vec<MethodId>>,
    /// The same methods sorted by name (declaration order within a name), so that a call is
    /// bound by a search, not a scan of its class: a class of n methods calling each other
    /// would otherwise cost n² name comparisons in every phase that resolves calls.
    methods_by_name: HashMap<ClassRef, Vec<MethodId>>,
    /// Every method of the project sorted by name, made when first asked for: the overrides
    /// of a call in the subtypes of a class that thousands of classes extend are found by one
    /// search of the name, not one search per subtype.
    all_by_name: std::sync::OnceLock<Vec<MethodId>>,
    /// The bean methods by the simple name of the type they return, made when first asked for
    /// (see [`super::held`]).
    beans: std::sync::OnceLock<super::held::BeanIndex>,
    /// What each container-filled collection field holds, worked out once (see
    /// [`super::containers`]), with the bodies read to find it.
    pub(super) filled: std::sync::Mutex<HashMap<(ClassRef, String), super::containers::Filled>>,
    /// Per file: its single-type imports (indices into its facts' imports), sorted by simple
    /// name, in file order within a name. A map of names to paths was two more strings per
    /// import: tens of megabytes on a large project.
    imports: Vec<Box<[u32]>>,
    /// Direct project supertypes and subtypes of each class.
    supertypes: HashMap<ClassRef, Vec<ClassRef>>,
    subtypes: HashMap<ClassRef, Vec<ClassRef>>,
    /// Transitive closures of [`Self::supertypes`] and [`Self::subtypes`], each computed when
    /// first asked for: a hierarchy n deep holds n² pairs, most never asked for.
    closures: HashMap<ClassRef, [std::sync::OnceLock<Vec<ClassRef>>; 2]>,
    constants_by_name: HashMap<String, Vec<(ClassRef, String)>>,
    /// When set, every lookup that files not in the project could answer differently is
    /// recorded (see [`crate::scope`]).
    deps: Option<crate::scope::Deps>,
    /// Per class, the classes its `extends`/`implements` clauses were looked up as, recorded
    /// when its supertypes are asked for (not when the index is built).
    super_lookups: HashMap<ClassRef, Vec<String>>,
    /// While recording, per class: whether its supertype lookups (0) and its name as a
    /// supertype (1) were noted already. Noting is idempotent; noting every class of every
    /// closure asked for would be quadratic in a hierarchy's depth.
    noted: HashMap<ClassRef, [std::sync::atomic::AtomicBool; 2]>,
    /// Per file: the types resolved so far, by name as written, with the class it was written
    /// in (`u32::MAX`: none). The analysis resolves the same names of a file again and again,
    /// and each resolution formats and looks up a name per enclosing class, the package and
    /// each wildcard import. Not used while recording: a lookup notes what it depends on.
    resolved: Vec<std::sync::Mutex<Resolved>>,
    /// The catalogue's tree words (token hashes, sorted) that some file of the scanned tree
    /// names, parsed or not (see [`crate::catalogue::Catalogue::tree_words`]).
    tree_words: Vec<u32>,
}

/// Keyed by interned names: the same few type names are asked in every file.
type Resolved = HashMap<crate::java::ir::Name, Memo>;

/// A resolution as the memo keeps it: library and unresolved names interned (the same
/// `java.util.List` in every file is one text), the first class it was asked from inline.
struct Memo {
    first: (u32, Kept),
    more: Vec<(u32, Kept)>,
}

#[derive(Clone, Copy)]
enum Kept {
    Project(ClassRef),
    External(crate::java::ir::Name),
    Unknown(crate::java::ir::Name),
}

impl Kept {
    fn of(t: &TypeRef) -> Kept {
        use crate::java::ir::Name;
        match t {
            TypeRef::Project(c) => Kept::Project(*c),
            TypeRef::External(s) => Kept::External(Name::new(s)),
            TypeRef::Unknown(s) => Kept::Unknown(Name::new(s)),
        }
    }

    fn get(self) -> TypeRef {
        match self {
            Kept::Project(c) => TypeRef::Project(c),
            Kept::External(n) => TypeRef::External(n.to_string()),
            Kept::Unknown(n) => TypeRef::Unknown(n.to_string()),
        }
    }
}

impl Memo {
    fn find(&self, key: u32) -> Option<TypeRef> {
        std::iter::once(&self.first)
            .chain(&self.more)
            .find(|(k, _)| *k == key)
            .map(|(_, t)| t.get())
    }
}

/// The simple name an import brings in (`java.util.List` → `List`).
fn simple(i: &crate::java::ir::Import) -> &str {
    i.path.rsplit('.').next().unwrap_or(&i.path)
}

const JAVA_LANG: &[&str] = &[
    "System",
    "Math",
    "StrictMath",
    "String",
    "Object",
    "Integer",
    "Long",
    "Double",
    "Float",
    "Boolean",
    "Character",
    "Byte",
    "Short",
    "Thread",
    "Runnable",
    "StringBuilder",
    "StringBuffer",
    "Iterable",
    "Exception",
    "RuntimeException",
    "Throwable",
    "Error",
    "Class",
    "Enum",
    "Record",
    "Void",
    "Number",
    "CharSequence",
    "Comparable",
    "AutoCloseable",
    "Override",
    "Deprecated",
    "SuppressWarnings",
];

impl Project {
    pub fn new(files: Vec<SourceFile>) -> Project {
        Project::build(files, None)
    }

    /// An index of part of a project that records the lookups it answers.
    pub fn recording(files: Vec<SourceFile>) -> Project {
        Project::build(files, Some(crate::scope::Deps::default()))
    }

    /// The lookups recorded so far (empty unless [`Project::recording`]).
    pub fn deps(&self) -> Option<&crate::scope::Deps> {
        self.deps.as_ref()
    }

    /// The files back, to index them again with more.
    pub fn into_files(self) -> Vec<SourceFile> {
        self.files
    }

    /// The class `fqn` as seen from `file`: one in the file's module or a module its build
    /// depends on (its own module first); else, when exactly one class of that name exists in
    /// the same build, that one (a dependency the build reader cannot see); else none.
    fn lookup(&self, file: u32, fqn: &str) -> Option<&ClassRef> {
        if let Some(d) = &self.deps {
            d.note_type(fqn);
        }
        let all = self.class_by_fqn.get(fqn)?;
        if let [one] = all.as_slice()
            && self.modules.sees(file, one.0)
        {
            return Some(one);
        }
        let own = self.modules.module_of(file);
        all.iter()
            .find(|c| self.modules.module_of(c.0) == own)
            .or_else(|| all.iter().find(|c| self.modules.sees(file, c.0)))
            .or_else(|| match all.as_slice() {
                [one] if self.modules.same_build(file, one.0) => Some(one),
                _ => None,
            })
    }

    /// Which of the catalogue's tree words the scanned tree names (token hashes), as found
    /// before the index was built: by the byte scans of every file, parsed or not.
    pub fn set_tree_words(&mut self, mut words: Vec<u32>) {
        words.sort_unstable();
        words.dedup();
        self.tree_words = words;
    }

    /// The tree words the scanned tree names, sorted (for the summary cache's key).
    pub fn tree_words(&self) -> &[u32] {
        &self.tree_words
    }

    /// Does some file of the scanned tree name `word` (a catalogue tree word)?
    pub fn tree_names(&self, word: &str) -> bool {
        self.tree_words
            .binary_search(&crate::scope::token_hash(word.as_bytes()))
            .is_ok()
    }

    /// The build modules of the files.
    pub fn modules(&self) -> &Modules {
        &self.modules
    }

    fn build(files: Vec<SourceFile>, deps: Option<crate::scope::Deps>) -> Project {
        use rayon::prelude::*;
        let resolved = files.iter().map(|_| Default::default()).collect();
        let mut p = Project {
            files,
            class_by_fqn: HashMap::default(),
            modules: Modules::single(0),
            methods_of_class: HashMap::default(),
            methods_by_name: HashMap::default(),
            all_by_name: std::sync::OnceLock::new(),
            beans: std::sync::OnceLock::new(),
            filled: Default::default(),
            imports: Vec::new(),
            supertypes: HashMap::default(),
            subtypes: HashMap::default(),
            closures: HashMap::default(),
            constants_by_name: HashMap::default(),
            deps: None,
            super_lookups: HashMap::default(),
            noted: HashMap::default(),
            resolved,
            mapped: 0,
            tree_words: Vec::new(),
        };
        let recording = deps.is_some();
        // The build modules (read from the build files on disk) beside the maps of the
        // declarations.
        let files = &p.files;
        let (modules, (class_by_fqn, constants_by_name, methods_of_class)) = rayon::join(
            || Modules::discover(files.iter().map(|f| f.path.as_str())),
            || {
                let mut class_by_fqn: HashMap<String, Vec<ClassRef>> = HashMap::default();
                let mut constants: HashMap<String, Vec<(ClassRef, String)>> = HashMap::default();
                let mut methods_of_class: HashMap<ClassRef, Vec<MethodId>> = HashMap::default();
                for (fi, f) in files.iter().enumerate() {
                    for (ci, c) in f.facts.classes.iter().enumerate() {
                        let cref = (fi as u32, ci as u32);
                        class_by_fqn
                            .entry(c.fqn.to_string())
                            .or_default()
                            .push(cref);
                        for fld in &c.fields {
                            if fld.modifiers.is_static
                                && (fld.modifiers.is_final
                                    || c.kind == crate::java::ir::ClassKind::Interface)
                                && let Some(Expr::Str(s, _)) = fld.init.as_ref().map(|e| e.peel())
                            {
                                constants
                                    .entry(fld.name.to_string())
                                    .or_default()
                                    .push((cref, s.clone()));
                            }
                        }
                    }
                    for (mi, m) in f.facts.methods.iter().enumerate() {
                        let mid = (fi as u32, mi as u32);
                        methods_of_class
                            .entry((fi as u32, m.class as u32))
                            .or_default()
                            .push(mid);
                    }
                }
                (class_by_fqn, constants, methods_of_class)
            },
        );
        p.modules = modules;
        p.class_by_fqn = class_by_fqn;
        p.constants_by_name = constants_by_name;
        p.methods_of_class = methods_of_class;
        {
            let by_class: Vec<(&ClassRef, &Vec<MethodId>)> = p.methods_of_class.iter().collect();
            p.methods_by_name = by_class
                .into_par_iter()
                .map(|(c, ms)| {
                    let mut v = ms.clone();
                    v.sort_by_key(|a| p.method(*a).name);
                    (*c, v)
                })
                .collect::<Vec<_>>()
                .into_iter()
                .collect();
        }
        p.imports = p
            .files
            .par_iter()
            .map(|f| {
                let imports = &f.facts.imports;
                let mut v: Vec<u32> = (0..imports.len() as u32)
                    .filter(|i| !imports[*i as usize].is_static && !imports[*i as usize].wildcard)
                    .collect();
                v.sort_by(|a, b| simple(&imports[*a as usize]).cmp(simple(&imports[*b as usize])));
                v.into()
            })
            .collect();
        let mut sup: HashMap<ClassRef, Vec<ClassRef>> = HashMap::default();
        if recording {
            // Each class's lookups recorded apart: one class at a time.
            for (fi, f) in p.files.iter().enumerate() {
                for (ci, c) in f.facts.classes.iter().enumerate() {
                    let cref = (fi as u32, ci as u32);
                    p.deps = Some(crate::scope::Deps::default());
                    for s in &c.supertypes {
                        if let TypeRef::Project(t) = p.resolve_type(fi as u32, Some(ci), s)
                            && t != cref
                        {
                            sup.entry(cref).or_default().push(t);
                        }
                    }
                    if let Some(d) = p.deps.take() {
                        p.super_lookups.insert(cref, d.types());
                    }
                }
            }
        } else {
            // A file at a time, in parallel; each class's supertypes in the order written.
            let found: Vec<Vec<(ClassRef, Vec<ClassRef>)>> = (0..p.files.len())
                .into_par_iter()
                .map(|fi| {
                    let classes = &p.files[fi].facts.classes;
                    (classes.iter().enumerate())
                        .map(|(ci, c)| {
                            let cref = (fi as u32, ci as u32);
                            let ts = (c.supertypes.iter())
                                .filter_map(|s| match p.resolve_type(fi as u32, Some(ci), s) {
                                    TypeRef::Project(t) if t != cref => Some(t),
                                    _ => None,
                                })
                                .collect();
                            (cref, ts)
                        })
                        .filter(|(_, ts): &(ClassRef, Vec<ClassRef>)| !ts.is_empty())
                        .collect()
                })
                .collect();
            sup.extend(found.into_iter().flatten());
        }
        for (c, ss) in &sup {
            for s in ss {
                p.subtypes.entry(*s).or_default().push(*c);
            }
        }
        p.supertypes = sup;
        // Hierarchy queries are on the hot path of every call: their closures are kept, once
        // asked for.
        p.closures = p
            .supertypes
            .keys()
            .chain(p.subtypes.keys())
            .map(|c| (*c, Default::default()))
            .collect();
        p.index_concatenated_constants();
        if recording {
            p.noted = p
                .super_lookups
                .keys()
                .map(|c| (*c, Default::default()))
                .collect();
        }
        p.deps = deps;
        p
    }

    /// The first time `c` is noted for `which` (0: its supertype lookups; 1: its name as a
    /// supertype) in this recording.
    fn first_noting(&self, c: ClassRef, which: usize) -> bool {
        self.noted
            .get(&c)
            .is_none_or(|f| !f[which].swap(true, std::sync::atomic::Ordering::Relaxed))
    }

    pub fn class(&self, c: ClassRef) -> &Class {
        &self.files[c.0 as usize].facts.classes[c.1 as usize]
    }

    pub fn method(&self, m: MethodId) -> &Method {
        &self.files[m.0 as usize].facts.methods[m.1 as usize]
    }

    /// The innermost method of `loc`'s file whose declaration holds `loc` (a lambda's code
    /// belongs to the method that writes it).
    pub fn method_at(&self, loc: &super::Loc) -> Option<MethodId> {
        self.files[loc.file as usize]
            .facts
            .methods
            .iter()
            .enumerate()
            .filter(|(_, m)| m.span.start <= loc.span.start && loc.span.end <= m.span.end)
            .min_by_key(|(_, m)| m.span.end - m.span.start)
            .map(|(i, _)| (loc.file, i as u32))
    }

    /// The bean methods by the simple name of the type they return, made by `make` the first
    /// time.
    pub(super) fn beans(
        &self,
        make: &dyn Fn() -> super::held::BeanIndex,
    ) -> &super::held::BeanIndex {
        self.beans.get_or_init(make)
    }

    pub fn class_of(&self, m: MethodId) -> ClassRef {
        (m.0, self.method(m).class as u32)
    }

    pub fn methods_of(&self, c: ClassRef) -> &[MethodId] {
        self.methods_of_class
            .get(&c)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// The methods (constructors included) declared in `c` with this name, in declaration
    /// order.
    /// The methods named `name` declared in any of `classes` (sorted, as the closures of
    /// [`Self::subtypes_of`] are), in no particular order: a search per class, or, when there
    /// are many classes and not many more methods of that name in the project, one search of
    /// the name and a check of each method's class.
    pub fn methods_named_in(&self, classes: &[ClassRef], name: &str) -> Vec<MethodId> {
        /// Below this many classes, a search per class is cheap enough.
        const FEW: usize = 16;
        if classes.len() >= FEW {
            // Sorted on one thread: it may be first needed inside a parallel task, which must
            // not wait here on parallel work of its own.
            let all = self.all_by_name.get_or_init(|| {
                let mut v: Vec<MethodId> = (0..self.files.len() as u32)
                    .flat_map(|f| {
                        (0..self.files[f as usize].facts.methods.len() as u32).map(move |m| (f, m))
                    })
                    .collect();
                v.sort_unstable_by(|a, b| {
                    self.method(*a)
                        .name
                        .cmp(&self.method(*b).name)
                        .then(a.cmp(b))
                });
                v
            });
            let lo = all.partition_point(|m| self.method(*m).name.as_str() < name);
            let hi = lo + all[lo..].partition_point(|m| self.method(*m).name == name);
            // A method of the name costs a class lookup and a search of `classes` by number;
            // a class costs a hash lookup and a search by name: the name's methods are taken
            // while there are at most a few times as many as classes.
            if hi - lo <= 4 * classes.len() {
                return all[lo..hi]
                    .iter()
                    .filter(|m| classes.binary_search(&self.class_of(**m)).is_ok())
                    .copied()
                    .collect();
            }
        }
        classes
            .iter()
            .flat_map(|c| self.methods_named(*c, name))
            .copied()
            .collect()
    }

    pub fn methods_named(&self, c: ClassRef, name: &str) -> &[MethodId] {
        let Some(v) = self.methods_by_name.get(&c) else {
            return &[];
        };
        let lo = v.partition_point(|m| self.method(*m).name.as_str() < name);
        let hi = lo + v[lo..].partition_point(|m| self.method(*m).name == name);
        &v[lo..hi]
    }

    /// `f` on each method of `ids`, in parallel, the answers in the order of `ids`. The methods
    /// are taken [`BODY_BATCH`] at a time, and after each batch every body decoded in it is
    /// given back ([`Project::release_bodies`]): the phases that read the bodies of many methods
    /// hold the decoded bodies of one batch at a time, not of all of them.
    pub fn map_in_batches<T: Send>(
        &mut self,
        ids: &[MethodId],
        f: impl Fn(&Project, MethodId) -> T + Sync,
    ) -> Vec<T> {
        use rayon::prelude::*;
        let mut out = Vec::with_capacity(ids.len());
        for batch in ids.chunks(BODY_BATCH) {
            let this = &*self;
            out.extend(batch.par_iter().map(|id| f(this, *id)).collect::<Vec<T>>());
            // Given back once a batch's worth of methods ran (a walk of every file), not after
            // every call: a call graph walked one method per round stays linear.
            self.mapped += batch.len();
            if self.mapped >= BODY_BATCH {
                self.release_bodies();
            }
        }
        out
    }

    /// Every decoded method body given back: a reader after this decodes it again. The one
    /// place a decoded body ends, at the boundaries of [`Project::map_in_batches`] and of the
    /// phases of the analysis.
    pub fn release_bodies(&mut self) {
        self.mapped = 0;
        for f in &mut self.files {
            f.facts.release_bodies();
        }
    }

    pub fn all_methods(&self) -> impl Iterator<Item = MethodId> + '_ {
        self.files
            .iter()
            .enumerate()
            .flat_map(|(fi, f)| (0..f.facts.methods.len()).map(move |mi| (fi as u32, mi as u32)))
    }

    /// Resolve a type name as written in `file` (inside class `from`, if any).
    pub fn resolve_type(&self, file: u32, from: Option<usize>, written: &str) -> TypeRef {
        let memo = match &self.deps {
            None => self.resolved.get(file as usize),
            Some(_) => None,
        };
        let Some(memo) = memo else {
            return self.resolve_type_now(file, from, written);
        };
        let key = from.map_or(u32::MAX, |c| c as u32);
        let lock = || memo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = lock().get(written).and_then(|v| v.find(key)) {
            return t;
        }
        let t = self.resolve_type_now(file, from, written);
        let mut m = lock();
        match m.get_mut(written) {
            None => {
                let first = (key, Kept::of(&t));
                let more = Vec::new();
                m.insert(crate::java::ir::Name::new(written), Memo { first, more });
            }
            Some(v) if v.find(key).is_none() => v.more.push((key, Kept::of(&t))),
            Some(_) => {}
        }
        t
    }

    /// The path of the single-type import of simple name `name` in `file` (the last one, if
    /// the file has several).
    fn single_import(&self, file: u32, name: &str) -> Option<&str> {
        let idx = self.imports.get(file as usize)?;
        let imports = &self.files[file as usize].facts.imports;
        let n = idx.partition_point(|i| simple(&imports[*i as usize]) <= name);
        let last = &imports[*idx[..n].last()? as usize];
        (simple(last) == name).then_some(last.path.as_str())
    }

    /// [`Self::resolve_type`] without the memo.
    fn resolve_type_now(&self, file: u32, from: Option<usize>, written: &str) -> TypeRef {
        let name = written.trim_end_matches("[]").trim_end_matches("...");
        let facts = &self.files[file as usize].facts;
        if let Some((head, rest)) = name.split_once('.') {
            if head.chars().next().is_some_and(|c| c.is_uppercase()) {
                return match self.resolve_type(file, from, head) {
                    TypeRef::Project(c) => {
                        let fqn = format!("{}.{}", self.class(c).fqn, rest);
                        match self.lookup(file, &fqn) {
                            Some(c) => TypeRef::Project(*c),
                            None => TypeRef::External(fqn),
                        }
                    }
                    TypeRef::External(f) => TypeRef::External(format!("{f}.{rest}")),
                    TypeRef::Unknown(_) => TypeRef::Unknown(name.to_string()),
                };
            }
            return match self.lookup(file, name) {
                Some(c) => TypeRef::Project(*c),
                None => TypeRef::External(name.to_string()),
            };
        }
        // Enclosing and nested classes.
        let mut cur = from;
        while let Some(ci) = cur {
            let c = &facts.classes[ci];
            if c.name == name {
                return TypeRef::Project((file, ci as u32));
            }
            if let Some(x) = self.lookup(file, &format!("{}.{}", c.fqn, name)) {
                return TypeRef::Project(*x);
            }
            cur = c.outer;
        }
        if let Some(path) = self.single_import(file, name) {
            return match self.lookup(file, path) {
                Some(c) => TypeRef::Project(*c),
                None => TypeRef::External(path.to_string()),
            };
        }
        let same_pkg = if facts.package.is_empty() {
            name.to_string()
        } else {
            format!("{}.{}", facts.package, name)
        };
        if let Some(c) = self.lookup(file, &same_pkg) {
            return TypeRef::Project(*c);
        }
        let mut wild = Vec::new();
        for imp in &facts.imports {
            if imp.wildcard && !imp.is_static {
                let cand = format!("{}.{}", imp.path, name);
                if let Some(c) = self.lookup(file, &cand) {
                    return TypeRef::Project(*c);
                }
                wild.push(cand);
            }
        }
        if JAVA_LANG.contains(&name) {
            return TypeRef::External(format!("java.lang.{name}"));
        }
        if wild.len() == 1 {
            return TypeRef::External(wild.remove(0));
        }
        TypeRef::Unknown(name.to_string())
    }

    /// Does `t` name the catalogue class `pattern` (a fully qualified name, or a `*` glob on the
    /// simple name)? An unresolvable name matches on its simple name.
    pub fn type_is(&self, t: &TypeRef, pattern: &str) -> bool {
        let simple_pat = pattern.rsplit('.').next().unwrap_or(pattern);
        if pattern.contains('*') {
            let simple = match t {
                TypeRef::Project(c) => self.class(*c).name.as_str(),
                TypeRef::External(f) | TypeRef::Unknown(f) => f.rsplit('.').next().unwrap_or(f),
            };
            return super::glob(pattern, simple);
        }
        match t {
            TypeRef::Project(c) => {
                let fqn = &self.class(*c).fqn;
                if fqn == pattern {
                    return true;
                }
                // Only a project class can be a project supertype: asked of every class of a deep
                // hierarchy, the closures would hold n² pairs. While recording, a file not parsed
                // yet may declare `pattern`: once it is parsed, the closure is read.
                if !self.class_by_fqn.contains_key(pattern) {
                    if let Some(d) = &self.deps {
                        d.note_type(pattern);
                    }
                    return false;
                }
                self.supertypes_of(*c)
                    .iter()
                    .any(|s| self.class(*s).fqn == pattern)
            }
            TypeRef::External(f) => f == pattern,
            TypeRef::Unknown(s) => s == simple_pat || s == pattern,
        }
    }

    /// All project supertypes of `c`, transitively (without `c`).
    pub fn supertypes_of(&self, c: ClassRef) -> &[ClassRef] {
        let sups = self.closure_of(c, 0);
        if let Some(d) = &self.deps {
            // A supertype's file not parsed yet would change the answer.
            for k in std::iter::once(&c).chain(sups) {
                if !self.first_noting(*k, 0) {
                    continue;
                }
                for fqn in self.super_lookups.get(k).into_iter().flatten() {
                    d.note_type(fqn);
                }
            }
        }
        sups
    }

    pub fn subtypes_of(&self, c: ClassRef) -> &[ClassRef] {
        let subs = self.closure_of(c, 1);
        if let Some(d) = &self.deps {
            // A file not parsed yet may extend `c` or one of its known subtypes.
            for k in std::iter::once(&c).chain(subs) {
                if self.first_noting(*k, 1) {
                    d.note_super(&self.class(*k).name);
                }
            }
        }
        subs
    }

    /// The transitive supertypes (`which` 0) or subtypes (1) of `c`, sorted, without `c`.
    fn closure_of(&self, c: ClassRef, which: usize) -> &[ClassRef] {
        let Some(slots) = self.closures.get(&c) else {
            return &[];
        };
        slots[which].get_or_init(|| {
            let edges = if which == 0 {
                &self.supertypes
            } else {
                &self.subtypes
            };
            let mut seen: std::collections::HashSet<ClassRef> = std::collections::HashSet::new();
            let mut out: Vec<ClassRef> = Vec::new();
            let mut stack = vec![c];
            while let Some(x) = stack.pop() {
                for y in edges.get(&x).into_iter().flatten() {
                    if *y != c && seen.insert(*y) {
                        out.push(*y);
                        stack.push(*y);
                    }
                }
            }
            out.sort();
            out
        })
    }

    /// The declared type of field `name` visible from class `c` (its own, inherited or an
    /// enclosing class's), with the class that declares it.
    pub fn field(&self, c: ClassRef, name: &str) -> Option<(ClassRef, &crate::java::ir::Field)> {
        let mut cur = Some(c);
        while let Some(cc) = cur {
            for k in std::iter::once(cc).chain(self.supertypes_of(cc).iter().copied()) {
                if let Some(f) = self.class(k).fields.iter().find(|f| f.name == name) {
                    return Some((k, f));
                }
            }
            cur = self.class(cc).outer.map(|o| (cc.0, o as u32));
        }
        None
    }

    /// The value of a string constant written as `NAME` or `Type.NAME` in class `c`, or a
    /// concatenation of such constants and literals (`PREFIX + "Idempotency-Key"`).
    pub fn constant(&self, c: ClassRef, e: &Expr) -> Option<String> {
        self.constant_at(c, e, 0)
    }

    /// Constants defined from constants are followed this deep (a cycle does not compile, but
    /// a scanned file need not compile).
    const MAX_CONSTANT_DEPTH: usize = 8;

    fn constant_at(&self, c: ClassRef, e: &Expr, depth: usize) -> Option<String> {
        if depth > Self::MAX_CONSTANT_DEPTH {
            return None;
        }
        // A field's initializer, when the field is a constant: a literal, or a concatenation
        // evaluated in the class that declares it.
        let init = |k: ClassRef, f: &crate::java::ir::Field| match f.init.as_ref().map(|e| e.peel())
        {
            Some(Expr::Str(s, _)) => Some(s.clone()),
            Some(b @ Expr::Binary(_)) if f.modifiers.is_static => self.constant_at(k, b, depth + 1),
            _ => None,
        };
        match e.peel() {
            Expr::Str(s, _) => Some(s.clone()),
            Expr::Binary(b) if b.op == "+" => {
                // A number is text only inside a concatenation (`KEY + "-" + 2`).
                let part = |e: &Expr| match e.peel() {
                    Expr::Lit(s, _) if s.bytes().all(|b| b.is_ascii_digit()) => Some(s.clone()),
                    _ => self.constant_at(c, e, depth + 1),
                };
                Some(part(&b.left)? + &part(&b.right)?)
            }
            Expr::Name(n, _) => {
                if let Some((k, f)) = self.field(c, n) {
                    return if f.modifiers.is_static {
                        init(k, f)
                    } else {
                        None
                    };
                }
                for imp in &self.files[c.0 as usize].facts.imports {
                    if imp.is_static
                        && (imp.path.ends_with(&format!(".{n}")) || imp.wildcard)
                        && let Some(v) = self.constants_named(n).and_then(|v| {
                            v.iter().find(|(cr, _)| {
                                let fqn = &self.class(*cr).fqn;
                                imp.path == format!("{fqn}.{n}")
                                    || (imp.wildcard && imp.path == *fqn)
                            })
                        })
                    {
                        return Some(v.1.clone());
                    }
                }
                self.unique_constant(n)
            }
            Expr::Field(recv, n, _) => {
                let owner = recv.dotted()?;
                match self.resolve_type(c.0, Some(c.1 as usize), &owner) {
                    TypeRef::Project(k) => {
                        let (k, f) = self.field(k, n)?;
                        init(k, f)
                    }
                    TypeRef::Unknown(_) => self.unique_constant(n),
                    TypeRef::External(_) => None,
                }
            }
            _ => None,
        }
    }

    /// Adds the string constants defined by concatenation (`static final String KEY = PREFIX +
    /// "key";`) to the constants by name, once those defined by a literal are known; a second
    /// round takes those built from the first round's.
    fn index_concatenated_constants(&mut self) {
        for _ in 0..2 {
            let mut found = Vec::new();
            for (fi, f) in self.files.iter().enumerate() {
                for (ci, c) in f.facts.classes.iter().enumerate() {
                    let cref = (fi as u32, ci as u32);
                    for fld in &c.fields {
                        let constant = fld.modifiers.is_static
                            && (fld.modifiers.is_final
                                || c.kind == crate::java::ir::ClassKind::Interface);
                        if let Some(b @ Expr::Binary(_)) = fld.init.as_ref().map(|e| e.peel())
                            && constant
                            && let Some(v) = self.constant_at(cref, b, 0)
                        {
                            found.push((fld.name.to_string(), cref, v));
                        }
                    }
                }
            }
            for (name, cref, v) in found {
                let at = self.constants_by_name.entry(name).or_default();
                if !at.iter().any(|(k, _)| *k == cref) {
                    at.push((cref, v));
                }
            }
        }
    }

    fn constants_named(&self, n: &str) -> Option<&Vec<(ClassRef, String)>> {
        if let Some(d) = &self.deps {
            d.note_name(n);
        }
        self.constants_by_name.get(n)
    }

    fn unique_constant(&self, n: &str) -> Option<String> {
        match self.constants_named(n).map(|v| v.as_slice()) {
            Some([(_, s)]) => Some(s.clone()),
            Some(v) if !v.is_empty() && v.iter().all(|(_, s)| *s == v[0].1) => Some(v[0].1.clone()),
            _ => None,
        }
    }
}

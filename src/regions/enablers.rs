//! Which applications switch an annotation row on (the classes carrying its enabling
//! annotations), and the project's calls by name that tell whether a retried method is only
//! ever invoked on `this`: what [`super::liveness`] reads to tell a dead annotation region.

use super::liveness::simple;
use crate::catalogue::{AnnotationRegion, Catalogue};
use crate::java::ir::{Block, Expr, Node};
use crate::semantic::{ClassRef, Project};
use std::collections::{HashMap, HashSet};

/// The calls and method references written in one file's methods, in the order of its
/// classes and their methods: (name, the class's index in the file, on `this`, arity).
pub type FileNamedCalls = Vec<(String, u32, bool, Option<usize>)>;

/// Gives the [`FileNamedCalls`] of a file, from the function it is passed (which walks the
/// file's bodies) or from a cache.
pub type NamedCallsOf<'a> = &'a (dyn Fn(u32, &dyn Fn() -> FileNamedCalls) -> FileNamedCalls + Sync);

/// The [`FileNamedCalls`] of file `fi`.
fn file_named_calls(project: &Project, fi: u32) -> FileNamedCalls {
    let mut out = Vec::new();
    for ci in 0..project.files[fi as usize].facts.classes.len() as u32 {
        for caller in project.methods_of((fi, ci)) {
            if let Some(body) = project.method(*caller).peek_body() {
                for (n, on_this, arity) in calls_in(&body) {
                    out.push((n.to_string(), ci, on_this, arity));
                }
            }
        }
    }
    out
}

/// The files holding a class annotated with each enabling annotation of the catalogue,
/// computed once per run.
pub struct Enablers<'a> {
    files: HashMap<String, Vec<u32>>,
    per_file: NamedCallsOf<'a>,
    /// The method names [`Self::calls_named`] may be asked for (those of the annotated methods
    /// whose callers are counted): the index below holds the calls of those names alone, not
    /// every call of the project (over a million on a large monorepo).
    asked: HashSet<String>,
    /// Every call and method reference of the project named as in [`Self::asked`], by method
    /// name, with its caller's class, built on first use: read per retried method, a walk of
    /// every body each time would be quadratic in the number of retried methods.
    calls: std::sync::OnceLock<HashMap<String, Vec<NamedCall>>>,
}

/// A call or method reference named like a method: the class it is written in, whether it is
/// on `this` (or `super`, or written without a receiver), and its arity (`None` for a method
/// reference).
type NamedCall = (ClassRef, bool, Option<usize>);

impl<'a> Enablers<'a> {
    /// `asked`: the method names [`Self::calls_named`] will be asked for (a superset will do).
    pub fn of(
        project: &Project,
        cat: &Catalogue,
        per_file: NamedCallsOf<'a>,
        asked: HashSet<String>,
    ) -> Enablers<'a> {
        let mut files: HashMap<String, Vec<u32>> = HashMap::new();
        for e in cat.regions.annotation.iter().flat_map(|r| &r.enabled_by) {
            files.entry(e.clone()).or_default();
        }
        // `@Import(RetryConfiguration.class)`: the importing annotation, and the configuration
        // classes whose import enables, each listed under its own name.
        let importers: Vec<&str> = (cat.regions.annotation.iter())
            .filter_map(|r| r.enabled_by_import.as_ref())
            .map(|i| i.annotation.as_str())
            .collect();
        for i in cat
            .regions
            .annotation
            .iter()
            .filter_map(|r| r.enabled_by_import.as_ref())
        {
            for c in &i.classes {
                files.entry(c.clone()).or_default();
            }
        }
        if files.is_empty() {
            return Enablers {
                files,
                per_file,
                asked,
                calls: Default::default(),
            };
        }
        for (fi, f) in project.files.iter().enumerate() {
            for (ci, c) in f.facts.classes.iter().enumerate() {
                for a in &c.annotations {
                    if importers.iter().any(|i| simple(i) == simple(&a.name)) {
                        let t = project.resolve_type(fi as u32, Some(ci), &a.name);
                        if importers.iter().any(|i| project.type_is(&t, i)) {
                            for ty in a.args.iter().flat_map(|(_, v)| class_literals(v)) {
                                if !files.keys().any(|e| simple(e) == simple(ty)) {
                                    continue;
                                }
                                let t = project.resolve_type(fi as u32, Some(ci), ty);
                                for (e, at) in files.iter_mut() {
                                    if project.type_is(&t, e) && at.last() != Some(&(fi as u32)) {
                                        at.push(fi as u32);
                                    }
                                }
                            }
                        }
                    }
                    // Resolved only when its simple name is an enabler's (a lookup is a
                    // dependency the prefilter would follow).
                    if !files.keys().any(|e| simple(e) == simple(&a.name)) {
                        continue;
                    }
                    let t = project.resolve_type(fi as u32, Some(ci), &a.name);
                    for (e, at) in files.iter_mut() {
                        if project.type_is(&t, e) && at.last() != Some(&(fi as u32)) {
                            at.push(fi as u32);
                        }
                    }
                }
            }
        }
        Enablers {
            files,
            per_file,
            asked,
            calls: Default::default(),
        }
    }

    /// Build the index of [`Self::calls_named`] now, reading the files in parallel: to be
    /// called outside any parallel work (an index first built inside a parallel task would have
    /// that task wait on work it may itself have to run).
    pub(super) fn prepare(&self, project: &Project) {
        if !self.asked.is_empty() {
            self.calls.get_or_init(|| self.index(project, true));
        }
    }

    /// The calls and method references named `name` anywhere in the project (`name` is one of
    /// [`Self::asked`]). Built here, one file after another, unless [`Self::prepare`] built it.
    pub(super) fn calls_named(&self, project: &Project, name: &str) -> &[NamedCall] {
        debug_assert!(self.asked.contains(name), "{name} was not announced");
        let index = self.calls.get_or_init(|| self.index(project, false));
        index.get(name).map_or(&[], Vec::as_slice)
    }

    /// Every call and method reference of the project named as in [`Self::asked`].
    fn index(&self, project: &Project, parallel: bool) -> HashMap<String, Vec<NamedCall>> {
        use rayon::prelude::*;
        // Each file's calls are cut down to the asked names as soon as they are known, so the
        // calls of the whole project are never held at once.
        let of_file = |fi: u32| {
            let mut calls = (self.per_file)(fi, &|| file_named_calls(project, fi));
            calls.retain(|(n, ..)| self.asked.contains(n.as_str()));
            calls.shrink_to_fit();
            calls
        };
        let files = 0..project.files.len() as u32;
        let found: Vec<FileNamedCalls> = if parallel {
            files.into_par_iter().map(of_file).collect()
        } else {
            files.map(of_file).collect()
        };
        let mut index: HashMap<String, Vec<NamedCall>> = HashMap::new();
        for (fi, calls) in found.into_iter().enumerate() {
            for (n, ci, on_this, arity) in calls {
                index
                    .entry(n)
                    .or_default()
                    .push(((fi as u32, ci), on_this, arity));
            }
        }
        index
    }

    /// Is row `r` switched on for the code of `file`? Where no application of the scan enables
    /// its framework, a dependency is assumed to. Where some do, the code runs enabled in a
    /// module that uses it — its own build module, or one whose build depends on it (the
    /// applications a library module runs in) — that sees an enabling class in itself or a
    /// module it depends on. Tests are not the application: for code of the main sources, an
    /// enabling class in test sources (a `@TestConfiguration`) or reached only through a
    /// dependency for tests (`testImplementation`, `<scope>test</scope>`) does not count; for
    /// code of test sources, those of its own module's tests and test dependencies do too.
    /// `Err` names the missing enabler.
    pub(super) fn enabled(
        &self,
        project: &Project,
        r: &AnnotationRegion,
        file: u32,
    ) -> Result<(), String> {
        if r.enabled_by.is_empty() {
            return Ok(());
        }
        let imported = r.enabled_by_import.iter().flat_map(|i| &i.classes);
        let files: Vec<u32> = (r.enabled_by.iter())
            .chain(imported)
            .filter_map(|e| self.files.get(e))
            .flatten()
            .copied()
            .collect();
        let modules = project.modules();
        let test = |f: u32| crate::workspace::scan::test_source(&project.files[f as usize].path);
        let enabled = if test(file) {
            // A test runs in its own module, with its tests' classpath.
            let own = modules.module_of(file);
            files.is_empty()
                || files.iter().any(|f| {
                    modules.module_sees(own, *f) && (!test(*f) || modules.module_of(*f) == own)
                })
        } else {
            let main: Vec<u32> = files.iter().copied().filter(|f| !test(*f)).collect();
            main.is_empty()
                || modules
                    .users_main(file)
                    .iter()
                    .any(|a| main.iter().any(|f| modules.module_sees_main(*a, *f)))
        };
        if enabled {
            Ok(())
        } else {
            Err(simple(&r.enabled_by[0]).to_string())
        }
    }
}

/// The types named by the class literals of an annotation value (`X.class`, `{X.class, Y.class}`).
fn class_literals(v: &Expr) -> Vec<&str> {
    match v.peel() {
        Expr::Field(ty, f, _) if f == "class" => match ty.peel() {
            Expr::Name(n, _) => vec![n.as_str()],
            _ => Vec::new(),
        },
        Expr::Op(items, _) => items.iter().flat_map(class_literals).collect(),
        _ => Vec::new(),
    }
}

/// The calls and method references in `body`: the name of each, whether it is on `this` (or
/// `super`, or written without a receiver), and its arity (`None` for a method reference).
fn calls_in(body: &Block) -> Vec<(&str, bool, Option<usize>)> {
    Node::all(body)
        .filter_map(|n| match n {
            Node::Expr(Expr::Call(c)) => {
                let on_this = c.on_super
                    || matches!(c.recv.as_ref().map(Expr::peel), None | Some(Expr::This(_)));
                Some((c.name.as_str(), on_this, Some(c.args.len())))
            }
            Node::Expr(Expr::MethodRef(r)) => Some((
                r.name.as_str(),
                matches!(r.recv.peel(), Expr::This(_)),
                None,
            )),
            _ => None,
        })
        .collect()
}

//! Which files a run looks at: `.java` files under the given paths, honouring `.gitignore`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Languages of the JVM that retrylint does not analyse, counted so the summary can say so.
pub const OTHER_JVM: &[&str] = &["kt", "kts", "groovy", "scala"];

#[derive(Debug, Default)]
pub struct Discovered {
    pub java: Vec<PathBuf>,
    /// (extension, path) of JVM sources that are not analysed.
    pub other: Vec<(String, PathBuf)>,
    /// Problems met while walking (an unreadable directory, a symlink loop).
    pub problems: Vec<(PathBuf, String)>,
    /// Deployment descriptors (YAML, Terraform, JSON, TypeScript CDK), read only for the words
    /// that enable a platform feature a handler relies on (see `scope::TreeWords`).
    pub deploy: Vec<PathBuf>,
    /// `.java` files under the scanned directories that ignore files (`.gitignore`,
    /// `.ignore`, git's excludes) left out: a pull request can add one, so the count is shown.
    pub ignored_java: usize,
    /// Whether a file may have been reached by two paths (a symbolic link among the files, or
    /// several scanned paths), for [`drop_aliases`].
    pub aliases_possible: bool,
}

#[derive(Debug)]
pub struct MissingPath(pub PathBuf);

/// Walk `paths` (files or directories). A path that does not exist is an error of the run.
/// Each directory is walked by several threads; what they find is sorted, so the order is
/// the same on every run.
pub fn discover(paths: &[PathBuf]) -> Result<Discovered, MissingPath> {
    for p in paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(MissingPath(p.clone()));
        }
    }
    let found = Mutex::new(Discovered::default());
    for root in paths {
        let inside = std::fs::canonicalize(root).ok();
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(true)
            .hidden(true)
            .follow_links(false)
            .require_git(false)
            .threads(rayon::current_num_threads())
            .build_parallel();
        walker.run(|| {
            let mut c = Collector {
                shared: &found,
                out: Discovered::default(),
            };
            let inside = inside.as_deref();
            Box::new(move |entry| {
                c.entry(root, inside, entry);
                ignore::WalkState::Continue
            })
        });
    }
    let mut out = found.into_inner().unwrap_or_else(|e| e.into_inner());
    out.java.sort();
    out.java.dedup();
    out.other.sort();
    out.other.dedup();
    out.deploy.sort();
    out.deploy.dedup();
    out.deploy.truncate(MAX_DEPLOY_FILES);
    out.problems.sort();
    out.problems.dedup();
    out.ignored_java = ignored_java(paths, &out.java);
    out.aliases_possible |= paths.len() > 1;
    Ok(out)
}

/// What one walking thread found, added to the shared result when the thread is done.
struct Collector<'a> {
    shared: &'a Mutex<Discovered>,
    out: Discovered,
}

impl Collector<'_> {
    fn entry(
        &mut self,
        root: &Path,
        inside: Option<&Path>,
        entry: Result<ignore::DirEntry, ignore::Error>,
    ) {
        let out = &mut self.out;
        match entry {
            Ok(e) => {
                let path = e.path();
                // Regular files and symlinks; a FIFO or socket named `.java` is kept so that
                // reading it reports it (it is never opened).
                let is_file = e.file_type().is_some_and(|t| !t.is_dir());
                let explicit = e.depth() == 0;
                if !(is_file || explicit && path.is_file()) {
                    return;
                }
                // A link is never followed into a directory, so a loop is never walked; it is
                // reported, as the walker reports one when it follows links.
                if e.path_is_symlink()
                    && !explicit
                    && let Some(why) = link_loop(path)
                {
                    out.problems.push((path.to_path_buf(), why.into()));
                    return;
                }
                // A link under a scanned directory is not followed out of the tree: a
                // hostile repository could point one at any file of the machine.
                if e.path_is_symlink()
                    && !explicit
                    && path.extension().is_some_and(|x| x == "java")
                    && let (Some(root), Ok(target)) = (inside, std::fs::canonicalize(path))
                    && !target.starts_with(root)
                {
                    out.problems.push((
                        path.to_path_buf(),
                        "symbolic link to a file outside the scanned tree; not followed".into(),
                    ));
                    return;
                }
                if !e.path_is_symlink() && is_deploy_file(path) {
                    out.deploy.push(path.to_path_buf());
                }
                // Links are not followed into directories, so only a link that is itself
                // one of the files kept can be a second path to a file (a link to a directory,
                // such as a virtualenv's `lib64`, is not).
                let kept = out.java.len() + out.other.len();
                classify(path, out);
                out.aliases_possible |=
                    e.path_is_symlink() && out.java.len() + out.other.len() > kept;
            }
            Err(err) => {
                let path = match &err {
                    ignore::Error::WithPath { path, .. } => path.clone(),
                    _ => root.to_path_buf(),
                };
                out.problems.push((path, err.to_string()));
            }
        }
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let out = std::mem::take(&mut self.out);
        shared.java.extend(out.java);
        shared.other.extend(out.other);
        shared.problems.extend(out.problems);
        shared.deploy.extend(out.deploy);
        shared.aliases_possible |= out.aliases_possible;
    }
}

/// Why the symbolic link `path` is a loop: links that point at each other (the system gives up
/// resolving them), or a link to a directory that holds it, which a walk following links would
/// enter without end. `None` for any other link.
fn link_loop(path: &Path) -> Option<&'static str> {
    match std::fs::metadata(path) {
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Some("symbolic link loop (links that point at each other); not followed")
        }
        Ok(m) if m.is_dir() => {
            let target = std::fs::canonicalize(path).ok()?;
            let holder = std::fs::canonicalize(path.parent()?).ok()?;
            holder
                .starts_with(&target)
                .then_some("symbolic link loop (a link to a directory that holds it); not followed")
        }
        _ => None,
    }
}

/// A file reached by several paths (a symbolic link to a file of the tree, overlapping scanned
/// paths) is analysed once, under one path: the one that is not a link, else the first in
/// sorted order; the choice is the same on every run. `found.java` and `found.other` stay
/// sorted.
pub fn drop_aliases(found: &mut Discovered) {
    if !found.aliases_possible {
        return;
    }
    found.java = unique_files(std::mem::take(&mut found.java));
    let mut other_paths: Vec<PathBuf> = found.other.iter().map(|(_, p)| p.clone()).collect();
    other_paths.sort();
    let other_paths = unique_files(other_paths);
    found
        .other
        .retain(|(_, p)| other_paths.binary_search(p).is_ok());
}

/// `paths` (sorted) without the second path to a file, by canonical path.
fn unique_files(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    use std::collections::hash_map::Entry;
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let mut first: std::collections::HashMap<PathBuf, usize> = Default::default();
    let mut kept: Vec<PathBuf> = Vec::with_capacity(paths.len());
    // One system call per path component: resolved on every thread, then taken in order.
    use rayon::prelude::*;
    let canonical: Vec<std::io::Result<PathBuf>> =
        paths.par_iter().map(std::fs::canonicalize).collect();
    for (p, canonical) in paths.into_iter().zip(canonical) {
        // A path that does not resolve (a dangling link) is kept: reading it reports it.
        let Ok(canonical) = canonical else {
            kept.push(p);
            continue;
        };
        match first.entry(canonical) {
            Entry::Vacant(v) => {
                v.insert(kept.len());
                kept.push(p);
            }
            Entry::Occupied(o) => {
                let i = *o.get();
                if is_link(&kept[i]) && !is_link(&p) {
                    kept[i] = p;
                }
            }
        }
    }
    kept.sort();
    kept
}

/// How many `.java` files under the directories of `paths` the ignore files hid from the walk
/// that found `java` (sorted): a second walk that reads no ignore file. Hidden directories
/// (`.git`) are skipped by both.
fn ignored_java(paths: &[PathBuf], java: &[PathBuf]) -> usize {
    let all: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    for root in paths.iter().filter(|p| p.is_dir()) {
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .hidden(true)
            .follow_links(false)
            .threads(rayon::current_num_threads())
            .build_parallel();
        walker.run(|| {
            let all = &all;
            Box::new(move |entry| {
                // Few files are hidden, so each is handed over as it is found.
                if let Ok(e) = entry
                    && e.file_type().is_some_and(|t| !t.is_dir())
                    && e.path().extension().is_some_and(|x| x == "java")
                    && java.binary_search(&e.path().to_path_buf()).is_err()
                {
                    all.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(e.into_path());
                }
                ignore::WalkState::Continue
            })
        });
    }
    let mut all = all.into_inner().unwrap_or_else(|e| e.into_inner());
    all.sort();
    all.dedup();
    all.len()
}

/// At most this many deployment descriptors are read (the first in path order).
const MAX_DEPLOY_FILES: usize = 4096;

/// Is `path` a file that may declare how a handler is deployed: a SAM, CloudFormation or
/// Serverless template, Terraform, or a TypeScript CDK stack?
fn is_deploy_file(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(ext, "yaml" | "yml" | "tf" | "json" | "ts")
}

fn classify(path: &Path, out: &mut Discovered) {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "java" {
        out.java.push(path.to_path_buf());
    } else if OTHER_JVM.contains(&ext) && !is_build_script(path) {
        out.other.push((ext.to_string(), path.to_path_buf()));
    }
}

/// Gradle's Kotlin build scripts (`build.gradle.kts`, `settings.gradle.kts`) describe the build;
/// they are not sources whose analysis is missing.
fn is_build_script(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".gradle.kts"))
}

/// The path as reports show it: relative, with `/` separators, without a leading `./`.
pub fn display_path(p: &Path) -> String {
    static CWD: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let cwd = CWD.get_or_init(|| std::env::current_dir().ok());
    let rel = match cwd {
        Some(c) if p.is_absolute() => p.strip_prefix(c).unwrap_or(p),
        _ => p,
    };
    let s = shown(rel.as_os_str());
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// `/` between components. On Windows a backslash is a separator too; elsewhere it is a
/// character of a file name, so `acme\Billing.java` is a file of its own, shown escaped as
/// `acme%5CBilling.java` — never as `acme/Billing.java`. So that no two names show the same, `%`
/// is shown as `%25` and a byte that is not UTF-8 as `%XX`.
fn shown(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = name.as_bytes();
        if !bytes
            .iter()
            .any(|b| *b == b'%' || *b == b'\\' || *b >= 0x80)
        {
            return name.to_string_lossy().into_owned();
        }
        let mut out = String::new();
        for chunk in bytes.utf8_chunks() {
            out.push_str(&chunk.valid().replace('%', "%25").replace('\\', "%5C"));
            for b in chunk.invalid() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().replace('\\', "/")
    }
}

/// The file name a shown path stands for, for outputs that need the name itself (a GitHub
/// annotation's `file=`, which the github format then escapes once): `%25` back to `%` and
/// `%5C` back to a backslash. A byte that is not UTF-8 has no text of its own and stays `%XX`.
pub fn name_of_shown(shown: &str) -> String {
    if cfg!(not(unix)) || !shown.contains('%') {
        return shown.to_string();
    }
    let mut out = String::with_capacity(shown.len());
    let mut rest = shown;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let escape = &rest[i..];
        if let Some(r) = escape.strip_prefix("%25") {
            out.push('%');
            rest = r;
        } else if let Some(r) = escape.strip_prefix("%5C") {
            out.push('\\');
            rest = r;
        } else {
            out.push('%');
            rest = &escape[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn shown_paths_never_alias() {
        let s = |b: &[u8]| shown(std::ffi::OsStr::from_bytes(b));
        assert_eq!(s(b"acme/Billing.java"), "acme/Billing.java");
        assert_eq!(s(b"acme\\Billing.java"), "acme%5CBilling.java");
        assert_eq!(s(b"acme%5CBilling.java"), "acme%255CBilling.java");
        assert_eq!(s("\u{dc}ber.java".as_bytes()), "\u{dc}ber.java");
        assert_eq!(s(b"a\xff.java"), "a%FF.java");
        assert_eq!(s("a\u{fffd}.java".as_bytes()), "a\u{fffd}.java");
    }

    #[test]
    fn shown_paths_give_back_their_names() {
        let round = |b: &[u8]| name_of_shown(&shown(std::ffi::OsStr::from_bytes(b)));
        assert_eq!(round(b"Refunds%20Job.java"), "Refunds%20Job.java");
        assert_eq!(round(b"acme\\Billing.java"), "acme\\Billing.java");
        assert_eq!(round(b"acme%5CBilling.java"), "acme%5CBilling.java");
        assert_eq!(round(b"100%25%.java"), "100%25%.java");
        assert_eq!(
            round("z\u{e4}hlung/A.java".as_bytes()),
            "z\u{e4}hlung/A.java"
        );
        // No text for a byte that is not UTF-8: it stays as shown.
        assert_eq!(round(b"a\xff.java"), "a%FF.java");
    }
}

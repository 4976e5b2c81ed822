//! Build modules: every file belongs to the module of the nearest directory holding `pom.xml`,
//! `build.gradle` or `build.gradle.kts` (a file with none above it belongs to the scanned
//! tree's own module), and a module sees itself and the project modules its build file depends
//! on, transitively.
//!
//! The build files are read with a small tolerant reader, never executed: Maven's
//! `<dependency>` and `<parent>` artifactIds are matched against the other modules'
//! `<artifactId>`, Gradle's `project(":a:b")` and `projects.aB` against the modules' paths
//! (`:` plus the directory's path below the nearest `settings.gradle[.kts]`, or the directory's
//! name). Comments are dropped first (XML's, and Gradle's `//` and `/* … */` outside string
//! literals): a dependency commented out is none. A build file that cannot be read or
//! understood declares no dependencies.

use super::app_settings::AppSettings;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const BUILD_FILES: &[&str] = &["pom.xml", "build.gradle", "build.gradle.kts"];
const SETTINGS_FILES: &[&str] = &["settings.gradle", "settings.gradle.kts"];
/// Build files larger than this are not read (they declare no dependencies).
const MAX_BUILD_FILE: u64 = 4 << 20;

/// One build module.
#[derive(Debug, Clone, Default)]
struct Module {
    /// Maven's own `<artifactId>`.
    artifact: Option<String>,
    /// Gradle's project path (`:a:b`), or `:` + the directory name.
    gradle_path: String,
    dir_name: String,
    /// The outermost directory above (or at) the module holding a build file: modules of one
    /// build share it.
    root: PathBuf,
    maven_deps: Vec<String>,
    gradle_deps: Vec<String>,
    /// Those of `maven_deps`/`gradle_deps` declared for tests only (Maven's `<scope>test</scope>`,
    /// Gradle's `testImplementation` and other test configurations): on the tests' classpath,
    /// not in the application.
    test_deps: Vec<String>,
    /// The application settings next to its build file.
    settings: AppSettings,
}

/// The build modules of the scanned files.
#[derive(Debug, Clone, Default)]
pub struct Modules {
    /// Per file: its module; 0 is the module of files with no build file above them.
    of_file: Vec<u32>,
    /// Per module: the modules it sees (itself and its dependencies, transitively).
    visible: Vec<BTreeSet<u32>>,
    /// Per module: the modules its application runs with — `visible` through the dependencies
    /// that are not for tests only.
    visible_main: Vec<BTreeSet<u32>>,
    /// Per module: the index of its build's root (see [`Module::root`]).
    root_of: Vec<u32>,
    /// Per module: its application settings.
    settings: Vec<AppSettings>,
    /// Per pair of modules: does some application run the classes of both (made when first
    /// asked)?
    together: std::sync::OnceLock<Vec<Vec<bool>>>,
}

impl Modules {
    /// Every file in one module (what a project without build files is).
    pub fn single(n_files: usize) -> Modules {
        Modules {
            of_file: vec![0; n_files],
            visible: vec![BTreeSet::from([0])],
            visible_main: vec![BTreeSet::from([0])],
            root_of: vec![0],
            settings: vec![AppSettings::default()],
            together: std::sync::OnceLock::new(),
        }
    }

    /// The modules of files at `paths` (as given on the command line: a relative path is not
    /// looked at above its first component).
    pub fn discover<'a>(paths: impl Iterator<Item = &'a str>) -> Modules {
        let mut dirs: HashMap<PathBuf, u32> = HashMap::new();
        let mut modules: Vec<Module> = vec![Module::default()];
        let mut module_dirs: Vec<PathBuf> = vec![PathBuf::new()];
        let mut of_file = Vec::new();
        for p in paths {
            let dir = Path::new(p).parent().unwrap_or(Path::new("")).to_path_buf();
            let m = module_for_dir(&dir, &mut dirs, &mut modules, &mut module_dirs);
            of_file.push(m);
        }
        let n = modules.len();
        let mut direct: Vec<Vec<u32>> = vec![Vec::new(); n];
        // The same edges without the dependencies for tests only.
        let mut direct_main: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, m) in modules.iter().enumerate().skip(1) {
            for d in &m.maven_deps {
                let found = (1..n)
                    .filter(|j| *j != i && modules[*j].artifact.as_deref() == Some(d.as_str()))
                    .map(|j| j as u32);
                direct[i].extend(found.clone());
                if !m.test_deps.contains(d) {
                    direct_main[i].extend(found);
                }
            }
            for d in &m.gradle_deps {
                let before = direct[i].len();
                Self::gradle_edges(&modules, i, d, &mut direct[i]);
                if !m.test_deps.contains(d) {
                    let added = direct[i][before..].to_vec();
                    direct_main[i].extend(added);
                }
            }
        }
        let closure = |direct: &Vec<Vec<u32>>| -> Vec<BTreeSet<u32>> {
            (0..n)
                .map(|i| {
                    let mut seen = BTreeSet::from([i as u32]);
                    let mut stack = vec![i as u32];
                    while let Some(x) = stack.pop() {
                        for y in &direct[x as usize] {
                            if seen.insert(*y) {
                                stack.push(*y);
                            }
                        }
                    }
                    seen
                })
                .collect()
        };
        let visible = closure(&direct);
        let visible_main = closure(&direct_main);
        let mut roots: Vec<PathBuf> = Vec::new();
        let root_of = modules
            .iter()
            .map(|m| match roots.iter().position(|r| *r == m.root) {
                Some(k) => k as u32,
                None => {
                    roots.push(m.root.clone());
                    (roots.len() - 1) as u32
                }
            })
            .collect();
        Modules {
            of_file,
            visible,
            visible_main,
            root_of,
            settings: modules.into_iter().map(|m| m.settings).collect(),
            together: std::sync::OnceLock::new(),
        }
    }

    /// The modules Gradle dependency `d` of module `i` names: by project path, else the one
    /// module whose directory has the path's last name.
    fn gradle_edges(modules: &[Module], i: usize, d: &str, out: &mut Vec<u32>) {
        let n = modules.len();
        let by_path: Vec<u32> = (1..n)
            .filter(|j| *j != i && gradle_matches(&modules[*j].gradle_path, d))
            .map(|j| j as u32)
            .collect();
        if !by_path.is_empty() {
            out.extend(by_path);
            return;
        }
        let last = d.rsplit(':').next().unwrap_or(d);
        let by_name: Vec<u32> = (1..n)
            .filter(|j| *j != i && normalise(&modules[*j].dir_name) == normalise(last))
            .map(|j| j as u32)
            .collect();
        if by_name.len() == 1 {
            out.extend(by_name);
        }
    }

    /// The module of file `file`.
    pub fn module_of(&self, file: u32) -> u32 {
        self.of_file.get(file as usize).copied().unwrap_or(0)
    }

    /// Does code in file `from` see the classes of file `to` (same module, or a module its
    /// build depends on)? A file outside every build sees the whole scanned tree.
    pub fn sees(&self, from: u32, to: u32) -> bool {
        let (a, b) = (self.module_of(from), self.module_of(to));
        a == b || a == 0 || self.visible.get(a as usize).is_some_and(|v| v.contains(&b))
    }

    /// Can the code of files `a` and `b` run in one application: a module (or an application
    /// of the tree) that sees both? A call in one file dispatches to an override in the other
    /// only then: an implementation in a service the caller's application does not depend on
    /// is never on its class path. A file outside every build runs with everything.
    pub fn run_together(&self, a: u32, b: u32) -> bool {
        let (a, b) = (self.module_of(a) as usize, self.module_of(b) as usize);
        if a == b || a == 0 || b == 0 {
            return true;
        }
        let m = self.together.get_or_init(|| {
            let n = self.visible.len();
            let mut m = vec![vec![false; n]; n];
            for seen in &self.visible {
                for x in seen {
                    for y in seen {
                        m[*x as usize][*y as usize] = true;
                    }
                }
            }
            m
        });
        m.get(a).and_then(|r| r.get(b)).copied().unwrap_or(true)
    }

    /// The modules that use the classes of file `file`: its own module and every module whose
    /// build depends on it, transitively (the applications a library module runs in).
    pub fn users(&self, file: u32) -> Vec<u32> {
        let own = self.module_of(file);
        (0..self.visible.len() as u32)
            .filter(|m| *m == own || (*m != 0 && self.visible[*m as usize].contains(&own)))
            .collect()
    }

    /// [`Self::users`] through the dependencies of the applications alone: a module that
    /// depends on the file's for its tests only does not run it.
    pub fn users_main(&self, file: u32) -> Vec<u32> {
        let own = self.module_of(file);
        (0..self.visible_main.len() as u32)
            .filter(|m| *m == own || (*m != 0 && self.visible_main[*m as usize].contains(&own)))
            .collect()
    }

    /// [`Self::module_sees`] through the dependencies of the application alone: the classes
    /// the application of module `module` runs with.
    pub fn module_sees_main(&self, module: u32, file: u32) -> bool {
        let b = self.module_of(file);
        module == b
            || module == 0
            || self
                .visible_main
                .get(module as usize)
                .is_some_and(|v| v.contains(&b))
    }

    /// Does code of module `module` see the classes of file `file`?
    pub fn module_sees(&self, module: u32, file: u32) -> bool {
        let b = self.module_of(file);
        module == b
            || module == 0
            || self
                .visible
                .get(module as usize)
                .is_some_and(|v| v.contains(&b))
    }

    /// The value of application setting `key` (any spelling of Spring's relaxed binding) for
    /// the code of file `file`: set in its module or in an application module that depends on
    /// it, the values of all such modules, in module order.
    pub fn setting(&self, file: u32, key: &str) -> Vec<&str> {
        let own = self.module_of(file);
        let key = super::app_settings::normalize_key(key);
        (0..self.settings.len())
            .filter(|m| *m as u32 == own || self.visible.get(*m).is_some_and(|v| v.contains(&own)))
            .filter_map(|m| self.settings[m].all.get(&key).map(String::as_str))
            .collect()
    }

    /// [`Self::setting`] as the applications run by their settings files alone: a value set
    /// only for a profile (`application-chaos.yml`, a `---` document with
    /// `spring.config.activate.on-profile`) counts only when the settings switch it on.
    pub fn default_run_setting(&self, file: u32, key: &str) -> Vec<&str> {
        let own = self.module_of(file);
        let key = super::app_settings::normalize_key(key);
        (0..self.settings.len())
            .filter(|m| *m as u32 == own || self.visible.get(*m).is_some_and(|v| v.contains(&own)))
            .filter_map(|m| self.settings[m].base.get(&key).map(String::as_str))
            .collect()
    }

    /// The setups that decide how the code of file `file` behaves: of each module that runs it
    /// (its own, or one that depends on it) and sets some key under `prefix`
    /// (`resilience4j.retry`) in any of its settings files, the settings with every profile
    /// switched on and, when they differ, those of the run its settings files make (only the
    /// profiles they switch on) — in module order.
    pub fn settings_under(&self, file: u32, prefix: &str) -> Vec<&BTreeMap<String, String>> {
        let own = self.module_of(file);
        let prefix = format!("{}.", super::app_settings::normalize_key(prefix));
        (0..self.settings.len())
            .filter(|m| *m as u32 == own || self.visible.get(*m).is_some_and(|v| v.contains(&own)))
            .map(|m| &self.settings[m])
            .filter(|s| s.all.keys().any(|k| k.starts_with(&prefix)))
            .flat_map(|s| {
                let base = (s.base != s.all).then_some(&s.base);
                std::iter::once(&s.all).chain(base)
            })
            .collect()
    }

    /// Does the application of `file` (its module, or an application module depending on it) set
    /// any key under `prefix` (`spring.cloud.stream`)?
    pub fn sets_under(&self, file: u32, prefix: &str) -> bool {
        let own = self.module_of(file);
        let prefix = format!("{}.", super::app_settings::normalize_key(prefix));
        (0..self.settings.len())
            .filter(|m| *m as u32 == own || self.visible.get(*m).is_some_and(|v| v.contains(&own)))
            .any(|m| self.settings[m].all.keys().any(|k| k.starts_with(&prefix)))
    }

    /// Are the files of one build (one repository's modules), or is one of them outside every
    /// build? Only then may a type in an unrelated module stand in for a missing one.
    pub fn same_build(&self, from: u32, to: u32) -> bool {
        let (a, b) = (self.module_of(from), self.module_of(to));
        a == 0 || b == 0 || self.root_of.get(a as usize) == self.root_of.get(b as usize)
    }
}

/// The module of directory `dir`, found by walking up to the nearest build file (cached per
/// directory).
fn module_for_dir(
    dir: &Path,
    cache: &mut HashMap<PathBuf, u32>,
    modules: &mut Vec<Module>,
    module_dirs: &mut Vec<PathBuf>,
) -> u32 {
    let mut walked = Vec::new();
    let mut cur = Some(dir.to_path_buf());
    let mut found = 0;
    while let Some(d) = cur {
        if let Some(m) = cache.get(&d) {
            found = *m;
            break;
        }
        walked.push(d.clone());
        if let Some(b) = BUILD_FILES.iter().map(|b| d.join(b)).find(|b| b.is_file()) {
            found = modules.len() as u32;
            modules.push(read_module(&d, &b));
            module_dirs.push(d.clone());
            break;
        }
        cur = d
            .parent()
            .filter(|p| !d.as_os_str().is_empty() && *p != d)
            .map(Path::to_path_buf);
    }
    for d in walked {
        cache.insert(d, found);
    }
    found
}

fn read_module(dir: &Path, build: &Path) -> Module {
    let text = read_small(build).unwrap_or_default();
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut m = Module {
        dir_name: dir_name.clone(),
        gradle_path: format!(":{dir_name}"),
        root: outermost_build_dir(dir),
        settings: super::app_settings::read_settings(dir),
        ..Module::default()
    };
    if build.file_name().is_some_and(|n| n == "pom.xml") {
        let (own, deps) = read_pom(&text);
        m.artifact = own;
        m.maven_deps = deps;
        m.test_deps = pom_test_deps(&text);
    } else {
        let mut text = strip_gradle_comments(&text);
        // Scripts the build file applies from its own directory (`apply from:
        // 'dependencies.gradle'`, Apache Fineract's layout) declare its dependencies too.
        for script in applied_scripts(&text) {
            let p = dir.join(&script);
            let plain = std::fs::symlink_metadata(&p).is_ok_and(|md| md.is_file());
            if let Some(more) = plain.then(|| read_small(&p)).flatten() {
                text.push('\n');
                text.push_str(&strip_gradle_comments(&more));
            }
        }
        m.gradle_deps = read_gradle_deps(&text);
        m.test_deps = gradle_test_deps(&text);
        if let Some(p) = gradle_path(dir) {
            m.gradle_path = p;
        }
    }
    m
}

/// How many scripts a build file may apply that are read with it.
const MAX_APPLIED_SCRIPTS: usize = 4;

/// The Gradle scripts a build file applies by a plain relative path in its own directory or
/// below it: `apply from: 'dependencies.gradle'`, `apply(from = "deps.gradle.kts")` (not a
/// URL, an absolute path, a path that climbs out, or one built from variables).
fn applied_scripts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("apply") {
        rest = &rest[at + "apply".len()..];
        let after = rest.trim_start_matches(|c: char| c == '(' || c.is_whitespace());
        let Some(after) = after.strip_prefix("from") else {
            continue;
        };
        let after = after.trim_start_matches(|c: char| c == ':' || c == '=' || c.is_whitespace());
        let Some(q) = after.chars().next().filter(|c| *c == '\'' || *c == '"') else {
            continue;
        };
        let Some(end) = after[1..].find(q) else {
            continue;
        };
        let path = &after[1..1 + end];
        let plain = !path.is_empty()
            && !path.contains("://")
            && !path.contains('$')
            && !path.starts_with('/')
            && !path.split(['/', '\\']).any(|c| c == "..")
            && (path.ends_with(".gradle") || path.ends_with(".gradle.kts"));
        if plain && !out.iter().any(|p| p == path) {
            out.push(path.to_string());
            if out.len() == MAX_APPLIED_SCRIPTS {
                break;
            }
        }
    }
    out
}

fn read_small(p: &Path) -> Option<String> {
    let meta = std::fs::metadata(p).ok()?;
    if meta.len() > MAX_BUILD_FILE {
        return None;
    }
    let bytes = std::fs::read(p).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `dir` and the directories above it. For a relative path the last one is the empty path, the
/// current directory, where the scan of `.` finds the repository's root build and settings files
/// (`Path::new("").join("settings.gradle")` is `settings.gradle`): without it, scanning a
/// repository from its root gave each module a build of its own.
fn ancestors_of(dir: &Path) -> impl Iterator<Item = &Path> {
    dir.ancestors()
}

fn outermost_build_dir(dir: &Path) -> PathBuf {
    let mut root = dir.to_path_buf();
    for a in ancestors_of(dir) {
        if BUILD_FILES
            .iter()
            .chain(SETTINGS_FILES)
            .any(|b| a.join(b).is_file())
        {
            root = a.to_path_buf();
        }
    }
    root
}

/// `:a:b` for a directory `a/b` below the nearest Gradle settings file.
fn gradle_path(dir: &Path) -> Option<String> {
    let settings =
        ancestors_of(dir).find(|a| SETTINGS_FILES.iter().any(|s| a.join(s).is_file()))?;
    let rel = dir.strip_prefix(settings).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(format!(":{}", parts.join(":")))
}

/// Gradle's type-safe accessors turn `ledger-client` into `ledgerClient`: compare without case
/// and separators.
fn normalise(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn gradle_matches(module_path: &str, dep: &str) -> bool {
    let a: Vec<String> = module_path
        .split(':')
        .filter(|s| !s.is_empty())
        .map(normalise)
        .collect();
    let b: Vec<String> = dep
        .split(':')
        .filter(|s| !s.is_empty())
        .map(normalise)
        .collect();
    !b.is_empty() && a == b
}

/// Removes `<!-- … -->` comments and the blocks named `tag`.
fn strip_blocks(text: &str, tag: &str) -> String {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        // `<dependencies>` must not match `<dependency>`'s prefix search for `<dependencies`.
        if !after.starts_with(['>', ' ', '\t', '\r', '\n', '/']) {
            out.push_str(&rest[..i + open.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..i]);
        match after.find(&close) {
            Some(j) => rest = &after[j + close.len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        match rest[i..].find("-->") {
            Some(j) => rest = &rest[i + j + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The texts of every `<tag>…</tag>` in `text`.
fn tag_values<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(j) = after.find(&close) else { break };
        out.push(after[..j].trim());
        rest = &after[j + close.len()..];
    }
    out
}

/// The blocks `<tag>…</tag>` of `text`.
fn blocks<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    tag_values(text, tag)
}

/// A POM without the blocks whose `<dependencies>` are not the project's own: its parent,
/// dependency management, build plugins, reporting, profiles and repositories.
fn dependency_sections(text: &str) -> String {
    let mut rest = text.to_string();
    for t in [
        "parent",
        "dependencyManagement",
        "build",
        "reporting",
        "profiles",
        "pluginRepositories",
        "repositories",
    ] {
        rest = strip_blocks(&rest, t);
    }
    rest
}

/// A POM's own artifactId, and the artifactIds of its dependencies and parent.
fn read_pom(text: &str) -> (Option<String>, Vec<String>) {
    let text = strip_comments(text);
    let mut deps: Vec<String> = Vec::new();
    for p in blocks(&text, "parent") {
        deps.extend(tag_values(p, "artifactId").into_iter().map(str::to_string));
    }
    let rest = dependency_sections(&text);
    for b in blocks(&rest, "dependencies") {
        let b = strip_blocks(b, "exclusions");
        deps.extend(tag_values(&b, "artifactId").into_iter().map(str::to_string));
    }
    let own_text = strip_blocks(&rest, "dependencies");
    let own = tag_values(&own_text, "artifactId")
        .first()
        .map(|s| s.to_string());
    deps.retain(|d| !d.is_empty() && Some(d) != own.as_ref());
    (own, deps)
}

/// The artifactIds a POM depends on for its tests only: every `<dependency>` naming it has
/// `<scope>test</scope>`.
fn pom_test_deps(text: &str) -> Vec<String> {
    let text = strip_comments(text);
    let rest = dependency_sections(&text);
    let mut scoped: Vec<(String, bool)> = Vec::new();
    for b in blocks(&rest, "dependencies") {
        for d in blocks(b, "dependency") {
            let d = strip_blocks(d, "exclusions");
            if let Some(a) = tag_values(&d, "artifactId").first() {
                let test = tag_values(&d, "scope").first() == Some(&"test");
                scoped.push((a.to_string(), test));
            }
        }
    }
    let mut out: Vec<String> = scoped
        .iter()
        .filter(|(a, _)| scoped.iter().all(|(b, t)| b != a || *t))
        .map(|(a, _)| a.clone())
        .collect();
    out.dedup();
    out
}

/// The project paths a Gradle script depends on for its tests only: each declaration of the
/// path is in a test configuration (`testImplementation`, `testRuntimeOnly`,
/// `integrationTestImplementation`, `testFixturesApi`, …).
fn gradle_test_deps(text: &str) -> Vec<String> {
    let scoped = read_gradle_deps_with_config(text);
    let test = |c: &str| c.starts_with("test") || c.contains("Test");
    let mut out: Vec<String> = scoped
        .iter()
        .filter(|(p, _)| scoped.iter().all(|(q, c)| q != p || test(c)))
        .map(|(p, _)| p.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The configuration a dependency declared at byte `at` of `text` is added to: the name
/// written just before it (`testImplementation project(':a')`,
/// `testImplementation(project(":a"))`, `dependencies { testImplementation project(':a') }`).
fn gradle_configuration(text: &str, at: usize) -> String {
    let before = text[..at].trim_end_matches(|c: char| c == '(' || c.is_whitespace());
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(before.len(), |(i, _)| i);
    before[start..].to_string()
}

/// A Gradle script (Groovy or Kotlin DSL) without its `//` and `/* … */` comments, each comment
/// replaced by one space (its line breaks kept). String literals — `"…"`, `'…'` and the triple
/// quoted `"""…"""` and `'''…'''` — are kept whole, so `"https://repo"` is no comment. Block
/// comments nest as in Kotlin (a Groovy script never nests them, so this changes nothing there);
/// an unterminated comment ends the text.
fn strip_gradle_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                out.push(b' ');
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if b[i] == b'\n' {
                            out.push(b'\n');
                        }
                        i += 1;
                    }
                }
                out.push(b' ');
            }
            q @ (b'"' | b'\'') => {
                let triple = [q, q, q];
                let end = if b[i..].starts_with(&triple) {
                    // A triple-quoted string ends at the next three quotes; no escapes in Kotlin's.
                    find_from(b, i + 3, &triple).map_or(b.len(), |e| e + 3)
                } else {
                    let mut j = i + 1;
                    while j < b.len() && b[j] != q && b[j] != b'\n' {
                        j += if b[j] == b'\\' { 2 } else { 1 };
                    }
                    (j + 1).min(b.len())
                };
                out.extend_from_slice(&b[i..end]);
                i = end;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where `needle` first occurs in `hay` at or after `from`.
fn find_from(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The project paths a Gradle build script depends on: `project(":a:b")`,
/// `project(path: ":a")` and `projects.aB.cD` (as `:aB:cD`).
fn read_gradle_deps(text: &str) -> Vec<String> {
    read_gradle_deps_with_config(text)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// [`read_gradle_deps`], each path with the configuration it is declared in (see
/// [`gradle_configuration`]).
fn read_gradle_deps_with_config(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("project(") {
        let at = text.len() - rest.len() + i;
        let after = &rest[i + "project(".len()..];
        let arg = after.split(')').next().unwrap_or("");
        if let Some(q) = arg.find(['"', '\'']) {
            let quote = arg.as_bytes()[q] as char;
            let inner = &arg[q + 1..];
            if let Some(e) = inner.find(quote) {
                let path = &inner[..e];
                if path.starts_with(':') || !path.contains(' ') {
                    out.push((path.to_string(), gradle_configuration(text, at)));
                }
            }
        }
        rest = after;
    }
    let mut rest = text;
    while let Some(i) = rest.find("projects.") {
        let preceded = rest[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let after = &rest[i + "projects.".len()..];
        let acc: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        if !preceded && !acc.is_empty() {
            let segs: Vec<&str> = acc.split('.').filter(|s| !s.is_empty()).collect();
            let at = text.len() - rest.len() + i;
            out.push((
                format!(":{}", segs.join(":")),
                gradle_configuration(text, at),
            ));
        }
        rest = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pom_names_itself_its_parent_and_its_dependencies_not_managed_ones() {
        let pom = r#"<project>
          <parent><groupId>g</groupId><artifactId>platform</artifactId></parent>
          <artifactId>payout-service</artifactId>
          <!-- <dependency><artifactId>commented</artifactId></dependency> -->
          <dependencyManagement><dependencies>
            <dependency><artifactId>managed-only</artifactId></dependency>
          </dependencies></dependencyManagement>
          <dependencies>
            <dependency><artifactId>ledger-client</artifactId>
              <exclusions><exclusion><artifactId>excluded</artifactId></exclusion></exclusions>
            </dependency>
          </dependencies>
          <build><plugins><plugin><artifactId>maven-plugin</artifactId></plugin></plugins></build>
        </project>"#;
        let (own, deps) = read_pom(pom);
        assert_eq!(own.as_deref(), Some("payout-service"));
        assert_eq!(
            deps,
            vec!["platform".to_string(), "ledger-client".to_string()]
        );
    }

    #[test]
    fn a_build_file_reads_the_scripts_it_applies_from_its_own_directory() {
        let build = r#"
            apply plugin: 'java'
            apply from: 'dependencies.gradle'
            apply(from = "gradle/deps.gradle.kts")
            apply from: "${rootDir}/buildSrc/shared.gradle"
            apply from: '../common.gradle'
            apply from: 'https://example.com/evil.gradle'
            apply from: 'dependencies.gradle'
        "#;
        assert_eq!(
            applied_scripts(build),
            vec![
                "dependencies.gradle".to_string(),
                "gradle/deps.gradle.kts".to_string()
            ]
        );
    }

    #[test]
    fn a_malformed_pom_declares_nothing() {
        let (own, deps) = read_pom("<project><artifactId>x</art");
        assert_eq!(own, None);
        assert!(deps.is_empty());
    }

    #[test]
    fn gradle_project_dependencies_in_both_dialects() {
        let kts = r#"dependencies {
            implementation(project(":ledger-client"))
            api(project(path: ':shared:model'))
            implementation(projects.paymentsCore)
            implementation("org.springframework:spring-web")
        }"#;
        assert_eq!(
            read_gradle_deps(kts),
            vec![
                ":ledger-client".to_string(),
                ":shared:model".to_string(),
                ":paymentsCore".to_string()
            ]
        );
        assert!(gradle_matches(":payments-core", ":paymentsCore"));
        assert!(!gradle_matches(":payments", ":paymentsCore"));
    }

    #[test]
    fn dependencies_for_tests_only_are_told_apart() {
        let pom = r#"<project><artifactId>refunds</artifactId><dependencies>
            <dependency><artifactId>retry-config</artifactId><scope>test</scope></dependency>
            <dependency><artifactId>ledger-client</artifactId></dependency>
            <dependency><artifactId>fixtures</artifactId><scope>test</scope></dependency>
            <dependency><artifactId>fixtures</artifactId><scope>compile</scope></dependency>
        </dependencies></project>"#;
        assert_eq!(pom_test_deps(pom), vec!["retry-config".to_string()]);
        let gradle = r#"dependencies { testImplementation project(':retry-testkit') }
        dependencies {
            implementation(project(":ledger-client"))
            testImplementation(testFixtures(project(":core")))
            integrationTestImplementation projects.sandbox
            testImplementation project(':shared')
            implementation project(':shared')
        }"#;
        assert_eq!(
            gradle_test_deps(gradle),
            vec![
                ":core".to_string(),
                ":retry-testkit".to_string(),
                ":sandbox".to_string()
            ]
        );
    }

    #[test]
    fn commented_out_gradle_dependencies_do_not_count() {
        let kts = r#"tasks.processResources { exclude("**/*.local.yml") }
        repositories { maven { url = uri("https://nexus.acme.internal/maven-public/") } }
        dependencies {
            // TODO: implementation(project(":retry-config"))
            /* implementation(project(":old-core"))
               /* nested */ implementation(projects.legacyCore) */
            implementation(project(":ledger-client")) // the shared client
            implementation("org.springframework:spring-web")
        }"#;
        assert_eq!(
            read_gradle_deps(&strip_gradle_comments(kts)),
            vec![":ledger-client".to_string()]
        );
        let groovy = r#"dependencies {
            /*
             * implementation project(':retry-config')
             */
            implementation project(':payments-core') // core
            implementation "com.acme:wire-format:1.2"
        }"#;
        assert_eq!(
            read_gradle_deps(&strip_gradle_comments(groovy)),
            vec![":payments-core".to_string()]
        );
        // Strings are kept whole, comment markers in them included; line breaks are kept.
        let s = "val p = \"a//b\" // c\nval q = '''x/*y''' /* z\n */ end";
        assert_eq!(
            strip_gradle_comments(s),
            "val p = \"a//b\"  \nval q = '''x/*y''' \n  end"
        );
        // An unterminated comment or string ends the text, without a panic.
        assert_eq!(strip_gradle_comments("a /* b"), "a  ");
        assert_eq!(strip_gradle_comments("a \"b\\"), "a \"b\\");
    }

    #[test]
    fn modules_of_a_tree_and_who_sees_whom() {
        let dir = std::env::temp_dir().join(format!("rl-modules-{}", std::process::id()));
        let w = |p: &str, s: &str| {
            let f = dir.join(p);
            std::fs::create_dir_all(f.parent().expect("parent")).expect("mkdir");
            std::fs::write(f, s).expect("write");
        };
        w("settings.gradle.kts", "include(\"a\", \"b\", \"c\")");
        w(
            "a/build.gradle.kts",
            "dependencies { implementation(project(\":b\")) }",
        );
        w("b/build.gradle", "dependencies { }");
        w("c/build.gradle.kts", "not gradle at all {{{");
        let files: Vec<String> = ["a/src/A.java", "b/src/x/B.java", "c/C.java", "b/B2.java"]
            .iter()
            .map(|p| dir.join(p).to_string_lossy().into_owned())
            .collect();
        let m = Modules::discover(files.iter().map(String::as_str));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(m.sees(0, 1), "a depends on b");
        assert!(!m.sees(1, 0), "b does not depend on a");
        assert!(!m.sees(0, 2) && !m.sees(2, 0));
        assert!(m.sees(1, 3), "one module");
        assert!(m.same_build(0, 2));
    }

    #[test]
    fn files_without_build_files_are_one_module() {
        let m = Modules::discover(["A.java", "p/B.java"].into_iter());
        assert!(m.sees(0, 1) && m.sees(1, 0));
    }
}

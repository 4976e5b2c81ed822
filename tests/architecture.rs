//! The shape of the code, checked: the top-level modules of `src/` form layers (no module
//! imports a module that imports it, directly or through others), no source file is over 1,000
//! lines and no function over 250.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 1000;
const MAX_FN_LINES: usize = 250;

/// Old paths that `lib.rs` re-exports, by the layer that holds them now.
const ALIASES: &[(&str, &str)] = &[
    ("scope", "workspace"),
    ("cache", "workspace"),
    ("cache_auth", "workspace"),
    ("safe_fs", "workspace"),
    ("depth_limit", "workspace"),
    ("discovery", "workspace"),
    ("source", "workspace"),
    ("config", "policy"),
    ("suppress", "policy"),
    ("baseline", "policy"),
    ("phase", "pipeline"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file belongs to (`src/dataflow/calls.rs` → `dataflow`).
fn layer_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("a file under src/");
    let first = rel.components().next().expect("a path");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// The code of a file without its comments (a doc comment may name any module).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The layers a file's code names through `crate::x` paths and `use crate::{x, y}` groups.
fn named_layers(code: &str, layers: &BTreeSet<String>) -> BTreeSet<String> {
    let resolve = |name: &str| {
        let name = ALIASES
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name, |(_, to)| to);
        layers.contains(name).then(|| name.to_string())
    };
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let head = item.trim().split("::").next().unwrap_or("").trim();
                let head = head.split_whitespace().next().unwrap_or("");
                out.extend(resolve(head));
            }
        } else {
            let head: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.extend(resolve(&head));
        }
    }
    out
}

#[test]
fn modules_form_layers_without_cycles() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let layers: BTreeSet<String> = files.iter().map(|f| layer_of(f)).collect();
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let me = layer_of(f);
        if me == "lib" || me == "main" {
            continue; // the crate root re-exports everything; the binary uses everything
        }
        let text = std::fs::read_to_string(f).expect("a readable source file");
        for other in named_layers(&code(&text), &layers) {
            if other != me && other != "lib" && other != "main" {
                deps.entry(me.clone()).or_default().insert(other);
            }
        }
    }
    let reaches = |from: &str, to: &str| {
        let mut stack = vec![from.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(m) = stack.pop() {
            for d in deps.get(&m).into_iter().flatten() {
                if d == to {
                    return true;
                }
                if seen.insert(d.clone()) {
                    stack.push(d.clone());
                }
            }
        }
        false
    };
    let mut cycles = Vec::new();
    for (m, ds) in &deps {
        for d in ds {
            if m < d && reaches(d, m) {
                cycles.push(format!("{m} ↔ {d}"));
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules that import each other (directly or through others): {cycles:?}\nlayers: {deps:#?}"
    );
}

/// Functions longer than the limit: from a line that declares one to the closing brace at its
/// indentation (rustfmt's layout).
fn long_functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let decl = trimmed
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ")
            .trim_start_matches("unsafe ");
        let Some(rest) = decl.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = " ".repeat(indent) + "}";
        let end = lines[i + 1..]
            .iter()
            .position(|l| l.starts_with(&close) && l.len() - l.trim_start().len() == indent)
            .map_or(lines.len(), |p| i + 1 + p);
        let n = end - i + 1;
        if n > MAX_FN_LINES {
            out.push((i + 1, name, n));
        }
    }
    out
}

#[test]
fn no_source_file_or_function_is_too_long() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a readable source file");
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            problems.push(format!("{}: {n} lines", f.display()));
        }
        for (line, name, len) in long_functions(&text) {
            problems.push(format!("{}:{line} fn {name}: {len} lines", f.display()));
        }
    }
    assert!(problems.is_empty(), "too long: {problems:#?}");
}

#[test]
fn the_checks_see_what_they_are_about() {
    let layers: BTreeSet<String> = ["findings", "rules", "workspace", "policy"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let named = named_layers(
        &code("use crate::rules::{self, Rule};\nuse crate::{scope, config};\n// crate::findings"),
        &layers,
    );
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        vec!["policy", "rules", "workspace"]
    );
    let long = format!("fn f() {{\n{}}}\n", "    x();\n".repeat(MAX_FN_LINES));
    assert_eq!(long_functions(&long).len(), 1);
    assert!(long_functions("fn g() {\n    y();\n}\n").is_empty());
}

/// The layers each file of one top-level module names.
fn layers_named_by(module: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let layers: BTreeSet<String> = files.iter().map(|f| layer_of(f)).collect();
    files
        .iter()
        .filter(|f| layer_of(f) == module)
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("a readable source file");
            (f.display().to_string(), named_layers(&code(&text), &layers))
        })
        .collect()
}

/// The data-flow engine knows frameworks only through its model interface
/// (`dataflow::model::Model`), which the catalogue implements: it never reads the catalogue,
/// and neither does the semantic model it builds on.
#[test]
fn the_engine_does_not_read_the_catalogue() {
    for module in ["dataflow", "semantic"] {
        let named = layers_named_by(module);
        assert!(named.len() > 1, "{module}: no files found");
        let readers: Vec<&String> = named
            .iter()
            .filter(|(_, ls)| ls.contains("catalogue"))
            .map(|(f, _)| f)
            .collect();
        assert!(
            readers.is_empty(),
            "{module} files that name the catalogue: {readers:?}"
        );
    }
}

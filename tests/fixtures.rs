//! The fixture harness: every `//~ RLxxx` marker under `fixtures/` is an expected finding on
//! that line, and every finding must have a marker. Missing and extra findings both fail.
//! Markers of rules that this build does not implement yet are listed, not compared.
//!
//! Each fixture *theme* is analysed as a project of its own, so that project-wide lookups
//! (a simple class name, an `@EnableRetry`, an interceptor bean) never couple unrelated
//! fixtures. A theme is found from the tree (see `themes` and fixtures/README.md).
//!
//! A marker is a line comment that starts with `//~` and trails the code of its line:
//! `//~ RL001`, `//~ RL001 RL004`, `//~ RL001 region=12 sink=19`. Anything else that looks like
//! one (a misspelled or unknown rule id, a bad pin, `//~RL001`, `// ~ RL001`, a marker on a line
//! of its own) fails the harness, so a typo cannot silently drop an expectation. `//~` inside a
//! string literal, a text block or a block comment is not a marker.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// The rule ids of the contract (SPEC §2); markers of those not implemented yet are pending.
const CONTRACT_RULES: &[&str] = &["RL001", "RL002", "RL003", "RL004", "RL005", "RL006"];

/// Files whose presence makes a directory a build module, and so a theme of its own.
const BUILD_FILES: &[&str] = &["pom.xml", "build.gradle", "build.gradle.kts"];

// ---------------------------------------------------------------------------------------------
// Markers
// ---------------------------------------------------------------------------------------------

/// Which related location a pin names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum PinKey {
    Region,
    Sink,
}

impl fmt::Display for PinKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PinKey::Region => "region",
            PinKey::Sink => "sink",
        })
    }
}

/// One `//~` comment: the rules expected on its line, and the related lines it pins.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Marker {
    line: u32,
    rules: Vec<String>,
    pins: Vec<(PinKey, u32)>,
}

/// A marker that cannot be read, with the one-based line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MarkerError {
    line: u32,
    message: String,
}

/// Is `id` a known rule id? (Known: the contract's rules and every rule this build has.)
fn known_rule(id: &str) -> bool {
    CONTRACT_RULES.contains(&id) || retrylint::rules::ALL.iter().any(|r| r.id == id)
}

fn looks_like_rule_id(tok: &str) -> bool {
    tok.len() == 5 && tok.starts_with("RL") && tok[2..].bytes().all(|b| b.is_ascii_digit())
}

/// Reads the text of a `//~` comment after the `~`.
fn parse_marker(line: u32, body: &str) -> Result<Marker, String> {
    if body.trim().is_empty() {
        return Err("`//~` names no rule: write `//~ RL001`".into());
    }
    if !body.starts_with([' ', '\t']) {
        return Err(format!(
            "`//~{}` needs a space after `//~`: write `//~ {}`",
            body.trim_end(),
            body.trim()
        ));
    }
    let mut marker = Marker {
        line,
        rules: Vec::new(),
        pins: Vec::new(),
    };
    for tok in body.split_whitespace() {
        if let Some((key, value)) = tok.split_once('=') {
            let key = match key {
                "region" => PinKey::Region,
                "sink" => PinKey::Sink,
                _ => {
                    return Err(format!(
                        "unknown pin `{key}` in `{tok}`: a pin is `region=LINE` or `sink=LINE`"
                    ));
                }
            };
            let at = match value.parse::<u32>() {
                Ok(n) if n > 0 => n,
                _ => return Err(format!("pin `{tok}` needs a line number (1 or more)")),
            };
            if marker.rules.is_empty() {
                return Err(format!("pin `{tok}` comes before any rule id"));
            }
            marker.pins.push((key, at));
        } else if looks_like_rule_id(tok) {
            if !marker.pins.is_empty() {
                return Err(format!(
                    "rule `{tok}` comes after a pin: rule ids come first"
                ));
            }
            if !known_rule(tok) {
                return Err(format!(
                    "unknown rule `{tok}` (known: {})",
                    known_rules().join(", ")
                ));
            }
            if marker.rules.iter().any(|r| r == tok) {
                return Err(format!("rule `{tok}` is marked twice on one line"));
            }
            marker.rules.push(tok.to_string());
        } else if looks_like_rule_id(&tok.to_ascii_uppercase()) {
            return Err(format!(
                "`{tok}` is not a rule id: rule ids are upper case (`{}`)",
                tok.to_ascii_uppercase()
            ));
        } else {
            return Err(format!(
                "`{tok}` is neither a rule id (`RL` and three digits) nor a pin (`region=LINE`, \
                 `sink=LINE`)"
            ));
        }
    }
    Ok(marker)
}

fn known_rules() -> Vec<&'static str> {
    let mut ids: Vec<&str> = CONTRACT_RULES.to_vec();
    ids.extend(retrylint::rules::ALL.iter().map(|r| r.id));
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Where the lexer is between characters of a Java file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lex {
    Code,
    BlockComment,
    Str,
    Char,
    TextBlock,
}

/// The markers of a Java file, or every reason some of them cannot be read. Only line comments
/// count: the lexer skips string and character literals, text blocks and block comments.
fn markers_in(text: &str) -> Result<Vec<Marker>, Vec<MarkerError>> {
    let mut markers = Vec::new();
    let mut errors = Vec::new();
    let b = text.as_bytes();
    let mut state = Lex::Code;
    let mut line: u32 = 1;
    // Whether something other than white space and comments was seen on this line.
    let mut code_on_line = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            code_on_line = false;
            if matches!(state, Lex::Str | Lex::Char) {
                state = Lex::Code; // an unterminated literal ends with its line
            }
            i += 1;
            continue;
        }
        match state {
            Lex::Code => {
                if b[i..].starts_with(b"//") {
                    let end = b[i..]
                        .iter()
                        .position(|&x| x == b'\n')
                        .map_or(b.len(), |n| i + n);
                    let comment = String::from_utf8_lossy(&b[i + 2..end]);
                    let comment = comment.trim_end_matches('\r');
                    if let Err(message) = read_comment(line, comment, code_on_line, &mut markers) {
                        errors.push(MarkerError { line, message });
                    }
                    i = end;
                    continue;
                }
                if b[i..].starts_with(b"/*") {
                    state = Lex::BlockComment;
                    i += 2;
                    continue;
                }
                if b[i..].starts_with(b"\"\"\"") {
                    state = Lex::TextBlock;
                    code_on_line = true;
                    i += 3;
                    continue;
                }
                match c {
                    b'"' => state = Lex::Str,
                    b'\'' => state = Lex::Char,
                    _ => {}
                }
                if !c.is_ascii_whitespace() {
                    code_on_line = true;
                }
                i += 1;
            }
            Lex::BlockComment => {
                if b[i..].starts_with(b"*/") {
                    state = Lex::Code;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            Lex::Str | Lex::Char | Lex::TextBlock => {
                code_on_line = true;
                if c == b'\\' {
                    // An escape: the next character never ends the literal (a newline after a
                    // backslash in a text block still counts as a line).
                    i += if b.get(i + 1) == Some(&b'\n') { 1 } else { 2 };
                    continue;
                }
                let closes = match state {
                    Lex::Str => c == b'"',
                    Lex::Char => c == b'\'',
                    _ => b[i..].starts_with(b"\"\"\""),
                };
                if closes {
                    i += if state == Lex::TextBlock { 3 } else { 1 };
                    state = Lex::Code;
                } else {
                    i += 1;
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(markers)
    } else {
        Err(errors)
    }
}

/// Reads one line comment (its text after `//`): a marker, nothing, or a near miss.
fn read_comment(
    line: u32,
    comment: &str,
    code_on_line: bool,
    markers: &mut Vec<Marker>,
) -> Result<(), String> {
    if let Some(body) = comment.strip_prefix('~') {
        if !code_on_line {
            return Err("a marker must trail the code of the line it expects a finding on".into());
        }
        markers.push(parse_marker(line, body)?);
        return Ok(());
    }
    if comment.trim_start().starts_with('~') {
        return Err(format!(
            "`//{comment}` is not a marker: write `//~` with no space between `//` and `~`"
        ));
    }
    if comment.contains("//~") {
        return Err("`//~` inside another comment: a marker must be its own line comment".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Themes
// ---------------------------------------------------------------------------------------------

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    entries
}

fn is_java(p: &Path) -> bool {
    p.is_file() && p.extension().is_some_and(|e| e == "java")
}

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for p in sorted_entries(dir) {
        if p.is_dir() {
            java_files(&p, out);
        } else if is_java(&p) {
            out.push(p);
        }
    }
}

/// The themes under `dir`: a directory that holds a Java file or a build file of its own is a
/// theme (with everything below it: its `api/` support types, its sub-scenarios, its modules);
/// a directory with neither only groups themes (`fixtures/`, `frameworks/`, `interceptors/`,
/// `false_positives/`), and each of its subdirectories is looked at the same way.
fn themes(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = sorted_entries(dir);
    let own = entries.iter().any(|p| {
        is_java(p)
            || p.file_name()
                .is_some_and(|n| BUILD_FILES.iter().any(|b| n == *b))
    });
    if own {
        out.push(dir.to_path_buf());
        return;
    }
    for p in entries.into_iter().filter(|p| p.is_dir()) {
        themes(&p, out);
    }
}

// ---------------------------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Expected {
    path: String,
    line: u32,
    rule: String,
}

/// The markers of a theme's files, as expected findings and pins; malformed markers go to
/// `problems`.
fn expectations(
    files: &[PathBuf],
    problems: &mut Vec<String>,
) -> (BTreeSet<Expected>, Vec<(Expected, PinKey, u32)>) {
    let mut expected = BTreeSet::new();
    let mut pins = Vec::new();
    for f in files {
        let path = retrylint::discovery::display_path(f);
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{path}: cannot read: {e}"));
                continue;
            }
        };
        let lines = text.lines().count() as u32;
        match markers_in(&text) {
            Ok(markers) => {
                for m in markers {
                    for r in &m.rules {
                        let at = Expected {
                            path: path.clone(),
                            line: m.line,
                            rule: r.clone(),
                        };
                        for &(key, to) in &m.pins {
                            if to > lines {
                                problems.push(format!(
                                    "{path}:{}: pin `{key}={to}` is past the end of the file \
                                     ({lines} lines)",
                                    m.line
                                ));
                            }
                            pins.push((at.clone(), key, to));
                        }
                        expected.insert(at);
                    }
                }
            }
            Err(errors) => {
                for e in errors {
                    problems.push(format!("{path}:{}: {}", e.line, e.message));
                }
            }
        }
    }
    (expected, pins)
}

/// The source line, trimmed, to show next to a difference.
fn source_line(path: &str, line: u32) -> String {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| {
            t.lines()
                .nth(line as usize - 1)
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_default()
}

/// What one theme's run differs in from its markers (empty: it matches).
struct ThemeOutcome {
    diff: Vec<String>,
    pending: Vec<Expected>,
    compared: usize,
}

fn check_theme(theme: &Path, problems: &mut Vec<String>) -> ThemeOutcome {
    let mut files = Vec::new();
    java_files(theme, &mut files);
    let (expected_all, pins) = expectations(&files, problems);
    let implemented: BTreeSet<&str> = retrylint::rules::ALL.iter().map(|r| r.id).collect();
    let (expected, pending): (BTreeSet<_>, BTreeSet<_>) = expected_all
        .into_iter()
        .partition(|e| implemented.contains(e.rule.as_str()));
    let shown = retrylint::discovery::display_path(theme);
    let report = match retrylint::check(&retrylint::Options::new(vec![theme.to_path_buf()])) {
        Ok(r) => r,
        Err(e) => {
            return ThemeOutcome {
                diff: vec![format!("  the run failed: {e}")],
                pending: pending.into_iter().collect(),
                compared: expected.len(),
            };
        }
    };
    let mut diff = Vec::new();
    // A file under a `broken/` directory is a parse-recovery fixture (SPEC 7.6): it must be
    // reported as partially parsed, and that warning is the only problem it may have.
    let broken = |path: &str| path.split('/').any(|d| d == "broken");
    for f in files.iter().map(|f| retrylint::discovery::display_path(f)) {
        if broken(&f)
            && !report
                .errors
                .iter()
                .any(|e| e.path == f && e.kind == retrylint::ErrorKind::Syntax)
        {
            diff.push(format!("  missing  {f}: not reported as partially parsed"));
        }
    }
    for e in &report.errors {
        if broken(&e.path) && e.kind == retrylint::ErrorKind::Syntax {
            continue;
        }
        diff.push(format!(
            "  error    {}{}: {} ({})",
            e.path,
            e.line.map(|l| format!(":{l}")).unwrap_or_default(),
            e.message,
            e.kind
        ));
    }
    let finding = |e: &Expected| {
        report
            .findings
            .iter()
            .find(|f| f.path == e.path && f.line == e.line && f.rule.id == e.rule)
    };
    let actual: BTreeSet<Expected> = report
        .findings
        .iter()
        .map(|f| Expected {
            path: f.path.clone(),
            line: f.line,
            rule: f.rule.id.to_string(),
        })
        .collect();
    for m in expected.difference(&actual) {
        diff.push(format!(
            "  missing  {}:{} {}    | {}",
            m.path,
            m.line,
            m.rule,
            source_line(&m.path, m.line)
        ));
    }
    for e in actual.difference(&expected) {
        if pending.contains(e) {
            continue; // a rule not implemented yet that already finds what its marker says
        }
        let message = finding(e).map(|f| f.message.as_str()).unwrap_or_default();
        diff.push(format!(
            "  extra    {}:{} {}    | {}\n             {message}",
            e.path,
            e.line,
            e.rule,
            source_line(&e.path, e.line)
        ));
    }
    for (at, key, to) in &pins {
        let Some(f) = finding(at) else {
            continue; // reported as missing (or pending) above
        };
        let lines: Vec<u32> = match key {
            PinKey::Region => f.regions.iter().map(|r| r.line).collect(),
            PinKey::Sink => f.sinks.iter().map(|r| r.line).collect(),
        };
        if !lines.contains(to) {
            diff.push(format!(
                "  pin      {}:{} {} {key}={to} but the finding has {key} lines {lines:?}",
                at.path, at.line, at.rule
            ));
        }
    }
    if !diff.is_empty() {
        diff.insert(0, format!("{shown}/ (analysed as one project):"));
    }
    ThemeOutcome {
        diff,
        pending: pending.into_iter().collect(),
        compared: expected.len(),
    }
}

#[test]
fn fixtures_match_markers() {
    let root = Path::new("fixtures");
    let mut all = Vec::new();
    themes(root, &mut all);
    assert!(all.len() > 10, "the fixture tree lost its themes: {all:?}");
    let mut problems = Vec::new();
    let mut diffs = Vec::new();
    let mut pending = Vec::new();
    let mut compared = 0;
    for theme in &all {
        let outcome = check_theme(theme, &mut problems);
        diffs.extend(outcome.diff);
        pending.extend(outcome.pending);
        compared += outcome.compared;
    }
    assert!(
        problems.is_empty(),
        "malformed fixture markers:\n  {}",
        problems.join("\n  ")
    );
    if !pending.is_empty() {
        eprintln!(
            "{} marker(s) of rules not implemented yet were not compared:",
            pending.len()
        );
        for p in &pending {
            eprintln!("  {}:{} {}", p.path, p.line, p.rule);
        }
    }
    assert!(compared > 20, "the fixture tree lost its markers");
    assert!(
        diffs.is_empty(),
        "fixture findings differ from the markers (each theme is its own project):\n{}",
        diffs.join("\n")
    );
}

/// Every Java file under `fixtures/` belongs to exactly one theme.
#[test]
fn every_fixture_is_in_one_theme() {
    let root = Path::new("fixtures");
    let mut all = Vec::new();
    themes(root, &mut all);
    let mut files = Vec::new();
    java_files(root, &mut files);
    for f in &files {
        let owners: Vec<_> = all.iter().filter(|t| f.starts_with(t)).collect();
        assert_eq!(owners.len(), 1, "{} is in themes {owners:?}", f.display());
    }
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert!(
                !a.starts_with(b) && !b.starts_with(a),
                "themes {} and {} nest",
                a.display(),
                b.display()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests of the marker reader and the theme finder
// ---------------------------------------------------------------------------------------------

fn rules_of(text: &str) -> Vec<(u32, Vec<String>)> {
    markers_in(text)
        .expect("markers")
        .into_iter()
        .map(|m| (m.line, m.rules))
        .collect()
}

fn error_of(text: &str) -> String {
    match markers_in(text) {
        Ok(m) => panic!("expected a marker error, read {m:?}"),
        Err(e) => {
            assert_eq!(e.len(), 1, "{e:?}");
            e[0].message.clone()
        }
    }
}

#[test]
fn marker_reads_one_and_several_rules() {
    let text = "class A {\n  void f() {\n    k(UUID.randomUUID()); //~ RL001\n    \
                Charge.create(p); //~ RL001 RL004\n  }\n}\n";
    assert_eq!(
        rules_of(text),
        vec![
            (3, vec!["RL001".to_string()]),
            (4, vec!["RL001".to_string(), "RL004".to_string()]),
        ]
    );
}

#[test]
fn marker_reads_pins() {
    let m = markers_in("x(); //~ RL001 region=12 sink=19\n").expect("markers");
    assert_eq!(
        m,
        vec![Marker {
            line: 1,
            rules: vec!["RL001".into()],
            pins: vec![(PinKey::Region, 12), (PinKey::Sink, 19)],
        }]
    );
}

#[test]
fn marker_of_a_rule_not_implemented_is_read() {
    assert_eq!(
        rules_of("@Retryable private void f() {} //~ RL006\n"),
        vec![(1, vec!["RL006".to_string()])]
    );
}

#[test]
fn marker_misspelled_rule_ids_fail() {
    assert!(error_of("x(); //~ RL01\n").contains("`RL01` is neither a rule id"));
    assert!(error_of("x(); //~ RL0001\n").contains("neither a rule id"));
    assert!(error_of("x(); //~ rl001\n").contains("upper case (`RL001`)"));
    assert!(error_of("x(); //~ Rl001\n").contains("upper case"));
    assert!(error_of("x(); //~ RL001, RL002\n").contains("`RL001,`"));
}

#[test]
fn marker_unknown_rule_fails() {
    let e = error_of("x(); //~ RL009\n");
    assert!(e.contains("unknown rule `RL009`"), "{e}");
    assert!(e.contains("RL001"), "{e}");
}

#[test]
fn marker_needs_a_space_after_the_tilde() {
    let e = error_of("x(); //~RL001\n");
    assert!(e.contains("needs a space"), "{e}");
    assert!(e.contains("`//~ RL001`"), "{e}");
}

#[test]
fn marker_with_nothing_fails() {
    assert!(error_of("x(); //~\n").contains("names no rule"));
    assert!(error_of("x(); //~   \r\n").contains("names no rule"));
}

#[test]
fn marker_bad_pins_fail() {
    assert!(error_of("x(); //~ RL001 regoin=3\n").contains("unknown pin `regoin`"));
    assert!(error_of("x(); //~ RL001 sink=abc\n").contains("needs a line number"));
    assert!(error_of("x(); //~ RL001 sink=\n").contains("needs a line number"));
    assert!(error_of("x(); //~ RL001 sink=0\n").contains("needs a line number"));
    assert!(error_of("x(); //~ RL001 sink=-4\n").contains("needs a line number"));
    assert!(error_of("x(); //~ region=3 RL001\n").contains("before any rule"));
    assert!(error_of("x(); //~ RL001 sink=3 RL002\n").contains("after a pin"));
}

#[test]
fn marker_twice_on_a_line_fails() {
    assert!(error_of("x(); //~ RL001 RL001\n").contains("marked twice"));
}

#[test]
fn marker_near_misses_fail() {
    assert!(error_of("x(); // ~ RL001\n").contains("no space between"));
    assert!(error_of("x(); // see //~ RL001\n").contains("inside another comment"));
    assert!(error_of("    //~ RL001\nx();\n").contains("must trail the code"));
}

#[test]
fn marker_in_a_string_literal_is_not_a_marker() {
    let text = "class A {\n  String a = \"//~ RL001\";\n  String b = \"\\\"//~ RL009\";\n  \
                char c = '\"'; String d = \"//~\"; //~ RL002\n}\n";
    assert_eq!(rules_of(text), vec![(4, vec!["RL002".to_string()])]);
}

#[test]
fn marker_in_a_text_block_or_block_comment_is_not_a_marker() {
    let text = "class A {\n  String a = \"\"\"\n    x(); //~ RL009\n    \\\"\"\" //~ nonsense\n    \
                \"\"\"; b.set(k); //~ RL001\n  /* y(); //~ RL009\n     //~ */ int z; //~ RL002\n  \
                /** javadoc //~ */\n}\n";
    assert_eq!(
        rules_of(text),
        vec![
            (5, vec!["RL001".to_string()]),
            (7, vec!["RL002".to_string()])
        ]
    );
}

#[test]
fn marker_after_a_char_literal_of_a_quote() {
    let text = "char q = '\\''; //~ RL001\nchar d = '\"'; //~ RL002\n";
    assert_eq!(
        rules_of(text),
        vec![
            (1, vec!["RL001".to_string()]),
            (2, vec!["RL002".to_string()])
        ]
    );
}

#[test]
fn marker_errors_carry_their_lines() {
    let e = markers_in("a(); //~ RL001\nb(); //~ RL09\nc(); //~RL001\n").unwrap_err();
    let lines: Vec<u32> = e.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![2, 3]);
}

#[test]
fn ordinary_comments_are_not_markers() {
    assert_eq!(
        rules_of("// retrylint:ignore RL001 -- reviewed\nx(); // RL001 in prose, ~/.m2, a~b\n"),
        vec![]
    );
}

#[test]
fn themes_split_grouping_directories_only() {
    let mut all = Vec::new();
    themes(Path::new("fixtures"), &mut all);
    let names: Vec<String> = all
        .iter()
        .map(|p| retrylint::discovery::display_path(p))
        .collect();
    // A directory with Java files of its own is one theme, sub-directories included.
    assert!(names.contains(&"fixtures/flow".to_string()), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("fixtures/flow/")),
        "{names:?}"
    );
    // A grouping directory is not a theme; its children are.
    assert!(
        !names.contains(&"fixtures/frameworks".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"fixtures/frameworks/kafka".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"fixtures/frameworks/failsafe".to_string()),
        "{names:?}"
    );
    assert!(!names.contains(&"fixtures/frameworks/failsafe/chain".to_string()));
}

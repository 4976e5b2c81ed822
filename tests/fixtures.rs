//! The fixture harness: every `//~ RLxxx` marker under `fixtures/` is an expected finding on
//! that line, and every finding must have a marker. Missing and extra findings both fail.
//! Markers of rules that this build does not implement yet are listed, not compared.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Expected {
    path: String,
    line: u32,
    rule: String,
}

struct Pin {
    at: Expected,
    key: String,
    line: u32,
}

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            java_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "java") {
            out.push(p);
        }
    }
}

fn markers(root: &Path) -> (BTreeSet<Expected>, Vec<Pin>) {
    let mut files = Vec::new();
    java_files(root, &mut files);
    let mut expected = BTreeSet::new();
    let mut pins = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let path = retrylint::discovery::display_path(&f);
        for (i, line) in text.lines().enumerate() {
            let Some((_, marker)) = line.split_once("//~") else {
                continue;
            };
            let mut rules = Vec::new();
            for tok in marker.split_whitespace() {
                if let Some((k, v)) = tok.split_once('=') {
                    for r in &rules {
                        pins.push(Pin {
                            at: Expected {
                                path: path.clone(),
                                line: i as u32 + 1,
                                rule: String::clone(r),
                            },
                            key: k.to_string(),
                            line: v.parse().expect("pin line number"),
                        });
                    }
                } else if tok.starts_with("RL") {
                    rules.push(tok.to_string());
                    expected.insert(Expected {
                        path: path.clone(),
                        line: i as u32 + 1,
                        rule: tok.to_string(),
                    });
                } else {
                    break;
                }
            }
        }
    }
    (expected, pins)
}

#[test]
fn fixtures_match_markers() {
    let root = Path::new("fixtures");
    let (expected_all, pins) = markers(root);
    let implemented: BTreeSet<&str> = retrylint::rules::ALL.iter().map(|r| r.id).collect();
    let (expected, pending): (BTreeSet<_>, BTreeSet<_>) = expected_all
        .into_iter()
        .partition(|e| implemented.contains(e.rule.as_str()));
    let report = retrylint::check(&retrylint::Options::new(vec![root.to_path_buf()]))
        .expect("fixtures scan");
    let actual: BTreeSet<Expected> = report
        .findings
        .iter()
        .map(|f| Expected {
            path: f.path.clone(),
            line: f.line,
            rule: f.rule.id.to_string(),
        })
        .collect();
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    let mut msg = String::new();
    for m in &missing {
        msg.push_str(&format!("  missing  {}:{} {}\n", m.path, m.line, m.rule));
    }
    for e in &extra {
        let f = report
            .findings
            .iter()
            .find(|f| f.path == e.path && f.line == e.line)
            .unwrap();
        msg.push_str(&format!(
            "  extra    {}:{} {}  {}\n",
            e.path, e.line, e.rule, f.message
        ));
    }
    for p in &pins {
        if !implemented.contains(p.at.rule.as_str()) {
            continue;
        }
        let Some(f) = report
            .findings
            .iter()
            .find(|f| f.path == p.at.path && f.line == p.at.line && f.rule.id == p.at.rule)
        else {
            continue;
        };
        let lines: Vec<u32> = match p.key.as_str() {
            "region" => f.regions.iter().map(|r| r.line).collect(),
            "sink" => f.sinks.iter().map(|r| r.line).collect(),
            other => panic!("unknown pin `{other}` at {}:{}", p.at.path, p.at.line),
        };
        if !lines.contains(&p.line) {
            msg.push_str(&format!(
                "  pin      {}:{} {} {}={} but found {:?}\n",
                p.at.path, p.at.line, p.at.rule, p.key, p.line, lines
            ));
        }
    }
    if !pending.is_empty() {
        eprintln!(
            "{} marker(s) of rules not implemented yet were not compared:",
            pending.len()
        );
        for p in &pending {
            eprintln!("  {}:{} {}", p.path, p.line, p.rule);
        }
    }
    assert!(expected.len() > 20, "the fixture tree lost its markers");
    assert!(
        msg.is_empty(),
        "fixture findings differ from the markers:\n{msg}"
    );
}

//! SARIF 2.1.0 for GitHub code scanning: one run, every rule with its help, results with
//! related locations, a code flow from source to sink, and GitHub's `primaryLocationLineHash`.

use crate::{Finding, Related, Report};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Percent-encode a relative path for `artifactLocation.uri`. A `:` before the first `/` would
/// make the path read as a URI scheme (`c:/x.java`, `https:x.java`), an absolute URI: it is
/// encoded there. On Unix a shown path holds `%` only as an escape (`%5C` for a backslash in a
/// file name, see [`crate::discovery::display_path`]), which is kept as it is.
pub fn uri_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let bytes = path.as_bytes();
    let mut first_segment = true;
    for (i, &b) in bytes.iter().enumerate() {
        let c = b as char;
        if c == '/' {
            first_segment = false;
        }
        let escape = c == '%'
            && cfg!(unix)
            && bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        let plain = c.is_ascii_alphanumeric() || "-._~/!$&'()*+,;=@".contains(c);
        if escape || plain || (c == ':' && !first_segment) {
            out.push(c);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// GitHub's line hashes (codeql-action `fingerprints.ts`): a rolling hash over the next 100
/// non-space characters from the start of each line, with a per-value occurrence counter.
/// Returns the hash of every line, 1-based, as `hex:count`.
pub fn line_hashes(text: &str) -> Vec<String> {
    const BLOCK: usize = 100;
    const MOD: i64 = 37;
    let first_mod = (0..BLOCK).fold(1i64, |acc, _| acc.wrapping_mul(MOD));
    let mut window = [0i64; BLOCK];
    let mut line_numbers = [-1i64; BLOCK];
    let mut hash: i64 = 0;
    let mut index = 0usize;
    let mut line_number: i64 = 0;
    let mut line_start = true;
    let mut prev_cr = false;
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut out: BTreeMap<i64, String> = BTreeMap::new();

    let mut output = |hash: i64,
                      index: usize,
                      line_numbers: &mut [i64; BLOCK],
                      out: &mut BTreeMap<i64, String>| {
        let value = format!("{:x}", hash as u64);
        let n = counts.entry(value.clone()).or_insert(0);
        *n += 1;
        out.insert(line_numbers[index], format!("{value}:{n}"));
        line_numbers[index] = -1;
    };
    let update = |hash: &mut i64, window: &mut [i64; BLOCK], index: &mut usize, current: i64| {
        let begin = window[*index];
        window[*index] = current;
        *hash = MOD
            .wrapping_mul(*hash)
            .wrapping_add(current)
            .wrapping_sub(first_mod.wrapping_mul(begin));
        *index = (*index + 1) % BLOCK;
    };

    const EOF: i64 = 65535;
    let units = text
        .encode_utf16()
        .map(|u| u as i64)
        .chain(std::iter::once(EOF));
    for mut current in units {
        if current == ' ' as i64 || current == '\t' as i64 || (prev_cr && current == '\n' as i64) {
            prev_cr = false;
            continue;
        }
        if current == '\r' as i64 {
            current = '\n' as i64;
            prev_cr = true;
        } else {
            prev_cr = false;
        }
        if line_numbers[index] != -1 {
            output(hash, index, &mut line_numbers, &mut out);
        }
        if line_start {
            line_start = false;
            line_number += 1;
            line_numbers[index] = line_number;
        }
        if current == '\n' as i64 {
            line_start = true;
        }
        update(&mut hash, &mut window, &mut index, current);
    }
    for _ in 0..BLOCK {
        if line_numbers[index] != -1 {
            output(hash, index, &mut line_numbers, &mut out);
        }
        update(&mut hash, &mut window, &mut index, 0);
    }
    out.into_values().collect()
}

/// How report paths (relative to the working directory, or absolute) become artifact URIs.
pub struct Uris {
    /// The absolute directory `%SRCROOT%` stands for (the repository root); `None`: the working
    /// directory, with report paths used as they are.
    root: Option<PathBuf>,
    cwd: PathBuf,
}

impl Uris {
    pub fn new(root: Option<&Path>) -> Uris {
        let cwd = std::env::current_dir().unwrap_or_default();
        Uris {
            cwd: std::fs::canonicalize(&cwd).unwrap_or(cwd),
            root: root.map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.to_path_buf())),
        }
    }

    /// `artifactLocation` of `path`: relative to `%SRCROOT%`, or an absolute `file:` URI for a
    /// file outside it.
    fn location(&self, path: &str) -> Value {
        let Some(root) = &self.root else {
            return json!({ "uri": uri_encode(path), "uriBaseId": "%SRCROOT%" });
        };
        let abs = self.cwd.join(path);
        let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
        match abs.strip_prefix(root) {
            Ok(rel) => json!({
                "uri": uri_encode(&rel.to_string_lossy().replace('\\', "/")),
                "uriBaseId": "%SRCROOT%",
            }),
            Err(_) => json!({ "uri": file_uri(&abs) }),
        }
    }

    /// `originalUriBaseIds`: where `%SRCROOT%` is, when it is not the working directory.
    fn base_ids(&self) -> Option<Value> {
        self.root
            .as_ref()
            .map(|r| json!({ "%SRCROOT%": { "uri": format!("{}/", file_uri(r).trim_end_matches('/')) } }))
    }
}

/// An absolute path as a `file:` URI.
fn file_uri(abs: &Path) -> String {
    let p = abs.to_string_lossy().replace('\\', "/");
    let p = if p.starts_with('/') {
        p
    } else {
        format!("/{p}")
    };
    format!("file://{}", uri_encode(&p))
}

fn physical(
    uris: &Uris,
    path: &str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
) -> Value {
    json!({
        "artifactLocation": uris.location(path),
        "region": {
            "startLine": line,
            "startColumn": column,
            "endLine": end_line,
            "endColumn": end_column.max(if end_line == line { column + 1 } else { 1 }),
        }
    })
}

fn related_physical(uris: &Uris, r: &Related) -> Value {
    physical(uris, &r.path, r.line, r.column, r.end_line, r.end_column)
}

fn rule_value(r: &crate::rules::Rule) -> Value {
    json!({
        "id": r.id,
        "name": r.name,
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": r.summary },
        "help": { "text": crate::rules::explain(r), "markdown": r.markdown() },
        "helpUri": format!("https://github.com/retrylint/retrylint/blob/main/README.md#{}", r.id.to_lowercase()),
        "defaultConfiguration": { "level": r.level.as_str() },
        "properties": {
            "tags": ["correctness", "reliability", "idempotency"],
            "precision": "high",
            "problem.severity": r.level.as_str(),
        }
    })
}

fn result(
    f: &Finding,
    rule_index: usize,
    hashes: &HashMap<&str, Vec<String>>,
    uris: &Uris,
) -> Value {
    let mut related = Vec::new();
    let mut refs = Vec::new();
    let mut id = 0;
    for s in &f.sinks {
        id += 1;
        refs.push(format!("[the key sink]({id})"));
        related.push(json!({ "id": id, "physicalLocation": related_physical(uris, s), "message": { "text": s.message } }));
    }
    for (i, r) in f.regions.iter().enumerate() {
        id += 1;
        // The message names at most three regions; the others are related locations only.
        if i < crate::findings::message::REGIONS_NAMED {
            refs.push(format!("[the region]({id})"));
        }
        related.push(json!({ "id": id, "physicalLocation": related_physical(uris, r), "message": { "text": r.message } }));
    }
    if let Some(v) = &f.via {
        id += 1;
        refs.push(format!("[where it is evaluated]({id})"));
        related.push(json!({ "id": id, "physicalLocation": related_physical(uris, v), "message": { "text": v.message } }));
    }
    let text = if refs.is_empty() {
        sarif_escape(&f.message)
    } else {
        // The message is a sentence of its own, ended before the links.
        let message = sarif_escape(&f.message);
        let stop = if message.trim_end().ends_with(['.', '!', '?']) {
            ""
        } else {
            "."
        };
        format!("{}{stop} See {}.", message.trim_end(), refs.join(", "))
    };
    // The code flow, every step with what it does there: from the per-attempt value through the
    // calls on its path to the sink, or from the region (the scheduler) to the call it reaches.
    let flow: Vec<Value> = f
        .steps
        .iter()
        .map(|s| json!({ "location": { "physicalLocation": related_physical(uris, s), "message": { "text": s.message } } }))
        .collect();
    let line_hash = hashes
        .get(f.path.as_str())
        .and_then(|h| h.get(f.line as usize - 1))
        .cloned()
        .unwrap_or_default();
    let mut fingerprints = serde_json::Map::new();
    if !line_hash.is_empty() {
        fingerprints.insert("primaryLocationLineHash".into(), Value::String(line_hash));
    }
    fingerprints.insert("retrylint/v1".into(), Value::String(f.fingerprint.clone()));
    let mut v = json!({
        "ruleId": f.rule.id,
        "ruleIndex": rule_index,
        "level": f.level.as_str(),
        "message": { "text": text },
        "locations": [ { "physicalLocation": physical(uris, &f.path, f.line, f.column, f.end_line, f.end_column) } ],
        "relatedLocations": related,
        "partialFingerprints": fingerprints,
    });
    // The catalogue rows that made the finding, by their part in it.
    if !f.rows.is_empty() {
        v["properties"] = json!({ "retrylint/rows": f.rows });
    }
    // A diagnostic about a suppression (RL100, RL101) has no flow.
    if !flow.is_empty() {
        v["codeFlows"] = json!([ { "threadFlows": [ { "locations": flow } ] } ]);
    }
    v
}

/// The run's invocation: its notifications and, in its properties, the configuration that shaped
/// it and how many places the analysis cut short.
fn invocation(report: &Report, notifications: Vec<Value>) -> Value {
    let mut v = json!({
        "executionSuccessful": true,
        "toolExecutionNotifications": notifications,
    });
    let s = &report.summary;
    if s.config.is_some() || s.incomplete > 0 || s.files_gitignored > 0 {
        let mut properties = json!({ "incomplete": s.incomplete });
        if let Some(c) = &s.config {
            properties["configuration"] = json!(c);
        }
        if s.files_gitignored > 0 {
            properties["filesGitignored"] = json!(s.files_gitignored);
        }
        v["properties"] = properties;
    }
    v
}

/// Square brackets in a SARIF message would read as link syntax.
fn sarif_escape(s: &str) -> String {
    s.replace('[', "\\[").replace(']', "\\]")
}

pub fn render(report: &Report, category: Option<&str>, uris: &Uris) -> String {
    let rules: Vec<Value> = crate::rules::ALL.iter().map(|r| rule_value(r)).collect();
    let hashes: HashMap<&str, Vec<String>> = report
        .texts
        .iter()
        .map(|(p, t)| {
            // GitHub hashes the file as it decodes it, not as code frames show it.
            (p.as_str(), line_hashes(report.not_utf8.get(p).unwrap_or(t)))
        })
        .collect();
    // Suppressed findings are results too, marked `inSource` with the reason as justification.
    let mut all: Vec<(&Finding, Option<&crate::Suppressed>)> = report
        .findings
        .iter()
        .map(|f| (f, None))
        .chain(report.suppressed.iter().map(|s| (&s.finding, Some(s))))
        .collect();
    all.sort_by(|(a, _), (b, _)| {
        (&a.path, a.line, a.column, a.rule.id).cmp(&(&b.path, b.line, b.column, b.rule.id))
    });
    let results: Vec<Value> = all
        .into_iter()
        .map(|(f, suppressed)| {
            let idx = crate::rules::ALL
                .iter()
                .position(|r| r.id == f.rule.id)
                .unwrap_or(0);
            let mut v = result(f, idx, &hashes, uris);
            if let Some(s) = suppressed {
                let mut sup = json!({ "kind": "inSource" });
                if let Some(r) = &s.reason {
                    sup["justification"] = json!(r);
                }
                v["suppressions"] = json!([sup]);
            }
            v
        })
        .collect();
    let notifications: Vec<Value> = report
        .errors
        .iter()
        .map(|e| {
            let mut loc = json!({ "artifactLocation": uris.location(&e.path) });
            if let Some(l) = e.line {
                loc["region"] = json!({ "startLine": l });
            }
            json!({
                "level": e.severity,
                "message": { "text": format!("{}: {}", e.path, e.message) },
                "locations": [ { "physicalLocation": loc } ],
            })
        })
        .collect();
    let mut run = json!({
        "tool": {
            "driver": {
                "name": "retrylint",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/retrylint/retrylint",
                "rules": rules,
            }
        },
        "columnKind": "utf16CodeUnits",
        "results": results,
        "invocations": [ invocation(report, notifications) ],
    });
    if let Some(b) = uris.base_ids() {
        run["originalUriBaseIds"] = b;
    }
    if let Some(c) = category {
        run["automationDetails"] = json!({ "id": format!("{}/", c.trim_end_matches('/')) });
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [ run ],
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_uris() {
        assert_eq!(
            uri_encode("src/a b/Ü#%.java"),
            "src/a%20b/%C3%9C%23%25.java"
        );
        assert_eq!(uri_encode("c:/x.java"), "c%3A/x.java");
        assert_eq!(uri_encode("https:x.java"), "https%3Ax.java");
        assert_eq!(uri_encode("a/b:c.java"), "a/b:c.java");
        assert_eq!(uri_encode("acme%5CBilling.java"), "acme%5CBilling.java");
        assert_eq!(uri_encode("100%25.java"), "100%25.java");
    }

    /// Vectors from github/codeql-action `src/fingerprints.test.ts`.
    #[test]
    fn line_hashes_match_github() {
        assert_eq!(line_hashes(""), vec!["c129715d7a2bc9a3:1"]);
        assert_eq!(
            line_hashes(" a\nb\n  \t\tc\n d"),
            vec![
                "271789c17abda88f:1",
                "54703d4cd895b18:1",
                "180aee12dab6264:1",
                "a23a3dc5e078b07b:1"
            ]
        );
        let lf = vec![
            "e9496ae3ebfced30:1",
            "fb7c023a8b9ccb3f:1",
            "ce8ba1a563dcdaca:1",
            "e20e36e16fcb0cc8:1",
            "b3edc88f2938467e:1",
            "c8e28b0b4002a3a0:1",
            "c129715d7a2bc9a3:1",
        ];
        assert_eq!(
            line_hashes(" hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n"),
            lf
        );
        assert_eq!(
            line_hashes(" hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r"),
            lf
        );
        let h = line_hashes(&"Lorem ipsum dolor sit amet.\n".repeat(10));
        assert_eq!(
            (h.len(), h[5].as_str(), h[6].as_str(), h[10].as_str()),
            (
                11,
                "a7f2ff13bc495cf2:6",
                "a7f2ff1481e87703:1",
                "c129715d7a2bc9a3:1"
            )
        );
    }

    /// A file that is not UTF-8 is hashed as GitHub's upload action reads it: a Node stream
    /// decoded as UTF-8, each invalid sequence one U+FFFD (not one `?` per byte, as code frames
    /// show it). The expected values were computed with the upload action's algorithm run by
    /// Node on these bytes written to a file: `node gh_hash.js unit.java LINE` for each line
    /// (the tester's port of codeql-action `fingerprints.ts`, which reads the file with
    /// `fs.createReadStream(path, "utf8")`).
    #[test]
    fn line_hashes_of_a_file_that_is_not_utf8_match_github() {
        let bytes: &[u8] = b"class A { // f\xfcr R\xfcckbuchungen\n\
            \x20 String s = \"\xe2\x82\"; /* truncated euro */\n\
            \x20 // lone continuation \x80\x80 and overlong \xc0\xaf and surrogate \xed\xa0\x80\n\
            \x20 // beyond Unicode \xf4\x90\x80\x80, \xf5\xff, a valid \xe2\x82\xac \xf0\x9f\x98\x80\r\n\
            \x20 // truncated four-byte \xf0\x9f\x98\n\
            }\n\xe2";
        let text = crate::java::github_text(bytes).expect("not UTF-8");
        assert_eq!(
            line_hashes(&text),
            vec![
                "86bddb61d964d737:1",
                "eda419e53afcc93d:1",
                "fcb7c2036852554a:1",
                "736ebccaed4ac2d7:1",
                "98f1307e1da6eeb3:1",
                "18d461bf0afe6973:1",
                "8989dec65f08d110:1",
            ]
        );
        // The text code frames show (one `?` per byte) hashes differently.
        assert_ne!(
            line_hashes(&crate::java::offset_text(bytes)),
            line_hashes(&text)
        );
        assert_eq!(crate::java::github_text(b"class A {}\n"), None);
    }
}

//! An application's settings (`application.yml`, `application.properties` and their profile
//! variants under `src/main/resources/` or `config/` of a build module), read as flat keys, for
//! the few settings that decide whether a retry can fire (Resilience4j's aspect order), and
//! Quartz's `quartz.properties` (whether its job store is clustered).
//!
//! Keys are compared as Spring Boot's relaxed binding compares them: lowercase, without `-` and
//! `_` (`circuit-breaker-aspect-order` is `circuitBreakerAspectOrder`). YAML is read by
//! indentation only (nested keys joined with `.`, also inside flow mappings
//! `retry: { retry-aspect-order: 2 }`, on one line or several; a list of scalars — block `- a`
//! items or a flow `[a, b]` — is one value joined with `,`, as a `.properties` file writes it,
//! and so are indexed keys `key[0]=a`; lists of mappings and multi-line scalars are skipped),
//! which is all such settings need; nothing is evaluated.

use super::app_profiles::{Document, active_profiles, split_documents};
use std::collections::BTreeMap;
use std::path::Path;

/// Settings files larger than this are not read.
const MAX_SETTINGS_FILE: u64 = 1 << 20;
/// At most this many settings files per directory are read.
const MAX_SETTINGS_FILES: usize = 64;
/// Directories of a module that hold its settings files.
/// Lowest precedence first: a later file's value wins for the same key (MicroProfile Config's
/// `META-INF/microprofile-config.properties` has a lower ordinal than Quarkus's
/// `application.properties`).
const SETTINGS_DIRS: &[&str] = &[
    "src/main/resources/META-INF",
    "src/main/resources",
    "config",
];

/// A module's application settings: normalized key → value as written.
#[derive(Clone, Debug, Default)]
pub struct AppSettings {
    /// Every settings document with every profile switched on: the documents that need no
    /// profile, then those of profile files (`application-prod.yml`) and profile documents
    /// (`spring.config.activate.on-profile`), whose values win for the same key.
    pub all: BTreeMap<String, String>,
    /// What the application runs with by its settings files alone: the documents that need no
    /// profile (`application.yml`, `application.properties`, `quartz.properties`), then those
    /// of the profiles they switch on (`spring.profiles.active`, see [`super::app_profiles`]).
    pub base: BTreeMap<String, String>,
}

/// The settings of the module in `dir`.
pub fn read_settings(dir: &Path) -> AppSettings {
    let mut docs: Vec<Document> = Vec::new();
    for sub in SETTINGS_DIRS {
        let at = dir.join(sub);
        // Never through a symbolic link the checkout provides.
        if !real_dirs(dir, sub) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        let mut files: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| is_settings_file(p))
            .collect();
        files.sort();
        // A module has a handful; a directory of thousands is not an application's settings.
        files.truncate(MAX_SETTINGS_FILES);
        for f in files {
            let Some(text) = read_regular(&f) else {
                continue;
            };
            let yaml = f.extension().is_some_and(|e| e == "yml" || e == "yaml");
            // `application-chaos.yml`: the documents of profile `chaos`.
            let profile = f
                .file_stem()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix("application-"))
                .map(String::from);
            for part in split_documents(&text, yaml) {
                let pairs = if yaml {
                    yaml_pairs(&part)
                } else {
                    properties_pairs(&part)
                };
                docs.push(Document::new(pairs, profile.clone()));
            }
        }
    }
    let active = active_profiles(&docs);
    let mut out = AppSettings::default();
    let (plain, profiled): (Vec<&Document>, Vec<&Document>) =
        docs.iter().partition(|d| d.unconditional());
    for d in plain.iter().chain(&profiled) {
        let default_run = d.holds(&active);
        for (k, v) in &d.pairs {
            if default_run {
                out.base.insert(k.clone(), v.clone());
            }
            out.all.insert(k.clone(), v.clone());
        }
    }
    out
}

/// Is every directory from `dir` down to `dir/sub` a directory, none a symbolic link?
fn real_dirs(dir: &Path, sub: &str) -> bool {
    let mut at = dir.to_path_buf();
    sub.split('/').all(|part| {
        at.push(part);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir())
    })
}

fn is_settings_file(p: &Path) -> bool {
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    // Quartz reads its own `quartz.properties` (`org.quartz.jobStore.isClustered`), and
    // MicroProfile Config its default source `META-INF/microprofile-config.properties`.
    name == "quartz.properties"
        || name == "microprofile-config.properties"
            && p.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|d| d == "META-INF")
        || name.starts_with("application")
            && [".yml", ".yaml", ".properties"]
                .iter()
                .any(|e| name.ends_with(e))
}

/// A regular file's text, not through a symbolic link, at most [`MAX_SETTINGS_FILE`] bytes.
fn read_regular(p: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(p).ok()?;
    if !meta.is_file() || meta.len() > MAX_SETTINGS_FILE {
        return None;
    }
    let bytes = std::fs::read(p).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Lowercase, without `-` and `_`: how Spring Boot's relaxed binding matches a setting.
pub fn normalize_key(k: &str) -> String {
    k.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// `key=value` and `key: value` lines of a `.properties` file. Indexed keys (`key[0]=a`,
/// `key[1]=b`) are one value, `a,b`.
fn properties_pairs(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'));
    for l in lines {
        let Some(at) = l.find(['=', ':']) else {
            continue;
        };
        let (key, value) = (l[..at].trim(), unquote(l[at + 1..].trim()));
        match list_item_key(key) {
            Some(base) => push_item(&mut out, base, &value),
            None => out.push((key.to_string(), value)),
        }
    }
    out
}

/// The key of a list item written with an index (`retry-exceptions[0]` → `retry-exceptions`).
fn list_item_key(key: &str) -> Option<&str> {
    let open = key.strip_suffix(']')?.rfind('[')?;
    key[open + 1..key.len() - 1]
        .chars()
        .all(|c| c.is_ascii_digit())
        .then(|| &key[..open])
}

/// Appends `item` to the list value of `key`: to the last pair when it has that key, else as a
/// new pair.
fn push_item(out: &mut Vec<(String, String)>, key: &str, item: &str) {
    match out.last_mut() {
        Some((k, v)) if k == key => {
            v.push(',');
            v.push_str(item);
        }
        _ => out.push((key.to_string(), item.to_string())),
    }
}

/// The scalar settings of a YAML file as dotted keys. Several documents (`---`) are read as one.
fn yaml_pairs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The keys of the enclosing mappings, with their indentation.
    let mut path: Vec<(usize, String)> = Vec::new();
    // The key whose block list is being read (its full path), and that list's indentation.
    let mut list: Option<(String, usize)> = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if content.starts_with("---") {
            path.clear();
            list = None;
            continue;
        }
        let indent = line.len() - content.len();
        if let Some(item) = content
            .strip_prefix("- ")
            .or((content == "-").then_some(""))
        {
            // A scalar item of a list whose key is the last one opened, one level out.
            let item = item.split(" #").next().unwrap_or("").trim();
            let scalar = !item.is_empty() && !item.contains(": ") && !item.ends_with(':');
            match (&list, path.last()) {
                (Some((key, at)), _) if *at == indent && scalar => {
                    push_item(&mut out, key, &unquote(item));
                }
                (None, Some((i, _))) if *i <= indent && scalar => {
                    let key = path
                        .iter()
                        .map(|(_, k)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(".");
                    out.push((key.clone(), unquote(item)));
                    list = Some((key, indent));
                }
                _ => list = None,
            }
            continue;
        }
        list = None;
        let Some(colon) = content
            .find(": ")
            .or_else(|| content.ends_with(':').then(|| content.len() - 1))
        else {
            continue;
        };
        while path.last().is_some_and(|(i, _)| *i >= indent) {
            path.pop();
        }
        let key = unquote(content[..colon].trim());
        let value = content[colon + 1..].trim();
        let value = value.split(" #").next().unwrap_or("").trim();
        if value.is_empty() {
            path.push((indent, key));
            continue;
        }
        let full = path
            .iter()
            .map(|(_, k)| k.as_str())
            .chain([key.as_str()])
            .collect::<Vec<_>>()
            .join(".");
        // A flow collection (`[a, b]`, `{ retry-aspect-order: 2 }`), possibly over several lines.
        if value.starts_with(['[', '{']) {
            let mut flow = value.to_string();
            // Read ahead; a collection left open is read from its own line only.
            let mut ahead = lines.clone();
            let mut taken = 0;
            while !flow_closed(&flow) && taken < MAX_FLOW_LINES {
                let Some(next) = ahead.next() else { break };
                flow.push(' ');
                flow.push_str(next.trim().split(" #").next().unwrap_or(""));
                taken += 1;
            }
            if flow_closed(&flow) {
                lines = ahead;
            } else {
                flow = value.to_string();
            }
            flow_pairs(&full, &flow, &mut out);
            continue;
        }
        out.push((full, unquote(value)));
    }
    out
}

/// Flow collections nested deeper than this are not read.
const MAX_FLOW_DEPTH: usize = 32;
/// A flow collection is looked for on at most this many lines after its key's.
const MAX_FLOW_LINES: usize = 256;

/// A YAML flow collection, as far as settings need it.
enum Flow {
    Scalar(String),
    Map(Vec<(String, Flow)>),
    List(Vec<Flow>),
}

/// Are the brackets of a flow collection's text balanced (outside quotes)?
fn flow_closed(text: &str) -> bool {
    let mut depth = 0i64;
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth <= 0
}

/// The settings of flow collection `text` written under the dotted key `key`: a mapping's
/// scalar entries as `key.entry` (nested mappings joined with `.`), a list of scalars as one
/// value joined with `,` (as a `.properties` file writes it); lists holding collections, and
/// text that is no flow collection, give nothing.
fn flow_pairs(key: &str, text: &str, out: &mut Vec<(String, String)>) {
    let mut r = FlowReader {
        s: text.as_bytes(),
        i: 0,
    };
    if let Some(v) = r.value(0) {
        emit_flow(key, v, out);
    }
}

fn emit_flow(key: &str, v: Flow, out: &mut Vec<(String, String)>) {
    match v {
        Flow::Scalar(s) => out.push((key.to_string(), s)),
        Flow::Map(entries) => {
            for (k, v) in entries {
                emit_flow(&format!("{key}.{k}"), v, out);
            }
        }
        Flow::List(items) => {
            let scalars: Option<Vec<String>> = items
                .into_iter()
                .map(|i| match i {
                    Flow::Scalar(s) => Some(s),
                    _ => None,
                })
                .collect();
            if let Some(items) = scalars {
                let items: Vec<String> = items.into_iter().filter(|i| !i.is_empty()).collect();
                out.push((key.to_string(), items.join(",")));
            }
        }
    }
}

/// A reader of one flow collection: `None` for text it cannot read.
struct FlowReader<'a> {
    s: &'a [u8],
    i: usize,
}

impl FlowReader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Flow> {
        self.skip_ws();
        match self.peek()? {
            b'{' | b'[' if depth >= MAX_FLOW_DEPTH => None,
            b'{' => self.map(depth + 1),
            b'[' => self.list(depth + 1),
            _ => Some(Flow::Scalar(self.scalar(false)?)),
        }
    }

    /// `{ k: v, … }`; a key with no value (`{ a, b: 1 }`) is an empty scalar.
    fn map(&mut self, depth: usize) -> Option<Flow> {
        self.i += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_ws();
            match self.peek()? {
                b'}' => {
                    self.i += 1;
                    return Some(Flow::Map(entries));
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let k = self.scalar(true)?;
            self.skip_ws();
            let v = if self.peek() == Some(b':') {
                self.i += 1;
                self.skip_ws();
                match self.peek()? {
                    b',' | b'}' => Flow::Scalar(String::new()),
                    _ => self.value(depth)?,
                }
            } else {
                Flow::Scalar(String::new())
            };
            entries.push((k, v));
        }
    }

    /// `[ a, b, … ]`.
    fn list(&mut self, depth: usize) -> Option<Flow> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek()? {
                b']' => {
                    self.i += 1;
                    return Some(Flow::List(items));
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => items.push(self.value(depth)?),
            }
        }
    }

    /// A quoted or plain scalar. A plain one ends at `,`, `]` or `}`, and a key also at a `:`
    /// followed by a space or the end of the entry (`url: http://x` keeps its `://`).
    fn scalar(&mut self, key: bool) -> Option<String> {
        if let Some(q @ (b'"' | b'\'')) = self.peek() {
            let start = self.i + 1;
            let len = self.s.get(start..)?.iter().position(|c| *c == q)?;
            self.i = start + len + 1;
            return Some(String::from_utf8_lossy(&self.s[start..start + len]).into_owned());
        }
        let start = self.i;
        while let Some(c) = self.peek() {
            let ends_key = key
                && c == b':'
                && self
                    .s
                    .get(self.i + 1)
                    .is_none_or(|n| n.is_ascii_whitespace() || b",}]".contains(n));
            if b",[]{}".contains(&c) || ends_key {
                break;
            }
            self.i += 1;
        }
        if self.i == start {
            return None;
        }
        Some(
            String::from_utf8_lossy(&self.s[start..self.i])
                .trim()
                .to_string(),
        )
    }
}

fn unquote(v: &str) -> String {
    v.trim_matches(|c| c == '"' || c == '\'').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_keys_are_dotted_and_relaxed() {
        let y = "spring:\n  application:\n    name: pay\nresilience4j:\n  retry:\n    retry-aspect-order: 2 # inner\n  circuitbreaker:\n    circuitBreakerAspectOrder: 1\n    instances:\n      - name: x\n";
        let m: BTreeMap<String, String> = yaml_pairs(y)
            .into_iter()
            .map(|(k, v)| (normalize_key(&k), v))
            .collect();
        assert_eq!(
            m.get(&normalize_key("resilience4j.retry.retryAspectOrder")),
            Some(&"2".to_string())
        );
        assert_eq!(
            m.get(&normalize_key(
                "resilience4j.circuitbreaker.circuit-breaker-aspect-order"
            )),
            Some(&"1".to_string())
        );
        assert_eq!(m.get("spring.application.name"), Some(&"pay".to_string()));
    }

    #[test]
    fn scalar_lists_are_one_value() {
        let y = "resilience4j:\n  retry:\n    instances:\n      openf1:\n        max-attempts: 3\n        retry-exceptions:\n          - java.io.IOException\n          - \"java.net.SocketTimeoutException\" # slow\n        ignore-exceptions: [com.x.BadInput, com.x.Denied]\n      other:\n        routes:\n          - id: a\n            uri: b\n        base-config: default\n";
        let m: BTreeMap<String, String> = yaml_pairs(y)
            .into_iter()
            .map(|(k, v)| (normalize_key(&k), v))
            .collect();
        let get = |k: &str| m.get(&normalize_key(k)).map(String::as_str);
        assert_eq!(
            get("resilience4j.retry.instances.openf1.retry-exceptions"),
            Some("java.io.IOException,java.net.SocketTimeoutException")
        );
        assert_eq!(
            get("resilience4j.retry.instances.openf1.ignoreExceptions"),
            Some("com.x.BadInput,com.x.Denied")
        );
        assert_eq!(
            get("resilience4j.retry.instances.openf1.max-attempts"),
            Some("3")
        );
        // A list of mappings is not a value, and the keys after it are read as before.
        assert_eq!(get("resilience4j.retry.instances.other.routes"), None);
        assert_eq!(
            get("resilience4j.retry.instances.other.base-config"),
            Some("default")
        );
        let p = "a.retry-exceptions[0]=java.io.IOException\na.retry-exceptions[1]=java.net.ConnectException\na.b[x]=y\n";
        assert_eq!(
            properties_pairs(p),
            vec![
                (
                    "a.retry-exceptions".into(),
                    "java.io.IOException,java.net.ConnectException".into()
                ),
                ("a.b[x]".into(), "y".into())
            ]
        );
    }

    #[test]
    fn flow_mappings_and_sequences_are_read_like_blocks() {
        let y = "resilience4j:\n  retry: { retry-aspect-order: 2 } # outer\n  circuitbreaker: {circuitBreakerAspectOrder: 1, instances: {ledger: {base-config: \"strict\", record-exceptions: [java.io.IOException, 'java.util.concurrent.TimeoutException']}}}\n  bulkhead: {\n    bulkhead-aspect-order: 3,\n    instances: { a: { max-concurrent-calls: 5 } }\n  }\n  ratelimiter: { routes: [{ id: a }], url: http://pay.internal:8080/x, flag }\nspring:\n  application:\n    name: pay\n  broken: [never closed\n  after: broken\n";
        let m: BTreeMap<String, String> = yaml_pairs(y)
            .into_iter()
            .map(|(k, v)| (normalize_key(&k), v))
            .collect();
        let get = |k: &str| m.get(&normalize_key(k)).map(String::as_str);
        assert_eq!(get("resilience4j.retry.retryAspectOrder"), Some("2"));
        assert_eq!(
            get("resilience4j.circuitbreaker.circuit-breaker-aspect-order"),
            Some("1")
        );
        assert_eq!(
            get("resilience4j.circuitbreaker.instances.ledger.base-config"),
            Some("strict")
        );
        assert_eq!(
            get("resilience4j.circuitbreaker.instances.ledger.record-exceptions"),
            Some("java.io.IOException,java.util.concurrent.TimeoutException")
        );
        // Over several lines.
        assert_eq!(get("resilience4j.bulkhead.bulkheadAspectOrder"), Some("3"));
        assert_eq!(
            get("resilience4j.bulkhead.instances.a.max-concurrent-calls"),
            Some("5")
        );
        // A list of mappings is no value; a plain scalar keeps its `:`; a bare key is empty.
        assert_eq!(get("resilience4j.ratelimiter.routes"), None);
        assert_eq!(
            get("resilience4j.ratelimiter.url"),
            Some("http://pay.internal:8080/x")
        );
        assert_eq!(get("resilience4j.ratelimiter.flag"), Some(""));
        // The keys after every collection are read as before, also after one left open.
        assert_eq!(get("spring.application.name"), Some("pay"));
        assert_eq!(get("spring.after"), Some("broken"));
        // Malformed or deep text gives nothing and never panics.
        for bad in [
            "{", "{a", "{a: [b", "[}", "{: x}", "{a: b]", "'x", "{'k", "]",
        ] {
            let mut out = Vec::new();
            flow_pairs("k", bad, &mut out);
            assert!(out.iter().all(|(k, _)| k.starts_with('k')), "{bad}");
        }
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let mut out = Vec::new();
        flow_pairs("k", &deep, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn properties_lines() {
        let p = "# c\nresilience4j.retry.retry-aspect-order=2\nresilience4j.circuitbreaker.circuitBreakerAspectOrder : 1\n";
        let m = properties_pairs(p);
        assert_eq!(
            m[0],
            ("resilience4j.retry.retry-aspect-order".into(), "2".into())
        );
        assert_eq!(
            m[1],
            (
                "resilience4j.circuitbreaker.circuitBreakerAspectOrder".into(),
                "1".into()
            )
        );
    }
}

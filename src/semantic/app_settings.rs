//! An application's settings (`application.yml`, `application.properties` and their profile
//! variants under `src/main/resources/` or `config/` of a build module), read as flat keys, for
//! the few settings that decide whether a retry can fire (Resilience4j's aspect order), and
//! Quartz's `quartz.properties` (whether its job store is clustered).
//!
//! Keys are compared as Spring Boot's relaxed binding compares them: lowercase, without `-` and
//! `_` (`circuit-breaker-aspect-order` is `circuitBreakerAspectOrder`). YAML is read by
//! indentation only (nested keys joined with `.`; a list of scalars — block `- a` items or a
//! flow `[a, b]` — is one value joined with `,`, as a `.properties` file writes it, and so are
//! indexed keys `key[0]=a`; lists of mappings and multi-line values are skipped), which is all
//! such settings need; nothing is evaluated.

use std::collections::BTreeMap;
use std::path::Path;

/// Settings files larger than this are not read.
const MAX_SETTINGS_FILE: u64 = 1 << 20;
/// At most this many settings files per directory are read.
const MAX_SETTINGS_FILES: usize = 64;
/// Directories of a module that hold its settings files.
const SETTINGS_DIRS: &[&str] = &["src/main/resources", "config"];

/// A module's application settings: normalized key → value as written.
#[derive(Clone, Debug, Default)]
pub struct AppSettings {
    /// Every settings file, read in name order, so a later profile file's value
    /// (`application-prod.yml`) wins over `application.yml`'s for the same key.
    pub all: BTreeMap<String, String>,
    /// The files no profile has to switch on (`application.yml`, `application.properties`,
    /// `quartz.properties`): what the application runs with when no profile is active.
    pub base: BTreeMap<String, String>,
}

/// The settings of the module in `dir`.
pub fn read_settings(dir: &Path) -> AppSettings {
    let mut out = AppSettings::default();
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
            let pairs = if yaml {
                yaml_pairs(&text)
            } else {
                properties_pairs(&text)
            };
            let profile = f
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("application-"));
            for (k, v) in pairs {
                let k = normalize_key(&k);
                if !profile {
                    out.base.insert(k.clone(), v.clone());
                }
                out.all.insert(k, v);
            }
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
    // Quartz reads its own `quartz.properties` (`org.quartz.jobStore.isClustered`).
    name == "quartz.properties"
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
    for line in text.lines() {
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
        // A flow list of scalars: `[a, b]`.
        let value = match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            Some(items) => items
                .split(',')
                .map(|i| unquote(i.trim()))
                .filter(|i| !i.is_empty())
                .collect::<Vec<_>>()
                .join(","),
            None => unquote(value),
        };
        out.push((full, value));
    }
    out
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

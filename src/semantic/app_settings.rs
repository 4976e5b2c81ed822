//! An application's settings (`application.yml`, `application.properties` and their profile
//! variants under `src/main/resources/` or `config/` of a build module), read as flat keys, for
//! the few settings that decide whether a retry can fire (Resilience4j's aspect order), and
//! Quartz's `quartz.properties` (whether its job store is clustered).
//!
//! Keys are compared as Spring Boot's relaxed binding compares them: lowercase, without `-` and
//! `_` (`circuit-breaker-aspect-order` is `circuitBreakerAspectOrder`). YAML is read by
//! indentation only (nested keys joined with `.`, list items and multi-line values skipped),
//! which is all such settings need; nothing is evaluated.

use std::collections::BTreeMap;
use std::path::Path;

/// Settings files larger than this are not read.
const MAX_SETTINGS_FILE: u64 = 1 << 20;
/// At most this many settings files per directory are read.
const MAX_SETTINGS_FILES: usize = 64;
/// Directories of a module that hold its settings files.
const SETTINGS_DIRS: &[&str] = &["src/main/resources", "config"];

/// The settings of the module in `dir`: normalized key → value as written. Files are read in
/// name order, so a later profile file's value wins over `application.yml`'s for the same key.
pub fn read_settings(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
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
            out.extend(pairs.into_iter().map(|(k, v)| (normalize_key(&k), v)));
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

/// `key=value` and `key: value` lines of a `.properties` file.
fn properties_pairs(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|l| {
            let at = l.find(['=', ':'])?;
            Some((l[..at].trim().to_string(), unquote(l[at + 1..].trim())))
        })
        .collect()
}

/// The scalar settings of a YAML file as dotted keys. Several documents (`---`) are read as one.
fn yaml_pairs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The keys of the enclosing mappings, with their indentation.
    let mut path: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') || content.starts_with("- ") {
            continue;
        }
        if content.starts_with("---") {
            path.clear();
            continue;
        }
        let indent = line.len() - content.len();
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
        out.push((full, unquote(value)));
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

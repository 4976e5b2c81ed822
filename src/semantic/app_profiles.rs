//! Spring profiles in an application's settings: which documents hold in the default run.
//!
//! A settings document holds only under a profile when it sits in a profile's file
//! (`application-chaos.yml`) or names one (`spring.config.activate.on-profile: chaos`, or the
//! older `spring.profiles: chaos`, in a `---` document of `application.yml`, or after a `#---`
//! line of a `.properties` file). The application runs with the profiles its unconditional
//! documents switch on — `spring.profiles.active`, `spring.profiles.include`, and the members
//! of their `spring.profiles.group.<name>` — or, with none, with the default profile
//! (`spring.profiles.default`, else `default`). Profiles switched on from outside (an
//! environment variable, a command-line flag) cannot be seen: the default run is what the
//! settings files alone make.

use super::app_settings::normalize_key;
use std::collections::BTreeSet;

/// One settings document: its pairs (keys normalized) and the profiles it needs, if any (the
/// file's profile and the document's own condition, both to hold).
#[derive(Debug, Default)]
pub(super) struct Document {
    pub pairs: Vec<(String, String)>,
    pub file_profile: Option<String>,
    pub condition: Option<String>,
}

impl Document {
    pub(super) fn new(pairs: Vec<(String, String)>, file_profile: Option<String>) -> Document {
        let pairs: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| (normalize_key(&k), v))
            .collect();
        let condition = ["spring.config.activate.on-profile", "spring.profiles"]
            .iter()
            .find_map(|k| {
                let k = normalize_key(k);
                pairs
                    .iter()
                    .rev()
                    .find(|(p, _)| *p == k)
                    .map(|(_, v)| v.clone())
            });
        Document {
            pairs,
            file_profile,
            condition,
        }
    }

    /// Does the document hold whatever profiles are on?
    pub(super) fn unconditional(&self) -> bool {
        self.file_profile.is_none() && self.condition.is_none()
    }

    /// Does the document hold with the profiles `active` switched on?
    pub(super) fn holds(&self, active: &BTreeSet<String>) -> bool {
        self.file_profile
            .as_ref()
            .is_none_or(|p| active.contains(p))
            && self.condition.as_ref().is_none_or(|c| matches(c, active))
    }
}

/// The profiles the unconditional documents switch on, with their groups' members; the
/// default profile when they switch on none.
pub(super) fn active_profiles(docs: &[Document]) -> BTreeSet<String> {
    let base = || docs.iter().filter(|d| d.unconditional());
    let values = |key: &str| -> Vec<String> {
        let key = normalize_key(key);
        base()
            .rev()
            .find_map(|d| d.pairs.iter().rev().find(|(k, _)| *k == key))
            .map(|(_, v)| names(v))
            .unwrap_or_default()
    };
    let mut on: BTreeSet<String> = values("spring.profiles.active").into_iter().collect();
    if on.is_empty() {
        on.extend(values("spring.profiles.default"));
        if on.is_empty() {
            on.insert("default".into());
        }
    }
    on.extend(values("spring.profiles.include"));
    // Groups, transitively (each profile expanded once).
    let mut todo: Vec<String> = on.iter().cloned().collect();
    while let Some(p) = todo.pop() {
        for member in values(&format!("spring.profiles.group.{p}")) {
            if on.insert(member.clone()) {
                todo.push(member);
            }
        }
    }
    on
}

/// A comma-separated list of profile names.
fn names(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A profile condition (`chaos`, `prod, eu`, `prod & !eu`, `staging | prod`) against the
/// profiles switched on; a list holds when one of its items does. Parentheses are read as
/// grouping `&` inside `|`, which is how they are written in practice.
fn matches(condition: &str, active: &BTreeSet<String>) -> bool {
    let cleaned: String = condition.chars().filter(|c| !"()".contains(*c)).collect();
    cleaned.split(',').any(|item| {
        item.split('|').any(|alt| {
            alt.split('&').all(|term| {
                let term = term.trim();
                match term.strip_prefix('!') {
                    Some(p) => !active.contains(p.trim()),
                    None => !term.is_empty() && active.contains(term),
                }
            })
        })
    })
}

/// Splits a settings file's text into its documents: at `---` lines in YAML, at `#---` or
/// `!---` lines in a `.properties` file.
pub(super) fn split_documents(text: &str, yaml: bool) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in text.lines() {
        let t = line.trim();
        let separator = if yaml {
            line.trim_start().starts_with("---")
        } else {
            t == "#---" || t == "!---"
        };
        if separator {
            out.push(String::new());
            continue;
        }
        let cur = out.last_mut().expect("one document at least");
        cur.push_str(line);
        cur.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(pairs: &[(&str, &str)], file_profile: Option<&str>) -> Document {
        Document::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            file_profile.map(String::from),
        )
    }

    #[test]
    fn with_nothing_switched_on_the_default_profile_is() {
        let docs = [doc(&[("a", "1")], None), doc(&[("a", "2")], Some("chaos"))];
        let on = active_profiles(&docs);
        assert_eq!(on, BTreeSet::from(["default".to_string()]));
        assert!(!docs[1].holds(&on));
    }

    #[test]
    fn active_include_and_groups_switch_profiles_on() {
        let docs = [
            doc(
                &[
                    ("spring.profiles.active", "prod"),
                    ("spring.profiles.include", "metrics"),
                    ("spring.profiles.group.prod", "proddb,chaos"),
                ],
                None,
            ),
            doc(&[("spring.config.activate.on-profile", "chaos")], None),
            doc(&[("spring.profiles", "dev")], None),
        ];
        let on = active_profiles(&docs);
        for p in ["prod", "metrics", "proddb", "chaos"] {
            assert!(on.contains(p), "{on:?}");
        }
        assert!(!on.contains("default"));
        assert!(docs[1].holds(&on));
        assert!(!docs[2].holds(&on));
    }

    #[test]
    fn conditions_are_lists_and_expressions() {
        let on: BTreeSet<String> = ["prod".to_string()].into();
        assert!(matches("dev, prod", &on));
        assert!(matches("staging | prod", &on));
        assert!(matches("prod & !eu", &on));
        assert!(!matches("prod & eu", &on));
        assert!(matches("!dev", &on));
        assert!(!matches("(dev | eu)", &on));
    }

    #[test]
    fn documents_split_at_their_separators() {
        assert_eq!(split_documents("a: 1\n---\nb: 2\n", true).len(), 2);
        assert_eq!(split_documents("a=1\n#---\nb=2\n", false).len(), 2);
        assert_eq!(split_documents("a=1\n# --- note\nb=2\n", false).len(), 1);
    }
}

//! Which exceptions a named retry retries, read from the application's settings (a row's
//! `exception_settings`), and whether an exception a method throws is one of them. A retry whose
//! every failure arrives as an exception it does not retry never runs its body again.
//!
//! Each application that runs the code and configures the framework's retries is asked; an
//! exception is left unretried only when every one of them leaves it so. Only what the settings
//! say for sure is used: a list the settings do not give (no list, a placeholder without a
//! default, a predicate class that decides in code) leaves every exception retried, and so does
//! a thrown class whose superclasses are not all known.

use crate::catalogue::{AnnotationRegion, ExceptionSettings};
use crate::java::ir::{Annotation, Expr};
use crate::semantic::{ClassRef, MethodId, Project, TypeRef, normalize_key};
use std::collections::BTreeMap;

/// The exceptions a retry instance retries: the listed classes and their subclasses (all when
/// `retry` is empty), except the ignored ones and theirs. One of the two lists is not empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetriedExceptions {
    /// The instance's name (`openf1`).
    pub instance: String,
    /// The settings that gave the retried and the ignored lists, as the catalogue spells them
    /// (with the configuration they were inherited from), and the lists.
    pub retry_setting: Option<String>,
    pub retry: Vec<String>,
    pub ignore_setting: Option<String>,
    pub ignore: Vec<String>,
}

/// What a retry does with an exception thrown inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It retries it (or it may: the exception's superclasses are not all known).
    Retried,
    /// The retried list names neither it nor a superclass.
    NotListed,
    /// The ignored list names it or a superclass.
    Ignored,
}

impl RetriedExceptions {
    /// The retried list for a message: `java.io.IOException`, `java.net.SocketTimeoutException`.
    pub fn listed(&self) -> String {
        self.retry
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The exceptions the retry annotation `a` (of row `r`) on method `id` retries in each
/// application that runs it and configures the row's retries (at least one), when the settings
/// of every one of them list them; `None` when in one of them every exception may be retried.
pub fn retried_exceptions(
    project: &Project,
    r: &AnnotationRegion,
    id: MethodId,
    a: &Annotation,
) -> Option<Vec<RetriedExceptions>> {
    let s = r.exception_settings.as_ref()?;
    let instance = a.args.iter().find_map(|(k, v)| match (k.as_deref(), v) {
        (Some(k), Expr::Str(name, _)) if k == s.instance_attribute => Some(name.clone()),
        _ => None,
    })?;
    // The settings prefix every key of the row shares (`resilience4j.retry`).
    let shared = common_prefix(&s.instance, &s.config);
    let apps = project.modules().settings_under(id.0, &shared);
    if apps.is_empty() {
        return None;
    }
    apps.into_iter()
        .map(|app| in_application(s, &instance, app))
        .collect()
}

/// The longest dotted prefix of both setting patterns, without a placeholder.
fn common_prefix(a: &str, b: &str) -> String {
    a.split('.')
        .zip(b.split('.'))
        .take_while(|(x, y)| x == y && !x.contains("{}"))
        .map(|(x, _)| x)
        .collect::<Vec<_>>()
        .join(".")
}

/// The exceptions retry instance `instance` retries by the settings `app` of one application;
/// `None` when every exception may be retried there.
fn in_application(
    s: &ExceptionSettings,
    instance: &str,
    app: &BTreeMap<String, String>,
) -> Option<RetriedExceptions> {
    let own = s.instance.replace("{}", instance);
    let setting =
        |prefix: &str, key: &str| app.get(&normalize_key(&format!("{prefix}.{key}"))).cloned();
    // The configuration the instance inherits from: its base, else the default one.
    let base = setting(&own, &s.base).unwrap_or_else(|| s.default_config.clone());
    let inherited = s.config.replace("{}", &base);
    let lookup = |key: &str| -> Option<(String, String)> {
        [&own, &inherited]
            .into_iter()
            .find_map(|prefix| setting(prefix, key).map(|v| (format!("{prefix}.{key}"), v)))
    };
    // A predicate class decides in code: the lists alone do not say what is retried.
    if s.opaque.iter().any(|k| lookup(k).is_some()) {
        return None;
    }
    let list = |key: &str| -> Option<Option<(String, Vec<String>)>> {
        match lookup(key) {
            None => Some(None),
            Some((k, v)) => Some(Some((k, class_list(&v)?))),
        }
    };
    let (retry, ignore) = (list(&s.retry)?, list(&s.ignore)?);
    let (retry_setting, retry) = retry.unzip();
    let (ignore_setting, ignore) = ignore.unzip();
    let (retry, ignore) = (retry.unwrap_or_default(), ignore.unwrap_or_default());
    if retry.is_empty() && ignore.is_empty() {
        return None;
    }
    Some(RetriedExceptions {
        instance: instance.to_string(),
        retry_setting,
        retry,
        ignore_setting,
        ignore,
    })
}

/// The class names of a list setting (`a, b`), qualified with `.` throughout, with a
/// `${VAR:default}` placeholder read as its default; `None` for a placeholder without one.
fn class_list(value: &str) -> Option<Vec<String>> {
    let value = value.trim();
    let value = match value.strip_prefix("${").and_then(|v| v.strip_suffix('}')) {
        Some(inner) => inner.split_once(':')?.1,
        None => value,
    };
    Some(
        value
            .split(',')
            // A nested class may be written by its binary name (`Outer$Inner`).
            .map(|c| c.trim().trim_end_matches(".class").replace('$', "."))
            .filter(|c| !c.is_empty())
            .collect(),
    )
}

/// What the applications' retries (`filters`, one per application) do with an exception of
/// type `written` (as written in class `at`) thrown inside the retry: one retries it unless
/// every superclass outside the project is a known class and no class of the whole chain is
/// listed, or one is ignored. Retried when one application retries it; else as the first
/// application decides.
pub fn verdict(
    project: &Project,
    s: &ExceptionSettings,
    filters: &[RetriedExceptions],
    at: ClassRef,
    written: &str,
) -> Verdict {
    let Some(chain) = superclasses(project, s, at, written) else {
        return Verdict::Retried;
    };
    let listed = |list: &[String]| list.iter().any(|c| chain.iter().any(|x| x == c));
    let one = |f: &RetriedExceptions| {
        if listed(&f.ignore) {
            Verdict::Ignored
        } else if f.retry.is_empty() || listed(&f.retry) {
            Verdict::Retried
        } else {
            Verdict::NotListed
        }
    };
    let verdicts: Vec<Verdict> = filters.iter().map(one).collect();
    if verdicts.is_empty() || verdicts.contains(&Verdict::Retried) {
        Verdict::Retried
    } else {
        verdicts[0]
    }
}

/// The class `written` and all its superclasses by qualified name, when every one outside the
/// project is among `known_classes`.
fn superclasses(
    project: &Project,
    s: &ExceptionSettings,
    at: ClassRef,
    written: &str,
) -> Option<Vec<String>> {
    let t = project.resolve_type(at.0, Some(at.1 as usize), written);
    let mut chain = Vec::new();
    let mut outside = Vec::new();
    match t {
        TypeRef::Project(c) => {
            for k in std::iter::once(c).chain(project.supertypes_of(c).iter().copied()) {
                let class = project.class(k);
                chain.push(class.fqn.to_string());
                for sup in &class.supertypes {
                    match project.resolve_type(k.0, Some(k.1 as usize), sup) {
                        TypeRef::Project(_) => {}
                        TypeRef::External(n) | TypeRef::Unknown(n) => outside.push(n),
                    }
                }
            }
        }
        TypeRef::External(n) | TypeRef::Unknown(n) => outside.push(n),
    }
    // An interface a project exception implements is never a listed exception class.
    let class_like = |n: &str| {
        let simple = n.rsplit('.').next().unwrap_or(n);
        ["Exception", "Error", "Throwable"]
            .iter()
            .any(|e| simple.ends_with(e))
    };
    let mut found = false;
    for n in outside.iter().filter(|n| class_like(n)) {
        chain.extend(known_chain(s, n)?.iter().cloned());
        found = true;
    }
    found.then_some(chain)
}

/// The known class `name` (qualified, or a simple name of `java.lang`, which every file
/// imports) with its superclasses.
fn known_chain<'s>(s: &'s ExceptionSettings, name: &str) -> Option<&'s [String]> {
    s.known_classes
        .iter()
        .find(|k| {
            k.first().is_some_and(|c| {
                c == name || !name.contains('.') && c.strip_prefix("java.lang.") == Some(name)
            })
        })
        .map(Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_placeholders() {
        assert_eq!(
            class_list("java.io.IOException, java.net.SocketTimeoutException"),
            Some(vec![
                "java.io.IOException".to_string(),
                "java.net.SocketTimeoutException".to_string()
            ])
        );
        assert_eq!(
            class_list("${RETRY_EXCEPTIONS:org.a.LockException,org.b.Busy}"),
            Some(vec![
                "org.a.LockException".to_string(),
                "org.b.Busy".to_string()
            ])
        );
        assert_eq!(class_list("${RETRY_EXCEPTIONS}"), None);
        assert_eq!(
            class_list("org.a.Outer$Busy"),
            Some(vec!["org.a.Outer.Busy".to_string()])
        );
    }
}

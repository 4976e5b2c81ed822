//! A retry set to a single attempt (SPEC 3.3: a region counts only where the framework can run it
//! again): the annotation's attribute (`@Retryable(maxAttempts = 1)`, `@Retry(maxRetries = 0)`),
//! the application's settings for a named instance (Resilience4j's `max-attempts: 1`), or a
//! setting that overrides the annotation (MicroProfile Config). What counts and where it is read
//! is the row's `attempts` data; a value that cannot be read leaves the retry live.

use super::liveness::Dead;
use crate::catalogue::{AnnotationRegion, AttemptCount};
use crate::java::ir::{Annotation, Expr};
use crate::semantic::{ClassRef, MethodId, Project, normalize_key};
use std::collections::BTreeMap;

/// Placeholders resolving to placeholders are followed this deep.
const MAX_PLACEHOLDER_DEPTH: usize = 4;

/// Is the retry of row `r` on method `id` set to run the method once only?
pub(super) fn single_attempt(
    project: &Project,
    r: &AnnotationRegion,
    id: MethodId,
) -> Option<Dead> {
    let s = r.attempts.as_ref()?;
    let class = project.class_of(id);
    let a = retry_annotation(project, r, id, class)?;
    if a.args.iter().any(|(k, _)| {
        k.as_deref()
            .is_some_and(|k| s.opaque.iter().any(|o| o == k))
    }) {
        return None;
    }
    let once = |n: i64| match s.counts {
        AttemptCount::Attempts => n <= 1,
        AttemptCount::Retries => n == 0,
    };
    let dead = |setting: String, value: i64, in_annotation: bool| {
        once(value).then_some(Dead::SingleAttempt {
            setting,
            value: value.to_string(),
            in_annotation,
        })
    };
    // A setting that overrides the annotation: every application that runs it must set one.
    let fqcn = project.class(class).fqn.to_string();
    let method = &project.method(id).name;
    for pattern in &s.overrides {
        let key = pattern
            .replace("{class}", &fqcn)
            .replace("{method}", method);
        let values = project.modules().setting(id.0, &key);
        if values.is_empty() {
            continue;
        }
        let n = all_same(values.iter().map(|v| number_in(project, id, v, 0)))?;
        return dead(key, n, false);
    }
    if let Some(key) = &s.instance_setting {
        return instance_attempts(project, r, id, a, key)
            .and_then(|(setting, n)| dead(setting, n, false));
    }
    let (name, v) = s.attributes.iter().find_map(|at| {
        a.args
            .iter()
            .find(|(k, _)| k.as_deref() == Some(at.as_str()))
            .map(|(_, v)| (at, v))
    })?;
    let n = match v.peel() {
        Expr::Lit(t, _) => number(t)?,
        e => number_in(project, id, &project.constant(class, e)?, 0)?,
    };
    dead(name.clone(), n, true)
}

/// The row's annotation on the method, else on the method it implements or overrides (Spring
/// Retry finds an interface method's annotation with its attributes), else on its class.
fn retry_annotation<'p>(
    project: &'p Project,
    r: &AnnotationRegion,
    id: MethodId,
    class: ClassRef,
) -> Option<&'p Annotation> {
    let is_row_in = |at: ClassRef| {
        move |a: &&Annotation| {
            let t = project.resolve_type(at.0, Some(at.1 as usize), &a.name);
            r.annotations.iter().any(|x| project.type_is(&t, x))
        }
    };
    let m = project.method(id);
    let inherited = || {
        project.supertypes_of(class).iter().find_map(|sup| {
            project.methods_of(*sup).iter().find_map(|sm| {
                let smm = project.method(*sm);
                (smm.name == m.name && smm.params.len() == m.params.len())
                    .then(|| smm.annotations.iter().find(is_row_in(*sup)))
                    .flatten()
            })
        })
    };
    (m.annotations.iter().find(is_row_in(class)))
        .or_else(inherited)
        .or_else(|| {
            project
                .class(class)
                .annotations
                .iter()
                .find(is_row_in(class))
        })
}

/// The number of attempts a named instance gets in every application that runs the method and
/// configures the row's retries, with the key that sets it; `None` when one does not set it
/// (the framework's default retries) or sets it to what cannot be read.
fn instance_attempts(
    project: &Project,
    r: &AnnotationRegion,
    id: MethodId,
    a: &Annotation,
    key: &str,
) -> Option<(String, i64)> {
    let s = r.exception_settings.as_ref()?;
    let instance = a
        .args
        .iter()
        .find_map(|(k, v)| match (k.as_deref(), v.peel()) {
            (Some(k), Expr::Str(name, _)) if k == s.instance_attribute => Some(name.clone()),
            _ => None,
        })?;
    let shared = s
        .instance
        .split('.')
        .take_while(|p| !p.contains("{}"))
        .collect::<Vec<_>>()
        .join(".");
    let apps = project.modules().settings_under(id.0, &shared);
    let mut found: Option<(String, i64)> = None;
    for app in apps {
        let get = |k: &str| app.get(&normalize_key(k)).cloned();
        let own = s.instance.replace("{}", &instance);
        let base = get(&format!("{own}.{}", s.base)).unwrap_or_else(|| s.default_config.clone());
        let inherited = s.config.replace("{}", &base);
        let (setting, v) = [own, inherited]
            .into_iter()
            .find_map(|p| get(&format!("{p}.{key}")).map(|v| (format!("{p}.{key}"), v)))?;
        let n = number_in_map(app, &v, 0)?;
        match &found {
            Some((_, m)) if *m != n => return None,
            Some(_) => {}
            None => found = Some((setting, n)),
        }
    }
    found
}

/// The one value all of `values` have; `None` when one cannot be read or two differ.
fn all_same(values: impl Iterator<Item = Option<i64>>) -> Option<i64> {
    let mut out = None;
    for v in values {
        let v = v?;
        if out.is_some_and(|o| o != v) {
            return None;
        }
        out = Some(v);
    }
    out
}

/// A number as written in Java or in a setting (`1`, `1L`, `1_000`).
fn number(text: &str) -> Option<i64> {
    let t = text.trim().trim_end_matches(['L', 'l']).replace('_', "");
    t.parse().ok()
}

/// A string value's number, with a `${key}` or `${key:default}` placeholder resolved from the
/// settings of the application that runs method `id` (every value it has there must agree).
fn number_in(project: &Project, id: MethodId, text: &str, depth: usize) -> Option<i64> {
    let Some((key, default)) = placeholder(text) else {
        return number(text);
    };
    if depth > MAX_PLACEHOLDER_DEPTH {
        return None;
    }
    let values = project.modules().setting(id.0, key);
    if values.is_empty() {
        return number_in(project, id, default?, depth + 1);
    }
    all_same(values.iter().map(|v| number_in(project, id, v, depth + 1)))
}

/// As [`number_in`], within one application's settings.
fn number_in_map(app: &BTreeMap<String, String>, text: &str, depth: usize) -> Option<i64> {
    let Some((key, default)) = placeholder(text) else {
        return number(text);
    };
    if depth > MAX_PLACEHOLDER_DEPTH {
        return None;
    }
    match app.get(&normalize_key(key)) {
        Some(v) => number_in_map(app, v, depth + 1),
        None => number_in_map(app, default?, depth + 1),
    }
}

/// The key and the default of a value that is one `${key}` / `${key:default}` placeholder.
fn placeholder(text: &str) -> Option<(&str, Option<&str>)> {
    let inner = text.trim().strip_prefix("${")?.strip_suffix('}')?;
    if inner.contains("${") {
        return None;
    }
    Some(match inner.split_once(':') {
        Some((k, d)) => (k.trim(), Some(d)),
        None => (inner.trim(), None),
    })
}

#[cfg(test)]
mod tests {
    use super::{number, number_in_map, placeholder};
    use std::collections::BTreeMap;

    #[test]
    fn numbers_and_placeholders_are_read_and_expressions_are_not() {
        assert_eq!(number("1"), Some(1));
        assert_eq!(number("1L"), Some(1));
        assert_eq!(number(" 0 "), Some(0));
        assert_eq!(number("#{1}"), None);
        assert_eq!(
            placeholder("${retry.max:1}"),
            Some(("retry.max", Some("1")))
        );
        assert_eq!(placeholder("${retry.max}"), Some(("retry.max", None)));
        assert_eq!(placeholder("#{${a}}"), None);
        let app = BTreeMap::from([("retrymax".to_string(), "1".to_string())]);
        assert_eq!(number_in_map(&app, "${retry-max}", 0), Some(1));
        assert_eq!(number_in_map(&app, "${other:3}", 0), Some(3));
        assert_eq!(number_in_map(&app, "${other}", 0), None);
    }
}

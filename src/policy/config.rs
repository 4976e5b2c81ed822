//! `retrylint.toml`: which files, which rules at which level, what fails the run, whether a
//! suppression needs a reason, extra catalogue rows in the shape of `rules/`, and catalogue rows
//! disabled by id (`[catalogue] disable`).
//!
//! One file applies to a whole run, found from the deepest directory holding every scanned path
//! upwards, up to and including the first directory that holds `.git` (the repository root);
//! without one, no higher than the current directory (see [`discover_for`]).

use crate::catalogue::{GuardTables, Regions, SideEffectTables, SinkTables, SourceTables};
use crate::discovery::Discovered;
use crate::rules::{self, Level, Rule};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

pub const FILE_NAME: &str = "retrylint.toml";

/// A rule's setting in `[rules]`: off, or on at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleSetting {
    Off,
    Error,
    Warning,
    Note,
}

/// The file as written. Unknown keys are errors.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    #[serde(default)]
    include: Vec<Spanned<String>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default)]
    rules: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    per_file_ignores: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    fail_level: Option<Spanned<toml::Value>>,
    #[serde(default)]
    require_reason: bool,
    #[serde(default)]
    report_unused_ignores: bool,
    #[serde(default)]
    fail_on_incomplete: bool,
    regions: Option<Regions>,
    sources: Option<SourceTables>,
    sinks: Option<SinkTables>,
    guards: Option<GuardTables>,
    #[serde(rename = "side_effects")]
    side_effects: Option<SideEffectTables>,
    catalogue: Option<CatalogueSettings>,
}

/// `[catalogue]`: rows of the catalogue switched off by id.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueSettings {
    #[serde(default)]
    disable: Vec<String>,
}

/// A loaded configuration.
#[derive(Debug)]
pub struct Config {
    /// The file it came from (for messages) and the directory its globs are relative to.
    pub path: PathBuf,
    pub root: PathBuf,
    include: Option<ignore::gitignore::Gitignore>,
    exclude: Option<ignore::gitignore::Gitignore>,
    /// The globs as written, for `--show-settings`.
    pub include_globs: Vec<String>,
    pub exclude_globs: Vec<String>,
    /// `[per-file-ignores]`: a glob and the rule ids switched off in the files it matches.
    pub per_file_ignores: Vec<(String, Vec<&'static str>)>,
    per_file_matchers: Vec<ignore::gitignore::Gitignore>,
    /// Rule id → its setting; rules not named keep their default.
    pub rules: BTreeMap<&'static str, RuleSetting>,
    pub fail_level: Option<Level>,
    pub require_reason: bool,
    pub report_unused_ignores: bool,
    /// Exit 2 when a part of the analysis was cut short or a file was not analysed.
    pub fail_on_incomplete: bool,
    /// Extra catalogue rows, kept as text so that `Catalogue::compile` reads them.
    pub catalogue: Option<String>,
    /// `[catalogue] disable`: ids of catalogue rows left out (checked when the catalogue is
    /// compiled).
    pub disabled_rows: Vec<String>,
}

/// A configuration that cannot be used: one sentence naming the file, line and column.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let offset = (0..=offset)
        .rev()
        .find(|o| text.is_char_boundary(*o))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, col)
}

fn at(path: &Path, text: &str, offset: usize, what: &str) -> ConfigError {
    let (l, c) = line_col(text, offset);
    ConfigError(format!(
        "bad config file {}:{l}:{c}: {what}",
        crate::discovery::display_path(path)
    ))
}

/// The nearest `retrylint.toml` from `start` (a file or directory) upwards, up to and including
/// the repository root (the first directory holding `.git`). Outside a repository the search
/// does not climb above `start`: a checkout unpacked without `.git` must not pick up a file from
/// the directories around it.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    let start = if start.is_dir() {
        start
    } else {
        start.parent()?.to_path_buf()
    };
    discover_within(&start, &start)
}

/// The nearest `retrylint.toml` from `start` upwards to the repository root; without one, no
/// higher than `top` (an ancestor of `start`, or `start` itself).
fn discover_within(start: &Path, top: &Path) -> Option<PathBuf> {
    let mut found = None;
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join(FILE_NAME);
        if found.is_none() && candidate.is_file() {
            found = Some((candidate, d.starts_with(top)));
        }
        if d.join(".git").exists() {
            return found.map(|(c, _)| c);
        }
        dir = d.parent();
    }
    // No repository: only a file at or below `top` counts.
    found.filter(|(_, inside)| *inside).map(|(c, _)| c)
}

/// The one configuration of a run over `paths`, whatever their order: the nearest
/// `retrylint.toml` from the deepest directory holding every path, upwards to the repository
/// root; outside a repository, no higher than the current directory when the paths are inside
/// it, else than that common directory.
pub fn discover_for(paths: &[PathBuf]) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| {
            let c = std::fs::canonicalize(p).ok()?;
            Some(if c.is_dir() {
                c
            } else {
                c.parent()?.to_path_buf()
            })
        })
        .collect();
    let mut common = dirs.first()?.clone();
    for d in &dirs[1..] {
        while !d.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok());
    let top = match cwd {
        Some(c) if common.starts_with(&c) => c,
        _ => common.clone(),
    };
    discover_within(&common, &top)
}

fn matcher(
    root: &Path,
    globs: &[Spanned<String>],
    path: &Path,
    text: &str,
) -> Result<Option<ignore::gitignore::Gitignore>, ConfigError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = ignore::gitignore::GitignoreBuilder::new(root);
    for g in globs {
        check_glob(g.get_ref()).map_err(|e| at(path, text, g.span().start, &e))?;
        b.add_line(None, g.get_ref())
            .map_err(|e| at(path, text, g.span().start, &format!("bad glob: {e}")))?;
    }
    b.build()
        .map(Some)
        .map_err(|e| ConfigError(format!("bad config file {}: {e}", path.display())))
}

/// What a glob may hold, for error messages.
const GLOB_SYNTAX: &str = "globs use .gitignore syntax: `*`, `**`, `?`, `[abc]`, `[a-z]`, `{a,b}`, a leading `!` to negate, a leading `/` to anchor";

/// The gitignore matcher accepts some malformed globs (`src/[a-`) and then matches nothing:
/// check each with the stricter glob parser.
fn check_glob(glob: &str) -> Result<(), String> {
    let g = glob.strip_prefix('!').unwrap_or(glob);
    let g = g.strip_prefix('/').unwrap_or(g);
    if g.trim().is_empty() {
        return Err(format!("empty glob `{glob}`; {GLOB_SYNTAX}"));
    }
    globset::GlobBuilder::new(g)
        .literal_separator(true)
        .build()
        .map(|_| ())
        .map_err(|e| format!("bad glob `{glob}`: {}; {GLOB_SYNTAX}", e.kind()))
}

/// A string setting that must be one of `allowed`, with an error that lists them.
fn choice<'a>(
    value: &'a Spanned<toml::Value>,
    key: &str,
    allowed: &[&str],
    path: &Path,
    text: &str,
) -> Result<&'a str, ConfigError> {
    let list = allowed
        .iter()
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match value.get_ref() {
        toml::Value::String(s) if allowed.contains(&s.as_str()) => Ok(s),
        other => Err(at(
            path,
            text,
            value.span().start,
            &format!("`{key}` must be one of {list}, not {other}"),
        )),
    }
}

impl Config {
    /// Read and check the file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ConfigError(format!(
                "cannot read config file {}: {e}",
                crate::discovery::display_path(path)
            ))
        })?;
        Config::parse(path, &text)
    }

    /// Check `text` as the contents of the file at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let file: File = toml::from_str(text).map_err(|e| {
            let what = e.message().trim().replace('\n', " ");
            match e.span() {
                Some(s) => at(path, text, s.start, &what),
                None => ConfigError(format!(
                    "bad config file {}: {what}",
                    crate::discovery::display_path(path)
                )),
            }
        })?;
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let root = abs
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let mut rules = BTreeMap::new();
        let settings = ["off", "error", "warning", "note"];
        for (name, setting) in &file.rules {
            let setting = match choice(setting, name.get_ref(), &settings, path, text)? {
                "off" => RuleSetting::Off,
                "error" => RuleSetting::Error,
                "warning" => RuleSetting::Warning,
                _ => RuleSetting::Note,
            };
            let Some(rule) = rules::by_id(name.get_ref()) else {
                return Err(at(
                    path,
                    text,
                    name.span().start,
                    &format!(
                        "unknown rule `{}` in [rules] (see `retrylint rules`)",
                        name.get_ref()
                    ),
                ));
            };
            rules.insert(rule.id, setting);
        }
        let fail_level = match &file.fail_level {
            None => None,
            Some(v) => Some(
                match choice(v, "fail-level", &["error", "warning", "note"], path, text)? {
                    "error" => Level::Error,
                    "warning" => Level::Warning,
                    _ => Level::Note,
                },
            ),
        };
        let mut per_file_ignores = Vec::new();
        let mut per_file_matchers = Vec::new();
        for (glob, value) in &file.per_file_ignores {
            let names: Vec<&str> = match value.get_ref() {
                toml::Value::Array(a) => a.iter().filter_map(|v| v.as_str()).collect(),
                _ => Vec::new(),
            };
            let all_strings =
                matches!(value.get_ref(), toml::Value::Array(a) if a.len() == names.len());
            if !all_strings || names.is_empty() {
                return Err(at(
                    path,
                    text,
                    value.span().start,
                    &format!(
                        "`{}` in [per-file-ignores] must be a list of rules, e.g. [\"RL001\", \"RL10\"]",
                        glob.get_ref()
                    ),
                ));
            }
            let mut ids = Vec::new();
            for n in names {
                let found = rules::matching(n);
                if found.is_empty() {
                    return Err(at(
                        path,
                        text,
                        value.span().start,
                        &format!(
                            "unknown rule `{n}` in [per-file-ignores] (see `retrylint rules`)"
                        ),
                    ));
                }
                ids.extend(found.iter().map(|r| r.id));
            }
            ids.sort_unstable();
            ids.dedup();
            if let Some(m) = matcher(&root, std::slice::from_ref(glob), path, text)? {
                per_file_matchers.push(m);
                per_file_ignores.push((glob.get_ref().clone(), ids));
            }
        }
        let has_rows = file.regions.is_some()
            || file.sources.is_some()
            || file.sinks.is_some()
            || file.guards.is_some()
            || file.side_effects.is_some();
        Ok(Config {
            include: matcher(&root, &file.include, path, text)?,
            exclude: matcher(&root, &file.exclude, path, text)?,
            include_globs: file.include.iter().map(|g| g.get_ref().clone()).collect(),
            exclude_globs: file.exclude.iter().map(|g| g.get_ref().clone()).collect(),
            per_file_ignores,
            per_file_matchers,
            path: path.to_path_buf(),
            root,
            rules,
            fail_level,
            require_reason: file.require_reason,
            report_unused_ignores: file.report_unused_ignores,
            fail_on_incomplete: file.fail_on_incomplete,
            catalogue: has_rows.then(|| catalogue_rows(text)),
            disabled_rows: file.catalogue.map(|c| c.disable).unwrap_or_default(),
        })
    }

    /// Is `file` analysed? Globs are relative to the directory of `retrylint.toml`, with
    /// `.gitignore` semantics; files outside that directory are not affected.
    pub fn selects_file(&self, file: &Path) -> bool {
        let Ok(abs) = std::fs::canonicalize(file).or_else(|_| std::path::absolute(file)) else {
            return true;
        };
        let Ok(rel) = abs.strip_prefix(&self.root) else {
            return true;
        };
        let included = self
            .include
            .as_ref()
            .is_none_or(|m| m.matched_path_or_any_parents(rel, false).is_ignore());
        let excluded = self
            .exclude
            .as_ref()
            .is_some_and(|m| m.matched_path_or_any_parents(rel, false).is_ignore());
        included && !excluded
    }

    /// Does `[per-file-ignores]` switch `rule` off in `file`?
    pub fn ignores_in_file(&self, file: &Path, rule: &Rule) -> bool {
        let Ok(abs) = std::fs::canonicalize(file).or_else(|_| std::path::absolute(file)) else {
            return false;
        };
        let Ok(rel) = abs.strip_prefix(&self.root) else {
            return false;
        };
        self.per_file_ignores
            .iter()
            .zip(&self.per_file_matchers)
            .any(|((_, ids), m)| {
                ids.contains(&rule.id) && m.matched_path_or_any_parents(rel, false).is_ignore()
            })
    }

    /// `found` without the files the globs leave out.
    pub fn retain_files(&self, mut found: Discovered) -> Discovered {
        if self.include.is_some() || self.exclude.is_some() {
            found.java.retain(|p| self.selects_file(p));
            found.other.retain(|(_, p)| self.selects_file(p));
        }
        found
    }

    /// The rule's setting, `None` when the file does not name it.
    pub fn setting(&self, rule: &Rule) -> Option<RuleSetting> {
        self.rules.get(rule.id).copied()
    }

    /// The level findings of `rule` are reported at.
    pub fn level(&self, rule: &Rule) -> Level {
        match self.setting(rule) {
            Some(RuleSetting::Error) => Level::Error,
            Some(RuleSetting::Warning) => Level::Warning,
            Some(RuleSetting::Note) => Level::Note,
            Some(RuleSetting::Off) | None => rule.level,
        }
    }
}

/// What a configuration changed in a run, for every output format: a pull request can bring its
/// own `retrylint.toml`, and a reviewer must see what it switched off.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Applied {
    /// The file, as reports show paths; empty when there is none and the command line alone
    /// changed something (`--disable-row`).
    pub path: String,
    /// Rules turned off.
    pub rules_off: Vec<String>,
    /// Rules reported at another level than their own: rule id → level.
    pub rule_levels: BTreeMap<String, String>,
    /// Rules reported at a lower level than their own.
    pub rules_lowered: Vec<String>,
    /// `.java` files (and other JVM files) left out by `include`/`exclude`.
    pub files_excluded: usize,
    /// `[per-file-ignores]`: each glob with the rules it switches off in the files it matches
    /// (an id prefix such as `RL00` given as the rules it stands for).
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    /// Findings `[per-file-ignores]` hid (not counted in `summary.findings`).
    pub per_file_ignored: usize,
    /// `fail-level`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_level: Option<String>,
    /// Whether it adds catalogue rows (regions, sources, sinks, guards, side effects).
    pub catalogue_rows: bool,
    /// Ids of the catalogue rows switched off (`[catalogue] disable`, `--disable-row`).
    pub rows_disabled: Vec<String>,
}

impl Config {
    /// What this configuration changed, with the count of files its globs left out.
    pub fn applied(&self, files_excluded: usize) -> Applied {
        let mut a = Applied {
            path: crate::discovery::display_path(&self.path),
            files_excluded,
            fail_level: self.fail_level.map(|l| l.as_str().to_string()),
            catalogue_rows: self.catalogue.is_some(),
            rows_disabled: self.disabled_rows.clone(),
            per_file_ignores: self
                .per_file_ignores
                .iter()
                .map(|(glob, ids)| (glob.clone(), ids.iter().map(|id| id.to_string()).collect()))
                .collect(),
            ..Applied::default()
        };
        for (id, setting) in &self.rules {
            let Some(rule) = rules::by_id(id) else {
                continue;
            };
            if *setting == RuleSetting::Off {
                a.rules_off.push(id.to_string());
                continue;
            }
            let level = self.level(rule);
            if level != rule.level {
                a.rule_levels
                    .insert(id.to_string(), level.as_str().to_string());
                if level < rule.level {
                    a.rules_lowered.push(id.to_string());
                }
            }
        }
        a
    }
}

/// The catalogue tables of a config file (`regions`, `sources`, `sinks`, `guards`,
/// `side_effects`) as a TOML document of their own, for `Catalogue::compile`.
fn catalogue_rows(text: &str) -> String {
    let Ok(mut doc) = text.parse::<toml::Table>() else {
        return String::new();
    };
    doc.retain(|k, _| {
        matches!(
            k,
            "regions" | "sources" | "sinks" | "guards" | "side_effects"
        )
    });
    toml::to_string(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(Path::new("retrylint.toml"), text).map_err(|e| e.0)
    }

    #[test]
    fn unknown_keys_and_bad_types_name_line_and_column() {
        let e = parse("include = [\"src/**\"]\nexcludes = [\"x\"]\n").unwrap_err();
        assert!(
            e.starts_with("bad config file retrylint.toml:2:1: unknown field `excludes`"),
            "{e}"
        );
        let e = parse("require-reason = \"yes\"\n").unwrap_err();
        assert!(e.starts_with("bad config file retrylint.toml:1:18:"), "{e}");
        assert!(e.contains("expected a boolean"), "{e}");
        let e = parse("[rules]\nRL001 = \"loud\"\n").unwrap_err();
        assert!(e.starts_with("bad config file retrylint.toml:2:9:"), "{e}");
        assert!(e.contains("`off`, `error`, `warning`"), "{e}");
        let e = parse("[rules]\nRL001 = \"off\"\nRL042 = \"off\"\n").unwrap_err();
        assert_eq!(
            e,
            "bad config file retrylint.toml:3:1: unknown rule `RL042` in [rules] (see `retrylint rules`)"
        );
        let e = parse("[[regions.annotation]]\nid = \"x\"\nannotationz = []\n").unwrap_err();
        assert!(e.starts_with("bad config file retrylint.toml:3:1:"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }

    #[test]
    fn rules_by_id_or_name() {
        let c = parse("fail-level = \"error\"\n[rules]\nrl004 = \"off\"\nclock-idempotency-key-in-retry = \"note\"\n")
            .unwrap();
        assert_eq!(
            c.setting(&rules::UNKEYED_SIDE_EFFECT),
            Some(RuleSetting::Off)
        );
        assert_eq!(c.level(rules::by_id("RL002").unwrap()), Level::Note);
        assert_eq!(c.level(rules::by_id("RL001").unwrap()), Level::Error);
        assert_eq!(c.fail_level, Some(Level::Error));
        assert!(c.catalogue.is_none());
    }

    #[test]
    fn catalogue_rows_are_kept_apart() {
        let c = parse(
            "exclude = [\"gen\"]\n[catalogue]\ndisable = [\"source.java-clock\"]\n[[sinks.method]]\nid = \"sink.acme\"\nnames = [\"withDedupToken\"]\n",
        )
        .unwrap();
        let rows = c.catalogue.clone().unwrap();
        assert!(
            rows.contains("withDedupToken") && !rows.contains("gen") && !rows.contains("disable"),
            "{rows}"
        );
        assert_eq!(c.disabled_rows, ["source.java-clock"]);
        assert_eq!(c.applied(0).rows_disabled, ["source.java-clock"]);
        let e = parse("[sinks]\nmethods = [\"withDedupToken\"]\n").unwrap_err();
        assert!(
            e.starts_with("bad config file retrylint.toml:2:1: unknown field `methods`"),
            "{e}"
        );
        let e = parse("[catalogue]\ndisabled = []\n").unwrap_err();
        assert!(
            e.starts_with("bad config file retrylint.toml:2:1: unknown field `disabled`"),
            "{e}"
        );
    }

    #[test]
    fn bad_globs_and_choices_list_what_is_allowed() {
        let e = parse("include = [\"src/[a-\"]\n").unwrap_err();
        assert!(
            e.starts_with(
                "bad config file retrylint.toml:1:12: bad glob `src/[a-`: unclosed character class"
            ),
            "{e}"
        );
        assert!(e.contains("`[abc]`") && !e.contains('\n'), "{e}");
        let e = parse("fail-level = 3\n").unwrap_err();
        assert_eq!(
            e,
            "bad config file retrylint.toml:1:14: `fail-level` must be one of `error`, `warning`, `note`, not 3"
        );
        let e = parse("[rules]\nRL001 = 1\n").unwrap_err();
        assert!(e.contains("`RL001` must be one of `off`, `error`"), "{e}");
        let e = parse("[per-file-ignores]\n\"src/test/**\" = \"RL001\"\n").unwrap_err();
        assert!(e.contains("must be a list of rules"), "{e}");
        let e = parse("[per-file-ignores]\n\"src/test/**\" = [\"RL9\"]\n").unwrap_err();
        assert!(
            e.contains("unknown rule `RL9` in [per-file-ignores]"),
            "{e}"
        );
    }

    #[test]
    fn per_file_ignores_take_prefixes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        let text = "[per-file-ignores]\n\"src/test/**\" = [\"RL00\", \"RL101\"]\n";
        std::fs::write(&file, text).unwrap();
        let c = Config::load(&file).unwrap();
        assert_eq!(c.per_file_ignores.len(), 1);
        assert_eq!(
            c.per_file_ignores[0].1,
            vec![
                "RL001", "RL002", "RL003", "RL004", "RL005", "RL006", "RL101"
            ]
        );
        let root = c.root.clone();
        assert!(c.ignores_in_file(
            &root.join("src/test/A.java"),
            rules::by_id("RL002").unwrap()
        ));
        assert!(!c.ignores_in_file(
            &root.join("src/test/A.java"),
            rules::by_id("RL100").unwrap()
        ));
        assert!(!c.ignores_in_file(
            &root.join("src/main/A.java"),
            rules::by_id("RL002").unwrap()
        ));
    }

    #[test]
    fn positions_are_one_based_characters() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
        assert_eq!(line_col("", 0), (1, 1));
    }
}

//! The command line: parse arguments, call the library, map the outcome to an exit status.

use clap::{Parser, Subcommand, ValueEnum};
use retrylint::report::{self, Format, RenderOptions};
use retrylint::rules::{self, Level};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// jemalloc where it builds: a full scan allocates and frees millions of small IR nodes, and
/// glibc's malloc spent about a fifth of the CPU time of one (README, Speed).
#[cfg(all(unix, not(target_os = "openbsd")))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// One arena (the scan runs a few threads, each allocating little at a time) and dirty pages
/// given back to the system within 0.3 s, never kept as "muzzy": the peak stays that of
/// glibc's malloc (measured on a 12,000-file project) while the time drops.
#[cfg(all(unix, not(target_os = "openbsd")))]
#[allow(non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static malloc_conf: &[u8; 46] = b"narenas:1,dirty_decay_ms:300,muzzy_decay_ms:0\0";

#[derive(Parser)]
#[command(
    name = "retrylint",
    version,
    about = "Finds idempotency keys that change between retries in Java code"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Scan `.java` files under PATH… (default: the current directory).
    Check(Box<CheckArgs>),
    /// List the rules.
    Rules {
        /// `text`: one line per rule; `json`: id, name, level, summary and documentation.
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// List the catalogue's rows: id, table and what each matches (ids for `--disable-row`).
    Catalogue {
        /// `text`: one line per row; `json`: id, table, label and file of each row.
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
        /// Add the rows of FILE, as `check --catalogue FILE` does.
        #[arg(long, value_name = "FILE")]
        catalogue: Vec<PathBuf>,
    },
    /// Print a rule's documentation: why it is a bug, the unsafe and safe pattern, the fix.
    Explain {
        /// Rule id or name, e.g. RL001.
        #[arg(required_unless_present = "all")]
        rule: Option<String>,
        /// Every rule's documentation, one after the other.
        #[arg(long, conflicts_with = "rule")]
        all: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files or directories to scan.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit 0 even when there are findings (the run itself failing still exits 2).
    #[arg(long)]
    exit_zero: bool,
    /// Only these rules (comma-separated ids, names or id prefixes such as `RL00`).
    #[arg(long, value_delimiter = ',', value_name = "RULE,…")]
    select: Vec<String>,
    /// Skip these rules (comma-separated ids, names or id prefixes such as `RL10`).
    #[arg(long, value_delimiter = ',', value_name = "RULE,…")]
    ignore: Vec<String>,
    /// Print how many findings each rule has instead of the findings (a table, or JSON with
    /// `--format json`).
    #[arg(long)]
    statistics: bool,
    /// Print the settings this run would use (configuration file, files, rules, levels) and
    /// exit without scanning.
    #[arg(long)]
    show_settings: bool,
    /// The lowest level of finding that fails the run [default: warning, or `fail-level` in
    /// retrylint.toml].
    #[arg(long, value_enum)]
    fail_level: Option<FailLevel>,
    /// Extra catalogue rows (regions, sources, sinks, guards, side effects) from FILE, in the
    /// shape of `rules/`.
    #[arg(long, value_name = "FILE")]
    catalogue: Vec<PathBuf>,
    /// Leave out the catalogue row ID (see `retrylint catalogue`); repeatable.
    #[arg(long, value_name = "ID")]
    disable_row: Vec<String>,
    /// Do not read or write the cache of per-file facts (`.retrylint_cache`).
    #[arg(long)]
    no_cache: bool,
    /// Keep the cache in DIR/.retrylint_cache (default: the root of the repository of the first
    /// scanned path; outside a repository, the current directory when the scanned paths are
    /// inside it, else the first scanned directory).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Parse every file, even those that cannot lead to a finding (slower; the findings are
    /// the same, but syntax errors are then reported for every file).
    #[arg(long)]
    no_prefilter: bool,
    /// Files larger than this many bytes are reported and not analysed.
    #[arg(long, value_name = "BYTES", default_value_t = retrylint::MAX_FILE_BYTES)]
    max_file_size: u64,
    /// SARIF `automationDetails.id`, for several analyses of one repository.
    #[arg(long, value_name = "CATEGORY")]
    sarif_category: Option<String>,
    /// Read the configuration from FILE instead of the nearest retrylint.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore every retrylint.toml.
    #[arg(long)]
    no_config: bool,
    /// Report suppressions that suppress no finding (RL100).
    #[arg(long)]
    report_unused_ignores: bool,
    /// Hide the findings recorded in FILE (written by --write-baseline).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record the current findings in FILE and exit 0.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Exit 2 when a file could not be analysed, or was analysed only in part (a syntax error,
    /// a size, depth or budget limit), even with --exit-zero [or `fail-on-incomplete` in
    /// retrylint.toml].
    #[arg(long)]
    fail_on_incomplete: bool,
    /// No progress bar and no summary on standard error.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A message for standard error, escaped as the github format escapes its commands: a line
/// break taken from a config key or a baseline cannot start a line of its own (a forged
/// `::error` annotation), and no control character reaches the terminal.
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if c.is_control()
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') =>
            {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// `eprintln!` that never panics: standard error closed or a closed pipe (`2>&1 | head`) leaves
/// nothing to tell, so the message is dropped (SPEC §13: no input makes it panic).
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// Print `error: …` on standard error, escaped.
fn error(msg: impl std::fmt::Display) {
    note!("error: {}", escaped(&msg.to_string()));
}

/// Write `text` to standard output, as `check` writes its report: a closed pipe (`retrylint
/// explain --all | head -1`) or a full disk fails the run with one sentence and exit status 2,
/// never a panic.
fn print_out(text: &str, what: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error(format!("cannot write the {what}: {e}"));
            ExitCode::from(2)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailLevel {
    Error,
    Warning,
    Note,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // `--help` and `--version` go to standard output: a closed pipe there fails as any
            // other report does. A usage error goes to standard error, and exits 2 anyway.
            let printed = e.print();
            if !e.use_stderr()
                && let Err(err) = printed
            {
                error(format!("cannot write the help: {err}"));
                return ExitCode::from(2);
            }
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Rules {
            format: ListFormat::Text,
        } => {
            let list: String = rules::ALL
                .iter()
                .map(|r| {
                    format!(
                        "{}  {:<36} {:<8} {}\n",
                        r.id,
                        r.name,
                        r.level.as_str(),
                        r.summary
                    )
                })
                .collect();
            print_out(&list, "rule list")
        }
        Command::Rules {
            format: ListFormat::Json,
        } => {
            let list: Vec<serde_json::Value> = rules::ALL
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.id,
                        "name": r.name,
                        "level": r.level.as_str(),
                        "summary": r.summary,
                        "fix": r.fix,
                        "documentation": r.markdown(),
                    })
                })
                .collect();
            let json = serde_json::to_string_pretty(&list).unwrap_or_else(|_| "[]".into());
            print_out(&format!("{json}\n"), "rule list")
        }
        Command::Explain { all: true, .. } => {
            let docs: Vec<String> = rules::ALL.iter().map(|r| rules::explain(r)).collect();
            print_out(&format!("{}\n", docs.join("\n\n---\n\n")), "documentation")
        }
        Command::Explain { rule, .. } => {
            let rule = rule.unwrap_or_default();
            match rules::by_id(&rule) {
                Some(r) => print_out(&format!("{}\n", rules::explain(r)), "documentation"),
                None => {
                    error(format!("unknown rule `{rule}` (see `retrylint rules`)"));
                    ExitCode::from(2)
                }
            }
        }
        Command::Catalogue { format, catalogue } => list_catalogue(format, &catalogue),
        Command::Check(args) => check(*args),
    }
}

/// `retrylint catalogue`: the built-in rows and those of `files`.
fn list_catalogue(format: ListFormat, files: &[PathBuf]) -> ExitCode {
    let mut texts = Vec::new();
    for p in files {
        match std::fs::read_to_string(p) {
            Ok(t) => texts.push((p.display().to_string(), t)),
            Err(e) => {
                error(format!(
                    "bad catalogue file {}: cannot read: {e}",
                    p.display()
                ));
                return ExitCode::from(2);
            }
        }
    }
    let cat = match retrylint::catalogue::Catalogue::compile(&texts, &[]) {
        Ok(c) => c,
        Err(e) => {
            error(e.to_string());
            return ExitCode::from(2);
        }
    };
    let rows = cat.rows();
    let out = match format {
        ListFormat::Json => serde_json::to_string_pretty(rows).unwrap_or_else(|_| "[]".into()),
        ListFormat::Text => {
            let width = rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
            let table = rows.iter().map(|r| r.table.len()).max().unwrap_or(0);
            rows.iter()
                .map(|r| format!("{:<width$}  {:<table$}  {}", r.id, r.table, r.label))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    print_out(&format!("{out}\n"), "catalogue")
}

/// `--select`/`--ignore` entries as rule ids: each entry trimmed, an id prefix (`RL00`) standing
/// for every rule it starts; an entry that names no rule is an error.
fn rule_ids(entries: &[String]) -> Result<Vec<String>, String> {
    let mut ids = Vec::new();
    for e in entries.iter().filter(|e| !e.trim().is_empty()) {
        let found = rules::matching(e);
        if found.is_empty() {
            return Err(format!(
                "unknown rule `{}`: give a rule id (RL001), a name or an id prefix (RL00) (see `retrylint rules`)",
                e.trim()
            ));
        }
        ids.extend(found.iter().map(|r| r.id.to_string()));
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// Colour: never with `NO_COLOR`; always with `FORCE_COLOR` or `CLICOLOR_FORCE` (other than
/// `0`); else when the report goes to a terminal.
fn use_color(to_terminal: bool) -> bool {
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if set("NO_COLOR").is_some() {
        return false;
    }
    if set("FORCE_COLOR").is_some_and(|v| v != "0" && v != "false")
        || set("CLICOLOR_FORCE").is_some_and(|v| v != "0")
    {
        return true;
    }
    to_terminal
}

/// Check that `path` can be written before the scan (an unwritable report must not be found
/// after minutes of work): opened for appending, so nothing is truncated yet. Returns whether
/// the file was created, so that a run that fails can remove it again.
fn writable(path: &std::path::Path, what: &str) -> Result<bool, String> {
    // Never through a link the checkout provides: not even to create the file for the check.
    retrylint::safe_fs::check_output_path(path)
        .map_err(|e| format!("cannot write the {what} to `{}`: {e}", path.display()))?;
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map(|_| !existed)
        .map_err(|e| format!("cannot write the {what} to `{}`: {e}", path.display()))
}

/// The project a file belongs to: its nearest enclosing directory holding `.git`, else its own
/// directory.
fn project_root(file: &std::path::Path) -> PathBuf {
    let dir = file
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    let mut cur = std::fs::canonicalize(&dir).ok();
    while let Some(d) = cur {
        if d.join(".git").exists() {
            return relative_to_cwd(d);
        }
        cur = d.parent().map(PathBuf::from);
    }
    dir
}

/// `d` relative to the current directory when it is inside it, so reports keep short paths.
fn relative_to_cwd(d: PathBuf) -> PathBuf {
    match std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok())
    {
        Some(c) if d == c => PathBuf::from("."),
        Some(c) => d.strip_prefix(&c).map(PathBuf::from).unwrap_or(d),
        None => d,
    }
}

/// The repository `path` belongs to: the nearest directory holding `.git` from it upwards
/// (absolute), if any.
fn repository_root(path: &std::path::Path) -> Option<PathBuf> {
    let abs = std::fs::canonicalize(path).ok()?;
    let mut dir = if abs.is_dir() {
        Some(abs.as_path())
    } else {
        abs.parent()
    };
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// The project a cache belongs to when no repository holds the scanned paths: the current directory when every scanned path is inside it,
/// else the first scanned directory (or the directory of the first file).
fn cache_root(paths: &[PathBuf]) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let inside = |p: &PathBuf| {
        std::fs::canonicalize(p)
            .ok()
            .zip(std::fs::canonicalize(&cwd).ok())
            .is_some_and(|(p, c)| p.starts_with(c))
    };
    if paths.iter().all(inside) {
        return cwd;
    }
    match paths.first() {
        Some(p) if p.is_dir() => p.clone(),
        Some(p) => p.parent().map(PathBuf::from).unwrap_or(cwd),
        None => cwd,
    }
}

/// `--show-settings`: what this run would use, one `name: value` per line.
fn show_settings(opts: &retrylint::Options, args: &CheckArgs, threshold: Level) -> String {
    let shown = |p: &PathBuf| retrylint::discovery::display_path(p);
    let list = |v: &[PathBuf]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.iter().map(shown).collect::<Vec<_>>().join(", ")
        }
    };
    let config = opts.config.as_deref();
    let mut out = String::new();
    let mut line = |k: &str, v: String| out.push_str(&format!("{k:<24}{v}\n"));
    line(
        "config file:",
        match (config, args.no_config) {
            (Some(c), _) => shown(&c.path),
            (None, true) => "(none: --no-config)".into(),
            (None, false) => format!(
                "(none: no {} from the first path up to the repository root)",
                retrylint::config::FILE_NAME
            ),
        },
    );
    line("paths:", list(&opts.paths));
    if let Some(scope) = &opts.report_scope {
        line("report on:", list(scope));
    }
    let globs = |v: Option<&[String]>| match v {
        Some(g) if !g.is_empty() => g.join(", "),
        _ => "(none)".into(),
    };
    line("include:", globs(config.map(|c| &c.include_globs[..])));
    line("exclude:", globs(config.map(|c| &c.exclude_globs[..])));
    if let Some(c) = config {
        for (glob, ids) in &c.per_file_ignores {
            line("per-file-ignores:", format!("{glob} = {}", ids.join(", ")));
        }
    }
    for r in rules::ALL {
        let state = if retrylint::rule_enabled(opts, r) {
            config.map_or(r.level, |c| c.level(r)).as_str()
        } else {
            "off"
        };
        line(&format!("rule {}:", r.id), format!("{state:<8}{}", r.name));
    }
    line("fail-level:", threshold.as_str().into());
    line(
        "require-reason:",
        config.is_some_and(|c| c.require_reason).to_string(),
    );
    line(
        "report-unused-ignores:",
        opts.report_unused_ignores.to_string(),
    );
    line("catalogue files:", list(&opts.catalogues));
    let mut disabled: Vec<String> = config.map(|c| c.disabled_rows.clone()).unwrap_or_default();
    disabled.extend(opts.disable_rows.iter().cloned());
    line(
        "disabled rows:",
        if disabled.is_empty() {
            "(none)".into()
        } else {
            disabled.join(", ")
        },
    );
    line(
        "baseline:",
        opts.baseline.as_ref().map_or("(none)".into(), shown),
    );
    line(
        "cache:",
        opts.cache_dir
            .as_ref()
            .map_or("(off)".into(), |d| shown(&d.join(".retrylint_cache"))),
    );
    line("max-file-size:", format!("{} bytes", opts.max_file_bytes));
    line("prefilter:", opts.prefilter.to_string());
    line(
        "format:",
        args.format
            .to_possible_value()
            .map_or(String::new(), |v| v.get_name().to_string()),
    );
    out
}

fn check(args: CheckArgs) -> ExitCode {
    let started = std::time::Instant::now();
    let fail = |e: &str| {
        error(e);
        ExitCode::from(2)
    };
    let Run {
        mut opts,
        config,
        repository,
        threshold,
    } = match run_settings(&args) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if args.show_settings {
        return print_out(&show_settings(&opts, &args, threshold), "settings");
    }
    let created = match check_outputs(&args) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let counter = std::sync::Arc::new(retrylint::progress::Counter::default());
    let bar = retrylint::progress::wanted(args.quiet).then(|| {
        opts.progress = Some(counter.clone());
        retrylint::progress::Bar::start(counter.clone())
    });
    let result = retrylint::check(&opts);
    drop(bar);
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            for c in &created {
                let _ = std::fs::remove_file(c);
            }
            return fail(&e.to_string());
        }
    };
    warn_if_no_java_file(&args, config.as_deref(), &report);
    if let Err(e) = write_outputs(&args, &report, repository, started) {
        return fail(&e);
    }
    exit_status(&args, config.as_deref(), &report, threshold)
}

/// What a `check` run is made of, from its arguments and `retrylint.toml`.
struct Run {
    opts: retrylint::Options,
    config: Option<std::sync::Arc<retrylint::config::Config>>,
    /// The repository of the first path: the cache lives at its root and SARIF paths are
    /// relative to it, from whichever directory the run starts.
    repository: Option<PathBuf>,
    threshold: Level,
}

/// The options of the run: paths, rules, the configuration file, the cache, the report scope;
/// a bad rule, configuration or baseline is an error before the scan.
fn run_settings(args: &CheckArgs) -> Result<Run, String> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let (select, ignore) = match (rule_ids(&args.select), rule_ids(&args.ignore)) {
        (Ok(s), Ok(i)) => (s, i),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    if args.statistics && matches!(args.format, Format::Sarif | Format::Github) {
        return Err(
            "--statistics prints a table (--format text or concise) or JSON (--format json), not SARIF or GitHub annotations".into(),
        );
    }
    let config_file = match &args.config {
        Some(f) => Some(f.clone()),
        None if args.no_config => None,
        None => retrylint::config::discover_for(&paths),
    };
    let config = match config_file.map(|f| retrylint::config::Config::load(&f)) {
        Some(Ok(c)) => Some(std::sync::Arc::new(c)),
        Some(Err(e)) => return Err(e.to_string()),
        None => None,
    };
    // The repository of the first path: the cache lives at its root and SARIF paths are
    // relative to it, from whichever directory the run starts.
    let repository = repository_root(&paths[0]);
    let cache_dir = if args.no_cache {
        None
    } else if let Some(dir) = args.cache_dir.as_ref().filter(|_| !args.show_settings) {
        // A directory named for the cache is made when missing (a CI cache path on its first
        // run); one that cannot be made leaves the run without a cache, and says so.
        match std::fs::create_dir_all(dir) {
            Ok(()) => Some(dir.clone()),
            Err(e) => {
                note!(
                    "warning: cannot create the cache directory {} ({}); running without a cache",
                    escaped(&dir.display().to_string()),
                    e
                );
                None
            }
        }
    } else {
        Some(repository.clone().unwrap_or_else(|| cache_root(&paths)))
    };
    // Files named on the command line (a pre-commit file list) are the report scope; the project
    // they belong to gives the facts.
    let (paths, report_scope) = if !args.paths.is_empty() && args.paths.iter().all(|p| p.is_file())
    {
        let mut roots = vec![project_root(&args.paths[0])];
        for p in &args.paths {
            let inside = std::fs::canonicalize(p)
                .ok()
                .zip(std::fs::canonicalize(&roots[0]).ok())
                .is_some_and(|(p, r)| p.starts_with(r));
            if !inside {
                roots.push(p.clone());
            }
        }
        (roots, Some(args.paths.clone()))
    } else {
        (paths, None)
    };
    // A bad baseline fails before the scan, not after it.
    if let Some(Err(e)) = args
        .baseline
        .as_deref()
        .map(retrylint::baseline::Baseline::load)
    {
        return Err(e.to_string());
    }
    let threshold = match args.fail_level {
        Some(FailLevel::Error) => Level::Error,
        Some(FailLevel::Warning) => Level::Warning,
        Some(FailLevel::Note) => Level::Note,
        None => config
            .as_ref()
            .and_then(|c| c.fail_level)
            .unwrap_or(Level::Warning),
    };
    let opts = retrylint::Options {
        paths,
        select,
        ignore,
        catalogues: args.catalogue.clone(),
        disable_rows: args.disable_row.clone(),
        max_file_bytes: args.max_file_size,
        cache_dir,
        report_scope,
        prefilter: !args.no_prefilter,
        prefilter_max_share: retrylint::PREFILTER_MAX_SHARE,
        report_unused_ignores: args.report_unused_ignores
            || config.as_ref().is_some_and(|c| c.report_unused_ignores),
        baseline: args.baseline.clone(),
        progress: None,
        config: config.clone(),
        ..retrylint::Options::new(Vec::new())
    };
    Ok(Run {
        opts,
        config,
        repository,
        threshold,
    })
}

/// The files this run writes are checked before the scan; those created for the check are
/// returned, to be removed again when the run fails.
fn check_outputs(args: &CheckArgs) -> Result<Vec<PathBuf>, String> {
    let mut created: Vec<PathBuf> = Vec::new();
    let targets = [(&args.output, "report"), (&args.write_baseline, "baseline")];
    for (path, what) in targets {
        if let Some(p) = path {
            match writable(p, what) {
                Ok(true) => created.push(p.clone()),
                Ok(false) => {}
                Err(e) => {
                    for c in &created {
                        let _ = std::fs::remove_file(c);
                    }
                    return Err(e);
                }
            }
        }
    }
    Ok(created)
}

/// A typo in a path or in `include` must not pass silently.
fn warn_if_no_java_file(
    args: &CheckArgs,
    config: Option<&retrylint::config::Config>,
    report: &retrylint::Report,
) {
    if report.summary.files_scanned == 0 && report.summary.files_failed == 0 {
        let named: Vec<String> = args
            .paths
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        let hint = match config {
            Some(c) => format!(
                "; check the paths and `include`/`exclude` in {}",
                retrylint::discovery::display_path(&c.path)
            ),
            None => "; check the paths".into(),
        };
        note!(
            "warning: no Java files found to analyse in {}{hint}",
            if named.is_empty() {
                "`.`".to_string()
            } else {
                named.join(", ")
            }
        );
    }
}

/// The baseline, the report and the notes on standard error.
fn write_outputs(
    args: &CheckArgs,
    report: &retrylint::Report,
    repository: Option<PathBuf>,
    started: std::time::Instant,
) -> Result<(), String> {
    if let Some(path) = &args.write_baseline {
        let text = retrylint::baseline::render(
            path,
            report.findings.iter().chain(&report.baselined),
            &report.texts,
        );
        retrylint::safe_fs::write_output(path, text.as_bytes())
            .map_err(|e| format!("cannot write the baseline to `{}`: {e}", path.display()))?;
    }
    // With --write-baseline the findings are recorded, not shown (unless --output asks for them).
    let to_stdout = args.output.is_none() && args.write_baseline.is_none();
    let on_terminal = to_stdout && std::io::stdout().is_terminal();
    // A report read by people (text, concise, statistics) ends with the summary line itself; on
    // a terminal, with the time.
    let for_people = matches!(args.format, Format::Text | Format::Concise)
        || (args.statistics && args.format != Format::Json);
    let color = use_color(on_terminal) && to_stdout && for_people;
    let rendered = if args.statistics {
        if args.format == Format::Json {
            report::statistics::render_json(report)
        } else {
            report::statistics::render(report)
        }
    } else {
        report::render(
            report,
            args.format,
            &RenderOptions {
                color,
                sarif_category: args.sarif_category.clone(),
                elapsed: (on_terminal && args.format == Format::Text).then(|| started.elapsed()),
                width: on_terminal.then(terminal_width).flatten(),
                sarif_root: repository,
            },
        )
    };
    let written = match &args.output {
        Some(path) => retrylint::safe_fs::write_output(path, rendered.as_bytes())
            .map_err(|e| format!("cannot write the report to `{}`: {e}", path.display())),
        None if !to_stdout => Ok(()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write the report: {e}"))
        }
    };
    written?;
    // The summary once: on standard error unless the report on standard output ends with it.
    let summary_shown = to_stdout && for_people;
    if !args.quiet && !summary_shown {
        note!(
            "retrylint: {} ({:.2}s)",
            escaped(&report::text::summary_line(&report.summary)),
            started.elapsed().as_secs_f64()
        );
    }
    if report.summary.baseline_stale > 0 && !args.quiet {
        note!(
            "retrylint: {} baseline {} a finding (fixed, or the line changed); run with `--write-baseline {}` to drop {}",
            report.summary.baseline_stale,
            if report.summary.baseline_stale == 1 {
                "entry no longer matches"
            } else {
                "entries no longer match"
            },
            args.baseline
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            if report.summary.baseline_stale == 1 {
                "it"
            } else {
                "them"
            }
        );
    }
    if let Some(path) = &args.write_baseline
        && !args.quiet
    {
        note!(
            "retrylint: recorded {} finding(s) in {}; run with `--baseline {}` to report only new ones",
            report.findings.len() + report.baselined.len(),
            path.display(),
            path.display()
        );
    }
    Ok(())
}

/// 2 when `--fail-on-incomplete` meets an incomplete analysis, 1 for findings at or above the
/// failing level, else 0.
fn exit_status(
    args: &CheckArgs,
    config: Option<&retrylint::config::Config>,
    report: &retrylint::Report,
    threshold: Level,
) -> ExitCode {
    let fail_on_incomplete =
        args.fail_on_incomplete || config.is_some_and(|c| c.fail_on_incomplete);
    let s = &report.summary;
    if fail_on_incomplete
        && (s.incomplete > 0 || s.files_failed > 0 || s.files_with_syntax_errors > 0)
    {
        error(format!(
            "the analysis is incomplete ({} place(s) cut short, {} file(s) not analysed, {} with syntax errors) and --fail-on-incomplete is set",
            s.incomplete, s.files_failed, s.files_with_syntax_errors
        ));
        return ExitCode::from(2);
    }
    let failing = report.findings.iter().any(|f| f.level >= threshold);
    if failing && !args.exit_zero && args.write_baseline.is_none() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The width of the terminal standard output is on.
fn terminal_width() -> Option<usize> {
    terminal_size::terminal_size().map(|(w, _)| (w.0 as usize).max(40))
}

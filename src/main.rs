//! The command line: parse arguments, call the library, map the outcome to an exit status.

use clap::{Parser, Subcommand};
use retrylint::report::{self, Format, RenderOptions};
use retrylint::rules::{self, Level};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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
    Rules,
    /// Print a rule's documentation: why it is a bug, the unsafe and safe pattern, the fix.
    Explain {
        /// Rule id or name, e.g. RL001.
        rule: String,
    },
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
    /// Only these rules (comma-separated ids or names).
    #[arg(long, value_delimiter = ',', value_name = "RULE,…")]
    select: Vec<String>,
    /// Skip these rules (comma-separated ids or names).
    #[arg(long, value_delimiter = ',', value_name = "RULE,…")]
    ignore: Vec<String>,
    /// The lowest level of finding that fails the run [default: warning, or `fail-level` in
    /// retrylint.toml].
    #[arg(long, value_enum)]
    fail_level: Option<FailLevel>,
    /// Extra catalogue rows (regions, sources, sinks) from FILE, in the shape of `rules/`.
    #[arg(long, value_name = "FILE")]
    catalogue: Vec<PathBuf>,
    /// Do not read or write the cache of per-file facts (`.retrylint_cache`).
    #[arg(long)]
    no_cache: bool,
    /// Keep the cache in DIR/.retrylint_cache (default: the current directory when the scanned
    /// paths are inside it, else the first scanned directory).
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

/// Print `error: …` on standard error, escaped.
fn error(msg: impl std::fmt::Display) {
    eprintln!("error: {}", escaped(&msg.to_string()));
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
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Rules => {
            for r in rules::ALL {
                println!(
                    "{}  {:<36} {:<8} {}",
                    r.id,
                    r.name,
                    r.level.as_str(),
                    r.summary
                );
            }
            ExitCode::SUCCESS
        }
        Command::Explain { rule } => match rules::by_id(&rule) {
            Some(r) => {
                println!("{}", rules::explain(r));
                ExitCode::SUCCESS
            }
            None => {
                error(format!("unknown rule `{rule}` (see `retrylint rules`)"));
                ExitCode::from(2)
            }
        },
        Command::Check(args) => check(*args),
    }
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

/// The project a cache belongs to: the current directory when every scanned path is inside it,
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

fn check(args: CheckArgs) -> ExitCode {
    let started = std::time::Instant::now();
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config_file = match &args.config {
        Some(f) => Some(f.clone()),
        None if args.no_config => None,
        None => retrylint::config::discover_for(&paths),
    };
    let config = match config_file.map(|f| retrylint::config::Config::load(&f)) {
        Some(Ok(c)) => Some(std::sync::Arc::new(c)),
        Some(Err(e)) => {
            error(e);
            return ExitCode::from(2);
        }
        None => None,
    };
    let cache_dir = if args.no_cache {
        None
    } else {
        Some(args.cache_dir.clone().unwrap_or_else(|| cache_root(&paths)))
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
        error(e);
        return ExitCode::from(2);
    }
    let mut opts = retrylint::Options {
        paths,
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        catalogues: args.catalogue.clone(),
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
            error(e);
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &args.write_baseline {
        let text = retrylint::baseline::render(
            path,
            report.findings.iter().chain(&report.baselined),
            &report.texts,
        );
        if let Err(e) = retrylint::safe_fs::write_output(path, text.as_bytes()) {
            error(format!(
                "cannot write the baseline to `{}`: {e}",
                path.display()
            ));
            return ExitCode::from(2);
        }
    }
    // A text report on the terminal ends with the summary line itself (with the time).
    let text_on_terminal =
        args.output.is_none() && args.format == Format::Text && std::io::stdout().is_terminal();
    let color = text_on_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let rendered = report::render(
        &report,
        args.format,
        &RenderOptions {
            color,
            sarif_category: args.sarif_category.clone(),
            elapsed: text_on_terminal.then(|| started.elapsed()),
        },
    );
    let written = match &args.output {
        Some(path) => retrylint::safe_fs::write_output(path, rendered.as_bytes())
            .map_err(|e| format!("cannot write the report to `{}`: {e}", path.display())),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write the report: {e}"))
        }
    };
    if let Err(e) = written {
        error(e);
        return ExitCode::from(2);
    }
    if !args.quiet && !text_on_terminal {
        eprintln!(
            "retrylint: {} ({:.2}s)",
            escaped(&report::text::summary_line(&report.summary)),
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(path) = &args.write_baseline
        && !args.quiet
    {
        eprintln!(
            "retrylint: recorded {} finding(s) in {}; run with `--baseline {}` to report only new ones",
            report.findings.len() + report.baselined.len(),
            path.display(),
            path.display()
        );
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
    let fail_on_incomplete =
        args.fail_on_incomplete || config.as_ref().is_some_and(|c| c.fail_on_incomplete);
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

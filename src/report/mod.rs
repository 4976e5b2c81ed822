//! Renderings of a [`Report`]: one file per output format.

pub mod concise;
pub mod github;
pub mod json;
pub mod sarif;
pub mod statistics;
pub mod text;

use crate::Report;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Concise,
    Json,
    Sarif,
    Github,
}

pub struct RenderOptions {
    pub color: bool,
    /// `--sarif-category`: `automationDetails.id` of the SARIF run.
    pub sarif_category: Option<String>,
    /// Wall time of the run, shown at the end of the text summary (only on a terminal, so
    /// that a report in a file or pipe is the same on every run).
    pub elapsed: Option<std::time::Duration>,
    /// Columns of the terminal the text report is wrapped to; `None`: no wrapping (a pipe or a
    /// file).
    pub width: Option<usize>,
    /// The directory SARIF's `%SRCROOT%` stands for (the repository root); `None`: the working
    /// directory.
    pub sarif_root: Option<std::path::PathBuf>,
}

pub fn render(report: &Report, format: Format, opts: &RenderOptions) -> String {
    match format {
        Format::Text => text::render(report, opts.color, opts.elapsed, opts.width),
        Format::Concise => concise::render(report, opts.color),
        Format::Json => json::render(report),
        Format::Sarif => sarif::render(
            report,
            opts.sarif_category.as_deref(),
            &sarif::Uris::new(opts.sarif_root.as_deref()),
        ),
        Format::Github => github::render(report),
    }
}

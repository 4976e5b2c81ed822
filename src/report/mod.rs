//! Renderings of a [`Report`]: one file per output format.

pub mod github;
pub mod json;
pub mod sarif;
pub mod text;

use crate::Report;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
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
}

pub fn render(report: &Report, format: Format, opts: &RenderOptions) -> String {
    match format {
        Format::Text => text::render(report, opts.color, opts.elapsed),
        Format::Json => json::render(report),
        Format::Sarif => sarif::render(report, opts.sarif_category.as_deref()),
        Format::Github => github::render(report),
    }
}

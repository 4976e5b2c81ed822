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
}

pub fn render(report: &Report, format: Format, opts: &RenderOptions) -> String {
    match format {
        Format::Text => text::render(report, opts.color),
        Format::Json => json::render(report),
        Format::Sarif => sarif::render(report, opts.sarif_category.as_deref()),
        Format::Github => github::render(report),
    }
}

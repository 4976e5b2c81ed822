//! What a run reports: [`Finding`] and its related locations, the words of its message
//! ([`message`]), its fingerprint and the final order ([`order`]).

pub mod message;
pub mod order;
pub mod recovery;
pub mod rule;

pub use order::finish;

use crate::dataflow::Loc;
use crate::java::ir::Span;
use crate::semantic::{MethodId, Project};
use rule::{Level, Rule};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Related {
    pub path: String,
    #[serde(skip)]
    pub span: Span,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: String,
}

/// The ids of the catalogue rows that made a finding, by their part in it (sorted, without
/// duplicates; a part the engine knows by itself, or a row without an id, adds none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rows {
    pub source: Vec<String>,
    pub sink: Vec<String>,
    pub region: Vec<String>,
    pub side_effect: Vec<String>,
}

impl Rows {
    fn add(list: &mut Vec<String>, id: &str) {
        if !id.is_empty()
            && let Err(i) = list.binary_search_by(|x| x.as_str().cmp(id))
        {
            list.insert(i, id.to_string());
        }
    }

    pub fn add_source(&mut self, id: &str) {
        Rows::add(&mut self.source, id);
    }

    pub fn add_sink(&mut self, id: &str) {
        Rows::add(&mut self.sink, id);
    }

    pub fn add_region(&mut self, id: &str) {
        Rows::add(&mut self.region, id);
    }

    pub fn add_side_effect(&mut self, id: &str) {
        Rows::add(&mut self.side_effect, id);
    }

    pub fn is_empty(&self) -> bool {
        self == &Rows::default()
    }
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static Rule,
    /// The level it is reported at: the rule's, unless `retrylint.toml` sets another.
    pub level: Level,
    pub path: String,
    pub span: Span,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// The method the primary location is in.
    pub method: String,
    /// The per-attempt value as written (`UUID.randomUUID()`).
    pub source: String,
    pub message: String,
    /// For a value returned by a helper: where the helper evaluates it.
    pub via: Option<Related>,
    pub sinks: Vec<Related>,
    pub regions: Vec<Related>,
    /// The code flow, in execution order from the per-attempt value (or the region) to the sink
    /// or side effect: every call on the path, each with what it does (SARIF `codeFlows`).
    pub steps: Vec<Related>,
    /// Code the finding's reason was read from that none of its shown locations covers (the
    /// body of a retried method that catches everything): not reported, but a finding that
    /// reads code tree-sitter could not parse is dropped like one that shows it.
    pub reads: Vec<(String, Span)>,
    /// The catalogue rows that made it (not part of the fingerprint).
    pub rows: Rows,
    /// Stable across unrelated edits: rule, file, method and the normalized source line.
    pub fingerprint: String,
}

/// The one-based line of a byte offset of a file.
pub(crate) fn line(project: &Project, file: u32, offset: u32) -> u32 {
    project.files[file as usize].facts.line_of(offset)
}

pub(crate) fn related(project: &Project, loc: &Loc, message: String) -> Related {
    Related {
        path: project.files[loc.file as usize].path.clone(),
        span: loc.span,
        line: line(project, loc.file, loc.span.start),
        column: 0,
        end_line: line(project, loc.file, loc.span.end),
        end_column: 0,
        message,
    }
}

impl Finding {
    /// A finding of `rule` at `span` of file `file`, in `method`, with no message, related
    /// locations, columns or fingerprint yet.
    pub fn new(
        rule: &'static Rule,
        project: &Project,
        file: u32,
        span: Span,
        method: String,
        source: String,
    ) -> Finding {
        Finding {
            rule,
            level: rule.level,
            path: project.files[file as usize].path.clone(),
            span,
            line: line(project, file, span.start),
            column: 0,
            end_line: line(project, file, span.end),
            end_column: 0,
            method,
            source,
            message: String::new(),
            via: None,
            sinks: Vec::new(),
            regions: Vec::new(),
            steps: Vec::new(),
            reads: Vec::new(),
            rows: Rows::default(),
            fingerprint: String::new(),
        }
    }

    /// A finding of `rule` at `span` of method `m`.
    pub fn at(
        rule: &'static Rule,
        project: &Project,
        m: MethodId,
        span: Span,
        source: String,
    ) -> Finding {
        let method = project.method(m).name.to_string();
        Finding::new(rule, project, m.0, span, method, source)
    }
}

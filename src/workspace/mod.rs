//! The files of a run: discovery, reading (the reader seam), the byte scan the prefilter uses
//! and its cache (sealed with this machine's key, read and written without following links),
//! and the report scope.
//!
//! The byte scan (`scan`) lives here and not beside the prefilter's closure: it is per-file
//! reading work, stored by the scan cache, and needs only the catalogue's words; the closure,
//! which runs the analysis round after round, is a phase of the pipeline.

pub mod cache;
pub mod cache_auth;
pub mod depth_limit;
pub mod discovery;
pub mod facts_pack;
pub mod read;
pub mod safe_fs;
pub mod scan;
pub mod source;

mod report_scope;

pub use report_scope::ReportScope;

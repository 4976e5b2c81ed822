//! One input through the whole pipeline and every output format, with the properties that must
//! hold for any input. Shared by `tests/fuzz_regressions.rs` and the fuzz target in `fuzz/`.

use retrylint::report::{Format, RenderOptions, render};
use retrylint::source::Reader;
use std::path::Path;
use std::sync::Arc;

/// A file with one known finding, scanned next to the input: its finding must survive.
const KNOWN: &str = include_str!("../../fixtures/spring_retry/RetryableUuidUnsafe.java");

/// The name under which the input is scanned.
pub const INPUT: &str = "Input.java";

/// Lay out `dir`: `Known.java` and an empty `Input.java`, whose bytes the reader replaces. Each
/// file is written aside and renamed into place, so processes sharing `dir` (fuzzing jobs) never
/// see one half written.
pub fn project(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in [("Known.java", KNOWN), (INPUT, "")] {
        let aside = dir.join(format!(".{name}.{}", std::process::id()));
        std::fs::write(&aside, text)?;
        std::fs::rename(&aside, dir.join(name))?;
    }
    Ok(())
}

/// Scan `dir` (laid out by [`project`]) with `input` as the bytes of `Input.java`, render every
/// format, and say what property was broken, if any.
pub fn run(dir: &Path, input: &[u8]) -> Result<(), String> {
    let input = Arc::new(input.to_vec());
    let mut opts = retrylint::Options::new(vec![dir.to_path_buf()]);
    opts.max_file_bytes = u64::MAX;
    opts.reader = Reader::new(move |p| {
        if p.file_name().is_some_and(|n| n == INPUT) {
            Ok(input.to_vec())
        } else {
            std::fs::read(p)
        }
    });
    let report = retrylint::check(&opts).map_err(|e| format!("the run failed: {e}"))?;
    if !report
        .findings
        .iter()
        .any(|f| f.path.ends_with("Known.java"))
    {
        return Err("the finding in Known.java is lost".into());
    }
    let ro = RenderOptions {
        color: false,
        sarif_category: Some("fuzz".into()),
        elapsed: None,
        width: None,
        sarif_root: None,
    };

    let text = render(&report, Format::Text, &ro);
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\n') {
        return Err(format!(
            "the text output carries the control character U+{:04X}",
            c as u32
        ));
    }

    let json: serde_json::Value = serde_json::from_str(&render(&report, Format::Json, &ro))
        .map_err(|e| format!("the JSON output does not parse: {e}"))?;
    if json["findings"].as_array().map(Vec::len) != Some(report.findings.len()) {
        return Err("the JSON output does not list every finding".into());
    }

    let sarif: serde_json::Value = serde_json::from_str(&render(&report, Format::Sarif, &ro))
        .map_err(|e| format!("the SARIF output does not parse: {e}"))?;
    let results = sarif["runs"][0]["results"]
        .as_array()
        .ok_or("the SARIF output has no results array")?;
    for r in results {
        let region = &r["locations"][0]["physicalLocation"]["region"];
        let line = region["startLine"].as_u64().unwrap_or(0);
        let column = region["startColumn"].as_u64().unwrap_or(0);
        if line == 0 || column == 0 {
            return Err(format!("a SARIF result without a 1-based location: {r}"));
        }
    }

    let github = render(&report, Format::Github, &ro);
    for line in github.lines() {
        let known = ["::error ", "::warning ", "::notice "];
        if !known.iter().any(|k| line.starts_with(k)) || line.contains('\r') {
            return Err(format!(
                "a GitHub output line that is not one command: {line:?}"
            ));
        }
    }
    Ok(())
}

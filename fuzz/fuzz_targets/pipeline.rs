//! Arbitrary bytes and mutated Java through the whole pipeline (discovery, parse, index, flow,
//! findings) and every output format. The input is scanned as `Input.java` next to a file with a
//! known finding; see `tests/pipeline/mod.rs` for the properties checked.
//!
//! Besides libFuzzer's byte-level mutations, a structure-aware mutator splices tokens and whole
//! lines of the project's own Java fixtures into the input, so mutants stay close to Java that
//! reaches regions, sources and sinks.

#![no_main]

#[path = "../../tests/pipeline/mod.rs"]
mod pipeline;

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use std::path::PathBuf;
use std::sync::OnceLock;

fn project_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // One directory for every job, not one per process: fork mode starts many.
        let dir = std::env::temp_dir().join("retrylint-fuzz");
        if let Err(e) = pipeline::project(&dir) {
            panic!(
                "cannot lay out the fuzzing project in {}: {e}",
                dir.display()
            );
        }
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    if let Err(e) = pipeline::run(project_dir(), data) {
        panic!("{e}");
    }
});

/// Tokens and lines of the fixtures, the material of the structure-aware mutation.
struct Pieces {
    tokens: Vec<Vec<u8>>,
    lines: Vec<Vec<u8>>,
}

fn pieces() -> &'static Pieces {
    static PIECES: OnceLock<Pieces> = OnceLock::new();
    PIECES.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut files = Vec::new();
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "java") {
                    files.push(p);
                }
            }
        }
        files.sort();
        let mut tokens = std::collections::BTreeSet::new();
        let mut lines = Vec::new();
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            for line in text.lines() {
                lines.push(format!("{line}\n").into_bytes());
            }
            tokens.extend(java_tokens(&text));
        }
        Pieces {
            tokens: tokens.into_iter().map(String::into_bytes).collect(),
            lines,
        }
    })
}

/// Identifiers (with dots and a leading `@`), string literals and punctuation.
fn java_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_alphabetic() || c == b'@' || c == b'_' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            i = (i + 1).min(b.len());
        } else if c.is_ascii_punctuation() {
            i += 1;
            if i < b.len() && matches!(&b[start..=i], b"->" | b"::" | b"==" | b"+=" | b"++") {
                i += 1;
            }
        } else {
            i += 1;
            continue;
        }
        if let Ok(t) = std::str::from_utf8(&b[start..i]) {
            out.push(t.to_string());
        }
    }
    out
}

/// xorshift32: the mutation must depend only on libFuzzer's seed.
struct Rng(u32);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        if n == 0 { 0 } else { self.0 as usize % n }
    }
}

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = Rng(seed | 1);
    if rng.below(3) == 0 {
        return fuzzer_mutate(data, size, max_size);
    }
    let p = pieces();
    let mut buf = data[..size].to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(buf.len() + 1);
        match rng.below(4) {
            // A fixture token, spaced, inserted anywhere.
            0 | 1 if !p.tokens.is_empty() => {
                let t = &p.tokens[rng.below(p.tokens.len())];
                let mut piece = vec![b' '];
                piece.extend_from_slice(t);
                piece.push(b' ');
                buf.splice(at..at, piece);
            }
            // A whole fixture line, at a line start.
            2 if !p.lines.is_empty() => {
                let at = buf[..at]
                    .iter()
                    .rposition(|c| *c == b'\n')
                    .map_or(0, |i| i + 1);
                let l = &p.lines[rng.below(p.lines.len())];
                buf.splice(at..at, l.iter().copied());
            }
            // A line of the input itself removed.
            _ => {
                let start = buf[..at]
                    .iter()
                    .rposition(|c| *c == b'\n')
                    .map_or(0, |i| i + 1);
                let end = buf[at..]
                    .iter()
                    .position(|c| *c == b'\n')
                    .map_or(buf.len(), |i| at + i + 1);
                buf.drain(start..end);
            }
        }
    }
    let n = buf.len().min(max_size);
    data[..n].copy_from_slice(&buf[..n]);
    n
});

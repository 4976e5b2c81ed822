//! The floor retrylint is measured against: read every `.java` file under the given paths,
//! parse it with tree-sitter-java and walk every node once with a `TreeCursor`, on the same
//! thread pool size. It prints the number of files, bytes and nodes.
//!
//! `cargo build --release --example parse_floor`; `bench/run.py` runs it.

use rayon::prelude::*;
use std::path::PathBuf;

fn walk(tree: &tree_sitter::Tree) -> u64 {
    let mut cursor = tree.walk();
    let mut nodes = 0u64;
    loop {
        nodes += 1;
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return nodes;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

fn main() {
    let roots: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let found = match retrylint::discovery::discover(&roots) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: path `{}` does not exist", e.0.display());
            std::process::exit(2);
        }
    };
    let (files, bytes, nodes) = found
        .java
        .par_iter()
        .map_init(
            || {
                let mut p = tree_sitter::Parser::new();
                p.set_language(&tree_sitter_java::LANGUAGE.into()).ok();
                p
            },
            |parser, path| {
                let Ok(src) = std::fs::read(path) else {
                    return (0u64, 0u64, 0u64);
                };
                match parser.parse(&src, None) {
                    Some(tree) => (1, src.len() as u64, walk(&tree)),
                    None => (1, src.len() as u64, 0),
                }
            },
        )
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    println!("{files} files, {bytes} bytes, {nodes} nodes");
}

//! Issue 7, points 4 and 6: what a scanned file holds cannot reach the terminal as control
//! characters or move a code frame's labels, line breaks of every kind keep positions right in
//! every format, and a symlink does not lead the scan out of the scanned tree.

use retrylint::report::{Format, RenderOptions, render};

const RETRIED: &str = "import java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\nclass C {\n  @Retryable\n  void f(Client client) {\n    client.setIdempotencyKey(UUID.randomUUID().toString());\n  }\n}\n";

fn all_formats(dir: &std::path::Path) -> (String, serde_json::Value, serde_json::Value, String) {
    let report = retrylint::check(&retrylint::Options::new(vec![dir.to_path_buf()])).unwrap();
    let opts = RenderOptions {
        color: false,
        sarif_category: None,
        elapsed: None,
        width: None,
        sarif_root: None,
    };
    (
        render(&report, Format::Text, &opts),
        serde_json::from_str(&render(&report, Format::Json, &opts)).unwrap(),
        serde_json::from_str(&render(&report, Format::Sarif, &opts)).unwrap(),
        render(&report, Format::Github, &opts),
    )
}

/// The one finding of `file` is at line 6, column 30 in every format, and the text frame's
/// header says so.
fn assert_at_6_30(dir: &std::path::Path, file: &str) -> String {
    let (text, json, sarif, github) = all_formats(dir);
    let f: Vec<_> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().unwrap().ends_with(file))
        .collect();
    assert_eq!(f.len(), 1, "{file}: {json}");
    assert_eq!(
        (&f[0]["line"], &f[0]["column"]),
        (&6.into(), &30.into()),
        "{file}"
    );
    let r = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (&r["startLine"], &r["startColumn"]),
        (&6.into(), &30.into()),
        "{file}"
    );
    assert!(github.contains(",line=6,col=30,"), "{github}");
    assert!(text.contains(&format!("{file}:6:30]")), "{text}");
    text
}

#[test]
fn lone_cr_and_crlf_line_breaks_keep_positions_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    // A `//` comment ends at a lone CR too.
    let cr = RETRIED
        .replace("class C {", "class C { // a comment")
        .replace('\n', "\r");
    std::fs::write(d.path().join("Cr.java"), cr).unwrap();
    assert_at_6_30(d.path(), "Cr.java");
    let report = retrylint::check(&retrylint::Options::new(vec![d.path().to_path_buf()])).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);

    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("Crlf.java"), RETRIED.replace('\n', "\r\n")).unwrap();
    let text = assert_at_6_30(d.path(), "Crlf.java");
    assert!(
        !text.contains('\u{FFFD}'),
        "a CR shown as a replacement: {text}"
    );
    assert!(!text.contains('\r'));
}

#[test]
fn control_and_bidi_characters_in_code_and_names_are_neutralised() {
    let d = tempfile::tempdir().unwrap();
    // An ANSI escape, an 8-bit CSI, a bell and a right-to-left override before the finding on its
    // line, and an OSC title sequence in a comment.
    let hostile = RETRIED
        .replace(
            "    client.setIdempotencyKey(",
            "/*\u{1b}[2J\u{9b}\u{7}\u{202e}*/client.setIdempotencyKey(",
        )
        .replace("class C {", "class C { // \u{1b}]0;owned\u{7}");
    let name = "Evil\u{1b}[31m\u{202e}.java";
    if std::fs::write(d.path().join(name), hostile).is_err() {
        return; // a file system that refuses the name
    }
    let (text, json, sarif, _) = all_formats(d.path());
    for c in ['\u{1b}', '\u{9b}', '\u{7}', '\u{202e}'] {
        assert!(
            !text.contains(c),
            "U+{:04X} reached the text output",
            c as u32
        );
    }
    // The code frame still labels the right code: the four hostile characters before it are
    // shown as placeholders of the same byte length.
    assert!(text.contains("client.setIdempotencyKey(UUID.randomUUID()"));
    // `/*` 2 + ESC `[2J` 4 + CSI, BEL, RLO 3 + `*/` 2 + `client.setIdempotencyKey(` 25 = 36
    assert_eq!(json["findings"][0]["column"], 37);
    // JSON carries the name as it is (escaped by the serializer, it parses back the same);
    // SARIF as a URI.
    assert!(
        json["findings"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with(name)
    );
    let uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(uri.ends_with("Evil%1B%5B31m%E2%80%AE.java"), "{uri}");
}

#[cfg(unix)]
#[test]
fn symlinks_do_not_lead_out_of_the_scanned_tree() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("Secret.java"), RETRIED).unwrap();
    std::fs::create_dir(outside.path().join("pkg")).unwrap();
    std::fs::write(outside.path().join("pkg/Deep.java"), RETRIED).unwrap();

    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("Own.java"), RETRIED).unwrap();
    std::os::unix::fs::symlink(outside.path().join("Secret.java"), tree.join("Link.java")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("pkg"), tree.join("linked")).unwrap();
    // A link that stays inside the tree is still read, as the file it links to: once.
    std::os::unix::fs::symlink(tree.join("Own.java"), tree.join("Alias.java")).unwrap();

    let report = retrylint::check(&retrylint::Options::new(vec![tree.clone()])).unwrap();
    let mut paths: Vec<_> = report
        .findings
        .iter()
        .map(|f| f.path.rsplit('/').next().unwrap().to_string())
        .collect();
    paths.sort();
    // The file is reported under its own path, not the link's (which sorts first).
    assert_eq!(paths, ["Own.java"]);
    assert!(!report.texts.keys().any(|p| p.contains("Secret")));
    let link: Vec<_> = report
        .errors
        .iter()
        .filter(|e| e.path.ends_with("Link.java"))
        .collect();
    assert_eq!(link.len(), 1, "{:?}", report.errors);
    assert!(link[0].message.contains("outside the scanned tree"));
    assert!(!report.errors.iter().any(|e| e.path.contains("Deep")));

    // Named on the command line, a link is what the user asked for.
    let report = retrylint::check(&retrylint::Options::new(vec![tree.join("Link.java")])).unwrap();
    assert_eq!(report.findings.len(), 1);
}

/// GitHub reads a workflow command's property back by undoing its escapes once (`%25` → `%`,
/// `%0D`, `%0A`, `%3A`, `%2C`): the `file=` of a file named `Refunds%20Job.java` under `a,b:c`
/// escapes the name once, not the report's shown path (`Refunds%2520Job.java`) again.
#[cfg(unix)]
#[test]
fn github_file_properties_escape_the_file_name_once() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("z\u{e4}hlung a,b:c");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("Refunds%20Job.java"), RETRIED).unwrap();
    let (_, json, _, github) = all_formats(d.path());
    // The shown path keeps `%` escaped, so that no two files show the same path.
    assert!(
        json["findings"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("z\u{e4}hlung a,b:c/Refunds%2520Job.java")
    );
    let line = github.lines().find(|l| l.starts_with("::error")).unwrap();
    let file = line
        .strip_prefix("::error file=")
        .and_then(|l| l.split(",line=").next())
        .unwrap();
    assert!(
        file.ends_with("z\u{e4}hlung a%2Cb%3Ac/Refunds%2520Job.java"),
        "{line}"
    );
    // Undone once, as GitHub does, the property is the file's own path.
    let unescaped = file
        .replace("%2C", ",")
        .replace("%3A", ":")
        .replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%25", "%");
    assert!(std::path::Path::new(&unescaped).is_file(), "{unescaped}");
}

/// SARIF's `primaryLocationLineHash` of a finding in a Latin-1 file (its line holds bytes that
/// are not UTF-8) is the one GitHub's upload action computes, which reads the file decoded as
/// UTF-8 with U+FFFD for each invalid sequence. The expected value was computed by running the
/// upload action's algorithm (a port of codeql-action `fingerprints.ts`, reading the file with
/// Node's `fs.createReadStream(path, "utf8")`) on these bytes: `node gh_hash.js Latin1.java 7`.
#[test]
fn the_line_hash_of_a_file_that_is_not_utf8_is_githubs() {
    let d = tempfile::tempdir().unwrap();
    let latin1: &[u8] = b"import java.util.UUID;\nimport org.springframework.retry.annotation.Retryable;\n/** Erstattung f\xfcr R\xfcckbuchungen */\nclass C {\n  @Retryable\n  void f(Client client) {\n    client.setIdempotencyKey(UUID.randomUUID().toString()); // f\xfcr \xe9\xe2\x82\n  }\n}\n";
    std::fs::write(d.path().join("Latin1.java"), latin1).unwrap();
    let (_, _, sarif, _) = all_formats(d.path());
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        7
    );
    assert_eq!(
        result["partialFingerprints"]["primaryLocationLineHash"],
        "895283877fd98f2e:1"
    );
}

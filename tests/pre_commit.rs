//! Pre-commit runs (the staged files named, the project analysed for facts) with the summary
//! cache: after an edit of a callee in another file (adding a random key that reaches a sink,
//! then removing it), an override in a new subtype, a declaration, a catalogue row in
//! `retrylint.toml`, another tool version, an `application.yml` that decides a region and an
//! event source in another file that decides whether a batch response fails a message, the
//! report of a cached run is byte for byte that of a run without any cache, in every output
//! format; and the cache is used: an edit inside one method analyses that method again, not
//! the project, and runs again only the edited file's scans before the summaries (call-graph
//! edges, regions made by calls, region candidates, calls by name, stored-function calls).

use assert_cmd::Command;
use std::path::Path;

/// An empty git repository with one Maven module, artifact `artifact`, and its `a` package.
fn maven_repository(artifact: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join(".git")).unwrap();
    // Made now, so that the first run does not change the root directory it looks at.
    std::fs::create_dir_all(p.join(".retrylint_cache")).unwrap();
    std::fs::create_dir_all(p.join("src/main/java/a")).unwrap();
    std::fs::write(
        p.join("pom.xml"),
        format!("<project><groupId>a</groupId><artifactId>{artifact}</artifactId></project>\n"),
    )
    .unwrap();
    dir
}

/// A repository whose `@Retryable` caller sends a key made by a helper in another file.
fn repository() -> tempfile::TempDir {
    let dir = maven_repository("app");
    let p = dir.path();
    write(
        p,
        "Billing.java",
        "package a;\nimport org.springframework.retry.annotation.Retryable;\nclass Billing {\n  private final Keys keys;\n  private final Client client;\n  Billing(Keys keys, Client client) { this.keys = keys; this.client = client; }\n  @Retryable\n  void charge(String orderId) {\n    client.setIdempotencyKey(keys.next(orderId));\n    client.send();\n  }\n  @Retryable\n  void refund(String orderId) {\n    client.setIdempotencyKey(keys.refundKey(orderId));\n    client.send();\n  }\n}\n",
    );
    write(p, "Keys.java", STABLE_KEYS);
    write(
        p,
        "Client.java",
        "package a;\nclass Client {\n  void setIdempotencyKey(String k) {}\n  void send() {}\n}\n",
    );
    write(
        p,
        "Other.java",
        "package a;\nclass Other {\n  int size() { return 1; }\n}\n",
    );
    dir
}

const STABLE_KEYS: &str = "package a;\nclass Keys {\n  String next(String orderId) { return \"charge-\" + orderId; }\n  String refundKey(String orderId) { return \"refund-\" + orderId; }\n}\n";
const RANDOM_KEYS: &str = "package a;\nclass Keys {\n  String next(String orderId) { return orderId + java.util.UUID.randomUUID(); }\n  String refundKey(String orderId) { return \"refund-\" + orderId; }\n}\n";

fn write(repo: &Path, name: &str, text: &str) {
    std::fs::write(repo.join("src/main/java/a").join(name), text).unwrap();
}

/// A run on `args` from the repository's root in `format`, with the cache or without: its
/// report and standard error.
fn run(
    repo: &Path,
    args: &[&str],
    format: &str,
    cache: bool,
    env: &[(&str, &str)],
) -> (String, String) {
    let mut c = Command::cargo_bin("retrylint").unwrap();
    c.current_dir(repo)
        .env("NO_COLOR", "1")
        .env("RETRYLINT_TIMINGS", "1")
        .env_remove("RETRYLINT_TEST_TOOL_VERSION")
        .env_remove("RETRYLINT_NO_SUMMARY_CACHE")
        .args(["check", "--format", format, "-q"]);
    for (k, v) in env {
        c.env(k, v);
    }
    if !cache {
        c.arg("--no-cache");
    }
    let out = c.args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// How many methods the run took from the summary cache, of how many; (0, 0) when the cache
/// was not asked (the prefilter's forward rounds do not use it).
fn taken(stderr: &str) -> (usize, usize) {
    let Some(line) = stderr
        .lines()
        .rfind(|l| l.contains("summary cache:") && l.contains("taken from the cache"))
    else {
        return (0, 0);
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "cache:").unwrap();
    (
        words[at + 1].parse().unwrap(),
        words[at + 3].parse().unwrap(),
    )
}

const FORMATS: &[&str] = &["json", "text", "concise", "sarif", "github"];

/// A hook run on `files` with the cache, in every format, each byte for byte the report of a
/// run without any cache; the JSON report, and how many methods the first cached run took
/// from the cache, of how many.
fn hook_with(repo: &Path, files: &[&str], env: &[(&str, &str)]) -> (String, (usize, usize)) {
    let mut json = String::new();
    let mut counts = None;
    for format in FORMATS {
        let (warm, err) = run(repo, files, format, true, env);
        let (cold, _) = run(repo, files, format, false, env);
        assert_eq!(
            warm, cold,
            "the cache changed the {format} report of {files:?}"
        );
        counts.get_or_insert_with(|| taken(&err));
        if *format == "json" {
            assert!(warm.contains("\"findings\""), "{warm}\n{err}");
            json = warm;
        }
    }
    (json, counts.unwrap())
}

fn hook(repo: &Path, files: &[&str]) -> (String, (usize, usize)) {
    hook_with(repo, files, &[])
}

fn rules(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {}:{}",
                f["rule"].as_str().unwrap(),
                f["path"].as_str().unwrap(),
                f["line"]
            )
        })
        .collect()
}

#[test]
fn an_unchanged_project_is_taken_from_the_cache() {
    let repo = repository();
    let p = repo.path();
    let (_, err) = run(p, &["."], "json", true, &[]);
    let (first, n) = taken(&err);
    assert!(first == 0 && n > 0, "{err}");
    let (_, err) = run(p, &["src/main/java/a/Other.java"], "json", true, &[]);
    assert_eq!(taken(&err), (n, n), "{err}");
}

#[test]
fn an_edit_inside_one_method_analyses_that_method_again() {
    let repo = repository();
    let p = repo.path();
    let _ = run(p, &["."], "json", true, &[]);
    // The same summary: its callers are taken from the cache.
    write(
        p,
        "Keys.java",
        &STABLE_KEYS.replace("\"charge-\"", "\"pay-\""),
    );
    let (report, (reused, n)) = hook(p, &["src/main/java/a/Keys.java"]);
    assert!(rules(&report).is_empty(), "{report}");
    assert!(n > 2 && reused > 0 && n - reused <= 2, "{reused} of {n}");
}

#[test]
fn an_edit_of_a_callee_in_another_file_is_seen_by_the_hook() {
    let repo = repository();
    let p = repo.path();
    let (full, _) = hook(p, &["."]);
    assert!(rules(&full).is_empty(), "{full}");
    // A random key that reaches the sink in the caller.
    write(p, "Keys.java", RANDOM_KEYS);
    let (staged, _) = hook(p, &["src/main/java/a/Keys.java"]);
    assert_eq!(rules(&staged), vec!["RL001 src/main/java/a/Billing.java:9"]);
    let (caller, (reused, n)) = hook(p, &["src/main/java/a/Billing.java"]);
    assert_eq!(rules(&caller), rules(&staged));
    assert_eq!(reused, n, "nothing changed since the last run");
    // And back: the finding goes away.
    write(p, "Keys.java", STABLE_KEYS);
    let (back, _) = hook(p, &["src/main/java/a/Keys.java"]);
    assert!(rules(&back).is_empty(), "{back}");
    let (caller, _) = hook(p, &["src/main/java/a/Billing.java"]);
    assert!(rules(&caller).is_empty(), "{caller}");
}

#[test]
fn an_override_in_a_new_subtype_is_seen_by_the_hook() {
    let repo = repository();
    let p = repo.path();
    let _ = hook(p, &["."]);
    // Billing's keys may now be a RandomKeys, whose `next` mints a fresh key per attempt.
    write(
        p,
        "RandomKeys.java",
        "package a;\nclass RandomKeys extends Keys {\n  @Override\n  String next(String orderId) { return java.util.UUID.randomUUID().toString(); }\n}\n",
    );
    let (staged, _) = hook(p, &["src/main/java/a/RandomKeys.java"]);
    let (full, _) = hook(p, &["."]);
    assert!(!rules(&full).is_empty(), "{full}");
    assert_eq!(rules(&staged), rules(&full));
}

#[test]
fn a_declaration_change_is_seen_by_the_hook() {
    let repo = repository();
    let p = repo.path();
    write(
        p,
        "RandomKeys.java",
        "package a;\nclass RandomKeys extends Keys {\n  @Override\n  String next(String orderId) { return java.util.UUID.randomUUID().toString(); }\n  @Override\n  String refundKey(String orderId) { return \"r-\" + orderId; }\n}\n",
    );
    let _ = hook(p, &["."]);
    // Billing now holds the subtype: a field's type changed.
    let billing = p.join("src/main/java/a/Billing.java");
    let text = std::fs::read_to_string(&billing).unwrap();
    std::fs::write(
        &billing,
        text.replace("final Keys keys", "final RandomKeys keys"),
    )
    .unwrap();
    let (staged, _) = hook(p, &["src/main/java/a/Billing.java"]);
    let (full, _) = hook(p, &["."]);
    assert_eq!(rules(&staged), rules(&full));
}

#[test]
fn a_catalogue_row_in_the_configuration_is_seen_by_the_hook() {
    let repo = repository();
    let p = repo.path();
    // Tag.label becomes a key sink through a row of retrylint.toml.
    write(
        p,
        "Other.java",
        "package a;\nimport org.springframework.retry.annotation.Retryable;\nclass Other {\n  private final Tags tags = new Tags();\n  @Retryable\n  void run(Tag t) { tags.put(t, java.util.UUID.randomUUID().toString()); }\n}\n",
    );
    write(
        p,
        "Tags.java",
        "package a;\nclass Tags {\n  void put(Tag t, String s) { t.label(s); }\n}\n",
    );
    write(
        p,
        "Tag.java",
        "package a;\nclass Tag {\n  void label(String s) {}\n}\n",
    );
    let (before, _) = hook(p, &["src/main/java/a/Other.java"]);
    std::fs::write(
        p.join("retrylint.toml"),
        "[[sinks.method]]\nid = \"sink.test-tag-label\"\nnames = [\"label\"]\n",
    )
    .unwrap();
    let (after, (reused, _)) = hook(p, &["src/main/java/a/Other.java"]);
    assert_eq!(reused, 0, "another catalogue takes nothing from the cache");
    assert_ne!(rules(&before), rules(&after), "{after}");
    let (full, _) = hook(p, &["."]);
    assert_eq!(rules(&after), rules(&full));
}

#[test]
fn another_tool_version_takes_nothing_from_the_cache() {
    let repo = repository();
    let p = repo.path();
    write(p, "Keys.java", RANDOM_KEYS);
    let (report, _) = hook(p, &["src/main/java/a/Keys.java"]);
    let version = [("RETRYLINT_TEST_TOOL_VERSION", "99.0.0")];
    let (other, (reused, n)) = hook_with(p, &["src/main/java/a/Keys.java"], &version);
    assert!(reused == 0 && n > 0 && other == report);
    // Its own entries are written and taken while the version stays.
    let (again, (reused, n)) = hook_with(p, &["src/main/java/a/Keys.java"], &version);
    assert!(reused == n && again == other);
}

/// A Resilience4j retry under a circuit breaker: whether the retry runs inside the breaker
/// (and can fire) is decided by the aspect order in `application.yml`.
#[test]
fn an_application_setting_that_decides_a_region_is_seen_by_the_hook() {
    let dir = maven_repository("payouts");
    let p = dir.path();
    std::fs::create_dir_all(p.join("src/main/resources")).unwrap();
    write(
        p,
        "Payouts.java",
        "package a;\n\
         import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;\n\
         import io.github.resilience4j.retry.annotation.Retry;\n\
         class Payouts {\n\
         \x20 private final Keys keys = new Keys();\n\
         \x20 @Retry(name = \"psp\")\n\
         \x20 @CircuitBreaker(name = \"psp\", fallbackMethod = \"later\")\n\
         \x20 String pay(String account, long cents) throws com.stripe.exception.StripeException {\n\
         \x20   com.stripe.param.PayoutCreateParams params = com.stripe.param.PayoutCreateParams.builder().setAmount(cents).setCurrency(\"eur\").build();\n\
         \x20   return com.stripe.model.Payout.create(params, com.stripe.net.RequestOptions.builder().setIdempotencyKey(keys.fresh(account)).build()).getId();\n\
         \x20 }\n\
         \x20 private String later(String account, long cents, Throwable t) { return null; }\n\
         }\n",
    );
    write(
        p,
        "Keys.java",
        "package a;\nclass Keys {\n  String fresh(String account) { return account + \":\" + java.util.UUID.randomUUID(); }\n}\n",
    );
    let settings = p.join("src/main/resources/application.yml");
    let inside = "resilience4j:\n  retry:\n    retry-aspect-order: 2\n  circuitbreaker:\n    circuit-breaker-aspect-order: 1\n";
    let outside = "resilience4j:\n  retry:\n    retry-aspect-order: 1\n  circuitbreaker:\n    circuit-breaker-aspect-order: 2\n";
    std::fs::write(&settings, inside).unwrap();
    let staged = ["src/main/java/a/Keys.java"];
    let (fires, _) = hook(p, &staged);
    std::fs::write(&settings, outside).unwrap();
    let (never, (reused, _)) = hook(p, &staged);
    assert_eq!(reused, 0, "other settings take nothing from the cache");
    assert_ne!(rules(&fires), rules(&never), "{fires}\n{never}");
    std::fs::write(&settings, inside).unwrap();
    let (again, _) = hook(p, &staged);
    assert_eq!(rules(&again), rules(&fires));
}

/// An AWS Lambda handler that reports each failed message in a partial batch response: the
/// report fails the message (it is delivered again, with a new key) only where an event source
/// mapping enables it, and the stack that declares the mapping (or a SAM template that enables
/// the report) is another file, not staged.
#[test]
fn an_event_source_in_another_file_that_reads_item_failures_is_seen_by_the_hook() {
    let dir = maven_repository("payouts");
    let p = dir.path();
    write(
        p,
        "PayoutHandler.java",
        "package a;\n\
         import com.amazonaws.services.lambda.runtime.Context;\n\
         import com.amazonaws.services.lambda.runtime.RequestHandler;\n\
         import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;\n\
         import com.amazonaws.services.lambda.runtime.events.SQSEvent;\n\
         public class PayoutHandler implements RequestHandler<SQSEvent, SQSBatchResponse> {\n\
         \x20 private final Payouts payouts = new Payouts();\n\
         \x20 public SQSBatchResponse handleRequest(SQSEvent event, Context context) {\n\
         \x20   java.util.List<SQSBatchResponse.BatchItemFailure> failed = new java.util.ArrayList<>();\n\
         \x20   for (SQSEvent.SQSMessage m : event.getRecords()) {\n\
         \x20     try {\n\
         \x20       payouts.pay(m.getBody());\n\
         \x20     } catch (RuntimeException e) {\n\
         \x20       failed.add(new SQSBatchResponse.BatchItemFailure(m.getMessageId()));\n\
         \x20     }\n\
         \x20   }\n\
         \x20   return new SQSBatchResponse(failed);\n\
         \x20 }\n\
         }\n",
    );
    write(
        p,
        "Payouts.java",
        "package a;\n\
         class Payouts {\n\
         \x20 void pay(String body) {\n\
         \x20   com.stripe.net.RequestOptions o = com.stripe.net.RequestOptions.builder().setIdempotencyKey(java.util.UUID.randomUUID().toString()).build();\n\
         \x20   try {\n\
         \x20     com.stripe.model.Payout.create(com.stripe.param.PayoutCreateParams.builder().setAmount(Long.parseLong(body)).setCurrency(\"eur\").build(), o);\n\
         \x20   } catch (com.stripe.exception.StripeException e) {\n\
         \x20     throw new IllegalStateException(e);\n\
         \x20   }\n\
         \x20 }\n\
         }\n",
    );
    let stack = |reads: &str| {
        format!(
            "package a;\n\
             import software.amazon.awscdk.services.lambda.eventsources.SqsEventSource;\n\
             class PayoutStack {{\n\
             \x20 void wire(software.amazon.awscdk.services.lambda.Function f, software.amazon.awscdk.services.sqs.Queue q) {{\n\
             \x20   f.addEventSource(SqsEventSource.Builder.create(q).batchSize(10){reads}.build());\n\
             \x20 }}\n\
             }}\n"
        )
    };
    write(p, "PayoutStack.java", &stack(""));
    let staged = ["src/main/java/a/Payouts.java"];
    let (ignored, _) = hook(p, &staged);
    assert_eq!(rules(&ignored), Vec::<String>::new(), "{ignored}");
    write(
        p,
        "PayoutStack.java",
        &stack(".reportBatchItemFailures(true)"),
    );
    let (read, _) = hook(p, &staged);
    assert_eq!(
        rules(&read),
        vec!["RL001 src/main/java/a/Payouts.java:4".to_string()],
        "{read}"
    );
    write(p, "PayoutStack.java", &stack(""));
    let (again, _) = hook(p, &staged);
    assert_eq!(rules(&again), rules(&ignored));
    // A deployment descriptor that enables the report for the handler: read again.
    let template = p.join("template.yaml");
    std::fs::write(
        &template,
        "Resources:\n  Payouts:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events:\n        Queue:\n          Type: SQS\n          Properties:\n            FunctionResponseTypes:\n              - ReportBatchItemFailures\n",
    )
    .unwrap();
    let (templated, _) = hook(p, &staged);
    assert_eq!(rules(&templated), rules(&read), "{templated}");
    std::fs::remove_file(&template).unwrap();
    let (removed, _) = hook(p, &staged);
    assert_eq!(rules(&removed), rules(&ignored));
}

#[test]
fn no_cache_neither_reads_nor_writes_summaries() {
    let repo = repository();
    let p = repo.path();
    let _ = run(p, &["."], "json", false, &[]);
    assert!(!p.join(".retrylint_cache/summaries").exists());
    let _ = run(p, &["."], "json", true, &[]);
    let written = std::fs::read_dir(p.join(".retrylint_cache/summaries"))
        .unwrap()
        .count();
    assert_eq!(written, 1);
}

/// How many scans (call-graph edges, regions made by calls, and the per-file scans) the run
/// took from the cache, and how many it ran.
fn scans(stderr: &str) -> (usize, usize) {
    let line = stderr
        .lines()
        .rfind(|l| l.contains("scan cache:"))
        .unwrap_or_else(|| panic!("no scan cache line in {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "cache:").unwrap();
    let run = words.iter().rposition(|w| *w == "run").unwrap();
    (
        words[at + 1].parse().unwrap(),
        words[run - 1].trim_end_matches(',').parse().unwrap(),
    )
}

#[test]
fn an_unchanged_project_takes_every_scan_from_the_cache() {
    let repo = repository();
    let p = repo.path();
    let (_, err) = run(p, &["."], "json", true, &[]);
    let (reused, ran) = scans(&err);
    assert!(reused == 0 && ran > 0, "{err}");
    let (_, err) = run(p, &["src/main/java/a/Other.java"], "json", true, &[]);
    assert_eq!(scans(&err), (ran, 0), "{err}");
    // A body edit runs again the scans of the edited file only: three of the file (the calls
    // stored functions start from, the region candidates, the calls by name) and two of each
    // of its two methods (call-graph edges, regions made by calls).
    write(
        p,
        "Keys.java",
        &STABLE_KEYS.replace("\"charge-\"", "\"pay-\""),
    );
    let (_, err) = run(p, &["src/main/java/a/Keys.java"], "json", true, &[]);
    let (reused, again) = scans(&err);
    assert!(reused > again && again > 0 && again <= 7, "{err}");
}

/// A retry callback that a body edit adds in one file, around a call of a method in another
/// file that mints a fresh key: the region (a scan of the edited method) and the call-graph
/// edge into the other file are seen by a hook on either file, and go away with the edit.
#[test]
fn a_region_and_a_call_made_by_a_body_edit_are_seen_by_the_hook() {
    let repo = repository();
    let p = repo.path();
    write(
        p,
        "Payments.java",
        "package a;\nimport org.springframework.retry.support.RetryTemplate;\nclass Payments {\n  private final RetryTemplate retryTemplate;\n  private final Client client;\n  private final Minter minter;\n  Payments(RetryTemplate t, Client c, Minter m) { this.retryTemplate = t; this.client = c; this.minter = m; }\n  void pay(String orderId) {\n    client.setIdempotencyKey(\"pay-\" + orderId);\n    client.send();\n  }\n}\n",
    );
    write(
        p,
        "Minter.java",
        "package a;\nclass Minter {\n  void sendFresh(Client client) {\n    client.setIdempotencyKey(java.util.UUID.randomUUID().toString());\n    client.send();\n  }\n}\n",
    );
    let (before, _) = hook(p, &["."]);
    assert!(rules(&before).is_empty(), "{before}");
    let payments = p.join("src/main/java/a/Payments.java");
    let plain = std::fs::read_to_string(&payments).unwrap();
    let retried = plain.replace(
        "    client.setIdempotencyKey(\"pay-\" + orderId);\n    client.send();\n",
        "    retryTemplate.execute(ctx -> { minter.sendFresh(client); return null; });\n",
    );
    std::fs::write(&payments, &retried).unwrap();
    let (staged, _) = hook(p, &["src/main/java/a/Payments.java"]);
    let (other, _) = hook(p, &["src/main/java/a/Minter.java"]);
    let (full, _) = hook(p, &["."]);
    assert!(!rules(&full).is_empty(), "{full}");
    // The finding is at the sink in Minter, through the region in Payments: both hooks
    // report it.
    assert_eq!(rules(&staged), rules(&full));
    assert_eq!(rules(&other), rules(&full));
    std::fs::write(&payments, &plain).unwrap();
    let (back, _) = hook(p, &["src/main/java/a/Minter.java"]);
    assert!(rules(&back).is_empty(), "{back}");
    let (back, _) = hook(p, &["."]);
    assert!(rules(&back).is_empty(), "{back}");
}

/// The summary cache's files, each with its contents.
fn summary_files(repo: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(repo.join(".retrylint_cache/summaries"))
        .unwrap()
        .flatten()
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .collect();
    out.sort();
    out
}

/// A project of many files (each with a sink call, so every file is parsed and scanned): a
/// body edit that changes few of the cache's entries leaves the cache file as it was, and the
/// runs after it, whatever they edit, still report what a run without a cache does and
/// analyse again only what changed since the file was written; many edited files rewrite it.
#[test]
fn a_small_edit_leaves_the_cache_file_and_later_runs_stay_right() {
    let repo = repository();
    let p = repo.path();
    let filler = |i: usize, word: &str| {
        format!(
            "package a;\nclass Filler{i} {{\n  private final Client client;\n  Filler{i}(Client client) {{ this.client = client; }}\n  void tag(String id) {{ client.setIdempotencyKey(\"{word}-\" + id); }}\n  int size(int x) {{ return x * 2; }}\n}}\n"
        )
    };
    for i in 0..600 {
        write(p, &format!("Filler{i}.java"), &filler(i, "tag"));
    }
    let (full, _) = hook(p, &["."]);
    assert!(rules(&full).is_empty(), "{full}");
    let written = summary_files(p);
    assert_eq!(written.len(), 1);
    // One method's body: the file stays as it was.
    write(
        p,
        "Keys.java",
        &STABLE_KEYS.replace("\"charge-\"", "\"pay-\""),
    );
    let (report, (reused, n)) = hook(p, &["src/main/java/a/Keys.java"]);
    assert!(rules(&report).is_empty(), "{report}");
    assert!(n > 2 && reused > 0 && n - reused <= 2, "{reused} of {n}");
    assert_eq!(
        summary_files(p),
        written,
        "a small edit rewrote the cache file"
    );
    // A callee edit in the same file that makes a finding, on top of the one not written:
    // both edited methods are analysed again, and the report is a run's without cache.
    write(p, "Keys.java", RANDOM_KEYS);
    let (random, (reused, n)) = hook(p, &["src/main/java/a/Billing.java"]);
    assert!(!rules(&random).is_empty(), "{random}");
    assert!(n - reused <= 3, "{reused} of {n}");
    let (random_keys, _) = hook(p, &["src/main/java/a/Keys.java"]);
    assert_eq!(rules(&random_keys), rules(&random));
    write(p, "Keys.java", STABLE_KEYS);
    let (back, _) = hook(p, &["src/main/java/a/Billing.java"]);
    assert!(rules(&back).is_empty(), "{back}");
    assert_eq!(summary_files(p), written);
    // Bodies edited in a tenth of the files: the file is written again, and the next run
    // takes everything from it.
    for i in 0..60 {
        write(p, &format!("Filler{i}.java"), &filler(i, "label"));
    }
    let (_, err) = run(p, &["."], "json", true, &[]);
    let (_, ran) = scans(&err);
    assert!(ran >= 60, "{err}");
    assert_ne!(
        summary_files(p),
        written,
        "many edits did not rewrite the cache file"
    );
    let (_, err) = run(p, &["."], "json", true, &[]);
    assert_eq!(scans(&err).1, 0, "{err}");
    let (reused, n) = taken(&err);
    assert_eq!(reused, n, "{err}");
}

/// The prefilter gives up when the files with an effect word name what most other files hold
/// (here twelve callers of the retried method), and a run with the same inputs to that round
/// gives up at once; once the callers stop naming it, the round runs again and parses only
/// what can matter (the file with a syntax error, which nothing names, is then not parsed).
/// Every report is byte for byte a run's without any cache.
#[test]
fn a_prefilter_that_gave_up_gives_up_at_once_while_its_inputs_are_the_same() {
    let repo = repository();
    let p = repo.path();
    let caller = |i: usize, calls: bool| {
        if calls {
            format!(
                "package a;\nclass Caller{i} {{\n  private final Billing billing;\n  Caller{i}(Billing billing) {{ this.billing = billing; }}\n  void run(String id) {{ billing.charge(id); }}\n}}\n"
            )
        } else {
            format!(
                "package a;\nclass Caller{i} {{\n  void print(String id) {{ System.out.println(id); }}\n}}\n"
            )
        }
    };
    for i in 0..12 {
        write(p, &format!("Caller{i}.java"), &caller(i, true));
    }
    write(
        p,
        "Broken.java",
        "package a;\nclass Broken {\n  void f( {\n}\n",
    );
    // The JSON report and standard error of the first run, each format's report with the
    // cache byte for byte its report without.
    let same = |args: &[&str]| {
        let mut first = None;
        for format in FORMATS {
            let (warm, err) = run(p, args, format, true, &[]);
            let (cold, _) = run(p, args, format, false, &[]);
            assert_eq!(warm, cold, "the cache changed the {format} report");
            first.get_or_insert((warm, err));
        }
        first.unwrap()
    };
    // A stamp taken within two seconds of the record's saving is not trusted.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let gave_up = |err: &str| err.contains("backward round: gave up as the last run did");
    let (_, err) = run(p, &["."], "json", true, &[]);
    assert!(!gave_up(&err), "{err}");
    let (report, err) = same(&["."]);
    assert!(gave_up(&err), "{err}");
    assert!(report.contains("Broken.java"), "{report}");
    // A caller's body edited: its scan changed, the others still want more than half.
    std::fs::write(
        p.join("src/main/java/a/Caller3.java"),
        caller(3, true).replace("charge(id);", "charge(id + \"x\");"),
    )
    .unwrap();
    let (_, err) = same(&["src/main/java/a/Caller3.java"]);
    assert!(gave_up(&err), "{err}");
    // Most callers call something else: the round runs, and does not give up.
    for i in 0..10 {
        write(p, &format!("Caller{i}.java"), &caller(i, false));
    }
    let (report, err) = same(&["."]);
    assert!(!gave_up(&err), "{err}");
    assert!(!report.contains("Broken.java"), "{report}");
    // Back: the scans are those the round gave up with, which is known again.
    for i in 0..10 {
        write(p, &format!("Caller{i}.java"), &caller(i, true));
    }
    let (report, err) = same(&["."]);
    assert!(gave_up(&err), "{err}");
    assert!(report.contains("Broken.java"), "{report}");
    // A file with an effect word edited, as a pre-commit run follows an edit of payment code:
    // one of them (one in a hundred, at least one) may change, and the round gives up at once.
    write(
        p,
        "Client.java",
        "package a;\nclass Client {\n  void setIdempotencyKey(String k) { }\n  void send() { }\n}\n",
    );
    let (_, err) = same(&["src/main/java/a/Client.java"]);
    assert!(gave_up(&err), "{err}");
    // A second one edited: more changed than that, and the round runs (and gives up again).
    write(
        p,
        "Other.java",
        "package a;\nclass Other {\n  int size() { return 1; }\n  void send(Client c) { c.setIdempotencyKey(\"k\"); }\n}\n",
    );
    let (_, err) = same(&["."]);
    assert!(!gave_up(&err), "{err}");
}

/// How many files the run took from the facts pack, of how many, at its last count.
fn packed(stderr: &str) -> (usize, usize) {
    let line = stderr
        .lines()
        .rfind(|l| l.contains("files taken from the pack"))
        .unwrap_or_else(|| panic!("no facts count: {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "facts:").unwrap();
    (
        words[at + 1].parse().unwrap(),
        words[at + 3].parse().unwrap(),
    )
}

fn pack_file(repo: &Path) -> Vec<u8> {
    let dir = std::fs::read_dir(repo.join(".retrylint_cache"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("facts-")
        })
        .expect("a facts directory");
    std::fs::read(dir.join("pack")).expect("a facts pack")
}

/// The facts of every file come from one pack written by the run before: an edited file's from
/// its own entry (the pack stays as it was while few files are edited), many edited files
/// write the pack again; a pack sealed on another machine is not used; every report is byte for
/// byte a run's without any cache.
#[test]
fn the_facts_pack_serves_unchanged_files_and_is_rewritten_after_many_edits() {
    let repo = repository();
    let p = repo.path();
    let filler = |i: usize, word: &str| {
        format!(
            "package a;\nclass Filler{i} {{\n  private final Client client;\n  Filler{i}(Client client) {{ this.client = client; }}\n  void tag(String id) {{ client.setIdempotencyKey(\"{word}-\" + id); }}\n}}\n"
        )
    };
    for i in 0..300 {
        write(p, &format!("Filler{i}.java"), &filler(i, "tag"));
    }
    let (_, err) = run(p, &["."], "json", true, &[]);
    assert_eq!(packed(&err).0, 0, "{err}");
    let written = pack_file(p);
    let (full, _) = hook(p, &["."]);
    let (_, err) = run(p, &["."], "json", true, &[]);
    let (from_pack, n) = packed(&err);
    assert!(n >= 300 && from_pack == n, "{from_pack} of {n}");
    // A callee edited to mint a fresh key: its facts come from outside the pack, which stays.
    write(p, "Keys.java", RANDOM_KEYS);
    let (random, _) = hook(p, &["src/main/java/a/Billing.java"]);
    assert!(!rules(&random).is_empty(), "{random}");
    let (_, err) = run(p, &["src/main/java/a/Billing.java"], "json", true, &[]);
    assert_eq!(packed(&err), (n - 1, n), "{err}");
    assert_eq!(pack_file(p), written, "one edit rewrote the pack");
    write(p, "Keys.java", STABLE_KEYS);
    let (back, _) = hook(p, &["."]);
    assert_eq!(back, full);
    // Edits of a tenth of the files: the pack is written again and then serves every file.
    for i in 0..30 {
        write(p, &format!("Filler{i}.java"), &filler(i, "label"));
    }
    let (edited, _) = hook(p, &["."]);
    assert_ne!(pack_file(p), written, "many edits did not rewrite the pack");
    let (_, err) = run(p, &["."], "json", true, &[]);
    assert_eq!(packed(&err).0, packed(&err).1, "{err}");
    let (again, _) = hook(p, &["."]);
    assert_eq!(again, edited);
    // Another machine's key: the pack is refused and every file's facts made again.
    let keys = tempfile::tempdir().unwrap();
    let (other, err) = run(
        p,
        &["."],
        "json",
        true,
        &[("XDG_CACHE_HOME", keys.path().to_str().unwrap())],
    );
    assert_eq!(packed(&err).0, 0, "{err}");
    assert_eq!(other, again);
}

use super::*;

fn user(text: &str) -> Vec<(String, String)> {
    vec![("acme.toml".to_string(), text.to_string())]
}

#[test]
fn builtin_catalogue_parses() {
    let c = Catalogue::parse().expect("catalogue parses");
    assert!(!c.regions.annotation.is_empty());
    assert!(c.is_key_param("idempotencyKey"));
    assert!(c.is_key_param("dedup_id"));
    assert!(c.is_key_param("clientToken"));
    assert!(!c.is_key_param("operationId"));
    assert!(c.is_idempotency_header("idempotency-key"));
    assert!(c.is_idempotency_header("PAYPAL_REQUEST_ID"));
    assert!(!c.is_idempotency_header("X-Request-Id"));
    // SPEC 5: key names by pattern, and providers' own names.
    for yes in [
        "Idempotence-Key",
        "X-Idempotency-Key",
        "chargebee-idempotency-key",
        "Square-Idempotency-Key",
        "idempotency_key",
        "idempotencyKey",
        "Idempotency-Token",
        "X-Idempotent-Id",
        "idempotency",
        "MessageDeduplicationId",
        "dedup_key",
        "clientToken",
        "ClientRequestToken",
        "PayPal-Request-Id",
        "Cko-Idempotency-Key",
    ] {
        assert!(c.is_idempotency_header(yes), "{yes}");
    }
    for no in [
        "idempotency_expiry",
        "Idempotency-Replayed",
        "X-Correlation-Id",
        "traceId",
        "request_id",
        "deduplicationScope",
        "",
    ] {
        assert!(!c.is_idempotency_header(no), "{no}");
    }
    assert_eq!(c.key_sink_arg("setIdempotencyKey"), Some(0));
    assert_eq!(c.key_sink_arg("setRequestId"), None);
}

#[test]
fn every_builtin_row_has_a_well_formed_unique_id() {
    let c = Catalogue::parse().unwrap();
    let mut ids: Vec<&str> = c.rows().iter().map(|r| r.id.as_str()).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate ids");
    for r in c.rows() {
        let prefix = match r.table.split('.').next() {
            Some("regions") => "region.",
            Some("sources") => "source.",
            Some("sinks") => "sink.",
            Some("guards") => "guard.",
            Some("side_effects") => "side-effect.",
            other => panic!("table {other:?}"),
        };
        assert!(r.id.starts_with(prefix), "{} in {}", r.id, r.table);
        assert!(!r.label.is_empty(), "{} has no label", r.id);
        assert!(r.file.starts_with("rules/"), "{}", r.file);
    }
    assert!(ids.contains(&"source.uuid-random"));
    assert!(ids.contains(&"sink.idempotency-key-header"));
}

#[test]
fn a_users_file_with_one_table_adds_its_rows() {
    let c = Catalogue::compile(
        &user("[[sinks.method]]\nid = \"sink.acme-dedup-token\"\nnames = [\"withDedupToken\"]\n"),
        &[],
    )
    .unwrap();
    assert_eq!(c.key_sink_arg("withDedupToken"), Some(0));
    assert_eq!(c.key_sink_arg("setIdempotencyKey"), Some(0));
    let row = c
        .rows()
        .iter()
        .find(|r| r.id == "sink.acme-dedup-token")
        .unwrap();
    assert_eq!(
        (row.table, row.file.as_str()),
        ("sinks.method", "acme.toml")
    );
    let c = Catalogue::compile(
        &user("[[sinks.parameter]]\nid = \"sink.acme-op-ref\"\ncontains = [\"Op_Ref\"]\n"),
        &[],
    )
    .unwrap();
    assert!(
        c.is_key_param("opRefNumber"),
        "normalized like the built-in rows"
    );
}

#[test]
fn unknown_keys_name_file_line_and_column() {
    let e = Catalogue::compile(
        &user(
            "[[sources.source]]\nid = \"source.x\"\nkind = \"random\"\nclasses = []\nstatik = []\n",
        ),
        &[],
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("bad catalogue file acme.toml:5:1: unknown field `statik`"),
        "{msg}"
    );
    assert!(!msg.contains('\n'), "{msg}");
    // The shape before row ids: `[sinks] methods = […]`.
    let e =
        Catalogue::compile(&user("[sinks]\nmethods = [\"withDedupToken\"]\n"), &[]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("bad catalogue file acme.toml:2:1: unknown field `methods`"),
        "{e}"
    );
    let e = Catalogue::compile(&user("[[sinks.method]]\nnames = [\"x\"]\n"), &[]).unwrap_err();
    assert!(e.to_string().contains("missing field `id`"), "{e}");
}

#[test]
fn ids_are_checked_and_unique() {
    let e = Catalogue::compile(
        &user("[[sinks.header]]\nid = \"sink.paypal-request-id-header\"\nnames = [\"X\"]\n"),
        &[],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad catalogue file acme.toml: row id `sink.paypal-request-id-header` is already used by a row of rules/sinks.toml"
    );
    let two = "[[sinks.header]]\nid = \"sink.acme\"\nnames = [\"X\"]\n[[sinks.method]]\nid = \"sink.acme\"\nnames = [\"y\"]\n";
    let e = Catalogue::compile(&user(two), &[]).unwrap_err();
    assert!(
        matches!(&e, CatalogueError::DuplicateId { id, file, .. } if id == "sink.acme" && file == "acme.toml"),
        "{e}"
    );
    for bad in [
        "source.acme",
        "sink.Acme",
        "sink.acme_x",
        "sink.",
        "sink.a--b",
        "acme",
    ] {
        let text = format!("[[sinks.header]]\nid = \"{bad}\"\nnames = [\"X\"]\n");
        let e = Catalogue::compile(&user(&text), &[]).unwrap_err();
        assert!(
            matches!(&e, CatalogueError::BadId { id, prefix: "sink", .. } if id == bad),
            "{bad}: {e}"
        );
    }
}

#[test]
fn disabled_rows_match_nothing() {
    let off = |id: &str| vec![(id.to_string(), "--disable-row".to_string())];
    let c = Catalogue::compile(&[], &off("sink.paypal-request-id-header")).unwrap();
    assert!(!c.is_idempotency_header("PayPal-Request-Id"));
    assert!(c.is_idempotency_header("Idempotency-Key"));
    assert!(
        !c.rows()
            .iter()
            .any(|r| r.id == "sink.paypal-request-id-header")
    );
    let c = Catalogue::compile(&[], &off("source.uuid-random")).unwrap();
    let uuid = |c: &Catalogue| {
        c.sources
            .source
            .iter()
            .any(|s| s.classes.iter().any(|k| k == "java.util.UUID"))
    };
    assert!(!uuid(&c));
    assert!(uuid(&Catalogue::parse().unwrap()));
    let e = Catalogue::compile(&[], &off("source.uuid-randm")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown catalogue row `source.uuid-randm` (--disable-row); did you mean `source.uuid-random`? (see `retrylint catalogue`)"
    );
    let e = Catalogue::compile(&[], &off("zzz")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown catalogue row `zzz` (--disable-row); `retrylint catalogue` lists the row ids"
    );
    // A user's row can be disabled too.
    let rows = user("[[sinks.method]]\nid = \"sink.acme-token\"\nnames = [\"withAcmeToken\"]\n");
    let c = Catalogue::compile(&rows, &off("sink.acme-token")).unwrap();
    assert_eq!(c.key_sink_arg("withAcmeToken"), None);
}

#[test]
fn globs() {
    assert!(glob("next*", "nextInt"));
    assert!(glob("*Snowflake*", "MySnowflakeGen"));
    assert!(glob("*IdWorker", "SnowIdWorker"));
    assert!(!glob("next*", "ints"));
    assert!(glob("ints", "ints"));
    // One `*` inside: a prefix and a suffix, with anything or nothing between.
    assert!(glob("acquire*Lock", "acquireJobLock"));
    assert!(glob("acquire*Lock", "acquireLock"));
    assert!(!glob("acquire*Lock", "acquireLockTimeout"));
    assert!(!glob("acquire*Lock", "releaseJobLock"));
    assert!(!glob("ab*ba", "aba"));
}

#[test]
fn alert_keys_are_known_by_their_row() {
    let c = Catalogue::parse().expect("catalogue parses");
    let names = &c.sinks.headers.names;
    // PagerDuty's `dedup_key`, however it is spelled, is an alert's key; other keys are not.
    for alert in ["dedup_key", "dedupKey", "DEDUP-KEY"] {
        let row = names.alert_row(alert).expect(alert);
        assert!(c.is_alert_key(row), "{alert}");
    }
    for other in [
        "Idempotency-Key",
        "MessageDeduplicationId",
        "message_dedup_key",
    ] {
        assert!(names.alert_row(other).is_none(), "{other}");
    }
    assert!(!c.is_alert_key("sink.header-map-entry"));
    // Still a key name for RL001–RL003.
    assert!(c.is_idempotency_header("dedup_key"));
}

#[test]
fn lock_sql_ignores_layout() {
    use crate::dataflow::Model;
    let c = Catalogue::parse().expect("catalogue parses");
    assert!(c.is_lock_sql("SELECT id FROM inbox WHERE id = :id FOR UPDATE\n      SKIP   LOCKED"));
    assert!(c.is_lock_sql("UPDATE inbox e SET e.status = 'IN_PROGRESS'\nWHERE e.id = :id"));
    assert!(!c.is_lock_sql("SELECT e.id FROM inbox e WHERE e.status = 'PENDING'"));
}

#[test]
fn derived_queries_name_what_they_select_by() {
    use crate::dataflow::Model;
    let c = Catalogue::parse().expect("catalogue parses");
    let by = |name: &str| c.selected_by(name);
    assert_eq!(
        by("findByStatusAndExpiresAtBefore"),
        ["expiresat", "expiresatbefore", "status"]
    );
    // Subject words before `By`, `OrderBy`, `Or`, and a property that ends like a keyword.
    assert_eq!(
        by("findTop10ByStatusOrLastLoginIsNullOrderByCreatedAtAsc"),
        ["lastlogin", "lastloginisnull", "status"]
    );
    // A property that ends like a keyword is kept whole too.
    assert_eq!(by("findByCheckIn"), ["check", "checkin"]);
    assert_eq!(
        by("findAllByFirstResponseBreachedFalse"),
        ["firstresponsebreached", "firstresponsebreachedfalse"]
    );
    // `Ordinal` and `Organization` are not split at `Or`.
    assert_eq!(by("findByOrganizationId"), ["organizationid"]);
    // Not derived queries: no `By`, or not a finder.
    assert!(by("findFirstResponseBreaches").is_empty());
    assert!(by("save").is_empty());
    assert!(by("deleteByStatus").is_empty());
    assert_eq!(c.set_property("setStatus").as_deref(), Some("status"));
    assert_eq!(
        c.set_property("setReminderSentAt").as_deref(),
        Some("remindersentat")
    );
    assert_eq!(c.set_property("settle"), None);
}

#[test]
fn outbox_rows_name_region_rows() {
    let c = Catalogue::parse().expect("catalogue parses");
    let ids: Vec<&str> = c
        .regions
        .annotation
        .iter()
        .map(|r| r.id.as_str())
        .chain(c.regions.pipeline.iter().map(|r| r.id.as_str()))
        .collect();
    for o in &c.guards.outbox {
        for r in o.regions.iter().chain(&o.framework_transactions) {
            assert!(ids.contains(&r.as_str()), "{}: no region row {r}", o.id);
        }
    }
}

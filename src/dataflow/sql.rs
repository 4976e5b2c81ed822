//! The SQL of a project query method, read for what it stores: a parameter written only into a
//! new row — `insert … on conflict do nothing`, `insert ignore`, or an upsert whose update leaves
//! that column alone (`on conflict (…) do update set status = …`, `on duplicate key update …`) —
//! keeps the value the first insert stored. A key offered anew on every attempt is then a
//! put-if-absent of the database (SPEC 7.4): the row keeps the first attempt's key.

/// Quotes around an identifier (`"key"`, `` `key` ``).
const QUOTES: &[char] = &['"', '`'];

/// Is the parameter bound as `:name` stored only when the statement inserts a new row, and never
/// overwritten by its conflict clause?
pub(super) fn stored_only_if_absent(sql: &str, name: &str) -> bool {
    let t = sql
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let name = format!(":{}", name.to_lowercase());
    let Some(rest) = t.strip_prefix("insert ") else {
        return false;
    };
    let ignore = rest.starts_with("ignore ");
    let Some(column) = inserted_column(rest, &name) else {
        return false;
    };
    if ignore || t.contains(" on conflict do nothing") || conflict_do_nothing(&t) {
        return true;
    }
    let updates = if let Some(i) = t.find(" do update set ") {
        &t[i + " do update set ".len()..]
    } else if let Some(i) = t.find(" on duplicate key update ") {
        &t[i + " on duplicate key update ".len()..]
    } else {
        return false;
    };
    let updates = updates.split(" where ").next().unwrap_or(updates);
    !top_level(updates).iter().any(|a| {
        let lhs = a.split('=').next().unwrap_or("").trim();
        let lhs = lhs.rsplit('.').next().unwrap_or(lhs).trim_matches(QUOTES);
        lhs == column
    })
}

/// `on conflict (a, b) do nothing`, `on conflict on constraint c do nothing`.
fn conflict_do_nothing(t: &str) -> bool {
    t.find(" on conflict ")
        .is_some_and(|i| t[i..].contains(" do nothing") && !t[i..].contains(" do update "))
}

/// The column of `insert into t (c1, c2) values (v1, v2)` whose value is `param`.
fn inserted_column(rest: &str, param: &str) -> Option<String> {
    let open = rest.find('(')?;
    let cols = group(&rest[open..])?;
    let after = &rest[open + cols.len() + 2..];
    let values = after.trim_start().strip_prefix("values")?.trim_start();
    let vals = group(values)?;
    let cols = top_level(cols);
    let vals = top_level(vals);
    if cols.len() != vals.len() {
        return None;
    }
    let i = vals.iter().position(|v| v.trim() == param)?;
    Some(cols[i].trim().trim_matches(QUOTES).to_string())
}

/// The text inside the parenthesised group `s` starts with.
fn group(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at the commas outside parentheses and quotes.
fn top_level(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, ch) in s.char_indices() {
        match ch {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The columns or properties a query's conditions test (`… where e.status = 'OPEN' and
/// e.dueAt < :now`: `status`, `dueat`), each as [`super::sweeps::property_key`] spells it: the
/// name (or the last segment of a path) right before a comparison, `is`, `in`, `like`,
/// `between` or `not`, in the text after the first `where`.
pub(super) fn selected_columns(sql: &str) -> Vec<String> {
    let lower = sql.to_ascii_lowercase();
    let Some(at) = lower.find(" where ") else {
        return Vec::new();
    };
    let mut rest = &lower[at + 7..];
    for end in [
        " order by ",
        " group by ",
        " limit ",
        " for update",
        " returning ",
    ] {
        if let Some(i) = rest.find(end) {
            rest = &rest[..i];
        }
    }
    let bytes = rest.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        let word = &rest[start..i];
        let bound = start > 0 && matches!(bytes[start - 1], b':' | b'?' | b'\'' | b'@');
        let after = rest[i..].trim_start();
        let compared = after.starts_with(['=', '<', '>', '!'])
            || ["is ", "in ", "in(", "like ", "between ", "not "]
                .iter()
                .any(|k| after.starts_with(k));
        let name = word.rsplit('.').next().unwrap_or(word);
        if compared
            && !bound
            && name.starts_with(|c: char| c.is_ascii_alphabetic())
            && !["and", "or", "not", "where", "is", "null"].contains(&name)
        {
            out.push(super::sweeps::property_key(name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{selected_columns, stored_only_if_absent};

    const UPSERT: &str = "INSERT INTO dispatches (message_id, channel, status, idempotency_key)
        VALUES (:messageId, :channel, 'PROCESSING', :idempotencyKey)
        ON CONFLICT (message_id, channel)
        DO UPDATE SET status = 'PROCESSING', attempts = dispatches.attempts + 1
        WHERE dispatches.status = 'FAILED'";

    #[test]
    fn an_upsert_that_leaves_the_key_keeps_the_first() {
        assert!(stored_only_if_absent(UPSERT, "idempotencyKey"));
        let overwrite = UPSERT.replace(
            "status = 'PROCESSING',",
            "idempotency_key = :idempotencyKey, status = 'PROCESSING',",
        );
        assert!(!stored_only_if_absent(&overwrite, "idempotencyKey"));
        let excluded = UPSERT.replace(
            "status = 'PROCESSING',",
            "idempotency_key = EXCLUDED.idempotency_key, status = 'PROCESSING',",
        );
        assert!(!stored_only_if_absent(&excluded, "idempotencyKey"));
    }

    #[test]
    fn insert_if_absent_forms() {
        assert!(stored_only_if_absent(
            "insert into k (id, key) values (:id, :key) on conflict do nothing",
            "key"
        ));
        assert!(stored_only_if_absent(
            "insert into k (id, key) values (:id, :key) on conflict (id) do nothing",
            "key"
        ));
        assert!(stored_only_if_absent(
            "INSERT IGNORE INTO k (id, `idem`) VALUES (:id, :key)",
            "key"
        ));
        assert!(stored_only_if_absent(
            "insert into k (id, idem) values (:id, :key) on duplicate key update seen = seen + 1",
            "key"
        ));
        assert!(!stored_only_if_absent(
            "insert into k (id, idem) values (:id, :key) on duplicate key update idem = values(idem)",
            "key"
        ));
    }

    #[test]
    fn conditions_name_what_a_query_selects_by() {
        let jpql = "SELECT e FROM EscalationEntity e WHERE e.firstResponseBreached = false \
                    AND e.firstRespondedAt IS NULL AND e.dueAt < :now \
                    AND e.status IN ('OPEN','ASSIGNED') ORDER BY e.createdAt";
        assert_eq!(
            selected_columns(jpql),
            [
                "firstresponsebreached",
                "firstrespondedat",
                "dueat",
                "status"
            ]
        );
        let native = "select * from reminder where status = 'PENDING' and due_at <= ?1 \
                      for update skip locked";
        assert_eq!(selected_columns(native), ["status", "dueat"]);
        assert!(selected_columns("select r from Reminder r").is_empty());
        // A bound parameter on the left is not a column.
        assert_eq!(
            selected_columns("from T t where :k = t.key"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn plain_writes_store_every_time() {
        assert!(!stored_only_if_absent(
            "insert into k (id, idem) values (:id, :key)",
            "key"
        ));
        assert!(!stored_only_if_absent(
            "update k set idem = :key where id = :id",
            "key"
        ));
        assert!(!stored_only_if_absent(
            "insert into k (id, idem) values (:id, :other) on conflict do nothing",
            "key"
        ));
    }
}

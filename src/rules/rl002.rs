use super::{Context, declare_rule};
use crate::findings::Finding;

declare_rule! {
    /// ## What it does
    /// Finds a fine-grained clock value — `System.currentTimeMillis()`, `System.nanoTime()`,
    /// `Instant.now()`, `LocalDateTime.now()`, `new Date()`, `Clock#millis` … — read inside
    /// re-executed code and used in an idempotency key in the same attempt.
    ///
    /// ## Why is this bad?
    /// The clock moves between attempts: the retry after a timeout or backoff reads a later
    /// time, builds a different key, and the provider processes the retry as a new operation.
    /// Formatting or truncating the timestamp (to seconds, to a string) does not help: a retry
    /// a few seconds later still crosses the boundary.
    ///
    /// ## Example
    /// ```java
    /// return retryTemplate.execute(ctx -> {
    ///     String key = orderId + "-" + System.currentTimeMillis();   // differs per attempt
    ///     return client.post(payment, Map.of("Idempotency-Key", key));
    /// });
    /// ```
    ///
    /// ## How to fix
    /// Read the time once, before the retried code, or use a coarse value that identifies the
    /// operation (the billing period as `LocalDate`/`YearMonth`), which is not reported:
    /// ```java
    /// YearMonth period = YearMonth.now(clock);                          // stable for the run
    /// String key = orderId + "-" + period;
    /// return retryTemplate.execute(ctx -> client.post(payment, Map.of("Idempotency-Key", key)));
    /// ```
    ///
    /// ## When it is silent: generate-once guards
    /// A clock key set only when the key is absent and stored, before the sink, where every
    /// attempt reads it (a field of the re-sent request, the retried method's parameter, an
    /// entity saved before the sink, a map created before the region, the `RetryContext`):
    /// ```java
    /// if (command.getIdempotencyKey() == null) {      // the command the proxy passes to every attempt
    ///     command.setIdempotencyKey("pay-" + System.currentTimeMillis());   // silent: set once
    /// }
    /// client.pay(command.getAmount(), command.getIdempotencyKey());
    /// ```
    /// Saving the entity only after the call, or inside the attempt's own transaction (a
    /// `@Transactional` method rolls the save back when the call fails), or a map declared inside
    /// the retried code, is still reported.
    ///
    /// A transactional outbox is silent too: a clock key written only into a row (a field of an
    /// `@Entity`) inside a `@Transactional` Spring Retry `@Retryable` or Resilience4j `@Retry`
    /// method, each of whose attempts is a transaction of its own that rolls the row back when
    /// it fails:
    /// ```java
    /// @Transactional
    /// @Retry(name = "ledger")
    /// public void post(Transfer t) {
    ///     entries.save(new LedgerEntry(t.account(), t.amount(), "post-" + System.currentTimeMillis()));   // silent
    /// }
    /// ```
    /// The same key also sent in a header or body, a listener's transaction, and a row saved
    /// through a `REQUIRES_NEW` method are still reported.
    ///
    /// So is a scheduled sweep that marks, in the transaction that writes its outbox rows, what
    /// its query selects by (`findUnreminded()` selecting `reminderSentAt is null`, then
    /// `invoice.setReminderSentAt(Instant.now())`): a committed firing takes its items out of
    /// the next one's selection, a failed one rolls its rows and keys back. RL001 explains it.
    ///
    /// ## When it is silent: the clock in another field
    /// Flow is field-sensitive: a time written into one field of an object — a builder method,
    /// a setter, a constructor argument — reaches a key only through that field. A key built
    /// from the object's other fields is stable, also when a helper builds the object (a field
    /// its builder chain never set holds nothing), when it is saved (`repository.save(e)`
    /// returns `e`, field by field) and when a method of another class builds the key:
    /// ```java
    /// AlertContext ctx = buildAlertContext("sar-overdue", txId);   // .timestamp(Instant.now())
    /// pager.triggerAlert(title, ctx);   // silent: dedup_key = serviceName:component:title:txId
    /// ```
    /// A project builder method that assigns the key field on every path through it
    /// (`withDefaults() { this.idempotencyKey = UUID…; return this; }`) replaces a clock key set
    /// earlier in the chain: what is sent is its value (RL001), not the time.
    ///
    /// ## When it is silent: retries that cannot fire
    /// A region counts only where the framework can run it again (RL006 reports the retry
    /// annotations that cannot): Spring Retry's `@Retryable` in an application with no
    /// `@EnableRetry` while other applications of the repository have one, an annotation on a
    /// `private` or `static` method or on a non-public one whose only callers call it on `this`
    /// (no call goes through the proxy), a body that is one `try` catching `Exception` without
    /// rethrowing, a Resilience4j `@Retry` whose inner `@CircuitBreaker` fallback takes every
    /// failure, a `@TimeLimiter` on a synchronous method. Such a region gives no RL002; RL006
    /// names the finding it would have once the retry fires. Code it covers is still checked for
    /// the live regions that reach it. A message listener that catches every exception is not
    /// redelivered, and is silent too — unless it acknowledges its messages itself
    /// (`@SqsListener(acknowledgementMode = "MANUAL")`): one it leaves unacknowledged comes back.
    /// ```java
    /// @Retryable                                  // private: the proxy never retries it (RL006)
    /// private Charge charge(ChargeCreateParams params) throws StripeException {
    ///     String key = "c-" + System.currentTimeMillis(); // silent here; named by RL006
    /// }
    /// ```
    ///
    /// ## When it is silent: a key sent where no later failure re-runs it
    /// A retried method or a redelivered listener runs again only when an attempt fails, and
    /// only a failure that comes once the key is out re-sends it under a new one — the send's
    /// own failure (a timeout after the provider took the request) included. So the key goes
    /// out once when every call of the retried method or listener that leads to the send sits
    /// in a `try` that catches every exception (`Exception`, `Throwable`; `RuntimeException`
    /// when the method declares no checked exception) in clauses that cannot fail themselves,
    /// and nothing that runs after that `try` can fail: logging, metrics calls, getters and
    /// record accessors, reads of the clock, the application's own methods and constructors
    /// whose bodies do only such things (a value class, a static factory; three calls deep),
    /// conditions on them, `continue`, `break`, `return`. In a loop the whole body runs again
    /// for the next item, so it counts as after:
    /// ```java
    /// @KafkaListener(topics = "telemetry.sensor.reading")
    /// public void consume(String message) {
    ///     SensorReading reading = parse(message);
    ///     for (Shipment s : shipments.findInTransitBySensor(reading.sensorId())) {
    ///         if (!reading.tenantId().equals(s.getTenantId())) {
    ///             continue;
    ///         }
    ///         try {
    ///             alerts.raiseExcursion(s.getShipmentId(), reading.value()); // keys by the clock: silent
    ///         } catch (Exception e) {
    ///             log.error("excursion alert for {} failed", s.getShipmentId(), e);
    ///         }
    ///     }
    /// }
    /// ```
    /// Still reported: a statement after the `try` that can fail (`shipments.save(s)`, a call
    /// into another service, `ack.acknowledge()`), a catch clause that rethrows or does
    /// anything else that can fail (a dead-letter send), a `finally` that can fail, a method
    /// in a transaction of its own (`@Transactional`: the commit after the body can fail), a
    /// listener that acknowledges its messages itself, and a scheduler (it runs again whether
    /// or not a run failed). The `try` may be in a method the region calls, when that call is
    /// the last thing that can fail in its caller (a listener whose last step hands the batch
    /// to a service that loops with a catch-all per item), followed up to four calls deep; a
    /// called method in a transaction of its own is not followed (its commit comes after).
    /// A clock key written only into a row by a method with a transaction of its own, called
    /// through its bean as the last thing that can fail (declaring no checked exception, calling
    /// nothing that commits apart), is written once too, as RL001 explains.
    ///
    /// ## When it is silent: code tree-sitter could not parse
    /// A file with a syntax error is analysed around it, but a method whose declaration holds
    /// an ERROR or MISSING node is not trusted: error recovery may have nested the methods after
    /// an unclosed `try` into it. A finding whose source, sink, region or a call of its path
    /// lies in such a method is not reported, and the file is reported as partially parsed (a
    /// warning that leaves the exit status alone):
    /// ```java
    /// @Retryable
    /// public void retryPayout(Payout p) {
    ///     try {
    ///         gateway.send(p);
    ///     } catch (GatewayException e) {
    ///         throw e;
    ///                                      // the method's closing brace is missing
    /// public void preview() {
    ///     opts.setIdempotencyKey(UUID.randomUUID().toString());   // silent: not retryPayout's
    /// }
    /// ```
    RULE {
        id: "RL002",
        name: "clock-idempotency-key-in-retry",
        level: Error,
        source: Some(crate::catalogue::SourceKind::Clock),
        summary: "A fine-grained clock value becomes an idempotency key inside code that is re-executed on every attempt",
        verb: "is read",
        consequence: "each retry sends a new key",
        primary_label: "per-attempt value",
        related_label: "idempotency key",
        fix: "Read the time once, before the retried code, or key on a coarse period",
        check: Some(check),
    }
}

fn check(cx: &Context) -> Vec<Finding> {
    super::key::check(cx, &RULE)
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::snippets::{fails, passes};

    const FAIL: &[&str] = &[r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    Charge charge(String customerId, ChargeCreateParams params) throws Exception {
        String key = customerId + "-" + System.currentTimeMillis();
        return Charge.create(params, RequestOptions.builder().setIdempotencyKey(key).build());
    }
}
"#];

    const PASS: &[&str] = &[r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import java.time.YearMonth;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    Charge charge(String customerId, YearMonth period, ChargeCreateParams params) throws Exception {
        String key = customerId + "-" + period;
        return Charge.create(params, RequestOptions.builder().setIdempotencyKey(key).build());
    }
}
"#];

    #[test]
    fn fail_snippets_are_reported() {
        fails(&RULE, FAIL);
    }

    #[test]
    fn pass_snippets_are_not() {
        passes(&RULE, PASS);
    }
}

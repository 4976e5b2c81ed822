use super::{Context, declare_rule};
use crate::findings::Finding;

declare_rule! {
    /// ## What it does
    /// Finds a random value — `UUID.randomUUID()`, `SecureRandom`, `Random`, `Math.random()`,
    /// NanoId, ULID, `ObjectId` … — evaluated inside code that a framework runs again on every
    /// attempt (a `@Retryable` method, a `RetryTemplate` callback, the deferred upstream of a
    /// `Promise.retry()`, a `@Scheduled` job) and used as an idempotency key in that attempt.
    ///
    /// ## Why is this bad?
    /// An idempotency key exists so that the provider can recognise a retry of a request it has
    /// already processed. If the first attempt reached Stripe and only the response was lost,
    /// the retry must send the *same* key. A key minted inside the retried code is new on every
    /// attempt, so the provider sees a new operation and charges the customer again.
    ///
    /// The value may be minted out of sight: in a field initializer of a request object the
    /// attempt builds (`new OrderEvent(…)` with `private String eventId = UUID…`), in a
    /// `@Builder.Default` field that a Lombok builder chain leaves unset
    /// (`TransferRequest.builder().amount(a).build()`), or in a fallback of a helper or
    /// constructor (`key != null ? key : UUID…`) — reported where the call can take the
    /// fallback (`null`, a field, a getter), not where every call passes a key. Constructors are
    /// followed through `this(…)` and `super(…)`, and `new` runs the field initializers of the
    /// superclasses too (an abstract base event with `eventId = UUID.randomUUID()`). A call runs
    /// the most specific method: an override in the receiver's class, a record's component
    /// accessor over an interface default.
    ///
    /// A function kept in a field is evaluated where it is called: `ids.get()` on a
    /// `Supplier<UUID> ids` set to `UUID::randomUUID` — by the field's initializer, a
    /// constructor, or a `@Bean` method returning `Supplier<UUID>` that the container injects —
    /// is a new value on every attempt that calls it, though the field was set once. A function
    /// of the project's own interface made in the attempt — a lambda, method reference or
    /// anonymous class held in a local or handed to a helper (`KeyRule rule = id -> id +
    /// UUID.randomUUID(); send(rule.keyFor(id))`) — returns what it evaluates when called.
    ///
    /// ## Example
    /// ```java
    /// @Retryable(retryFor = StripeException.class)
    /// public Charge charge(String customerId, long amount) throws StripeException {
    ///     String key = UUID.randomUUID().toString();          // new on every attempt
    ///     RequestOptions options = RequestOptions.builder().setIdempotencyKey(key).build();
    ///     return Charge.create(params(customerId, amount), options);
    /// }
    /// ```
    ///
    /// ## How to fix
    /// Derive the key once, before the retried code runs, from what identifies the operation
    /// (order id, customer and billing period), and pass it in or capture it:
    /// ```java
    /// String key = DigestUtils.sha256Hex(customerId + ":" + period);   // before the retry
    /// billing.charge(customerId, amount, key);                         // @Retryable takes the key
    /// ```
    /// A key generated once and stored where every attempt reads it is also safe (below).
    ///
    /// ## When it is silent: generate-once guards
    /// A random key minted only when the key is absent, and stored before the sink into the very
    /// place the guard reads, a place that outlives the attempt: a field of the request object
    /// the retry re-sends, a setter of the retried method's parameter, an entity saved before the
    /// sink outside the attempt's transaction (a save the attempt's own `@Transactional` rolls
    /// back does not count; one through a `REQUIRES_NEW` method does), a map, `AtomicReference`,
    /// one-element array or other holder created before the region (`computeIfAbsent`,
    /// `putIfAbsent`, `merge(k, v, (stored, given) -> stored)`,
    /// `updateAndGet(v -> v != null ? v : …)`, or `if (ref.get() == null)
    /// ref.set(UUID…)` in a `RetryTemplate` callback that captures `ref`), the `RetryContext`
    /// (`setAttribute` on the first attempt, `computeAttribute`), Temporal heartbeat details read
    /// back with `getHeartbeatDetails`, a row the database keeps the first key of (a repository
    /// `@Query` that inserts the key only with a new row: `INSERT … ON CONFLICT DO NOTHING`,
    /// `INSERT IGNORE`, an upsert whose `DO UPDATE SET`/`ON DUPLICATE KEY UPDATE` leaves the key's
    /// column alone; one that sets it, `idempotency_key = EXCLUDED.idempotency_key`, is
    /// reported). The header may be built from the stored place or from
    /// the local that was stored into it:
    /// ```java
    /// String k;
    /// if (this.idempotencyKey == null) {
    ///     k = UUID.randomUUID().toString();          // silent: kept on the re-sent request
    ///     this.setIdempotencyKey(k);
    /// } else {
    ///     k = this.idempotencyKey;
    /// }
    /// headers.put("Idempotency-Key", k);
    /// ```
    /// The store may also follow the fallback, as long as it comes before the sink:
    /// `k = Optional.ofNullable(cmd.getKey()).orElseGet(() -> UUID…); cmd.setKey(k); send(k)` on
    /// the retried method's parameter, or Temporal's heartbeat details held in a local
    /// (`saved = ctx.getHeartbeatDetails(String.class)`, then `saved.orElseGet(…)` or
    /// `if (saved.isPresent()) … else { k = UUID…; ctx.heartbeat(k); }`). A store after the
    /// sink, or into another property, is reported.
    ///
    /// Find-or-create is the same guard written with a repository: the record is looked up by
    /// values that are the same on every attempt, and the supplier that makes it when it is
    /// missing saves it, so a later attempt finds it and sends its stored key:
    /// ```java
    /// Transfer t = transfers.findByTransferRef(transferRef)
    ///         .orElseGet(() -> transfers.save(new Transfer(transferRef, amount, UUID.randomUUID().toString())));  // silent
    /// payouts.send(t.getAccount(), t.getAmount(), t.getIdempotencyKey());
    /// ```
    /// It is reported when the supplier does not save the record, when the lookup uses a value
    /// new on every attempt, and when the record is saved in the transaction of the method that
    /// sends the key (a failed attempt rolls it back; a save through a `REQUIRES_NEW` method
    /// does not). A `@Transactional` helper that finds or creates commits the record when it
    /// returns: silent for a caller outside a transaction of its own, reported for a
    /// `@Transactional` caller, whose transaction it joins.
    ///
    /// Still reported: a fallback that is not stored back (`req.getKey() != null ?
    /// req.getKey() : UUID.randomUUID().toString()`), a key sent before it is stored, and a
    /// holder the attempt makes itself (a map declared inside the retried method).
    ///
    /// A transactional outbox is silent too: a key written only into a row — a field of an
    /// `@Entity`, through its constructor, a setter or a builder — inside a Spring Retry
    /// `@Retryable` or Resilience4j `@Retry` method that is itself `@Transactional` (on the method
    /// or its class). Both retries run outside the transaction, so every attempt is a
    /// transaction of its own: a failed attempt rolls its row and key back, and only the
    /// committed row is relayed.
    /// ```java
    /// @Transactional
    /// @Retryable(maxAttempts = 3)
    /// public void recordTransfer(TransferCommand cmd) {
    ///     String key = UUID.randomUUID().toString();     // silent: only in the outbox row
    ///     outbox.save(OutboxMessage.builder().aggregateId(cmd.id()).idempotencyKey(key).build());
    /// }
    /// ```
    /// The same key also sent as a header in the attempt is reported, and so is an outbox row
    /// written without the attempt's transaction: a retried method that is not `@Transactional`
    /// (or `SUPPORTS`), a row saved through a `REQUIRES_NEW` method, a message listener (its
    /// transaction commits before the message is acknowledged), or an application that reorders
    /// the retry and the transaction (`@EnableRetry(order = …)`,
    /// `@EnableTransactionManagement(order = …)`, `resilience4j.retry.retry-aspect-order`).
    ///
    /// A fault-tolerant Spring Batch step needs no annotation: it processes and writes each
    /// chunk in a transaction of the step's transaction manager, and a retryable failure rolls
    /// that transaction back before the chunk is tried again, so a key its processor or writer
    /// saves only into rows is silent. Still reported: a row saved through a `REQUIRES_NEW`
    /// method, and a step built with a `ResourcelessTransactionManager`, which opens no
    /// transaction (each save commits by itself).
    ///
    /// A scheduled sweep that writes its key only into outbox rows is silent when it marks what
    /// it selects: in a transaction the firing opens (its own `@Transactional` method, or one
    /// it calls on another bean), it sets a property that its repository query selects rows by
    /// — a word of a derived query (`findByStatusAndDueDateBefore`) or a condition of its
    /// `@Query` — to a value it decides (a literal, an enum constant, the clock) on an object
    /// of the rows' class. A failed firing rolls back the rows, their keys and the marks; a
    /// firing that commits has taken its items out of the next firing's selection.
    /// ```java
    /// @Scheduled(cron = "0 */5 * * * *")
    /// @Transactional
    /// public void markOverdue() {
    ///     for (Invoice invoice : invoices.findByStatusAndDueDateBefore(OPEN, LocalDate.now())) {
    ///         invoice.setStatus(OVERDUE);
    ///         notices.save(DunningNotice.builder().invoiceId(invoice.getId())
    ///                 .idempotencyKey(UUID.randomUUID().toString()).build());   // silent
    ///     }
    /// }
    /// ```
    /// Still reported: a sweep that marks nothing it selects by (every firing writes its items
    /// again under new keys), one that writes back the value it selected by, one without a
    /// transaction around both (or entering it through a call on `this`), and a row or a mark
    /// written through a `REQUIRES_NEW` method.
    ///
    /// ## When it is silent: the operation is on record before the key goes out
    /// A region that first looks its own store up by values that are the same on every attempt
    /// (the message's topic, partition and offset; the request's id) and ends the attempt
    /// when a record is there, and that commits such a record before the sink, sends its key
    /// once: a later attempt finds the record and stops before minting another key.
    /// ```java
    /// @KafkaListener(topics = "refunds.dlq")
    /// public void onDeadLetter(String payload, @Header(RECEIVED_TOPIC) String topic,
    ///         @Header(RECEIVED_PARTITION) int partition, @Header(OFFSET) long offset) {
    ///     if (deadLetters.existsByTopicAndPartitionIdAndOffsetId(topic, partition, offset)) {
    ///         return;
    ///     }
    ///     String incidentId = UUID.randomUUID().toString();   // silent
    ///     deadLetters.save(new DeadLetter(topic, partition, offset, incidentId));
    ///     pager.trigger("dlq-" + incidentId, payload);
    /// }
    /// ```
    /// The check may be a project method that returns `true` when a record is found
    /// (`isDuplicate(topic, partition, offset)`), and the save may come in a called method
    /// before its sink. The record must be saved through the repository the check reads and
    /// commit before the sink: by the repository itself where no transaction is open around
    /// it (a `@Transactional` method called on `this` opens none), or through a
    /// `REQUIRES_NEW` method. Still reported: a check by a value made in the attempt, a check
    /// whose answer does not end the attempt, a record saved after the sink or in another
    /// repository, and a save that joins a transaction of the attempt (a `@Transactional`
    /// listener or retried method), which rolls back with it.
    ///
    /// ## When it is silent: a fallback the region's calls never take
    /// A key minted only when the caller passes none (`key != null ? key : UUID…`, `if (key ==
    /// null) key = UUID…`) is new on every attempt for every request without a key — and for no
    /// other. Where every call from the region passes a key that cannot be null (a literal, a
    /// concatenation, a `new`, a constant, or a parameter passed on from a caller that does), the
    /// fallback never runs in that region:
    /// ```java
    /// public String charge(String customerId, long amount, String key) {
    ///     String k = key != null ? key : UUID.randomUUID().toString();  // silent for payAuto
    ///     return gateway.charge(customerId, amount, k);
    /// }
    ///
    /// @Retryable(maxAttempts = 4)
    /// public String payAuto(Invoice inv) {
    ///     return charges.charge(inv.getCustomerId(), inv.getAmount(), "AUTOPAY-" + inv.getId());
    /// }
    /// ```
    /// The same holds for a sink reached only under a test on a parameter (`if (level ==
    /// CRITICAL) pager.trigger(alert.getId(), …)`) when the region passes another constant
    /// (`raise(AlertLevel.WARNING, …)`). Tests of these shapes are followed: a parameter, or one
    /// property of it (`alert.getLevel()`), compared with `null` or with constants (`==`, `!=`,
    /// `||` of equalities, `equals`, `!`), as an `if` (also `if (…) return;`) or a ternary. A
    /// caller passing a value that may be null (a field, the request's optional key) is still
    /// reported; so is any test or argument of another shape.
    ///
    /// ## When it is silent: retries that cannot fire
    /// A region counts only where the framework can run it again (RL006 reports the retry
    /// annotations that cannot): Spring Retry's `@Retryable` in an application with no
    /// `@EnableRetry` while other applications of the repository have one, an annotation on a
    /// `private` or `static` method or on a non-public one whose only callers call it on `this`
    /// (no call goes through the proxy), a body that is one `try` catching `Exception` without
    /// rethrowing, a Resilience4j `@Retry` whose inner `@CircuitBreaker` fallback takes every
    /// failure, a `@TimeLimiter` on a synchronous method. Such a region gives no RL001; RL006
    /// names the finding it would have once the retry fires. Code it covers is still checked for
    /// the live regions that reach it. A message listener that catches every exception is not
    /// redelivered, and is silent too — unless it acknowledges its messages itself
    /// (`@SqsListener(acknowledgementMode = "MANUAL")`): one it leaves unacknowledged comes back.
    /// So is a retry callback — `RetryTemplate.execute`, Resilience4j `executeSupplier`/
    /// `decorate…`, Failsafe `get`/`run` — whose lambda or anonymous class is one `try`
    /// catching `Exception` or `Throwable` (or `RuntimeException`, where the callback is a
    /// `Supplier`, `Runnable`, `Function` or `Consumer`, which throw no checked exception), or
    /// that only calls such a method of its class: the retry runs it once. A callback that
    /// rethrows, or catches a narrower exception, is still reported; so is a scheduled task (it
    /// runs again whether or not a run failed) and an asynchronous one (`getAsync`, a returned
    /// `CompletionStage`), whose failures come through its future.
    /// ```java
    /// @Retryable                                  // private: the proxy never retries it (RL006)
    /// private Charge charge(ChargeCreateParams params) throws StripeException {
    ///     String key = UUID.randomUUID().toString();   // silent here; named by RL006
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
    ///             alerts.raiseExcursion(s.getShipmentId(), reading.value()); // mints and posts a key: silent
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
    ///
    /// A key written only into a row (an outbox entity) by a method that runs in a transaction of
    /// its own is written once when the call of that method is the last thing that can fail: a
    /// failure inside it rolls the row back with its key, and once it has committed nothing fails
    /// and nothing runs again. The call must go through the bean (not on `this`, which bypasses
    /// the proxy and its transaction), the method must declare no checked exception (Spring
    /// commits on those), and nothing it calls may commit apart (`REQUIRES_NEW`):
    /// ```java
    /// @KafkaListener(topics = "claims.filed")
    /// public void onFiled(String claimId, @Header(name = "correlation-id", required = false) String correlationId) {
    ///     String correlation = correlationId != null ? correlationId : UUID.randomUUID().toString();
    ///     intake.record(claimId, "CLAIM_FILED", "filed:" + correlation); // @Transactional, writes the outbox row: silent
    ///     log.info("claim {} filed", claimId);
    /// }
    /// ```
    /// A call after it that can fail (`adjusters.assign(claimId)`) makes it a finding again: the
    /// row has committed, and the redelivery writes a second one under a new key.
    ///
    /// An AWS Lambda handler of an SQS or stream event source may catch each message's failure
    /// and report the message in the partial batch response it returns; Lambda then delivers
    /// only the reported messages again — but only where the event source mapping enables
    /// `ReportBatchItemFailures`. Elsewhere it ignores the response: the invocation succeeded and
    /// the whole batch is deleted. So a catch clause that reports the item counts as a failure
    /// where the report is read (a Java file or a deployment descriptor of the tree names
    /// `reportBatchItemFailures`, `ReportBatchItemFailures` or `REPORT_BATCH_ITEM_FAILURES`, or
    /// the main Java code declares no event source at all: the function is deployed from
    /// elsewhere, and the report is taken as read), and a catch clause that only logs and adds
    /// the item to a local list of failures as doing nothing where the CDK or SDK code in the
    /// tree declares event sources and nothing enables the report:
    /// ```java
    /// // infra: payoutHandler.addEventSource(new SqsEventSource(payouts, SqsEventSourceProps.builder().batchSize(10).build()));
    /// public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
    ///     List<SQSBatchResponse.BatchItemFailure> failures = new ArrayList<>();
    ///     for (SQSEvent.SQSMessage message : event.getRecords()) {
    ///         try {
    ///             payouts.pay(message.getBody());        // a random key per call: silent here
    ///         } catch (RuntimeException e) {
    ///             failures.add(new SQSBatchResponse.BatchItemFailure(message.getMessageId()));
    ///         }
    ///     }
    ///     return new SQSBatchResponse(failures);
    /// }
    /// ```
    /// Add `.reportBatchItemFailures(true)` to that event source and the same handler is
    /// reported: a payout that timed out after the provider took it is delivered and paid again.
    ///
    /// ## Interceptors: inside the regions that send through their client
    /// An HTTP client interceptor runs once for each request it intercepts, so it is inside
    /// every region from which a request through it is sent: a `@Retryable` method, a
    /// `RetryTemplate` callback, a `@Scheduled` job or a listener that calls a Feign client
    /// method (or an identified `RestTemplate`/`RestClient`/OkHttp instance) runs the
    /// interceptor on every attempt. A key minted in the interceptor is reported there, with
    /// the path `region → client method → interceptor`, even when the client itself never
    /// re-sends:
    /// ```java
    /// @FeignClient(name = "treasury", configuration = PayoutClientConfig.class)
    /// interface PayoutClient { @PostMapping("/v1/payouts") String payout(PayoutRequest r); }
    ///
    /// class PayoutClientConfig {                       // Retryer.NEVER_RETRY: Feign sends once
    ///     @Bean RequestInterceptor keys() {
    ///         return t -> t.header("Idempotency-Key", UUID.randomUUID().toString()); // reported
    ///     }
    /// }
    ///
    /// @Retryable public String payOut(PayoutRequest r) { return payoutClient.payout(r); }
    /// ```
    /// The same interceptor on a client called only from a controller, or only through
    /// `@GetMapping` reads (`getForObject` on a `RestTemplate`), is silent. A key set only
    /// when the `RequestTemplate` has none is stable for Feign's own retries (below) but not
    /// for such a region: each of its attempts sends a new request with a new template.
    ///
    /// ## When it is silent: a key header sent only on reads
    /// A key written into a header container (`HttpHeaders`, a header `Map`, OkHttp's
    /// `Headers.Builder`) is a key only where the container goes out on a request, and a read —
    /// GET, HEAD, OPTIONS — deduplicates nothing (payment providers document the key for POST
    /// and DELETE). retrylint follows the container to the call that sends it: a Feign
    /// `@GetMapping` or `@RequestLine("GET …")` parameter, `restTemplate.exchange(url,
    /// HttpMethod.GET, new HttpEntity<>(headers), …)`, `getForObject`, `restClient.get()…
    /// .headers(h -> h.addAll(headers))`, OkHttp `Request.Builder…headers(h).get()`. A region
    /// that sends it only on reads gets no finding; one that sends it on a write, or on a
    /// request whose method cannot be told (`exchange(url, method, …)` with the method
    /// passed in), still does. A header helper shared by a read and a write is judged per
    /// region:
    /// ```java
    /// protected HttpHeaders createHeaders() {
    ///     HttpHeaders headers = new HttpHeaders();
    ///     headers.set("Idempotence-Key", UUID.randomUUID().toString());   // reported for `create`
    ///     return headers;
    /// }
    /// public Payment status(String id) { return client.getPayment(createHeaders(), id); }  // @GetMapping
    ///
    /// @Retryable public Payment create(PaymentRequest r) {
    ///     return client.createPayment(createHeaders(), r);                                // @PostMapping
    /// }
    /// @Scheduled(fixedRate = 60_000) public void poll() { status(nextPendingId()); }      // silent
    /// ```
    ///
    /// ## When it is silent: interceptors whose client does not re-send
    /// An HTTP client interceptor is a region of
    /// its own only where its registration ties it to a client that re-sends by itself: a Feign
    /// client with a retrying `Retryer` (`Feign.builder()` defaults to `Retryer.Default`;
    /// Spring Cloud OpenFeign to `NEVER_RETRY`, so it needs a `Retryer` bean in the client's
    /// `configuration` class or in a scanned configuration), an OkHttp `addNetworkInterceptor`,
    /// an Azure policy added with `addPolicy` at `PER_RETRY` (the default) or listed after the
    /// `RetryPolicy`. An interceptor registered nowhere that can be found, an OkHttp
    /// `addInterceptor`, a `RestTemplate`/`RestClient` interceptor and a WebClient filter are
    /// silent unless a region sends through them (above). Feign applies its interceptors again
    /// to the *same* `RequestTemplate` on its own retries, so a key
    /// set only when the template has none is stable (not so for Azure, whose tries each get a
    /// fresh copy of the request).
    /// ```java
    /// new OkHttpClient.Builder()
    ///     .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()   // once per call:
    ///         .header("Idempotency-Key", UUID.randomUUID().toString())          // silent
    ///         .build()))
    ///     .build();
    /// template -> {                                     // Feign, retrying Retryer bean
    ///     if (!template.headers().containsKey("Idempotency-Key"))
    ///         template.header("Idempotency-Key", UUID.randomUUID().toString()); // set once: silent
    /// };
    /// ```
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
        id: "RL001",
        name: "random-idempotency-key-in-retry",
        level: Error,
        source: Some(crate::catalogue::SourceKind::Random),
        summary: "A random value becomes an idempotency key inside code that is re-executed on every attempt",
        verb: "is evaluated",
        consequence: "each retry sends a new key",
        primary_label: "per-attempt value",
        related_label: "idempotency key",
        fix: "Compute the key once, before the retried code",
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

    const FAIL: &[&str] = &[
        r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import java.util.UUID;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    Charge charge(ChargeCreateParams params) throws Exception {
        String key = UUID.randomUUID().toString();
        RequestOptions options = RequestOptions.builder().setIdempotencyKey(key).build();
        return Charge.create(params, options);
    }
}
"#,
        r#"
import com.stripe.model.Refund;
import com.stripe.net.RequestOptions;
import com.stripe.param.RefundCreateParams;
import java.util.UUID;
import org.springframework.retry.support.RetryTemplate;

class Refunds {
    private final RetryTemplate retryTemplate = new RetryTemplate();

    Refund refund(RefundCreateParams params) throws Exception {
        return retryTemplate.execute(ctx -> Refund.create(params,
                RequestOptions.builder().setIdempotencyKey(UUID.randomUUID().toString()).build()));
    }
}
"#,
    ];

    const PASS: &[&str] = &[
        r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    Charge charge(String orderId, ChargeCreateParams params) throws Exception {
        RequestOptions options = RequestOptions.builder().setIdempotencyKey("charge-" + orderId).build();
        return Charge.create(params, options);
    }
}
"#,
        r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import java.util.UUID;

class Billing {
    Charge charge(ChargeCreateParams params) throws Exception {
        String key = UUID.randomUUID().toString();
        return Charge.create(params, RequestOptions.builder().setIdempotencyKey(key).build());
    }
}
"#,
    ];

    #[test]
    fn fail_snippets_are_reported() {
        fails(&RULE, FAIL);
    }

    #[test]
    fn pass_snippets_are_not() {
        passes(&RULE, PASS);
    }
}

use super::{Context, declare_rule};
use crate::findings::Finding;

declare_rule! {
    /// ## What it does
    /// Finds a retry or attempt counter — `RetryContext.getRetryCount()` from the callback's
    /// context or `RetrySynchronizationManager.getContext()`, the delivery count a broker puts on
    /// a redelivered message (SQS `ApproximateReceiveCount`, JMS `JMSXDeliveryCount`, RabbitMQ
    /// `x-delivery-count`, Kafka's delivery-attempt header) — that becomes part of an
    /// idempotency key. So does the counter of a hand-written retry — a loop that a `try` ends on
    /// success (`break`, `return`, or a flag its condition tests) and a `catch` lets go round
    /// (`do { …; launched = true; } while (!launched && ++n < 5)`), reported where it is
    /// incremented, or the parameter a method steps when it calls itself again from its failure
    /// path (`catch (…) { return attempt(n + 1); }`, `.exceptionallyCompose(e -> attempt(n + 1))`),
    /// reported at the parameter. The index of a loop that is not a retry (iteration over a list,
    /// a failover loop whose passes each take another target: `urls.get(i)`) is not a counter.
    ///
    /// ## Why is this bad?
    /// The counter is 0 on the first attempt, 1 on the second, and so on: a key that contains it
    /// is different on every attempt *by construction*, so every retry after a lost response is
    /// a guaranteed duplicate — worse than a random key, which at least never collides.
    ///
    /// ## Example
    /// ```java
    /// retryTemplate.execute(ctx -> {
    ///     String key = orderId + ":" + ctx.getRetryCount();     // 0, 1, 2 … per attempt
    ///     return gateway.capture(orderId, RequestOptions.builder().setIdempotencyKey(key).build());
    /// });
    /// ```
    ///
    /// ## How to fix
    /// Leave the counter out of the key. Use it only to decide what to do (a condition is not
    /// data flow and is not reported), or generate the key on the first attempt, store it with
    /// `ctx.setAttribute(…)` and read it back with `ctx.getAttribute(…)` on later attempts.
    ///
    /// ## When it is silent: iteration is not an attempt
    /// Only the counter of a retry — a loop whose `try` ends it on success and whose `catch`
    /// goes round again, a recursive retry — counts attempts. The index of any other loop, such
    /// as a batching loop in a retried method, starts again on every attempt and gives the same
    /// batch the same key each time:
    /// ```java
    /// @Retryable
    /// public void settle(String runId, List<Payout> payouts) {
    ///     for (int i = 0; i < payouts.size(); i += 50) {            // iteration: silent
    ///         bank.submit(payouts.subList(i, Math.min(i + 50, payouts.size())), runId + "-" + i);
    ///     }
    /// }
    /// ```
    ///
    /// ## When it is silent: retries that cannot fire
    /// A region counts only where the framework can run it again (RL006 reports the retry
    /// annotations that cannot): Spring Retry's `@Retryable` in an application with no
    /// `@EnableRetry` while other applications of the repository have one, an annotation on a
    /// `private` or `static` method or on a non-public one whose only callers call it on `this`
    /// (no call goes through the proxy), a body that is one `try` catching `Exception` without
    /// rethrowing, a Resilience4j `@Retry` whose inner `@CircuitBreaker` fallback takes every
    /// failure, a `@TimeLimiter` on a synchronous method. Such a region gives no RL003; RL006
    /// names the finding it would have once the retry fires. Code it covers is still checked for
    /// the live regions that reach it. A message listener that catches every exception is not
    /// redelivered, and is silent too — unless it acknowledges its messages itself
    /// (`@SqsListener(acknowledgementMode = "MANUAL")`): one it leaves unacknowledged comes back.
    /// ```java
    /// @Retryable                                  // private: the proxy never retries it (RL006)
    /// private Charge charge(ChargeCreateParams params) throws StripeException {
    ///     int n = RetrySynchronizationManager.getContext().getRetryCount(); // silent here
    /// }
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
        id: "RL003",
        name: "attempt-counter-in-idempotency-key",
        level: Error,
        source: Some(crate::catalogue::SourceKind::Attempt),
        summary: "A retry/attempt counter becomes part of an idempotency key, which then differs on every attempt",
        verb: "is read",
        consequence: "each retry sends a different key by construction",
        primary_label: "per-attempt value",
        related_label: "idempotency key",
        fix: "Leave the attempt counter out of the key",
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

class Billing {
    Charge charge(String orderId, ChargeCreateParams params) throws Exception {
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                RequestOptions options = RequestOptions.builder()
                        .setIdempotencyKey(orderId + "-" + attempt).build();
                return Charge.create(params, options);
            } catch (Exception e) {
                Thread.sleep(200L * attempt);
            }
        }
        throw new IllegalStateException("gave up");
    }
}
"#];

    const PASS: &[&str] = &[r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;

class Billing {
    Charge charge(String orderId, ChargeCreateParams params) throws Exception {
        RequestOptions options = RequestOptions.builder().setIdempotencyKey(orderId).build();
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                return Charge.create(params, options);
            } catch (Exception e) {
                Thread.sleep(200L * attempt);
            }
        }
        throw new IllegalStateException("gave up");
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

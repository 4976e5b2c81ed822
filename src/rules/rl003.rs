use super::declare_rule;

declare_rule! {
    /// ## What it does
    /// Finds a retry or attempt counter — `RetryContext.getRetryCount()` from the callback's
    /// context or `RetrySynchronizationManager.getContext()` — that becomes part of an
    /// idempotency key.
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
    }
}

use super::declare_rule;

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
    /// A key generated once and stored where every attempt reads it (a field or entity checked
    /// for `null` first, `RetryContext` attributes on the first attempt) is also safe.
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
    }
}

use super::declare_rule;

declare_rule! {
    /// ## What it does
    /// Finds a known non-idempotent call — a money-moving Stripe create (`Charge.create(params)`,
    /// `PaymentIntent`, `Refund`, `Transfer`, `Payout`, … and `StripeClient` services such as
    /// `client.charges().create(params)`), an Adyen payment or refund, a Braintree sale, a Square
    /// payment — that runs inside a re-execution region (a `@Retryable` method, a retry
    /// callback, a retried pipeline, a redelivered listener, a scheduled job), also through called
    /// methods, and carries no idempotency key at all.
    ///
    /// ## Why is this bad?
    /// When the response of the first attempt is lost, the retry sends the same request again
    /// and the provider has nothing to recognise it by: the customer is charged twice. The
    /// Stripe SDK's own automatic key covers only the SDK's *network* retries, not a retry of
    /// your method.
    ///
    /// ## Example
    /// ```java
    /// @Retryable(retryFor = StripeException.class)
    /// public Charge charge(ChargeCreateParams params) throws StripeException {
    ///     return Charge.create(params);                     // no key: a retry is a new charge
    /// }
    /// ```
    ///
    /// ## How to fix
    /// Pass a key derived from the operation, computed before the retried code:
    /// ```java
    /// RequestOptions options = RequestOptions.builder().setIdempotencyKey("charge-" + orderId).build();
    /// return Charge.create(params, options);
    /// ```
    /// A call that carries a per-attempt key is reported by RL001–RL003 instead; a stable key is
    /// silent.
    ///
    /// ## Known false positives
    /// A provider-side deduplication that is not an idempotency key (a unique order reference the
    /// provider rejects twice) is not recognised; suppress the finding with the reason.
    RULE {
        id: "RL004",
        name: "unkeyed-side-effect-in-retry",
        level: Warning,
        source: None,
        summary: "A known non-idempotent API call runs inside a re-execution region with no idempotency key",
        verb: "runs",
        consequence: "a retry after a lost response repeats it",
        primary_label: "no idempotency key",
        related_label: "",
        fix: "Pass an idempotency key derived from the operation",
    }
}

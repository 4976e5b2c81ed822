use super::{Context, declare_rule, reach};
use crate::dataflow as flow;
use crate::findings::{Finding, message, related};
use crate::java::ir::Span;
use crate::regions::Region;
use crate::semantic::MethodId;
use std::collections::{BTreeMap, BTreeSet};

declare_rule! {
    /// ## What it does
    /// Finds a known non-idempotent call — a money-moving Stripe create (`Charge.create(params)`,
    /// `PaymentIntent`, `Refund`, `Transfer`, `Payout`, … and `StripeClient` services such as
    /// `client.charges().create(params)`, transfer reversals), an Adyen payment or refund
    /// (checkout and classic APIs), a Braintree sale, a Square payment or refund, a PayPal capture,
    /// refund or payout (Checkout and Server SDKs), a Checkout.com SDK payment, capture or refund,
    /// a GoCardless payment, retry or refund (also as the SDK's fluent chain
    /// `client.payments().create()…execute()`), a Mercado Pago payment or refund, a Razorpay
    /// refund or transfer — that runs inside a re-execution region (a
    /// `@Retryable` method, a retry callback, a retried pipeline, a redelivered listener, a
    /// scheduled job), also through called methods, and carries no idempotency key at all.
    /// Request options (Stripe `RequestOptions`, Adyen's, …) carry a key only when one is set on
    /// them: options the region builds — in the method or through a helper — without a key are
    /// no key, whatever parameters went into their other settings (`setStripeAccount(account)`);
    /// options the caller passes in are taken to carry the caller's key. A key an SDK adds on its
    /// own, new for each call (Mercado Pago's, GoCardless's for a request built on each
    /// attempt), is no key across attempts.
    ///
    /// The same calls made by hand through a declarative HTTP client count too: an OpenFeign or
    /// Spring HTTP interface method (or a MicroProfile REST client) that posts to a provider's
    /// money-moving endpoint — Stripe `/v1/charges`, `/v1/refunds`, `/v1/payouts`, … on
    /// `api.stripe.com`; YooKassa, PayPal, Square, Mercado Pago, Razorpay, Paystack,
    /// Checkout.com, GoCardless, Flutterwave and Wise likewise — with no idempotency-key header
    /// parameter. The URL is the client's base
    /// (`@FeignClient(url = "${stripe.url}")`, its placeholders read from the module's
    /// `application.yml`/`.properties`) joined with the method's path; a client whose base URL
    /// cannot be told, and an internal service with the same paths, are not matched. The call
    /// of the client method is reported.
    /// ```java
    /// @FeignClient(name = "stripe", url = "${integration.stripe.url}")
    /// interface StripeApi {
    ///     @PostMapping("/v1/charges")
    ///     Charge createCharge(@RequestParam("source") String source, @RequestParam("amount") long amount);
    /// }
    ///
    /// @RabbitListener(queues = "orders.paid")           // listener retry enabled
    /// public void onOrderPaid(OrderPaid e) {
    ///     stripe.createCharge(e.cardToken(), e.amountCents());  // RL004
    /// }
    /// ```
    ///
    /// Side effects move money or create an obligation at a provider, and are catalogued per
    /// provider by method and, where the SDK sends request objects through one method, by
    /// request class: PayPal's `client.execute(new OrdersCaptureRequest(id))` is one, while
    /// `OrdersGetRequest` (a read) and `OrdersCreateRequest` (no money moves before its
    /// capture) are not. A Stripe `PaymentIntent` moves money once confirmed: `create` counts
    /// unless its params are built in the same method by one `builder()…build()` chain that
    /// calls `setConfirm` only with `false`, or not at all (an intent the client confirms later with its secret; a retry
    /// leaves a second unconfirmed intent, no charge) — params from elsewhere count. Reads,
    /// local caches, alerts and database writes are never side effects.
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
    /// silent. A request object the caller keyed (`request.payPalRequestId(k)`) and handed to a
    /// helper that sends it carries that key: the helper's call is reported only for regions
    /// whose path to it passes an unkeyed request.
    ///
    /// ## Known false positives
    /// A provider-side deduplication that is not an idempotency key (a unique order reference the
    /// provider rejects twice) is not recognised; suppress the finding with the reason.
    ///
    /// ## When it is silent: retries that cannot fire
    /// A region counts only where the framework can run it again (RL006 reports the retry
    /// annotations that cannot): Spring Retry's `@Retryable` in an application with no
    /// `@EnableRetry` while other applications of the repository have one, an annotation on a
    /// `private` or `static` method or on a non-public one whose only callers call it on `this`
    /// (no call goes through the proxy), a body that is one `try` catching `Exception` without
    /// rethrowing, a Resilience4j `@Retry` whose inner `@CircuitBreaker` fallback takes every
    /// failure, a `@TimeLimiter` on a synchronous method. Such a region gives no RL004; RL006
    /// names the finding it would have once the retry fires. Code it covers is still checked for
    /// the live regions that reach it. A message listener that catches every exception is not
    /// redelivered, and is silent too — unless it acknowledges its messages itself
    /// (`@SqsListener(acknowledgementMode = "MANUAL")`): one it leaves unacknowledged comes back.
    /// ```java
    /// @Retryable                                  // private: the proxy never retries it (RL006)
    /// private Charge charge(ChargeCreateParams params) throws StripeException {
    ///     return Charge.create(params);               // silent here; named by RL006
    /// }
    /// ```
    ///
    /// ## When it is silent: a call no later failure re-runs
    /// A retried method or a redelivered listener runs again only when an attempt fails, and
    /// it repeats the call only if that failure comes once the call has started (its own
    /// timeout included). A call that sits in a `try` catching every exception, in every call
    /// of the retried method or listener that leads to it, with nothing after that `try` that
    /// can fail (logging, metrics, getters, the application's own value objects; in a loop the
    /// next items' turns), runs once per message — the rules RL001 follows for a key:
    /// ```java
    /// @KafkaListener(topics = "subscriptions.renewals-due")
    /// public void onRenewalsDue(List<Renewal> due) {
    ///     for (Renewal r : due) {
    ///         try {
    ///             Charge.create(params(r));                 // silent: nothing after can fail
    ///         } catch (StripeException | RuntimeException e) {
    ///             log.error("renewal {} not charged", r.subscriptionId(), e);
    ///         }
    ///     }
    /// }
    /// ```
    /// A write after the loop (`renewals.recordBatch(due)`) can fail once the charges went out,
    /// and the redelivery charges again: reported. A scheduler runs again whether or not a run
    /// failed, and is always reported.
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
        id: "RL004",
        name: "unkeyed-side-effect-in-retry",
        level: Warning,
        source: None,
        summary: "A known non-idempotent API call runs inside a re-execution region with no idempotency key",
        verb: "runs",
        consequence: "the next attempt repeats it",
        primary_label: "no idempotency key",
        related_label: "",
        fix: "Pass an idempotency key derived from the operation",
        check: Some(check),
    }
}

/// A known side effect with no key at all, executed in a region.
fn check(cx: &Context) -> Vec<Finding> {
    let project = cx.project;
    let mut out: BTreeMap<(u32, Span), (Finding, BTreeSet<usize>, MethodId)> = BTreeMap::new();
    for id in cx.ids {
        for e in &cx.flows[id].effects {
            if e.kind != (flow::EffectKind::SideEffect { keyed: false }) {
                continue;
            }
            let site = flow::SourceSite {
                kind: crate::catalogue::SourceKind::Random,
                row: String::new(),
                span: e.span,
                scope: e.scope,
                label: e.label.clone(),
                via: None,
                counter_decl: None,
                holder_decl: None,
                param_held: false,
                when: Vec::new(),
            };
            let mut covering = reach::covering(cx, *id, &site, e.scope);
            // A request the callers made and keyed (`request.payPalRequestId(k)`) before they
            // handed it to the method that sends it.
            covering.retain(|i| reach::conditions_met(cx, *i, *id, &e.when));
            // A request a declarative client sends with a key its interceptors add.
            if cx.cat.side_effects.endpoints.iter().any(|x| x.id == e.row) {
                covering.retain(|i| !keyed_by_interceptor(cx, *i, *id));
            }
            // A region that re-runs only after a failure, where no failure can follow the call.
            covering.retain(|i| !super::swallowed::holds(cx, *i, *id, e.span, false));
            if covering.is_empty() {
                continue;
            }
            let entry = out.entry((id.0, e.span)).or_insert_with(|| {
                let mut f = Finding::at(&RULE, project, *id, e.span, e.label.clone());
                f.rows.add_side_effect(&e.row);
                (f, BTreeSet::new(), *id)
            });
            entry.1.extend(covering);
        }
    }
    out.into_values()
        .map(|(mut f, regs, m)| {
            let regs: Vec<&Region> = regs.iter().map(|i| &cx.regions[*i]).collect();
            let chain = reach::region_path(cx, regs[0], m, false);
            let path = message::through(&reach::chain_names(project, &chain));
            for r in &regs {
                f.rows.add_region(&r.row);
                f.regions.push(related(project, &r.loc, format!("{}: re-executed", r.describe())));
            }
            let noun = message::execution_noun(&regs);
            // A scheduler does it again on every run; a retry or a redelivery after an attempt
            // that failed once the call had started (its response lost, or a later step).
            let consequence = if noun == "run" {
                "each run repeats it"
            } else {
                "if the attempt fails after it (a lost response, a later step), the next attempt repeats it"
            };
            f.message = format!(
                "{} runs on every {noun} of {}{path} with no idempotency key: {consequence}",
                f.source,
                message::region_phrase(project, &f.path, &regs)
            );
            let here = flow::Loc { file: m.0, span: f.span };
            let last = format!("{}: no idempotency key", f.source);
            f.steps = reach::flow_steps(cx, regs[0], &chain, noun, Some((&here, last)));
            f
        })
        .collect()
}

/// Does region `i` run, for the requests method `m` sends (itself, or through a client method
/// it calls), an interceptor that writes a key (a header under a key name, whatever its value:
/// RL001–RL003 judge the value)?
fn keyed_by_interceptor(cx: &Context, i: usize, m: MethodId) -> bool {
    cx.regions[i].entered.iter().any(|(part, sender)| {
        (*sender == m || cx.graph.edges(m).iter().any(|(_, t)| t == sender))
            && cx.flows.get(part).is_some_and(|f| {
                f.effects
                    .iter()
                    .any(|e| e.kind == flow::EffectKind::KeySink)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::snippets::{fails, passes};

    const FAIL: &[&str] = &[r#"
import com.stripe.model.Charge;
import com.stripe.param.ChargeCreateParams;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    Charge charge(ChargeCreateParams params) throws Exception {
        return Charge.create(params);
    }
}
"#];

    const PASS: &[&str] = &[
        r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    Charge charge(String orderId, ChargeCreateParams params) throws Exception {
        return Charge.create(params, RequestOptions.builder().setIdempotencyKey("order-" + orderId).build());
    }
}
"#,
        r#"
import com.stripe.model.Charge;
import com.stripe.param.ChargeCreateParams;

class Billing {
    Charge charge(ChargeCreateParams params) throws Exception {
        return Charge.create(params);
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

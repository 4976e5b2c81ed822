use super::{Context, declare_rule};
use crate::findings::Finding;
use crate::java::ir::Span;
use crate::regions::Region;
use std::collections::BTreeMap;

declare_rule! {
    /// ## What it does
    /// Finds a retry annotation that can never fire, so the method it is written on runs once:
    /// - Spring Retry's `@Retryable` in an application with no `@EnableRetry` (Spring Framework
    ///   7's `@Retryable` with no `@EnableResilientMethods`) on one of its configuration classes,
    ///   nor an `@Import` of the configuration class it imports (`RetryConfiguration`), while
    ///   other applications of the repository have one. The application is the build module
    ///   holding the class (the nearest directory with `pom.xml`, `build.gradle` or
    ///   `build.gradle.kts`) and the project modules its build file depends on; code in a
    ///   library module runs in the modules that depend on it, and is live when one of them
    ///   enables the framework (a module nothing in the scan uses is its own application). A
    ///   test configuration does not enable the application: one in test sources, or in a
    ///   module depended on for tests only (`testImplementation`, `<scope>test</scope>`),
    ///   enables the test sources of its module alone;
    /// - a retry annotation on a `private` or `static` method: the proxy that applies it never
    ///   intercepts such a method;
    /// - a retry annotation on a protected or package-private method whose only callers are
    ///   calls on `this` from inside the class (`sendPayout(…)`, `this.sendPayout(…)`): a call on
    ///   `this` never goes through the proxy. A public method, or one another bean calls, stays
    ///   retried (a public one may have callers outside the scanned code);
    /// - a retried method whose body never fails: it is one `try` that catches `Exception`,
    ///   `Throwable`, or `RuntimeException` where the method declares no checked exception, and
    ///   does not rethrow — neither with `throw` nor by
    ///   handing the caught exception to a method that throws (a project method with a `throw`
    ///   in its body or in a method it hands the exception on to, `failures.handle(id, e)`, or a
    ///   library rethrower such as Guava's `Throwables.throwIfUnchecked(e)`); or it ends in such a `try` after
    ///   only local declarations (whose initializers call no method on `this`), logging calls and metrics calls
    ///   (`log.warn(…)`), which can fail only before the work in the `try` starts; or its last
    ///   statement, after only such declarations and logging calls, calls a method on `this`/`super` with simple arguments (names, literals, lambdas, field
    ///   reads) whose body never fails by these rules, followed a few calls deep — the message
    ///   names the delegated method. A message listener of these shapes is simply not
    ///   redelivered (no RL006). Not a body that never fails: one of a method that returns a
    ///   future or a reactive type (`CompletableFuture`, `Mono`, …: its failure arrives when the
    ///   value completes, after every `try` of the body, and Resilience4j retries it then);
    /// - Resilience4j `@Retry` next to a `@CircuitBreaker`, `@RateLimiter`, `@Bulkhead` or
    ///   `@TimeLimiter` whose `fallbackMethod` takes `Exception`, `Throwable` or the only
    ///   exception the method declares: by default those aspects run *inside* the retry, so the
    ///   fallback turns every failure into a normal return before the retry sees it (unless
    ///   `application.yml` or `.properties` orders the aspects otherwise, e.g.
    ///   `resilience4j.retry.retry-aspect-order`, in the run the settings make: an order set
    ///   only for a profile counts when `spring.profiles.active` or `include` switches it on);
    ///   a fallback typed `CallNotPermittedException` leaves the retry live, and so does a
    ///   fallback that throws (`throw new PayoutFailedException("…", t)` in its body, or in a
    ///   method on `this` it calls, hands failures on to the retry) — unless the application's settings list the exceptions the
    ///   retry retries and the fallback throws none of them: the instance's `retry-exceptions`
    ///   (else those of its `base-config`, else of `configs.default`; a listed class counts with
    ///   its subclasses) and `ignore-exceptions`, from `application.yml` or `.properties`. A
    ///   thrown class is placed only when its superclasses outside the project are JDK classes
    ///   retrylint knows (`RuntimeException`, `IllegalStateException`, …); any other may be
    ///   retried, and so may everything when the list comes from a placeholder without a default
    ///   or a `retry-exception-predicate` decides in code, or in an application (or with only
    ///   the profiles its settings switch on) that lists nothing;
    /// - Resilience4j `@TimeLimiter` on a method that returns neither a `CompletionStage` nor a
    ///   reactive type: it fails every call before the body runs;
    /// - a retry set to a single attempt: Spring Retry `@Retryable(maxAttempts = 1)` (the
    ///   count includes the first call), Spring Framework 7 `@Retryable(maxRetries = 0)`,
    ///   MicroProfile `@Retry(maxRetries = 0)` and Micronaut `@Retryable(attempts = "0")` (they
    ///   count the retries after it), Resilience4j `@Retry(name = "x")` whose instance has
    ///   `max-attempts: 1` in `application.yml` or `.properties` (its own, else its
    ///   `base-config`'s, else `configs.default`'s). A string attribute
    ///   (`maxAttemptsExpression`, `maxRetriesString`, `attempts`) may be a `${…}` placeholder:
    ///   it is read from the application's settings (or its `:default`); an expression
    ///   (`#{…}`), a placeholder the settings do not resolve, or Spring Retry's `interceptor`
    ///   leaves the retry live. MicroProfile Config's `<class>/<method>/Retry/maxRetries`,
    ///   `<class>/Retry/maxRetries` and `Retry/maxRetries` override the annotation, from the
    ///   application's settings or MicroProfile Config's own
    ///   `META-INF/microprofile-config.properties` (whose values those settings override).
    ///
    /// The message says why the retry cannot fire and names the RL001–RL004 findings the method
    /// would have once it does.
    ///
    /// ## Why is this bad?
    /// The team believes the call is retried, and it is not: a transient failure reaches the
    /// user, the fallback hides an outage, or a payment that should have been retried is
    /// dropped. And the day someone "fixes" the retry (adds `@EnableRetry`, removes the
    /// fallback), every per-attempt idempotency key in the method becomes a double charge —
    /// those latent findings are named in the message.
    ///
    /// ## Example
    /// ```java
    /// @Retry(name = "payments")
    /// @CircuitBreaker(name = "payments", fallbackMethod = "chargeLater")
    /// public Receipt charge(Order order) {                  // the retry never runs
    ///     return gateway.charge(order);
    /// }
    ///
    /// private Receipt chargeLater(Order order, Exception e) {
    ///     return Receipt.pending(order);
    /// }
    /// ```
    ///
    /// Delegation to a method that swallows every failure:
    /// ```java
    /// @Retry(name = "payouts")                         // RL006: never fires
    /// public void settle(String account, long amount) {
    ///     payOutQuietly(account, amount);              // a call on `this`
    /// }
    ///
    /// public void payOutQuietly(String account, long amount) {
    ///     log.info("paying out {} to {}", amount, account);
    ///     try { gateway.payOut(account, amount); }
    ///     catch (Exception e) { log.error("payout failed", e); }   // no rethrow
    /// }
    /// ```
    ///
    /// Self-invocation (Spring's proxies never see a call a bean makes on itself):
    /// ```java
    /// public Payout payOut(String account, long amount) {
    ///     return sendPayout(account, amount);          // a call on `this`: no proxy
    /// }
    ///
    /// @Retryable(maxAttempts = 4)                      // RL006: never fires
    /// Payout sendPayout(String account, long amount) { … }
    /// ```
    ///
    /// ## When it is silent: code tree-sitter could not parse
    /// A retry dead for what its body does (a `try` that catches everything, calls only on
    /// `this`) is not reported when the annotated method's code holds a syntax error: error
    /// recovery may have made the body look like that. A reason read from the annotation, the
    /// declaration or the application's setup (the framework not enabled, a private method, a
    /// fallback, one attempt) is reported whatever the body, and the findings the message
    /// names leave out those through code tree-sitter could not parse:
    /// ```java
    /// @Retryable                                 // RL006: never fires, the method is private
    /// private void settle(Payout p) {
    ///     try {
    ///         gateway.send(p);
    ///                                            // the `try` is never closed
    /// }
    /// ```
    ///
    /// ## How to fix
    /// Make the retry real, or delete it: enable the framework in the application
    /// (`@EnableRetry` on a `@Configuration` class), make the method public and call it through
    /// the bean (inject it, or move the retried method to another bean), rethrow from the `catch` (or narrow it), type the fallback to the failures it
    /// should absorb (`CallNotPermittedException`) or move the retry inside the circuit breaker
    /// (`resilience4j.retry.retry-aspect-order` greater than the circuit breaker's), and return
    /// a `CompletableFuture` from a `@TimeLimiter` method. Before the retry fires, fix the
    /// findings the message names.
    ///
    /// ## Known false positives
    /// A framework enabled outside the scanned code (a library's auto-configuration in a
    /// dependency of a module that has its own `@Enable…` elsewhere), or a `catch` whose helper
    /// rethrows without being handed the caught exception, is not seen; suppress the finding
    /// with the reason.
    RULE {
        id: "RL006",
        name: "ineffective-retry",
        level: Warning,
        source: None,
        summary: "A retry annotation that can never fire: the method runs once although the team believes it is retried",
        verb: "never fires",
        consequence: "the team believes it has a retry it does not have",
        primary_label: "retry that never fires",
        related_label: "",
        fix: "Make the retry real (enable it, make the method public, rethrow, reorder the aspects) or delete it",
        check: Some(check),
    }
}

/// Each dead retry annotation, once per annotation, with why and what it would report.
fn check(cx: &Context) -> Vec<Finding> {
    if cx.dead_regions.is_empty() {
        return Vec::new();
    }
    let project = cx.project;
    // What the dead regions would give, were they live.
    let latent_cx = Context {
        regions: cx.dead_regions,
        reaches: cx.dead_reaches,
        dead_regions: &[],
        dead_reaches: &Default::default(),
        fresh: Default::default(),
        callers: Default::default(),
        project: cx.project,
        cat: cx.cat,
        ids: cx.ids,
        flows: cx.flows,
        graph: cx.graph,
    };
    // Those through code tree-sitter could not parse are not named, as they are not reported.
    let recovered = crate::findings::recovery::Recovered::new(project);
    let latent: Vec<Finding> = super::LATENT_CHECKS
        .iter()
        .filter_map(|c| *c)
        .flat_map(|c| c(&latent_cx))
        .filter(|l| !recovered.holds(l))
        .collect();
    // An annotation on a class is dead only where it is dead for every method it covers.
    let live_at: std::collections::BTreeSet<(u32, Span)> = cx
        .regions
        .iter()
        .map(|r| (r.loc.file, r.loc.span))
        .collect();
    let mut by_loc: BTreeMap<(u32, Span), Vec<&Region>> = BTreeMap::new();
    for r in cx.dead_regions {
        if !live_at.contains(&(r.loc.file, r.loc.span)) {
            by_loc.entry((r.loc.file, r.loc.span)).or_default().push(r);
        }
    }
    let mut out = Vec::new();
    for ((file, span), regs) in by_loc {
        let r = regs[0];
        let Some(dead) = &r.dead else { continue };
        let path = &project.files[file as usize].path;
        let mut f = Finding::new(&RULE, project, file, span, r.owner.clone(), r.label.clone());
        let mut owners: Vec<&str> = regs.iter().map(|r| r.owner.as_str()).collect();
        owners.dedup();
        let what = if owners.len() == 1 {
            format!("The {} `{}`", r.label, owners[0])
        } else {
            format!(
                "The {} on `{}` and {} more",
                r.label,
                owners[0],
                owners.len() - 1
            )
        };
        if let crate::regions::liveness::Dead::Fallback {
            method, delegates, ..
        } = dead
        {
            // The fallback's body and those of the methods it calls on `this` were read (they
            // never throw, or throw only exceptions the retry does not retry): not reported
            // when one of them is broken.
            for m in std::iter::once(method).chain(delegates) {
                f.reads.push((
                    project.files[m.0 as usize].path.clone(),
                    project.method(*m).span,
                ));
            }
        }
        if dead.reads_bodies() {
            // Read from the bodies: not reported when the annotated method's code is broken.
            for part in &r.parts {
                let (crate::regions::Part::Whole(m) | crate::regions::Part::Scopes(m, _)) = part;
                f.reads.push((
                    project.files[m.0 as usize].path.clone(),
                    project.method(*m).span,
                ));
            }
        }
        f.message = format!(
            "{what} is never retried: {}; {}",
            dead.reason(),
            RULE.consequence
        );
        let mut would: Vec<&Finding> = latent
            .iter()
            .filter(|l| l.regions.iter().any(|x| &x.path == path && x.span == span))
            .collect();
        would.sort_by(|a, b| (&a.path, a.line, a.rule.id).cmp(&(&b.path, b.line, b.rule.id)));
        would.dedup_by(|a, b| a.path == b.path && a.span == b.span && a.rule.id == b.rule.id);
        if !would.is_empty() {
            let named: Vec<String> = would
                .iter()
                .take(3)
                .map(|l| {
                    let at = crate::findings::message::at(path, &l.path, l.line);
                    format!("{} at {at} (`{}`)", l.rule.id, l.source)
                })
                .collect();
            let more = if would.len() > 3 {
                format!(" and {} more", would.len() - 3)
            } else {
                String::new()
            };
            f.message.push_str(&format!(
                ". Once it fires, it would report {}{more}",
                named.join(", ")
            ));
            // The code flow: the dead retry, then each finding it would have.
            let here = crate::dataflow::Loc { file, span };
            f.steps.push(crate::findings::related(
                project,
                &here,
                format!("{} `{}`: never retried", r.label, r.owner),
            ));
            for l in would.iter().take(3) {
                let mut step = crate::findings::Related {
                    path: l.path.clone(),
                    span: l.span,
                    line: l.line,
                    column: 0,
                    end_line: l.end_line,
                    end_column: 0,
                    message: String::new(),
                };
                step.message = format!("{} once the retry fires: {}", l.rule.id, l.source);
                f.steps.push(step);
            }
        }
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::snippets::{fails, passes, rules_of};

    const FAIL: &[&str] = &[
        r#"
import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
import io.github.resilience4j.retry.annotation.Retry;

class Payments {
    @Retry(name = "psp")
    @CircuitBreaker(name = "psp", fallbackMethod = "later")
    public String charge(String order) {
        return order;
    }

    private String later(String order, Exception e) {
        return "pending";
    }
}
"#,
        r#"
import org.springframework.retry.annotation.Retryable;

class Payments {
    @Retryable
    public void charge(String order) {
        try {
            send(order);
        } catch (Exception e) {
            System.err.println(e);
        }
    }

    void send(String order) {}
}
"#,
        r#"
import org.springframework.retry.annotation.Retryable;

class Payments {
    @Retryable
    private void charge(String order) {}
}
"#,
        r#"
import io.github.resilience4j.timelimiter.annotation.TimeLimiter;
import io.github.resilience4j.retry.annotation.Retry;

class Payments {
    @Retry(name = "psp")
    @TimeLimiter(name = "psp")
    public String charge(String order) {
        return order;
    }
}
"#,
    ];

    const PASS: &[&str] = &[
        r#"
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.annotation.CircuitBreaker;
import io.github.resilience4j.retry.annotation.Retry;

class Payments {
    @Retry(name = "psp")
    @CircuitBreaker(name = "psp", fallbackMethod = "later")
    public String charge(String order) {
        return order;
    }

    private String later(String order, CallNotPermittedException e) {
        return "pending";
    }
}
"#,
        r#"
import org.springframework.retry.annotation.Retryable;

class Payments {
    @Retryable
    public void charge(String order) {
        try {
            send(order);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void send(String order) {}
}
"#,
        r#"
import io.github.resilience4j.timelimiter.annotation.TimeLimiter;
import io.github.resilience4j.retry.annotation.Retry;
import java.util.concurrent.CompletableFuture;

class Payments {
    @Retry(name = "psp")
    @TimeLimiter(name = "psp")
    public CompletableFuture<String> charge(String order) {
        return CompletableFuture.completedFuture(order);
    }
}
"#,
        r#"
import org.springframework.kafka.annotation.KafkaListener;

class Payments {
    @KafkaListener(topics = "payments")
    public void on(String order) {
        try {
            System.out.println(order);
        } catch (Exception e) {
            System.err.println(e);
        }
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

    /// The rules reported on the files of a project of several files.
    /// The message of the first finding of `java`, scanned as `Billing.java`.
    fn first_message(java: &str) -> String {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("Billing.java"), java).expect("written");
        let report = crate::check(&crate::Options::new(vec![dir.path().to_path_buf()]))
            .expect("the check runs");
        report.findings[0].message.clone()
    }

    fn rules_of_project(files: &[(&str, &str)]) -> Vec<&'static str> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).expect("a directory");
            std::fs::write(p, text).expect("written");
        }
        let report = crate::check(&crate::Options::new(vec![dir.path().to_path_buf()]))
            .expect("the check runs");
        report.findings.iter().map(|f| f.rule.id).collect()
    }

    const FALLBACK_ON_ONLY_THROWN: &str = r#"
import com.stripe.exception.StripeException;
import io.github.resilience4j.bulkhead.annotation.Bulkhead;
import io.github.resilience4j.retry.annotation.Retry;

class Payments {
    @Retry(name = "psp")
    @Bulkhead(name = "psp", fallbackMethod = "busy")
    public String charge(String order) throws StripeException {
        return order;
    }

    private String busy(String order, StripeException e) {
        return "busy";
    }
}
"#;

    #[test]
    fn a_fallback_on_the_only_declared_exception_takes_every_failure() {
        assert_eq!(rules_of(FALLBACK_ON_ONLY_THROWN), vec!["RL006"]);
        // A RuntimeException fallback lets the declared checked exception reach the retry.
        let narrower = FALLBACK_ON_ONLY_THROWN.replace("StripeException e)", "RuntimeException e)");
        assert!(rules_of(&narrower).is_empty());
    }

    #[test]
    fn application_properties_can_put_the_retry_inside_the_aspects() {
        let pom = "<project><artifactId>payments</artifactId></project>";
        let dead = rules_of_project(&[
            ("pom.xml", pom),
            ("src/main/java/Payments.java", FALLBACK_ON_ONLY_THROWN),
        ]);
        assert_eq!(dead, vec!["RL006"]);
        let props = "resilience4j.retry.retry-aspect-order=2147483647\n\
                     resilience4j.bulkhead.bulkheadAspectOrder = 1\n";
        let live = rules_of_project(&[
            ("pom.xml", pom),
            ("src/main/resources/application.properties", props),
            ("src/main/java/Payments.java", FALLBACK_ON_ONLY_THROWN),
        ]);
        assert!(live.is_empty(), "{live:?}");
    }

    #[test]
    fn no_enabler_anywhere_means_a_dependency_enables_it() {
        let retryable = "import org.springframework.retry.annotation.Retryable;\n\
                         class A { @Retryable public void a() {} }\n";
        let enabler = "import org.springframework.retry.annotation.EnableRetry;\n\
                       @EnableRetry class Config {}\n";
        let pom = |name: &str| format!("<project><artifactId>{name}</artifactId></project>");
        assert!(rules_of_project(&[("A.java", retryable)]).is_empty());
        let (pa, pb) = (pom("a"), pom("b"));
        let two_apps = [
            ("a/pom.xml", pa.as_str()),
            ("a/A.java", retryable),
            ("b/pom.xml", pb.as_str()),
            ("b/Config.java", enabler),
        ];
        assert_eq!(rules_of_project(&two_apps), vec!["RL006"]);
        let together = [
            ("a/pom.xml", pa.as_str()),
            ("a/A.java", retryable),
            ("a/Config.java", enabler),
        ];
        assert!(rules_of_project(&together).is_empty());
    }

    #[test]
    fn a_dead_retry_is_silent_for_rl001_and_names_it() {
        let java = r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import java.util.UUID;
import org.springframework.retry.annotation.Retryable;

class Billing {
    @Retryable
    private Charge charge(ChargeCreateParams params) throws Exception {
        String key = UUID.randomUUID().toString();
        return Charge.create(params, RequestOptions.builder().setIdempotencyKey(key).build());
    }
}
"#;
        assert_eq!(rules_of(java), vec!["RL006"]);
        let m = &first_message(java);
        assert!(
            m.contains("private") && m.contains("RL001 at line 11"),
            "{m}"
        );
    }

    #[test]
    fn a_retry_delegating_to_a_swallowing_method_names_it() {
        let java = r#"
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import io.github.resilience4j.retry.annotation.Retry;
import java.util.UUID;

class Billing {
    @Retry(name = "stripe")
    public Charge charge(ChargeCreateParams params) {
        return chargeQuietly(params);
    }

    public Charge chargeQuietly(ChargeCreateParams params) {
        log.info("charging");
        try {
            return Charge.create(params, RequestOptions.builder().setIdempotencyKey(UUID.randomUUID().toString()).build());
        } catch (Exception e) {
            log.error("charge failed", e);
            return null;
        }
    }
}
"#;
        assert_eq!(rules_of(java), vec!["RL006"]);
        let m = &first_message(java);
        assert!(
            m.contains("`chargeQuietly`") && m.contains("`Exception`"),
            "{m}"
        );
    }
}

use super::{Context, declare_rule, reach};
use crate::dataflow::{self as flow, Loc};
use crate::findings::{Finding, message, related};
use crate::java::ir::Span;
use crate::regions;
use crate::semantic::MethodId;
use std::collections::{BTreeMap, BTreeSet};

declare_rule! {
    /// ## What it does
    /// Finds a per-instance scheduler — `@Scheduled` (Spring, Quarkus, Micronaut),
    /// `scheduleAtFixedRate`/`scheduleWithFixedDelay`, `Timer`, Vert.x `setPeriodic`, a Quartz job
    /// — whose task reaches an idempotency key sink or a known side effect (across methods and
    /// files) with no cluster-wide guard in front of it. An alert's deduplication key (PagerDuty's
    /// `dedup_key`) counts only when it is new on every run of the job.
    ///
    /// A guard counts when its answer decides the work: `if (…) { … }`, `if (!…) return;`, a
    /// loop or a callback over what it claimed (`for (x : claimed)`, `claimed.forEach(…)`). The
    /// guards are ShedLock's `@SchedulerLock`; a lock service's `tryLock`/`acquire…Lock`
    /// (`acquireLock`, `acquireJobLock`)/`isLeader` (also inside a project helper whose answer is
    /// the lock's); leader election
    /// (a flag that an `OnGrantedEvent` handler sets to `true`); SQL claims
    /// (advisory locks, `FOR UPDATE SKIP LOCKED`, a conditional `UPDATE … WHERE` whose row count
    /// is tested — also in a repository's `@Query`, written whole or as a concatenation, behind a
    /// service that returns `null` or `false` when it lost); a row lock held until the
    /// transaction ends (`select … for update`, Spring Data `@Lock(LockModeType.PESSIMISTIC_WRITE)`)
    /// read in a method that runs in a transaction, whose result decides the work (`if
    /// (locked.isEmpty()) return;`, a switch on the locked row's state): a second replica waits
    /// for the first to commit and reads what it left — outside a transaction, or with a shared
    /// `PESSIMISTIC_READ` lock, it is no guard; claiming work from a shared queue or subscription, where each item goes to one
    /// replica (SQS `receiveMessage`, Spring Cloud AWS `SqsTemplate.receive…`, JMS `receive`,
    /// Kafka `poll`, a project wrapper returning what they received, Conductor's `queueDAO.pop`,
    /// a listener subscribed to a queue); and Quartz with a clustered job store.
    ///
    /// ## Why is this bad?
    /// A scheduler runs in every instance: three replicas of a Deployment fire the same billing
    /// job at the same moment. Even with a perfect key, concurrent requests can all be accepted
    /// before the provider's idempotency cache is written, and with a per-run key every replica
    /// charges.
    ///
    /// ## Example
    /// ```java
    /// @Scheduled(cron = "0 0 2 * * *")
    /// public void chargeDueInvoices() {
    ///     for (Invoice i : invoices.due()) {
    ///         billing.charge(i, "invoice-" + i.id());      // every replica sends this
    ///     }
    /// }
    /// ```
    ///
    /// ## How to fix
    /// Let one instance run the job: ShedLock (`@SchedulerLock(name = "chargeDueInvoices")`), an
    /// advisory lock whose result decides whether the work runs
    /// (`if (jdbc.queryForObject("select pg_try_advisory_lock(42)", Boolean.class)) { … }`), a
    /// Redisson or Spring Integration lock (`if (lock.tryLock()) { … }`), leader election, or a
    /// claim row (`INSERT … ON CONFLICT DO NOTHING` whose row count gates the call). Or deploy the
    /// scheduler as a single replica and suppress the finding with that reason.
    ///
    /// ## When it is silent: an alert with a stable deduplication key
    /// An alert is not a side effect. A job that only pages fires on every replica, but PagerDuty
    /// merges the triggers that carry the same `dedup_key` into one incident: a key that names
    /// the alert (`consumer + "-STALE_HEARTBEAT"`, `"dlq-" + LocalDate.now()`) is silent. A key
    /// made anew on every run — from a random value, the clock or a counter evaluated in the
    /// job's own execution — opens an incident per replica and per run, and is reported:
    /// ```java
    /// @Scheduled(fixedDelay = 60_000)
    /// public void checkStaleConsumers() {
    ///     for (String c : stats.staleConsumers()) {
    ///         pagerDuty.trigger(c + " stopped", "critical", c + "-STALE_HEARTBEAT");   // silent
    ///     }
    /// }
    ///
    /// @Scheduled(cron = "0 0 * * * *")                                                // RL005
    /// public void checkBalanceDrift() {
    ///     pagerDuty.trigger("wallets drifted", "critical",
    ///             "wallet-drift-" + System.currentTimeMillis());                        // and RL002
    /// }
    /// ```
    /// (`trigger` puts its last argument into the event's `dedup_key` body field.) A fresh key
    /// that reaches the pager only under a test on a parameter counts only for the jobs whose
    /// calls can pass it:
    /// ```java
    /// public void raise(AlertLevel level, String text) {
    ///     Alert a = Alert.builder().id(UUID.randomUUID().toString()).level(level).build();
    ///     if (a.getLevel() == AlertLevel.CRITICAL) pager.trigger(a.getId(), text);
    /// }
    ///
    /// @Scheduled(fixedDelay = 60_000)                                                 // silent
    /// public void checkDisk() { alerts.raise(AlertLevel.WARNING, "disk at 85%"); }
    /// ```
    /// Only alert
    /// keys are judged so: a stable key on a money request (`Idempotency-Key: bill-42-debit` on
    /// a wallet debit) is still reported, since the replicas' concurrent requests can all be
    /// accepted before the service has recorded the key.
    ///
    /// ## When it is silent: a key header sent only on reads
    /// A job that writes a key into a header container (`HttpHeaders`, a header `Map`) and
    /// sends the container only on reads — a Feign `@GetMapping`, `exchange(url,
    /// HttpMethod.GET, …)`, `getForObject`, `restClient.get()`, OkHttp's `.get()` — reaches no
    /// key sink: a key on a GET deduplicates nothing, and a status poll on every replica
    /// moves no money. The same container sent on a POST, or on a request whose method cannot
    /// be told, is still a key sink:
    /// ```java
    /// @Scheduled(fixedRate = 60_000)                       // silent: status() is a @GetMapping
    /// public void refreshStatuses() {
    ///     for (String id : pending.idsInProgress()) pending.mark(id, gateway.status(id));
    /// }
    ///
    /// @Scheduled(cron = "0 0 0 * * *")                     // RL005: the container goes out on a POST
    /// public void closeDay() {
    ///     HttpHeaders headers = keyedHeaders();            // sets "Idempotency-Key"
    ///     restClient.post().uri("/days/close").headers(h -> h.addAll(headers)).retrieve()
    ///             .toBodilessEntity();
    /// }
    /// ```
    ///
    /// ## When it is silent: guards that decide the work
    /// A job that drains a shared queue sends what each message asks for on one replica only:
    /// ```java
    /// @Scheduled(fixedDelay = 5_000)
    /// public void drainRefunds() {
    ///     for (Message m : sqs.receiveMessage(request).messages()) {   // each message: one replica
    ///         refunds.refund(m.body());                                 // silent
    ///     }
    /// }
    /// ```
    /// A claim behind a service (`claimOperation` runs `@Modifying @Query("update … where
    /// … status in … and lease…")` and returns `null` when its row count is 0) decides too:
    /// `if (claimed == null) return false;` before the provider call is silent. So is a store
    /// whose `claimPending(id)` runs a native `@Query("select id from inbox where id = :id and
    /// status = 'PENDING' " + "for update skip locked")`, returns `false` when it found nothing
    /// and `updated > 0` after a conditional `update … where … status = 'PENDING'`, called
    /// through its interface: `if (!inbox.claimPending(id)) return;` guards what follows. So
    /// is a project method that hands the claimed items to a function it was passed
    /// (`pollAndExecute(queue, ids -> handle(ids))` with `if (!ids.isEmpty()) handler.accept(ids)`
    /// after `queueDAO.pop(…)`). A Quartz job is silent where its application clusters the job
    /// store: `org.quartz.jobStore.isClustered = true` in `quartz.properties`, or
    /// `spring.quartz.properties.org.quartz.jobStore.isClustered: true` in the
    /// `application.yml`/`.properties` of its build module. So are a Quarkus `@Scheduled` method
    /// and a Quartz job in an application with `quarkus.quartz.clustered = true` (the
    /// quarkus-quartz extension runs those methods on Quartz, and configures the scheduler jobs
    /// are registered with, with a JDBC job store shared by the nodes).
    ///
    /// ## When it is silent: the application's own idempotency store
    /// A key that only names a record of the application's own store is sent to no other
    /// system: the key parameter of a project method that claims its store under it
    /// (`redis.opsForValue().setIfAbsent(prefix + key, …)`), looks it up
    /// (`repository.findByIdempotencyKey(key)`) or only hands it back (`normalizeKey(key)`), a
    /// lookup's result that carries the key back (the key it looked up, or that of the record
    /// it found in storage or its cache), and a key field of an entity. A method that only
    /// copies a key from its parameters into the object it returns (a mapper) hands it back:
    /// the caller's use decides, and a job that sends what it returns is reported at that
    /// call. Like an alert key, it counts only where it is new on every run. A claim by a key every replica
    /// computes alike is itself a guard — one replica wins it (Redis `SET NX`: `setIfAbsent`,
    /// Jedis/Lettuce `setnx`, Hazelcast `IMap.putIfAbsent`), also through a project method that
    /// returns its answer or runs the function it is passed only when it won. A claim by a
    /// random key is won by every replica: it guards nothing, and is reported. A lookup is not a
    /// claim: every replica may find nothing and go on.
    /// ```java
    /// @Scheduled(cron = "0 0 2 * * *")
    /// public void renewDueSubscriptions() {
    ///     for (Subscription s : subscriptions.findByRenewalDate(today)) {
    ///         String key = "renewal:" + s.getId() + ":" + today;
    ///         if (!idempotency.tryClaim(key, Duration.ofDays(2))) continue;   // one replica wins
    ///         PaymentIntent.create(params(s), options(key));                    // silent
    ///     }
    /// }
    ///
    /// @Scheduled(cron = "0 0 3 * * *")                                            // RL005
    /// public void renewWithRandomClaim() {
    ///     for (Subscription s : subscriptions.findByRenewalDate(today)) {
    ///         String key = UUID.randomUUID().toString();                        // and RL001
    ///         if (!idempotency.tryClaim(key, Duration.ofDays(2))) continue;   // every replica wins
    ///         PaymentIntent.create(params(s), options(key));
    ///     }
    /// }
    /// ```
    /// (`tryClaim(String idempotencyKey, Duration ttl)` returns
    /// `Boolean.TRUE.equals(redis.opsForValue().setIfAbsent("idempotency:" + idempotencyKey,
    /// "IN_PROGRESS", ttl))`.)
    ///
    /// ## Known false positives
    /// A scheduler that is single-instance by deployment, or a Quartz scheduler clustered by
    /// configuration outside the module's `quartz.properties`/`application.yml`, cannot be seen
    /// from the source.
    ///
    /// ## Retries that cannot fire
    /// A scheduler fires on every replica whether or not a retry inside the job can fire, so a
    /// dead retry (RL006: no `@EnableRetry` in the application, a private method, a catch-all
    /// body, a fallback that swallows every failure) neither adds nor silences an RL005. The
    /// key of a job is checked by RL001–RL004 only for the retries that can fire:
    /// ```java
    /// @Scheduled(cron = "0 0 2 * * *")
    /// public void chargeDueInvoices() {
    ///     for (Invoice i : invoices.due()) {
    ///         charger.charge(i);      // a catch-all @Retryable `charge` is RL006, not RL001;
    ///     }                           // this job is still RL005 on every replica
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
        id: "RL005",
        name: "unlocked-scheduled-side-effect",
        level: Warning,
        source: None,
        summary: "A per-instance scheduler reaches a key sink or a known side effect with no cluster-wide guard",
        verb: "runs",
        consequence: "every replica sends it",
        primary_label: "per-instance scheduler",
        related_label: "reached with no cluster-wide lock",
        fix: "Let one instance run the job: ShedLock, an advisory lock or leader election",
        check: Some(check),
    }
}

/// A per-instance scheduler that reaches a key sink or a side effect with no lock.
fn check(cx: &Context) -> Vec<Finding> {
    let (project, cat) = (cx.project, cx.cat);
    let locked = |m: MethodId| {
        let mm = project.method(m);
        let class = project.class_of(m);
        mm.annotations.iter().any(|a| {
            let t = project.resolve_type(m.0, Some(class.1 as usize), &a.name);
            cat.guards
                .cluster_locks
                .annotations
                .iter()
                .any(|x| project.type_is(&t, x))
        })
    };
    // A clustered scheduler (Quartz with `org.quartz.jobStore.isClustered = true`) fires each
    // trigger on one instance of the cluster.
    let clustered = |r: &regions::Region| {
        cat.guards
            .cluster_locks
            .clustered
            .iter()
            .any(|(rows, settings)| {
                rows.contains(&r.row)
                    && settings.iter().any(|k| {
                        project
                            .modules()
                            .setting(r.loc.file, k)
                            .iter()
                            .any(|v| v.trim().eq_ignore_ascii_case("true"))
                    })
            })
    };
    let mut out: BTreeMap<(u32, Span), Finding> = BTreeMap::new();
    for (i, r) in cx.regions.iter().enumerate() {
        if !r.scheduler || clustered(r) {
            continue;
        }
        // Methods run whole by the scheduler, and the effects met on the way.
        let mut reached: Vec<(MethodId, &flow::Effect)> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = Vec::new();
        for p in &r.parts {
            match p {
                regions::Part::Whole(m) => {
                    if !locked(*m) && seen.insert(*m) {
                        stack.push(*m);
                    }
                }
                regions::Part::Scopes(m, roots) => {
                    let mm = project.method(*m);
                    let Some(f) = cx.flows.get(m) else { continue };
                    for e in &f.effects {
                        if !e.guarded && !e.handed_back && regions::scope_within(mm, e.scope, roots)
                        {
                            reached.push((*m, e));
                        }
                    }
                    for (s, callee) in &f.unguarded_calls {
                        let lock_applies = locked(*callee) && !f.self_calls.contains(callee);
                        if regions::scope_within(mm, *s, roots)
                            && !lock_applies
                            && seen.insert(*callee)
                        {
                            stack.push(*callee);
                        }
                    }
                }
            }
        }
        while let Some(m) = stack.pop() {
            let Some(f) = cx.flows.get(&m) else { continue };
            reached.extend(
                f.effects
                    .iter()
                    .filter(|e| !e.guarded && !e.handed_back)
                    .map(|e| (m, e)),
            );
            for (_, callee) in &f.unguarded_calls {
                let lock_applies = locked(*callee) && !f.self_calls.contains(callee);
                if !lock_applies && seen.insert(*callee) {
                    stack.push(*callee);
                }
            }
        }
        // An alert is not a side effect: an alert's deduplication key (PagerDuty's `dedup_key`)
        // counts only where it is new on each run of this scheduler, since a stable one makes
        // the alerting service merge the replicas' triggers into one incident. So does a key
        // that only names a record of the application's own store (its claim or lookup key, an
        // entity's key field): it is sent nowhere, and a stable one lets the store tell the
        // replicas' runs apart; a claim by a random key is won by every replica.
        let is_alert = |e: &flow::Effect| {
            matches!(e.kind, flow::EffectKind::KeySink) && (e.own_key || cat.is_alert_key(&e.row))
        };
        let fresh: &[(Loc, String)] = if reached.iter().any(|(_, e)| is_alert(e)) {
            reach::fresh_sinks(cx, i)
        } else {
            &[]
        };
        let fresh_at = |m: MethodId, e: &flow::Effect| {
            fresh
                .iter()
                .find(|(l, _)| {
                    l.file == m.0
                        && ((e.span.start <= l.span.start && l.span.end <= e.span.end)
                            || (l.span.start <= e.span.start && e.span.end <= l.span.end))
                })
                .map(|(_, label)| label.clone())
        };
        reached.retain(|(m, e)| !is_alert(e) || fresh_at(*m, e).is_some());
        // A key header in a container counts where the scheduler sends the container on a
        // request that is not a read.
        let within = |x: MethodId| {
            seen.contains(&x)
                || r.parts.iter().any(|p| {
                    matches!(p, regions::Part::Whole(w) | regions::Part::Scopes(w, _) if *w == x)
                })
        };
        reached.retain(|(m, e)| {
            !matches!(e.kind, flow::EffectKind::KeySink)
                || reach::sent_as_key(
                    cx,
                    &Loc {
                        file: m.0,
                        span: e.span,
                    },
                    &within,
                )
        });
        reached.sort_by_key(|(m, e)| (m.0, e.span));
        let Some((m, e)) = reached.first() else {
            continue;
        };
        let path = project.files[r.loc.file as usize].path.clone();
        let call = Loc {
            file: m.0,
            span: e.span,
        };
        let what = match e.kind {
            flow::EffectKind::KeySink => message::sink_name(&e.label),
            flow::EffectKind::SideEffect { .. } => e.label.clone(),
        };
        let effect = related(
            project,
            &call,
            format!("reached with no cluster-wide lock: {what}"),
        );
        let at = message::at(&path, &effect.path, effect.line);
        let what = match e.kind {
            flow::EffectKind::KeySink => match fresh_at(*m, e) {
                Some(source) if e.own_key => {
                    format!(
                        "a key of its own claim store made anew on every run from {source} ({what}; every replica wins such a claim)"
                    )
                }
                Some(source) if is_alert(e) => {
                    format!("an alert key made anew on every run from {source} ({what})")
                }
                _ => format!("an idempotency key ({what})"),
            },
            flow::EffectKind::SideEffect { .. } => what,
        };
        let owner = project
            .all_methods()
            .find(|x| r.parts.iter().any(|p| matches!(p, regions::Part::Whole(w) | regions::Part::Scopes(w, _) if w == x)))
            .map(|x| project.method(x).name.to_string())
            .unwrap_or_else(|| r.owner.clone());
        out.entry((r.loc.file, r.loc.span)).or_insert_with(|| {
            let mut f = Finding::new(&RULE, project, r.loc.file, r.loc.span, owner, r.describe());
            let chain = reach::region_path(cx, r, *m, true);
            f.message = format!(
                "{} runs on every replica and reaches {what} at {at}{} with no cluster-wide lock: {}",
                r.describe(),
                message::through(&reach::chain_names(project, &chain)),
                RULE.consequence
            );
            let last = effect.message.clone();
            f.steps = reach::flow_steps(cx, r, &chain, "run", Some((&call, last)));
            f.sinks = vec![effect];
            f.rows.add_region(&r.row);
            match e.kind {
                flow::EffectKind::KeySink => f.rows.add_sink(&e.row),
                flow::EffectKind::SideEffect { .. } => f.rows.add_side_effect(&e.row),
            }
            f
        });
    }
    out.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::snippets::{fails, passes};

    const FAIL: &[&str] = &[
        r#"
import com.stripe.model.Charge;
import com.stripe.param.ChargeCreateParams;
import org.springframework.scheduling.annotation.Scheduled;

class Dunning {
    @Scheduled(cron = "0 0 * * * *")
    void chargeOverdue() throws Exception {
        Charge.create(ChargeCreateParams.builder().setAmount(100L).build());
    }
}
"#,
        r#"
import java.util.HashMap;
import java.util.Map;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.client.RestTemplate;

class DriftAlerts {
    RestTemplate rest;

    @Scheduled(cron = "0 0 * * * *")
    void checkDrift() {
        Map<String, Object> event = new HashMap<>();
        event.put("event_action", "trigger");
        event.put("dedup_key", "drift-" + System.currentTimeMillis());
        rest.postForEntity("https://events.pagerduty.com/v2/enqueue", event, Map.class);
    }
}
"#,
    ];

    const PASS: &[&str] = &[
        r#"
import java.util.HashMap;
import java.util.Map;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.client.RestTemplate;

class StaleConsumerAlerts {
    RestTemplate rest;
    Stats stats;

    @Scheduled(fixedDelay = 60000)
    void checkStale() {
        for (String consumer : stats.stale()) {
            Map<String, Object> event = new HashMap<>();
            event.put("event_action", "trigger");
            event.put("dedup_key", consumer + "-STALE_HEARTBEAT");
            rest.postForEntity("https://events.pagerduty.com/v2/enqueue", event, Map.class);
        }
    }

    interface Stats {
        java.util.List<String> stale();
    }
}
"#,
        r#"
import com.stripe.model.Charge;
import com.stripe.param.ChargeCreateParams;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;

class Dunning {
    @Scheduled(cron = "0 0 * * * *")
    @SchedulerLock(name = "dunning")
    void chargeOverdue() throws Exception {
        Charge.create(ChargeCreateParams.builder().setAmount(100L).build());
    }
}
"#,
        r#"
import com.stripe.model.Charge;
import com.stripe.param.ChargeCreateParams;
import org.springframework.scheduling.annotation.Scheduled;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

class DunningQueue {
    SqsClient sqs;

    @Scheduled(fixedDelay = 5000)
    void drain() throws Exception {
        for (Message m : sqs.receiveMessage(ReceiveMessageRequest.builder().build()).messages()) {
            Charge.create(ChargeCreateParams.builder().setCustomer(m.body()).build());
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
}

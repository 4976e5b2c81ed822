use super::declare_rule;

declare_rule! {
    /// ## What it does
    /// Finds a per-instance scheduler — `@Scheduled` (Spring, Quarkus, Micronaut),
    /// `scheduleAtFixedRate`/`scheduleWithFixedDelay`, `Timer`, Vert.x `setPeriodic`, a Quartz job
    /// — whose task reaches an idempotency key sink or a known side effect (across methods and
    /// files) with no cluster-wide guard in front of it.
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
    /// ## Known false positives
    /// A scheduler that is single-instance by deployment, or a Quartz job in a clustered
    /// scheduler configured outside the code, cannot be seen from the source.
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
    }
}

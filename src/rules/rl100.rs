use super::declare_rule;

declare_rule! {
    /// ## What it does
    /// With `--report-unused-ignores` (or `report-unused-ignores = true` in `retrylint.toml`),
    /// finds a suppression — a `// retrylint:ignore …` comment or a
    /// `@SuppressWarnings("retrylint:…")` value — that suppressed no finding in this run. A
    /// suppression naming several rules is reported for the rules it did not use. Only rules that
    /// ran are considered: a suppression of a rule left out by `--select`, `--ignore` or the
    /// configuration is never reported as unused.
    ///
    /// ## Why is this bad?
    /// A suppression outlives the code it was written for. Once the key is fixed or the code
    /// moved, a stale `retrylint:ignore` silently hides the next real finding on that line or
    /// in that method.
    ///
    /// ## Example
    /// ```java
    /// @Retryable
    /// public void charge(Order order) {
    ///     // retrylint:ignore RL001 -- key generated once by the caller
    ///     options.setIdempotencyKey(order.getKey());   // nothing to suppress any more
    /// }
    /// ```
    ///
    /// ## How to fix
    /// Delete the suppression, or narrow it to the rules it still suppresses. This diagnostic
    /// fails the run like any other warning (set its level in `[rules]` or `--ignore RL100` to
    /// keep it informational).
    RULE {
        id: "RL100",
        name: "unused-suppression",
        level: Warning,
        source: None,
        summary: "A retrylint suppression comment or annotation suppresses no finding",
        verb: "suppresses nothing",
        consequence: "remove it",
        primary_label: "unused suppression",
        related_label: "",
        fix: "Remove the suppression or the rules it no longer needs",
        // Reported by the suppression step, on the finished findings.
        check: None,
    }
}

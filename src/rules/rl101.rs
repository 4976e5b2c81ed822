use super::declare_rule;

declare_rule! {
    /// ## What it does
    /// Finds a suppression that does not work as written: it names a rule that does not exist
    /// (a typo such as `RL01`, or a reason written without `--`, whose words are then read as
    /// rule names), it gives no reason while `retrylint.toml` sets `require-reason = true`, or
    /// it is a near-miss of the syntax that suppresses nothing: `retrylint: ignore` (a space
    /// after the colon), `retrylint-ignore`, `retrylint:disable`, `retrylint:noqa`.
    /// `retrylint:ignore` itself is accepted in any case (`RETRYLINT:IGNORE`) and with a colon
    /// before the rules (`retrylint:ignore: RL001`). A suppression without a required reason
    /// does not suppress anything: the finding is still reported, and so is this.
    ///
    /// ## Why is this bad?
    /// A suppression is a reviewed decision that a finding is safe. Without a reason the next
    /// reader cannot tell a reviewed exception from a silenced alarm; with a misspelt rule the
    /// finding it was meant for is not suppressed at all.
    ///
    /// ## Example
    /// ```java
    /// // retrylint:ignore RL001
    /// String key = UUID.randomUUID().toString();
    /// ```
    ///
    /// ## How to fix
    /// Name existing rules (`retrylint rules`) and give the reason after `--`:
    /// ```java
    /// // retrylint:ignore RL001 -- the key is stored on the first attempt and read back after
    /// String key = UUID.randomUUID().toString();
    /// ```
    RULE {
        id: "RL101",
        name: "invalid-suppression",
        level: Warning,
        source: None,
        summary: "A retrylint suppression names an unknown rule, lacks the reason the configuration requires, or is misspelt",
        verb: "is invalid",
        consequence: "fix it",
        primary_label: "invalid suppression",
        related_label: "",
        fix: "Name existing rules and give the reason after `--`",
        // Reported by the suppression step, on the finished findings.
        check: None,
    }
}

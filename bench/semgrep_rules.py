#!/usr/bin/env python3
"""Writes bench/semgrep-rl001-rl003.yml and bench/semgrep-rl001-rl003-every-file.yml.

    python3 bench/semgrep_rules.py lit   > bench/semgrep-rl001-rl003.yml
    python3 bench/semgrep_rules.py every > bench/semgrep-rl001-rl003-every-file.yml
"""
import json, sys
REGIONS_ANN = ["Retryable", "Retry", "Scheduled", "KafkaListener", "RetryableTopic", "RabbitListener",
               "JmsListener", "SqsListener"]
SINK_METHODS = ["setIdempotencyKey", "idempotencyKey", "withIdempotencyKey", "setIdempotencyToken",
                "idempotencyToken", "clientToken", "clientRequestToken", "setClientToken"]
HEADER_METHODS = ["header", "addHeader", "setHeader", "set", "add", "put"]
KEY_NAME = r'(?i)^"[^"]*(idempoten(cy|ce|t)[-_]?(key|token|id)?|deduplicationid|dedupid|dedupkey)"$'
SOURCES = {
    "RL001": ("random-idempotency-key-in-retry", "A random value becomes an idempotency key in re-executed code",
              [("UUID", "randomUUID"), ("Math", "random"), ("RandomStringUtils", "random.*")],
              ["nextInt", "nextLong", "nextBytes", "nextDouble"]),
    "RL002": ("clock-idempotency-key-in-retry", "A clock value becomes an idempotency key in re-executed code",
              [("System", "currentTimeMillis"), ("System", "nanoTime"), ("Instant", "now"),
               ("LocalDateTime", "now"), ("ZonedDateTime", "now"), ("OffsetDateTime", "now")], []),
    "RL003": ("attempt-counter-in-idempotency-key", "A retry attempt counter becomes an idempotency key",
              [], ["getRetryCount", "getAttemptCount", "getExecutionCount", "getAttempt", "totalRetries"]),
}

def q(s):
    return json.dumps(s)

def rule(rid, name, msg, statics, instance, every):
    out = []
    out.append(f"  - id: {name}{'-every-file' if every else ''}")
    out.append("    languages: [java]")
    out.append("    severity: ERROR")
    out.append(f"    message: {q(msg + ' (' + rid + ')')}")
    out.append("    mode: taint")
    out.append("    pattern-sources:")
    # region: annotated method, RetryTemplate-style callback lambda, loop with try/catch
    regions = []
    if every:
        regions.append(["pattern-inside: |\n              @$ANN(...)\n              $RET $M(...) { ... }",
                        "metavariable-regex:\n              metavariable: $ANN\n              regex: ^(" + "|".join(REGIONS_ANN) + ")$"])
        regions.append(["pattern-inside: |\n              $T.$EXEC(($CTX) -> { ... }, ...)",
                        "metavariable-regex:\n              metavariable: $EXEC\n              regex: ^(execute|executeSupplier|executeCallable|get|run|call)$"])
    else:
        for a in REGIONS_ANN:
            regions.append([f"pattern-inside: |\n              @{a}(...)\n              $RET $M(...) {{ ... }}"])
        for e in ["execute", "executeSupplier", "executeCallable"]:
            regions.append([f"pattern-inside: |\n              $T.{e}(($CTX) -> {{ ... }}, ...)"])
    regions.append(["pattern-inside: |\n              for (...) { ... }", "pattern-inside: |\n              try { ... } catch ($E $EX) { ... }"])
    regions.append(["pattern-inside: |\n              while (...) { ... }", "pattern-inside: |\n              try { ... } catch ($E $EX) { ... }"])
    srcs = []
    if every:
        if statics:
            cls = "|".join(sorted({c for c, _ in statics}))
            mth = "|".join(sorted({m for _, m in statics}))
            srcs.append(["pattern: $C.$SRC(...)", f"metavariable-regex:\n              metavariable: $C\n              regex: ^({cls})$",
                         f"metavariable-regex:\n              metavariable: $SRC\n              regex: ^({mth})$"])
        if instance:
            srcs.append(["pattern: $R.$SRC(...)", "metavariable-regex:\n              metavariable: $SRC\n              regex: ^(" + "|".join(instance) + ")$"])
    else:
        for c, m in statics:
            if "." in m:
                srcs.append([f"pattern: {c}.$SRC(...)", f"metavariable-regex:\n              metavariable: $SRC\n              regex: ^{m}$"])
            else:
                srcs.append([f"pattern: {c}.{m}(...)"])
        for m in instance:
            srcs.append([f"pattern: $R.{m}(...)"])
    for reg in regions:
        for s in srcs:
            out.append("      - patterns:")
            for p in reg + s:
                out.append("          - " + p)
    out.append("    pattern-sinks:")
    out.append("      - patterns:")
    out.append("          - pattern: $B.$SET($KEY)")
    out.append("          - metavariable-regex:\n              metavariable: $SET\n              regex: ^(" + "|".join(SINK_METHODS) + ")$")
    out.append("          - focus-metavariable: $KEY")
    out.append("      - patterns:")
    out.append("          - pattern: $H.$HDR($NAME, $KEY)")
    out.append("          - metavariable-regex:\n              metavariable: $HDR\n              regex: ^(" + "|".join(HEADER_METHODS) + ")$")
    out.append("          - metavariable-regex:\n              metavariable: $NAME\n              regex: " + q(KEY_NAME))
    out.append("          - focus-metavariable: $KEY")
    return "\n".join(out)

every = sys.argv[1] == "every"
head = ("# Semgrep CE taint rules with the reach of RL001-RL003 that Semgrep Community Edition can express:\n"
        "# the same region kinds (retried/scheduled/listener methods, retry callbacks, loops with try/catch),\n"
        "# sources and key sinks, within one method (cross-method taint needs Semgrep Pro). Used only to\n"
        "# compare speed in bench/run.py. Generated by bench/semgrep_rules.py.\n")
if every:
    head += ("# Written with metavariable regexes instead of literals, so that Semgrep's literal prefilter\n"
             "# cannot skip a file: it parses every file, as retrylint does.\n")
print(head + "rules:")
for rid, (name, msg, statics, inst) in SOURCES.items():
    print(rule(rid, name, msg, statics, inst, every))

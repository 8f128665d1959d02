#!/usr/bin/env python3
"""Summarizes the CPU samples (jdk.ExecutionSample) of a JFR recording: where the service spends its CPU.

  jfr-top.py recording.jfr [top_n]

Prints (1) inclusive shares for a few known cost centres (a sample counts for every centre found anywhere in
its stack) and (2) the top self methods. Uses the JDK's `jfr` tool (next to `java`); stdlib only otherwise.
"""
import collections
import json
import os
import shutil
import subprocess
import sys

# (label, substrings matched against "package.Class.method" of any frame)
CENTRES = [
    # phases of one POST /api/orders (nested ones are inside the earlier ones)
    ("JWT parse + verify (smallrye-jwt, jose4j)", ("io.smallrye.jwt.", "org.jose4j.")),
    ("OrderResource.create (the whole resource method)", ("dev.onceguard.checkout.OrderResource.create",)),
    ("  IdempotencyService.request (key, JSON read + validate, fingerprint)", ("dev.onceguard.idempotency.IdempotencyService.request",)),
    ("    Fingerprint.of (JCS canonical form + SHA-256)", ("dev.onceguard.idempotency.Fingerprint.of",)),
    ("  OrderService.plan (catalog SELECT, build order, response JSON)", ("dev.onceguard.checkout.OrderService.plan",)),
    ("  PostgresIdempotencyStore.claimFinished (INSERT ... ON CONFLICT, the answer stored)",
     ("dev.onceguard.idempotency.PostgresIdempotencyStore.claimFinished",)),
    ("  OrderRows.inserting (the order's writes for the claim, built)", ("dev.onceguard.checkout.OrderRows.inserting",)),
    ("  transaction commit (Narayana + Hibernate before-completion)", (".NotifyingUserTransaction.commit", ".TransactionImple.commit",
                                                                       ".BaseTransaction.commit", ".TransactionManagerImple.commit")),
    ("  transaction begin", (".NotifyingUserTransaction.begin", ".BaseTransaction.begin")),
    ("  IdempotentResponse.toResponse", ("dev.onceguard.idempotency.IdempotentResponse.toResponse",)),
    ("URI template of every request, for the HTTP metrics (Quarkus REST's auth failure handler)",
     ("ObservabilityIntegrationRecorder.setTemplatePath",)),
    ("Context propagation captures (SmallRye, for Mutiny)", ("io.smallrye.context.",)),
    # libraries, anywhere in the stack
    ("Hibernate ORM (any)", ("org.hibernate.orm", "org.hibernate.engine", "org.hibernate.internal", "org.hibernate.event",
                             "org.hibernate.query", "org.hibernate.sql", "org.hibernate.persister", "org.hibernate.action",
                             "org.hibernate.resource", "org.hibernate.type", "org.hibernate.metamodel")),
    ("  Hibernate flush", ("org.hibernate.internal.SessionImpl.flush", "org.hibernate.internal.SessionImpl.autoFlush",
                           "org.hibernate.internal.SessionImpl.fireFlush", "org.hibernate.event.internal.DefaultAutoFlushEventListener")),
    ("PostgreSQL JDBC driver (any)", ("org.postgresql.",)),
    ("Agroal pool (any)", ("io.agroal.",)),
    ("Jackson (any)", ("com.fasterxml.jackson.",)),
    ("Hibernate Validator (any)", ("org.hibernate.validator.",)),
    ("SecureRandom (Ids.next, UUID.randomUUID)", ("java.security.SecureRandom.",)),
    ("Micrometer (any)", ("io.micrometer.",)),
    ("logging (any)", ("org.jboss.logmanager.", "org.jboss.logging.")),
]


def frame_name(frame):
    method = frame.get("method", {})
    cls = method.get("type", {}).get("name", "?")
    return "%s.%s" % (cls.replace("/", "."), method.get("name", "?"))


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    recording = sys.argv[1]
    top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    jfr = shutil.which("jfr") or os.path.join(os.path.dirname(os.path.realpath(shutil.which("java"))), "jfr")
    out = subprocess.run([jfr, "print", "--json", "--stack-depth", "128", "--events", "jdk.ExecutionSample",
                          recording], check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]
    total = len(events)
    if total == 0:
        print("no execution samples")
        return
    inclusive = collections.Counter()
    self_time = collections.Counter()
    threads = collections.Counter()
    for event in events:
        values = event["values"]
        frames = [frame_name(f) for f in (values.get("stackTrace") or {}).get("frames", [])]
        if frames:
            self_time[frames[0]] += 1
        thread = (values.get("sampledThread") or {}).get("javaName") or "?"
        threads[thread.rstrip("0123456789").rstrip("-#")] += 1
        joined = "\n".join(frames)
        for label, needles in CENTRES:
            if any(n in joined for n in needles):
                inclusive[label] += 1
    print("JFR execution samples: %d (stack depth 128)" % total)
    print("\nInclusive share (a sample counts for every line whose frames are in its stack; indented = inside the line above):")
    for label, _ in CENTRES:
        print("  %5.1f%%  %s" % (100.0 * inclusive[label] / total, label))
    print("\nSamples by thread group:")
    for name, n in threads.most_common(8):
        print("  %5.1f%%  %s" % (100.0 * n / total, name))
    packages = collections.Counter()
    for name, n in self_time.items():
        parts = name.split(".")
        packages[".".join(parts[:3]) if len(parts) > 3 else name] += n
    print("\nSelf time by package (leaf frame):")
    for name, n in packages.most_common(15):
        print("  %5.1f%%  %s" % (100.0 * n / total, name))
    print("\nTop %d self methods:" % top_n)
    for name, n in self_time.most_common(top_n):
        print("  %5.1f%%  %s" % (100.0 * n / total, name))


if __name__ == "__main__":
    main()

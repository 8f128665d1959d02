#!/usr/bin/env python3
"""Reads the logs bench/all.sh wrote into a results folder and prints one table: figure, target, measured, holds.

A figure without a target is reported with target "—". A part that did not run, or whose line is missing from its
log, is a row saying so (and does not hold).
"""
import os
import re
import sys

rows = []


def row(figure, target, measured, holds=None):
    rows.append((figure, target, measured, "—" if holds is None else ("yes" if holds else "**no**")))


def read(folder, name):
    path = os.path.join(folder, name)
    return open(path, errors="replace").read() if os.path.exists(path) else None


def orders(log):
    table = re.search(r"^\| clients \| \(a\) req/s.*?\n\|[-:|]+\|\n((?:\|.*\n)+)", log, re.M)
    if table:
        for line in table.group(1).splitlines():
            c, a, a50, a99, b, b50, b99, ctps = [x.strip() for x in line.strip("|").split("|")][:8]
            row(f"orders, new key, {c} clients: req/s (p50 / p99 ms)", "—", f"{a} ({a50} / {a99})")
            row(f"orders, replay, {c} clients: req/s (p50 / p99 ms)", "—", f"{b} ({b50} / {b99})")
            row(f"pgbench ceiling of the same SQL, {c} clients: tps", "—", ctps)
    for line in re.findall(r"^\| (a|b) \| (\d+) \|(.*)\|$", log, re.M):
        cells = [x.strip() for x in line[2].split("|")]
        if len(cells) >= 7:
            row(f"CPU per request, ({line[0]}) at {line[1]} clients: service / postgres ms", "—",
                f"{cells[5]} / {cells[6]}")
    targets = log.split("Targets:", 1)
    if len(targets) < 2:
        row("orders benchmark", "targets of bench/README.md", "no summary in orders.log", False)
        return
    for line in targets[1].splitlines():
        if not line.startswith("- "):
            continue
        prefix = ""
        for clause in line[2:].split(";"):
            clause = clause.strip()
            found = re.match(r"(c=\d+: )?(.*): (.*?) -> (PASS|FAIL)$", clause)
            if not found:
                continue
            prefix = found.group(1) or prefix
            clients = prefix.strip(": ").replace("c=", "")
            row(f"orders, {clients} clients" if clients else "orders", found.group(2), found.group(3),
                found.group(4) == "PASS")


def cost(log):
    table = re.search(r"^\| run \| req/s \| p50 \| p99 \| service CPU ms/req \| PostgreSQL CPU ms/req \|[^\n]*\n\|[-:|]+\|\n((?:\|.*\n?)+)",
                      log, re.M)
    if not table:
        row("CPU per request (cost-benchmark.py)", "—", "no table in cost.log", False)
        return
    for line in table.group(1).splitlines():
        label, rate, p50, p99, service, postgres = [x.strip() for x in line.strip("|").split("|")][:6]
        latency = f", {p50} / {p99}" if p50 else ""
        row(f"CPU per request, {label}: service / PostgreSQL ms (req/s, p50 / p99)", "—",
            f"{service or '—'} / {postgres} ({rate}{latency})")
    conditions = [found.group(1) for found in (re.search(r"^machine: (.*)$", log, re.M), re.search(r"^JVM: (.*)$", log, re.M))
                  if found]
    if conditions:
        row("CPU per request: machine, load average, JVM", "—", "; ".join(conditions))
    targets = log.split("\nTargets:\n", 1)
    if len(targets) < 2:
        row("CPU per request targets", "the engine's targets (bench/README.md)", "no Targets block in cost.log", False)
        rss = re.search(r"^service RSS after the run: (\d+) MB$", log, re.M)
        if rss:
            row("CPU per request: service RSS after the run", "< 400 MB", f"{rss.group(1)} MB", int(rss.group(1)) < 400)
        return
    for line in targets[1].splitlines():
        if not line.startswith("- "):
            break
        found = re.match(r"- (.+?): (.+?): (.+) -> (PASS|FAIL)$", line)
        if found:
            signs = lambda text: text.replace(">=", "≥").replace("<=", "≤").replace(" x", " ×")
            row(found.group(1), signs(found.group(2)), signs(found.group(3)), found.group(4) == "PASS")


def tests(log):
    ingest = re.search(r"BENCHMARK webhook ingest, (\d+) clients: (\d+) new events/s, (\d+) duplicate deliveries/s", log)
    if ingest:
        fresh, dup = int(ingest.group(2)), int(ingest.group(3))
        row(f"webhook ingest, {ingest.group(1)} clients: new events/s", "≥ 100", str(fresh), fresh >= 100)
        row("webhook ingest: duplicate deliveries/s", "≥ new events/s", str(dup), dup >= fresh)
    else:
        row("webhook ingest", "≥ 100 new events/s", "missing from tests.log", False)

    relays = re.findall(r"BENCHMARK outbox relay, ([^:]+): (\d+) events, (\d+) effects in ([\d.]+) s: (\d+) events/s, "
                        r"(\d+) effects/s", log)
    for name, _, _, _, events, effects in relays:
        row(f"outbox relay, {name}: events/s (effects/s)", "—", f"{events} ({effects})")
    rates = {name: int(events) for name, _, _, _, events, _ in relays}
    if "one relay" in rates and "two relays" in rates:
        one, two = rates["one relay"], rates["two relays"]
        row("outbox relay: two relays against one", "two ≥ one", f"{two} vs {one} events/s", two >= one)
    else:
        row("outbox relay", "two relays ≥ one", "missing from tests.log", False)

    cleanup = re.search(r"retention cleanup: (\d+) records in ([\d.]+) s \((\d+) rows/s, (\d+) runs\); order creation "
                        r"p50/p99 ([\d.]+)/([\d.]+) ms quiet \(n=\d+\) vs ([\d.]+)/([\d.]+) ms during cleanup", log)
    if cleanup:
        rate = int(cleanup.group(3))
        quiet99, busy99 = float(cleanup.group(6)), float(cleanup.group(8))
        row(f"retention cleanup of {cleanup.group(1)} records: rows/s", "≥ 10,000", str(rate), rate >= 10_000)
        row("order creation p99 during cleanup", "≤ 2 × p99 without", f"{busy99} vs {quiet99} ms",
            busy99 <= 2 * quiet99)
    else:
        row("retention cleanup under load", "≥ 10,000 rows/s", "missing from tests.log", False)

    console = re.search(r"BENCHMARK console pages\s*\n\s*page\s+p50 ms\s+p95 ms\s+max ms\n((?:.*\n)+?).*requests per page",
                        log)
    if console:
        for line in console.group(1).splitlines():
            found = re.match(r"(.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
            if found:
                p95 = float(found.group(3))
                row(f"console {found.group(1).strip()} at 1M records: p95 ms", "< 300", found.group(3), p95 < 300)
    else:
        row("console pages at 1M records", "p95 < 300 ms", "missing from tests.log", False)


def first_run(log):
    for label, key, target in [("package, fresh clone", "package, fresh clone:", None),
                               ("package, already built", "package, already built:", None),
                               ("start to ready, cold (no data folder)", "java -jar to ready, cold (empty data folder):", None),
                               ("start to ready, warm", "java -jar to ready, warm (existing data):", 10.0)]:
        found = re.search(re.escape(key) + r"\s+best ([\d.]+) s, median ([\d.]+) s", log)
        if not found:
            if target:
                row(label, f"median < {target:g} s", "missing from first-run.log", False)
            continue
        median = float(found.group(2))
        row(f"{label}: best / median s", f"median < {target:g} s" if target else "—",
            f"{found.group(1)} / {found.group(2)}", median < target if target else None)
    # first-run.sh prints its memory table as it goes and again in its summary: each row once
    for line in dict.fromkeys(re.findall(r"^\| ([^|]*(?:ready|orders)[^|]*) \| ([^|]+) \| ([^|]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \|$",
                                         log, re.M)):
        row(f"memory {line[0].strip()}: JVM RSS / PSS MiB, PostgreSQL RSS / PSS MiB", "—",
            f"{line[1].strip()} / {line[2].strip()}, {line[3].strip()} / {line[4].strip()}")


def main():
    folder = sys.argv[1]
    asked = os.environ.get("ALL_ONLY", "cost tests first-run").split()
    for name, parse in [("orders.log", orders), ("cost.log", cost), ("tests.log", tests), ("first-run.log", first_run)]:
        if name.replace(".log", "") not in asked:
            continue
        log = read(folder, name)
        if log is None:
            row(name.replace(".log", ""), "", "not run", False)
        else:
            parse(log)
    print("| figure | target | measured | holds |")
    print("| --- | --- | --- | --- |")
    for figure, target, measured, holds in rows:
        print(f"| {figure} | {target} | {measured} | {holds} |")
    sys.exit(0 if all(r[3] != "**no**" for r in rows) else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CPU cost per webhook event of the packaged service, beside the seed 003 receiver (the peer) and pgbench, in one run.

  python3 bench/webhook-cost-benchmark.py --jar target/quarkus-app/quarkus-run.jar [--label after] [--max-rate 3000]
      [--rounds 2] [--duration 15] [--port 18150] [--db wh_bench] [--peer-port 18155] [--peer-db wh_peer]
      [--peer-dir /work/shared/peer-fastapi] [--no-peer] [--no-pgbench] [--warmup-min 120] [--warmup-max 420]

The same method as cost-benchmark.py (whose measuring it uses): CPU of the process and of its own database's
PostgreSQL backends from /proc, every row after a CHECKPOINT, the peer measured in the same run.

1. starts the jar against a fresh database with the sandbox provider on and the outbox relay off, and the peer
   (webhooks_app.py) on its own database (webhooks_schema.sql); every event is a signed Standard Webhooks `payment.succeeded` for a PENDING payment
   of its own, whose order awaits payment (the service's payments carry a finished idempotency record, as one the
   sandbox answered PENDING does); signatures are computed before a row starts (bench/wrk/webhooks.lua sends them);
2. warms both up with new events and their duplicates in slices: the service's shaped like its rows (--duration s
   of each), the peer's 5 s of each (Python has no JIT to wait for), until the service's C2 compiler threads used
   under 2% of its part of two slices in a row and at least --warmup-min seconds have passed (its rows read no
   metrics, so neither do its slices); then VACUUM ANALYZE on both databases;
3. per round at 8 connections, --duration seconds each: new events to the service (a file of --max-rate x duration
   of them, more than a row can send), then the events that row delivered again (duplicates, round again if the row
   sends more), then pgbench running a new event's statements (bench/pgbench/webhook-event.sql) on the service's
   database, then the peer's new events and duplicates; each row read with the CPU its process and database spent
   per event. The relay stays off because it is not ingest: each new event leaves an ORDER_PAID outbox row whose effects
   (licence, loyalty points, notification, FULFILLED) the relay would run during the rows that follow, on the same
   CPUs and database, and the peer has no such work; bench/README.md's outbox relay benchmark measures them;
4. prints one JSON line per row, a markdown table, the targets (PASS or FAIL on the median of the rounds), the
   machine and the JVM.
"""
import argparse, base64, hashlib, hmac, importlib.util, json, os, subprocess, sys, time
from statistics import median

BENCH = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("cost_benchmark", os.path.join(BENCH, "cost-benchmark.py"))
cost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cost)

SECRET = "whsec_" + base64.b64encode(b"onceguard-webhook-benchmark-key!").decode()
KEY = base64.b64decode(SECRET[len("whsec_"):])
CONNS = 8


def psql(db, sql, attempts=10):
    """cost.psql, tried again while the server refuses the connection (a shared server may be out of slots)."""
    for attempt in range(attempts):
        try:
            return cost.psql(db, sql)
        except subprocess.CalledProcessError as refused:
            if refused.returncode != 2 or attempt == attempts - 1:
                raise
            time.sleep(2)


def signed(msg_id, timestamp, body):
    mac = hmac.new(KEY, f"{msg_id}.{timestamp}.".encode() + body.encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def write_events(path, events):
    """The file bench/wrk/webhooks.lua reads, signed now (the receivers accept 5 minutes of clock difference)."""
    now = int(time.time())
    with open(path, "w") as f:
        for event_id, body in events:
            f.write(f"{event_id}\t{now}\t{signed(event_id, now, body)}\t{body}\n")


def event(event_id, provider_payment_id, order_id):
    return event_id, json.dumps({
        "id": event_id, "type": "payment.succeeded", "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "data": {"object": {"id": provider_payment_id, "status": "SUCCEEDED", "amount": "1500.00", "currency": "RUB",
                            "metadata": {"order_id": order_id}}}}, separators=(",", ":"))


def service_events(tag, first, count):
    return [event(f"evt_{tag}_{i:08d}", f"sbx_bench_{i:08d}", f"ord_bench_{i:08d}") for i in range(first, first + count)]


def peer_events(tag, first, count):
    return [event(f"evt_{tag}_{i:07d}", f"sbx_peer_{i:07d}", f"ord_peer_{i:07d}") for i in range(first, first + count)]


def seed_service(db, first, count):
    """count PENDING sandbox payments from number first on, each with its order and a finished idempotency record."""
    last = first + count - 1
    psql(db, f"""
        INSERT INTO orders (order_id, user_id, status, total, currency, request_id, created_at, updated_at)
        SELECT 'ord_bench_' || lpad(i::text, 8, '0'), 'u-bench', 'AWAITING_PAYMENT', 1500.00, 'RUB', 'bench', now(), now()
          FROM generate_series({first}, {last}) i;
        WITH records AS (
            INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                response_status, response_headers, response_body, resource_type, resource_id, request_id, created_at,
                completed_at, expires_at)
            SELECT 'u-bench', 'create-payment', 'bench-' || lpad(i::text, 8, '0'), 'bench', 'COMPLETED', 'finished',
                   201, '{{}}', '{{}}', 'payment', 'pay_bench_' || lpad(i::text, 8, '0'), 'bench', now(), now(),
                   now() + interval '1 day'
              FROM generate_series({first}, {last}) i
            RETURNING id, resource_id)
        INSERT INTO payments (payment_id, order_id, user_id, status, amount, currency, provider,
            provider_idempotency_key, provider_payment_id, payment_method_token, idempotency_record_id, created_at,
            updated_at)
        SELECT resource_id, 'ord_bench_' || substr(resource_id, 11), 'u-bench', 'PENDING', 1500.00, 'RUB', 'sandbox',
               'onceguard-' || resource_id, 'sbx_bench_' || substr(resource_id, 11), 'tok_success', id, now(), now()
          FROM records""")


def delivered(events, db, table):
    """The events of a row that its receiver recorded, in order: the duplicates row sends these again."""
    recorded = set(psql(db, f"SELECT event_id FROM {table} WHERE event_id BETWEEN '{events[0][0]}'"
                                 f" AND '{events[-1][0]}'").split())
    return [e for e in events if e[0] in recorded]


def start_service(a):
    cost.psql("postgres", f"DROP DATABASE IF EXISTS {a.db} WITH (FORCE)")
    cost.psql("postgres", f"CREATE DATABASE {a.db}")
    env = dict(os.environ, QUARKUS_DATASOURCE_JDBC_URL=f"jdbc:postgresql://127.0.0.1:5432/{a.db}",
               QUARKUS_HTTP_PORT=str(a.port), SMALLRYE_JWT_VERIFY_KEY_LOCATION=f"{BENCH}/bench-hs256.jwk",
               SMALLRYE_JWT_VERIFY_ALGORITHM="HS256", MP_JWT_VERIFY_ISSUER="https://onceguard.bench",
               MP_JWT_VERIFY_AUDIENCES="https://onceguard.bench/api",
               ONCEGUARD_SANDBOX_ENABLED="true", ONCEGUARD_SANDBOX_DELIVERY_EVERY="off",
               ONCEGUARD_JOBS_OUTBOX_RELAY_EVERY="off", ONCEGUARD_WEBHOOKS_SANDBOX_SECRET=SECRET)
    gc_log = f"/tmp/{a.db}-gc.log"
    service = subprocess.Popen(["java", *a.java_opts.split(), f"-Xlog:gc:file={gc_log}", "-jar", a.jar], env=env,
                               stdout=open(f"/tmp/{a.db}-service.log", "w"), stderr=subprocess.STDOUT)
    try:
        cost.wait_ready(f"http://127.0.0.1:{a.port}/q/health/ready", 600)
    except SystemExit:
        cost.stop(service)
        raise
    return service, gc_log


def start_peer(a):
    cost.psql("postgres", f"DROP DATABASE IF EXISTS {a.peer_db} WITH (FORCE)")
    cost.psql("postgres", f"CREATE DATABASE {a.peer_db}")
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", a.peer_db, "-q", "-v", f"n={a.peer_payments}",
                    "-f", f"{a.peer_dir}/webhooks_schema.sql"], check=True, capture_output=True)
    env = dict(os.environ, PEER_WH_PG_DSN=f"postgresql://postgres@127.0.0.1:5432/{a.peer_db}", PEER_WH_SECRET=SECRET)
    peer = subprocess.Popen(["/usr/bin/python3", "serve_nodelay.py", "webhooks_app:app", "--host", "127.0.0.1",
                             "--port", str(a.peer_port), "--no-access-log"], cwd=a.peer_dir, env=env,
                            stdout=open(f"/tmp/{a.peer_db}.log", "w"), stderr=subprocess.STDOUT)
    time.sleep(3)
    return peer


def wrk(url, events_file, expect, seconds):
    os.environ.update(WEBHOOK_EVENTS=events_file, WEBHOOK_EXPECT=expect)
    return ["wrk", f"-t{cost.LOAD_THREADS}", f"-c{CONNS}", f"-d{seconds}s", "--timeout", "10s", "--latency", "-s",
            f"{BENCH}/wrk/webhooks.lua", url]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", required=True)
    ap.add_argument("--label", default="service")
    ap.add_argument("--max-rate", type=int, default=3000, help="events/s no row reaches: a row's file holds duration x this")
    ap.add_argument("--duration", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--warmup-min", type=int, default=120)
    ap.add_argument("--warmup-max", type=int, default=420)
    ap.add_argument("--port", type=int, default=18150)
    ap.add_argument("--db", default="wh_bench")
    ap.add_argument("--peer-port", type=int, default=18155)
    ap.add_argument("--peer-db", default="wh_peer")
    ap.add_argument("--peer-dir", default=os.environ.get("BENCH_PEER_DIR", "/work/shared/peer-fastapi"),
                    help="the seed 003 receiver (webhooks_app.py, webhooks_schema.sql, serve_nodelay.py)")
    ap.add_argument("--java-opts", default="-XX:MaxRAM=768m -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5 -XX:+UseSerialGC -Dquarkus.http.io-threads=2")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--no-pgbench", action="store_true")
    a = ap.parse_args()
    tag = "w" + time.strftime("%H%M%S")
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    url = f"http://127.0.0.1:{a.port}/webhooks/sandbox"
    peer_url = f"http://127.0.0.1:{a.peer_port}/webhooks/sandbox"
    a.events = a.max_rate * a.duration
    peer_warm_slice = 6000  # more than 5 s of new events take at the rates seen on this machine
    max_slices = a.warmup_max // (2 * a.duration) + 2
    a.peer_payments = max_slices * peer_warm_slice + a.rounds * a.events
    results = {}
    service = peer = None
    files = f"/tmp/{a.db}-events"
    os.makedirs(files, exist_ok=True)
    try:
        service, gc_log = start_service(a)
        if not a.no_peer:
            peer = start_peer(a)
        next_service, next_peer = 1, 1

        def service_slice():
            nonlocal next_service
            seed_service(a.db, next_service, a.events)
            write_events(f"{files}/warm.tsv", service_events(tag + "w", next_service, a.events))
            next_service += a.events
            subprocess.run(wrk(url, f"{files}/warm.tsv", "processed", a.duration), capture_output=True)
            subprocess.run(wrk(url, f"{files}/warm.tsv", "duplicate", a.duration), capture_output=True)

        def peer_slice():
            nonlocal next_peer
            write_events(f"{files}/warm.tsv", peer_events(tag + "w", next_peer, peer_warm_slice))
            next_peer += peer_warm_slice
            subprocess.run(wrk(peer_url, f"{files}/warm.tsv", "ok", 5), capture_output=True)
            subprocess.run(wrk(peer_url, f"{files}/warm.tsv", "already_processed", 5), capture_output=True)

        cost.warm_up(service.pid, a, service_slice, peer_slice if peer else lambda: None)
        # pgbench, with no HTTP in front, runs faster than --max-rate: 4,432 events/s in one run, when a round had
        # 40,000 payments for it and 40 % of its statements found none and settled nothing, yet were counted
        pgbench_payments = 0 if a.no_pgbench else a.rounds * 3 * a.events
        seed_service(a.db, next_service, a.rounds * a.events + pgbench_payments)
        psql(a.db, "VACUUM ANALYZE")
        if peer:
            psql(a.peer_db, "VACUUM ANALYZE")
        print("VACUUM ANALYZE done", flush=True)
        pgbench_first = next_service + a.rounds * a.events
        psql(a.db, f"DROP SEQUENCE IF EXISTS bench_pgbench_payment; CREATE SEQUENCE bench_pgbench_payment START {pgbench_first}")
        for n in range(1, a.rounds + 1):
            at = f"c{CONNS}" + (f" round {n}" if a.rounds > 1 else "")
            events = service_events(tag, next_service, a.events)
            next_service += a.events
            write_events(f"{files}/new.tsv", events)
            results.setdefault(("service", "new"), []).append(cost.measure(
                f"{a.label} new events {at}", wrk(url, f"{files}/new.tsv", "processed", a.duration), "wrk", service.pid,
                a.db, gc_log))
            write_events(f"{files}/dup.tsv", delivered(events, a.db, "webhook_inbox"))
            results.setdefault(("service", "duplicate"), []).append(cost.measure(
                f"{a.label} duplicates {at}", wrk(url, f"{files}/dup.tsv", "duplicate", a.duration), "wrk", service.pid,
                a.db, gc_log))
            if not a.no_pgbench:
                results.setdefault(("pgbench", "new"), []).append(cost.measure(
                    f"pgbench a new event's statements {at}",
                    ["pgbench", "-h", "127.0.0.1", "-U", "postgres", "-n", "-M", "prepared", f"-c{CONNS}",
                     f"-j{cost.LOAD_THREADS}", f"-T{a.duration}", "-D", f"tag={tag}p{n}", "-f",
                     f"{BENCH}/pgbench/webhook-event.sql", a.db], "pgbench", None, a.db))
                used = int(psql(a.db, "SELECT last_value FROM bench_pgbench_payment")) - pgbench_first + 1
                if used > pgbench_payments:
                    sys.exit(f"pgbench used {used} payments of the {pgbench_payments} seeded for it: its rows counted"
                             " statements that settled nothing; run again with a higher --max-rate")
            if peer:
                events = peer_events(tag, next_peer, a.events)
                next_peer += a.events
                write_events(f"{files}/peer-new.tsv", events)
                results.setdefault(("peer", "new"), []).append(cost.measure(
                    f"peer new events {at}", wrk(peer_url, f"{files}/peer-new.tsv", "ok", a.duration), "wrk", peer.pid,
                    a.peer_db))
                write_events(f"{files}/peer-dup.tsv", delivered(events, a.peer_db, "processed_webhooks"))
                results.setdefault(("peer", "duplicate"), []).append(cost.measure(
                    f"peer duplicates {at}", wrk(peer_url, f"{files}/peer-dup.tsv", "already_processed", a.duration),
                    "wrk", peer.pid, a.peer_db))
        wrong = psql(a.db, "SELECT count(*) FROM payments p JOIN orders o USING (order_id) WHERE p.payment_id LIKE"
                                " 'pay_bench_%' AND p.status = 'SUCCEEDED' AND o.status <> 'PAID'")
        print(f"settled payments whose order is not PAID: {wrong}", flush=True)
    finally:
        cost.stop(service)
        cost.stop(peer)

    print("\n| run | events/s | p50 | p99 | service CPU ms/event | PostgreSQL CPU ms/event | machine CPU busy | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in (r for runs in results.values() for r in runs):
        print(f"| {r['label']} | {r['rate']:.0f} | {r.get('p50', '')} | {r.get('p99', '')} | "
              f"{r['service_cpu_ms'] if r['service_cpu_ms'] is not None else ''} | {r['pg_cpu_ms']} | "
              f"{r['host_busy_pct']} % | {r.get('errors', '')} |")
    print("\nTargets (median of the rounds):")
    rows = lambda who, kind: results.get((who, kind))
    for kind, factor in [("new", 1.5), ("duplicate", 3)]:
        mine, theirs = rows("service", kind), rows("peer", kind)
        if mine and theirs:
            ratio = median([m["rate"] / max(t["rate"], 0.001) for m, t in zip(mine, theirs)])
            print(f"- {kind} events/s >= {factor} x the peer's: {ratio:.2f} x -> {'PASS' if ratio >= factor else 'FAIL'}")
        else:
            print(f"- {kind} events/s >= {factor} x the peer's: not measured -> FAIL")
    for kind, service_ms, pg_ms in [("new", 0.4, 0.4), ("duplicate", 0.1, 0.05)]:
        mine = rows("service", kind) or []
        for field, who, limit in [("service_cpu_ms", "service", service_ms), ("pg_cpu_ms", "PostgreSQL", pg_ms)]:
            value = median([m[field] for m in mine]) if mine else None
            print(f"- {who} CPU per {kind} event <= {limit} ms: "
                  + (f"{value:.3f} ms -> {'PASS' if value <= limit else 'FAIL'}" if value is not None else "not measured -> FAIL"))
    errors = sum(r.get("errors", 0) for (who, _), runs in results.items() if who == "service" for r in runs)
    print(f"- unexpected answers or socket errors from the service: {errors} -> {'PASS' if errors == 0 else 'FAIL'}")
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nmachine: {os.cpu_count()} cores, {model}; load average before {load_before}, after {load_after}")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    print(f"JVM: {java[0] if java else 'unknown'}; options: {a.java_opts}")


if __name__ == "__main__":
    main()

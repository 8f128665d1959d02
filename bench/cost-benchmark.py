#!/usr/bin/env python3
"""CPU cost per request of the packaged service, beside the peer and pgbench, in one run.

  python3 bench/cost-benchmark.py --jar target/quarkus-app/quarkus-run.jar [--label after] [--conns "1 8 32"]
      [--duration 15] [--port 18140] [--db h4_bench] [--peer-port 18145] [--peer-db h4_peer] [--peer-dir DIR] [--no-peer]
      [--java-opts "-XX:MaxRAM=768m -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5 -XX:+UseSerialGC -Dquarkus.http.io-threads=2"]

1. starts the jar against a fresh database, makes bench tokens, warms the JVM with alternating new-key and replay
   load until the C2 compiler threads used under 2% of a 10 s slice (printed per slice, 300 s at most);
2. runs ANALYZE, as autovacuum would;
3. for each connection count: wrk new-key orders, then wrk replays (200 keys), each read with the CPU the service
   process and this database's PostgreSQL backends spent (from /proc, so other databases' work is not counted),
   then the same for the peer (bench README), and pgbench running the service's own statements
   (bench/pgbench/post-order.sql, with new keys and with the replay keys);
4. prints one JSON line per measurement, a markdown table, the service's RSS, the targets at 8 connections (PASS or
   FAIL each; a target whose input was not measured, e.g. the peer's rate with --no-peer, is FAIL), the machine
   (cores, CPU model, load average before and after) and the JVM with its options.
"""
import argparse, json, os, re, shlex, subprocess, sys, time, urllib.request

BENCH = os.path.dirname(os.path.abspath(__file__))
NEW_KEYS = 4611686018427387903  # pgbench/post-order.sql draws its keys from this many: every order is a new one
TICK = os.sysconf("SC_CLK_TCK")


def psql(db, sql):
    return subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", db, "-qAtc", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def proc_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (FileNotFoundError, ProcessLookupError):  # the process ended between listing and reading
        return 0.0


def thread_cpu(pid, name_prefix):
    total = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if not f.read().startswith(name_prefix):
                    continue
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK
        except FileNotFoundError:
            pass
    return total


def backends(db):
    out = psql("postgres", f"SELECT pid FROM pg_stat_activity WHERE datname = '{db}'")
    return [int(p) for p in out.split()] if out else []


def db_cpu(db, pids):
    return sum(proc_cpu(p) for p in pids)


def latency_ms(text):
    """wrk's latency spelling (850.00us, 1.10ms, 1.02s, 2.00m) in milliseconds."""
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk_errors(text):
    """Answers the wrk script did not expect (BENCH_RESULT unexpected=, or else wrk's non-2xx count) and socket errors."""
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    unexpected = re.search(r"BENCH_RESULT .*\bunexpected=(\d+)", text)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    # the service's scripts count every answer but their expected 201 as unexpected, non-2xx ones included
    answers = int(unexpected.group(1)) if unexpected else int(non2xx.group(1)) if non2xx else 0
    return answers + (sum(int(g) for g in sockets.groups()) if sockets else 0)


def gc_pauses(gc_log, since_line):
    """The service's collections in its -Xlog:gc file after line since_line: "young N (X ms), full M (Y ms)"."""
    pauses = {"Young": [0, 0.0], "Full": [0, 0.0]}
    with open(gc_log) as log:
        for line in log.readlines()[since_line:]:
            found = re.search(r"Pause (Young|Full) .* ([\d.]+)ms$", line)
            if found:
                pauses[found.group(1)][0] += 1
                pauses[found.group(1)][1] += float(found.group(2))
    return "young {} ({:.0f} ms), full {} ({:.0f} ms)".format(*pauses["Young"], *pauses["Full"])


def lines_of(path):
    with open(path) as f:
        return sum(1 for _ in f)


def measure(label, cmd, kind, service_pid, db, gc_log=None):
    """Runs cmd; the database's CPU is summed over every backend seen while it ran (polled, so that backends which
    connect and leave during the run, like pgbench's, are counted up to their last 0.2 s). With gc_log, the row also
    says which collections the service paused for while it ran. Each row starts with a CHECKPOINT, as the orders
    benchmark's do: every row then writes its pages' first images after a checkpoint alike, and none meets the middle
    of one that the rows before it started (whose writes stretched the new keys' p99 to 60 x p50 on this machine)."""
    psql(db, "CHECKPOINT")
    gc_from = lines_of(gc_log) if gc_log else 0
    baseline = {pid: proc_cpu(pid) for pid in backends(db)}
    last = dict(baseline)
    s0, t0 = proc_cpu(service_pid) if service_pid else 0.0, time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy())
    while proc.poll() is None:
        for pid in backends(db):
            baseline.setdefault(pid, 0.0)
            last[pid] = max(last.get(pid, 0.0), proc_cpu(pid))
        time.sleep(0.2)
    for pid in list(last):
        last[pid] = max(last[pid], proc_cpu(pid))
    s1 = proc_cpu(service_pid) if service_pid else 0.0
    d0, d1 = sum(baseline.values()), sum(last.values())
    text = proc.stdout.read()
    res = {"label": label}
    if kind == "wrk":
        n = int(re.search(r"(\d+) requests in", text).group(1))
        p50 = re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1)
        p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1)
        res.update(rate=float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)), n=n, p50=p50, p99=p99,
                   p50_ms=latency_ms(p50), p99_ms=latency_ms(p99), errors=wrk_errors(text))
    else:
        n = int(re.search(r"number of transactions actually processed: (\d+)", text).group(1))
        res.update(rate=float(re.search(r"^tps = ([\d.]+)", text, re.M).group(1)), n=n,
                   avg_ms=float(re.search(r"latency average = ([\d.]+) ms", text).group(1)))
    n = max(n, 1)
    res["service_cpu_ms"] = round(1000 * (s1 - s0) / n, 3) if service_pid else None
    res["pg_cpu_ms"] = round(1000 * (d1 - d0) / n, 3)
    res["wall_s"] = round(time.time() - t0, 1)
    res["load_avg"] = os.getloadavg()[0]
    if gc_log:
        res["gc"] = gc_pauses(gc_log, gc_from)
    print(json.dumps(res), flush=True)
    if kind == "wrk" and res["errors"]:
        for line in re.findall(r"^(?:BENCH_RESULT|BENCH_UNEXPECTED|Non-2xx|Socket errors).*", text, re.M):
            print("  " + line, flush=True)
    return res


def wait_ready(url, seconds=180):
    for _ in range(seconds * 2):
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except Exception:
            pass
        time.sleep(0.5)
    raise SystemExit("not ready: " + url)


def post_order(base, token, key):
    req = urllib.request.Request(base + "/api/orders", method="POST",
                                 data=b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}',
                                 headers={"Authorization": "Bearer " + token, "Idempotency-Key": key,
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def run_service(a, conns, base, tag, results):
    """Starts the jar, warms it up, runs ANALYZE and measures new keys and replays at each connection count; answers
    the service's RSS in MB after the last measurement."""
    # the load orders p-184, a demo product, which a service outside embedded mode, dev and test loads only when asked
    env = dict(os.environ, ONCEGUARD_CATALOG_DEMO="true",
               QUARKUS_DATASOURCE_JDBC_URL=f"jdbc:postgresql://127.0.0.1:5432/{a.db}",
               QUARKUS_HTTP_PORT=str(a.port), SMALLRYE_JWT_VERIFY_KEY_LOCATION=f"{BENCH}/bench-hs256.jwk",
               SMALLRYE_JWT_VERIFY_ALGORITHM="HS256", MP_JWT_VERIFY_ISSUER="https://onceguard.bench",
               **dict(kv.split("=", 1) for kv in a.service_env))
    log = open(f"/tmp/{a.db}-service.log", "w")
    gc_log = f"/tmp/{a.db}-gc.log"
    service = subprocess.Popen(["java", *shlex.split(a.java_opts), f"-Xlog:gc:file={gc_log}", "-jar", a.jar], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_ready(base + "/q/health/ready")
        tokens = f"/tmp/{a.db}-tokens.txt"
        with open(tokens, "w") as f:
            subprocess.run([sys.executable, f"{BENCH}/make-tokens.py", "--users", "16", "--issuer",
                            "https://onceguard.bench", "--jwk", f"{BENCH}/bench-hs256.jwk"], stdout=f, check=True)
        token_list = open(tokens).read().split()
        os.environ.update(BENCH_DIR=BENCH, BENCH_TOKENS=tokens, BENCH_RUN_TAG=tag, BENCH_REPLAY_KEYS="200")
        for i in range(200):
            assert post_order(base, token_list[i % 16], f"{tag}-replay-{i:04d}") == 201
        wrk = lambda script, c, d: ["wrk", f"-t{min(c, 2)}", f"-c{c}", f"-d{d}s", "--latency", "-s",
                                    f"{BENCH}/wrk/{script}", base]
        started = time.time()
        while True:
            c2 = thread_cpu(service.pid, "C2 Compiler")
            subprocess.run(wrk("new-orders.lua", 8, 5), capture_output=True)
            subprocess.run(wrk("replays.lua", 8, 5), capture_output=True)
            busy = thread_cpu(service.pid, "C2 Compiler") - c2
            print(f"warm-up {time.time() - started:5.0f} s: C2 compiler threads {100 * busy / 10:4.1f}% of the slice",
                  flush=True)
            if busy < 0.2 or time.time() - started > a.warmup_max:
                break
        psql(a.db, "ANALYZE")
        print("ANALYZE done; orders so far:", psql(a.db, "SELECT count(*) FROM orders"), flush=True)
        for c in conns:
            results[("service", "new", c)] = measure(f"{a.label} new c{c}", wrk("new-orders.lua", c, a.duration), "wrk",
                                                     service.pid, a.db, gc_log)
            results[("service", "replay", c)] = measure(f"{a.label} replay c{c}", wrk("replays.lua", c, a.duration),
                                                        "wrk", service.pid, a.db, gc_log)
        rss = [l for l in open(f"/proc/{service.pid}/status") if l.startswith("VmRSS")][0].split()[1]
        return int(rss) // 1024
    finally:
        service.terminate()
        service.wait(30)


TARGET_CONNS = 8


def targets(results, rss_mb, ran_peer, ran_pgbench):
    """The engine's targets as "- figure: target: measured -> PASS|FAIL" lines; one whose input is missing is
    "not measured (why)" and FAIL."""
    c = TARGET_CONNS
    row = lambda who, kind: results.get((who, kind, c))
    why = {"service": f"no service run at {c} connections", "service run": "no service run",
           "peer": "--no-peer" if not ran_peer else f"no peer run at {c} connections",
           "pgbench": "--no-pgbench" if not ran_pgbench else f"no pgbench run at {c} connections"}
    lines = []

    def target(figure, goal, inputs, measured, holds):
        missing = [why[who] for who, value in inputs if value is None]
        if missing:
            lines.append(f"- {figure}: {goal}: not measured ({', '.join(dict.fromkeys(missing))}) -> FAIL")
        else:
            lines.append(f"- {figure}: {goal}: {measured()} -> {'PASS' if holds() else 'FAIL'}")

    for kind, name in [("new", "new-key orders"), ("replay", "replays")]:
        mine, peer = row("service", kind), row("peer", kind)
        target(f"{name} at {c} connections, req/s", ">= 1.5 x the peer's", [("service", mine), ("peer", peer)],
               lambda: f"{mine['rate']:.0f} vs {peer['rate']:.0f} ({mine['rate'] / max(peer['rate'], 0.001):.2f} x)",
               lambda: mine["rate"] >= 1.5 * peer["rate"])
    mine, pgb = row("service", "new"), row("pgbench", "new")
    target(f"new-key orders at {c} connections, req/s", ">= 60 % of pgbench's tps on the same statements",
           [("service", mine), ("pgbench", pgb)],
           lambda: f"{mine['rate']:.0f} vs {pgb['rate']:.0f} ({100 * mine['rate'] / max(pgb['rate'], 0.001):.0f} %)",
           lambda: mine["rate"] >= 0.6 * pgb["rate"])
    for kind, name, service_ms, pg_ms in [("new", "new order", 0.8, 0.6), ("replay", "replay", 0.3, 0.1)]:
        mine = row("service", kind)
        for field, who, limit in [("service_cpu_ms", "service", service_ms), ("pg_cpu_ms", "PostgreSQL", pg_ms)]:
            target(f"{who} CPU per {name} at {c} connections", f"<= {limit} ms", [("service", mine)],
                   lambda: f"{mine[field]:.3f} ms", lambda: mine[field] <= limit)
    for kind, name in [("new", "new-key orders"), ("replay", "replays")]:
        mine = row("service", kind)
        target(f"{name} at {c} connections, p99", "<= 10 x p50", [("service", mine)],
               lambda: f"{mine['p99_ms']:.2f} / {mine['p50_ms']:.2f} ms ({mine['p99_ms'] / max(mine['p50_ms'], 0.001):.1f} x)",
               lambda: mine["p99_ms"] <= 10 * mine["p50_ms"])
    service_runs = [r for (who, _, _), r in results.items() if who == "service"]
    errors = sum(r["errors"] for r in service_runs)
    target("errors in the service's new-key orders and replays (every connection count)",
           "0 unexpected answers or socket errors", [("service run", service_runs or None)],
           lambda: str(errors), lambda: errors == 0)
    target("service RSS after the run", "< 400 MB", [("service run", rss_mb)], lambda: f"{rss_mb} MB",
           lambda: rss_mb < 400)
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", required=True)
    ap.add_argument("--label", default="service")
    ap.add_argument("--conns", default="1 8 32")
    ap.add_argument("--duration", type=int, default=15)
    ap.add_argument("--warmup-max", type=int, default=300)
    ap.add_argument("--port", type=int, default=18140)
    ap.add_argument("--db", default="h4_bench")
    ap.add_argument("--peer-port", type=int, default=18145)
    ap.add_argument("--peer-db", default="h4_peer")
    ap.add_argument("--peer-dir", default=os.environ.get("BENCH_PEER_DIR", "/work/shared/peer-fastapi"),
                    help="the FastAPI + Redis peer (app.py, serve_nodelay.py, wrk/unique.lua, wrk/replay.lua)")
    ap.add_argument("--service-env", action="append", default=[], metavar="NAME=VALUE",
                    help="extra environment for the service, e.g. ONCEGUARD_IDEMPOTENCY_REQUEST_LOG_FLUSH_EVERY=off")
    ap.add_argument("--java-opts", default="-XX:MaxRAM=768m -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5 -XX:+UseSerialGC -Dquarkus.http.io-threads=2",
                    help="the service's JVM options (printed with the results); the default is what the Helm chart's JVM "
                         "sees in its 768Mi container: the chart's javaOpts, with MaxRAM standing in for the limit")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--no-pgbench", action="store_true")
    ap.add_argument("--pgbench-only", action="store_true",
                    help="only the pgbench rows, on the database a previous run left (its replay keys)")
    a = ap.parse_args()
    conns = [int(c) for c in a.conns.split()]
    PEER = a.peer_dir
    base = f"http://127.0.0.1:{a.port}"
    tag = "r" + time.strftime("%H%M%S")
    results = {}  # (service | pgbench | peer, new | replay, connections) -> measurement
    rss_mb = None
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())

    if a.pgbench_only:
        tag = psql(a.db, "SELECT split_part(idempotency_key, '-replay-', 1) FROM idempotency_records "
                         "WHERE idempotency_key LIKE '%-replay-0000' LIMIT 1")
        a.no_peer = True
    else:
        psql("postgres", f"DROP DATABASE IF EXISTS {a.db} WITH (FORCE)")
        psql("postgres", f"CREATE DATABASE {a.db}")
    if not a.pgbench_only:
        rss_mb = run_service(a, conns, base, tag, results)

    if not a.no_pgbench:
        pgb = lambda script, c, extra=(): ["pgbench", "-h", "127.0.0.1", "-U", "postgres", "-n", "-M", "prepared",
                                           f"-c{c}", f"-j{min(c, 2)}", f"-T{a.duration}", *extra, "-f",
                                           f"{BENCH}/pgbench/{script}", a.db]
        for c in conns:
            results[("pgbench", "new", c)] = measure(
                f"pgbench same SQL new c{c}",
                pgb("post-order.sql", c, ["-D", f"prefix={tag}-pgbench-c{c}-", "-D", f"keys={NEW_KEYS}"]),
                "pgbench", None, a.db)
            results[("pgbench", "replay", c)] = measure(
                f"pgbench same SQL replay c{c}",
                pgb("post-order.sql", c, ["-D", f"prefix={tag}-replay-", "-D", "keys=200"]),
                "pgbench", None, a.db)

    if not a.no_peer:
        psql("postgres", f"DROP DATABASE IF EXISTS {a.peer_db} WITH (FORCE)")
        psql("postgres", f"CREATE DATABASE {a.peer_db}")
        psql(a.peer_db, "CREATE TABLE orders(id bigserial, idem_key text, body jsonb, created_at timestamptz default now())")
        penv = dict(os.environ, PEER_PG_DSN=f"postgresql://postgres@127.0.0.1:5432/{a.peer_db}")
        peer = subprocess.Popen(["/usr/bin/python3", "serve_nodelay.py", "app:app", "--host", "127.0.0.1", "--port",
                                 str(a.peer_port), "--no-access-log"], cwd=PEER, env=penv,
                                stdout=open(f"/tmp/{a.peer_db}.log", "w"), stderr=subprocess.STDOUT)
        try:
            time.sleep(3)
            purl = f"http://127.0.0.1:{a.peer_port}/api/orders"
            subprocess.run(["wrk", "-t2", "-c8", "-d10s", "-s", f"{PEER}/wrk/unique.lua", purl, "--", "warm" + tag],
                           capture_output=True)
            for c in conns:
                peer_wrk = lambda script, *args: ["wrk", f"-t{min(c, 2)}", f"-c{c}", f"-d{a.duration}s", "--latency",
                                                  "-s", f"{PEER}/wrk/{script}", purl, *args]
                results[("peer", "new", c)] = measure(f"peer new c{c}", peer_wrk("unique.lua", "--", f"{tag}c{c}"),
                                                      "wrk", peer.pid, a.peer_db)
                results[("peer", "replay", c)] = measure(f"peer replay c{c}", peer_wrk("replay.lua"), "wrk", peer.pid,
                                                         a.peer_db)
        finally:
            peer.terminate()
            peer.wait(30)

    print("\n| run | req/s | p50 | p99 | service CPU ms/req | PostgreSQL CPU ms/req |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results.values():
        print(f"| {r['label']} | {r['rate']:.0f} | {r.get('p50', '')} | {r.get('p99', '')} | "
              f"{r['service_cpu_ms'] if r['service_cpu_ms'] is not None else ''} | {r['pg_cpu_ms']} |")
    print(f"\nservice RSS after the run: {f'{rss_mb} MB' if rss_mb is not None else 'not measured'}")
    print("\nTargets:")
    print("\n".join(targets(results, rss_mb, not a.no_peer, not a.no_pgbench)))
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nmachine: {os.cpu_count()} cores, {model}; load average before {load_before}, after {load_after}")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    print(f"JVM: {java[0] if java else 'unknown'}; options: {a.java_opts}")


if __name__ == "__main__":
    main()

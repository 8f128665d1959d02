#!/usr/bin/env python3
"""CPU cost per request of the packaged service, beside the peer and pgbench, in one run.

  python3 bench/cost-benchmark.py --jar target/quarkus-app/quarkus-run.jar [--label after] [--conns "1 8 32"]
      [--rounds 3] [--duration 15] [--port 18140] [--db h4_bench] [--peer-port 18145] [--peer-db h4_peer]
      [--peer-dir DIR] [--no-peer] [--paced-gaps "12 1"] [--warmup-min 120] [--warmup-max 420]
      [--java-opts "-XX:MaxRAM=768m -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5 -XX:+UseSerialGC -Dquarkus.http.io-threads=2"]

1. starts the jar against a fresh database, makes bench tokens, warms the JVM with slices shaped like the rows (new
   keys, then replays, --duration s each, each followed by a read of /q/metrics as a row is) until the C2 compiler
   threads used under 2% of two slices in a row and --warmup-min s have passed (printed per slice, --warmup-max s at
   most; every row also prints "service_c2_ms", the part of its service CPU per request that C2 spent compiling), and
   runs VACUUM ANALYZE, as autovacuum would (this machine's cluster runs without it); starts the peer (bench README)
   on its own database, warms it and runs VACUUM ANALYZE there too;
2. for each connection count, new keys and then replays, one row after the other: the service under wrk, pgbench
   running the service's own statements (bench/pgbench/post-order.sql, with new keys and with the replay keys), the
   peer under wrk; each row read with the CPU the process and its database's PostgreSQL backends spent (from /proc,
   so other databases' work is not counted), how busy the machine's CPUs were, and for the service's rows which
   share of its orders it held longer than 2, 5 and 10 ms by its own histogram. At 8 connections this runs --rounds
   times: on a shared machine whose speed swings from minute to minute, a rate is compared with the one measured
   beside it, not minutes away; then, with --paced-gaps, replays at 8 connections below saturation (each connection
   waits an exponential gap before a request, wrk/paced.lua), the service's row beside the peer's, for the tail
   without a saturated machine's run queue (no target reads these rows);
3. prints one JSON line per measurement, a markdown table, the service's RSS, the targets at 8 connections (PASS or
   FAIL each, on the median of the rounds; a target whose input was not measured, e.g. the peer's rate with
   --no-peer, is FAIL), the machine (cores, CPU model, load average before and after) and the JVM with its options.
"""
import argparse, json, os, re, shlex, subprocess, sys, time, urllib.request
from statistics import median

BENCH = os.path.dirname(os.path.abspath(__file__))
NEW_KEYS = 4611686018427387903  # pgbench/post-order.sql draws its keys from this many: every order is a new one
TICK = os.sysconf("SC_CLK_TCK")
# wrk and pgbench run one thread each: one drives 32 connections with room to spare, and on two cores a second one is
# only one more ready thread for the measured process to wait behind
LOAD_THREADS = 1


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


def thread_files(pid, name):
    """Per live thread of the process, the text of /proc/<pid>/task/<tid>/<name>; a thread that ends between listing
    and reading is left out."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/{name}") as f:
                yield tid, f.read()
        except FileNotFoundError:
            pass


def thread_cpu(pid, name_prefix):
    """CPU seconds so far of the process's threads whose name starts with name_prefix (the name is stat's "(comm)")."""
    total = 0.0
    for _, stat in thread_files(pid, "stat"):
        comm, fields = stat[stat.index("(") + 1:].rsplit(")", 1)
        if comm.startswith(name_prefix):
            fields = fields.split()
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def run_queue_waits(pid):
    """Per thread of the process, the seconds it so far spent ready to run but waiting for a core (schedstat's second
    field, in ns)."""
    return {tid: int(schedstat.split()[1]) / 1e9 for tid, schedstat in thread_files(pid, "schedstat")}


def host_cpu():
    """The whole machine's CPU time so far, in ticks (/proc/stat): busy (user, nice, system, irq, softirq), stolen by
    the hypervisor for other guests, and all (busy, stolen, idle, iowait)."""
    with open("/proc/stat") as f:
        user, nice, system, idle, iowait, irq, softirq, steal = [int(x) for x in f.readline().split()[1:9]]
    busy = user + nice + system + irq + softirq
    return busy, steal, busy + steal + idle + iowait


HELD_BOUNDS_MS = (2, 5, 10)


def orders_answered(metrics_url):
    """POST /api/orders requests the service has answered so far in at most each of HELD_BOUNDS_MS, and in all (None
    for all), from the buckets of its http_server_requests histogram. The service times a request from reading it to
    writing its response, so this leaves out the time a request or its answer waits in a socket for a thread (an event
    loop of the service, or wrk's) to be scheduled."""
    with urllib.request.urlopen(metrics_url, timeout=10) as r:
        text = r.read().decode()
    counts = dict.fromkeys([*HELD_BOUNDS_MS, None], 0.0)
    for labels, value in re.findall(r"^http_server_requests_seconds_bucket\{([^}]*)\} (\S+)$", text, re.M):
        if 'method="POST"' not in labels or 'uri="/api/orders"' not in labels:
            continue
        le = re.search(r'le="([^"]+)"', labels).group(1)
        bound = None if le == "+Inf" else round(float(le) * 1000, 3)
        if bound is None or bound in counts:
            counts[bound] += float(value)
    return counts


def backends(db):
    """The processes working for the database: its client backends and autovacuum workers, found by the titles
    PostgreSQL gives them ("postgres: 15/main: <user> <database> <client> <activity>", "postgres: 15/main: autovacuum
    worker <database>"). Read from /proc, not asked with psql: measure() polls this five times a second, and a psql
    per poll cost the machine about a fifth of a core (53 ms of CPU each on the benchmark machine), taken from the
    process being measured."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                title = f.read().split(b"\0")[0].decode(errors="replace").split()
        except (FileNotFoundError, ProcessLookupError, PermissionError):  # ended between listing and reading
            continue
        if len(title) < 4 or title[0] != "postgres:" or not title[1].endswith(":"):
            continue
        if title[3] == db or title[2:4] == ["autovacuum", "worker"] and title[4:5] == [db]:
            found.append(int(pid))
    return found


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


def measure(label, cmd, kind, service_pid, db, gc_log=None, metrics_url=None):
    """Runs cmd; the database's CPU is summed over every backend seen while it ran (polled, so that backends which
    connect and leave during the run, like pgbench's, are counted up to their last 0.2 s). Every row says how busy
    the whole machine's CPUs were meanwhile, and how much the hypervisor took for other guests (a tail measured on
    saturated cores is mostly their run queue) and, for the service, how long its threads waited for a core per
    request (their run-queue wait, beside their CPU per request). With gc_log, the row also says which collections the
    service paused for while it ran; with metrics_url, which share of its orders the service itself held longer than
    2, 5 and 10 ms (its own histogram), to set beside wrk's p99. Each row starts with a CHECKPOINT, as the orders
    benchmark's do: every row then writes its pages' first images after a checkpoint alike, and none meets the middle
    of one that the rows before it started (whose writes stretched the new keys' p99 to 60 x p50 on this machine)."""
    psql(db, "CHECKPOINT")
    gc_from = lines_of(gc_log) if gc_log else 0
    answered_before = orders_answered(metrics_url) if metrics_url else None
    host_before = host_cpu()
    baseline = {pid: proc_cpu(pid) for pid in backends(db)}
    last = dict(baseline)
    s0, t0 = proc_cpu(service_pid) if service_pid else 0.0, time.time()
    c2_from = thread_cpu(service_pid, "C2 Compiler") if service_pid else 0.0
    # per thread, polled like the backends: a worker thread that ends during the row keeps what it waited until then
    waited_from = run_queue_waits(service_pid) if service_pid else {}
    waited_to = dict(waited_from)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy())
    while proc.poll() is None:
        for pid in backends(db):
            baseline.setdefault(pid, 0.0)
            last[pid] = max(last.get(pid, 0.0), proc_cpu(pid))
        if service_pid:
            waited_to.update(run_queue_waits(service_pid))
        time.sleep(0.2)
    for pid in list(last):
        last[pid] = max(last[pid], proc_cpu(pid))
    s1 = proc_cpu(service_pid) if service_pid else 0.0
    c2_to = thread_cpu(service_pid, "C2 Compiler") if service_pid else 0.0
    if service_pid:
        waited_to.update(run_queue_waits(service_pid))
    host_after = host_cpu()
    d0, d1 = sum(baseline.values()), sum(last.values())
    text = proc.stdout.read()
    res = {"label": label}
    if kind == "wrk":
        n = int(re.search(r"(\d+) requests in", text).group(1))
        p50 = re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1)
        p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1)
        res.update(rate=float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)), n=n, p50=p50, p99=p99,
                   p50_ms=latency_ms(p50), p99_ms=latency_ms(p99), errors=wrk_errors(text))
        shares = re.search(r"^PACED_PERCENTILES_MS (.*)$", text, re.M)  # wrk/paced.lua's finer percentiles
        if shares:
            res["percentiles_ms"] = {k: float(v) for k, v in (kv.split("=") for kv in shares.group(1).split())}
    else:
        n = int(re.search(r"number of transactions actually processed: (\d+)", text).group(1))
        res.update(rate=float(re.search(r"^tps = ([\d.]+)", text, re.M).group(1)), n=n,
                   avg_ms=float(re.search(r"latency average = ([\d.]+) ms", text).group(1)))
    n = max(n, 1)
    res["service_cpu_ms"] = round(1000 * (s1 - s0) / n, 3) if service_pid else None
    # the part of it the JIT's C2 threads spent compiling: a row that still pays for compilation was not warm
    res["service_c2_ms"] = round(1000 * (c2_to - c2_from) / n, 3) if service_pid else None
    res["pg_cpu_ms"] = round(1000 * (d1 - d0) / n, 3)
    waited = sum(to - waited_from.get(tid, 0.0) for tid, to in waited_to.items())
    res["service_waited_ms"] = round(1000 * waited / n, 3) if service_pid else None
    res["wall_s"] = round(time.time() - t0, 1)
    res["load_avg"] = os.getloadavg()[0]
    host_ticks = max(host_after[2] - host_before[2], 1)
    res["host_busy_pct"] = round(100 * (host_after[0] - host_before[0]) / host_ticks, 1)
    res["host_steal_pct"] = round(100 * (host_after[1] - host_before[1]) / host_ticks, 1)
    if metrics_url:
        answered = orders_answered(metrics_url)
        total = max(answered[None] - answered_before[None], 1)
        res["held_over_ms"] = {str(bound): round(100 * (1 - (answered[bound] - answered_before[bound]) / total), 2)
                               for bound in HELD_BOUNDS_MS}
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


def warm_up(service_pid, a, service_slice, other_work=lambda: None):
    """Runs service_slice() (new requests, then repeats, --duration s each: shaped like the rows), then other_work()
    (another receiver's warm-up, not counted), until the service's C2 compiler threads used under 2% of two service
    slices in a row and --warmup-min s have passed, or --warmup-max s; prints each slice's share."""
    slice_s = 2 * a.duration
    started, quiet_slices = time.time(), 0
    while True:
        c2 = thread_cpu(service_pid, "C2 Compiler")
        service_slice()
        busy = thread_cpu(service_pid, "C2 Compiler") - c2
        other_work()
        elapsed = time.time() - started
        print(f"warm-up {elapsed:5.0f} s: C2 compiler threads {100 * busy / slice_s:4.1f}% of the service's slice",
              flush=True)
        quiet_slices = quiet_slices + 1 if busy < 0.02 * slice_s else 0
        if (quiet_slices >= 2 and elapsed >= a.warmup_min) or elapsed > a.warmup_max:
            return


def start_service(a, base, tag):
    """Starts the jar on its fresh database, makes the bench tokens and the replay keys, warms the JVM up until the C2
    compiler threads are quiet and runs VACUUM ANALYZE; answers the process, its GC log and its wrk command."""
    # the load orders p-184, a demo product, which a service outside embedded mode, dev and test loads only when asked
    env = dict(os.environ, ONCEGUARD_CATALOG_DEMO="true",
               QUARKUS_DATASOURCE_JDBC_URL=f"jdbc:postgresql://127.0.0.1:5432/{a.db}",
               QUARKUS_HTTP_PORT=str(a.port), SMALLRYE_JWT_VERIFY_KEY_LOCATION=f"{BENCH}/bench-hs256.jwk",
               SMALLRYE_JWT_VERIFY_ALGORITHM="HS256", MP_JWT_VERIFY_ISSUER="https://onceguard.bench",
               MP_JWT_VERIFY_AUDIENCES="https://onceguard.bench/api",
               **dict(kv.split("=", 1) for kv in a.service_env))
    log = open(f"/tmp/{a.db}-service.log", "w")
    gc_log = f"/tmp/{a.db}-gc.log"
    service = subprocess.Popen(["java", *shlex.split(a.java_opts), f"-Xlog:gc:file={gc_log}", "-jar", a.jar], env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    wait_ready(base + "/q/health/ready")
    tokens = f"/tmp/{a.db}-tokens.txt"
    with open(tokens, "w") as f:
        subprocess.run([sys.executable, f"{BENCH}/make-tokens.py", "--users", "16", "--issuer",
                        "https://onceguard.bench", "--jwk", f"{BENCH}/bench-hs256.jwk"], stdout=f, check=True)
    token_list = open(tokens).read().split()
    os.environ.update(BENCH_DIR=BENCH, BENCH_TOKENS=tokens, BENCH_RUN_TAG=tag, BENCH_REPLAY_KEYS="200")
    for i in range(200):
        assert post_order(base, token_list[i % 16], f"{tag}-replay-{i:04d}") == 201
    wrk = lambda script, c, d: ["wrk", f"-t{LOAD_THREADS}", f"-c{c}", f"-d{d}s", "--latency", "-s",
                                f"{BENCH}/wrk/{script}", base]
    def service_slice():
        # Every row reads /q/metrics before and after it, as Prometheus does all the time. The first read loads classes
        # that make compiled code not entrant: after a warm-up without it, 42 methods at once, 114 more and 1.8 s of
        # C2 through the next 15 s row of new keys, at a rate 12 % lower; the first rows paid for that.
        for script in ["new-orders.lua", "replays.lua"]:
            subprocess.run(wrk(script, 8, a.duration), capture_output=True)
            orders_answered(base + "/q/metrics")

    warm_up(service.pid, a, service_slice)
    # the warm-up's pruning deletes request-log rows by the hundred thousand; unvacuumed, the pages of each record's
    # first rows are not all-visible, and every batch's pruning fetches 50 heap tuples per record to walk them (0 after)
    psql(a.db, "VACUUM ANALYZE")
    print("VACUUM ANALYZE done; orders so far:", psql(a.db, "SELECT count(*) FROM orders"), flush=True)
    return service, gc_log, wrk


def start_peer(a, tag):
    """Starts the FastAPI + Redis peer on its fresh database, warms it and runs VACUUM ANALYZE there; answers the
    process and its orders URL."""
    psql("postgres", f"DROP DATABASE IF EXISTS {a.peer_db} WITH (FORCE)")
    psql("postgres", f"CREATE DATABASE {a.peer_db}")
    psql(a.peer_db, "CREATE TABLE orders(id bigserial, idem_key text, body jsonb, created_at timestamptz default now())")
    env = dict(os.environ, PEER_PG_DSN=f"postgresql://postgres@127.0.0.1:5432/{a.peer_db}")
    peer = subprocess.Popen(["/usr/bin/python3", "serve_nodelay.py", "app:app", "--host", "127.0.0.1", "--port",
                             str(a.peer_port), "--no-access-log"], cwd=a.peer_dir, env=env,
                            stdout=open(f"/tmp/{a.peer_db}.log", "w"), stderr=subprocess.STDOUT)
    time.sleep(3)
    url = f"http://127.0.0.1:{a.peer_port}/api/orders"
    subprocess.run(["wrk", f"-t{LOAD_THREADS}", "-c8", "-d10s", "-s", f"{a.peer_dir}/wrk/unique.lua", url, "--",
                    "warm" + tag], capture_output=True)
    psql(a.peer_db, "VACUUM ANALYZE")
    return peer, url


def stop(process):
    if process is not None:
        process.terminate()
        process.wait(30)


TARGET_CONNS = 8


def targets(results, rss_mb, ran_peer, ran_pgbench):
    """The engine's targets as "- figure: target: measured -> PASS|FAIL" lines; one whose input is missing is
    "not measured (why)" and FAIL. At 8 connections every kind of row ran in rounds (service, pgbench, peer, one after
    the other): a rate is compared with the other's in the same round, and a target holds when the median of the
    rounds does."""
    c = TARGET_CONNS
    rows = lambda who, kind: results.get((who, kind, c))
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

    def rounds(values, unit):
        """'1.61, 1.72, 1.58 x per round (median 1.61 x)', or the one value when there was one round."""
        shown = [unit.format(v) for v in values]
        return shown[0] if len(shown) == 1 else f"{', '.join(shown)} per round (median {unit.format(median(values))})"

    def rate_against(name, kind, other, factor, unit, scale):
        mine, theirs = rows("service", kind), rows(other, kind)
        ratios = lambda: [scale * m["rate"] / max(t["rate"], 0.001) for m, t in zip(mine, theirs)]
        target(f"{name} at {c} connections, req/s",
               f">= {factor} x the peer's" if other == "peer" else f">= {factor:.0f} % of pgbench's tps on the same statements",
               [("service", mine), (other, theirs)],
               lambda: f"{median([m['rate'] for m in mine]):.0f} vs {median([t['rate'] for t in theirs]):.0f}: "
                       f"{rounds(ratios(), unit)}",
               lambda: median(ratios()) >= factor)

    for kind, name in [("new", "new-key orders"), ("replay", "replays")]:
        rate_against(name, kind, "peer", 1.5, "{:.2f} x", 1)
    rate_against("new-key orders", "new", "pgbench", 60, "{:.0f} %", 100)
    for kind, name, service_ms, pg_ms in [("new", "new order", 0.8, 0.6), ("replay", "replay", 0.3, 0.1)]:
        mine = rows("service", kind)
        for field, who, limit in [("service_cpu_ms", "service", service_ms), ("pg_cpu_ms", "PostgreSQL", pg_ms)]:
            target(f"{who} CPU per {name} at {c} connections", f"<= {limit} ms", [("service", mine)],
                   lambda: rounds([m[field] for m in mine], "{:.3f} ms"),
                   lambda: median([m[field] for m in mine]) <= limit)
    for kind, name in [("new", "new-key orders"), ("replay", "replays")]:
        mine = rows("service", kind)
        spread = lambda: [m["p99_ms"] / max(m["p50_ms"], 0.001) for m in mine]
        target(f"{name} at {c} connections, p99", "<= 10 x p50", [("service", mine)],
               lambda: rounds(spread(), "{:.1f} x"), lambda: median(spread()) <= 10)
    service_runs = [r for (who, _, _), runs in results.items() if who == "service" for r in runs]
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
    ap.add_argument("--rounds", type=int, default=3,
                    help=f"rounds at {TARGET_CONNS} connections: service, pgbench and peer rows one after the other, each round")
    ap.add_argument("--warmup-min", type=int, default=120)
    ap.add_argument("--warmup-max", type=int, default=420)
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
    ap.add_argument("--paced-gaps", default="12 1",
                    help=f"after the rows above, replays at {TARGET_CONNS} connections below saturation, service and "
                         "peer: one row each per mean gap in ms that each connection waits before a request "
                         "(wrk/paced.lua); no target reads them; '' for none")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--no-pgbench", action="store_true")
    ap.add_argument("--pgbench-only", action="store_true",
                    help="only the pgbench rows, on the database a previous run left (its replay keys)")
    a = ap.parse_args()
    conns = [int(c) for c in a.conns.split()]
    base = f"http://127.0.0.1:{a.port}"
    tag = "r" + time.strftime("%H%M%S")
    results = {}  # (service | pgbench | peer, new | replay, connections) -> its measurements, one per round
    rss_mb = None
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())

    if a.pgbench_only:
        tag = psql(a.db, "SELECT split_part(idempotency_key, '-replay-', 1) FROM idempotency_records "
                         "WHERE idempotency_key LIKE '%-replay-0000' LIMIT 1")
        a.no_peer = True
    else:
        psql("postgres", f"DROP DATABASE IF EXISTS {a.db} WITH (FORCE)")
        psql("postgres", f"CREATE DATABASE {a.db}")
    pgb = lambda c, prefix, keys: ["pgbench", "-h", "127.0.0.1", "-U", "postgres", "-n", "-M", "prepared", f"-c{c}",
                                   f"-j{LOAD_THREADS}", f"-T{a.duration}", "-D", f"prefix={prefix}", "-D",
                                   f"keys={keys}", "-f", f"{BENCH}/pgbench/post-order.sql", a.db]
    service = peer = None
    try:
        if not a.pgbench_only:
            service, gc_log, wrk = start_service(a, base, tag)
        if not a.no_peer:
            peer, peer_url = start_peer(a, tag)
        for c in conns:
            count = a.rounds if c == TARGET_CONNS else 1
            for n in range(1, count + 1):
                at = f"c{c}" + (f" round {n}" if count > 1 else "")
                for kind, script, peer_script in [("new", "new-orders.lua", ["unique.lua", "--", f"{tag}c{c}r{n}"]),
                                                  ("replay", "replays.lua", ["replay.lua"])]:
                    if service:
                        results.setdefault(("service", kind, c), []).append(measure(
                            f"{a.label} {kind} {at}", wrk(script, c, a.duration), "wrk", service.pid, a.db, gc_log,
                            base + "/q/metrics"))
                    if not a.no_pgbench:
                        prefix, keys = (f"{tag}-pgbench-c{c}-r{n}-", NEW_KEYS) if kind == "new" else (f"{tag}-replay-", 200)
                        results.setdefault(("pgbench", kind, c), []).append(measure(
                            f"pgbench same SQL {kind} {at}", pgb(c, prefix, keys), "pgbench", None, a.db))
                    if peer:
                        results.setdefault(("peer", kind, c), []).append(measure(
                            f"peer {kind} {at}", ["wrk", f"-t{LOAD_THREADS}", f"-c{c}", f"-d{a.duration}s", "--latency",
                                                  "-s", f"{a.peer_dir}/wrk/{peer_script[0]}", peer_url, *peer_script[1:]],
                            "wrk", peer.pid, a.peer_db))
        for gap in a.paced_gaps.split():
            # the same replays, each connection waiting an exponential gap first: the tail without the run queue of a
            # saturated machine, the service beside the peer at the rate the gap allows each of them
            os.environ["PACED_GAP_MS"] = gap
            if service:
                os.environ["PACED_SCRIPT"] = f"{BENCH}/wrk/replays.lua"
                results.setdefault(("service", "replay paced", gap), []).append(measure(
                    f"{a.label} replay paced {gap} ms c{TARGET_CONNS}", wrk("paced.lua", TARGET_CONNS, a.duration),
                    "wrk", service.pid, a.db, gc_log, base + "/q/metrics"))
            if peer:
                os.environ["PACED_SCRIPT"] = f"{a.peer_dir}/wrk/replay.lua"
                results.setdefault(("peer", "replay paced", gap), []).append(measure(
                    f"peer replay paced {gap} ms c{TARGET_CONNS}",
                    ["wrk", f"-t{LOAD_THREADS}", f"-c{TARGET_CONNS}", f"-d{a.duration}s", "--latency", "-s",
                     f"{BENCH}/wrk/paced.lua", peer_url], "wrk", peer.pid, a.peer_db))
        if service:
            rss = [l for l in open(f"/proc/{service.pid}/status") if l.startswith("VmRSS")][0].split()[1]
            rss_mb = int(rss) // 1024
    finally:
        stop(service)
        stop(peer)

    print("\n| run | req/s | p50 | p99 | service CPU ms/req | PostgreSQL CPU ms/req | service waiting for a core ms/req |"
          " machine CPU busy | service held > 2 / 5 / 10 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in (r for runs in results.values() for r in runs):
        held = " / ".join(f"{share} %" for share in r["held_over_ms"].values()) if "held_over_ms" in r else ""
        print(f"| {r['label']} | {r['rate']:.0f} | {r.get('p50', '')} | {r.get('p99', '')} | "
              f"{r['service_cpu_ms'] if r['service_cpu_ms'] is not None else ''} | {r['pg_cpu_ms']} | "
              f"{r['service_waited_ms'] if r['service_waited_ms'] is not None else ''} | "
              f"{r['host_busy_pct']} % | {held} |")
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

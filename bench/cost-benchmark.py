#!/usr/bin/env python3
"""CPU cost per request of the packaged service, beside the peer and pgbench, in one run.

  python3 bench/cost-benchmark.py --jar target/quarkus-app/quarkus-run.jar [--label after] [--conns "1 8 32"]
      [--duration 15] [--port 18140] [--db h4_bench] [--peer-port 18145] [--peer-db h4_peer] [--peer-dir DIR] [--no-peer]

1. starts the jar against a fresh database, makes bench tokens, warms the JVM with alternating new-key and replay
   load until the C2 compiler threads used under 2% of a 10 s slice (printed per slice, 300 s at most);
2. runs ANALYZE, as autovacuum would;
3. for each connection count: wrk new-key orders, then wrk replays (200 keys), each read with the CPU the service
   process and this database's PostgreSQL backends spent (from /proc, so other databases' work is not counted),
   then the same for the peer (bench README), and pgbench running the service's own statements
   (bench/pgbench/create-order.sql, replay.sql);
4. prints one JSON line per measurement and a markdown table.
"""
import argparse, json, os, re, subprocess, sys, time, urllib.request

BENCH = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def psql(db, sql):
    return subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", db, "-qAtc", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def proc_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except FileNotFoundError:
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


def measure(label, cmd, kind, service_pid, db):
    """Runs cmd; the database's CPU is summed over every backend seen while it ran (polled, so that backends which
    connect and leave during the run, like pgbench's, are counted up to their last 0.2 s)."""
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

    class Out:
        stdout = proc.stdout.read()
        stderr = ""
    out = Out()
    text = out.stdout + out.stderr
    res = {"label": label}
    if kind == "wrk":
        n = int(re.search(r"(\d+) requests in", text).group(1))
        res.update(rate=float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)), n=n,
                   p50=re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1),
                   p99=re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1),
                   non2xx=len(re.findall(r"Non-2xx", text)))
    else:
        n = int(re.search(r"number of transactions actually processed: (\d+)", text).group(1))
        res.update(rate=float(re.search(r"^tps = ([\d.]+)", text, re.M).group(1)), n=n,
                   avg_ms=float(re.search(r"latency average = ([\d.]+) ms", text).group(1)))
    n = max(n, 1)
    res["service_cpu_ms"] = round(1000 * (s1 - s0) / n, 3) if service_pid else None
    res["pg_cpu_ms"] = round(1000 * (d1 - d0 - (0 if kind == "wrk" else 0)) / n, 3)
    res["wall_s"] = round(time.time() - t0, 1)
    res["load_avg"] = os.getloadavg()[0]
    print(json.dumps(res), flush=True)
    if kind == "wrk" and "BENCH_RESULT" in text:
        bad = re.search(r"bad=(\d+)", text)
        if bad and int(bad.group(1)) > 0:
            print("  unexpected answers:", re.search(r"BENCH_RESULT.*", text).group(0), flush=True)
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
    """Starts the jar, warms it up, runs ANALYZE and measures new keys and replays at each connection count."""
    env = dict(os.environ, QUARKUS_DATASOURCE_JDBC_URL=f"jdbc:postgresql://127.0.0.1:5432/{a.db}",
               QUARKUS_HTTP_PORT=str(a.port), SMALLRYE_JWT_VERIFY_KEY_LOCATION=f"{BENCH}/bench-hs256.jwk",
               SMALLRYE_JWT_VERIFY_ALGORITHM="HS256", MP_JWT_VERIFY_ISSUER="https://onceguard.bench",
               **dict(kv.split("=", 1) for kv in a.service_env))
    log = open(f"/tmp/{a.db}-service.log", "w")
    service = subprocess.Popen(["java", "-Xmx256m", "-jar", a.jar], env=env, stdout=log, stderr=subprocess.STDOUT)
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
            results.append(measure(f"{a.label} new c{c}", wrk("new-orders.lua", c, a.duration), "wrk", service.pid, a.db))
            results.append(measure(f"{a.label} replay c{c}", wrk("replays.lua", c, a.duration), "wrk", service.pid, a.db))
        rss = [l for l in open(f"/proc/{service.pid}/status") if l.startswith("VmRSS")][0].split()[1]
        print(f"{a.label} RSS {int(rss) // 1024} MB", flush=True)
    finally:
        service.terminate()
        service.wait(30)



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
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--no-pgbench", action="store_true")
    ap.add_argument("--pgbench-only", action="store_true",
                    help="only the pgbench rows, on the database a previous run left (its replay keys)")
    a = ap.parse_args()
    conns = [int(c) for c in a.conns.split()]
    PEER = a.peer_dir
    base = f"http://127.0.0.1:{a.port}"
    tag = "r" + time.strftime("%H%M%S")
    results = []

    if a.pgbench_only:
        tag = psql(a.db, "SELECT split_part(idempotency_key, '-replay-', 1) FROM idempotency_records "
                         "WHERE idempotency_key LIKE '%-replay-0000' LIMIT 1")
        a.no_peer = True
    else:
        psql("postgres", f"DROP DATABASE IF EXISTS {a.db} WITH (FORCE)")
        psql("postgres", f"CREATE DATABASE {a.db}")
    if not a.pgbench_only:
        run_service(a, conns, base, tag, results)

    if not a.no_pgbench:
        pgb = lambda script, c, extra=(): ["pgbench", "-h", "127.0.0.1", "-U", "postgres", "-n", "-M", "prepared",
                                           f"-c{c}", f"-j{min(c, 2)}", f"-T{a.duration}", *extra, "-f",
                                           f"{BENCH}/pgbench/{script}", a.db]
        for c in conns:
            results.append(measure(f"pgbench same SQL new c{c}", pgb("create-order.sql", c), "pgbench", None, a.db))
            results.append(measure(f"pgbench same SQL replay c{c}",
                                   pgb("replay.sql", c, ["-D", f"tag={tag}", "-D", "keys=200"]), "pgbench", None, a.db))

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
                results.append(measure(f"peer new c{c}", ["wrk", f"-t{min(c, 2)}", f"-c{c}", f"-d{a.duration}s",
                                                           "--latency", "-s", f"{PEER}/wrk/unique.lua", purl, "--",
                                                           f"{tag}c{c}"], "wrk", peer.pid, a.peer_db))
                results.append(measure(f"peer replay c{c}", ["wrk", f"-t{min(c, 2)}", f"-c{c}", f"-d{a.duration}s",
                                                              "--latency", "-s", f"{PEER}/wrk/replay.lua", purl],
                                       "wrk", peer.pid, a.peer_db))
        finally:
            peer.terminate()
            peer.wait(30)

    print("\n| run | req/s | p50 | p99 | service CPU ms/req | PostgreSQL CPU ms/req |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['label']} | {r['rate']:.0f} | {r.get('p50', '')} | {r.get('p99', '')} | "
              f"{r['service_cpu_ms'] if r['service_cpu_ms'] is not None else ''} | {r['pg_cpu_ms']} |")


if __name__ == "__main__":
    main()

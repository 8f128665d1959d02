#!/usr/bin/env python3
"""CPU time of the packaged service per new order, counted rather than timed, for comparing builds and settings.

  python3 bench/trace-cost.py --jar target/quarkus-app/quarkus-run.jar [--label on] [--env KEY=VALUE ...]
      [--warmup 3000] [--orders 2000] [--rounds 3] [--port 18150] [--db trace_cost]

Starts the jar (prod profile) on a fresh database, sends --warmup new orders one after the other, then --rounds times
--orders more, and reads the CPU time the process spent (user + system, /proc/<pid>/stat) over each round. One client,
one request at a time: on a shared machine a rate swings with the neighbours' load, the CPU a request costs much less.
Prints one JSON line per round and the median; the service's log stays in /tmp/<db>-service.log.
"""
import argparse, json, os, subprocess, sys, time, urllib.request
from statistics import median

BENCH = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def psql(db, sql):
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", db, "-qAtc", sql], check=True,
                   capture_output=True)


def post_order(base, token, key):
    request = urllib.request.Request(base + "/api/orders", method="POST",
                                     data=b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}',
                                     headers={"Authorization": "Bearer " + token, "Idempotency-Key": key,
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201, response.status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--label", default="run")
    parser.add_argument("--env", nargs="*", default=[])
    parser.add_argument("--warmup", type=int, default=3000)
    parser.add_argument("--orders", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=18150)
    parser.add_argument("--db", default="trace_cost")
    a = parser.parse_args()

    psql("postgres", f"DROP DATABASE IF EXISTS {a.db} WITH (FORCE)")
    psql("postgres", f"CREATE DATABASE {a.db}")
    env = dict(os.environ, ONCEGUARD_CATALOG_DEMO="true", QUARKUS_HTTP_PORT=str(a.port),
               QUARKUS_DATASOURCE_JDBC_URL=f"jdbc:postgresql://127.0.0.1:5432/{a.db}",
               SMALLRYE_JWT_VERIFY_KEY_LOCATION=f"{BENCH}/bench-hs256.jwk", SMALLRYE_JWT_VERIFY_ALGORITHM="HS256",
               MP_JWT_VERIFY_ISSUER="https://onceguard.bench", MP_JWT_VERIFY_AUDIENCES="https://onceguard.bench/api",
               **dict(kv.split("=", 1) for kv in a.env))
    log = open(f"/tmp/{a.db}-service.log", "w")
    service = subprocess.Popen(["java", "-XX:+UseSerialGC", "-jar", a.jar], env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{a.port}"
    try:
        for _ in range(360):
            try:
                with urllib.request.urlopen(base + "/q/health/ready", timeout=2):
                    break
            except Exception:
                time.sleep(0.5)
        token = subprocess.run([sys.executable, f"{BENCH}/make-tokens.py", "--users", "1", "--issuer",
                                "https://onceguard.bench", "--jwk", f"{BENCH}/bench-hs256.jwk"],
                               capture_output=True, text=True, check=True).stdout.split()[0]
        for i in range(a.warmup):
            post_order(base, token, f"{a.label}-warm-{i}")
        per_order = []
        for r in range(a.rounds):
            before = cpu_seconds(service.pid)
            for i in range(a.orders):
                post_order(base, token, f"{a.label}-{r}-{i}")
            per_order.append(1000 * (cpu_seconds(service.pid) - before) / a.orders)
            print(json.dumps({"label": a.label, "round": r, "service_cpu_ms_per_order": round(per_order[-1], 3)}),
                  flush=True)
        print(json.dumps({"label": a.label, "median_service_cpu_ms_per_order": round(median(per_order), 3),
                          "load_avg": os.getloadavg()[0]}), flush=True)
    finally:
        service.terminate()
        service.wait(30)


if __name__ == "__main__":
    main()

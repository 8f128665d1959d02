#!/usr/bin/env python3
"""The fault suite: three replicas behind HAProxy on a PostgreSQL of the suite's own, broken on purpose phase by
phase while clients create and pay orders; then the invariants, and one table. See bench/README.md."""
import argparse
import base64
import os
import random
import signal
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bad_input  # noqa: E402
import checks  # noqa: E402
from cluster import HAProxy, Postgres, Replica  # noqa: E402
from lossy_proxy import LossyProxy  # noqa: E402
from replication import PgBouncer, ReplicatedPostgres  # noqa: E402
from workload import LIMITED_PRODUCT, Client, Journal, Stats, WebhookStorm, send  # noqa: E402

WEBHOOK_SECRET = "whsec_ZmF1bHQtc3VpdGUtd2ViaG9vay1zZWNyZXQtMzJiIQ=="
CONSOLE_PASSWORD = "fault-suite-admin"
LIMITED_STOCK = 400
LEASE_SECONDS = 8


def log(message):
    print(time.strftime("%H:%M:%S ") + message, flush=True)


class Suite:
    def __init__(self, args):
        self.args = args
        self.work = args.workdir
        base = args.port_base
        self.haproxy_port, self.lossy_port = base, base + 3
        self.pg_port = args.pg_port or base + 2
        self.topology = args.topology
        self.pgbouncer = None
        self.provider = None
        provider_url = f"http://127.0.0.1:{self.haproxy_port}/sandbox/v1"
        if self.topology == "failover":
            standby_port = args.standby_port or base + 7
            self.postgres = ReplicatedPostgres(self.work, self.pg_port, standby_port)
            # Both servers named; every new connection goes to the one that takes writes.
            jdbc_url = (f"jdbc:postgresql://127.0.0.1:{self.pg_port},127.0.0.1:{standby_port}/onceguard"
                        "?targetServerType=primary")
            # The payment provider outside the failed-over database, as a real one is: a charge the failover takes
            # from the service's database stays at the provider (a sandbox of its own, on a PostgreSQL of its own).
            provider_work = os.path.join(self.work, "provider")
            os.makedirs(provider_work)
            self.provider_db = Postgres(provider_work, args.provider_pg_port or base + 9)
            provider_port = args.provider_port or base + 10
            provider_url = f"http://127.0.0.1:{provider_port}/sandbox/v1"
        elif self.topology == "pooler":
            self.postgres = Postgres(self.work, self.pg_port)
            pgbouncer_port = args.pgbouncer_port or base + 8
            self.pgbouncer = PgBouncer(self.work, pgbouncer_port, self.pg_port)
            # No named server-side prepared statements: PgBouncer 1.18 cannot follow them across transactions.
            jdbc_url = f"jdbc:postgresql://127.0.0.1:{pgbouncer_port}/onceguard?prepareThreshold=0"
        else:
            self.postgres = Postgres(self.work, self.pg_port)
            jdbc_url = f"jdbc:postgresql://127.0.0.1:{self.pg_port}/onceguard"
        env = {
            "QUARKUS_DATASOURCE_JDBC_URL": jdbc_url,
            "QUARKUS_DATASOURCE_USERNAME": "postgres",
            "SMALLRYE_JWT_VERIFY_KEY_LOCATION": os.path.join(args.bench_dir, "bench-hs256.jwk"),
            "SMALLRYE_JWT_VERIFY_ALGORITHM": "HS256",
            "MP_JWT_VERIFY_ISSUER": "https://onceguard.bench",
            "MP_JWT_VERIFY_AUDIENCES": "https://onceguard.bench/api",
            # text lines, as the log checks read them (request errors with stack traces, runs that failed with the
            # database down); production logs the same events as JSON
            "QUARKUS_LOG_CONSOLE_JSON_ENABLED": "false",
            "ONCEGUARD_CATALOG_DEMO": "true",
            "ONCEGUARD_SANDBOX_ENABLED": "true",
            "ONCEGUARD_SANDBOX_BASE_URL": provider_url,
            "ONCEGUARD_SANDBOX_WEBHOOK_URL": f"http://127.0.0.1:{self.haproxy_port}/webhooks/sandbox",
            "ONCEGUARD_WEBHOOKS_SANDBOX_SECRET": WEBHOOK_SECRET,
            "ONCEGUARD_PAYMENTS_PROVIDER_TIMEOUT": "2s",
            "ONCEGUARD_IDEMPOTENCY_LEASE": f"{LEASE_SECONDS}s",
            "ONCEGUARD_JOBS_LEASE_RECOVERY_EVERY": "3s",
            "ONCEGUARD_JOBS_RECONCILIATION_EVERY": "3s",
            "ONCEGUARD_JOBS_RETENTION_CLEANUP_EVERY": "10s",
            "ONCEGUARD_JOBS_OUTBOX_RELAY_EVERY": "1s",
            "QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT": "3s",
            "QUARKUS_DATASOURCE_JDBC_MAX_SIZE": "16",
            "QUARKUS_SECURITY_USERS_EMBEDDED_USERS_FAULTADMIN": CONSOLE_PASSWORD,
            "QUARKUS_SECURITY_USERS_EMBEDDED_ROLES_FAULTADMIN": "admin",
            "QUARKUS_HTTP_AUTH_SESSION_ENCRYPTION_KEY": "fault-suite-console-session-key-0123456789",
        }
        self.replicas = [Replica(i + 1, base + 4 + i, args.app_dir, self.work, env) for i in range(3)]
        if self.topology == "failover":
            self.provider = Replica(0, provider_port, args.app_dir, provider_work, dict(
                env, QUARKUS_DATASOURCE_JDBC_URL=f"jdbc:postgresql://127.0.0.1:{self.provider_db.port}/onceguard"))
        else:
            self.provider_db = self.postgres
        self.provider_api_port = provider_port if self.provider else self.haproxy_port
        self.haproxy = HAProxy(self.work, self.haproxy_port, self.replicas)
        self.lossy = LossyProxy(self.lossy_port, self.haproxy_port, args.drop_share)
        self.tokens = subprocess.run([sys.executable, os.path.join(args.bench_dir, "make-tokens.py"), "--users", "16",
                                      "--jwk", os.path.join(args.bench_dir, "bench-hs256.jwk")],
                                     check=True, capture_output=True, text=True).stdout.split()
        self.users = ["bench-user-%03d" % i for i in range(16)]
        self.journal = Journal()
        self.rows = []
        self.notes = []
        self.examples = []

    # ---- setup ----

    def start(self):
        log(f"PostgreSQL of the suite's own on port {self.pg_port} ({self.postgres.datadir})")
        self.postgres.init()
        if self.topology == "failover":
            log(f"streaming standby on port {self.postgres.standby.port}")
        if self.pgbouncer:
            self.pgbouncer.start()
            log(f"PgBouncer {self.pgbouncer.port} (transaction mode) in front of it")
        if self.provider:
            self.provider_db.init()
            self.provider.start()
            self.provider.wait_ready()
            log(f"payment provider (the sandbox of a service process of its own) on {self.provider.port}, its "
                f"PostgreSQL on {self.provider_db.port}")
        first = self.replicas[0]
        first.start()
        first.wait_ready()
        self.postgres.psql(f"UPDATE products SET stock = {LIMITED_STOCK} WHERE product_id = '{LIMITED_PRODUCT}'")
        for replica in self.replicas[1:]:
            replica.start()
        for replica in self.replicas[1:]:
            replica.wait_ready()
        self.haproxy.start()
        self.lossy.start()
        self.wait_balanced()
        log(f"3 replicas ready on {[r.port for r in self.replicas]}, HAProxy on {self.haproxy_port}, "
            f"lossy proxy on {self.lossy_port}")

    def wait_balanced(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            answer = send(self.haproxy_port, "GET", "/q/health/ready")
            if answer is not None and answer.status == 200:
                return
            time.sleep(0.3)
        raise RuntimeError("HAProxy has no ready replica")

    def stop(self):
        self.lossy.stop()
        self.haproxy.stop()
        for replica in self.replicas:
            replica.stop()
        if self.pgbouncer:
            self.pgbouncer.stop()
        self.postgres.stop()
        if self.provider:
            self.provider.stop()
            self.provider_db.stop()

    # ---- phases ----

    def load(self, phase, port, seconds, fault=None):
        """Runs the clients for `seconds` (or until `fault` returns, if that is later) while `fault` runs."""
        stats = Stats()
        stop = threading.Event()
        clients = [Client(f"{phase}-{i}", port, self.tokens, self.journal, stats, stop, phase)
                   for i in range(self.args.clients)]
        for client in clients:
            client.start()
        started = time.time()
        injected = fault(started + seconds) if fault else 0
        time.sleep(max(0.0, started + seconds - time.time()))
        stop.set()
        for client in clients:
            client.join(timeout=150)
        return stats, injected

    def kill_replicas(self, until):
        """kill -9 of a random replica at random moments, never the last ready one; each killed replica is
        restarted at once (a new incarnation) and rejoins HAProxy when ready."""
        kills = 0
        restarting = []
        rng = random.Random()
        while time.time() < until or kills < self.args.kills:
            time.sleep(rng.uniform(1.0, 5.0))
            for replica in restarting[:]:
                if replica.ready():
                    restarting.remove(replica)
            candidates = [r for r in self.replicas if r not in restarting and r.alive()]
            if len(candidates) < 2:
                continue
            victim = rng.choice(candidates)
            victim.kill9()
            kills += 1
            victim.start()
            restarting.append(victim)
            if time.time() > until + 300:
                break
        for replica in self.replicas:
            replica.wait_ready()
        return kills

    def restart_database(self, until):
        """pg_ctl restart -m fast under load; each replica must report not-ready and recover by itself."""
        restarts = 0
        seen_down = {r.index: False for r in self.replicas}
        watching = threading.Event()

        def watch():
            while not watching.is_set():
                for replica in self.replicas:
                    if replica.ready() is False:
                        seen_down[replica.index] = True
                time.sleep(0.2)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        pause = max(4.0, (until - time.time()) / (self.args.db_restarts + 1))
        while restarts < self.args.db_restarts:
            time.sleep(pause)
            self.postgres.restart(self.args.db_down_seconds)
            restarts += 1
        deadline = time.time() + 60
        while time.time() < deadline and not all(r.ready() for r in self.replicas):
            time.sleep(0.5)
        watching.set()
        not_ready = [r.replica_id for r in self.replicas if not r.ready()]
        if not_ready:
            self.notes.append(f"database restart: replicas not ready 60 s after the last restart: {not_ready}")
        never_down = [i for i, down in seen_down.items() if not down]
        if never_down:
            self.notes.append(f"database restart: replicas r{never_down} never reported not-ready while it was down")
        return restarts

    def bad_input_phase(self):
        user = 0
        order = send(self.haproxy_port, "POST", "/api/orders",
                     b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}',
                     {"Authorization": "Bearer " + self.tokens[user], "Content-Type": "application/json",
                      "Idempotency-Key": "bad-input-target"})
        order_id = order.json()["orderId"]
        generator = bad_input.Generator(self.tokens, order_id, WEBHOOK_SECRET,
                                        base64.b64encode(f"faultadmin:{CONSOLE_PASSWORD}".encode()).decode(),
                                        random.Random(self.args.seed))
        time.sleep(2)
        before = checks.database_snapshot(self.postgres)
        refused = bad_input.BadInputRun(self.haproxy_port, generator, self.args.bad_requests)
        refused.run(generator.part_a, must_be_refused=True)
        time.sleep(2)
        after = checks.database_snapshot(self.postgres)
        changed = [t for t in before if before[t] != after.get(t)]
        odd = bad_input.BadInputRun(self.haproxy_port, generator, max(50, self.args.bad_requests // 10))
        odd.run(generator.part_b, must_be_refused=False)
        return refused, odd, changed

    # ---- the run ----

    def wait_all_ready(self, timeout=90):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if all(r.ready() for r in self.replicas):
                return time.time()
            time.sleep(0.2)
        self.notes.append(f"replicas not all ready {timeout} s after a switch")
        return None

    def failover(self, phase, synchronous):
        """Under load: the primary's machine dies (SIGKILL of every process of it, after its WAL sender was held for
        a moment as a slow network would), the standby is promoted, the old primary is rewound and rejoins as a
        standby; then the same back, so the service ends on the server it started on."""
        def fault(until):
            self.postgres.set_synchronous(synchronous)
            time.sleep(max(3.0, self.args.duration / 4))
            steps = []
            for _ in range(2):
                step = self.postgres.fail_over(self.args.failover_lag, self.args.promote_after)
                step["ready_at"] = self.wait_all_ready()
                steps.append(step)
                log(f"  {step['from']} -> {step['to']}: {step['wal_not_on_standby']} bytes of WAL not on the standby, "
                    f"promoted {step['promoted_at'] - step['killed_at']:.1f} s after the kill, old primary rejoined "
                    f"after {step['rejoined_at'] - step['killed_at']:.1f} s")
                time.sleep(max(3.0, self.args.duration / 4))
            self.switches[phase] = steps
            return len(steps)
        return fault

    def switch_figures(self, phase, stats):
        """Per switch, as the clients saw it: from the kill to the first 2xx after it, and the longest time without
        any 2xx from the moment the WAL sender was held until all replicas were ready again (after the old primary
        rejoined)."""
        answered = sorted(stats.answered_at)
        figures = []
        for step in self.switches.get(phase, []):
            after = [t for t in answered if t > step["killed_at"]]
            first = after[0] - step["killed_at"] if after else None
            end = (step["ready_at"] or step["rejoined_at"]) + 5
            window = [step["held_at"]] + [t for t in answered if step["held_at"] < t < end]
            gap = max((b - a for a, b in zip(window, window[1:])), default=None)
            figures.append({"from": step["from"], "to": step["to"], "lost_wal": step["wal_not_on_standby"],
                            "promoted": step["promoted_at"] - step["killed_at"], "first_answer": first,
                            "longest_gap": gap, "rejoined": step["rejoined_at"] - step["killed_at"]})
        return figures

    def topology_phases(self, seconds):
        if self.topology == "failover":
            return [
                ("failsync", "failover, synchronous standby", self.haproxy_port, self.failover("failsync", True),
                 None),
                ("failasync", "failover, asynchronous standby", self.haproxy_port,
                 self.failover("failasync", False), None),
            ]
        if self.topology == "pooler":
            return [
                ("pooler", "PgBouncer 1.18, transaction mode", self.haproxy_port, None, lambda: 3),
                ("poolrestart", "PgBouncer, database restart", self.haproxy_port, self.restart_database, None),
                ("pooldirect0", "the same load without PgBouncer, prepareThreshold=0", self.haproxy_port, None,
                 lambda: 0),
                ("pooldirect", "the same load without PgBouncer", self.haproxy_port, None, lambda: 0),
            ]
        return [
            ("replicas", "3 replicas, all jobs on", self.haproxy_port, None, lambda: 3),
            ("kill9", "kill -9 of a replica", self.haproxy_port, self.kill_replicas, None),
            ("lossy", f"lost responses ({int(self.args.drop_share * 100)} %)", self.lossy_port, None,
             lambda: self.lossy.dropped),
            ("dbrestart", "database restart", self.haproxy_port, self.restart_database, None),
            ("storm", "webhook storms (1–5 ×)", self.haproxy_port, None, None),
        ]

    def run(self):
        self.start()
        t0 = time.time()
        seconds = self.args.duration
        self.switches = {}
        if self.topology == "main":
            self.bad_input_row()
        self.storm = None
        for phase, title, port, fault, count in self.topology_phases(seconds):
            if phase == "pooldirect0":
                self.connect_replicas(f"jdbc:postgresql://127.0.0.1:{self.pg_port}/onceguard?prepareThreshold=0")
            elif phase == "pooldirect":
                self.connect_replicas(f"jdbc:postgresql://127.0.0.1:{self.pg_port}/onceguard")
            self.run_phase(phase, title, port, fault, count, seconds)
            if phase == "failsync":
                # The asynchronous phase loses job_runs rows with the rest: every run is checked before it.
                counted, missing = checks.check_job_runs(self.postgres, self.replicas)
                self.examples += [f"job runs (synchronous failovers): {m}" for m in missing]
                self.job_rows_synchronous = {"fault": "job runs recorded, through the synchronous failovers",
                                             "injected": "", "requests": "", "keys": f"{counted} runs",
                                             "duplicates": 0, "lost": len(missing), "trace": 0, "stuck": 0}
                # So do the webhooks of the charges whose attempts it loses: the database-wide checks, too.
                self.settle()
                overall = checks.check_global(self.postgres, LIMITED_STOCK, LIMITED_PRODUCT, self.provider_db)
                self.examples += [f"database (synchronous failovers): {d}"
                                  for d in overall.duplicates + overall.lost + overall.stuck]
                self.end_state_synchronous = {"fault": "end state (database), through the synchronous failovers",
                                              "injected": "", "requests": "", "keys": "",
                                              "duplicates": len(overall.duplicates), "lost": len(overall.lost),
                                              "trace": 0, "stuck": len(overall.stuck)}
        self.check(t0)

    def connect_replicas(self, jdbc_url):
        """Restarts every replica with another database URL (the pooler topology's comparison without PgBouncer)."""
        log(f"replicas restarted on {jdbc_url}")
        for replica in self.replicas:
            replica.stop()
            replica.env["QUARKUS_DATASOURCE_JDBC_URL"] = jdbc_url
            replica.start()
        for replica in self.replicas:
            replica.wait_ready()
        self.wait_balanced()

    def watch_pgbouncer(self, stop):
        """Polls PgBouncer's pools while a phase runs: the most clients waiting at once and the longest wait."""
        peak = {"cl_waiting": 0, "maxwait": 0.0, "sv_active": 0}

        def poll():
            while not stop.is_set():
                try:
                    for pool in self.pgbouncer.show("POOLS"):
                        if pool.get("database") == "onceguard":
                            peak["cl_waiting"] = max(peak["cl_waiting"], int(pool["cl_waiting"]))
                            peak["sv_active"] = max(peak["sv_active"], int(pool["sv_active"]))
                            peak["maxwait"] = max(peak["maxwait"],
                                                  int(pool["maxwait"]) + int(pool.get("maxwait_us", 0)) / 1e6)
                except (subprocess.CalledProcessError, ValueError, KeyError):
                    pass
                stop.wait(0.5)

        watcher = threading.Thread(target=poll, daemon=True)
        watcher.start()
        return peak, watcher

    def bad_input_row(self):
        log("bad input")
        refused, odd, changed = self.bad_input_phase()
        server_errors = refused.server_errors + odd.server_errors
        self.examples += [f"bad input 5xx: {e}" for e in server_errors[:10]]
        self.examples += [f"bad input accepted: {e}" for e in refused.accepted[:10]]
        self.examples += [f"bad input changed table {t}" for t in changed]
        self.notes.append(f"bad input: refused part {refused.sent} requests {sorted(refused.by_status.items())}, "
                          f"{refused.unanswered} closed unanswered; odd-but-valid part {odd.sent} "
                          f"{sorted(odd.by_status.items())}")
        self.rows.append({"fault": "bad input", "injected": refused.sent + odd.sent,
                          "requests": refused.sent + odd.sent, "keys": refused.sent,
                          "duplicates": len(refused.accepted), "lost": len(changed), "trace": len(server_errors),
                          "stuck": 0})

    def run_phase(self, phase, title, port, fault, count, seconds):
        log(f"phase {title}: {seconds} s")
        logs_before = {r.index: len(r.logs) for r in self.replicas}
        stop_storm = threading.Event()
        if phase == "storm":
            storm_stats = Stats()
            self.storm = WebhookStorm(self.postgres, self.haproxy_port, WEBHOOK_SECRET, self.journal, storm_stats,
                                      stop_storm)
            self.storm.start()
        pooled = self.topology == "pooler" and not phase.startswith("pooldirect")
        if pooled:
            before = self.pgbouncer.totals()
            stop_watch = threading.Event()
            peak, watcher = self.watch_pgbouncer(stop_watch)
        started = time.time()
        stats, injected = self.load(phase, port, seconds, fault)
        elapsed = time.time() - started
        self.notes.append(f"{title}: {stats.requests} requests in {elapsed:.0f} s, {stats.requests / elapsed:.1f} "
                          f"per second, {sum(stats.by_status.get(s, 0) for s in (200, 201))} answered 200/201; "
                          f"load average at its end {os.getloadavg()[0]:.1f}")
        if pooled:
            stop_watch.set()
            watcher.join()
            after = self.pgbouncer.totals()
            if before and after:
                d = {k: after[k] - before[k] for k in after}
                xacts = max(1, d["total_xact_count"])
                self.notes.append(
                    f"{title}: PgBouncer {d['total_xact_count']} transactions, {d['total_query_count']} queries; per "
                    f"transaction {d['total_xact_time'] / xacts / 1000:.1f} ms in it, "
                    f"{d['total_wait_time'] / xacts / 1000:.1f} ms waiting for a server connection; per query "
                    f"{d['total_query_time'] / max(1, d['total_query_count']) / 1000:.1f} ms; at most "
                    f"{peak['cl_waiting']} clients waiting at once (longest {peak['maxwait']:.2f} s), "
                    f"{peak['sv_active']} of {self.pgbouncer.pool_size} server connections busy at once")
        if phase == "storm":
            stop_storm.set()
            self.storm.join(timeout=60)
            injected = self.storm.events
            stats.requests += storm_stats.requests
            stats.server_errors_with_trace += storm_stats.server_errors_with_trace
            self.notes.append(f"webhook storm: {self.storm.events} events, {self.storm.deliveries} extra deliveries "
                              f"answered 200, {self.storm.before_answer} of them while the payment request was "
                              f"still waiting for its answer; other answers: {self.storm.bad_answers[:5]}")
            self.examples += [f"storm bad answer: {a}" for a in self.storm.bad_answers[:5]]
        if count:
            injected = count()
        self.notes.append(f"{title}: {stats.requests} requests, answers {sorted(stats.by_status.items())}, "
                          f"{stats.no_answer} without answer")
        self.examples += [f"{phase} 5xx: {e}" for e in stats.server_errors_with_trace[:5]]
        self.examples += [f"{phase} unexpected answer: {e}" for e in stats.unexpected[:5]]
        self.rows.append({"fault": title, "phase": phase, "injected": injected, "requests": stats.requests,
                          "stats": stats, "logs_before": logs_before})
        if phase in self.switches:
            for f in self.switch_figures(phase, stats):
                self.notes.append(
                    f"{title}, {f['from']} -> {f['to']}: {f['lost_wal']} bytes of WAL not on the standby at the "
                    f"kill (with a synchronous standby: commits still waiting for it, none answered); promoted "
                    f"{f['promoted']:.1f} s after it; first 2xx {fmt(f['first_answer'])} s after "
                    f"it; longest time without a 2xx {fmt(f['longest_gap'])} s (from the held WAL sender); old "
                    f"primary streaming again {f['rejoined']:.1f} s after it")
        if phase in self.switches or self.topology == "pooler":
            self.notes.append(f"{title}: 5xx that were not a 503 with Retry-After: {len(stats.not_clean_503)}; "
                              f"503s of HAProxy (no replica ready): {stats.balancer_503}")
            self.examples += [f"{phase} 5xx not a clean 503: {e}" for e in stats.not_clean_503[:5]]
        log(f"  {injected} injected, {stats.requests} requests")

    def check(self, t0):
        log("settling: lease recovery, reconciliation, outbox and deliveries")
        self.settle()
        log("checking")
        for row in [r for r in self.rows if "phase" in r]:
            findings = checks.check_phase(row["phase"], self.journal.operations, self.postgres, self.haproxy_port,
                                          self.tokens, self.users, self.provider_api_port)
            stats = row["stats"]
            strict_5xx = len(stats.not_clean_503) if row["phase"] in self.switches or self.topology == "pooler" else 0
            row.update(keys=findings.keys_checked, duplicates=len(findings.duplicates), lost=len(findings.lost),
                       trace=len(stats.server_errors_with_trace) + strict_5xx,
                       stuck=len(findings.stuck) + len(stats.given_up),
                       unexpected=len(stats.unexpected))
            if row["phase"] == "failasync":
                for kind, found in (("duplicates", findings.duplicates), ("lost", findings.lost),
                                    ("stuck", findings.stuck)):
                    for what, n in sorted(checks.kinds_of(found).items(), key=lambda item: -item[1]):
                        self.notes.append(f"{row['fault']}, {kind}: {n} × {what}")
            self.examples += [f"{row['phase']} duplicate: {d}" for d in findings.duplicates[:5]]
            self.examples += [f"{row['phase']} lost: {d}" for d in findings.lost[:5]]
            self.examples += [f"{row['phase']} stuck: {d}" for d in findings.stuck[:5]]
        overall = checks.check_global(self.postgres, LIMITED_STOCK, LIMITED_PRODUCT, self.provider_db)
        self.examples += [f"database: {d}" for d in overall.duplicates + overall.lost + overall.stuck]
        counted, missing = checks.check_job_runs(self.postgres, self.replicas)
        self.examples += [f"job runs: {m}" for m in missing]
        log_errors = checks.request_errors_in_logs([p for r in self.replicas for p in r.logs])
        self.examples += [f"log: {e}" for e in log_errors[:10]]
        paid = self.postgres.scalar("SELECT count(*) FROM orders WHERE status IN ('PAID', 'FULFILLED')")
        if hasattr(self, "end_state_synchronous"):
            self.rows.append(self.end_state_synchronous)
        self.rows.append({"fault": "end state (database)" + (", asynchronous failovers included"
                                                             if self.topology == "failover" else ""),
                          "injected": "", "requests": "",
                          "keys": f"{self.postgres.scalar('SELECT count(*) FROM orders')} orders, {paid} paid",
                          "duplicates": len(overall.duplicates), "lost": len(overall.lost),
                          "trace": len(log_errors), "stuck": len(overall.stuck),
                          "reported_only": self.topology == "failover"})
        if hasattr(self, "job_rows_synchronous"):
            self.rows.append(self.job_rows_synchronous)
        self.rows.append({"fault": "job runs recorded" + (", asynchronous failovers included"
                                                          if self.topology == "failover" else ""),
                          "injected": "", "requests": "", "keys": f"{counted} runs", "duplicates": 0,
                          "lost": len(missing), "trace": 0, "stuck": 0, "reported_only": self.topology == "failover"})
        self.elapsed = time.time() - t0

    def settle(self):
        """Waits until the background work the faults left behind is done (or 90 s passed): leases expire and are
        recovered, UNKNOWN payments reconciled, outbox and sandbox deliveries drained."""
        deadline = time.time() + max(90, LEASE_SECONDS * 4)
        time.sleep(LEASE_SECONDS + 4)
        while time.time() < deadline:
            pending = int(self.postgres.scalar(
                "SELECT (SELECT count(*) FROM idempotency_records WHERE status = 'PROCESSING')"
                " + (SELECT count(*) FROM outbox_events WHERE status = 'PENDING')"
                " + (SELECT count(*) FROM payments WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN'))"))
            pending += int(self.provider_db.scalar(
                "SELECT count(*) FROM sandbox_webhook_deliveries WHERE status = 'PENDING'"))
            if pending == 0:
                return
            time.sleep(1)

    def table(self):
        header = ["fault", "times injected", "requests sent", "keys checked", "duplicates found", "data lost",
                  "5xx with stack traces", "left stuck"]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join([" --- "] + [" --: "] * 7) + "|"]
        for row in self.rows:
            lines.append("| " + " | ".join(str(row.get(k, "")) for k in
                                           ["fault", "injected", "requests", "keys", "duplicates", "lost", "trace",
                                            "stuck"]) + " |")
        return "\n".join(lines)


def fmt(seconds):
    return "-" if seconds is None else f"{seconds:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--app-dir", required=True)
    parser.add_argument("--bench-dir", required=True)
    parser.add_argument("--port-base", type=int, default=int(os.environ.get("FAULT_PORT_BASE", 18190)))
    parser.add_argument("--duration", type=int, default=int(os.environ.get("FAULT_DURATION", 45)))
    parser.add_argument("--clients", type=int, default=int(os.environ.get("FAULT_CLIENTS", 6)))
    parser.add_argument("--kills", type=int, default=int(os.environ.get("FAULT_KILLS", 20)))
    parser.add_argument("--db-restarts", type=int, default=int(os.environ.get("FAULT_DB_RESTARTS", 3)))
    parser.add_argument("--db-down-seconds", type=float, default=float(os.environ.get("FAULT_DB_DOWN", 3)))
    parser.add_argument("--drop-share", type=float, default=float(os.environ.get("FAULT_DROP_SHARE", 0.2)))
    parser.add_argument("--bad-requests", type=int, default=int(os.environ.get("FAULT_BAD_REQUESTS", 3000)))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("FAULT_SEED", 16)))
    parser.add_argument("--topology", choices=["main", "failover", "pooler"], default="main")
    parser.add_argument("--pg-port", type=int, default=int(os.environ.get("FAULT_PG_PORT", 0)))
    parser.add_argument("--standby-port", type=int, default=int(os.environ.get("FAULT_STANDBY_PORT", 0)))
    parser.add_argument("--pgbouncer-port", type=int, default=int(os.environ.get("FAULT_PGBOUNCER_PORT", 0)))
    parser.add_argument("--provider-pg-port", type=int, default=int(os.environ.get("FAULT_PROVIDER_PG_PORT", 0)))
    parser.add_argument("--provider-port", type=int, default=int(os.environ.get("FAULT_PROVIDER_PORT", 0)))
    parser.add_argument("--failover-lag", type=float, default=float(os.environ.get("FAULT_FAILOVER_LAG", 1.0)))
    parser.add_argument("--promote-after", type=float, default=float(os.environ.get("FAULT_PROMOTE_AFTER", 1.0)))
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    suite = Suite(args)
    failed = False
    try:
        suite.run()
    except Exception:
        traceback.print_exc()
        failed = True
    finally:
        suite.stop()
    print()
    print(suite.table())
    print()
    for note in suite.notes:
        print("- " + note)
    if suite.examples:
        print("\nFindings:")
        for example in suite.examples:
            print("  " + str(example)[:400])
    # An asynchronous standby loses the last commits by design: that phase's findings are what it lost, reported in
    # the table, and do not decide the exit status.
    # A request error with a stack trace is a bug in any phase, the asynchronous one's included.
    holds = not failed and all(row.get(k) in (0, "", None) for row in suite.rows
                               if row.get("phase") != "failasync"
                               for k in (("trace",) if row.get("reported_only")
                                         else ("duplicates", "lost", "trace", "stuck")))
    if hasattr(suite, "elapsed"):
        print(f"\nfaults and checks took {suite.elapsed:.0f} s; logs in {args.workdir}")
    print("RESULT: " + ("all invariants hold" if holds else "FINDINGS (see above)"))
    sys.exit(0 if holds else 1)


if __name__ == "__main__":
    main()

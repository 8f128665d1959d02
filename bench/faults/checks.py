"""The invariants checked after the faults, through the API and in the database."""
import json
import re
import threading
from collections import Counter, defaultdict

from workload import send

STACK_LINE = re.compile(r"^\s+at [\w$.]+\(")
LOG_LINE = re.compile(r"^\S+ (ERROR|WARN |INFO |DEBUG) \[[^\]]*\] \([^)]*\) rid=(\S*) ")


# Rows a refused request may write by design: the hourly count of webhook deliveries refused for their signature, which
# the console's webhook summary shows (such a delivery leaves no other row to count).
COUNTS_OF_REFUSALS = {"activity_hourly": "kind NOT LIKE 'webhooks.%.rejected\\_signature'"}


def database_snapshot(postgres, skip=("job_runs", "flyway_schema_history")):
    """An md5 of every row of every table (but the job history, which the jobs write on their own, and the counts
    of refused signatures)."""
    tables = [row[0] for row in postgres.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]
    digest = {}
    for table in tables:
        if table in skip:
            continue
        kept = COUNTS_OF_REFUSALS.get(table, "true")
        digest[table] = postgres.scalar(
            f"SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM {table} t"
            f" WHERE {kept}")
    return digest


def request_errors_in_logs(log_paths):
    """ERROR log entries of a request (a request id on the line) that carry a stack trace."""
    found = []
    for path in log_paths:
        with open(path, errors="replace") as log:
            lines = log.readlines()
        for i, line in enumerate(lines):
            match = LOG_LINE.match(line)
            if match and match.group(1) == "ERROR" and match.group(2) and i + 1 < len(lines) \
                    and (STACK_LINE.match(lines[i + 1]) or "Exception" in lines[i + 1]):
                found.append(f"{path.rsplit('/', 1)[-1]}: {line.strip()[:200]}")
    return found


def parallel(items, work, threads=4):
    chunks = [items[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=lambda chunk: [work(item) for item in chunk], args=(chunk,)) for chunk in chunks]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


class Findings:
    """What one phase's checks found: counts for the table, examples for the report."""

    def __init__(self):
        self.keys_checked = 0
        self.duplicates = []
        self.lost = []
        self.stuck = []
        self.lock = threading.Lock()

    def add(self, kind, text):
        with self.lock:
            getattr(self, kind).append(text)


def check_phase(phase, operations, postgres, port, tokens, users, provider_port):
    """Checks every answered key of one phase: replays identical, one order per key, one provider charge per payment,
    one license / notification / loyalty entry per paid order, and nothing left unfinished."""
    findings = Findings()
    ops = [op for op in operations if op.phase == phase]
    answered = [op for op in ops if op.answer is not None]
    findings.keys_checked = len(answered)
    for op in ops:
        if op.answer is None:
            findings.add("stuck", f"no final answer for {op.kind} key {op.key}")

    # Replays: every final answer seen for a key, and one more replay now, are the same bytes.
    def replay(op):
        headers = {"Authorization": "Bearer " + tokens[op.user], "Content-Type": "application/json",
                   "Idempotency-Key": op.key}
        for _ in range(5):
            answer = send(port, "POST", op.path, op.body, headers)
            if answer is not None and answer.status < 500:
                break
        first = op.finals[0]
        for other in op.finals[1:] + ([answer] if answer is not None else []):
            if (other.status, other.body) != (first.status, first.body):
                findings.add("duplicates", f"{op.kind} key {op.key}: answers differ: {first.status} {first.body[:120]!r}"
                                           f" vs {other.status} {other.body[:120]!r}")
                return
        if answer is None or answer.headers.get("idempotent-replayed") != "true":
            findings.add("duplicates", f"{op.kind} key {op.key}: replay not marked as replayed "
                                       f"({answer.status if answer else 'no answer'})")

    parallel(answered, replay)

    # One order per answered key, and no order nobody asked for.
    created = {op.answer.json()["orderId"]: op for op in answered
               if op.kind == "create-order" and op.answer.status == 201}
    records = {(row[0], row[1]): row for row in postgres.psql(
        f"SELECT user_id, idempotency_key, status, response_status, resource_id FROM idempotency_records "
        f"WHERE idempotency_key LIKE '{phase}-%'")}
    for op in answered:
        record = records.get((users[op.user], op.key))
        if record is None:
            findings.add("lost", f"{op.kind} key {op.key}: answered {op.answer.status} but no idempotency record")
    for order_id, op in created.items():
        record = records.get((users[op.user], op.key))
        if record and record[4] != order_id:
            findings.add("duplicates", f"key {op.key}: answered {order_id}, record names {record[4]}")
    phase_orders = {row[0]: row for row in postgres.psql(
        "SELECT o.order_id, o.status, o.user_id FROM orders o JOIN idempotency_records r ON r.resource_id = o.order_id "
        f"AND r.operation = 'create-order' WHERE r.idempotency_key LIKE '{phase}-%'")}
    for order_id in created:
        if order_id not in phase_orders:
            findings.add("lost", f"order {order_id} answered 201 but not in the database")

    # Payments: one provider charge per payment, never two successful charges of one order.
    paid_orders = sorted({op.order_id for op in answered if op.kind == "create-payment"})
    service_payments = defaultdict(list)
    if paid_orders:
        ids = ",".join(f"'{o}'" for o in paid_orders)
        for payment_id, order_id, status, provider_id in postgres.psql(
                f"SELECT payment_id, order_id, status, coalesce(provider_payment_id, '') FROM payments "
                f"WHERE order_id IN ({ids})"):
            service_payments[order_id].append((payment_id, status, provider_id))

    def charges(order_id):
        answer = None
        for _ in range(5):
            answer = send(provider_port, "GET", "/sandbox/v1/payments?orderId=" + order_id)
            if answer is not None and answer.status == 200:
                break
        if answer is None or answer.status != 200:
            findings.add("lost", f"order {order_id}: sandbox list unavailable")
            return
        listed = answer.json()["data"]
        payments = service_payments.get(order_id, [])
        if len(listed) > len(payments):
            findings.add("duplicates", f"order {order_id}: {len(listed)} provider charges for {len(payments)} payments")
        succeeded = [c for c in listed if c.get("status") == "SUCCEEDED"]
        if len(succeeded) > 1:
            findings.add("duplicates", f"order {order_id}: {len(succeeded)} successful provider charges")
        known = {p[2] for p in payments}
        for charge in listed:
            if charge["id"] not in known:
                findings.add("lost", f"order {order_id}: provider charge {charge['id']} not known to the service")
        if succeeded and phase_orders.get(order_id, [None, None])[1] not in ("PAID", "FULFILLED"):
            findings.add("lost", f"order {order_id}: charged but {phase_orders.get(order_id, [None, 'missing'])[1]}")

    parallel(paid_orders, charges)
    for order_id, payments in service_payments.items():
        for payment_id, status, _ in payments:
            if status in ("CREATED", "PENDING", "UNKNOWN"):
                findings.add("stuck", f"payment {payment_id} still {status}")

    # Fulfilment: one license (digital goods), one notification, one loyalty entry per paid order.
    paid = [o for o, row in phase_orders.items() if row[1] in ("PAID", "FULFILLED")]
    if paid:
        ids = ",".join(f"'{o}'" for o in paid)
        counts = {row[0]: row[1:] for row in postgres.psql(f"""
            SELECT o.order_id,
                   (SELECT count(*) FROM licenses l WHERE l.order_id = o.order_id),
                   (SELECT count(*) FROM notifications n WHERE n.order_id = o.order_id),
                   (SELECT count(*) FROM loyalty_ledger y WHERE y.order_id = o.order_id),
                   EXISTS (SELECT 1 FROM order_items i JOIN products p USING (product_id)
                           WHERE i.order_id = o.order_id AND p.kind = 'DIGITAL')
            FROM orders o WHERE o.order_id IN ({ids})""")}
        for order_id in paid:
            licenses, notifications, loyalty, digital = counts[order_id]
            expected = {"license": 1 if digital == "t" else 0, "notification": 1, "loyalty entry": 1}
            for what, have in (("license", licenses), ("notification", notifications), ("loyalty entry", loyalty)):
                if int(have) > expected[what]:
                    findings.add("duplicates", f"order {order_id}: {have} × {what}")
                elif int(have) < expected[what]:
                    findings.add("lost", f"order {order_id}: no {what}")
            if phase_orders[order_id][1] == "PAID":
                findings.add("stuck", f"order {order_id} PAID, never FULFILLED")

    # The API shows the same fulfilment.
    def api_order(order_id):
        op = created[order_id]
        answer = send(port, "GET", "/api/orders/" + order_id, headers={"Authorization": "Bearer " + tokens[op.user]})
        if answer is None or answer.status != 200:
            findings.add("lost", f"GET order {order_id}: {answer.status if answer else 'no answer'}")
            return
        view = answer.json()
        if view["status"] in ("PAID", "FULFILLED"):
            fulfilment = view.get("fulfilment") or {}
            if fulfilment.get("notifications") != 1 or len(fulfilment.get("licenses", [])) > 1:
                findings.add("lost", f"GET order {order_id}: fulfilment {json.dumps(fulfilment)}")

    parallel(sorted(created), api_order)
    return findings


def check_global(postgres, initial_stock, limited_product, provider_db):
    """Database-wide: stock adds up, nothing PROCESSING or pending after recovery, no orphan orders."""
    findings = Findings()
    remaining = int(postgres.scalar(f"SELECT stock FROM products WHERE product_id = '{limited_product}'"))
    reserved = int(postgres.scalar(
        f"SELECT coalesce(sum(i.quantity), 0) FROM order_items i JOIN orders o USING (order_id) "
        f"WHERE i.product_id = '{limited_product}' AND o.status <> 'CANCELED'"))
    if remaining + reserved != initial_stock:
        findings.add("lost", f"stock of {limited_product}: initial {initial_stock} != remaining {remaining} "
                             f"+ reserved {reserved}")
    for what, sql in [
        ("idempotency records PROCESSING", "SELECT count(*) FROM idempotency_records WHERE status = 'PROCESSING'"),
        ("outbox events not DONE", "SELECT count(*) FROM outbox_events WHERE status <> 'DONE'"),
        ("webhook events not processed", "SELECT count(*) FROM webhook_inbox WHERE status NOT IN ('PROCESSED', 'IGNORED')"),
        ("payments unresolved", "SELECT count(*) FROM payments WHERE status IN ('CREATED', 'PENDING', 'UNKNOWN')"),
        ("orders PAID not FULFILLED", "SELECT count(*) FROM orders WHERE status = 'PAID'"),
    ]:
        n = int(postgres.scalar(sql))
        if n:
            findings.add("stuck", f"{n} {what}")
    undelivered = int(provider_db.scalar(
        "SELECT count(*) FROM sandbox_webhook_deliveries WHERE status <> 'DELIVERED'"))
    if undelivered:
        findings.add("stuck", f"{undelivered} sandbox deliveries not delivered")
    orphans = int(postgres.scalar(
        "SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM idempotency_records r "
        "WHERE r.id = o.idempotency_record_id AND r.operation = 'create-order' AND r.resource_id = o.order_id)"))
    if orphans:
        findings.add("duplicates", f"{orphans} orders not named by the idempotency record they name")
    two_charges = int(provider_db.scalar(
        "SELECT count(*) FROM (SELECT order_id FROM sandbox_payments WHERE status = 'SUCCEEDED' "
        "GROUP BY order_id HAVING count(*) > 1) t"))
    if two_charges:
        findings.add("duplicates", f"{two_charges} orders charged successfully more than once")
    return findings


DATABASE_DOWN = re.compile(r"JDBCConnectionException|GenericJDBCException|Connection to \S+ refused"
                           r"|The connection attempt failed|An I/O error occurred|This connection has been closed"
                           r"|Acquisition timeout while waiting for new connection"
                           r"|Could not find a server with specified targetServerType|read-only transaction"
                           r"|server conn crashed|server closed the connection unexpectedly"
                           r"|terminating connection")


def kinds_of(texts):
    """Findings grouped by what they say, ids and keys left out: for a summary of what a phase lost."""
    kinds = Counter()
    for text in texts:
        text = re.sub(r" b'.*?(?= vs |$)", "", text)
        text = re.sub(r"\b(?:ord|pay|sbx|evt)_\w+|\b[a-z0-9]+-[0-9a-f]{8}-[0-9a-f-]{27}\b|\b\d+\b", "…", text)
        kinds[text.split(": ", 1)[-1][:70] if "key" in text.split(":")[0] else text[:70]] += 1
    return kinds


def runs_failed_for_want_of_the_database(log):
    """Per job, the runs a replica's log says failed with the database out of reach: the line of "job <name> failed"
    and the cause chain of its stack trace, up to the next log line."""
    failed = Counter()
    event = []

    def close():
        text = "\n".join(event)
        job = re.search(r"job (\S+) failed", text)
        if job and DATABASE_DOWN.search(text):
            failed[job.group(1).rstrip(":")] += 1

    for line in log:
        if LOG_LINE.match(line):
            close()
            event = []
        event.append(line)
    close()
    return failed


def check_job_runs(postgres, replicas):
    """Every run a live replica counted (its job timer) is a job_runs row of that replica, but for runs that failed
    because the database was down (they are logged instead); the outbox relay records only runs that did something,
    so it is checked as 'no more rows than runs'."""
    runs = Counter()
    for job, replica, n in postgres.psql("SELECT job, replica, count(*) FROM job_runs GROUP BY 1, 2"):
        runs[(job, replica)] = int(n)
    counted = 0
    missing = []
    for replica in replicas:
        if not replica.alive():
            continue
        # A run that failed because the database was down cannot write its FAILED row either; it is in the log.
        with open(replica.logs[-1], errors="replace") as log:
            unwritable = runs_failed_for_want_of_the_database(log)
        metrics = replica.metrics()
        for labels, n in re.findall(r"^onceguard_job_duration_seconds_count\{([^}]*)\} (\S+)", metrics, re.M):
            job = re.search(r'\bjob(?:_name)?="([^"]+)"', labels).group(1)
            n = int(float(n))
            counted += n
            recorded = runs[(job, replica.replica_id)]
            if job == "outbox-relay":
                if recorded > n:
                    missing.append(f"{replica.replica_id} {job}: {recorded} rows for {n} runs")
            # A run whose body finished just before the database went away is timed once as a success and once more
            # as the failure to record it (platform.Jobs): each failure for want of the database may stand for two.
            elif recorded < n - 1 - 2 * unwritable[job] or recorded > n:
                missing.append(f"{replica.replica_id} {job}: {n} runs, {recorded} recorded, "
                               f"{unwritable[job]} failed while the database was down")
    every_job = {job for job, _ in runs}
    for job in ("retention-cleanup", "lease-recovery", "reconciliation", "outbox-relay"):
        if job not in every_job:
            missing.append(f"{job}: no run recorded at all")
    return counted, missing

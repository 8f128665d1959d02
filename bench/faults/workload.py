"""Clients that create orders and pay them, each request retried with its key until a final answer, and the
journal of every answer they saw (what the checker compares the database and the replays with)."""
import base64
import hashlib
import hmac
import http.client
import json
import random
import re
import threading
import time
import uuid

TOKENS = ["tok_success", "tok_decline", "tok_pending", "tok_timeout_after_commit", "tok_error_after_commit",
          "tok_duplicate_webhooks", "tok_out_of_order"]
LIMITED_PRODUCT = "p-310"
STACK_TRACE = re.compile(r"\tat |\bat [a-z]+\.[a-zA-Z.$]+\(|Exception\b|\.java:\d+")
GIVE_UP_AFTER = 120.0


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def code(self):
        try:
            return json.loads(self.body).get("code")
        except (ValueError, AttributeError):
            return None

    def json(self):
        return json.loads(self.body)


def send(port, method, path, body=None, headers=None, timeout=30):
    """One request on its own connection. Returns an Answer, or None when the connection broke or no answer came."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers={"Connection": "close", **(headers or {})})
        response = conn.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


class Stats:
    """Counters shared by all threads of one phase."""

    def __init__(self):
        self._lock = threading.Lock()
        self.requests = 0
        self.by_status = {}
        self.no_answer = 0
        self.server_errors_with_trace = []
        self.unexpected = []
        self.given_up = []
        self.answered_at = []
        self.not_clean_503 = []
        self.balancer_503 = 0

    def count(self, answer, what):
        with self._lock:
            self.requests += 1
            if answer is None:
                self.no_answer += 1
                return
            self.by_status[answer.status] = self.by_status.get(answer.status, 0) + 1
            if 200 <= answer.status < 300:
                self.answered_at.append(time.time())
            if answer.status >= 500 and (answer.status != 503 or "retry-after" not in answer.headers):
                self.not_clean_503.append((what, answer.status, answer.body[:200]))
            elif answer.status == 503 and "problem+json" not in answer.headers.get("content-type", ""):
                self.balancer_503 += 1
            if answer.status == 500 or (answer.status >= 500 and STACK_TRACE.search(answer.body.decode("utf-8", "replace"))):
                self.server_errors_with_trace.append((what, answer.status, answer.body[:300]))

    def add(self, field, item):
        with self._lock:
            getattr(self, field).append(item)


class Operation:
    """One idempotent operation the client sent: its scope, its request, and every final answer it saw."""

    def __init__(self, phase, user, kind, key, path, body):
        self.phase = phase
        self.user = user
        self.kind = kind
        self.key = key
        self.path = path
        self.body = body
        self.finals = []

    @property
    def answer(self):
        return self.finals[0] if self.finals else None


class Journal:
    def __init__(self):
        self._lock = threading.Lock()
        self.operations = []
        self.paying = set()

    def add(self, operation):
        with self._lock:
            self.operations.append(operation)


def is_final_order_answer(answer):
    return answer.status == 201 or (answer.status == 409 and answer.code == "OUT_OF_STOCK")


def is_final_payment_answer(answer):
    if answer.status == 201:
        return True
    return answer.status == 409 and answer.code in ("ORDER_ALREADY_PAID", "PAYMENT_ATTEMPT_UNRESOLVED")


def is_transient(answer):
    """Worth a retry with the same key: nothing final was stored."""
    if answer is None or answer.status in (502, 503, 504):
        return True
    if answer.status == 409 and answer.code == "OPERATION_IN_PROGRESS":
        return True
    return answer.status == 202 and answer.json().get("status") == "UNKNOWN"


class Client(threading.Thread):
    """Creates an order (mostly unlimited digital goods, some of the limited physical product) and pays it with
    a random sandbox token; a declined payment is followed by a second attempt with tok_success."""

    def __init__(self, name, port, tokens, journal, stats, stop, phase):
        super().__init__(daemon=True, name=name)
        self.port = port
        self.tokens = tokens
        self.journal = journal
        self.stats = stats
        self.stop_event = stop
        self.phase = phase
        self.random = random.Random()

    def run(self):
        while not self.stop_event.is_set():
            user = self.random.randrange(len(self.tokens))
            order = self.create_order(user)
            if order is None or order.answer is None or order.answer.status != 201:
                continue
            order_id = order.answer.json()["orderId"]
            payment = self.pay(user, order_id, self.random.choice(TOKENS))
            if payment and payment.answer and payment.answer.status == 201 \
                    and payment.answer.json()["status"] == "FAILED":
                self.pay(user, order_id, "tok_success")

    def cart(self):
        roll = self.random.random()
        if roll < 0.25:
            return [{"productId": LIMITED_PRODUCT, "quantity": self.random.randint(1, 3)}]
        if roll < 0.4:
            return [{"productId": "p-184", "quantity": 1}, {"productId": LIMITED_PRODUCT, "quantity": 1}]
        return [{"productId": self.random.choice(["p-184", "p-220"]), "quantity": self.random.randint(1, 2)}]

    def create_order(self, user):
        body = json.dumps({"items": self.cart(), "currency": "RUB"})
        operation = Operation(self.phase, user, "create-order", f"{self.phase}-{uuid.uuid4()}", "/api/orders", body)
        self.journal.add(operation)
        return self.until_final(operation, is_final_order_answer)

    def pay(self, user, order_id, token):
        body = json.dumps({"paymentMethodToken": token})
        operation = Operation(self.phase, user, "create-payment", f"{self.phase}-{uuid.uuid4()}",
                              f"/api/orders/{order_id}/payments", body)
        operation.order_id = order_id
        self.journal.add(operation)
        self.journal.paying.add(order_id)
        try:
            return self.until_final(operation, is_final_payment_answer)
        finally:
            self.journal.paying.discard(order_id)

    def until_final(self, operation, is_final):
        headers = {"Authorization": "Bearer " + self.tokens[operation.user], "Content-Type": "application/json",
                   "Idempotency-Key": operation.key}
        deadline = time.time() + GIVE_UP_AFTER
        while time.time() < deadline:
            answer = send(self.port, "POST", operation.path, operation.body, headers)
            self.stats.count(answer, operation.kind)
            if answer is not None and is_final(answer):
                operation.finals.append(answer)
                return operation
            if answer is not None and answer.status == 500:
                pass  # counted as a finding by stats.count; retried, so that the operation's end state is checked too
            elif not is_transient(answer):
                self.stats.add("unexpected", (operation.kind, answer.status, answer.body[:300]))
                return operation
            wait = 0.2 + self.random.random() * 0.3
            if answer is not None and "retry-after" in answer.headers:
                wait = min(float(answer.headers["retry-after"]), 2.0)
            time.sleep(wait)
        self.stats.add("given_up", (operation.kind, operation.key))
        return operation


def sign_webhook(secret, event_id, body):
    key = base64.b64decode(secret[len("whsec_"):])
    timestamp = str(int(time.time()))
    mac = hmac.new(key, f"{event_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return {"webhook-id": event_id, "webhook-timestamp": timestamp,
            "webhook-signature": "v1," + base64.b64encode(mac).decode(), "Content-Type": "application/json"}


class WebhookStorm(threading.Thread):
    """Delivers every event the sandbox schedules 1 to 5 more times, concurrently and in shuffled order (random
    delays), as soon as the sandbox has written it: for a payment whose provider answer is late
    (tok_timeout_after_commit) that is before the service has its synchronous answer."""

    def __init__(self, postgres, port, secret, journal, stats, stop):
        super().__init__(daemon=True, name="webhook-storm")
        self.postgres = postgres
        self.port = port
        self.secret = secret
        self.journal = journal
        self.stats = stats
        self.stop_event = stop
        self.last_id = int(postgres.scalar("SELECT coalesce(max(id), 0) FROM sandbox_webhook_deliveries"))
        self.events = 0
        self.deliveries = 0
        self.before_answer = 0
        self.bad_answers = []
        self._lock = threading.Lock()
        self._senders = []

    def run(self):
        while not self.stop_event.is_set():
            try:
                rows = self.postgres.psql(
                    "SELECT d.id, d.event_id, p.order_id, d.body FROM sandbox_webhook_deliveries d "
                    f"JOIN sandbox_payments p ON p.id = d.payment_id WHERE d.copy = 1 AND d.id > {self.last_id} "
                    "ORDER BY d.id")
            except Exception:
                rows = []
            for row_id, event_id, order_id, body in rows:
                self.last_id = max(self.last_id, int(row_id))
                self.events += 1
                early = order_id in self.journal.paying
                for _ in range(random.randint(1, 5)):
                    sender = threading.Thread(target=self.deliver, args=(event_id, body, early), daemon=True)
                    sender.start()
                    self._senders.append(sender)
            time.sleep(0.3)
        for sender in self._senders:
            sender.join(timeout=30)

    def deliver(self, event_id, body, early):
        time.sleep(random.random() * 1.5)
        for _ in range(20):
            answer = send(self.port, "POST", "/webhooks/sandbox", body.encode(), sign_webhook(self.secret, event_id, body))
            self.stats.count(answer, "webhook")
            if answer is not None and answer.status == 200:
                with self._lock:
                    self.deliveries += 1
                    self.before_answer += early
                return
            if answer is not None and answer.status not in (502, 503, 504):
                self.bad_answers.append((answer.status, answer.body[:200]))
                return
            time.sleep(0.5)

"""Generated bad input against every endpoint, sent as raw bytes (so that NUL, lone surrogates, invalid UTF-8 and
broken headers reach the service as they are).

Part A holds only requests the contract says must be refused: none may get a 5xx and, together, they must leave
the database exactly as it was. Part B holds odd but valid requests (strange request ids, quoted keys, charset
parameters, escapes, duplicate JSON fields, an unknown token, a sold-out product): they may succeed or be
refused, but never with a 5xx.
"""
import base64
import hashlib
import hmac
import json
import random
import socket
import threading
import time
import urllib.parse
import uuid

NASTY = ["\u0000", "\ud800", "\udfff", "\ud83d", "\u0000abc", "a\u0000b", "\ufffe", "\uffff", "\u202e", "é", "\U0001F600",
         "\x7f", "\x1b[31m", "' OR 1=1 --", "<script>", "%00", "\\u0000", "🙂" * 300, "x" * 70000, "", " ", "null"]
ENDPOINT_IDS = ["ord_unknown", "pay_unknown", "\u0000", "\ud800", "%00", "%ED%A0%80", "%C0%80", "%FF", "a" * 3000,
                "..%2F..%2Fetc", "ord_%00", "ord_\u00e9", "%F0%9F%98%80"]
SURROGATE_CHARS = ["\ud800", "\udfff", "\ud83d"]


def encode(text):
    """UTF-8 that keeps lone surrogates as their (invalid) three-byte form, as a careless client would send them."""
    return text.encode("utf-8", "surrogatepass")


def raw_request(port, method, path, headers, body=b"", timeout=15):
    """Sends exactly these bytes; returns (status, body) or (None, b"") when the connection closed unanswered."""
    head = f"{method} ".encode() + (path if isinstance(path, bytes) else encode(path)) + b" HTTP/1.1\r\n"
    head += b"Host: 127.0.0.1\r\nConnection: close\r\n"
    if not any(name.lower() == b"content-length" for name, _ in headers) and method in ("POST", "PUT"):
        head += b"Content-Length: " + str(len(body)).encode() + b"\r\n"
    for name, value in headers:
        head += name + b": " + value + b"\r\n"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(head + b"\r\n" + body)
            chunks = []
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                chunks.append(data)
    except OSError:
        return None, b""
    response = b"".join(chunks)
    if not response.startswith(b"HTTP/"):
        return None, response
    status = int(response.split(b" ", 2)[1])
    return status, response.split(b"\r\n\r\n", 1)[-1]


def h(name, value):
    return name.encode(), value if isinstance(value, bytes) else encode(value)


class Generator:
    """Builds the requests. Each generated request is (label, method, path, headers, body)."""

    def __init__(self, tokens, order_id, webhook_secret, console_basic, rng):
        self.tokens = tokens
        self.order_id = order_id
        self.secret = webhook_secret
        self.console = console_basic
        self.r = rng

    def auth(self, user=0):
        return h("Authorization", "Bearer " + self.tokens[user])

    def fresh_key(self):
        return h("Idempotency-Key", "bad-" + str(uuid.uuid4()))

    def valid_order(self):
        return json.dumps({"items": [{"productId": "p-184", "quantity": 1}], "currency": "RUB"}).encode()

    def nasty(self):
        return self.r.choice(NASTY)

    # ---- part A: must be refused ----

    def bad_key(self):
        key = self.r.choice(["", " ", "a b", "\u0000", "k\u0000", "é", "\ud800", "x" * 256, "\"\"", "\"a b\"",
                             "tab\tkey", "\x7f", "k" * 5000, "🙂", "\x01"])
        headers = [self.auth(), h("Content-Type", "application/json")]
        if self.r.random() < 0.9:
            headers.append(h("Idempotency-Key", key))
        path = self.r.choice(["/api/orders", f"/api/orders/{self.order_id}/payments"])
        body = self.valid_order() if path == "/api/orders" else b'{"paymentMethodToken":"tok_success"}'
        return "idempotency key", "POST", path, headers, body

    def bad_order_body(self):
        n = self.nasty()
        item = {"productId": "p-184", "quantity": 1}
        shapes = [
            {"items": [dict(item, productId=n)], "currency": "RUB"},
            {"items": [item], "currency": n},
            {"items": [dict(item, quantity=self.r.choice([0, -1, 101, 1.5, "1", None, True, 10 ** 30, [], {}]))],
             "currency": "RUB"},
            {"items": [item], "currency": "RUB", self.r.choice(["price", "total", "unitPrice", n or "x"]): "1.00"},
            {"items": [], "currency": "RUB"},
            {"items": [item] * 51, "currency": "RUB"},
            {"items": [item]},
            {"items": [dict(item, extra=n)], "currency": "RUB"},
            {"items": "p-184", "currency": "RUB"},
            {"items": [item], "currency": "USD"},
            {"items": [{"productId": "p-unknown-" + str(self.r.randrange(999)), "quantity": 1}], "currency": "RUB"},
            {"items": [item], "currency": ["RUB"]},
            [item],
            "order",
            12,
            None,
        ]
        body = encode(json.dumps(self.r.choice(shapes), ensure_ascii=self.r.random() < 0.5))
        return "order body", "POST", "/api/orders", [self.auth(), self.fresh_key(), h("Content-Type", "application/json")], body

    def bad_encoding(self):
        raw = self.r.choice([
            b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"',
            b'{"items":[{"productId":"p-\xff\xfe","quantity":1}],"currency":"RUB"}',
            b'{"items":[{"productId":"p-\xed\xa0\x80","quantity":1}],"currency":"RUB"}',
            b'{"items":[{"productId":"p-\xc0\x80","quantity":1}],"currency":"RUB"}',
            b'\xff\xfe{\x00"\x00i\x00',
            '{"items":[{"productId":"p-184é","quantity":1}],"currency":"RUB"}'.encode("latin-1"),
            b'{"items":[{"productId":"p-184\\u0000","quantity":1}],"currency":"RUB"}',
            b'{"items":[{"productId":"p-184\\ud800","quantity":1}],"currency":"RUB"}',
            b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB\x00"}',
            b"[" * 5000 + b"]" * 5000,
            b'{"a":' * 3000 + b"1" + b"}" * 3000,
            b"",
            b"\x00\x00\x00\x00",
            b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"} trailing',
            b'{"items":[{"productId":"p-184","quantity":01}],"currency":"RUB"}',
            b'{"items":[{"productId":"p-184","quantity":NaN}],"currency":"RUB"}',
            b"{'items':[],'currency':'RUB'}",
            b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB", "pad":"' + b"x" * 70000 + b'"}',
        ])
        path = self.r.choice(["/api/orders", f"/api/orders/{self.order_id}/payments"])
        return "encoding", "POST", path, [self.auth(), self.fresh_key(), h("Content-Type", "application/json")], raw

    def bad_payment_body(self):
        n = self.nasty()
        shapes = [{}, {"paymentMethodToken": None}, {"paymentMethodToken": 7}, {"paymentMethodToken": ["tok_success"]},
                  {"paymentMethodToken": "tok_success", "amount": "1.00"}, {"paymentMethodToken": "tok_success" + n}
                  if n in ("\u0000", "\ud800", "\udfff", "\ud83d", "\u0000abc", "a\u0000b") else {"token": n},
                  {"paymentMethodToken": "x" * 70000}, [], "tok_success"]
        body = encode(json.dumps(self.r.choice(shapes), ensure_ascii=self.r.random() < 0.5))
        return ("payment body", "POST", f"/api/orders/{self.order_id}/payments",
                [self.auth(), self.fresh_key(), h("Content-Type", "application/json")], body)

    def bad_path(self):
        bad = self.r.choice(ENDPOINT_IDS)
        method, path, body = self.r.choice([
            ("GET", f"/api/orders/{bad}", b""),
            ("GET", f"/api/payments/{bad}", b""),
            ("POST", f"/api/orders/{bad}/payments", b'{"paymentMethodToken":"tok_success"}'),
            ("GET", f"/api/orders?limit={bad}", b""),
            ("GET", f"/api/orders?after={bad}", b""),
            ("GET", f"/api/orders?limit={self.r.choice(['-1', '0', '1e9', '99999999999', 'abc', '%00'])}", b""),
            ("GET", f"/sandbox/v1/payments?orderId={bad}", b""),
            ("GET", f"/sandbox/v1/payments/{bad}", b""),
        ])
        if not all(c.isascii() for c in path):
            path = urllib.parse.quote(path, safe="/?=&%", errors="surrogatepass") if self.r.random() < 0.5 else path
        headers = [self.auth(), self.fresh_key(), h("Content-Type", "application/json")]
        return "path and query", method, path, headers, body

    def bad_auth(self):
        choice = self.r.choice(["none", "garbage", "basic", "nul", "alg-none", "tampered", "empty", "lower"])
        values = {
            "garbage": "Bearer " + "x" * self.r.randint(1, 9000),
            "basic": "Basic YWRtaW46YWRtaW4tcGFzc3dvcmQ=",
            "nul": "Bearer \u0000" + self.tokens[0],
            "alg-none": "Bearer " + base64.urlsafe_b64encode(b'{"alg":"none"}').decode().rstrip("=") + "."
                        + base64.urlsafe_b64encode(b'{"sub":"admin"}').decode().rstrip("=") + ".",
            "tampered": "Bearer " + self.tokens[0][:-3] + "AAA",
            "empty": "Bearer ",
            "lower": "bearer",
        }
        headers = [self.fresh_key(), h("Content-Type", "application/json")]
        if choice in values:
            headers.append(h("Authorization", values[choice]))
        method, path, body = self.r.choice([("POST", "/api/orders", self.valid_order()),
                                            ("POST", f"/api/orders/{self.order_id}/payments",
                                             b'{"paymentMethodToken":"tok_success"}'),
                                            ("GET", "/api/orders", b""), ("GET", "/api/products", b"")])
        return "authorization", method, path, headers, body

    def bad_webhook(self):
        event_id = "evt_" + uuid.uuid4().hex
        valid_body = json.dumps({"id": event_id, "type": "payment.succeeded", "created": "2026-12-01T00:00:00Z",
                                 "data": {"object": {"id": "sbx_unknown", "status": "SUCCEEDED", "amount": "1.00",
                                                     "currency": "RUB"}}})
        choice = self.r.choice(["unsigned", "wrong-signature", "old", "garbage-signed", "shape-signed", "nul-signed",
                                "other-provider"])
        body = valid_body
        timestamp = int(time.time())
        if choice == "garbage-signed":
            body = self.r.choice(["{", "not json", "\u0000", "[]", "\ud800"])
        elif choice == "shape-signed":
            body = json.dumps(self.r.choice([{"id": event_id}, {"id": event_id, "type": "payment.exploded", "data": {}},
                                             {"id": event_id, "type": "payment.succeeded", "created": "yesterday",
                                              "data": {"object": {"id": "x", "status": "SUCCEEDED", "amount": "abc",
                                                                  "currency": "RUB"}}}, {"id": 5}]))
        elif choice == "nul-signed":
            body = valid_body.replace("sbx_unknown", "sbx_\u0000" if self.r.random() < 0.5 else "sbx_\ud800")
            body = body.replace("\\u0000", "\u0000") if self.r.random() < 0.5 else body
        elif choice == "old":
            timestamp -= 3600
        raw = encode(body)
        key = base64.b64decode(self.secret[len("whsec_"):])
        mac = hmac.new(key, f"{event_id}.{timestamp}.".encode() + raw, hashlib.sha256).digest()
        signature = "v1," + base64.b64encode(mac).decode()
        if choice == "wrong-signature":
            signature = "v1," + base64.b64encode(b"0" * 32).decode()
        headers = [h("Content-Type", "application/json")]
        if choice != "unsigned":
            headers += [h("webhook-id", event_id), h("webhook-timestamp", str(timestamp)), h("webhook-signature", signature)]
        provider = "stripe" if choice == "other-provider" else "sandbox"
        if provider == "stripe":
            headers.append(h("Stripe-Signature", "t=1,v1=00"))
        return "webhook", "POST", f"/webhooks/{provider}", headers, raw

    def bad_sandbox(self):
        body = encode(json.dumps(self.r.choice([{}, {"amount": "x"}, {"paymentMethodToken": self.nasty()}, []])))
        headers = [h("Content-Type", "application/json")]
        if self.r.random() < 0.5:
            headers.append(h("Idempotency-Key", self.r.choice(["", "\u0000", "x" * 300, "é"])))
        return "sandbox", "POST", "/sandbox/v1/payments", headers, body

    def bad_console(self):
        n = urllib.parse.quote(self.nasty()[:100], errors="surrogatepass")
        method, path = self.r.choice([
            ("GET", f"/console/search?q={n}"), ("GET", f"/console/operations?key={n}&status={n}&from={n}&to={n}"),
            ("GET", f"/console/operations?after={n}"), ("GET", f"/console/operations/{n or 'x'}"),
            ("GET", f"/console/users/{n or 'x'}"), ("GET", f"/console/webhooks?after={n}"),
            ("GET", f"/console/conflicts?user={n}&key={n}&after={n}"), ("GET", f"/console/outbox?status={n}&after={n}"),
            ("GET", f"/console/jobs?job={n}&after={n}"), ("GET", f"/console/audit?after={n}"),
            ("POST", "/console/jobs/retention-cleanup/run"), ("POST", f"/console/jobs/{n or 'x'}/run"),
            ("POST", f"/console/outbox/{n or '1'}/retry"),
        ])
        headers = [h("Authorization", "Basic " + self.console)]
        body = b""
        if method == "POST":
            headers.append(h("Content-Type", self.r.choice(["application/x-www-form-urlencoded", "application/json"])))
            body = encode("csrf-token=" + n)
        return "console", method, path, headers, body

    def oversized(self):
        headers = [self.auth(), self.fresh_key(), h("Content-Type", "application/json")]
        size = self.r.choice([64 * 1024 + 1, 200 * 1024, 1024 * 1024 + 10])
        body = b'{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB","pad":"' + b"x" * size + b'"}'
        if self.r.random() < 0.3:
            headers.append(h("X-Big", "y" * 20000))
            body = self.valid_order()
        return "size", "POST", "/api/orders", headers, body

    def part_a(self):
        generators = [self.bad_key, self.bad_order_body, self.bad_encoding, self.bad_payment_body, self.bad_path,
                      self.bad_auth, self.bad_webhook, self.bad_sandbox, self.bad_console, self.oversized]
        weights = [3, 5, 4, 3, 3, 2, 3, 1, 2, 1]
        return self.r.choices(generators, weights)[0]()

    # ---- part B: odd but valid ----

    def part_b(self):
        headers = [self.auth(self.r.randrange(len(self.tokens)))]
        key = "odd-" + str(uuid.uuid4())
        choice = self.r.choice(["request-id", "quoted-key", "charset", "escapes", "duplicate-field", "unknown-token",
                                "sold-out", "text-plain", "no-content-type", "utf-16"])
        body = self.valid_order()
        path = "/api/orders"
        content_type = "application/json"
        if choice == "request-id":
            headers.append(h("X-Request-Id", self.r.choice(NASTY[:14] + ["r" * 1000, "ok-id"])))
        elif choice == "quoted-key":
            key = f'"{key}"'
        elif choice == "charset":
            content_type = self.r.choice(["application/json; charset=utf-8", "application/json;charset=UTF-8",
                                          "application/json; charset=latin1"])
        elif choice == "escapes":
            body = b'{ "currency" : "\\u0052UB", "items" : [ { "quantity" : 1 , "productId" : "\\u0070-184" } ] }'
        elif choice == "duplicate-field":
            body = b'{"items":[{"productId":"p-184","quantity":1}],"currency":"USD","currency":"RUB"}'
        elif choice == "unknown-token":
            path = f"/api/orders/{self.order_id}/payments"
            body = encode(json.dumps({"paymentMethodToken": self.r.choice(["tok_unknown", "tok_", "pm_card_visa"])}))
        elif choice == "sold-out":
            body = b'{"items":[{"productId":"p-404","quantity":1}],"currency":"RUB"}'
        elif choice == "utf-16":
            body = body.decode().encode("utf-16")  # with its byte order mark, which JSON parsers may recognise
        elif choice == "text-plain":
            content_type = "text/plain"
        if choice != "no-content-type":
            headers.append(h("Content-Type", content_type))
        headers.append(h("Idempotency-Key", key))
        return "odd but valid: " + choice, "POST", path, headers, body


class BadInputRun:
    """Sends the generated requests from a few threads and tallies the answers."""

    def __init__(self, port, generator, count, threads=4):
        self.port = port
        self.generator = generator
        self.count = count
        self.threads = threads
        self.sent = 0
        self.by_status = {}
        self.server_errors = []
        self.accepted = []
        self.unanswered = 0
        self._lock = threading.Lock()

    def run(self, make_request, must_be_refused):
        requests = [make_request() for _ in range(self.count)]
        chunks = [requests[i::self.threads] for i in range(self.threads)]
        workers = [threading.Thread(target=self._send_all, args=(chunk, must_be_refused)) for chunk in chunks]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    def _send_all(self, requests, must_be_refused):
        for label, method, path, headers, body in requests:
            status, answer = raw_request(self.port, method, path, headers, body)
            with self._lock:
                self.sent += 1
                if status is None:
                    self.unanswered += 1
                    continue
                self.by_status[status] = self.by_status.get(status, 0) + 1
                if status >= 500:
                    self.server_errors.append((label, method, path[:80] if isinstance(path, str) else path, status,
                                               answer[:300]))
                elif must_be_refused and status < 400 and not (method == "GET" and status in (200, 302)):
                    self.accepted.append((label, method, path[:80], status, answer[:200]))

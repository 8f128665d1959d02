"""A TCP proxy that loses responses: for a share of connections it forwards the request, waits until the
upstream starts answering (so the request was processed) and then closes the client's connection without
passing a byte of the answer on. The client sees a reset or an empty reply and must retry with its key.

The suite's clients send one request per connection, so one connection is one request.
"""
import random
import socket
import threading


class LossyProxy:
    def __init__(self, listen_port, upstream_port, drop_share):
        self.listen_port = listen_port
        self.upstream_port = upstream_port
        self.drop_share = drop_share
        self.dropped = 0
        self.forwarded = 0
        self._lock = threading.Lock()
        self._server = None

    def start(self):
        self._server = socket.create_server(("127.0.0.1", self.listen_port), backlog=256, reuse_port=False)
        threading.Thread(target=self._accept, daemon=True, name="lossy-proxy").start()

    def stop(self):
        if self._server:
            self._server.close()

    def _accept(self):
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        drop = random.random() < self.drop_share
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=60)
        except OSError:
            client.close()
            return
        threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
        try:
            first = upstream.recv(65536)
            if drop and first:
                with self._lock:
                    self.dropped += 1
                return
            with self._lock:
                self.forwarded += 1
            data = first
            while data:
                client.sendall(data)
                data = upstream.recv(65536)
        except OSError:
            pass
        finally:
            # shutdown, not just close: the pump thread is still reading these sockets and would keep them open.
            for sock in (client, upstream):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    @staticmethod
    def _pump(source, target):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    target.shutdown(socket.SHUT_WR)
                    return
                target.sendall(data)
        except OSError:
            pass

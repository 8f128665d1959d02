"""The processes the fault suite runs and breaks: a private PostgreSQL, the replicas, HAProxy.

Everything lives under one work folder and is stopped by Cluster.stop(), also when the suite fails.
"""
import os
import shutil
import signal
import subprocess
import time
import urllib.request

PG_BIN = "/usr/lib/postgresql/15/bin"
HAPROXY = "/usr/sbin/haproxy"


def run_as_postgres(args, **kwargs):
    """initdb and pg_ctl refuse to run as root: run them as the postgres user then."""
    if os.geteuid() == 0:
        args = ["runuser", "-u", "postgres", "--"] + args
    return subprocess.run(args, check=True, **kwargs)


class Postgres:
    """A PostgreSQL instance of the suite's own (initdb into the work folder), so that restarting it
    breaks nobody else's database."""

    def __init__(self, workdir, port):
        self.datadir = os.path.join(workdir, "pgdata")
        self.logfile = os.path.join(workdir, "postgres.log")
        self.port = port
        self.restarts = 0

    def init(self):
        os.makedirs(self.datadir, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(os.path.dirname(self.datadir), "postgres")
            shutil.chown(self.datadir, "postgres")
        run_as_postgres([f"{PG_BIN}/initdb", "-D", self.datadir, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                         "--locale=C.UTF-8"], stdout=subprocess.DEVNULL)
        with open(os.path.join(self.datadir, "postgresql.conf"), "a") as conf:
            conf.write(f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.datadir}'\n"
                       "max_connections = 200\nshared_buffers = 64MB\nfsync = on\nsynchronous_commit = on\n")
        self.start()
        self.psql("CREATE DATABASE onceguard", db="postgres")

    def _ctl(self, *args):
        run_as_postgres([f"{PG_BIN}/pg_ctl", "-D", self.datadir, "-l", self.logfile, "-w", "-t", "60", *args],
                        stdout=subprocess.DEVNULL)

    def start(self):
        self._ctl("start")

    def restart(self, down_seconds):
        """What the 'database restart' fault does: a fast shutdown (every session is cut), down_seconds without a
        database, and a start."""
        self._ctl("stop", "-m", "fast")
        time.sleep(down_seconds)
        self.start()
        self.restarts += 1

    def stop(self):
        if os.path.exists(os.path.join(self.datadir, "postmaster.pid")):
            try:
                self._ctl("stop", "-m", "immediate")
            except subprocess.CalledProcessError:
                pass

    def psql(self, sql, db="onceguard"):
        """Runs sql and returns the rows as lists of strings (unaligned, tab-separated)."""
        out = subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", db,
                              "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                             check=True, capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line != ""]

    def scalar(self, sql):
        rows = self.psql(sql)
        return rows[0][0] if rows else None


class Replica:
    """One service process (java -jar of the private copy of the packaged app). A restart after kill -9 is a
    new incarnation with its own replica id, so job runs and metrics can be matched to one process."""

    def __init__(self, index, port, app_dir, workdir, env):
        self.index = index
        self.port = port
        self.app_dir = app_dir
        self.workdir = workdir
        self.env = env
        self.proc = None
        self.incarnation = 0
        self.logs = []

    @property
    def replica_id(self):
        return f"r{self.index}-{self.incarnation}"

    def start(self):
        self.incarnation += 1
        log_path = os.path.join(self.workdir, f"{self.replica_id}.log")
        self.logs.append(log_path)
        env = dict(os.environ, **self.env, QUARKUS_HTTP_PORT=str(self.port), ONCEGUARD_REPLICA_ID=self.replica_id)
        java_opts = os.environ.get("FAULT_JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1").split()
        with open(log_path, "w") as log:
            self.proc = subprocess.Popen(["java", *java_opts, "-jar", os.path.join(self.app_dir, "quarkus-run.jar")],
                                         cwd=self.workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def ready(self):
        """True when /q/health/ready says UP, False when it answers anything else, None when nothing answers."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/q/health/ready", timeout=2) as response:
                return response.status == 200
        except urllib.error.HTTPError:
            return False
        except OSError:
            return None

    def wait_ready(self, timeout=180):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if not self.alive():
                raise RuntimeError(f"replica {self.replica_id} exited; see {self.logs[-1]}")
            if self.ready():
                return
            time.sleep(0.3)
        raise RuntimeError(f"replica {self.replica_id} not ready after {timeout}s; see {self.logs[-1]}")

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/q/metrics", timeout=10) as response:
            return response.read().decode()


class HAProxy:
    """Round robin over the replicas, each checked on /q/health/ready every 500 ms: a killed or not-ready
    replica leaves the rotation within a second and comes back once ready."""

    def __init__(self, workdir, port, replicas):
        self.config = os.path.join(workdir, "haproxy.cfg")
        self.port = port
        self.replicas = replicas
        self.proc = None

    def start(self):
        servers = "\n".join(f"    server r{r.index} 127.0.0.1:{r.port} check inter 500ms fall 1 rise 1"
                            for r in self.replicas)
        with open(self.config, "w") as cfg:
            cfg.write(f"""global
    maxconn 2000
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 2
    option redispatch
frontend api
    bind 127.0.0.1:{self.port}
    # HAProxy's own 503 (no replica ready, as during a database failover) says when to retry, like the service's.
    http-after-response set-header Retry-After 1 if {{ status 503 }} !{{ res.hdr(retry-after) -m found }}
    default_backend replicas
backend replicas
    balance roundrobin
    option httpchk GET /q/health/ready
{servers}
""")
        self.proc = subprocess.Popen([HAPROXY, "-f", self.config, "-db"], stdout=subprocess.DEVNULL,
                                     stderr=open(self.config + ".log", "w"), start_new_session=True)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

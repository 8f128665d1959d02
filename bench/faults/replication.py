"""The database topologies of the failover and pooler phases: a primary with a streaming standby of its own, switched
over by the suite (SIGKILL, pg_ctl promote, pg_rewind), and PgBouncer in transaction mode in front of one server.

Every server lives in the suite's work folder, on ports of its own, and is stopped by stop(), also when the suite fails.
"""
import os
import shutil
import signal
import subprocess
import time

from cluster import PG_BIN, run_as_postgres

PGBOUNCER = "/usr/sbin/pgbouncer"

# The settings both nodes share (pg_basebackup and pg_rewind copy postgresql.conf from one node to the other, so what
# is node-specific, the port, is given on the command line instead).
SHARED_SETTINGS = """
listen_addresses = '127.0.0.1'
max_connections = 200
shared_buffers = 64MB
fsync = on
synchronous_commit = on
synchronous_standby_names = ''
wal_level = replica
max_wal_senders = 5
wal_keep_size = 512MB
wal_log_hints = on
hot_standby = on
wal_sender_timeout = 10s
wal_receiver_status_interval = 1s
"""


class Node:
    """One PostgreSQL server of the pair, primary or standby."""

    def __init__(self, workdir, name, port):
        self.name = name
        self.port = port
        self.datadir = os.path.join(workdir, f"pgdata-{name}")
        self.logfile = os.path.join(workdir, f"postgres-{name}.log")
        self.sockets = os.path.join(workdir, "sockets")

    def ctl(self, *args):
        run_as_postgres([f"{PG_BIN}/pg_ctl", "-D", self.datadir, "-l", self.logfile, "-w", "-t", "120", *args],
                        stdout=subprocess.DEVNULL)

    def start(self):
        self.ctl("start", "-o", f"-p {self.port} -k {self.sockets}")

    def running(self):
        return os.path.exists(os.path.join(self.datadir, "postmaster.pid"))

    def postmaster_pid(self):
        with open(os.path.join(self.datadir, "postmaster.pid")) as pid_file:
            return int(pid_file.readline())

    def kill9(self):
        """What a dead machine does to the server: every process of it ends at once (postmaster and backends), with
        no shutdown checkpoint and no chance to send the WAL a standby has not received yet."""
        postmaster = self.postmaster_pid()
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(postmaster)], capture_output=True,
                                  text=True).stdout.split()
        for pid in [postmaster, *map(int, children)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.time() + 10
        while time.time() < deadline and os.path.exists(f"/proc/{postmaster}"):
            time.sleep(0.05)

    def stop(self):
        if self.running():
            try:
                self.ctl("stop", "-m", "immediate")
            except subprocess.CalledProcessError:
                pass

    def psql(self, sql, db="onceguard"):
        out = subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", db,
                              "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                             check=True, capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line != ""]

    def follow(self, primary):
        """Makes this (stopped) node a standby of `primary`: standby.signal, and a primary_conninfo that names this
        node, so that the primary's synchronous_standby_names can name it (the later line of postgresql.auto.conf
        wins over one pg_basebackup or pg_rewind copied from the other node)."""
        with open(os.path.join(self.datadir, "postgresql.auto.conf"), "a") as auto:
            auto.write(f"primary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres "
                       f"application_name={self.name}'\n")
        signal_file = os.path.join(self.datadir, "standby.signal")
        open(signal_file, "w").close()
        if os.geteuid() == 0:
            shutil.chown(signal_file, "postgres", "postgres")


class ReplicatedPostgres:
    """A primary and a streaming standby of its own. psql() and scalar() go to whichever is the primary now, so the
    suite's checks read the database the service writes to."""

    def __init__(self, workdir, port, standby_port):
        self.workdir = workdir
        self.nodes = [Node(workdir, "pg_a", port), Node(workdir, "pg_b", standby_port)]
        self.primary, self.standby = self.nodes
        self.datadir = self.primary.datadir
        self.switches = []

    @property
    def port(self):
        return self.primary.port

    def init(self):
        os.makedirs(self.primary.sockets, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.workdir, "postgres")
            shutil.chown(self.primary.sockets, "postgres")
        run_as_postgres([f"{PG_BIN}/initdb", "-D", self.primary.datadir, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                         "--locale=C.UTF-8"], stdout=subprocess.DEVNULL)
        with open(os.path.join(self.primary.datadir, "postgresql.conf"), "a") as conf:
            conf.write(SHARED_SETTINGS)
        self.primary.start()
        self.primary.psql("CREATE DATABASE onceguard", db="postgres")
        run_as_postgres([f"{PG_BIN}/pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres",
                         "-D", self.standby.datadir, "-X", "stream", "-c", "fast"], stdout=subprocess.DEVNULL)
        self.standby.follow(self.primary)
        self.standby.start()
        self.wait_streaming()

    def psql(self, sql, db="onceguard"):
        return self.primary.psql(sql, db)

    def scalar(self, sql):
        rows = self.psql(sql)
        return rows[0][0] if rows else None

    def wait_streaming(self, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            rows = self.primary.psql("SELECT state FROM pg_stat_replication "
                                     f"WHERE application_name = '{self.standby.name}'", db="postgres")
            if rows and rows[0][0] == "streaming":
                return
            time.sleep(0.3)
        raise RuntimeError(f"standby {self.standby.name} not streaming after {timeout}s; see {self.standby.logfile}")

    def set_synchronous(self, synchronous):
        """synchronous_commit = on (the default) with the standby named in synchronous_standby_names: a commit is
        answered only once the standby has flushed its WAL. Empty: the standby is asynchronous."""
        names = self.standby.name if synchronous else ""
        self.primary.psql(f"ALTER SYSTEM SET synchronous_standby_names = '{names}'", db="postgres")
        self.primary.psql("SELECT pg_reload_conf()", db="postgres")
        self.synchronous = synchronous

    def fail_over(self, lag_seconds, promote_after):
        """The primary's machine dies; the standby is promoted; the old primary is rewound and rejoins as the new
        primary's standby (synchronous again if it was). Before the crash the WAL sender is held for lag_seconds, as a
        slow network between the two would: with a synchronous standby commits wait meanwhile, with an asynchronous
        one they are answered and their WAL is not on the standby when the primary dies.

        Returns what the switch measured: the WAL the standby never received, and the times of each step."""
        synchronous = getattr(self, "synchronous", False)
        old, new = self.primary, self.standby
        step = {"from": old.name, "to": new.name, "synchronous": synchronous}
        senders = old.psql("SELECT pid FROM pg_stat_replication", db="postgres")
        step["held_at"] = time.time()
        for (pid,) in senders:
            os.kill(int(pid), signal.SIGSTOP)
        time.sleep(lag_seconds)
        step["primary_lsn"] = old.psql("SELECT pg_current_wal_insert_lsn()", db="postgres")[0][0]
        old.kill9()
        step["killed_at"] = time.time()
        received = new.psql("SELECT pg_last_wal_receive_lsn()", db="postgres")[0][0]
        step["standby_lsn"] = received
        step["wal_not_on_standby"] = int(new.psql(
            f"SELECT greatest(pg_wal_lsn_diff('{step['primary_lsn']}', '{received}'), 0)::bigint", db="postgres")[0][0])
        time.sleep(promote_after)
        new.ctl("promote")
        step["promoted_at"] = time.time()
        # pg_rewind reads the source's timeline from its control file, which a promotion updates only with its first
        # checkpoint: without this one, a rewind right after a promotion finds "the same timeline", rewinds nothing,
        # and the old primary rejoins with commits the new one never had.
        new.psql("CHECKPOINT", db="postgres")
        # Alone, the new primary must not wait for a standby that is not there: it runs asynchronous until the old
        # primary is back (what Patroni's synchronous_mode does without synchronous_mode_strict).
        new.psql("ALTER SYSTEM SET synchronous_standby_names = ''", db="postgres")
        new.psql("SELECT pg_reload_conf()", db="postgres")
        self.primary, self.standby = new, old
        self.datadir = new.datadir
        run_as_postgres([f"{PG_BIN}/pg_rewind", "-D", old.datadir, "--source-server",
                         f"host=127.0.0.1 port={new.port} user=postgres dbname=postgres"],
                        stdout=open(old.logfile + ".rewind", "a"), stderr=subprocess.STDOUT)
        old.follow(new)
        old.start()
        self.wait_streaming()
        step["rejoined_at"] = time.time()
        self.set_synchronous(synchronous)
        self.switches.append(step)
        return step

    def stop(self):
        for node in self.nodes:
            node.stop()


class PgBouncer:
    """PgBouncer (Debian's 1.18) in transaction mode in front of one PostgreSQL: a server connection is the client's
    for one transaction only, so no session state may outlive a transaction and, before 1.21, no named prepared
    statement either (the service's URL says prepareThreshold=0)."""

    def __init__(self, workdir, port, postgres_port, pool_size=20):
        self.workdir = workdir
        self.port = port
        self.postgres_port = postgres_port
        self.pool_size = pool_size
        self.config = os.path.join(workdir, "pgbouncer.ini")
        self.logfile = os.path.join(workdir, "pgbouncer.log")
        self.proc = None

    def start(self):
        users = os.path.join(self.workdir, "pgbouncer-users.txt")
        with open(users, "w") as f:
            f.write('"postgres" ""\n')
        with open(self.config, "w") as cfg:
            cfg.write(f"""[databases]
onceguard = host=127.0.0.1 port={self.postgres_port} dbname=onceguard
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {users}
pool_mode = transaction
default_pool_size = {self.pool_size}
max_client_conn = 300
ignore_startup_parameters = extra_float_digits
server_reset_query =
server_check_delay = 1
server_connect_timeout = 3
server_login_retry = 1
admin_users = postgres
logfile = {self.logfile}
""")
        for path in (users, self.config):
            if os.geteuid() == 0:
                shutil.chown(path, "postgres")
        args = [PGBOUNCER, self.config]
        if os.geteuid() == 0:
            args = ["runuser", "-u", "postgres", "--"] + args
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.time() + 20
        while time.time() < deadline:
            if subprocess.run([f"{PG_BIN}/pg_isready", "-h", "127.0.0.1", "-p", str(self.port), "-d", "onceguard"],
                              capture_output=True).returncode in (0, 1):
                return
            time.sleep(0.2)
        raise RuntimeError(f"PgBouncer not listening on {self.port}; see {self.logfile}")

    def show(self, what):
        """One SHOW command of PgBouncer's admin console, as a list of rows (dicts by column name)."""
        out = subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                              "-d", "pgbouncer", "-X", "-q", "-A", "-F", "\t", "-P", "footer=off", "-c", f"SHOW {what}"],
                             check=True, capture_output=True, text=True).stdout.splitlines()
        header = out[0].split("\t") if out else []
        return [dict(zip(header, line.split("\t"))) for line in out[1:]]

    def totals(self):
        """The onceguard database's running totals: transactions, queries and the microseconds spent in them and
        waiting for a server connection."""
        for row in self.show("STATS"):
            if row.get("database") == "onceguard":
                return {k: int(row[k]) for k in ("total_xact_count", "total_query_count", "total_xact_time",
                                                 "total_query_time", "total_wait_time")}
        return None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

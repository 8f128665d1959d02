#!/usr/bin/env bash
# Fault suite: 3 replicas of the packaged jar behind HAProxy, on a PostgreSQL of the suite's own, broken on purpose
# (bad input, kill -9, lost responses, database restarts, webhook storms) while clients create and pay orders;
# then the invariants, checked through the API and in the database, and one table. See bench/README.md.
#
#   bash bench/fault-suite.sh                      # 12–25 min on 2 cores shared with 7 builds (load 30+)
#   FAULT_DURATION=15 FAULT_KILLS=5 FAULT_BAD_REQUESTS=500 bash bench/fault-suite.sh   # a short run
#   FAULT_PHASES=failover bash bench/fault-suite.sh   # primary + streaming standby, failed over and back (sync, async)
#   FAULT_PHASES=pooler bash bench/fault-suite.sh     # PgBouncer 1.18 in transaction mode in front of PostgreSQL
#   FAULT_PHASES=main,failover,pooler bash bench/fault-suite.sh   # all three, one after the other
#
# Knobs: FAULT_DURATION (45 s of load per phase), FAULT_CLIENTS (6), FAULT_KILLS (20), FAULT_DB_RESTARTS (3),
# FAULT_DB_DOWN (3 s), FAULT_DROP_SHARE (0.2), FAULT_BAD_REQUESTS (3000), FAULT_SEED (16), FAULT_PORT_BASE (18190:
# HAProxy, +2 PostgreSQL, +3 lossy proxy, +4..+6 replicas), FAULT_REBUILD (1; 0 uses the jar that is there),
# FAULT_JAVA_OPTS, FAULT_KEEP (0; 1 keeps the work folder with its logs and database).
# FAULT_PHASES (main): which topologies run, comma-separated, each with servers of its own: main (the phases above),
# failover (FAULT_FAILOVER_LAG 1 s of WAL held before each kill, FAULT_PROMOTE_AFTER 1 s), pooler (needs pgbouncer).
# FAULT_PG_PORT (base +2), FAULT_STANDBY_PORT (base +7), FAULT_PGBOUNCER_PORT (base +8), FAULT_PROVIDER_PG_PORT and
# FAULT_PROVIDER_PORT (base +9, +10: the failover topology's payment provider, outside the failed-over database), FAULT_WORK_PREFIX
# (/tmp/onceguard-faults).
# Exit status 0 only when every invariant holds (the asynchronous failover's losses are reported, not counted).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PG_BIN=/usr/lib/postgresql/15/bin
PHASES=${FAULT_PHASES:-main}
TOOLS=(java python3 /usr/sbin/haproxy "$PG_BIN/initdb" "$PG_BIN/pg_ctl" "$PG_BIN/psql")
[[ ",$PHASES," == *,failover,* ]] && TOOLS+=("$PG_BIN/pg_basebackup" "$PG_BIN/pg_rewind")
[[ ",$PHASES," == *,pooler,* ]] && TOOLS+=(/usr/sbin/pgbouncer)
for tool in "${TOOLS[@]}"; do
    command -v "$tool" >/dev/null || { echo "fault-suite: $tool not found" >&2; exit 2; }
done

if [[ "${FAULT_REBUILD:-1}" == 1 || ! -f target/quarkus-app/quarkus-run.jar ]]; then
    echo "packaging: ./mvnw -B -q package -DskipTests"
    ./mvnw -B -q package -DskipTests
fi

WORK=$(mktemp -d "${FAULT_WORK_PREFIX:-/tmp/onceguard-faults}.XXXXXX")
chmod 755 "$WORK"   # the servers run as the postgres user when the suite runs as root
cleanup() {
    if [[ "${FAULT_KEEP:-0}" == 1 ]]; then echo "work folder kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
# A private copy of the app, so that a concurrent `mvn package` cannot swap the jar under the replicas.
cp -rp target/quarkus-app "$WORK/app"
echo "jar built $(date -u -r "$WORK/app/quarkus-run.jar" +%FT%TZ), work folder $WORK"
status=0
for topology in ${PHASES//,/ }; do
    mkdir "$WORK/$topology"
    python3 bench/faults/suite.py --topology "$topology" --workdir "$WORK/$topology" --app-dir "$WORK/app" \
        --bench-dir "$ROOT/bench" || status=1
done
exit $status

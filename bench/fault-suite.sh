#!/usr/bin/env bash
# Fault suite: 3 replicas of the packaged jar behind HAProxy, on a PostgreSQL of the suite's own, broken on purpose
# (bad input, kill -9, lost responses, database restarts, webhook storms) while clients create and pay orders;
# then the invariants, checked through the API and in the database, and one table. See bench/README.md.
#
#   bash bench/fault-suite.sh                      # ≈ 8 min on 2 cores
#   FAULT_DURATION=15 FAULT_KILLS=5 FAULT_BAD_REQUESTS=500 bash bench/fault-suite.sh   # a short run
#
# Knobs: FAULT_DURATION (45 s of load per phase), FAULT_CLIENTS (6), FAULT_KILLS (20), FAULT_DB_RESTARTS (3),
# FAULT_DB_DOWN (3 s), FAULT_DROP_SHARE (0.2), FAULT_BAD_REQUESTS (3000), FAULT_SEED (16), FAULT_PORT_BASE (18190:
# HAProxy, +2 PostgreSQL, +3 lossy proxy, +4..+6 replicas), FAULT_REBUILD (1; 0 uses the jar that is there),
# FAULT_JAVA_OPTS, FAULT_KEEP (0; 1 keeps the work folder with its logs and database).
# Exit status 0 only when every invariant holds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PG_BIN=/usr/lib/postgresql/15/bin
for tool in java python3 /usr/sbin/haproxy "$PG_BIN/initdb" "$PG_BIN/pg_ctl" "$PG_BIN/psql"; do
    command -v "$tool" >/dev/null || { echo "fault-suite: $tool not found" >&2; exit 2; }
done

if [[ "${FAULT_REBUILD:-1}" == 1 || ! -f target/quarkus-app/quarkus-run.jar ]]; then
    echo "packaging: ./mvnw -B -q package -DskipTests"
    ./mvnw -B -q package -DskipTests
fi

WORK=$(mktemp -d /tmp/onceguard-faults.XXXXXX)
cleanup() {
    if [[ "${FAULT_KEEP:-0}" == 1 ]]; then echo "work folder kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
# A private copy of the app, so that a concurrent `mvn package` cannot swap the jar under the replicas.
cp -r target/quarkus-app "$WORK/app"
echo "jar built $(date -u -r "$WORK/app/quarkus-run.jar" +%FT%TZ), work folder $WORK"
python3 bench/faults/suite.py --workdir "$WORK" --app-dir "$WORK/app" --bench-dir "$ROOT/bench"

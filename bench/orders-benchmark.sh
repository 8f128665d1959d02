#!/usr/bin/env bash
# Load benchmark of order creation: (a) new keys through the service, (b) replays through the service,
# (c) the same SQL straight into PostgreSQL with pgbench (the database ceiling), plus the service's RSS
# after 100,000 orders. See bench/README.md. Run from anywhere: bash bench/orders-benchmark.sh
#
# Knobs (environment): BENCH_DURATION (25 s per wrk run), BENCH_WARMUP (20 s), BENCH_CONNS ("1 8 32"),
# BENCH_PG_DURATION (20 s per pgbench run), BENCH_USERS (16), BENCH_REPLAY_KEYS (200),
# BENCH_TARGET_ORDERS (100000), BENCH_PORT (18080, another free one if taken), BENCH_DB (bench),
# BENCH_JAVA_OPTS (-XX:MaxRAM=768m -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5 -XX:+UseSerialGC -Dquarkus.http.io-threads=2, what the Helm chart's JVM sees in its 768Mi container), BENCH_REBUILD (0; 1 = package even if the jar exists),
# BENCH_KEEP_DB (1 = leave the database for inspection; 0 = drop it at the end),
# BENCH_OTHER_LIMIT (0.25: rows measured while other processes used more cores are marked *),
# BENCH_WAIT_QUIET (0; N = first wait up to N s until the machine is < 30 % busy over 5 s),
# BENCH_JFR (0; 1 = record a JFR CPU profile of the service during (a) at 8 connections and summarize it),
# PGHOST/PGPORT/PGUSER (127.0.0.1/5432/postgres, trust auth).
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
DURATION=${BENCH_DURATION:-25}
WARMUP=${BENCH_WARMUP:-20}
BENCH_JAVA_OPTS=${BENCH_JAVA_OPTS--XX:MaxRAM=768m -XX:MaxRAMPercentage=25 -XX:InitialRAMPercentage=12.5 -XX:+UseSerialGC -Dquarkus.http.io-threads=2}
CONNS=${BENCH_CONNS:-"1 8 32"}
PG_DURATION=${BENCH_PG_DURATION:-20}
USERS=${BENCH_USERS:-16}
REPLAY_KEYS=${BENCH_REPLAY_KEYS:-200}
TARGET_ORDERS=${BENCH_TARGET_ORDERS:-100000}
PORT=${BENCH_PORT:-18080}
DB=${BENCH_DB:-bench}
KEEP_DB=${BENCH_KEEP_DB:-1}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
ISSUER=https://onceguard.bench
RUN_TAG=r$(date -u +%Y%m%d%H%M%S)
RESULTS=$BENCH_DIR/results/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$RESULTS"
exec > >(tee -a "$RESULTS/console.log") 2>&1

SVC_PID=""
TOP_PID=""
cleanup() {
    local rc=$?
    if [[ -n "$TOP_PID" ]] && kill -0 "$TOP_PID" 2>/dev/null; then kill "$TOP_PID" 2>/dev/null || true; fi
    stop_service
    [[ -n "${APP:-}" && -d "$APP" ]] && rm -rf "$APP"
    if [[ "$KEEP_DB" == 0 ]]; then
        psql -d postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
    fi
    exit "$rc"
}
stop_service() {
    if [[ -n "$SVC_PID" ]] && kill -0 "$SVC_PID" 2>/dev/null; then
        kill -TERM "$SVC_PID" 2>/dev/null || true
        for _ in $(seq 40); do kill -0 "$SVC_PID" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$SVC_PID" 2>/dev/null; then kill -KILL "$SVC_PID" 2>/dev/null || true; fi
        wait "$SVC_PID" 2>/dev/null || true
    fi
    SVC_PID=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '\n== %s  %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }
kv() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2" | head -1; }   # value of key=value in a line
sql() { psql -d "$DB" -v ON_ERROR_STOP=1 -qAtc "$1"; }
min() { (( $1 < $2 )) && echo "$1" || echo "$2"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

# ---------------------------------------------------------------- tools
log "tools"
command -v wrk >/dev/null || { apt-get install -y wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk; }; }
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1 || true)
[[ -x "$PGBENCH" ]] || die "pgbench not found (apt-get install postgresql-client or postgresql-contrib)"
for t in psql curl python3 java /usr/bin/time; do command -v "$t" >/dev/null || die "$t not found"; done
echo "wrk: $(wrk -v 2>&1 | head -1)"; echo "pgbench: $($PGBENCH --version)"
echo "java: $(java -version 2>&1 | head -1)"; echo "cores: $(nproc)  memory: $(free -m | awk '/Mem:/{print $2}') MB"
echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo n/a)$(git -C "$ROOT" diff --quiet HEAD -- src pom.xml 2>/dev/null || echo ' (src/pom modified)')"
machine_busy_pct() {  # busy % of all cores over $1 seconds
    local a b; a=$(head -1 /proc/stat); sleep "$1"; b=$(head -1 /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x); split(b, y); for (i = 2; i <= 9; i++) { t += y[i] - x[i]; if (i == 5 || i == 6) idle += y[i] - x[i] }
        printf "%d", (t > 0 ? 100 * (t - idle) / t : 0) }'
}
if (( ${BENCH_WAIT_QUIET:-0} > 0 )); then
    waited=0
    until (( $(machine_busy_pct 5) < 30 )) || (( waited >= BENCH_WAIT_QUIET )); do waited=$((waited + 5)); done
    echo "waited ${waited}s for a quiet machine (now $(machine_busy_pct 2)% busy)"
fi
LOAD_BEFORE=$(uptime)
echo "load before: $LOAD_BEFORE"

# ---------------------------------------------------------------- build
JAR=$ROOT/target/quarkus-app/quarkus-run.jar
if [[ ! -f "$JAR" || "${BENCH_REBUILD:-0}" == 1 ]]; then
    log "building the packaged jar"
    (cd "$ROOT" && ./mvnw -B -q package -DskipTests)
fi
[[ -f "$JAR" ]] || die "$JAR missing after the build"
# run a private copy: target/ is shared, and a concurrent `mvn package` must not swap jars under the running JVM
APP=$RESULTS/quarkus-app
cp -a "$ROOT/target/quarkus-app" "$APP"
echo "app: copy of target/quarkus-app built $(date -u -r "$JAR" +%Y-%m-%dT%H:%M:%SZ) (deleted at exit)"

# ---------------------------------------------------------------- database
log "database $DB on $PGHOST:$PGPORT (dropped and recreated)"
if ! pg_isready -q -h "$PGHOST" -p "$PGPORT"; then
    command -v pg_ctlcluster >/dev/null && pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    for _ in $(seq 20); do pg_isready -q -h "$PGHOST" -p "$PGPORT" && break; sleep 0.5; done
fi
psql -d postgres -v ON_ERROR_STOP=1 -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
psql -d postgres -qAtc "SELECT 'postgres ' || current_setting('server_version') || ', shared_buffers=' || current_setting('shared_buffers') || ', synchronous_commit=' || current_setting('synchronous_commit') || ', fsync=' || current_setting('fsync') || ', max_connections=' || current_setting('max_connections')"
PG_DATA=$(psql -d postgres -qAtc "SHOW data_directory" 2>/dev/null || true)
POSTMASTER_PID=$(head -1 "$PG_DATA/postmaster.pid" 2>/dev/null || echo 0)

# ---------------------------------------------------------------- service
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_busy "$PORT"; then
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
URL=http://127.0.0.1:$PORT
log "starting the service on $URL (log: ${RESULTS#"$ROOT"/}/service.log)"
(
    cd "$ROOT"
    export QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://$PGHOST:$PGPORT/$DB" QUARKUS_DATASOURCE_USERNAME="$PGUSER" \
        QUARKUS_HTTP_PORT="$PORT" SMALLRYE_JWT_VERIFY_KEY_LOCATION="$BENCH_DIR/bench-hs256.jwk" \
        SMALLRYE_JWT_VERIFY_ALGORITHM=HS256 MP_JWT_VERIFY_ISSUER="$ISSUER" MP_JWT_VERIFY_AUDIENCES="https://onceguard.bench/api" ONCEGUARD_CATALOG_DEMO=true
    # shellcheck disable=SC2086
    exec java ${BENCH_JAVA_OPTS} -jar "$APP/quarkus-run.jar"
) > "$RESULTS/service.log" 2>&1 &
SVC_PID=$!
started=$(date +%s.%N)
for _ in $(seq 240); do
    kill -0 "$SVC_PID" 2>/dev/null || { tail -30 "$RESULTS/service.log"; die "the service exited during start"; }
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/q/health/ready")" == 200 ]] && break
    sleep 0.5
done
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/q/health/ready")" == 200 ]] || { tail -30 "$RESULTS/service.log"; die "not ready after 120 s"; }
echo "ready after $(calc '%.1f' "$(date +%s.%N) - $started") s, pid $SVC_PID, RSS at start $(awk '/VmRSS/{print int($2/1024)}' /proc/$SVC_PID/status) MB"

# ---------------------------------------------------------------- tokens
TOKENS=$RESULTS/tokens.txt
python3 "$BENCH_DIR/make-tokens.py" --users "$USERS" --issuer "$ISSUER" --jwk "$BENCH_DIR/bench-hs256.jwk" > "$TOKENS"
mapfile -t TOKEN < "$TOKENS"
echo "$USERS bench users (bench-user-000..), requests spread round-robin over their tokens"
export BENCH_DIR BENCH_TOKENS=$TOKENS BENCH_RUN_TAG=$RUN_TAG BENCH_REPLAY_KEYS=$REPLAY_KEYS
BODY='{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}'
post_order() {  # user index, key, extra curl args...
    local user=$1 key=$2; shift 2
    curl -s -X POST "$URL/api/orders" -H "Authorization: Bearer ${TOKEN[$user]}" -H "Idempotency-Key: $key" \
        -H 'Content-Type: application/json' --data-binary "$BODY" "$@"
}
smoke=$(post_order 0 "$RUN_TAG-smoke" -o "$RESULTS/smoke.json" -w '%{http_code}')
[[ "$smoke" == 201 ]] || { cat "$RESULTS/smoke.json"; tail -30 "$RESULTS/service.log"; die "smoke POST /api/orders answered $smoke"; }
echo "smoke order: 201, response body $(wc -c < "$RESULTS/smoke.json") bytes"

# ---------------------------------------------------------------- runners
declare -A R   # results: R[<what>,<conns>,<field>]
declare -a CPU_ROWS=()

top_later() {  # file, delay: a top frame from the middle of a run (second frame = CPU over 1 s)
    ( sleep "$2"; top -b -n2 -d1 -w 220 | awk '/^top -/{n++} n==2' | head -25 > "$1" ) &
    TOP_PID=$!
}
cpu_account() {  # label conns seconds before after client_cpu requests
    local d; d=$(python3 "$BENCH_DIR/cpu-snapshot.py" diff "$4" "$5" "$3" "$6" "$7")
    read -r sc pc cc oc busy sms pms <<<"$d"
    LAST_OTHER=$oc
    CPU_ROWS+=("| $1 | $2 | $sc | $pc | $cc | $oc | $busy | $sms | $pms |")
}
OTHER_LIMIT=${BENCH_OTHER_LIMIT:-0.25}
disturbed() { awk -v o="$1" -v l="$OTHER_LIMIT" 'BEGIN { if (o > l) printf "*" }'; }  # foreign CPU above the limit
snap() { python3 "$BENCH_DIR/cpu-snapshot.py" snap "${SVC_PID:-0}" "$POSTMASTER_PID"; }

run_wrk() {  # what(a|b|warmup|topup) script conns seconds
    local what=$1 script=$2 conns=$3 secs=$4 threads out before after line
    threads=$(min "$conns" 2)
    out=$RESULTS/wrk-$what-c$conns.txt
    [[ "$what" == a || "$what" == b ]] && psql -d "$DB" -qc CHECKPOINT
    [[ "$what" == a || "$what" == b ]] && [[ "$conns" -ge 8 ]] && top_later "$RESULTS/top-$what-c$conns.txt" $((secs / 2))
    local jfr=""
    if [[ "${BENCH_JFR:-0}" == 1 && "$what" == a && "$conns" == 8 ]] && command -v jcmd >/dev/null; then
        jfr=$RESULTS/service-a-c$conns.jfr
        jcmd "$SVC_PID" JFR.start name=bench settings=profile filename="$jfr" >/dev/null
    fi
    before=$(snap)
    /usr/bin/time -f '%U %S' -o "$RESULTS/.client-cpu" \
        wrk -t "$threads" -c "$conns" -d "${secs}s" --timeout 10s --latency -s "$BENCH_DIR/wrk/$script" "$URL/api/orders" > "$out" 2>&1 \
        || { cat "$out"; die "wrk failed"; }
    after=$(snap)
    if [[ -n "$jfr" ]]; then
        jcmd "$SVC_PID" JFR.stop name=bench >/dev/null
        python3 "$BENCH_DIR/jfr-top.py" "$jfr" 25 > "$RESULTS/jfr-a-c$conns.txt" 2>&1 || true
    fi
    [[ -n "$TOP_PID" ]] && { wait "$TOP_PID" 2>/dev/null || true; TOP_PID=""; }
    kill -0 "$SVC_PID" 2>/dev/null || { tail -50 "$RESULTS/service.log"; die "the service died during $what c=$conns"; }
    line=$(grep '^BENCH_RESULT' "$out" || true)
    [[ -n "$line" ]] || { cat "$out"; die "no BENCH_RESULT from wrk"; }
    R[$what,$conns,rps]=$(kv rps "$line"); R[$what,$conns,p50]=$(kv p50_ms "$line"); R[$what,$conns,p99]=$(kv p99_ms "$line")
    R[$what,$conns,requests]=$(kv requests "$line"); R[$what,$conns,non2xx]=$(kv non2xx "$line")
    R[$what,$conns,unexpected]=$(kv unexpected "$line")
    R[$what,$conns,sockerr]=$(( $(kv connect_err "$line") + $(kv read_err "$line") + $(kv write_err "$line") + $(kv timeouts "$line") ))
    printf '%-7s c=%-3s t=%s %3ss: %8s req/s  p50 %7s ms  p99 %8s ms  requests %-7s non-2xx %s  unexpected %s  socket errors %s\n' \
        "$what" "$conns" "$threads" "$secs" "${R[$what,$conns,rps]}" "${R[$what,$conns,p50]}" "${R[$what,$conns,p99]}" \
        "${R[$what,$conns,requests]}" "${R[$what,$conns,non2xx]}" "${R[$what,$conns,unexpected]}" "${R[$what,$conns,sockerr]}"
    grep '^BENCH_UNEXPECTED' "$out" | head -3 || true
    cpu_account "$what" "$conns" "$secs" "$before" "$after" "$(awk '{print $1 + $2}' "$RESULTS/.client-cpu")" "${R[$what,$conns,requests]}"
    R[$what,$conns,mark]=$(disturbed "$LAST_OTHER")
}

# ---------------------------------------------------------------- (a) new keys
log "(a) new-key order creation: warm-up ${WARMUP}s at 8 connections, then ${DURATION}s at each of: $CONNS"
run_wrk warmup new-orders.lua 8 "$WARMUP"
for c in $CONNS; do run_wrk a new-orders.lua "$c" "$DURATION"; done

# ---------------------------------------------------------------- (b) replays
log "(b) replays: creating $REPLAY_KEYS orders with known keys (key i by bench-user i % $USERS)"
failed=0
for ((i = 0; i < REPLAY_KEYS; i++)); do
    code=$(post_order $((i % USERS)) "$(printf '%s-replay-%04d' "$RUN_TAG" "$i")" -o /dev/null -w '%{http_code}')
    [[ "$code" == 201 ]] || failed=$((failed + 1))
done
((failed == 0)) || die "$failed of $REPLAY_KEYS seed orders were not 201"
replay_header=$(post_order 0 "$(printf '%s-replay-%04d' "$RUN_TAG" 0)" -D - -o /dev/null | tr -d '\r' | grep -i '^Idempotent-Replayed:' || true)
[[ "${replay_header,,}" == "idempotent-replayed: true" ]] || die "a replay did not carry Idempotent-Replayed: true (got '$replay_header')"
orders_before_b=$(sql "SELECT count(*) FROM orders")
run_wrk warmup-b replays.lua 8 5
for c in $CONNS; do run_wrk b replays.lua "$c" "$DURATION"; done
orders_after_b=$(sql "SELECT count(*) FROM orders")
replays_recorded=$(sql "SELECT coalesce(sum(replay_count), 0) FROM idempotency_records WHERE idempotency_key LIKE '$RUN_TAG-replay-%'")
echo "orders before/after the replay runs: $orders_before_b / $orders_after_b (must be equal); replays recorded on the $REPLAY_KEYS records: $replays_recorded"
((orders_before_b == orders_after_b)) || echo "WARNING: replays created orders"

# ---------------------------------------------------------------- RSS after 100,000 orders
orders=$(sql "SELECT count(*) FROM orders")
log "RSS: $orders orders so far, topping up to $TARGET_ORDERS"
rate=${R[a,8,rps]:-100}
for n in $(seq 40); do   # chunks of at most 120 s, each sized by the rate of the chunk before
    ((orders >= TARGET_ORDERS)) && break
    secs=$(calc '%d' "($TARGET_ORDERS - $orders) / ($rate > 1 ? $rate : 1) * 1.05 + 2")
    ((secs > 120)) && secs=120; ((secs < 5)) && secs=5
    run_wrk topup$n new-orders.lua 8 "$secs"
    rate=${R[topup$n,8,rps]}
    orders=$(sql "SELECT count(*) FROM orders")
done
RSS_MB=$(awk '/VmRSS/{printf "%d", $2/1024}' "/proc/$SVC_PID/status")
HWM_MB=$(awk '/VmHWM/{printf "%d", $2/1024}' "/proc/$SVC_PID/status")
MAXHEAP_MB=$(java ${BENCH_JAVA_OPTS} -XX:+PrintFlagsFinal -version 2>/dev/null | awk '$2 == "MaxHeapSize" {printf "%d", $4/1048576}')
LIVE_HEAP="n/a"
if command -v jcmd >/dev/null; then
    # heap as the JVM holds it, then what is still live after a full GC (a leak would show here)
    { jcmd "$SVC_PID" GC.heap_info; jcmd "$SVC_PID" GC.run; echo "after GC.run:"; jcmd "$SVC_PID" GC.heap_info; } > "$RESULTS/heap-info.txt" 2>&1 || true
    LIVE_HEAP=$(awk '/after GC.run/{f=1} f && /garbage-first heap|total .*used/{for(i=1;i<=NF;i++) if($i=="used"){v=$(i+1); sub(/K.*/,"",v); printf "%d MB", v/1024; exit}}' "$RESULTS/heap-info.txt")
fi
COMMITTED_HEAP=$(awk '/total .*used/{for(i=1;i<=NF;i++) if($i=="total"){v=$(i+1); sub(/K.*/,"",v); printf "%d MB", v/1024; exit}}' "$RESULTS/heap-info.txt" 2>/dev/null || echo n/a)
echo "orders: $orders; service VmRSS $RSS_MB MB (peak VmHWM $HWM_MB MB); JVM heap committed $COMMITTED_HEAP of max $MAXHEAP_MB MB, live after full GC $LIVE_HEAP (BENCH_JAVA_OPTS='${BENCH_JAVA_OPTS}')"
if grep -qE ' (ERROR|WARN) ' "$RESULTS/service.log"; then
    echo "service log ERROR/WARN lines (first 10):"; grep -E ' (ERROR|WARN) ' "$RESULTS/service.log" | head -10
fi
log "stopping the service"
stop_service

# ---------------------------------------------------------------- (c) database ceiling
run_pgbench() {  # what(c|cr = the replay SQL, shown as c') sql-file clients seconds extra-args...
    local what=$1 file=$2 c=$3 secs=$4 j out before after p50 p99; shift 4
    j=$(min "$c" 2); out=$RESULTS/pgbench-$what-c$c.txt
    psql -d "$DB" -qc CHECKPOINT
    [[ "$c" -ge 8 ]] && top_later "$RESULTS/top-$what-c$c.txt" $((secs / 2))
    rm -f "$RESULTS"/pgbench-log-"$what"-c"$c".*
    before=$(snap)
    /usr/bin/time -f '%U %S' -o "$RESULTS/.client-cpu" \
        "$PGBENCH" -n -f "$file" "$@" -c "$c" -j "$j" -T "$secs" -M prepared \
        -l --log-prefix="$RESULTS/pgbench-log-$what-c$c" "$DB" > "$out" 2>&1 || { cat "$out"; die "pgbench failed"; }
    sleep 0.5
    after=$(snap)
    [[ -n "$TOP_PID" ]] && { wait "$TOP_PID" 2>/dev/null || true; TOP_PID=""; }
    R[$what,$c,tps]=$(sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p' "$out")
    R[$what,$c,avg]=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$out")
    R[$what,$c,tx]=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out")
    R[$what,$c,failed]=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out")
    read -r p50 p99 < <(cat "$RESULTS"/pgbench-log-"$what"-c"$c".* | python3 -c '
import sys
v = sorted(int(l.split()[2]) for l in sys.stdin if len(l.split()) > 2 and l.split()[2].isdigit())
pick = lambda q: v[min(len(v) - 1, int(q * len(v)))] / 1000 if v else float("nan")
print("%.2f %.2f" % (pick(0.50), pick(0.99)))')
    rm -f "$RESULTS"/pgbench-log-"$what"-c"$c".*
    R[$what,$c,p50]=$p50; R[$what,$c,p99]=$p99
    local shown=$what; [[ "$what" == cr ]] && shown="c'"
    printf '%-7s c=%-3s j=%s %3ss: %8.1f tps    p50 %7s ms  p99 %8s ms  avg %s ms  transactions %s  failed %s\n' \
        "$shown" "$c" "$j" "$secs" "${R[$what,$c,tps]}" "$p50" "$p99" "${R[$what,$c,avg]}" "${R[$what,$c,tx]}" "${R[$what,$c,failed]:-?}"
    cpu_account "$shown" "$c" "$secs" "$before" "$after" "$(awk '{print $1 + $2}' "$RESULTS/.client-cpu")" "${R[$what,$c,tx]}"
    R[$what,$c,mark]=$(disturbed "$LAST_OTHER")
}
log "(c) pgbench, order-creation SQL: warm-up 5s at 8 clients, then ${PG_DURATION}s at each of: $CONNS (service stopped)"
NEW_KEYS=4611686018427387903  # pgbench/post-order.sql draws its keys from this many: every order is a new one
"$PGBENCH" -n -f "$BENCH_DIR/pgbench/post-order.sql" -c 8 -j 2 -T 5 -M prepared -D prefix="$RUN_TAG-pgbench-warm-" \
    -D keys=$NEW_KEYS "$DB" > "$RESULTS/pgbench-warmup.txt" 2>&1 || { cat "$RESULTS/pgbench-warmup.txt"; die "pgbench failed"; }
for c in $CONNS; do
    run_pgbench c "$BENCH_DIR/pgbench/post-order.sql" "$c" "$PG_DURATION" -D prefix="$RUN_TAG-pgbench-c$c-" -D keys=$NEW_KEYS
done
log "(c') pgbench, replay SQL on the $REPLAY_KEYS keys of (b): ${PG_DURATION}s at each of: $CONNS"
for c in $CONNS; do
    run_pgbench cr "$BENCH_DIR/pgbench/post-order.sql" "$c" "$PG_DURATION" -D prefix="$RUN_TAG-replay-" -D keys="$REPLAY_KEYS"
done
LOAD_AFTER=$(uptime)

# ---------------------------------------------------------------- report
{
    echo
    echo "## onceguard order benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk ${DURATION}s / pgbench ${PG_DURATION}s per row"
    echo
    echo "| clients | (a) req/s | (a) p50 ms | (a) p99 ms | (b) req/s | (b) p50 ms | (b) p99 ms | (c) tps | (a)/(c) | (b)/(a) |"
    echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    for c in $CONNS; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %.1f%s | %s | %s |\n' "$c" \
            "${R[a,$c,rps]}${R[a,$c,mark]}" "${R[a,$c,p50]}" "${R[a,$c,p99]}" "${R[b,$c,rps]}${R[b,$c,mark]}" "${R[b,$c,p50]}" "${R[b,$c,p99]}" "${R[c,$c,tps]}" "${R[c,$c,mark]}" \
            "$(calc '%.2f' "${R[a,$c,rps]} / ${R[c,$c,tps]}")" "$(calc '%.2f' "${R[b,$c,rps]} / ${R[a,$c,rps]}")"
    done
    echo
    echo "\\* = measured while other work used more than $OTHER_LIMIT cores (see 'other cores' below): not comparable; rerun on a quiet machine."
    echo
    echo "| clients | (a) non-2xx / unexpected / socket errors | (b) non-2xx / not-replayed / socket errors | (c) p50 ms | (c) p99 ms | (c) failed tx | (c') replay-SQL tps | (c') p50 / p99 ms | (b)/(c') |"
    echo "|--:|--|--|--:|--:|--:|--:|--|--:|"
    for c in $CONNS; do
        printf '| %s | %s | %s | %s | %s | %s | %.1f%s | %s / %s | %s |\n' "$c" \
            "${R[a,$c,non2xx]} / ${R[a,$c,unexpected]} / ${R[a,$c,sockerr]}" "${R[b,$c,non2xx]} / ${R[b,$c,unexpected]} / ${R[b,$c,sockerr]}" \
            "${R[c,$c,p50]}" "${R[c,$c,p99]}" "${R[c,$c,failed]:-?}" "${R[cr,$c,tps]}" "${R[cr,$c,mark]}" "${R[cr,$c,p50]}" "${R[cr,$c,p99]}" \
            "$(calc '%.2f' "${R[b,$c,rps]} / ${R[cr,$c,tps]}")"
    done
    echo
    echo "CPU during each run (cores = CPU-seconds per second of the $(nproc) cores; 'client' = wrk or pgbench; 'other' = everything"
    echo "else busy on the machine: other processes, interrupts (loopback TCP); ms/req = CPU per request or transaction):"
    echo
    echo "| run | clients | service cores | postgres cores | client cores | other cores | machine busy % | service ms/req | postgres ms/req |"
    echo "|--|--:|--:|--:|--:|--:|--:|--:|--:|"
    printf '%s\n' "${CPU_ROWS[@]}"
    echo
    echo "RSS after $orders orders: VmRSS $RSS_MB MB (peak VmHWM $HWM_MB MB); JVM heap committed $COMMITTED_HEAP of max $MAXHEAP_MB MB, live after a full GC $LIVE_HEAP; java opts '${BENCH_JAVA_OPTS}'"
    echo
    echo "Targets:"
    a8=${R[a,8,rps]:-0}; c8=${R[c,8,tps]:-1}
    echo "- (a) >= 60% of (c) at 8 clients: $(calc '%.0f' "100 * $a8 / $c8")% -> $(awk "BEGIN{print ($a8 >= 0.6 * $c8) ? \"PASS\" : \"FAIL\"}")"
    for c in $CONNS; do
        echo "- c=$c: (b) >= 2x (a): $(calc '%.2f' "${R[b,$c,rps]} / ${R[a,$c,rps]}")x -> $(awk "BEGIN{print (${R[b,$c,rps]} >= 2 * ${R[a,$c,rps]}) ? \"PASS\" : \"FAIL\"}");" \
             "(a) p99 < 10x p50: $(calc '%.1f' "${R[a,$c,p99]} / ${R[a,$c,p50]}")x -> $(awk "BEGIN{print (${R[a,$c,p99]} < 10 * ${R[a,$c,p50]}) ? \"PASS\" : \"FAIL\"}");" \
             "errors: $(( R[a,$c,non2xx] + R[a,$c,unexpected] + R[a,$c,sockerr] + R[b,$c,non2xx] + R[b,$c,unexpected] + R[b,$c,sockerr] )) -> $( (( R[a,$c,non2xx] + R[a,$c,unexpected] + R[a,$c,sockerr] + R[b,$c,non2xx] + R[b,$c,unexpected] + R[b,$c,sockerr] == 0 )) && echo PASS || echo FAIL)"
    done
    echo "- RSS after $TARGET_ORDERS orders < 400 MB: $RSS_MB MB -> $( ((RSS_MB < 400)) && echo PASS || echo FAIL)"
    echo
    echo "load before: $LOAD_BEFORE"
    echo "load after:  $LOAD_AFTER"
    echo "raw output: ${RESULTS#"$ROOT"/}/ ; database '$DB' $([[ "$KEEP_DB" == 0 ]] && echo "dropped" || echo "left in place (drop: psql -h $PGHOST -U $PGUSER -c 'DROP DATABASE $DB')")"
} | tee "$RESULTS/summary.md"

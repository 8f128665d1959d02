#!/usr/bin/env bash
# First run in embedded mode, as the README's run command does it: how long `./mvnw -DskipTests package` takes
# (on a fresh clone and on a tree already built), how long `java -jar target/quarkus-app/quarkus-run.jar` takes
# until /q/health/ready answers UP (cold: empty data folder; warm: the folder of an earlier run), and the memory of
# the service JVM and of the embedded PostgreSQL right after start and after FIRST_ORDERS orders through the API.
# See bench/README.md. Run from anywhere: bash bench/first-run.sh
#
# Knobs (environment): FIRST_RUNS (3 runs of each kind), FIRST_ORDERS (1000), FIRST_PORT (18180),
# FIRST_PACKAGE (1; 0 = skip the two package measurements and run the jar of a clone packaged once),
# FIRST_JAVA_OPTS (none: the JVM's defaults, as the README command runs it),
# FIRST_WAIT_QUIET (0; N = before each start, wait up to N s until other processes use < 0.3 cores over 3 s).
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
RUNS=${FIRST_RUNS:-3}
ORDERS=${FIRST_ORDERS:-1000}
PORT=${FIRST_PORT:-18180}
PACKAGE=${FIRST_PACKAGE:-1}
JAVA_OPTS=${FIRST_JAVA_OPTS:-}
WAIT_QUIET=${FIRST_WAIT_QUIET:-0}
RESULTS=$BENCH_DIR/results/first-run-$(date -u +%Y%m%dT%H%M%SZ)
WORK=$(mktemp -d /tmp/onceguard-first-run.XXXXXX)
mkdir -p "$RESULTS"
exec > >(tee -a "$RESULTS/console.log") 2>&1

SVC_PID=""
stop_service() {
    if [[ -n "$SVC_PID" ]] && kill -0 "$SVC_PID" 2>/dev/null; then
        kill -TERM "$SVC_PID"
        for _ in $(seq 120); do kill -0 "$SVC_PID" 2>/dev/null || break; sleep 0.25; done
        if kill -0 "$SVC_PID" 2>/dev/null; then kill -KILL "$SVC_PID" || true; fi
        wait "$SVC_PID" 2>/dev/null || true
    fi
    SVC_PID=""
}
cleanup() {
    local rc=$?
    stop_service
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if curl -s -o /dev/null "http://localhost:$PORT/"; then
    echo "port $PORT is in use; set FIRST_PORT" >&2
    exit 1
fi

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# best, median and all values of a list of seconds
summary() { python3 -c "
import statistics, sys
v = sorted(float(x) for x in sys.argv[1:])
print(f'best {v[0]:.1f} s, median {statistics.median(v):.1f} s (runs: {\", \".join(f\"{x:.1f}\" for x in v)})')" "$@"; }

kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/$3" 2>/dev/null || true; }
# "<RSS MiB> <PSS MiB>" of a list of pids, "-" for PSS if /proc/<pid>/smaps_rollup cannot be read; a process that
# ended meanwhile (a backend) is left out
memory() {
    local rss=0 pss=0 pss_ok=1 pid value
    for pid in "$@"; do
        value=$(kib "$pid" VmRSS status)
        [[ -n "$value" ]] || continue
        rss=$((rss + value))
        value=$(kib "$pid" Pss smaps_rollup)
        if [[ -z "$value" ]]; then pss_ok=0; else pss=$((pss + value)); fi
    done
    if [[ "$pss_ok" == 1 ]]; then echo "$((rss / 1024)) $((pss / 1024))"; else echo "$((rss / 1024)) -"; fi
}
# the postmaster (its pid is the first line of postmaster.pid) and its children
postgres_pids() {
    local postmaster
    postmaster=$(head -1 "$WORK/run/data/postgres/postmaster.pid")
    echo "$postmaster" $(pgrep -P "$postmaster" || true)
}
# clock ticks (user + system) used by a list of pids and the children they have waited for (initdb, pg_ctl)
cpu_ticks() {
    local ticks=0 pid value
    for pid in "$@"; do
        value=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13 + $14 + $15}')
        ticks=$((ticks + ${value:-0}))
    done
    echo "$ticks"
}
# busy clock ticks of the whole machine, all cores (user, nice, system, irq, softirq, steal)
machine_busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
seconds_of() { python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]):.1f}')" "$1" "$(getconf CLK_TCK)"; }
# cores used on average by everything else than the service and its database between two machine snapshots
other_cores() { python3 -c "
import sys
busy_before, busy_after, own, seconds, hz = map(float, sys.argv[1:])
print(f'{(busy_after - busy_before - own) / hz / seconds:.2f}')" "$1" "$2" "$3" "$4" "$(getconf CLK_TCK)"; }
memory_line() {
    local label=$1 jvm pg count
    jvm=$(memory "$SVC_PID")
    pg=$(memory $(postgres_pids))
    count=$(postgres_pids | wc -w)
    echo "| $label | ${jvm% *} | ${jvm#* } | $count | ${pg% *} | ${pg#* } |" | tee -a "$RESULTS/memory.md"
}

echo "== onceguard first run, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -m | awk '/Mem:/ {print $2}') MiB RAM"
echo "java: $(java -version 2>&1 | head -1); commit $(git -C "$ROOT" rev-parse --short HEAD); uptime: $(uptime)"

# ---- package: a fresh clone (the Maven repository ~/.m2 is warm: no downloads), then the built tree again ----
FRESH=()
BUILT=()
CLONE=$WORK/clone
# runs the package command in the clone; PACKAGE_LINE says how long it took, its CPU time (Maven and the
# compilers it forks) and the cores other processes used meanwhile; PACKAGE_SECONDS is the wall time
package() {
    local log=$1 before after real user sys
    before=$(machine_busy_ticks)
    { TIMEFORMAT='%R %U %S'; time (cd "$CLONE" && ./mvnw -B -q -DskipTests package > "$log" 2>&1); } 2> "$WORK/time" \
        || { echo "the package failed, see $log" >&2; exit 1; }
    after=$(machine_busy_ticks)
    read -r real user sys < "$WORK/time"
    PACKAGE_SECONDS=$real
    PACKAGE_LINE=$(python3 -c "
import sys
real, user, system, before, after, hz = map(float, sys.argv[1:])
own = user + system
print(f'{real:.1f} s, CPU {own:.1f} s, other processes used {((after - before) / hz - own) / real:.2f} cores')" \
        "$real" "$user" "$sys" "$before" "$after" "$(getconf CLK_TCK)")
}
if [[ "$PACKAGE" == 1 ]]; then
    for i in $(seq "$RUNS"); do
        rm -rf "$CLONE"
        git clone -q "$ROOT" "$CLONE"
        echo "package, fresh clone, run $i, load $(load)"
        package "$RESULTS/package-fresh-$i.log"
        FRESH+=("$PACKAGE_SECONDS")
        echo "  $PACKAGE_LINE"
    done
    for i in $(seq "$RUNS"); do
        echo "package, already built, run $i, load $(load)"
        package "$RESULTS/package-built-$i.log"
        BUILT+=("$PACKAGE_SECONDS")
        echo "  $PACKAGE_LINE"
    done
else
    git clone -q "$ROOT" "$CLONE"
    package "$RESULTS/package.log"
fi

# ---- run: java -jar from a working directory of its own, so data/ is the embedded mode's default folder ----
mkdir -p "$WORK/run"
echo "| moment | JVM RSS MiB | JVM PSS MiB | postgres processes | postgres RSS MiB (sum) | postgres PSS MiB (sum) |" > "$RESULTS/memory.md"
echo "| --- | --- | --- | --- | --- | --- |" >> "$RESULTS/memory.md"

# on a shared machine, waits (at most FIRST_WAIT_QUIET seconds) for a moment when the others use < 0.3 cores
wait_quiet() {
    local deadline=$((SECONDS + WAIT_QUIET)) before busy
    while ((SECONDS < deadline)); do
        before=$(machine_busy_ticks)
        sleep 3
        busy=$(python3 -c "import sys; print(int(sys.argv[2]) - int(sys.argv[1]) < 0.3 * 3 * int(sys.argv[3]))" \
            "$before" "$(machine_busy_ticks)" "$(getconf CLK_TCK)")
        if [[ "$busy" == True ]]; then return 0; fi
    done
    echo "no quiet moment within $WAIT_QUIET s: measuring anyway"
}

# Whether /q/health/ready answers 200 (it answers 503 until every check is UP). Bash builtins only, and the
# poll below waits on a FIFO rather than running sleep: a curl and a sleep every 50 ms took 0.4 of the 2 cores
# away from the start being measured.
answers_ready() {
    local status
    { exec 3<>"/dev/tcp/127.0.0.1/$PORT"; } 2>/dev/null || return 1
    printf 'GET /q/health/ready HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
    IFS= read -r status <&3 || status=""
    exec 3<&-
    [[ "$status" == "HTTP/1."?" 200 "* ]]
}
mkfifo "$WORK/tick"
exec 4<>"$WORK/tick"

# starts the service and waits until /q/health/ready answers 200 UP; READY_SECONDS is how long that took,
# BUSY_BEFORE the machine's busy ticks at the start
start_service() {
    local log=$1 start
    BUSY_BEFORE=$(machine_busy_ticks)
    start=$(now)
    (cd "$WORK/run" && exec env QUARKUS_HTTP_PORT="$PORT" java $JAVA_OPTS -jar "$CLONE/target/quarkus-app/quarkus-run.jar") > "$log" 2>&1 &
    SVC_PID=$!
    until answers_ready; do
        if ! kill -0 "$SVC_PID" 2>/dev/null; then echo "the service stopped; see $log" >&2; exit 1; fi
        read -t 0.05 -u 4 || true
    done
    READY_SECONDS=$(elapsed "$start" "$(now)")
}

COLD=()
WARM=()
COLD_CPU=()
WARM_CPU=()
COLD_OTHERS=()
WARM_OTHERS=()
for kind in cold warm; do
    for i in $(seq "$RUNS"); do
        [[ "$kind" == cold ]] && rm -rf "$WORK/run/data"
        wait_quiet
        before=$(load)
        start_service "$RESULTS/service-$kind-$i.log"
        busy_after=$(machine_busy_ticks)
        jvm_ticks=$(cpu_ticks "$SVC_PID")
        pg_ticks=$(cpu_ticks $(postgres_pids))
        jvm_cpu=$(seconds_of "$jvm_ticks")
        others=$(other_cores "$BUSY_BEFORE" "$busy_after" $((jvm_ticks + pg_ticks)) "$READY_SECONDS")
        if [[ "$kind" == cold ]]; then
            COLD+=("$READY_SECONDS"); COLD_CPU+=("$jvm_cpu"); COLD_OTHERS+=("$others")
        else
            WARM+=("$READY_SECONDS"); WARM_CPU+=("$jvm_cpu"); WARM_OTHERS+=("$others")
        fi
        echo "run $kind $i: ready after $READY_SECONDS s (Quarkus: $(grep -o 'started in [0-9.]*s' "$RESULTS/service-$kind-$i.log")), CPU used by then: JVM $jvm_cpu s, postgres $(seconds_of "$pg_ticks") s; other processes used $others of the $(nproc) cores meanwhile; load before $before"
        memory_line "$kind run $i, at ready"
        if [[ "$kind" == warm && "$i" == "$RUNS" ]]; then
            break
        fi
        stop_service
    done
done

# ---- orders: the demo user's token from the banner, FIRST_ORDERS orders of p-184 (unlimited stock) ----
for _ in $(seq 100); do grep -q "Authorization: Bearer" "$RESULTS/service-warm-$RUNS.log" && break; sleep 0.1; done
TOKEN=$(grep -o "Authorization: Bearer [^']*" "$RESULTS/service-warm-$RUNS.log" | tail -1 | cut -d' ' -f3)
start=$(now)
python3 - "$PORT" "$TOKEN" "$ORDERS" <<'EOF'
import http.client, sys, uuid
port, token, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
connection = http.client.HTTPConnection("localhost", port)
body = '{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}'
for _ in range(count):
    connection.request("POST", "/api/orders", body, {"Authorization": "Bearer " + token,
        "Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())})
    response = connection.getresponse()
    response.read()
    if response.status != 201:
        sys.exit(f"order answered {response.status}")
EOF
echo "$ORDERS orders created in $(elapsed "$start" "$(now)") s (one connection, one at a time)"
sleep 2
memory_line "after $ORDERS orders"
stop_service

echo
echo "== summary ($(nproc) cores; load at the end: $(load))"
if [[ "$PACKAGE" == 1 ]]; then
    echo "package, fresh clone:   $(summary "${FRESH[@]}")"
    echo "package, already built: $(summary "${BUILT[@]}")"
fi
echo "java -jar to ready, cold (empty data folder): $(summary "${COLD[@]}")"
echo "java -jar to ready, warm (existing data):     $(summary "${WARM[@]}")"
echo "CPU time of the JVM (and the initdb/pg_ctl it ran) to ready, cold: $(summary "${COLD_CPU[@]}")"
echo "CPU time of the JVM (and the initdb/pg_ctl it ran) to ready, warm: $(summary "${WARM_CPU[@]}")"
echo "cores used by other processes during the cold starts: ${COLD_OTHERS[*]}; during the warm starts: ${WARM_OTHERS[*]}"
echo
cat "$RESULTS/memory.md"
echo
echo "results: $RESULTS"

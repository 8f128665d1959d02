#!/usr/bin/env bash
# Every benchmark of the project, then one table: figure, target, measured, holds or not. See bench/README.md.
#
#   bash bench/all.sh                                     # ≈ 20 min on 2 shared cores (bench/README.md)
#   ALL_ONLY="tests first-run" bash bench/all.sh          # some parts only: cost, tests, first-run, orders
#   bash bench/all.sh --peer-dir DIR                      # the peer's folder (or COST_PEER_DIR)
#
# Parts (the default set: cost tests first-run):
#   cost       bench/cost-benchmark.py: req/s, p50/p99 and CPU milliseconds per request of the service and of its
#              PostgreSQL backends, new keys and replays at 1, 8, 32 connections after a JIT warm-up, beside pgbench
#              running the same statements and the FastAPI + Redis peer (its folder: COST_PEER_DIR; without it, the
#              peer's targets are not measured), the service's RSS after the run, and the engine's targets at 8
#              connections (COST_ARGS adds options, e.g. "--duration 5" or "--java-opts '-Xmx512m'")
#   tests      the @Tag("benchmark") test classes: webhook ingest, outbox relay, retention cleanup under load,
#              console pages at 1M records (test database: _TEST_QUARKUS_DATASOURCE_JDBC_URL, default 'test')
#   first-run  bench/first-run.sh: package, start time and memory in embedded mode (FIRST_* knobs pass through)
#   orders     not in the default set, cost measures its figures with the CPU method: bench/orders-benchmark.sh, the
#              older benchmark (1, 8, 32 clients, pgbench ceiling, RSS after 100,000 orders; BENCH_* knobs pass through)
# Logs and the table go to bench/results/all-<UTC time>/. Exit status 0 only when every target holds.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ONLY=${ALL_ONLY:-cost tests first-run}
PEER_DIR=${COST_PEER_DIR:-/work/shared/peer-fastapi}
while (($#)); do
    case $1 in
        --peer-dir) PEER_DIR=${2:?--peer-dir needs a folder}; shift 2 ;;
        *) echo "unknown option: $1 (bash bench/all.sh [--peer-dir DIR])" >&2; exit 2 ;;
    esac
done
RESULTS="$ROOT/bench/results/all-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RESULTS"
# The benchmarks order the demo catalog's products; outside embedded mode, dev and test the catalog must be asked for.
export ONCEGUARD_CATALOG_DEMO=${ONCEGUARD_CATALOG_DEMO:-true}
wants() { [[ " $ONLY " == *" $1 "* ]]; }

echo "== onceguard benchmarks, $(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -m | awk '/Mem:/ {print $2}') MiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "results: ${RESULTS#"$ROOT"/}/"

if wants orders; then
    echo "-- orders (bench/orders-benchmark.sh)"
    BENCH_PORT=${BENCH_PORT:-18187} BENCH_DB=${BENCH_DB:-bench_all} bash bench/orders-benchmark.sh \
        > "$RESULTS/orders.log" 2>&1 || echo "   orders benchmark exited with $?; see orders.log"
fi

if wants cost; then
    echo "-- CPU per request (bench/cost-benchmark.py)"
    [[ -f target/quarkus-app/quarkus-run.jar ]] || ./mvnw -B -q package -DskipTests
    cp -r target/quarkus-app "$RESULTS/app"   # a private copy: a concurrent package cannot swap it
    if [[ -f "$PEER_DIR/app.py" ]]; then
        peer=(--peer-dir "$PEER_DIR" --peer-port 18189 --peer-db bench_all_peer)
    else
        echo "   no peer in $PEER_DIR (COST_PEER_DIR): the peer's targets are not measured"
        peer=(--no-peer)
    fi
    # shellcheck disable=SC2086
    python3 bench/cost-benchmark.py --jar "$RESULTS/app/quarkus-run.jar" --label service "${peer[@]}" --port 18188 \
        --db bench_all_cost ${COST_ARGS:-} > "$RESULTS/cost.log" 2>&1 || echo "   cost benchmark exited with $?; see cost.log"
    rm -rf "$RESULTS/app"
fi

if wants tests; then
    echo "-- benchmark test classes (./mvnw test -Dgroups=benchmark)"
    ./mvnw -B test -Dtest='WebhookIngestBenchmark,OutboxRelayBenchmark,RetentionCleanupBenchmark,ConsolePagesBenchmark' \
        -Dgroups=benchmark -DexcludedGroups=none -Dsurefire.failIfNoSpecifiedTests=false \
        > "$RESULTS/tests.log" 2>&1 || echo "   benchmark tests exited with $?; see tests.log"
fi

if wants first-run; then
    echo "-- first run (bench/first-run.sh)"
    bash bench/first-run.sh > "$RESULTS/first-run.log" 2>&1 || echo "   first-run exited with $?; see first-run.log"
fi

ALL_ONLY="$ONLY" python3 bench/benchmark-table.py "$RESULTS" | tee "$RESULTS/table.md"

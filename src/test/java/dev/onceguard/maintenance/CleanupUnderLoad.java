package dev.onceguard.maintenance;

import dev.onceguard.TestTokens;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.restassured.RestAssured.given;

/**
 * Runs retention cleanup over already seeded expired records while one client keeps creating orders, and
 * measures both: deletion rate, and order-creation latency before and during the cleanup.
 */
final class CleanupUnderLoad {

    static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";

    record Result(long deleted, double seconds, int runs, List<Long> quietNanos, List<Long> busyNanos) {

        double rowsPerSecond() {
            return deleted / seconds;
        }

        String summary() {
            return String.format("retention cleanup: %d records in %.1f s (%.0f rows/s, %d runs); order creation p50/p99 "
                            + "%.1f/%.1f ms quiet (n=%d) vs %.1f/%.1f ms during cleanup (n=%d)", deleted, seconds,
                    rowsPerSecond(), runs, percentile(quietNanos, 0.50) / 1e6, percentile(quietNanos, 0.99) / 1e6,
                    quietNanos.size(), percentile(busyNanos, 0.50) / 1e6, percentile(busyNanos, 0.99) / 1e6,
                    busyNanos.size());
        }
    }

    private CleanupUnderLoad() {
    }

    static Result measure(RetentionCleanup cleanup, String buyer, int quietOrders) throws Exception {
        String token = TestTokens.bearer(buyer);
        List<Long> quiet = createOrders(token, quietOrders, new AtomicBoolean(true));
        AtomicBoolean cleaning = new AtomicBoolean(true);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<List<Long>> during = pool.submit(() -> createOrders(token, Integer.MAX_VALUE, cleaning));
        long started = System.nanoTime();
        long deleted = 0;
        int runs = 0;
        Map<String, Long> run;
        do {
            run = cleanup.run();
            deleted += run.get("idempotency_records");
            runs++;
        } while (run.get("idempotency_records") > 0);
        double seconds = (System.nanoTime() - started) / 1e9;
        cleaning.set(false);
        List<Long> busy = during.get();
        pool.shutdown();
        return new Result(deleted, seconds, runs, quiet, busy);
    }

    private static List<Long> createOrders(String token, int atMost, AtomicBoolean keepGoing) {
        List<Long> latencies = new ArrayList<>();
        while (keepGoing.get() && latencies.size() < atMost) {
            long start = System.nanoTime();
            given().header("Authorization", token).header("Idempotency-Key", UUID.randomUUID().toString())
                    .contentType("application/json").body(ORDER).post("/api/orders").then().statusCode(201);
            latencies.add(System.nanoTime() - start);
        }
        return latencies;
    }

    static double percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * p) - 1));
    }
}

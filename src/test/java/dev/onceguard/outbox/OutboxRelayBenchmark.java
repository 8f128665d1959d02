package dev.onceguard.outbox;

import dev.onceguard.PaidOrders;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.onceguard.Database.count;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Relay throughput: after a warm-up, 5,000 ORDER_PAID events (half with a digital item, so 2.5 effects per event)
 * drained by one relay, then 5,000 more by two relays at once. Prints numbers; excluded from the default test run.
 * Run with {@code ./mvnw test -Dtest=OutboxRelayBenchmark -Dgroups=benchmark -DexcludedGroups=none}.
 */
@QuarkusTest
@Tag("benchmark")
class OutboxRelayBenchmark {

    private static final int EVENTS = 5_000;
    private static final int CHUNK = 500;

    @Inject
    AgroalDataSource db;
    @Inject
    PaidOrders paidOrders;
    @Inject
    OutboxRelay relay;

    @BeforeEach
    void leaveNothingFromEarlierRunsInTheMeasuredBacklog() {
        paidOrders.relayUntilIdle();
    }

    @Test
    void relayThroughput() throws Exception {
        measure("warm-up", 1_000, 2);
        measure("one relay", EVENTS, 1);
        measure("two relays", EVENTS, 2);
    }

    private void measure(String label, int events, int relays) throws Exception {
        String user = TestTokens.newUser();
        for (int i = 0; i < events; i += CHUNK) {
            paidOrders.createMany(CHUNK, user);
        }
        CyclicBarrier barrier = new CyclicBarrier(relays);
        ExecutorService pool = Executors.newFixedThreadPool(relays);
        List<Future<?>> runs = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < relays; i++) {
            runs.add(pool.submit(() -> {
                barrier.await();
                while (relay.runOnce().claimed() > 0) {
                    // next batch
                }
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();

        long effects = count(db, "SELECT count(*) FROM licenses WHERE user_id = ?", user)
                + count(db, "SELECT count(*) FROM notifications WHERE user_id = ?", user)
                + count(db, "SELECT count(*) FROM loyalty_ledger WHERE user_id = ?", user);
        assertThat(count(db, "SELECT count(*) FROM orders WHERE user_id = ? AND status = 'FULFILLED'", user))
                .isEqualTo(events);
        assertThat(effects).isEqualTo(events * 5L / 2);
        System.out.printf("BENCHMARK outbox relay, %s: %d events, %d effects in %.1f s: %.0f events/s, %.0f effects/s%n",
                label, events, effects, seconds, events / seconds, effects / seconds);
    }
}

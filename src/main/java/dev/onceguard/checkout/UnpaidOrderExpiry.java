package dev.onceguard.checkout;

import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Draining;
import dev.onceguard.platform.Jobs;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Moves orders left unpaid past {@link CheckoutConfig#unpaidOrderTtl()} to EXPIRED and gives their stock back, so that
 * an abandoned order cannot hold a product's stock forever. An order with a payment attempt in flight (one that may
 * still charge) is held until that attempt has ended.
 *
 * <p>Each batch is one transaction: the due orders are locked first ({@code FOR UPDATE SKIP LOCKED}, the lock a
 * payment of the order takes before it inserts its attempt), then each is checked for an attempt in flight by a
 * statement that starts after the lock was granted, so it sees every attempt committed before, and moved by the
 * state machine's conditional UPDATE; only the move that happened returns the stock. A payment racing the expiry
 * either inserted its attempt first (the order is held) or finds the order EXPIRED and is refused. Two runs, here or
 * on another replica, never take the same order: the second skips the rows the first holds, and finds them EXPIRED
 * once it commits.
 */
@ApplicationScoped
@Startup
public class UnpaidOrderExpiry {

    private static final Logger LOG = Logger.getLogger(UnpaidOrderExpiry.class);
    /** Orders per transaction: a short lock on a few hundred orders and their products' rows. */
    private static final int BATCH_SIZE = 200;

    private final OrderRows orders;
    private final SqlRows sql;
    private final Jobs jobs;
    private final CheckoutConfig config;
    private final Draining draining;
    private final Counter expired;

    public UnpaidOrderExpiry(OrderRows orders, SqlRows sql, Jobs jobs, CheckoutConfig config, Draining draining,
                             MeterRegistry registry) {
        this.orders = orders;
        this.sql = sql;
        this.jobs = jobs;
        this.config = config;
        this.draining = draining;
        this.expired = Counter.builder("onceguard.orders.expired")
                .description("Orders moved to EXPIRED, unpaid past onceguard.checkout.unpaid-order-ttl, stock returned")
                .register(registry);
    }

    @Scheduled(identity = Jobs.UNPAID_ORDER_EXPIRY, every = "${onceguard.jobs.unpaid-order-expiry.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        runNow();
    }

    /** One run on an operator's request (the console's "run now"), recorded like a scheduled run. */
    public Jobs.Finished runNow() {
        return jobs.runIdentified(Jobs.UNPAID_ORDER_EXPIRY, runId -> run(Cause.unpaidOrderExpiry(runId)));
    }

    /** @param cause the run, named on every order it expires; a replica shutting down starts no further batch */
    public Map<String, Long> run(Cause cause) {
        Instant cutoff = Timestamps.now().minus(config.unpaidOrderTtl());
        long expiredNow = 0;
        while (!draining.inProgress()) {
            Batch batch = QuarkusTransaction.requiringNew().call(() -> expireBatch(cutoff, cause));
            expiredNow += batch.expired();
            if (batch.due() < BATCH_SIZE || batch.expired() == 0) {
                break;
            }
        }
        expired.increment(expiredNow);
        return Map.of("expired", expiredNow);
    }

    private record Batch(int due, long expired) {
    }

    private Batch expireBatch(Instant cutoff, Cause cause) {
        List<String> due = orders.lockUnpaidPlacedBefore(cutoff, BATCH_SIZE);
        Instant now = Timestamps.now();
        long expiredHere = 0;
        for (String orderId : due) {
            if (orders.hasAttemptInFlight(orderId)) {
                continue;
            }
            if (OrderStates.MACHINE.move(sql, orderId, Order.Status.EXPIRED, cause, now).isPresent()) {
                orders.returnStock(orderId);
                expiredHere++;
                LOG.infof("order %s -> EXPIRED, unpaid since before %s; its stock returned (%s)", orderId, cutoff,
                        cause);
            }
        }
        return new Batch(due.size(), expiredHere);
    }
}

package dev.onceguard.idempotency;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

@ConfigMapping(prefix = "onceguard.idempotency")
public interface IdempotencyConfig {

    /** How long a finished record is kept, unless its operation says otherwise. */
    @WithDefault("24h")
    Duration retention();

    /** How long a PROCESSING record is protected from takeover. */
    @WithDefault("30s")
    Duration lease();

    /**
     * Per-operation overrides, keyed by the name each operation gives itself ({@code create-order},
     * {@code create-payment}); an operation named here has its request counters exported from start-up.
     */
    Map<String, OperationConfig> operations();

    RequestLogConfig requestLog();

    /**
     * Threads of their own that run local operations (a claim and its writes: work that waits only for PostgreSQL).
     * Few, so that each stays busy with the next request instead of waking another sleeping thread per statement; the
     * operations that call out keep Quarkus's worker pool, where a slow provider cannot hold them up. A replica's rate of
     * new orders is at most this many divided by one claim's round trip: raise it when PostgreSQL is far away.
     */
    @WithDefault("4")
    @Min(1)
    int localOperationThreads();

    /** Finished records kept in memory per replica, so that a replay costs no database read. */
    @WithDefault("10000")
    int finishedCacheSize();

    interface OperationConfig {
        Optional<Duration> retention();
    }

    interface RequestLogConfig {

        /** How often the batch is written ({@code off} in tests, which flush themselves). */
        @WithDefault("1s")
        String flushEvery();

        /** Pending rows that are written at once, without waiting for {@link #flushEvery()} (not when it is off). */
        @WithDefault("1000")
        int batchRows();

        /** The request log rows kept per record at each end: the first N and the last N. */
        @WithDefault("50")
        int keptPerEnd();
    }

    default Duration retentionOf(String operation) {
        OperationConfig config = operations().get(operation);
        return config == null ? retention() : config.retention().orElse(retention());
    }
}

package dev.onceguard.maintenance;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

@ConfigMapping(prefix = "onceguard.retention")
public interface RetentionConfig {

    /** Processed, ignored and rejected webhook events are kept this long after they were decided. */
    @WithDefault("30d")
    Duration inbox();

    /**
     * Webhook events parked as PENDING_MATCH (no payment knows their provider payment id) are kept this long after
     * they were received. Longer than {@link #inbox()}: a parked event is applied only if a payment still learns that
     * id, and one that never matched is what support looks for when a charge reached the provider but no order.
     */
    @WithDefault("90d")
    Duration inboxPendingMatch();

    /** Delivered outbox events are kept this long. */
    @WithDefault("7d")
    Duration outbox();

    /** Job run records are kept this long. */
    @WithDefault("7d")
    Duration jobRuns();

    /** Rows deleted by one statement. */
    @WithDefault("1000")
    int batchSize();

    /** A cleanup run stops starting new batches after this long; the next run continues. */
    @WithDefault("20s")
    Duration timeBudget();

    /** Expired PROCESSING records looked at per lease-recovery run. */
    @WithDefault("100")
    int recoveryBatchSize();
}

package dev.onceguard.maintenance;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

@ConfigMapping(prefix = "onceguard.retention")
public interface RetentionConfig {

    /** Processed webhook events are kept this long. */
    @WithDefault("30d")
    Duration inbox();

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

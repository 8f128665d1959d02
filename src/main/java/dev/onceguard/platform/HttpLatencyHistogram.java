package dev.onceguard.platform;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.stream.Stream;

/**
 * Publishes {@code http_server_requests_seconds_bucket} so that dashboards can compute p50/p99 latency across replicas
 * with {@code histogram_quantile}. Fixed buckets from 2 ms to 10 s (the provider timeout fits inside) keep it to a
 * dozen series per endpoint and status instead of Micrometer's default seventy.
 */
@Singleton
public class HttpLatencyHistogram {

    static final String HTTP_SERVER_REQUESTS = "http.server.requests";

    static final double[] BUCKETS = Stream.of(
                    Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
                    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
                    Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10))
            .mapToDouble(Duration::toNanos).toArray();

    @Produces
    @Singleton
    MeterFilter httpServerRequestBuckets() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals(HTTP_SERVER_REQUESTS)) {
                    return config;
                }
                return DistributionStatisticConfig.builder().serviceLevelObjectives(BUCKETS).build().merge(config);
            }
        };
    }
}

package dev.onceguard.platform;

import com.github.benmanes.caffeine.cache.Cache;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A request-path cache does its upkeep on the thread that touched it: no pool thread is woken for it. */
class RequestPathCachesTest {

    @Test
    void evictsOnTheWritingThreadBeforeThePutReturns() {
        List<Thread> evictedOn = new ArrayList<>();
        Cache<String, String> cache = RequestPathCaches.newBuilder()
                .maximumSize(1)
                .<String, String>removalListener((key, value, cause) -> evictedOn.add(Thread.currentThread()))
                .build();

        cache.put("first", "1");
        cache.put("second", "2");

        assertThat(cache.estimatedSize()).isEqualTo(1);
        assertThat(evictedOn).containsExactly(Thread.currentThread());
    }
}

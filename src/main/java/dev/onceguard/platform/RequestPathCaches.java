package dev.onceguard.platform;

import com.github.benmanes.caffeine.cache.Caffeine;

/** How the in-memory caches that requests read are built. */
public final class RequestPathCaches {

    private RequestPathCaches() {
    }

    /**
     * A Caffeine builder whose upkeep (replaying reads and writes into the eviction order) runs on the thread that
     * touched the cache. By default Caffeine hands it to the common fork-join pool: a few microseconds of work, but
     * under load a pool thread woken hundreds of times a second to do it, competing with the event loops for a core.
     */
    public static Caffeine<Object, Object> newBuilder() {
        return Caffeine.newBuilder().executor(Runnable::run);
    }
}

package dev.onceguard.platform;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The latest {@code size / 2} to {@code size} entries put, kept in two generations: when the current one holds
 * {@code size / 2}, it becomes the previous one and the one before it is dropped. For what a client or provider sends
 * again soon after the first time (a replay, a webhook's redelivery), where recency is what counts. A frequency-based
 * cache such as Caffeine's refuses a new entry once it is full of entries read twice, so the latest ones, the likeliest
 * to come back, would be the ones missing (decision 0046).
 */
public final class RecentEntries<K, V> {

    private final int generationSize;
    private final AtomicInteger currentCount = new AtomicInteger();
    private volatile Map<K, V> current = new ConcurrentHashMap<>();
    private volatile Map<K, V> previous = new ConcurrentHashMap<>();

    public RecentEntries(long size) {
        this.generationSize = (int) Math.max(1, Math.min(Integer.MAX_VALUE, size / 2));
    }

    public V get(K key) {
        V value = current.get(key);
        return value != null ? value : previous.get(key);
    }

    public void put(K key, V value) {
        if (current.put(key, value) == null && currentCount.incrementAndGet() >= generationSize) {
            startGeneration();
        }
    }

    public void remove(K key) {
        current.remove(key);
        previous.remove(key);
    }

    private synchronized void startGeneration() {
        if (currentCount.get() >= generationSize) {
            previous = current;
            current = new ConcurrentHashMap<>();
            currentCount.set(0);
        }
    }
}

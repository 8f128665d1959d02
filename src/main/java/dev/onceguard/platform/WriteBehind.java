package dev.onceguard.platform;

import io.quarkus.narayana.jta.QuarkusTransaction;
import org.eclipse.microprofile.context.ManagedExecutor;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Rows written behind the request path: a request only appends to memory, and a flush writes everything pending in
 * one transaction. Its owner flushes on its schedule (and at shutdown); under load a batch does not wait for it: the
 * request that makes {@code batchRows} pending hands a flush to a worker. A batch the database refuses stays in memory
 * for the next flush, and while the database refuses them only the schedule retries, so that no request hands over
 * more. A crash loses what is pending.
 */
public final class WriteBehind<T> {

    private static final Logger LOG = Logger.getLogger(WriteBehind.class);

    private final String name;
    private final ManagedExecutor workers;
    private final int batchRows;
    private final boolean flushesByCount;
    private final Consumer<List<T>> write;
    private final ConcurrentLinkedQueue<T> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingRows = new AtomicInteger();
    private final AtomicBoolean flushHandedOver = new AtomicBoolean();
    private volatile boolean lastFlushFailed;

    /**
     * @param name           what the rows are, for the log line of a refused batch
     * @param workers        the pool a full batch is flushed on, carrying none of the appending request's contexts
     * @param flushesByCount false where the owner flushes by itself (tests write each row before answering)
     * @param write          writes one batch, inside the flush's transaction
     */
    public WriteBehind(String name, ManagedExecutor workers, int batchRows, boolean flushesByCount,
                       Consumer<List<T>> write) {
        this.name = name;
        this.workers = workers;
        this.batchRows = batchRows;
        this.flushesByCount = flushesByCount;
        this.write = write;
    }

    public void append(T row) {
        pending.add(row);
        if (pendingRows.incrementAndGet() >= batchRows && flushesByCount && !lastFlushFailed
                && flushHandedOver.compareAndSet(false, true)) {
            handFlushToAWorker();
        }
    }

    private void handFlushToAWorker() {
        try {
            workers.execute(() -> {
                try {
                    flush();
                } finally {
                    flushHandedOver.set(false);
                }
            });
        } catch (RejectedExecutionException rejected) { // shutting down: the shutdown flush writes them
            flushHandedOver.set(false);
        }
    }

    /** Writes everything appended so far in one transaction; on failure the batch stays for the next flush. */
    public synchronized void flush() {
        List<T> batch = new ArrayList<>();
        for (T row; (row = pending.poll()) != null; ) {
            batch.add(row);
        }
        if (batch.isEmpty()) {
            return;
        }
        pendingRows.addAndGet(-batch.size());
        try {
            QuarkusTransaction.requiringNew().run(() -> write.accept(batch));
            lastFlushFailed = false;
        } catch (RuntimeException e) {
            lastFlushFailed = true;
            pending.addAll(batch);
            pendingRows.addAndGet(batch.size());
            LOG.warnf("%s batch of %d rows not saved, kept for the next flush: %s", name, batch.size(), e.getMessage());
        }
    }
}

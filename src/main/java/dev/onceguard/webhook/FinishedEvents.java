package dev.onceguard.webhook;

import dev.onceguard.platform.RecentEntries;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Inbox events this replica has seen settled for good, PROCESSED or REJECTED, by (provider, event id): no delivery,
 * reprocessing or parked match ever changes such an event again, so a later delivery of one is a duplicate that
 * costs no database work. IGNORED events are not kept: an admin may reprocess one on any replica. An entry outlives
 * its inbox row only when retention deletes the row, and then the answer is still the one the row gave.
 * <p>
 * The latest events are what is kept ({@link RecentEntries}): a provider resends what it sent last.
 */
@ApplicationScoped
public class FinishedEvents {

    private record Event(String provider, String eventId) {
    }

    private final RecentEntries<Event, Boolean> settled;

    public FinishedEvents(@ConfigProperty(name = "onceguard.webhooks.finished-cache-size") long size) {
        this.settled = new RecentEntries<>(size);
    }

    boolean contains(String provider, String eventId) {
        return settled.get(new Event(provider, eventId)) != null;
    }

    /** Remembers the event when {@code status}, its inbox status as committed, is one that never changes. */
    void rememberIfSettled(String provider, String eventId, String status) {
        if (status.equals("PROCESSED") || status.equals("REJECTED")) {
            settled.put(new Event(provider, eventId), Boolean.TRUE);
        }
    }
}

package dev.onceguard.idempotency;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a plan read and relied on, checked again by the statement that claims its record: the record is inserted, and
 * the plan's writes made, only if the condition still holds there. A plan may then be made from what a replica keeps
 * in memory (a catalog's prices), and the database still decides: an answer it no longer agrees with is never stored.
 * When the condition does not hold, the statement writes nothing, {@code whenOutdated} runs (the operation forgets what
 * it kept) and the engine plans again.
 *
 * @param condition    a SQL boolean expression, its {@code ?} bound to {@code parameters} in order; it may read any
 *                     table, and sees the same snapshot as the claim (type a parameter with a cast where nothing else
 *                     does)
 * @param whenOutdated run once for each claim the condition refused, before the operation plans again
 */
public record ClaimPrecondition(String condition, List<Object> parameters, Runnable whenOutdated) {

    public ClaimPrecondition {
        parameters = Collections.unmodifiableList(new ArrayList<>(parameters));
    }
}

package dev.onceguard.idempotency;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What a local operation writes to make its answer true, run in the very statement that claims its record: WITH
 * queries after the claim's own, which read the claimed record as the one row of {@code claim(id)}, so that they
 * write nothing when the scope already had a record. One statement is atomic on its own: the record and the writes
 * commit together without a transaction around them, or, when a write breaks a constraint, neither is kept.
 *
 * <p>A constraint the writes may break on purpose (a stock that may not go below zero) stands for a business
 * refusal ({@link #refusingOn}): the engine stores that refusal as the operation's result instead of failing.
 */
public final class ClaimWrites {

    /** A claim that writes nothing else. */
    public static final ClaimWrites NONE = new ClaimWrites(List.of(), List.of(), Map.of());

    private final List<String> queries;
    private final List<Object> parameters;
    private final Map<String, Supplier<BusinessRefusal>> refusals;

    private ClaimWrites(List<String> queries, List<Object> parameters,
                        Map<String, Supplier<BusinessRefusal>> refusals) {
        this.queries = queries;
        this.parameters = parameters;
        this.refusals = refusals;
    }

    /**
     * One WITH query, {@code name AS (statement)}, its {@code ?} bound to {@code parameters} in order. The statement
     * must read {@code claim} (directly or through an earlier query of these writes) so that it writes only for a
     * record this claim inserted. Type a parameter with a cast where nothing else does (in a SELECT list or VALUES of
     * an INSERT … SELECT, PostgreSQL would take it as text); a null parameter binds SQL NULL.
     */
    public static ClaimWrites query(String name, String statement, List<?> parameters) {
        return new ClaimWrites(List.of(name + " AS (" + statement + ")"),
                Collections.unmodifiableList(new ArrayList<>(parameters)), Map.of());
    }

    /** These writes, then {@code next}'s, whose queries may read this one's by name. */
    public ClaimWrites and(ClaimWrites next) {
        Map<String, Supplier<BusinessRefusal>> allRefusals = new HashMap<>(refusals);
        allRefusals.putAll(next.refusals);
        return new ClaimWrites(Stream.concat(queries.stream(), next.queries.stream()).toList(),
                Stream.concat(parameters.stream(), next.parameters.stream()).toList(), Map.copyOf(allRefusals));
    }

    /**
     * These writes, where breaking {@code constraint} means the operation is refused: {@code refusal} is asked, once
     * the statement has failed and kept nothing, for the refusal to store.
     */
    public ClaimWrites refusingOn(String constraint, Supplier<BusinessRefusal> refusal) {
        Map<String, Supplier<BusinessRefusal>> allRefusals = new HashMap<>(refusals);
        allRefusals.put(constraint, refusal);
        return new ClaimWrites(queries, parameters, Map.copyOf(allRefusals));
    }

    boolean isEmpty() {
        return queries.isEmpty();
    }

    /** The WITH queries, comma-separated, to follow the claim's. */
    String withQueries() {
        return String.join(",\n", queries);
    }

    /** Their parameters in order; a null binds SQL NULL. */
    List<Object> parameters() {
        return parameters;
    }

    /** The refusal that breaking {@code constraint} stands for, if the operation declared one. */
    Optional<BusinessRefusal> refusalOn(String constraint) {
        return Optional.ofNullable(refusals.get(constraint)).map(Supplier::get);
    }
}

package dev.onceguard.platform;

import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A table of allowed moves applied as one conditional UPDATE: the row moves only if its current state may go to
 * the target, so a stale, repeated or out-of-order event is a no-op decided by the database, never a step back.
 * Every accepted move is written to {@code state_transitions} for the console's timeline.
 */
public final class StateMachine<S extends Enum<S>> {

    private final String subjectType;
    private final String table;
    private final String idColumn;
    private final Class<S> states;
    private final Map<S, Set<S>> allowedMoves;

    /**
     * A write made only when a move is accepted, in the move's own statement (no round trip of its own): an INSERT or
     * UPDATE that reads the accepted move from {@code moved} (one row, with {@code from_status}), and its named
     * parameters, whose names must differ from the move's.
     */
    public record Consequence(String sql, Map<String, Object> parameters) {
    }

    public StateMachine(String subjectType, String table, String idColumn, Class<S> states, Map<S, Set<S>> allowedMoves) {
        this.subjectType = subjectType;
        this.table = table;
        this.idColumn = idColumn;
        this.states = states;
        this.allowedMoves = allowedMoves;
    }

    public boolean isFinal(S state) {
        return allowedMoves.getOrDefault(state, Set.of()).isEmpty();
    }

    public Set<S> sourcesOf(S to) {
        Set<S> sources = EnumSet.noneOf(states);
        allowedMoves.forEach((from, targets) -> {
            if (targets.contains(to)) {
                sources.add(from);
            }
        });
        return sources;
    }

    /**
     * Moves the subject to {@code to} if the table allows it from its current state, inside the caller's transaction,
     * and records the move in {@code state_transitions} and makes each of the {@code consequences} in the same statement.
     *
     * @return the state it moved from, or empty when the move was not allowed (already there, final, or stale)
     */
    public Optional<S> move(SqlRows sql, String id, S to, Cause cause, Instant now, Consequence... consequences) {
        Set<S> sources = sourcesOf(to);
        if (sources.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder consequent = new StringBuilder();
        for (int i = 0; i < consequences.length; i++) {
            consequent.append(", consequence").append(i).append(" AS (").append(consequences[i].sql()).append(')');
        }
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("to", to.name());
        parameters.put("now", now);
        parameters.put("id", id);
        parameters.put("sources", sources.stream().map(Enum::name).toList());
        parameters.put("type", subjectType);
        parameters.put("cause", cause.kind());
        parameters.put("causeRef", cause.ref());
        for (Consequence consequence : consequences) {
            parameters.putAll(consequence.parameters());
        }
        List<String> previous = sql.listNamed("WITH old AS (SELECT " + idColumn + ", status FROM " + table
                        + " WHERE " + idColumn + " = :id FOR UPDATE),"
                        + " moved AS (UPDATE " + table + " t SET status = :to, updated_at = :now FROM old"
                        + " WHERE t." + idColumn + " = old." + idColumn + " AND old.status IN (:sources)"
                        + " RETURNING old.status AS from_status),"
                        + " recorded AS (INSERT INTO state_transitions (subject_type, subject_id, from_status, to_status,"
                        + " cause, cause_ref, occurred_at) SELECT :type, :id, from_status, :to, :cause, :causeRef, :now"
                        + " FROM moved)"
                        + consequent
                        + " SELECT from_status FROM moved",
                parameters, row -> row.getString("from_status"));
        return previous.stream().findFirst().map(from -> Enum.valueOf(states, from));
    }
}

package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.postgresql.PGStatement;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's records in PostgreSQL: every statement on {@code idempotency_records} and {@code idempotency_conflicts},
 * on the connection of the caller's transaction (outside one, each statement commits on its own, as a local
 * operation's claim does): no entity is loaded or dirty-checked on the request path. Statements go through
 * {@link SqlRows}, except four that need the driver itself: the claims read the name of the constraint a write broke
 * (for its {@link BusinessRefusal}) and whether the precondition held, the scope lookup turns off the driver's
 * cached generic plan, and the completion and checkpoint bind a nullable smallint the hot path types itself.
 *
 * <p>No plan here depends on table statistics: the claim finds its conflict through the scope's unique index (the
 * ON CONFLICT arbiter), every update names its row by primary key alone, and the scope lookup is planned with its
 * parameters on each execution, where the fully matched unique scope is always cheapest (a generic plan cached while
 * the table was empty walked one user's rows through another index).
 */
@ApplicationScoped
class PostgresIdempotencyStore implements IdempotencyStore {

    private static final ClaimOutcome SCOPE_TAKEN = new ScopeTaken();
    private static final ClaimOutcome PRECONDITION_FAILED = new PreconditionFailed();
    /** SQLState class 23: a constraint refused the statement. */
    private static final String INTEGRITY_CONSTRAINT_VIOLATION = "23";

    private static final String ON_SCOPE_CONFLICT = """
            ON CONFLICT (user_id, operation, idempotency_key) DO NOTHING
            RETURNING id""";
    private static final String CLAIM = """
            INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                lease_expires_at, request_id, request_body, created_at, expires_at, client_request_id)
            VALUES (?, ?, ?, ?, 'PROCESSING', ?, ?, ?, CAST(? AS jsonb), ?, ?, ?)
            """ + ON_SCOPE_CONFLICT;
    private static final String FINISHED_COLUMNS = """
            user_id, operation, idempotency_key, fingerprint, status, recovery_point, request_id, request_body,
                created_at, expires_at, response_status, response_headers, response_body, resource_type, resource_id,
                completed_at, finished_by, finished_by_ref, first_answer_status, first_answered_at, client_request_id""";
    private static final String FINISHED_VALUES = """
            ?, ?, ?, ?, ?, 'finished', ?, CAST(? AS jsonb), CAST(? AS timestamptz), CAST(? AS timestamptz), ?,
                CAST(? AS jsonb), ?, ?, ?, CAST(? AS timestamptz), 'request', ?, ?, CAST(? AS timestamptz), ?""";
    /** The claim of a finished record, made only if the plan's precondition (the one row of {@code held}) holds. */
    private static final String CLAIM_FINISHED = "INSERT INTO idempotency_records (" + FINISHED_COLUMNS
            + ")\nSELECT " + FINISHED_VALUES + "\n  FROM held WHERE held.holds\n" + ON_SCOPE_CONFLICT;
    private static final String FIND = """
            SELECT id, fingerprint, status, recovery_point, lease_expires_at, response_status, response_headers,
                   response_body, resource_type, resource_id, expires_at
              FROM idempotency_records
             WHERE\s""";
    /**
     * Sets the first request's answer when the request answered now is the record's first and its answer is not
     * recorded yet; otherwise keeps what is there. Parameters: the answering request's id, the status, that id again,
     * the time.
     */
    private static final String FIRST_ANSWER = """
                   first_answer_status = CASE WHEN first_answer_status IS NULL AND request_id = ? THEN ?
                                              ELSE first_answer_status END,
                   first_answered_at = CASE WHEN first_answer_status IS NULL AND request_id = ? THEN ?
                                            ELSE first_answered_at END""";
    private static final String COMPLETE = """
            UPDATE idempotency_records
               SET status = ?, recovery_point = 'finished', lease_expires_at = NULL, response_status = ?,
                   response_headers = CAST(? AS jsonb), response_body = ?, resource_type = ?, resource_id = ?,
                   completed_at = ?, expires_at = ?, finished_by = ?, finished_by_ref = ?,""" + FIRST_ANSWER + """

             WHERE id = ?""";

    private final AgroalDataSource dataSource;
    private final SqlRows sql;
    private final ObjectMapper json;

    public PostgresIdempotencyStore(AgroalDataSource dataSource, SqlRows sql, ObjectMapper json) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.json = json;
    }

    @Override
    public ClaimOutcome claim(IdempotentRequest<?> request, String recoveryPoint, Instant now, Instant leaseExpiresAt,
                       Instant expiresAt) {
        return insertClaim(CLAIM, false, claim -> {
            bindScopeAndFingerprint(claim, 1, request);
            claim.setString(5, recoveryPoint);
            SqlRows.setInstant(claim, 6, leaseExpiresAt);
            claim.setString(7, request.requestId());
            claim.setString(8, request.storedBody());
            SqlRows.setInstant(claim, 9, now);
            SqlRows.setInstant(claim, 10, expiresAt);
            claim.setString(11, request.requestIds().clientId());
        });
    }

    @Override
    public ClaimOutcome claimFinished(IdempotentRequest<?> request, IdempotencyRecord.Status status, StoredResponse response,
                               Instant now, Instant answeredAt, Instant expiresAt, ClaimWrites writes,
                               Optional<ClaimPrecondition> precondition) {
        String statement = "WITH held AS (SELECT (" + precondition.map(ClaimPrecondition::condition).orElse("TRUE")
                + ") AS holds),\nclaim AS (" + CLAIM_FINISHED + ")"
                + (writes.isEmpty() ? "" : ",\n" + writes.withQueries())
                + "\nSELECT (SELECT id FROM claim), (SELECT holds FROM held)";
        List<Object> conditionParameters = precondition.map(ClaimPrecondition::parameters).orElse(List.of());
        int first = conditionParameters.size() + 1;
        try {
            return insertClaim(statement, true, claim -> {
                SqlRows.bind(claim, 1, conditionParameters.toArray());
                bindScopeAndFingerprint(claim, first, request);
                claim.setString(first + 4, status.name());
                claim.setString(first + 5, request.requestId());
                claim.setString(first + 6, request.storedBody());
                SqlRows.setInstant(claim, first + 7, now);
                SqlRows.setInstant(claim, first + 8, expiresAt);
                bindResponse(claim, first + 9, response);
                SqlRows.setInstant(claim, first + 14, answeredAt);
                claim.setString(first + 15, request.requestId());
                claim.setInt(first + 16, response.status());
                SqlRows.setInstant(claim, first + 17, answeredAt);
                claim.setString(first + 18, request.requestIds().clientId());
                SqlRows.bind(claim, first + 19, writes.parameters().toArray());
            });
        } catch (IllegalStateException failed) {
            Optional<BusinessRefusal> refusal = constraintBrokenBy(failed.getCause()).flatMap(writes::refusalOn);
            throw refusal.isPresent() ? refusal.get() : failed;
        }
    }

    /** The constraint an integrity violation names; empty for any other failure. */
    private static Optional<String> constraintBrokenBy(Throwable failure) {
        if (failure instanceof PSQLException server && server.getSQLState() != null
                && server.getSQLState().startsWith(INTEGRITY_CONSTRAINT_VIOLATION)
                && server.getServerErrorMessage() != null) {
            return Optional.ofNullable(server.getServerErrorMessage().getConstraint());
        }
        return Optional.empty();
    }

    /** Binds a claim's scope and fingerprint, from {@code first} on: user, operation, key, fingerprint. */
    private static void bindScopeAndFingerprint(PreparedStatement claim, int first, IdempotentRequest<?> request)
            throws SQLException {
        claim.setString(first, request.userId());
        claim.setString(first + 1, request.operation());
        claim.setString(first + 2, request.key().value());
        claim.setString(first + 3, request.fingerprint());
    }

    /**
     * Runs a claim's statement. Its row, if any, holds the inserted id (or NULL) and, {@code answersHeld} (a finished
     * claim's), whether the precondition held; no row, or a NULL id where the precondition held, means the scope was
     * taken.
     */
    private ClaimOutcome insertClaim(String statement, boolean answersHeld, Binder binder) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement claim = connection.prepareStatement(statement);
             ResultSet row = bindAndQuery(claim, binder)) {
            if (!row.next()) {
                return SCOPE_TAKEN;
            }
            long id = row.getLong(1);
            if (!row.wasNull()) {
                return new Inserted(id);
            }
            return answersHeld && !row.getBoolean(2) ? PRECONDITION_FAILED : SCOPE_TAKEN;
        } catch (SQLException e) {
            throw new IllegalStateException("claim failed", e);
        }
    }

    /** The record of a scope, read through its unique index. */
    @Override
    public Optional<IdempotencyRecord> findByScope(String userId, String operation, String key) {
        return readOne(FIND + "user_id = ? AND operation = ? AND idempotency_key = ?", find -> {
            find.unwrap(PGStatement.class).setPrepareThreshold(0);
            find.setString(1, userId);
            find.setString(2, operation);
            find.setString(3, key);
        });
    }

    @Override
    public Optional<IdempotencyRecord> findById(long recordId) {
        return readOne(FIND + "id = ?", find -> find.setLong(1, recordId));
    }

    /** Binds {@link #FIRST_ANSWER}'s four parameters from {@code first} on; a null request sets nothing. */
    private static void bindFirstAnswer(PreparedStatement statement, int first, String answeringRequest,
                                        Integer status, Instant at) throws SQLException {
        statement.setString(first, answeringRequest);
        if (status == null) {
            statement.setNull(first + 1, Types.SMALLINT);
        } else {
            statement.setInt(first + 1, status);
        }
        statement.setString(first + 2, answeringRequest);
        SqlRows.setInstant(statement, first + 3, at);
    }

    /** What a record's {@code finished_by} calls {@code cause}: a provider's answer to a request is that request's. */
    private static String finishedBy(Cause cause) {
        return Cause.PROVIDER_ANSWER.equals(cause.kind()) ? "request" : cause.kind();
    }

    /** The request that {@code cause} answers, or null when no client waits on it (a job, a webhook, an admin). */
    private static String answeringRequest(Cause cause) {
        return Cause.PROVIDER_ANSWER.equals(cause.kind()) ? cause.ref() : null;
    }

    /** Binds the response's status, headers, body, resource type and resource id, from parameter {@code first} on. */
    private void bindResponse(PreparedStatement statement, int first, StoredResponse response) throws SQLException {
        statement.setInt(first, response.status());
        statement.setString(first + 1, toJson(response.headers()));
        statement.setBytes(first + 2, response.body());
        statement.setString(first + 3, response.resourceType());
        statement.setString(first + 4, response.resourceId());
    }

    @Override
    public boolean complete(long recordId, IdempotencyRecord.Status status, StoredResponse response, Instant now,
                     Instant expiresAt, Applier applier, Cause finisher) {
        return update(COMPLETE + conditionOf(applier), statement -> {
            statement.setString(1, status.name());
            bindResponse(statement, 2, response);
            SqlRows.setInstant(statement, 7, now);
            SqlRows.setInstant(statement, 8, expiresAt);
            statement.setString(9, finishedBy(finisher));
            statement.setString(10, finisher.ref());
            bindFirstAnswer(statement, 11, answeringRequest(finisher), response.status(), now);
            statement.setLong(15, recordId);
            SqlRows.setInstant(statement, 16, instantOf(applier));
        }) == 1;
    }

    @Override
    public boolean checkpoint(long recordId, Checkpoint checkpoint, Instant leaseExpiresAt, Instant recoverAfter,
                           Applier applier, Cause caller, Integer answer, Instant now) {
        return update("""
                UPDATE idempotency_records
                   SET recovery_point = ?, resource_type = ?, resource_id = ?,
                       lease_expires_at = COALESCE(?, lease_expires_at), recover_after = COALESCE(?, recover_after),"""
                + FIRST_ANSWER + """

                 WHERE id = ?""" + conditionOf(applier), statement -> {
            statement.setString(1, checkpoint.recoveryPoint());
            statement.setString(2, checkpoint.resourceType());
            statement.setString(3, checkpoint.resourceId());
            SqlRows.setInstant(statement, 4, leaseExpiresAt);
            SqlRows.setInstant(statement, 5, recoverAfter);
            bindFirstAnswer(statement, 6, answer == null ? null : answeringRequest(caller), answer, now);
            statement.setLong(10, recordId);
            SqlRows.setInstant(statement, 11, instantOf(applier));
        }) == 1;
    }

    @Override
    public Optional<TakenOver> takeOver(long recordId, Instant now, Instant leaseExpiresAt) {
        return sql.list("""
                        UPDATE idempotency_records SET lease_expires_at = ?
                         WHERE id = ? AND status = 'PROCESSING' AND lease_expires_at <= ?
                        RETURNING operation, recovery_point, resource_type, resource_id""",
                row -> new TakenOver(row.getString(1),
                        new Checkpoint(row.getString(2), row.getString(3), row.getString(4)), leaseExpiresAt),
                leaseExpiresAt, recordId, now).stream().findFirst();
    }

    @Override
    public boolean release(long recordId, String recoveryPoint, Instant now) {
        return sql.update("""
                DELETE FROM idempotency_records
                 WHERE id = ? AND status = 'PROCESSING' AND recovery_point = ? AND lease_expires_at <= ?""",
                recordId, recoveryPoint, now) == 1;
    }

    @Override
    public void recordConflict(long recordId, IdempotentRequest<?> request, String originalFingerprint, Instant now) {
        sql.update("""
                INSERT INTO idempotency_conflicts (record_id, user_id, operation, idempotency_key, original_fingerprint,
                    conflicting_fingerprint, request_id, client_request_id, refused_body, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)""",
                recordId, request.userId(), request.operation(), request.key().value(), originalFingerprint,
                request.fingerprint(), request.requestId(), request.requestIds().clientId(), request.storedBody(), now);
    }

    @Override
    public List<Long> expiredLeases(Instant now, int limit) {
        return sql.list("""
                        SELECT id FROM idempotency_records
                         WHERE status = 'PROCESSING' AND lease_expires_at <= ?
                           AND (recover_after IS NULL OR recover_after <= ?)
                         ORDER BY lease_expires_at LIMIT ?""",
                row -> row.getLong(1), now, now, limit);
    }

    /**
     * The condition under which {@code applier} may change a record: its holder while its lease is still the
     * record's; an outsider while no live lease holds it. Its one parameter is {@link #instantOf}.
     */
    private static String conditionOf(Applier applier) {
        return applier instanceof Holder
                ? " AND status = 'PROCESSING' AND lease_expires_at = ?"
                : " AND status = 'PROCESSING' AND lease_expires_at <= ?";
    }

    private static Instant instantOf(Applier applier) {
        return applier instanceof Holder holder ? holder.lease() : ((Outsider) applier).now();
    }

    /**
     * Picks its rows with {@code FOR UPDATE SKIP LOCKED}; a keeper's resources are matched by the record's resource
     * type and id, through the keeper's own index, never by a scan of its table per record.
     */
    @Override
    public int expire(Instant cutoff, int limit, List<RecordKeeper> keepers) {
        StringBuilder kept = new StringBuilder();
        List<Object> parameters = new ArrayList<>();
        parameters.add(cutoff);
        for (RecordKeeper keeper : keepers) {
            kept.append("\n                   AND NOT EXISTS (SELECT 1 FROM (").append(keeper.unfinishedResources())
                    .append(") AS unfinished (id) WHERE r.resource_type = ? AND unfinished.id = r.resource_id)");
            parameters.add(keeper.resourceType());
        }
        parameters.add(limit);
        return sql.update("""
                DELETE FROM idempotency_records WHERE id IN (
                    SELECT r.id FROM idempotency_records r
                     WHERE r.status <> 'PROCESSING' AND r.expires_at < ?""" + kept + """

                     ORDER BY r.expires_at LIMIT ? FOR UPDATE SKIP LOCKED)""", parameters.toArray());
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private int update(String change, Binder binder) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(change)) {
            binder.bind(statement);
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("record update failed", e);
        }
    }

    private Optional<IdempotencyRecord> readOne(String statement, Binder binder) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement find = connection.prepareStatement(statement);
             ResultSet row = bindAndQuery(find, binder)) {
            if (!row.next()) {
                return Optional.empty();
            }
            IdempotencyRecord.Status status = IdempotencyRecord.Status.valueOf(row.getString("status"));
            int responseStatus = row.getInt("response_status");
            StoredResponse response = row.wasNull() ? null : new StoredResponse(responseStatus,
                    fromJson(row.getString("response_headers")), row.getBytes("response_body"),
                    row.getString("resource_type"), row.getString("resource_id"));
            return Optional.of(new IdempotencyRecord(row.getLong("id"), row.getString("fingerprint"), status,
                    row.getString("recovery_point"), SqlRows.instant(row, "lease_expires_at"), response,
                    SqlRows.instant(row, "expires_at")));
        } catch (SQLException e) {
            throw new IllegalStateException("record lookup failed", e);
        }
    }

    private static ResultSet bindAndQuery(PreparedStatement statement, Binder binder) throws SQLException {
        binder.bind(statement);
        return statement.executeQuery();
    }

    private String toJson(Map<String, String> headers) {
        try {
            return json.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private Map<String, String> fromJson(String headers) {
        if (headers == null) {
            return Map.of();
        }
        try {
            return json.readValue(headers, new TypeReference<Map<String, String>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored response headers unreadable", e);
        }
    }
}

package dev.onceguard.idempotency;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.idempotency.IdempotentResponse.Outcome;
import dev.onceguard.platform.JsonRequests;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.Timestamps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.ws.rs.core.HttpHeaders;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The idempotency engine: runs an operation at most once per (user, operation, key) and answers every
 * retry with the first result.
 *
 * <p>For a local operation the whole flow is one transaction:
 * <ol>
 *   <li><b>claim</b>: insert the record as PROCESSING; the UNIQUE scope makes a concurrent duplicate wait here
 *       until the first commits or rolls back;</li>
 *   <li><b>existing record</b>: if the claim found one, answer from it: replay, 422 on another fingerprint,
 *       409 while it is still PROCESSING;</li>
 *   <li><b>execute</b>: the operation's own writes;</li>
 *   <li><b>complete</b>: store the response on the record; commit makes record and effects visible together.</li>
 * </ol>
 * A {@link BusinessRefusal} rolls the operation's writes back and is stored as the result in a transaction of its
 * own; any other failure rolls everything back and stores nothing, so the same key may be used again.
 */
@ApplicationScoped
@Startup
public class IdempotencyService {

    private static final Logger LOG = Logger.getLogger(IdempotencyService.class);
    private static final int MAX_CLAIM_ATTEMPTS = 3;

    private final EntityManager em;
    private final JsonRequests jsonRequests;
    private final ObjectMapper json;
    private final IdempotencyConfig config;
    private final Map<Operation, Map<Outcome, Counter>> requests = new EnumMap<>(Operation.class);

    public IdempotencyService(EntityManager em, JsonRequests jsonRequests, ObjectMapper json,
                              IdempotencyConfig config, MeterRegistry registry) {
        this.em = em;
        this.jsonRequests = jsonRequests;
        this.json = json;
        this.config = config;
        for (Operation operation : Operation.values()) {
            Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
            for (Outcome outcome : Outcome.values()) {
                byOutcome.put(outcome, Counter.builder("onceguard.idempotency.requests")
                        .description("Idempotent requests by operation and outcome")
                        .tag("operation", operation.wireName())
                        .tag("outcome", outcome.label())
                        .register(registry));
            }
            requests.put(operation, byOutcome);
        }
    }

    /**
     * Validates everything a request carries before anything runs: the key, the JSON body and its constraints.
     * A refusal here stores nothing.
     */
    public <T> IdempotentRequest<T> request(Operation operation, String userId, String keyHeader, String requestId,
                                            Map<String, String> pathParameters, byte[] body, Class<T> type) {
        try {
            IdempotencyKey key = IdempotencyKey.parse(keyHeader);
            JsonRequests.Parsed<T> parsed = jsonRequests.read(body, type);
            String fingerprint = Fingerprint.of(pathParameters, parsed.tree());
            return new IdempotentRequest<>(operation, userId, key, fingerprint, requestId, parsed.value());
        } catch (ProblemException e) {
            count(operation, Outcome.REJECTED);
            throw e;
        }
    }

    /** Runs a local operation once, in one transaction with its record; see the class comment for the phases. */
    public <T> IdempotentResponse execute(IdempotentRequest<T> request, Function<T, StoredResponse> operation) {
        IdempotentResponse response = null;
        for (int attempt = 1; response == null && attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
            try {
                response = QuarkusTransaction.requiringNew().call(() -> claimAndExecute(request, operation));
            } catch (BusinessRefusal refusal) {
                response = storeRefusal(request, refusal.problem());
            } catch (ProblemException rejected) {
                count(request.operation(), Outcome.REJECTED);
                throw rejected;
            }
        }
        if (response == null) {
            throw new IllegalStateException("idempotency record for request " + request.requestId()
                    + " vanished " + MAX_CLAIM_ATTEMPTS + " times between claim and read");
        }
        count(request.operation(), response.outcome());
        return response;
    }

    private <T> IdempotentResponse claimAndExecute(IdempotentRequest<T> request, Function<T, StoredResponse> operation) {
        Instant now = Timestamps.now();
        Long recordId = claim(request, now);
        if (recordId == null) {
            return answerFromExistingRecord(request, now);
        }
        StoredResponse result = operation.apply(request.body());
        complete(recordId, IdempotencyRecord.Status.COMPLETED, result, request.operation(), Timestamps.now());
        LOG.debugf("executed %s key=%s record=%d", request.operation().wireName(), request.key().value(), recordId);
        return new IdempotentResponse(Outcome.EXECUTED, result);
    }

    /** Inserts the PROCESSING record; null when the scope already has one (possibly after waiting for it). */
    private Long claim(IdempotentRequest<?> request, Instant now) {
        List<?> inserted = em.createNativeQuery("""
                        INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
                            recovery_point, lease_expires_at, request_id, created_at, expires_at)
                        VALUES (:userId, :operation, :key, :fingerprint, 'PROCESSING', 'started', :leaseExpiresAt,
                            :requestId, :now, :expiresAt)
                        ON CONFLICT (user_id, operation, idempotency_key) DO NOTHING
                        RETURNING id""")
                .setParameter("userId", request.userId())
                .setParameter("operation", request.operation().wireName())
                .setParameter("key", request.key().value())
                .setParameter("fingerprint", request.fingerprint())
                .setParameter("leaseExpiresAt", now.plus(config.lease()))
                .setParameter("requestId", request.requestId())
                .setParameter("now", now)
                .setParameter("expiresAt", now.plus(retentionOf(request.operation())))
                .getResultList();
        return inserted.isEmpty() ? null : ((Number) inserted.get(0)).longValue();
    }

    /** Answers a request whose scope already has a record; null if that record is gone (retention ran between). */
    private IdempotentResponse answerFromExistingRecord(IdempotentRequest<?> request, Instant now) {
        IdempotencyRecord record = IdempotencyRecord.findByScope(
                request.userId(), request.operation().wireName(), request.key().value()).orElse(null);
        if (record == null) {
            return null;
        }
        if (!record.fingerprint.equals(request.fingerprint())) {
            recordConflict(record, request, now);
            return refusal(Outcome.CONFLICT, Problem.of(422, "IDEMPOTENCY_KEY_REUSED", "Idempotency-Key reused",
                    "This Idempotency-Key was already used for a different request. Use a new key for a new request."), Map.of());
        }
        if (!record.isFinished()) {
            long seconds = Math.max(1, Duration.between(now, record.leaseExpiresAt).toSeconds());
            return refusal(Outcome.IN_PROGRESS, Problem.of(409, "OPERATION_IN_PROGRESS", "Operation in progress",
                    "The first request with this Idempotency-Key is still running. Retry later with the same key."),
                    Map.of("Retry-After", Long.toString(seconds)));
        }
        IdempotencyRecord.update("replayCount = replayCount + 1, lastReplayedAt = ?1 where id = ?2", now, record.id);
        return new IdempotentResponse(Outcome.REPLAYED, record.storedResponse());
    }

    private void recordConflict(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
        IdempotencyConflict conflict = new IdempotencyConflict();
        conflict.recordId = record.id;
        conflict.userId = record.userId;
        conflict.operation = record.operation;
        conflict.idempotencyKey = record.idempotencyKey;
        conflict.originalFingerprint = record.fingerprint;
        conflict.conflictingFingerprint = request.fingerprint();
        conflict.requestId = request.requestId();
        conflict.createdAt = now;
        conflict.persist();
        LOG.infof("idempotency key reused with another payload: operation=%s record=%d", record.operation, record.id);
    }

    /** Stores a deterministic refusal as the operation's result, unless a concurrent request finished it first. */
    private IdempotentResponse storeRefusal(IdempotentRequest<?> request, Problem problem) {
        StoredResponse refusal = problemResponse(problem, Map.of());
        return QuarkusTransaction.requiringNew().call(() -> {
            Instant now = Timestamps.now();
            Long recordId = claim(request, now);
            if (recordId == null) {
                return answerFromExistingRecord(request, now);
            }
            complete(recordId, IdempotencyRecord.Status.FAILED, refusal, request.operation(), now);
            return new IdempotentResponse(Outcome.EXECUTED, refusal);
        });
    }

    private void complete(long recordId, IdempotencyRecord.Status status, StoredResponse response,
                          Operation operation, Instant now) {
        int updated = em.createNativeQuery("""
                        UPDATE idempotency_records
                           SET status = :status, recovery_point = 'finished', lease_expires_at = NULL,
                               response_status = :responseStatus, response_headers = CAST(:headers AS jsonb),
                               response_body = :body, resource_type = :resourceType, resource_id = :resourceId,
                               completed_at = :now, expires_at = :expiresAt
                         WHERE id = :id AND status = 'PROCESSING'""")
                .unwrap(NativeQuery.class)
                .setParameter("status", status.name())
                .setParameter("responseStatus", response.status())
                .setParameter("headers", toJson(response.headers()))
                .setParameter("body", response.body(), StandardBasicTypes.BINARY)
                .setParameter("resourceType", response.resourceType(), StandardBasicTypes.STRING)
                .setParameter("resourceId", response.resourceId(), StandardBasicTypes.STRING)
                .setParameter("now", now)
                .setParameter("expiresAt", now.plus(retentionOf(operation)))
                .setParameter("id", recordId)
                .executeUpdate();
        if (updated != 1) {
            throw new IllegalStateException("record " + recordId + " was no longer PROCESSING when completing it");
        }
    }

    private IdempotentResponse refusal(Outcome outcome, Problem problem, Map<String, String> headers) {
        return new IdempotentResponse(outcome, problemResponse(problem, headers));
    }

    /** A problem as a storable response: the bytes written now are the bytes every replay returns. */
    public StoredResponse problemResponse(Problem problem, Map<String, String> extraHeaders) {
        Map<String, String> headers = new HashMap<>(extraHeaders);
        headers.put(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
        return new StoredResponse(problem.status(), headers, toBytes(problem), null, null);
    }

    /** A JSON body as a storable response. */
    public StoredResponse jsonResponse(int status, Object body, Map<String, String> extraHeaders,
                                       String resourceType, String resourceId) {
        Map<String, String> headers = new HashMap<>(extraHeaders);
        headers.put(HttpHeaders.CONTENT_TYPE, "application/json");
        return new StoredResponse(status, headers, toBytes(body), resourceType, resourceId);
    }

    private Duration retentionOf(Operation operation) {
        return config.retentionOf(operation.wireName());
    }

    private void count(Operation operation, Outcome outcome) {
        requests.get(operation).get(outcome).increment();
    }

    private byte[] toBytes(Object body) {
        try {
            return json.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("response body not serializable", e);
        }
    }

    private String toJson(Map<String, String> headers) {
        try {
            return json.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

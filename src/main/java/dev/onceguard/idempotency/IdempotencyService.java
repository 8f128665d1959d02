package dev.onceguard.idempotency;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.idempotency.IdempotentResponse.Outcome;
import dev.onceguard.platform.HourlyActivity;
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
import jakarta.transaction.Transactional;
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
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

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
 *
 * <p>An operation that calls out runs as a {@link PhasedOperation}: the claim commits with the operation's first
 * writes and a lease; the record stays PROCESSING until the outcome is known. A retry that finds it PROCESSING
 * with an expired lease takes it over with a conditional UPDATE and resumes from its {@link Checkpoint}.
 */
@ApplicationScoped
@Startup
public class IdempotencyService {

    private static final Logger LOG = Logger.getLogger(IdempotencyService.class);
    private static final int MAX_CLAIM_ATTEMPTS = 3;
    /** The recovery point of a record whose operation has made no external call and kept no work yet. */
    public static final String STARTED = "started";

    private final EntityManager em;
    private final JsonRequests jsonRequests;
    private final ObjectMapper json;
    private final IdempotencyConfig config;
    private final HourlyActivity activity;
    private final Map<Operation, Map<Outcome, Counter>> requests = new EnumMap<>(Operation.class);

    public IdempotencyService(EntityManager em, JsonRequests jsonRequests, ObjectMapper json,
                              IdempotencyConfig config, HourlyActivity activity, MeterRegistry registry) {
        this.em = em;
        this.activity = activity;
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
        return counted(request, () -> replayIfFinished(request)
                .orElseGet(() -> QuarkusTransaction.requiringNew().call(() -> claimAndExecute(request, operation))));
    }

    /** Runs an operation that calls out: phase (a) with the claim, then phases (b) and (c) outside it. */
    public <T> IdempotentResponse execute(IdempotentRequest<T> request, PhasedOperation<T> operation) {
        return counted(request, () -> replayIfFinished(request).orElseGet(() -> {
            Started started = claimAndStart(request, operation);
            if (started == null) {
                return null;
            }
            return started.answer() != null ? started.answer() : operation.resume(started.recordId(), started.checkpoint());
        }));
    }

    /**
     * The common retry, answered without claiming: a finished record with the same fingerprint is replayed at the
     * cost of one read and the replay-count update. That update is committed without waiting for the disk
     * ({@code synchronous_commit = off}): a crash may lose the last few counts, never a result.
     */
    private Optional<IdempotentResponse> replayIfFinished(IdempotentRequest<?> request) {
        return QuarkusTransaction.requiringNew().call(() -> {
            IdempotencyRecord record = findRecord(request);
            if (record == null || !record.isFinished() || !record.fingerprint.equals(request.fingerprint())) {
                return Optional.empty();
            }
            em.createNativeQuery("SET LOCAL synchronous_commit TO OFF").executeUpdate();
            return Optional.of(answerFrom(record, request, Timestamps.now()));
        });
    }

    private record Started(IdempotentResponse answer, Long recordId, Checkpoint checkpoint) {
    }

    private <T> IdempotentResponse counted(IdempotentRequest<T> request, Supplier<IdempotentResponse> attempt) {
        IdempotentResponse response = null;
        for (int i = 1; response == null && i <= MAX_CLAIM_ATTEMPTS; i++) {
            try {
                response = attempt.get();
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

    private <T> Started claimAndStart(IdempotentRequest<T> request, PhasedOperation<T> operation) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Instant now = Timestamps.now();
            Long recordId = claimReleasingAbandoned(request, now);
            if (recordId == null) {
                return takeOverOrAnswer(request, now);
            }
            Checkpoint checkpoint = operation.start(request.body(), recordId);
            saveCheckpoint(recordId, checkpoint);
            return new Started(null, recordId, checkpoint);
        });
    }

    /** An existing record either answers the request, or, when its lease has expired, is taken over here. */
    private Started takeOverOrAnswer(IdempotentRequest<?> request, Instant now) {
        IdempotencyRecord record = IdempotencyRecord.findByScope(
                request.userId(), request.operation().wireName(), request.key().value()).orElse(null);
        if (record != null && record.fingerprint.equals(request.fingerprint()) && !record.isFinished()
                && !record.leaseExpiresAt.isAfter(now)) {
            Optional<Checkpoint> checkpoint = takeOver(record.id);
            if (checkpoint.isPresent()) {
                return new Started(null, record.id, checkpoint.get());
            }
        }
        IdempotentResponse answer = answerFrom(record, request, now);
        return answer == null ? null : new Started(answer, null, null);
    }

    private <T> IdempotentResponse claimAndExecute(IdempotentRequest<T> request, Function<T, StoredResponse> operation) {
        Instant now = Timestamps.now();
        Long recordId = claimReleasingAbandoned(request, now);
        if (recordId == null) {
            return answerFrom(findRecord(request), request, now);
        }
        StoredResponse result = operation.apply(request.body());
        if (!complete(recordId, IdempotencyRecord.Status.COMPLETED, result, request.operation(), Timestamps.now())) {
            throw new IllegalStateException("record " + recordId + " was finished by someone else inside its own transaction");
        }
        LOG.debugf("executed %s key=%s record=%d", request.operation().wireName(), request.key().value(), recordId);
        return new IdempotentResponse(Outcome.EXECUTED, result);
    }

    /**
     * Claims the scope; a record of the same request abandoned at {@link #STARTED} (its process died before any
     * external call, so none of its work survived) is released first and the claim made again.
     */
    private Long claimReleasingAbandoned(IdempotentRequest<?> request, Instant now) {
        Long recordId = claim(request, now);
        if (recordId == null) {
            IdempotencyRecord record = findRecord(request);
            if (record != null && record.fingerprint.equals(request.fingerprint()) && releaseIfAbandoned(record.id)) {
                recordId = claim(request, now);
            }
        }
        return recordId;
    }

    /**
     * Deletes a PROCESSING record whose lease expired at recovery point {@link #STARTED}, with a conditional DELETE
     * so that of two releasers exactly one succeeds. The key may then be used again.
     */
    public boolean releaseIfAbandoned(long recordId) {
        return QuarkusTransaction.joiningExisting().call(() -> em.createNativeQuery("""
                        DELETE FROM idempotency_records
                         WHERE id = :id AND status = 'PROCESSING' AND recovery_point = :started AND lease_expires_at <= :now""")
                .setParameter("id", recordId)
                .setParameter("started", STARTED)
                .setParameter("now", Timestamps.now())
                .executeUpdate() == 1);
    }

    /** Inserts the PROCESSING record; null when the scope already has one (possibly after waiting for it). */
    private Long claim(IdempotentRequest<?> request, Instant now) {
        List<?> inserted = em.createNativeQuery("""
                        INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status,
                            recovery_point, lease_expires_at, request_id, created_at, expires_at)
                        VALUES (:userId, :operation, :key, :fingerprint, 'PROCESSING', :started, :leaseExpiresAt,
                            :requestId, :now, :expiresAt)
                        ON CONFLICT (user_id, operation, idempotency_key) DO NOTHING
                        RETURNING id""")
                .setParameter("userId", request.userId())
                .setParameter("operation", request.operation().wireName())
                .setParameter("key", request.key().value())
                .setParameter("fingerprint", request.fingerprint())
                .setParameter("started", STARTED)
                .setParameter("leaseExpiresAt", now.plus(config.lease()))
                .setParameter("requestId", request.requestId())
                .setParameter("now", now)
                .setParameter("expiresAt", now.plus(retentionOf(request.operation())))
                .getResultList();
        return inserted.isEmpty() ? null : ((Number) inserted.get(0)).longValue();
    }

    private IdempotencyRecord findRecord(IdempotentRequest<?> request) {
        return IdempotencyRecord.findByScope(request.userId(), request.operation().wireName(), request.key().value())
                .orElse(null);
    }

    /** Answers a request from its scope's record; null if that record is gone (retention ran in between). */
    private IdempotentResponse answerFrom(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
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
                return answerFrom(findRecord(request), request, now);
            }
            if (!complete(recordId, IdempotencyRecord.Status.FAILED, refusal, request.operation(), now)) {
                throw new IllegalStateException("record " + recordId + " was finished by someone else inside its own transaction");
            }
            return new IdempotentResponse(Outcome.EXECUTED, refusal);
        });
    }

    /**
     * Stores the final response on a PROCESSING record, inside the caller's transaction (the one that also commits
     * the operation's outcome).
     *
     * @return false when the record was no longer PROCESSING: someone else finished it first
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean complete(long recordId, IdempotencyRecord.Status status, StoredResponse response,
                            Operation operation, Instant now) {
        return em.createNativeQuery("""
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
                .executeUpdate() == 1;
    }

    /**
     * Leaves a record unfinished at a checkpoint and gives up its lease at once, so that the next retry or the
     * recovery job may take it over without waiting.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void leaveUnfinished(long recordId, Checkpoint checkpoint) {
        IdempotencyRecord.update("recoveryPoint = ?1, resourceType = ?2, resourceId = ?3, leaseExpiresAt = ?4 "
                        + "where id = ?5 and status = ?6", checkpoint.recoveryPoint(), checkpoint.resourceType(),
                checkpoint.resourceId(), Timestamps.now(), recordId, IdempotencyRecord.Status.PROCESSING);
    }

    /**
     * Takes over a PROCESSING record whose lease has expired, with a conditional UPDATE so that of two takers
     * (a retry, the recovery job, another replica) exactly one wins.
     *
     * @return the checkpoint to resume from, or empty when the lease is live, the record finished, or another won
     */
    public Optional<Checkpoint> takeOver(long recordId) {
        Instant now = Timestamps.now();
        List<?> rows = QuarkusTransaction.joiningExisting().call(() -> em.createNativeQuery("""
                        UPDATE idempotency_records SET lease_expires_at = :leaseExpiresAt
                         WHERE id = :id AND status = 'PROCESSING' AND lease_expires_at <= :now
                        RETURNING recovery_point, resource_type, resource_id""")
                .setParameter("leaseExpiresAt", now.plus(config.lease()))
                .setParameter("id", recordId)
                .setParameter("now", now)
                .getResultList());
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Object[] row = (Object[]) rows.get(0);
        return Optional.of(new Checkpoint((String) row[0], (String) row[1], (String) row[2]));
    }

    private void saveCheckpoint(long recordId, Checkpoint checkpoint) {
        IdempotencyRecord.update("recoveryPoint = ?1, resourceType = ?2, resourceId = ?3 where id = ?4",
                checkpoint.recoveryPoint(), checkpoint.resourceType(), checkpoint.resourceId(), recordId);
    }

    /** The stored answer of a finished record, for a caller that lost the race to finish it. */
    public Optional<IdempotentResponse> replayOf(long recordId) {
        return QuarkusTransaction.joiningExisting().call(() -> IdempotencyRecord.<IdempotencyRecord>findByIdOptional(recordId)
                .filter(IdempotencyRecord::isFinished)
                .map(record -> new IdempotentResponse(Outcome.REPLAYED, record.storedResponse())));
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
        activity.record("requests." + outcome.label());
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

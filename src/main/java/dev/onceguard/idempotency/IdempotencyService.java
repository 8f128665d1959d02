package dev.onceguard.idempotency;

import dev.onceguard.platform.LogContext;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.idempotency.IdempotentResponse.Outcome;
import dev.onceguard.platform.Cause;
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
import jakarta.enterprise.inject.Instance;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.core.HttpHeaders;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The idempotency engine: runs an operation at most once per (user, operation, key) and answers every
 * retry with the first result.
 *
 * <p>For a local operation the whole flow is one transaction:
 * <ol>
 *   <li><b>claim</b>: insert the record as PROCESSING; the UNIQUE scope makes a concurrent duplicate wait here
 *       until the first commits or rolls back;</li>
 *   <li><b>existing record</b>: only if the claim found one, read it by the scope: replay, 422 on another
 *       fingerprint, 409 while it is still PROCESSING;</li>
 *   <li><b>execute</b>: the operation's own writes;</li>
 *   <li><b>complete</b>: store the response on the record, by primary key; commit makes record and effects visible
 *       together.</li>
 * </ol>
 * A replay is a read, never a write: a finished record this replica has already read is answered from memory
 * ({@link FinishedRecords}), and its replay count and request log row are written later in a batch
 * ({@link RequestLog}). A {@link BusinessRefusal} rolls the operation's writes back and is stored as the result in a
 * transaction of its own; any other failure rolls everything back and stores nothing, so the same key may be used
 * again.
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

    private final IdempotencyRecords records;
    private final FinishedRecords finished;
    private final RequestLog requestLog;
    private final JsonRequests jsonRequests;
    private final ObjectMapper json;
    private final IdempotencyConfig config;
    private final HourlyActivity activity;
    private final Instance<ResumableOperation> resumables;
    private final Map<Operation, Map<Outcome, Counter>> requests = new EnumMap<>(Operation.class);

    public IdempotencyService(IdempotencyRecords records, FinishedRecords finished, RequestLog requestLog,
                              JsonRequests jsonRequests, ObjectMapper json, IdempotencyConfig config,
                              HourlyActivity activity, MeterRegistry registry, Instance<ResumableOperation> resumables) {
        this.records = records;
        this.resumables = resumables;
        this.finished = finished;
        this.requestLog = requestLog;
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
     * A refusal here stores nothing. The body is kept on the record as sent.
     */
    public <T> IdempotentRequest<T> request(Operation operation, String userId, String keyHeader, String requestId,
                                            Map<String, String> pathParameters, byte[] body, Class<T> type) {
        return request(operation, userId, keyHeader, requestId, pathParameters, body, type, UnaryOperator.identity());
    }

    /**
     * As {@link #request(Operation, String, String, String, Map, byte[], Class)}, with what the record may keep of
     * the body: {@code forStorage} gets a copy of the parsed body and returns it as it may be stored.
     */
    public <T> IdempotentRequest<T> request(Operation operation, String userId, String keyHeader, String requestId,
                                            Map<String, String> pathParameters, byte[] body, Class<T> type,
                                            UnaryOperator<JsonNode> forStorage) {
        try {
            IdempotencyKey key = IdempotencyKey.parse(keyHeader);
            JsonRequests.Parsed<T> parsed = jsonRequests.read(body, type);
            String fingerprint = Fingerprint.of(pathParameters, parsed.tree());
            return new IdempotentRequest<>(operation, userId, key, fingerprint, requestId, parsed.value(),
                    toJson(forStorage.apply(parsed.tree().deepCopy())));
        } catch (ProblemException e) {
            count(operation, Outcome.REJECTED);
            throw e;
        }
    }

    /** An engine answer and what the request log keeps of it. */
    private record Answer(IdempotentResponse response, long recordId, RequestLog.Outcome logged) {
    }

    /** How one attempt ended: answered, or the record it met was deleted before it could be read (try again). */
    private sealed interface Attempt permits Answered, RecordVanished {
    }

    private record Answered(Answer answer) implements Attempt {
    }

    private record RecordVanished() implements Attempt {
    }

    private static final Attempt RECORD_VANISHED = new RecordVanished();

    /** Runs a local operation once, in one transaction with its record; see the class comment for the phases. */
    public <T> IdempotentResponse execute(IdempotentRequest<T> request, Function<T, StoredResponse> operation) {
        return answered(request, () -> QuarkusTransaction.requiringNew().call(() -> claimAndExecute(request, operation)));
    }

    /** Runs an operation that calls out: phase (a) with the claim, then phases (b) and (c) outside it. */
    public <T> IdempotentResponse execute(IdempotentRequest<T> request, PhasedOperation<T> operation) {
        return answered(request, () -> {
            Started started = QuarkusTransaction.requiringNew().call(() -> claimAndStart(request, operation));
            if (started instanceof Resume resume) {
                IdempotentResponse response = operation.resume(resume.recordId(), resume.checkpoint());
                return new Answered(new Answer(response, resume.recordId(), RequestLog.Outcome.EXECUTED));
            }
            return ((AnsweredStart) started).attempt();
        });
    }

    private sealed interface Started permits Resume, AnsweredStart {
    }

    private record Resume(long recordId, Checkpoint checkpoint) implements Started {
    }

    private record AnsweredStart(Attempt attempt) implements Started {
    }

    /** Answers from memory when this replica knows the finished record, else runs attempts until one answers. */
    private IdempotentResponse answered(IdempotentRequest<?> request, Supplier<Attempt> attempt) {
        LogContext.put(LogContext.USER_ID, request.userId());
        LogContext.put(LogContext.OPERATION, request.operation().wireName());
        LogContext.put(LogContext.IDEMPOTENCY_KEY, request.key().value());
        Instant now = Timestamps.now();
        Answer answer = finished.find(request, now).map(record -> answerFromFinished(record, request, now))
                .orElseGet(() -> attempted(request, attempt));
        IdempotentResponse response = answer.response();
        requestLog.append(answer.recordId(), request.requestId(), now, answer.logged(), response.stored().status());
        count(request.operation(), response.outcome());
        return response;
    }

    private Answer attempted(IdempotentRequest<?> request, Supplier<Attempt> attempt) {
        for (int i = 1; i <= MAX_CLAIM_ATTEMPTS; i++) {
            Attempt result;
            try {
                result = attempt.get();
            } catch (BusinessRefusal refusal) {
                result = storeRefusal(request, refusal.problem());
            } catch (ProblemException rejected) {
                count(request.operation(), Outcome.REJECTED);
                throw rejected;
            }
            if (result instanceof Answered answered) {
                return answered.answer();
            }
        }
        throw new IllegalStateException("idempotency record for request " + request.requestId()
                + " vanished " + MAX_CLAIM_ATTEMPTS + " times between claim and read");
    }

    private <T> Attempt claimAndExecute(IdempotentRequest<T> request, Function<T, StoredResponse> operation) {
        Instant now = Timestamps.now();
        OptionalLong recordId = claimReleasingAbandoned(request, now);
        if (recordId.isEmpty()) {
            return answerFromRecord(request, now);
        }
        StoredResponse result = operation.apply(request.body());
        Instant completedAt = Timestamps.now();
        records.completeClaimed(recordId.getAsLong(), IdempotencyRecord.Status.COMPLETED, result, completedAt,
                completedAt.plus(retentionOf(request.operation())));
        LOG.debugf("executed %s key=%s record=%d", request.operation().wireName(), request.key().value(),
                recordId.getAsLong());
        return new Answered(new Answer(new IdempotentResponse(Outcome.EXECUTED, result), recordId.getAsLong(),
                RequestLog.Outcome.EXECUTED));
    }

    private <T> Started claimAndStart(IdempotentRequest<T> request, PhasedOperation<T> operation) {
        Instant now = Timestamps.now();
        OptionalLong recordId = claimReleasingAbandoned(request, now);
        if (recordId.isEmpty()) {
            return takeOverOrAnswer(request, now);
        }
        Checkpoint checkpoint = operation.start(request.body(), recordId.getAsLong());
        records.saveCheckpoint(recordId.getAsLong(), checkpoint, null);
        return new Resume(recordId.getAsLong(), checkpoint);
    }

    /** An existing record either answers the request, or, when its lease has expired, is taken over here. */
    private Started takeOverOrAnswer(IdempotentRequest<?> request, Instant now) {
        Optional<IdempotencyRecord> record = findRecord(request);
        if (record.isPresent() && record.get().fingerprint().equals(request.fingerprint()) && !record.get().isFinished()
                && !record.get().leaseExpiresAt().isAfter(now)) {
            Optional<Checkpoint> checkpoint = takeOver(record.get().id());
            if (checkpoint.isPresent()) {
                return new Resume(record.get().id(), checkpoint.get());
            }
            record = records.findById(record.get().id());
        }
        return new AnsweredStart(record.<Attempt>map(r -> new Answered(answerFrom(r, request, now))).orElse(RECORD_VANISHED));
    }

    /**
     * Claims the scope; a record of the same request abandoned at {@link #STARTED} (its process died before any
     * external call, so none of its work survived) is released first and the claim made again.
     */
    private OptionalLong claimReleasingAbandoned(IdempotentRequest<?> request, Instant now) {
        OptionalLong recordId = claim(request, now);
        if (recordId.isEmpty()) {
            Optional<IdempotencyRecord> record = findRecord(request);
            if (record.isPresent() && record.get().fingerprint().equals(request.fingerprint())
                    && releaseIfAbandoned(record.get().id())) {
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
        return QuarkusTransaction.joiningExisting().call(() ->
                records.releaseIfAbandoned(recordId, STARTED, Timestamps.now()));
    }

    private OptionalLong claim(IdempotentRequest<?> request, Instant now) {
        return records.claim(request, STARTED, now, now.plus(config.lease()), now.plus(retentionOf(request.operation())));
    }

    private Optional<IdempotencyRecord> findRecord(IdempotentRequest<?> request) {
        return records.findByScope(request.userId(), request.operation().wireName(), request.key().value());
    }

    private Attempt answerFromRecord(IdempotentRequest<?> request, Instant now) {
        return findRecord(request).<Attempt>map(record -> new Answered(answerFrom(record, request, now)))
                .orElse(RECORD_VANISHED);
    }

    /** Answers a request from its scope's existing record. */
    private Answer answerFrom(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
        if (record.isFinished()) {
            finished.remember(request, record);
            return answerFromFinished(record, request, now);
        }
        if (!record.fingerprint().equals(request.fingerprint())) {
            return conflict(record, request, now);
        }
        long seconds = Math.max(1, Duration.between(now, record.leaseExpiresAt()).toSeconds());
        return new Answer(refusal(Outcome.IN_PROGRESS, Problem.of(409, "OPERATION_IN_PROGRESS", "Operation in progress",
                "The first request with this Idempotency-Key is still running. Retry later with the same key."),
                Map.of("Retry-After", Long.toString(seconds))), record.id(), RequestLog.Outcome.IN_PROGRESS);
    }

    private Answer answerFromFinished(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
        if (!record.fingerprint().equals(request.fingerprint())) {
            return QuarkusTransaction.joiningExisting().call(() -> conflict(record, request, now));
        }
        return new Answer(new IdempotentResponse(Outcome.REPLAYED, record.response()), record.id(),
                RequestLog.Outcome.REPLAYED);
    }

    private Answer conflict(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
        records.insertConflict(record.id(), request, record.fingerprint(), now);
        LOG.infof("idempotency key reused with another payload: operation=%s record=%d",
                request.operation().wireName(), record.id());
        return new Answer(refusal(Outcome.CONFLICT, Problem.of(422, "IDEMPOTENCY_KEY_REUSED", "Idempotency-Key reused",
                "This Idempotency-Key was already used for a different request. Use a new key for a new request."),
                Map.of()), record.id(), RequestLog.Outcome.CONFLICT);
    }

    /** Stores a deterministic refusal as the operation's result, unless a concurrent request finished it first. */
    private Attempt storeRefusal(IdempotentRequest<?> request, Problem problem) {
        StoredResponse refusal = problemResponse(problem, Map.of());
        return QuarkusTransaction.requiringNew().call(() -> {
            Instant now = Timestamps.now();
            OptionalLong recordId = claim(request, now);
            if (recordId.isEmpty()) {
                return answerFromRecord(request, now);
            }
            records.completeClaimed(recordId.getAsLong(), IdempotencyRecord.Status.FAILED, refusal, now,
                    now.plus(retentionOf(request.operation())));
            return new Answered(new Answer(new IdempotentResponse(Outcome.EXECUTED, refusal), recordId.getAsLong(),
                    RequestLog.Outcome.REFUSED));
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
        return records.completeIfProcessing(recordId, status, response, now, now.plus(retentionOf(operation)));
    }

    /**
     * Leaves a record unfinished at a checkpoint and gives up its lease at once, so that the next retry or the
     * recovery job may take it over without waiting.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void leaveUnfinished(long recordId, Checkpoint checkpoint) {
        records.saveCheckpoint(recordId, checkpoint, Timestamps.now());
    }

    /**
     * Takes over a PROCESSING record whose lease has expired, with a conditional UPDATE so that of two takers
     * (a retry, the recovery job, another replica) exactly one wins.
     *
     * @return the checkpoint to resume from, or empty when the lease is live, the record finished, or another won
     */
    Optional<Checkpoint> takeOver(long recordId) {
        return takeOverWithOperation(recordId).map(IdempotencyRecords.TakenOver::checkpoint);
    }

    private Optional<IdempotencyRecords.TakenOver> takeOverWithOperation(long recordId) {
        Instant now = Timestamps.now();
        return QuarkusTransaction.joiningExisting().call(() -> records.takeOver(recordId, now, now.plus(config.lease())));
    }

    /**
     * The one way to finish a record whose process died or gave up its lease, for lease recovery, reconciliation and
     * the console's admin actions: a record abandoned at {@link #STARTED} is released; any other is taken over and
     * resumed by its operation's registered {@link ResumableOperation}, from its checkpoint.
     *
     * @param cause who resumes it (the job run or the admin action), recorded with the changes the operation makes
     */
    public Resumption resume(long recordId, Cause cause) {
        if (QuarkusTransaction.requiringNew().call(() -> releaseIfAbandoned(recordId))) {
            return new Resumption.Released();
        }
        Optional<IdempotencyRecords.TakenOver> taken = QuarkusTransaction.requiringNew().call(() ->
                takeOverWithOperation(recordId));
        if (taken.isEmpty()) {
            return new Resumption.NotTaken();
        }
        String operation = taken.get().operation();
        Checkpoint checkpoint = taken.get().checkpoint();
        Optional<ResumableOperation> resumable = resumables.stream().filter(r -> r.operation().equals(operation))
                .findFirst();
        if (resumable.isEmpty()) {
            LOG.warnf("record %d of %s is PROCESSING at recovery point %s, and %s registers no resume", recordId,
                    operation, checkpoint.recoveryPoint(), operation);
            return new Resumption.NoResume(operation, checkpoint.recoveryPoint());
        }
        return new Resumption.Resumed(checkpoint, resumable.get().resume(recordId, checkpoint, cause));
    }

    /** The stored answer of a finished record, for a caller that lost the race to finish it. */
    public Optional<IdempotentResponse> replayOf(long recordId) {
        return QuarkusTransaction.joiningExisting().call(() -> records.findById(recordId)
                .filter(IdempotencyRecord::isFinished)
                .map(record -> new IdempotentResponse(Outcome.REPLAYED, record.response())));
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

    private String toJson(JsonNode body) {
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.onceguard.idempotency;

import dev.onceguard.platform.LogContext;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.idempotency.IdempotentResponse.Outcome;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.EarlierCommitLost;
import dev.onceguard.platform.JsonRequests;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.RequestIds;
import dev.onceguard.platform.Timestamps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.core.WorkerExecutor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The idempotency engine: runs an operation at most once per (user, operation, key) and answers every
 * retry with the first result.
 *
 * <p>A local operation takes at most two statements and no transaction around them:
 * <ol>
 *   <li><b>plan</b>: the operation reads what it needs (from the database, or from what it keeps in memory) and
 *       decides its answer, writing nothing;</li>
 *   <li><b>claim and write</b>: one statement inserts the record already finished with that answer and, only if it
 *       inserted it, makes the operation's own writes ({@link ClaimWrites}), which name the record; the statement
 *       keeps record and effects together or not at all. The UNIQUE scope makes a concurrent duplicate wait here until
 *       the first statement ends. A plan's {@link ClaimPrecondition} is checked by the same statement first: when what
 *       the plan relied on has changed, nothing is written and the operation plans again;</li>
 *   <li><b>existing record</b>: only if the claim found one, read it by the scope: replay, 422 on another
 *       fingerprint, 409 while it is still PROCESSING (a request the plan refused is answered this way too, when its
 *       scope has a record).</li>
 * </ol>
 * A replay is a read, never a write: a finished record this replica has already read is answered from memory
 * ({@link FinishedRecords}), on the event loop that received the request, and its replay count and request log row
 * are written later in a batch ({@link RequestLog}). Everything else runs on a worker: a local operation on the few
 * threads the engine keeps for them ({@code onceguard.idempotency.local-operation-threads}), an operation that calls
 * out on Quarkus's worker pool. A {@link BusinessRefusal} (a constraint the writes broke on purpose) leaves nothing
 * of the claim's statement and is stored as the result in a statement of its own; any other failure stores nothing,
 * so the same key may be used again.
 *
 * <p>An operation that calls out cannot run in one transaction, so it runs as a sequence of atomic phases. Each phase
 * is a function the engine runs inside a transaction it opens and whose {@link PhaseResult} it applies to the record
 * in that same transaction: nothing ({@link PhaseResult.NoOp}), a new recovery point ({@link PhaseResult.RecoveryPoint}:
 * the checkpoint saved, the lease kept for the next phase or given up at once) or the final response
 * ({@link PhaseResult.FinalResponse}: stored, and replayed to every retry). The first phase ({@link FirstPhase}) runs
 * with the claim; every later one comes from the operation's registered {@link ResumableOperation}, which makes its
 * outside call first, outside any transaction, and hands back the {@link AtomicPhase} that applies the answer. The
 * engine goes on phase after phase while the lease is kept, and stops at the first that pauses or finishes. A retry
 * that finds the record PROCESSING with an expired lease takes it over with a conditional UPDATE and goes on from its
 * {@link Checkpoint} the same way, as do lease recovery and the console's admin actions
 * ({@link #resume}). A holder is known by the lease it set: its phases' results reach the record only while that lease
 * is still the record's, so a holder that worked past the end of its lease and was taken over changes nothing.
 */
@ApplicationScoped
@Startup
public class IdempotencyService {

    private static final Logger LOG = Logger.getLogger(IdempotencyService.class);
    private static final int MAX_CLAIM_ATTEMPTS = 3;
    /** The recovery point of a record whose operation has made no external call and kept no work yet. */
    public static final String STARTED = "started";
    private final IdempotencyStore records;
    private final StoredResponses responses;
    private final FinishedRecords finished;
    private final RequestLog requestLog;
    private final JsonRequests jsonRequests;
    private final ObjectMapper json;
    private final IdempotencyConfig config;
    private final MeterRegistry registry;
    private final Instance<ResumableOperation> resumables;
    private final Instance<RecordKeeper> keepers;
    /** Where local operations run: {@code onceguard.idempotency.local-operation-threads} threads of their own. */
    private final WorkerExecutor localOperationThreads;
    private final Map<String, Map<Outcome, Counter>> requests = new ConcurrentHashMap<>();

    IdempotencyService(IdempotencyStore records, StoredResponses responses, FinishedRecords finished,
                       RequestLog requestLog, JsonRequests jsonRequests, ObjectMapper json, IdempotencyConfig config,
                       MeterRegistry registry, Instance<ResumableOperation> resumables, Instance<RecordKeeper> keepers,
                       Vertx vertx) {
        this.records = records;
        this.responses = responses;
        this.keepers = keepers;
        this.resumables = resumables;
        this.finished = finished;
        this.requestLog = requestLog;
        this.jsonRequests = jsonRequests;
        this.json = json;
        this.config = config;
        this.registry = registry;
        this.localOperationThreads = vertx.createSharedWorkerExecutor("local-operation",
                config.localOperationThreads());
        // the declared operations' counters are exported at zero from start-up, before their first request
        config.operations().keySet().forEach(this::countersOf);
    }

    /**
     * Checks the key and the JSON of a request before anything runs; the body's binding to {@code type} and its
     * constraints are checked before the first write, and not at all for a replay this replica answers from memory
     * (same fingerprint as a finished record: the body validated the first time); a retry of the very bytes that
     * replay last matched is not even parsed, its fingerprint known from them. A refusal stores nothing.
     *
     * @param operation  the operation's name, as its records, metrics and settings carry it ({@code create-order})
     * @param forStorage what the record may keep of the body: gets a copy of the parsed body and returns it as it may
     *                   be stored ({@link UnaryOperator#identity()}: as sent)
     */
    public <T> IdempotentRequest<T> request(String operation, String userId, String keyHeader, RequestIds requestIds,
                                            Map<String, String> pathParameters, byte[] body, Class<T> type,
                                            UnaryOperator<JsonNode> forStorage) {
        try {
            IdempotencyKey key = IdempotencyKey.parse(keyHeader);
            String bytesDigest = Fingerprint.ofBytes(pathParameters, body);
            Optional<String> known = finished.fingerprintOfBytes(userId, operation, key, bytesDigest, Timestamps.now());
            if (known.isPresent()) {
                return new IdempotentRequest<>(operation, userId, key, known.get(), bytesDigest, requestIds,
                        () -> jsonRequests.value(jsonRequests.objectTree(body), type),
                        () -> toJson(forStorage.apply(jsonRequests.objectTree(body))));
            }
            JsonNode tree = jsonRequests.objectTree(body);
            return new IdempotentRequest<>(operation, userId, key, Fingerprint.of(pathParameters, tree), bytesDigest,
                    requestIds, () -> jsonRequests.value(tree, type), () -> toJson(forStorage.apply(tree.deepCopy())));
        } catch (ProblemException e) {
            count(operation, Outcome.REJECTED);
            throw e;
        }
    }

    /** An engine answer and what the request log keeps of it: the attempt that reaches one ends there. */
    private record Answer(IdempotentResponse response, long recordId, RequestLog.Outcome logged) implements Attempt {
    }

    /**
     * How one attempt ended: answered; or to be tried again, since the record it met was deleted before it could be
     * read, or what its plan read had changed by the time of the claim; or, for an operation that calls out, its
     * record is this request's and its phases go on.
     */
    private sealed interface Attempt permits Answer, TryAgain, Holding {
    }

    private record TryAgain() implements Attempt {
    }

    private static final Attempt TRY_AGAIN = new TryAgain();

    /**
     * Runs a local operation once: its plan's reads, then one statement that claims its record and makes its writes;
     * see the class comment for the steps. No transaction spans them: each statement is atomic on its own. Called on
     * the request's event loop: a replay this replica remembers is answered there, the rest runs on a worker.
     */
    public <T> Uni<IdempotentResponse> execute(IdempotentRequest<T> request, LocalOperation<T> operation) {
        return answered(request, blocking -> localOperationThreads.executeBlocking(blocking, false),
                () -> claimAndExecute(request, operation));
    }

    /**
     * Runs an operation in atomic phases: its first phase with the claim, then, while the lease is kept, the phases of
     * its registered {@link ResumableOperation} (an operation that always finishes in its first phase, a cancellation,
     * registers none). Called on the request's event loop, like {@link #execute(IdempotentRequest, LocalOperation)}.
     *
     * @param cause the request, as the state changes of the later phases name it
     */
    public <T> Uni<IdempotentResponse> execute(IdempotentRequest<T> request, FirstPhase<T> firstPhase, Cause cause) {
        return answered(request, blocking -> Vertx.currentContext().executeBlocking(blocking, false), () -> {
            Attempt started = QuarkusTransaction.requiringNew().call(() -> claimAndStart(request, firstPhase, cause));
            if (!(started instanceof Holding held)) {
                return started;
            }
            ResumableOperation resumable = resumableOf(request.operation()).orElseThrow(() -> new IllegalStateException(
                    request.operation() + " went on past its first phase but registers no "
                            + ResumableOperation.class.getSimpleName()));
            return runPhases(held, request.operation(), resumable, cause).answer();
        });
    }

    /**
     * The record is this caller's (claimed or taken over, under {@code lease}); its phases go on from {@code next}, the
     * next of them now. It is also where an applied phase leaves an operation that reached a recovery point and kept
     * the lease.
     */
    private record Holding(long recordId, Instant lease, Checkpoint next) implements Attempt, Step {
    }

    /** Where an operation stands once the engine has applied one of its phases, for the caller that holds it. */
    private sealed interface Step permits Holding, Stopped {
    }

    /**
     * The caller no longer holds the record: its request is answered {@code answer} (the interim answer of a lease
     * given up is not stored), and resuming it came to {@code resumption}: finished, by this phase or first by someone
     * else; paused at a recovery point, or where a phase that changed nothing left it; or not taken, when the caller's
     * lease ran out while its phase ran and another taker holds the record now (the phase's result was not applied).
     */
    private record Stopped(Answer answer, Resumption resumption) implements Step {
    }

    /**
     * Answers from memory when this replica knows the finished record, on the calling thread: that waits for nothing.
     * Anything else runs attempts until one answers, {@code onAWorker} in the request's Vert.x context (its log fields
     * and request scope), the answer coming back to that context.
     */
    private Uni<IdempotentResponse> answered(IdempotentRequest<?> request,
                                             Function<Callable<IdempotentResponse>, Uni<IdempotentResponse>> onAWorker,
                                             Supplier<Attempt> attempt) {
        LogContext.put(LogContext.USER_ID, request.userId());
        LogContext.put(LogContext.OPERATION, request.operation());
        LogContext.put(LogContext.IDEMPOTENCY_KEY, request.key().value());
        Instant now = Timestamps.now();
        Optional<Answer> remembered = finished.findSame(request, now).map(IdempotencyService::replayed);
        if (remembered.isPresent()) {
            return Uni.createFrom().item(logged(request, now, remembered.get()));
        }
        return onAWorker.apply(() -> logged(request, now, attempted(request, attempt)));
    }

    private IdempotentResponse logged(IdempotentRequest<?> request, Instant now, Answer answer) {
        IdempotentResponse response = answer.response();
        requestLog.append(answer.recordId(), request.requestIds(), now, answer.logged(), response.stored().status());
        count(request.operation(), response.outcome());
        return response;
    }

    private Answer attempted(IdempotentRequest<?> request, Supplier<Attempt> attempt) {
        for (int i = 1; i <= MAX_CLAIM_ATTEMPTS; i++) {
            Attempt result;
            try {
                request.body(); // bound and validated before the first write, so that a refusal stores nothing
                result = attempt.get();
            } catch (BusinessRefusal refusal) {
                result = storeRefusal(request, refusal.problem());
            } catch (ProblemException rejected) {
                count(request.operation(), Outcome.REJECTED);
                throw rejected;
            }
            if (result instanceof Answer answer) {
                return answer;
            }
        }
        throw new IllegalStateException("request " + request.requestId() + " found its record vanished or its plan"
                + " outdated at the claim " + MAX_CLAIM_ATTEMPTS + " times");
    }

    private <T> Attempt claimAndExecute(IdempotentRequest<T> request, LocalOperation<T> operation) {
        Instant now = Timestamps.now();
        LocalOperation.Plan plan;
        try {
            plan = operation.plan(request.body());
        } catch (BusinessRefusal refusal) {
            throw refusal;
        } catch (ProblemException refused) {
            return findRecord(request).map(record -> answerFromRecord(record, request, now)).orElseThrow(() -> refused);
        }
        Instant answeredAt = Timestamps.now();
        return claimReleasingAbandoned(request, () -> claimWithPlan(request, plan, now, answeredAt),
                recordId -> {
                    LOG.debugf("executed %s key=%s record=%d", request.operation(), request.key().value(), recordId);
                    return executed(plan.response(), recordId, RequestLog.Outcome.EXECUTED);
                },
                record -> answerFromScope(record, request, now));
    }

    /** Claims the record finished with the plan's answer; a precondition that no longer holds makes it forget. */
    private IdempotencyStore.ClaimOutcome claimWithPlan(IdempotentRequest<?> request, LocalOperation.Plan plan,
                                                        Instant now, Instant answeredAt) {
        IdempotencyStore.ClaimOutcome outcome = records.claimFinished(request, IdempotencyRecord.Status.COMPLETED,
                plan.response(), now, answeredAt, expiryOf(request, now), plan.writes(), plan.precondition());
        if (outcome instanceof IdempotencyStore.PreconditionFailed) {
            plan.precondition().orElseThrow().whenOutdated().run();
        }
        return outcome;
    }

    private <T> Attempt claimAndStart(IdempotentRequest<T> request, FirstPhase<T> firstPhase, Cause cause) {
        Instant now = Timestamps.now();
        Instant lease = now.plus(config.lease());
        Checkpoint start = new Checkpoint(STARTED, null, null);
        return claimReleasingAbandoned(request,
                () -> records.claim(request, STARTED, now, lease, expiryOf(request, now)),
                recordId -> {
                    Step first = stepAfter(recordId, lease, request.operation(), start, start,
                            firstPhase.run(request.body(), recordId), cause);
                    return first instanceof Stopped stopped ? stopped.answer() : (Holding) first;
                },
                record -> takeOverOrAnswer(request, record, now));
    }

    /** The scope's existing record either answers the request, or, when its lease has expired, is taken over here. */
    private Attempt takeOverOrAnswer(IdempotentRequest<?> request, Optional<IdempotencyRecord> record, Instant now) {
        if (record.isPresent() && record.get().fingerprint().equals(request.fingerprint()) && !record.get().isFinished()
                && !record.get().leaseExpiresAt().isAfter(now)) {
            Optional<IdempotencyStore.TakenOver> taken = takeOver(record.get().id());
            if (taken.isPresent()) {
                return new Holding(record.get().id(), taken.get().lease(), taken.get().checkpoint());
            }
            record = records.findById(record.get().id());
        }
        return answerFromScope(record, request, now);
    }

    /**
     * Runs the operation's phases from where {@code held} stands until one pauses or finishes it: each time the
     * operation makes its outside call, then the engine runs the atomic phase it hands back, in a transaction of its
     * own, and applies that phase's result there.
     */
    private Stopped runPhases(Holding held, String operation, ResumableOperation resumable, Cause cause) {
        Step step = held;
        while (step instanceof Holding holding) {
            AtomicPhase phase = resumable.resume(held.recordId(), holding.next(), cause);
            step = QuarkusTransaction.requiringNew().call(() -> stepAfter(held.recordId(), held.lease(), operation,
                    held.next(), holding.next(), phase.run(), cause));
        }
        return (Stopped) step;
    }

    /**
     * Applies a phase's result, run from {@code from}, for the caller that holds the record under {@code lease}, in
     * the phase's transaction, and says where the operation now stands. A record the result could not be applied to
     * was finished by someone else meanwhile (a webhook that settled its payment), whose stored answer is this
     * caller's too, or taken over after the caller's lease ran out.
     */
    private Step stepAfter(long recordId, Instant lease, String operation, Checkpoint resumedFrom, Checkpoint from,
                           PhaseResult result, Cause cause) {
        boolean applied = applyToRecord(recordId, operation, result, new IdempotencyStore.Holder(lease), cause);
        if (applied && result instanceof PhaseResult.FinalResponse done) {
            return new Stopped(executed(done.response(), recordId, RequestLog.Outcome.EXECUTED),
                    new Resumption.Finished(resumedFrom, done.response()));
        }
        if (applied && result instanceof PhaseResult.RecoveryPoint point) {
            return point.lease() == PhaseResult.Lease.KEEP ? new Holding(recordId, lease, point.checkpoint())
                    : new Stopped(executed(point.answer(), recordId, RequestLog.Outcome.EXECUTED),
                            new Resumption.Paused(resumedFrom, point.checkpoint()));
        }
        IdempotencyRecord record = records.findById(recordId).orElseThrow(() -> new EarlierCommitLost(
                "record " + recordId + " of " + operation + " vanished while its holder ran it"));
        if (record.isFinished()) {
            return new Stopped(replayed(record), new Resumption.Finished(resumedFrom, record.response()));
        }
        return new Stopped(inProgress(record, Timestamps.now()),
                applied ? new Resumption.Paused(resumedFrom, from) : new Resumption.NotTaken());
    }

    /**
     * The one place a phase's result reaches its record, inside the phase's transaction: a final response completes
     * it by primary key if still PROCESSING, a recovery point saves its checkpoint (and, given up, ends the lease
     * now), a no-op leaves it alone. The same statement records who did it ({@code cause}: what finished the record;
     * a request's answer, final or interim, as its first answer when it is the record's first request).
     *
     * @return whether the record took the result (a no-op always does)
     */
    private boolean applyToRecord(long recordId, String operation, PhaseResult result,
                                  IdempotencyStore.Applier applier, Cause cause) {
        Instant now = Timestamps.now();
        if (result instanceof PhaseResult.FinalResponse done) {
            return records.complete(recordId, done.status(), done.response(), now,
                    now.plus(config.retentionOf(operation)), applier, cause);
        }
        if (result instanceof PhaseResult.RecoveryPoint point) {
            boolean givenUp = point.lease() == PhaseResult.Lease.GIVE_UP;
            return records.checkpoint(recordId, point.checkpoint(), givenUp ? now : null,
                    givenUp ? now.plus(point.recoveryWaits()) : null, applier, cause,
                    givenUp ? point.answer().status() : null, now);
        }
        return true;
    }

    /**
     * Applies, inside the caller's transaction, a phase result that someone who holds no lease on the record has
     * reached (a webhook that settled the operation's payment), only while no live lease holds the record: a holder
     * goes on from the same facts and finishes it itself, so either way the record stores the same final answer.
     * A record that is finished, gone or held stays as it is.
     *
     * @param cause what reached the result (the webhook event, or the admin action that reprocessed it), which the
     *              record keeps as what finished it
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void applyUnheld(long recordId, String operation, PhaseResult result, Cause cause) {
        applyToRecord(recordId, operation, result, new IdempotencyStore.Outsider(Timestamps.now()), cause);
    }

    /**
     * Claims the scope with {@code claim}: inserted, the record is this request's ({@code whenInserted}); refused by
     * the plan's precondition, the attempt is tried again. A record of the same request abandoned at {@link #STARTED}
     * (its process died before any external call, so none of its work survived) is released first and the claim made
     * again; the record a failed claim met is read once, and handed to {@code whenTaken}.
     */
    private Attempt claimReleasingAbandoned(IdempotentRequest<?> request,
                                            Supplier<IdempotencyStore.ClaimOutcome> claim,
                                            LongFunction<Attempt> whenInserted,
                                            Function<Optional<IdempotencyRecord>, Attempt> whenTaken) {
        IdempotencyStore.ClaimOutcome outcome = claim.get();
        if (outcome instanceof IdempotencyStore.ScopeTaken) {
            Optional<IdempotencyRecord> record = findRecord(request);
            if (record.isEmpty() || !record.get().fingerprint().equals(request.fingerprint())
                    || !releaseIfAbandoned(record.get().id())) {
                return whenTaken.apply(record);
            }
            outcome = claim.get();
            if (outcome instanceof IdempotencyStore.ScopeTaken) {
                return whenTaken.apply(findRecord(request));
            }
        }
        return outcome instanceof IdempotencyStore.Inserted inserted ? whenInserted.apply(inserted.recordId())
                : TRY_AGAIN;
    }

    /**
     * Deletes a PROCESSING record whose lease expired at recovery point {@link #STARTED}, with a conditional DELETE
     * so that of two releasers exactly one succeeds. The key may then be used again.
     */
    public boolean releaseIfAbandoned(long recordId) {
        return QuarkusTransaction.joiningExisting().call(() ->
                records.release(recordId, STARTED, Timestamps.now()));
    }

    /** Until when a record claimed at {@code now} is kept once it is finished. */
    private Instant expiryOf(IdempotentRequest<?> request, Instant now) {
        return now.plus(config.retentionOf(request.operation()));
    }

    private Optional<IdempotencyRecord> findRecord(IdempotentRequest<?> request) {
        return records.findByScope(request.userId(), request.operation(), request.key().value());
    }

    /** The answer of the scope's record, as read; a record deleted before it could be read means: try again. */
    private Attempt answerFromScope(Optional<IdempotencyRecord> record, IdempotentRequest<?> request, Instant now) {
        return record.<Attempt>map(r -> answerFromRecord(r, request, now)).orElse(TRY_AGAIN);
    }

    private Answer answerFromRecord(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
        if (!record.fingerprint().equals(request.fingerprint())) {
            return conflict(record, request, now);
        }
        if (record.isFinished()) {
            finished.remember(request, record);
            return replayed(record);
        }
        return inProgress(record, now);
    }

    private Answer inProgress(IdempotencyRecord record, Instant now) {
        long seconds = Math.max(1, Duration.between(now, record.leaseExpiresAt()).toSeconds());
        return new Answer(refusal(Outcome.IN_PROGRESS, Problem.of(409, "OPERATION_IN_PROGRESS", "Operation in progress",
                "The first request with this Idempotency-Key is still running. Retry later with the same key."),
                Map.of("Retry-After", Long.toString(seconds))), record.id(), RequestLog.Outcome.IN_PROGRESS);
    }

    private static Answer executed(StoredResponse response, long recordId, RequestLog.Outcome logged) {
        return new Answer(new IdempotentResponse(Outcome.EXECUTED, response), recordId, logged);
    }

    private static Answer replayed(IdempotencyRecord finished) {
        return new Answer(new IdempotentResponse(Outcome.REPLAYED, finished.response()), finished.id(),
                RequestLog.Outcome.REPLAYED);
    }

    private Answer conflict(IdempotencyRecord record, IdempotentRequest<?> request, Instant now) {
        records.recordConflict(record.id(), request, record.fingerprint(), now);
        LOG.infof("idempotency key reused with another payload: operation=%s record=%d",
                request.operation(), record.id());
        return new Answer(refusal(Outcome.CONFLICT, Problem.of(422, "IDEMPOTENCY_KEY_REUSED", "Idempotency-Key reused",
                "This Idempotency-Key was already used for a different request. Use a new key for a new request."),
                Map.of()), record.id(), RequestLog.Outcome.CONFLICT);
    }

    /** Stores a deterministic refusal as the operation's result, unless a concurrent request finished it first. */
    private Attempt storeRefusal(IdempotentRequest<?> request, Problem problem) {
        StoredResponse refusal = responses.problem(problem, Map.of());
        return QuarkusTransaction.requiringNew().call(() -> {
            Instant now = Timestamps.now();
            if (!(records.claimFinished(request, IdempotencyRecord.Status.FAILED, refusal, now, now,
                    expiryOf(request, now), ClaimWrites.NONE, Optional.empty())
                    instanceof IdempotencyStore.Inserted inserted)) {
                return answerFromScope(findRecord(request), request, now);
            }
            return executed(refusal, inserted.recordId(), RequestLog.Outcome.REFUSED);
        });
    }

    /**
     * Takes over a PROCESSING record whose lease has expired, with a conditional UPDATE so that of two takers
     * (a retry, the recovery job, another replica) exactly one wins.
     *
     * @return the operation and the checkpoint to go on from, or empty when the lease is live, the record finished,
     * or another won
     */
    private Optional<IdempotencyStore.TakenOver> takeOver(long recordId) {
        Instant now = Timestamps.now();
        return records.takeOver(recordId, now, now.plus(config.lease()));
    }

    /**
     * The one way to finish a record whose process died or gave up its lease, for lease recovery and
     * the console's admin actions: a record abandoned at {@link #STARTED} is released; any other is taken over and
     * its operation's registered {@link ResumableOperation} goes on from its checkpoint, phase after phase, until one
     * finishes or pauses it.
     *
     * @param cause who resumes it (the job run or the admin action), recorded with the changes the operation makes
     */
    public Resumption resume(long recordId, Cause cause) {
        if (QuarkusTransaction.requiringNew().call(() -> releaseIfAbandoned(recordId))) {
            return new Resumption.Released();
        }
        Optional<IdempotencyStore.TakenOver> taken = QuarkusTransaction.requiringNew().call(() -> takeOver(recordId));
        if (taken.isEmpty()) {
            return new Resumption.NotTaken();
        }
        String operation = taken.get().operation();
        String from = taken.get().checkpoint().recoveryPoint();
        Optional<ResumableOperation> resumable = resumableOf(operation);
        if (resumable.isEmpty()) {
            LOG.warnf("record %d of %s is PROCESSING at recovery point %s, and %s registers no resume", recordId,
                    operation, from, operation);
            return new Resumption.NoResume(operation, from);
        }
        return runPhases(new Holding(recordId, taken.get().lease(), taken.get().checkpoint()), operation,
                resumable.get(), cause).resumption();
    }

    /** The table of the engine's records, as a cleanup's metrics name it; only the engine's store reads it. */
    public static String recordsTable() {
        return "idempotency_records";
    }

    /**
     * A SQL condition, true when the record whose id is {@code recordId} (an expression of the caller's statement) is
     * still open: for a statement that settles an operation's subject and must learn, in the same round trip, whether
     * the engine has the record to finish. Only the engine's own text names its table.
     */
    public static String recordOpenCondition(String recordId) {
        return "EXISTS (SELECT 1 FROM idempotency_records r WHERE r.id = " + recordId + " AND r.status = 'PROCESSING')";
    }

    /**
     * The ids of PROCESSING records whose lease has expired and whose operation asked no longer wait, oldest lease
     * first, for lease recovery to {@link #resume}.
     */
    public List<Long> expiredLeases(int limit) {
        return QuarkusTransaction.requiringNew().call(() -> records.expiredLeases(Timestamps.now(), limit));
    }

    /**
     * Deletes, in a transaction of its own, at most {@code limit} finished records that expired before {@code cutoff},
     * keeping every record an operation's {@link RecordKeeper} still needs.
     *
     * @return the number deleted
     */
    public int expireFinished(Instant cutoff, int limit) {
        List<RecordKeeper> declared = keepers.stream().toList();
        return QuarkusTransaction.requiringNew().call(() -> records.expire(cutoff, limit, declared));
    }

    private Optional<ResumableOperation> resumableOf(String operation) {
        return resumables.stream().filter(r -> r.name().equals(operation)).findFirst();
    }

    private IdempotentResponse refusal(Outcome outcome, Problem problem, Map<String, String> headers) {
        return new IdempotentResponse(outcome, responses.problem(problem, headers));
    }

    private void count(String operation, Outcome outcome) {
        countersOf(operation).get(outcome).increment();
    }

    private Map<Outcome, Counter> countersOf(String operation) {
        return requests.computeIfAbsent(operation, name -> {
            Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
            for (Outcome outcome : Outcome.values()) {
                byOutcome.put(outcome, Counter.builder("onceguard.idempotency.requests")
                        .description("Idempotent requests by operation and outcome")
                        .tag("operation", name)
                        .tag("outcome", outcome.label())
                        .register(registry));
            }
            return byOutcome;
        });
    }

    private String toJson(JsonNode body) {
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.onceguard.idempotency;

import dev.onceguard.platform.RequestIds;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.TestTokens;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.JsonRequests;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.Timestamps;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.validation.Validator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One test per state of the engine, run once over the in-memory store and once over PostgreSQL
 * ({@link InMemoryEngineStatesTest}, {@link PostgresEngineStatesTest}): an engine of its own over the store, with
 * the operations the test writes. A race happens at its exact step through {@link HookedStore}, with real
 * operations on the store underneath.
 */
abstract class EngineStatesContract {

    /** The body the test operations take. */
    public record Item(String item) {
    }

    private static final String LOCAL = "engine-states";
    private static final StoredResponse CREATED = new StoredResponse(201, Map.of("Content-Type", "application/json"),
            "{\"made\":true}".getBytes(StandardCharsets.UTF_8), "thing", "t-1");
    private static final StoredResponse ACCEPTED = new StoredResponse(202, Map.of("Content-Type", "application/json"),
            "{\"waiting\":true}".getBytes(StandardCharsets.UTF_8), "thing", "t-1");

    @Inject
    Validator validator;

    @Inject
    ObjectMapper json;

    @Inject
    IdempotencyConfig config;

    @Inject
    MeterRegistry registry;

    @Inject
    RequestLog requestLog;

    @Inject
    StoredResponses responses;

    @Inject
    @Any
    Instance<ResumableOperation> resumables;

    @Inject
    @Any
    Instance<RecordKeeper> keepers;

    @Inject
    Vertx vertx;

    @Inject
    ScriptedOperation scripted;

    HookedStore store;
    IdempotencyService engine;
    private final String user = TestTokens.newUser();
    private final AtomicInteger plans = new AtomicInteger();
    private final AtomicInteger bodiesParsed = new AtomicInteger();

    /** A store of its own for each test. */
    abstract IdempotencyStore newStore();

    /** The conflicts the store keeps for {@code recordId}. */
    abstract long conflictsOf(long recordId);

    @BeforeEach
    void newEngine() {
        store = new HookedStore(newStore());
        JsonRequests countingParses = new JsonRequests(validator) {
            @Override
            public JsonNode objectTree(byte[] body) {
                bodiesParsed.incrementAndGet();
                return super.objectTree(body);
            }
        };
        engine = new IdempotencyService(store, responses, new FinishedRecords(config), requestLog, countingParses, json,
                config, registry, resumables, keepers, vertx);
    }

    private IdempotentRequest<Item> request(String operation, String key, String item) {
        return request(operation, key, Map.of(), "{\"item\":\"" + item + "\"}");
    }

    private IdempotentRequest<Item> request(String operation, String key, Map<String, String> path, String body) {
        return engine.request(operation, user, key, new RequestIds("req-" + UUID.randomUUID(), null), path,
                body.getBytes(StandardCharsets.UTF_8), Item.class, UnaryOperator.identity());
    }

    /** Runs a call where the API runs it: on a Vert.x event loop, whose worker then runs what blocks. */
    private IdempotentResponse onTheEventLoop(Supplier<Uni<IdempotentResponse>> call) {
        CompletableFuture<IdempotentResponse> answer = new CompletableFuture<>();
        vertx.getDelegate().getOrCreateContext().runOnContext(ignored ->
                call.get().subscribe().with(answer::complete, answer::completeExceptionally));
        try {
            return answer.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private IdempotentResponse local(String key, String item, LocalOperation<Item> operation) {
        return onTheEventLoop(() -> engine.execute(request(LOCAL, key, item), operation));
    }

    private LocalOperation<Item> creating() {
        return body -> {
            plans.incrementAndGet();
            return new LocalOperation.Plan(CREATED, ClaimWrites.NONE, Optional.empty());
        };
    }

    private IdempotentResponse phased(String key, FirstPhase<Item> firstPhase) {
        return onTheEventLoop(() -> engine.execute(request(ScriptedOperation.NAME, key, "a"), firstPhase,
                Cause.providerAnswer("req-phased")));
    }

    private static FirstPhase<Item> goingOnAt(String recoveryPoint) {
        return (body, recordId) -> PhaseResult.continueAt(new Checkpoint(recoveryPoint, "thing", "t-1"));
    }

    private IdempotencyRecord recordOf(String operation, String key) {
        return store.findByScope(user, operation, key).orElseThrow();
    }

    private static String body(IdempotentResponse response) {
        return new String(response.stored().body(), StandardCharsets.UTF_8);
    }

    /** A PROCESSING record of {@code operation} at {@code recoveryPoint}, under a lease that ends at {@code lease}. */
    private long processing(String operation, String key, String recoveryPoint, Instant lease) {
        Instant now = Timestamps.now();
        return ((IdempotencyStore.Inserted) store.claim(request(operation, key, "a"), recoveryPoint, now, lease,
                now.plus(Duration.ofHours(1)))).recordId();
    }

    @Test
    void aNewKeyRunsTheOperationOnceAndFinishesItsRecord() {
        String key = UUID.randomUUID().toString();

        IdempotentResponse answer = local(key, "a", creating());

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.EXECUTED);
        assertThat(answer.stored().status()).isEqualTo(201);
        assertThat(recordOf(LOCAL, key).status()).isEqualTo(IdempotencyRecord.Status.COMPLETED);
    }

    @Test
    void aRetryWithTheSameBodyIsReplayedWithoutRunningTheOperationAgain() {
        String key = UUID.randomUUID().toString();
        local(key, "a", creating());

        IdempotentResponse fromTheStore = local(key, "a", creating());
        IdempotentResponse fromMemory = local(key, "a", creating());

        assertThat(fromTheStore.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(fromMemory.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(body(fromMemory)).isEqualTo("{\"made\":true}");
        assertThat(plans).as("a plan reads before its claim; a replay from memory plans nothing").hasValue(2);
        assertThat(store.findByScope(user, LOCAL, key)).isPresent();
    }

    @Test
    void aRetryWithAnotherBodyIsRefusedAndTheConflictKept() {
        String key = UUID.randomUUID().toString();
        local(key, "a", creating());

        IdempotentResponse answer = local(key, "b", creating());

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.CONFLICT);
        assertThat(answer.stored().status()).isEqualTo(422);
        assertThat(body(answer)).contains("IDEMPOTENCY_KEY_REUSED");
        assertThat(conflictsOf(recordOf(LOCAL, key).id())).isEqualTo(1);
    }

    @Test
    void aRememberedRecordWithAnotherFingerprintIsStillAConflict() {
        String key = UUID.randomUUID().toString();
        local(key, "a", creating());
        local(key, "a", creating()); // read from the store: this replica remembers it now

        IdempotentResponse other = local(key, "b", creating());

        assertThat(other.outcome()).isEqualTo(IdempotentResponse.Outcome.CONFLICT);
        assertThat(conflictsOf(recordOf(LOCAL, key).id())).isEqualTo(1);
        assertThat(local(key, "a", creating()).outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
    }

    @Test
    void aRetryOfTheBytesLastReplayedIsKnownWithoutParsingItsBody() {
        String key = UUID.randomUUID().toString();
        local(key, "a", creating());
        local(key, "a", creating()); // read from the store: remembered with these bytes
        int parsedBefore = bodiesParsed.get();

        IdempotentResponse again = local(key, "a", creating());

        assertThat(again.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(bodiesParsed.get() - parsedBefore).as("bodies parsed for the retry").isZero();
    }

    @Test
    void anEquivalentBodyInOtherBytesIsParsedReplayedAndThenKnownByItsBytes() {
        String key = UUID.randomUUID().toString();
        local(key, "a", creating());
        local(key, "a", creating());
        String spaced = "{ \"item\" : \"a\" }";
        int parsedBefore = bodiesParsed.get();

        IdempotentResponse first = onTheEventLoop(() -> engine.execute(request(LOCAL, key, Map.of(), spaced), creating()));
        IdempotentResponse second = onTheEventLoop(() -> engine.execute(request(LOCAL, key, Map.of(), spaced), creating()));

        assertThat(first.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(second.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(bodiesParsed.get() - parsedBefore).as("parsed once, the first time these bytes came").isEqualTo(1);
    }

    @Test
    void theBytesOfARememberedReplayOnAnotherPathAreAConflict() {
        String key = UUID.randomUUID().toString();
        String body = "{\"item\":\"a\"}";
        for (int i = 0; i < 3; i++) { // executed, replayed from the store, replayed from memory
            onTheEventLoop(() -> engine.execute(request(LOCAL, key, Map.of("orderId", "ord-1"), body), creating()));
        }

        IdempotentResponse otherPath = onTheEventLoop(() ->
                engine.execute(request(LOCAL, key, Map.of("orderId", "ord-2"), body), creating()));

        assertThat(otherPath.outcome()).isEqualTo(IdempotentResponse.Outcome.CONFLICT);
        assertThat(otherPath.stored().status()).isEqualTo(422);
    }

    @Test
    void aRememberedRecordPastItsExpiryIsNotReplayedFromMemory() {
        String key = UUID.randomUUID().toString();
        Instant longAgo = Instant.parse("2000-01-01T00:00:00Z").plusMillis(Math.abs(UUID.randomUUID()
                .getLeastSignificantBits() % 1_000_000));
        store.claimFinished(request(LOCAL, key, "a"), IdempotencyRecord.Status.COMPLETED, CREATED, longAgo, longAgo,
                longAgo, ClaimWrites.NONE, Optional.empty());
        assertThat(local(key, "a", creating()).outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);

        assertThat(store.expire(longAgo.plusMillis(1), 10, List.of())).as("retention deleted it").isEqualTo(1);
        IdempotentResponse afterRetention = local(key, "a", creating());

        assertThat(afterRetention.outcome()).as("the key works again").isEqualTo(IdempotentResponse.Outcome.EXECUTED);
    }

    @Test
    void aBusinessRefusalIsStoredAsTheResultAndReplayed() {
        String key = UUID.randomUUID().toString();
        LocalOperation<Item> outOfStock = body -> {
            throw new BusinessRefusal(Problem.of(409, "OUT_OF_STOCK", "Out of stock", "None left."));
        };

        IdempotentResponse first = local(key, "a", outOfStock);
        IdempotentResponse retry = local(key, "a", creating());

        assertThat(first.outcome()).isEqualTo(IdempotentResponse.Outcome.EXECUTED);
        assertThat(first.stored().status()).isEqualTo(409);
        assertThat(retry.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(body(retry)).isEqualTo(body(first)).contains("OUT_OF_STOCK");
        assertThat(recordOf(LOCAL, key).status()).isEqualTo(IdempotencyRecord.Status.FAILED);
    }

    @Test
    void aRefusalThatLosesItsRaceToTheSameRequestAnswersTheWinnersResult() {
        String key = UUID.randomUUID().toString();
        LocalOperation<Item> refusedWhileAnotherWins = body -> {
            Instant now = Timestamps.now();
            store.claimFinished(request(LOCAL, key, "a"), IdempotencyRecord.Status.COMPLETED, CREATED, now, now,
                    now.plus(Duration.ofHours(1)), ClaimWrites.NONE, Optional.empty());
            throw new BusinessRefusal(Problem.of(409, "OUT_OF_STOCK", "Out of stock", "None left."));
        };

        IdempotentResponse answer = local(key, "a", refusedWhileAnotherWins);

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(body(answer)).isEqualTo("{\"made\":true}");
        assertThat(recordOf(LOCAL, key).status()).isEqualTo(IdempotencyRecord.Status.COMPLETED);
    }

    @Test
    void aRefusedPlanStoresNothingAndTheKeyWorksAgain() {
        String key = UUID.randomUUID().toString();
        LocalOperation<Item> refused = body -> {
            throw new ProblemException(Problem.of(404, "PRODUCT_NOT_FOUND", "Product not found", "No such product."));
        };

        assertThatThrownBy(() -> local(key, "a", refused)).isInstanceOf(ProblemException.class);
        assertThat(store.findByScope(user, LOCAL, key)).isEmpty();
        assertThat(local(key, "a", creating()).outcome()).isEqualTo(IdempotentResponse.Outcome.EXECUTED);
    }

    @Test
    void aRecordThatVanishesBetweenTheClaimAndItsReadIsClaimedAgain() {
        String key = UUID.randomUUID().toString();
        Instant lease = Timestamps.now().plus(Duration.ofMinutes(1));
        long abandoned = processing(LOCAL, key, IdempotencyService.STARTED, lease);
        AtomicInteger reads = new AtomicInteger();
        store.beforeFindByScope = () -> {
            if (reads.incrementAndGet() == 1) {
                store.release(abandoned, IdempotencyService.STARTED, lease);
            }
        };

        IdempotentResponse answer = local(key, "a", creating());

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.EXECUTED);
        assertThat(plans).as("planned once per attempt").hasValue(2);
        assertThat(recordOf(LOCAL, key).id()).isNotEqualTo(abandoned);
    }

    @Test
    void aScopeWhoseRecordKeepsVanishingFailsAfterThreeAttemptsAndStoresNothingOfItsOwn() {
        String key = UUID.randomUUID().toString();
        Instant lease = Timestamps.now().plus(Duration.ofMinutes(1));
        AtomicLong competitor = new AtomicLong(processing(LOCAL, key, IdempotencyService.STARTED, lease));
        store.beforeFindByScope = () -> store.release(competitor.get(), IdempotencyService.STARTED, lease);
        store.afterFindByScope = () -> competitor.set(processing(LOCAL, key, IdempotencyService.STARTED, lease));

        assertThatThrownBy(() -> local(key, "a", creating()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("3 times");
        assertThat(plans).hasValue(3);
        store.beforeFindByScope = () -> { };
        store.afterFindByScope = () -> { };
        assertThat(recordOf(LOCAL, key).id()).as("the competitor's record, none of this request's").isEqualTo(competitor.get());
    }

    @Test
    void twoRequestsWithOneKeyAtTheSameMomentRunTheOperationOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<IdempotentResponse>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                answers.add(pool.submit(() -> {
                    barrier.await();
                    return local(key, "a", creating());
                }));
            }
            List<IdempotentResponse.Outcome> outcomes = new ArrayList<>();
            for (Future<IdempotentResponse> answer : answers) {
                outcomes.add(answer.get(30, TimeUnit.SECONDS).outcome());
            }
            assertThat(outcomes).containsExactlyInAnyOrder(IdempotentResponse.Outcome.EXECUTED,
                    IdempotentResponse.Outcome.REPLAYED);
            assertThat(plans).as("the loser's plan may run, its claim writes nothing").hasValueBetween(1, 2);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aPhasedOperationGoesOnPhaseAfterPhaseUntilOneFinishesIt() {
        String key = UUID.randomUUID().toString();
        scripted.script(List.of(() -> () -> PhaseResult.continueAt(new Checkpoint("second", "thing", "t-1")),
                () -> () -> PhaseResult.completed(CREATED)));

        IdempotentResponse answer = phased(key, goingOnAt("first"));

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.EXECUTED);
        assertThat(answer.stored().status()).isEqualTo(201);
        assertThat(recordOf(ScriptedOperation.NAME, key).status()).isEqualTo(IdempotencyRecord.Status.COMPLETED);
    }

    @Test
    void aPauseAnswersItsInterimAnswerAndTheRetryTakesTheGivenUpLeaseOver() {
        String key = UUID.randomUUID().toString();
        scripted.script(List.of(() -> () -> PhaseResult.pause(new Checkpoint("waiting", "thing", "t-1"), ACCEPTED),
                () -> () -> PhaseResult.completed(CREATED)));

        IdempotentResponse interim = phased(key, goingOnAt("first"));
        IdempotencyRecord paused = recordOf(ScriptedOperation.NAME, key);
        IdempotentResponse retry = phased(key, goingOnAt("never run"));

        assertThat(interim.stored().status()).isEqualTo(202);
        assertThat(paused.status()).isEqualTo(IdempotencyRecord.Status.PROCESSING);
        assertThat(paused.recoveryPoint()).isEqualTo("waiting");
        assertThat(paused.response()).as("an interim answer is never stored").isNull();
        assertThat(retry.outcome()).isEqualTo(IdempotentResponse.Outcome.EXECUTED);
        assertThat(retry.stored().status()).isEqualTo(201);
    }

    @Test
    void aRecordStillHeldUnderALiveLeaseAnswersInProgress() {
        String key = UUID.randomUUID().toString();
        processing(ScriptedOperation.NAME, key, "first", Timestamps.now().plus(Duration.ofSeconds(30)));

        IdempotentResponse answer = phased(key, goingOnAt("never run"));

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.IN_PROGRESS);
        assertThat(answer.stored().status()).isEqualTo(409);
        assertThat(Long.parseLong(answer.stored().headers().get("Retry-After"))).isBetween(1L, 30L);
    }

    @Test
    void aTakeOverLostToAnotherTakerAnswersInProgress() {
        String key = UUID.randomUUID().toString();
        long recordId = processing(ScriptedOperation.NAME, key, "first", Timestamps.now().minus(Duration.ofMinutes(1)));
        store.beforeTakeOver = () -> {
            store.beforeTakeOver = () -> { };
            Instant now = Timestamps.now();
            assertThat(store.takeOver(recordId, now, now.plus(Duration.ofMinutes(5)))).isPresent();
        };

        IdempotentResponse answer = phased(key, goingOnAt("never run"));

        assertThat(answer.outcome()).isEqualTo(IdempotentResponse.Outcome.IN_PROGRESS);
        assertThat(recordOf(ScriptedOperation.NAME, key).recoveryPoint()).isEqualTo("first");
    }

    @Test
    void aFirstPhaseRefusalIsStoredAsTheResultAsOrderNotPayableIs() {
        String key = UUID.randomUUID().toString();
        FirstPhase<Item> notPayable = (body, recordId) -> {
            throw new BusinessRefusal(Problem.of(409, "ORDER_NOT_PAYABLE", "Order not payable", "It is canceled."));
        };

        IdempotentResponse first = phased(key, notPayable);
        IdempotentResponse retry = phased(key, goingOnAt("never run"));

        assertThat(first.stored().status()).isEqualTo(409);
        assertThat(body(first)).contains("ORDER_NOT_PAYABLE");
        assertThat(retry.outcome()).isEqualTo(IdempotentResponse.Outcome.REPLAYED);
        assertThat(recordOf(ScriptedOperation.NAME, key).status()).isEqualTo(IdempotencyRecord.Status.FAILED);
    }

    @Test
    void aFirstPhaseProblemRollsTheClaimBackAsProviderUnavailableDoes() {
        String key = UUID.randomUUID().toString();
        FirstPhase<Item> noProvider = (body, recordId) -> {
            throw new ProblemException(Problem.of(503, "PROVIDER_UNAVAILABLE", "Payment provider unavailable",
                    "No payment provider is enabled."));
        };

        assertThatThrownBy(() -> phased(key, noProvider)).isInstanceOf(ProblemException.class);
        assertThat(store.findByScope(user, ScriptedOperation.NAME, key)).as("nothing stored").isEmpty();
    }

    @Test
    void aResumeThatThrowsOnTheRequestPathLeavesTheRecordHeldForTheNextTaker() {
        String key = UUID.randomUUID().toString();
        scripted.script(List.of(() -> {
            throw new IllegalStateException("the provider adapter broke");
        }));

        assertThatThrownBy(() -> phased(key, goingOnAt("first"))).hasMessageContaining("the provider adapter broke");
        IdempotencyRecord held = recordOf(ScriptedOperation.NAME, key);
        IdempotentResponse retry = phased(key, goingOnAt("never run"));

        assertThat(held.status()).isEqualTo(IdempotencyRecord.Status.PROCESSING);
        assertThat(held.recoveryPoint()).as("the first phase's checkpoint was kept").isEqualTo("first");
        assertThat(retry.outcome()).isEqualTo(IdempotentResponse.Outcome.IN_PROGRESS);
    }

    @Test
    void resumingReleasesARecordAbandonedBeforeAnyCallAndTakesNoLiveOne() {
        long abandoned = processing(ScriptedOperation.NAME, UUID.randomUUID().toString(), IdempotencyService.STARTED,
                Timestamps.now().minus(Duration.ofMinutes(1)));
        long live = processing(ScriptedOperation.NAME, UUID.randomUUID().toString(), "first",
                Timestamps.now().plus(Duration.ofMinutes(1)));

        assertThat(engine.resume(abandoned, Cause.leaseRecovery(1))).isInstanceOf(Resumption.Released.class);
        assertThat(engine.resume(live, Cause.leaseRecovery(1))).isInstanceOf(Resumption.NotTaken.class);
        assertThat(store.findById(abandoned)).isEmpty();
        assertThat(store.findById(live).orElseThrow().recoveryPoint()).isEqualTo("first");
    }

    @Test
    void resumingAnOperationWithoutAResumeLeavesItsRecordAsItIs() {
        long recordId = processing(LOCAL, UUID.randomUUID().toString(), "order_written",
                Timestamps.now().minus(Duration.ofMinutes(1)));

        assertThat(engine.resume(recordId, Cause.leaseRecovery(1)))
                .isEqualTo(new Resumption.NoResume(LOCAL, "order_written"));
    }

    @Test
    void anOutsiderFinishesARecordOnlyWhileNoLiveLeaseHoldsIt() {
        long unheld = processing(ScriptedOperation.NAME, UUID.randomUUID().toString(), "waiting",
                Timestamps.now().minus(Duration.ofSeconds(1)));
        long held = processing(ScriptedOperation.NAME, UUID.randomUUID().toString(), "waiting",
                Timestamps.now().plus(Duration.ofMinutes(1)));

        QuarkusTransaction.requiringNew().run(() -> {
            engine.applyUnheld(unheld, ScriptedOperation.NAME, PhaseResult.completed(CREATED), Cause.webhook("evt-1"));
            engine.applyUnheld(held, ScriptedOperation.NAME, PhaseResult.completed(CREATED), Cause.webhook("evt-2"));
        });

        assertThat(store.findById(unheld).orElseThrow().status()).isEqualTo(IdempotencyRecord.Status.COMPLETED);
        assertThat(store.findById(held).orElseThrow().status()).isEqualTo(IdempotencyRecord.Status.PROCESSING);
    }
}

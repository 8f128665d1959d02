package dev.onceguard.idempotency;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** Every request that reaches the engine leaves a log row, written in a batch off the request path. */
@QuarkusTest
class RequestLogTest {

    private static final String ONE_EBOOK = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    private static final String TWO_EBOOKS = "{\"currency\":\"RUB\",\"items\":[{\"productId\":\"p-184\",\"quantity\":2}]}";

    @Inject
    AgroalDataSource db;

    @Inject
    RequestLog requestLog;

    @Inject
    RequestLogWrites records;

    private static Response order(String user, String key, String requestId, String body) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("X-Request-Id", requestId).contentType("application/json").body(body).post("/api/orders");
    }

    private record Row(String requestId, String outcome, int status) {
    }

    private List<Row> logOf(String user) {
        List<Row> rows = new ArrayList<>();
        try (Connection connection = db.getConnection();
             PreparedStatement read = connection.prepareStatement("""
                     SELECT l.client_request_id, l.outcome, l.http_status FROM idempotency_request_log l
                       JOIN idempotency_records r ON r.id = l.record_id
                      WHERE r.user_id = ? ORDER BY l.received_at, l.id""")) {
            read.setString(1, user);
            try (ResultSet result = read.executeQuery()) {
                while (result.next()) {
                    rows.add(new Row(result.getString(1), result.getString(2), result.getInt(3)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    @Test
    void eachRequestIsLoggedWithItsRequestIdOutcomeAndAnswerAndReplaysAreCountedOnlyWhenTheBatchIsWritten() {
        requestLog.flush();
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        order(user, key, "req-first", ONE_EBOOK).then().statusCode(201);
        order(user, key, "req-retry-1", ONE_EBOOK).then().statusCode(201).header("Idempotent-Replayed", "true");
        order(user, key, "req-retry-2", ONE_EBOOK).then().statusCode(201).header("Idempotent-Replayed", "true");
        order(user, key, "req-changed", TWO_EBOOKS).then().statusCode(422);

        assertThat(logOf(user)).as("nothing written on the request path").isEmpty();
        assertThat(count(db, "SELECT replay_count FROM idempotency_records WHERE user_id = ?", user)).isZero();

        requestLog.flush();

        assertThat(logOf(user)).containsExactly(
                new Row("req-first", "EXECUTED", 201),
                new Row("req-retry-1", "REPLAYED", 201),
                new Row("req-retry-2", "REPLAYED", 201),
                new Row("req-changed", "CONFLICT", 422));
        assertThat(count(db, "SELECT replay_count FROM idempotency_records WHERE user_id = ?", user)).isEqualTo(2);
    }

    @Test
    void aRequestMeetingAnUnfinishedRecordIsLoggedInProgress() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String fingerprint = Fingerprint.of(Map.of(), readTree(ONE_EBOOK));
        execute(db, """
                INSERT INTO idempotency_records (user_id, operation, idempotency_key, fingerprint, status, recovery_point,
                    lease_expires_at, request_id, created_at, expires_at)
                VALUES (?, 'create-order', ?, ?, 'PROCESSING', 'started', now() + interval '1 minute', 'req-running',
                        now(), now() + interval '1 day')""", user, key, fingerprint);

        order(user, key, "req-while-running", ONE_EBOOK).then().statusCode(409);
        requestLog.flush();

        assertThat(logOf(user)).containsExactly(new Row("req-while-running", "IN_PROGRESS", 409));
    }

    @Test
    void eachRecordKeepsItsFirstAndLastFiftyRows() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 130; i++) {
            String requestId = "req-" + i;
            sent.add(requestId);
            order(user, key, requestId, ONE_EBOOK).then().statusCode(201);
            if (i % 40 == 39) {
                requestLog.flush();
            }
        }
        requestLog.flush();

        List<String> kept = logOf(user).stream().map(Row::requestId).toList();
        List<String> expected = new ArrayList<>(sent.subList(0, 50));
        expected.addAll(sent.subList(80, 130));
        assertThat(kept).containsExactlyElementsOf(expected);
        assertThat(count(db, "SELECT replay_count FROM idempotency_records WHERE user_id = ?", user)).isEqualTo(129);
    }

    @Test
    void pruningReadsTheSameBlocksAfterTenThousandOfTheRecordsRowsWereDeleted() {
        long recordId = recordOfOneOrder();
        RequestLogRows rows = new RequestLogRows(recordId);
        for (int i = 0; i < 3; i++) {
            rows.appendReplays(50);
        }
        long whenFresh = rows.fewestBlocksOfABatch();
        for (int i = 0; i < 200; i++) {
            rows.appendReplays(50);
        }
        long afterTenThousandDeleted = rows.fewestBlocksOfABatch();

        // Pruning that walked the 10,000 deleted rows would read hundreds of blocks more; the counters a backend
        // reports late (PostgreSQL flushes a connection's table statistics up to seconds after its statement) move a
        // batch's reading by a few blocks either way.
        assertThat(afterTenThousandDeleted).as("blocks of the log and its indexes read by one batch of 50 replays")
                .isLessThanOrEqualTo(whenFresh + 20);
        assertThat(rows.kept()).containsExactlyElementsOf(rows.firstAndLastFifty());
    }

    @Test
    void twoReplicasFlushingConflictsOfTheSameRecordAtOnceLeaveItsFirstAndLastFiftyRows() throws Exception {
        long recordId = recordOfOneOrder();
        RequestLogRows rows = new RequestLogRows(recordId);
        rows.appendReplays(100);
        ExecutorService replicas = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 5; round++) {
                CyclicBarrier bothReady = new CyclicBarrier(2);
                List<Future<?>> flushes = new ArrayList<>();
                for (List<RequestLog.Entry> batch : List.of(rows.next(60, RequestLog.Outcome.CONFLICT),
                        rows.next(60, RequestLog.Outcome.CONFLICT))) {
                    flushes.add(replicas.submit(() -> {
                        bothReady.await();
                        rows.write(batch);
                        return null;
                    }));
                }
                for (Future<?> flush : flushes) {
                    flush.get(30, TimeUnit.SECONDS);
                }

                assertThat(rows.kept()).as("round %d", round).containsExactlyElementsOf(rows.firstAndLastFifty());
            }
        } finally {
            replicas.shutdownNow();
        }
    }

    /** A record made by one order and answered once, so its log starts with the order's row. */
    private long recordOfOneOrder() {
        String user = TestTokens.newUser();
        order(user, UUID.randomUUID().toString(), "req-first", ONE_EBOOK).then().statusCode(201);
        requestLog.flush();
        return count(db, "SELECT id FROM idempotency_records WHERE user_id = ?", user);
    }

    /** One record's log rows, written as a replica's flush writes them, with the request ids sent in order. */
    private final class RequestLogRows {
        private final long recordId;
        private final Instant start = Instant.now();
        private final List<String> sent = new ArrayList<>(List.of("req-first"));

        RequestLogRows(long recordId) {
            this.recordId = recordId;
        }

        /** The next {@code count} requests of the record, all answered {@code outcome}. */
        synchronized List<RequestLog.Entry> next(int count, RequestLog.Outcome outcome) {
            List<RequestLog.Entry> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String requestId = "req-" + sent.size();
                batch.add(new RequestLog.Entry(recordId, UUID.randomUUID().toString(), requestId, start.plusMillis(sent.size()), outcome,
                        outcome == RequestLog.Outcome.REPLAYED ? 201 : 422));
                sent.add(requestId);
            }
            return batch;
        }

        void appendReplays(int count) {
            write(next(count, RequestLog.Outcome.REPLAYED));
        }

        /** Writes one replica's batch, with the replay count it carries (none for conflicts). */
        void write(List<RequestLog.Entry> batch) {
            List<RequestLog.Replays> replays = batch.get(0).outcome() == RequestLog.Outcome.REPLAYED
                    ? List.of(new RequestLog.Replays(recordId, batch.size(), batch.get(batch.size() - 1).receivedAt()))
                    : List.of();
            inTransaction(() -> records.append(batch, replays,
                    List.of(new RequestLog.Bounded(recordId, batch.size())), 50));
        }

        /**
         * The fewest blocks one batch read, of five: the table's counters also count what the service's own request log
         * writes meanwhile, for other tests' requests, and a busy machine spreads those over more of the batches.
         */
        long fewestBlocksOfABatch() {
            long fewest = Long.MAX_VALUE;
            for (int i = 0; i < 5; i++) {
                long before = blocksSoFar();
                appendReplays(50);
                fewest = Math.min(fewest, blocksSoFar() - before);
            }
            return fewest;
        }

        List<String> firstAndLastFifty() {
            List<String> expected = new ArrayList<>(sent.subList(0, 50));
            expected.addAll(sent.subList(sent.size() - 50, sent.size()));
            return expected;
        }

        List<String> kept() {
            List<String> kept = new ArrayList<>();
            try (Connection connection = db.getConnection();
                 PreparedStatement read = connection.prepareStatement(
                         "SELECT client_request_id FROM idempotency_request_log WHERE record_id = ? ORDER BY received_at, id")) {
                read.setLong(1, recordId);
                try (ResultSet result = read.executeQuery()) {
                    while (result.next()) {
                        kept.add(result.getString(1));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return kept;
        }
    }

    /** Runs in one transaction whose statistics its backend reports as it commits. */
    private void inTransaction(Runnable statements) {
        QuarkusTransaction.requiringNew().run(() -> {
            try (Connection connection = db.getConnection(); Statement flush = connection.createStatement()) {
                flush.execute("SELECT pg_stat_force_next_flush()");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            statements.run();
        });
    }

    private long blocksSoFar() {
        return count(db, """
                SELECT coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0) + coalesce(idx_blks_read, 0)
                       + coalesce(idx_blks_hit, 0)
                  FROM pg_statio_user_tables WHERE relname = 'idempotency_request_log'""");
    }

    @Test
    void theRecordKeepsTheCartAsSentAndTheConflictTheRefusedCart() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        order(user, key, "req-first", ONE_EBOOK).then().statusCode(201);
        order(user, key, "req-changed", TWO_EBOOKS).then().statusCode(422);

        assertThat(json("SELECT request_body::text FROM idempotency_records WHERE user_id = ?", user))
                .isEqualTo(readTree(ONE_EBOOK));
        assertThat(json("SELECT refused_body::text FROM idempotency_conflicts WHERE user_id = ?", user))
                .isEqualTo(readTree(TWO_EBOOKS));
    }

    @Test
    void aPaymentBodyIsStoredWithOnlyTheLastFourCharactersOfItsToken() {
        String user = TestTokens.newUser();
        String orderId = order(user, UUID.randomUUID().toString(), "req-order", ONE_EBOOK).path("orderId");
        given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", UUID.randomUUID().toString())
                .contentType("application/json").body("{\"paymentMethodToken\":\"tok_success\"}")
                .post("/api/orders/" + orderId + "/payments").then().statusCode(201);

        assertThat(json("SELECT request_body::text FROM idempotency_records WHERE user_id = ? AND operation = 'create-payment'",
                user)).isEqualTo(readTree("{\"paymentMethodToken\":\"cess\"}"));
        assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE request_body::text LIKE '%tok_success%'"))
                .isZero();
    }

    private com.fasterxml.jackson.databind.JsonNode json(String sql, String user) {
        try (Connection connection = db.getConnection(); PreparedStatement read = connection.prepareStatement(sql)) {
            read.setString(1, user);
            try (ResultSet row = read.executeQuery()) {
                row.next();
                return readTree(row.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static com.fasterxml.jackson.databind.JsonNode readTree(String body) {
        try {
            return new ObjectMapper().readTree(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

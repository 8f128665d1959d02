package dev.onceguard.webhook;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a new event makes PostgreSQL do, independent of the machine's load: {@value #EVENTS} sequential
 * {@code payment.succeeded} deliveries, each for its own PENDING payment, between two marker statements
 * ({@code SELECT 'webhook-statements-begin'}, {@code …-end}), so that a server logging this database's statements
 * ({@code ALTER DATABASE … SET log_statement = 'all'}) shows each delivery's statements and commits. Prints the
 * transactions committed and rows written per delivery from {@code pg_stat_database}. Excluded from the default test
 * run: {@code ./mvnw test -Dtest=WebhookStatementsBenchmark -Dgroups=benchmark -DexcludedGroups=none}.
 */
@QuarkusTest
@Tag("benchmark")
class WebhookStatementsBenchmark {

    private static final int EVENTS = 150;

    @Inject
    AgroalDataSource db;

    @Test
    void newEventsOneAfterAnother() throws Exception {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            Deliveries.Paid paid = Deliveries.orderWithPayment(db, "testpay", "PENDING");
            bodies.add(Deliveries.event(Deliveries.newEventId(), "payment.succeeded", paid.providerPaymentId(), "SUCCEEDED"));
        }
        long[] before = databaseCounters("webhook-statements-begin");
        for (String body : bodies) {
            assertThat(Deliveries.deliver(body).then().statusCode(200).extract().path("status").toString())
                    .isEqualTo("processed");
        }
        long[] after = databaseCounters("webhook-statements-end");
        System.out.printf("BENCHMARK webhook statements, %d new events: %.2f commits, %.2f rows inserted,"
                        + " %.2f rows updated per delivery%n", EVENTS, (after[0] - before[0]) / (double) EVENTS,
                (after[1] - before[1]) / (double) EVENTS, (after[2] - before[2]) / (double) EVENTS);
    }

    /** The database's commits and rows written, after the service's backends have reported them. */
    private long[] databaseCounters(String marker) throws Exception {
        Thread.sleep(11_000); // idle backends report their counts to pg_stat_database at most every 10 s
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SELECT '" + marker + "'");
            statement.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet row = statement.executeQuery("SELECT xact_commit, tup_inserted, tup_updated"
                    + " FROM pg_stat_database WHERE datname = current_database()")) {
                row.next();
                return new long[]{row.getLong(1), row.getLong(2), row.getLong(3)};
            }
        }
    }
}

package dev.onceguard.platform;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalPropertiesReader;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What a request meets while the database fails over, answered as the database being unavailable (503 with
 * Retry-After, retried with the same key), never a 500: nothing of the request was stored.
 */
@QuarkusTest
class FailoverAnswersTest {

    @Inject
    EntityManager em;

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    /**
     * A connection that reaches a server which has just become a standby (or a pooler still pointing at one) has its
     * write refused with SQLState 25006. A read-only transaction gets the same refusal from a primary, which is how
     * this test provokes it.
     */
    @Test
    void aWriteRefusedAsReadOnlyIsAnsweredAsTheDatabaseBeingUnavailable() {
        RuntimeException failure = catchThrowableOfType(() -> QuarkusTransaction.requiringNew().run(() -> {
            em.createNativeQuery("SET TRANSACTION READ ONLY").executeUpdate();
            em.createNativeQuery("CREATE TEMPORARY TABLE standby_write_refused (id int)").executeUpdate();
        }), RuntimeException.class);

        assertUnavailable(new ProblemMappers().unexpected(failure));
    }

    /**
     * While no server takes writes the pool cannot open a connection, and a request waiting for one gets the pool's
     * acquisition timeout, an SQLException without SQLState; so does one waiting while every connection is busy, which
     * is how this test provokes it: a pool of one connection, held.
     */
    @Test
    void anAcquisitionTimeoutIsAnsweredAsTheDatabaseBeingUnavailable() throws SQLException {
        Map<String, String> settings = Map.of(AgroalPropertiesReader.JDBC_URL, url, AgroalPropertiesReader.PRINCIPAL, user,
                AgroalPropertiesReader.MAX_SIZE, "1", AgroalPropertiesReader.ACQUISITION_TIMEOUT_MS, "3000");
        try (AgroalDataSource pool = AgroalDataSource.from(new AgroalPropertiesReader().readProperties(settings));
             Connection held = pool.getConnection()) {
            SQLException timeout = catchThrowableOfType(pool::getConnection, SQLException.class);

            assertThat(held.isValid(1)).isTrue();
            assertThat(timeout.getSQLState()).isNull();
            assertUnavailable(new ProblemMappers().unexpected(timeout));
        }
    }

    private static void assertUnavailable(Response answer) {
        assertThat(answer.getStatus()).isEqualTo(503);
        assertThat(((Problem) answer.getEntity()).code()).isEqualTo("SERVICE_UNAVAILABLE");
        assertThat(answer.getHeaderString("Retry-After")).isEqualTo("1");
    }
}

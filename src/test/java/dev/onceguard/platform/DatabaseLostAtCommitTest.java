package dev.onceguard.platform;

import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A database restart can cut a transaction's connection between its last statement and its commit. The transaction
 * manager then reports "could not commit" and keeps PostgreSQL's reason only as a suppressed exception: that is
 * still the database being unavailable, a 503 the client retries with its key, never a 500.
 */
@QuarkusTest
class DatabaseLostAtCommitTest {

    @Inject
    EntityManager em;

    @Inject
    AgroalDataSource db;

    @Test
    void aConnectionCutBeforeTheCommitIsAnsweredAsTheDatabaseBeingUnavailable() {
        RuntimeException failure = catchThrowableOfType(() -> QuarkusTransaction.requiringNew().run(() -> {
            Number backend = (Number) em.createNativeQuery("SELECT pg_backend_pid()").getSingleResult();
            CompletableFuture.runAsync(() -> terminate(backend.intValue())).join();
        }), RuntimeException.class);

        Response answer = new ProblemMappers().unexpected(failure);

        assertThat(answer.getStatus()).isEqualTo(503);
        assertThat(((Problem) answer.getEntity()).code()).isEqualTo("SERVICE_UNAVAILABLE");
        assertThat(answer.getHeaderString("Retry-After")).isEqualTo("1");
    }

    private void terminate(int backend) {
        try (Connection other = db.getConnection(); Statement terminate = other.createStatement()) {
            terminate.execute("SELECT pg_terminate_backend(" + backend + ")");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.onceguard.platform;

import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The safety net behind the boundary filters: a value PostgreSQL refuses as data (SQLState class 22) is the client's
 * bad input, a 400 VALIDATION_FAILED, on every JDBC path the stores use: plain JDBC whose SQLException a store wraps,
 * and Hibernate. The failures are PostgreSQL's own, not built by hand.
 */
@QuarkusTest
class DatabaseDataErrorTest {

    @Inject
    AgroalDataSource db;

    @Inject
    EntityManager em;

    private final ProblemMappers mappers = new ProblemMappers();

    /** What a JDBC store does with a failed statement: wrap it. */
    private Throwable storeFailure(String sql, String value) {
        return catchThrowable(() -> {
            try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setString(1, value);
                statement.execute();
            } catch (SQLException e) {
                throw new IllegalStateException("store failed", e);
            }
        });
    }

    private static void assertValidationFailure(Response response) {
        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(((Problem) response.getEntity()).code()).isEqualTo("VALIDATION_FAILED");
    }

    @Test
    void aNulCharacterAJdbcStoreCannotWriteIsAValidationFailure() {
        Throwable failure = storeFailure("SELECT CAST(? AS text)", "key\u0000");

        assertThat(failure).hasRootCauseInstanceOf(SQLException.class);
        assertValidationFailure(mappers.unexpected(failure));
    }

    @Test
    void aNumberTooLargeForItsColumnIsAValidationFailure() {
        assertValidationFailure(mappers.unexpected(storeFailure("SELECT CAST(CAST(? AS text) AS numeric(14, 2))", "1e20")));
    }

    @Test
    void aDataErrorThroughHibernateIsAValidationFailure() {
        Throwable failure = catchThrowable(() -> QuarkusTransaction.requiringNew().run(() ->
                em.createNativeQuery("SELECT CAST(CAST(:value AS text) AS numeric(14, 2))").setParameter("value", "1e20")
                        .getSingleResult()));

        assertThat(failure).isNotNull();
        assertValidationFailure(mappers.unexpected(failure));
    }

    @Test
    void aFailureThatIsNotADataErrorIsStillInternal() {
        Throwable failure = storeFailure("SELECT no_such_column FROM (SELECT ?) AS t", "x");

        assertThat(mappers.unexpected(failure).getStatus()).isEqualTo(500);
    }
}

package dev.onceguard.checkout;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.UUID;

import static dev.onceguard.Database.count;
import static dev.onceguard.Database.execute;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo rows of migration V2, in a database created now and in one that an earlier build migrated: each in a
 * schema of its own in the test database, migrated by Flyway with the service's migrations.
 */
@QuarkusTest
class DemoRowsOfMigrationV2Test {

    /** The last migration of the builds that left V2's rows in place. */
    private static final String BEFORE_THE_CATALOG_LOADER = "12";

    @Inject
    AgroalDataSource db;

    @Inject
    Flyway serviceFlyway;

    private final String schema = "catalog_" + UUID.randomUUID().toString().replace("-", "");

    @AfterEach
    void dropSchema() {
        execute(db, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    @Test
    void theServiceMigratesWithTheCallback() {
        assertThat(Arrays.stream(serviceFlyway.getConfiguration().getCallbacks()))
                .anyMatch(DemoRowsOfMigrationV2.RemoveRowsAfterV2.class::isInstance);
    }

    @Test
    void aNewDatabaseRunsV2AndKeepsNoneOfItsRows() {
        Flyway flyway = withTheCallback(migrations()).load();

        flyway.migrate();

        assertThat(count(db, "SELECT count(*) FROM " + schema + ".products")).isZero();
        assertThat(count(db, "SELECT count(*) FROM " + schema + ".flyway_schema_history WHERE version = '2'"
                + " AND success")).isEqualTo(1);
        assertThat(flyway.validateWithResult().validationSuccessful).isTrue();
    }

    @Test
    void aDatabaseThatHasV2sRowsKeepsThemAndStillValidates() {
        migrations().target(BEFORE_THE_CATALOG_LOADER).load().migrate();
        execute(db, "INSERT INTO " + schema + ".orders (order_id, user_id, status, total, currency, request_id,"
                + " created_at, updated_at) VALUES ('ord_old', 'u-old', 'PAID', 8990.00, 'RUB', 'r', now(), now())");
        execute(db, "INSERT INTO " + schema + ".order_items (order_id, line_no, product_id, quantity, unit_price)"
                + " VALUES ('ord_old', 1, 'p-310', 1, 8990.00)");

        Flyway upgrade = withTheCallback(migrations()).load();
        upgrade.migrate();

        assertThat(count(db, "SELECT count(*) FROM " + schema + ".products WHERE product_id = ANY (?)",
                (Object) DemoRowsOfMigrationV2.PRODUCT_IDS)).isEqualTo(4);
        assertThat(upgrade.validateWithResult().validationSuccessful).isTrue();
    }

    private FluentConfiguration migrations() {
        return Flyway.configure().dataSource(db).schemas(schema).createSchemas(true)
                .locations("classpath:db/migration");
    }

    private static FluentConfiguration withTheCallback(FluentConfiguration configuration) {
        new DemoRowsOfMigrationV2().customize(configuration);
        return configuration;
    }
}

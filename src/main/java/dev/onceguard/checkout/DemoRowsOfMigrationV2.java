package dev.onceguard.checkout;

import dev.onceguard.platform.SqlRows;
import io.quarkus.flyway.FlywayConfigurationCustomizer;
import jakarta.enterprise.context.ApplicationScoped;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.callback.BaseCallback;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import java.util.Arrays;

/**
 * Migration V2__demo_catalog once put the demo products into every database. It has run in existing databases, so
 * it stays exactly as it is (Flyway checks its checksum at every start) and the rows it left there stay too: no
 * upgrade deletes data. A database created now still runs V2, and this callback removes the rows V2 inserted right
 * after it, in its transaction, before anything can refer to them; what catalog the new database then gets is
 * {@link CatalogLoader}'s business alone.
 */
@ApplicationScoped
public class DemoRowsOfMigrationV2 implements FlywayConfigurationCustomizer {

    static final MigrationVersion DEMO_CATALOG_MIGRATION = MigrationVersion.fromVersion("2");
    static final String[] PRODUCT_IDS = {"p-184", "p-220", "p-310", "p-404"};

    @Override
    public void customize(FluentConfiguration configuration) {
        Callback[] callbacks = Arrays.copyOf(configuration.getCallbacks(), configuration.getCallbacks().length + 1);
        callbacks[callbacks.length - 1] = new RemoveRowsAfterV2();
        configuration.callbacks(callbacks);
    }

    static final class RemoveRowsAfterV2 extends BaseCallback {

        @Override
        public boolean supports(Event event, Context context) {
            return event == Event.AFTER_EACH_MIGRATE;
        }

        @Override
        public void handle(Event event, Context context) {
            MigrationInfo migration = context.getMigrationInfo();
            if (migration == null || !DEMO_CATALOG_MIGRATION.equals(migration.getVersion())) {
                return;
            }
            try {
                SqlRows.update(context.getConnection(), "DELETE FROM products WHERE product_id = ANY (?)",
                        (Object) PRODUCT_IDS);
            } catch (IllegalStateException e) {
                throw new IllegalStateException("Removing the rows of " + migrationName() + " failed", e);
            }
        }

        @Override
        public String getCallbackName() {
            return "remove the demo rows of " + migrationName();
        }

        private static String migrationName() {
            return "V" + DEMO_CATALOG_MIGRATION + "__demo_catalog";
        }
    }
}

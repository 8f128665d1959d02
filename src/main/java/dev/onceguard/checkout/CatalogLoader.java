package dev.onceguard.checkout;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Loads the catalog at start, after the migrations: the demo products when {@code onceguard.catalog.demo} is on (only
 * those missing, so a restart keeps what was sold), then the deployment's own file, upserted by productId. A file
 * that cannot be loaded stops the start; each load is one transaction, so it changes all or nothing.
 */
@ApplicationScoped
public class CatalogLoader {

    static final String DEMO_CATALOG = "catalog/demo-catalog.json";
    private static final Logger LOG = Logger.getLogger(CatalogLoader.class);

    private final CatalogConfig config;
    private final ObjectMapper json;
    private final CatalogRows rows;

    public CatalogLoader(CatalogConfig config, ObjectMapper json, CatalogRows rows) {
        this.config = config;
        this.json = json;
        this.rows = rows;
    }

    void onStart(@Observes StartupEvent start) {
        if (config.demo()) {
            addDemoProducts();
        }
        config.file().ifPresent(this::upsert);
    }

    /** Inserts or updates every product of {@code file}, or, when the file is not a valid catalog, none. */
    public void upsert(Path file) {
        List<CatalogFile.Entry> entries = CatalogFile.parse(file.toString(), read(file), json);
        QuarkusTransaction.requiringNew().run(() -> entries.forEach(rows::upsert));
        LOG.infof("Catalog: %d products from %s", entries.size(), file);
    }

    void addDemoProducts() {
        List<CatalogFile.Entry> entries = CatalogFile.parse(DEMO_CATALOG, demoCatalog(), json);
        QuarkusTransaction.requiringNew().run(() -> entries.forEach(rows::addIfAbsent));
        LOG.infof("Catalog: the %d demo products (onceguard.catalog.demo)", entries.size());
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new CatalogFileInvalid("Catalog file " + file + " cannot be read (" + e + "); it is named by "
                    + "onceguard.catalog.file", e);
        }
    }

    private static byte[] demoCatalog() {
        try (InputStream in = CatalogLoader.class.getClassLoader().getResourceAsStream(DEMO_CATALOG)) {
            if (in == null) {
                throw new IllegalStateException("The demo catalog " + DEMO_CATALOG + " is not in this build");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read the demo catalog " + DEMO_CATALOG, e);
        }
    }
}

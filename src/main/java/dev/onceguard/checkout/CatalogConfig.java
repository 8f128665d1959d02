package dev.onceguard.checkout;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.util.Optional;

/** Which catalog the service loads at start. */
@ConfigMapping(prefix = "onceguard.catalog")
public interface CatalogConfig {

    /** A JSON array of products in the shape GET /api/products answers, upserted by productId at every start. */
    Optional<Path> file();

    /** Whether the demo products are added at start (those missing only); on in embedded mode, dev and test. */
    @WithDefault("false")
    boolean demo();
}

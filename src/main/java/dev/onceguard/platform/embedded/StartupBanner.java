package dev.onceguard.platform.embedded;

import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.nio.file.Path;

/**
 * In embedded mode, once the HTTP server listens, prints where everything is and a {@code curl} that creates an
 * order as the demo user. The token is printed because that is the point; the admin password never is, only the
 * file that holds it, so that it stays out of terminals' scrollback and collected logs.
 */
@Singleton
public class StartupBanner {

    private static final Logger LOG = Logger.getLogger(StartupBanner.class);

    private final boolean active;
    private final Path dataFolder;
    private final String database;

    StartupBanner(@ConfigProperty(name = EmbeddedMode.ACTIVE, defaultValue = "false") boolean active,
                  @ConfigProperty(name = EmbeddedMode.DATA_FOLDER, defaultValue = "data") Path dataFolder,
                  @ConfigProperty(name = EmbeddedMode.JDBC_URL, defaultValue = "") String database) {
        this.active = active;
        this.dataFolder = dataFolder;
        this.database = database;
    }

    void print(@ObservesAsync HttpServerStart server) {
        if (!active) {
            return;
        }
        String host = server.options().getHost();
        String base = "http://" + ("0.0.0.0".equals(host) ? "localhost" : host) + ":" + server.options().getPort();
        DemoAccess access = DemoAccess.in(dataFolder);
        LOG.infof("""
                onceguard is ready in embedded mode (no datasource URL configured)
                  API       %1$s/api/products, %1$s/api/orders
                  Console   %1$s/console (user %2$s, password in %3$s)
                  Payments  the sandbox provider at %1$s/sandbox/v1: pay with {"paymentMethodToken":"tok_success"}
                  Database  %4$s (user %5$s), data in %6$s
                  Demo users %7$s and %10$s: their tokens below are valid for %8$d days; new ones are printed at every
                  start, and java -jar %12$s demo-token <any user id> prints one for any other user
                Create an order as %7$s (run it twice: the second answer is a replay of the first):
                curl -i %1$s/api/orders -H 'Authorization: Bearer %9$s' -H 'Content-Type: application/json' \
                -H 'Idempotency-Key: demo-order-1' \
                -d '{"items":[{"productId":"p-184","quantity":1}],"currency":"RUB"}'
                Token of %7$s (the README's Try it: TOKEN=<this line>):
                %9$s
                Token of %10$s:
                %11$s""",
                base, DemoAccess.ADMIN, access.adminLogin(),
                database, EmbeddedDatabase.USERNAME, EmbeddedDatabase.dataDirectory(dataFolder),
                DemoAccess.USER, DemoAccess.TOKEN_LIFESPAN.toDays(), access.userToken(DemoAccess.USER),
                DemoAccess.SECOND_USER, access.userToken(DemoAccess.SECOND_USER), launchedJar());
    }

    /** The jar this process was started from, as it was typed; the packaged layout's jar when it was not a jar. */
    static String launchedJar() {
        String command = System.getProperty("sun.java.command", "");
        String first = command.isBlank() ? "" : command.split(" ")[0];
        return first.endsWith(".jar") ? first : "target/quarkus-app/quarkus-run.jar";
    }
}

package dev.onceguard.operations;

import dev.onceguard.TestTokens;
import dev.onceguard.packaged.PackagedJar;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged service started while its database is not there yet: it waits (the HTTP port closed, so the startup
 * probe keeps the pod unready without restarting it), and once PostgreSQL answers it migrates, starts and is ready,
 * with no error in its log. The database "arrives" when this test opens a TCP relay to the real PostgreSQL
 * on the port the service was given.
 */
class DatabaseLateAtStartIT {

    private static final Duration ABSENT = Duration.ofSeconds(20);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Socket> relayed = new CopyOnWriteArrayList<>();
    private Process service;
    private ServerSocket relay;

    @Test
    void theServiceWaitsForALateDatabaseAndBecomesReadyWhenItComes() throws Exception {
        Assumptions.assumeFalse(PackagedJar.onlyNativePackaged(),
                "DatabaseLateAtStartIT runs the JVM jar; a native build (-Pnative) packages none");
        URI database = URI.create(System.getenv().getOrDefault("_TEST_QUARKUS_DATASOURCE_JDBC_URL",
                "jdbc:postgresql://127.0.0.1:5432/test").substring("jdbc:".length()));
        int databasePort = PackagedJar.freePort();
        int httpPort = PackagedJar.freePort();
        Path log = Path.of("target", "database-late-at-start-it.log");
        service = PackagedJar.start(log, Map.of(), Map.of(
                "QUARKUS_HTTP_PORT", String.valueOf(httpPort),
                "QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + databasePort + database.getPath(),
                "QUARKUS_DATASOURCE_USERNAME", "postgres",
                "QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false",
                "MP_JWT_VERIFY_AUDIENCES", TestTokens.AUDIENCE));

        await().alias("the service waits for its database, alive and not ready").during(ABSENT)
                .atMost(ABSENT.plusSeconds(30)).pollInterval(Duration.ofMillis(500)).pollInSameThread()
                .until(() -> service.isAlive() && status(httpPort) != 200);

        relayTo(database.getHost(), database.getPort(), databasePort);
        await().alias("ready once the database is there").atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(500)).pollInSameThread()
                .failFast("the service stopped", () -> !service.isAlive())
                .until(() -> status(httpPort) == 200);
        String output = Files.readString(log);
        // (a starved CI machine may add Vert.x blocked-thread warnings with their stacks: they are not about the wait)
        assertThat(output).contains("Listening on")
                .doesNotContain("ERROR", "FlywaySqlUnableToConnectToDbException", "PSQLException", "Failed to start");
    }

    @AfterEach
    void stop() throws IOException {
        if (service != null) {
            service.destroyForcibly();
        }
        if (relay != null) {
            relay.close();
        }
        for (Socket socket : relayed) {
            socket.close();
        }
    }

    private int status(int port) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (ConnectException closed) {
            return 0;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Accepts connections on {@code port} and pipes each one to the database, both ways. */
    private void relayTo(String host, int databasePort, int port) throws IOException {
        relay = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!relay.isClosed()) {
                try {
                    Socket client = relay.accept();
                    Socket upstream = new Socket(host, databasePort);
                    relayed.add(client);
                    relayed.add(upstream);
                    pipe(client.getInputStream(), upstream.getOutputStream());
                    pipe(upstream.getInputStream(), client.getOutputStream());
                } catch (IOException closed) {
                    return;
                }
            }
        }, "database-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void pipe(InputStream from, OutputStream to) {
        Thread copier = new Thread(() -> {
            try (from; to) {
                from.transferTo(to);
            } catch (IOException ended) {
                // one side closed the connection: the other follows
            }
        }, "database-relay-pipe");
        copier.setDaemon(true);
        copier.start();
    }

}

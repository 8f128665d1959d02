package dev.onceguard.platform;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that starts a request and then sends nothing more, in its headers or in its body, is hung up on once the
 * idle timeout passes (1 s here), instead of holding its connection for Quarkus' default 30 minutes.
 */
@QuarkusTest
@TestProfile(SlowClientTest.ShortTimeouts.class)
class SlowClientTest {

    public static class ShortTimeouts implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.idle-timeout", "1s", "quarkus.http.read-timeout", "1s");
        }
    }

    @TestHTTPResource("/")
    URL server;

    @Test
    void aClientStoppingMidHeadersIsHungUpOn() throws IOException {
        assertHungUpOnWithin(8_000, "POST /api/orders HTTP/1.1\r\nHost: localhost\r\nContent-Ty");
    }

    @Test
    void aClientStoppingMidBodyIsHungUpOn() throws IOException {
        assertHungUpOnWithin(8_000, "POST /api/orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: 200\r\n\r\n{\"items\":[");
    }

    @Test
    void aClientStoppingMidConsoleFormIsHungUpOn() throws IOException {
        assertHungUpOnWithin(8_000, "POST /j_security_check HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\nj_username=sup");
    }

    /**
     * Sends {@code partial} and waits for the server to close; a read timeout means it held the connection. The bound
     * is eight times the profile's 1 s timeouts: it only catches a connection held open, never a slow machine.
     */
    private void assertHungUpOnWithin(int millis, String partial) throws IOException {
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(partial.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long started = System.nanoTime();
            socket.getInputStream().readAllBytes();
            assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(millis);
        }
    }
}

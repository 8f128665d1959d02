package dev.onceguard.checkout;

import dev.onceguard.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import static dev.onceguard.checkout.OrdersApi.ONE_EBOOK;
import static dev.onceguard.checkout.OrdersApi.postOrder;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An order's body reaches the engine byte for byte however the client frames it: with a Content-Length (read on
 * the event loop before the resource), in chunks without one (read there too), or over HTTP/2 (read by the
 * resource). One key, the same order sent all three ways: one order, and the same answer replayed, never a 422.
 */
@QuarkusTest
class OrderBodyFramingTest {

    @Test
    void theSameOrderSentWithALengthInChunksAndOverHttp2IsOneOrder() throws Exception {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        byte[] order = ONE_EBOOK.getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> withLength = postOrder(user, key, HttpClient.Version.HTTP_1_1,
                HttpRequest.BodyPublishers.ofByteArray(order));
        // a stream of unknown length goes out chunked
        HttpResponse<String> inChunks = postOrder(user, key, HttpClient.Version.HTTP_1_1,
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(order)));
        HttpResponse<String> overHttp2 = postOrder(user, key, HttpClient.Version.HTTP_2,
                HttpRequest.BodyPublishers.ofByteArray(order));

        assertThat(withLength.statusCode()).isEqualTo(201);
        assertThat(withLength.headers().firstValue("Idempotent-Replayed")).isEmpty();
        for (HttpResponse<String> replay : List.of(inChunks, overHttp2)) {
            assertThat(replay.statusCode()).isEqualTo(201);
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(replay.body()).isEqualTo(withLength.body());
        }
        assertThat(overHttp2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    }
}

package dev.onceguard.platform;

import dev.onceguard.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every valid body up to the contract's 64 KiB is read whole, however it is padded and framed: an order and a signed
 * sandbox webhook padded with whitespace to 8 KiB, 16 KiB and 63 KiB, sent with a length and in chunks, are taken as
 * if unpadded; one byte past 64 KiB is a 413.
 */
@QuarkusTest
class BodySizeTest {

    private static final String SANDBOX_SECRET = "whsec_c2FuZGJveC13ZWJob29rLXRlc3Qtc2VjcmV0LTMyYiE=";
    private static final String ORDER = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";

    private static byte[] paddedTo(String json, int size) {
        return (json + " ".repeat(size - json.length())).getBytes(StandardCharsets.UTF_8);
    }

    private static HttpRequest.BodyPublisher framed(byte[] body, boolean chunked) {
        // a stream of unknown length goes out chunked, with no Content-Length
        return chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                : HttpRequest.BodyPublishers.ofByteArray(body);
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> postOrder(byte[] body, boolean chunked) throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/api/orders"))
                .header("Authorization", TestTokens.bearer(TestTokens.newUser()))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .header("Content-Type", "application/json")
                .POST(framed(body, chunked)).build());
    }

    private static HttpResponse<String> postSandboxEvent(int size, boolean chunked) throws Exception {
        String id = "evt_size_" + UUID.randomUUID();
        String event = """
                {"id":"%s","type":"payment.succeeded","created":"2026-11-29T20:31:07.123Z","data":{"object":\
                {"id":"sbx_%s","status":"SUCCEEDED","amount":"1500.00","currency":"RUB",\
                "metadata":{"payment_id":"pay_x","order_id":"ord_x"}}}}""".formatted(id, UUID.randomUUID());
        byte[] body = paddedTo(event, size);
        long now = Instant.now().getEpochSecond();
        return send(HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/webhooks/sandbox"))
                .header("Content-Type", "application/json")
                .header(StandardWebhooksSignature.ID, id)
                .header(StandardWebhooksSignature.TIMESTAMP, String.valueOf(now))
                .header(StandardWebhooksSignature.SIGNATURE, StandardWebhooksSignature.sign(id, now, body, SANDBOX_SECRET))
                .POST(framed(body, chunked)).build());
    }

    @ParameterizedTest
    @ValueSource(ints = {8 * 1024, 16 * 1024, 63 * 1024, 64 * 1024})
    void aPaddedOrderUpTo64KiBIsCreatedSentWithALengthOrInChunks(int size) throws Exception {
        for (boolean chunked : new boolean[] {false, true}) {
            HttpResponse<String> created = postOrder(paddedTo(ORDER, size), chunked);
            assertThat(created.statusCode()).as("%d bytes, chunked %s: %s", size, chunked, created.body()).isEqualTo(201);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {8 * 1024, 16 * 1024, 63 * 1024, 64 * 1024})
    void aPaddedSignedWebhookUpTo64KiBIsTakenLikeAnUnpaddedOne(int size) throws Exception {
        int unpadded = postSandboxEvent(600, false).statusCode();
        for (boolean chunked : new boolean[] {false, true}) {
            HttpResponse<String> taken = postSandboxEvent(size, chunked);
            assertThat(taken.statusCode()).as("%d bytes, chunked %s: %s", size, chunked, taken.body()).isEqualTo(unpadded);
        }
        assertThat(unpadded).isLessThan(300);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void oneBytePast64KiBIsRefusedWith413(boolean chunked) throws Exception {
        HttpResponse<String> order = postOrder(paddedTo(ORDER, 64 * 1024 + 1), chunked);
        HttpResponse<String> event = postSandboxEvent(64 * 1024 + 1, chunked);

        for (HttpResponse<String> refused : new HttpResponse[] {order, event}) {
            assertThat(refused.statusCode()).isEqualTo(413);
            assertThat(refused.body()).contains("\"PAYLOAD_TOO_LARGE\"");
        }
    }
}

package dev.onceguard.platform;

import dev.onceguard.TestTokens;
import dev.onceguard.idempotency.IdempotencyService;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A log line written on a request carries the service's id for it and the id its client chose, as two MDC fields: an
 * id a client chose is never taken for the request's own.
 */
@QuarkusTest
class RequestIdLogFieldsTest {

    private static final String ONE_EBOOK = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}";
    private static final String TWO_EBOOKS = "{\"items\":[{\"productId\":\"p-184\",\"quantity\":2}],\"currency\":\"RUB\"}";

    private final List<ExtLogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            ExtLogRecord logged = (ExtLogRecord) record;
            logged.copyMdc(); // the request's MDC, read now on the thread that logs
            records.add(logged);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger(IdempotencyService.class.getName());

    @BeforeEach
    void listen() {
        logger.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(capture);
    }

    private static Response order(String user, String key, String clientRequestId, String body) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .header("X-Request-Id", clientRequestId).contentType("application/json").body(body).post("/api/orders");
    }

    @Test
    void aKeyReusesLogLineCarriesTheServicesRequestIdAndTheClients() {
        String user = TestTokens.newUser();
        String key = UUID.randomUUID().toString();
        String chosen = "chosen-" + UUID.randomUUID();
        order(user, key, chosen, ONE_EBOOK).then().statusCode(201);

        String requestId = order(user, key, chosen, TWO_EBOOKS).then().statusCode(422).extract().header("X-Request-Id");

        ExtLogRecord line = await().atMost(Duration.ofSeconds(10)).until(() -> records.stream()
                .filter(r -> user.equals(r.getMdc(LogContext.USER_ID)))
                .filter(r -> r.getFormattedMessage().startsWith("idempotency key reused with another payload"))
                .findFirst().orElse(null), r -> r != null);
        assertThat(requestId).isNotEqualTo(chosen);
        assertThat(line.getMdc(LogContext.REQUEST_ID)).isEqualTo(requestId);
        assertThat(line.getMdc(LogContext.CLIENT_REQUEST_ID)).isEqualTo(chosen);
    }
}

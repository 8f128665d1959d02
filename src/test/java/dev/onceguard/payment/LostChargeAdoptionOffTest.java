package dev.onceguard.payment;

import dev.onceguard.TestTokens;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.onceguard.Database.execute;
import static dev.onceguard.Database.single;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code onceguard.payments.adopt-lost-charges=false} a payment attempt does not ask the provider first: the
 * retry after a lost commit charges the customer again, which is what the adoption ({@link LostCommitTest}) prevents.
 */
@QuarkusTest
@TestProfile(LostChargeAdoptionOffTest.AdoptionOff.class)
class LostChargeAdoptionOffTest {

    public static class AdoptionOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("onceguard.payments.adopt-lost-charges", "false");
        }
    }

    @Inject
    AgroalDataSource db;

    private final String user = TestTokens.newUser();

    private Response pay(String orderId, String key, String token) {
        return given().header("Authorization", TestTokens.bearer(user)).header("Idempotency-Key", key)
                .contentType("application/json").body("{\"paymentMethodToken\":\"" + token + "\"}")
                .post("/api/orders/" + orderId + "/payments");
    }

    @Test
    void withoutTheAdoptionTheRetryAfterALostCommitChargesAgain() {
        String orderId = given().header("Authorization", TestTokens.bearer(user))
                .header("Idempotency-Key", UUID.randomUUID().toString()).contentType("application/json")
                .body("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1}],\"currency\":\"RUB\"}")
                .post("/api/orders").then().statusCode(201).extract().path("orderId");
        String key = UUID.randomUUID().toString();
        Response unknown = pay(orderId, key, "tok_error_after_commit");
        assertThat(unknown.statusCode()).isEqualTo(202);
        String paymentId = unknown.path("paymentId");
        long recordId = single(db, Long.class, "SELECT idempotency_record_id FROM payments WHERE payment_id = ?",
                paymentId);
        execute(db, "DELETE FROM state_transitions WHERE subject_type = 'payment' AND subject_id = ?", paymentId);
        execute(db, "DELETE FROM payments WHERE payment_id = ?", paymentId);
        execute(db, "DELETE FROM idempotency_records WHERE id = ?", recordId);

        pay(orderId, key, "tok_success").then().statusCode(201);

        List<String> charges = given().get("/sandbox/v1/payments?orderId=" + orderId).then().statusCode(200)
                .extract().path("data.status");
        assertThat(charges).containsExactly("SUCCEEDED", "SUCCEEDED");
    }
}

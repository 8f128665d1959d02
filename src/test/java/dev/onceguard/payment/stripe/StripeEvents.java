package dev.onceguard.payment.stripe;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;

/** Stripe objects shaped as the Stripe API reference documents them, and Stripe's webhook signing, for tests. */
public final class StripeEvents {

    /** The {@code next_action} of an intent waiting for a 3-D Secure challenge, as Stripe describes it. */
    static final String THREE_D_SECURE = """
            {"type": "use_stripe_sdk", "use_stripe_sdk": {"type": "three_d_secure_redirect", "stripe_js": \
            "https://hooks.stripe.com/redirect/authenticate/src_1Mtw"}}""";

    private StripeEvents() {
    }

    public static String paymentIntent(String intentId, String status, long amount, String currency) {
        return """
                {
                  "id": "%s",
                  "object": "payment_intent",
                  "amount": %d,
                  "amount_capturable": 0,
                  "amount_received": %d,
                  "automatic_payment_methods": {"allow_redirects": "never", "enabled": true},
                  "capture_method": "automatic",
                  "client_secret": "%s_secret_Xq2",
                  "confirmation_method": "automatic",
                  "created": 1680800504,
                  "currency": "%s",
                  "last_payment_error": null,
                  "latest_charge": "ch_3MtwBwLkdIwHu7ix28a3tqPc",
                  "livemode": false,
                  "metadata": {"order_id": "ord_1", "payment_id": "pay_1"},
                  "next_action": %s,
                  "payment_method": "pm_1MtwBwLkdIwHu7ixBbZtxe3B",
                  "payment_method_types": ["card"],
                  "status": "%s"
                }""".formatted(intentId, amount, "succeeded".equals(status) ? amount : 0, intentId, currency,
                "requires_action".equals(status) ? THREE_D_SECURE : "null", status);
    }

    public static String event(String eventId, String type, String dataObject) {
        return """
                {
                  "id": "%s",
                  "object": "event",
                  "api_version": "2024-06-20",
                  "created": 1680064028,
                  "data": {"object": %s},
                  "livemode": false,
                  "pending_webhooks": 1,
                  "request": {"id": "req_EfGhIjKlMnOpQr", "idempotency_key": "onceguard-pay_1"},
                  "type": "%s"
                }""".formatted(eventId, dataObject, type);
    }

    /** The {@code Stripe-Signature} value Stripe sends: {@code t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">}. */
    public static String signature(String secret, long timestamp, String body) {
        return "t=" + timestamp + ",v1=" + v1(secret, timestamp, body);
    }

    public static String v1(String secret, long timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.onceguard.payment.provider;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The step the customer has to take before the provider can settle a payment: a 3-D Secure challenge (Stripe: the
 * secret the client-side library confirms the payment with, and the provider's description of the step) or a page of
 * the provider's to send the customer to (YooKassa's redirect confirmation). Handed to the client in the answer, never
 * stored or logged.
 */
public record CustomerAction(String clientSecret, JsonNode nextAction, String confirmationUrl) {

    /** The provider's page the customer confirms the payment on. */
    public static CustomerAction redirect(String confirmationUrl) {
        return new CustomerAction(null, null, confirmationUrl);
    }

    @Override
    public String toString() {
        return "CustomerAction[clientSecret=<redacted>, confirmationUrl=<redacted>]";
    }
}

package dev.onceguard.payment.provider;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The step the customer has to take before the provider can settle a payment (a 3-D Secure challenge): the secret
 * the client-side library confirms the payment with, and the provider's description of the step. Handed to the
 * client in the answer, never stored or logged.
 */
public record CustomerAction(String clientSecret, JsonNode nextAction) {

    @Override
    public String toString() {
        return "CustomerAction[clientSecret=<redacted>]";
    }
}

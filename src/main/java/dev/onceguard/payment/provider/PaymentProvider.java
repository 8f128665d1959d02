package dev.onceguard.payment.provider;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What onceguard needs from a payment provider. An adapter (the built-in sandbox, Stripe) implements it;
 * the payments flow, the webhook inbox and reconciliation use only this.
 */
public interface PaymentProvider {

    /** The name in {@code /webhooks/{provider}} and in the payments table: {@code sandbox}, {@code stripe}. */
    String name();

    /** Whether this adapter is configured and switched on in this deployment. */
    boolean enabled();

    /**
     * Creates a payment, idempotently: the same {@link CreatePayment#idempotencyKey()} always names the same
     * provider payment, so repeating the call after an unknown outcome never charges twice.
     *
     * @throws ProviderOutcomeUnknown on timeout, 5xx or a broken connection: the payment may or may not exist
     */
    ProviderPayment create(CreatePayment command) throws ProviderOutcomeUnknown;

    /** The provider's current view of one payment. */
    ProviderPayment retrieve(String providerPaymentId) throws ProviderOutcomeUnknown;

    /**
     * The provider's payments of onceguard order {@code orderId}, found by the {@code order_id} metadata sent with each
     * create (one page, at most 100). A payment attempt asks before it creates a payment, so that a charge whose attempt
     * the database has lost (the commits an asynchronous standby had not received when it was promoted) is adopted
     * instead of made again (decision 0045). A provider whose API cannot find payments by metadata answers an empty
     * list, and says why in its adapter.
     *
     * @throws ProviderOutcomeUnknown on timeout, 5xx or a broken connection
     */
    List<ProviderPayment> paymentsOfOrder(String orderId) throws ProviderOutcomeUnknown;

    /**
     * Refunds (part of) a payment, idempotently: the same {@link CreateRefund#idempotencyKey()} always names the same
     * provider refund, so repeating the call after an unknown outcome never refunds twice. A refusal by the provider
     * (the amount is more than it will refund, the payment cannot be refunded) is a {@link RefundStatus#FAILED}
     * answer, not an exception.
     *
     * @throws ProviderOutcomeUnknown on timeout, 5xx or a broken connection: the refund may or may not exist
     */
    ProviderRefund refund(CreateRefund command) throws ProviderOutcomeUnknown;

    /**
     * The provider's current view of onceguard refund {@code refundId} of payment {@code providerPaymentId}, found by
     * the {@code refund_id} metadata sent with it; empty when the provider has no such refund (the call that would
     * have made it never reached the provider).
     */
    Optional<ProviderRefund> findRefund(String providerPaymentId, String refundId) throws ProviderOutcomeUnknown;

    /**
     * Checks a webhook delivery's signature and timestamp before anything else looks at it.
     *
     * @param headers request headers, names in lower case
     * @throws WebhookRejected when the delivery is not authentic or too old
     */
    void verifyWebhook(byte[] body, Map<String, String> headers) throws WebhookRejected;

    /**
     * Checks the address a delivery comes from (the client address the trusted proxy reports), before anything else
     * looks at it. Providers that sign their events accept any address (this default); one whose notifications carry
     * no signature (YooKassa) accepts only the networks it sends from.
     *
     * @throws WebhookRejected when the provider does not send from this address
     */
    default void verifySource(String sourceAddress) throws WebhookRejected {
    }

    /**
     * What the inbox keeps of an authentic delivery, and what {@link #parseEvent} then reads. A signed event is kept as
     * received (this default, which returns the very array it was given, so that the caller reads it only once). A
     * notification that is only a hint (YooKassa's) is confirmed by reading its object back through the provider's
     * API: the notification, its source address and the API's answer are kept together, and the event is read from
     * the API's answer, never from the notification.
     *
     * @throws ReadBackFailed when the API did not confirm the notification: it is kept as failed and applied again
     */
    default byte[] readBack(byte[] body, String sourceAddress) throws ReadBackFailed {
        return body;
    }

    /** Whether {@link #readBack} asks the provider's API (and so may wait), rather than keep the body as received. */
    default boolean readsBack() {
        return false;
    }

    /**
     * Reads an authentic delivery (what {@link #readBack} kept, already read as JSON by the caller, which reads each
     * body once) into the facts onceguard acts on.
     */
    ProviderEvent parseEvent(JsonNode event) throws WebhookRejected;
}

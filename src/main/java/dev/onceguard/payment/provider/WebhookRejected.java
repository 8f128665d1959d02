package dev.onceguard.payment.provider;

/** A webhook delivery that is not authentic, too old or not readable. Its message never contains secrets. */
public class WebhookRejected extends Exception {

    public WebhookRejected(String message) {
        super(message);
    }
}

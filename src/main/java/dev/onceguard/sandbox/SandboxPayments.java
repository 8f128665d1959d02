package dev.onceguard.sandbox;

import dev.onceguard.platform.Ids;
import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * Creates sandbox payments, one per Idempotency-Key: the INSERT meets the UNIQUE key (a concurrent duplicate waits
 * for the first to commit), and whoever did not insert reads the payment that is there. The payment and its
 * scheduled webhooks commit together.
 */
@ApplicationScoped
public class SandboxPayments {

    /** The payment for a key, and whether this call created it. */
    record Created(SandboxPayment payment, boolean replayed) {
    }

    private static final Logger LOG = Logger.getLogger(SandboxPayments.class);

    private final SqlRows sql;
    private final SandboxPaymentRows paymentRows;
    private final SandboxWebhooks webhooks;
    private final SandboxConfig config;
    private final SandboxCaller caller;
    private final SandboxJson json;
    private final Ids ids;

    public SandboxPayments(SqlRows sql, SandboxPaymentRows paymentRows, SandboxWebhooks webhooks, SandboxConfig config,
                           SandboxCaller caller, SandboxJson json, Ids ids) {
        this.sql = sql;
        this.paymentRows = paymentRows;
        this.webhooks = webhooks;
        this.config = config;
        this.caller = caller;
        this.json = json;
        this.ids = ids;
    }

    @Transactional
    Created create(String idempotencyKey, String fingerprint, SandboxPaymentRequest request, SandboxToken token) {
        Instant now = Timestamps.now();
        int inserted = sql.update("""
                        INSERT INTO sandbox_payments (id, idempotency_key, request_fingerprint, status, amount, currency,
                            payment_method_token, order_id, metadata, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?)
                        ON CONFLICT (idempotency_key) DO NOTHING""",
                ids.next("sbx"), idempotencyKey, fingerprint, token.initialStatus.name(),
                new BigDecimal(request.amount()), request.currency(), token.wireName,
                request.metadataOrEmpty().get(SandboxPaymentRequest.ORDER_ID), json.write(request.metadataOrEmpty()),
                now, now);
        SandboxPayment payment = paymentRows.byKey(idempotencyKey).orElseThrow(() -> new IllegalStateException(
                "sandbox payment for a key vanished between its INSERT and the read"));
        if (inserted == 0) {
            if (!payment.requestFingerprint().equals(fingerprint)) {
                throw new ProblemException(Problem.of(422, "IDEMPOTENCY_KEY_REUSED", "Idempotency-Key reused",
                        "This Idempotency-Key was used for a different payment request."));
            }
            return new Created(payment, true);
        }
        for (SandboxToken.PlannedEvent event : token.events(config, caller.callTimeout())) {
            webhooks.schedule(payment, event.type(), now.plus(event.after()), event.copies());
        }
        LOG.debugf("sandbox payment %s created: %s, order=%s", payment.id(), payment.status(), payment.orderId());
        return new Created(payment, false);
    }
}

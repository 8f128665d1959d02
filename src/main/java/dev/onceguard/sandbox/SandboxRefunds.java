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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Refunds sandbox payments, one refund per Idempotency-Key (its UNIQUE key decides, as for payments). A refund takes
 * its amount from what remains of the payment with one conditional UPDATE, so the refunds of a payment never add up
 * to more than it, however many race; the refund and its signed {@code refund.succeeded} or {@code refund.failed}
 * event commit together. A payment made with {@code tok_refund_fails} refunds as FAILED and takes nothing.
 */
@ApplicationScoped
public class SandboxRefunds {

    /** The refund for a key, whether this call created it, and how its first answer is to be given. */
    record Created(SandboxRefundView refund, boolean replayed, SandboxToken.Answer answer) {
    }

    static final String REFUND_ID = "refund_id";
    private static final Logger LOG = Logger.getLogger(SandboxRefunds.class);
    private static final String COLUMNS = "id, payment_id, status, amount, currency, CAST(metadata AS text) AS metadata,"
            + " created_at, request_fingerprint";

    private final SqlRows sql;
    private final SandboxPaymentRows paymentRows;
    private final SandboxWebhooks webhooks;
    private final SandboxCaller caller;
    private final SandboxJson json;
    private final Ids ids;

    public SandboxRefunds(SqlRows sql, SandboxPaymentRows paymentRows, SandboxWebhooks webhooks, SandboxCaller caller,
                          SandboxJson json, Ids ids) {
        this.sql = sql;
        this.paymentRows = paymentRows;
        this.webhooks = webhooks;
        this.caller = caller;
        this.json = json;
        this.ids = ids;
    }

    @Transactional
    Created create(String idempotencyKey, String fingerprint, SandboxRefundRequest request) {
        Optional<Created> replay = existing(idempotencyKey, fingerprint);
        if (replay.isPresent()) {
            return replay.get();
        }
        SandboxPayment payment = paymentRows.require(request.payment());
        if (payment.status() != SandboxPayment.Status.SUCCEEDED || !payment.currency().equals(request.currency())) {
            throw new ProblemException(Problem.of(409, "SANDBOX_PAYMENT_NOT_REFUNDABLE", "Payment not refundable",
                    "Only a succeeded payment can be refunded, in its own currency."));
        }
        SandboxToken token = SandboxToken.of(payment.paymentMethodToken()).orElseThrow();
        BigDecimal amount = new BigDecimal(request.amount());
        boolean fails = token == SandboxToken.REFUND_FAILS;
        Instant now = Timestamps.now();
        String refundId = ids.next("sbxr");
        // A concurrent create with the same key waits here for the first to commit, then replays its refund.
        if (sql.update("""
                        INSERT INTO sandbox_refunds (id, idempotency_key, request_fingerprint, payment_id, status, amount,
                            currency, metadata, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)
                        ON CONFLICT (idempotency_key) DO NOTHING""",
                refundId, idempotencyKey, fingerprint, payment.id(), fails ? "FAILED" : "SUCCEEDED", amount,
                request.currency(), json.write(request.metadataOrEmpty()), now) == 0) {
            return existing(idempotencyKey, fingerprint).orElseThrow(() -> new IllegalStateException(
                    "sandbox refund for a key vanished between its INSERT and the read"));
        }
        if (!fails && sql.update("""
                        UPDATE sandbox_payments SET refunded = refunded + ?, updated_at = ?
                         WHERE id = ? AND refunded + ? <= amount""",
                amount, now, payment.id(), amount) == 0) {
            throw new ProblemException(Problem.of(409, "SANDBOX_REFUND_EXCEEDS_PAYMENT", "Refund exceeds payment",
                    "The refunds of payment " + payment.id() + " would add up to more than its amount."));
        }
        SandboxRefundView refund = find("id = ?", refundId).get(0).view();
        boolean late = token == SandboxToken.REFUND_TIMEOUT;
        Duration eventAfter = late ? SandboxToken.tooLate(caller.callTimeout()) : Duration.ZERO;
        webhooks.scheduleRefund(refund, fails ? SandboxEventType.REFUND_FAILED : SandboxEventType.REFUND_SUCCEEDED,
                now.plus(eventAfter));
        LOG.debugf("sandbox refund %s of payment %s: %s %s", refundId, payment.id(), refund.status(), amount);
        return new Created(refund, false, late ? SandboxToken.Answer.TOO_LATE : SandboxToken.Answer.AT_ONCE);
    }

    @Transactional
    List<SandboxRefundView> ofPayment(String paymentId, int limit) {
        return find("payment_id = ? ORDER BY created_at, id LIMIT ?", paymentId, limit).stream()
                .map(Stored::view).toList();
    }

    private Optional<Created> existing(String idempotencyKey, String fingerprint) {
        return find("idempotency_key = ?", idempotencyKey).stream().findFirst().map(stored -> {
            if (!stored.fingerprint().equals(fingerprint)) {
                throw new ProblemException(Problem.of(422, "IDEMPOTENCY_KEY_REUSED", "Idempotency-Key reused",
                        "This Idempotency-Key was used for a different refund request."));
            }
            return new Created(stored.view(), true, SandboxToken.Answer.AT_ONCE);
        });
    }

    private record Stored(SandboxRefundView view, String fingerprint) {
    }

    private List<Stored> find(String conditionAndOrder, Object... parameters) {
        return sql.list("SELECT " + COLUMNS + " FROM sandbox_refunds WHERE " + conditionAndOrder, this::stored,
                parameters);
    }

    private Stored stored(ResultSet row) throws SQLException {
        return new Stored(new SandboxRefundView(row.getString("id"), row.getString("payment_id"),
                row.getString("status"), row.getBigDecimal("amount").setScale(2).toPlainString(),
                row.getString("currency"), json.metadata(row.getString("metadata")),
                Timestamps.format(SqlRows.instant(row, "created_at"))), row.getString("request_fingerprint"));
    }
}

package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import dev.onceguard.idempotency.IdempotencyService;
import dev.onceguard.payment.PaymentService;
import dev.onceguard.idempotency.Resumption;
import dev.onceguard.platform.Cause;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * PROCESSING records whose lease has expired, and the two admin actions on them. Both act through the idempotency
 * engine's own conditional statements, the ones lease recovery uses, so the database decides who handles a record:
 * an operator, a client retry, the recovery job or another replica, exactly one of them.
 */
@ApplicationScoped
public class StuckOperations {

    static final int COUNT_LIMIT = 1000;

    static final List<CsvExport.Column<Stuck>> CSV = List.of(
            new CsvExport.Column<>("record_id", Stuck::id),
            new CsvExport.Column<>("user_id", Stuck::userId),
            new CsvExport.Column<>("operation", Stuck::operation),
            new CsvExport.Column<>("idempotency_key", Stuck::key),
            new CsvExport.Column<>("recovery_point", Stuck::recoveryPoint),
            new CsvExport.Column<>("created_at", Stuck::createdAt),
            new CsvExport.Column<>("lease_expired_at", Stuck::leaseExpiredAt),
            new CsvExport.Column<>("resource_type", Stuck::resourceType),
            new CsvExport.Column<>("resource_id", Stuck::resourceId),
            new CsvExport.Column<>("payment_status", Stuck::paymentStatus));

    public record Stuck(long id, String userId, String operation, String key, String recoveryPoint,
                        Instant createdAt, Instant leaseExpiredAt, String resourceType, String resourceId,
                        String paymentStatus) {

        /** Released only when no external call can have happened: what lease recovery itself would release. */
        public boolean releasable() {
            return IdempotencyService.STARTED.equals(recoveryPoint);
        }

        public boolean reconcilable() {
            return !releasable() && PaymentService.OPERATION.equals(operation);
        }

        Stuck withPaymentStatus(String status) {
            return new Stuck(id, userId, operation, key, recoveryPoint, createdAt, leaseExpiredAt, resourceType,
                    resourceId, status);
        }
    }

    private record State(String status, String operation, String recoveryPoint, boolean leaseExpired) {

        boolean stuck() {
            return status.equals("PROCESSING") && leaseExpired;
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyService idempotency;
    private final IdempotencyRecordQueries records;

    public StuckOperations(ConsoleReads reads, IdempotencyService idempotency, IdempotencyRecordQueries records) {
        this.reads = reads;
        this.idempotency = idempotency;
        this.records = records;
    }

    /** Oldest first, by when the operation started; a payment's row shows the payment's status. */
    KeysetPage<Stuck> list(Optional<Cursor> after) {
        List<Stuck> rows = records.abandoned(Timestamps.now(), after.map(Cursor::at).orElse(null),
                after.map(Cursor::number).orElse(null), KeysetPage.SIZE,
                row -> new Stuck(row.getLong("id"), row.getString("user_id"), row.getString("operation"),
                        row.getString("idempotency_key"), row.getString("recovery_point"),
                        instant(row, "created_at"), instant(row, "lease_expires_at"),
                        row.getString("resource_type"), row.getString("resource_id"), null));
        Map<String, String> paymentStatuses = reads.list("SELECT payment_id, status FROM payments WHERE payment_id = ANY(?)",
                        row -> Map.entry(row.getString("payment_id"), row.getString("status")),
                        (Object) rows.stream().filter(row -> "payment".equals(row.resourceType()))
                                .map(Stuck::resourceId).toArray(String[]::new))
                .stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        return KeysetPage.of(rows.stream().map(row -> row.withPaymentStatus(paymentStatuses.get(row.resourceId())))
                .toList(), KeysetPage.SIZE, row -> new Cursor(row.createdAt(), row.id()));
    }

    CappedCount count() {
        return CappedCount.of(records.abandonedCount(Timestamps.now(), COUNT_LIMIT + 1), COUNT_LIMIT);
    }

    /**
     * Deletes the record if, at this moment, it is PROCESSING at recovery point {@code started} with an expired
     * lease ({@link IdempotencyService#releaseIfAbandoned}, one conditional DELETE). Anything else is refused or
     * reported as already resolved, and nothing changes.
     */
    ActionResult release(long recordId) {
        if (QuarkusTransaction.requiringNew().call(() -> idempotency.releaseIfAbandoned(recordId))) {
            return new ActionResult(AuditOutcome.DONE, AdminNotice.RELEASED,
                    "released at recovery point started; the key can be used again");
        }
        Optional<State> state = state(recordId);
        if (state.isEmpty() || !state.get().stuck()) {
            return alreadyResolved(state);
        }
        return new ActionResult(AuditOutcome.REFUSED, AdminNotice.RELEASE_REFUSED, "recovery point "
                + state.get().recoveryPoint() + ": an external call may have happened; release refused");
    }

    /**
     * Does what lease recovery does with a payment past its external call, through the same entry point
     * ({@link IdempotencyService#resume}): the record is taken over with a conditional UPDATE and resumed by the
     * payment with its own provider key, never with a new call.
     */
    ActionResult sendToReconciliation(long recordId, Cause cause) {
        Optional<State> state = state(recordId);
        if (state.isEmpty() || !state.get().stuck()) {
            return alreadyResolved(state);
        }
        if (IdempotencyService.STARTED.equals(state.get().recoveryPoint())) {
            return new ActionResult(AuditOutcome.REFUSED, AdminNotice.RECONCILE_NOT_NEEDED,
                    "recovery point started: no external call to reconcile");
        }
        if (!PaymentService.OPERATION.equals(state.get().operation())) {
            return new ActionResult(AuditOutcome.REFUSED, AdminNotice.RECONCILE_NOT_POSSIBLE,
                    state.get().operation() + " at recovery point " + state.get().recoveryPoint() + " has no reconciliation");
        }
        Resumption resumption = idempotency.resume(recordId, cause);
        if (resumption instanceof Resumption.Paused paused) {
            String paymentId = paused.resumedFrom().resourceId();
            return new ActionResult(AuditOutcome.DONE, AdminNotice.RECONCILED_STILL_UNKNOWN,
                    "payment " + paymentId + " asked again with its provider key: still " + paymentStatus(paymentId));
        }
        if (resumption instanceof Resumption.Finished finished) {
            String paymentId = finished.resumedFrom().resourceId();
            return new ActionResult(AuditOutcome.DONE, AdminNotice.RECONCILED, "payment " + paymentId
                    + " asked again with its provider key: " + paymentStatus(paymentId) + ", operation finished");
        }
        return alreadyResolved(state(recordId));
    }

    private String paymentStatus(String paymentId) {
        return reads.one("SELECT status FROM payments WHERE payment_id = ?", row -> row.getString(1), paymentId)
                .orElse("missing");
    }

    private ActionResult alreadyResolved(Optional<State> state) {
        String detail = state.map(s -> s.status().equals("PROCESSING")
                        ? "lease held: taken over by a retry or the recovery job" : "record is " + s.status())
                .orElse("record no longer exists: released or removed");
        return new ActionResult(AuditOutcome.ALREADY_RESOLVED, AdminNotice.OPERATION_ALREADY_RESOLVED, detail);
    }

    private Optional<State> state(long recordId) {
        return records.state(recordId, Timestamps.now(),
                row -> new State(row.getString("status"), row.getString("operation"), row.getString("recovery_point"),
                        row.getBoolean("lease_expired")));
    }
}

package dev.onceguard.console;

import dev.onceguard.platform.KeysetQuery;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /console/payments}: payment attempts of one status, longest unchanged first, such as the UNKNOWN payments
 * the overview counts. Keyset pages by (updated_at, payment_id); the unresolved statuses read the partial index of
 * unresolved payments.
 */
@ApplicationScoped
public class PaymentLists {

    /** The unresolved statuses only: the partial index of unresolved payments keeps their pages cheap. */
    static final Set<String> STATUSES = Set.of("CREATED", "PENDING", "UNKNOWN");
    static final List<CsvExport.Column<OperationChain.Payment>> CSV = List.of(
            new CsvExport.Column<>("payment_id", OperationChain.Payment::paymentId),
            new CsvExport.Column<>("status", OperationChain.Payment::status),
            new CsvExport.Column<>("order_id", OperationChain.Payment::orderId),
            new CsvExport.Column<>("user_id", OperationChain.Payment::userId),
            new CsvExport.Column<>("amount", OperationChain.Payment::amount),
            new CsvExport.Column<>("currency", OperationChain.Payment::currency),
            new CsvExport.Column<>("provider", OperationChain.Payment::provider),
            new CsvExport.Column<>("provider_payment_id", OperationChain.Payment::providerPaymentId),
            new CsvExport.Column<>("provider_idempotency_key", OperationChain.Payment::providerIdempotencyKey),
            new CsvExport.Column<>("created_at", OperationChain.Payment::createdAt),
            new CsvExport.Column<>("updated_at", OperationChain.Payment::updatedAt));

    private final ConsoleReads reads;

    public PaymentLists(ConsoleReads reads) {
        this.reads = reads;
    }

    static String status(String text) {
        String status = text == null || text.isBlank() ? "UNKNOWN" : text.strip();
        if (!STATUSES.contains(status)) {
            throw ConsoleRequestRejected.badRequest("The status must be one of " + String.join(", ",
                    STATUSES.stream().sorted().toList()) + ".");
        }
        return status;
    }

    KeysetPage<OperationChain.Payment> page(String status, Optional<Cursor> after) {
        KeysetQuery query = KeysetQuery
                .oldestFirst(OperationChain.Payment.SELECT, "updated_at", "payment_id", KeysetPage.SIZE)
                // the constant list lets a generic plan prove the partial index applies; the status itself is bound
                .where("status IN ('CREATED', 'PENDING', 'UNKNOWN') AND status = ?", status);
        after.ifPresent(cursor -> query.after(cursor.at(), cursor.id()));
        return reads.page(query, OperationChain.Payment::of, row -> new Cursor(row.updatedAt(), row.paymentId()));
    }

    long count(String status) {
        return reads.number("SELECT count(*) FROM payments WHERE status = ?", status);
    }
}

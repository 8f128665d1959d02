package dev.onceguard.console;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** {@code GET /console/payments?status=UNKNOWN}: unresolved payment attempts of one status, longest unchanged first. */
@RegisterForReflection
@Path("/console/payments")
@Produces(MediaType.TEXT_HTML)
public class ConsolePaymentsResource {

    static final String PAGE = "/console/payments";
    private static final List<CsvExport.Column<OperationChain.Payment>> CSV = List.of(
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

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance payments(String status, long count, KeysetPage<OperationChain.Payment> page,
                                                Pager pager);
    }

    private final PaymentLists payments;

    public ConsolePaymentsResource(PaymentLists payments) {
        this.payments = payments;
    }

    @GET
    public Response payments(@QueryParam("status") String status, @QueryParam("after") String after,
                             @QueryParam("format") String format) {
        String shown = PaymentLists.status(status);
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of("payments-" + shown.toLowerCase(java.util.Locale.ROOT), CSV, at -> payments.page(shown, at));
        }
        KeysetPage<OperationChain.Payment> page = payments.page(shown, position);
        Pager pager = Pager.of(PAGE, position.isPresent(), page.next(), "status", shown);
        return HtmlResponses.page(200, Templates.payments(shown, payments.count(shown), page, pager));
    }
}

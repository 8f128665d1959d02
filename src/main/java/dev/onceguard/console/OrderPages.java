package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One order's page: every operation on it (the order's creation, each payment attempt, and any later operation whose
 * record names the order or one of its payments), each with its verdict, requests and answers, the worst verdict
 * first; the order's payments, webhook deliveries, transitions, outbox events and effects are those of any of its
 * operations' chains.
 */
@ApplicationScoped
public class OrderPages {

    public record Operation(OperationChain chain, RequestHistory history) {

        public String href() {
            return ConsoleLinks.operation(chain.record().id());
        }
    }

    /** @param operations worst verdict first, then oldest first; never empty (the order's own creation is one) */
    public record OrderPage(OperationChain.Order order, List<Operation> operations, OperationChain chain) {

        public String userHref() {
            return ConsoleLinks.user(order.userId());
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;
    private final OperationChains chains;
    private final RequestLogs requestLogs;

    public OrderPages(ConsoleReads reads, IdempotencyRecordQueries records, OperationChains chains, RequestLogs requestLogs) {
        this.reads = reads;
        this.records = records;
        this.chains = chains;
        this.requestLogs = requestLogs;
    }

    public Optional<OrderPage> load(String orderId) {
        List<Long> recordIds = records.existing(reads.list("""
                        SELECT idempotency_record_id FROM orders WHERE order_id = ? AND idempotency_record_id IS NOT NULL
                        UNION
                        SELECT idempotency_record_id FROM payments WHERE order_id = ? AND idempotency_record_id IS NOT NULL
                        UNION
                        SELECT idempotency_record_id FROM refunds WHERE order_id = ? AND idempotency_record_id IS NOT NULL""",
                row -> row.getLong(1), orderId, orderId, orderId).toArray(Long[]::new));
        List<Operation> operations = recordIds.stream()
                .flatMap(id -> chains.load(id).stream().map(chain -> new Operation(chain, requestLogs.of(id))))
                .sorted(Comparator.comparingInt((Operation op) -> -severity(op.chain().verdict().tone())))
                .toList();
        Optional<OperationChain> withOrder = operations.stream().map(Operation::chain)
                .filter(chain -> chain.order() != null).findFirst();
        return withOrder.map(chain -> new OrderPage(chain.order(), operations, chain));
    }

    private static int severity(String tone) {
        return switch (tone) {
            case "bad" -> 2;
            case "warn" -> 1;
            default -> 0;
        };
    }
}

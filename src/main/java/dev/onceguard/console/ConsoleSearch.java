package dev.onceguard.console;

import dev.onceguard.idempotency.IdempotencyRecordQueries;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

import static dev.onceguard.platform.SqlRows.instant;

/**
 * The console's search box: whatever id a customer or a colleague pastes, looked up as every kind of id the service
 * hands out or receives. An id is found when it is equal to the text, or, for a text of at least
 * {@value #PREFIX_LENGTH} characters, when it starts with it. Each kind reads at most {@value #PER_KIND} + 1 rows
 * through an index on that column (text columns compare byte for byte, migration V19, so "starts with" is a range),
 * so a short, common prefix costs no more than a rare one.
 */
@ApplicationScoped
public class ConsoleSearch {

    static final int PREFIX_LENGTH = 6;
    static final int PER_KIND = 10;
    static final int MAX_LENGTH = 255;
    /** Above every character: {@code id < prefix || BEYOND} bounds the ids that start with the prefix. */
    private static final String BEYOND = new String(Character.toChars(Character.MAX_CODE_POINT));

    /** One thing found: what it is, its id, a line about it, and the page that tells its story. */
    public record Match(String kind, String id, String detail, Instant at, String href) {
    }

    /** The matches of one kind; {@code more} when that kind had more than {@value #PER_KIND}. */
    public record Group(String kind, List<Match> matches, boolean more) {
    }

    public record Result(String query, boolean prefix, List<Group> groups) {

        public int count() {
            return groups.stream().mapToInt(g -> g.matches().size()).sum();
        }

        public boolean anyMore() {
            return groups.stream().anyMatch(Group::more);
        }

        /** The one thing found, when exactly one was: the search goes straight to its page. */
        public Match single() {
            return count() == 1 && !anyMore() ? groups.get(0).matches().get(0) : null;
        }

        public int prefixLength() {
            return PREFIX_LENGTH;
        }
    }

    private final ConsoleReads reads;
    private final IdempotencyRecordQueries records;

    public ConsoleSearch(ConsoleReads reads, IdempotencyRecordQueries records) {
        this.reads = reads;
        this.records = records;
    }

    /** Checks what was typed: trimmed, at most {@value #MAX_LENGTH} characters, no control characters. */
    static String query(String typed) {
        if (typed == null || typed.isBlank()) {
            return null;
        }
        String query = typed.strip();
        if (query.length() > MAX_LENGTH) {
            throw ConsoleRequestRejected.badRequest("The search text is longer than " + MAX_LENGTH
                    + " characters; no id the service keeps is that long.");
        }
        if (query.chars().anyMatch(Character::isISOControl)) {
            throw ConsoleRequestRejected.badRequest("The search text holds a control character; no id does.");
        }
        return query;
    }

    public Result find(String query) {
        boolean prefix = query.length() >= PREFIX_LENGTH;
        Matching matching = new Matching(query, prefix);
        List<Group> groups = new ArrayList<>();
        add(groups, orders(matching));
        add(groups, payments("Payment", "payment_id", matching));
        add(groups, payments("Provider payment id", "provider_payment_id", matching));
        add(groups, payments("Provider idempotency key", "provider_idempotency_key", matching));
        add(groups, requests(matching));
        groups.addAll(clientRequestIds(matching));
        add(groups, keys(matching));
        add(groups, users(matching));
        add(groups, webhookEvents(matching));
        add(groups, outboxEvents(query));
        add(groups, effects("licenses", "license_id", "Licence", matching));
        add(groups, effects("notifications", "notification_id", "Notification", matching));
        return new Result(query, prefix, List.copyOf(groups));
    }

    /** The first {@value #PER_KIND} matches of one kind, as a group of that kind, when there are any. */
    private static void add(List<Group> groups, List<Match> matches) {
        if (!matches.isEmpty()) {
            groups.add(new Group(matches.get(0).kind(),
                    List.copyOf(matches.subList(0, Math.min(PER_KIND, matches.size()))), matches.size() > PER_KIND));
        }
    }

    /** How one id column is compared with the text: equal, or within the range of ids that start with it. */
    private record Matching(String query, boolean prefix) {

        /** The upper bound of a prefix's range; null when the text is matched whole. */
        String high() {
            return prefix ? query + BEYOND : null;
        }

        String on(String column) {
            return (prefix ? "(" + column + " >= ? AND " + column + " < ?)" : column + " = ?") + "\n";
        }

        /** The parameters of {@link #on}, then {@code more}. */
        Object[] with(Object... more) {
            return Stream.concat(prefix ? Stream.of(query, query + BEYOND) : Stream.of(query), Stream.of(more))
                    .toArray();
        }
    }

    private List<Match> orders(Matching m) {
        record Found(String orderId, String detail, Instant at, Long recordId) {
        }
        List<Found> found = reads.list("""
                        SELECT o.order_id, o.user_id, o.status, o.total, o.currency, o.created_at, o.idempotency_record_id
                          FROM orders o WHERE""" + " " + m.on("o.order_id") + """
                         ORDER BY o.order_id LIMIT ?""",
                row -> new Found(row.getString("order_id"), row.getString("status") + ", "
                        + row.getBigDecimal("total") + " " + row.getString("currency") + ", user " + row.getString("user_id"),
                        instant(row, "created_at"), (Long) row.getObject("idempotency_record_id")),
                m.with(PER_KIND + 1));
        Set<Long> kept = kept(found.stream().map(Found::recordId));
        return found.stream().map(order -> new Match("Order", order.orderId(), order.detail(), order.at(),
                kept.contains(order.recordId()) ? ConsoleLinks.order(order.orderId())
                        : ConsoleLinks.operationsOfOrder(order.orderId()))).toList();
    }

    /** A licence or a notification id: found in its table by primary key, leading to its order's page. */
    private List<Match> effects(String table, String column, String kind, Matching m) {
        return reads.list("SELECT " + column + " AS id, order_id, created_at FROM " + table + " WHERE " + m.on(column)
                        + " ORDER BY " + column + " LIMIT ?",
                row -> new Match(kind, row.getString("id"), "of order " + row.getString("order_id"),
                        instant(row, "created_at"), ConsoleLinks.order(row.getString("order_id"))),
                m.with(PER_KIND + 1));
    }

    private List<Match> payments(String kind, String column, Matching m) {
        return reads.list("""
                        SELECT p.payment_id, p.order_id, p.user_id, p.status, p.amount, p.currency, p.provider,
                               p.provider_payment_id, p.provider_idempotency_key, p.created_at, p.idempotency_record_id
                          FROM payments p WHERE""" + " " + m.on("p." + column) + """
                         ORDER BY p.""" + column + " LIMIT ?",
                row -> new Match(kind, row.getString(column), "payment " + row.getString("payment_id") + " at "
                        + row.getString("provider") + ", " + row.getString("status") + ", " + row.getBigDecimal("amount")
                        + " " + row.getString("currency") + ", order " + row.getString("order_id"),
                        instant(row, "created_at"), recordOr(row.getObject("idempotency_record_id"),
                        ConsoleLinks.operationsOfOrder(row.getString("order_id")))),
                m.with(PER_KIND + 1));
    }

    /** A request id: the first request of a record, any request in its log, or a refused key reuse. */
    private List<Match> requests(Matching m) {
        return records.requestsMatching(m.query(), m.high(), PER_KIND + 1, PER_KIND + 1,
                row -> new Match("Request id", row.getString("request_id"),
                        row.getString("what") + " of operation " + row.getLong("record_id"), instant(row, "at"),
                        ConsoleLinks.operation(row.getLong("record_id"))));
    }

    /** One request found by the id its client chose: its user, the service's id for it, and what it got. */
    private record ClientRequest(String userId, Match match) {
    }

    /**
     * A client's {@code X-Request-Id}: of a record's first request (kept even when the client got no answer), of any
     * request in a record's log, or of a refused key reuse. Any client may choose any id,
     * so the requests found are grouped by user, one group per user, and each is listed under the id the service
     * gave it: two users' requests (or one user's two) are never shown as one. At most {@value #PER_KIND} requests
     * in all; when there were more, the last group says so.
     */
    private List<Group> clientRequestIds(Matching m) {
        List<ClientRequest> found = records.clientRequestsMatching(m.query(), m.high(), PER_KIND + 1, PER_KIND + 1,
                row -> new ClientRequest(row.getString("user_id"), new Match("Client's request id",
                        row.getString("request_id"), "sent as " + row.getString("client_request_id") + ", "
                        + row.getString("what") + " of operation " + row.getLong("record_id"), instant(row, "at"),
                        ConsoleLinks.operation(row.getLong("record_id")))));
        Map<String, List<Match>> byUser = new LinkedHashMap<>();
        for (ClientRequest request : found.subList(0, Math.min(PER_KIND, found.size()))) {
            byUser.computeIfAbsent("Client's request id, user " + request.userId(), user -> new ArrayList<>())
                    .add(request.match());
        }
        List<Group> groups = new ArrayList<>();
        byUser.forEach((kind, matches) -> groups.add(new Group(kind, List.copyOf(matches),
                found.size() > PER_KIND && groups.size() == byUser.size() - 1)));
        return groups;
    }

    private List<Match> keys(Matching m) {
        return records.withKey(m.query(), m.high(), PER_KIND + 1,
                row -> new Match("Idempotency key", row.getString("idempotency_key"),
                        row.getString("operation") + " of user " + row.getString("user_id") + ", " + row.getString("status"),
                        instant(row, "created_at"), ConsoleLinks.operation(row.getLong("id"))));
    }

    /** A user with operations kept, or with orders (kept after their records expire). */
    private List<Match> users(Matching m) {
        String[] withOperations = records.usersMatching(m.query(), m.high(), PER_KIND + 1).toArray(String[]::new);
        return reads.list("""
                        SELECT user_id FROM (
                            (SELECT DISTINCT user_id FROM orders WHERE""" + " " + m.on("user_id") + """
                              ORDER BY user_id LIMIT ?)
                            UNION
                            SELECT unnest(?::text[])) found
                         ORDER BY user_id LIMIT ?""",
                row -> new Match("User", row.getString("user_id"), "all operations and charges of this user", null,
                        ConsoleLinks.user(row.getString("user_id"))),
                m.with(PER_KIND + 1, withOperations, PER_KIND + 1));
    }

    private List<Match> webhookEvents(Matching m) {
        return reads.list("""
                        SELECT id, provider, event_id, event_type, status, received_at
                          FROM webhook_inbox WHERE""" + " " + m.on("event_id") + """
                         ORDER BY event_id LIMIT ?""",
                row -> new Match("Webhook event", row.getString("event_id"), row.getString("provider") + " "
                        + row.getString("event_type") + ", " + row.getString("status"), instant(row, "received_at"),
                        ConsoleLinks.webhookEvent(row.getLong("id"))),
                m.with(PER_KIND + 1));
    }

    /** Outbox events have numeric ids, written {@code #12} on the pages: only an exact number finds one. */
    private List<Match> outboxEvents(String query) {
        String digits = query.startsWith("#") ? query.substring(1) : query;
        if (!digits.matches("[1-9]\\d{0,17}")) {
            return List.of();
        }
        record Found(Match match, String orderId, Long orderRecordId) {
        }
        List<Found> found = reads.list("""
                        SELECT e.id, e.event_type, e.aggregate_type, e.aggregate_id, e.status, e.created_at,
                               o.idempotency_record_id AS order_record_id
                          FROM outbox_events e
                          LEFT JOIN orders o ON e.aggregate_type = 'order' AND o.order_id = e.aggregate_id
                         WHERE e.id = ?""",
                row -> new Found(new Match("Outbox event", "#" + row.getLong("id"), row.getString("event_type") + " of "
                        + row.getString("aggregate_type") + " " + row.getString("aggregate_id") + ", "
                        + row.getString("status"), instant(row, "created_at"),
                        "/console/outbox?status=" + row.getString("status")),
                        row.getString("aggregate_id"), (Long) row.getObject("order_record_id")),
                Long.parseLong(digits));
        Set<Long> kept = kept(found.stream().map(Found::orderRecordId));
        return found.stream().map(event -> kept.contains(event.orderRecordId())
                ? new Match(event.match().kind(), event.match().id(), event.match().detail(), event.match().at(),
                        ConsoleLinks.order(event.orderId()))
                : event.match()).toList();
    }

    /** Those of the records named that still exist (a record may be gone while its order stays). */
    private Set<Long> kept(Stream<Long> recordIds) {
        return new HashSet<>(records.existing(recordIds.filter(Objects::nonNull).toArray(Long[]::new)));
    }

    private static String recordOr(Object recordId, String otherwise) {
        return recordId == null ? otherwise : ConsoleLinks.operation(((Number) recordId).longValue());
    }
}

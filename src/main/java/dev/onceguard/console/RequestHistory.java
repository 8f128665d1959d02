package dev.onceguard.console;

import java.time.Instant;
import java.util.List;

/**
 * The requests that reached one idempotency record, as its operation page lists them: each with its request id
 * (so a retry can be matched with the client's own logs), when it came and what it was answered; and each refused
 * key reuse with what it changed compared with the first request.
 *
 * @param requests      the logged requests, oldest first (the log keeps the first and the last ones of a record)
 * @param kept          the most requests the log keeps at each end of a record's history
 * @param conflicts     the refused key reuses, oldest first
 */
public record RequestHistory(List<Request> requests, int kept, List<Conflict> conflicts) {

    /** One logged request: the service's id for it and the {@code X-Request-Id} its client sent, if any. */
    public record Request(String requestId, String clientRequestId, Instant at, String outcome, Integer httpStatus) {

        public String outcomeText() {
            return switch (outcome) {
                case "EXECUTED" -> "ran the operation";
                case "REPLAYED" -> "replayed the stored answer";
                case "CONFLICT" -> "refused: key reused with another payload";
                case "IN_PROGRESS" -> "refused: the first request was still running";
                case "REFUSED" -> "refused before it ran";
                default -> outcome.toLowerCase();
            };
        }

        public String statusClass() {
            return switch (outcome) {
                case "EXECUTED" -> "st-ok";
                case "REPLAYED" -> "st-info";
                case "IN_PROGRESS" -> "st-warn";
                default -> "st-bad";
            };
        }
    }

    /**
     * @param bodiesKept false when the first or the refused body was not stored (requests from before bodies were
     *                   kept), so no field-by-field comparison can be shown
     */
    public record Conflict(Instant at, String requestId, String clientRequestId, String originalFingerprint,
                           String conflictingFingerprint,
                           boolean bodiesKept, List<BodyDiff.Change> changes) {
    }

    public boolean mayBeTrimmed(int replayCount) {
        return requests.size() < replayCount + 1;
    }
}

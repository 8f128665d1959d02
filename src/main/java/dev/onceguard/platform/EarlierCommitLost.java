package dev.onceguard.platform;

/**
 * A request found that a row it had itself committed earlier is gone: the database failed over to a standby that had
 * not received that commit (an asynchronous one). Nothing this request did survives to be finished, so it is answered
 * as any other transient database failure, 503 with {@code Retry-After}; the client's retry with the same key finds no
 * record and runs the intent anew.
 */
public class EarlierCommitLost extends RuntimeException {

    public EarlierCommitLost(String message) {
        super(message);
    }
}

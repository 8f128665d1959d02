package dev.onceguard.idempotency;

/** The idempotent operations, by the names the console and the metrics show. */
public enum Operation {
    CREATE_ORDER("create-order"),
    CREATE_PAYMENT("create-payment");

    private final String wireName;

    Operation(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}

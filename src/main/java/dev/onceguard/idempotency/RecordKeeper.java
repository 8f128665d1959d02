package dev.onceguard.idempotency;

/**
 * What keeps an operation's finished records past their expiry, declared by the operation (a bean of this type):
 * a record whose resource is not final yet (a payment whose outcome is still open) is what support and the resource's
 * own later answers need, so retention leaves it until the resource is final.
 */
public interface RecordKeeper {

    /** The resource type of the records it keeps ({@code payment}). */
    String resourceType();

    /**
     * A SQL query of one column, the ids of this type's resources that are not final yet; it binds nothing. The
     * store runs it inside its retention statement.
     */
    String unfinishedResources();
}

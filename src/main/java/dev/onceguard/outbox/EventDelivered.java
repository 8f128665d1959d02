package dev.onceguard.outbox;

/**
 * Fired synchronously, inside the transaction that marks the event DONE, once every handler of the event has
 * succeeded; an observer that moves an aggregate on (an order to FULFILLED) commits together with the DONE mark.
 */
public record EventDelivered(OutboxEvent event) {
}

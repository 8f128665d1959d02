package dev.onceguard.idempotency;

/**
 * One atomic phase of an operation: its writes, run by the engine inside a transaction the engine opens, and what
 * they come to, which the engine applies to the record in that same transaction. A phase never calls out: an outside
 * call happens before it, and the phase applies its answer.
 */
@FunctionalInterface
public interface AtomicPhase {

    PhaseResult run();
}

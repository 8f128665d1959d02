package dev.onceguard.idempotency;

import dev.onceguard.platform.Cause;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/**
 * A registered operation whose phases a test writes: each resume runs the next step of the script outside any
 * transaction (its outside call) and returns the atomic phase that step hands back.
 */
@ApplicationScoped
public class ScriptedOperation implements ResumableOperation {

    static final String NAME = "scripted-phases";

    private final Deque<Supplier<AtomicPhase>> script = new ArrayDeque<>();

    synchronized void script(List<Supplier<AtomicPhase>> steps) {
        script.clear();
        script.addAll(steps);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized AtomicPhase resume(long recordId, Checkpoint checkpoint, Cause cause) {
        Supplier<AtomicPhase> step = script.poll();
        if (step == null) {
            throw new IllegalStateException("the script has no phase after " + checkpoint.recoveryPoint());
        }
        return step.get();
    }
}

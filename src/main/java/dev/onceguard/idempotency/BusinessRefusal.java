package dev.onceguard.idempotency;

import dev.onceguard.platform.Problem;
import dev.onceguard.platform.ProblemException;

/**
 * A deterministic "no" from the business (OUT_OF_STOCK, ORDER_ALREADY_PAID): the operation's writes roll back,
 * and the refusal itself is stored as the operation's result and replayed like a success.
 */
public class BusinessRefusal extends ProblemException {

    public BusinessRefusal(Problem problem) {
        super(problem);
    }
}

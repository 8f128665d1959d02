package dev.onceguard.platform;

/**
 * Ends a request with the given problem. Thrown inside a transaction it also rolls that transaction back,
 * so a refused request leaves nothing behind.
 */
public class ProblemException extends RuntimeException {

    private final Problem problem;

    public ProblemException(Problem problem) {
        super(problem.code() + ": " + problem.detail(), null, false, false);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}

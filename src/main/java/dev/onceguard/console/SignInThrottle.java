package dev.onceguard.console;

import dev.onceguard.platform.SqlRows;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Failed console sign-ins, counted per user name and per client address in {@code console_sign_in_failures}, a table
 * every replica shares (one conditional upsert per failure). Past its free failures a subject waits before its next
 * attempt, whatever the password: {@code first-delay}, doubled with each further failure, at most {@code max-delay};
 * a subject quiet for {@code forget-after} starts again. Nobody is locked out for longer than the longest wait.
 * {@code onceguard.console.sign.ins{mechanism,outcome}} counts sign-ins that failed and attempts refused while waiting.
 */
// Started with the application, not on the first sign-in: its counters are exported (at zero) from start-up, as the
// alert on console password guessing and the dashboard need.
@Startup
@ApplicationScoped
class SignInThrottle {

    enum Outcome { FAILED, THROTTLED }

    static final int MAX_USER_NAME = 200;

    private final SqlRows sql;
    private final ConsoleConfig.SignIn config;
    private final MeterRegistry registry;

    SignInThrottle(SqlRows sql, ConsoleConfig config, MeterRegistry registry) {
        this.sql = sql;
        this.config = config.signIn();
        this.registry = registry;
        for (String mechanism : new String[]{"form", "basic"}) {
            for (Outcome outcome : Outcome.values()) {
                counter(mechanism, outcome);
            }
        }
    }

    /** How long {@code user} (null: no user name to check) or {@code address} still has to wait, if either does. */
    Optional<Duration> retryAfter(String user, String address) {
        Instant now = Instant.now();
        String[] subjects = user == null ? new String[]{addressSubject(address)}
                : new String[]{userSubject(user), addressSubject(address)};
        return sql.list("""
                SELECT max(blocked_until) AS until FROM console_sign_in_failures
                WHERE subject = ANY(?) AND blocked_until > now()""", row -> SqlRows.instant(row, "until"), (Object) subjects)
                .stream().filter(until -> until != null).findFirst()
                .map(until -> Duration.between(now, until)).filter(wait -> !wait.isNegative() && !wait.isZero());
    }

    /** Whether the user name {@code user} waits after its failures, whatever the address. */
    boolean userWaits(String user) {
        return !sql.list("SELECT 1 FROM console_sign_in_failures WHERE subject = ? AND blocked_until > now()",
                row -> true, userSubject(user)).isEmpty();
    }

    /** Counts a failure of {@code user} from {@code address}; the wait it starts is in the table. */
    void failed(String user, String address) {
        count(userSubject(user), config.freeFailuresPerUser());
        count(addressSubject(address), config.freeFailuresPerAddress());
    }

    /** A successful form sign-in: the user name's failures are forgotten (its address's wear off with time). */
    void succeeded(String user) {
        sql.update("DELETE FROM console_sign_in_failures WHERE subject = ?", userSubject(user));
    }

    void countAttempt(String mechanism, Outcome outcome) {
        counter(mechanism, outcome).increment();
    }

    /** The wait after the n-th failure of a subject allowed {@code free} of them (none before it). */
    Duration delayAfter(int failures, int free) {
        if (failures < free) {
            return Duration.ZERO;
        }
        int doublings = Math.min(failures - free, 30);
        Duration delay = config.firstDelay().multipliedBy(1L << doublings);
        return delay.compareTo(config.maxDelay()) > 0 ? config.maxDelay() : delay;
    }

    private void count(String subject, int free) {
        int failures = sql.list("""
                INSERT INTO console_sign_in_failures AS f (subject, failures, last_failed_at) VALUES (?, 1, now())
                ON CONFLICT (subject) DO UPDATE SET last_failed_at = now(),
                    failures = CASE WHEN f.last_failed_at < now() - make_interval(secs => ?::double precision)
                                    THEN 1 ELSE f.failures + 1 END
                RETURNING failures""", row -> row.getInt("failures"), subject, config.forgetAfter().toSeconds())
                .get(0);
        Duration delay = delayAfter(failures, free);
        if (!delay.isZero()) {
            sql.update("""
                    UPDATE console_sign_in_failures
                    SET blocked_until = greatest(blocked_until, now() + make_interval(secs => ?::double precision))
                    WHERE subject = ?""", delay.toMillis() / 1000.0, subject);
        }
    }

    private Counter counter(String mechanism, Outcome outcome) {
        return Counter.builder("onceguard.console.sign.ins")
                .description("Console sign-ins that failed, and attempts refused while their user or address waits")
                .tag("mechanism", mechanism).tag("outcome", outcome.name().toLowerCase())
                .register(registry);
    }

    private static String userSubject(String user) {
        String name = user == null ? "" : user;
        return "user:" + (name.length() > MAX_USER_NAME ? name.substring(0, MAX_USER_NAME) : name);
    }

    private static String addressSubject(String address) {
        return "address:" + address;
    }
}

package dev.onceguard.console;

import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import org.hibernate.query.NativeQuery;
import org.hibernate.type.StandardBasicTypes;
import org.jboss.logging.Logger;

import java.sql.SQLException;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Runs an admin action and writes its {@code console_audit} row: the operator, the action, its target and how it
 * ended. The row is written in a transaction of its own after the action, so it exists whether the action was
 * done, refused, found the object already resolved, or threw.
 */
@ApplicationScoped
public class ConsoleAudit {

    private static final Logger LOG = Logger.getLogger(ConsoleAudit.class);
    private static final int MAX_DETAIL_LENGTH = 500;
    /** {@code console_audit.reason}'s own limit; a refund's full note stays with the refund. */
    private static final int MAX_REASON_LENGTH = 500;

    private final EntityManager em;
    private final SecurityIdentity operator;

    public ConsoleAudit(EntityManager em, SecurityIdentity operator) {
        this.em = em;
        this.operator = operator;
    }

    /**
     * @param failed the result to report when {@code action} throws; its detail is replaced by the failure
     */
    ActionResult perform(String action, String targetType, String targetId, AdminNotice failed,
                         Supplier<ActionResult> body) {
        return performIdentified(action, targetType, targetId, failed, auditId -> body.get());
    }

    /**
     * {@link #perform} for an action whose changes name it: {@code body} gets the id its audit entry will have, so a
     * payment's timeline can link the entry that moved it.
     */
    ActionResult performIdentified(String action, String targetType, String targetId, AdminNotice failed,
                                   LongFunction<ActionResult> body) {
        long auditId = QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT nextval(pg_get_serial_sequence('console_audit', 'id'))").getSingleResult()).longValue());
        ActionResult result;
        try {
            result = body.apply(auditId);
        } catch (RuntimeException e) {
            LOG.errorf(e, "console action %s on %s %s failed", action, targetType, targetId);
            result = new ActionResult(AuditOutcome.FAILED, failed, describe(e));
        }
        write(auditId, action, targetType, targetId, null, result.outcome(), result.detail());
        LOG.infof("console action %s on %s %s by %s: %s", action, targetType, targetId, actor(),
                result.outcome().label());
        return result;
    }

    /**
     * Writes the entry of an action whose body ran elsewhere (a console refund, through the engine's own operation)
     * with the reason the operator gave.
     */
    void recordDone(String action, String targetType, String targetId, String reason, AuditOutcome outcome,
                    String detail) {
        long auditId = QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT nextval(pg_get_serial_sequence('console_audit', 'id'))").getSingleResult()).longValue());
        write(auditId, action, targetType, targetId, reason, outcome, detail);
        LOG.infof("console action %s on %s %s by %s: %s", action, targetType, targetId, actor(), outcome.label());
    }

    private void write(long auditId, String action, String targetType, String targetId, String reason,
                       AuditOutcome outcome, String detail) {
        String shortDetail = shortened(detail, MAX_DETAIL_LENGTH);
        String shortReason = shortened(reason, MAX_REASON_LENGTH);
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("""
                        INSERT INTO console_audit (id, at, actor, action, target_type, target_id, reason, outcome, detail)
                        VALUES (:id, :at, :actor, :action, :targetType, :targetId, :reason, :outcome, :detail)""")
                .unwrap(NativeQuery.class)
                .setParameter("id", auditId)
                .setParameter("at", Timestamps.now())
                .setParameter("actor", actor())
                .setParameter("action", action)
                .setParameter("targetType", targetType)
                .setParameter("targetId", targetId)
                .setParameter("reason", shortReason, StandardBasicTypes.STRING)
                .setParameter("outcome", outcome.label())
                .setParameter("detail", shortDetail, StandardBasicTypes.STRING)
                .executeUpdate());
    }

    private static String shortened(String text, int maxLength) {
        return text == null || text.length() <= maxLength ? text : text.substring(0, maxLength);
    }

    private String actor() {
        return operator.getPrincipal().getName();
    }

    /** The failure's type and, for a database error, its SQLState: never a driver message that may quote a row. */
    private static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return failure.getClass().getSimpleName() + " (SQLState " + sql.getSQLState() + ")";
            }
        }
        return failure.getClass().getSimpleName();
    }
}

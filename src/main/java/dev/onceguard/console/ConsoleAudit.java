package dev.onceguard.console;

import dev.onceguard.platform.Cause;
import dev.onceguard.platform.SqlRows;
import dev.onceguard.platform.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.LongFunction;

/**
 * Runs an admin action and writes its {@code console_audit} row: the operator, the action, its target, the reason
 * the operator gave and how it ended. The row is written in a transaction of its own after the action, so it exists whether the action was
 * done, refused, found the object already resolved, or threw.
 */
@ApplicationScoped
public class ConsoleAudit {

    private static final Logger LOG = Logger.getLogger(ConsoleAudit.class);
    private static final int MAX_DETAIL_LENGTH = 500;
    /** {@code console_audit.reason}'s own limit; a refund's full note stays with the refund. */
    private static final int MAX_REASON_LENGTH = 500;

    private final SqlRows sql;
    private final SecurityIdentity operator;

    public ConsoleAudit(SqlRows sql, SecurityIdentity operator) {
        this.sql = sql;
        this.operator = operator;
    }

    /**
     * @param failed the result to report when {@code action} throws; its detail is replaced by the failure
     * @param body   the action, given the id its audit entry will have, so that the changes it makes can name the
     *               entry (a payment's timeline links the entry that moved it)
     */
    ActionResult perform(String action, String targetType, String targetId, String reason, AdminNotice failed,
                         LongFunction<ActionResult> body) {
        long auditId = newAuditId();
        ActionResult result;
        try {
            result = body.apply(auditId);
        } catch (RuntimeException e) {
            LOG.errorf(e, "console action %s on %s %s failed", action, targetType, targetId);
            result = new ActionResult(AuditOutcome.FAILED, failed, describe(e));
        }
        recorded(auditId, action, targetType, targetId, reason, result.outcome(), result.detail());
        return result;
    }

    /**
     * Writes the entry of an action whose body ran elsewhere (a console refund, through the engine's own operation)
     * with the reason the operator gave.
     */
    void recordDone(String action, String targetType, String targetId, String reason, AuditOutcome outcome,
                    String detail) {
        recorded(newAuditId(), action, targetType, targetId, reason, outcome, detail);
    }

    private void recorded(long auditId, String action, String targetType, String targetId, String reason,
                          AuditOutcome outcome, String detail) {
        QuarkusTransaction.requiringNew().run(() -> insertEntry(auditId, action, targetType, targetId, reason, outcome,
                detail));
        LOG.infof("console action %s on %s %s by %s: %s", action, targetType, targetId, actor(), outcome.label());
    }

    /** The id the next audit entry will have, taken before its action runs so that the action's changes can name it. */
    private long newAuditId() {
        return QuarkusTransaction.requiringNew().call(() -> sql.list(
                "SELECT nextval(pg_get_serial_sequence('console_audit', 'id'))", row -> row.getLong(1)).get(0));
    }

    /**
     * Runs one bulk admin action: {@code perRow} on each of {@code rows} in turn, each through the single action's own
     * conditional statement and given the cause naming this entry, then one audit entry for the whole action with
     * each row's outcome ({@code console_audit_rows}). A row that throws is that row's failure, not the action's.
     *
     * @param matched how many rows matched the filter when the rows were taken (more than {@code rows} when capped)
     */
    BulkActions.Done performBulk(BulkActions.Action action, String filter, String reason, List<Long> rows, int matched,
                                 BiFunction<Long, Cause, ActionResult> perRow) {
        long auditId = newAuditId();
        List<BulkActions.RowOutcome> outcomes = new ArrayList<>(rows.size());
        for (long row : rows) {
            ActionResult result;
            try {
                result = perRow.apply(row, Cause.admin(auditId));
            } catch (RuntimeException e) {
                LOG.errorf(e, "bulk console action %s on %s %d failed", action.auditName(), action.targetType(), row);
                result = new ActionResult(AuditOutcome.FAILED, null, describe(e));
            }
            outcomes.add(new BulkActions.RowOutcome(row, result.outcome(), result.detail()));
        }
        BulkActions.Done done = new BulkActions.Done(auditId, action, matched, outcomes);
        QuarkusTransaction.requiringNew().run(() -> {
            insertEntry(auditId, action.auditName(), action.targetType() + "s", filter, reason, done.outcome(),
                    done.summary());
            sql.update("""
                            INSERT INTO console_audit_rows (audit_id, target_id, outcome, detail)
                            SELECT ?, target_id, outcome, detail FROM unnest(?::text[], ?::text[], ?::text[])
                                                                      AS taken(target_id, outcome, detail)""",
                    auditId, outcomes.stream().map(outcome -> String.valueOf(outcome.id())).toArray(String[]::new),
                    outcomes.stream().map(outcome -> outcome.outcome().rowLabel()).toArray(String[]::new),
                    outcomes.stream().map(outcome -> shortened(outcome.detail(), MAX_DETAIL_LENGTH))
                            .toArray(String[]::new));
        });
        LOG.infof("bulk console action %s on %d of %d %ss (%s) by %s: %s", action.auditName(), rows.size(), matched,
                action.targetType(), filter, actor(), done.summary());
        return done;
    }

    private void insertEntry(long auditId, String action, String targetType, String targetId, String reason,
                             AuditOutcome outcome, String detail) {
        sql.update("""
                        INSERT INTO console_audit (id, at, actor, action, target_type, target_id, reason, outcome, detail)
                        VALUES (?, ?, ?, ?, ?, ?, ?::text, ?, ?::text)""",
                auditId, Timestamps.now(), actor(), action, targetType, targetId, shortened(reason, MAX_REASON_LENGTH),
                outcome.label(), shortened(detail, MAX_DETAIL_LENGTH));
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

package dev.onceguard.console;

import dev.onceguard.platform.Jobs;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the page says after an admin action (Post/Redirect/Get: {@code ?notice=<code>&target=<id>}). The text is
 * always one of these; the only value taken from the request is the target, and only when it is a number or a
 * job name, so a crafted link can show no text of its own.
 */
public enum AdminNotice {
    RELEASED("ok", "Operation %s released: it had not reached any external call, its partial work was rolled back "
            + "and its key can be used again."),
    RELEASE_REFUSED("error", "Operation %s was not released: it may already have called the payment provider, and "
            + "releasing it could charge twice. Use “Send to reconciliation”, which asks the provider again with the "
            + "same provider key."),
    RECONCILED("ok", "Operation %s was handed to reconciliation: the provider was asked again with the same provider "
            + "key and the operation is finished."),
    RECONCILED_STILL_UNKNOWN("info", "Operation %s was handed to reconciliation: the provider's answer is still "
            + "unknown, so the payment stays UNKNOWN and the reconciliation job keeps asking with the same key."),
    RECONCILE_NOT_NEEDED("error", "Operation %s never reached an external call, so there is nothing to reconcile: "
            + "release it instead."),
    RECONCILE_NOT_POSSIBLE("error", "Operation %s is not a payment, so it cannot be sent to reconciliation."),
    OPERATION_ALREADY_RESOLVED("info", "Operation %s was already resolved: it finished, was released, or was taken "
            + "over by a client retry or the recovery job. Nothing was changed."),
    OPERATION_ACTION_FAILED("error", "The action on operation %s failed. The audit log has the error; the operation "
            + "stays in the list until its lease expires again."),
    WEBHOOK_PROCESSED("ok", "Webhook event %s was reprocessed and applied."),
    WEBHOOK_IGNORED("ok", "Webhook event %s was reprocessed and ignored by the state machine (stale, repeated or "
            + "not about a known payment); see its reason."),
    WEBHOOK_REJECTED("info", "Webhook event %s was reprocessed and rejected: its amount or currency is not its "
            + "payment's, so it moved nothing; see its reason."),
    WEBHOOK_PENDING_MATCH("info", "Webhook event %s was reprocessed and still matches no payment; it stays "
            + "PENDING_MATCH and is applied as soon as its payment learns its provider payment id."),
    WEBHOOK_FAILED_AGAIN("error", "Webhook event %s failed again and stays FAILED; see its last error."),
    WEBHOOK_ALREADY_RESOLVED("info", "Webhook event %s cannot be reprocessed any more: a new delivery or another operator "
            + "processed it. Nothing was changed."),
    OUTBOX_REQUEUED("ok", "Outbox event %s is PENDING again and due now, with its attempts reset; the relay "
            + "delivers it on its next run."),
    OUTBOX_ALREADY_RESOLVED("info", "Outbox event %s is not DEAD any more: another operator queued it again. "
            + "Nothing was changed."),
    OUTBOX_ACTION_FAILED("error", "Queuing outbox event %s again failed; the audit log has the error."),
    JOB_SUCCEEDED("ok", "Job %s ran and succeeded; its run is the newest below."),
    JOB_FAILED("error", "Job %s ran and failed; its run below has the error.");

    /** A notice as a page shows it: {@code tone} is ok, info or error. */
    public record Shown(String tone, String text) {
    }

    private final String tone;
    private final String text;

    AdminNotice(String tone, String text) {
        this.tone = tone;
        this.text = text;
    }

    public String code() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The notice a redirect's query names; null unless its code and its target are both ones this console writes. */
    static Shown of(String code, String target) {
        if (code == null || target == null
                || !(target.matches("[1-9]\\d{0,17}") || Jobs.ALL.contains(target))) {
            return null;
        }
        return Arrays.stream(values()).filter(notice -> notice.code().equals(code)).findFirst()
                .map(notice -> new Shown(notice.tone, notice.text.formatted(target))).orElse(null);
    }
}

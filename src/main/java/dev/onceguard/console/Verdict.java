package dev.onceguard.console;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The plain-language answer at the top of an operation's page: one intent or several, and what it produced.
 * {@link #of} decides from counted facts only, so each sentence can be checked against the timeline below it.
 *
 * @param tone     {@code ok}, {@code warn} or {@code bad} (the verdict box's class; the words carry the meaning)
 * @param headline what happened to this operation
 * @param findings further facts that matter for a "charged twice" complaint
 * @param sameCart the other operations of the same user with the same cart under other keys, nearest first
 */
public record Verdict(String tone, String headline, List<String> findings, List<SameCart> sameCart) {

    /**
     * Another operation of the same user and operation with the same fingerprint, under a different key.
     *
     * @param orderId the order it created (null when it created none)
     */
    public record SameCart(long id, String key, String status, Instant createdAt, Duration apart, String orderId) {

        public String apartText() {
            return span(apart);
        }

        public String href() {
            return ConsoleLinks.operation(id);
        }
    }

    /**
     * @param status             PROCESSING, COMPLETED or FAILED
     * @param responseStatus     the stored answer's HTTP status (null while PROCESSING)
     * @param refusalCode        the stored problem's code when the answer is a refusal
     * @param conflicts          requests refused because they reused this key with another payload
     * @param orders             orders this operation created or paid for (0 or 1)
     * @param charges            SUCCEEDED payment attempts of that order
     * @param extraDeliveries    webhook deliveries beyond the first of each event of those payments
     * @param licenses           licenses issued for that order
     * @param window             within it, the same cart under two keys is a possible double submission
     */
    public record Facts(String status, Instant leaseExpiresAt, String recoveryPoint, int replayCount,
                        Integer responseStatus, String refusalCode, int conflicts, int orders, int charges,
                        int extraDeliveries, int licenses, List<SameCart> sameCart, Duration window, Instant now) {
    }

    private enum Tone { OK, WARN, BAD }

    /**
     * @param story  how a payment operation really went (null for other operations); its headline, when something
     *               went wrong on the way, replaces the ordinary one, and its tone is never "ok"
     * @param jobs   which recovery jobs are not at work, so that a stuck operation is promised only what will happen
     * @param ending what finished the record and what its first request was answered, as its row keeps them (null:
     *               not read); anything but its own request's answer names the path instead of "sent once"
     */
    public static Verdict of(Facts facts, PaymentStory story, JobSwitches.RecoveryJobs jobs, RecordEnding ending) {
        Tone tone = Tone.OK;
        String headline;
        switch (facts.status()) {
            case "PROCESSING" -> {
                if (story != null && story.headline() != null) {
                    tone = Tone.WARN;
                    headline = story.headline();
                } else if (facts.leaseExpiresAt() != null && !facts.leaseExpiresAt().isAfter(facts.now())) {
                    tone = Tone.BAD;
                    headline = "Stuck past its lease: still PROCESSING at recovery point " + facts.recoveryPoint()
                            + ", its lease ran out " + span(Duration.between(facts.leaseExpiresAt(), facts.now()))
                            + " ago. " + ("started".equals(facts.recoveryPoint())
                            ? capitalized(jobs.whatFinishesAStart()) + "."
                            : capitalized(jobs.whatFinishesAPayment()) + ", never with a second charge.");
                } else {
                    tone = Tone.WARN;
                    headline = "Still in progress: the first request is running (recovery point "
                            + facts.recoveryPoint() + "); a retry with this key gets 409 until it finishes.";
                }
            }
            case "FAILED" -> {
                tone = Tone.WARN;
                String path = ending == null ? null : ending.pathHeadline("a stored refusal "
                        + facts.responseStatus() + (facts.refusalCode() == null ? "" : " " + facts.refusalCode())
                        + ", nothing created", story != null);
                if (path != null) {
                    headline = path;
                    break;
                }
                headline = "Refused, and the refusal is stored: the first request was answered "
                        + facts.responseStatus() + (facts.refusalCode() == null ? "" : " " + facts.refusalCode())
                        + (facts.replayCount() == 0 ? "" : " and its " + times(facts.replayCount(), "retry", "retries")
                        + " got the same answer") + ". This operation created nothing.";
            }
            default -> {
                if (facts.charges() > 1) {
                    tone = Tone.BAD;
                }
                if (story != null && story.headline() != null) {
                    tone = worse(tone, Tone.WARN);
                    headline = story.headline();
                    break;
                }
                String path = ending == null ? null : ending.pathHeadline(outcome(facts), story != null);
                if (path != null) {
                    tone = worse(tone, Tone.WARN);
                    headline = path;
                    break;
                }
                headline = "One intent, " + (facts.replayCount() == 0 ? "sent once" : "retried " + times(facts.replayCount(), "time", "times"))
                        + ": " + outcome(facts) + ".";
            }
        }

        List<String> findings = new ArrayList<>();
        if (facts.conflicts() > 0) {
            tone = worse(tone, Tone.WARN);
            findings.add("Key reused with a different payload " + times(facts.conflicts(), "time", "times")
                    + "; those requests were refused (422) and created nothing.");
        }
        List<SameCart> sameCart = facts.sameCart().stream().sorted(Comparator.comparing(SameCart::apart)).toList();
        if (!sameCart.isEmpty()) {
            Duration nearest = sameCart.get(0).apart();
            boolean withinWindow = nearest.compareTo(facts.window()) <= 0;
            if (withinWindow) {
                tone = worse(tone, Tone.WARN);
            }
            String others = sameCart.size() == 1
                    ? "Another operation with the same cart under a different key exists ("
                    + (sameCart.get(0).orderId() == null ? "" : "order " + sameCart.get(0).orderId() + ", ")
                    + span(nearest) + " apart): a separate intent"
                    : sameCart.size() + " other operations with the same cart under different keys exist (nearest "
                    + span(nearest) + " apart): separate intents";
            findings.add(others + " — " + (withinWindow
                    ? "possible double submission, within the " + span(facts.window()) + " window."
                    : "outside the " + span(facts.window()) + " double-submission window, so likely a deliberate purchase."));
        }
        if (facts.extraDeliveries() > 0) {
            findings.add("The provider delivered webhook events " + times(facts.extraDeliveries(), "extra time", "extra times")
                    + "; the duplicates were answered 200 and changed nothing.");
        }
        if (facts.licenses() == 1) {
            findings.add("One license issued.");
        } else if (facts.licenses() > 1) {
            tone = Tone.BAD;
            findings.add(facts.licenses() + " licenses issued for one order.");
        }
        return new Verdict(tone.name().toLowerCase(), headline, List.copyOf(findings), sameCart);
    }

    /** What an operation came to: "one order, one charge". */
    static String outcome(Facts facts) {
        return (facts.orders() == 0 ? "no order" : facts.orders() == 1 ? "one order" : facts.orders() + " orders")
                + ", " + charges(facts.charges());
    }

    static String charges(long charges) {
        return charges == 0 ? "no charge" : charges == 1 ? "one charge" : charges + " charges";
    }

    /**
     * A short wait as people read it off the timestamps: tenths of a second under 10 s ({@code 5.5 s}), whole seconds
     * rounded under a minute ({@code 38 s}), then as {@link #span}.
     */
    static String preciseSpan(Duration duration) {
        long millis = Math.abs(duration.toMillis());
        if (millis < 10_000) {
            return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        if (millis < 60_000) {
            return Math.round(millis / 1000.0) + " s";
        }
        return span(duration);
    }

    /** {@code 45 s}, {@code 2 min}, {@code 75 s}, {@code 3 h 5 min}, {@code 2 d 4 h}. */
    static String span(Duration duration) {
        long seconds = Math.abs(duration.toSeconds());
        if (seconds < 3600) {
            return seconds >= 60 && seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
        }
        if (seconds < 86_400) {
            return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
        }
        return seconds / 86_400 + " d " + seconds % 86_400 / 3600 + " h";
    }

    static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static String times(int count, String one, String many) {
        return count + " " + (count == 1 ? one : many);
    }

    private static Tone worse(Tone current, Tone candidate) {
        return candidate.compareTo(current) > 0 ? candidate : current;
    }
}

package dev.onceguard.payment.provider;

/**
 * A notification the provider's API did not confirm (no answer, or an answer that does not yet say what the
 * notification says). It is not lost: {@code kept} is what the inbox stores as failed, and {@code hint} names it, so
 * that the provider's next delivery of it, or an operator, applies it again. The message never contains secrets.
 */
public class ReadBackFailed extends Exception {

    private final transient ProviderEvent hint;
    private final byte[] kept;

    public ReadBackFailed(String message, ProviderEvent hint, byte[] kept, Throwable cause) {
        super(message, cause);
        this.hint = hint;
        this.kept = kept.clone();
    }

    public ProviderEvent hint() {
        return hint;
    }

    public byte[] kept() {
        return kept.clone();
    }
}

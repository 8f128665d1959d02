package dev.onceguard.platform;

import jakarta.enterprise.context.ApplicationScoped;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;

/**
 * Opaque, type-prefixed, time-ordered ids ({@code ord_01JD…}): 48 bits of milliseconds then 80 random bits,
 * in Crockford base32, so that ordering by id is ordering by creation time.
 * <p>
 * A bean rather than static state: its random source is created when the service starts, never at build time, so a
 * native executable does not ship one seed to every process (see ArchitectureTest).
 */
@ApplicationScoped
public class Ids {

    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

    private final SecureRandom random = new SecureRandom();
    private final Clock clock = Clock.systemUTC();

    public String next(String prefix) {
        long millis = clock.millis();
        byte[] randomBytes = new byte[10];
        random.nextBytes(randomBytes);
        char[] out = new char[26];
        for (int i = 9; i >= 0; i--) {
            out[i] = ALPHABET[(int) (millis & 31)];
            millis >>>= 5;
        }
        long high = 0;
        for (int i = 0; i < 5; i++) {
            high = (high << 8) | (randomBytes[i] & 0xff);
        }
        long low = 0;
        for (int i = 5; i < 10; i++) {
            low = (low << 8) | (randomBytes[i] & 0xff);
        }
        for (int i = 17; i >= 10; i--) {
            out[i] = ALPHABET[(int) (high & 31)];
            high >>>= 5;
        }
        for (int i = 25; i >= 18; i--) {
            out[i] = ALPHABET[(int) (low & 31)];
            low >>>= 5;
        }
        return prefix + "_" + new String(out);
    }

    /**
     * A version 7 UUID (RFC 9562): 48 bits of milliseconds, then 74 random bits. Request ids are indexed where each
     * request leaves a row; time-ordered, their index entries go to the end of the index instead of a random page.
     */
    public String timeOrderedUuid() {
        long msb = (clock.millis() << 16) | 0x7000L | (random.nextInt() & 0x0fffL);
        long lsb = (random.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}

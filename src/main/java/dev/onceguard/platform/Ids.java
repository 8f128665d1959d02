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
        base32(out, 0, 10, millis);
        base32(out, 10, 8, fortyBits(randomBytes, 0));
        base32(out, 18, 8, fortyBits(randomBytes, 5));
        return prefix + "_" + new String(out);
    }

    /** The last {@code 5 * count} bits of {@code value} as {@code count} characters from {@code from} on. */
    private static void base32(char[] out, int from, int count, long value) {
        for (int i = from + count - 1; i >= from; i--) {
            out[i] = ALPHABET[(int) (value & 31)];
            value >>>= 5;
        }
    }

    /** The five bytes from {@code from} on as one number. */
    private static long fortyBits(byte[] bytes, int from) {
        long bits = 0;
        for (int i = from; i < from + 5; i++) {
            bits = (bits << 8) | (bytes[i] & 0xff);
        }
        return bits;
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

package dev.onceguard.platform;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class RequestBodyReaderTest {

    /** Hands out at most seven bytes a call, as a network stream may. */
    private static InputStream trickling(byte[] body) {
        return new ByteArrayInputStream(body) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 7));
            }
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, RequestBodyReader.INITIAL_BUFFER - 1, RequestBodyReader.INITIAL_BUFFER,
            RequestBodyReader.INITIAL_BUFFER + 1, 5 * RequestBodyReader.INITIAL_BUFFER + 3, 64 * 1024 + 1})
    void readsEveryByteIntoAnArrayOfExactlyTheirNumber(int size) throws IOException {
        byte[] body = new byte[size];
        new Random(size).nextBytes(body);

        assertThat(RequestBodyReader.readAll(trickling(body))).isEqualTo(body);
    }

    @Test
    void anEmptyBodyIsAnEmptyArray() throws IOException {
        assertThat(RequestBodyReader.readAll(InputStream.nullInputStream())).isEmpty();
    }
}

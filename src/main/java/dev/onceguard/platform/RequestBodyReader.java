package dev.onceguard.platform;

import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveResourceInfo;
import org.jboss.resteasy.reactive.server.spi.ServerMessageBodyReader;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.Arrays;

/**
 * Reads the {@code byte[]} bodies of the API and the webhooks in place of Quarkus REST's own reader, which takes
 * them with {@link InputStream#readAllBytes()} and so allocates an 8 KiB buffer for every body, however small. The
 * bodies here are a few hundred bytes, so this starts at {@link #INITIAL_BUFFER} bytes and doubles only as needed.
 * At thousands of replays per second that buffer was the largest share of what a replay allocated after the
 * framework's own per-request work.
 */
@Provider
@ConstrainedTo(RuntimeType.SERVER)
@Consumes(MediaType.WILDCARD)
public class RequestBodyReader implements ServerMessageBodyReader<byte[]> {

    static final int INITIAL_BUFFER = 1024;

    @Override
    public boolean isReadable(Class<?> type, Type genericType, ResteasyReactiveResourceInfo lazyMethod,
                              MediaType mediaType) {
        return type == byte[].class;
    }

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return type == byte[].class;
    }

    @Override
    public byte[] readFrom(Class<byte[]> type, Type genericType, MediaType mediaType, ServerRequestContext context)
            throws IOException {
        return readAll(context.getInputStream());
    }

    @Override
    public byte[] readFrom(Class<byte[]> type, Type genericType, Annotation[] annotations, MediaType mediaType,
                           MultivaluedMap<String, String> httpHeaders, InputStream entityStream) throws IOException {
        return readAll(entityStream);
    }

    /** Every byte of {@code in}, in an array of exactly their number. */
    static byte[] readAll(InputStream in) throws IOException {
        byte[] buffer = new byte[INITIAL_BUFFER];
        int length = 0;
        while (true) {
            if (length == buffer.length) {
                buffer = Arrays.copyOf(buffer, buffer.length * 2);
            }
            int read = in.read(buffer, length, buffer.length - length);
            if (read < 0) {
                return Arrays.copyOf(buffer, length);
            }
            length += read;
        }
    }
}

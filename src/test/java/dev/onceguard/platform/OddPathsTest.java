package dev.onceguard.platform;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paths a scanner sends, byte for byte on a raw connection: a path parameter ({@code ;}) on a console path once held
 * the connection open unanswered and logged a stack trace per request. Each is answered at once, with no line at WARN
 * or above, and a burst of them leaves the service answering.
 */
@QuarkusTest
class OddPathsTest {

    private static final List<String> ODD = List.of("/console;", "/console/x;/y", "/console/login/..;/operations",
            "/console;jsessionid=1", "/console/,", "/console/\"x\"", "/console/a\\b", "/api/orders/a;b");

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        Logger.getLogger("").removeHandler(capture);
    }

    @Test
    void eachOddPathIsAnsweredAtOnceWithoutAnAlarmInTheLog() throws IOException {
        for (String path : ODD) {
            assertThat(statusLine("GET " + path)).as(path).startsWith("HTTP/1.1 400");
        }
        assertThat(statusLine("POST /console/jobs;/retention-cleanup/run")).startsWith("HTTP/1.1 400");
        assertThat(records).filteredOn(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).isEmpty();
    }

    @Test
    void aBurstOfOddPathsLeavesTheServiceAnswering() throws Exception {
        ExecutorService scanners = Executors.newFixedThreadPool(32);
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String path = ODD.get(i % ODD.size());
                answers.add(scanners.submit(() -> statusLine("GET " + path)));
            }
            for (Future<String> answer : answers) {
                assertThat(answer.get(20, TimeUnit.SECONDS)).startsWith("HTTP/1.1 400");
            }
        } finally {
            scanners.shutdownNow();
        }
        assertThat(statusLine("GET /console/login")).startsWith("HTTP/1.1 200");
        assertThat(records).filteredOn(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).isEmpty();
    }

    /** The status line of {@code requestLine}, sent as written; the read gives up after 5 s. */
    private static String statusLine(String requestLine) throws IOException {
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write((requestLine + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\r'; b = in.read()) {
                line.append((char) b);
            }
            return line.toString();
        }
    }
}

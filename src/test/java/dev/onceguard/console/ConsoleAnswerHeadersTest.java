package dev.onceguard.console;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's answers as an attacker meets them, written byte for byte on a socket: a forged {@code Host} never
 * makes it into a redirect, a client that is not the trusted proxy cannot claim https, the page to return to after
 * signing in is in an HttpOnly cookie of the console's own, and no answer outside the console sets its CSRF cookie.
 */
@QuarkusTest
class ConsoleAnswerHeadersTest {

    private static final String TRUSTED_PROXY = "127.0.0.1";
    private static final String ANYONE = "127.0.0.2";
    private static final String BEHIND_TLS = "X-Forwarded-Proto: https\r\n";
    private static final String FORGED_HOST = "Host: attacker.example\r\n";

    @TestHTTPResource("/")
    URL server;

    @Test
    void consoleAnswersOverHttpsCarryStrictTransportSecurityAndPlainOnesDoNot() throws IOException {
        String overHttps = send(TRUSTED_PROXY, "GET /console/login HTTP/1.1\r\n" + BEHIND_TLS + host());
        String claimedByAnyone = send(ANYONE, "GET /console/login HTTP/1.1\r\n" + BEHIND_TLS + host());
        String plain = send(TRUSTED_PROXY, "GET /console/login HTTP/1.1\r\n" + host());

        assertThat(header(overHttps, "Strict-Transport-Security")).hasValue("max-age=31536000");
        assertThat(header(claimedByAnyone, "Strict-Transport-Security")).isEmpty();
        assertThat(header(plain, "Strict-Transport-Security")).isEmpty();
    }

    @Test
    void aForgedHostNeverReachesARedirect() throws IOException {
        String challenge = send(ANYONE, "GET /console/orders HTTP/1.1\r\n" + FORGED_HOST);
        String signedIn = signIn(ANYONE, FORGED_HOST, "");

        assertThat(challenge).startsWith("HTTP/1.1 302");
        assertThat(header(challenge, "Location")).hasValue("/console/login");
        assertThat(header(signedIn, "Location")).hasValue("/console");
        for (String answer : List.of(challenge, signedIn)) {
            assertThat(answer).doesNotContain("attacker.example");
        }
    }

    @Test
    void thePageToReturnToIsKeptInAnHttpOnlyCookieAndLeadsBackThereOnly() throws IOException {
        String challenge = send(ANYONE, "GET /console/orders?status=PAID HTTP/1.1\r\n" + host());

        String returnCookie = cookie(challenge, ConsoleAnswerHeaders.RETURN_COOKIE).orElseThrow();
        assertThat(returnCookie).containsIgnoringCase("; HttpOnly").contains("Path=/j_security_check");
        assertThat(cookie(challenge, "quarkus-redirect-location")).isEmpty();
        String value = returnCookie.substring(returnCookie.indexOf('=') + 1, returnCookie.indexOf(';'));

        String signedIn = signIn(ANYONE, host(), "Cookie: " + ConsoleAnswerHeaders.RETURN_COOKIE + "=" + value + "\r\n");
        assertThat(header(signedIn, "Location")).hasValue("/console/orders?status=PAID");
        assertThat(cookie(signedIn, ConsoleAnswerHeaders.RETURN_COOKIE).orElseThrow()).contains("Max-Age=0");

        for (String elsewhere : List.of("%2F%2Fattacker.example%2Fconsole", "https%3A%2F%2Fattacker.example%2F",
                "%2Fconsole%2F%2Fattacker.example", "%2Fapi%2Forders")) {
            String answer = signIn(ANYONE, host(), "Cookie: " + ConsoleAnswerHeaders.RETURN_COOKIE + "=" + elsewhere + "\r\n");
            assertThat(header(answer, "Location")).as(elsewhere).hasValue("/console");
        }
    }

    @Test
    void theCsrfCookieIsSetOnConsoleAnswersOnly() throws IOException {
        assertThat(cookie(send(ANYONE, "GET /console/login HTTP/1.1\r\n" + host()), "onceguard-csrf")).isPresent();
        for (String path : List.of("/api/products", "/q/health", "/webhooks/sandbox", "/sandbox/v1/payments")) {
            String answer = send(ANYONE, "GET " + path + " HTTP/1.1\r\n" + host());
            assertThat(cookie(answer, "onceguard-csrf")).as(path).isEmpty();
        }
    }

    private String host() {
        return "Host: localhost:" + server.getPort() + "\r\n";
    }

    private String signIn(String from, String hostLine, String cookieLine) throws IOException {
        String form = "j_username=support&j_password=support-password";
        String answer = send(from, "POST /j_security_check HTTP/1.1\r\n" + hostLine + cookieLine
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + form.length() + "\r\n", form);
        assertThat(answer).startsWith("HTTP/1.1 302");
        return answer;
    }

    private static Optional<String> header(String answer, String name) {
        return answer.lines().takeWhile(line -> !line.isEmpty())
                .filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).findFirst();
    }

    private static Optional<String> cookie(String answer, String name) {
        return answer.lines().takeWhile(line -> !line.isEmpty())
                .filter(l -> l.regionMatches(true, 0, "Set-Cookie: " + name + "=", 0, name.length() + 13))
                .map(l -> l.substring("Set-Cookie: ".length())).findFirst();
    }

    private String send(String from, String head) throws IOException {
        return send(from, head, "");
    }

    /** One request from the address {@code from}, answered and closed; the head ends before its blank line. */
    private String send(String from, String head, String body) throws IOException {
        try (Socket socket = new Socket(InetAddress.getByName(server.getHost()), server.getPort(),
                InetAddress.getByName(from), 0)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Connection: close\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}

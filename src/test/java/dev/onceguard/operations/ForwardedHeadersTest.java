package dev.onceguard.operations;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behind a TLS ingress the proxy says {@code X-Forwarded-Proto: https}. The test profile trusts 127.0.0.1 as a proxy
 * (as production trusts proxy.trustedProxies): from there the console's login cookie is Secure and its redirects stay
 * on https. The same headers from 127.0.0.2, an address no one configured, change nothing. Requests are written on a
 * socket bound to the sending address, which no HTTP client library lets a test choose.
 */
@QuarkusTest
class ForwardedHeadersTest {

    private static final String TRUSTED = "127.0.0.1";
    private static final String UNTRUSTED = "127.0.0.2";
    private static final String BEHIND_TLS = "X-Forwarded-Proto: https\r\nX-Forwarded-Host: shop.example.com\r\n";

    @TestHTTPResource("/")
    URL server;

    @Test
    void aTrustedProxysHttpsKeepsTheConsoleRedirectOnHttps() throws IOException {
        String answer = send(TRUSTED, "GET /console HTTP/1.1\r\n" + BEHIND_TLS);

        assertThat(answer).startsWith("HTTP/1.1 302");
        // path-only: the browser stays on the https origin it is on
        assertThat(header(answer, "Location")).isEqualTo("/console/login");
    }

    @Test
    void anUntrustedAddressCannotClaimHttps() throws IOException {
        String answer = send(UNTRUSTED, "GET /console HTTP/1.1\r\n" + BEHIND_TLS);

        assertThat(answer).startsWith("HTTP/1.1 302");
        assertThat(header(answer, "Location")).isEqualTo("/console/login");
        assertThat(answer).doesNotContainIgnoringCase("Strict-Transport-Security");
    }

    @Test
    void behindATrustedTlsProxyTheLoginCookieIsSecure() throws IOException {
        String answer = signIn(TRUSTED);

        assertThat(header(answer, "Location")).isEqualTo("/console");
        assertThat(sessionCookie(answer)).containsIgnoringCase("; HttpOnly").containsIgnoringCase("; Secure");
    }

    @Test
    void fromAnUntrustedAddressTheLoginCookieIsNotMarkedSecure() throws IOException {
        String answer = signIn(UNTRUSTED);

        assertThat(header(answer, "Location")).isEqualTo("/console");
        assertThat(sessionCookie(answer)).containsIgnoringCase("; HttpOnly").doesNotContainIgnoringCase("secure");
    }

    private String signIn(String from) throws IOException {
        String form = "j_username=support&j_password=support-password";
        String answer = send(from, "POST /j_security_check HTTP/1.1\r\n" + BEHIND_TLS
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + form.length() + "\r\n", form);
        assertThat(answer).startsWith("HTTP/1.1 302");
        return answer;
    }

    private static String sessionCookie(String answer) {
        List<String> cookies = answer.lines().filter(l -> l.regionMatches(true, 0, "Set-Cookie: onceguard-console=", 0, 30))
                .toList();
        assertThat(cookies).as("the console's session cookie in\n" + answer).hasSize(1);
        return cookies.get(0);
    }

    private static String header(String answer, String name) {
        return answer.lines().filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in\n" + answer));
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
            out.write((head + "Host: localhost:" + server.getPort() + "\r\nConnection: close\r\n\r\n" + body)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}

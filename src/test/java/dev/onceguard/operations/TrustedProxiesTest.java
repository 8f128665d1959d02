package dev.onceguard.operations;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trusted proxies are checked on every request. An entry Quarkus does not read as an IPv4 address or a CIDR (a
 * bare IPv6 address such as {@code ::1} included) is resolved as a host name, and where no DNS server answers that
 * held every request for the resolver's 5 s timeout.
 */
class TrustedProxiesTest {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}(/\\d{1,2})?");
    private static final Pattern IPV6_CIDR = Pattern.compile("[0-9a-fA-F:]+/\\d{1,3}");

    @Test
    void everyDefaultTrustedProxyIsAnAddressOrACidrNeverAHostNameToResolve() throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of("src/main/resources/application.properties"))) {
            properties.load(reader);
        }
        List<String> entries = List.of(properties.getProperty("quarkus.http.proxy.trusted-proxies").split(","));

        assertThat(entries).isNotEmpty().allSatisfy(entry ->
                assertThat(IPV4.matcher(entry.trim()).matches() || IPV6_CIDR.matcher(entry.trim()).matches())
                        .as("%s is an IPv4 address or a CIDR", entry).isTrue());
    }
}

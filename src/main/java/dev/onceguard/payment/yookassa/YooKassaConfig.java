package dev.onceguard.payment.yookassa;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.List;
import java.util.Optional;

/** The YooKassa adapter: enabled when the shop id, the secret key and the return URL are all set. */
@ConfigMapping(prefix = "onceguard.yookassa")
public interface YooKassaConfig {

    /** The shop's id, the user name of HTTP Basic authentication. */
    Optional<String> shopId();

    /** The shop's secret key, the password of HTTP Basic authentication; never logged. */
    Optional<String> secretKey();

    /** The API's root, under which {@code /payments} lives. */
    @WithDefault("https://api.yookassa.ru/v3")
    String baseUrl();

    /** Where YooKassa sends the customer back after the redirect confirmation. */
    Optional<String> returnUrl();

    /**
     * The networks notifications are accepted from (addresses or CIDRs), matched against the client address the
     * trusted proxy reports; by default the ones YooKassa publishes.
     */
    @WithDefault("185.71.76.0/27,185.71.77.0/27,77.75.153.0/25,77.75.156.11,77.75.156.35,77.75.154.128/25,2a02:5180::/32")
    List<String> notificationSources();
}

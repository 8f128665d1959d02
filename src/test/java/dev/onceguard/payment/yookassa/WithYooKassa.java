package dev.onceguard.payment.yookassa;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The test profile of every YooKassa test that runs the application: new payments go to YooKassa, whose API is the
 * local stub; notifications are accepted from YooKassa's published networks (the default), which a test names in
 * {@code X-Forwarded-For} as the trusted proxy (the loopback) would report them.
 */
public class WithYooKassa implements QuarkusTestProfile {

    public static final String RETURN_URL = "https://shop.example/orders/return";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("onceguard.payments.provider", "yookassa",
                "onceguard.yookassa.shop-id", YooKassaStub.SHOP_ID,
                "onceguard.yookassa.secret-key", YooKassaStub.SECRET_KEY,
                "onceguard.yookassa.return-url", RETURN_URL);
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Stub.class));
    }

    /** Starts the YooKassa stub before the application and points the adapter at it. */
    public static class Stub implements QuarkusTestResourceLifecycleManager {

        public static YooKassaStub yookassa;

        @Override
        public Map<String, String> start() {
            try {
                yookassa = new YooKassaStub();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.of("onceguard.yookassa.base-url", yookassa.baseUrl());
        }

        @Override
        public void stop() {
            yookassa.close();
        }
    }
}

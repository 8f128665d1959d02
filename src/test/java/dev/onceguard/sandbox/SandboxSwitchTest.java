package dev.onceguard.sandbox;

import dev.onceguard.platform.Problem;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;

import static org.assertj.core.api.Assertions.assertThat;

/** The test profile has the sandbox on; this checks the switch's answer for both settings without a restart. */
class SandboxSwitchTest {

    private static <T> T stub(Class<T> type, String method, Object answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            if (m.getName().equals(method)) {
                return answer;
            }
            throw new UnsupportedOperationException(m.getName());
        }));
    }

    private static Response filter(boolean enabled, String path) {
        SandboxConfig config = stub(SandboxConfig.class, "enabled", enabled);
        UriInfo uri = stub(UriInfo.class, "getPath", path);
        return new SandboxSwitch(config).hideWhenDisabled(stub(ContainerRequestContext.class, "getUriInfo", uri));
    }

    @Test
    void whileDisabledEverySandboxPathIsNotFound() {
        for (String path : new String[] {"/sandbox", "/sandbox/v1/payments", "/sandbox/v1/payments/sbx_1", "/sandbox/anything"}) {
            Response response = filter(false, path);
            assertThat(response).as(path).isNotNull();
            assertThat(response.getStatus()).isEqualTo(404);
            assertThat(response.getMediaType().toString()).isEqualTo(Problem.MEDIA_TYPE);
            assertThat(((Problem) response.getEntity()).code()).isEqualTo("NOT_FOUND");
        }
    }

    @Test
    void whileDisabledOtherPathsPass() {
        assertThat(filter(false, "/api/orders")).isNull();
        assertThat(filter(false, "/sandboxes")).isNull();
        assertThat(filter(false, "/webhooks/sandbox")).isNull();
    }

    @Test
    void whileEnabledTheSandboxPasses() {
        assertThat(filter(true, "/sandbox/v1/payments")).isNull();
    }
}

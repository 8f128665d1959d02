package dev.onceguard.platform;

import io.quarkus.security.UnauthorizedException;
import jakarta.enterprise.context.RequestScoped;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** The authenticated API user: the {@code sub} claim of the bearer token. */
@RequestScoped
public class Caller {

    private final JsonWebToken token;

    public Caller(JsonWebToken token) {
        this.token = token;
    }

    public String userId() {
        String subject = token.getSubject();
        if (subject == null || subject.isBlank()) {
            throw new UnauthorizedException();
        }
        return subject;
    }
}

package dev.onceguard.platform;

import io.quarkus.security.UnauthorizedException;
import jakarta.enterprise.context.RequestScoped;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * The authenticated API user: the {@code sub} claim of the bearer token. A subject that could not be stored as a user
 * id (blank, with a NUL or an unpaired surrogate, longer than the 255 characters OpenID Connect allows) makes the token
 * unusable: 401 like a bad token.
 */
@RequestScoped
public class Caller {

    static final int MAX_SUBJECT_LENGTH = 255;

    private final JsonWebToken token;

    public Caller(JsonWebToken token) {
        this.token = token;
    }

    public String userId() {
        String subject = token.getSubject();
        if (subject == null || subject.isBlank() || subject.length() > MAX_SUBJECT_LENGTH
                || !StorableText.storable(subject)) {
            throw new UnauthorizedException();
        }
        return subject;
    }

    /** Whether the token's {@code groups} claim holds {@code group} (a back-office system's rights). */
    public boolean inGroup(String group) {
        return token.getGroups() != null && token.getGroups().contains(group);
    }
}

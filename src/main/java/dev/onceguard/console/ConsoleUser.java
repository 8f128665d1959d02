package dev.onceguard.console;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;

/** The signed-in operator, for templates: {@code {inject:operator.name}}, {@code {inject:operator.admin}}. */
@Named("operator")
@RequestScoped
public class ConsoleUser {

    public static final String SUPPORT = "support";
    public static final String ADMIN = "admin";

    private final SecurityIdentity identity;

    public ConsoleUser(SecurityIdentity identity) {
        this.identity = identity;
    }

    public String getName() {
        return identity.isAnonymous() ? "" : identity.getPrincipal().getName();
    }

    public boolean isAdmin() {
        return identity.hasRole(ADMIN);
    }
}

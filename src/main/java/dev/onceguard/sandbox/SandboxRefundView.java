package dev.onceguard.sandbox;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.util.Map;

/** A sandbox refund as the sandbox API and its events show it; field order is the order on the wire. */
@RegisterForReflection
public record SandboxRefundView(String id, String payment, String status, String amount, String currency,
                                Map<String, String> metadata, String created) {
}

package dev.onceguard.payment.provider;

/** The provider-side states onceguard distinguishes. */
public enum ProviderStatus { PENDING, SUCCEEDED, FAILED, CANCELED }

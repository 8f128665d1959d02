package dev.onceguard.payment.provider;

/** The provider-side states onceguard distinguishes; REQUIRES_ACTION waits for the customer (3-D Secure). */
public enum ProviderStatus { PENDING, REQUIRES_ACTION, SUCCEEDED, FAILED, CANCELED }

package dev.onceguard.payment.provider;

/** The provider-side states of a refund onceguard distinguishes. */
public enum RefundStatus { PENDING, SUCCEEDED, FAILED }

package io.ckc.gateway.core;

/** The core's answer to a node that asks for a new session ({@link SessionShard#admit}); each adapter says it its way. */
public enum ConnectAnswer {
    /** Open it. */
    ADMITTED,
    /** The gateway takes no more new sessions this instant ({@link ConnectAdmission}): try again soon. */
    BUSY,
    /** Its source address opened more sessions than CKC_ADDRESS_SESSIONS_PER_SECOND allows ({@link AddressLimits}). */
    ADDRESS_RATE,
    /** The node opened more than CKC_FLAP_SESSIONS sessions within CKC_FLAP_WINDOW_MS and is refused for a while. */
    FLAPPING,
    /** An MQTT device whose username and password the credential store does not know. */
    BAD_CREDENTIALS;

    /** Its name on {@code ckc_gateway_connects_refused_total{reason}}. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

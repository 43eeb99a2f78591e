package io.ckc.gateway.core;

/**
 * The limits that keep one source from taking every other node's share, ahead of the stack-wide admission
 * ({@link ConnectAdmission}, {@link UplinkAdmission}), so a flood is refused where it comes from while honest nodes
 * keep theirs: new sessions per second from one source address; messages and payload bytes per second from one node;
 * and a node whose sessions open again and again within a window is refused for a while. Every limit is a token
 * bucket (Bucket4j) holding the given burst; 0 turns a limit off. Read by {@code GatewayConfig} from the gateway's
 * settings, where their defaults are documented.
 *
 * @param nodeMessagesPerSecond a node's messages and groupcasts per second (a second's worth may come at once)
 * @param nodeBytesPerSecond a node's payload bytes per second (at least one largest payload may come at once)
 * @param addressSessionsPerSecond new sessions per second from one source address
 * @param addressSessionsBurst how many of those may come at once (a NAT's devices after an outage)
 * @param flapSessions sessions of one node within {@code flapWindowMs} beyond which it is refused for a while
 * @param flapWindowMs that window
 * @param flapPenaltyMs how long such a node is refused
 */
public record RateLimits(int nodeMessagesPerSecond, int nodeBytesPerSecond, int addressSessionsPerSecond,
                         int addressSessionsBurst, int flapSessions, long flapWindowMs, long flapPenaltyMs) {

    /** No limit at all: what the insecure perf baseline and tests of other things may use. */
    public static final RateLimits NONE = new RateLimits(0, 0, 0, 0, 0, 0, 0);

    public RateLimits {
        if (nodeMessagesPerSecond < 0 || nodeBytesPerSecond < 0 || addressSessionsPerSecond < 0
                || addressSessionsBurst < 0 || flapSessions < 0 || flapWindowMs < 0 || flapPenaltyMs < 0) {
            throw new IllegalArgumentException("rate limits must not be negative (0 turns one off): " + this);
        }
        if (addressSessionsPerSecond > 0 && addressSessionsBurst < addressSessionsPerSecond) {
            throw new IllegalArgumentException("CKC_ADDRESS_SESSIONS_BURST (" + addressSessionsBurst
                    + ") must be at least CKC_ADDRESS_SESSIONS_PER_SECOND (" + addressSessionsPerSecond + ")");
        }
        if (flapSessions > 0 && (flapWindowMs == 0 || flapPenaltyMs == 0)) {
            throw new IllegalArgumentException("CKC_FLAP_SESSIONS needs a positive CKC_FLAP_WINDOW_MS and "
                    + "CKC_FLAP_PENALTY_MS");
        }
    }
}

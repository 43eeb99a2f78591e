package io.ckc.gateway.udp;


import io.ckc.protocol.mrudp.ReliabilityConfig;

/**
 * The reliable-UDP adapter's own options, beside the core's (Eclipse Hono's adapter options shape).
 *
 * @param host          the address the listener binds
 * @param port          the port (0: any free one)
 * @param publicHost    the host nodes use to reach it, as the gateway announces it
 * @param socketPerLoop one socket per event loop on the same port, where the OS has SO_REUSEPORT
 * @param reliability   retransmission and window settings of each session
 */
public record UdpOptions(String host, int port, String publicHost, boolean socketPerLoop,
                         ReliabilityConfig reliability) {
}

package io.ckc.client;

import io.ckc.protocol.frame.GatewayAddress;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a node goes after its gateway failed: the best-ranked gateway of the core's latest list that has not
 * failed since the node last connected; when every one has, the best again.
 */
final class FailoverOrder {

    private volatile List<GatewayAddress> gateways = List.of();
    private final Set<InetSocketAddress> failed = new HashSet<>();

    /** The latest gateway list from the core, best first. */
    List<GatewayAddress> gateways() {
        return gateways;
    }

    void update(List<GatewayAddress> list) {
        gateways = List.copyOf(list);
    }

    /** A connect succeeded: every gateway is worth trying again. */
    void connected() {
        failed.clear();
    }

    /** {@code gateway} failed; returns where to try next, {@code gateway} itself if the list is empty. */
    InetSocketAddress next(InetSocketAddress gateway) {
        failed.add(gateway);
        for (GatewayAddress candidate : gateways) {
            InetSocketAddress address = candidate.socketAddress();
            if (!failed.contains(address)) {
                return address;
            }
        }
        failed.clear(); // every known gateway failed once: start over from the best
        return gateways.isEmpty() ? gateway : gateways.get(0).socketAddress();
    }
}

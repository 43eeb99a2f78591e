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
    /** The same gateways' socket addresses, resolved once per list. */
    private volatile List<InetSocketAddress> addresses = List.of();
    private final Set<InetSocketAddress> failed = new HashSet<>();
    /** The gateway {@link #hasAlternativeTo} last answered for (null: ask again), and its answer. */
    private InetSocketAddress askedAbout;
    private boolean alternative;

    /** The latest gateway list from the core, best first. */
    List<GatewayAddress> gateways() {
        return gateways;
    }

    void update(List<GatewayAddress> list) {
        gateways = List.copyOf(list);
        addresses = gateways.stream().map(GatewayAddress::socketAddress).toList();
        askedAbout = null;
    }

    /** A connect succeeded: every gateway is worth trying again. */
    void connected() {
        failed.clear();
    }

    /**
     * Whether the latest list names a gateway besides {@code gateway}: somewhere to go if it fails. Asked on every tick
     * of a node awaiting acknowledgements, so the answer is kept until the list or the gateway asked about changes.
     */
    boolean hasAlternativeTo(InetSocketAddress gateway) {
        if (gateway != askedAbout) {
            askedAbout = gateway;
            alternative = false;
            for (InetSocketAddress candidate : addresses) {
                if (!candidate.equals(gateway)) {
                    alternative = true;
                    break;
                }
            }
        }
        return alternative;
    }

    /** {@code gateway} failed; returns where to try next, {@code gateway} itself if the list is empty. */
    InetSocketAddress next(InetSocketAddress gateway) {
        failed.add(gateway);
        List<InetSocketAddress> known = addresses;
        for (InetSocketAddress address : known) {
            if (!failed.contains(address)) {
                return address;
            }
        }
        failed.clear(); // every known gateway failed once: start over from the best
        return known.isEmpty() ? gateway : known.get(0);
    }
}

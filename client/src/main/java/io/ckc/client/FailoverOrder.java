package io.ckc.client;

import io.ckc.protocol.frame.GatewayAddress;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Where a node goes after its gateway failed: one of the core's latest list that has not failed since the node last
 * connected, drawn at random; when every one has, any but the one that just failed.
 *
 * <p>Why at random, not the best-ranked: every node holds the same list, so the best-ranked one took all of a dead
 * gateway's nodes at once, each with its DTLS handshake, and was then the most loaded (the PoA manager handing nodes
 * over again to even it out). Drawn at random they split over the gateways left, as a balanced fleet was split
 * before; the manager's balancing still corrects for gateways of different size.
 */
final class FailoverOrder {

    private final RandomGenerator random;
    private volatile List<GatewayAddress> gateways = List.of();
    private final Set<InetSocketAddress> failed = new HashSet<>();

    FailoverOrder() {
        this(ThreadLocalRandom.current());
    }

    /** For tests: the draws from {@code random}. */
    FailoverOrder(RandomGenerator random) {
        this.random = random;
    }

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

    /** {@code gateway} failed; returns where to try next, {@code gateway} itself if no other is known. */
    InetSocketAddress next(InetSocketAddress gateway) {
        failed.add(gateway);
        List<InetSocketAddress> untried = new ArrayList<>();
        List<InetSocketAddress> others = new ArrayList<>();
        for (GatewayAddress candidate : gateways) {
            InetSocketAddress address = candidate.socketAddress();
            if (!failed.contains(address)) {
                untried.add(address);
            }
            if (!address.equals(gateway)) {
                others.add(address);
            }
        }
        if (!untried.isEmpty()) {
            return untried.get(random.nextInt(untried.size()));
        }
        failed.clear(); // every known gateway failed once: start over
        failed.add(gateway);
        return others.isEmpty() ? gateway : others.get(random.nextInt(others.size()));
    }
}

package io.ckc.perf;

import java.io.PrintStream;

/**
 * One path an open-loop load runs over: the CKC stack (a fleet of simulated nodes on the
 * gateways) or the bare-Kafka echo. Both count their echoes in {@link #trips()}.
 */
interface LoadPath extends AutoCloseable {

    RoundTrips trips();

    /** The {@code seq}-th echo request of {@code node}. */
    void send(int node, int seq);

    /** Messages the senders gave up on without sending (the fleet sheds what waited too long for the window). */
    long shed();

    /** Sessions that ended without being asked to (the fleet's disconnects); none on the baseline. */
    long droppedSessions();

    /** Sessions ended by cause ({@link io.ckc.client.MobileNode.SessionEnd}), the nodes' connection phase included; empty on the baseline. */
    String droppedSessionCauses();

    /** Nodes connected now; the baseline has no sessions and counts all. */
    int connected();

    /** The CKC path with {@code nodes} nodes connected, or the baseline; ckc needs gateways. */
    static LoadPath open(String path, StackOptions stack, int nodes, PrintStream out) throws Exception {
        if (path.equals(Results.CKC)) {
            Fleet fleet = Fleet.connected(nodes, stack, Fleet.SHEDDING, out);
            long disconnectsBefore = fleet.disconnects.get();
            return new LoadPath() {
                public RoundTrips trips() {
                    return fleet.trips;
                }

                public void send(int node, int seq) {
                    fleet.sendEcho(node, seq);
                }

                public long shed() {
                    return fleet.unsent.get();
                }

                public long droppedSessions() {
                    return fleet.disconnects.get() - disconnectsBefore;
                }

                public String droppedSessionCauses() {
                    return fleet.disconnectsByCause();
                }

                public int connected() {
                    return fleet.connected.get();
                }

                public void close() throws Exception {
                    fleet.close();
                }
            };
        }
        if (path.equals(Results.KAFKA)) {
            BaselineEcho baseline = new BaselineEcho(stack.bootstrap, nodes);
            return new LoadPath() {
                public RoundTrips trips() {
                    return baseline.trips;
                }

                public void send(int node, int seq) {
                    baseline.send(node, seq);
                }

                public long shed() {
                    return 0;
                }

                public long droppedSessions() {
                    return 0;
                }

                public String droppedSessionCauses() {
                    return "";
                }

                public int connected() {
                    return nodes;
                }

                public void close() throws Exception {
                    baseline.close();
                }
            };
        }
        throw new IllegalArgumentException("unknown path " + path + ": ckc or kafka");
    }
}

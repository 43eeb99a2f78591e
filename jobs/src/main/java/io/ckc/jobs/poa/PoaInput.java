package io.ckc.jobs.poa;

import io.ckc.protocol.records.ConnectionReport;
import io.ckc.protocol.records.HelloPoA;
import io.ckc.protocol.records.LoadReport;
import io.ckc.protocol.records.PoaControl;

/** What the PoA manager reads, keyed by gateway: exactly one of the four is set. */
public record PoaInput(HelloPoA hello, LoadReport load, ConnectionReport connections, PoaControl control) {

    public static PoaInput of(HelloPoA hello) {
        return new PoaInput(hello, null, null, null);
    }

    public static PoaInput of(LoadReport load) {
        return new PoaInput(null, load, null, null);
    }

    public static PoaInput of(ConnectionReport connections) {
        return new PoaInput(null, null, connections, null);
    }

    public static PoaInput of(PoaControl control) {
        return new PoaInput(null, null, null, control);
    }

    public String gatewayId() {
        if (hello != null) {
            return hello.gatewayId();
        }
        if (load != null) {
            return load.gatewayId();
        }
        return connections != null ? connections.gatewayId() : control.gatewayId();
    }
}

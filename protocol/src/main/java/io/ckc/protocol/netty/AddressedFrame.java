package io.ckc.protocol.netty;

import io.ckc.protocol.frame.Frame;

import java.net.InetSocketAddress;

/** A frame with the address it came from or goes to. */
public record AddressedFrame(Frame frame, InetSocketAddress peer) {
}

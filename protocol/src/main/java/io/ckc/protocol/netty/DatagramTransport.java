package io.ckc.protocol.netty;

import io.ckc.protocol.config.Setting;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.util.Locale;
import java.util.Map;

/**
 * The Netty transport every UDP socket of a process uses (gateways, client SDK, simulator): Linux
 * epoll where its native library loads, else Java NIO. Why epoll: the frames a loop writes in one turn
 * are flushed together, and epoll sends them with one {@code sendmmsg} call (to any number of peers)
 * where NIO makes one {@code sendto} each; on a gateway or a fleet that is most of the system calls.
 * {@code CKC_UDP_TRANSPORT} ({@code auto}, {@code epoll}, {@code nio}) picks one by hand, for
 * comparison or where epoll misbehaves. Event loop groups and channels must come from the same
 * transport, so both come from here.
 */
public enum DatagramTransport {

    EPOLL {
        @Override
        public IoHandlerFactory ioHandlerFactory() {
            return EpollIoHandler.newFactory();
        }

        @Override
        public Class<? extends DatagramChannel> channelClass() {
            return EpollDatagramChannel.class;
        }

        @Override
        public Class<? extends ServerSocketChannel> serverChannelClass() {
            return EpollServerSocketChannel.class;
        }

        @Override
        public Bootstrap reusePort(Bootstrap bootstrap) {
            return bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }

        @Override
        public boolean supportsReusePort() {
            return true;
        }
    },

    NIO {
        @Override
        public IoHandlerFactory ioHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        public Class<? extends DatagramChannel> channelClass() {
            return NioDatagramChannel.class;
        }

        @Override
        public Class<? extends ServerSocketChannel> serverChannelClass() {
            return NioServerSocketChannel.class;
        }

        @Override
        public Bootstrap reusePort(Bootstrap bootstrap) {
            return bootstrap.option(NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT), true);
        }

        @Override
        public boolean supportsReusePort() {
            try (java.nio.channels.DatagramChannel probe = java.nio.channels.DatagramChannel.open()) {
                return probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
            } catch (IOException e) {
                LOG.warn("Cannot probe SO_REUSEPORT: one UDP socket for all loops", e);
                return false;
            }
        }
    };

    private static final Logger LOG = LoggerFactory.getLogger(DatagramTransport.class);

    /** The environment variable that picks the transport. */
    public static final Setting SETTING = Setting.of("CKC_UDP_TRANSPORT", "auto", "the Netty transport of the UDP "
            + "sockets: epoll where it loads (one sendmmsg per flush), else nio; read the same way by every CKC "
            + "process with UDP sockets");
    public static final String ENV = SETTING.name();

    private static DatagramTransport current;

    /** Makes the event loops of this transport. */
    public abstract IoHandlerFactory ioHandlerFactory();

    /** The datagram channel that runs on this transport's event loops. */
    public abstract Class<? extends DatagramChannel> channelClass();

    /**
     * The TCP listener that runs on this transport's event loops: the gateway's MQTT adapter shares the loops the
     * UDP sockets run on, so its channels come from the same transport.
     */
    public abstract Class<? extends ServerSocketChannel> serverChannelClass();

    /** Lets several sockets bind the same port ({@code SO_REUSEPORT}); only where {@link #supportsReusePort()}. */
    public abstract Bootstrap reusePort(Bootstrap bootstrap);

    public abstract boolean supportsReusePort();

    /** An event loop group of {@code threads} loops on this transport. */
    public MultiThreadIoEventLoopGroup newGroup(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, ioHandlerFactory());
    }

    /** The transport of this process, chosen once from {@value #ENV} (asked for when sockets are made, not per datagram). */
    public static synchronized DatagramTransport current() {
        if (current == null) {
            current = choose(System.getenv());
        }
        return current;
    }

    /** The transport {@code env} asks for: {@code auto} (the default) is epoll where it is available. */
    static DatagramTransport choose(Map<String, String> env) {
        String wanted = SETTING.string(env).toLowerCase(Locale.ROOT);
        return switch (wanted) {
            case "nio" -> NIO;
            case "epoll" -> {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException(ENV + "=epoll, but epoll is not available here",
                            Epoll.unavailabilityCause());
                }
                yield EPOLL;
            }
            case "auto", "" -> {
                if (Epoll.isAvailable()) {
                    yield EPOLL;
                }
                LOG.info("UDP on Java NIO: epoll is not available ({})", String.valueOf(Epoll.unavailabilityCause()));
                yield NIO;
            }
            default -> throw new IllegalArgumentException(
                    ENV + " must be auto, epoll or nio, got '" + env.get(ENV) + "'");
        };
    }
}

package io.fsp.relay;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.wire.ServiceInfo;
import io.fsp.net.HostPort;
import io.netty.channel.ChannelHandler;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * A relay's Meridian node: it joins the overlay so that servers can find the relay by multi-constraint
 * queries, and advertises the relay's block port and certificate fingerprint (SERVICE_REPLY,
 * docs/protocol.md §4.5). The block service must listen on the same IP address as the node: a server
 * only ever connects to the address a query returned, with the advertised port.
 */
public final class RelayOverlay {
    private RelayOverlay() {
    }

    /** Joins through {@code bootstrap} (may be empty for the first node) and advertises {@code relay}. */
    public static MeridianService join(FspRelay relay, InetSocketAddress bind, List<InetSocketAddress> bootstrap,
                                       MeridianConfig config) throws InterruptedException {
        return join(relay, bind, bootstrap, config, Optional.empty());
    }

    /**
     * As {@link #join(FspRelay, InetSocketAddress, List, MeridianConfig)}, with {@code extra} in the node's datagram
     * pipeline ({@link MeridianService#start(InetSocketAddress, List, MeridianConfig, ChannelHandler)}).
     */
    public static MeridianService join(FspRelay relay, InetSocketAddress bind, List<InetSocketAddress> bootstrap,
                                       MeridianConfig config, ChannelHandler extra) throws InterruptedException {
        return join(relay, bind, bootstrap, config, Optional.of(extra));
    }

    private static MeridianService join(FspRelay relay, InetSocketAddress bind, List<InetSocketAddress> bootstrap,
                                        MeridianConfig config, Optional<ChannelHandler> extra) throws InterruptedException {
        InetSocketAddress blocks = relay.address();
        if (!blocks.getAddress().isAnyLocalAddress() && !blocks.getAddress().equals(bind.getAddress())) {
            throw new IllegalArgumentException("--meridian " + HostPort.format(bind) + ": IP differs from --listen "
                    + HostPort.format(blocks) + " (expected: the same IP; servers connect to the IP the overlay"
                    + " returns, with the advertised port)");
        }
        MeridianService node = extra.isPresent() ? MeridianService.start(bind, bootstrap, config, extra.get())
                : MeridianService.start(bind, bootstrap, config);
        node.advertise(new ServiceInfo(blocks.getPort(), relay.fingerprint()));
        return node;
    }
}

package io.fsp.relay;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.net.ReplyDelay;
import io.fsp.meridian.wire.ServiceInfo;
import io.fsp.net.HostPort;
import java.net.InetSocketAddress;
import java.util.List;

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
        return join(relay, bind, bootstrap, config, ReplyDelay.NONE);
    }

    /** As {@link #join(FspRelay, InetSocketAddress, List, MeridianConfig)}, with probe answers held back (tests). */
    public static MeridianService join(FspRelay relay, InetSocketAddress bind, List<InetSocketAddress> bootstrap,
                                       MeridianConfig config, ReplyDelay delay) throws InterruptedException {
        InetSocketAddress blocks = relay.address();
        if (!blocks.getAddress().isAnyLocalAddress() && !blocks.getAddress().equals(bind.getAddress())) {
            throw new IllegalArgumentException("--meridian " + HostPort.format(bind) + ": IP differs from --listen "
                    + HostPort.format(blocks) + " (expected: the same IP; servers connect to the IP the overlay"
                    + " returns, with the advertised port)");
        }
        MeridianService node = MeridianService.start(bind, bootstrap, config, delay);
        node.advertise(new ServiceInfo(blocks.getPort(), relay.fingerprint()));
        return node;
    }
}

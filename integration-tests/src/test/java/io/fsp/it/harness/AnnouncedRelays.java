package io.fsp.it.harness;

import io.fsp.extension.Announcement;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The relays a FRET announced, each visited as a collector visits it: over TLS pinned to the fingerprint of its
 * {@code RELAY} line, authorized with the {@code TOKEN}, one connection at a time.
 */
public final class AnnouncedRelays {
    private AnnouncedRelays() {
    }

    /** What is done on one relay's authorized connection. */
    @FunctionalInterface
    public interface Visit {
        void at(int relay, RelayConnection connection, TransferId transfer) throws Exception;
    }

    /** Visits every relay {@code fret} announced, in their order. */
    public static void visit(Fret fret, Visit visit) throws Exception {
        TransferId id = fret.id();
        CapabilityToken token = fret.token();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            for (Announcement.Relay r : fret.relays()) {
                try (RelayConnection c = RelayConnection.connect(new InetSocketAddress("127.0.0.1", r.port()),
                        SslContexts.client(PinnedTrustManager.of(Set.of(r.fingerprint())), Optional.empty()),
                        group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
                    c.authorize(token).get(10, TimeUnit.SECONDS);
                    visit.at(r.index(), c, id);
                }
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}

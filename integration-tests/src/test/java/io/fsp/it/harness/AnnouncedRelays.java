package io.fsp.it.harness;

import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.util.List;
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

    /** Visits every relay of {@code lines} (FRET's announcements, without {@code 151 }) in their order. */
    public static void visit(List<String> lines, Visit visit) throws Exception {
        TransferId id = TransferId.parse(word(lines, "FSP"));
        CapabilityToken token = CapabilityToken.parse(word(lines, "TOKEN"));
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            for (String l : lines) {
                if (!l.startsWith("RELAY ")) {
                    continue;
                }
                String[] w = l.split(" ");
                int port = Integer.parseInt(w[2].substring(w[2].lastIndexOf(':') + 1));
                try (RelayConnection c = RelayConnection.connect(new InetSocketAddress("127.0.0.1", port),
                        SslContexts.client(PinnedTrustManager.of(Set.of(Fingerprint.parse(w[3]))), Optional.empty()),
                        group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
                    c.authorize(token).get(10, TimeUnit.SECONDS);
                    visit.at(Integer.parseInt(w[1]), c, id);
                }
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static String word(List<String> lines, String first) {
        return lines.stream().filter(l -> l.startsWith(first + " ")).findFirst().orElseThrow().split(" ")[1];
    }
}

package io.fsp.meridian.net;

import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.MeridianMessage;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sending side of the cookie exchange: the cookie each peer gave this endpoint (sent with every request to it),
 * and the requests sent to it lately, so that those a peer answered with a COOKIE go again with the cookie, each
 * once. A COOKIE from an address this endpoint sent nothing to is ignored, so a forged one can make it resend at most
 * what it sent anyway. Bounded: the most recent {@value #PEERS} peers, {@value #RECENT} requests each.
 * Not thread-safe: one datagram handler uses it from its event loop.
 */
final class PeerCookies {
    static final int PEERS = 512;
    static final int RECENT = 8;
    /** A request older than this is not sent again: whoever waited for its answer has given up. */
    static final long RESEND_WINDOW_NANOS = 5_000_000_000L;

    private record Sent(MeridianMessage request, long atNanos) { }

    private static final class Peer {
        long cookie = MeridianCodec.NO_COOKIE;
        final ArrayDeque<Sent> recent = new ArrayDeque<>(RECENT);
    }

    private final Map<InetSocketAddress, Peer> peers = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetSocketAddress, Peer> eldest) {
            return size() > PEERS;
        }
    };

    /** Records a request about to go to {@code to}; returns the cookie to send it with. */
    long sending(InetSocketAddress to, MeridianMessage request, long nowNanos) {
        Peer peer = peers.computeIfAbsent(to, a -> new Peer());
        if (peer.recent.size() == RECENT) {
            peer.recent.removeFirst();
        }
        peer.recent.addLast(new Sent(request, nowNanos));
        return peer.cookie;
    }

    /** Takes {@code cookie} from {@code from}; returns the recent requests to send it again (each only once). */
    List<MeridianMessage> cookie(InetSocketAddress from, long cookie, long nowNanos) {
        Peer peer = peers.get(from);
        if (peer == null) {
            return List.of();
        }
        peer.cookie = cookie;
        List<MeridianMessage> again = new ArrayList<>(peer.recent.size());
        for (Iterator<Sent> it = peer.recent.iterator(); it.hasNext(); ) {
            Sent s = it.next();
            it.remove();
            if (nowNanos - s.atNanos() <= RESEND_WINDOW_NANOS) {
                again.add(s.request());
            }
        }
        return again;
    }
}

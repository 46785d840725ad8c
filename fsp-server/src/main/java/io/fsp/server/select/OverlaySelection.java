package io.fsp.server.select;

import io.fsp.config.ConfigException;
import io.fsp.extension.SelectionRequest;
import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.net.HostPort;
import io.fsp.tls.Fingerprint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of the overlay: a non-member Meridian endpoint (it answers probes, so it is the
 * sender target of queries) and the {@link RelaySelector} that asks through it.
 */
public final class OverlaySelection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OverlaySelection.class);

    private final MeridianService asker;
    private final RelaySelector selector;
    private final Optional<InetSocketAddress> defaultEntry;

    private OverlaySelection(MeridianService asker, RelaySelector selector, Optional<InetSocketAddress> defaultEntry) {
        this.asker = asker;
        this.selector = selector;
        this.defaultEntry = defaultEntry;
    }

    /**
     * Binds the server's Meridian endpoint on {@code bind} (a concrete IP: answers must come back to it).
     *
     * @param defaultEntry the entry node used when a client names none
     * @param staticRelays the static relay list now (it may be reloaded while the server runs)
     */
    public static OverlaySelection start(InetSocketAddress bind, Optional<InetSocketAddress> defaultEntry,
                                         Supplier<List<RelayEndpoint>> staticRelays, Supplier<Set<Fingerprint>> trustedRelays,
                                         boolean trustOverlayRelays, Duration timeout) throws InterruptedException {
        if (bind.isUnresolved() || bind.getAddress().isAnyLocalAddress()) {
            throw new ConfigException("meridian: " + bind + " (expected: a concrete IP address; query answers"
                    + " and probes come back to it)");
        }
        MeridianConfig config = MeridianConfig.defaults().toBuilder().queryTimeout(timeout).build();
        MeridianService asker = MeridianService.client(bind, config);
        log.info("meridian: relay selection from udp {} (entry {}, {} trusted relay fingerprints{})", asker.address(),
                defaultEntry.map(Object::toString).orElse("named by clients"), staticRelays.get().size() + trustedRelays.get().size(),
                trustOverlayRelays ? ", any relay the overlay finds" : "");
        return new OverlaySelection(asker,
                new RelaySelector(asker, asker.address(), staticRelays, trustedRelays, trustOverlayRelays, timeout),
                defaultEntry);
    }

    /** Where nodes probe the server. */
    public InetSocketAddress address() {
        return asker.address();
    }

    /**
     * Whether a client may name {@code entry} as its {@code meridian-entry}: only the configured entry node or a static
     * relay given by IP address (a relay's node listens on the relay's IP and port unless told otherwise), so that no
     * client aims the server's datagrams at an address the operator did not choose (docs/protocol.md §4.5).
     */
    public static boolean allowsEntry(InetSocketAddress entry, Optional<InetSocketAddress> configured,
                                      List<RelayEndpoint> staticRelays) {
        if (configured.filter(entry::equals).isPresent()) {
            return true;
        }
        for (RelayEndpoint relay : staticRelays) {
            if (relay.port() == entry.getPort() && HostPort.literal(relay.host()).filter(entry.getAddress()::equals).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** As {@link #allowsEntry(InetSocketAddress, Optional, List)} with this server's configured entry. */
    public boolean allowsEntry(InetSocketAddress entry, List<RelayEndpoint> staticRelays) {
        return allowsEntry(entry, defaultEntry, staticRelays);
    }

    /**
     * Relays for {@code request} from a client whose control connection comes from {@code clientIp};
     * without an entry node (the client's or the default), or with a client's entry no longer allowed (the relay list
     * was reloaded since FSPO), the static list.
     */
    public CompletableFuture<RelayChoice> select(SelectionRequest request, InetAddress clientIp, List<RelayEndpoint> staticRelays) {
        Optional<InetSocketAddress> entry = request.entry().or(() -> defaultEntry);
        String refused = entry.isEmpty() ? "no meridian entry node (server meridian-entry or client meridian-entry)"
                : allowsEntry(entry.get(), staticRelays) ? null
                : "meridian-entry " + entry.get() + " is not this server's entry node or one of its relays";
        if (refused != null) {
            return CompletableFuture.completedFuture(new RelayChoice(
                    staticRelays.subList(0, Math.min(request.relays(), staticRelays.size())), 0, refused));
        }
        return selector.select(entry.get(), request.nearSenderMs(), new InetSocketAddress(clientIp, request.clientProbePort()),
                request.nearClientMs(), request.relays());
    }

    @Override
    public void close() {
        asker.close();
    }
}

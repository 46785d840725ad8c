package io.fsp.relay.net;

import io.fsp.net.AddressPrefix;
import io.fsp.token.TransferId;
import java.net.InetAddress;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Caps on client connections once they hold an accepted token, so that a token holder can neither take the relay's
 * connections nor keep its trusted servers out: clients in all stay below {@code maxConnections} minus the
 * connections kept for servers, and one host (an IPv4 address, an IPv6 /64: {@link AddressPrefix#host}) and one
 * transfer (one token) each hold only their share.
 * A connection is counted from its first accepted token until it closes; each further transfer it shows a token for
 * counts against that transfer too.
 */
final class ClientAdmission {
    private final ConnectionPolicy policy;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();
    private final Map<TransferId, Integer> byTransfer = new HashMap<>();
    private int clients;

    ClientAdmission(ConnectionPolicy policy) {
        this.policy = policy;
    }

    /**
     * Counts a client connection from {@code address} (unless it is {@code alreadyCounted}) holding a token for
     * {@code transfer}.
     *
     * @return null if admitted, else the cap it would pass (nothing is counted then)
     */
    synchronized Refusal admit(InetAddress address, boolean alreadyCounted, TransferId transfer) {
        InetAddress host = AddressPrefix.host(address);
        if (!alreadyCounted) {
            if (clients >= policy.maxClientConnections()) {
                return new Refusal("server-connections", clients + " client connections hold tokens; the other "
                        + policy.serverConnections() + " are kept for servers (relay option --server-connections)");
            }
            if (byAddress.getOrDefault(host, 0) >= policy.maxClientConnectionsPerAddress()) {
                return new Refusal("max-client-connections-per-address", policy.maxClientConnectionsPerAddress()
                        + " client connections from that address (an IPv6 address: its /64; relay option"
                        + " --max-client-connections-per-address)");
            }
        }
        if (byTransfer.getOrDefault(transfer, 0) >= policy.maxConnectionsPerTransfer()) {
            return new Refusal("max-connections-per-transfer", policy.maxConnectionsPerTransfer()
                    + " connections hold a token for transfer " + transfer
                    + " (relay option --max-connections-per-transfer)");
        }
        if (!alreadyCounted) {
            clients++;
            byAddress.merge(host, 1, Integer::sum);
        }
        byTransfer.merge(transfer, 1, Integer::sum);
        return null;
    }

    /** The connection from {@code address}, counted for {@code transfers}, closed. */
    synchronized void release(InetAddress address, Collection<TransferId> transfers) {
        clients--;
        byAddress.computeIfPresent(AddressPrefix.host(address), (a, n) -> n <= 1 ? null : n - 1);
        for (TransferId t : transfers) {
            byTransfer.computeIfPresent(t, (id, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Client connections counted now. */
    synchronized int clients() {
        return clients;
    }

    /** A cap a connection would pass: {@code limit} names it (as the metrics do), {@code why} says it to the peer. */
    record Refusal(String limit, String why) {
    }
}

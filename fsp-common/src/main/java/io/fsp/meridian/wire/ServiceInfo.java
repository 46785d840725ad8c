package io.fsp.meridian.wire;

import io.fsp.tls.Fingerprint;
import java.util.Objects;

/**
 * What a node offers besides the overlay: the TCP port of its block service on the same IP address as
 * its Meridian socket, and the SHA-256 fingerprint of that service's TLS certificate. A relay advertises
 * it so that a server which found the relay by a query can connect to it and pin its certificate.
 * Learned over the overlay it is only a claim (docs/protocol.md §4.5).
 */
public record ServiceInfo(int blockPort, Fingerprint fingerprint) {
    public ServiceInfo {
        if (blockPort < 1 || blockPort > 65535) {
            throw new IllegalArgumentException("block port: " + blockPort + " (expected: 1..65535)");
        }
        Objects.requireNonNull(fingerprint, "fingerprint");
    }
}

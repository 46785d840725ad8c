package io.fsp.relay.fault;

import io.fsp.relay.FspRelay;
import io.fsp.relay.RelayConfig;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relay.wire.RelayLimits;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Starts a real relay on {@code 127.0.0.1} with a fresh certificate that commits the given faults against
 * its clients: the code under test talks to it exactly as to an honest relay. For tests and demonstrations:
 *
 * <pre>{@code
 * try (FspRelay bad = FaultyRelay.start(tmp, Set.of(serverFingerprint), new Fault.FlipBit(3))) { ... }
 * }</pre>
 */
public final class FaultyRelay {
    private FaultyRelay() {
    }

    /**
     * A relay with a 256 MiB quota (64 MiB in memory) and a ten-minute TTL that, like a production relay,
     * checks pushed blocks and refuses clear ones.
     */
    public static FspRelay start(Path storeDir, Set<Fingerprint> trustedServers, Fault... faults) throws IOException {
        return start(new StoreConfig(storeDir, 256L << 20, 64L << 20, Duration.ofMinutes(10)), trustedServers,
                faults);
    }

    public static FspRelay start(StoreConfig store, Set<Fingerprint> trustedServers, Fault... faults) throws IOException {
        return FspRelay.start(new RelayConfig(new InetSocketAddress("127.0.0.1", 0), store,
                Certificates.selfSigned("fsp-relay"), trustedServers, RelayLimits.DEFAULT,
                ConnectionPolicy.DEFAULT, true, false,
                new FaultPlan(List.of(faults)), Clock.systemUTC()));
    }
}

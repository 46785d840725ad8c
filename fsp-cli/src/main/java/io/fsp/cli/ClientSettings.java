package io.fsp.cli;

import io.fsp.client.verify.VerificationMode;
import io.fsp.config.ByteSize;
import io.fsp.config.Durations;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.net.HostPort;
import io.fsp.tls.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The defaults of the {@code fsp} commands that connect to a server, with the defaults of {@link #defaults()}. Each
 * component is a key of the client's configuration file ({@code relayTimeout} is {@code relay-timeout}, see
 * {@code conf/client.conf.example}) and the option of the same name; {@link ClientConfigOption} layers them. Never a
 * password: at most the path of a file that holds it. Never {@code --insecure} either: a file must not turn off
 * the server's authentication for every command. {@code block-size}, {@code compression}, {@code cipher},
 * {@code checksum}, {@code digest}, {@code strategy} and {@code replicas} are sent to the server as FSP options
 * ({@link #fspOptions()}), each checked by its {@link FspOption} as the server checks it; empty leaves them to the
 * server.
 *
 * @param trust the server certificate's fingerprint (empty: give --trust or --insecure)
 * @param passwordFile a file whose first line is the password (empty: $FSP_PASSWORD)
 * @param streams parallel fetches per relay
 * @param relayTimeout a relay silent this long for one block loses it to the next source
 * @param relayBlocksOverTls fetch blocks from relays over TLS too, not over a clear link (frame headers hidden)
 * @param agent run commands in this user's agent ({@link Launcher}, which reads it before this record is made)
 * @param agentIdle how long an agent with no command to run stays
 */
public record ClientSettings(
        Optional<Fingerprint> trust,
        Optional<Path> passwordFile,
        Optional<ByteSize> blockSize,
        Optional<String> compression,
        Optional<String> cipher,
        Optional<String> checksum,
        Optional<String> digest,
        Optional<String> strategy,
        Optional<Integer> replicas,
        boolean includeDirect,
        int streams,
        VerificationMode verify,
        Duration relayTimeout,
        boolean pageCacheWrites,
        boolean relayBlocksOverTls,
        Optional<HostPort> meridianEntry,
        boolean agent,
        Duration agentIdle) {
    public ClientSettings {
        fspOptions(blockSize, compression, cipher, checksum, digest, strategy, replicas); // the server's bounds
        FspOption.STREAMS.check(streams);
        if (agentIdle.isNegative()) {
            throw new IllegalArgumentException("agent-idle: " + agentIdle + " (expected: >= 0s)");
        }
        if (relayTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("relay-timeout: " + relayTimeout + " (expected: >= 1s)");
        }
    }

    public static ClientSettings defaults() {
        return new ClientSettings(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), false, 4,
                VerificationMode.FIVER, Duration.ofSeconds(10), false, false, Optional.empty(), true,
                Durations.parse(Launcher.DEFAULT_IDLE));
    }

    /** The FSP options these settings ask the server for, in the order FSPO sends them. */
    public FspOptions fspOptions() {
        return fspOptions(blockSize, compression, cipher, checksum, digest, strategy, replicas);
    }

    private static FspOptions fspOptions(Optional<ByteSize> blockSize, Optional<String> compression,
                                         Optional<String> cipher, Optional<String> checksum, Optional<String> digest,
                                         Optional<String> strategy, Optional<Integer> replicas) {
        FspOptions o = FspOptions.NONE;
        o = text(o, FspOption.BLOCK_SIZE, blockSize.map(b -> Long.toString(b.bytes())));
        o = text(o, FspOption.COMPRESSION, compression);
        o = text(o, FspOption.CIPHER, cipher);
        o = text(o, FspOption.CHECKSUM, checksum);
        o = text(o, FspOption.DIGEST, digest);
        o = text(o, FspOption.STRATEGY, strategy);
        return replicas.isPresent() ? o.with(FspOption.REPLICAS, replicas.get()) : o;
    }

    private static FspOptions text(FspOptions o, FspOption<?> option, Optional<String> value) {
        return value.isPresent() ? o.withText(option, value.get()) : o;
    }
}

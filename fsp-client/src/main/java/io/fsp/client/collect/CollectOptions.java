package io.fsp.client.collect;

import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.X509TrustManager;

/**
 * What one {@code fsp get} does.
 *
 * @param server the server as the user named it ({@code alice@host:2121}), for the resume journal
 * @param trust checks the server's certificate (pinned fingerprint, or any with --insecure)
 * @param fspOptions options sent with FSPO (block-size, compression, cipher, …)
 * @param includeDirect also take blocks straight from the server on a data connection
 * @param streams parallel fetches per relay
 * @param relayTimeout how long a relay may take to answer one request before the block is fetched elsewhere
 * @param overlap fetch relay blocks while striping goes on (the default); off: only after the server's 226, so
 *                collection does not compete with striping for the client's link (the paper's non-overlapped mode)
 * @param relayRecovery a block that arrives damaged is fetched once more from the relay that served it before
 *                      the origin is asked (the default); off: straight from the origin (to measure the difference)
 * @param directWrites write whole aligned blocks with {@code O_DIRECT} (the default), so that they do not pass
 *                     through the page cache; off: every write through the page cache. File systems without
 *                     {@code O_DIRECT} and the unaligned tail of each file go through the page cache either way.
 * @param relayBlocksOverTls fetch blocks from relays over TLS too; off (the default): over a clear link beside it
 *                           (docs/protocol.md §3.7)
 */
public record CollectOptions(String host, int port, String user, char[] password, String server, String remotePath,
                             Path destination, X509TrustManager trust, FspOptions fspOptions, boolean includeDirect,
                             int streams, VerificationMode verify, Duration relayTimeout, Duration connectTimeout,
                             boolean overlap, boolean relayRecovery, boolean directWrites, boolean relayBlocksOverTls) {
    public CollectOptions(String host, int port, String user, char[] password, String server, String remotePath,
                          Path destination, X509TrustManager trust, FspOptions fspOptions, boolean includeDirect,
                          int streams, VerificationMode verify, Duration relayTimeout, Duration connectTimeout) {
        this(host, port, user, password, server, remotePath, destination, trust, fspOptions, includeDirect, streams, verify,
                relayTimeout, connectTimeout, true, true, true, false);
    }

    public CollectOptions(String host, int port, String user, char[] password, String server, String remotePath,
                          Path destination, X509TrustManager trust, FspOptions fspOptions, boolean includeDirect,
                          int streams, VerificationMode verify, Duration relayTimeout, Duration connectTimeout,
                          boolean overlap) {
        this(host, port, user, password, server, remotePath, destination, trust, fspOptions, includeDirect, streams, verify,
                relayTimeout, connectTimeout, overlap, true, true, false);
    }

    /**
     * What one {@code fsp collect} of a {@link RecordedTransfer} does: there is no server to connect to, so the
     * connection's fields are empty; {@code server} and {@code remotePath} (the origin's) name the resume journal.
     */
    public static CollectOptions withoutOrigin(String server, String remotePath, Path destination, int streams,
                                               VerificationMode verify, Duration relayTimeout, Duration connectTimeout) {
        return new CollectOptions(null, 0, null, null, server, remotePath, destination, null, FspOptions.NONE, false, streams, verify,
                relayTimeout, connectTimeout);
    }

    /** The same, with damaged blocks recovered from relays ({@code true}) or only from the origin. */
    public CollectOptions withRelayRecovery(boolean on) {
        return new CollectOptions(host, port, user, password, server, remotePath, destination, trust, fspOptions,
                includeDirect, streams, verify, relayTimeout, connectTimeout, overlap, on, directWrites, relayBlocksOverTls);
    }

    /** The same, into {@code destination}. */
    public CollectOptions withDestination(Path destination) {
        return new CollectOptions(host, port, user, password, server, remotePath, destination, trust, fspOptions,
                includeDirect, streams, verify, relayTimeout, connectTimeout, overlap, relayRecovery, directWrites,
                relayBlocksOverTls);
    }

    /** The same, with blocks written with {@code O_DIRECT} where they can be ({@code true}) or through the page cache. */
    public CollectOptions withDirectWrites(boolean on) {
        return new CollectOptions(host, port, user, password, server, remotePath, destination, trust, fspOptions,
                includeDirect, streams, verify, relayTimeout, connectTimeout, overlap, relayRecovery, on, relayBlocksOverTls);
    }

    public CollectOptions {
                FspOption.STREAMS.check(streams);
    }
}

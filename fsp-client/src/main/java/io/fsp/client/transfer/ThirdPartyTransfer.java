package io.fsp.client.transfer;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.ControlException;
import io.fsp.client.control.FspConversation;
import io.fsp.client.control.FspUrl;
import io.fsp.client.control.Reply;
import io.fsp.ftp.ReplyCode;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.X509TrustManager;

/**
 * A third-party transfer (paper 004 §3.6, {@code fsp transfer}): this client has the destination server B collect
 * a file or tree from the source server A's relays, and never touches the data. On B it sends {@code EPSV} and
 * {@code FCOL <path>} and opens the (TLS) data connection; on A {@code FSPO use-relays=on include-direct=off} and
 * {@code FRET <path>}; each {@code 151} announcement of A goes on to B as it arrives, one line each (keys and
 * tokens travel only inside the two servers' TLS channels). When A answers {@code 226} (every block is on a relay)
 * the stream ends; B collects, verifies every block on its disk and reports progress with {@code 112} perf markers,
 * then {@code 226} or a 4xx/5xx. A's control connection stays open until then: A gives a transfer up at its relays
 * once its client leaves.
 */
public final class ThirdPartyTransfer {
    /** How often A hears from us while B collects (its idle-timeout is minutes). */
    private static final long KEEPALIVE_NANOS = Duration.ofSeconds(60).toNanos();

    /**
     * @param fspOptions more FSPO pairs for A (block-size, compression)
     */
    public record Options(FspUrl source, char[] sourcePassword, X509TrustManager sourceTrust,
                          FspUrl destination, char[] destinationPassword, X509TrustManager destinationTrust,
                          FspOptions fspOptions, Duration connectTimeout) {
    }

    /** How it ended: {@code code} is B's final reply to FCOL (0 if it never came), {@code error} null on success. */
    public record Result(boolean verified, int code, String summary, String transferId, int files, long bytes, long blocks,
                         long bytesCollected, double seconds, String error) {
        public String toText() {
            return String.format(Locale.ROOT, "%s: transfer %s, %d files, %,d bytes, %d blocks in %.1f s (%.1f MB/s): %s",
                    verified ? "verified on the destination's disk" : "FAILED", transferId, files, bytes, blocks, seconds,
                    seconds > 0 ? bytesCollected / 1e6 / seconds : 0, verified ? summary : error);
        }

        public String toJson() {
            return "{\"verified\":" + verified + ",\"transfer\":" + CollectSummary.quote(transferId) + ",\"files\":" + files
                    + ",\"bytes\":" + bytes + ",\"blocks\":" + blocks + ",\"bytes_collected\":" + bytesCollected
                    + String.format(Locale.ROOT, ",\"seconds\":%.3f", seconds) + ",\"reply_code\":" + code
                    + ",\"reply\":" + CollectSummary.quote(summary) + ",\"error\":" + CollectSummary.quote(error) + "}";
        }
    }

    private final Options options;
    private volatile long bytesCollected;
    private volatile long totalBytes;

    public ThirdPartyTransfer(Options options) {
        this.options = options;
    }

    /** Bytes B has verified on its disk, as its last perf marker said. */
    public long bytesCollected() {
        return bytesCollected;
    }

    /** Bytes of the transfer, once A announced it. */
    public long totalBytes() {
        return totalBytes;
    }

    /** Runs the transfer to B's final reply. Connection, login and refused commands throw. */
    public Result run() throws IOException {
        long start = System.nanoTime();
        FspUrl a = options.source();
        FspUrl b = options.destination();
        try (ControlChannel source = ControlChannel.connect(a.host(), a.port(), options.sourceTrust(), options.connectTimeout());
             ControlChannel destination = ControlChannel.connect(b.host(), b.port(), options.destinationTrust(),
                     options.connectTimeout())) {
            source.login(a.user(), options.sourcePassword(), false);
            FspConversation fromA = new FspConversation(source, a.server(), options.connectTimeout());
            // checked before FRET's reply
            fromA.pipelineOptions(FspOptions.NONE.with(FspOption.USE_RELAYS, true).with(FspOption.INCLUDE_DIRECT, false)
                    .with(options.fspOptions()));
            destination.login(b.user(), options.destinationPassword(), true);
            FspConversation toB = new FspConversation(destination, b.server(), options.connectTimeout());
            Announcement.Transfer transfer;
            try (Socket data = toB.collect(b.path(), options.connectTimeout())) {
                transfer = relay(fromA, data.getOutputStream());
            }
            return awaitCollection(fromA, toB, transfer, start);
        }
    }

    /** FRET on A; each announcement to B as it comes, until A's 226. Returns A's FSP line. */
    private Announcement.Transfer relay(FspConversation source, OutputStream toB) throws IOException {
        String what = options.source().server() + ": FRET " + options.source().path();
        source.retrieve(options.source().path());
        Announcement.Transfer[] transfer = {null};
        source.announcements(text -> {
            if (transfer[0] == null) {
                try {
                    transfer[0] = (Announcement.Transfer) ExtensionCodec.parse(text);
                } catch (RuntimeException e) {
                    throw new ControlException(what + ": first announcement '" + text + "' (expected: the FSP line)");
                }
                totalBytes = transfer[0].bytes();
            }
            toB.write((text + "\n").getBytes(StandardCharsets.UTF_8));
            return true;
        }, FspConversation.NO_DEADLINE);
        if (transfer[0] == null) {
            throw new ControlException(what + ": server answered 226 before any announcement (expected: the FSP line)",
                    ReplyCode.TRANSFER_COMPLETE.value(), null);
        }
        toB.flush();
        return transfer[0];
    }

    /** B's perf markers until its final reply; A hears a NOOP now and then so that it keeps the transfer. */
    private Result awaitCollection(FspConversation source, FspConversation destination, Announcement.Transfer t, long start)
            throws IOException {
        long[] lastNoop = {System.nanoTime()};
        Reply r = destination.collection(bytes -> bytesCollected = bytes, () -> {
            if (System.nanoTime() - lastNoop[0] > KEEPALIVE_NANOS) {
                ControlChannel.expect(source.control().command("NOOP"), ReplyCode.COMMAND_OK.value(),
                        options.source().server() + ": NOOP");
                lastNoop[0] = System.nanoTime();
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        boolean ok = r.code() == ReplyCode.TRANSFER_COMPLETE.value();
        if (ok) {
            bytesCollected = t.bytes();
        }
        return new Result(ok, r.code(), r.text(), t.id().toString(), t.files(), t.bytes(), t.blocks(), bytesCollected,
                seconds, ok ? null : options.destination().server() + ": FCOL " + options.destination().path()
                + ": server answered " + r.code() + " " + r.text());
    }
}

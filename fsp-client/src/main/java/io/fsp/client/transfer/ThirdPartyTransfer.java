package io.fsp.client.transfer;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.ControlException;
import io.fsp.client.control.FspUrl;
import io.fsp.client.control.Reply;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    private static final Pattern MARKER_BYTES = Pattern.compile("Stripe Bytes Transferred: (\\d+)");
    /** How often A hears from us while B collects (its idle-timeout is minutes). */
    private static final long KEEPALIVE_NANOS = Duration.ofSeconds(60).toNanos();

    /**
     * @param fspOptions more FSPO pairs for A (block-size, compression)
     */
    public record Options(FspUrl source, char[] sourcePassword, X509TrustManager sourceTrust,
                          FspUrl destination, char[] destinationPassword, X509TrustManager destinationTrust,
                          List<String> fspOptions, Duration connectTimeout) {
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
            List<String> pairs = new ArrayList<>(List.of("use-relays=on", "include-direct=off"));
            pairs.addAll(options.fspOptions());
            source.pipeline("FSPO " + String.join(" ", pairs), 200, a.server() + ": FSPO"); // checked before FRET's reply
            destination.login(b.user(), options.destinationPassword(), true);
            int port = destination.epsv();
            ControlChannel.expect(destination.command("FCOL " + b.path()), 150, b.server() + ": FCOL " + b.path());
            Announcement.Transfer transfer;
            try (Socket data = destination.secureData(destination.openData(port, options.connectTimeout()))) {
                transfer = relay(source, data.getOutputStream());
            }
            return awaitCollection(source, destination, transfer, start);
        }
    }

    /** FRET on A; each announcement to B as it comes, until A's 226. Returns A's FSP line. */
    private Announcement.Transfer relay(ControlChannel source, OutputStream toB) throws IOException {
        String what = options.source().server() + ": FRET " + options.source().path();
        source.send("FRET " + options.source().path());
        ControlChannel.expect(source.read(), 150, what);
        // Striping pauses while every relay is full (the server gives a target up after 30 s): allow for that.
        source.readTimeout(Duration.ofMinutes(5));
        Announcement.Transfer transfer = null;
        while (true) {
            Reply r = source.read();
            if (r.code() == 151) {
                if (transfer == null) {
                    try {
                        transfer = (Announcement.Transfer) ExtensionCodec.parse(r.text());
                    } catch (RuntimeException e) {
                        throw new ControlException(what + ": first announcement '" + r.text() + "' (expected: the FSP line)");
                    }
                    totalBytes = transfer.bytes();
                }
                toB.write((r.text() + "\n").getBytes(StandardCharsets.UTF_8));
            } else if (r.code() == 226 && transfer != null) {
                toB.flush();
                return transfer;
            } else {
                throw new ControlException(what + ": server answered " + r, r.code(), null);
            }
        }
    }

    /** B's perf markers until its final reply; A hears a NOOP now and then so that it keeps the transfer. */
    private Result awaitCollection(ControlChannel source, ControlChannel destination, Announcement.Transfer t, long start)
            throws IOException {
        destination.readTimeout(Duration.ofMinutes(5)); // B sends a marker every second
        long lastNoop = System.nanoTime();
        while (true) {
            Reply r = destination.read();
            if (System.nanoTime() - lastNoop > KEEPALIVE_NANOS) {
                ControlChannel.expect(source.command("NOOP"), 200, options.source().server() + ": NOOP");
                lastNoop = System.nanoTime();
            }
            if (r.code() == 112) {
                Matcher m = MARKER_BYTES.matcher(String.join("\n", r.lines()));
                if (m.find()) {
                    bytesCollected = Long.parseLong(m.group(1));
                }
                continue;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            boolean ok = r.code() == 226;
            if (ok) {
                bytesCollected = t.bytes();
            }
            return new Result(ok, r.code(), r.text(), t.id().toString(), t.files(), t.bytes(), t.blocks(), bytesCollected,
                    seconds, ok ? null : options.destination().server() + ": FCOL " + options.destination().path()
                    + ": server answered " + r.code() + " " + r.text());
        }
    }
}

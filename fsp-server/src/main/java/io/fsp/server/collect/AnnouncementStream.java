package io.fsp.server.collect;

import io.fsp.client.collect.RecordedTransfer;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.ExtensionLimits;
import io.fsp.extension.SelectionRequest;
import io.fsp.net.HostPort;
import io.fsp.server.select.CollectRelays;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the announcement stream FCOL receives on its data connection (docs/protocol.md §1, "FCOL"): another
 * server's FRET announcements as the controlling client read them, one per line (without {@code 151 }), each
 * ended by LF (a CR before it is allowed). Bytes arrive in any pieces; each complete line is checked by
 * {@link ExtensionCodec} at once, so nothing larger than one line is held unparsed. Limits: the stream's bytes,
 * a line's length, the transfer's blocks (the FSP line's count), its files and directories (the FSP line's counts,
 * together at most the blocks limit), and {@value #MAX_RELAYS} RELAY lines, each naming another relay, and as many
 * of each of SPACE, REFUSED and STOPPED (what the relays said of the transfer: read, and left out of
 * {@link #announcements}, since collecting needs none of them); anything over
 * them, a relay named twice, a line that is not
 * strict UTF-8 or not an announcement, or a stream that ends inside a line is refused with an
 * {@link IllegalArgumentException} naming the line. A RELAY line naming a relay the server may not collect from
 * ({@link CollectRelays}) is refused at once with a {@link RelayNotAllowedException}: nothing is connected to
 * until the whole stream was read and accepted.
 */
public final class AnnouncementStream {
    /** Longest line: an announcement and its CR. */
    static final int MAX_LINE_BYTES = ExtensionLimits.MAX_LINE_LENGTH + 1;

    /** Most RELAY lines: the most relays one transfer is striped over (FSPO {@code relays}). */
    public static final int MAX_RELAYS = SelectionRequest.MAX_RELAYS;

    /** A RELAY line names a relay this server may not collect from. */
    public static final class RelayNotAllowedException extends IllegalArgumentException {
        RelayNotAllowedException(String message) {
            super(message);
        }
    }

    private final long maxBytes;
    private final long maxBlocks;
    private final CollectRelays relays;
    private Announcement.Transfer transfer;
    private int relayLines;
    /** SPACE, REFUSED and STOPPED lines read, by record name. */
    private final java.util.Map<String, Integer> outcomeLines = new java.util.HashMap<>();
    /** The index of the RELAY line that named each relay address. */
    private final Map<String, Integer> relayIndexAt = new HashMap<>();
    private long fileLines;
    private long directoryLines;
    private final List<Announcement> announcements = new ArrayList<>();
    private final byte[] line = new byte[MAX_LINE_BYTES];
    private int lineLength;
    private long bytes;
    private long lines;
    private long blockLines;
    private boolean ended;

    /**
     * @param maxBytes  the longest stream accepted
     * @param maxBlocks the most blocks the FSP line may announce (the server's {@code max-blocks-per-transfer}), and
     *                  the most files and directories together
     * @param relays    the relays the stream may name
     */
    public AnnouncementStream(long maxBytes, long maxBlocks, CollectRelays relays) {
        this.maxBytes = maxBytes;
        this.maxBlocks = maxBlocks;
        this.relays = relays;
    }

    /** Takes the next bytes of the stream (from the buffer's position to its limit, which it consumes). */
    public void feed(ByteBuffer data) {
        if (ended) {
            throw new IllegalStateException("the stream has ended");
        }
        bytes += data.remaining();
        if (bytes > maxBytes) {
            throw new IllegalArgumentException("announcement stream: more than " + maxBytes + " bytes (expected: <= "
                    + maxBytes + ")");
        }
        while (data.hasRemaining()) {
            byte b = data.get();
            if (b == '\n') {
                line();
            } else if (lineLength == MAX_LINE_BYTES) {
                throw new IllegalArgumentException("announcement line " + (lines + 1) + ": more than " + MAX_LINE_BYTES
                        + " bytes (expected: <= " + ExtensionLimits.MAX_LINE_LENGTH + " characters and LF)");
            } else {
                line[lineLength++] = b;
            }
        }
    }

    /** The stream has ended: the transfer it announced, its first line the FSP line. */
    public RecordedTransfer end() {
        ended = true;
        if (lineLength > 0) {
            throw new IllegalArgumentException("announcement line " + (lines + 1) + ": the stream ended inside it"
                    + " (expected: every line ended by LF)");
        }
        if (announcements.isEmpty()) {
            throw new IllegalArgumentException("announcement stream: empty (expected: the FRET announcements of a transfer,"
                    + " the FSP line first)");
        }
        return new RecordedTransfer(announcements);
    }

    /** Bytes taken so far. */
    public long bytes() {
        return bytes;
    }

    private void line() {
        lines++;
        int length = lineLength > 0 && line[lineLength - 1] == '\r' ? lineLength - 1 : lineLength;
        lineLength = 0;
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(line, 0, length)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("announcement line " + lines + ": not UTF-8 (expected: an announcement)");
        }
        Announcement a;
        try {
            a = ExtensionCodec.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("announcement line " + lines + ": " + e.getMessage(), e);
        }
        boolean first = announcements.isEmpty();
        if (first != a instanceof Announcement.Transfer) {
            throw new IllegalArgumentException("announcement line " + lines + ": " + (first ? "not an FSP line (expected: the"
                    + " FSP line first)" : "a second FSP line (expected: one transfer per stream)"));
        }
        if (a instanceof Announcement.Transfer t) {
            if (t.blocks() > maxBlocks) {
                throw new IllegalArgumentException("announcement line 1: blocks: " + t.blocks() + " (expected: <= "
                        + maxBlocks + ", this server's max-blocks-per-transfer)");
            }
            if ((long) t.files() + t.directories() > maxBlocks) {
                throw new IllegalArgumentException("announcement line 1: files and directories: " + t.files() + " + "
                        + t.directories() + " (expected: <= " + maxBlocks + " together, this server's"
                        + " max-blocks-per-transfer)");
            }
            transfer = t;
        }
        if (a instanceof Announcement.Relay r) {
            if (++relayLines > MAX_RELAYS) {
                throw new IllegalArgumentException("announcement line " + lines + ": more than " + MAX_RELAYS
                        + " RELAY lines (expected: the relays of one transfer)");
            }
            Optional<String> refused = relays.refusal(r);
            if (refused.isPresent()) {
                throw new RelayNotAllowedException(refused.get());
            }
            // allowed, so a literal address: one relay named under many indices would take as many connections
            String at = new InetSocketAddress(HostPort.literal(r.host()).orElseThrow(), r.port()).toString();
            Integer earlier = relayIndexAt.putIfAbsent(at, r.index());
            if (earlier != null) {
                throw new IllegalArgumentException("announcement line " + lines + ": relay " + r.index() + " is relay "
                        + earlier + " again (expected: each relay once)");
            }
        }
        if (a instanceof Announcement.Space || a instanceof Announcement.Refused || a instanceof Announcement.Stopped) {
            String kind = a.getClass().getSimpleName();
            if (outcomeLines.merge(kind, 1, Integer::sum) > MAX_RELAYS) {
                throw new IllegalArgumentException("announcement line " + lines + ": more than " + MAX_RELAYS + " "
                        + kind.toUpperCase(java.util.Locale.ROOT) + " lines (expected: at most one per relay)");
            }
            return;
        }
        if (a instanceof Announcement.File && ++fileLines > transfer.files()) {
            throw new IllegalArgumentException("announcement line " + lines + ": more FILE lines than the FSP line's files="
                    + transfer.files() + " (expected: one per file)");
        }
        if (a instanceof Announcement.Directory && ++directoryLines > transfer.directories()) {
            throw new IllegalArgumentException("announcement line " + lines + ": more DIR lines than the FSP line's"
                    + " directories=" + transfer.directories() + " (expected: one per directory)");
        }
        if (a instanceof Announcement.Block && ++blockLines > maxBlocks) {
            throw new IllegalArgumentException("announcement line " + lines + ": more BLK lines than " + maxBlocks
                    + " (expected: one per block)");
        }
        announcements.add(a);
    }
}

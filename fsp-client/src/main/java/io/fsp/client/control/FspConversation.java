package io.fsp.client.control;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FgetRequest;
import io.fsp.extension.HeldRanges;
import io.fsp.extension.FspOptions;
import io.fsp.ftp.ReplyCode;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's side of the FSP extension (docs/protocol.md §1) on one logged-in control channel: the options
 * (FSPO), what an earlier run holds (FHAV), priorities (FPRI), a retrieve (FRET) read until its 226, blocks from
 * the origin (FGET), and a collection on the server (FCOL). Each reply is checked here; a refusal is a
 * {@link ControlException} with the server's code, naming the command and the server.
 */
public final class FspConversation {
    private static final Logger log = LoggerFactory.getLogger(FspConversation.class);
    /**
     * The longest the server may stay silent while it stripes (FRET) or collects (FCOL): striping pauses while every
     * relay is full, and the server gives a target up after 30 s; a collecting server sends a marker every second.
     */
    public static final Duration SILENCE = Duration.ofMinutes(5);
    /** {@link #announcements} without a deadline. */
    public static final LongSupplier NO_DEADLINE = () -> Long.MAX_VALUE;
    private static final Pattern MARKER_BYTES = Pattern.compile("Stripe Bytes Transferred: (\\d+)");

    /** How a read of FRET's announcements ended. */
    public enum End {
        /** The server's 226: every block is placed. */
        COMPLETE,
        /** The deadline came first. */
        DEADLINE,
        /** The reader asked to stop. */
        STOPPED
    }

    /** Takes FRET's announcements, one line at a time. */
    @FunctionalInterface
    public interface Announcements {
        /** One announcement as read (without {@code 151 }); false stops reading, the rest left unread. */
        boolean line(String text) throws IOException;
    }

    /** Something done between two replies of a long wait. */
    @FunctionalInterface
    public interface Tick {
        void run() throws IOException;
    }

    private final ControlChannel control;
    private final String server;
    private final Duration replyTimeout;
    /** What the current FRET is called in errors. */
    private String retrieve = "FRET";

    /**
     * @param server how errors name the server ({@code alice@a:2121}), empty for none
     * @param replyTimeout how long an ordinary reply may take (a FRET's announcements may take {@link #SILENCE})
     */
    public FspConversation(ControlChannel control, String server, Duration replyTimeout) {
        this.control = control;
        this.server = server.isEmpty() ? "" : server + ": ";
        this.replyTimeout = replyTimeout;
    }

    public ControlChannel control() {
        return control;
    }

    /** FSPO, answered before anything else is sent. */
    public void options(FspOptions options) throws IOException {
        ControlChannel.expect(control.command(options.command()), ReplyCode.COMMAND_OK.value(), server + options.command());
    }

    /**
     * FSPO, sent without waiting for its reply: the reply is checked before any later one is read (a round trip
     * saved). Only where the commands that follow do no harm should the options be refused.
     */
    public void pipelineOptions(FspOptions options) throws IOException {
        control.pipeline(options.command(), ReplyCode.COMMAND_OK.value(), server + options.command());
    }

    /**
     * FHAV: one line of what an earlier run holds verified. False when the server did not take it: it sends every
     * block again, and is not asked again.
     */
    public boolean claim(HeldRanges held) throws IOException {
        Reply r = control.command("FHAV " + ExtensionCodec.format(held));
        if (r.code() != ReplyCode.COMMAND_OK.value()) {
            log.info("server did not take FHAV ({}): every block is sent again", r);
            return false;
        }
        return true;
    }

    /** FPRI for each name, in this order: the files of the next FRET placed first. */
    public void prioritize(List<String> names) throws IOException {
        for (String name : names) {
            String command = "FPRI " + ExtensionCodec.formatPriority(name);
            ControlChannel.expect(control.command(command), ReplyCode.COMMAND_OK.value(), server + command);
        }
    }

    /** FRET {@code path}; its 150 is read. The announcements follow ({@link #announcements}). */
    public void retrieve(String path) throws IOException {
        retrieve = server + "FRET " + path;
        control.send("FRET " + path);
        ControlChannel.expect(control.read(), ReplyCode.OPENING_DATA_CONNECTION.value(), retrieve);
    }

    /**
     * FRET {@code path} with some blocks straight from the server: EPSV and FRET go out together, the data
     * connection is opened, FRET's 150 is read. The announcements follow ({@link #announcements}).
     */
    public Socket retrieveDirect(String path, Duration connectTimeout) throws IOException {
        retrieve = server + "FRET " + path;
        control.write("EPSV");
        control.send("FRET " + path);
        Socket data = control.openData(ControlChannel.epsvPort(control.read()), connectTimeout);
        try {
            ControlChannel.expect(control.read(), ReplyCode.OPENING_DATA_CONNECTION.value(), retrieve);
            return data;
        } catch (IOException | RuntimeException e) {
            data.close();
            throw e;
        }
    }

    /**
     * Reads the FRET's announcements, each to {@code to}, until the server's 226, the {@code deadline} (a
     * {@link System#nanoTime()}, asked before each reply; {@link #NO_DEADLINE}: none) or until {@code to} stops. A
     * reply other than 151 or 226, or a silence of {@link #SILENCE} before the deadline, is a {@link ControlException}.
     */
    public End announcements(Announcements to, LongSupplier deadline) throws IOException {
        long waiting = -1;
        while (true) {
            long d = deadline.getAsLong();
            long left = d == Long.MAX_VALUE ? Long.MAX_VALUE : d - System.nanoTime();
            if (left <= 0) {
                return End.DEADLINE;
            }
            boolean untilDeadline = left <= SILENCE.toNanos();
            // whole milliseconds, rounded up: a read that times out has waited until the deadline
            long wait = Math.max(1, (Math.min(left, SILENCE.toNanos()) + 999_999) / 1_000_000);
            if (wait != waiting) { // set only when it changes: a transfer has up to millions of lines
                control.readTimeout(Duration.ofMillis(wait));
                waiting = wait;
            }
            Reply r;
            try {
                r = control.read();
            } catch (SocketTimeoutException e) {
                if (untilDeadline) {
                    return End.DEADLINE;
                }
                throw new ControlException(retrieve + ": no reply for " + SILENCE.toMinutes() + " minutes", 0, e);
            }
            if (r.code() == ReplyCode.TRANSFER_COMPLETE.value()) {
                control.readTimeout(replyTimeout);
                return End.COMPLETE;
            }
            if (r.code() != ReplyCode.FSP_ANNOUNCEMENT.value()) {
                throw new ControlException(retrieve + ": server answered " + r.code() + " "
                        + ControlChannel.abbreviate(r.text()) + " (expected: 151 or 226)", r.code(), null);
            }
            if (!to.line(r.text())) {
                control.readTimeout(replyTimeout);
                return End.STOPPED;
            }
        }
    }

    /** One announcement as the codec reads it; a line it refuses is a {@link ControlException} quoting it. */
    public static Announcement parse(String text) throws ControlException {
        try {
            return ExtensionCodec.parse(text);
        } catch (RuntimeException e) {
            throw refused(text, e);
        }
    }

    /** An announcement this client cannot take: the line (its start) and why. */
    public static ControlException refused(String text, RuntimeException e) {
        return new ControlException("announcement '" + text.substring(0, Math.min(200, text.length())) + "': "
                + e.getMessage(), ReplyCode.FSP_ANNOUNCEMENT.value(), e);
    }

    /**
     * FGET {@code request} on a new data connection, which is returned once FGET's 150 is read; after the blocks,
     * {@link #fetched()} reads the 226.
     */
    public Socket fget(FgetRequest request, Duration connectTimeout) throws IOException {
        int port = control.epsv();
        Socket data = control.openData(port, connectTimeout);
        try {
            ControlChannel.expect(control.command("FGET " + request.format()), ReplyCode.OPENING_DATA_CONNECTION.value(),
                    server + "FGET");
            return data;
        } catch (IOException | RuntimeException e) {
            data.close();
            throw e;
        }
    }

    /** The 226 that ends an FGET, once its blocks were read. */
    public void fetched() throws IOException {
        ControlChannel.expect(control.read(), ReplyCode.TRANSFER_COMPLETE.value(), server + "FGET");
    }

    /**
     * FCOL {@code path} (this server collects what the lines sent on the returned connection announce): EPSV, FCOL
     * and its 150, then the data connection, secured with TLS. {@link #collection} reads the outcome.
     */
    public Socket collect(String path, Duration connectTimeout) throws IOException {
        int port = control.epsv();
        ControlChannel.expect(control.command("FCOL " + path), ReplyCode.OPENING_DATA_CONNECTION.value(),
                server + "FCOL " + path);
        return control.secureData(control.openData(port, connectTimeout));
    }

    /**
     * FCOL's performance markers until its final reply, which is returned: each marker's bytes go to
     * {@code verified}, and {@code tick} runs after every reply. A silence of {@link #SILENCE} is an error.
     */
    public Reply collection(LongConsumer verified, Tick tick) throws IOException {
        control.readTimeout(SILENCE);
        while (true) {
            Reply r;
            try {
                r = control.read();
            } catch (SocketTimeoutException e) {
                throw new ControlException(server + "FCOL: no reply for " + SILENCE.toMinutes() + " minutes", 0, e);
            }
            tick.run();
            if (r.code() != ReplyCode.PERF_MARKER.value()) {
                control.readTimeout(replyTimeout);
                return r;
            }
            Matcher m = MARKER_BYTES.matcher(String.join("\n", r.lines()));
            if (m.find()) {
                verified.accept(Long.parseLong(m.group(1)));
            }
        }
    }
}

package io.fsp.server.stripe;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionLimits;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.RelayTimeoutException;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.token.TransferId;
import io.netty.channel.ConnectTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What each relay said of a transfer, as the client reads it (docs/protocol.md §1, FSP extension): {@code REFUSED}
 * for a relay left out when the transfer was opened, {@code SPACE} for one that took it, {@code STOPPED} for one
 * that takes no more of its blocks. The reason is the relay's error code, or {@code UNREACHABLE}, {@code TIMEOUT} or
 * {@code FAILED} when the connection failed.
 */
public final class RelayOutcomes {
    private RelayOutcomes() {
    }

    /** {@code REFUSED} for relay {@code e}, which failed to open the transfer with {@code error}. */
    public static Announcement.Refused refused(RelayEndpoint e, Throwable error) {
        Throwable cause = unwrap(error);
        String reason = cause instanceof RelayRefusedException r ? r.code().name() : timedOut(cause) ? "TIMEOUT"
                : "UNREACHABLE";
        return new Announcement.Refused(e.host(), e.port(), reason, text(cause));
    }

    /**
     * {@code SPACE} for every relay that took the transfer: what it reserved (STATUS) of the {@code declared} bytes;
     * a relay that does not say (an older one, or no answer in {@code timeout}) is taken at {@code declared}.
     */
    public static List<Announcement.Space> spaces(Map<Integer, RelayConnection> relays, TransferId transfer,
                                                  long declared, Duration timeout) {
        Map<Integer, CompletableFuture<RelayMessage.Status>> asked = new java.util.TreeMap<>();
        relays.forEach((i, c) -> asked.put(i, c.status(transfer)));
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Announcement.Space> spaces = new ArrayList<>();
        asked.forEach((i, status) -> {
            long reserved = declared;
            try {
                long r = status.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS).reserved();
                if (r != RelayMessage.Status.UNKNOWN) {
                    reserved = Math.min(r, declared);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // unknown: the transfer goes on as declared, and a relay that fills up says so (STOPPED)
            }
            spaces.add(new Announcement.Space(i, reserved, declared));
        });
        return spaces;
    }

    /** {@code STOPPED} for relay {@code index}: full ({@code NO_SPACE}), refused with a code, timed out, or failed. */
    static Announcement.Stopped stopped(int index, Throwable error) {
        Throwable cause = unwrap(error);
        String reason = cause instanceof RelayRefusedException r ? r.code().name() : timedOut(cause) ? "TIMEOUT"
                : "FAILED";
        return new Announcement.Stopped(index, reason, text(cause));
    }

    private static boolean timedOut(Throwable cause) {
        return cause instanceof TimeoutException || cause instanceof RelayTimeoutException
                || cause instanceof ConnectTimeoutException;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** What the relay said, or the failure's message; never empty, at most the announcement's limit. */
    static String text(Throwable cause) {
        String text = cause instanceof RelayRefusedException r ? r.text() : cause.getMessage();
        if (text == null || text.isBlank()) {
            text = cause.getClass().getSimpleName();
        }
        return text.length() > ExtensionLimits.MAX_REASON_TEXT ? text.substring(0, ExtensionLimits.MAX_REASON_TEXT)
                : text;
    }
}

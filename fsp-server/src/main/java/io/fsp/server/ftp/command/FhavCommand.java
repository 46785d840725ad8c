package io.fsp.server.ftp.command;

import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.stripe.ResumeClaim;
import io.fsp.server.stripe.StripeContext;

/**
 * {@code FHAV <manifest> <file-index> <from>-<to>[,<from>-<to>…]} — FSP extension (docs/protocol.md §1, "FSP
 * extension"): a resuming client names byte ranges of a file that it holds verified from an earlier run, so
 * that the session's next FRET of the same, unchanged files does not read and send them again. Repeatable;
 * all ranges of one line or none (501 naming the problem).
 */
public final class FhavCommand extends FspExtensionCommand {
    static final int MAX_RANGES_PER_LINE = 256;

    public FhavCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FHAV";
    }

    @Override
    public String syntax() {
        return "FHAV <manifest-sha256> <file-index> <from>-<to>[,<from>-<to>...]";
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String[] w = request.hasArgument() ? request.argument().trim().split(" ") : new String[0];
        if (w.length != 3) {
            session.reply(Replies.badArguments("FHAV: " + w.length + " arguments (expected: " + syntax() + ")"));
            return;
        }
        try {
            int file = parseNumber("file index", w[1], Integer.MAX_VALUE);
            String[] ranges = w[2].split(",", -1);
            if (ranges.length > MAX_RANGES_PER_LINE) {
                throw new IllegalArgumentException("ranges: " + ranges.length + " (expected: <= " + MAX_RANGES_PER_LINE
                        + " per line)");
            }
            long[] bounds = new long[ranges.length * 2];
            for (int i = 0; i < ranges.length; i++) {
                int dash = ranges[i].indexOf('-');
                if (dash <= 0) {
                    throw new IllegalArgumentException("range: '" + ranges[i] + "' (expected: from-to)");
                }
                bounds[2 * i] = parseNumber("from", ranges[i].substring(0, dash), Long.MAX_VALUE);
                bounds[2 * i + 1] = parseNumber("to", ranges[i].substring(dash + 1), Long.MAX_VALUE);
                if (bounds[2 * i + 1] <= bounds[2 * i]) {
                    throw new IllegalArgumentException("range: " + ranges[i] + " (expected: from < to)");
                }
            }
            ResumeClaim claim = stripe.session(session).resumeClaim(w[0]);
            for (int i = 0; i < ranges.length; i++) {
                claim.add(file, bounds[2 * i], bounds[2 * i + 1]);
            }
            session.reply(Replies.ok("FSP " + ranges.length + " ranges of file " + file + " held for the next FRET"));
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments(e.getMessage()));
        }
    }

    private static long parseNumber(String what, String v, long max) {
        if (v.isEmpty() || v.length() > 19 || !v.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(what + ": '" + v + "' (expected: a number)");
        }
        long n = Long.parseLong(v);
        if (n > max) {
            throw new IllegalArgumentException(what + ": " + v + " (expected: <= " + max + ")");
        }
        return n;
    }

    private static int parseNumber(String what, String v, int max) {
        return (int) parseNumber(what, v, (long) max);
    }
}
